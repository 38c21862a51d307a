"""Run many games: chunks, backends, resume, sequential stopping, progress.

A run is cut into chunks of consecutive game indices. A backend (backends.py: this
process, or Dask workers in cluster.py) turns each chunk into its stored form with the
one function `chunk.compute`: the per-game frame, or in aggregate mode its counts
(results.aggregate), the frame discarded so memory stays flat. This module merges the
chunks in index order, writes each to the run folder as it arrives, and decides a
sequential stop. Game g's result depends only on (rules, start state, policies, seed,
g), so threads, workers, backend, chunk size and resume never change a result; with
--ci-halfwidth the stop is taken at a chunk boundary, so there the chunk size counts.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .. import __version__
from ..errors import SheepsimError
from ..games.base import GameSpec
from ..options import Rules
from ..policies import PolicySpec
from ..results.store import RunFolder, inspect_folder, read_aggregate, read_manifest, read_results
from ..results.aggregate import Aggregate, aggregate_frame
from ..start import kernel_aux
from .backends import open_backend
from .chunk import ChunkJob, policy_sources
from .progress import progress_bar
from .stopping import halfwidths, narrow_enough

DEFAULT_CHUNK = 50_000
# The most games a run holds. Per-game rows stay in memory (40 to 200 bytes a game, and
# a copy when the chunks are joined), so rows mode stops where that is some 20 GB;
# aggregate mode keeps counts, flat however many games, and stops where a run would
# take days (10^12 games at 10^7 games/s) and game indices stay far inside int64.
MAX_ROWS = 100_000_000
MAX_GAMES = 10**12


@dataclass
class Run:
    """A finished run: per-game results (empty in aggregate mode), the manifest that
    produced them, and in aggregate mode the merged counts."""

    results: pd.DataFrame
    manifest: dict[str, Any]
    seconds: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)
    aggregate: Aggregate | None = None


def set_threads(threads: int | None) -> int:
    """Set numba's thread count for the calling thread (capped by the pool); return it."""
    import numba
    if threads:
        numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    return numba.get_num_threads()


