"""The converge analysis kind (analysis/converge.py): its stopping rule, its verdicts
(its report, report/layouts/converge.py), a small run end to end, and bad input."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

from conftest import assert_bad
from conftest import run_cli as run
from sheepsim.analysis import converge as C
from sheepsim.games import get_game
from sheepsim.policies import seat_specs
from sheepsim.report.layouts import converge as L
from sheepsim.report import saved
from sheepsim.runner import simulate
from sheepsim.start import kernel_aux


def _plan(**kw) -> C.Plan:
    fields = dict(game=None, players=[2], rules={}, ladder=["mcts:iters=64", "mcts:iters=128", "mcts:iters=256",
                                                              "optimal"], family=3, games=100, halfwidth=0.015,
                  tolerance=0.01, anchors=["random"], strength_players=2, strength_games=10, exact=None)
    fields.update(kw)
    return C.Plan(**fields)


def _row(level, edge, half, players=2):
    return {"players": players, "level": level, "edge": edge, "edge_lo": edge - half, "edge_hi": edge + half,
            "halfwidth": half, "decided": 1000}


@pytest.mark.parametrize("below,above,settles", [
    ((0.050, 0.015), (0.058, 0.015), True),      # within a point, both narrow
    ((0.050, 0.015), (0.061, 0.015), False),     # 1.1 points apart
    ((0.050, 0.020), (0.052, 0.015), False),     # close, but the level below is too wide to tell
    ((0.050, 0.0152), (0.050, 0.0151), True),    # a hair over the target after the last chunk is the target
])
def test_two_levels_settle_only_when_close_and_narrow(below, above, settles):
    assert C.settled(_row("a", *below), _row("b", *above), _plan()) is settles


def test_the_verdicts_say_where_the_edge_stops_or_that_it_still_moves():
    answers = pd.DataFrame([_row("mcts:iters=64", -0.05, 0.01), _row("mcts:iters=128", 0.03, 0.012),
                            _row("mcts:iters=256", 0.035, 0.012),
                            _row("mcts:iters=64", 0.00, 0.01, 3), _row("mcts:iters=128", 0.04, 0.01, 3)])
    p = _plan(players=[2, 3])
    said = L.verdicts(answers, {2: 1}, p)
    assert said[2] == ("stops moving from mcts:iters=128 on: +3.0 [+1.8, +4.2] points there, +3.5 [+2.3, +4.7] at "
                       "mcts:iters=256")
    assert said[3] == ("is still moving at the strongest level played: +4.0 [+3.0, +5.0] points at mcts:iters=128, "
                       "0.0 [-1.0, +1.0] at mcts:iters=64")
    text = L.headline(answers, {2: 1}, p)
    assert text.startswith("Seat 0's edge against strength (mcts): 2 players: stops moving from ")
    assert "; 3 players: is still moving" in text


def test_two_strongest_levels_that_agree_with_wide_intervals_are_too_wide_to_tell():
    # `games` ran out at half-widths of 2.5 points: the edges agree within the point of
    # tolerance, but not "stops moving" (too wide to settle) nor "still moving"
    answers = pd.DataFrame([_row("mcts:iters=64", 0.030, 0.025), _row("mcts:iters=128", 0.036, 0.025)])
    said = L.verdicts(answers, {}, _plan())
    assert said[2] == ("may have stopped moving, too wide to tell: +3.6 [+1.1, +6.1] points at mcts:iters=128, "
                       "+3.0 [+0.5, +5.5] at mcts:iters=64 agree within 1 point, but settling needs half-widths "
                       "of 1.5 points")


def test_two_strongest_levels_apart_by_less_than_their_intervals_have_not_settled():
    # 1,000 games a level (half-widths of 3.1 points): 1.6 points apart is more than the
    # point of tolerance but well within the intervals, neither "still moving" nor settled;
    # 10 points apart with the same intervals is still moving
    p = _plan()
    close = pd.DataFrame([_row("mcts:iters=64", -0.015, 0.031), _row("mcts:iters=128", 0.001, 0.031)])
    assert L.verdicts(close, {}, p)[2] == (
        "has not settled, too wide to tell whether it still moves: +0.1 [-3.0, +3.2] points at mcts:iters=128, "
        "-1.5 [-4.6, +1.6] at mcts:iters=64; the edge moved 1.6 points, more than the tolerance of 1 point but "
        "within the two intervals")
    far = pd.DataFrame([_row("mcts:iters=64", -0.05, 0.031), _row("mcts:iters=128", 0.05, 0.031)])
    assert L.verdicts(far, {}, p)[2].startswith("is still moving at the strongest level played: +5.0 ")


def _seated(level, shares, half=0.01):
    """A 3-player level's row with every seat's share (of decided games)."""
    row = _row(level, shares[0] - 1 / 3, half, players=3)
    for k, x in enumerate(shares):
        row[f"seat{k}"], row[f"seat{k}_lo"], row[f"seat{k}_hi"] = x, x - half, x + half
    return row


def test_an_edge_that_stands_still_while_other_seats_trade_places_has_not_settled():
    # 3 players: seat 0's share the same at both levels, seats 1 and 2 swap 8 points
    below, above = _seated("mcts:iters=64", [0.34, 0.30, 0.36]), _seated("mcts:iters=128", [0.34, 0.38, 0.28])
    p = _plan(players=[3])
    assert C.moved(below, above) == (pytest.approx(0.08), "seat1")
    assert not C.settled(below, above, p)
    assert C.settled(below, _seated("mcts:iters=128", [0.345, 0.295, 0.36]), p)
    said = L.verdicts(pd.DataFrame([below, above]), {}, p)[3]
    assert said.startswith("is still moving at the strongest level played: +0.7 [-0.3, +1.7] points at mcts:iters=128")
    assert said.endswith("; the edge agrees, but seat 1's share moved 8.0 points (30.0% to 38.0%)")
    lines = L._findings(pd.DataFrame([below, above]), pd.DataFrame({"level": ["mcts:iters=64"]}), {}, p)
    assert "3 players, from mcts:iters=64 to mcts:iters=128: seat 1 gains most (30.0% [29.0, 31.0] to 38.0% " \
        "[37.0, 39.0] of decided games), seat 2 loses most (36.0% [35.0, 37.0] to 28.0% [27.0, 29.0])." in lines


def test_an_exact_answer_outside_the_strongest_interval_is_said():
    # Pig's exact first-player share, 53.06%: a search settling at 51% has converged wrongly
    answers = pd.DataFrame([_row("mcts:iters=64", 0.008, 0.01), _row("mcts:iters=128", 0.010, 0.01),
                            _row("optimal", 0.0306, 0.01)])
    p = _plan(ladder=["mcts:iters=64", "mcts:iters=128", "optimal"], family=2, exact=0.5306)
    # the stopping rule settles (two levels within a point), but the headline must not say
    # "stops moving" where the exact answer is outside (Pig's calibration: mcts settles
    # at +2.3 points from 64 iterations and sits at +1.6 at 4096, against the exact +3.06)
    text = L.headline(answers, {2: 0}, p)
    assert "stops moving" not in text and "2 players: settles within the tolerance from mcts:iters=64 on: " in text
    assert text.endswith(
        ", but not at the answer; the exact answer under perfect play, seat 0 winning 53.06%, is outside the "
        "strongest search level's interval.")
    lines = L._findings(answers, pd.DataFrame({"level": ["mcts:iters=64"]}), {2: 0}, p)
    # the findings say so too (the first Pig calibration's first finding said "stops moving")
    assert not any("stops moving" in x for x in lines)
    assert lines[0].startswith("**2 players**: seat 0's edge settles within the tolerance from mcts:iters=64 on")
    assert any("optimal: seat 0 wins" in x and "is inside its interval" in x for x in lines)
    assert any("does not reach the exact answer" in x for x in lines)


def _analysis(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "a.toml"
    path.write_text(text)
    return path


def test_a_small_pig_run_climbs_its_ladder_and_writes_its_report(tmp_path):
    path = _analysis(tmp_path, 'name = "c"\nkind = "converge"\ngame = "pig"\nplayers = 2\n'
                               'policy = "mcts:rollout=greedy"\nlevels = [2, 4, 8]\ntop = ["hold:t=25"]\nplay_all = true\n'
                               'games = 3000\nhalfwidth = 0.1\ntolerance = 0.4\nanchors = ["random"]\n'
                               'strength_games = 100\nexact = 0.5306\n')
    result = run("run", str(path), "--reports", str(tmp_path / "rep"), "-q")
    assert result.exit_code == 0, result.output
    text = (tmp_path / "rep" / "c.md").read_text()
    # a tolerance of 40 points settles at once (2 and 4 iterations agree); play_all climbs on
    # to 8 and says whether it stayed there, and hold:t=25 (top) plays in any case
    headline = text.split("## Findings\n\n")[1].split("\n")[0]
    assert headline.startswith("Seat 0's edge against strength (mcts): 2 players: stops moving from "), headline
    assert "from mcts:iters=2,rollout=greedy" in headline and "exact answer under perfect play" in headline
    levels = re.findall(r"^\| 2 \| (\S+) \| (\d+) \|", text, re.M)
    assert [x for x, _ in levels] == ["mcts:iters=2,rollout=greedy", "mcts:iters=4,rollout=greedy",
                                      "mcts:iters=8,rollout=greedy", "hold:t=25"]
    assert "- 2 players, the levels above: " in text and "at mcts:iters=8,rollout=greedy; " in text
    # sequential stopping: a half-width of 10 points needs a few hundred games, not 3,000
    assert all(int(n) < 3000 and int(n) % C.CHUNK == 0 for _, n in levels), levels
    for name in ("edge.png", "strength.png"):
        assert (tmp_path / "rep" / "c" / name).stat().st_size > 10_000
    data = saved.read_sidecar(tmp_path / "rep" / "c.md")
    assert data is not None and data["findings"]


_SMALL = ('name = "c"\nkind = "converge"\ngame = "pig"\nplayers = 2\npolicy = "mcts:rollout=greedy"\n'
          'levels = [2, 4]\ngames = 1000\nhalfwidth = 0.1\ntolerance = 0.01\nanchors = ["random"]\n'
          'strength_games = 300\n')


def _levels(report: Path) -> list[tuple[str, ...]]:
    """The answer table's rows, without their run times."""
    return [tuple(row.split(" | ")[:-1]) for row in re.findall(r"^\| 2 \| (.*) \|$", report.read_text(), re.M)]


