"""Hiboufou kernels: state layout, deal, legal decisions, step, outcome.

Rules, decisions and rulings are those of model.py (the specification); rule options
come packed by rules.to_array (R_* slots) and the deck as an int32 array of colour
masks by card id (rules.deck_array). State is ONE int32 vector:

    header [0, HEADER)            H_* slots below
    SIZE   [MAX_PLAYERS]          hand sizes (public)
    HAND   [MAX_PLAYERS * MC]     seat p's card ids, ascending, in HAND[p*MC : p*MC + SIZE[p]]
                                  (hidden from the other seats)
    ROWN   [NSPACES]              pile heights of LEFT, CENTRE, RIGHT (0 = empty space)
    ROW    [NSPACES * MC]         piles, bottom first: the top of space x is ROW[x*MC + ROWN[x] - 1]
    PILE   [MC]                   the dealt draw pile, top first; cards PILE[H_PTOP:H_PEND] remain
    NCAPT  [MAX_PLAYERS]          captured counts (public)
    CAPT   [MAX_PLAYERS * MC]     captured card ids in capture order (each pile bottom -> top)
    LAST   [MAX_PLAYERS]          turn of each seat's latest capture, -1 if none

            LEFT        CENTRE       RIGHT
          +-------+   +-------+   +-------+
    top ->|ROW[..]|   |       |   |       |   neighbours: LEFT-CENTRE, CENTRE-RIGHT
          |  ...  |   |       |   |       |
          +-------+   +-------+   +-------+

(MC = MAX_CARDS.) Only the slots below the sizes are meaningful; `deal` resets the
header and sizes, not the whole vector. Kernels trust their inputs.

The contract's hooks (games/driver.py): start = deal, legal, outcome, and at the end
actor, nature, chance, step; an action is (code, a, b). The shuffle at the deal fixes
the draw pile's order, so no decision has luck of its own.
"""

import numpy as np
from numba import njit

from ...rng import rand_below
from ..driver import Shape
from .model import (CAPTURE_CONDITIONS, CENTRE, DRAW, END, FREE, HAND_SIZE, HAND_EMPTIED, LEFT, MAX_PER_TURN,
                    NSPACES, PLAY, RIGHT, STRICT, TB_FEWEST_CARDS, TB_LAST_CAPTURE)
from .model import MAX_PLAYERS as _MODEL_MAX_PLAYERS
from .rules import (MAX_CARDS, R_CAPTURE, R_INITIAL_SLOT, R_MANDATORY, R_MATCH_COVERED, R_PLAY_AFTER_DRAW,
                    R_PLAYERS, R_PRIORITY, R_TIEBREAK, R_TURN_CAP)

VERSION = 1
MAX_PLAYERS = _MODEL_MAX_PLAYERS
MC = MAX_CARDS
# a hand holds at most every card; each card has at most 3 spaces, plus END
MAX_DECISIONS = NSPACES * MAX_CARDS + 1
assert len(CAPTURE_CONDITIONS) == 2

(H_PLAYERS, H_NCARDS, H_ACTOR, H_TURN, H_LAID, H_DREW, H_OVER, H_CAPPED, H_PTOP, H_PEND, H_STUCK,
 H_DECISIONS) = range(12)
HEADER = 16
SIZE = HEADER
HAND = SIZE + MAX_PLAYERS
ROWN = HAND + MAX_PLAYERS * MC
ROW = ROWN + NSPACES
PILE = ROW + NSPACES * MC
NCAPT = PILE + MC
CAPT = NCAPT + MAX_PLAYERS
LAST = CAPT + MAX_PLAYERS * MC
STATE_SIZE = LAST + MAX_PLAYERS

# outcome row: winner (-1 if shared), cowinners as a seat bitmask, completed turns,
# capped (0/1), forced draws made (STUCK), decisions, policy rotation, then captured
# cards per seat
O_WINNER, O_COWINNERS, O_TURNS, O_CAPPED, O_STUCK, O_DECISIONS, O_ROTATION = range(7)
O_CAPTURES = 8
O_SIZE = O_CAPTURES + MAX_PLAYERS


@njit(cache=True, inline="always")
def top_mask(s, deck, space):
    """Colour mask of the top card of a space, 0 for an empty space."""
    n = s[ROWN + space]
    return deck[s[ROW + space * MC + n - 1]] if n > 0 else 0


