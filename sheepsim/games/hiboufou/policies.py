"""Hiboufou policies (@njit) and the built-in dispatcher.

Signature (sheepsim/ARCHITECTURE.md, "Adding things"): policy(s, rules, deck, seat, params, rng, buf) ->
(code, a, b), a legal decision (model.py "Decisions") for `seat`, the actor. Hidden
information: a policy reads only what its seat may know: its own HAND row, the ROW
piles (faces are public), the draw pile size, hand SIZEs, captured counts NCAPT and
the turn header (laid, drew). It never reads PILE, other hands or CAPT lists.

* random:    uniform over the sorted legal decisions.
* greedy:    capture-seeking. If the actor can still capture this turn (its hand can
             be emptied with legal plays, laying exactly 3 cards in all under
             played3_and_empty), it plays the first card of the legal sequence that
             captures the biggest pile (ties: the earliest sequence in legal-list
             order, i.e. lowest card id, then lowest space, at every step). Otherwise:
             DRAW if that is the only decision; with more than 3 cards in hand it keeps
             laying (to get back to a hand it can empty in one turn) on the lowest pile
             (ties: legal-list order); else END if legal, else the PLAY on the lowest
             pile.
* defensive: capture when it can, exactly as greedy (a capture empties a space).
             Otherwise it minimises the biggest pile left in the row for the next
             seat: END leaves the current biggest pile, PLAY (c, x) leaves
             max(height of x + 1, biggest other pile). Ties go to END when it is legal
             (it adds no card to the row), then to the earliest PLAY in the list.
             DRAW when that is the only decision.

greedy and defensive are deterministic (they use neither params nor rng).
"""

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from ...rng import rand_below
from .engine import (ALL_SPACES, H_LAID, HAND, MC, ROWN, SIZE, closing_decision, empty_set, fit_set, legal,
                     legal_plays, open_set, row_masks, space_count, top_mask)
from .model import CENTRE, DRAW, END, FREE, HAND_EMPTIED, LEFT, MAX_PER_TURN, NSPACES, PLAY, RIGHT, STRICT
from .rules import R_CAPTURE, R_MATCH_COVERED, R_PRIORITY

RANDOM, GREEDY, DEFENSIVE = 0, 1, 2
LAST_BUILTIN = DEFENSIVE
NAMES = ("random", "greedy", "defensive")
SCRATCH_ROWS = 16     # best_capture's working rows (the driver's scratch has MAX_DECISIONS)


# Up to PACKED cards, the fit sets of a hand go in one integer, 3 bits a card, so that
# the chosen play is found by bit tricks instead of a loop of unpredictable branches.
PACKED = 21
_GROUPS = sum(1 << (3 * i) for i in range(PACKED))      # bit 0 of every 3-bit group


