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
    """Chunks done of `total`, elapsed time and an estimate of the time left."""

    def __init__(self, total: int):
        self.total, self.done, self.start = total, 0, time.perf_counter()

    def update(self, n: int) -> None:
        self.done += n
        elapsed = time.perf_counter() - self.start
        left = elapsed / max(self.done, 1) * (self.total - self.done)
        width = 30
        filled = int(width * self.done / self.total)
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} chunks"
                         f"  {elapsed:6.1f}s  ~{left:5.1f}s left")
        sys.stderr.flush()

    def close(self) -> None:
        sys.stderr.write("\n")
        sys.stderr.flush()


def progress_bar(total: int, enabled: bool):
    """A bar when enabled and there is more than one chunk; else one that prints nothing."""
    return _Bar(total) if enabled and total > 1 else _NoBar()
