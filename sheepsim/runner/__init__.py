"""Run many games: chunks, threads, seat rotation, progress, results (DESIGN 3, 6).

A run is cut into chunks of consecutive game indices. Each chunk is one call into the
game's parallel kernel (Python is crossed once per chunk); game g's result depends
only on (rules, start state, policies, seed, g), so threads, chunk size and resume
never change a row.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .. import __version__
from ..games.base import GameSpec
from ..options import Rules
from ..policies import PolicySpec
from ..results import prepare_folder, write_chunk, write_json, MANIFEST

DEFAULT_CHUNK = 50_000


@dataclass
class Run:
    """A finished run: per-game results and the manifest that produced them."""

    results: pd.DataFrame
    manifest: dict[str, Any]
    seconds: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)


def set_threads(threads: int | None) -> int:
    import numba
    if threads:
        numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    return numba.get_num_threads()


def versions() -> dict[str, str]:
    import numba
    import pyarrow
    return {"sheepsim": __version__, "numba": numba.__version__, "numpy": np.__version__,
            "pandas": pd.__version__, "pyarrow": pyarrow.__version__, "python": sys.version.split()[0]}


def make_manifest(game: GameSpec, rules: Rules, specs: list[PolicySpec], games: int, seed: int,
                  chunk_size: int, rotate: bool, position: dict | None) -> dict[str, Any]:
    return {
        "game": game.name, "game_version": game.version, "rules": rules.as_dict(),
        "policies": [s.label for s in specs], "seed": seed, "games": games,
        "chunk_size": chunk_size, "rotate": rotate, "start_position": position,
        "turn_unit": game.turn_unit, "versions": versions(),
    }


def simulate(game: GameSpec, rules: Rules, specs: list[PolicySpec], games: int, seed: int = 0,
             threads: int | None = None, rotate: bool = True, position: dict | None = None,
             out: Path | None = None, chunk_size: int = DEFAULT_CHUNK, progress: bool = False) -> Run:
    """Play `games` games and return their results (also written to `out` if given)."""
    threads = set_threads(threads)
    manifest = make_manifest(game, rules, specs, games, seed, chunk_size, rotate, position)
    manifest["threads"] = threads
    done = prepare_folder(out, manifest) if out is not None else set()
    init = game.initial_state(rules, position)
    arr = game.to_array(rules)
    frames = []
    start = time.perf_counter()
    starts = range(0, games, chunk_size)
    bar = _progress(len(starts), progress)
    for index, first in enumerate(starts):
        n = min(chunk_size, games - first)
        if index in done:
            frames.append(pd.read_parquet(out / f"chunk-{index:06d}.parquet"))
        else:
            rows = game.play_chunk(arr, init, specs, rotate, seed, first, n)
            df = game.frame(rows, rules, specs, seed, first)
            if out is not None:
                write_chunk(out, index, df, manifest)
            frames.append(df)
        bar.update(1)
    bar.close()
    seconds = time.perf_counter() - start
    manifest["seconds"] = round(seconds, 3)
    if out is not None:
        write_json(out / MANIFEST, manifest)
    results = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    return Run(results, manifest, seconds)


class _NoBar:
    def update(self, n: int) -> None:
        pass

    def close(self) -> None:
        pass


class _Bar:
    """A one-line progress bar on stderr (chunks done, games/s, time left)."""

    def __init__(self, total: int):
        self.total, self.done, self.start = total, 0, time.perf_counter()

    def update(self, n: int) -> None:
        self.done += n
        elapsed = time.perf_counter() - self.start
        left = elapsed / self.done * (self.total - self.done)
        width = 30
        filled = int(width * self.done / self.total)
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} chunks"
                         f"  {elapsed:6.1f}s  ~{left:5.1f}s left")
        sys.stderr.flush()

    def close(self) -> None:
        sys.stderr.write("\n")
        sys.stderr.flush()


def _progress(total: int, enabled: bool):
    return _Bar(total) if enabled and total > 1 else _NoBar()
