"""`sheepsim bench`: one table over every registered game, JSON, bad input.

Tiny sizes only, and no assertion on any speed: benchmarks are not tests.
"""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from conftest import assert_bad, run_cli
from sheepsim import bench as B
from sheepsim.games import all_games

COLUMNS = ["game", "players", "policy", "games/s 1t", "games/s 2t", "speed-up", "effic.", "cpu/wall", "metrics on",
           "ref games/s",
           "ratio 1t", "ratio 2t", "cold s", "warm s"]
ROW_KEYS = {"game", "players", "policy", "more", "workload", "games_per_s_1t", "games_per_s_nt", "threads", "speed_up",
            "efficiency", "cpu_per_wall_nt", "reference_games_per_s", "ratio", "ratio_nt", "cold_start_s",
            "warm_start_s", "metrics_games_per_s_1t", "metrics_cost"}


@pytest.fixture
def fake_startup(monkeypatch):
    """Start-up timings without the fresh processes (a cold compile takes minutes)."""
    calls = []

    def fake(game, players, cache_dir):
        calls.append((game, players, cache_dir is None))
        return 1.25 if cache_dir is None else 7.5
    monkeypatch.setattr(B, "start_seconds", fake)
    monkeypatch.setattr(B, "check_row", lambda threads, log: {
        "command": "sheepsim check examples/variant.toml", "game": "blacksheep", "players": [3],
        "games_per_run": 50000, "runs": 4, "wall_s": 4.25, "target_s": 60})
    monkeypatch.setattr(B, "tune_row", lambda threads, log: {
        "analysis": "analyses/bobbysitter-tune-handicap.toml", "settings": 64, "search_s": 4.0,
        "settings_per_minute": 960.0, "wall_s": 12.5})
    return calls


def test_every_game_in_one_table_and_json(tmp_path, fake_startup):
    path = tmp_path / "bench.json"
    # few games a run: the format is under test, not the speed (turn_optimal's row dominated at 64)
    result = run_cli("bench", "--games", "8", "--reference-games", "1", "--search-budget", "0", "--json", str(path))
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    header = next(line for line in lines if line.startswith("game "))
    for column in COLUMNS:
        assert column in header
    games = all_games()
    for name, game in games.items():
        row = next(line for line in lines if line.startswith(name + " "))
        cells = row.split()
        assert len(cells) == len(COLUMNS), row
        assert cells[1] == str(game.bench_players or game.players[0]) and cells[2] == game.bench_policy
        assert cells[-2:] == ["7.50", "1.25"]                     # cold, warm
        assert f"every seat {game.bench_policy}" in result.output
        for policy, _ in game.bench_more:                         # e.g. Battle Sheep greedy: kernel only
            cells = next(line for line in lines if line.startswith(f"{name} ") and f" {policy} " in line).split()
            assert len(cells) == len(COLUMNS) and cells[-5:] == ["-"] * 5, cells
    assert any(g.bench_more for g in games.values())
    assert ("sheepsim check examples/variant.toml (blacksheep, 4 runs of 50,000 games, 2 threads): 4.2 s wall"
            in result.output)
    assert ("the tuner, analyses/bobbysitter-tune-handicap.toml (2 threads): 64 settings raced in 4.0 s, 960 "
            "settings a minute; 12.5 s wall with the confirmation and the report") in result.output
    data = json.loads(path.read_text())
    assert data["check"]["wall_s"] == 4.25 and data["tune"]["settings_per_minute"] == 960.0
    assert [(r["game"], r["policy"]) for r in data["rows"]] == [
        (name, policy) for name, g in games.items() for policy in [g.bench_policy] + [p for p, _ in g.bench_more]]
    assert data["threads"] == 2
    for row in data["rows"]:
        assert ROW_KEYS <= set(row)
        assert row["kernel"]["games"] == 8
        assert set(row["kernel"]["threads"]) == {"1", "2"}
        assert row["games_per_s_1t"] > 0 and row["games_per_s_nt"] > 0
        assert row["efficiency"] == pytest.approx(row["speed_up"] / 2)
        if row["game"] == "blacksheep":     # it counts decisions: decisions/s beside games/s
            assert row["decisions_per_game"] > 10
            assert row["decisions_per_s_nt"] == pytest.approx(row["games_per_s_nt"] * row["decisions_per_game"])
        else:
            assert row["decisions_per_game"] is None
        if row["more"]:
            assert row["reference"] is None and row["ratio"] is None and row["cold_start_s"] is None
        else:
            assert row["reference"]["games"] == 1 and row["reference_games_per_s"] > 0
            assert (row["cold_start_s"], row["warm_start_s"]) == (7.5, 1.25)
    machine = data["machine"]
    for key in ("date", "cpu_count", "cpus_usable", "numba_threads", "threading_layer", "load_average"):
        assert key in machine
    assert {"sheepsim", "numba", "numpy", "python"} <= set(machine["versions"])
    # the cold start is timed with an empty cache, the warm one with the package's
    assert {(name, False) for name in games} <= {(g, warm) for g, _, warm in fake_startup}
    # Battle Sheep beside the plain-C program, where a compiler exists
    if shutil.which("cc") or shutil.which("gcc") or shutil.which("clang"):
        assert [r["workload"] for r in data["c_baseline"]] == ["complete 2-player games", "board32: placement and moves"]
        for r in data["c_baseline"]:
            assert r["c_games_per_s"] > 0 and r["c_over_sheepsim"] == pytest.approx(
                r["c_games_per_s"] / r["sheepsim_games_per_s"])
        assert "C is " in result.output and "faster (target: at most 1.3x)" in result.output


