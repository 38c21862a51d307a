"""Pig rule options (Neller & Presser, "Optimal Play of the Dice Game Pig", 2004).

Pig is sheepsim's calibration game: its hold-at-20 first-player win probability is
published, so it checks the stop-threshold machinery against a known answer.
Every option is shown by `sheepsim rules pig` with its default and allowed values;
`to_array()` packs them for the kernels in the order of the R_* constants.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...options import Option, Rules, make_rules, pack

GAME = "pig"
PLAYERS = (2, 2)

OPTIONS: tuple[Option, ...] = (
    Option("goal", 100, "banked score that wins: the first player to hold with score + turn total >= goal wins "
                        "at once (Neller & Presser: 100)", low=10, high=1000),
    Option("turn_cap", 10_000, "safety cap on completed turns; a game still running after it is a draw "
                               "(winner -1, capped)", low=1, high=1_000_000),
)

# Slots of the packed rules vector (slot 0 is the player count).
R_PLAYERS, R_GOAL, R_TURN_CAP = range(3)


def make(num_players: int, overrides: dict[str, Any] | None = None) -> Rules:
    """Validated Pig rules (raises SheepsimError naming the allowed range)."""
    return make_rules(GAME, OPTIONS, PLAYERS, num_players, overrides)


def to_array(rules: Rules) -> np.ndarray:
    return pack(rules, OPTIONS)
