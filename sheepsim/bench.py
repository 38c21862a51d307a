"""`sheepsim bench`: compiled kernel vs pure-Python reference, side by side in one run.

Cold compile time is measured in a fresh process with an empty numba cache folder
(NUMBA_CACHE_DIR), warm start in a fresh process using the package's own cache: both
are what a user waits for before the first game.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

_START = """
import time, numpy as np
t0 = time.perf_counter()
from sheepsim.games import get_game
from sheepsim.policies import seat_specs
g = get_game({game!r}); r = g.make_rules({players}, {{}})
specs = seat_specs(g.name, [g.bench_policy], r.num_players)
g.play_chunk(g.to_array(r), g.initial_state(r, None), specs, True, 0, 0, 1)
print(time.perf_counter() - t0)
"""


def _start_seconds(game: str, players: int, cache_dir: str | None) -> float:
    env = dict(os.environ)
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = cache_dir
    out = subprocess.run([sys.executable, "-c", _START.format(game=game, players=players)], env=env,
                         capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def bench_game(game, players: int | None, n_games: int, reference_games: int, threads: int | None) -> str:
    from .policies import seat_specs
    from .runner import set_threads

    players = players or game.bench_players or game.players[0]
    rules = game.make_rules(players, {})
    specs = seat_specs(game.name, [game.bench_policy], players)
    with tempfile.TemporaryDirectory() as empty:
        cold = _start_seconds(game.name, players, empty)
    _start_seconds(game.name, players, None)          # make sure the package cache is filled
    warm = _start_seconds(game.name, players, None)
    threads = set_threads(threads)
    arr, init = game.to_array(rules), game.initial_state(rules, None)
    game.play_chunk(arr, init, specs, True, 0, 0, 1000)   # warm up this process
    start = time.perf_counter()
    chunk = 200_000
    for first in range(0, n_games, chunk):
        game.play_chunk(arr, init, specs, True, 1, first, min(chunk, n_games - first))
    kernel = n_games / (time.perf_counter() - start)
    reference = game.reference_bench(rules, reference_games, 1, game.bench_policy)
    return "\n".join([
        f"{game.title}, {players} players, every seat {game.bench_policy}: {game.bench_workload}",
        f"{'engine':<22}{'games':>12}{'games/s':>14}",
        f"{'compiled kernel':<22}{n_games:>12,}{kernel:>14,.0f}   ({threads} thread{'s' if threads > 1 else ''})",
        f"{'reference (Python)':<22}{reference_games:>12,}{reference:>14,.0f}   (1 thread)",
        f"speed-up: {kernel / reference:,.0f}x",
        f"cold start (empty numba cache, compile + first game): {cold:.2f}s",
        f"warm start (cached kernels, import + first game):     {warm:.2f}s",
    ])
