"""Bye-Bye Black Sheep kernels: state layout, deal, legal decisions, chance, step.

Card kinds, phases and decision codes are in model.py. State is ONE int32 vector:

    header  [0, HEADER)            H_* slots below
    HAND    [MAX_PLAYERS * NK]     cards of each kind in seat p's hand (hidden)
    SIZE    [MAX_PLAYERS]          hand sizes (public)
    ZOO     [MAX_PLAYERS * NK]     cards of each kind in seat p's zoo (public); the
                                   JOKER slot is 1 if the Joker is in that zoo
    JOKER_AS [MAX_PLAYERS]         species the zoo's Joker is bound to, 0 if none
    ASIDE   [MAX_PLAYERS * NK]     cards the Wolf set aside for seat p this turn
    TABLE   [MAX_CARDS]            kinds on the table (watering hole), in arrival order
    PILE    [MAX_CARDS]            draw pile, bottom first: the top is PILE[npile - 1]
    KNOWN   [MAX_PLAYERS^2 * NK]   KNOWN[o, p, k]: seat p holds at least this many cards
                                   of kind k, as far as seat o knows from public events
                                   (cards taken from the table, Mole looks, draws out)

A decision is applied in two steps so that every engine sees the same luck:
`sample_chance` draws the chance outcome of a decision (the kind a blind draw
yields, the Magpie's place in the pile) from the mover's stream, and `step` applies a
decision with a given outcome. Kernels trust their inputs.

Kernels index `s` only with non-negative integers, so they take either the array or
its data pointer (the driver passes the pointer, games/fast.py). Hot loops compute
candidates without data-dependent branches, which random cards would mispredict.

The contract's hooks (games/driver.py) are at the end; an action is (code, a, b).
"""

import numpy as np
from numba import njit

from ...rng import rand_below
from ..driver import Shape
from .model import (ANIMAL, BLACK, COPIES, DRAW, DRAW_FROM, EAGLE, EAGLE_ASK, EAGLE_ASK_PHASE, EAGLE_SKIP,
                    JOKER, MAGPIE, MAGPIE_NONE, MAGPIE_PHASE, MAGPIE_TAKE, MOLE, MOLE_NONE,
                    MOLE_PHASE, MOLE_TAKE, MOTHER, MOTHER_PHASE, MOTHER_SKIP, MOTHER_TAKE, NKINDS, OVER, PLACE,
                    PLACE_DONE, PLACE_PHASE, SETUP, STOP, WHITE, WHITE_NONE, WHITE_PHASE, WHITE_PLACE, WOLF)
from .rules import (R_CAP_RESOLUTION, R_EAGLE_JOKER, R_HAND_LIMIT, R_JOKER, R_MAGPIE_BREAK, R_MAGPIE_ENTRY,
                    R_MOLE_JOKER, R_MOTHER, R_MUST_DRAW, R_OPTIONAL_SETUP, R_PLAYERS, R_REFILL, R_TRIPLETS,
                    R_TURN_CAP, R_WHITE, R_WOLF, R_WOLF_RETURN, R_ZOO_BASIS, R_ZOO_MAX)

VERSION = 3      # 2: a tie in the built-in policies' placement choice costs one random draw, not one per tie
                 # 3: a won game's `turns` counts the winning turn (it was one short)
MAX_PLAYERS = 5
NK = NKINDS
MAX_CARDS = 96
MAX_DECISIONS = 160
assert NK % 8 == 0          # sample_chance counts kinds in groups of 8

(H_PLAYERS, H_PHASE, H_ACTOR, H_ACTIVE, H_TURN, H_DRAWS, H_LIMIT, H_PLACED, H_SOURCE, H_WINNER, H_CAPPED,
 H_MAGPIE_IN, H_NPILE, H_NTABLE, H_SPECIES, H_HAND_LIMIT, H_TO_WIN, H_TOTAL_DRAWS, H_DECISIONS) = range(19)
HEADER = 24
HAND = HEADER
SIZE = HAND + MAX_PLAYERS * NK
ZOO = SIZE + MAX_PLAYERS
JOKER_AS = ZOO + MAX_PLAYERS * NK
ASIDE = JOKER_AS + MAX_PLAYERS
TABLE = ASIDE + MAX_PLAYERS * NK
PILE = TABLE + MAX_CARDS
KNOWN = PILE + MAX_CARDS
STATE_SIZE = KNOWN + MAX_PLAYERS * MAX_PLAYERS * NK

