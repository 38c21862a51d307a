"""Sequential stopping (--ci-halfwidth): play chunks until every seat's win rate is known
to +-H, deciding only at chunk boundaries in chunk-index order, so where a run stops
depends on the counts alone, never on the backend, threads or timing."""

from __future__ import annotations

import numpy as np

from ..stats.intervals import wilson_interval
from ..results.aggregate import Aggregate


def halfwidths(agg: Aggregate) -> np.ndarray:
    """Half-width of each seat's 95% Wilson interval of its win rate over decided games
    (nan while no game is decided)."""
    wins = np.asarray(agg.seat_wins, dtype=float)
    lo, hi = wilson_interval(wins, np.full(len(wins), float(agg.decided)))
    return (np.asarray(hi) - np.asarray(lo)) / 2


def narrow_enough(agg: Aggregate, target: float) -> bool:
    """True when every seat's half-width is at most `target`."""
    widths = halfwidths(agg)
    return bool(np.all(widths <= target))      # nan compares False: keep playing
