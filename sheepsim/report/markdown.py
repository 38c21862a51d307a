"""Markdown rendering of analysis tables and whole reports.

Tables follow the analysis.tables convention: a column X with X_lo and X_hi beside
it renders as one cell "X [lo, hi]", and proportions (columns ending in _rate) as
percentages, e.g. "51.2% [50.3, 52.1]". No tabulate dependency: the format is small.

Reports end with a provenance block (guide rule 7: game version, rules, policies,
seeds, games, package versions) so every number can be regenerated exactly.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..fileio import write_atomic

PROVENANCE_KEYS = ("game", "game_version", "rules", "policies", "seed", "games", "packages")


def _is_missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _number(value: Any, floatfmt: str, percent: bool, percent_digits: int) -> str:
    if _is_missing(value):
        return "n/a"
    if percent:
        return f"{100.0 * value:.{percent_digits}f}"
    if isinstance(value, (bool, np.bool_, int, np.integer)):
        return str(value)
    return format(value, floatfmt)


def _value(value: Any, floatfmt: str, percent: bool, percent_digits: int) -> str:
    text = _number(value, floatfmt, percent, percent_digits)
    return text + "%" if percent and text != "n/a" else text


def format_interval(
    value: float,
    lo: float,
    hi: float,
    percent: bool = False,
    floatfmt: str = ".4g",
    percent_digits: int = 1,
) -> str:
    """'value [lo, hi]', or '51.2% [50.3, 52.1]' for a proportion; for tables and prose."""
    head = _value(value, floatfmt, percent, percent_digits)
    if _is_missing(lo) or _is_missing(hi):
        return head
    bounds = (_number(b, floatfmt, percent, percent_digits) for b in (lo, hi))
    return f"{head} [{', '.join(bounds)}]"


def _cell(value: Any, floatfmt: str, percent: bool, percent_digits: int) -> str:
    if isinstance(value, (float, int, np.number, bool, np.bool_)) or value is None:
        return _value(value, floatfmt, percent, percent_digits)
    return str(value).replace("|", "\\|").replace("\n", " ")


def table_to_markdown(
    df: pd.DataFrame,
    floatfmt: str = ".4g",
    percent: Iterable[str] | None = None,
    percent_digits: int = 1,
    headers: Mapping[str, str] | None = None,
) -> str:
    """A GitHub-flavoured Markdown table; X, X_lo, X_hi collapse into 'X [lo, hi]'.

    percent names the proportion columns (default: those ending in _rate); headers
    renames columns for display ({column: header}).
    """
    columns = [str(c) for c in df.columns]
    if percent is None:
        percent = [c for c in columns if c.endswith("_rate")]
    as_percent = set(percent)
    ranged = {c for c in columns if f"{c}_lo" in columns and f"{c}_hi" in columns}
    bounds = {f"{c}_{end}" for c in ranged for end in ("lo", "hi")}
    shown = [c for c in columns if c not in bounds]

    def render(row: Mapping[str, Any], column: str) -> str:
        pct = column in as_percent
        if column in ranged:
            return format_interval(
                row[column], row[f"{column}_lo"], row[f"{column}_hi"], pct, floatfmt, percent_digits
            )
        return _cell(row[column], floatfmt, pct, percent_digits)

    frame = df.set_axis(columns, axis=1)
    numeric = {
        c for c in shown
        if pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c])
    }
    aligns = ["---:" if c in numeric else "---" for c in shown]
    names = [(headers or {}).get(c, c) for c in shown]
    lines = ["| " + " | ".join(names) + " |", "|" + "|".join(aligns) + "|"]
    for row in frame.to_dict("records"):
        lines.append("| " + " | ".join(render(row, c) for c in shown) + " |")
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


class Report:
    """Collects sections in order and writes one Markdown file with provenance."""

    def __init__(self, title: str, provenance: Mapping[str, Any]) -> None:
        missing = [key for key in PROVENANCE_KEYS if key not in provenance]
        if missing:
            required = list(PROVENANCE_KEYS)
            raise ValueError(f"provenance is missing {missing}; a report must name all of {required}")
        self.title = title
        self.provenance = dict(provenance)
        self._sections: list[str | _Figure] = []

    def heading(self, text: str, level: int = 2) -> Report:
        if not 2 <= level <= 6:
            raise ValueError(f"heading level must be 2..6 (1 is the report title), got {level}")
        self._sections.append(f"{'#' * level} {text}\n")
        return self

    def paragraph(self, text: str) -> Report:
        self._sections.append(text.strip() + "\n")
        return self

    def table(
        self,
        df: pd.DataFrame,
        caption: str | None = None,
        floatfmt: str = ".4g",
        percent: Iterable[str] | None = None,
    ) -> Report:
        text = table_to_markdown(df, floatfmt=floatfmt, percent=percent)
        self._sections.append(text if caption is None else f"{text}\n*{caption}*\n")
        return self

    def figure(self, path: str | os.PathLike[str], caption: str) -> Report:
        """path is relative to the report file; absolute paths are made relative on write."""
        self._sections.append(_Figure(Path(path), caption))
        return self

    def render(self, base: str | os.PathLike[str] | None = None) -> str:
        """The Markdown text; base is the report's folder, for relative figure links."""
        parts = [f"# {self.title}\n"]
        for section in self._sections:
            if isinstance(section, _Figure):
                target = section.path
                if base is not None and target.is_absolute():
                    target = Path(os.path.relpath(target, base))
                parts.append(f"![{section.caption}]({target.as_posix()})\n\n*{section.caption}*\n")
            else:
                parts.append(section)
        lines = (f"- **{key}**:{_provenance_value(v)}" for key, v in self.provenance.items())
        parts.append("## Provenance\n\n" + "".join(lines))
        return "\n".join(parts)

    def write(self, path: str | os.PathLike[str]) -> Path:
        target = Path(path)
        return write_atomic(target, self.render(base=target.parent.absolute()))