# setup table as arrays indexed by player count
SETUP_ARR = np.zeros((6, 6), dtype=np.int64)       # species, dealt, eagles, moles, hand limit, triplets
for _p, _row in SETUP.items():
    SETUP_ARR[_p] = [_row["species"], _row["dealt"], _row["eagles"], _row["moles"], _row["hand_limit"],
                     _row["triplets"]]

# outcome row
O_WINNER, O_COWINNERS, O_TURNS, O_DRAWS, O_CAPPED, O_DECISIONS, O_ROTATION = range(7)
O_TRIPLETS = 8
O_ZOO = O_TRIPLETS + MAX_PLAYERS
O_SIZE = O_ZOO + MAX_PLAYERS


@njit(cache=True, inline="always")
def hand(s, p, k):
    return s[HAND + p * NK + k]


@njit(cache=True, inline="always")
def zoo(s, p, k):
    return s[ZOO + p * NK + k]


@njit(cache=True, inline="always")
def known(s, observer, p, k):
    return s[KNOWN + (observer * MAX_PLAYERS + p) * NK + k]


# --- setup ---------------------------------------------------------------------------

@njit(cache=True, inline="always")
def _shuffle(s, base, n, rng):
    """Shuffle s[base:base + n] in place (Fisher-Yates from the last card down)."""
    for i in range(n - 1, 0, -1):
        j = rand_below(rng, i + 1)
        s[base + i], s[base + j] = s[base + j], s[base + i]


@njit(cache=True, inline="always")
def _optional_cards(s, rules, at):
    """Write the optional cards in play at s[at], s[at + 1], ...; return how many."""
    n = 0
    for enabled, kind in ((rules[R_WOLF], WOLF), (rules[R_WHITE], WHITE), (rules[R_MOTHER], MOTHER),
                          (rules[R_JOKER], JOKER)):
        if enabled:
            s[at + n] = kind
            n += 1
    return n


@njit(cache=True)
def deal(s, rules, rng):
    """Fill s (the state array, or its data pointer) with a freshly dealt game (Part
    B 1.4): deck by player count, one card at a time clockwise from seat 0, a Black
    Sheep and an Eagle or Mole each. The deck is shuffled on the (still empty) table,
    so dealing allocates nothing."""
    for i in range(STATE_SIZE):
        s[i] = 0
    p = rules[R_PLAYERS]
    species = SETUP_ARR[p, 0]
    s[H_PLAYERS] = p
    s[H_SPECIES] = species
    s[H_HAND_LIMIT] = rules[R_HAND_LIMIT] if rules[R_HAND_LIMIT] > 0 else SETUP_ARR[p, 4]
    s[H_TO_WIN] = rules[R_TRIPLETS] if rules[R_TRIPLETS] > 0 else SETUP_ARR[p, 5]
    s[H_WINNER] = -1
    s[H_SOURCE] = -1
    deck = TABLE
    n = 0
    for sp in range(species):
        for _ in range(COPIES):
            s[deck + n] = ANIMAL + sp
            n += 1
    into_deck = rules[R_OPTIONAL_SETUP] == 0
    if into_deck:
        n += _optional_cards(s, rules, deck + n)
    _shuffle(s, deck, n, rng)
    dealt = SETUP_ARR[p, 1]
    for r in range(dealt):
        for seat in range(p):
            _receive(s, seat, s[deck + r * p + seat])
    rest = n - dealt * p
    # deck[dealt * p] is the next card, so it goes on top (the end of PILE)
    for k in range(rest):
        s[PILE + k] = s[deck + n - 1 - k]
    npile = rest
    if not into_deck:
        npile += _optional_cards(s, rules, PILE + npile)
        _shuffle(s, PILE, npile, rng)
    s[H_NPILE] = npile
    specials = TABLE + MAX_CARDS - MAX_PLAYERS      # past the deck
    for k in range(p):
        s[specials + k] = EAGLE if k < SETUP_ARR[p, 2] else MOLE
    _shuffle(s, specials, p, rng)
    for seat in range(p):
        _receive(s, seat, s[specials + seat])
        _receive(s, seat, BLACK)
    # everybody knows everybody holds their own Black Sheep (fixed loops: over the
    # players LLVM would scatter, which is slow)
    for o in range(MAX_PLAYERS):
        for seat in range(MAX_PLAYERS):
            s[KNOWN + (o * MAX_PLAYERS + seat) * NK + BLACK] = (o < p) & (seat < p)
    for i in range(MAX_CARDS):
        s[TABLE + i] = 0            # the table starts empty
    s[H_PHASE] = DRAW
    s[H_ACTOR] = 0
    s[H_ACTIVE] = 0


