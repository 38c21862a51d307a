"""Bobby Sitter player models (this game's policies, @njit) and the dispatcher.

A player model answers one question per flip and active seat (model.py "Player
models"):

    model(cls, sheep, is_flipper, params, rng, rules) -> (grab, time_ms)

`cls` is the card's class (WOLF, SHEEP, EMPTY, HIDDEN), `sheep` the sheep it shows,
`params` the float64 parameter vector, `rng` the seat's reaction stream (uint64[4]),
`rules` the packed rules. It returns the counter grabbed (NONE, GRAB_SHEEP,
GRAB_BOBBY) and the reaction time in ms (ignored for NONE). The engine takes the
flipper bonus (option flipper_reaction_bonus_ms) off afterwards, for every model.
A model sees only the face-up card: nothing else is public at reaction time.
Constants: `from sheepsim.games.bobbysitter.model import WOLF, SHEEP, EMPTY, HIDDEN,
NONE, GRAB_SHEEP, GRAB_BOBBY`. Draw randomness only from `rng` (sheepsim.rng).
"""

import numpy as np
from numba import njit

from ...rng import next_u64
from .model import GRAB_BOBBY, GRAB_SHEEP, HIDDEN, NONE, SHEEP, WOLF

ADULT, CHILD, YOUNG_CHILD, PROFILE = 0, 1, 2, 3
LAST_BUILTIN = PROFILE
P_MEDIAN, P_SPREAD, P_FALSE_EMPTY, P_FALSE_HIDDEN, P_WRONG = range(5)
_LOW32 = np.uint64(0xFFFFFFFF)
_INV_2_32 = 1.0 / 4294967296.0
_TWO_PI = 2.0 * np.pi


@njit(cache=True)
def profile(cls, sheep, is_flipper, params, rng, rules):
    """The reaction profile of model.py: two 64-bit draws per seat and flip, whatever
    the card (common random numbers across profiles and decks). The first gives
    u_react (high 32 bits) and u_wrong (low 32 bits), the second a standard normal z
    by Box-Muller (u1 in (0, 1] from the high bits, the angle from the low bits);
    time = median_ms * exp(spread * z), a log-normal with that median."""
    x = next_u64(rng)
    y = next_u64(rng)
    if cls == WOLF or cls == SHEEP:
        right = GRAB_BOBBY if cls == WOLF else GRAB_SHEEP
        wrong = GRAB_SHEEP if cls == WOLF else GRAB_BOBBY
        u_wrong = np.float64(x & _LOW32) * _INV_2_32
        grab = wrong if u_wrong < params[P_WRONG] else right
    else:
        u_react = np.float64(x >> np.uint64(32)) * _INV_2_32
        p = params[P_FALSE_HIDDEN] if cls == HIDDEN else params[P_FALSE_EMPTY]
        if u_react >= p:
            return NONE, 0.0
        grab = GRAB_SHEEP if sheep > 0 else GRAB_BOBBY
    u1 = (np.float64(y >> np.uint64(32)) + 1.0) * _INV_2_32
    u2 = np.float64(y & _LOW32) * _INV_2_32
    z = np.sqrt(-2.0 * np.log(u1)) * np.cos(_TWO_PI * u2)
    return grab, params[P_MEDIAN] * np.exp(params[P_SPREAD] * z)


@njit(cache=True)
def choose(policy_id, cls, sheep, is_flipper, params, rng, rules):
    """Every built-in model is `profile` with its own default parameters."""
    return profile(cls, sheep, is_flipper, params, rng, rules)


@njit(cache=True)
def no_user_models(policy_id, cls, sheep, is_flipper, params, rng, rules):
    """The user dispatcher of the built-in kernel: never called (every id is built in)."""
    return 0, 0.0
