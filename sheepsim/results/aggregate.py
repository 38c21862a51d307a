"""Sufficient statistics of a run, for runs too large for per-game rows.

An `Aggregate` holds integer counts only, so merging is exact and order-free (integer
addition), and its size depends on the value ranges seen, not on the number of games:

    games, decided            all games; games with a sole winner (winner >= 0)
    shared_games              games whose win two or more seats share (no sole winner,
                              cowinners set); the other undecided games are draws. None
                              in counts stored before it was kept
    seat_wins[s]              sole wins of seat s
    seat_shared[s]            draws / shared results seat s took part in (cowinners bit s)
    policy[label]             {games, decided, wins, shared}, counting seat appearances
                              (as stats.tables.policy_table does)
    turns                     histogram {turns: games}
    scores[s]                 histogram {score of seat s: games}
    sums[col], sumsq[col]     sum and sum of squares of every other integer/bool column
                              (e.g. stuck, rolls, herd_0, capped, tiebreak)
    decided_true[col]         bool columns only: games with col true and a sole winner
    floats[col]               float columns (the experience metrics: decided_share, drama,
                              ...): [values that are not NaN, their sum, their sum of
                              squares], each value first rounded to a multiple of 1/FLOAT_UNIT
                              so that sums are integers too (a mean is exact to 5e-7)
    ends[name]                games ended by each end condition (the `end` column)

It is computed from a chunk's per-game frame (the same frame the rows mode stores),
so every game gets it without writing code of its own.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

# Columns with a dedicated statistic above, or that identify a game rather than measure it.
_OWN = {"game", "seed", "rotation", "num_players", "winner", "cowinners", "turns", "end"}
# Squares of values up to this fit int64 for any chunk of up to 2**21 games.
_SMALL = 2**20
FLOAT_UNIT = 10**6          # float columns are counted in millionths


@dataclass
class Aggregate:
    """Exact, mergeable counts of a set of games (see the module docstring)."""

    players: int
    games: int = 0
    decided: int = 0
    shared_games: int | None = 0
    seat_wins: list[int] = field(default_factory=list)
    seat_shared: list[int] = field(default_factory=list)
    policy: dict[str, dict[str, int]] = field(default_factory=dict)
    turns: Counter = field(default_factory=Counter)
    scores: list[Counter] = field(default_factory=list)
    sums: Counter = field(default_factory=Counter)
    sumsq: Counter = field(default_factory=Counter)
    decided_true: Counter = field(default_factory=Counter)
    floats: dict[str, list[int]] = field(default_factory=dict)
    ends: Counter = field(default_factory=Counter)

    def __post_init__(self) -> None:
        p = self.players
        self.seat_wins = list(self.seat_wins) or [0] * p
        self.seat_shared = list(self.seat_shared) or [0] * p
        self.scores = [Counter(c) for c in self.scores] or [Counter() for _ in range(p)]
        self.turns, self.sums = Counter(self.turns), Counter(self.sums)
        self.sumsq, self.decided_true = Counter(self.sumsq), Counter(self.decided_true)
        self.floats = {k: [int(x) for x in v] for k, v in self.floats.items()}
        self.ends = Counter(self.ends)

    def add(self, other: "Aggregate") -> "Aggregate":
        """Add `other`'s counts to this one (in place) and return self."""
        if other.players != self.players:
            raise ValueError(f"cannot merge {other.players}-player counts into {self.players}-player counts")
        self.games += other.games
        self.decided += other.decided
        self.shared_games = (None if self.shared_games is None or other.shared_games is None
                             else self.shared_games + other.shared_games)
        self.seat_wins = [a + b for a, b in zip(self.seat_wins, other.seat_wins)]
        self.seat_shared = [a + b for a, b in zip(self.seat_shared, other.seat_shared)]
        for label, counts in other.policy.items():
            mine = self.policy.setdefault(label, {"games": 0, "decided": 0, "wins": 0, "shared": 0})
            for k, v in counts.items():
                mine[k] += v
        self.turns.update(other.turns)
        for mine, theirs in zip(self.scores, other.scores):
            mine.update(theirs)
        self.sums.update(other.sums)
        self.sumsq.update(other.sumsq)
        self.decided_true.update(other.decided_true)
        for name, theirs in other.floats.items():
            mine = self.floats.setdefault(name, [0, 0, 0])
            self.floats[name] = [a + b for a, b in zip(mine, theirs)]
        self.ends.update(other.ends)
        return self

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able form (histogram keys as strings, sorted)."""
        def hist(c: Counter) -> dict[str, int]:
            return {str(k): int(c[k]) for k in sorted(c)}
        return {"players": self.players, "games": self.games, "decided": self.decided,
                "shared_games": self.shared_games,
                "seat_wins": self.seat_wins, "seat_shared": self.seat_shared,
                "policy": {k: self.policy[k] for k in sorted(self.policy)},
                "turns": hist(self.turns), "scores": [hist(c) for c in self.scores],
                "sums": dict(sorted(self.sums.items())), "sumsq": dict(sorted(self.sumsq.items())),
                "decided_true": dict(sorted(self.decided_true.items())),
                "floats": {k: self.floats[k] for k in sorted(self.floats)},
                "ends": dict(sorted(self.ends.items()))}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Aggregate":
        def hist(h: dict[str, int]) -> Counter:
            return Counter({int(k): int(v) for k, v in h.items()})
        return cls(players=d["players"], games=d["games"], decided=d["decided"],
                   shared_games=d.get("shared_games"), seat_wins=d["seat_wins"],
                   seat_shared=d["seat_shared"], policy={k: dict(v) for k, v in d["policy"].items()},
                   turns=hist(d["turns"]), scores=[hist(h) for h in d["scores"]], sums=Counter(d["sums"]),
                   sumsq=Counter(d["sumsq"]), decided_true=Counter(d["decided_true"]),
                   floats=d.get("floats", {}), ends=Counter(d.get("ends", {})))

    def to_json(self) -> bytes:
        return (json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":")) + "\n").encode()

    @classmethod
    def from_json(cls, data: bytes | str) -> "Aggregate":
        return cls.from_dict(json.loads(data))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Aggregate) and self.to_dict() == other.to_dict()


def _hist(values: np.ndarray) -> Counter:
    keys, counts = np.unique(values, return_counts=True)
    return Counter({int(k): int(c) for k, c in zip(keys, counts)})


def _sum_and_squares(values: np.ndarray) -> tuple[int, int]:
    x = values.astype(np.int64)
    if len(x) and int(np.abs(x).max()) > _SMALL:     # rare: exact Python integers
        xs = [int(v) for v in x]
        return sum(xs), sum(v * v for v in xs)
    return int(x.sum()), int(np.dot(x, x))


def _float_counts(values: np.ndarray) -> list[int]:
    """[values not NaN, sum, sum of squares], in units of 1/FLOAT_UNIT."""
    units = np.rint(values[~np.isnan(values)] * FLOAT_UNIT).astype(np.int64)
    return [len(units), *_sum_and_squares(units)]


def _mean_sd(n: int, s: int, ss: int, unit: int = 1) -> tuple[float, float, int]:
    """(mean, sample SD, n) from n values' sum and sum of squares, in units of 1/unit
    (NaN when n < 1, the SD also when n < 2)."""
    if n == 0:
        return float("nan"), float("nan"), 0
    if n == 1:
        return s / unit, float("nan"), 1
    var = (ss - s * s / n) / (n - 1) / unit**2
    return s / n / unit, max(var, 0.0) ** 0.5, n


def float_mean_sd(counts: list[int]) -> tuple[float, float, int]:
    """(mean, sample SD, n) of a float column from its counts (NaN when n < 1, < 2)."""
    return _mean_sd(*counts, unit=FLOAT_UNIT)


def aggregate_frame(df: pd.DataFrame, players: int) -> Aggregate:
    """The counts of a per-game results frame (one chunk, or a whole run)."""
    winner = df["winner"].to_numpy().astype(np.int64)
    cowinners = df["cowinners"].to_numpy().astype(np.int64)
    decided = winner >= 0
    agg = Aggregate(players, games=len(df), decided=int(decided.sum()),
                    shared_games=int(((~decided) & (cowinners != 0)).sum()))
    agg.seat_wins = np.bincount(winner[decided], minlength=players)[:players].astype(int).tolist()
    shared = [(~decided) & ((cowinners >> s) & 1).astype(bool) for s in range(players)]
    agg.seat_shared = [int(x.sum()) for x in shared]
    for seat in range(players):
        col = df[f"policy_{seat}"]
        cat = col.cat if isinstance(col.dtype, pd.CategoricalDtype) else col.astype("category").cat
        codes, labels = cat.codes.to_numpy(), list(cat.categories)
        k = len(labels)
        counts = {"games": np.bincount(codes, minlength=k),
                  "decided": np.bincount(codes[decided], minlength=k),
                  "wins": np.bincount(codes[winner == seat], minlength=k),
                  "shared": np.bincount(codes[shared[seat]], minlength=k)}
        for j, label in enumerate(labels):
            if counts["games"][j]:
                mine = agg.policy.setdefault(str(label), {"games": 0, "decided": 0, "wins": 0, "shared": 0})
                for key, arr in counts.items():
                    mine[key] += int(arr[j])
    agg.turns = _hist(df["turns"].to_numpy())
    if "end" in df:
        agg.ends = Counter({str(k): int(v) for k, v in df["end"].value_counts().items() if v})
    agg.scores = [_hist(df[f"score_{s}"].to_numpy()) for s in range(players)]
    for name in df.columns:
        if name in _OWN or name.startswith(("score_", "policy_")):
            continue
        values = df[name].to_numpy()
        if values.dtype == bool:
            agg.decided_true[name] = int((values & decided).sum())
        elif np.issubdtype(values.dtype, np.floating):
            agg.floats[name] = _float_counts(values)
            continue
        elif not np.issubdtype(values.dtype, np.integer):
            continue
        agg.sums[name], agg.sumsq[name] = _sum_and_squares(values)
    return agg


def hist_quantile(hist: Counter, q: float) -> float:
    """The q-quantile of a histogram {value: count}, as numpy's default (linear) method."""
    keys = np.array(sorted(hist), dtype=float)
    counts = np.array([hist[int(k)] for k in keys], dtype=np.int64)
    n = int(counts.sum())
    if n == 0:
        return float("nan")
    cum = np.cumsum(counts)
    pos = q * (n - 1)
    lo, hi = int(np.floor(pos)), int(np.ceil(pos))
    vlo = keys[np.searchsorted(cum, lo + 1)]
    vhi = keys[np.searchsorted(cum, hi + 1)]
    return float(vlo + (vhi - vlo) * (pos - lo))


