"""Two-way grids: measure a game over rows x columns of settings, on common seeds.

An axis varies one thing:

    { name = "colours", option = "colours", values = [4, 5, 6] }          a rule option
    { name = "players", players = [2, 3, 4] }                              the player count
    { name = "child median (x adult)", param = "median_ms", values = [1.0, 1.5], times = 450 }
                     a parameter of the focal policy (of every seat without one), value x times
    { name = "child start", focal_option = "start_tokens", values = [2, 3], others = 2 }
                     a per-player option: the focal player gets the value, the others `others`
    { name = "policy", policy = ["random", "greedy"] }                    every seat's (or
                     the field's) policy; `focal_policy = [...]` varies the focal player's

With `focal_policy`, player slot 0 plays it and the other slots play `policy`; slots
rotate over the seats as in every run. Every cell uses the same seed, so game g has
the same deal and the same per-seat luck streams in every cell as far as the setting
allows (common random numbers).

Metrics, each with a 95% interval:

    focal_win_rate     the focal player's share of decided games (Wilson; a shared
                       win counts 1/k); the cells whose interval holds the fair 1/P
                       are reported per row, with the closest one
    seat0_edge         seat 0's win rate minus 1/P (Wilson)
    mean:COL           mean per game of column COL (a per-seat column is summed
                       over the seats), normal interval; COL may be an experience
                       metric (rounds, lead_changes, decided_share, comeback, drama:
                       the cells then run with --metrics; a game it is undefined
                       for, NaN, is left out)
    ratio:A:B          sum of A over sum of B (e.g. ratio:stuck:turns = forced draws
                       per turn), delta-method interval over games
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..errors import SheepsimError
from ..games import get_game
from ..policies import parse_spec
from ..report import findings as F
from ..report.layouts.grid import Axis, Grid, cell_name
from ..report.layouts.grid import layout  # the kind's report (definition.Kind)
from ..runner import simulate
from ..start import policy_data
from ..stats import tables as T
from ..stats.intervals import wilson_interval

KEYS = ("players", "policy", "focal_policy", "games", "options", "rows", "cols", "metrics", "labels", "skip_invalid")
AXIS_KINDS = ("option", "players", "param", "focal_option", "policy", "focal_policy")
LISTED = ("players", "policy", "focal_policy")     # axes whose values are the key's own list


def _axis(spec: Any, where: str) -> Axis:
    """The rows or columns of an analysis file, checked."""
    if spec is None:
        return Axis("", "none", "", [None])
    if not isinstance(spec, dict):
        raise SheepsimError(f"`{where}` must be a table, e.g. {{ name = \"colours\", option = \"colours\", "
                            f"values = [4, 5] }}")
    kinds = [k for k in AXIS_KINDS if k in spec]
    if len(kinds) != 1:
        raise SheepsimError(f"`{where}` must have exactly one of {', '.join(AXIS_KINDS)}")
    kind = kinds[0]
    values = spec[kind] if kind in LISTED else spec.get("values")
    if not isinstance(values, list) or not values:
        raise SheepsimError(f"`{where}` needs a non-empty list of values")
    unknown = sorted(set(spec) - {"name", "values", "times", "others", kind})
    if unknown:
        raise SheepsimError(f"unknown key {unknown[0]!r} in `{where}`; valid: name, {kind}, values, times, others")
    return Axis(str(spec.get("name", kind if kind in LISTED else spec[kind])), kind,
                "" if kind in LISTED else str(spec[kind]), values, float(spec.get("times", 1.0)),
                spec.get("others"))


@dataclass
class Cell:
    row: Any
    col: Any
    players: int
    rules: Any
    specs: list
    invalid: str = ""          # why the rules reject this combination (skip_invalid)


def _cell(spec: dict, game, rows: Axis, cols: Axis, r: Any, c: Any) -> Cell:
    players = spec.get("players", game.players[0])
    options = dict(spec.get("options", {}))
    params: dict[str, float] = {}
    for axis, value in ((rows, r), (cols, c)):
        if axis.kind == "players":
            players = int(value)
        elif axis.kind == "option":
            options[axis.key] = value
        elif axis.kind == "param":
            params[axis.key] = float(value) * axis.times
    for axis, value in ((rows, r), (cols, c)):
        if axis.kind == "focal_option":
            others = axis.others if axis.others is not None else value
            options[axis.key] = ",".join(str(v) for v in [value] + [others] * (players - 1))
    if not isinstance(players, int):
        raise SheepsimError("`players` must be one player count in a grid analysis (use a players axis for more)")
    rules = game.make_rules(players, options)
    field = spec.get("policy", "random")
    focal = spec.get("focal_policy")
    for axis, value in ((rows, r), (cols, c)):
        if axis.kind == "policy":
            field = str(value)
        elif axis.kind == "focal_policy":
            focal = str(value)

    def with_params(text: str) -> str:
        if not params:
            return text
        extra = ",".join(f"{k}={v:g}" for k, v in params.items())
        return f"{text}{',' if ':' in text else ':'}{extra}"
    if focal is None:
        specs = [parse_spec(game.name, with_params(field))] * players
    else:
        specs = [parse_spec(game.name, with_params(focal))] + [parse_spec(game.name, field)] * (players - 1)
    policy_data(game, rules, specs)         # the policies can play these rules (Pig's optimal)
    return Cell(r, c, players, rules, specs)


def plan(spec: dict[str, Any], scale: float) -> dict[str, Any]:
    game = get_game(spec["game"])
    rows, cols = _axis(spec.get("rows"), "rows"), _axis(spec.get("cols"), "cols")
    has_focal = "focal_policy" in spec or "focal_policy" in (rows.kind, cols.kind)
    if any(a.kind == "focal_option" for a in (rows, cols)) and not has_focal:
        raise SheepsimError("a focal_option axis needs `focal_policy` (the player who gets the value)")
    metrics = list(spec.get("metrics", ["seat0_edge", "mean:turns"]))
    for m in metrics:
        if not (m in ("focal_win_rate", "seat0_edge") or m.startswith("mean:") or
                (m.startswith("ratio:") and m.count(":") == 2)):
            raise SheepsimError(f"unknown metric {m!r}; valid: focal_win_rate, seat0_edge, mean:COLUMN, "
                                f"ratio:COLUMN:COLUMN")
    if "focal_win_rate" in metrics and not has_focal:
        raise SheepsimError("metric focal_win_rate needs `focal_policy`")
    cells = []
    for r in rows.values:
        for c in cols.values:
            try:
                cells.append(_cell(spec, game, rows, cols, r, c))
            except SheepsimError as exc:
                # skip_invalid: a combination the rules reject (e.g. a start at or above
                # the target) is left blank; otherwise it is an error in the file
                if not spec.get("skip_invalid", False):
                    raise SheepsimError(f"cell {rows.name}={r}, {cols.name}={c}: {exc}")
                cells.append(Cell(r, c, 0, None, [], str(exc)))
    return {"game": game, "rows": rows, "cols": cols, "metrics": metrics, "cells": cells,
            "games": max(1, round(spec.get("games", 10_000) * scale)), "labels": dict(spec.get("labels", {}))}


def _column(df: pd.DataFrame, name: str, players: int) -> np.ndarray:
    if name in df:
        return df[name].to_numpy(float)
    seats = [f"{name}_{q}" for q in range(players)]
    if all(s in df for s in seats):
        return df[seats].to_numpy(float).sum(axis=1)
    raise SheepsimError(f"the results have no column {name!r} (nor {name}_0 ...); columns: "
                        f"{', '.join(c for c in df.columns if not c.startswith('policy_'))}")


def measure(df: pd.DataFrame, metric: str, players: int) -> tuple[float, float, float]:
    """(value, low, high) of one metric over one cell's games."""
    if metric == "seat0_edge":
        e = T.seat0_edge(df)
        return e["edge"], e["edge_lo"], e["edge_hi"]
    if metric == "focal_win_rate":
        seat = (-df["rotation"].to_numpy(np.int64)) % players      # where slot 0 sat
        mask = df["cowinners"].to_numpy(np.int64)
        decided = mask != 0
        bits = np.array([bin(int(m)).count("1") for m in range(1 << players)])
        credit = np.where((mask >> seat) & 1 == 1, 1.0 / np.maximum(bits[mask], 1), 0.0)
        n, wins = int(decided.sum()), float(credit[decided].sum())
        lo, hi = wilson_interval(wins, n)
        return wins / n if n else np.nan, lo, hi
    if metric.startswith("mean:"):
        x = _column(df, metric[5:], players)
        if np.issubdtype(x.dtype, np.floating):
            x = x[~np.isnan(x)]          # an experience metric a game does not define (comeback without a winner)
        se = x.std(ddof=1) / np.sqrt(len(x)) if len(x) > 1 else 0.0
        return x.mean(), x.mean() - 1.96 * se, x.mean() + 1.96 * se
    _, a, b = metric.split(":")
    x, y = _column(df, a, players), _column(df, b, players)
    ratio = x.sum() / y.sum()
    # delta method for a ratio of means, games as independent units
    resid = x - ratio * y
    se = np.sqrt(resid.var(ddof=1) / len(x)) / y.mean() if len(x) > 1 else 0.0
    return ratio, ratio - 1.96 * se, ratio + 1.96 * se


