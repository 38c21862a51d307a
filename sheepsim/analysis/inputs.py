"""What a report was made from, so that `make reports` keeps it or remakes it at its scale.

A committed report can take an hour of games (`scale = 25` in its analysis file), so
the main command must neither replay it for nothing nor replace it with a smaller one.
Beside every report, REPORTS/<name>/inputs.json records its inputs:

- `analysis`: a hash of the analysis file's table (its keys and values: a comment
  changes nothing, a changed count or description does);
- `scale`: the scale the report was made at;
- `sources`: a hash of every sheepsim file the run read: each module loaded while it
  ran (known exactly from sys.modules, so an edit to the Battle Sheep engine does not
  stale a Pig report, and an edit to the wording of findings stales every report that
  uses it), and the data files (the shipped stop tables) beside those modules.

`stale` compares the record with the files as they are now and says in words why a
report must be remade, or None when it is current. Only `sheepsim.cli` is left out:
the command line passes its options on and shapes no report.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from ..fileio import write_atomic

FILE = "inputs.json"
PACKAGE = Path(__file__).resolve().parents[1]
ROOT = PACKAGE.parent                  # paths are recorded as "sheepsim/..."
UNSHAPING = {"sheepsim.cli"}
DATA = "tables"                        # a module's data folder (the learned stop tables)


def spec_hash(spec: dict[str, Any]) -> str:
    """The analysis file's table, hashed as canonical JSON (comments and layout do not count)."""
    return hashlib.sha256(json.dumps(spec, sort_keys=True, default=str).encode()).hexdigest()


def _file_hash(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def loaded_sources() -> dict[str, str]:
    """Every sheepsim file this process has read so far: its loaded modules' sources and
    the data folders beside them, by path from the repository root."""
    files: set[Path] = set()
    for name, module in list(sys.modules.items()):
        origin = getattr(module, "__file__", None)
        if not name.startswith("sheepsim") or name in UNSHAPING or origin is None:
            continue
        path = Path(origin).resolve()
        if PACKAGE not in path.parents:
            continue
        files.add(path)
        data = path.parent / DATA
        if data.is_dir():
            files.update(p for p in data.iterdir() if p.is_file())
    return {p.relative_to(ROOT).as_posix(): _file_hash(p) for p in sorted(files)}


def record(folder: Path, spec: dict[str, Any], scale: float) -> Path:
    """Write FOLDER/inputs.json for a report just made from `spec` at `scale`."""
    data = {"analysis": spec_hash(spec), "scale": scale, "sources": loaded_sources()}
    return write_atomic(folder / FILE, json.dumps(data, indent=1, sort_keys=True) + "\n")


def read(folder: Path) -> dict[str, Any] | None:
    try:
        data = json.loads((folder / FILE).read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def stale(report: Path, spec: dict[str, Any], scale: float) -> str | None:
    """Why REPORT (REPORTS/<name>.md) must be remade from `spec` at `scale`, in words;
    None when its record matches the analysis file, the scale and every source."""
    if not report.is_file():
        return "no report yet"
    made = read(report.with_suffix(""))
    if made is None or not isinstance(made.get("sources"), dict):
        return "no record of what it was made from"
    if made.get("analysis") != spec_hash(spec):
        return "the analysis file changed"
    if made.get("scale") != scale:
        return f"it was made at --scale {made.get('scale')!s}, the analysis file says {scale:g}"
    changed = sorted(rel for rel, digest in made["sources"].items() if _file_hash(ROOT / rel) != digest)
    if changed:
        shown = ", ".join(changed[:3]) + (f" and {len(changed) - 3} more" if len(changed) > 3 else "")
        return f"sources changed: {shown}"
    return None
