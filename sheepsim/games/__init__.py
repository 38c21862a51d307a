"""Game registry: `get_game(name)` fails with the list of valid names."""

from __future__ import annotations

from ..errors import SheepsimError
from .base import GameSpec

_ALIASES = {"battle-sheep": "battlesheep", "bye-bye-black-sheep": "blacksheep", "black-sheep": "blacksheep",
            "bobby-sitter": "bobbysitter", "bobby": "bobbysitter"}


# the built-in games, in the order they are listed; each is imported only when asked for,
# so a run loads (and its report's record lists: analysis/inputs.py) only its own game
NAMES = ("battlesheep", "blacksheep", "hiboufou", "bobbysitter", "pig")


def _load(key: str) -> GameSpec:
    import importlib
    return importlib.import_module(f"{__name__}.{key}.game").GAME


def all_games() -> dict[str, GameSpec]:
    return {key: _load(key) for key in NAMES}


def get_game(name: str) -> GameSpec:
    key = _ALIASES.get(name.strip().lower(), name.strip().lower())
    if key not in NAMES:
        raise SheepsimError(f"unknown game {name!r}; valid games: {', '.join(NAMES)}")
    return _load(key)


def kernel_modules(name: str):
    """(engine, policies, kernels) modules of a registered game: the contract's hooks
    (driver.py) and its cached kernels (kernels.py) for generic tools and the
    conformance suite."""
    import importlib
    spec = get_game(name)
    return tuple(importlib.import_module(f"{__name__}.{spec.name}.{part}") for part in ("engine", "policies")) + (
        spec.play,)