def test_an_interrupted_run_resumes_where_it_stopped_and_equals_an_unbroken_one(tmp_path, monkeypatch):
    path = _analysis(tmp_path, _SMALL)
    assert run("run", str(path), "--reports", str(tmp_path / "whole"), "-q").exit_code == 0
    selfplay, calls = C._selfplay, []

    def interrupted(*args):
        calls.append(args[1])
        if len(calls) == 2:              # the second level's self-play: the first's is on disk
            raise KeyboardInterrupt
        return selfplay(*args)

    monkeypatch.setattr(C, "_selfplay", interrupted)
    assert run("run", str(path), "--reports", str(tmp_path / "broken"), "-q").exit_code != 0
    kept = tmp_path / "broken" / ".runs" / "c"
    folders = set(kept.iterdir())
    assert len(folders) == 4                    # 2 against random, its self-play, 4 against 2 and random
    written = {f: f.stat().st_mtime_ns for d in folders for f in d.glob("chunk-*")}
    monkeypatch.setattr(C, "_selfplay", selfplay)
    resumed = []

    def simulate_kept(*args, **kw):             # the finished runs are read, not played again
        run_ = simulate(*args, **kw)
        resumed.append(kw["out"])
        assert {f: f.stat().st_mtime_ns for f in kw["out"].glob("chunk-*") if f in written} == \
            {f: t for f, t in written.items() if f.parent == kw["out"]}
        return run_

    monkeypatch.setattr(C, "simulate", simulate_kept)
    again = run("run", str(path), "--reports", str(tmp_path / "broken"), "-q")
    assert again.exit_code == 0, again.output
    assert _levels(tmp_path / "broken" / "c.md") == _levels(tmp_path / "whole" / "c.md") != []
    assert folders <= set(resumed) and not kept.exists()     # read again, then removed


