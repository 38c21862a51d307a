"""The grid report (analysis/grid.py): for each metric, its heat map over the rows and
columns and its table; for the focal player's win rate, the setting closest to fair in
each row."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ...runner import versions
from .. import findings as F
from .. import plots
from ..markdown import Report, decimals, format_interval


@dataclass
class Axis:
    """What a grid's rows or columns vary (analysis/grid.py parses it): `kind` is one of
    grid.AXIS_KINDS or "none", `key` the option or parameter it sets."""
    name: str
    kind: str
    key: str
    values: list
    times: float = 1.0
    others: Any = None


@dataclass
class Grid:
    game: Any                           # the GameSpec
    rows: Axis
    cols: Axis
    metrics: list[str]
    labels: dict[str, str]              # the analysis file's names for the metrics
    games: int                          # per cell
    table: pd.DataFrame                 # a row per cell (row, col, players, games), each metric with its interval
    shares: set[str]                    # the mean:COL metrics of a yes/no column (shown as shares)
    skipped: list[tuple[Any, Any, str]]     # (row, col, why) of the cells the rules reject (skip_invalid)
    odd: dict[str, list[str]]           # findings.oddities of each cell that has any, by the cell's name


def layout(spec: dict[str, Any], data: Grid, figures: Path, command: str) -> Report:
    game, seed, table = data.game, int(spec["seed"]), data.table
    unit = game.turn_unit
    rows, cols = data.rows, data.cols
    report = Report(spec.get("title", f"{game.title}: grid"), {
        "game": game.name, "game_version": game.version,
        "rules": {"baseline options": spec.get("options", {}), "rows": rows.name or "-", "columns": cols.name or "-"},
        "policies": {"focal": spec.get("focal_policy", "-"), "others": spec.get("policy", "random")},
        "seed": seed, "games": f"{data.games:,} per cell, every cell on the same seeds", "packages": versions(),
        "command": command,
    }, description=spec.get("description"))
    findings = []
    answer = ""
    skipped = data.skipped
    if skipped:
        report.paragraph(f"{len(skipped)} combination(s) are left blank because the rules reject them, e.g. "
                         f"{rows.name}={skipped[0][0]}, {cols.name}={skipped[0][1]}: {skipped[0][2]}.")
    shape = (len(rows.values), len(cols.values))
    for m in data.metrics:
        label = data.labels.get(m, metric_name(m, unit, m in data.shares))
        percent = m in ("focal_win_rate", "seat0_edge") or m in data.shares
        values = table[m].to_numpy().reshape(shape)
        lo, hi = (table[f"{m}_{e}"].to_numpy().reshape(shape) for e in ("lo", "hi"))
        report.heading(label[0].upper() + label[1:])
        valid = table[table["games"] > 0]
        if (valid[[m, f"{m}_lo", f"{m}_hi"]] == 0).all(axis=None):
            # an all-zero panel shows nothing: say so instead
            text = f"{label[0].upper() + label[1:]} is 0 in every cell ({data.games:,} games each)."
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
                            f"{cols.name or '-'} (columns); {data.games:,} games per cell.{neutral}")
        keep = ["row", "col"] + ([] if "players" in (rows.kind, cols.kind) else ["players"])
        shown = table[keep + ["games", m, f"{m}_lo", f"{m}_hi"]].rename(
            columns={"row": rows.name or "row", "col": cols.name or "col"})
        report.table(shown, percent=[m] if percent and m != "seat0_edge" else [],
                     points=[m] if m == "seat0_edge" else [], headers={m: label},
                     caption=f"{label} with its 95% interval per cell")
        findings.append(_metric_finding(table, m, label, rows, cols, percent))
        if m == "focal_win_rate" and cols.kind not in ("policy", "focal_policy"):
            findings.append(_fair_section(report, table, rows, cols, figures, game, data.games, label))
        # the headline: the first metric's answer (for a focal win rate, where it is fair)
        answer = answer or findings[-1]
    findings += F.grouped(data.odd)
    if answer:
        report.headline(answer)
    report.findings(findings)
    return report


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


def cell_name(axis: Axis, value: Any) -> str:
    value = _show(value)
    return f"{value} players" if axis.kind == "players" else f"{axis.name} {value}"


def _metric_finding(table: pd.DataFrame, m: str, label: str, rows: Axis, cols: Axis, percent: bool) -> str:
    """The range of one metric over the grid, or for the seat-0 edge the cells where it
    is detectable."""
    valid = table[table["games"] > 0]

    def where(r) -> str:
        return ", ".join(cell_name(a, v) for a, v in ((rows, r["row"]), (cols, r["col"])) if a.kind != "none")

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
        words.append(f"{cell_name(rows, r) if rows.kind != 'none' else 'all'}: {cell_name(cols, best['col'])} "
                     f"({rate} against a fair {fair:.1%}{', within its interval' if holds else ''}{between})")
        counts[cell_name(rows, r) if rows.kind != "none" else "all"] = t["games"].to_numpy()
        lines[cell_name(rows, r) if rows.kind != "none" else "all"] = (
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
