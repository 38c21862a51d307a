"""Bobby Sitter kernels: state layout, setup, one flip, outcome (all @njit).

The rules are model.py's specification. State is ONE int32 vector (`STATE_SIZE`):

    slot               meaning
    H_FLIPPER          seat to flip next (-1 once the game is over)
    H_FLIPS            flips made
    H_RESHUFFLES       reshuffles (the initial shuffle does not count)
    H_STOCK            tokens in the stock
    H_MINTED           tokens created for a SHEEP winner facing an empty stock
                       (empty_stock=unlimited_tokens only)
    H_BOBBY            BOBBY counters left in the centre
    H_WINNER           winning seat, -1 (none yet, or a draw)
    H_CAPPED           1 if the flip cap ended the game
    H_NCARDS           cards in the deck
    H_ACTIVE           seats still in the game
    TOKENS + q         seat q's tokens
    ALIVE + q          1 while seat q is in the game (0 once eliminated)
    PENALTIES + q      tokens seat q lost reacting to a no-react card
    WOLF_LOSSES + q    tokens seat q lost on WOLF cards
    SHEEP_GAINS + q    tokens seat q won on SHEEP cards
    OFF/LEN/POS + r    stack region r: its cards are ORDER[OFF .. OFF + LEN); the next
                       card to flip is ORDER[OFF + POS], the ones before it are the
                       region's discard in flip order. Shared mode uses region 0 only;
                       per_player mode region q = seat q's own stack.
    ORDER + i          card ids (MAX_CARDS slots)

Cards are int32 codes (rules.deck_array): class = code & 3, sheep = code >> 2.
Randomness (play.py): stream 0 shuffles, stream 1 + q is seat q's player model.
"""

import numpy as np
from numba import njit

from ...rng import rand_below
from .model import EMPTY, GRAB_BOBBY, GRAB_SHEEP, HIDDEN, MAX_CARDS, MAX_PLAYERS, NONE, SHEEP, WOLF
from .rules import (CAP_DRAW, NO_GAIN, ONE, PER_PLAYER, R_CAP_RESOLUTION, R_EMPTY_STOCK, R_FLIP_CAP,
                    R_LAST_STANDING, R_MAX_LOSS, R_PLAYERS, R_RACE_PENALTY, R_STACK_MODE,
                    R_START, R_TARGET, R_TOKENS, R_WRONG_PENALTY)

VERSION = 1

(H_FLIPPER, H_FLIPS, H_RESHUFFLES, H_STOCK, H_MINTED, H_BOBBY, H_WINNER, H_CAPPED, H_NCARDS,
 H_ACTIVE) = range(10)
TOKENS = 16
ALIVE = TOKENS + MAX_PLAYERS
PENALTIES = ALIVE + MAX_PLAYERS
WOLF_LOSSES = PENALTIES + MAX_PLAYERS
SHEEP_GAINS = WOLF_LOSSES + MAX_PLAYERS
OFF = SHEEP_GAINS + MAX_PLAYERS
LEN = OFF + MAX_PLAYERS
POS = LEN + MAX_PLAYERS
ORDER = POS + MAX_PLAYERS
STATE_SIZE = ORDER + MAX_CARDS

# Outcome row (int32 columns); cowinners = 1 << winner, 0 for a draw.
O_WINNER, O_COWINNERS, O_TURNS, O_CAPPED, O_ROTATION, O_RESHUFFLES = range(6)
O_TOKENS = 6
O_ELIMINATED = O_TOKENS + MAX_PLAYERS
O_PENALTIES = O_ELIMINATED + MAX_PLAYERS
O_WOLF_LOSSES = O_PENALTIES + MAX_PLAYERS
O_SHEEP_GAINS = O_WOLF_LOSSES + MAX_PLAYERS
O_SIZE = O_SHEEP_GAINS + MAX_PLAYERS


@njit(cache=True)
def _shuffle(s, lo, n, rng):
    """Fisher-Yates over ORDER[lo .. lo + n), which holds the cards in ascending id order."""
    for i in range(n - 1, 0, -1):
        j = rand_below(rng, i + 1)
        a = s[ORDER + lo + i]
        s[ORDER + lo + i] = s[ORDER + lo + j]
        s[ORDER + lo + j] = a