# --- card movements (knowledge follows public events) ------------------------------

@njit(cache=True, inline="always")
def _receive(s, p, kind):
    """A card into p's hand, unseen by the others (deal, refill)."""
    s[HAND + p * NK + kind] += 1
    s[SIZE + p] += 1


@njit(cache=True, inline="always")
def _receive_public(s, p, kind):
    """A face-up card into p's hand: everybody now knows p holds it."""
    _receive(s, p, kind)
    players = s[H_PLAYERS]
    # not range(players): LLVM would vectorize that loop into AVX-512 gathers and
    # scatters, which are slow; with an early exit it stays plain scalar code
    for o in range(MAX_PLAYERS):
        if o == players:
            break
        s[KNOWN + (o * MAX_PLAYERS + p) * NK + kind] += 1


@njit(cache=True, inline="always")
def _lose(s, p, kind):
    """A card leaves p's hand face up: p holds one fewer of that kind, and a lower
    bound on it can only drop by one."""
    s[HAND + p * NK + kind] -= 1
    s[SIZE + p] -= 1
    players = s[H_PLAYERS]
    for o in range(MAX_PLAYERS):        # as in _receive_public
        if o == players:
            break
        i = KNOWN + (o * MAX_PLAYERS + p) * NK + kind
        s[i] -= s[i] > 0


@njit(cache=True, inline="always")
def _to_table(s, kind):
    s[TABLE + s[H_NTABLE]] = kind
    s[H_NTABLE] += 1


@njit(cache=True, inline="always")
def _table_to_hand(s, p):
    """All table cards into p's hand (stop, Black Sheep, failed Eagle); returns how many."""
    n = s[H_NTABLE]
    for t in range(n):
        _receive_public(s, p, s[TABLE + t])
    s[H_NTABLE] = 0
    return n


# --- zoo, Magpie, win ----------------------------------------------------------------

@njit(cache=True, inline="always")
def species_count(s, p, sp):
    """Cards of species sp (1-based) in p's zoo, a Joker bound to it included."""
    return s[ZOO + p * NK + ANIMAL + sp - 1] + (s[JOKER_AS + p] == sp)


@njit(cache=True, inline="always")
def triplets(s, p):
    t = 0
    for sp in range(1, s[H_SPECIES] + 1):
        if species_count(s, p, sp) >= 3:
            t += 1
    return t


@njit(cache=True, inline="always")
def zoo_cards(s, p):
    total = 0
    for k in range(NK):
        total += s[ZOO + p * NK + k]
    return total


@njit(cache=True, inline="always")
def magpie_triggers(s, placer, kind):
    """Does placing `kind` make the Magpie enter play?

    Either the placer's 3rd distinct species (a species new to that zoo), or a
    species already in another player's zoo. Jokers never trigger it.
    """
    if s[H_MAGPIE_IN] or kind == JOKER:
        return False
    for q in range(s[H_PLAYERS]):
        if q != placer and s[ZOO + q * NK + kind] > 0:
            return True
    if s[ZOO + placer * NK + kind] > 0:
        return False
    distinct = 1
    for sp in range(s[H_SPECIES]):
        if s[ZOO + placer * NK + ANIMAL + sp] > 0:
            distinct += 1
    return distinct >= 3


@njit(cache=True, inline="always")
def _place(s, rules, placer, kind, sp, chance):
    """Hand -> zoo, then the Magpie entry check and the win check (rules: after every
    placement). `chance` is the Magpie's pile position when it is shuffled in."""
    enters = magpie_triggers(s, placer, kind)
    _lose(s, placer, kind)
    s[ZOO + placer * NK + kind] += 1
    if kind == JOKER:
        s[JOKER_AS + placer] = sp
    if enters:
        s[H_MAGPIE_IN] = 1
        if rules[R_MAGPIE_ENTRY] == 0:
            _receive_public(s, placer, MAGPIE)
        else:
            # insert at `chance` cards from the top
            n = s[H_NPILE]
            at = n - chance
            for k in range(n, at, -1):
                s[PILE + k] = s[PILE + k - 1]
            s[PILE + at] = MAGPIE
            s[H_NPILE] = n + 1
    # only a placement can add a triplet, so a win needs this one to complete one
    # (the count was below the target before it, or the game would be over)
    if species_count(s, placer, sp if kind == JOKER else kind - ANIMAL + 1) == 3 and \
            triplets(s, placer) >= s[H_TO_WIN]:
        s[H_WINNER] = placer
        s[H_PHASE] = OVER
        s[H_ACTOR] = -1
        s[H_SOURCE] = -1
        s[H_LIMIT] = 0


