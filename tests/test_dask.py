"""The Dask backend on a real LocalCluster of worker processes: results bit-identical to
the local backend (any workers, threads, chunk size), the same sequential stop, user
policy plugins loaded on the workers, a killed worker's chunks recomputed, and bad
scheduler addresses failing fast in one line with nothing written."""

from __future__ import annotations

import logging
import os
import signal
import socket
import sys
import threading
import time

import pandas as pd
import pytest

from conftest import LOOKAHEAD, TICTACTOE, assert_bad
from conftest import run_cli as run

distributed = pytest.importorskip("distributed")

from sheepsim.games import get_game  # noqa: E402
from sheepsim.policies import seat_specs  # noqa: E402
from sheepsim.results.store import read_results  # noqa: E402
from sheepsim.results import aggregate as A  # noqa: E402
from sheepsim.runner import set_threads, simulate  # noqa: E402


def assert_same_frame(a: pd.DataFrame, b: pd.DataFrame) -> None:
    """Bit-identical frames: same columns, dtypes (categories included) and values."""
    assert list(a.columns) == list(b.columns)
    assert a.dtypes.to_dict() == b.dtypes.to_dict()
    assert a.equals(b)


@pytest.fixture(scope="module")
def scheduler():
    """Two worker processes, one thread each (numba at 1 thread too)."""
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                                       silence_logs=logging.ERROR, env={"NUMBA_NUM_THREADS": "1"})
    yield cluster.scheduler_address
    cluster.close()


@pytest.fixture(autouse=True)
def all_threads():
    yield
    import numba
    set_threads(numba.config.NUMBA_NUM_THREADS)


def battlesheep3():
    game = get_game("battlesheep")
    return game, game.make_rules(3, {}), seat_specs(game.name, ["greedy:epsilon=0.3", "random", "random"], 3)


def test_dask_results_are_bit_identical_to_local(scheduler, tmp_path):
    game, rules, specs = battlesheep3()
    local = simulate(game, rules, specs, 3000, 21, threads=1, chunk_size=1000)
    other = simulate(game, rules, specs, 3000, 21, threads=2, chunk_size=700)
    assert_same_frame(local.results, other.results)
    dask2 = simulate(game, rules, specs, 3000, 21, chunk_size=700, backend="dask", scheduler=scheduler)
    assert dask2.manifest["backend"] == "dask" and dask2.manifest["workers"] == 2
    assert_same_frame(local.results, dask2.results)
    counts = simulate(game, rules, specs, 3000, 21, chunk_size=1300, aggregate=True, backend="dask",
                      scheduler=scheduler)
    assert counts.aggregate == A.aggregate_frame(local.results, 3)
    # the CLI's own LocalCluster with one worker process, into a run folder
    out = tmp_path / "one"
    result = run("simulate", "battlesheep", "-p", "3", "--policy", "greedy:epsilon=0.3", "--policy", "random",
                 "--policy", "random", "--games", "3000", "--seed", "21", "--chunk-size", "900",
                 "--backend", "dask", "--workers", "1", "--threads", "1", "--out", str(out), "-q")
    assert result.exit_code == 0, result.output
    df, manifest = read_results(out)
    assert manifest["backend"] == "dask" and manifest["workers"] == 1 and manifest["threads"] == 1
    assert_same_frame(local.results, df)


def test_dask_stops_where_local_stops(scheduler):
    game = get_game("pig")
    rules = game.make_rules(2, {})
    specs = seat_specs("pig", ["hold", "random"], 2)
    local = simulate(game, rules, specs, 20000, 3, chunk_size=500, ci_halfwidth=0.02)
    dask = simulate(game, rules, specs, 20000, 3, chunk_size=500, ci_halfwidth=0.02, backend="dask",
                    scheduler=scheduler)
    assert local.manifest["stopped"] == dask.manifest["stopped"]
    assert local.manifest["stopped"]["chunks"] < 40
    assert_same_frame(local.results, dask.results)


HOLD15 = '''
from numba import njit
from sheepsim.policies import register_policy
from sheepsim.games.pig import engine as E
from sheepsim.games.pig.rules import R_GOAL

@register_policy("pig", "hold15-plugin", doc="hold at a turn total of 15 (as the built-in hold:t=15)")
@njit
def hold15(s, rules, aux, seat, params, rng, buf):
    total = s[E.S_TURN]
    if total > 0 and (total >= 15 or s[E.S_SCORE + seat] + total >= rules[R_GOAL]):
        return E.ACT_HOLD
    return E.ACT_ROLL
'''


