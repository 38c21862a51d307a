"""Battle Sheep kernels: state layout, legal actions, step, outcome (all @njit).

State is ONE int32 vector (`STATE_SIZE`), so it can be copied, compared and hashed:

    header  [0, HEADER)          H_* slots below
    Q, R    [MAX_HEX] each       axial coordinates of pasture hex i (pointy-top,
                                 r grows downward); hexes are numbered in the order
                                 they were added, so tile k is hexes 4k..4k+3
    OWNER   [MAX_HEX]            seat whose stack stands on hex i, -1 if empty
    HEIGHT  [MAX_HEX]            sheep in that stack, 0 if empty
    START   [MAX_HEX]            1 if a starting stack may go there (set when the
                                 pasture is complete; depends on option start_zone)
    OPEN    [MAX_HEX]            open_directions of hex i: neighbours on the pasture
                                 and empty, kept by add_hex and add_stack (the move
                                 phase reads it for every stack of every turn; a count
                                 kept is one load, a count made is six)
    NBR     [MAX_HEX * 6]        neighbour hex index in direction d, -1 if off pasture
    STACKS  [MAX_PLAYERS * MAX_STACKS]  hexes of seat p's stacks at p * MAX_STACKS + k,
                                 k < header H_NSTACKS + p, in the order they appeared
                                 (an index over OWNER, so move generation visits only
                                 the mover's stacks)
    HASH    [HASH_SIZE]          1 + index of the hex stored in that slot, 0 = free:
                                 an open-addressing table (q, r) -> hex, so tile
                                 checks need no scan of the pasture

Directions (the position format, README.md), index d and its axial step:

          NW(2) (0,-1)   NE(1) (1,-1)
     W(3) (-1,0)    hex    E(0) (1,0)
          SW(4) (-1,1)   SE(5) (0,1)

The opposite of d is (d + 3) % 6.

Actions are four int32 [KIND, a, b, c]:
    KIND_TILE  [0, orientation, q, r]   TILE_SHAPES[orientation] translated so its
                                        first cell lands on (q, r)
    KIND_PLACE [1, hex, 0, 0]           the starting stack on hex
    KIND_MOVE  [2, hex, d, n]           n sheep leave hex and slide in direction d

Phases: PH_BUILD -> PH_PLACE -> PH_MOVE -> PH_OVER. Seat 0 acts first in every phase.
Kernels trust their inputs: `game.py` validates before calling them.

The contract's hooks (games/driver.py) are at the end. Battle Sheep has no luck but
option board=random, where the rules build the pasture (`nature`, from stream 0).
"""

import numpy as np
from numba import njit

from ...rng import rand_below
from ..driver import NATURE, Shape
from ..fast import trailing_zeros
from .rules import (BOARD_RANDOM, R_BOARD, NO_MOVE_LOSES, NO_MOVE_SKIP, PLACE_REVERSE,
                    R_FINAL_TIE, R_NO_MOVE, R_PLACEMENT, R_PLAYERS, R_STACK, R_START_ZONE,
                    R_TILES, START_ANY, TIE_SECOND_HERD)

VERSION = 1
MAX_PLAYERS = 4
MAX_TILES = 24
MAX_HEX = 4 * MAX_TILES
MAX_ACTIONS = 8192          # > 12 candidate tiles per open edge of a 96-hex pasture
# Hex coordinates a position may use (position.py rejects others). Candidate tiles
# are sorted as int64 keys packing (orientation, q, r) in TILE_KEY_BITS bits each, q
# and r offset by half the span. From a position inside +-MAX_COORD, building adds at
# most MAX_TILES tiles, each reaching at most 3 hexes further out, and a candidate
# tile 3 more: all inside the packed span, and int32 sums of coordinates cannot overflow.
MAX_COORD = 1_000_000
TILE_KEY_BITS = 21
TILE_KEY_SPAN = 1 << TILE_KEY_BITS
TILE_KEY_OFFSET = TILE_KEY_SPAN // 2
assert MAX_COORD + 3 * (MAX_TILES + 1) < TILE_KEY_OFFSET

