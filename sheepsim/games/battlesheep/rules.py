"""Battle Sheep rule options (defaults and alternatives: READINGS.md in this folder).

Every option is shown by `sheepsim rules battlesheep` with its default and allowed
values; `to_array()` packs them for the kernels in the order of the R_* constants.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import SheepsimError
from ...options import Option, Rules, make_rules, pack
from .presets import PRESETS

GAME = "battlesheep"
PLAYERS = (2, 4)

OPTIONS: tuple[Option, ...] = (
    Option("tiles_per_player", 4, "pasture tiles (2x2 rhombus of 4 hexes) each player adds while building", low=1, high=6),
    Option("stack_size", 16, "sheep in each player's starting stack", low=2, high=32),
    Option("start_zone", "outer_perimeter",
           "where starting stacks may go: hexes touching the unbounded outside (the rules' reading: holes "
           "are not an edge), or any hex with a missing neighbour (as some programs count it)",
           choices=("outer_perimeter", "any_edge")),
    Option("no_move", "skip",
           "a player who cannot move: is skipped until nobody can move (rulebook), ends the game at once, "
           "or loses at once (original Splits, 2 players only)",
           choices=("skip", "game_ends_now", "player_loses")),
    Option("final_tie", "shared",
           "still tied after the largest-herd tie-break (the rules do not say): shared result (draw, as a "
           "published solver does), or compare second-largest herds first (no source)",
           choices=("shared", "second_largest_herd")),
    Option("placement_order", "clockwise_from_first",
           "order of placing starting stacks: seat 0 first, as for the tiles (online rules), or last seat "
           "first (no source)",
           choices=("clockwise_from_first", "reverse")),
    Option("board", "built",
           "pasture: built by the seat policies (rulebook), a uniformly random legal build independent of "
           "the policies, or a named preset",
           choices=("built", "random") + tuple(f"preset:{name}" for name in PRESETS)),
)

# Slots of the packed rules vector (slot 0 is the player count).
R_PLAYERS, R_TILES, R_STACK, R_START_ZONE, R_NO_MOVE, R_FINAL_TIE, R_PLACEMENT, R_BOARD = range(8)
START_OUTER, START_ANY = 0, 1
NO_MOVE_SKIP, NO_MOVE_ENDS, NO_MOVE_LOSES = 0, 1, 2
TIE_SHARED, TIE_SECOND_HERD = 0, 1
PLACE_CLOCKWISE, PLACE_REVERSE = 0, 1
BOARD_BUILT, BOARD_RANDOM = 0, 1   # >= 2: a preset, given to the kernel as the start state


def _check(rules: Rules) -> None:
    if rules["no_move"] == "player_loses" and rules.num_players != 2:
        raise SheepsimError("option no_move=player_loses is the 2-player Splits rule; valid with 2 players only "
                            "(choices for more players: skip | game_ends_now)")
    board = rules["board"]
    if board.startswith("preset:"):
        name = board.split(":", 1)[1]
        tiles = len(PRESETS[name])
        wanted = rules.num_players * rules["tiles_per_player"]
        if tiles != wanted:
            fitting = [f"preset:{n}" for n, t in PRESETS.items() if len(t) == wanted]
            raise SheepsimError(
                f"board={board} has {tiles} tiles but {rules.num_players} players x tiles_per_player="
                f"{rules['tiles_per_player']} need {wanted}; presets that fit: {', '.join(fitting) or 'none'}"
            )


def make(num_players: int, overrides: dict[str, Any] | None = None) -> Rules:
    """Validated Battle Sheep rules (raises SheepsimError naming the valid choices)."""
    return make_rules(GAME, OPTIONS, PLAYERS, num_players, overrides, _check)


def to_array(rules: Rules) -> np.ndarray:
    return pack(rules, OPTIONS)
