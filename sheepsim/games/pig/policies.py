"""Pig policies (@njit) and the built-in dispatcher.

Every policy has the same signature (sheepsim/ARCHITECTURE.md, "Adding things"):

    policy(s, rules, aux, seat, params, rng, buf) -> action

`s` is the state (engine.py layout) with `seat` to act, `params` a float64 vector of
the policy's parameters, `rng` the seat's policy stream (uint64[4]; not its die, see
engine.py) and `buf` a scratch int32[MAX_ACTIONS, 1] action buffer; `aux` is the
start state, followed in runs with an `optimal` seat by its decision table
(optimal.py), then in runs with a `learned` seat by its stop table (stoptable.py). The result is one legal action, ACT_ROLL or ACT_HOLD. Built-ins are
called by integer id through `choose`, so the cached chunk kernel makes direct calls
(fast, and found in numba's disk cache by every new process).
"""

from numba import njit

from ...rng import rand_below
from .. import stoptable
from .engine import ACT_HOLD, ACT_ROLL, S_SCORE, S_TURN, STATE_SIZE, legal
from .optimal import A_TABLE, words
from .optimal import check_aux as check_optimal
from .rules import R_GOAL

RANDOM, HOLD, OPTIMAL, LEARNED = 0, 1, 2, 3
LAST_BUILTIN = LEARNED
# hold's parameter vector
P_T = 0
# optimal's parameter tol chose the table it reads from aux (game.py builds it), not the kernel
TABLE = STATE_SIZE + A_TABLE     # aux slot of the first word of optimal's decision bits


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
def optimal(s, rules, aux, seat, params, rng, buf):
    """Neller & Presser's optimal play: the decision of the solved game (optimal.py) at
    (own score, opponent's score, turn total), read from the bits in aux."""
    total = s[S_TURN]
    if total == 0:
        return ACT_ROLL          # rules: holding needs a turn total
    goal = rules[R_GOAL]
    own = s[S_SCORE + seat]
    if own + total >= goal:
        return ACT_HOLD          # banking reaches the goal: a win at once (the table stops below it)
    word = aux[TABLE + (own * goal + s[S_SCORE + 1 - seat]) * words(goal) + total // 32]
    if (word >> (total % 32)) & 1:
        return ACT_HOLD
    return ACT_ROLL


# learned's feature set (stoptable.py): own score and opponent's score, each in BUCKETS
# equal bands of the goal (one point each below goal 20); the amount is the turn total
BUCKETS = 20


@njit(cache=True, inline="always")
def stop_cell(s, rules, seat):
    """(own band) * bands + opponent's band; -1 at a turn total of 0 (holding is not
    legal) and where banking reaches the goal (holding wins at once)."""
    total = s[S_TURN]
    goal = rules[R_GOAL]
    own = s[S_SCORE + seat]
    if total == 0 or own + total >= goal:
        return -1
    bands = min(BUCKETS, goal)
    return (own * bands // goal) * bands + s[S_SCORE + 1 - seat] * bands // goal


@njit(cache=True, inline="always")
def stop_amount(s):
    return s[S_TURN]


@njit(cache=True, inline="always")
def stop_act(s, rules, seat, rng, stop):
    return ACT_HOLD if stop else ACT_ROLL


@njit(cache=True)
def learned(s, rules, aux, seat, params, rng, buf):
    """Hold once the turn total reaches the threshold of the cell (own and opponent's
    score bands) in the stop table at the end of aux; roll at 0, hold when banking wins."""
    c = stop_cell(s, rules, seat)
    if c < 0:
        return ACT_ROLL if s[S_TURN] == 0 else ACT_HOLD
    end = len(aux) - 1
    if s[S_TURN] >= aux[end - aux[end] + c]:
        return ACT_HOLD
    return ACT_ROLL


@njit(cache=True)
def choose(policy_id, s, rules, aux, seat, params, rng, buf, scratch):
    """Dispatch to a built-in policy by id (direct calls, cached)."""
    if policy_id == OPTIMAL:
        return optimal(s, rules, aux, seat, params, rng, buf)
    if policy_id == LEARNED:
        return learned(s, rules, aux, seat, params, rng, buf)
    return choose_rollout(policy_id, s, rules, aux, seat, params, rng, buf, scratch)


@njit(cache=True, inline="always")
def choose_rollout(policy_id, s, rules, aux, seat, params, rng, buf, scratch):
    """`choose` cut to the search's rollout policies, hold and random (its Engine record's rollout_random and rollout_greedy),
    inlined into the rollout. Called, with its id known only at run time, it made a
    search iteration three times as costly (1.24 against 0.42 us on the bench's
    positions): every roll of a rollout passed every field of seven arrays."""
    if policy_id == HOLD:
        return hold(s, rules, aux, seat, params, rng, buf)
    return random_policy(s, rules, aux, seat, params, rng, buf)


def optimal_tols(specs) -> list[float]:
    """The distinct tol values of the seats playing the built-in `optimal` (sorted)."""
    return sorted({spec.values[0] for spec in specs if spec.policy.builtin and spec.policy.id == OPTIMAL})


def check_aux(aux, goal: int, specs) -> None:
    """The kernels' guard: the tables the seats of `specs` (PolicySpecs) read are in aux
    (the module docstring says where each is)."""
    after = 0
    if any(s.policy.builtin and s.policy.id == LEARNED for s in specs):
        after = min(BUCKETS, goal) ** 2 + 2        # the block: min T, the thresholds, n
        stoptable.check_block(aux, after - 2)
    check_optimal(aux, goal, optimal_tols(specs), after)


@njit(cache=True)
def no_user_policies(policy_id, s, rules, aux, seat, params, rng, buf):
    """The driver's user dispatcher in the built-in kernel: never called (every id is
    built in), and it keeps `choose` from compiling a second time for arrays."""
    return ACT_ROLL
