"""Runner and results store: determinism over threads and chunk sizes, exact aggregates,
resume after an interruption, damaged chunks recomputed, folders of other runs refused,
sequential stopping."""

from __future__ import annotations

import json
import os

import numpy as np
import pandas as pd
import pytest

from conftest import assert_bad
from conftest import run_cli as run
from sheepsim.stats import tables as T
from sheepsim.games import get_game
from sheepsim.policies import seat_specs
from sheepsim.results.store import read_aggregate, read_results
from sheepsim.results import aggregate as A
from sheepsim.runner import set_threads, simulate
from sheepsim.runner.stopping import halfwidths

def assert_same_frame(a: pd.DataFrame, b: pd.DataFrame) -> None:
    """Bit-identical frames: same columns, dtypes (categories included) and values
    (DataFrame.equals is vectorised; assert_frame_equal walks categoricals row by row)."""
    assert list(a.columns) == list(b.columns)
    assert a.dtypes.to_dict() == b.dtypes.to_dict()
    assert a.equals(b)



@pytest.fixture(autouse=True)
def all_threads():
    """Tests below change numba's thread count; give the next test all threads back."""
    yield
    import numba
    set_threads(numba.config.NUMBA_NUM_THREADS)


def battlesheep3():
    game = get_game("battlesheep")
    rules = game.make_rules(3, {})
    return game, rules, seat_specs(game.name, ["greedy:epsilon=0.3", "random", "random"], 3)


def test_results_identical_for_any_threads_and_chunk_size():
    game, rules, specs = battlesheep3()
    ref = simulate(game, rules, specs, 2500, 7, threads=1, chunk_size=2500)
    for threads, chunk in ((2, 1000), (1, 333), (2, 97)):
        other = simulate(game, rules, specs, 2500, 7, threads=threads, chunk_size=chunk)
        assert_same_frame(ref.results, other.results)
        agg = simulate(game, rules, specs, 2500, 7, threads=threads, chunk_size=chunk, aggregate=True)
        assert agg.aggregate == A.aggregate_frame(ref.results, 3)
        assert agg.results.empty


def test_aggregate_merge_is_exact_order_free_and_round_trips():
    game, rules, specs = battlesheep3()
    df = simulate(game, rules, specs, 1200, 3, chunk_size=1200).results
    parts = [A.aggregate_frame(df.iloc[i:i + 250], 3) for i in range(0, 1200, 250)]
    forward, backward = A.Aggregate(3), A.Aggregate(3)
    for p in parts:
        forward.add(p)
    for p in reversed(parts):
        backward.add(A.Aggregate.from_json(p.to_json()))
    whole = A.aggregate_frame(df, 3)
    assert forward == backward == whole
    assert whole.games == 1200 and sum(whole.seat_wins) == whole.decided
    assert whole.sums["hexes"] == int(df["hexes"].sum()) and whole.sumsq["plies"] == int((df["plies"] ** 2).sum())
    assert whole.decided_true["tiebreak"] == int((df["tiebreak"] & (df["winner"] >= 0)).sum())
    assert sum(whole.scores[1].values()) == 1200 and whole.scores[1][5] == int((df["score_1"] == 5).sum())


def test_aggregate_tables_equal_the_per_game_tables():
    game, rules, specs = battlesheep3()
    df = simulate(game, rules, specs, 1500, 11).results
    agg = A.aggregate_frame(df, 3)
    rows, counts = T.seat_table(df), A.seat_table(agg)
    cols = ["seat", "games", "decided", "wins", "shared", "win_rate", "win_rate_lo", "win_rate_hi", "fair_rate"]
    np.testing.assert_allclose(rows[cols].to_numpy(float), counts[cols].to_numpy(float))
    for key in ("draws", "draw_rate", "draw_rate_lo", "chi2_p"):
        assert rows.attrs[key] == pytest.approx(counts.attrs[key])
    prow, pcount = T.policy_table(df), A.policy_table(agg)
    assert list(prow["policy"]) == list(pcount["policy"])
    np.testing.assert_allclose(prow[cols[1:8]].to_numpy(float), pcount[cols[1:8]].to_numpy(float))
    turns = df["turns"].to_numpy()
    length = A.length_summary(agg)
    assert length["mean"] == pytest.approx(turns.mean())
    for name, q in (("median", 0.5), ("q25", 0.25), ("p90", 0.9), ("p99", 0.99)):
        assert length[name] == pytest.approx(np.quantile(turns, q))


