"""Interval estimates and tests shared by every analysis.

Every rate has an interval. Proportions get Wilson score intervals (good coverage
near 0 and 1, unlike the normal approximation); quantiles and derived metrics get
percentile-bootstrap intervals with a fixed seed so a report regenerates bit for bit.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from statistics import NormalDist
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

# Resamples are built in batches of at most this many elements so that bootstrapping
# a million-game run does not allocate n_boot x n integers at once.
_BATCH_ELEMENTS = 1 << 22


def _z(confidence: float) -> float:
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    return NormalDist().inv_cdf(0.5 + confidence / 2.0)


def mean_interval(mean: float, sd: float, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Normal-approximation interval of a mean, from the sample standard deviation
    (ddof=1) and the count: mean -+ z * sd / sqrt(n)."""
    half = _z(confidence) * sd / max(n, 1) ** 0.5
    return mean - half, mean + half


def wilson_interval(
    successes: ArrayLike, n: ArrayLike, confidence: float = 0.95
) -> tuple[Any, Any]:
    """Wilson score interval for successes out of n; vectorised, nan where n == 0.

    Returns floats for scalar input, arrays (broadcast shape) otherwise.
    """
    k = np.asarray(successes, dtype=float)
    m = np.asarray(n, dtype=float)
    if np.any(m < 0) or np.any(k < 0) or np.any(k > m):
        raise ValueError("need 0 <= successes <= n")
    z2 = _z(confidence) ** 2
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / m
        denom = 1.0 + z2 / m
        centre = (p + z2 / (2.0 * m)) / denom
        half = np.sqrt(p * (1.0 - p) / m + z2 / (4.0 * m * m)) * np.sqrt(z2) / denom
    # The exact bounds are 0 at k == 0 and 1 at k == n; pin them so rounding cannot
    # report a tiny positive lower bound for a seat that never won.
    lo = np.where(k == 0, 0.0, np.clip(centre - half, 0.0, 1.0))
    hi = np.where(k == m, 1.0, np.clip(centre + half, 0.0, 1.0))
    lo = np.where(m == 0, np.nan, lo)
    hi = np.where(m == 0, np.nan, hi)
    if lo.ndim == 0:
        return float(lo), float(hi)
    return lo, hi


def _percentile_interval(samples: NDArray[np.float64], confidence: float) -> tuple[Any, Any]:
    alpha = 1.0 - confidence
    lo, hi = np.quantile(samples, [alpha / 2.0, 1.0 - alpha / 2.0], axis=0)
    return lo, hi


