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
    from sheepsim.analysis.sweep import Plan, _equilibrium_text
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