@njit(cache=True, inline="always")
def _space_masks(s, rules, deck, space):
    """Base legality (model "Placement") of `space`, read once per decision point:
    (a, b, c) such that a card of colour mask m fits iff m shares a colour with each
    of a, b and c. -1 is no constraint (every card has a colour); a = 0 closes the
    space."""
    left = s[ROWN + LEFT] > 0
    centre = s[ROWN + CENTRE] > 0
    right = s[ROWN + RIGHT] > 0
    here = s[ROWN + space] > 0
    occupied_neighbour = (left or right) if space == CENTRE else centre
    # rules: new cards are laid next to existing ones, unless the row is empty
    if not here and not occupied_neighbour and (left or centre or right):
        return 0, -1, -1
    # adjacency: a colour shared with the top of every occupied neighbour
    a, b, c = -1, -1, -1
    if space == CENTRE:
        if left:
            a = top_mask(s, deck, LEFT)
        if right:
            b = top_mask(s, deck, RIGHT)
    elif centre:
        a = top_mask(s, deck, CENTRE)
    # option match_covered_card: also match the covered card
    if here and rules[R_MATCH_COVERED] == 1:
        c = top_mask(s, deck, space)
    return a, b, c


@njit(cache=True, inline="always")
def row_masks(s, rules, deck):
    """_space_masks of LEFT, CENTRE and RIGHT, one flat 9-tuple."""
    a0, b0, c0 = _space_masks(s, rules, deck, LEFT)
    a1, b1, c1 = _space_masks(s, rules, deck, CENTRE)
    a2, b2, c2 = _space_masks(s, rules, deck, RIGHT)
    return a0, b0, c0, a1, b1, c1, a2, b2, c2


# Sets of spaces are 3-bit masks, bit x = space x.
ALL_SPACES = 7
_POPCOUNT3 = 0xE994     # the size of set f is (_POPCOUNT3 >> 2f) & 3


@njit(cache=True, inline="always")
def space_count(f):
    return (_POPCOUNT3 >> (2 * f)) & 3


@njit(cache=True, inline="always")
def fit_set(m, k):
    """The spaces a card of colour mask m may be laid on, given the row_masks k;
    without branches, which the cards would make unpredictable."""
    return (((m & k[0] != 0) & (m & k[1] != 0) & (m & k[2] != 0))
            + 2 * ((m & k[3] != 0) & (m & k[4] != 0) & (m & k[5] != 0))
            + 4 * ((m & k[6] != 0) & (m & k[7] != 0) & (m & k[8] != 0)))


@njit(cache=True, inline="always")
def empty_set(s):
    return (s[ROWN + LEFT] == 0) + 2 * (s[ROWN + CENTRE] == 0) + 4 * (s[ROWN + RIGHT] == 0)


@njit(cache=True, inline="always")
def open_set(s, rules, union):
    """The spaces the empty-space priority (option empty_slot_priority) leaves open to a
    hand whose cards fit the spaces `union`. fill_if_possible: only the empty ones while
    some card fits one; strict: only the empty ones while any space is empty."""
    prio = rules[R_PRIORITY]
    empty = empty_set(s)
    if prio == FREE or empty == 0:
        return ALL_SPACES
    if prio == STRICT or union & empty != 0:
        return empty
    return ALL_SPACES


@njit(cache=True, inline="always")
def hand_union(s, deck, seat, k):
    """The union of the fit sets of seat's cards."""
    union = 0
    base = HAND + seat * MC
    for i in range(s[SIZE + seat]):
        union |= fit_set(deck[s[base + i]], k)
    return union


# legal_plays, legal and apply are inlined into the game loop (driver.py), which
# also hands them raw pointers: calls and reference counting were a third of a game.
# Inlining the rest (end of turn, end test) made the cold compile minutes long.
@njit(cache=True, inline="always")
def legal_plays(s, rules, deck, seat, buf, start):
    """Write seat's legal (PLAY, card, space) rows to buf[start:], sorted by card then
    space, after the empty-space priority; return how many."""
    k = row_masks(s, rules, deck)
    allowed = open_set(s, rules, hand_union(s, deck, seat, k))
    n = start
    base = HAND + seat * MC
    for i in range(s[SIZE + seat]):
        c = s[base + i]
        f = fit_set(deck[c], k) & allowed
        for x in range(NSPACES):
            if f >> x & 1:
                buf[n, 0] = PLAY
                buf[n, 1] = c
                buf[n, 2] = x
                n += 1
    return n - start