@pytest.mark.parametrize("body,needles", [
    ('kind = "converge"\ngame = "pig"\npolicy = "mcts"\nlevels = [8]\n', ["`levels` must list at least two"]),
    ('kind = "converge"\ngame = "pig"\npolicy = "mcts"\nlevels = [8, 4]\n', ["increasing"]),
    ('kind = "converge"\ngame = "pig"\npolicy = "hold"\nlevels = [8, 16]\n', ["has no parameter 'depth'"]),
    ('kind = "converge"\ngame = "pig"\npolicy = "mcts:iters=5"\nlevels = [8, 16]\n', ["without iters"]),
    ('kind = "converge"\ngame = "pig"\npolicy = "mcts"\nlevels = [8, 16]\nhalfwidth = 1.5\n', ["`halfwidth`"]),
    ('kind = "converge"\ngame = "pig"\npolicy = "mcts"\nlevels = [8, 16]\nexact = 53\n', ["`exact`", "0..1"]),
    ('kind = "converge"\ngame = "battlesheep"\npolicy = "alphabeta"\nlevels = [1, 2]\nplayers = [2, 3]\n'
     'exact = 0.5\n', ["one player count"]),
    ('kind = "converge"\ngame = "pig"\npolicy = "alphabeta"\nlevels = [1, 2]\n', ["Pig has luck"]),
    ('kind = "converge"\ngame = "pig"\npolicy = "mcts"\nlevels = [8, 16]\ntop = ["wizard"]\n', ["wizard"]),
])
def test_bad_converge_files_are_one_line_exit_2(tmp_path, body, needles):
    reports = tmp_path / "rep"
    assert_bad(run("run", str(_analysis(tmp_path, body)), "--reports", str(reports)), *needles)
    assert not reports.exists()


