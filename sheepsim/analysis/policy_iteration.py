"""Policy iteration for stop tables (games/stoptable.py), in the spirit of Neller & Presser.

Start from a fixed stop rule (every cell at the threshold equilibrium), then repeat:

1. Evaluate: play `games` self-play games on the current table, every seat on it, on
   fresh games (iteration i plays games i * games .. (i + 1) * games - 1 of the seed,
   so no iteration reuses another's luck), probing decision points near each cell's
   threshold T (amounts >= T - the feature set's window) as stoptable.py describes:
   delta = share(go on) - share(stop), on common random numbers. Rare cells matter
   (Pig's end game, a leader one triplet from winning) and common ones are cheap to
   test, so each cell is probed at its own rate: about `target` probes where its
   visits allow (counted in the previous iteration; a pilot of PILOT_GAMES games
   without probes counts them for the first), every visit otherwise.
2. Test, per cell with enough probes (MIN_PROBES), with the least-squares line of delta
   on the amount over T - window .. T + window: the table is right in a cell when
   going on pays at T - 1, the last amount it goes on at, and stopping pays at T, the
   first it stops at. So RAISE if the line at T is above 0, LOWER if the line at T - 1
   is below 0 (one-sided z-tests). The line uses every probe of the window, where the
   delta at one amount would use a tenth of them. A cell is raised only if the window
   holds probes at or above T (a cell whose table never stops there, rolling on to a
   win, changes nothing when raised) and lowered only if it holds probes below T.
   Where the feature set has a `reach`, the far probes at amounts T .. T + window
   (going on to T + reach, then the table, against stopping) give each cell a second
   raise test: their mean above 0. It sees a gain no line near T can (a flat line
   that only rises far away: Pig's "roll on to win").
3. Stop if no test is significant with the family (every test of the iteration) held
   at `confidence` by Holm's step-down method: the table is confirmed on that
   iteration's fresh games, and is the result. Stop, too, after `max_iterations`
   (stated as such).
4. Improve: move every cell whose test is a discovery at a false discovery rate of
   1 - confidence (Benjamini-Hochberg; Holm decides when to stop, the discoveries which
   cells move: a greedy step on the evidence, as policy iteration takes the better
   action, with few cells moved by noise) to the first amount above where its line
   crosses zero (a Newton step) if the line falls significantly, else by 1, doubled
   while the cell keeps moving the same way (far from its boundary the line is flat:
   Pig's "roll on to win" lies 60 points above hold at 20); at least 1 and at most
   MAX_STEP, never below the feature set's floor (a stop that can place nothing). A
   cell moved by its far test goes up by the reach, to where going on was seen to pay.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np
import pandas as pd

from ..games import stoptable

MIN_PROBES = 30         # fewer probes in a test: no test (the normal approximation is poor)
MAX_STEP = 8
PILOT_GAMES = 20_000
TEST_COLUMNS = ["cell", "threshold", "direction", "kind", "n", "delta", "slope", "slope_se", "crossing", "se", "z", "p"]


@dataclass
class Learned:
    thresholds: np.ndarray
    converged: bool
    history: pd.DataFrame               # one row per iteration
    tests: pd.DataFrame                 # the last iteration's tests, with `holm` and `moves`
    seconds: float
    probes: int = 0
    visits: np.ndarray | None = None    # decision points by cell near the final table's thresholds, last iteration


def holm(p: np.ndarray, alpha: float) -> np.ndarray:
    """Holm's step-down: which of the p-values are significant at family-wise level alpha."""
    p = np.asarray(p, dtype=float)
    m = len(p)
    order = np.argsort(p, kind="stable")
    passed = p[order] <= alpha / (m - np.arange(m))
    out = np.zeros(m, dtype=bool)
    out[order] = np.cumprod(passed).astype(bool)        # significant up to the first failure
    return out