def test_one_game_with_players_and_no_startup():
    result = run_cli("bench", "blacksheep", "-p", "4", "--games", "2", "--reference-games", "1", "--no-startup",
                     "--search-budget", "0")
    assert result.exit_code == 0, result.output
    row = next(line for line in result.output.splitlines() if line.startswith("blacksheep "))
    assert row.split()[1] == "4" and row.split()[-2:] == ["-", "-"]
    assert "pig " not in result.output


def test_search_rows_time_the_kernel_beside_a_playout_and_the_python_search(tmp_path):
    path = tmp_path / "bench.json"
    result = run_cli("bench", "pig", "--games", "64", "--reference-games", "1", "--no-startup", "--search-budget", "8",
                     "--json", str(path))
    assert result.exit_code == 0, result.output
    (row,) = json.loads(path.read_text())["search"]
    assert row["policy"] == "mcts:iters=8" and row["games"] >= 1
    assert row["iterations_per_s_1t"] == pytest.approx(8 * row["decisions_per_s_1t"])
    assert row["playout_ratio"] == pytest.approx(row["iteration_s"] / row["playout_s"])
    assert row["python_decisions"] > 0 and row["python_ratio"] > 1          # the kernel is faster than Python
    line = next(x for x in result.output.splitlines() if x.startswith("pig ") and "mcts:iters=8" in x)
    assert line.split()[-1] == f"{row['python_ratio']:,.0f}x"


def test_an_agent_row_times_a_decision_and_plays_equal_time_mcts(tmp_path):
    path = tmp_path / "bench.json"
    result = run_cli("bench", "pig", "--games", "64", "--reference-games", "1", "--no-startup", "--search-budget", "0",
                     "--agent", "mcts:iters=64,rollout=greedy", "--agent-games", "40", "--json", str(path))
    assert result.exit_code == 0, result.output
    (row,) = json.loads(path.read_text())["agents"]
    assert row["agent"] == "mcts:iters=64,rollout=greedy" and row["decided"] == 40
    assert row["decisions_per_s"] == pytest.approx(1000 / row["ms_per_decision"])
    # the opponent's iterations are those whose measured cost matches (equal_iters): 64
    # greedy iterations cost less a decision than 256 random ones
    iters = int(row["equal_time"].split("iters=")[1])
    assert iters < 256 and row["equal_time_ms_per_decision"] > 0
    assert row["win_rate_lo"] <= row["win_rate"] <= row["win_rate_hi"]
    assert any(x.startswith("pig ") and "mcts:iters=64,rollout=greedy" in x and "%" in x
               for x in result.output.splitlines())
    # the yardstick is named as it played (ismcts in a hidden-information game)
    assert row["reference"] == "mcts:iters=256"
    assert f"pig: mcts:iters=256 costs {row['reference_ms_per_decision']:.2f} ms a decision" in result.output


def test_the_equal_time_opponent_is_found_by_its_measured_cost_not_by_scaling():
    # a search whose iterations cost more as its tree grows (here seconds = iters^1.5 / 1e6):
    # the linear guess, 4,000 iterations, costs 253 ms where the agent costs 40; the
    # budget found costs within 10% of the agent's, and the search stops there
    from sheepsim.bench_agents import CLOSE, equal_iters
    tried = []

    def cost_at(n):
        tried.append(n)
        return n ** 1.5 / 1e6
    iters, cost = equal_iters(cost_at, 0.040, 4000)
    # linear from 4,000 to 632, then along the power the two measured costs give (1.5): 1,170
    assert tried == [4000, 632, 1170] and (iters, cost) == (1170, 1170 ** 1.5 / 1e6)
    assert abs(cost / 0.040 - 1) <= CLOSE
    # a linear cost is matched by the first guess, measured once
    tried.clear()
    assert equal_iters(lambda n: (tried.append(n), n * 1e-5)[1], 0.010, 1000) == (1000, 0.010)
    assert tried == [1000]