def versions() -> dict[str, str]:
    import numba
    import pyarrow
    out = {"sheepsim": __version__, "numba": numba.__version__, "numpy": np.__version__,
           "pandas": pd.__version__, "pyarrow": pyarrow.__version__, "python": sys.version.split()[0]}
    dask = getattr(sys.modules.get("distributed"), "__version__", None)     # only if a run used it
    if dask:
        out["distributed"] = dask
    return out


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far, in MB (Linux reports KB)."""
    import resource
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def make_manifest(game: GameSpec, rules: Rules, specs: list[PolicySpec], games: int, seed: int,
                  chunk_size: int | None, rotate: bool, position: dict | None, mode: str = "rows",
                  ci_halfwidth: float | None = None, metrics: bool = False) -> dict[str, Any]:
    return {
        "format": "sheepsim-run/2", "game": game.name, "game_version": game.version, "rules": rules.as_dict(),
        "policies": [s.label for s in specs], "seed": seed, "games": games, "chunk_size": chunk_size,
        "rotate": rotate, "start_position": position, "mode": mode, "ci_halfwidth": ci_halfwidth,
        "metrics": metrics,
        "turn_unit": game.turn_unit, "versions": versions(),
    }


def check_games(games: int, aggregate: bool = False, what: str = "--games") -> None:
    """A positive count within what a run holds (MAX_ROWS per-game rows, MAX_GAMES with
    --aggregate), else a one-line error naming the maximum."""
    if games < 1:
        raise SheepsimError(f"{what} must be a positive number of games, not {games}")
    if aggregate and games > MAX_GAMES:
        raise SheepsimError(f"{what} {games:,} is more than a run holds: at most {MAX_GAMES:,} games with "
                            f"--aggregate")
    if not aggregate and games > MAX_ROWS:
        raise SheepsimError(f"{what} {games:,} is more than a run holds: at most {MAX_ROWS:,} games with per-game "
                            f"rows (each kept in memory), {MAX_GAMES:,} with --aggregate (counts only)")


def read_run(out: Path) -> Run:
    """A finished run folder (simulate --out) as the Run simulate returned, read back
    without playing a game (its time is the one recorded). An unfinished folder is an
    error that says how to finish it."""
    manifest = read_manifest(out)
    if manifest.get("status") == "failed":
        raise SheepsimError(f"{out} holds a run that stopped on an error ({manifest.get('error')}); fix it and run "
                            f"its simulate command again to finish it, then summarize")
    if manifest.get("status") != "complete":
        chunks = len(manifest.get("chunks", {}))
        raise SheepsimError(f"{out} holds an unfinished run ({chunks} chunk(s) saved); run its simulate command "
                            f"again to finish it, then summarize")
    if manifest["mode"] == "aggregate":
        agg, manifest = read_aggregate(out)
        results, aggregate = pd.DataFrame(), agg
    else:
        results, manifest = read_results(out)
        aggregate = None
    played = manifest.get("played", manifest["games"])
    extra = {"resumed": 0, "redone": {}, "computed": len(manifest.get("chunks", {})), "computed_games": played}
    return Run(results, manifest, float(manifest.get("seconds") or 0.0), extra, aggregate)


def _to_stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def simulate(game: GameSpec, rules: Rules, specs: list[PolicySpec], games: int, seed: int = 0,
             threads: int | None = None, rotate: bool = True, position: dict | None = None,
             out: Path | None = None, chunk_size: int | None = None, progress: bool = False, *,
             aggregate: bool = False, ci_halfwidth: float | None = None, backend: str = "local",
             scheduler: str | None = None, workers: int | None = None,
             on_chunk: Callable[[int], None] | None = None, start_file: str | None = None,
             notify: Callable[[str], None] | None = _to_stderr, metrics: bool = False) -> Run:
    """Play `games` games (fewer if `ci_halfwidth` stops the run first) and return their
    results; with `out`, write them chunk by chunk and resume what is there.

    `aggregate` keeps per-chunk counts instead of per-game rows. `metrics` adds each
    game's experience metrics (games/tally.py: rounds, lead changes, decided_at and its
    share, comeback, drama) to its row, tallied in the kernels. `backend` is "local"
    (numba `threads`) or "dask" (`scheduler` address, or a LocalCluster of `workers`
    processes with `threads` numba threads each). `on_chunk(index)` is called after each
    chunk is merged. `start_file` names the position or deck file the start was read
    from (recorded, and named by the summary). `notify(line)` hears of a cold compile
    before it starts (minutes on a first run; default: a line on stderr, None: silent).
    Bad input raises SheepsimError before anything is written."""
    check_games(games, aggregate)
    if ci_halfwidth is not None and not 0 < ci_halfwidth < 0.5:
        raise SheepsimError(f"--ci-halfwidth must be between 0 and 0.5 (a win-rate half-width), "
                            f"not {ci_halfwidth}")
    mode = "aggregate" if aggregate else "rows"
    manifest = make_manifest(game, rules, specs, games, seed, chunk_size, rotate, position, mode, ci_halfwidth,
                             metrics)
    manifest["start_file"] = start_file
    old = None
    if out is not None:
        old, stored = inspect_folder(out, manifest, chunk_size)
        chunk_size = chunk_size or stored
    manifest["chunk_size"] = chunk_size = chunk_size or DEFAULT_CHUNK
    init = kernel_aux(game, rules, position, specs)
    plugins, modules = policy_sources(specs, game)
    runner = open_backend(backend, threads, scheduler, workers)
    try:
        job = ChunkJob(game.name, rules, game.to_array(rules), init, tuple(s.data() for s in specs), rotate,
                       seed, games, chunk_size, aggregate, threads=runner.threads if runner.name == "dask" else None,
                       plugins=plugins, modules=modules, metrics=metrics)
        manifest.update(runner.info())
        folder = RunFolder(out, manifest, old) if out is not None else None
        try:
            return _drive(job, (game, specs), runner, folder, manifest, progress, ci_halfwidth, on_chunk, notify)
        except SheepsimError as exc:
            if folder is not None:
                folder.fail(str(exc))       # not "running": the folder says why it stopped
            raise
        finally:
            if folder is not None:
                folder.close()
    finally:
        runner.close()


def _kept(folder: RunFolder | None, chunks: int) -> str:
    """What an interrupted run leaves behind, in words."""
    if folder is None:
        return "nothing was kept (without --out, results live only in memory)"
    kept = len(folder.manifest["chunks"])
    return (f"{kept} of {chunks} chunk(s) are saved in {folder.out}; run the same command again to resume "
            f"from there")


def _drive(job: ChunkJob, prepared: tuple, runner, folder: RunFolder | None, manifest: dict[str, Any],
           progress: bool, ci_halfwidth: float | None, on_chunk, notify=None) -> Run:
    """Merge chunks in index order (loaded from the folder, or from the backend) until
    the last chunk or the sequential stop. The kernels are compiled first, so that the
    run's time (and games/s) does not count the compile."""
    players = job.rules.num_players
    loaded: dict[int, Any] = {}
    redone: dict[int, str] = {}
    if folder is not None:
        for index in range(job.chunks):
            payload, why = folder.load(index)
            if payload is not None:
                loaded[index] = payload
            elif why != "not finished":
                redone[index] = why
    resumed = len(loaded)
    if resumed < job.chunks:
        warmed = runner.warm(job, prepared, notify)
        manifest["compile_seconds"] = None if warmed is None else round(warmed, 3)
    computed = computed_games = 0
    start = time.perf_counter()
    counts = Aggregate(players) if job.aggregate or ci_halfwidth is not None else None
    frames: list[pd.DataFrame] = []
    arrived: dict[int, Any] = {}
    skip = set(loaded)                # a snapshot: the merge below pops `loaded`
    # lazily: a list of every index would grow with the run (aggregate mode is flat)
    stream = runner.run(job, (i for i in range(job.chunks) if i not in skip), prepared)
    bar = progress_bar(job.chunks, progress)
    last = job.chunks - 1
    try:
        for index in range(job.chunks):
            payload = loaded.pop(index, None)
            while payload is None:
                if index in arrived:
                    payload = arrived.pop(index)
                    break
                got, part = next(stream)
                computed += 1
                computed_games += job.bounds(got)[1]
                if folder is not None:
                    folder.save(got, part)
                arrived[got] = part
            if job.aggregate:
                counts.add(payload)
            else:
                frames.append(payload)
                if counts is not None:
                    counts.add(aggregate_frame(payload, players))
            bar.update(1)
            if on_chunk is not None:
                on_chunk(index)
            if ci_halfwidth is not None and narrow_enough(counts, ci_halfwidth):
                last = index
                break
    except KeyboardInterrupt:
        raise KeyboardInterrupt(_kept(folder, job.chunks)) from None
    finally:
        stream.close()
        bar.close()
    seconds = time.perf_counter() - start
    played = sum(job.bounds(i)[1] for i in range(last + 1))
    manifest["played"] = played
    manifest["seconds"] = round(seconds, 3)
    manifest["peak_rss_mb"] = peak_rss_mb()
    if ci_halfwidth is not None:
        widths = halfwidths(counts)
        manifest["stopped"] = {"chunks": last + 1, "games": played, "reached": bool(np.all(widths <= ci_halfwidth)),
                               "halfwidths": [round(float(w), 6) for w in widths]}
    if folder is not None:
        folder.drop_beyond(last)          # computed past the stop (parallel backends) or left by one
        folder.finish(counts if job.aggregate else None)
    results = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    extra = {"resumed": resumed, "redone": redone, "computed": computed, "computed_games": computed_games}
    return Run(results, manifest, seconds, extra, counts if job.aggregate else None)
