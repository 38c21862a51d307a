"""Policy registry: built-in and user policies register the same way.

    @register_policy("battlesheep", "mine", params={"aggression": (0.5, "how often to ...", 0.0, 1.0)})
    @njit
    def mine(s, rules, seat, params, rng, buf):
        ...
        return kind, a, b, c

A policy is an @njit function with its game's fixed signature (see the game's
policies.py). Parameters travel in a float64 vector, in the declared order, so
sweeping `mine:aggression=0.2` ... `0.8` never recompiles. Built-in policies carry a
small integer id that the game's cached chunk kernel dispatches on (fast start); user
policies get ids from USER_ID_BASE and run through a kernel compiled once per process.
A SPEC is `name` or `name:key=value,key=value`.

A policy may also take data files (`files`, e.g. learned's `table`): a SPEC gives a
path (`learned:table=my.json`), which travels in PolicySpec.files, not in the float
vector; the game's policy_data reads and checks it and puts what the kernel needs in
aux. The path is part of the label, so results name the file they were played with.

A parameter is declared as (default, help), (default, help, low) or (default, help, low,
high): low and high are inclusive bounds (None for no bound), and a SPEC value outside them is rejected
with a one-line error naming the allowed range. Parameters named in `integers` (a count,
a threshold of cards) take whole numbers only: a SPEC value with a fraction is rejected
rather than rounded silently by the policy's comparisons.

User policies register for a game that exists, under a name of their own: a typo in the
game, or a built-in's name, is an error at import, not a policy nobody can select.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable

import numpy as np

from .errors import SheepsimError

USER_ID_BASE = 100
MAX_PARAMS = 8


@dataclass(frozen=True)
class PolicyDef:
    game: str
    name: str
    id: int
    fn: Callable
    doc: str
    params: dict[str, tuple[float, str]] = field(default_factory=dict)
    # parameter name -> (low, high), inclusive, None for no bound; only declared ones
    bounds: dict[str, tuple[float | None, float | None]] = field(default_factory=dict)
    integers: frozenset[str] = frozenset()      # parameters that take whole numbers only
    # parameter name -> the names of its values, value i named choices[key][i] (a SPEC
    # gives the name: mcts:rollout=greedy)
    choices: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # why this game cannot run the policy (parse_spec refuses it with this text), or ""
    refuse: str = ""
    # data-file parameter name -> help (the SPEC gives a path; policy_data reads it)
    files: dict[str, str] = field(default_factory=dict)
    # values -> what is wrong with them together, or "" (a rule no per-parameter range says)
    check: Callable[[dict[str, float]], str] | None = None
    # the kernels a built-in runs in: "" the game's own (games/kernels.py), another kind
    # those registered for it there ("search": the search agents, search/wiring.py)
    kind: str = ""

    @property
    def builtin(self) -> bool:
        return self.id < USER_ID_BASE

    def allowed(self, key: str) -> str:
        """The allowed values of parameter `key`, as text ("any number" if unbounded)."""
        if key in self.choices:
            return "one of " + ", ".join(self.choices[key])
        text = _range_text(*self.bounds.get(key, (None, None)))
        if key in self.integers:
            return "any integer" if text == "any number" else f"integer {text}"
        return text

    def value_text(self, key: str, value: float) -> str:
        """A parameter value as a SPEC writes it: its name for a choice, else the number."""
        return self.choices[key][int(value)] if key in self.choices else _fmt(value)

    def in_range(self, key: str, value: float) -> bool:
        low, high = self.bounds.get(key, (None, None))
        # written so that NaN fails any declared bound
        return (low is None or value >= low) and (high is None or value <= high)


@dataclass(frozen=True)
class PolicySpec:
    """A policy with its parameter values; `label` is the canonical SPEC text."""

    policy: PolicyDef
    values: tuple[float, ...]
    files: tuple[tuple[str, str], ...] = ()     # (file parameter, path) given in the SPEC
    # parameters the label names even at their default: those in which this spec differs
    # from another spec of the same policy in one run (seat_specs), so `hold:t=20` beside
    # `hold:t=25` does not read as a bare `hold`; not part of the spec's identity
    shown: tuple[str, ...] = field(default=(), compare=False)

    def file(self, key: str) -> str | None:
        """The path the SPEC gave for file parameter `key`, None if it gave none."""
        return dict(self.files).get(key)

    @property
    def label(self) -> str:
        changed = [f"{k}={self.policy.value_text(k, v)}"
                   for (k, (d, _)), v in zip(self.policy.params.items(), self.values) if v != d or k in self.shown]
        changed += [f"{k}={path}" for k, path in self.files]
        return self.policy.name + (":" + ",".join(changed) if changed else "")

    def vector(self) -> np.ndarray:
        out = np.zeros(MAX_PARAMS)
        out[:len(self.values)] = self.values
        return out

    def data(self) -> tuple:
        """The spec as plain data, naming no function: what a run sends to its workers,
        which rebuild it with `spec_from_data` (a registry lookup, no text parsed)."""
        return (self.policy.game, self.policy.name, self.values, self.files, self.shown)


def spec_from_data(data: tuple) -> PolicySpec:
    """The PolicySpec that PolicySpec.data() described (its policy registered here too)."""
    game, name, values, files, shown = data
    return PolicySpec(get_policy(game, name), tuple(values), tuple(files), tuple(shown))


def _fmt(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else repr(float(v))


def _range_text(low: float | None, high: float | None) -> str:
    if low is not None and high is not None:
        return f"{_fmt(low)}..{_fmt(high)}"
    if low is not None:
        return f">= {_fmt(low)}"
    if high is not None:
        return f"<= {_fmt(high)}"
    return "any number"


_REGISTRY: dict[tuple[str, str], PolicyDef] = {}


ParamDecl = tuple[float, str] | tuple[float, str, float | None] | tuple[float, str, float | None, float | None]


def _split_params(name: str, params: dict[str, ParamDecl]):
    """(default, help) per parameter, and the declared (low, high) bounds."""
    plain: dict[str, tuple[float, str]] = {}
    bounds: dict[str, tuple[float | None, float | None]] = {}
    for key, decl in params.items():
        if not isinstance(decl, (tuple, list)) or not 2 <= len(decl) <= 4:
            raise SheepsimError(f"policy {name} parameter {key}: declare (default, help), (default, help, low) "
                                f"or (default, help, low, high), not {decl!r}")
        default, text = float(decl[0]), decl[1]
        plain[key] = (default, text)
        low, high = (list(decl[2:]) + [None, None])[:2]
        if low is not None or high is not None:
            low = None if low is None else float(low)
            high = None if high is None else float(high)
            bounds[key] = (low, high)
            if not ((low is None or default >= low) and (high is None or default <= high)):
                raise SheepsimError(f"policy {name} parameter {key}: default {_fmt(default)} is outside "
                                    f"its own range {_range_text(low, high)}")
    return plain, bounds


def register_policy(game: str, name: str, params: dict[str, ParamDecl] | None = None,
                    doc: str | None = None, policy_id: int | None = None, integers: tuple[str, ...] = (),
                    choices: dict[str, tuple[str, ...]] | None = None, refuse: str = "",
                    files: dict[str, str] | None = None,
                    check: Callable[[dict[str, float]], str] | None = None, kind: str = ""):
    """Decorator registering an @njit policy for `game` under `name`.

    `params` maps each parameter name to (default, help), (default, help, low) or
    (default, help, low, high) (inclusive bounds, None for no bound); `integers` names the
    parameters that take whole numbers only; `choices` names the values of a parameter
    that takes one of a few named values (its default the index of one); `files` maps
    each data-file parameter to its help; `check(values)` returns what is wrong with the
    parameter values (by name) beyond their ranges, or "". Leave `policy_id` unset: it is reserved for
    built-ins compiled into the game's dispatcher, or into the kernels of `kind`.
    """
    params, bounds = _split_params(name, dict(params or {}))
    if len(params) > MAX_PARAMS:
        raise SheepsimError(f"a policy takes at most {MAX_PARAMS} parameters")
    unknown = sorted(set(integers) - set(params))
    if unknown:
        raise SheepsimError(f"policy {name}: integers names {unknown[0]!r}, which is not one of its parameters")
    for key in integers:
        if not float(params[key][0]).is_integer():
            raise SheepsimError(f"policy {name} parameter {key}: an integer parameter needs a whole default")
    if policy_id is None:           # a user policy: the built-ins are registered by now
        _check_user_name(game, name)

    def decorate(fn):
        user_ids = [p.id for p in _REGISTRY.values() if p.game == game and not p.builtin]
        pid = policy_id if policy_id is not None else max(user_ids, default=USER_ID_BASE - 1) + 1
        text = doc if doc is not None else " ".join((getattr(fn, "__doc__", None) or "").split())
        _REGISTRY[(game, name)] = PolicyDef(game, name, pid, fn, text, params, bounds, frozenset(integers),
                                            dict(choices or {}), refuse, dict(files or {}), check, kind)
        return fn
    return decorate


def _check_user_name(game: str, name: str) -> None:
    from .games import all_games
    games = all_games()             # importing the games registers every built-in policy
    if game not in games:
        raise SheepsimError(f"register_policy: unknown game {game!r}; valid games: {', '.join(games)}")
    taken = _REGISTRY.get((game, name))
    if taken is not None and taken.builtin:
        raise SheepsimError(f"register_policy: {game} already has a built-in policy {name!r}; give yours another "
                            f"name (built-ins: {', '.join(p.name for p in policies_for(game) if p.builtin)})")


def policies_for(game: str) -> list[PolicyDef]:
    from .games import get_game
    get_game(game)          # importing the game registers its built-in policies
    return sorted((p for p in _REGISTRY.values() if p.game == game), key=lambda p: p.id)


def get_policy(game: str, name: str) -> PolicyDef:
    policies_for(game)
    try:
        return _REGISTRY[(game, name)]
    except KeyError:
        names = ", ".join(p.name for p in policies_for(game) if not p.refuse)
        raise SheepsimError(f"unknown {game} policy {name!r}; valid policies: {names}")


def parse_spec(game: str, spec: str) -> PolicySpec:
    """`name` or `name:key=value,...` -> PolicySpec (errors list what is valid)."""
    name, _, rest = spec.strip().partition(":")
    policy = get_policy(game, name.strip())
    if policy.refuse:
        raise SheepsimError(policy.refuse)
    values = {k: d for k, (d, _) in policy.params.items()}
    files: dict[str, str] = {}
    given: set[str] = set()
    for item in filter(None, (x.strip() for x in rest.split(","))):
        key, sep, text = item.partition("=")
        key = key.strip()
        if key in given:            # "last wins" would hide a typo in a long SPEC
            raise SheepsimError(f"policy {policy.name} parameter {key} is given twice in {spec.strip()!r}; "
                                f"give each parameter once")
        given.add(key)
        if not sep and (key in values or key in policy.files):
            raise SheepsimError(f"policy {policy.name} parameter {key} needs a value ({key}=VALUE; allowed: "
                                f"{'a file path' if key in policy.files else policy.allowed(key)})")
        if sep and key in policy.files:
            if not text.strip():
                raise SheepsimError(f"policy {policy.name} parameter {key} needs a file path ({key}=PATH)")
            files[key] = text.strip()
            continue
        if not sep or key not in values:
            valid = ", ".join([*policy.params, *policy.files]) or "none"
            raise SheepsimError(f"policy {policy.name} has no parameter {item!r}; its parameters: {valid} "
                                f"(SPEC is name or name:key=value,key=value)")
        if key in policy.choices:
            names = policy.choices[key]
            if text.strip() not in names:
                raise SheepsimError(f"policy {policy.name} parameter {key}={text.strip()!r} is not one of its "
                                    f"values; allowed: {', '.join(names)}")
            values[key] = float(names.index(text.strip()))
            continue
        try:
            values[key] = float(text)
        except ValueError:
            raise SheepsimError(f"policy parameter {key}={text!r} is not a number")
        if not policy.in_range(key, values[key]):
            raise SheepsimError(f"policy {policy.name} parameter {key}={text.strip()} is out of range; "
                                f"allowed: {policy.allowed(key)}")
        if key in policy.integers and not values[key].is_integer():
            raise SheepsimError(f"policy {policy.name} parameter {key}={text.strip()} must be a whole number; "
                                f"allowed: {policy.allowed(key)}")
    problem = policy.check(values) if policy.check is not None else ""
    if problem:
        raise SheepsimError(f"policy {policy.name}: {problem}")
    return PolicySpec(policy, tuple(values.values()), tuple(files.items()))


def seat_specs(game: str, specs: list[str | PolicySpec] | tuple[str | PolicySpec, ...],
               num_players: int) -> list[PolicySpec]:
    """One SPEC per seat slot, or one SPEC for every seat; none: the game's first
    registered policy (`random`, or `adult` for Bobby Sitter's player models). A SPEC
    is text, or a PolicySpec parsed already (the command line's --policy)."""
    if not specs:
        registered = policies_for(game)
        specs = [registered[0].name if registered else "random"]
    if len(specs) == 1:
        specs = list(specs) * num_players
    if len(specs) != num_players:
        raise SheepsimError(f"give one --policy for all seats or one per seat ({num_players}), not {len(specs)}")
    return distinct_labels([s if isinstance(s, PolicySpec) else parse_spec(game, s) for s in specs])


def distinct_labels(specs: list[PolicySpec]) -> list[PolicySpec]:
    """`specs` with every parameter in which two specs of one policy differ shown in
    both labels, defaults included (`hold:t=20` and `hold:t=25`, not `hold` and
    `hold:t=25`). Labels of a policy that appears once, or with one setting, stay short."""
    differ: dict[str, set[str]] = {}
    for s in specs:
        for t in specs:
            if s.policy.name == t.policy.name:
                differ.setdefault(s.policy.name, set()).update(
                    k for k, a, b in zip(s.policy.params, s.values, t.values) if a != b)
    return [replace(s, shown=tuple(sorted(differ[s.policy.name]))) if differ[s.policy.name] else s for s in specs]


def load_plugin(path):
    """Import a user's Python file so that its @register_policy decorators (and
    register_game calls) run; returns the module."""
    import importlib.util
    import sys
    from pathlib import Path

    path = Path(path)
    if not path.is_file():
        raise SheepsimError(f"plugin {path} does not exist (give the path of a .py file)")
    name = f"sheepsim_plugin_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise SheepsimError(f"plugin {path} is not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException as exc:
        del sys.modules[name]     # a failed import must not look loaded to a later attempt
        if isinstance(exc, SheepsimError):
            raise
        if not isinstance(exc, Exception):
            raise
        # the user's code: report it in one line
        raise SheepsimError(f"plugin {path} failed to import: {type(exc).__name__}: {exc}")
    return module


def describe(policy: PolicyDef) -> dict[str, Any]:
    return {"name": policy.name, "builtin": policy.builtin, "doc": policy.doc,
            "params": {k: {"default": d, "help": h, **_bounds_json(policy, k)} for k, (d, h) in policy.params.items()},
            **({"files": dict(policy.files)} if policy.files else {})}


def _bounds_json(policy: PolicyDef, key: str) -> dict[str, Any]:
    if key in policy.choices:
        return {"choices": list(policy.choices[key])}
    low, high = policy.bounds.get(key, (None, None))
    return {name: v for name, v in (("low", low), ("high", high)) if v is not None}
