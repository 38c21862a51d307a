"""Bye-Bye Black Sheep: the games a Black Sheep decided.

A game is DECIDED BY A BLACK SHEEP when a seat that did not win it drew a Black Sheep
at a moment when stopping instead would have won the game at once: taking the table
into hand and placing up to N - 2 cards (the rules' N, zoo_limit_basis) could have
completed the triplets to win. The Black Sheep took the win from that seat and the
game went to another. (A seat that busted on a winning table and won later anyway
lost a turn, not the game: not counted.)

Read off replays (wrappers.replay: the run's own decisions and chance outcomes), the
state stepped through the engine's hooks from Python, about a millisecond a game. A
Joker's stand-in for a missing card is not counted (an optional card, off by default):
with jokers on, the count is a lower bound.
"""

from __future__ import annotations

import numpy as np

from .engine import (ANIMAL, H_ACTIVE, H_DRAWS, H_NTABLE, H_SPECIES, H_TO_WIN, H_WINNER,
                     HAND, NK, TABLE, ZOO)
from .model import BLACK, DRAW_FROM
from .rules import R_ZOO_BASIS


def stop_wins(s: np.ndarray, rules_arr: np.ndarray) -> bool:
    """Would the active seat win at once by stopping now (taking the table, placing up
    to N - 2 cards)? The cheapest triplets to complete first: species sp needs 3 - zoo
    cards, and can be completed if hand and table hold that many."""
    a = int(s[H_ACTIVE])
    n = int(s[H_NTABLE]) if rules_arr[R_ZOO_BASIS] == 0 else int(s[H_DRAWS])
    limit = max(0, n - 2)
    table = np.bincount(s[TABLE:TABLE + int(s[H_NTABLE])], minlength=NK)
    have, needs = 0, []
    for sp in range(int(s[H_SPECIES])):
        kind = ANIMAL + sp
        z = int(s[ZOO + a * NK + kind])
        if z >= 3:
            have += 1
        elif s[HAND + a * NK + kind] + table[kind] >= 3 - z:
            needs.append(3 - z)
    for need in sorted(needs):
        if have >= s[H_TO_WIN] or need > limit:
            break
        have += 1
        limit -= need
    return bool(have >= s[H_TO_WIN])


def decided_by_black_sheep(play, rules_arr: np.ndarray, aux: np.ndarray, specs, rotate: bool, seed: int,
                           games) -> np.ndarray:
    """Per game of `games` (indices of the run with these settings): 1 if a Black Sheep
    decided it (module docstring), else 0."""
    from .. import driver
    from .. import wrappers as W
    out = np.zeros(len(games), dtype=np.int8)
    width = play.GAME.action_size
    for i, g in enumerate(games):
        log, _, _, rngs = W.replay(play, rules_arr, aux, specs, rotate, seed, int(g))
        s = np.zeros(play.GAME.state_size, dtype=np.int32)
        play.R_START(s, rules_arr, aux, rngs[0])
        denied = set()
        for entry in log:
            action = tuple(int(x) for x in entry[1:1 + width])
            c = int(entry[1 + width])
            if action[0] == DRAW_FROM and c == BLACK and stop_wins(s, rules_arr):
                denied.add(int(s[H_ACTIVE]))
            play.R_STEP(s, rules_arr, aux, action, c)
        out[i] = bool(denied - {int(s[H_WINNER])})
    return out
