"""Grid analyses: metrics on hand-made frames, cells built from axes, a small end-to-end
grid, and bad analysis files (one line, exit 2)."""

from __future__ import annotations

import pandas as pd
import pytest

from conftest import assert_bad
from conftest import run_cli as run
from sheepsim.analysis.grid import measure, plan


def _frame(winners, cowinners, rotation, turns, stuck):
    return pd.DataFrame({"winner": winners, "cowinners": cowinners, "rotation": rotation, "turns": turns,
                         "stuck_0": stuck, "stuck_1": stuck, "capped": False, "num_players": 2,
                         "policy_0": "a", "policy_1": "b"})


def test_focal_win_rate_follows_the_rotation_and_shares_ties():
    # 2 players: slot 0 sits on seat 0 in even games, seat 1 in odd games
    df = _frame(winners=[0, 0, 1, -1], cowinners=[1, 1, 2, 3], rotation=[0, 1, 1, 0], turns=[5, 5, 5, 5],
                stuck=[0, 0, 0, 0])
    rate, lo, hi = measure(df, "focal_win_rate", 2)
    # wins of slot 0: game 0 (seat 0 won), game 2 (seat 1 won, slot 0 was there), game 3 half
    assert rate == pytest.approx(2.5 / 4)
    assert lo < rate < hi


def test_mean_and_ratio_with_intervals():
    df = _frame(winners=[0] * 4, cowinners=[1] * 4, rotation=[0] * 4, turns=[10, 20, 10, 20], stuck=[1, 2, 3, 4])
    mean, lo, hi = measure(df, "mean:turns", 2)
    assert mean == 15 and lo < 15 < hi
    # per-seat columns are summed over seats: stuck per game = 2, 4, 6, 8 over 60 turns
    ratio, lo, hi = measure(df, "ratio:stuck:turns", 2)
    assert ratio == pytest.approx(20 / 60) and lo < ratio < hi
    edge = measure(df, "seat0_edge", 2)
    assert edge[0] == pytest.approx(0.5)


def test_cells_from_axes():
    spec = {"game": "bobbysitter", "focal_policy": "child", "policy": "adult", "games": 100,
            "rows": {"name": "players", "players": [2, 4]},
            "cols": {"name": "start", "focal_option": "start_tokens", "values": [1, 3], "others": 2},
            "metrics": ["focal_win_rate"]}
    cells = plan(spec, 1.0)["cells"]
    assert [(c.players, c.rules["start_tokens"]) for c in cells] == [(2, (1, 2)), (2, (3, 2)), (4, (1, 2, 2, 2)),
                                                                     (4, (3, 2, 2, 2))]
    assert [s.label for s in cells[2].specs] == ["child", "adult", "adult", "adult"]
    spec2 = {"game": "bobbysitter", "players": 3, "focal_policy": "child", "policy": "adult",
             "rows": {"name": "ratio", "param": "median_ms", "values": [1.0, 2.0], "times": 450}}
    cells = plan(spec2, 1.0)["cells"]
    assert [c.specs[0].label for c in cells] == ["child:median_ms=450", "child:median_ms=900"]
    assert cells[0].specs[1].label == "adult"


def test_small_grid_report(tmp_path):
    toml = tmp_path / "g.toml"
    toml.write_text('name = "g"\nkind = "grid"\ngame = "bobbysitter"\nseed = 1\nfocal_policy = "child"\n'
                    'policy = "adult"\ngames = 2000\nmetrics = ["focal_win_rate", "mean:turns", "mean:capped"]\n'
                    'rows = { name = "players", players = [2, 3] }\n'
                    'cols = { name = "child start", focal_option = "start_tokens", values = [2, 4], others = 2 }\n')
    # a figure of an earlier run that this one does not draw must not stay behind
    (tmp_path / "rep" / "g").mkdir(parents=True)
    for stale in ("mean-capped.png", "mean-capped.json"):
        (tmp_path / "rep" / "g" / stale).write_text("from an earlier run")
    result = run("run", str(toml), "--reports", str(tmp_path / "rep"), "-q")
    assert result.exit_code == 0, result.output
    assert not (tmp_path / "rep" / "g" / "mean-capped.json").exists()
    text = (tmp_path / "rep" / "g.md").read_text()
    assert "Closest to fair" in text and "the focal player's win rate" in text and "mean flips per game" in text
    assert "mean:turns" not in text and "focal_win_rate" not in text          # readable column names
    import json
    heat = json.loads((tmp_path / "rep" / "g" / "focal-win-rate.json").read_text())
    # the cells show points against the fair 1/P, and the title says so
    assert heat["title"].endswith("win rate minus the fair share (points)") and heat["points"]
    assert "minus the fair 1/P, in percentage points," in text
    for name in ("focal-win-rate.png", "mean-turns.png", "focal-win-rate-lines.png"):
        assert (tmp_path / "rep" / "g" / name).stat().st_size > 1000
    # no game hits the cap: a sentence instead of an all-zero figure
    assert "Share of games capped is 0 in every cell" in text and not (tmp_path / "rep" / "g" / "mean-capped.png").exists()
    findings = text.split("## Findings")[1].split("\n## ")[0]
    assert "**Closest to fair**" in findings and "2 players: child start" in findings
    # a bigger head start helps: start 4 beats start 2 in both rows
    rows = [line.split("|") for line in text.splitlines() if line.startswith("| 2 |") or line.startswith("| 3 |")]
    rates = {(r[1].strip(), r[2].strip()): float(r[4].split("%")[0]) for r in rows if "%" in r[4]}
    assert rates[("2", "4")] > rates[("2", "2")] and rates[("3", "4")] > rates[("3", "2")]