# header: players, phase, seat to act (-1 when over), hexes, tiles placed, stacks
# placed, sheep moves made, actions taken, seat that lost (no_move=player_loses) or
# -1, 1 if hexes 4k..4k+3 are tile k, stack size, then each seat's number of stacks
H_PLAYERS, H_PHASE, H_TO_MOVE, H_NHEX, H_NTILES, H_NPLACED, H_MOVES, H_PLIES, H_LOSER, \
    H_TILES_KNOWN, H_STACK, H_NSTACKS = range(12)
HEADER = 16
Q = HEADER
R = Q + MAX_HEX
OWNER = R + MAX_HEX
HEIGHT = OWNER + MAX_HEX
START = HEIGHT + MAX_HEX
OPEN = START + MAX_HEX
NBR = OPEN + MAX_HEX
MAX_STACKS = 32            # a seat has at most stack_size (<= 32) stacks
STACKS = NBR + 6 * MAX_HEX
HASH_SIZE = 256            # power of 2, load <= MAX_HEX / HASH_SIZE = 0.375
HASH = STACKS + MAX_PLAYERS * MAX_STACKS
STATE_SIZE = HASH + HASH_SIZE

PH_BUILD, PH_PLACE, PH_MOVE, PH_OVER = 0, 1, 2, 3
KIND_TILE, KIND_PLACE, KIND_MOVE = 0, 1, 2

DQ = np.array([1, 1, 0, -1, -1, 0], dtype=np.int32)
DR = np.array([0, -1, -1, 0, 1, 1], dtype=np.int32)
# The 2x2 rhombus in its 3 orientations; cell 0 is the anchor (0, 0).
TILE_SHAPES = np.array([[[0, 0], [1, 0], [0, 1], [1, 1]],
                        [[0, 0], [1, -1], [1, 0], [2, -1]],
                        [[0, 0], [0, 1], [1, -1], [1, 0]]], dtype=np.int32)

# Outcome row written by `outcome` / play_game (int32 columns).
O_WINNER, O_COWINNERS, O_TIEBREAK, O_LOSER, O_MOVES, O_PLIES, O_HEXES, O_ROTATION = range(8)
O_SCORE = 8
O_HERD = O_SCORE + MAX_PLAYERS
O_SIZE = O_HERD + MAX_PLAYERS


@njit(cache=True)
def empty_state(rules):
    """A fresh game: empty pasture, building phase, seat 0 to act."""
    s = np.zeros(STATE_SIZE, dtype=np.int32)
    s[H_PLAYERS] = rules[R_PLAYERS]
    s[H_PHASE] = PH_BUILD
    s[H_LOSER] = -1
    s[H_TILES_KNOWN] = 1
    s[H_STACK] = rules[R_STACK]
    s[OWNER:OWNER + MAX_HEX] = -1
    s[NBR:NBR + 6 * MAX_HEX] = -1
    return s


@njit(cache=True, inline="always")
def pasture_box(s, n):
    """(q_lo, q_hi, r_lo, r_hi): the bounding box of the pasture's n hexes. Loops, not
    s[Q:Q + n].min(): `s` may be a raw pointer (play.VIEW), which has no slices."""
    q_lo = q_hi = s[Q]
    r_lo = r_hi = s[R]
    for i in range(1, n):
        q_lo = min(q_lo, s[Q + i])
        q_hi = max(q_hi, s[Q + i])
        r_lo = min(r_lo, s[R + i])
        r_hi = max(r_hi, s[R + i])
    return q_lo, q_hi, r_lo, r_hi


@njit(cache=True, inline="always")
def nbr(s, i, d):
    return s[NBR + 6 * i + d]


@njit(cache=True, inline="always")
def _slot(q, r):
    """Home slot of hex (q, r) in the HASH table (multiplicative hashing)."""
    key = (q + 512) * 1024 + (r + 512)
    return ((key * 2654435761) >> 16) & (HASH_SIZE - 1)


@njit(cache=True)
def hex_at(s, q, r):
    """Index of the pasture hex at (q, r), or -1 (open addressing, linear probing)."""
    h = _slot(q, r)
    while True:
        v = s[HASH + h]
        if v == 0:
            return -1
        if s[Q + v - 1] == q and s[R + v - 1] == r:
            return v - 1
        h = (h + 1) & (HASH_SIZE - 1)


