"""Backends play chunks and hand back their stored forms (frame or counts) in any order.

Both run `chunk.compute`; the runner merges in chunk-index order, so the backend never
changes a result. `open_backend` checks its arguments and connects before the runner
touches the output folder (bad input fails with nothing written).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..errors import SheepsimError
from ..results.store import Payload
from .chunk import ChunkJob, compute

BACKENDS = ("local", "dask")


class LocalBackend:
    """This process: one chunk at a time, each on all numba threads (`--threads`)."""

    name = "local"

    def __init__(self, threads: int | None):
        from . import set_threads
        self.threads = set_threads(threads)

    def info(self) -> dict[str, Any]:
        return {"backend": "local", "threads": self.threads}

    def warm(self, job: ChunkJob, prepared: tuple, notify: Callable[[str], None] | None) -> float:
        """Compile the run's kernel before the timed run, by playing its game 0 once
        (the result is discarded), after saying so through `notify` when the compile
        is a real one; returns the seconds it took."""
        from ..games.wrappers import cold_start_note
        game, specs = prepared
        note = cold_start_note(game, specs)
        if note and notify is not None:
            notify(note)
        start = time.perf_counter()
        game.play_chunk(job.rules_arr, job.init, specs, job.rotate, job.seed, 0, 1)
        return time.perf_counter() - start

    def run(self, job: ChunkJob, indices: Iterable[int], prepared: tuple) -> Iterator[tuple[int, Payload]]:
        for index in indices:
            yield index, compute(job, index, prepared)

    def close(self) -> None:
        pass


def open_backend(backend: str, threads: int | None = None, scheduler: str | None = None,
                 workers: int | None = None):
    """A ready backend: `local`, or `dask` on the cluster at `scheduler` or on a
    LocalCluster of `workers` processes. Raises SheepsimError on bad arguments."""
    if backend not in BACKENDS:
        raise SheepsimError(f"unknown backend {backend!r}; valid backends: {', '.join(BACKENDS)}")
    if workers is not None and workers < 1:
        raise SheepsimError(f"--workers must be at least 1, not {workers}")
    if backend == "local":
        if scheduler is not None or workers is not None:
            raise SheepsimError("--scheduler and --workers need --backend dask")
        return LocalBackend(threads)
    if scheduler is not None and workers is not None:
        raise SheepsimError("give --scheduler (an existing Dask cluster) or --workers (a local one), not both")
    from .cluster import DaskBackend
    return DaskBackend(scheduler, workers, threads)
