"""Deck files: a designer's own deck for a card game, in TOML or JSON (`--deck FILE`).

This module only reads the file and finds the list of cards in it; what a card is
(for Hiboufou, a set of colour names) is checked by the game's `GameSpec.read_deck`.
Accepted shapes, by file extension:

    deck.toml   cards = [["red", "orange"], ["red", "yellow"], ...]
    deck.json   [["red", "orange"], ["red", "yellow"], ...]
                or {"cards": [["red", "orange"], ...]}

Optional `name` and `description` strings document the deck. Any other key is an
error, so that a misspelt `cards` cannot pass unnoticed.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from ..errors import SheepsimError

DOC_KEYS = ("name", "description")
FORMATS = (".toml", ".json")


def read_cards(path: str | Path) -> list:
    """The list of cards in a deck file (cards unchecked); SheepsimError naming the
    file, and the line where the parser gives one, for anything else."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise SheepsimError(f"deck file {path} must end in .toml (cards = [[...], ...]) or .json (a list of cards)")
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SheepsimError(f"cannot read deck file {path}: {exc.strerror or exc}")
    except UnicodeDecodeError:
        raise SheepsimError(f"cannot read deck file {path}: it is not UTF-8 text")
    if suffix == ".toml":
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            # the message ends with "(at line L, column C)"
            raise SheepsimError(f"deck file {path} is not valid TOML: {exc}")
    else:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise SheepsimError(f"deck file {path} is not valid JSON: {exc.msg} at line {exc.lineno} "
                                f"column {exc.colno}")
    if isinstance(data, dict):
        unknown = sorted(set(data) - {"cards", *DOC_KEYS})
        if unknown:
            raise SheepsimError(f"deck file {path}: unknown key {unknown[0]!r}; a deck file holds `cards` "
                                f"(and optionally {', '.join(DOC_KEYS)})")
        if "cards" not in data:
            raise SheepsimError(f'deck file {path} has no cards: write cards = [["red", "orange"], ...]')
        data = data["cards"]
    if not isinstance(data, list):
        raise SheepsimError(f"deck file {path}: the cards must be a list, got {type(data).__name__}")
    return data
