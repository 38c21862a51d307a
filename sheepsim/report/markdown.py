"""Markdown rendering of analysis tables and whole reports.

Tables follow the stats.tables convention: a column X with X_lo and X_hi beside
it renders as one cell "X [lo, hi]". Each quantity has one number format, chosen per
column so that every row reads alike:

    shares (columns ending in _rate, or named in `percent`)   51.2% [50.3, 52.1]
    differences of shares (named in `points`)                 +2.6 [+2.5, +2.7]  (percentage points)
    other numbers                                             the same decimals down the column,
                                                              enough to show the interval
    counts                                                    1,000,000

and a number that rounds to zero never carries a sign ("-0.0" reads as a direction).
One rule for the signs of an interval (format_interval): a difference (points, or any
interval with a negative number in it) carries a sign on every number, so that
"0.0 [-5.9, +7.1]" never reads as "0.0 [-5.9, 7.1]"; a bound that rounds to zero but is not
zero gets the digits that show its first significant one ("-0.7 [-1.3, -0.04]", never
"[-1.3, 0.0]"), so a bound's printed sign is its true sign and words chosen from the
interval's signs (findings.verdict) agree with the numbers printed beside them.
No tabulate dependency: the format is small.

A report opens with its title, a description and its findings in words, and ends with
a provenance block (game version, rules, policies, seeds, games, the exact command,
package versions) so every number can be regenerated exactly.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..fileio import write_atomic
from . import saved

PROVENANCE_KEYS = ("game", "game_version", "rules", "policies", "seed", "games", "packages")
MOST_DECIMALS = 4
# readable names for the stats.tables columns, used by every report table; a table
# passes its own `headers` for the rest (or to override these)
HEADERS = {
    "win_rate": "win rate", "fair_rate": "fair share", "shared": "shared wins", "draw_rate": "no sole winner",
    "edge": "seat-0 edge (points)", "chi2_p": "chi-square p (equal seats)", "capped_rate": "capped games",
    "capped": "capped games", "median": "median", "q25": "25th pct", "q75": "75th pct", "p90": "90th pct",
    "p99": "99th pct", "iqr": "IQR", "zero_margin": "tied top score", "zero_margin_rate": "share tied",
    "tiebreak": "decided by tie-break", "tiebreak_rate": "share by tie-break", "shared_rate": "share shared",
}


def _is_missing(value: Any) -> bool:
    return value is None or (isinstance(value, (float, np.floating)) and math.isnan(value))


def unsigned_zero(text: str) -> str:
    """'-0.0' and '+0.0' read as a direction the data does not have: print '0.0'."""
    return text.lstrip("+-") if text.lstrip("+-").replace("0", "").replace(".", "") == "" else text


def decimals(values: Any, halfwidths: Any = None, significant: int = 3) -> int:
    """Decimals for one column: `significant` digits of its largest value, and at least
    the first digit of its typical interval half-width (so an interval is never shown
    as [x, x] while it has width); 0 for a column of whole numbers."""
    x = np.asarray(values, dtype=float)
    x = x[np.isfinite(x)]
    hw = np.asarray([] if halfwidths is None else halfwidths, dtype=float)
    hw = hw[np.isfinite(hw) & (hw > 0)]
    if x.size == 0 or (np.all(x == np.round(x)) and hw.size == 0):
        return 0
    top = np.abs(x).max()
    d = significant - 1 - math.floor(math.log10(top)) if top > 0 else 0
    if hw.size:
        d = max(d, -math.floor(math.log10(float(np.median(hw)))))
    return int(min(max(d, 0), MOST_DECIMALS))


def _number(value: Any, floatfmt: str, percent: bool, percent_digits: int, signed: bool = False,
            bound: bool = False) -> str:
    """One number; a `bound` (of an interval) that is not zero but rounds to it gets the
    decimals that show its first significant digit, so its sign stays readable."""
    if _is_missing(value):
        return "n/a"
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    sign = "+" if signed else ""
    if isinstance(value, (int, np.integer)) and not percent:
        return f"{value:{sign},}"
    x, spec = (100.0 * value, f".{percent_digits}f") if percent else (value, floatfmt)
    text = unsigned_zero(format(x, sign + spec))
    if bound and x != 0 and math.isfinite(x) and spec.endswith("f") and text == unsigned_zero(format(0.0, spec)):
        text = format(x, f"{sign}.{-math.floor(math.log10(abs(x)))}f")
    return text


def _value(value: Any, floatfmt: str, percent: bool, percent_digits: int, signed: bool = False) -> str:
    text = _number(value, floatfmt, percent, percent_digits, signed)
    return text + "%" if percent and not signed and text != "n/a" else text


def format_interval(
    value: float,
    lo: float,
    hi: float,
    percent: bool = False,
    floatfmt: str = ".4g",
    percent_digits: int = 1,
    signed: bool = False,
) -> str:
    """'value [lo, hi]', '51.2% [50.3, 52.1]' for a share, or '+2.6 [+2.5, +2.7]' for a
    difference of shares in percentage points (percent and signed); for tables and prose.
    An interval of other numbers that reaches below zero is a difference too: signed
    (the module's rule). A bound that rounds to zero but is not zero gets more digits."""
    signed = signed or (not percent and has_negative((value, lo, hi)))
    head = _value(value, floatfmt, percent, percent_digits, signed)
    if _is_missing(lo) or _is_missing(hi):
        return head
    bounds = (_number(b, floatfmt, percent, percent_digits, signed, bound=True) for b in (lo, hi))
    return f"{head} [{', '.join(bounds)}]"


def has_negative(values: Iterable[Any]) -> bool:
    """Whether any of the numbers is below zero (missing ones are not)."""
    return any(isinstance(v, (int, float, np.number)) and not _is_missing(v) and v < 0 for v in values)


def _cell(value: Any, floatfmt: str, percent: bool, percent_digits: int, signed: bool) -> str:
    if isinstance(value, (float, int, np.number, bool, np.bool_)) or value is None:
        return _value(value, floatfmt, percent, percent_digits, signed)
    return str(value).replace("\n", " ")


@dataclass(frozen=True)
class TableLayout:
    """A table as shown: the columns after X, X_lo, X_hi collapse into one, their
    headers and formats, and the text of every cell (not yet escaped for Markdown)."""

    columns: list[str]         # the data frame's column shown in each position
    headers: list[str]
    formats: list[str]         # percent, points, number, count or text
    numeric: list[bool]
    interval: list[bool]       # shown as "X [lo, hi]"
    cells: list[list[str]]

    def records(self) -> list[dict[str, Any]]:
        """One entry per shown column, for the sidecar (report/saved.py)."""
        return [{"key": c, "header": h, "format": f, "numeric": n, "interval": i}
                for c, h, f, n, i in zip(self.columns, self.headers, self.formats, self.numeric, self.interval)]


def table_layout(
    df: pd.DataFrame,
    floatfmt: str | None = None,
    percent: Iterable[str] | None = None,
    percent_digits: int = 1,
    headers: Mapping[str, str] | None = None,
    points: Iterable[str] = (),
) -> TableLayout:
    """The table as table_to_markdown shows it (same arguments), cell by cell."""
    columns = [str(c) for c in df.columns]
    if percent is None:
        percent = [c for c in columns if c.endswith("_rate")]
    as_points = set(points)
    as_percent = set(percent) | as_points
    ranged = {c for c in columns if f"{c}_lo" in columns and f"{c}_hi" in columns}
    bounds = {f"{c}_{end}" for c in ranged for end in ("lo", "hi")}
    shown = [c for c in columns if c not in bounds]
    frame = df.set_axis(columns, axis=1)

    def fmt(column: str) -> str:
        if floatfmt is not None:
            return floatfmt
        values = pd.to_numeric(frame[column], errors="coerce")
        half = None
        if column in ranged:
            lo, hi = (pd.to_numeric(frame[f"{column}_{end}"]) for end in ("lo", "hi"))
            whole = pd.concat([values, lo, hi]).dropna()
            if (whole == whole.round()).all():       # quantiles of counts: "17 [16, 17]"
                return ".0f"
            half = (hi - lo) / 2
        return f".{decimals(values, half)}f"

    numeric = {
        c for c in shown
        if pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c])
    }
    formats = {c: fmt(c) for c in numeric if pd.api.types.is_float_dtype(frame[c])}

    # a column of intervals one of which reaches below zero is a difference: every row signed
    negative = {c for c in ranged - as_percent
                if has_negative(pd.concat([pd.to_numeric(frame[k], errors="coerce") for k in
                                           (c, f"{c}_lo", f"{c}_hi")]).dropna())}

    def render(row: Mapping[str, Any], column: str) -> str:
        pct, signed = column in as_percent, column in as_points or column in negative
        f = formats.get(column, ".4g")
        if column in ranged:
            return format_interval(row[column], row[f"{column}_lo"], row[f"{column}_hi"], pct, f,
                                   percent_digits, signed)
        return _cell(row[column], f, pct, percent_digits, signed)

    def kind(column: str) -> str:
        if column in as_points:
            return "points"
        if column in as_percent:
            return "percent"
        if column not in numeric:
            return "text"
        return "number" if column in formats else "count"

    return TableLayout(
        columns=shown, headers=[(headers or {}).get(c, c) for c in shown], formats=[kind(c) for c in shown],
        numeric=[c in numeric for c in shown], interval=[c in ranged for c in shown],
        cells=[[render(row, c) for c in shown] for row in frame.to_dict("records")])