# --- turn structure ----------------------------------------------------------------

@njit(cache=True, inline="always")
def _stop(s, rules):
    """Voluntary stop or failed Eagle: take the table, then place up to N - 2."""
    a = s[H_ACTIVE]
    taken = _table_to_hand(s, a)
    n = taken if rules[R_ZOO_BASIS] == 0 else s[H_DRAWS]
    s[H_LIMIT] = max(0, n - 2)
    s[H_PLACED] = 0
    s[H_PHASE] = PLACE_PHASE
    s[H_ACTOR] = a
    s[H_SOURCE] = -1


@njit(cache=True, inline="always")
def _return_aside(s):
    for p in range(s[H_PLAYERS]):
        for k in range(NK):
            c = s[ASIDE + p * NK + k]
            for _ in range(c):
                _receive_public(s, p, k)     # they were face up on the table
            s[ASIDE + p * NK + k] = 0


@njit(cache=True, inline="always")
def _refill(s, p):
    """p draws from the top of the pile up to the hand limit, while the pile lasts."""
    top = s[H_NPILE]
    n = max(0, min(s[H_HAND_LIMIT] - s[SIZE + p], top))
    for k in range(n):
        s[HAND + p * NK + s[PILE + top - 1 - k]] += 1
    s[SIZE + p] += n
    s[H_NPILE] = top - n


@njit(cache=True, inline="always")
def _end_turn(s, rules):
    p = s[H_PLAYERS]
    a = s[H_ACTIVE]
    wolf = rules[R_WOLF] == 1     # set-aside cards exist only with the Wolf
    before = rules[R_WOLF_RETURN] == 0
    if wolf and before:
        _return_aside(s)
    # rules: the other players refill, clockwise from the next player
    for k in range(1, p):
        _refill(s, a + k - p if a + k >= p else a + k)     # (a + k) % p, without a division
    if rules[R_REFILL] == 1:
        _refill(s, a)
    if wolf and not before:
        _return_aside(s)
    s[H_TURN] += 1
    s[H_DRAWS] = 0
    s[H_LIMIT] = 0
    s[H_PLACED] = 0
    s[H_SOURCE] = -1
    if s[H_TURN] >= rules[R_TURN_CAP]:
        s[H_CAPPED] = 1
        s[H_PHASE] = OVER
        s[H_ACTOR] = -1
        if rules[R_CAP_RESOLUTION] == 1:
            s[H_WINNER] = _cap_winner(s)
        return
    s[H_ACTIVE] = a + 1 if a + 1 < p else 0
    s[H_ACTOR] = s[H_ACTIVE]
    s[H_PHASE] = DRAW


@njit(cache=True, inline="always")
def _cap_winner(s):
    """Option cap_resolution=most_triplets: most triplets, then most zoo cards."""
    best = -1
    best_t = -1
    best_z = -1
    tied = False
    for p in range(s[H_PLAYERS]):
        t = triplets(s, p)
        z = zoo_cards(s, p)
        if t > best_t or (t == best_t and z > best_z):
            best, best_t, best_z, tied = p, t, z, False
        elif t == best_t and z == best_z:
            tied = True
    return -1 if tied else best


