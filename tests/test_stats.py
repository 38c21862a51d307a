"""Interval estimates against hand-computed and textbook values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sheepsim.stats.intervals import (
    _quantile_from_counts,
    bootstrap_ci,
    bootstrap_quantile_ci,
    chi_square_uniform,
    quantile_summary,
    wilson_interval,
)

Z95_SQ = 1.959963984540054**2


def test_wilson_textbook_value() -> None:
    # 81 successes of 263 (Wikipedia's binomial-interval example): (0.2553, 0.3662).
    lo, hi = wilson_interval(81, 263)
    assert lo == pytest.approx(0.255289, abs=1e-6)
    assert hi == pytest.approx(0.366210, abs=1e-6)


def test_wilson_half_of_four() -> None:
    # p = 1/2, n = 4: centre 1/2, half-width z*sqrt(1/16 + z^2/64) / (1 + z^2/4).
    half = math.sqrt(Z95_SQ) * math.sqrt(1 / 16 + Z95_SQ / 64) / (1 + Z95_SQ / 4)
    assert wilson_interval(2, 4) == pytest.approx((0.5 - half, 0.5 + half))


def test_wilson_edges_are_exact() -> None:
    # k = 0: (0, z^2 / (n + z^2)); k = n: (n / (n + z^2), 1).
    assert wilson_interval(0, 10) == (0.0, pytest.approx(Z95_SQ / (10 + Z95_SQ)))
    assert wilson_interval(10, 10) == (pytest.approx(10 / (10 + Z95_SQ)), 1.0)


def test_wilson_confidence_level_changes_width() -> None:
    z99 = 2.5758293035489004
    lo, hi = wilson_interval(0, 10, confidence=0.99)
    assert hi == pytest.approx(z99**2 / (10 + z99**2))


def test_wilson_vectorised_and_empty() -> None:
    lo, hi = wilson_interval(np.array([81, 0, 3]), np.array([263, 0, 3]))
    assert lo[0] == pytest.approx(0.255289, abs=1e-6)
    assert math.isnan(lo[1]) and math.isnan(hi[1])
    assert hi[2] == 1.0
    assert all(math.isnan(v) for v in wilson_interval(0, 0))


@pytest.mark.parametrize(("k", "n"), [(5, 4), (-1, 4)])
def test_wilson_rejects_impossible_counts(k: int, n: int) -> None:
    with pytest.raises(ValueError, match="successes"):
        wilson_interval(k, n)


def test_bootstrap_reproducible_with_seed() -> None:
    x = np.random.default_rng(7).normal(size=500)
    first = bootstrap_ci(x, np.mean, n_boot=400, seed=3)
    assert bootstrap_ci(x, np.mean, n_boot=400, seed=3) == first
    assert bootstrap_ci(x, np.mean, n_boot=400, seed=4) != first


def test_bootstrap_mean_matches_standard_error() -> None:
    x = np.random.default_rng(1).normal(10.0, 2.0, size=4000)
    lo, hi = bootstrap_ci(x, np.mean, n_boot=2000)
    se = x.std() / math.sqrt(x.size)
    assert lo == pytest.approx(x.mean() - 1.96 * se, abs=0.15 * se)
    assert hi == pytest.approx(x.mean() + 1.96 * se, abs=0.15 * se)


def test_bootstrap_constant_and_empty() -> None:
    assert bootstrap_ci(np.full(50, 3.0), np.median) == (3.0, 3.0)
    assert all(math.isnan(v) for v in bootstrap_ci(np.array([]), np.median))


def test_quantile_from_counts_matches_numpy() -> None:
    distinct = np.array([1, 3, 4, 9])
    counts = np.array([[2, 0, 5, 1], [1, 1, 1, 1], [0, 0, 3, 0]])
    qs = np.array([0.0, 0.1, 0.25, 0.5, 0.77, 0.99, 1.0])
    got = _quantile_from_counts(distinct, counts, qs)
    want = np.array([np.quantile(np.repeat(distinct, row), qs) for row in counts])
    np.testing.assert_allclose(got, want)


def test_bootstrap_quantile_reproducible_and_consistent() -> None:
    x = np.random.default_rng(2).integers(0, 1000, size=801)
    lo, hi = bootstrap_quantile_ci(x, [0.5, 0.9], n_boot=2000, seed=5)
    again = bootstrap_quantile_ci(x, [0.5, 0.9], n_boot=2000, seed=5)
    np.testing.assert_array_equal(lo, again[0])
    np.testing.assert_array_equal(hi, again[1])
    # Same distribution as resampling indices: agrees with the generic bootstrap.
    generic = bootstrap_ci(x, np.median, n_boot=2000, seed=5)
    assert lo[0] == pytest.approx(generic[0], abs=15)
    assert hi[0] == pytest.approx(generic[1], abs=15)
    assert lo[0] < np.median(x) < hi[0]


def test_chi_square_uniform_hand_value() -> None:
    # counts 3,1,0: expected 4/3 each, statistic 3.5; chi2 with 2 df has sf exp(-x/2).
    stat, p = chi_square_uniform([3, 1, 0])
    assert stat == pytest.approx(3.5)
    assert p == pytest.approx(math.exp(-1.75))
    assert chi_square_uniform([5, 5, 5]) == (0.0, 1.0)
    assert all(math.isnan(v) for v in chi_square_uniform([0, 0]))


def test_quantile_summary_one_to_hundred() -> None:
    summary = quantile_summary(np.arange(1, 101))
    assert summary == pytest.approx(
        {"mean": 50.5, "median": 50.5, "q25": 25.75, "q75": 75.25, "p90": 90.1, "p99": 99.01}
    )