def hist_mean_sd(hist: Counter) -> tuple[float, float, int]:
    """Mean, standard deviation and count of a histogram."""
    keys = np.array(sorted(hist), dtype=float)
    counts = np.array([hist[int(k)] for k in keys], dtype=float)
    n = counts.sum()
    if n == 0:
        return float("nan"), float("nan"), 0
    mean = float((keys * counts).sum() / n)
    var = float((counts * (keys - mean) ** 2).sum() / max(n - 1, 1))
    return mean, var ** 0.5, int(n)


def _rates(table: pd.DataFrame, name: str, successes: str, n: str) -> pd.DataFrame:
    from ..stats.intervals import wilson_interval
    k, m = table[successes].to_numpy(), table[n].to_numpy()
    lo, hi = wilson_interval(k, m)
    table[f"{name}_rate"] = np.where(m > 0, k / np.maximum(m, 1), np.nan)
    table[f"{name}_rate_lo"], table[f"{name}_rate_hi"] = lo, hi
    return table


def seat_table(agg: Aggregate) -> pd.DataFrame:
    """stats.tables.seat_table from counts: same columns and attrs (without policies)."""
    from ..stats.intervals import chi_square_uniform, wilson_interval
    p = agg.players
    table = pd.DataFrame({"seat": np.arange(p), "games": agg.games, "decided": agg.decided,
                          "wins": agg.seat_wins, "shared": agg.seat_shared})
    table = _rates(table, "win", "wins", "decided")
    table["fair_rate"] = 1.0 / p
    draws = agg.games - agg.decided
    lo, hi = wilson_interval(draws, agg.games)
    chi2, chi2_p = chi_square_uniform(agg.seat_wins)
    table.attrs = {"games": agg.games, "draws": draws, "draw_rate": draws / agg.games if agg.games else float("nan"),
                   "draw_rate_lo": lo, "draw_rate_hi": hi, "chi2": chi2, "chi2_p": chi2_p,
                   "policies": sorted(agg.policy)}
    return table