def summarise(probes: np.ndarray) -> pd.DataFrame:
    """Probes (cell, amount, seat, delta, far) -> per (cell, amount) the count, sum and
    sum of squares of delta (n, sum, sumsq) and of far where it was played (far_n, ...)."""
    far = probes[:, 4]
    played = ~np.isnan(far)
    far = np.where(played, far, 0.0)
    df = pd.DataFrame({"cell": probes[:, 0].astype(np.int64), "amount": probes[:, 1].astype(np.int64),
                       "n": 1, "sum": probes[:, 3], "sumsq": probes[:, 3] ** 2,
                       "far_n": played.astype(np.int64), "far_sum": far, "far_sumsq": far ** 2})
    return df.groupby(["cell", "amount"]).sum()


def _z_row(c, t, direction, kind, n, value, se, slope=np.nan, slope_se=np.nan, crossing=np.nan) -> dict:
    z = value / se if se > 0 else 0.0
    return {"cell": c, "threshold": t, "direction": direction, "kind": kind, "n": n, "delta": value,
            "slope": slope, "slope_se": slope_se, "crossing": crossing, "se": se, "z": z,
            "p": 1.0 - NormalDist().cdf(direction * z)}


def tests(thresholds: np.ndarray, summary: pd.DataFrame, window: int) -> pd.DataFrame:
    """The tests of every cell with enough probes (module docstring): the least-squares
    line of delta on the amount over T - window .. T + window, read at T (raise if above
    0) and at T - 1 (lower if below 0), kind "line"; and where far probes were played,
    at amounts T .. T + window, whether going on to T + reach pays (raise), kind "far"."""
    rows = []
    for c, part in summary.groupby(level=0):
        part = part.droplevel(0)
        t = int(thresholds[c])
        part = part[(part.index >= t - window) & (part.index <= t + window)]
        far = part[part.index >= t]
        far_n = int(far["far_n"].sum())
        if far_n >= MIN_PROBES:
            mean = far["far_sum"].sum() / far_n
            var = max(far["far_sumsq"].sum() / far_n - mean * mean, 0.0) * far_n / (far_n - 1)
            rows.append(_z_row(c, t, +1, "far", far_n, mean, np.sqrt(var / far_n)))
        n_a = part["n"].to_numpy(dtype=float)
        n = int(n_a.sum())
        if n < MIN_PROBES or len(part) < 2:         # a line needs two amounts
            continue
        x = part.index.to_numpy(dtype=float) - t
        m_a = part["sum"].to_numpy() / n_a
        xbar, mbar = (n_a * x).sum() / n, part["sum"].to_numpy().sum() / n
        sxx = (n_a * (x - xbar) ** 2).sum()
        slope = (n_a * (x - xbar) * (m_a - mbar)).sum() / sxx
        var = max(part["sumsq"].to_numpy().sum() - n * mbar * mbar - slope * slope * sxx, 0.0) / max(n - 2, 1)
        # where the line crosses 0: the table should stop from the first amount above it
        crossing = t + xbar - mbar / slope if slope < 0 else np.nan
        for direction, at in ((+1, 0.0), (-1, -1.0)):
            # raise only where the table was seen to stop (where it always rolls on to a
            # win, a higher threshold changes nothing), lower only where it was seen to go on
            if not ((part.index >= t).any() if direction > 0 else (part.index < t).any()):
                continue
            se = np.sqrt(var * (1.0 / n + (at - xbar) ** 2 / sxx))
            rows.append(_z_row(c, t, direction, "line", n, mbar + slope * (at - xbar), se, slope,
                               np.sqrt(var / sxx), crossing))
    return pd.DataFrame(rows, columns=TEST_COLUMNS)


def judge(table: pd.DataFrame, confidence: float) -> pd.DataFrame:
    """The tests with `holm` (significant in the family: the stopping rule) and `moves`
    (a discovery at false discovery rate 1 - confidence, Benjamini-Hochberg: the cells
    that move)."""
    from scipy.stats import false_discovery_control
    alpha = 1.0 - confidence
    p = table["p"].to_numpy(dtype=float)
    moves = false_discovery_control(p) <= alpha if len(p) else np.zeros(0, dtype=bool)
    return table.assign(holm=holm(p, alpha), moves=moves)