def test_simulate_aggregate_prints_the_summary(tmp_path):
    out = tmp_path / "agg"
    result = run("simulate", "battlesheep", "--games", "3000", "--chunk-size", "1000", "--policy", "greedy",
                 "--policy", "random", "--aggregate", "--out", str(out), "-q")
    assert result.exit_code == 0, result.output
    for text in ("Win rate by seat", "Win rate by policy", "greedy", "no sole winner",
                 "Game length (sheep moves): mean", "decided by the tie-break", "peak memory (RSS)",
                 "3 aggregate chunk(s)"):
        assert text in result.output
    assert sorted(p.name for p in out.glob("chunk-*")) == [f"chunk-00000{i}.json" for i in range(3)]
    agg, manifest = read_aggregate(out)
    assert manifest["mode"] == "aggregate" and manifest["status"] == "complete" and agg.games == 3000
    assert A.Aggregate.from_json((out / "aggregate.json").read_bytes()) == agg
    rows = run("simulate", "battlesheep", "--games", "3000", "--policy", "greedy", "--policy", "random", "-q")
    seat_lines = [line for line in rows.output.splitlines() if line.startswith("| 0 |") or line.startswith("| 1 |")]
    assert all(line in result.output for line in seat_lines)       # same table as the rows mode


def _mtimes(out):
    return {p.name: (p.stat().st_ino, p.stat().st_mtime_ns) for p in out.glob("chunk-*")}


@pytest.mark.parametrize("mode", ["rows", "aggregate"])
def test_interrupted_run_resumes_without_redoing_chunks(tmp_path, mode):
    game, rules, specs = battlesheep3()
    kw = dict(chunk_size=400, aggregate=mode == "aggregate")
    full = simulate(game, rules, specs, 3000, 5, **kw)
    out = tmp_path / "run"

    def interrupt(index):
        if index == 3:
            raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        simulate(game, rules, specs, 3000, 5, out=out, on_chunk=interrupt, **kw)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "running" and sorted(manifest["chunks"], key=int) == ["0", "1", "2", "3"]
    before = _mtimes(out)
    resumed = simulate(game, rules, specs, 3000, 5, out=out, **kw)
    assert resumed.extra == {"resumed": 4, "redone": {}, "computed": 4, "computed_games": 1400}
    after = _mtimes(out)
    assert all(after[name] == stamp for name, stamp in before.items())
    assert len(after) == 8
    if mode == "rows":
        assert_same_frame(full.results, resumed.results)
        assert_same_frame(full.results, read_results(out)[0])
    else:
        assert full.aggregate == resumed.aggregate == read_aggregate(out)[0]


