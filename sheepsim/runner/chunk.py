"""One chunk of games to its stored form: the single function every backend runs.

A `ChunkJob` is plain data (game name, rules, start state, the policy specs as data,
seed, plugin files), so it pickles to a Dask worker in a few hundred bytes (more when
the policies read fixed data from aux: Pig's optimal policy carries its decision
table, 160 KB at goal 100). The worker finds the game's kernels by name (`get_game`),
loads the user's policy plugins, rebuilds the specs from their data once per process
(no text is parsed again), and runs the same module-level cached kernels as the local
backend: compiled (or loaded from numba's disk cache) once per worker.
"""

from __future__ import annotations

import hashlib
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..errors import SheepsimError
from ..options import Rules
from ..results.store import Payload
from ..results.aggregate import aggregate_frame
from ..games.tally import M_SIZE, metric_columns

PLUGIN_PREFIX = "sheepsim_plugin_"       # policies.load_plugin's module names

# A chunk already runs on all of the process's numba threads (wrappers.run_blocks), so
# a Dask worker with several threads runs its chunks one after the other rather than
# oversubscribing its cores.
_KERNEL_LOCK = threading.Lock()
# Plugins must be imported once per process: a second import would register the same
# policies again under new ids.
_PREPARE_LOCK = threading.Lock()
_prepared: dict[str, tuple] = {}


@dataclass(frozen=True)
class ChunkJob:
    """Everything a process needs to play any chunk of one run."""

    game: str
    rules: Rules
    rules_arr: np.ndarray
    init: np.ndarray                   # the kernels' aux: the start state, then the policies' data (start.kernel_aux)
    policies: tuple[tuple, ...]        # the policy spec of each slot, as data (PolicySpec.data)
    rotate: bool
    seed: int
    games: int                         # the run's number of games (the last chunk is shorter)
    chunk_size: int
    aggregate: bool
    threads: int | None = None         # numba threads in the process that plays (None: leave as is)
    plugins: tuple[tuple[str, str], ...] = ()   # (absolute path, sha256) of user policy files
    modules: tuple[str, ...] = ()      # importable modules that register the user policies used
    metrics: bool = False              # tally each game's experience metrics (games/tally.py)

    @property
    def key(self) -> str:
        """Same key, same game and policy specs (what a process prepares once)."""
        return _digest(self.game, self.rules, self.policies, self.plugins, self.modules)

    @property
    def task_key(self) -> str:
        """Same key, same chunk results (names the Dask tasks)."""
        return _digest(self.key, self.rules_arr.tobytes(), self.init.tobytes(), self.rotate, self.seed,
                       self.games, self.chunk_size, self.aggregate, self.metrics)

    def bounds(self, index: int) -> tuple[int, int]:
        """(first game, number of games) of chunk `index`."""
        first = index * self.chunk_size
        return first, min(self.chunk_size, self.games - first)

    @property
    def chunks(self) -> int:
        return -(-self.games // self.chunk_size)


def _digest(*parts: Any) -> str:
    return hashlib.sha256(repr(parts).encode()).hexdigest()


# the packages whose games and policies every process has (the registry imports them)
SHIPPED = ("sheepsim.games.", "sheepsim.search.")


def _plugin_file(module) -> str | None:
    path = getattr(module, "__file__", None)
    return str(Path(path).resolve()) if path else None


def policy_sources(specs, game=None) -> tuple[tuple[tuple[str, str], ...], tuple[str, ...]]:
    """Where the policies of `specs` that sheepsim does not ship (user policies, plug-in
    agents), and `game` if it is a plug-in, come from, for a worker to import them:
    ((plugin file, sha256), ...) for `--plugin` files and (module, ...) for importable
    modules. Only those: a process may hold other (even broken) plugins."""
    plugins, modules = {}, []
    declared = (game.play.DECLARATION or "") if game is not None else ""
    origins = [declared] if declared and not declared.startswith(SHIPPED) else []
    for spec in specs:
        fn = getattr(spec.policy.fn, "py_func", spec.policy.fn)
        name = getattr(fn, "__module__", None) or ""
        if not name.startswith(SHIPPED):
            origins.append(name)
    for name in origins:
        if name.startswith(PLUGIN_PREFIX):
            path = _plugin_file(sys.modules.get(name))
            if path and path not in plugins:
                try:
                    plugins[path] = hashlib.sha256(Path(path).read_bytes()).hexdigest()
                except OSError:
                    raise SheepsimError(f"plugin {path} was imported but can no longer be read; the Dask "
                                        f"workers need it")
        elif name and name != "__main__":
            modules.append(name)
    return tuple(plugins.items()), tuple(dict.fromkeys(modules))


def _ensure_plugins(plugins: tuple[tuple[str, str], ...], modules: tuple[str, ...] = ()) -> None:
    """Import the plugin files a worker has not imported yet (same files, same content)
    and the modules that register user policies."""
    import importlib

    from ..policies import load_plugin
    for name in modules:
        importlib.import_module(name)
    have = {_plugin_file(m) for name, m in list(sys.modules.items()) if name.startswith(PLUGIN_PREFIX)}
    for path, digest in plugins:
        if path in have:
            continue
        try:
            data = Path(path).read_bytes()
        except OSError:
            raise SheepsimError(f"plugin {path} does not exist on worker {_host()}; "
                                f"make it available at the same path on every worker")
        if hashlib.sha256(data).hexdigest() != digest:
            raise SheepsimError(f"plugin {path} on worker {_host()} differs from the client's copy; "
                                f"make every worker use the same file")
        load_plugin(path)


def _host() -> str:
    import socket
    return socket.gethostname()


def _prepare(job: ChunkJob):
    """(game, policy specs) of the job, built once per process."""
    key = job.key
    with _PREPARE_LOCK:
        if key not in _prepared:
            from ..games import get_game
            from ..policies import spec_from_data
            _ensure_plugins(job.plugins, job.modules)
            game = get_game(job.game)
            specs = [spec_from_data(data) for data in job.policies]
            _prepared.clear()            # one run at a time per process: keep memory flat
            _prepared[key] = (game, specs)
        return _prepared[key]


def compute(job: ChunkJob, index: int, prepared: tuple | None = None) -> Payload:
    """Chunk `index` of `job` in its stored form: the per-game frame, or its counts
    (aggregate mode, the frame discarded). Every backend calls this."""
    game, specs = prepared if prepared is not None else _prepare(job)
    first, n = job.bounds(index)
    with _KERNEL_LOCK:
        if job.threads:
            from . import set_threads
            set_threads(job.threads)          # thread-local in numba: set in the thread that plays
        metrics = np.zeros((n, M_SIZE)) if job.metrics else None
        rows = game.play_chunk(job.rules_arr, job.init, specs, job.rotate, job.seed, first, n, metrics)
    df = game.frame(rows, job.rules, specs, job.seed, first)
    if metrics is not None:
        df = df.assign(**metric_columns(metrics))
        if game.end_condition is not None:
            codes = game.end_condition(df, job.rules)
            df["end"] = pd.Categorical.from_codes(codes, categories=list(game.end_conditions))
    if job.aggregate:
        return aggregate_frame(df, job.rules.num_players)
    return df