def policy_table(agg: Aggregate) -> pd.DataFrame:
    """stats.tables.policy_table from counts (seat appearances per policy SPEC)."""
    rows = [{"policy": label, **agg.policy[label]} for label in sorted(agg.policy)]
    table = _rates(pd.DataFrame(rows, columns=["policy", "games", "decided", "wins", "shared"]),
                   "win", "wins", "decided")
    table["fair_rate"] = 1.0 / agg.players
    return table


def length_summary(agg: Aggregate) -> dict[str, float]:
    """Exact mean (with a normal 95% interval), median, quartiles, p90 and p99 of `turns`."""
    from ..stats.intervals import mean_interval
    mean, sd, n = hist_mean_sd(agg.turns)
    lo, hi = mean_interval(mean, sd, n)
    out = {"mean": mean, "mean_lo": lo, "mean_hi": hi}
    for name, q in (("median", 0.5), ("q25", 0.25), ("q75", 0.75), ("p90", 0.9), ("p99", 0.99)):
        out[name] = hist_quantile(agg.turns, q)
    return out


def experience_table(agg: Aggregate) -> pd.DataFrame | None:
    """stats.tables.experience_table from counts (None for a run without --metrics):
    rounds and lead changes from their integer sums, the float metrics from `floats`."""
    from ..stats.tables import EXPERIENCE, experience_from
    if "drama" not in agg.floats:
        return None
    stats = {}
    for name, _ in EXPERIENCE:
        stats[name] = (float_mean_sd(agg.floats[name]) if name in agg.floats
                       else _mean_sd(agg.games, agg.sums[name], agg.sumsq[name]))
    return experience_from(stats)


def end_table(agg: Aggregate) -> pd.DataFrame | None:
    """stats.tables.end_table from counts (None for a run without the `end` column)."""
    from ..stats.tables import end_shares
    return end_shares(dict(agg.ends), agg.games) if agg.ends else None
