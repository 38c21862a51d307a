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
from ..report.markdown import Report, decimals, format_interval
from ..runner import simulate, versions
from ..start import policy_data
from ..stats import tables as T
from ..stats.intervals import wilson_interval

KEYS = ("players", "policy", "focal_policy", "games", "options", "rows", "cols", "metrics", "labels", "skip_invalid")
AXIS_KINDS = ("option", "players", "param", "focal_option", "policy", "focal_policy")
LISTED = ("players", "policy", "focal_policy")     # axes whose values are the key's own list


@dataclass
class Axis:
    name: str
    kind: str
    key: str
    values: list
    times: float = 1.0
    others: Any = None

    @staticmethod
    def parse(spec: Any, where: str) -> "Axis":
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
    rows, cols = Axis.parse(spec.get("rows"), "rows"), Axis.parse(spec.get("cols"), "cols")
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


def metric_name(metric: str, unit: str = "turns", share: bool = False) -> str:
    """A readable default name for a metric (an analysis file's [labels] overrides it);
    share: the mean is of a yes/no column."""
    def word(column: str) -> str:
        return unit if column == "turns" else column.replace("_", " ")
    if metric == "focal_win_rate":
        return "the focal player's win rate"
    if metric == "seat0_edge":
        return "seat 0's edge over 1/P (points)"
    if metric.startswith("mean:"):
        return f"share of games {word(metric[5:])}" if share else f"mean {word(metric[5:])} per game"
    _, a, b = metric.split(":")
    return f"{word(a)} per {word(b).removesuffix('s')}"


def _show(value: Any) -> Any:
    return int(value) if isinstance(value, float) and value.is_integer() else value  # a table row makes 4 a 4.0


def _cell_name(axis: Axis, value: Any) -> str:
    value = _show(value)
    return f"{value} players" if axis.kind == "players" else f"{axis.name} {value}"


def run(spec: dict[str, Any], p: dict[str, Any], reports: Path, threads, progress: bool, command: str = "") -> Path:
    from ..report import findings as F
    from ..report import plots
    game, name, seed = p["game"], spec["name"], int(spec["seed"])
    unit = game.turn_unit
    rows, cols = p["rows"], p["cols"]
    figures = (reports / name).absolute()
    figures.mkdir(parents=True, exist_ok=True)
    report = Report(spec.get("title", f"{game.title}: grid"), {
        "game": game.name, "game_version": game.version,
        "rules": {"baseline options": spec.get("options", {}), "rows": rows.name or "-", "columns": cols.name or "-"},
        "policies": {"focal": spec.get("focal_policy", "-"), "others": spec.get("policy", "random")},
        "seed": seed, "games": f"{p['games']:,} per cell, every cell on the same seeds", "packages": versions(),
        "command": command,
    }, description=spec.get("description"))
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
            odd[", ".join(_cell_name(a, v) for a, v in ((rows, cell.row), (cols, cell.col)) if a.kind != "none")] \
                = notes
        records.append(rec)
    table = pd.DataFrame(records)
    findings = []
    answer = ""
    skipped = [c for c in p["cells"] if c.invalid]
    if skipped:
        report.paragraph(f"{len(skipped)} combination(s) are left blank because the rules reject them, e.g. "
                         f"{rows.name}={skipped[0].row}, {cols.name}={skipped[0].col}: {skipped[0].invalid}.")
    shape = (len(rows.values), len(cols.values))
    for m in p["metrics"]:
        label = p["labels"].get(m, metric_name(m, unit, m in shares))
        percent = m in ("focal_win_rate", "seat0_edge") or m in shares
        values = table[m].to_numpy().reshape(shape)
        lo, hi = (table[f"{m}_{e}"].to_numpy().reshape(shape) for e in ("lo", "hi"))
        report.heading(label[0].upper() + label[1:])
        valid = table[table["games"] > 0]
        if (valid[[m, f"{m}_lo", f"{m}_hi"]] == 0).all(axis=None):
            # an all-zero panel shows nothing: say so instead
            text = f"{label[0].upper() + label[1:]} is 0 in every cell ({p['games']:,} games each)."
            report.paragraph(text + " No figure or table is drawn for it.")
            plots.remove(figures / f"{_slug(m)}.png")
            findings.append(text)
            continue
        centre = None
        if m == "focal_win_rate":
            centre = 1.0 / np.maximum(table["players"].to_numpy(), 1).reshape(shape)
        elif m == "seat0_edge":
            centre = 0.0
        path = plots.heatmap(values, [_tick(v) for v in rows.values], [_tick(v) for v in cols.values],
                             figures / f"{_slug(m)}.png", f"{game.title}: {label}", cols.name or "-",
                             rows.name or "-", centre=centre, lo=lo, hi=hi, percent=percent, value_label=label,
                             n=table["games"].to_numpy().reshape(shape))
        neutral = (" White: the fair share, and every cell whose 95% interval holds it." if m == "focal_win_rate"
                   else " White: no edge, and every cell whose 95% interval holds 0." if m == "seat0_edge" else "")
        shown_as = " minus the fair 1/P, in percentage points," if m == "focal_win_rate" else ""
        report.figure(path, f"{label[0].upper() + label[1:]}{shown_as} by {rows.name or '-'} (rows) and "
                            f"{cols.name or '-'} (columns); {p['games']:,} games per cell.{neutral}")
        keep = ["row", "col"] + ([] if "players" in (rows.kind, cols.kind) else ["players"])
        shown = table[keep + ["games", m, f"{m}_lo", f"{m}_hi"]].rename(
            columns={"row": rows.name or "row", "col": cols.name or "col"})
        report.table(shown, percent=[m] if percent and m != "seat0_edge" else [],
                     points=[m] if m == "seat0_edge" else [], headers={m: label},
                     caption=f"{label} with its 95% interval per cell")
        findings.append(_metric_finding(table, m, label, rows, cols, percent))
        if m == "focal_win_rate" and cols.kind not in ("policy", "focal_policy"):
            findings.append(_fair_section(report, table, rows, cols, figures, game, p["games"], label))
        # the headline: the first metric's answer (for a focal win rate, where it is fair)
        answer = answer or findings[-1]
    findings += F.grouped(odd)
    if answer:
        report.headline(answer)
    report.findings(findings)
    return report.write(reports / f"{name}.md")


