"""Battle Sheep policies (@njit) and the built-in dispatcher.

Every policy has the same signature (sheepsim/ARCHITECTURE.md, "Adding things"):

    policy(s, rules, aux, seat, params, rng, buf) -> (kind, a, b, c)

`s` is the state (engine.py layout) with `seat` to act, `aux` the start state, `params` a float64 vector of
the policy's parameters, `rng` the seat's random stream (uint64[4]) and `buf` a
scratch int32[MAX_ACTIONS, 4] action buffer. The result is one legal action.
Built-ins are called by integer id through `choose`, so the cached chunk kernel makes
direct calls (fast, and found in numba's disk cache by every new process).

`greedy` is defined by `greedy_reference` (list the legal actions, score each one on
the board, keep the best); `greedy` makes the same decisions, with the same random
draws, about ten times faster than the first kernel that did (c4f3878^; whole games in
`sheepsim bench`, best of runs, measured side by side: ~10x at 2 players, ~12x at 4,
at 1 and at 2 threads): it scores candidates from what they change, never lists them,
keeps its counts in buf without branches where it can, and is inlined into the chunk
kernel. tests/test_battlesheep_greedy.py compares the two at every decision.

`territory` looks one ply ahead on the position evaluation, engine.standing (the
progress hook): plainly, each candidate made, evaluated and unmade. It is slower than
greedy, so the search's rollouts stay random or greedy.
"""

import numpy as np
from numba import njit

from ...rng import rand_below, rand_float
from ..fast import below, trailing_zeros
from .engine import (DQ, DR, EV_SIZE, H_NHEX, H_NSTACKS, H_NTILES, H_PHASE, H_PLAYERS, HEIGHT, KIND_MOVE, KIND_PLACE,
                     KIND_TILE, MAX_HEX, MAX_PLAYERS, MAX_STACKS, OWNER, PH_BUILD, PH_PLACE, Q, R, START, STACKS, TILE_SHAPES,
                     add_stack, legal_actions, nbr, open_directions, pasture_box, random_move, random_place,
                     random_tile, remove_stack, slide_end, stack_hex, standing, tile_contacts)
from .rules import R_STACK

RANDOM, GREEDY, TERRITORY = 0, 1, 2
LAST_BUILTIN = TERRITORY
# greedy's parameter vector (territory's is its first slot)
P_EPSILON, P_OPPONENT = 0, 1
# _best_tile's grid value of a pasture cell: any sum including it is negative
# (4 cells, each of the other 3 with at most 6 pasture neighbours)
OVERLAP = -64


