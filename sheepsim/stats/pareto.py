"""Pareto fronts over rows of losses (one row per candidate, one column per objective,
lower is better), as the tuner races and picks its settings (analysis/racing.py) and its
report orders them (report/layouts/tune.py): the fronts and the order of the rows (a NaN loss
ranks last), and the knee of a front.
"""

from __future__ import annotations

import numpy as np


def rank(losses: np.ndarray) -> np.ndarray:
    """Order of settings (rows of losses), best first: non-dominated front, then the sum
    of the objectives' ranks (one objective: its loss); NaN losses last."""
    n = len(losses)
    finite = np.where(np.isnan(losses), np.inf, losses)
    ranks = np.argsort(np.argsort(finite, axis=0, kind="stable"), axis=0, kind="stable").sum(axis=1)
    return np.lexsort((np.arange(n), ranks, fronts(losses)))


def fronts(losses: np.ndarray) -> np.ndarray:
    """Each setting's non-dominated front (0: the Pareto front) by its losses (rows)."""
    losses = np.where(np.isnan(losses), np.inf, losses)
    front = np.full(len(losses), -1)
    level = 0
    while (front < 0).any():
        left = np.flatnonzero(front < 0)
        for i in left:
            if not any(np.all(losses[j] <= losses[i]) and np.any(losses[j] < losses[i]) for j in left):
                front[i] = level
        level += 1
    return front


def knee_scores(losses: np.ndarray) -> np.ndarray:
    """The sum of each row's losses, each scaled to its range over the rows: the least is
    the compromise (the knee) of a Pareto front, and the best of one objective."""
    span = losses.max(axis=0) - losses.min(axis=0)
    return ((losses - losses.min(axis=0)) / np.where(span > 0, span, 1.0)).sum(axis=1)