def table_to_markdown(
    df: pd.DataFrame,
    floatfmt: str | None = None,
    percent: Iterable[str] | None = None,
    percent_digits: int = 1,
    headers: Mapping[str, str] | None = None,
    points: Iterable[str] = (),
) -> str:
    """A GitHub-flavoured Markdown table; X, X_lo, X_hi collapse into 'X [lo, hi]'.

    percent names the share columns (default: those ending in _rate), points the
    differences of shares (signed percentage points); headers renames columns for
    display ({column: header}). floatfmt forces one format on every other float column
    (default: decimals chosen per column).
    """
    return _markdown_table(table_layout(df, floatfmt, percent, percent_digits, headers, points))


def _markdown_table(layout: TableLayout) -> str:
    aligns = ["---:" if n else "---" for n in layout.numeric]
    lines = []
    for row in [layout.headers, *layout.cells]:     # a header's "|" too ("change in |edge|") is not a new column
        lines.append("| " + " | ".join(text.replace("|", "\\|") for text in row) + " |")
    lines.insert(1, "|" + "|".join(aligns) + "|")
    return "\n".join(lines) + "\n"


def _provenance_value(value: Any) -> str:
    """Scalars and flat lists inline; mappings, nested data and JSON strings as a JSON block."""
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
        except ValueError:
            return f" {value}\n"
        if not isinstance(parsed, (dict, list)):
            return f" {value}\n"
        value = parsed
    nested = (Mapping, list, tuple)
    if isinstance(value, (list, tuple)) and not any(isinstance(v, nested) for v in value):
        return " " + ", ".join(f"`{v}`" for v in value) + "\n"
    if isinstance(value, nested):
        block = json.dumps(value, indent=2, sort_keys=True, default=str)
        return "\n\n```json\n" + block + "\n```\n"
    return f" {value}\n"