def test_damaged_chunks_are_detected_and_recomputed(tmp_path):
    args = ["simulate", "battlesheep", "--games", "2500", "--seed", "9", "--chunk-size", "500", "-q"]
    full, part = tmp_path / "full", tmp_path / "part"
    assert run(*args, "--out", str(full)).exit_code == 0
    assert run(*args, "--out", str(part)).exit_code == 0
    one, two = part / "chunk-000001.parquet", part / "chunk-000002.parquet"
    one.write_bytes(one.read_bytes()[:100])                       # truncated
    data = bytearray(two.read_bytes())
    data[len(data) // 2] ^= 0xFF                                   # one flipped byte
    two.write_bytes(bytes(data))
    (part / "chunk-000003.parquet").unlink()                       # missing
    kept = _mtimes(part)
    result = run(*args, "--out", str(part))
    assert result.exit_code == 0, result.output
    assert "recomputed chunk(s) 1 (corrupted), 2 (corrupted), 3 (missing)" in result.output
    assert "2 resumed" in result.output
    now = _mtimes(part)
    assert now["chunk-000000.parquet"] == kept["chunk-000000.parquet"]
    assert now["chunk-000004.parquet"] == kept["chunk-000004.parquet"]
    assert now["chunk-000001.parquet"] != kept["chunk-000001.parquet"]
    assert_same_frame(read_results(full)[0], read_results(part)[0])


def test_read_results_refuses_a_damaged_chunk(tmp_path):
    out = tmp_path / "r"
    assert run("simulate", "pig", "--games", "300", "--chunk-size", "100", "--out", str(out), "-q").exit_code == 0
    (out / "chunk-000001.parquet").write_bytes(b"junk")
    with pytest.raises(Exception, match="missing or corrupted"):
        read_results(out)


def test_resume_takes_the_stored_chunk_size_and_refuses_another(tmp_path):
    out = tmp_path / "r"
    args = ["simulate", "pig", "--games", "300", "--out", str(out), "-q"]
    assert run(*args, "--chunk-size", "100").exit_code == 0
    again = run(*args)                                            # no --chunk-size: the folder's
    assert again.exit_code == 0 and "3 resumed" in again.output
    assert_bad(run(*args, "--chunk-size", "50"), "chunks of 100 games, not 50", "--chunk-size 100")


def _listing(path):
    return sorted((p.name, p.stat().st_mtime_ns) for p in path.iterdir())


@pytest.mark.parametrize("change,needles", [
    (["--seed", "2"], ["different run", "seed 1 there, 2 here"]),
    (["--games", "400"], ["different run", "games 300 there, 400 here"]),
    (["--policy", "hold"], ["different run", "policies"]),
    (["--aggregate"], ["different run", 'mode "rows" there, "aggregate" here']),
    (["--ci-halfwidth", "0.1"], ["different run", "ci_halfwidth null there, 0.1 here"]),
])
def test_a_different_command_is_refused_and_nothing_written(tmp_path, change, needles):
    out = tmp_path / "r"
    base = ["simulate", "pig", "--seed", "1", "--games", "300", "--out", str(out), "-q"]
    assert run(*base).exit_code == 0
    before = _listing(out)
    assert_bad(run(*base, *change), *needles)          # click keeps the last value of an option
    assert _listing(out) == before


def test_foreign_folders_are_refused(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / "thesis.tex").write_text("precious")
    assert_bad(run("simulate", "pig", "--games", "10", "--out", str(home)), "not empty", "thesis.tex")
    assert sorted(p.name for p in home.iterdir()) == ["thesis.tex"]
    other = tmp_path / "other"
    other.mkdir()
    (other / "manifest.json").write_text('{"name": "something else"}')
    assert_bad(run("simulate", "pig", "--games", "10", "--out", str(other)), "not a sheepsim manifest")
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "manifest.json").write_text("{half")
    assert_bad(run("simulate", "pig", "--games", "10", "--out", str(broken)), "unreadable")
    assert (broken / "manifest.json").read_text() == "{half"


def test_unwritable_out_folder_even_for_root(tmp_path):
    out = "/proc/sheepsim-no-such-folder/run"                    # /proc refuses new folders to root too
    assert_bad(run("simulate", "pig", "--games", "10", "--out", out), "cannot write to output folder")
    assert not os.path.exists(out)


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write anywhere")
def test_unwritable_existing_run_folder(tmp_path):
    out = tmp_path / "r"
    assert run("simulate", "pig", "--games", "10", "--out", str(out), "-q").exit_code == 0
    out.chmod(0o500)
    try:
        assert_bad(run("simulate", "pig", "--games", "10", "--out", str(out)), "cannot write")
    finally:
        out.chmod(0o700)


