"""Where the games of a run start: the rules, and a position or deck file, resolved once.

The CLI, the analyses and Python users call `resolve`, so a position or a deck is
read, checked against the rules and recorded the same way everywhere. The start object
is what the runner records in the manifest (`start_position`): a Battle Sheep position
(its file fixes the players and the stack size), {"deck": <the game's reading of the
deck file>}, or None for the game's own start.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from .errors import SheepsimError
from .games.base import GameSpec
from .options import Rules, parse_assignments


def resolve(game: GameSpec, players: int | None = None, options: dict[str, Any] | list[str] | tuple = (),
            position_file: Path | None = None, deck_file: Path | None = None) -> tuple[Rules, dict | None]:
    """(rules, start object) for `game`. `options` are rule options, as a dict or as
    NAME=VALUE strings. Every problem is one SheepsimError, before any game is played."""
    overrides = dict(options) if isinstance(options, dict) else parse_assignments(tuple(options))
    if deck_file is not None and position_file is not None:
        raise SheepsimError("give --deck or --from-position, not both")
    if deck_file is not None:
        return _with_deck(game, players, overrides, Path(deck_file))
    if position_file is None:
        return game.make_rules(game.players[0] if players is None else players, overrides), None
    if game.read_position is None or game.rules_for_position is None:
        from .games import all_games
        takes = ", ".join(g.name for g in all_games().values()
                          if g.read_position is not None and g.rules_for_position is not None)
        raise SheepsimError(f"{game.name} has no position format; --from-position works for: {takes}")
    position = game.read_position(position_file)
    rules = game.rules_for_position(position, overrides)
    if players is not None and players != rules.num_players:
        raise SheepsimError(f"--players {players} differs from the position's num_players {rules.num_players}")
    game.initial_state(rules, position)       # validates the position now, before any output
    return rules, position


def policy_data(game: GameSpec, rules: Rules, specs: list) -> np.ndarray:
    """The fixed data the policies `specs` read under `rules` (GameSpec.policy_data; empty
    for most), or one SheepsimError saying why they cannot play these rules. Analyses
    call it for every cell before anything is written."""
    if game.policy_data is None:
        return np.zeros(0, dtype=np.int32)
    return game.policy_data(rules, specs)


def kernel_aux(game: GameSpec, rules: Rules, start: dict | None, specs: list) -> np.ndarray:
    """What the kernels read as `aux` in a run of `specs`: the start state
    (game.initial_state), followed by the fixed data the policies read, if any (Pig's
    optimal policy: its decision table). Every other run's aux is the start state alone,
    as before the hook existed, so its results and golden hashes are unchanged."""
    init = game.initial_state(rules, start)
    data = policy_data(game, rules, specs)
    return np.concatenate([init, data]) if len(data) else init


def _with_deck(game: GameSpec, players: int | None, overrides: dict[str, Any], path: Path):
    if game.read_deck is None:
        from .games import all_games
        takes = ", ".join(g.name for g in all_games().values() if g.read_deck is not None)
        raise SheepsimError(f"{game.name} takes no deck file; --deck works for: {takes}")
    rules = game.make_rules(game.players[0] if players is None else players, overrides)
    start = {"deck": game.read_deck(path)}
    try:
        game.initial_state(rules, start)      # the deck against the player count, before any output
    except SheepsimError as exc:
        raise SheepsimError(f"deck file {path}: {exc}")
    return rules, start
