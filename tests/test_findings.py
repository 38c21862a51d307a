"""The words of the findings: edges, degenerate cells, confirmed equilibria, cell ink."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib import colormaps

from sheepsim.analysis.sweep import Check, follow_up_at
from sheepsim.report import findings as F
from sheepsim.report.plots import text_colour


def constructed(players: int, games: int, winner: np.ndarray, turns: np.ndarray, capped=None) -> pd.DataFrame:
    df = pd.DataFrame({"game": np.arange(games), "rotation": np.arange(games) % players, "num_players": players,
                       "winner": winner, "cowinners": np.where(winner >= 0, 1 << np.maximum(winner, 0), 0),
                       "turns": turns, "capped": np.zeros(games, bool) if capped is None else capped})
    for seat in range(players):
        df[f"score_{seat}"] = (winner == seat).astype(int)
        df[f"policy_{seat}"] = "greedy"
    return df


def test_negative_edges_read_less_often() -> None:
    assert F.edge_words(-0.031, -0.036, -0.025, 0.5) == \
        "seat 0 wins 3.1 [2.5, 3.6] points less often than the fair 50.0%"
    assert F.edge_words(0.026, 0.025, 0.027).startswith("seat 0 wins 2.6 [2.5, 2.7] points more often")
    assert "-0.0" not in F.edge_words(-0.0002, -0.002, 0.001)
    # an interval holding zero is written signed, never as "-0.4 points less often"
    assert F.edge_words(-0.018, -0.039, 0.004, 1 / 3) == "seat 0's edge over the fair 33.3% is -1.8 [-3.9, +0.4] points"
    assert F.edge_words(0.011, -0.004, 0.026) == "seat 0's edge over the fair share is +1.1 [-0.4, +2.6] points"
    assert F.verdict(-0.036, -0.025) == "seat 0 is at a disadvantage"


def test_degenerate_cell_is_named() -> None:
    games = 300
    fixed = constructed(3, games, np.zeros(games, int), np.full(games, 13))       # seat 0 always, 13 turns
    rng = np.random.default_rng(0)
    fair = constructed(3, games, rng.integers(0, 3, games), rng.integers(20, 40, games))
    lines = F.degenerate_lines({"colours 5, colours per card 3": fixed, "colours 6, colours per card 2": fair})
    assert len(lines) == 1 and lines[0].startswith("**colours 5, colours per card 3**")
    assert "seat 0 wins 100.0%" in lines[0] and "seat 1 never wins" in lines[0]
    assert "every game lasts exactly 13 turns" in lines[0] and "before anyone chooses" in lines[0]


def test_cells_with_the_same_oddity_share_one_line() -> None:
    lines = F.grouped({"2 players, target 3": ["short"], "3 players, target 3": ["short"], "ok": []})
    assert lines == ["**2 players, target 3; 3 players, target 3**: short."]


def test_capped_and_trivially_short_games_are_called_out() -> None:
    games = 200
    rng = np.random.default_rng(1)
    capped = np.arange(games) < 10
    notes = F.oddities(constructed(2, games, rng.integers(0, 2, games), np.where(capped, 500, 2), capped), "flips")
    assert any("hit the turn cap" in n and n.startswith("5.0%") for n in notes)
    assert any("within the first round" in n for n in notes)


def test_confirmed_means_the_fresh_seeds_keep_it() -> None:
    # as in the 4-player threshold report: against 7 the fresh seeds keep only 8
    seven = Check(7, [6, 7, 8], 8, (0.257, 0.251, 0.264), [8], -0.012)
    eight = Check(8, [7, 8, 9], 8, (0.252, 0.246, 0.258), [8], 0.0)
    nine = Check(9, [7, 8, 9], 8, (0.253, 0.247, 0.259), [8, 9], -0.004)
    assert not seven.confirmed and eight.confirmed and nine.confirmed
    assert follow_up_at([seven, eight, nine]) is eight      # the one that is its own fresh best
    assert follow_up_at([seven, nine]) is nine
    assert follow_up_at([seven]) is None                    # nothing confirmed: no follow-up


def test_text_colour_flips_on_dark_cells() -> None:
    diverging, sequential = colormaps["RdBu_r"], colormaps["viridis"]
    assert text_colour(diverging(1.0)) == "white" and text_colour(diverging(0.0)) == "white"
    assert text_colour(diverging(0.5)) == "black"
    assert text_colour(sequential(0.0)) == "white" and text_colour(sequential(1.0)) == "black"


def test_equilibrium_words_claim_only_what_the_fresh_seeds_support() -> None:
    from sheepsim.report.layouts.sweep import Plan, _equilibrium_text
    ks = [6.0, 7.0, 8.0, 9.0, 10.0]
    plan = Plan(None, [4], "threshold", "threshold", "k", ks, ks, 1, 1, {}, 0.95)
    seven = Check(7, [6, 7, 8], 8, (0.257, 0.251, 0.264), [8], -0.012)
    eight = Check(8, [7, 8, 9], 8, (0.252, 0.246, 0.258), [8], 0.0)
    nine = Check(9, [7, 8, 9], 8, (0.253, 0.247, 0.259), [8, 9], -0.004)
    text = _equilibrium_text(plan, 4, pd.DataFrame(), [7, 8, 9], [seven, eight, nine], eight)
    assert "Fresh seeds confirm 8 and 9" in text and "7 is not confirmed" in text
    assert "plays every seat at k = 8" in text and "confirm 7" not in text
    text = _equilibrium_text(plan, 4, pd.DataFrame(), [7], [seven], None)
    assert "confirm no candidate" in text and "no follow-up is played" in text


def test_the_verdict_and_the_printed_interval_agree() -> None:
    # 4p mcts:iters=16 of the seat_advantage battlesheep-strong-play: the upper bound is below zero, so it
    # prints as -0.04, not 0.0, beside "at a disadvantage"
    assert F.edge_words(-0.007, -0.013, -0.0004, 0.25) == \
        "seat 0 wins 0.7 [0.04, 1.3] points less often than the fair 25.0%"
    assert F.verdict(-0.013, -0.0004) == "seat 0 is at a disadvantage"
    # a lower bound just below zero prints signed beside "no detectable edge"
    assert F.edge_words(0.002, -0.0003, 0.004) == "seat 0's edge over the fair share is +0.2 [-0.03, +0.4] points"
    assert F.verdict(-0.0003, 0.004) == "no detectable edge for seat 0"
    # a value that rounds to zero is written signed-interval style, never "as often as"
    assert F.edge_words(0.0, -0.059, 0.071, 0.5) == "seat 0's edge over the fair 50.0% is 0.0 [-5.9, +7.1] points"
    # over many intervals: the words follow the signs of the bounds as printed
    rng = np.random.default_rng(0)
    for lo, hi in np.sort(rng.normal(0, 0.002, (500, 2)), axis=1):
        text = F.points(lo + (hi - lo) / 2, lo, hi, signed=True)
        shown_lo, shown_hi = (float(x) for x in text.split("[")[1].rstrip("]").split(", "))
        words = F.verdict(lo, hi)
        if shown_lo > 0:
            assert words == "seat 0 is favoured", text
        elif shown_hi < 0:
            assert words == "seat 0 is at a disadvantage", text
        else:
            assert words == "no detectable edge for seat 0", text


def seats_with(win_rates: list[float], p: float) -> pd.DataFrame:
    n = len(win_rates)
    seats = pd.DataFrame({"seat": range(n), "win_rate": win_rates, "win_rate_lo": [w - 0.014 for w in win_rates],
                          "win_rate_hi": [w + 0.014 for w in win_rates], "fair_rate": 1 / n})
    seats.attrs["chi2_p"] = p
    return seats


def test_unequal_seats_are_said_even_when_seat_0_shows_no_edge() -> None:
    # 3p mcts:iters=256 of the seat_advantage battlesheep-strong-play: seat 0 -0.5 [-1.8, +0.9], p = 0.000193
    seats = seats_with([0.328, 0.312, 0.360], 0.000193)
    assert F.unequal_seats(seats, -0.018, 0.009) == ("; but the seats are not equal (chi-square p = 0.00019): "
                                                     "seat 2 wins most, 36.0% [34.6, 37.4] against the fair 33.3%")
    assert F.unequal_seats(seats_with([0.328, 0.312, 0.360], 0.2), -0.018, 0.009) == ""
    # seat 0 wins most and its edge already says so: nothing to add
    assert F.unequal_seats(seats_with([0.36, 0.32, 0.32], 1e-9), 0.013, 0.041) == ""
    # seat 0 detectably behind while another seat leads: said
    assert "seat 1 wins most" in F.unequal_seats(seats_with([0.30, 0.37, 0.33], 1e-320), -0.047, -0.019)
    assert "p < 1e-300" in F.unequal_seats(seats_with([0.30, 0.37, 0.33], 1e-320), -0.047, -0.019)


def test_the_seat_advantage_headline_answers_how_the_edge_changes_with_strength() -> None:
    from sheepsim.report.layouts.seat_advantage import headline
    rows = [(2, "random", 0.026, 0.025, 0.027), (2, "mcts:iters=16", -0.033, -0.040, -0.026),
            (2, "mcts:iters=256", 0.042, 0.028, 0.056), (3, "random", 0.019, 0.018, 0.020),
            (3, "mcts:iters=256", -0.005, -0.018, 0.009)]
    edges = pd.DataFrame(rows, columns=["players", "policy", "edge", "edge_lo", "edge_hi"])
    assert headline(edges) == (
        "Seat 0's edge over the fair share, from the first policy listed to the last: 2 players from "
        "+2.6 [+2.5, +2.7] points under random to +4.2 [+2.8, +5.6] under mcts:iters=256 (favoured under random, "
        "mcts:iters=256; at a disadvantage under mcts:iters=16); 3 players from +1.9 [+1.8, +2.0] points under "
        "random to -0.5 [-1.8, +0.9] under mcts:iters=256 (favoured under random; no detectable edge under "
        "mcts:iters=256).")
    assert headline(edges[edges["policy"] == "random"]) == (
        "Seat 0's edge over the fair share under random: at 2 players +2.6 [+2.5, +2.7] points (favoured); "
        "at 3 players +1.9 [+1.8, +2.0] points (favoured).")


def test_confirmed_says_what_the_test_showed_and_the_headline_names_the_equilibria() -> None:
    from sheepsim.report.layouts.sweep import Plan, _answer, _equilibrium_text, _headline
    ks = [6.0, 7.0, 8.0, 9.0, 10.0]
    plan = Plan(None, [4], "threshold", "threshold", "k", ks, ks, 1, 1, {}, 0.95)
    seven = Check(7, [6, 7, 8], 8, (0.257, 0.251, 0.264), [8], -0.012)
    eight = Check(8, [7, 8, 9], 8, (0.252, 0.246, 0.258), [8], 0.0)
    nine = Check(9, [7, 8, 9], 8, (0.253, 0.247, 0.259), [8, 9], -0.004)
    text = _equilibrium_text(plan, 4, pd.DataFrame(), [7, 8, 9], [seven, eight, nine], eight)
    assert ("Fresh seeds confirm 8 and 9: against a field of itself each is not significantly worse than the best "
            "response at 95% (paired)") in text
    assert "k = 8 significantly beats it on fresh seeds" in text
    assert "best point estimate against itself" in text and "the best response to itself" not in text
    answers = [_answer(plan, 4, pd.DataFrame(), [seven, eight, nine]), _answer(plan, 5, pd.DataFrame(), [seven])]
    assert _headline(plan, answers) == (
        "Symmetric equilibria of threshold:k confirmed on fresh seeds (each, against a field of itself, not "
        "significantly worse than the best response at 95%): at 4 players k = 8 and 9; at 5 players none confirmed.")


def test_the_best_fixed_rule_is_a_set_when_the_rules_cannot_be_told_apart() -> None:
    from sheepsim.analysis.learn_stop import best_among
    from sheepsim.report.layouts.learn_stop import best_words
    rng = np.random.default_rng(2)
    games = 4000
    # learned, then three fixed rules: two alike (50%), one far worse (30%)
    wins = np.stack([rng.random(games) < r for r in (0.57, 0.50, 0.505, 0.30)]).astype(np.int8)
    names = ["learned", "threshold:k=6", "threshold:k=7", "threshold:k=9"]
    top, members = best_among(wins, [1, 2, 3], 0.95)
    assert set(members) == {1, 2} and top in members
    assert best_words(names, [1, 2, 3], members, top, "fixed rule") == \
        f"of the best fixed rules {{threshold:k=6, threshold:k=7}}, {names[top]}"
    top, members = best_among(wins, [1, 3], 0.95)
    assert (top, members) == (1, [1])
    assert best_words(names, [1, 3], members, top, "fixed rule") == \
        "the best fixed rule, threshold:k=6, significantly better than the others,"
    assert best_words(names, [3], [3], 3, "fixed rule") == "the only fixed rule, threshold:k=9,"
    # the state-dependent side says "found": the best of those tested, not a proven optimum
    top, members = best_among(wins, [1, 2], 0.95)
    assert best_words(names, [1, 2], members, top, "state-dependent policy found",
                      "state-dependent policies found") == \
        f"of the best state-dependent policies found {{threshold:k=6, threshold:k=7}}, {names[top]}"


def test_a_headline_with_one_side_under_every_policy_says_so() -> None:
    from sheepsim.report.layouts.seat_advantage import headline
    edges = pd.DataFrame([(2, "random", 0.026, 0.025, 0.027), (2, "greedy", 0.018, 0.016, 0.020),
                          (3, "random", 0.019, 0.018, 0.020)],
                         columns=["players", "policy", "edge", "edge_lo", "edge_hi"])
    assert headline(edges) == (
        "Seat 0's edge over the fair share, from the first policy listed to the last: 2 players from "
        "+2.6 [+2.5, +2.7] points under random to +1.8 [+1.6, +2.0] under greedy (favoured under every policy); "
        "at 3 players +1.9 [+1.8, +2.0] points under random (favoured).")
