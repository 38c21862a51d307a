"""`sheepsim run FILE.toml`: load an analysis definition, run it, write its report.

An analysis file names its `kind` (the analysis type), its game, seed and game counts,
and its cells; every key is validated before any game is played, so a typo fails in
one line instead of after an hour. Reports go to REPORTS/<name>.md with figures in
REPORTS/<name>/.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from ..errors import SheepsimError

KINDS = ("seat_advantage", "policy_sweep", "rule_variants")
COMMON = {"name", "title", "kind", "game", "seed", "description"}


def load(path: Path) -> dict[str, Any]:
    try:
        spec = tomllib.loads(Path(path).read_text())
    except OSError as exc:
        raise SheepsimError(f"cannot read analysis file {path}: {exc.strerror}")
    except tomllib.TOMLDecodeError as exc:
        raise SheepsimError(f"analysis file {path} is not valid TOML: {exc}")
    for key in ("kind", "game"):
        if key not in spec:
            raise SheepsimError(f"analysis file {path} has no `{key}`; kinds: {', '.join(KINDS)}")
    if spec["kind"] not in KINDS:
        raise SheepsimError(f"unknown analysis kind {spec['kind']!r}; valid kinds: {', '.join(KINDS)}")
    spec.setdefault("name", Path(path).stem)
    spec.setdefault("seed", 0)
    return spec


def run_file(path: Path, reports: Path, scale: float = 1.0, threads: int | None = None,
             progress: bool = True) -> Path:
    spec = load(path)
    from . import seat_advantage, sweep, variants
    kinds = {"seat_advantage": seat_advantage, "policy_sweep": sweep, "rule_variants": variants}
    module = kinds[spec["kind"]]
    unknown = set(spec) - COMMON - set(module.KEYS)
    if unknown:
        raise SheepsimError(f"unknown key {sorted(unknown)[0]!r} in {path}; valid keys: "
                            f"{', '.join(sorted(COMMON | set(module.KEYS)))}")
    plan = module.plan(spec, scale)            # validates every cell before anything runs
    try:
        reports.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SheepsimError(f"cannot create reports folder {reports}: {exc.strerror}")
    return module.run(spec, plan, reports, threads, progress)