@njit(cache=True)
def random_policy(s, rules, aux, seat, params, rng, buf):
    """Uniform over the legal actions, exactly as engine.random_tile, random_place and random_move define it."""
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
def greedy_reference(s, rules, aux, seat, params, rng, buf):
    """The definition of `greedy`, kept readable as its test oracle (not registered).

    Lists the legal actions into buf and scores each on the board: tiles by
    tile_contacts, placements by _reach, moves by make, _evaluate, unmake. Ties are
    broken by reservoir sampling in legal_actions order, so the order of the
    candidates and of the draws is part of the definition.
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
            remove_stack(s, seat, dest)   # the new stack is the last in the seat's list
        if value > best:
            best = value
            ties = 1
            pick = m
        elif value == best:
            ties += 1
            if rand_below(rng, ties) == 0:
                pick = m
    return buf[pick, 0], buf[pick, 1], buf[pick, 2], buf[pick, 3]


@njit(cache=True, inline="always")
def _keep(value, best, ties, rng):
    """greedy_reference's tie-break, one candidate at a time: (take it, best, ties).

    Reservoir sampling: a new best resets the count without a draw; an equal value
    draws, so the candidates must come in legal_actions order for the same draws.
    """
    if value > best:
        return True, value, 1
    if value == best:
        ties += 1
        return rand_below(rng, ties) == 0, best, ties
    return False, best, ties


# greedy works in buf, read as one flat int32 array (MAX_ACTIONS * 4 cells, not the
# action list): at W + 1 + j a word for hex j and at W "off the pasture", so a
# neighbour nbr(s, i, d) (-1 if off the pasture) is read at W + 1 + nbr with one
# load and no test; at OPENS + j the open directions of the stack on hex j.
W = 0
OPENS = 128
HEX_MASK = 127              # every hex index + 1, for fast.below
assert MAX_HEX + 1 <= HEX_MASK + 1 <= OPENS and MAX_HEX <= 128     # and a mover set in two words
# The word of a hex: EMPTY if it is empty pasture, else its flags, a stack that loses
# mobility when a neighbour fills (its open directions are its limit, open <= height
# - 1): OWN_LOSS if the mover's, OTHER_LOSS if another seat's. A sum over 6 words
# keeps each in its field: empty neighbours at >> 8, flags at >> 4 & 15 and & 15.
EMPTY = 256
OTHER_LOSS = 16
OWN_LOSS = 1


@njit(cache=True, inline="always")
def _hex(x):
    return below(x, HEX_MASK)


@njit(cache=True, inline="always")
def _mark_empty(s, w):
    """Every hex's word: EMPTY on the empty hexes, 0 elsewhere and off the pasture."""
    w[W] = 0
    for j in range(s[H_NHEX]):
        w[W + 1 + j] = (s[HEIGHT + j] == 0) * EMPTY


@njit(cache=True, inline="always")
def _around(s, w, i):
    """Sum of the words of the 6 neighbours of hex i."""
    total = 0
    for e in range(6):
        total += w[W + _hex(nbr(s, i, e) + 1)]
    return total


