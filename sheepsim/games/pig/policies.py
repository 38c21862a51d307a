"""Pig policies (@njit) and the built-in dispatcher.

Every policy has the same signature (DESIGN section 4):

    policy(s, rules, aux, seat, params, rng, buf) -> action

`s` is the state (engine.py layout) with `seat` to act, `params` a float64 vector of
the policy's parameters, `rng` the seat's policy stream (uint64[4]; not its die, see
engine.py) and `buf` a scratch int32[MAX_ACTIONS, 1] action buffer; `aux` is the
start state (unused). The result is one
legal action, ACT_ROLL or ACT_HOLD. Built-ins are called by integer id through
`choose`, so the cached chunk kernel makes direct calls (fast, and found in numba's
disk cache by every new process).
"""

from numba import njit

from ...rng import rand_below
from .engine import ACT_HOLD, ACT_ROLL, S_SCORE, S_TURN, legal
from .rules import R_GOAL

RANDOM, HOLD = 0, 1
LAST_BUILTIN = HOLD
# hold's parameter vector
P_T = 0


@njit(cache=True)
def random_policy(s, rules, aux, seat, params, rng, buf):
    """Uniform over the legal actions: a fair coin between roll and hold when both
    are legal, else roll (no random draw is spent on a forced roll)."""
    n = legal(s, rules, aux, buf)
    if n == 1:
        return buf[0, 0]
    return buf[rand_below(rng, n), 0]


@njit(cache=True)
def hold(s, rules, aux, seat, params, rng, buf):
    """Hold at t (Neller & Presser's "hold at 20"): roll until the turn total reaches
    `t` or banking it would reach the goal, then hold."""
    total = s[S_TURN]
    if total > 0 and (total >= params[P_T] or s[S_SCORE + seat] + total >= rules[R_GOAL]):
        return ACT_HOLD
    return ACT_ROLL


@njit(cache=True)
def choose(policy_id, s, rules, aux, seat, params, rng, buf, scratch):
    """Dispatch to a built-in policy by id (direct calls, cached)."""
    if policy_id == HOLD:
        return hold(s, rules, aux, seat, params, rng, buf)
    return random_policy(s, rules, aux, seat, params, rng, buf)


@njit(cache=True)
def no_user_policies(policy_id, s, rules, aux, seat, params, rng, buf):
    """The driver's user dispatcher in the built-in kernel: never called (every id is
    built in), and it keeps `choose` from compiling a second time for arrays."""
    return ACT_ROLL