@njit(cache=True)
def can_play(s, rules, deck, seat):
    """Does seat have any legal PLAY?"""
    union = hand_union(s, deck, seat, row_masks(s, rules, deck))
    return union & open_set(s, rules, union) != 0


@njit(cache=True, inline="always")
def closing_decision(s, rules, n):
    """What follows the actor's n legal plays in the decision list: END (after the
    first card a seat may always stop; before it only without mandatory_play),
    DRAW (nothing can be laid), or -1 (nothing)."""
    if s[H_LAID] > 0 or (n > 0 and rules[R_MANDATORY] == 0):
        return END
    return DRAW if n == 0 else -1


@njit(cache=True)
def legal(s, rules, deck, buf):
    """Fill buf (int32[MAX_DECISIONS, 3]) with the actor's sorted legal decisions
    (model "Decisions"); return the count (0 once the game is over)."""
    if s[H_OVER]:
        return 0
    n = legal_plays(s, rules, deck, s[H_ACTOR], buf, 0)
    last = closing_decision(s, rules, n)
    if last >= 0:
        buf[n, 0] = last
        buf[n, 1] = 0
        buf[n, 2] = 0
        n += 1
    return n


# --- setup ---------------------------------------------------------------------------

@njit(cache=True, inline="always")
def _insert(s, seat, card):
    """Put card into seat's hand, keeping it sorted."""
    base = HAND + seat * MC
    i = s[SIZE + seat]
    while i > 0 and s[base + i - 1] > card:
        s[base + i] = s[base + i - 1]
        i -= 1
    s[base + i] = card
    s[SIZE + seat] += 1


@njit(cache=True, inline="always")
def _remove(s, seat, card):
    base = HAND + seat * MC
    n = s[SIZE + seat]
    i = 0
    while s[base + i] != card:
        i += 1
    for j in range(i, n - 1):
        s[base + j] = s[base + j + 1]
    s[SIZE + seat] = n - 1


@njit(cache=True)
def setup(s, rules, deck, order):
    """Set up from `order`, the shuffled card ids, first dealt first (model "Setup")."""
    n = deck.shape[0]
    for k in range(n):
        s[PILE + k] = order[k]
    _setup_from_pile(s, rules, deck, n)


@njit(cache=True)
def _setup_from_pile(s, rules, deck, n):
    """`setup` with the n shuffled card ids already in the PILE region (no array for
    the order: `deal` shuffles there)."""
    p = rules[R_PLAYERS]
    for k in range(HEADER):
        s[k] = 0
    s[H_PLAYERS] = p
    s[H_NCARDS] = n
    for q in range(MAX_PLAYERS):
        s[SIZE + q] = 0
        s[NCAPT + q] = 0
        s[LAST + q] = -1
    for x in range(NSPACES):
        s[ROWN + x] = 0
    # 3 each, one at a time, clockwise from seat 0
    for k in range(HAND_SIZE * p):
        _insert(s, k % p, s[PILE + k])
    first = CENTRE if rules[R_INITIAL_SLOT] == 0 else LEFT    # option initial_slot
    s[ROW + first * MC] = s[PILE + HAND_SIZE * p]
    s[ROWN + first] = 1
    # the rest, in order, is the draw pile (moved down: every source is above its target)
    rest = n - HAND_SIZE * p - 1
    for k in range(rest):
        s[PILE + k] = s[PILE + HAND_SIZE * p + 1 + k]
    s[H_PTOP] = 0
    s[H_PEND] = rest
    _check_end(s, rules, deck)    # ruling: the end test also runs right after setup


@njit(cache=True)
def _shuffle_into(a, base, n, rng):
    """a[base:base + n] = card ids 0..n-1 shuffled by Fisher-Yates from the last
    position with `rng` (first dealt first); `a` an array or the state pointer."""
    for i in range(n):
        a[base + i] = i
    for i in range(n - 1, 0, -1):
        j = rand_below(rng, i + 1)
        a[base + i], a[base + j] = a[base + j], a[base + i]