def bootstrap_ci(
    values: ArrayLike,
    statistic: Callable[..., Any],
    n_boot: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> tuple[float, float]:
    """Percentile-bootstrap interval of statistic(values); same seed, same interval.

    statistic is called as statistic(resamples, axis=-1) on a 2-D array of
    resamples (numpy reductions such as np.mean and np.median qualify), so the
    resampling loop stays in numpy.
    """
    x = np.asarray(values)
    if x.size == 0:
        return float("nan"), float("nan")
    _z(confidence)
    rng = np.random.default_rng(seed)
    batch = max(1, _BATCH_ELEMENTS // x.size)
    stats = np.empty(n_boot)
    for start in range(0, n_boot, batch):
        stop = min(n_boot, start + batch)
        idx = rng.integers(0, x.size, size=(stop - start, x.size))
        stats[start:stop] = statistic(x[idx], axis=-1)
    lo, hi = _percentile_interval(stats, confidence)
    return float(lo), float(hi)


def _quantile_from_counts(
    distinct: NDArray[Any], counts: NDArray[np.int64], q: NDArray[np.float64]
) -> NDArray[np.float64]:
    """np.quantile's default (linear) quantiles of rows of a frequency table.

    distinct is sorted (u,), counts is (b, u); returns (b, len(q)).
    """
    cum = np.cumsum(counts, axis=-1)
    n = cum[:, -1:]
    h = (n - 1) * q  # (b, len(q)) fractional 0-based order-statistic positions
    j = np.floor(h)
    frac = h - j

    def order_stat(k: NDArray[np.float64]) -> NDArray[np.float64]:
        # The k-th order statistic is the first distinct value whose cumulative count exceeds k.
        pos = (cum[:, None, :] <= k[:, :, None]).sum(axis=-1)
        return distinct[np.minimum(pos, distinct.size - 1)].astype(float)

    low = order_stat(j)
    high = order_stat(np.minimum(j + 1, n - 1))
    return low + frac * (high - low)


def bootstrap_quantile_ci(
    values: ArrayLike,
    q: ArrayLike,
    n_boot: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Percentile-bootstrap intervals for the quantiles q of values, one per q.

    A resample with replacement is exactly a multinomial draw over the distinct
    values, so for integer data (turns, scores) the cost is n_boot x distinct
    values rather than n_boot x n: fast enough for million-game runs.
    """
    x = np.asarray(values)
    qs = np.atleast_1d(np.asarray(q, dtype=float))
    if x.size == 0:
        nan = np.full(qs.shape, np.nan)
        return nan, nan.copy()
    _z(confidence)
    distinct, counts = np.unique(x, return_counts=True)
    rng = np.random.default_rng(seed)
    batch = max(1, _BATCH_ELEMENTS // (distinct.size * max(1, qs.size)))
    stats = np.empty((n_boot, qs.size))
    for start in range(0, n_boot, batch):
        stop = min(n_boot, start + batch)
        draws = rng.multinomial(x.size, counts / x.size, size=stop - start)
        stats[start:stop] = _quantile_from_counts(distinct, draws, qs)
    return _percentile_interval(stats, confidence)


def chi_square_uniform(counts: ArrayLike) -> tuple[float, float]:
    """Pearson chi-square of counts against equal expected counts: (statistic, p)."""
    c = np.asarray(counts, dtype=float)
    if c.size < 2 or c.sum() == 0:
        return float("nan"), float("nan")
    # Imported here: scipy.stats costs a noticeable share of CLI start-up time.
    from scipy.stats import chisquare

    result = chisquare(c)
    return float(result.statistic), float(result.pvalue)


def quantile_summary(values: ArrayLike) -> dict[str, float]:
    """Mean, median, quartiles, p90 and p99: the shape of a length or margin distribution."""
    x = np.asarray(values, dtype=float)
    if x.size == 0:
        return dict.fromkeys(("mean", "median", "q25", "q75", "p90", "p99"), float("nan"))
    q25, median, q75, p90, p99 = np.quantile(x, [0.25, 0.5, 0.75, 0.9, 0.99])
    return {
        "mean": float(x.mean()),
        "median": float(median),
        "q25": float(q25),
        "q75": float(q75),
        "p90": float(p90),
        "p99": float(p99),
    }


def normal_p(mean: float, se: float) -> float:
    """Two-sided normal p-value of mean / se. By erfc, not 1 - cdf: the subtraction
    rounds every |z| above about 8.3 to p = 0, which a report would print as < 1e-300.
    A zero standard error gives 0 for a nonzero mean and 1 for no change at all."""
    if se == 0:
        return 0.0 if mean != 0 else 1.0
    return math.erfc(abs(mean / se) / math.sqrt(2))


def holm_adjusted(p: ArrayLike) -> NDArray[np.float64]:
    """Holm's step-down adjusted p-values (NaN entries are no test and stay NaN): a test
    is significant at family-wise level alpha when its adjusted p is at most alpha."""
    p = np.asarray(p, dtype=float)
    out = np.full(len(p), np.nan)
    idx = [i for i in np.argsort(p, kind="stable") if not np.isnan(p[i])]
    running = 0.0
    for rank, i in enumerate(idx):
        running = max(running, min(1.0, (len(idx) - rank) * p[i]))
        out[i] = running
    return out