@njit(cache=True)
def setup(s, rules, deck, rng, seat_slot):
    """A new game: tokens by player slot, counters, the shuffled (and dealt) deck."""
    p = rules[R_PLAYERS]
    n = deck.shape[0]
    for k in range(ORDER):
        s[k] = 0
    held = 0
    for q in range(p):
        s[TOKENS + q] = rules[R_START + seat_slot[q]]
        s[ALIVE + q] = 1
        held += s[TOKENS + q]
    s[H_STOCK] = rules[R_TOKENS] - held
    s[H_BOBBY] = p - 1
    s[H_WINNER] = -1
    s[H_NCARDS] = n
    s[H_ACTIVE] = p
    for i in range(n):
        s[ORDER + i] = i
    _shuffle(s, 0, n, rng)
    if rules[R_STACK_MODE] == PER_PLAYER:
        # deal round-robin: card k of the shuffled order goes to seat k % p
        order = s[ORDER:ORDER + n].copy()
        at = 0
        for q in range(p):
            s[OFF + q] = at
            for k in range(q, n, p):
                s[ORDER + at] = order[k]
                at += 1
            s[LEN + q] = at - s[OFF + q]
    else:
        s[LEN] = n


@njit(cache=True)
def _reshuffle(s, r, rng):
    lo, n = s[OFF + r], s[LEN + r]
    s[ORDER + lo:ORDER + lo + n] = np.sort(s[ORDER + lo:ORDER + lo + n])
    _shuffle(s, lo, n, rng)
    s[POS + r] = 0
    s[H_RESHUFFLES] += 1


@njit(cache=True)
def draw_card(s, rules, rng):
    """Turn over the flipper's next card (reshuffling an empty stack first); returns it."""
    r = s[H_FLIPPER] if rules[R_STACK_MODE] == PER_PLAYER else 0
    if s[POS + r] == s[LEN + r]:
        _reshuffle(s, r, rng)
    card = s[ORDER + s[OFF + r] + s[POS + r]]
    s[POS + r] += 1
    return card


@njit(cache=True, inline="always")
def _before(a, b, times, flipper, p):
    """Does seat a react before seat b (ties: closer clockwise to the flipper)?"""
    if times[a] != times[b]:
        return times[a] < times[b]
    return (a - flipper) % p < (b - flipper) % p


@njit(cache=True)
def resolve(s, rules, code, grab, times, loss):
    """Settle a flipped card given every active seat's reaction (grab, times after
    the flipper bonus; `loss`
    is int32[MAX_PLAYERS] scratch), then eliminations, the end conditions and the next
    flipper (model.py "A flip")."""
    p = rules[R_PLAYERS]
    f = s[H_FLIPPER]
    cls = code & 3
    loss[:] = 0
    if cls == WOLF:
        for q in range(p):
            if s[ALIVE + q] == 0:
                continue
            if grab[q] == GRAB_BOBBY:
                rank = 0
                for o in range(p):
                    if o != q and s[ALIVE + o] == 1 and grab[o] == GRAB_BOBBY and _before(o, q, times, f, p):
                        rank += 1
                if rank >= s[H_BOBBY]:
                    loss[q] = 1                 # left without a BOBBY
            else:
                loss[q] = 1                     # holds no BOBBY
                if grab[q] == GRAB_SHEEP:
                    loss[q] += rules[R_WRONG_PENALTY]
    elif cls == SHEEP:
        first = -1
        for q in range(p):
            if s[ALIVE + q] == 1 and grab[q] == GRAB_SHEEP and (first < 0 or _before(q, first, times, f, p)):
                first = q
        for q in range(p):
            if s[ALIVE + q] == 0:
                continue
            if grab[q] == GRAB_SHEEP and q != first:
                loss[q] = rules[R_RACE_PENALTY]
            elif grab[q] == GRAB_BOBBY:
                loss[q] = rules[R_WRONG_PENALTY]
        if first >= 0:
            # the gain is paid from the stock as it was before this card's losses
            if s[H_STOCK] > 0:
                s[H_STOCK] -= 1
                s[TOKENS + first] += 1
                s[SHEEP_GAINS + first] += 1
            elif rules[R_EMPTY_STOCK] != NO_GAIN:
                s[H_MINTED] += 1
                s[TOKENS + first] += 1
                s[SHEEP_GAINS + first] += 1
    else:
        for q in range(p):
            if s[ALIVE + q] == 1 and grab[q] != NONE:
                loss[q] = 1
    for q in range(p):
        lost = loss[q]
        if lost == 0:
            continue
        if rules[R_MAX_LOSS] == ONE and lost > 1:
            lost = 1
        if lost > s[TOKENS + q]:
            lost = s[TOKENS + q]
        s[TOKENS + q] -= lost
        s[H_STOCK] += lost
        if cls == WOLF:
            s[WOLF_LOSSES + q] += lost
        elif cls == EMPTY or cls == HIDDEN:
            s[PENALTIES + q] += lost
    for q in range(p):
        if s[ALIVE + q] == 1 and s[TOKENS + q] == 0:
            s[ALIVE + q] = 0
            s[H_ACTIVE] -= 1
            if s[H_BOBBY] > 0:
                s[H_BOBBY] -= 1
    s[H_FLIPS] += 1
    _end_or_next(s, rules)