@njit(cache=True)
def add_hex(s, q, r):
    """Append a pasture hex and link it with its neighbours already on the pasture."""
    i = s[H_NHEX]
    s[Q + i] = q
    s[R + i] = r
    for d in range(6):
        j = hex_at(s, q + DQ[d], r + DR[d])
        if j >= 0:
            s[NBR + 6 * i + d] = j
            s[NBR + 6 * j + (d + 3) % 6] = i
            # the new hex is empty: open for j; j is open for it if empty
            s[OPEN + j] += 1
            s[OPEN + i] += s[HEIGHT + j] == 0
    h = _slot(q, r)
    while s[HASH + h] != 0:
        h = (h + 1) & (HASH_SIZE - 1)
    s[HASH + h] = i + 1
    s[H_NHEX] = i + 1
    return i


@njit(cache=True)
def tile_contacts(s, o, q, r):
    """Edges a tile would share with the pasture; -1 if it overlaps it.

    Rules: a new tile must touch the pasture along at least one side and may not
    overlap; so a tile is legal (after the first) exactly when this is >= 1.
    Hot path of random_tile: most proposals overlap and are rejected by 4 hash
    look-ups; the contact count is a branch-free scan that LLVM vectorises.
    """
    for c in range(4):
        if hex_at(s, q + TILE_SHAPES[o, c, 0], r + TILE_SHAPES[o, c, 1]) >= 0:
            return -1
    contacts = np.int32(0)
    n = s[H_NHEX]
    for c in range(4):
        # int32 throughout: int64 abs does not vectorise on common x86 CPUs
        cq = np.int32(q + TILE_SHAPES[o, c, 0])
        cr = np.int32(r + TILE_SHAPES[o, c, 1])
        for i in range(n):
            dq = s[Q + i] - cq
            dr = s[R + i] - cr
            # axial neighbours are exactly the offsets at hex distance 1
            contacts += np.int32(abs(dq) + abs(dr) + abs(dq + dr) == 2)
    return contacts


@njit(cache=True)
def slide_end(s, i, d):
    """Last empty pasture hex when sliding from hex i in direction d (i itself if blocked).

    Rules: the moving stack goes as far as it can and stops before any stack or gap.
    """
    j = i
    k = nbr(s, j, d)
    while k >= 0 and s[HEIGHT + k] == 0:
        j = k
        k = nbr(s, j, d)
    return j


@njit(cache=True, inline="always")
def open_directions(s, i):
    """Directions in which the stack on hex i could move (first hex empty pasture)."""
    return s[OPEN + i]


@njit(cache=True, inline="always")
def stack_hex(s, seat, k):
    """Hex of the seat's k-th stack."""
    return s[STACKS + seat * MAX_STACKS + k]


@njit(cache=True)
def add_stack(s, seat, i, height):
    """Put a stack of `height` sheep of `seat` on the empty hex i."""
    s[OWNER + i] = seat
    s[HEIGHT + i] = height
    s[STACKS + seat * MAX_STACKS + s[H_NSTACKS + seat]] = i
    s[H_NSTACKS + seat] += 1
    for d in range(6):
        k = nbr(s, i, d)
        if k >= 0:
            s[OPEN + k] -= 1        # hex i is no longer open for its neighbours


@njit(cache=True)
def remove_stack(s, seat, i):
    """Undo add_stack(s, seat, i, ...) while hex i is still the seat's last stack
    (the make and unmake of greedy_reference and of policy territory)."""
    s[OWNER + i] = -1
    s[HEIGHT + i] = 0
    s[H_NSTACKS + seat] -= 1
    for d in range(6):
        k = nbr(s, i, d)
        if k >= 0:
            s[OPEN + k] += 1


@njit(cache=True)
def can_move(s, seat):
    for k in range(s[H_NSTACKS + seat]):
        i = stack_hex(s, seat, k)
        if (s[HEIGHT + i] >= 2) & (s[OPEN + i] > 0):
            return True
    return False