@njit(cache=True, inline="always")
def random_policy(s, rules, deck, seat, params, rng, buf):
    """Uniform over the legal decisions (model.py), at every decision point: decision
    number rand_below(rng, n) of the sorted list of n. The list is counted, not
    written out: the same decision as legal(...)[m], in a fraction of the time."""
    k = row_masks(s, rules, deck)
    base = HAND + seat * MC
    h = s[SIZE + seat]
    empty = empty_set(s)
    union = 0
    packed = 0
    n_all = 0           # plays onto any space ...
    n_empty = 0         # ... and onto empty spaces only
    for i in range(h):
        f = fit_set(deck[s[base + i]], k)
        union |= f
        if i < PACKED:
            packed |= f << (3 * i)
        n_all += space_count(f)
        n_empty += space_count(f & empty)
    allowed = open_set(s, rules, union)
    n = n_all if allowed == ALL_SPACES else n_empty
    last = closing_decision(s, rules, n)
    m = rand_below(rng, n + (last >= 0))
    if m == n:
        return last, 0, 0
    if h <= PACKED:
        # the m-th set bit of the allowed fit sets is the m-th play: bit 3i + x = card i on x
        packed &= _GROUPS * allowed
        for _ in range(m):
            packed &= packed - 1
        at = trailing_zeros(packed)
        return PLAY, s[base + at // NSPACES], at % NSPACES
    # a hand too big to pack (many forced draws): the plays as legal_plays lists them
    legal_plays(s, rules, deck, seat, buf, 0)
    return PLAY, buf[m, 1], buf[m, 2]


@njit(cache=True, inline="always")
def _mfits(tops, occ, d, mask, x, match):
    """model "Placement" on the look-ahead row tops[d], occ[d] (masks, heights)."""
    left = occ[d, LEFT] > 0
    centre = occ[d, CENTRE] > 0
    right = occ[d, RIGHT] > 0
    here = occ[d, x] > 0
    nb = (left or right) if x == CENTRE else centre
    if not here and not nb and (left or centre or right):
        return False
    if x == CENTRE:
        if left and mask & tops[d, LEFT] == 0:
            return False
        if right and mask & tops[d, RIGHT] == 0:
            return False
    elif centre and mask & tops[d, CENTRE] == 0:
        return False
    if here and match and mask & tops[d, x] == 0:
        return False
    return True


@njit(cache=True)
def _cover_ok(tops, occ, d, hm, h, used, match, prio):
    """May a pile be covered at look-ahead depth d (the empty-space priority)? fill_if_possible:
    only if no unused card fits an empty space; strict: only with no empty space."""
    if prio == FREE:
        return True
    if occ[d, LEFT] > 0 and occ[d, CENTRE] > 0 and occ[d, RIGHT] > 0:
        return True
    if prio == STRICT:
        return False
    for j in range(h):
        if not used >> j & 1:
            for y in range(NSPACES):
                if occ[d, y] == 0 and _mfits(tops, occ, d, hm[j], y, match):
                    return False
    return True


@njit(cache=True)
def best_capture(s, rules, deck, seat, scratch):
    """The first play (card, space) of the legal sequence emptying the hand that
    captures the biggest pile this turn, and that pile's size; (-1, -1, -1) if none.

    `scratch`: int32[>= SCRATCH_ROWS, >= NSPACES], the look-ahead's working rows
    (given, not allocated: this runs at most decisions of greedy and defensive)."""
    h = s[SIZE + seat]
    laid = s[H_LAID]
    room = MAX_PER_TURN - laid
    if h == 0 or h > room or (rules[R_CAPTURE] != HAND_EMPTIED and h != room):
        return -1, -1, -1
    match = rules[R_MATCH_COVERED] == 1
    prio = rules[R_PRIORITY]
    tops = scratch[0:4]           # look-ahead row by depth: top masks ...
    occ = scratch[4:8]            # ... and pile heights
    hm = scratch[8]               # hand masks
    hc = scratch[9]               # hand card ids
    seq_i = scratch[10]           # chosen card index by depth
    seq_x = scratch[11]           # chosen space by depth
    codes = scratch[12]           # loop position by depth
    for i in range(h):
        hc[i] = s[HAND + seat * MC + i]
        hm[i] = deck[hc[i]]
    for x in range(NSPACES):
        tops[0, x] = top_mask(s, deck, x)
        occ[0, x] = s[ROWN + x]
    best, bc, bx = -1, -1, -1
    # sequences = (card index, space) per depth; enumerate in legal-list order
    d = 0
    used = 0
    cover = scratch[13]           # _cover_ok by depth
    cover[0] = _cover_ok(tops, occ, 0, hm, h, used, match, prio)
    code = 0                     # next (i, x) to try at depth d, as i * 3 + x
    while True:
        if code >= h * NSPACES:
            if d == 0:
                break
            d -= 1
            used &= ~(1 << seq_i[d])
            code = codes[d] + 1
            continue
        i = code // NSPACES
        x = code % NSPACES
        if used >> i & 1 or (occ[d, x] > 0 and not cover[d]) or not _mfits(tops, occ, d, hm[i], x, match):
            code += 1
            continue
        if d == h - 1:
            # the last card empties the hand: capture the pile it lands on
            size = occ[d, x] + 1
            if size > best:
                best = size
                if d == 0:
                    bc, bx = hc[i], x
                else:
                    bc, bx = hc[seq_i[0]], seq_x[0]
            code += 1
            continue
        seq_i[d] = i
        seq_x[d] = x
        codes[d] = code
        for y in range(NSPACES):
            tops[d + 1, y] = tops[d, y]
            occ[d + 1, y] = occ[d, y]
        tops[d + 1, x] = hm[i]
        occ[d + 1, x] += 1
        used |= 1 << i
        d += 1
        cover[d] = _cover_ok(tops, occ, d, hm, h, used, match, prio)
        code = 0
    return bc, bx, best


@njit(cache=True, inline="always")
def _lowest_play(s, buf, n):
    """Index of the PLAY on the lowest pile (ties: list order), -1 if none."""
    k = -1
    low = 1 << 30
    for j in range(n):
        if buf[j, 0] == PLAY and s[ROWN + buf[j, 2]] < low:
            low = s[ROWN + buf[j, 2]]
            k = j
    return k


@njit(cache=True)
def greedy(s, rules, deck, seat, params, rng, buf):
    """Capture the biggest pile reachable this turn; else see the module docstring."""
    return _greedy(s, rules, deck, seat, buf, np.empty((SCRATCH_ROWS, NSPACES), dtype=np.int32))


@njit(cache=True)
def _greedy(s, rules, deck, seat, buf, scratch):
    n = legal(s, rules, deck, buf)
    if buf[0, 0] == DRAW:
        return DRAW, 0, 0
    c, x, size = best_capture(s, rules, deck, seat, scratch)
    if size > 0:
        return PLAY, c, x
    k = _lowest_play(s, buf, n)
    end_legal = buf[n - 1, 0] == END
    if k >= 0 and (s[SIZE + seat] > MAX_PER_TURN or not end_legal):
        return buf[k, 0], buf[k, 1], buf[k, 2]
    return END, 0, 0


@njit(cache=True)
def defensive(s, rules, deck, seat, params, rng, buf):
    """Capture when possible; else leave the smallest biggest pile (module docstring)."""
    return _defensive(s, rules, deck, seat, buf, np.empty((SCRATCH_ROWS, NSPACES), dtype=np.int32))


@njit(cache=True)
def _defensive(s, rules, deck, seat, buf, scratch):
    n = legal(s, rules, deck, buf)
    if buf[0, 0] == DRAW:
        return DRAW, 0, 0
    c, x, size = best_capture(s, rules, deck, seat, scratch)
    if size > 0:
        return PLAY, c, x
    biggest = max(s[ROWN + LEFT], max(s[ROWN + CENTRE], s[ROWN + RIGHT]))
    if buf[n - 1, 0] == END:
        best_k = n - 1
        best_v = biggest
    else:
        best_k = -1
        best_v = 1 << 30
    for j in range(n):
        if buf[j, 0] != PLAY:
            continue
        y = buf[j, 2]
        v = s[ROWN + y] + 1
        for z in range(NSPACES):
            if z != y:
                v = max(v, s[ROWN + z])
        if v < best_v:
            best_v = v
            best_k = j
    return buf[best_k, 0], buf[best_k, 1], buf[best_k, 2]


@njit(cache=True, inline="always")
def choose(policy_id, s, rules, deck, seat, params, rng, buf, scratch):
    if policy_id == DEFENSIVE:
        return _defensive(s, rules, deck, seat, buf, scratch)
    return choose_rollout(policy_id, s, rules, deck, seat, params, rng, buf, scratch)


@njit(cache=True, inline="always")
def choose_rollout(policy_id, s, rules, deck, seat, params, rng, buf, scratch):
    """`choose` cut to the search's rollout policies, greedy and random (its Engine record's rollout_random and rollout_greedy).
    The search inlines its rollout's dispatcher; with every built-in in it, the search
    kernel took 74 s to compile, against 44 s (measured on this machine, one core)."""
    if policy_id == GREEDY:
        return _greedy(s, rules, deck, seat, buf, scratch)
    return random_policy(s, rules, deck, seat, params, rng, buf)


@njit(cache=True)
def no_user_policies(policy_id, s, rules, deck, seat, params, rng, buf):
    """The user-policy dispatcher of the built-in kernels (games/kernels.py): play_game calls the
    built-ins itself, so this is never called, and `choose` is not compiled twice."""
    return 0, 0, 0
