"""A one-line progress bar on stderr for long runs (chunks done, time, time left)."""

from __future__ import annotations

import sys
import time


class _NoBar:
    def update(self, n: int) -> None:
        pass

    def close(self) -> None:
        pass


class _Bar:
    """Steps done of `total` (chunks, or the tuner's trials), elapsed time and an
    estimate of the time left."""

    def __init__(self, total: int, unit: str = "chunks"):
        self.total, self.done, self.start, self.unit = total, 0, time.perf_counter(), unit

    def update(self, n: int) -> None:
        self.done += n
        elapsed = time.perf_counter() - self.start
        left = elapsed / max(self.done, 1) * (self.total - self.done)
        width = 30
        filled = int(width * self.done / self.total)
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} {self.unit}"
                         f"  {elapsed:6.1f}s  ~{left:5.1f}s left")
        sys.stderr.flush()

    def close(self) -> None:
        sys.stderr.write("\n")
        sys.stderr.flush()


def progress_bar(total: int, enabled: bool, unit: str = "chunks"):
    """A bar when enabled and there is more than one step; else one that prints nothing."""
    return _Bar(total, unit) if enabled and total > 1 else _NoBar()
