"""Game registry: `get_game(name)` fails with the list of valid names.

The built-in games are imported only when asked for, so a run loads (and its report's
record lists: analysis/inputs.py) only its own game. Games from outside the package
register with `register_game`: from a file given to `--plugin`, or from an installed
package that names a GameSpec (or a module holding GAME) in the `sheepsim.games`
entry point group of its pyproject.toml:

    [project.entry-points."sheepsim.games"]
    tictactoe = "mygames.tictactoe:GAME"
"""

from __future__ import annotations

import re
import sys

from ..errors import SheepsimError
from .base import GameSpec

_ALIASES = {"battle-sheep": "battlesheep", "bye-bye-black-sheep": "blacksheep", "black-sheep": "blacksheep",
            "bobby-sitter": "bobbysitter", "bobby": "bobbysitter"}

# the built-in games, in the order they are listed
NAMES = ("battlesheep", "blacksheep", "hiboufou", "bobbysitter", "pig")
ENTRY_POINTS = "sheepsim.games"
# plug-in games: name -> (GameSpec, where it came from)
_PLUGINS: dict[str, tuple[GameSpec, str]] = {}
_entry_points_read = False


def _load(key: str) -> GameSpec:
    import importlib
    return importlib.import_module(f"{__name__}.{key}.game").GAME


def register_game(spec: GameSpec, source: str | None = None) -> GameSpec:
    """Add a game from outside the package; returns it (GAME = register_game(...)).
    `source` says where it came from (default: the file that defines its kernels)."""
    if not isinstance(spec, GameSpec):
        raise SheepsimError(f"register_game takes a GameSpec (sheepsim.games.base), not {type(spec).__name__}")
    name = spec.name
    if not re.fullmatch(r"[a-z][a-z0-9_]*", name):
        raise SheepsimError(f"game name {name!r}: use lower-case letters, digits and _, starting with a letter")
    if name in NAMES or name in _ALIASES:
        raise SheepsimError(f"game {name!r} is built in; a plug-in game needs a name of its own")
    if source is None:
        source = getattr(sys.modules.get(spec.play.DECLARATION), "__file__", None) or "a plug-in"
    _PLUGINS[name] = (spec, str(source))
    return spec


def _read_entry_points() -> None:
    """Register the games that installed packages name in the entry point group, once."""
    global _entry_points_read
    if _entry_points_read:
        return
    _entry_points_read = True
    from importlib.metadata import entry_points
    for ep in entry_points(group=ENTRY_POINTS):
        try:
            obj = ep.load()
        except Exception as exc:        # the package's code: one line, naming it
            raise SheepsimError(f"game plug-in {ep.name} ({ep.value}) failed to import: "
                                f"{type(exc).__name__}: {exc}")
        # a module that registered its game on import is named by its entry point
        register_game(getattr(obj, "GAME", obj), f"entry point {ep.name} = {ep.value}")


def plugin_names() -> tuple[str, ...]:
    _read_entry_points()
    return tuple(_PLUGINS)


def source(name: str) -> str:
    """Where game `name` comes from: "built-in", or its plug-in's file or entry point."""
    key = get_game(name).name
    return "built-in" if key in NAMES else _PLUGINS[key][1]


def all_games() -> dict[str, GameSpec]:
    games = {key: _load(key) for key in NAMES}
    games.update({key: _PLUGINS[key][0] for key in plugin_names()})
    return games


def get_game(name: str) -> GameSpec:
    key = _ALIASES.get(name.strip().lower(), name.strip().lower())
    if key in NAMES:
        return _load(key)
    if key not in _PLUGINS:
        _read_entry_points()
    if key not in _PLUGINS:
        raise SheepsimError(f"unknown game {name!r}; valid games: {', '.join(NAMES + tuple(_PLUGINS))}")
    return _PLUGINS[key][0]
