"""Battle Sheep policies (@njit) and the built-in dispatcher.

Every policy has the same signature (DESIGN section 4):

    policy(s, rules, aux, seat, params, rng, buf) -> (kind, a, b, c)

`s` is the state (engine.py layout) with `seat` to act, `aux` the start state, `params` a float64 vector of
the policy's parameters, `rng` the seat's random stream (uint64[4]) and `buf` a
scratch int32[MAX_ACTIONS, 4] action buffer. The result is one legal action.
Built-ins are called by integer id through `choose`, so the cached chunk kernel makes
direct calls (fast, and found in numba's disk cache by every new process).
"""

from numba import njit

from ...rng import rand_below, rand_float
from .engine import (H_NSTACKS, H_PHASE, H_PLAYERS, HEIGHT, KIND_MOVE, KIND_PLACE, KIND_TILE,
                     OWNER, PH_BUILD, PH_PLACE, add_stack, legal_actions, nbr, open_directions,
                     random_move, random_place, random_tile, slide_end, stack_hex, tile_contacts)

RANDOM, GREEDY = 0, 1
LAST_BUILTIN = GREEDY
# greedy's parameter vector
P_EPSILON, P_OPPONENT = 0, 1


@njit(cache=True)
def random_policy(s, rules, aux, seat, params, rng, buf):
    """Uniform over the legal actions as Part A defines them."""
    phase = s[H_PHASE]
    if phase == PH_BUILD:
        o, q, r = random_tile(s, rng)
        return KIND_TILE, o, q, r
    if phase == PH_PLACE:
        return KIND_PLACE, random_place(s, rng), 0, 0
    i, d, n = random_move(s, rng)
    return KIND_MOVE, i, d, n


@njit(cache=True)
def mobility(s, seat):
    """Sheep the seat could still spread: per stack, min(height - 1, open directions).

    A stack of h can make at most h - 1 more splits, and each open direction is
    room to use one of them; blocked sheep and empty directions are both wasted.
    """
    total = 0
    for k in range(s[H_NSTACKS + seat]):
        i = stack_hex(s, seat, k)
        if s[HEIGHT + i] >= 2:
            total += min(s[HEIGHT + i] - 1, open_directions(s, i))
    return total


@njit(cache=True)
def _evaluate(s, seat, opponent_weight):
    p = s[H_PLAYERS]
    others = 0.0
    for t in range(p):
        if t != seat:
            others += mobility(s, t)
    return mobility(s, seat) - opponent_weight * others / (p - 1)


@njit(cache=True)
def _reach(s, i):
    """Empty hexes in straight lines from hex i: room a starting stack can use."""
    total = 0
    for d in range(6):
        j = i
        k = nbr(s, j, d)
        while k >= 0 and s[HEIGHT + k] == 0:
            total += 1
            j = k
            k = nbr(s, j, d)
    return total


@njit(cache=True)
def greedy(s, rules, aux, seat, params, rng, buf):
    """One-ply heuristic (documented in `sheepsim policies battlesheep`).

    build: the tile sharing the most edges with the pasture (compact pastures
      leave fewer dead ends); place: the hex with the most empty hexes in straight
      lines from it; move: the move maximising own mobility minus `opponent` times
      the mean opponent mobility after it. Ties are broken uniformly at random;
      with probability `epsilon` the seat plays a uniformly random action instead.
    """
    if params[P_EPSILON] > 0.0 and rand_float(rng) < params[P_EPSILON]:
        return random_policy(s, rules, aux, seat, params, rng, buf)
    n = legal_actions(s, rules, buf)
    best = -1e18
    ties = 0
    pick = 0
    for m in range(n):
        kind = buf[m, 0]
        if kind == KIND_TILE:
            value = float(tile_contacts(s, buf[m, 1], buf[m, 2], buf[m, 3]))
        elif kind == KIND_PLACE:
            value = float(_reach(s, buf[m, 1]))
        else:
            # make, evaluate, unmake: only the source and destination hexes change
            i = buf[m, 1]
            count = buf[m, 3]
            dest = slide_end(s, i, buf[m, 2])
            add_stack(s, seat, dest, count)
            s[HEIGHT + i] -= count
            value = _evaluate(s, seat, params[P_OPPONENT])
            s[HEIGHT + i] += count
            s[HEIGHT + dest] = 0
            s[OWNER + dest] = -1
            s[H_NSTACKS + seat] -= 1      # the new stack is the last in the seat's list
        if value > best:
            best = value
            ties = 1
            pick = m
        elif value == best:
            ties += 1
            if rand_below(rng, ties) == 0:
                pick = m
    return buf[pick, 0], buf[pick, 1], buf[pick, 2], buf[pick, 3]


@njit(cache=True)
def choose(policy_id, s, rules, aux, seat, params, rng, buf):
    """Dispatch to a built-in policy by id (direct calls, cached)."""
    if policy_id == GREEDY:
        return greedy(s, rules, aux, seat, params, rng, buf)
    return random_policy(s, rules, aux, seat, params, rng, buf)


@njit(cache=True)
def no_user_policies(policy_id, s, rules, aux, seat, params, rng, buf):
    """The driver's user dispatcher in the built-in kernel: never called (every id is
    built in), and it keeps `choose` from compiling a second time for arrays."""
    return 0, 0, 0, 0
