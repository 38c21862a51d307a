"""`sheepsim run FILE.toml`: load an analysis definition, run it, write its report.

An analysis file names its `kind` (the analysis type), its game, seed and game counts,
and its cells; every key is validated before any game is played, so a typo fails in
one line instead of after an hour. Reports go to REPORTS/<name>.md with figures in
REPORTS/<name>/.
"""

from __future__ import annotations

import importlib
import os
import re
import shutil
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from ..errors import SheepsimError
from ..fileio import all_or_nothing

if TYPE_CHECKING:
    from ..report.markdown import Report

# each kind and the module under sheepsim/analysis/ that plans and runs it
MODULES = {"seat_advantage": "seat_advantage", "policy_sweep": "sweep", "rule_variants": "variants", "grid": "grid",
           "skill_ladder": "ladder", "ratings": "ratings", "learn_stop": "learn_stop", "tune": "tune",
           "converge": "converge"}
KINDS = tuple(MODULES)


@runtime_checkable
class Kind(Protocol):
    """What every analysis kind's module gives (MODULES names them), the one protocol
    `run_file` drives: the keys its analysis file may hold beside COMMON; `plan`, which
    reads the file at a scale and checks every cell before any game is played (one
    SheepsimError for a bad one); `run`, which plays the plan and returns what it found
    as data (its kind's data class in report/layouts/: tables, numbers, the per-game
    results a figure draws), writing nothing but what it keeps beside the report (a
    learned table, a tuning study, in REPORTS/<name>/) and the runs it resumes
    (runs_folder); and `layout`, its kind's function in report/layouts/, which lays that
    data out as the report, its figures drawn into FIGURES (REPORTS/<name>/). `command`
    is the command that regenerates the report, for its provenance. The run computes
    and the layout words it: how a report reads changes in report/ alone, and report/
    never imports this package."""

    KEYS: tuple[str, ...]

    def plan(self, spec: dict[str, Any], scale: float) -> Any: ...

    def run(self, spec: dict[str, Any], plan: Any, reports: Path, threads: int | None, progress: bool,
            command: str = "") -> Any: ...

    def layout(self, spec: dict[str, Any], data: Any, figures: Path, command: str) -> Report: ...


def kind_module(kind: str) -> Kind:
    """The module of analysis kind `kind`, imported only now: a report's record lists the
    sources its run loaded (analysis/inputs.py)."""
    return importlib.import_module(f".{MODULES[kind]}", __package__)
COMMON = {"name", "title", "kind", "game", "seed", "description", "scale"}
MAX_SCALE = 1000
# names a report cannot take: REPORTS/<name>/ would be another tool's folder
RESERVED = {"site": "the report site (sheepsim report)",
            "quick-look": "the quick looks (sheepsim run --scale below the file's own)"}


def _toml_problem(path: Path, exc: Exception) -> str:
    """'line N, key K: what is wrong' for a TOML error (tomllib gives only a position)."""
    import re
    message = str(exc)
    lines = path.read_text().splitlines()
    at = re.search(r" \(at line (\d+), column \d+\)$", message)
    if at:
        number = int(at.group(1))
    else:          # "(at end of document)": the last statement
        number = max((i + 1 for i, line in enumerate(lines) if line.strip() and not line.lstrip().startswith("#")),
                     default=1)
    message = re.sub(r" \(at (line \d+, column \d+|end of document)\)$", "", message)
    key = None
    # the key/value or table the broken line belongs to: a value may span lines (arrays)
    for i in range(min(number, len(lines)) - 1, -1, -1):
        found = re.match(r"\s*(\[+[^\]]*\]*|[A-Za-z0-9_\-.\"' ]+?)\s*=", lines[i]) or \
            re.match(r"\s*(\[+[^\]]*\]*)\s*$", lines[i])
        if found:
            key = found.group(1).strip()
            break
        if i == number - 1 and re.match(r"\s*[A-Za-z0-9_\-]+", lines[i]):
            key = re.match(r"\s*([A-Za-z0-9_\-]+)", lines[i]).group(1)
            break
    return f"line {number}{f', key {key!r}' if key else ''}: {message}"