@pytest.mark.parametrize("body,needle", [
    ('rows = { name = "x", values = [1] }\n', "exactly one of"),
    ('rows = { option = "colours", values = [] }\n', "non-empty list"),
    ('rows = { option = "colours", values = [4], typo = 1 }\n', "unknown key 'typo'"),
    ('metrics = ["median:turns"]\n', "unknown metric"),
    ('metrics = ["focal_win_rate"]\n', "needs `focal_policy`"),
    ('rows = { option = "colours", values = [99] }\n', "out of range"),
    ('rows = { focal_option = "copies", values = [1] }\n', "needs `focal_policy`"),
])
def test_bad_grid_files(tmp_path, body, needle):
    toml = tmp_path / "bad.toml"
    toml.write_text('kind = "grid"\ngame = "hiboufou"\nplayers = 3\n' + body)
    assert_bad(run("run", str(toml), "--reports", str(tmp_path / "rep")), needle)
    assert not (tmp_path / "rep").exists()


def test_invalid_cells_fail_or_are_skipped(tmp_path):
    body = ('kind = "grid"\ngame = "bobbysitter"\nplayers = 2\nfocal_policy = "child"\npolicy = "adult"\n'
            'games = 300\nmetrics = ["focal_win_rate"]\n'
            'rows = { name = "target", option = "target_tokens", values = [3, 6] }\n'
            'cols = { name = "start", focal_option = "start_tokens", values = [2, 4], others = 2 }\n')
    toml = tmp_path / "cells.toml"
    toml.write_text(body)
    assert_bad(run("run", str(toml), "--reports", str(tmp_path / "rep")), "cell target=3, start=4")
    toml.write_text(body + "skip_invalid = true\n")
    result = run("run", str(toml), "--reports", str(tmp_path / "rep"), "-q")
    assert result.exit_code == 0, result.output
    text = (tmp_path / "rep" / "cells.md").read_text()
    assert "1 combination(s) are left blank" in text and "n/a" in text


def test_variant_p_values_keep_their_precision_far_in_the_tail():
    # z = 10: the two-sided p is 1.5e-23, not 0 (1 - cdf(z) rounds to 0 above z ~ 8.3)
    from sheepsim.stats.intervals import normal_p as _p_value
    assert abs(_p_value(10.0, 1.0) / 1.5239706e-23 - 1) < 1e-6
    assert abs(_p_value(-1.96, 1.0) - 0.0499958) < 1e-6
    assert _p_value(0.0, 0.0) == 1.0 and _p_value(1.0, 0.0) == 0.0


def test_a_grid_metric_of_an_experience_column_runs_with_metrics_and_skips_undefined_games(tmp_path):
    from sheepsim.stats import tables as T
    from sheepsim.analysis.grid import _needs_metrics
    from sheepsim.games import get_game
    from sheepsim.policies import seat_specs
    from sheepsim.runner import simulate
    assert _needs_metrics({"metrics": ["mean:turns", "mean:comeback"]})
    assert not _needs_metrics({"metrics": ["mean:turns", "ratio:score:turns"]})
    game = get_game("bobbysitter")
    df = simulate(game, game.make_rules(3, {}), seat_specs("bobbysitter", ["adult"], 3), 3000, 2,
                  metrics=True, notify=None).results
    holes = df.assign(comeback=df["comeback"].where(df.index % 7 != 0))     # games without a sole winner
    value, lo, hi = measure(holes, "mean:comeback", 3)
    won = holes["comeback"].dropna()
    assert len(won) < len(df) and value == pytest.approx(won.mean()) and lo < value < hi
    row = T.experience_row(df)
    table = T.experience_table(df).set_index("metric")
    assert row["comeback"] == table.loc["comeback", "mean"] and row["drama_hi"] == table.loc["drama", "mean_hi"]
    wins = T.seat_table(df)["wins"].to_numpy()
    assert row["balance"] == pytest.approx(1 - (wins.max() - wins.min()) / wins.sum())
    assert row["ends"].startswith("target reached") and row["ends"].count("%") == len(T.end_table(df))