@njit(cache=True)
def _end_or_next(s, rules):
    p = rules[R_PLAYERS]
    for q in range(p):
        if s[ALIVE + q] == 1 and s[TOKENS + q] >= rules[R_TARGET]:
            s[H_WINNER] = q
            s[H_FLIPPER] = -1
            return
    if s[H_ACTIVE] == 0:
        s[H_FLIPPER] = -1                       # all remaining players out together: a draw
        return
    if s[H_ACTIVE] == 1 and rules[R_LAST_STANDING] == 1:
        for q in range(p):
            if s[ALIVE + q] == 1:
                s[H_WINNER] = q
        s[H_FLIPPER] = -1
        return
    if s[H_FLIPS] >= rules[R_FLIP_CAP]:
        s[H_CAPPED] = 1
        s[H_FLIPPER] = -1
        if rules[R_CAP_RESOLUTION] != CAP_DRAW:
            best, who = -1, -1
            for q in range(p):
                if s[ALIVE + q] == 1:
                    if s[TOKENS + q] > best:
                        best, who = s[TOKENS + q], q
                    elif s[TOKENS + q] == best:
                        who = -1                # a tie for most tokens is a draw
            s[H_WINNER] = who
        return
    q = s[H_FLIPPER]
    for _ in range(p):
        q = (q + 1) % p
        if s[ALIVE + q] == 1:
            break
    s[H_FLIPPER] = q


@njit(cache=True)
def outcome(s, rules, row):
    p = rules[R_PLAYERS]
    w = s[H_WINNER]
    row[O_WINNER] = w
    row[O_COWINNERS] = (1 << w) if w >= 0 else 0
    row[O_TURNS] = s[H_FLIPS]
    row[O_CAPPED] = s[H_CAPPED]
    row[O_RESHUFFLES] = s[H_RESHUFFLES]
    for q in range(p):
        row[O_TOKENS + q] = s[TOKENS + q]
        row[O_ELIMINATED + q] = 1 - s[ALIVE + q]
        row[O_PENALTIES + q] = s[PENALTIES + q]
        row[O_WOLF_LOSSES + q] = s[WOLF_LOSSES + q]
        row[O_SHEEP_GAINS + q] = s[SHEEP_GAINS + q]


def to_dict(s: np.ndarray, num_players: int, per_player: bool) -> dict:
    """A kernel state in the reference engine's `to_dict` format."""
    p = num_players
    regions = range(p) if per_player else range(1)
    stacks, discards = [], []
    for r in regions:
        lo, n, pos = int(s[OFF + r]), int(s[LEN + r]), int(s[POS + r])
        cards = [int(c) for c in s[ORDER + lo:ORDER + lo + n]]
        stacks.append(cards[pos:])
        discards.append(cards[:pos])
    seat = lambda base: [int(s[base + q]) for q in range(p)]   # noqa: E731
    flipper = int(s[H_FLIPPER])
    return {"tokens": seat(TOKENS), "stock": int(s[H_STOCK]), "minted": int(s[H_MINTED]),
            "active": [bool(s[ALIVE + q]) for q in range(p)], "bobby_counters": int(s[H_BOBBY]),
            "stacks": stacks, "discards": discards, "flipper": flipper, "flips": int(s[H_FLIPS]),
            "reshuffles": int(s[H_RESHUFFLES]), "winner": int(s[H_WINNER]), "over": flipper < 0,
            "capped": bool(s[H_CAPPED]), "penalties": seat(PENALTIES), "wolf_losses": seat(WOLF_LOSSES),
            "sheep_gains": seat(SHEEP_GAINS)}


@njit(cache=True)
def progress(s, rules, out):
    """Each seat's standing: its tokens, into out[seat] (float64)."""
    for q in range(rules[R_PLAYERS]):
        out[q] = s[TOKENS + q]