def read_toml(path: Path, what: str = "analysis file") -> dict[str, Any]:
    """The TOML file's table, or one SheepsimError naming the file and the problem."""
    try:
        return tomllib.loads(Path(path).read_text())
    except OSError as exc:
        raise SheepsimError(f"cannot read {what} {path}: {exc.strerror}")
    except UnicodeDecodeError:
        raise SheepsimError(f"{what} {path} is not UTF-8 text (a TOML file is)")
    except tomllib.TOMLDecodeError as exc:
        raise SheepsimError(f"{what} {path} is not valid TOML: {_toml_problem(Path(path), exc)}")


def load(path: Path) -> dict[str, Any]:
    spec = read_toml(path)
    for key in ("kind", "game"):
        if key not in spec:
            raise SheepsimError(f"analysis file {path} has no `{key}`; kinds: {', '.join(KINDS)}")
    if spec["kind"] not in KINDS:
        raise SheepsimError(f"unknown analysis kind {spec['kind']!r}; valid kinds: {', '.join(KINDS)}")
    spec.setdefault("name", Path(path).stem)
    spec.setdefault("seed", 0)
    for key, (fits, what) in SHAPES.items():
        if key in spec and not fits(spec[key]):
            raise SheepsimError(f"analysis file {path}: `{key}` must be {what}, not {spec[key]!r}")
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", spec["name"]) or ".." in spec["name"]:
        raise SheepsimError(f"analysis file {path}: `name` {spec['name']!r} must be a plain file name (letters, "
                            f"digits, - _ .): the report is written as REPORTS/<name>.md, inside --reports")
    if spec["name"] in RESERVED:
        raise SheepsimError(f"analysis file {path}: `name` {spec['name']!r} is taken by "
                            f"{RESERVED[spec['name']]} in the reports folder; choose another name")
    return spec


COUNTS = ("games", "confirm_games", "against_games", "eval_games", "strength_games", "outside_games")    # games per run, scaled


def count_problem(spec: dict[str, Any], scale: float) -> str:
    """The first game count of the file that, times --scale, is more than a run holds
    (analyses keep per-game rows), in words, or "": refused before any game is played,
    not at the run that meets it."""
    from ..runner import MAX_ROWS
    for key in COUNTS:
        value = spec.get(key)
        for count in (value.values() if isinstance(value, dict) else [value]):
            if _whole(count) and round(count * scale) > MAX_ROWS:
                times = f" x --scale {scale:g}" if scale != 1 else ""
                return (f"`{key}` {count:,}{times} is more than a run holds: at most {MAX_ROWS:,} games per run "
                        f"(each game's row is kept in memory)")
    return ""


def player_counts(spec: dict[str, Any], game) -> list[int]:
    """`players` of a kind that takes several counts: one count or a list (default: the
    game's smallest)."""
    players = spec.get("players", [game.players[0]])
    return [players] if _whole(players) else list(players)


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _list_of(fits):
    return lambda value: isinstance(value, list) and all(fits(v) for v in value)


# the shapes of keys several kinds share, checked before a kind reads them (a string
# where a list belongs would otherwise be read letter by letter)
SHAPES = {
    "game": (lambda v: isinstance(v, str), 'a game\'s name from `sheepsim games`, e.g. "pig"'),
    "name": (lambda v: isinstance(v, str), "a string"),
    "title": (lambda v: isinstance(v, str), "a string"),
    "description": (lambda v: isinstance(v, str), "a string"),
    "seed": (lambda v: _whole(v) and v >= 0, "a whole number >= 0"),
    # the scale the committed report is made at: `sheepsim run` and `make reports` use it
    "scale": (lambda v: _number(v) and 0 < v <= MAX_SCALE, f"a number above 0 and at most {MAX_SCALE}"),
    # seat_advantage also takes a table of counts by policy name (or `default`)
    "games": (lambda v: (_whole(v) and v > 0) or (isinstance(v, dict) and v != {} and
                                                   all(_whole(n) and n > 0 for n in v.values())),
              "a positive whole number of games, or a table of them by policy, e.g. {random = 100000}"),
    "confirm_games": (lambda v: _whole(v) and v > 0, "a positive whole number of games"),
    "outside_games": (lambda v: _whole(v) and v > 0, "a positive whole number of games"),
    "players": (lambda v: _whole(v) or (_list_of(_whole)(v) and v != []),
                "a player count or a list of them, e.g. [2, 3, 4]"),
    "values": (lambda v: _list_of(_number)(v) and v != [], "a list of numbers, e.g. [10, 20]"),
    "field_values": (lambda v: _list_of(_number)(v) and v != [], "a list of numbers, e.g. [10, 20]"),
    "policies": (lambda v: _list_of(lambda x: isinstance(x, str))(v) and v != [],
                 'a list of policy SPECs, e.g. ["random", "greedy"]'),
    "options": (lambda v: isinstance(v, dict), 'a table of rule options, e.g. {wolf = "on"}'),
}