def _first_narrow_chunk(df: pd.DataFrame, chunk: int, target: float, players: int) -> int | None:
    """Index of the first chunk after which every seat's half-width is <= target, by brute force."""
    for index in range(-(-len(df) // chunk)):
        counts = A.aggregate_frame(df.iloc[:(index + 1) * chunk], players)
        if np.all(halfwidths(counts) <= target):
            return index
    return None


def test_sequential_stop_is_the_first_narrow_chunk_for_any_threads(tmp_path):
    game = get_game("pig")
    rules = game.make_rules(2, {})
    specs = seat_specs("pig", ["hold", "random"], 2)
    full = simulate(game, rules, specs, 20000, 3, chunk_size=500).results
    stop = _first_narrow_chunk(full, 500, 0.02, 2)
    assert stop is not None and 1 < stop < 39
    runs = [simulate(game, rules, specs, 20000, 3, threads=t, chunk_size=500, ci_halfwidth=0.02, aggregate=agg)
            for t, agg in ((1, False), (2, False), (2, True))]
    for r in runs:
        assert r.manifest["stopped"]["chunks"] == stop + 1 and r.manifest["stopped"]["reached"]
        assert r.manifest["played"] == (stop + 1) * 500
    assert_same_frame(runs[0].results, full.iloc[:(stop + 1) * 500])
    assert_same_frame(runs[0].results, runs[1].results)
    assert runs[2].aggregate == A.aggregate_frame(runs[0].results, 2)
    out = tmp_path / "stop"
    args = ["simulate", "pig", "--policy", "hold", "--policy", "random", "--games", "20000", "--seed", "3",
            "--chunk-size", "500", "--ci-halfwidth", "0.02", "--out", str(out), "-q"]
    first = run(*args)
    assert first.exit_code == 0, first.output
    assert f"stopped after {(stop + 1) * 500:,} games ({stop + 1} chunks of 500)" in first.output
    assert len(list(out.glob("chunk-*"))) == stop + 1
    again = run(*args)                                            # resuming a stopped run changes nothing
    assert again.exit_code == 0 and f"{stop + 1} resumed" in again.output
    assert_same_frame(read_results(out)[0], runs[0].results)
    limit = run("simulate", "pig", "--games", "1000", "--chunk-size", "500", "--ci-halfwidth", "0.001", "-q")
    assert "game limit 1,000 reached before every seat's 95% half-width was <= 0.001" in limit.output


@pytest.mark.parametrize("args,needles", [
    (["--workers", "0", "--backend", "dask"], ["--workers", "0 is not in the range"]),
    (["--workers", "2"], ["--scheduler and --workers need --backend dask"]),
    (["--scheduler", "tcp://127.0.0.1:1"], ["--scheduler and --workers need --backend dask"]),
    (["--backend", "cloud"], ["--backend", "local", "dask"]),
    (["--ci-halfwidth", "0"], ["--ci-halfwidth"]),
    (["--ci-halfwidth", "0.7"], ["--ci-halfwidth"]),
])
def test_bad_run_options_are_one_line_and_write_nothing(tmp_path, args, needles):
    out = tmp_path / "never"
    assert_bad(run("simulate", "pig", "--games", "10", "--out", str(out), *args), *needles)
    assert not out.exists()


@pytest.mark.parametrize("text,needles", [
    ('kind = "seat_advantage"\ngame = "battlesheep"\nplayers = [2, 3\n', ["line 3", "key 'players'"]),
    ('kind = "seat_advantage"\ngame = "battlesheep"\npolicies = ["random",\n  "greedy"\n  "random"]\n',
     ["line 5", "key 'policies'", "Unclosed array"]),
    ('kind = "seat_advantage"\ngames 200\n', ["line 2", "key 'games'", "Expected '='"]),
    ('kind = "seat_advantage"\nseed = 1 2\n', ["line 2", "key 'seed'"]),
    ('seed = 1\nseed = 2\n', ["line 2", "key 'seed'", "Cannot overwrite"]),
])
def test_malformed_toml_names_file_line_and_key(tmp_path, text, needles):
    path = tmp_path / "study.toml"
    path.write_text(text)
    reports = tmp_path / "rep"
    assert_bad(run("run", str(path), "--reports", str(reports)), f"analysis file {path}", "not valid TOML", *needles)
    assert not reports.exists()


@pytest.mark.parametrize("name,players,policies", [("pig", 2, ["mcts:iters=16,rollout=greedy", "hold"]),
                                                   ("hiboufou", 3, ["ismcts:iters=8", "greedy", "random"])])
def test_a_search_run_interrupted_and_resumed_equals_one_run(tmp_path, name, players, policies):
    """The search agents draw from their seat's stream: resuming changes nothing."""
    game = get_game(name)
    rules, specs = game.make_rules(players, {}), seat_specs(name, policies, players)
    full = simulate(game, rules, specs, 240, 7, chunk_size=60)
    out = tmp_path / "run"

    def interrupt(index):
        if index == 1:
            raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        simulate(game, rules, specs, 240, 7, out=out, on_chunk=interrupt, chunk_size=60)
    resumed = simulate(game, rules, specs, 240, 7, out=out, chunk_size=60)
    assert resumed.extra["resumed"] == 2 and resumed.extra["computed"] == 2
    assert_same_frame(full.results, resumed.results)
