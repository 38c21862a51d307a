"""Timing helpers of the benchmarks (bench.py, search/bench.py, bench_agents.py): a
call's wall and CPU seconds, and numba's thread count set for a block."""

from __future__ import annotations

import time
from contextlib import contextmanager
from typing import Any, Callable, Iterator


def timed(fn: Callable[[], Any]) -> tuple[float, float]:
    """(wall, CPU) seconds of fn(); CPU time counts every thread of this process."""
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


@contextmanager
def numba_threads(n: int | None = None) -> Iterator[None]:
    """numba's thread count set to n (unless None) inside, restored on the way out."""
    import numba
    previous = numba.get_num_threads()
    try:
        if n is not None:
            numba.set_num_threads(n)
        yield
    finally:
        numba.set_num_threads(previous)