def run_file(path: Path, reports: Path, scale: float | None = None, threads: int | None = None,
             progress: bool = True, only_changed: bool = False, force: bool = False,
             say=lambda line: None) -> Path:
    """Run the analysis in PATH at `scale` (default: the file's own `scale`) and write its
    report into REPORTS, with REPORTS/<name>/inputs.json recording what it was made from.

    only_changed: keep a report whose record matches (analysis/inputs.py) instead of
    remaking it. A report made at a larger scale than this run's is never replaced
    unless `force`: a quick look must not overwrite an hour of games. `say` hears one
    line: kept, or remade and why."""
    spec = load(path)
    from . import inputs
    scale = file_scale(spec) if scale is None else scale
    report = reports / f"{spec['name']}.md"
    why = inputs.stale(report, spec, scale)
    if only_changed and why is None:
        say(f"kept {report}: made at --scale {scale:g} from this analysis file and unchanged sources")
        return report
    module = kind_module(spec["kind"])
    unknown = set(spec) - COMMON - set(module.KEYS)
    if unknown:
        raise SheepsimError(f"unknown key {sorted(unknown)[0]!r} in {path}; valid keys: "
                            f"{', '.join(sorted(COMMON | set(module.KEYS)))}")
    made = inputs.read(report.with_suffix(""))
    if not force and report.is_file() and made is not None and isinstance(made.get("scale"), (int, float)) \
            and made["scale"] > scale:
        raise SheepsimError(f"{report} was made at --scale {made['scale']:g}; this run at --scale {scale:g} would "
                            f"replace it with a smaller one: write it elsewhere (--reports DIR) or pass --force")
    problem = count_problem(spec, scale)
    if problem:
        raise SheepsimError(f"analysis file {path}: {problem}")
    plan = module.plan(spec, scale)            # validates every cell before anything runs
    try:
        reports.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SheepsimError(f"cannot create reports folder {reports}: {exc.strerror}")
    if only_changed:                           # asked to say which it did
        say(f"making {report} at --scale {scale:g}" + (f" ({why})" if why != "no report yet" else ""))
    figures = (reports / spec["name"]).absolute()      # the report links its figures relative to itself
    regenerate = command(path, scale, file_scale(spec))
    with all_or_nothing():                     # a full disk leaves no figure without its report
        figures.mkdir(parents=True, exist_ok=True)
        data = module.run(spec, plan, reports, threads, progress, regenerate)
        module.layout(spec, data, figures, regenerate).write(report)
        inputs.record(report.with_suffix(""), spec, scale)
    shutil.rmtree(runs_folder(reports, spec["name"]), ignore_errors=True)     # the report holds their games now
    return report


def runs_folder(reports: Path, name: str) -> Path:
    """Where a kind keeps the runs it resumes (analysis/converge.py): REPORTS/.runs/<name>/,
    removed once the report is written, not before, so a run stopped before its report
    (a full disk) resumes where it stopped."""
    return reports / ".runs" / name


def file_scale(spec: dict[str, Any]) -> float:
    """The scale the analysis file says its committed report is made at (default 1)."""
    return spec.get("scale", 1)


def command(path: Path, scale: float, own: float = 1) -> str:
    """The command that regenerates a report, for its provenance: the analysis file as
    found (relative to the working folder when inside it) and --scale when not the
    file's own (--threads and --reports change neither the games nor the numbers)."""
    where = Path(os.path.abspath(path))
    try:
        shown = where.relative_to(Path.cwd())
    except ValueError:
        shown = where
    return f"sheepsim run {shown.as_posix()}" + (f" --scale {scale:g}" if scale != own else "")