def test_dask_workers_load_user_policy_plugins(scheduler, tmp_path):
    plugin = tmp_path / "hold15plug.py"
    plugin.write_text(HOLD15)
    out = tmp_path / "plug"
    result = run("--plugin", str(plugin), "simulate", "pig", "--policy", "hold15-plugin", "--policy", "random",
                 "--games", "2000", "--chunk-size", "1000", "--seed", "8", "--backend", "dask",
                 "--scheduler", scheduler, "--out", str(out), "-q")
    assert result.exit_code == 0, result.output
    df, _ = read_results(out)
    game = get_game("pig")
    builtin = simulate(game, game.make_rules(2, {}), seat_specs("pig", ["hold:t=15", "random"], 2), 2000, 8).results
    same = [c for c in df.columns if not c.startswith("policy_")]
    assert_same_frame(df[same], builtin[same])      # the plugin plays exactly as hold:t=15


def test_dask_workers_load_a_plugin_game_and_a_plugin_agent(scheduler, tmp_path, lookahead):
    # tic-tac-toe and the lookahead agent, both from --plugin files: the workers load the
    # game's file and the agent's, and play it exactly as this process does
    game = get_game("tictactoe")
    local = simulate(game, game.make_rules(2, {}), seat_specs("tictactoe", ["lookahead", "mcts:iters=20"], 2), 120,
                     8).results
    out = tmp_path / "ttt"
    result = run("--plugin", str(TICTACTOE), "--plugin", str(LOOKAHEAD), "simulate", "tictactoe",
                 "--policy", "lookahead", "--policy", "mcts:iters=20", "--games", "120", "--chunk-size", "40",
                 "--seed", "8", "--backend", "dask", "--scheduler", scheduler, "--out", str(out), "-q")
    assert result.exit_code == 0, result.output
    df, _ = read_results(out)
    assert_same_frame(df, local)


def test_a_killed_worker_changes_no_result(scheduler):
    game = get_game("battlesheep")
    rules = game.make_rules(2, {})
    specs = seat_specs(game.name, ["random"], 2)
    reference = simulate(game, rules, specs, 60000, 13, chunk_size=60000)
    client = distributed.Client(scheduler, set_as_default=False)
    try:
        before = client.run(os.getpid)
        victim = sorted(before.values())[0]

        def kill(index):
            if index == 1:
                os.kill(victim, signal.SIGKILL)
        dask = simulate(game, rules, specs, 60000, 13, chunk_size=1500, backend="dask", scheduler=scheduler,
                        on_chunk=kill)
        assert_same_frame(reference.results, dask.results)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:                  # the nanny replaces the worker
            now = client.run(os.getpid)
            if len(now) == 2 and victim not in now.values():
                break
            time.sleep(0.2)
        assert victim not in client.run(os.getpid).values()
    finally:
        client.close()


def _garbage_server():
    """A TCP port that answers like some other service, not a Dask scheduler."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(4)

    def serve():
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            conn.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n" * 4)
            conn.close()
    threading.Thread(target=serve, daemon=True).start()
    return server


@pytest.mark.parametrize("address,needles", [
    ("tcp://127.0.0.1:1", ["cannot reach the Dask scheduler at tcp://127.0.0.1:1"]),
    ("127.0.0.1:notaport", ["is not a Dask address"]),
    ("GARBAGE", ["answered but is not a Dask scheduler"]),
])
def test_bad_scheduler_fails_fast_with_nothing_written(tmp_path, address, needles):
    server = _garbage_server() if address == "GARBAGE" else None
    if server is not None:
        address = f"tcp://127.0.0.1:{server.getsockname()[1]}"
    out = tmp_path / "never"
    start = time.monotonic()
    try:
        assert_bad(run("simulate", "pig", "--games", "100", "--backend", "dask", "--scheduler", address,
                       "--out", str(out)), *needles)
    finally:
        if server is not None:
            server.close()
    assert time.monotonic() - start < 15
    assert not out.exists()


def test_dask_option_conflicts(tmp_path):
    out = tmp_path / "never"
    assert_bad(run("simulate", "pig", "--backend", "dask", "--scheduler", "tcp://127.0.0.1:1", "--workers", "2",
                   "--out", str(out)), "not both")
    assert not out.exists()


def test_missing_dask_is_a_one_line_error(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "distributed", None)       # as if the extra were not installed
    out = tmp_path / "never"
    assert_bad(run("simulate", "pig", "--backend", "dask", "--workers", "1", "--out", str(out)),
               "pip install 'sheepsim[dask]'")
    assert not out.exists()


def test_dask_search_runs_are_bit_identical_to_local(scheduler):
    """The search agents (mcts, ismcts) on Dask workers: the same rows as at home."""
    for name, players, policies in (("pig", 2, ["mcts:iters=16,rollout=greedy", "hold"]),
                                    ("hiboufou", 3, ["ismcts:iters=8", "greedy", "random"])):
        game = get_game(name)
        rules, specs = game.make_rules(players, {}), seat_specs(name, policies, players)
        local = simulate(game, rules, specs, 300, 11, threads=2, chunk_size=100)
        dask = simulate(game, rules, specs, 300, 11, chunk_size=70, backend="dask", scheduler=scheduler)
        assert dask.manifest["backend"] == "dask"
        assert_same_frame(local.results, dask.results)
