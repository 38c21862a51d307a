"""Game registry: `get_game(name)` fails with the list of valid names."""

from __future__ import annotations

from ..errors import SheepsimError
from .base import GameSpec

_ALIASES = {"battle-sheep": "battlesheep", "bye-bye-black-sheep": "blacksheep", "black-sheep": "blacksheep",
            "bobby-sitter": "bobbysitter", "bobby": "bobbysitter"}


def _load() -> dict[str, GameSpec]:
    from .battlesheep.game import GAME as battlesheep
    from .bobbysitter.game import GAME as bobbysitter
    from .blacksheep.game import GAME as blacksheep
    from .hiboufou.game import GAME as hiboufou
    from .pig.game import GAME as pig
    return {g.name: g for g in (battlesheep, blacksheep, hiboufou, bobbysitter, pig)}


def all_games() -> dict[str, GameSpec]:
    return _load()


def get_game(name: str) -> GameSpec:
    games = _load()
    key = _ALIASES.get(name.strip().lower(), name.strip().lower())
    if key not in games:
        raise SheepsimError(f"unknown game {name!r}; valid games: {', '.join(games)}")
    return games[key]


def kernel_modules(name: str):
    """(engine, policies, play) modules of a registered game: the contract's hooks
    (driver.py) for generic tools and the conformance suite."""
    import importlib
    key = get_game(name).name
    return tuple(importlib.import_module(f"{__name__}.{key}.{part}") for part in ("engine", "policies", "play"))