@njit(cache=True)
def shuffled_order(n, rng):
    """The shuffle `deal` makes, as an array (tests feed it to the reference engine)."""
    order = np.empty(n, dtype=np.int32)
    _shuffle_into(order, 0, n, rng)
    return order


@njit(cache=True)
def deal(s, rules, deck, rng):
    """Shuffle the card ids with `rng` and set up (the contract's `start`)."""
    n = deck.shape[0]
    _shuffle_into(s, PILE, n, rng)
    _setup_from_pile(s, rules, deck, n)


# --- transitions ---------------------------------------------------------------------

@njit(cache=True)
def _check_end(s, rules, deck):
    """Rules: the draw pile is empty and no seat can play; else the turn cap."""
    if s[H_PTOP] == s[H_PEND]:
        stuck = True
        for q in range(s[H_PLAYERS]):
            if can_play(s, rules, deck, q):
                stuck = False
                break
        if stuck:
            s[H_OVER] = 1
            s[H_ACTOR] = -1
            return
    if s[H_TURN] >= rules[R_TURN_CAP]:
        s[H_OVER] = 1
        s[H_CAPPED] = 1
        s[H_ACTOR] = -1


@njit(cache=True)
def _end_turn(s, rules, deck, refill):
    seat = s[H_ACTOR]
    if refill:
        while s[SIZE + seat] < HAND_SIZE and s[H_PTOP] < s[H_PEND]:
            _insert(s, seat, s[PILE + s[H_PTOP]])
            s[H_PTOP] += 1
    s[H_TURN] += 1
    s[H_LAID] = 0
    s[H_DREW] = 0
    s[H_ACTOR] = seat + 1 if seat + 1 < s[H_PLAYERS] else 0     # not %: a division is slow
    _check_end(s, rules, deck)


@njit(cache=True, inline="always")
def apply(s, rules, deck, code, a, b):
    """Apply the actor's legal decision (code, a, b) (model "Transitions")."""
    seat = s[H_ACTOR]
    s[H_DECISIONS] += 1
    if code == PLAY:
        _remove(s, seat, a)
        h = s[ROWN + b]
        s[ROW + b * MC + h] = a
        s[ROWN + b] = h + 1
        s[H_LAID] += 1
        empty = s[SIZE + seat] == 0
        if rules[R_CAPTURE] == HAND_EMPTIED:
            capture = empty
        else:
            capture = empty and s[H_LAID] == MAX_PER_TURN
        if capture:
            # the whole pile the last card went on, bottom to top; the space empties
            nc = s[NCAPT + seat]
            for k in range(h + 1):
                s[CAPT + seat * MC + nc + k] = s[ROW + b * MC + k]
            s[NCAPT + seat] = nc + h + 1
            s[ROWN + b] = 0
            s[LAST + seat] = s[H_TURN]
            _end_turn(s, rules, deck, True)
        elif s[H_LAID] == MAX_PER_TURN:
            _end_turn(s, rules, deck, True)
    elif code == END:
        _end_turn(s, rules, deck, True)
    else:
        # forced draw: the top card, or a pass when the pile is empty
        s[H_STUCK] += 1
        if s[H_PTOP] < s[H_PEND]:
            _insert(s, seat, s[PILE + s[H_PTOP]])
            s[H_PTOP] += 1
        s[H_DREW] = 1
        if not (rules[R_PLAY_AFTER_DRAW] == 1 and can_play(s, rules, deck, seat)):
            _end_turn(s, rules, deck, False)