def improve(thresholds: np.ndarray, table: pd.DataFrame, floor: int = 0, last: np.ndarray | None = None,
            steps: np.ndarray | None = None, reach: int = 0) -> np.ndarray:
    """The table after moving every cell `table` (judged) moves: to the first amount
    above where its line crosses zero (a Newton step) when the line falls significantly
    (its slope more than two standard errors below 0), else by 1, or by twice the
    cell's last step if it moved the same way then (`last`, `steps`: each cell's last
    move and its size, kept by the caller and updated here); at least 1, at most
    MAX_STEP, never below `floor` (the feature set's least sensible threshold). A cell
    that moves on its far test goes up by `reach`: going on to T + reach was seen to pay."""
    last = np.zeros(len(thresholds), dtype=np.int64) if last is None else last
    steps = np.zeros(len(thresholds), dtype=np.int64) if steps is None else steps
    new = thresholds.copy()
    moving = table[table["moves"]].sort_values("p").drop_duplicates("cell")     # a cell moves one way
    moved = np.zeros(len(thresholds), dtype=bool)
    for row in moving.itertuples():
        c, d = int(row.cell), int(row.direction)
        t = int(thresholds[c])
        if row.kind == "far":
            step = reach
        elif row.slope < -2.0 * row.slope_se and np.isfinite(row.crossing):
            step = int(np.clip(d * (np.floor(row.crossing) + 1 - t), 1, MAX_STEP))
        else:
            step = min(MAX_STEP, 2 * steps[c]) if last[c] == d else 1
        new[c] = max(floor, t + d * step)
        last[c], steps[c], moved[c] = d, step, True
    last[~moved] = 0
    steps[~moved] = 0
    return new


def rates(visits: np.ndarray, games_counted: int, games: int, target: int) -> np.ndarray:
    """Probe rate per cell for `games` games: about `target` probes a cell where its
    visits (counted over `games_counted` games) allow, every visit otherwise."""
    expected = visits * (games / games_counted)
    return np.where(expected > target, target / np.maximum(expected, 1.0), 1.0)


def learn(play, rules_arr: np.ndarray, init: np.ndarray, features, games: int, target: int, per_game: int,
          max_iterations: int, seed: int, confidence: float = 0.95, progress: bool = False,
          label: str = "") -> Learned:
    """Policy iteration from features.initial everywhere (module docstring); `init` is
    the start state, `play` the game's play module (probe_blocks)."""
    t0 = time.perf_counter()
    cells, window = features.cells, features.window
    thresholds = np.full(cells, features.initial, dtype=np.int32)
    last = np.zeros(cells, dtype=np.int64)
    steps = np.zeros(cells, dtype=np.int64)
    history = []
    pilot = min(games, PILOT_GAMES)
    _, visits = stoptable.probe(play, rules_arr, np.concatenate([init, stoptable.block(thresholds)]), seed, 0,
                                pilot, np.zeros(cells), thresholds - window, per_game)
    rate = rates(visits, pilot, games, target)
    converged, total, table = False, 0, judge(pd.DataFrame(columns=TEST_COLUMNS), confidence)
    for it in range(max_iterations):
        start = time.perf_counter()
        aux = np.concatenate([init, stoptable.block(thresholds)])
        probes, visits = stoptable.probe(play, rules_arr, aux, seed, it * games, games, rate, thresholds - window,
                                         per_game, thresholds, features.reach)
        total += len(probes)
        summary = summarise(probes)
        table = judge(tests(thresholds, summary, window), confidence)
        converged = not table["holm"].any()
        new = thresholds if converged else improve(thresholds, table, features.floor, last, steps, features.reach)
        history.append({"iteration": it + 1, "games": games, "probes": len(probes), "tests": len(table),
                        "significant": int(table["holm"].sum()), "raised": int((new > thresholds).sum()),
                        "lowered": int((new < thresholds).sum()), "mean_threshold": float(new.mean()),
                        "seconds": time.perf_counter() - start})
        if progress:
            h = history[-1]
            print(f"{label}iteration {it + 1}: {h['probes']:,} probes, {h['tests']} tests, {h['significant']} "
                  f"significant in the family; {h['raised']} cells raised, {h['lowered']} lowered "
                  f"({h['seconds']:.0f} s)", file=sys.stderr, flush=True)
        if converged:
            break
        thresholds = new
        rate = rates(visits, games, games, target)
    return Learned(thresholds, converged, pd.DataFrame(history), table, time.perf_counter() - t0, total, visits)
