"""Per-game measures of a run, written once for `sheepsim check` and the tuner.

A measure is a ratio of per-game sums over the n games of a run, r = sum(a) / sum(b):
b = 1 for a plain mean (the length), the games the measure is defined for otherwise
(decided games for a share of sole wins, games with a sole winner for the comeback
rate). Its error comes from the per-game influence values (a - r b) / mean(b) (the
delta method): their standard deviation over sqrt(n) is r's standard error, and two runs
on common seeds pair game by game, so the standard deviation of the difference of their
influence values gives the paired change's error.

    edge            seat 0's share of the decided games (shown less the fair 1/P)
    focal_edge      player slot 0's share (the first --policy, the focal player), shown
                    less 1/P; slot s sits at seat (s - rotation) mod P
    length          turns per game, in the game's turn unit
    decided_share   the kernels' experience metrics (simulate --metrics) over the games
    comeback        they are defined for (NaN there: no sole winner)
    lead_changes
    drama
    target_length   the target-length score (tables.target_length_score), when a
                    target range is given
    balance         1 - (the largest seat's share of sole wins - the smallest's); not a
                    ratio: its influence is the two extreme seats' (the delta method,
                    which understates the error while two seats tie for an extreme)
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
import pandas as pd

from . import tables as T
from .intervals import mean_interval

# shares of sole wins, shown as an edge over the fair share 1/P
EDGES = frozenset({"edge", "focal_edge", "skill_gap"})
EXPERIENCE = ("decided_share", "comeback", "lead_changes", "drama")

Pair = tuple[np.ndarray, np.ndarray]


def _defined(df: pd.DataFrame, name: str) -> Pair:
    """A metric column as (value, defined) per game; NaN (no sole winner) is undefined."""
    x = df[name].to_numpy(np.float64)
    ok = ~np.isnan(x)
    return np.where(ok, x, 0.0), ok.astype(np.float64)


def slot_share(df: pd.DataFrame, slot: int = 0) -> Pair:
    """Player slot `slot`'s sole wins over the decided games, per game."""
    players = int(df["num_players"].iloc[0])
    winner = df["winner"].to_numpy()
    held = (winner + df["rotation"].to_numpy()) % players       # seat s holds slot (s + rotation) mod P
    decided = winner >= 0
    return (decided & (held == slot)).astype(np.float64), decided.astype(np.float64)


def per_game(df: pd.DataFrame, names: Iterable[str], target: tuple[float, float] | None = None
             ) -> dict[str, Pair]:
    """The measures `names` (those of the module docstring but balance) as per-game (a, b)."""
    out: dict[str, Pair] = {}
    for name in names:
        if name == "edge":
            winner = df["winner"].to_numpy()
            out[name] = ((winner == 0).astype(np.float64), (winner >= 0).astype(np.float64))
        elif name == "focal_edge":
            out[name] = slot_share(df)
        elif name == "length":
            turns = df["turns"].to_numpy(np.float64)
            out[name] = (turns, np.ones(len(turns)))
        elif name in EXPERIENCE:
            out[name] = _defined(df, name)
        elif name == "target_length":
            turns = df["turns"].to_numpy(np.float64)
            out[name] = (T.target_length_score(turns, *target), np.ones(len(turns)))
        else:
            raise ValueError(f"no per-game measure {name!r}")
    return out


def ratio(a: np.ndarray, b: np.ndarray) -> tuple[float, np.ndarray]:
    """r = sum(a) / sum(b) and its per-game influence values; NaN and None when no game
    defines it."""
    if b.sum() == 0:
        return math.nan, None
    r = float(a.sum() / b.sum())
    return r, (a - r * b) / b.mean()


def balance(df: pd.DataFrame) -> tuple[float, np.ndarray | None]:
    """The seats' balance and its influence values (the module docstring)."""
    players = int(df["num_players"].iloc[0])
    winner = df["winner"].to_numpy()
    decided = (winner >= 0).astype(np.float64)
    shares = [ratio((winner == s).astype(np.float64), decided) for s in range(players)]
    if shares[0][1] is None:
        return math.nan, None
    rates = [r for r, _ in shares]
    top, bottom = int(np.argmax(rates)), int(np.argmin(rates))
    return 1.0 - (rates[top] - rates[bottom]), shares[bottom][1] - shares[top][1]


def interval(value: float, influence: np.ndarray | None) -> tuple[float, float]:
    """The 95% normal interval of a value from its influence values."""
    if influence is None or len(influence) < 2:
        return math.nan, math.nan
    return mean_interval(value, float(influence.std(ddof=1)), len(influence))


def paired(value_a: float, infl_a: np.ndarray | None, value_b: float, infl_b: np.ndarray | None
           ) -> tuple[float, float, float, float]:
    """The paired change value_b - value_a over common games: (change, lo, hi, sd), sd
    the standard deviation of the per-game influence differences (its error is sd / sqrt(n))."""
    if infl_a is None or infl_b is None:
        return math.nan, math.nan, math.nan, math.nan
    d = infl_b - infl_a
    sd = float(d.std(ddof=1)) if len(d) > 1 else math.nan
    change = value_b - value_a
    lo, hi = mean_interval(change, sd, len(d))
    return change, lo, hi, sd