@njit(cache=True, inline="always")
def sample_chance(s, rules, code, a, b, rng):
    """The chance outcome of a decision, drawn from `rng`; -1 if it has none.

    DRAW_FROM: the kind of a card chosen uniformly from the opponent's hand.
    A placement that lets the Magpie in with magpie_entry=draw_pile_shuffled: its
    position, uniform over the npile + 1 gaps (0 = top).
    """
    if code == DRAW_FROM:
        pick = rand_below(rng, s[SIZE + a])
        # card number `pick` of the hand in kind order is of the kind numbered by how
        # many kinds end at or before it; counted without branches (random cards would
        # mispredict them), first by groups of 8 kinds, then within the group
        hand = HAND + a * NK
        group = 0
        before = 0          # cards in the groups before `group`
        ends = 0
        for g in range(NK // 8 - 1):
            for k in range(8):
                ends += s[hand + 8 * g + k]
            done = ends <= pick
            group += done
            before = ends if done else before
        kind = 8 * group
        ends = before
        for k in range(7):
            ends += s[hand + 8 * group + k]
            kind += ends <= pick
        return kind
    elif (code == PLACE or code == WHITE_PLACE) and rules[R_MAGPIE_ENTRY] == 1:
        if magpie_triggers(s, s[H_ACTOR], a):
            return rand_below(rng, s[H_NPILE] + 1)
    return -1


@njit(cache=True, inline="always")
def apply(s, rules, code, a, b, chance):
    """Apply a legal decision (model.py codes) with its chance outcome."""
    s[H_DECISIONS] += 1
    active = s[H_ACTIVE]
    if code == STOP:
        _stop(s, rules)
    elif code == DRAW_FROM:
        _lose(s, a, chance)
        _to_table(s, chance)
        s[H_DRAWS] += 1
        s[H_TOTAL_DRAWS] += 1
        _resolve(s, rules, a, chance)
    elif code == EAGLE_SKIP or code == MOLE_NONE or code == MAGPIE_NONE or code == MOTHER_SKIP:
        _back_to_drawing(s)
    elif code == EAGLE_ASK:
        kind = ANIMAL + b - 1
        if s[HAND + a * NK + kind] == 0 and rules[R_EAGLE_JOKER] == 1 and s[HAND + a * NK + JOKER] > 0:
            kind = JOKER
        if s[HAND + a * NK + kind] > 0:
            _lose(s, a, kind)
            _to_table(s, kind)
            _back_to_drawing(s)
        else:
            _stop(s, rules)     # rules: a failed Eagle ends the turn, placement allowed
    elif code == MOLE_TAKE:
        _lose(s, s[H_SOURCE], a)
        _to_table(s, a)
        _back_to_drawing(s)
    elif code == MAGPIE_TAKE:
        s[ZOO + a * NK + b] -= 1
        if b == JOKER:
            s[JOKER_AS + a] = 0
        _to_table(s, b)
        _back_to_drawing(s)
    elif code == WHITE_NONE:
        _back_to_drawing(s)
    elif code == PLACE or code == WHITE_PLACE:
        # one _place for both: numba inlines every call site, and compiling is slow
        white = code == WHITE_PLACE
        _place(s, rules, s[H_ACTOR] if white else active, a, b, chance)
        if not white:
            s[H_PLACED] += 1
        elif s[H_PHASE] != OVER:
            _back_to_drawing(s)
    elif code == MOTHER_TAKE:
        s[H_NPILE] -= 1
        _to_table(s, s[PILE + s[H_NPILE]])
        _back_to_drawing(s)
    else:   # PLACE_DONE
        _end_turn(s, rules)


@njit(cache=True, inline="always")
def _back_to_drawing(s):
    s[H_PHASE] = DRAW
    s[H_ACTOR] = s[H_ACTIVE]
    s[H_SOURCE] = -1


@njit(cache=True, inline="always")
def _resolve(s, rules, source, kind):
    """Effect of a card just drawn blindly from `source` (only a blind draw sets it off)."""
    if kind >= ANIMAL:
        return          # most draws: an animal just stays on the table
    a = s[H_ACTIVE]
    if kind == BLACK:
        # rules: it goes back to the player it was drawn from; the turn ends
        s[H_NTABLE] -= 1
        _receive_public(s, source, BLACK)
        _table_to_hand(s, a)
        _end_turn(s, rules)
        return
    if kind == WOLF:
        # the player robbed sets every other table card aside until the turn ends
        for t in range(s[H_NTABLE] - 1):
            s[ASIDE + source * NK + s[TABLE + t]] += 1
        s[TABLE] = WOLF
        s[H_NTABLE] = 1
        return
    phase = DRAW
    actor = a
    if kind == EAGLE:
        phase = EAGLE_ASK_PHASE
    elif kind == MOLE:
        phase = MOLE_PHASE
        # the active player now sees that hand
        for k in range(NK):
            s[KNOWN + (a * MAX_PLAYERS + source) * NK + k] = s[HAND + source * NK + k]
    elif kind == MAGPIE:
        phase = MAGPIE_PHASE
    elif kind == WHITE:
        phase = WHITE_PHASE
        actor = source
    elif kind == MOTHER:
        phase = MOTHER_PHASE
    if phase != DRAW:
        s[H_PHASE] = phase
        s[H_ACTOR] = actor
        s[H_SOURCE] = source


# --- legal decisions -----------------------------------------------------------------

@njit(cache=True, inline="always")
def _put(buf, m, code, a, b):
    buf[m, 0] = code
    buf[m, 1] = a
    buf[m, 2] = b
    return m + 1


@njit(cache=True, inline="always")
def _room(s, rules, p, sp):
    """May species sp go into p's zoo (option zoo_max_per_species)?"""
    return rules[R_ZOO_MAX] == 0 or species_count(s, p, sp) < 3


@njit(cache=True)
def _placements(s, rules, p, code, buf, m):
    """PLACE / WHITE_PLACE decisions for seat p's hand, sorted by (kind, species)."""
    species = s[H_SPECIES]
    if s[HAND + p * NK + JOKER] > 0:
        for sp in range(1, species + 1):
            if _room(s, rules, p, sp):
                m = _put(buf, m, code, JOKER, sp)
    for sp in range(1, species + 1):
        kind = ANIMAL + sp - 1
        if s[HAND + p * NK + kind] > 0 and _room(s, rules, p, sp):
            m = _put(buf, m, code, kind, sp)
    return m


@njit(cache=True)
def legal_decisions(s, rules, buf):
    """Fill buf (int32[MAX_DECISIONS, 3]) with the legal decisions, sorted; return n."""
    phase = s[H_PHASE]
    a = s[H_ACTIVE]
    p = s[H_PLAYERS]
    m = 0
    if phase == DRAW:
        if not (rules[R_MUST_DRAW] == 1 and s[H_DRAWS] == 0):
            m = _put(buf, m, STOP, 0, 0)
        for o in range(p):
            if o != a:
                m = _put(buf, m, DRAW_FROM, o, 0)
    elif phase == EAGLE_ASK_PHASE:
        m = _put(buf, m, EAGLE_SKIP, 0, 0)
        for o in range(p):
            if o != a:
                for sp in range(1, s[H_SPECIES] + 1):
                    m = _put(buf, m, EAGLE_ASK, o, sp)
    elif phase == MOLE_PHASE:
        m = _put(buf, m, MOLE_NONE, 0, 0)
        src = s[H_SOURCE]
        for k in range(JOKER, NK):
            if s[HAND + src * NK + k] > 0 and (k != JOKER or rules[R_MOLE_JOKER] == 1):
                m = _put(buf, m, MOLE_TAKE, k, 0)
    elif phase == MAGPIE_PHASE:
        m = _put(buf, m, MAGPIE_NONE, 0, 0)
        for o in range(p):
            if o == a:
                continue
            for k in range(JOKER, NK):
                if s[ZOO + o * NK + k] == 0:
                    continue
                sp = s[JOKER_AS + o] if k == JOKER else k - ANIMAL + 1
                if rules[R_MAGPIE_BREAK] == 0 and species_count(s, o, sp) >= 3:
                    continue
                m = _put(buf, m, MAGPIE_TAKE, o, k)
    elif phase == WHITE_PHASE:
        m = _put(buf, m, WHITE_NONE, 0, 0)
        m = _placements(s, rules, s[H_ACTOR], WHITE_PLACE, buf, m)
    elif phase == MOTHER_PHASE:
        m = _put(buf, m, MOTHER_SKIP, 0, 0)
        if s[H_NPILE] > 0:
            m = _put(buf, m, MOTHER_TAKE, 0, 0)
    elif phase == PLACE_PHASE:
        m = _put(buf, m, PLACE_DONE, 0, 0)
        if s[H_PLACED] < s[H_LIMIT]:
            m = _placements(s, rules, a, PLACE, buf, m)
    return m


@njit(cache=True)
def outcome(s, rules, row):
    """Outcome row (O_* columns) of a finished game."""
    p = s[H_PLAYERS]
    w = s[H_WINNER]
    row[O_WINNER] = w
    row[O_COWINNERS] = (1 << w) if w >= 0 else 0
    # H_TURN counts completed turns: a win ends the game inside its turn, which counts
    row[O_TURNS] = s[H_TURN] + (1 - s[H_CAPPED])
    row[O_DRAWS] = s[H_TOTAL_DRAWS]
    row[O_CAPPED] = s[H_CAPPED]
    row[O_DECISIONS] = s[H_DECISIONS]
    for q in range(MAX_PLAYERS):
        row[O_TRIPLETS + q] = triplets(s, q) if q < p else 0
        row[O_ZOO + q] = zoo_cards(s, q) if q < p else 0


def census(s, rules, aux) -> np.ndarray:
    """Every card by kind, wherever it is: hands, zoos, the Wolf's set-aside cards, the
    watering hole, the draw pile, and the Magpie while it is out of play. The
    conformance suite checks that it never changes."""
    p = int(s[H_PLAYERS])
    rows = (s[HAND:HAND + p * NK].reshape(p, NK).sum(axis=0) + s[ZOO:ZOO + p * NK].reshape(p, NK).sum(axis=0)
            + s[ASIDE:ASIDE + p * NK].reshape(p, NK).sum(axis=0))
    rows = rows + np.bincount(s[TABLE:TABLE + s[H_NTABLE]], minlength=NK)
    rows = rows + np.bincount(s[PILE:PILE + s[H_NPILE]], minlength=NK)
    rows[MAGPIE] += 0 if s[H_MAGPIE_IN] else 1
    return rows


# --- the engine contract (games/driver.py) ------------------------------------------

ACTION_SIZE = 3


@njit(cache=True)
def start(s, rules, aux, rng):
    """Every game is dealt (`aux` is unused)."""
    deal(s, rules, rng)


@njit(cache=True, inline="always")
def actor(s, rules):
    return -1 if s[H_PHASE] == OVER else s[H_ACTOR]


@njit(cache=True)
def legal(s, rules, aux, buf):
    return legal_decisions(s, rules, buf)


@njit(cache=True, inline="always")
def nature(s, rules, aux, rng):
    """The rules make no decision of their own (never called)."""
    return STOP, 0, 0


@njit(cache=True, inline="always")
def chance(s, rules, aux, action, rng):
    return sample_chance(s, rules, action[0], action[1], action[2], rng)


@njit(cache=True)
def step(s, rules, aux, action, outcome):
    apply(s, rules, action[0], action[1], action[2], outcome)


# --- hidden information and standing: determinize, progress (games/driver.py) ---------
#
# What seat o may know (policies.py): its own HAND row, every public slot (header, SIZE,
# ZOO, JOKER_AS, ASIDE, TABLE, the pile size) and the KNOWN rows it observes,
# KNOWN[o, q]. Two more KNOWN slots are public or its own: KNOWN[q, q], seat q's
# knowledge of its own hand, is only ever moved by public events (a Mole looks at an
# opponent, never at its owner), so it is the public lower bound every seat shares,
# and every KNOWN[o', q] is at least it; KNOWN[o', o] is what o' knows of o's own hand,
# which o can follow card by card. Hidden from o: the other hands beyond KNOWN[o, q],
# the draw pile's content and order, and what the other seats saw with their Moles
# (KNOWN[o', q] above KNOWN[q, q] for o', q != o).

# every card of the largest deck (animals, a Black Sheep and an Eagle or Mole per seat,
# the Magpie, the optional cards) fits in the PILE region, where determinize shuffles
assert SETUP_ARR[:, 0].max() * COPIES + 2 * MAX_PLAYERS + 1 + 4 <= MAX_CARDS


@njit(cache=True)
def determinize(s, rules, aux, seat, rng):
    """Re-deal in place everything `seat` cannot see (above), drawing only from `rng`
    (uint64[4]); `aux` is unused. `s` is the state array or its pointer.

    The unseen cards are, for every other seat q, HAND[q] - KNOWN[seat, q], plus the
    draw pile. They are shuffled as one pool (Fisher-Yates, rand_below) and dealt
    back: every other seat keeps KNOWN[seat, q] and gets as many unseen cards as it
    had (hand sizes stay), the rest is the pile in the shuffled order (its size stays).
    Every arrangement of the physical cards is equally likely, so every allocation
    (other hands, pile order) comes with its probability under a uniformly shuffled
    deck given what the seat knows. Kept: the seat's hand and KNOWN rows, every public
    slot, KNOWN[q, q] and KNOWN[q', seat], each seat's own Black Sheep (always known,
    so never in the pool). Other seats' knowledge of third hands falls back to the
    public bound, KNOWN[o, q] = KNOWN[q, q], except during a Mole decision, where the
    active player sees the (new) hand it looks at (rules: the Mole shows that hand).

    The result depends only on what the seat knows and on `rng`: the pool is written
    in kind order before the shuffle and nothing hidden is kept, so two states the seat
    cannot tell apart give the same re-deal with the same stream (what a search agent
    needs to pass the hidden-information tests). No allocation: the first other
    seat's HAND row, re-dealt anyway, holds the kind counts, and the pool is built in
    the PILE region (it holds at most every card, fewer than MAX_CARDS: the assert
    below); slots of PILE above the pile size are not part of the state and are left
    stale. `seat` is a seat in play (0 <= seat < players).
    """
    p = s[H_PLAYERS]
    npile = s[H_NPILE]
    q0 = 1 if seat == 0 else 0
    counts = HAND + q0 * NK                             # q0's row counts the pool by kind
    mine = KNOWN + seat * MAX_PLAYERS * NK              # KNOWN[seat, q, k] = s[mine + q * NK + k]
    # the unseen cards by kind: q0's excess over what `seat` knows of it ...
    for k in range(NK):
        s[counts + k] -= s[mine + q0 * NK + k]
    # ... every other seat's excess (their rows keep the known part) ...
    for q in range(p):
        if q != seat and q != q0:
            for k in range(NK):
                known_k = s[mine + q * NK + k]
                s[counts + k] += s[HAND + q * NK + k] - known_k
                s[HAND + q * NK + k] = known_k
    # ... and the pile
    for i in range(npile):
        s[counts + s[PILE + i]] += 1
    # the pool in kind order, from the bottom of the pile up
    m = 0
    for k in range(NK):
        for _ in range(s[counts + k]):
            s[PILE + m] = k
            m += 1
        s[counts + k] = s[mine + q0 * NK + k]     # q0 keeps what `seat` knows
    for i in range(m - 1, 0, -1):
        j = rand_below(rng, i + 1)
        s[PILE + i], s[PILE + j] = s[PILE + j], s[PILE + i]
    # PILE[0:npile] is the new pile; the cards above it go to the hands
    at = PILE + npile
    for q in range(p):
        if q != seat:
            hidden = s[SIZE + q]
            for k in range(NK):
                hidden -= s[mine + q * NK + k]
            for _ in range(hidden):
                s[HAND + q * NK + s[at]] += 1
                at += 1
    # knowledge of the re-dealt hands: the public bound (KNOWN[q, q]) ...
    for o in range(p):
        if o != seat:
            for q in range(p):
                if q != seat and q != o:
                    for k in range(NK):
                        s[KNOWN + (o * MAX_PLAYERS + q) * NK + k] = s[KNOWN + (q * MAX_PLAYERS + q) * NK + k]
    # ... but a Mole decision is taken looking at the whole source hand
    a = s[H_ACTOR]
    src = s[H_SOURCE]
    if s[H_PHASE] == MOLE_PHASE and a != seat and src != seat:
        for k in range(NK):
            s[KNOWN + (a * MAX_PLAYERS + src) * NK + k] = s[HAND + src * NK + k]


@njit(cache=True)
def progress(s, rules, out):
    """Each seat's standing, out[q] = triplets + zoo cards / 100 (float64[MAX_PLAYERS];
    0 for seats past the player count).

    Triplets are what wins (H_TO_WIN of them); zoo cards are the rules' own second
    measure (cap_resolution=most_triplets ranks by triplets, then zoo cards, as
    _cap_winner does), and a zoo holds at most 16 x 4 + 1 < 100 cards, so the fraction
    never outweighs a triplet: ordering seats by progress is the cap resolution's
    ordering. A zoo card also counts after it completes a triplet (a 4th card), as it
    does there."""
    p = s[H_PLAYERS]
    for q in range(MAX_PLAYERS):
        out[q] = triplets(s, q) + zoo_cards(s, q) / 100.0 if q < p else 0.0


# The kernels' sizes and random streams (driver.Shape). Stream 0 of game g deals the
# cards; luck + s = 1 + s is the luck of seat s's decisions (which card its blind draws
# yield, where a Magpie it lets in lands); policy + s = 1 + MAX_PLAYERS + s is seat s's
# policy. Luck is tied to seats, not to policies, so rotating policies or changing a
# threshold keeps the deal identical and the draws aligned for as long as decisions
# agree (common random numbers).
SHAPE = Shape(STATE_SIZE, MAX_DECISIONS, ACTION_SIZE, luck=1, policy=1 + MAX_PLAYERS, streams=1 + 2 * MAX_PLAYERS,
              rotation=O_ROTATION, max_players=MAX_PLAYERS, cowinners=O_COWINNERS)
