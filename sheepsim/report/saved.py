"""The saved outputs beside a report, so that `sheepsim report` never re-runs games.

Two kinds of JSON file, both written atomically with the report or figure they belong to:

    REPORTS/<name>.md                 the Markdown report (unchanged by these files)
    REPORTS/<name>/report.json        its sidecar: the same report as data
    REPORTS/<name>/<figure>.png       a figure, as before
    REPORTS/<name>/<figure>.json      the figure's data spec (same stem), for the figures that have one

The sidecar (`format` "sheepsim-report", `version` 1):

    title, description            strings (Markdown); description may be null
    headline                      one sentence (Markdown) answering the report's question,
                                  shown first in its findings; null when the report has none
    findings                      list of strings (Markdown, one bullet each)
    sections                      list, in order, of one of
        {"type": "heading", "level": 2..6, "text": ...}
        {"type": "paragraph", "text": ...}                       (Markdown)
        {"type": "table", "caption": ... or null, "columns": [column, ...],
         "rows": [{column key: raw value}, ...],                 (every column of the
                                                                  data frame, X_lo/X_hi too)
         "cells": [[text of each shown column], ...]}            (exactly as the Markdown)
             column: {"key", "header", "format": percent | points | number | count | text,
                      "numeric": bool, "interval": bool (X_lo and X_hi shown as "X [lo, hi]")}
        {"type": "figure", "path": "<name>/<figure>.png", "caption": ...,
         "data": "<name>/<figure>.json" or null}                 (paths relative to REPORTS/)
    provenance                    the provenance block, a mapping
    replays                       list of records, each {label, game, players, options,
                                  policies, seed, index, rotate}: one game of a run worth
                                  watching ("typical game (median length)", "longest game",
                                  "biggest comeback"); `sheepsim trace GAME -p PLAYERS
                                  --policy P... -o K=V... --seed SEED --game INDEX` replays it
    markdown, markdown_sha256     the report's file name and the SHA-256 of its text: a
                                  sidecar whose hash does not match the Markdown beside it
                                  is stale (a write that failed half-way) and is not used

A figure spec (`format` "sheepsim-figure", `version` 1) has `kind` (heatmap, forest,
lines, sweep, history, pareto, length, variants), `title`, the image's file name and SHA-256
(`image`, `image_sha256`: a spec that does not match its image is stale and is not
used) and the plotted numbers: each value with its 95% interval (lo, hi) and its n
(games) where the caller gave them. plots.py documents each kind's keys beside the
function that writes it. Missing numbers (NaN) are null.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

REPORT_FORMAT = "sheepsim-report"
FIGURE_FORMAT = "sheepsim-figure"
VERSION = 1
SIDECAR = "report.json"


def sidecar_path(markdown: str | Path) -> Path:
    """REPORTS/<name>/report.json for the report REPORTS/<name>.md."""
    path = Path(markdown)
    return path.parent / path.stem / SIDECAR


def figure_spec_path(image: str | Path) -> Path:
    """A figure's data spec: the image's path with .json for its suffix."""
    return Path(image).with_suffix(".json")


def sha256(data: str | bytes) -> str:
    return hashlib.sha256(data.encode("utf-8") if isinstance(data, str) else data).hexdigest()


def jsonable(value: Any) -> Any:
    """Plain JSON data: numpy scalars and arrays as numbers and lists, NaN and infinities
    as null, mappings with string keys, anything else as its text."""
    if value is None or isinstance(value, (str, bool)):
        return value
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, np.ndarray):
        return [jsonable(v) for v in value.tolist()]
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [jsonable(v) for v in value]
    return str(value)


def dumps(data: Mapping[str, Any]) -> str:
    return json.dumps(jsonable(data), allow_nan=False, ensure_ascii=False, separators=(",", ":")) + "\n"


def read_sidecar(markdown: Path) -> dict[str, Any] | None:
    """The sidecar of REPORTS/<name>.md when there is a current one (its hash matches
    the Markdown), else None: the report is then shown from its Markdown alone."""
    path = sidecar_path(markdown)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        text = markdown.read_text(encoding="utf-8")
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("format") != REPORT_FORMAT or data.get("version") != VERSION:
        return None
    if data.get("markdown_sha256") != sha256(text):
        return None
    return data


def findings_lines(markdown: Path, width: int = 100) -> list[str]:
    """A report's findings as a terminal shows them (`sheepsim run` prints them after
    the report's path): "- " bullets wrapped to `width`, Markdown's bold and code marks
    dropped; [] when the report has no current sidecar or no findings."""
    import re
    import textwrap
    data = read_sidecar(Path(markdown)) or {}
    lines = []
    for finding in data.get("findings") or []:
        plain = re.sub(r"\*\*|`", "", finding)
        lines += textwrap.wrap("- " + plain, width, subsequent_indent="  ", break_on_hyphens=False)
    return ["Findings:", *lines] if lines else []


def read_figure_spec(image: Path) -> dict[str, Any] | None:
    """The data spec beside a figure when it describes this very image, else None."""
    try:
        spec = json.loads(figure_spec_path(image).read_text(encoding="utf-8"))
        data = image.read_bytes()
    except (OSError, ValueError):
        return None
    if not isinstance(spec, dict) or spec.get("format") != FIGURE_FORMAT or spec.get("version") != VERSION:
        return None
    return spec if spec.get("image_sha256") == sha256(data) else None