@njit(cache=True)
def holes(s):
    """Number of enclosed holes in the (connected) pasture, by Euler's formula.

    Hexes touch only along edges, and exactly 3 meet at each corner, so the pasture
    has the topology of the graph of hexes, adjacent pairs and mutually adjacent
    triples: holes = 1 - (hexes - adjacent pairs + triples). Cheap, so the flood
    fill runs only for the boards that need it.
    """
    n = s[H_NHEX]
    pairs = 0
    corners = 0
    for i in range(n):
        for d in range(6):
            if nbr(s, i, d) >= 0:
                pairs += 1
                if nbr(s, i, (d + 1) % 6) >= 0:
                    corners += 1
    # each pair is seen from both hexes, each triple from all three
    return 1 - (n - pairs // 2 + corners // 3)


@njit(cache=True)
def _mark_start_zone(s, rules):
    """Set START flags once the pasture is complete.

    outer_perimeter: a hex with a missing neighbour that is connected to the unbounded
    outside. Flood-fill the non-pasture cells of the bounding parallelogram grown by
    one cell; its rim is all outside, so every outside cell is reached from a corner.
    """
    n = s[H_NHEX]
    if rules[R_START_ZONE] == START_ANY or holes(s) == 0:
        # without enclosed holes every missing neighbour is the outside
        for i in range(n):
            s[START + i] = 0
            for d in range(6):
                if nbr(s, i, d) < 0:
                    s[START + i] = 1
        return
    q_lo, q_hi, r_lo, r_hi = pasture_box(s, n)
    q0 = q_lo - 1
    r0 = r_lo - 1
    w = q_hi - q0 + 2
    h = r_hi - r0 + 2
    grid = np.zeros(w * h, dtype=np.int8)       # 1 pasture, 2 outside
    for i in range(n):
        grid[(s[R + i] - r0) * w + s[Q + i] - q0] = 1
    stack = np.empty(w * h, dtype=np.int32)
    grid[0] = 2
    stack[0] = 0
    top = 1
    while top > 0:
        top -= 1
        cell = stack[top]
        cq = cell % w
        cr = cell // w
        for d in range(6):
            nq = cq + DQ[d]
            nr = cr + DR[d]
            if 0 <= nq < w and 0 <= nr < h and grid[nr * w + nq] == 0:
                grid[nr * w + nq] = 2
                stack[top] = nr * w + nq
                top += 1
    for i in range(n):
        s[START + i] = 0
        for d in range(6):
            if nbr(s, i, d) < 0:
                cell = (s[R + i] + DR[d] - r0) * w + s[Q + i] + DQ[d] - q0
                if grid[cell] == 2:
                    s[START + i] = 1


@njit(cache=True)
def placing_seat(rules, k):
    """Seat that places the k-th starting stack (option placement_order)."""
    if rules[R_PLACEMENT] == PLACE_REVERSE:
        return rules[R_PLAYERS] - 1 - k
    return k


@njit(cache=True)
def begin_placement(s, rules):
    """The pasture is complete: mark the start zone and hand over to the first placer."""
    _mark_start_zone(s, rules)
    s[H_PHASE] = PH_PLACE
    s[H_TO_MOVE] = placing_seat(rules, s[H_NPLACED])


@njit(cache=True)
def _pass_turn(s, rules, seat):
    """Give the turn to `seat` or, per option no_move, skip / end the game."""
    p = s[H_PLAYERS]
    if rules[R_NO_MOVE] == NO_MOVE_SKIP:
        # rules: a player who cannot move is skipped; the game ends when nobody can
        for k in range(p):
            t = (seat + k) % p
            if can_move(s, t):
                s[H_TO_MOVE] = t
                return
    elif can_move(s, seat):
        s[H_TO_MOVE] = seat
        return
    elif rules[R_NO_MOVE] == NO_MOVE_LOSES:
        s[H_LOSER] = seat
    s[H_PHASE] = PH_OVER
    s[H_TO_MOVE] = -1


@njit(cache=True)
def apply(s, rules, kind, a, b, c):
    """Apply one legal action in place (see the action encoding above)."""
    p = s[H_PLAYERS]
    s[H_PLIES] += 1
    if kind == KIND_TILE:
        for k in range(4):
            add_hex(s, b + TILE_SHAPES[a, k, 0], c + TILE_SHAPES[a, k, 1])
        s[H_NTILES] += 1
        if s[H_NTILES] == p * rules[R_TILES]:
            begin_placement(s, rules)
        else:
            s[H_TO_MOVE] = s[H_NTILES] % p
    elif kind == KIND_PLACE:
        add_stack(s, s[H_TO_MOVE], a, rules[R_STACK])
        s[H_NPLACED] += 1
        if s[H_NPLACED] == p:
            s[H_PHASE] = PH_MOVE
            _pass_turn(s, rules, 0)
        else:
            s[H_TO_MOVE] = placing_seat(rules, s[H_NPLACED])
    else:
        dest = slide_end(s, a, b)
        add_stack(s, s[OWNER + a], dest, c)
        s[HEIGHT + a] -= c
        s[H_MOVES] += 1
        _pass_turn(s, rules, (s[H_TO_MOVE] + 1) % p)


@njit(cache=True)
def _tile_candidates(s):
    """Sorted distinct keys (orientation, q, r) of tiles touching the pasture
    (packed as described at MAX_COORD, so sorting them sorts by orientation, q, r)."""
    n = s[H_NHEX]
    keys = np.empty(n * 6 * 12, dtype=np.int64)
    m = 0
    for i in range(n):
        for d in range(6):
            if nbr(s, i, d) >= 0:
                continue
            pq = s[Q + i] + DQ[d]
            pr = s[R + i] + DR[d]
            for o in range(3):
                for c in range(4):
                    tq = pq - TILE_SHAPES[o, c, 0]
                    tr = pr - TILE_SHAPES[o, c, 1]
                    keys[m] = (o * TILE_KEY_SPAN + tq + TILE_KEY_OFFSET) * TILE_KEY_SPAN + tr + TILE_KEY_OFFSET
                    m += 1
    return np.unique(keys[:m])


@njit(cache=True)
def legal_actions(s, rules, buf):
    """Fill buf (int32[MAX_ACTIONS, 4]) with the legal actions; return their count.

    Order: tiles by (orientation, q, r); placements and moves by hex, direction, count.
    """
    phase = s[H_PHASE]
    m = 0
    if phase == PH_BUILD:
        if s[H_NTILES] == 0:
            # the first tile is anchored at the origin: the pasture has no position yet
            for o in range(3):
                buf[m, 0] = KIND_TILE
                buf[m, 1] = o
                buf[m, 2] = 0
                buf[m, 3] = 0
                m += 1
            return m
        keys = _tile_candidates(s)
        for key in keys:
            o = key // (TILE_KEY_SPAN * TILE_KEY_SPAN)
            tq = (key // TILE_KEY_SPAN) % TILE_KEY_SPAN - TILE_KEY_OFFSET
            tr = key % TILE_KEY_SPAN - TILE_KEY_OFFSET
            if tile_contacts(s, o, tq, tr) > 0:
                buf[m, 0] = KIND_TILE
                buf[m, 1] = o
                buf[m, 2] = tq
                buf[m, 3] = tr
                m += 1
    elif phase == PH_PLACE:
        for i in range(s[H_NHEX]):
            if s[START + i] == 1 and s[HEIGHT + i] == 0:
                buf[m, 0] = KIND_PLACE
                buf[m, 1] = i
                buf[m, 2] = 0
                buf[m, 3] = 0
                m += 1
    elif phase == PH_MOVE:
        seat = s[H_TO_MOVE]
        for i in range(s[H_NHEX]):
            if s[OWNER + i] != seat or s[HEIGHT + i] < 2:
                continue
            for d in range(6):
                k = nbr(s, i, d)
                if k < 0 or s[HEIGHT + k] != 0:
                    continue
                for n in range(1, s[HEIGHT + i]):
                    buf[m, 0] = KIND_MOVE
                    buf[m, 1] = i
                    buf[m, 2] = d
                    buf[m, 3] = n
                    m += 1
    return m


@njit(cache=True)
def herds(s, seat, out2, seen, stack):
    """Sizes of the seat's largest and second-largest herds (connected own hexes).

    `seen` (bool[nhex]) and `stack` (int32[nhex]) are scratch; a hex is only ever
    visited by its owner, so one `seen` serves every seat without a reset.
    """
    out2[0] = 0
    out2[1] = 0
    for k in range(s[H_NSTACKS + seat]):
        i = stack_hex(s, seat, k)
        if seen[i]:
            continue
        seen[i] = True
        stack[0] = i
        top = 1
        size = 0
        while top > 0:
            top -= 1
            j = stack[top]
            size += 1
            for d in range(6):
                k = nbr(s, j, d)
                if k >= 0 and not seen[k] and s[OWNER + k] == seat:
                    seen[k] = True
                    stack[top] = k
                    top += 1
        if size > out2[0]:
            out2[1] = out2[0]
            out2[0] = size
        elif size > out2[1]:
            out2[1] = size


@njit(cache=True)
def outcome(s, rules, row):
    """Write the outcome row (O_* columns) of a finished game.

    Rules: most pastures wins; tied players compare their largest herd; still tied is
    a shared result (winner -1), or option final_tie compares second-largest herds.
    """
    p = s[H_PLAYERS]
    two = np.zeros(2, dtype=np.int32)
    key = np.zeros((p, 3), dtype=np.int64)
    seen = np.zeros(s[H_NHEX], dtype=np.bool_)
    stack = np.empty(s[H_NHEX], dtype=np.int32)
    for seat in range(p):
        score = s[H_NSTACKS + seat]     # rules: one point per pasture occupied
        herds(s, seat, two, seen, stack)
        row[O_SCORE + seat] = score
        row[O_HERD + seat] = two[0]
        key[seat, 0] = score
        key[seat, 1] = two[0]
        key[seat, 2] = two[1] if rules[R_FINAL_TIE] == TIE_SECOND_HERD else 0
    for seat in range(p, MAX_PLAYERS):
        row[O_SCORE + seat] = 0
        row[O_HERD + seat] = 0
    top = key[:, 0].max()
    ntop = 0
    for seat in range(p):
        if key[seat, 0] == top:
            ntop += 1
    row[O_TIEBREAK] = 1 if ntop > 1 else 0
    mask = 0
    for seat in range(p):
        if key[seat, 0] != top:
            continue
        better = False
        for other in range(p):
            if key[other, 0] == top and (key[other, 1] > key[seat, 1] or
                                         (key[other, 1] == key[seat, 1] and key[other, 2] > key[seat, 2])):
                better = True
        if not better:
            mask |= 1 << seat
    loser = s[H_LOSER]
    if loser >= 0:
        # original Splits (2 players): the player who cannot move loses outright
        mask = 1 << (1 - loser)
        row[O_TIEBREAK] = 0
    row[O_COWINNERS] = mask
    row[O_WINNER] = -1
    for seat in range(p):
        if mask == 1 << seat:
            row[O_WINNER] = seat
    row[O_LOSER] = loser
    row[O_MOVES] = s[H_MOVES]
    row[O_PLIES] = s[H_PLIES]
    row[O_HEXES] = s[H_NHEX]


# --- the uniform random policy, needed by the runner for board=random --------------

@njit(cache=True)
def random_tile(s, rng):
    """A tile uniform over the distinct legal resulting hex sets.

    Propose (open edge, orientation, tile cell) uniformly and put that cell on the
    missing hex beyond the edge. A legal tile with k contact edges is proposed by
    exactly k triples, so accepting it with probability 1/k makes every legal tile
    equally likely, without listing them all (hot path of every built game).
    """
    if s[H_NTILES] == 0:
        return rand_below(rng, 3), 0, 0
    n = s[H_NHEX]
    while True:
        x = rand_below(rng, n * 6 * 12)
        i = x // 72
        d = x % 6
        if nbr(s, i, d) >= 0:
            continue
        o = (x // 6) % 3
        c = (x // 18) % 4
        tq = s[Q + i] + DQ[d] - TILE_SHAPES[o, c, 0]
        tr = s[R + i] + DR[d] - TILE_SHAPES[o, c, 1]
        k = tile_contacts(s, o, tq, tr)
        if k > 0 and rand_below(rng, k) == 0:
            return o, tq, tr


@njit(cache=True)
def random_place(s, rng):
    """A starting hex uniform over the eligible empty hexes."""
    count = 0
    for i in range(s[H_NHEX]):
        if s[START + i] == 1 and s[HEIGHT + i] == 0:
            count += 1
    pick = rand_below(rng, count)
    for i in range(s[H_NHEX]):
        if s[START + i] == 1 and s[HEIGHT + i] == 0:
            if pick == 0:
                return i
            pick -= 1
    return -1


@njit(cache=True)
def random_move(s, rng):
    """A move uniform over (stack, direction, number of sheep) triples."""
    seat = s[H_TO_MOVE]
    total = 0
    # a stack's triples are its open directions times (height - 1): none for a single
    # sheep (every stack holds at least one), so no test
    for k in range(s[H_NSTACKS + seat]):
        i = stack_hex(s, seat, k)
        total += s[OPEN + i] * (s[HEIGHT + i] - 1)
    pick = rand_below(rng, total)
    for k in range(s[H_NSTACKS + seat]):
        i = stack_hex(s, seat, k)
        h = s[HEIGHT + i]
        if pick >= s[OPEN + i] * (h - 1):
            pick -= s[OPEN + i] * (h - 1)
            continue
        # the pick is on this stack: its directions in order, h - 1 counts each
        for d in range(6):
            j = nbr(s, i, d)
            if j < 0 or s[HEIGHT + j] != 0:
                continue
            if pick < h - 1:
                return i, d, pick + 1
            pick -= h - 1
    return -1, -1, -1


# --- the position evaluation: progress, the search's cut-off score, policy territory --

# Scratch of `standing`, int32: per hex its distance and the seats at that distance (a
# bit set), each at 1 + hex so that slot 0 stands for "off the pasture" (a neighbour
# nbr(s, i, d) = -1 is read at 0 without a test); the queue of the flood fill (one
# slot more, written and not kept when nothing is new); per seat the empty pastures it
# reaches first, and its spare sheep.
EV_DIST = 0
EV_SEATS = EV_DIST + MAX_HEX + 1
EV_QUEUE = EV_SEATS + MAX_HEX + 1
EV_FIRST = EV_QUEUE + MAX_HEX + 1
EV_SPARE = EV_FIRST + MAX_PLAYERS
EV_SIZE = EV_SPARE + MAX_PLAYERS
EV_FAR = MAX_HEX            # not reached yet (a path visits each hex once, so no distance is this)
EV_WALL = -1                # off the pasture or occupied: never reached
# mobility's weight: a seat's mobility is at most its sheep less one (stack_size <= 32),
# so the tie-break stays below one pasture; a power of 2, so the sums are exact
EV_MOBILITY = 1.0 / 32


@njit(cache=True)
def standing(s, out, work):
    """Each seat's estimate of the pastures it will end with, into out[seat] (float64):

        occupied + min(first, spare) + mobility / 32

    occupied  the pastures its stacks stand on (the score);
    first     the empty pastures it reaches before every other seat: a flood fill over
              the empty pastures from every stack that can move (2 sheep or more, an
              empty neighbour), all seats at once; a pasture at equal distance from
              two seats, or reached by none, counts for nobody (a Voronoi split);
    spare     the sheep it can still spread: height - 1 summed over its stacks that
              can move (a stack of one, or with no empty neighbour, never moves again,
              for pastures only fill), each new pasture takes at least one;
    mobility  policy greedy's: min(height - 1, empty neighbours) summed over its stacks,
              as a tie-break worth less than one pasture in all.

    Once the game is over it is the score exactly (nobody can move under no_move=skip;
    the other options end the game with moves left, which count no more). Distance is
    steps between neighbouring pastures, not slides, so the cost is one pass over hexes
    and directions: the driver samples it at every round's start. The flood fill has no
    branch but the queue's: they mispredict on irregular pastures, as in greedy.
    `work` is int32[EV_SIZE] scratch; reference.standing is the readable definition.
    """
    p = s[H_PLAYERS]
    n = s[H_NHEX]
    movers = 0
    for q in range(p):
        out[q] = s[H_NSTACKS + q]
        work[EV_FIRST + q] = 0
        spare = 0
        mobile = 0
        for k in range(s[H_NSTACKS + q]):
            i = stack_hex(s, q, k)
            h = s[HEIGHT + i]
            o = s[OPEN + i]
            if (h >= 2) & (o > 0):
                work[EV_QUEUE + movers] = 1 + i
                movers += 1
                spare += h - 1
                mobile += min(h - 1, o)
        out[q] += EV_MOBILITY * mobile
        work[EV_SPARE + q] = spare
    if s[H_PHASE] == PH_OVER or movers == 0:
        for q in range(p):
            out[q] = s[H_NSTACKS + q]
        return
    work[EV_DIST] = EV_WALL
    work[EV_SEATS] = 0
    for i in range(n):
        empty = s[HEIGHT + i] == 0
        work[EV_DIST + 1 + i] = EV_WALL + empty * (EV_FAR - EV_WALL)
        work[EV_SEATS + 1 + i] = 0
    for m in range(movers):
        j = work[EV_QUEUE + m]
        work[EV_DIST + j] = 0
        work[EV_SEATS + j] = 1 << s[OWNER + j - 1]
    # breadth first, so a hex's seats are complete before it is expanded: the seats of
    # every neighbour one step nearer, i.e. every seat at the least distance
    head = 0
    top = movers
    while head < top:
        j = work[EV_QUEUE + head]
        head += 1
        d = work[EV_DIST + j] + 1
        seats = work[EV_SEATS + j]
        for e in range(6):
            k = nbr(s, j - 1, e) + 1
            dk = work[EV_DIST + k]
            new = dk == EV_FAR
            work[EV_DIST + k] = dk + new * (d - dk)
            work[EV_QUEUE + top] = k
            top += new
            work[EV_SEATS + k] |= seats * (new | (dk == d))
    for i in range(n):
        seats = work[EV_SEATS + 1 + i]
        if (s[HEIGHT + i] == 0) & (seats != 0) & (seats & (seats - 1) == 0):
            work[EV_FIRST + trailing_zeros(seats)] += 1
    for q in range(p):
        out[q] += min(work[EV_FIRST + q], work[EV_SPARE + q])


# --- the engine contract (games/driver.py) ------------------------------------------

ACTION_SIZE = 4


@njit(cache=True)
def start(s, rules, aux, rng):
    """The game starts from the state in `aux` (game.initial_state: an empty or preset
    pasture, or a position file)."""
    for k in range(STATE_SIZE):     # an explicit loop vectorises; s[:] = aux did not
        s[k] = aux[k]


@njit(cache=True, inline="always")
def actor(s, rules):
    if s[H_PHASE] == PH_OVER:
        return -1
    if s[H_PHASE] == PH_BUILD and rules[R_BOARD] == BOARD_RANDOM:
        return NATURE
    return s[H_TO_MOVE]


@njit(cache=True)
def legal(s, rules, aux, buf):
    return legal_actions(s, rules, buf)


@njit(cache=True, inline="always")
def nature(s, rules, aux, rng):
    """Option board=random: a uniform legal build, independent of the policies."""
    o, q, r = random_tile(s, rng)
    return KIND_TILE, o, q, r


@njit(cache=True, inline="always")
def chance(s, rules, aux, action, rng):
    return -1


@njit(cache=True)
def step(s, rules, aux, action, outcome):
    apply(s, rules, action[0], action[1], action[2], action[3])


@njit(cache=True)
def progress(s, rules, out):
    """Each seat's standing on the game's own scale, into out[seat] (float64): the
    pastures it can expect to end with (`standing`), the score once the game is over."""
    standing(s, out, np.empty(EV_SIZE, dtype=np.int32))


def census(s, rules, aux) -> np.ndarray:
    """Every sheep of every seat, wherever it is: on the pasture, or in the starting
    stack not yet placed. The conformance suite checks that it never changes."""
    n = int(s[H_NHEX])
    owners, heights = s[OWNER:OWNER + n], s[HEIGHT:HEIGHT + n]
    p = int(s[H_PLAYERS])
    return np.array([int(heights[owners == q].sum()) + (int(rules[R_STACK]) if s[H_NSTACKS + q] == 0 else 0)
                     for q in range(p)])


# The kernels' sizes and random streams (driver.Shape). Stream 0 of game g is the
# board (option board=random, `nature`); 1 + s is seat s's policy. Battle Sheep has no
# other luck (luck = policy). Streams are tied to seats, not to policies, so rotating
# policies over seats keeps common random numbers aligned.
SHAPE = Shape(STATE_SIZE, MAX_ACTIONS, ACTION_SIZE, luck=1, policy=1, streams=1 + MAX_PLAYERS,
              rotation=O_ROTATION, max_players=MAX_PLAYERS, cowinners=O_COWINNERS)