@njit(cache=True)
def _best_tile(s, rng, buf):
    """The tile sharing the most edges with the pasture, as greedy_reference picks it.

    Instead of listing candidates (a sort) and scanning the pasture per candidate
    (tile_contacts), read a grid around the pasture once per cell: an empty cell
    holds its number of pasture neighbours, a pasture cell OVERLAP. A tile's sum
    over its 4 cells is then its contact count, or negative if it overlaps; so the
    legal tiles are exactly the anchors with a positive sum. Every tile touching the
    pasture has its anchor in the box scanned below, in legal_actions' order
    (orientation, q, r).
    """
    if s[H_NTILES] == 0:
        # as legal_actions: the first tile is anchored at the origin
        best = -1e18
        ties = 0
        pick = 0
        for o in range(3):
            take, best, ties = _keep(float(tile_contacts(s, o, 0, 0)), best, ties, rng)
            if take:
                pick = o
        return KIND_TILE, pick, 0, 0
    n = s[H_NHEX]
    q_lo, q_hi, r_lo, r_hi = pasture_box(s, n)
    # a touching tile has a cell beyond an edge and the others within 2 hexes of it
    # (TILE_SHAPES: q offsets 0..2, r offsets -1..1), so within 3 of the pasture's box
    q0 = q_lo - 3
    r0 = r_lo - 3
    h = r_hi + 4 - r0
    size = (q_hi + 4 - q0) * h
    # Anchors: a missing neighbour (1 beyond the box) minus a cell offset, so q in
    # q_lo - 3 .. q_hi + 1 and r in r_lo - 2 .. r_hi + 2. Cell (q, r) is grid[(q - q0)
    # * h + r - r0], so these are the cells 1 .. span of the grid, in legal_actions'
    # order, with r = r0 and r_hi + 3 between them: no tile anchored there touches
    # the pasture (its cells lie 2 or more rows off it, or wrap into such a row).
    span = (q_hi + 2 - q0) * h - 2
    # the grid and the anchors' sums in buf: a connected pasture (position.py) of n
    # hexes spans under n each way, so this fits unless the pasture is long and wide
    # (no built-in rule set comes near); else arrays of their own
    if size + 3 * span <= buf.size:
        grid = buf.reshape(buf.size)
    else:
        grid = np.empty(size + 3 * span, dtype=np.int32)
    for cell in range(size):
        grid[cell] = 0
    # every neighbour of a pasture hex gets 1 per pasture hex next to it; the pasture
    # cells are set to OVERLAP after (no neighbour look-ups, no branches)
    for i in range(n):
        cell = (s[Q + i] - q0) * h + s[R + i] - r0
        for d in range(6):
            grid[cell + DQ[d] * h + DR[d]] += 1
    for i in range(n):
        grid[(s[Q + i] - q0) * h + s[R + i] - r0] = OVERLAP
    # each orientation's sums in one vectorised pass, all three before the scan: a
    # scan right behind the vector stores stalled on them (a third of _best_tile's
    # samples on that one load, perf)
    for o in range(3):
        # the cell offsets of the orientation (all >= 0: an r offset of -1 comes with a q offset)
        c1 = TILE_SHAPES[o, 1, 0] * h + TILE_SHAPES[o, 1, 1]
        c2 = TILE_SHAPES[o, 2, 0] * h + TILE_SHAPES[o, 2, 1]
        c3 = TILE_SHAPES[o, 3, 0] * h + TILE_SHAPES[o, 3, 1]
        g0 = grid[1:1 + span]
        g1 = grid[1 + c1:1 + c1 + span]
        g2 = grid[1 + c2:1 + c2 + span]
        g3 = grid[1 + c3:1 + c3 + span]
        sums = grid[size + o * span:size + (o + 1) * span]
        for a in range(span):
            sums[a] = g0[a] + g1[a] + g2[a] + g3[a]
    sums = grid[size:size + 3 * span]
    best = -1e18
    ties = 0
    need = 1            # legal (a contact) and not below the best: else _keep neither takes nor draws
    pick = span
    for a in range(3 * span):               # orientation, then q, r: legal_actions' order
        if sums[a] >= need:
            contacts = sums[a]
            take, best, ties = _keep(float(contacts), best, ties, rng)
            need = contacts
            if take:
                pick = a
    pick_o = pick // span
    pick = 1 + pick % span
    return KIND_TILE, pick_o, q0 + pick // h, r0 + pick % h


@njit(cache=True)
def _best_place(s, rng, buf):
    """The eligible hex with the most reach (greedy_reference without the listing):
    _reach, with one load per step (the hex words in buf)."""
    w = buf.reshape(buf.size)
    _mark_empty(s, w)
    best = -1e18
    ties = 0
    pick = 0
    for i in range(s[H_NHEX]):
        if s[START + i] == 1 and s[HEIGHT + i] == 0:
            total = 0
            for d in range(6):
                k = nbr(s, i, d)
                while w[W + _hex(k + 1)] == EMPTY:
                    total += 1
                    k = nbr(s, _hex(k), d)
            take, best, ties = _keep(float(total), best, ties, rng)
            if take:
                pick = i
    return KIND_PLACE, pick, 0, 0