@dataclass(frozen=True)
class _Figure:
    path: Path
    caption: str


@dataclass(frozen=True)
class _Text:
    """A heading (level 2..6) or a paragraph (level 0), as Markdown."""
    text: str
    level: int = 0


@dataclass(frozen=True)
class _Table:
    layout: TableLayout
    data: pd.DataFrame
    caption: str | None


class Report:
    """Collects sections in order and writes one Markdown file: title, description,
    findings (in words, first: what a designer reads), the sections, provenance; and
    beside it the same report as data, REPORTS/<name>/report.json (report/saved.py),
    from which `sheepsim report` builds its site without playing a game."""

    def __init__(self, title: str, provenance: Mapping[str, Any], description: str | None = None) -> None:
        missing = [key for key in PROVENANCE_KEYS if key not in provenance]
        if missing:
            required = list(PROVENANCE_KEYS)
            raise ValueError(f"provenance is missing {missing}; a report must name all of {required}")
        self.title = title
        self.provenance = dict(provenance)
        self.description = description
        self._findings: list[str] = []
        self._headline: str | None = None
        self._sections: list[_Text | _Table | _Figure] = []
        self._replays: list[dict[str, Any]] = []

    def findings(self, lines: Sequence[str]) -> Report:
        """The report's findings, one bullet each; rendered right after the description
        whenever they are added (they are known only once the games are played)."""
        self._findings.extend(lines)
        return self

    def headline(self, text: str) -> Report:
        """One sentence that answers the report's question, from its data; rendered first
        in the findings, before the per-cell bullets (and kept in the sidecar for the
        site's index)."""
        self._headline = text.strip()
        return self

    def heading(self, text: str, level: int = 2) -> Report:
        if not 2 <= level <= 6:
            raise ValueError(f"heading level must be 2..6 (1 is the report title), got {level}")
        self._sections.append(_Text(text, level))
        return self

    def paragraph(self, text: str) -> Report:
        self._sections.append(_Text(text.strip()))
        return self

    def table(
        self,
        df: pd.DataFrame,
        caption: str | None = None,
        floatfmt: str | None = None,
        percent: Iterable[str] | None = None,
        headers: Mapping[str, str] | None = None,
        points: Iterable[str] = (),
    ) -> Report:
        layout = table_layout(df, floatfmt=floatfmt, percent=percent, headers={**HEADERS, **(headers or {})},
                              points=points)
        self._sections.append(_Table(layout, df.copy(), caption))
        return self

    def figure(self, path: str | os.PathLike[str], caption: str) -> Report:
        """path is relative to the report file; absolute paths are made relative on write."""
        self._sections.append(_Figure(Path(path), caption))
        return self

    def replays(self, records: Sequence[Mapping[str, Any]]) -> Report:
        """Games worth watching, for the site's Replays section (not in the Markdown):
        each {label, game, players, options, policies, seed, index, rotate}, the keys
        `sheepsim trace` needs to play that game again (report/saved.py)."""
        self._replays.extend(dict(r) for r in records)
        return self

    @staticmethod
    def _figure_target(figure: _Figure, base: str | os.PathLike[str] | None) -> Path:
        target = figure.path
        if base is not None and target.is_absolute():
            target = Path(os.path.relpath(target, base))
        return target

    def render(self, base: str | os.PathLike[str] | None = None) -> str:
        """The Markdown text; base is the report's folder, for relative figure links."""
        parts = [f"# {self.title}\n"]
        if self.description:
            parts.append(self.description.strip() + "\n")
        if self._headline or self._findings:
            top = f"{self._headline}\n\n" if self._headline else ""
            parts.append("## Findings\n\n" + top + "".join(f"- {line}\n" for line in self._findings))
        for section in self._sections:
            if isinstance(section, _Figure):
                target = self._figure_target(section, base)
                parts.append(f"![{section.caption}]({target.as_posix()})\n\n*{section.caption}*\n")
            elif isinstance(section, _Table):
                text = _markdown_table(section.layout)
                parts.append(text if section.caption is None else f"{text}\n*{section.caption}*\n")
            elif section.level:
                parts.append(f"{'#' * section.level} {section.text}\n")
            else:
                parts.append(section.text + "\n")
        lines = (f"- **{key}**:{_provenance_value(v)}" for key, v in self.provenance.items())
        parts.append("## Provenance\n\n" + "".join(lines))
        return "\n".join(parts)

    def record(self, base: str | os.PathLike[str], markdown: str, name: str) -> dict[str, Any]:
        """The sidecar (report/saved.py) of this report written as `name` in the folder
        `base` with the Markdown text `markdown`."""
        sections: list[dict[str, Any]] = []
        for section in self._sections:
            if isinstance(section, _Figure):
                target = self._figure_target(section, base)
                spec = saved.figure_spec_path(target)
                sections.append({"type": "figure", "path": target.as_posix(), "caption": section.caption,
                                 "data": spec.as_posix() if (Path(base) / spec).is_file() else None})
            elif isinstance(section, _Table):
                frame = section.data.set_axis([str(c) for c in section.data.columns], axis=1)
                sections.append({"type": "table", "caption": section.caption, "columns": section.layout.records(),
                                 "rows": frame.to_dict("records"), "cells": section.layout.cells})
            elif section.level:
                sections.append({"type": "heading", "level": section.level, "text": section.text})
            else:
                sections.append({"type": "paragraph", "text": section.text})
        return {"format": saved.REPORT_FORMAT, "version": saved.VERSION, "title": self.title,
                "description": self.description.strip() if self.description else None,
                "headline": self._headline, "findings": list(self._findings), "sections": sections,
                "provenance": self.provenance, "replays": self._replays, "markdown": name, "markdown_sha256": saved.sha256(markdown)}

    def write(self, path: str | os.PathLike[str]) -> Path:
        """REPORTS/<name>.md, then its sidecar REPORTS/<name>/report.json (each written
        atomically; a sidecar left from an earlier run no longer matches the Markdown's
        hash and is ignored)."""
        target = Path(path)
        base = target.parent.absolute()
        text = self.render(base=base)
        write_atomic(target, text)
        write_atomic(saved.sidecar_path(target), saved.dumps(self.record(base, text, target.name)))
        return target
