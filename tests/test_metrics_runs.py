"""Experience metrics in runs (`--metrics`): the results columns are the kernels' tally,
the other columns do not move, aggregate mode merges them to the rows' table, the
manifest keeps them in the run's identity, and the summary prints their table."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from conftest import assert_bad, run_cli
from sheepsim.stats import tables as T
from sheepsim.games import get_game
from sheepsim.games.tally import M_SIZE, metric_columns
from sheepsim.policies import seat_specs
from sheepsim.results import aggregate as A
from sheepsim.runner import simulate
from sheepsim.start import kernel_aux

COLUMNS = ["rounds", "lead_changes", "decided_at", "decided_share", "comeback", "drama", "end"]


def _run(name, players, policy, games, **kw):
    game = get_game(name)
    rules = game.make_rules(players, {})
    specs = seat_specs(name, [policy], players)
    return game, rules, specs, simulate(game, rules, specs, games, seed=4, chunk_size=700, notify=None, **kw)


def test_metrics_columns_are_the_kernels_tally_and_change_nothing_else():
    game, rules, specs, on = _run("hiboufou", 3, "greedy", 2000, metrics=True)
    off = _run("hiboufou", 3, "greedy", 2000)[3]
    assert list(on.results.columns) == list(off.results.columns) + COLUMNS
    pd.testing.assert_frame_equal(on.results[off.results.columns], off.results)
    m = np.zeros((2000, M_SIZE))
    game.play_chunk(game.to_array(rules), kernel_aux(game, rules, None, specs), specs, True, 4, 0, 2000, m)
    for name, values in metric_columns(m).items():
        np.testing.assert_array_equal(on.results[name].to_numpy(), values)
    assert on.manifest["metrics"] is True and off.manifest["metrics"] is False
    sole = on.results["winner"] >= 0
    assert on.results.loc[sole, "decided_at"].notna().all() and on.results.loc[~sole, "comeback"].isna().all()
    assert ((on.results["decided_share"] >= 0) & (on.results["decided_share"] <= 1) | ~sole).all()


def test_aggregate_mode_merges_the_metrics_to_the_rows_table():
    rows = _run("pig", 2, "hold:t=20", 3000, metrics=True)[3]
    agg = _run("pig", 2, "hold:t=20", 3000, metrics=True, aggregate=True)[3]
    from_rows = T.experience_table(rows.results)
    from_counts = A.experience_table(agg.aggregate)
    assert list(from_rows["games"]) == list(from_counts["games"])
    for col in ("mean", "mean_lo", "mean_hi"):
        np.testing.assert_allclose(from_counts[col], from_rows[col], rtol=0, atol=1e-6)
    # merging is exact: two halves added give the whole run's counts
    half = A.aggregate_frame(rows.results.iloc[:1400], 2).add(A.aggregate_frame(rows.results.iloc[1400:], 2))
    assert half.floats == A.aggregate_frame(rows.results, 2).floats == agg.aggregate.floats
    assert T.experience_table(_run("pig", 2, "hold:t=20", 50)[3].results) is None


def test_a_run_folder_keeps_metrics_in_its_identity(tmp_path):
    out = tmp_path / "run"
    assert run_cli("simulate", "pig", "-n", "500", "--metrics", "--out", str(out), "-q").exit_code == 0
    assert json.loads((out / "manifest.json").read_text())["metrics"] is True
    result = run_cli("simulate", "pig", "-n", "500", "--out", str(out), "-q")
    assert_bad(result, "holds a different run", "metrics true there, false here")


def test_simulate_prints_the_experience_table_and_summarize_keeps_it(tmp_path):
    out = tmp_path / "run"
    result = run_cli("simulate", "battlesheep", "-n", "400", "--metrics", "--out", str(out), "-q")
    assert result.exit_code == 0, result.output
    assert "Experience (--metrics" in result.output
    for name in COLUMNS[:-1]:
        assert f"\n{name} " in result.output
    assert "ended by: no one can move 100.0% [99.0, 100.0] (400)" in result.output
    path = tmp_path / "s.json"
    assert run_cli("summarize", str(out), "--json", str(path)).exit_code == 0
    table = json.loads(path.read_text())["experience"]
    assert [r["metric"] for r in table] == [n for n, _ in T.EXPERIENCE]
    rounds = next(r for r in table if r["metric"] == "rounds")
    assert rounds["games"] == 400 and rounds["mean_lo"] < rounds["mean"] < rounds["mean_hi"]
    plain = run_cli("simulate", "battlesheep", "-n", "100", "-q")
    assert "Experience" not in plain.output


@pytest.mark.parametrize("values,mean", [([0.5, 0.25, np.nan], 0.375), ([np.nan], float("nan"))])
def test_float_counts_skip_nan_and_keep_millionths(values, mean):
    counts = A._float_counts(np.array(values))
    got, _, n = A.float_mean_sd(counts)
    assert n == sum(1 for v in values if v == v)
    assert (got != got and mean != mean) or got == pytest.approx(mean, abs=1e-6)


@pytest.mark.parametrize("name,players,policy,options", [
    ("pig", 2, "hold:t=20", {"turn_cap": 12}), ("blacksheep", 3, "threshold:k=7", {"turn_cap": 20}),
    ("hiboufou", 2, "random", {"turn_cap": 30}), ("battlesheep", 2, "random", {"no_move": "game_ends_now"}),
    ("bobbysitter", 3, "adult", {"flip_cap": 12})])
def test_every_game_says_how_each_game_ended(name, players, policy, options):
    """The `end` column against the result columns it is read from, in rows and in
    aggregate mode alike; the caps are low so that both kinds of end occur."""
    game = get_game(name)
    rules = game.make_rules(players, options)
    specs = seat_specs(name, [policy], players)
    run = simulate(game, rules, specs, 1500, seed=2, chunk_size=500, notify=None, metrics=True)
    df = run.results
    assert list(df["end"].cat.categories) == list(game.end_conditions)
    capped = df["capped"].to_numpy().astype(bool) if "capped" in df else np.zeros(len(df), bool)
    cap_names = [n for n in game.end_conditions if n.endswith("cap")]
    assert (df["end"].isin(cap_names).to_numpy() == capped).all()
    if name == "battlesheep":
        assert (df["end"] == "a seat cannot move").all()
    else:
        assert 0 < capped.sum() < len(df)
    if name == "bobbysitter":
        won = df["winner"].to_numpy() >= 0
        target = df["end"] == "target reached"
        w = df.loc[target, "winner"].to_numpy()
        assert (df.loc[target, [f"score_{q}" for q in range(players)]].to_numpy()[np.arange(len(w)), w]
                >= rules["target_tokens"]).all()
        assert (df.loc[df["end"] == "everyone out", "winner"] < 0).all() and won[target.to_numpy()].all()
    agg = simulate(game, rules, specs, 1500, seed=2, chunk_size=500, notify=None, metrics=True, aggregate=True)
    pd.testing.assert_frame_equal(A.end_table(agg.aggregate), T.end_table(df))
    table = T.end_table(df)
    assert table["ended"].sum() == len(df) and (table["end_rate_lo"] <= table["end_rate"]).all()


def test_balance_is_one_minus_the_largest_gap_with_an_interval_around_it():
    b, lo, hi = T.balance(np.array([5300, 4700]), 10_000)
    assert b == pytest.approx(0.94) and lo < b < hi
    assert hi - lo == pytest.approx(2 * 1.96 * 2 * np.sqrt(0.53 * 0.47 / 10_000), rel=0.1)   # the gap's normal width
    b, lo, hi = T.balance(np.array([400, 300, 300]), 1000)
    assert b == pytest.approx(0.9) and lo < b < hi
    assert T.balance(np.array([1000, 1000]), 2000)[0] == 1.0