@njit(cache=True)
def _best_move(s, seat, opponent_weight, rng, buf):
    """The move greedy_reference picks, each candidate scored by what it changes.

    Splitting n sheep from hex i to hex dest changes only three things' mobility:
    the source (height h - n, and one open direction less if dest is next to it),
    the new stack on dest, and the stacks next to dest, which lose dest as an open
    direction. So the board is counted once, and a candidate costs a look at dest's
    neighbours instead of a recount. The value is the same float expression as
    _evaluate on the same integers, hence the same values and the same ties.

    The count is kept in buf's hex words (above), so that it needs few branches
    (they mispredict on irregular pastures): a single sheep counts min(0, open) = 0
    without a test, and a stack's flag and dest's empty neighbours come from one sum.
    """
    p = s[H_PLAYERS]
    w = buf.reshape(buf.size)
    _mark_empty(s, w)
    # each seat's mobility, the stacks' flags, and the mover's stacks that have a
    # move as a bit set over hexes, read in hex order as legal_actions lists them
    others0 = 0
    for t in range(p):
        if t == seat:
            continue
        for k in range(s[H_NSTACKS + t]):
            j = _hex(stack_hex(s, t, k))
            h = s[HEIGHT + j]
            o = _around(s, w, j) >> 8
            w[OPENS + j] = o
            others0 += min(h - 1, o)
            w[W + 1 + j] += OTHER_LOSS * ((h >= 2) & (o < h))
    own0 = 0
    movers_lo = np.uint64(0)
    movers_hi = np.uint64(0)
    for k in range(s[H_NSTACKS + seat]):
        j = _hex(stack_hex(s, seat, k))
        h = s[HEIGHT + j]
        o = _around(s, w, j) >> 8
        w[OPENS + j] = o
        own0 += min(h - 1, o)
        w[W + 1 + j] += OWN_LOSS * ((h >= 2) & (o < h))
        bit = np.uint64((h >= 2) & (o > 0)) << np.uint64(j & 63)
        if j < 64:
            movers_lo |= bit
        else:
            movers_hi |= bit
    # _evaluate's subtrahend when no other seat's stack loses mobility (the float
    # division is on every candidate's critical path otherwise)
    penalty0 = opponent_weight * float(others0) / (p - 1)
    best = -1e18
    ties = 0
    pick_i = pick_d = pick_n = 0
    for half in range(2):
        movers = movers_lo if half == 0 else movers_hi
        while movers != 0:                   # hex, direction, count: legal_actions' order
            i = _hex(64 * half + trailing_zeros(movers))
            movers &= movers - np.uint64(1)
            h = s[HEIGHT + i]
            opens = w[OPENS + i]
            flag = w[W + 1 + i]
            rest = own0 - min(h - 1, opens)  # own mobility without this stack
            free = 0                         # its open directions, as a bit set
            for d in range(6):
                free |= (w[W + _hex(nbr(s, i, d) + 1)] == EMPTY) << d
            while free != 0:
                d = trailing_zeros(free)
                free &= free - 1
                k = _hex(nbr(s, i, d))
                dest = k                     # slide_end, from the first step on
                after = nbr(s, k, d)
                while w[W + _hex(after + 1)] == EMPTY:
                    dest = _hex(after)
                    after = nbr(s, dest, d)
                # dest's open directions (hex i stays occupied by the source) and the
                # stacks next to it that lose mobility; hex i is next to dest only
                # when dest == k, and then its loss is open_src's
                adjacent = dest == k
                around = _around(s, w, dest) - adjacent * flag
                open_src = opens - adjacent
                open_new = around >> 8
                own_loss = around & 15
                others_loss = (around >> 4) & 15
                # _evaluate's subtrahend; it does not depend on the count
                if others_loss == 0:
                    penalty = penalty0
                else:
                    penalty = opponent_weight * float(others0 - others_loss) / (p - 1)
                base = rest - own_loss
                # float(x) - penalty rises with x, so when even an upper bound of the own
                # mobility (the new stacks share h - 2 splits, and each has its directions)
                # scores below the best, no count can take or tie it: skip them, no draws
                if base + min(h - 2, open_src + open_new) - penalty < best:
                    continue
                for n in range(1, h):
                    own = base + min(h - n - 1, open_src) + min(n - 1, open_new)
                    take, best, ties = _keep(own - penalty, best, ties, rng)
                    if take:
                        pick_i = i
                        pick_d = d
                        pick_n = n
    return KIND_MOVE, pick_i, pick_d, pick_n