def test_an_answer_settled_between_players_weaker_than_an_anchor_says_so():
    answers = pd.DataFrame([_row("mcts:iters=64", 0.023, 0.01), _row("mcts:iters=128", 0.023, 0.01)])
    strength = pd.DataFrame({"level": ["mcts:iters=64", "mcts:iters=128", "random", "hold"],
                             "rating": [146.0, 219.0, 0.0, 429.0], "rating_lo": [128.0, 203.0, 0.0, 410.0],
                             "rating_hi": [161.0, 235.0, 0.0, 446.0]})
    p = _plan(ladder=["mcts:iters=64", "mcts:iters=128"], family=2, anchors=["random", "hold"])
    lines = L._findings(answers, strength, {2: 0}, p)
    assert ("2 players: where the edge settled, mcts:iters=128 is rated below hold (Bradley-Terry, the intervals "
            "apart): the answer there is between players weaker than hold.") in lines
    strength.loc[3, "rating_lo"] = 230.0            # intervals that touch: no claim
    assert not any("rated below" in x for x in L._findings(answers, strength, {2: 0}, p))


def test_every_level_names_its_knob_even_at_its_default():
    spec = {"game": "battlesheep", "players": 2, "policy": "alphabeta", "levels": [2, 3], "top": ["greedy"],
            "anchors": ["random", "alphabeta:depth=2"]}
    p = C.plan(spec, 1.0)
    assert p.ladder == ["alphabeta:depth=2", "alphabeta:depth=3", "greedy"] and p.family == 2
    assert p.anchors == ["random", "alphabeta:depth=2"] and p.strength_players == 2
    # the figures' axes: the family's levels by the knob's value, the family in the title
    assert [p.tick(x) for x in p.ladder] == ["2", "3", "greedy"]
    assert p.axis("level") == "level: depth of alphabeta"


def test_an_anchor_at_a_default_keeps_the_value_its_file_names():
    spec = {"game": "battlesheep", "players": 2, "policy": "mcts:rollout=greedy", "levels": [8, 16],
            "anchors": ["random", "alphabeta:depth=3", "mcts:iters=256"]}
    p = C.plan(spec, 1.0)
    assert p.anchors == ["random", "alphabeta:depth=3", "mcts:iters=256"]
    assert [p.tick(x) for x in p.ladder] == ["8", "16"] and p.axis("x") == "x: iters of mcts:rollout=greedy"


def test_a_game_s_own_measure_is_read_from_each_level_s_first_games(tmp_path):
    # Bye-Bye Black Sheep declares one (GameSpec.stop_measure: the games a Black Sheep
    # decided); the report's column and finding hold the share over each level's first
    # `measure_games` games, the same games a direct replay of the run reads
    path = _analysis(tmp_path, 'name = "b"\nkind = "converge"\ngame = "blacksheep"\nplayers = 3\n'
                               'policy = "threshold"\nknob = "k"\nlevels = [5, 8]\ngames = 250\n'
                               'halfwidth = 0.1\nanchors = ["random"]\nstrength_games = 20\nmeasure_games = 120\n'
                               'seed = 3\n')
    result = run("run", str(path), "--reports", str(tmp_path / "rep"), "-q")
    assert result.exit_code == 0, result.output
    text = (tmp_path / "rep" / "b.md").read_text()
    assert "| decided by a Black Sheep |" in text
    game = get_game("blacksheep")
    rules = game.make_rules(3, {})
    shares = []
    for k in (5, 8):
        specs = seat_specs("blacksheep", [f"threshold:k={k}"], 3)
        yes = game.stop_measure.games(game.play, game.to_array(rules), kernel_aux(game, rules, None, specs),
                                      specs, True, 3, range(120))
        shares.append(f"{100 * yes.mean():.1f}%")
    finding = next(x for x in text.splitlines() if x.startswith("- 3 players: a Black Sheep decides "))
    assert re.findall(r"(\d+\.\d%) \[", finding) == shares, (finding, shares)
    assert finding.endswith("(the first 120 games of each level, weakest first).")
    # a greedier threshold busts more often on a table that would have won
    assert float(shares[1][:-1]) > float(shares[0][:-1])