def _needs_metrics(p: dict[str, Any]) -> bool:
    """Whether a metric reads an experience column (simulate --metrics: lead_changes,
    decided_share, comeback...), so the cells' runs tally them."""
    columns = {name for name, _ in T.EXPERIENCE} | {"decided_share"}
    return any(c in columns for m in p["metrics"] for c in m.split(":")[1:])


def run(spec: dict[str, Any], p: dict[str, Any], reports: Path, threads, progress: bool, command: str = "") -> Grid:
    game, name, seed = p["game"], spec["name"], int(spec["seed"])
    unit = game.turn_unit
    rows, cols = p["rows"], p["cols"]
    records, odd, shares = [], {}, set()
    for i, cell in enumerate(p["cells"]):
        if progress:
            print(f"{name}: cell {i + 1}/{len(p['cells'])} ({rows.name}={cell.row}, {cols.name}={cell.col}) ...",
                  file=sys.stderr, flush=True)
        rec = {"row": cell.row, "col": cell.col, "players": cell.players, "games": 0}
        if cell.invalid:
            for m in p["metrics"]:
                rec[m] = rec[f"{m}_lo"] = rec[f"{m}_hi"] = np.nan
            records.append(rec)
            continue
        df = simulate(game, cell.rules, cell.specs, p["games"], seed, threads, metrics=_needs_metrics(p)).results
        rec["games"] = len(df)
        for m in p["metrics"]:
            rec[m], rec[f"{m}_lo"], rec[f"{m}_hi"] = measure(df, m, cell.players)
            if m.startswith("mean:") and m[5:] in df and pd.api.types.is_bool_dtype(df[m[5:]]):
                shares.add(m)            # the mean of a yes/no column is a share
        notes = F.oddities(df, unit)
        if notes:
            odd[", ".join(cell_name(a, v) for a, v in ((rows, cell.row), (cols, cell.col)) if a.kind != "none")] \
                = notes
        records.append(rec)
    return Grid(game, rows, cols, p["metrics"], p["labels"], p["games"], pd.DataFrame(records), shares,
                [(c.row, c.col, c.invalid) for c in p["cells"] if c.invalid], odd)