@njit(cache=True)
def outcome(s, rules, row):
    """Write the O_* columns of a finished game into `row` (int32[O_SIZE]).
    Most captured cards wins; ties by option tiebreak."""
    p = s[H_PLAYERS]
    best = -1
    for q in range(p):
        best = max(best, s[NCAPT + q])
    tied = 0
    for q in range(p):
        if s[NCAPT + q] == best:
            tied |= 1 << q
    several = tied & (tied - 1) != 0
    if several and rules[R_TIEBREAK] == TB_FEWEST_CARDS:
        fewest = MC + 1
        for q in range(p):
            if tied >> q & 1:
                fewest = min(fewest, s[SIZE + q])
        keep = 0
        for q in range(p):
            if tied >> q & 1 and s[SIZE + q] == fewest:
                keep |= 1 << q
        tied = keep
    elif several and rules[R_TIEBREAK] == TB_LAST_CAPTURE:
        latest = -1
        for q in range(p):
            if tied >> q & 1:
                latest = max(latest, s[LAST + q])
        if latest >= 0:     # one capture per turn: the latest capturer is unique
            keep = 0
            for q in range(p):
                if tied >> q & 1 and s[LAST + q] == latest:
                    keep |= 1 << q
            tied = keep
    row[:] = 0
    row[O_WINNER] = -1
    if tied & (tied - 1) == 0:
        for q in range(p):
            if tied >> q & 1:
                row[O_WINNER] = q
    row[O_COWINNERS] = tied
    row[O_TURNS] = s[H_TURN]
    row[O_CAPPED] = s[H_CAPPED]
    row[O_STUCK] = s[H_STUCK]
    row[O_DECISIONS] = s[H_DECISIONS]
    for q in range(p):
        row[O_CAPTURES + q] = s[NCAPT + q]


def census(s, rules, aux) -> np.ndarray:
    """How often each card id lies somewhere (hands, piles, the draw pile, captured
    cards): all ones while every card is in exactly one place. The conformance suite
    checks that it never changes."""
    d = to_dict(s)
    cards = [c for part in ("hands", "row", "captured") for group in d[part] for c in group] + d["pile"]
    return np.bincount(np.array(cards, dtype=np.int64), minlength=int(s[H_NCARDS]))


# --- the rest of the engine contract (games/driver.py) --------------------------------

ACTION_SIZE = 3
start = deal


@njit(cache=True, inline="always")
def actor(s, rules):
    return -1 if s[H_OVER] else s[H_ACTOR]


@njit(cache=True, inline="always")
def nature(s, rules, aux, rng):
    """The rules make no decision of their own (never called)."""
    return END, 0, 0


@njit(cache=True, inline="always")
def chance(s, rules, aux, action, rng):
    return -1


@njit(cache=True, inline="always")
def step(s, rules, deck, action, outcome):
    apply(s, rules, deck, action[0], action[1], action[2])



# --- hidden information and standing: determinize, progress (games/driver.py) ---------
#
# What seat o may know (policies.py): its own hand, every face in the row, the
# captured lists (each card was face up in the row), hand sizes, captured counts, the
# draw pile's size and the header. Hidden from o: the other hands and the draw pile's
# content and order. The state keeps no history, so nothing else constrains them.

@njit(cache=True)
def determinize(s, rules, deck, seat, rng):
    """Re-deal in place everything `seat` cannot see (above), drawing only from `rng`
    (uint64[4]). `s` is the state array or its pointer; `deck` the card masks.

    The unseen cards (every card id not in the seat's hand, the row or a captured
    list) are shuffled as one pool (Fisher-Yates, rand_below) and dealt back: every
    other seat gets as many as it held, sorted as hands are kept, then the draw pile
    PILE[H_PTOP:H_PEND] in the shuffled order. Card ids are distinct, so every
    allocation (the other hands, the pile's order) is equally likely. Kept: the seat's
    hand, the row, the captured lists, every size and the header.

    The result depends only on what the seat knows and on `rng`: the pool is listed
    in card-id order before the shuffle. No allocation: the first other seat's HAND
    region (MC slots, re-dealt anyway) marks the unseen ids, and the pool is built in
    the slots past the seat's own hand (the pool is at most every card but the seat's
    hand and the row or captured cards, of which there is always one, so it fits).
    Slots past a size, and PILE below H_PTOP, are not part of the state and are left
    stale.
    """
    p = s[H_PLAYERS]
    n = s[H_NCARDS]
    q0 = 1 if seat == 0 else 0
    unseen = HAND + q0 * MC                 # unseen[c] = 1: card c is in the pool
    for c in range(n):
        s[unseen + c] = 1
    own = HAND + seat * MC
    h = s[SIZE + seat]
    for i in range(h):
        s[unseen + s[own + i]] = 0
    for x in range(NSPACES):
        for i in range(s[ROWN + x]):
            s[unseen + s[ROW + x * MC + i]] = 0
    for q in range(p):
        for i in range(s[NCAPT + q]):
            s[unseen + s[CAPT + q * MC + i]] = 0
    # the pool in id order, past the seat's hand; a slot is written before it is
    # known to be kept (no branch on the cards), and never past the pool's size + 1
    pool = own + h
    m = 0
    for c in range(n):
        s[pool + m] = c
        m += s[unseen + c]
    for i in range(m - 1, 0, -1):
        j = rand_below(rng, i + 1)
        s[pool + i], s[pool + j] = s[pool + j], s[pool + i]
    at = pool
    for q in range(p):
        if q != seat:
            k = s[SIZE + q]
            s[SIZE + q] = 0
            for _ in range(k):
                _insert(s, q, s[at])
                at += 1
    for i in range(s[H_PTOP], s[H_PEND]):
        s[PILE + i] = s[at]
        at += 1