@njit(cache=True, inline="always")
def greedy(s, rules, aux, seat, params, rng, buf):
    """One-ply heuristic (documented in `sheepsim policies battlesheep`).

    build: the tile sharing the most edges with the pasture (compact pastures
      leave fewer dead ends); place: the hex with the most empty hexes in straight
      lines from it; move: the move maximising own mobility minus `opponent` times
      the mean opponent mobility after it. Ties are broken uniformly at random;
      with probability `epsilon` the seat plays a uniformly random action instead.
    Same decisions and draws as greedy_reference; buf is its scratch.
    """
    if params[P_EPSILON] > 0.0 and rand_float(rng) < params[P_EPSILON]:
        return random_policy(s, rules, aux, seat, params, rng, buf)
    phase = s[H_PHASE]
    if phase == PH_BUILD:
        return _best_tile(s, rng, buf)
    if phase == PH_PLACE:
        return _best_place(s, rng, buf)
    return _best_move(s, seat, params[P_OPPONENT], rng, buf)


@njit(cache=True)
def _margin(s, seat, out, work):
    """The seat's standing (engine.standing) less the best other seat's."""
    standing(s, out, work)
    rival = -1e18
    for t in range(s[H_PLAYERS]):
        if t != seat:
            rival = max(rival, out[t])
    return out[seat] - rival


@njit(cache=True)
def territory(s, rules, aux, seat, params, rng, buf):
    """One ply on the position evaluation (engine.standing, the progress measure).

    build: greedy's tile (no stack stands yet, so the evaluation cannot tell tiles
    apart); place and move: the action after which the seat's standing most exceeds
    the best other seat's, each candidate made, evaluated and unmade on `s`. Ties are
    broken uniformly at random (greedy's reservoir, in legal_actions order); with
    probability `epsilon` the seat plays a uniformly random action instead.
    """
    if params[P_EPSILON] > 0.0 and rand_float(rng) < params[P_EPSILON]:
        return random_policy(s, rules, aux, seat, params, rng, buf)
    if s[H_PHASE] == PH_BUILD:
        return _best_tile(s, rng, buf)
    out = np.empty(MAX_PLAYERS, dtype=np.float64)
    work = np.empty(EV_SIZE, dtype=np.int32)
    n = legal_actions(s, rules, buf)
    # the seat's stack list slot that add_stack fills and remove_stack leaves: kept,
    # so the state is as it was (states are compared and hashed)
    slot = STACKS + seat * MAX_STACKS + s[H_NSTACKS + seat]
    kept = s[slot]
    best = -1e18
    ties = 0
    pick = 0
    for m in range(n):
        i = buf[m, 1]
        if buf[m, 0] == KIND_PLACE:
            add_stack(s, seat, i, rules[R_STACK])
            value = _margin(s, seat, out, work)
            remove_stack(s, seat, i)
        else:
            count = buf[m, 3]
            dest = slide_end(s, i, buf[m, 2])
            add_stack(s, seat, dest, count)
            s[HEIGHT + i] -= count
            value = _margin(s, seat, out, work)
            s[HEIGHT + i] += count
            remove_stack(s, seat, dest)
        take, best, ties = _keep(value, best, ties, rng)
        if take:
            pick = m
    s[slot] = kept
    return buf[pick, 0], buf[pick, 1], buf[pick, 2], buf[pick, 3]


@njit(cache=True, inline="always")
def choose(policy_id, s, rules, aux, seat, params, rng, buf, scratch):
    """Dispatch to a built-in policy by id (direct calls, cached). Inlined, with
    greedy: the calls into choose and into greedy passed every field of seven arrays
    and took about a fourteenth of a greedy game's time (perf)."""
    if policy_id == GREEDY:
        return greedy(s, rules, aux, seat, params, rng, buf)
    if policy_id == TERRITORY:
        return territory(s, rules, aux, seat, params, rng, buf)
    return random_policy(s, rules, aux, seat, params, rng, buf)


@njit(cache=True)
def no_user_policies(policy_id, s, rules, aux, seat, params, rng, buf):
    """The driver's user dispatcher in the built-in kernel: never called (every id is
    built in), and it keeps `choose` from compiling a second time for arrays."""
    return 0, 0, 0, 0
