"""Rule options: declared once per game, validated, packed for kernels.

A game declares its options as a tuple of `Option`s. `Rules` holds validated values
and packs them into an int64 vector (`to_array`) whose layout is the declaration
order, after the player count in slot 0. Choice options pack as the index of the
chosen value, integer options as themselves.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .errors import SheepsimError


@dataclass(frozen=True)
class Option:
    """One rule option: a closed set of choices, or an inclusive integer range."""

    name: str
    default: Any
    help: str
    choices: tuple[str, ...] | None = None
    low: int | None = None
    high: int | None = None
    # an integer per player: one value for everyone, or a comma list (one per player in
    # --policy order, so a handicap follows its player through seat rotation)
    per_player: bool = False

    def allowed(self) -> str:
        if self.choices is not None:
            return " | ".join(self.choices)
        if self.per_player:
            return f"integer {self.low}..{self.high}, or a comma list of them, one per player"
        return f"integer {self.low}..{self.high}"

    def parse(self, value: Any) -> Any:
        """Validate a user value (string from the CLI, or a TOML/JSON value)."""
        if self.choices is not None:
            text = str(value).strip().lower()
            if text not in self.choices:
                raise SheepsimError(
                    f"option {self.name}={value!r} is not allowed; valid choices: {self.allowed()}"
                )
            return text
        if self.per_player:
            items = value if isinstance(value, (list, tuple)) else str(value).split(",")
            values = tuple(self._integer(v, value) for v in items)
            if not values:
                raise SheepsimError(f"option {self.name} is empty; allowed: {self.allowed()}")
            return values[0] if len(values) == 1 else values
        return self._integer(value, value)

    def _integer(self, value: Any, shown: Any) -> int:
        try:
            number = int(str(value).strip()) if not isinstance(value, int) else value
        except ValueError:
            raise SheepsimError(f"option {self.name}={shown!r} is not an integer; allowed: {self.allowed()}")
        if isinstance(number, bool) or not (self.low <= number <= self.high):
            raise SheepsimError(f"option {self.name}={shown!r} is out of range; allowed: {self.allowed()}")
        return number

    def encode(self, value: Any) -> int:
        """The packed value; a per-player option packs -1 here (the game appends the
        per-player values, see `per_player_values`)."""
        if self.per_player:
            return -1
        return self.choices.index(value) if self.choices is not None else int(value)


def per_player_values(rules: "Rules", name: str) -> tuple[int, ...]:
    """A per-player option's value for each player (a single value applies to all)."""
    value = rules[name]
    return value if isinstance(value, tuple) else (value,) * rules.num_players


@dataclass(frozen=True)
class Rules:
    """Validated rules of one game: the player count plus every option's value."""

    game: str
    num_players: int
    values: tuple[tuple[str, Any], ...] = field(default_factory=tuple)

    def __getitem__(self, name: str) -> Any:
        return dict(self.values)[name]

    def as_dict(self) -> dict[str, Any]:
        return {"num_players": self.num_players, **dict(self.values)}

    def to_json(self) -> str:
        return json.dumps(self.as_dict(), sort_keys=True)


def make_rules(game: str, options: tuple[Option, ...], players: tuple[int, int],
               num_players: int, overrides: dict[str, Any] | None = None,
               check=None) -> Rules:
    """Build validated `Rules`: unknown names, bad values and bad player counts all
    fail with a one-line `SheepsimError` listing what is allowed. `check(rules)` runs
    the game's cross-option validation."""
    low, high = players
    if not isinstance(num_players, int) or not (low <= num_players <= high):
        raise SheepsimError(f"{game} takes {low}-{high} players, not {num_players}")
    by_name = {o.name: o for o in options}
    overrides = dict(overrides or {})
    unknown = sorted(set(overrides) - set(by_name))
    if unknown:
        raise SheepsimError(
            f"unknown {game} option {unknown[0]!r}; valid options: {', '.join(by_name)}"
        )
    values = tuple(
        (o.name, o.parse(overrides[o.name]) if o.name in overrides else o.default) for o in options
    )
    rules = Rules(game, num_players, values)
    if check is not None:
        check(rules)
    return rules


def pack(rules: Rules, options: tuple[Option, ...]) -> np.ndarray:
    """int64 vector for kernels: [num_players, option 1, option 2, ...]."""
    by_name = {o.name: o for o in options}
    return np.array([rules.num_players] + [by_name[k].encode(v) for k, v in rules.values], dtype=np.int64)


def parse_assignments(items: tuple[str, ...] | list[str]) -> dict[str, str]:
    """`NAME=VALUE` strings (from --option) into a dict; a malformed item fails."""
    out: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise SheepsimError(f"option {item!r} must look like NAME=VALUE (see `sheepsim rules GAME`)")
        if name.strip() in out:       # "last wins" would hide a slip in a long command line
            raise SheepsimError(f"option {name.strip()} is given twice ({name.strip()}={out[name.strip()]} and "
                                f"{item.strip()}); give each option once")
        out[name.strip()] = value.strip()
    return out