def _metric_finding(table: pd.DataFrame, m: str, label: str, rows: Axis, cols: Axis, percent: bool) -> str:
    """The range of one metric over the grid, or for the seat-0 edge the cells where it
    is detectable."""
    from ..report import findings as F
    valid = table[table["games"] > 0]

    def where(r) -> str:
        return ", ".join(_cell_name(a, v) for a, v in ((rows, r["row"]), (cols, r["col"])) if a.kind != "none")

    def value(r) -> str:
        if m == "seat0_edge":
            return F.edge_words(r[m], r[f"{m}_lo"], r[f"{m}_hi"])
        return format_interval(r[m], r[f"{m}_lo"], r[f"{m}_hi"], percent=percent,
                               floatfmt=f".{decimals(valid[m], (valid[f'{m}_hi'] - valid[f'{m}_lo']) / 2)}f")
    head = f"**{label[0].upper() + label[1:]}**: "
    if m == "seat0_edge":
        tilted = valid[(valid[f"{m}_lo"] > 0) | (valid[f"{m}_hi"] < 0)]
        if tilted.empty:
            return head + f"no cell shows a detectable seat-0 edge (each of the {len(valid)} intervals holds 0)."
        return head + "; ".join(f"at {where(r)} {value(r)}" for _, r in tilted.iterrows()) + \
            F.chance_note(len(tilted), len(valid)) + f"; the other {len(valid) - len(tilted)} cells show none."
    low, high = valid.loc[valid[m].idxmin()], valid.loc[valid[m].idxmax()]
    return head + f"from {value(low)} at {where(low)} to {value(high)} at {where(high)}."


def _fair_section(report: Report, table: pd.DataFrame, rows: Axis, cols: Axis, figures: Path, game,
                  games: int, label: str) -> str:
    """Per row: the columns whose interval holds the fair 1/P, and the closest one; the
    findings line that says it in words."""
    from ..report import plots
    out, lines, words, counts = [], {}, [], {}
    for r in rows.values:
        t = table[(table["row"].astype(str) == str(r)) & (table["games"] > 0)]
        if t.empty:
            continue
        fair = 1.0 / t["players"].iloc[0]
        gap = (t["focal_win_rate"] - fair).abs()
        best = t.loc[gap.idxmin()]
        holds = t[(t["focal_win_rate_lo"] <= fair) & (t["focal_win_rate_hi"] >= fair)]["col"].tolist()
        out.append({rows.name or "row": r, "fair share": fair, f"closest {cols.name}": best["col"],
                    "its win rate": best["focal_win_rate"], "its win rate_lo": best["focal_win_rate_lo"],
                    "its win rate_hi": best["focal_win_rate_hi"],
                    f"{cols.name} whose interval holds 1/P": ", ".join(map(str, holds)) or "none"})
        rate = format_interval(best["focal_win_rate"], best["focal_win_rate_lo"], best["focal_win_rate_hi"],
                               percent=True)
        rates = t["focal_win_rate"].to_numpy()
        # where the win rate crosses the fair share between neighbouring settings
        cross = [k for k in range(len(t) - 1) if (rates[k] - fair) * (rates[k + 1] - fair) < 0]
        between = "".join(f"; fair lies between {_show(t['col'].iloc[k])} and {_show(t['col'].iloc[k + 1])}"
                          for k in cross) if not holds else ""
        if not holds and not cross:
            side = "below" if (rates < fair).all() else "above" if (rates > fair).all() else ""
            between = f"; {side} the fair share at every setting" if side else ""
        words.append(f"{_cell_name(rows, r) if rows.kind != 'none' else 'all'}: {_cell_name(cols, best['col'])} "
                     f"({rate} against a fair {fair:.1%}{', within its interval' if holds else ''}{between})")
        counts[_cell_name(rows, r) if rows.kind != "none" else "all"] = t["games"].to_numpy()
        lines[_cell_name(rows, r) if rows.kind != "none" else "all"] = (
            list(t["col"]), t["focal_win_rate"].to_numpy(), t["focal_win_rate_lo"].to_numpy(),
            t["focal_win_rate_hi"].to_numpy(), fair)
    report.heading("Closest to fair", level=3)
    report.table(pd.DataFrame(out), percent=["fair share", "its win rate"],
                 caption="per row, the setting whose focal win rate is closest to the fair 1/P (95% Wilson "
                         "interval), and every setting whose interval contains 1/P")
    report.figure(plots.lines_plot(lines, figures / "focal-win-rate-lines.png",
                                   f"{game.title}: {label} against the fair share", cols.name, n=counts),
                  f"{label[0].upper() + label[1:]} (95% Wilson whiskers and ribbons) by {cols.name}; dashed: the "
                  f"fair 1/P; {games:,} games per point.")
    fair_anywhere = any(o[f"{cols.name} whose interval holds 1/P"] != "none" for o in out)
    return (f"**Closest to fair** ({'some settings are fair within their interval' if fair_anywhere else 'no setting is fair within its interval'}): "
            + "; ".join(words) + ".")


def _tick(v: Any) -> float | str:
    return v if isinstance(v, (int, float)) else str(v)


def _slug(metric: str) -> str:
    return metric.replace(":", "-").replace("_", "-")