@njit(cache=True, inline="always")
def copy_state(dst, src, size):
    """The search's copy of a state (search/mcts.py's copy_state hook): the live slots
    only, the header, the sizes and what lies below them, PILE[H_PTOP:H_PEND] and LAST.
    The regions are sized for a 720-card deck file; the default deck fills about a
    hundred of the 10,114 slots, and the search copies the root at every iteration.
    (`size`, the whole vector, is not needed: the layout fixes every region.)"""
    for k in range(HAND):
        dst[k] = src[k]
    for q in range(src[H_PLAYERS]):
        for i in range(q * MC, q * MC + src[SIZE + q]):
            dst[HAND + i] = src[HAND + i]
    for x in range(NSPACES):
        dst[ROWN + x] = src[ROWN + x]
        for i in range(x * MC, x * MC + src[ROWN + x]):
            dst[ROW + i] = src[ROW + i]
    for i in range(PILE + src[H_PTOP], PILE + src[H_PEND]):
        dst[i] = src[i]
    for q in range(MAX_PLAYERS):
        dst[NCAPT + q] = src[NCAPT + q]
        dst[LAST + q] = src[LAST + q]
    for q in range(src[H_PLAYERS]):
        for i in range(q * MC, q * MC + src[NCAPT + q]):
            dst[CAPT + i] = src[CAPT + i]


@njit(cache=True)
def progress(s, rules, out):
    """Each seat's standing: out[q] = its captured cards, the score the rules count
    (float64[MAX_PLAYERS]; 0 for seats past the player count)."""
    p = s[H_PLAYERS]
    for q in range(MAX_PLAYERS):
        out[q] = s[NCAPT + q] if q < p else 0.0


def to_dict(s: np.ndarray) -> dict:
    """The state as reference.to_dict data (tests, trace)."""
    p = int(s[H_PLAYERS])
    return {
        "hands": [[int(c) for c in s[HAND + q * MC: HAND + q * MC + s[SIZE + q]]] for q in range(p)],
        "row": [[int(c) for c in s[ROW + x * MC: ROW + x * MC + s[ROWN + x]]] for x in range(NSPACES)],
        "pile": [int(c) for c in s[PILE + s[H_PTOP]: PILE + s[H_PEND]]],
        "captured": [[int(c) for c in s[CAPT + q * MC: CAPT + q * MC + s[NCAPT + q]]] for q in range(p)],
        "last_capture": [int(s[LAST + q]) for q in range(p)],
        "actor": int(s[H_ACTOR]),
        "turn": int(s[H_TURN]),
        "laid": int(s[H_LAID]),
        "drew": bool(s[H_DREW]),
        "over": bool(s[H_OVER]),
    }


# The kernels' sizes and random streams (driver.Shape). Stream 0 of game g deals the
# cards (the shuffle fixes the draw pile's order, so decisions need no luck of their
# own: luck = policy); 1 + s is seat s's policy. Rotating policies or changing a
# parameter keeps the deal identical.
SHAPE = Shape(STATE_SIZE, MAX_DECISIONS, ACTION_SIZE, luck=1, policy=1, streams=1 + MAX_PLAYERS,
              rotation=O_ROTATION, max_players=MAX_PLAYERS, cowinners=O_COWINNERS)