def test_warm_start_runs_a_fresh_process():
    assert B.start_seconds("pig", 2, None) > 0


def test_sizes_keep_two_digits_and_scale_to_the_target():
    assert [B._two_digits(x) for x in (0.4, 7.9, 12.3, 987.0, 123_456.0)] == [1, 7, 12, 980, 120_000]
    # a game taking 1 ms of CPU per game gets about target / 1 ms games
    assert B._calibrate(lambda n: n * 1e-3, 0.5) == 500
    assert B._calibrate(lambda n: n * 2e-7, 0.3) == 1_500_000


@pytest.mark.parametrize("args,needles", [
    (["bench", "nosuchgame"], ["unknown game 'nosuchgame'", "battlesheep"]),
    (["bench", "-p", "3"], ["--players needs exactly one GAME"]),
    (["bench", "pig", "blacksheep", "-p", "3"], ["--players needs exactly one GAME"]),
    (["bench", "pig", "-p", "3"], ["pig takes 2-2 players, not 3"]),
    (["bench", "pig", "--games", "0"], ["--games", "0 is not in the range"]),
    (["bench", "pig", "--reference-games", "-1"], ["--reference-games"]),
    (["bench", "pig", "--threads", "1"], ["--threads"]),
    (["bench", "pig", "--json", "no/such/folder/bench.json"], ["folder no/such/folder does not exist"]),
    (["bench", "pig", "--agent", "alphabeta"], ["Pig has luck in its decisions", "use mcts"]),
    (["bench", "bobbysitter", "--agent", "child"], ["bobbysitter has no search agents"]),
    (["bench", "battlesheep", "--agent", "alphabeta:depth=0"], ["depth=0 is out of range"]),
    (["bench", "pig", "--agent", "hold", "--agent-games", "5"], ["--agent-games"]),
])
def test_bad_input_is_one_line_exit_2(args, needles):
    assert_bad(run_cli(*args), *needles)


def test_json_into_a_folder_is_one_line_exit_2(tmp_path):
    assert_bad(run_cli("bench", "pig", "--json", str(tmp_path)), "is a folder")


def test_search_playouts_start_where_the_search_decided_and_play_to_the_end():
    from sheepsim.games import get_game
    from sheepsim.games import wrappers as W
    from sheepsim.policies import seat_specs
    from sheepsim.rng import streams
    from sheepsim.search import bench as SB
    game = get_game("pig")
    PL = game.play
    E = PL.ENGINE
    rules = game.make_rules(2, {"goal": 40})
    arr, aux = game.to_array(rules), game.initial_state(rules, None)
    specs = seat_specs("pig", ["mcts:iters=8", "random"], 2)
    log = W.replay(PL, arr, aux, specs, True, 1, 3)[0]
    positions = SB._positions(E, PL, arr, aux, 3, log)
    # one position per logged decision, each with the logged seat to act
    assert [seat for seat, _ in positions] == [int(x) for x in log[:, 0] if x >= 0] and len(positions) > 5
    assert all(E.actor(s, arr) == seat for seat, s in positions)
    states = np.stack([s for _, s in positions])
    kernel = SB._playouts(PL)
    assert kernel(states, arr, aux, 2, True, streams(3, 0, 1)[0]) == 2 * len(states)     # every playout ends
    assert kernel(states, arr, aux, 2, False, streams(3, 0, 1)[0]) == 0                  # copies only


def test_the_check_row_times_the_readme_example_in_a_fresh_process():
    row = B.check_row(2, lambda msg: None, scale=0.01)
    assert row["command"] == "sheepsim check examples/variant.toml" and row["game"] == "blacksheep"
    assert row["games_per_run"] == 500 and row["runs"] == 4 and 0 < row["wall_s"] < row["target_s"]


def test_the_tune_row_times_a_whole_study(tmp_path):
    from test_tune import SMALL
    path = tmp_path / "small.toml"
    path.write_text(SMALL)
    row = B.tune_row(1, lambda msg: None, path)
    assert row["analysis"] == "analyses/small.toml" and row["settings"] == 16
    assert 0 < row["search_s"] < row["wall_s"] and row["settings_per_minute"] == pytest.approx(16 / row["search_s"] * 60)
    assert B.tune_row(1, lambda msg: None, tmp_path / "none.toml") is None
