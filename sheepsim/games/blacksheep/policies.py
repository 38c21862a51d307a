"""Bye-Bye Black Sheep policies (@njit) and the built-in dispatcher.

Signature (sheepsim/ARCHITECTURE.md, "Adding things"): policy(s, rules, aux, seat, params, rng, buf) -> (code, a, b),
a legal decision (model.py) for `seat`, the actor. Hidden information: a policy may
read only what its seat may know: its own HAND row, SIZE, ZOO, JOKER_AS, TABLE, the
pile size, the header, and its own KNOWN rows (what public events and Mole looks
revealed). tests/test_blacksheep_hidden.py re-deals everything else and checks that
no decision changes.

Every policy but `random` shares `play_special`, documented play of the card effects
and of zoo placement; they differ only in when to stop drawing.
"""

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from ...rng import rand_below
from ..fast import placement_values, popcount
from .engine import (JOKER_AS, H_DRAWS, H_LIMIT, H_NPILE, H_NTABLE, H_PHASE, H_PLACED, H_PLAYERS, H_SOURCE, H_SPECIES,
                     H_TO_WIN, HAND, KNOWN, MAX_DECISIONS, MAX_PLAYERS, NK, SIZE, TABLE, ZOO, legal_decisions,
                     species_count, triplets)
from .model import (ANIMAL, COPIES, DRAW, DRAW_FROM, EAGLE_ASK, EAGLE_ASK_PHASE, EAGLE_SKIP, JOKER, MAGPIE_NONE,
                    MAGPIE_PHASE, MAGPIE_TAKE, MAX_SPECIES, MOLE_NONE, MOLE_PHASE, MOLE_TAKE, MOTHER_PHASE,
                    MOTHER_SKIP, MOTHER_TAKE, PLACE, PLACE_DONE, STOP, WHITE_NONE, WHITE_PHASE, WHITE_PLACE)
from .rules import R_MAGPIE_BREAK, R_MUST_DRAW, R_ZOO_BASIS
from . import turnsolve

RANDOM, THRESHOLD, RISK, TURN_OPTIMAL, LEARNED, DISTILLED = 0, 1, 2, 3, 4, 5
LAST_BUILTIN = DISTILLED
P_K = 0                 # threshold: stop once k cards lie on the table
# the equilibrium fixed threshold by player count (reports/blacksheep-thresholds.md;
# {8, 9} at 5 players): where learning starts, the fixed rule distilled's data meets
EQUILIBRIUM_K = {2: 6, 3: 7, 4: 8, 5: 8}
P_P, P_W = 0, 1         # risk: stop if P(Black Sheep next) > p, or if w > 0 and drawing has negative value


@njit(cache=True)
def random_policy(s, rules, aux, seat, params, rng, buf):
    """Uniform over the legal decisions (model.py), at every decision point."""
    n = legal_decisions(s, rules, buf)
    m = rand_below(rng, n)
    return buf[m, 0], buf[m, 1], buf[m, 2]


@njit(cache=True, inline="always")
def draw_target(s, seat, rng):
    """The opponent with the largest hand: each hand holds exactly one Black Sheep, so
    that draw is the least likely to end the turn (ties at random). Returns (o, h)."""
    best = -1
    best_h = -1
    ties = 0
    for o in range(s[H_PLAYERS]):
        if o == seat:
            continue
        h = s[SIZE + o]
        if h > best_h:
            best, best_h, ties = o, h, 1
        elif h == best_h:
            ties += 1
            if rand_below(rng, ties) == 0:
                best = o
    return best, best_h


@njit(cache=True, inline="always")
def _want(s, seat, sp):
    """How much the seat wants species sp: its zoo count plus hand count, 0 once the
    zoo holds a triplet of it (a 4th card scores nothing)."""
    z = species_count(s, seat, sp)
    return (z + s[HAND + seat * NK + ANIMAL + sp - 1]) * (z < 3)


# The Eagle, Mole and Magpie choices take the first best candidate in (opponent,
# species) order. Each candidate is scored as one integer key, value * KEY + (KEY - 1 -
# its rank in that order), so that the plain maximum of the keys is the first best
# candidate: no data-dependent branch (random hands would mispredict them), and a
# candidate that may not be chosen gets value 0.
KEY = 128           # > MAX_PLAYERS * MAX_SPECIES ranks


@njit(cache=True, inline="always")
def _key(v, o, sp):
    return v * KEY + (KEY - 1 - (o * MAX_SPECIES + sp - 1))


@njit(cache=True, inline="always")
def _unkey(best):
    """(value, opponent, species) of the best key."""
    rank = KEY - 1 - best % KEY
    return best // KEY, rank // MAX_SPECIES, rank % MAX_SPECIES + 1


# --- placement, as LLVM vector code -----------------------------------------------------
# The placement choice scans every species of the seat's hand and zoo at every placement
# decision. As a loop it was a fifth of a game, and numba leaves short loops scalar (it
# unrolls them and does not run LLVM's SLP vectorizer), so it is written as vector code.

@njit(cache=True, inline="always")
def _best_placement(s, rules, seat, rng):
    """(kind, species) to place: a Joker if it completes a triplet (the lowest such
    species); else the species closest to a triplet in the zoo, ties broken by more in
    hand, then uniformly at random among the species still tied: one draw from the
    seat's policy stream, rand_below(rng, number tied), which picks the tied species
    of that rank in species order, and no draw without a tie. (-1, 0): nothing to place."""
    if s[HAND + seat * NK + JOKER] > 0:
        for sp in range(1, s[H_SPECIES] + 1):
            if species_count(s, seat, sp) == 2:
                return JOKER, sp
    best, tied = placement_values(s, HAND + seat * NK + ANIMAL, ZOO + seat * NK + ANIMAL, s[JOKER_AS + seat])
    # species with a triplet have value 0, so the choice also respects zoo_max_per_species
    if best == 0:
        return -1, 0
    n = popcount(tied)
    if n > 1:
        for _ in range(rand_below(rng, n)):
            tied &= tied - 1        # drop the lowest tied species
    sp = trailing_zeros(tied) + 1
    return ANIMAL + sp - 1, sp


@njit(cache=True, inline="always")
def play_special(s, rules, seat, rng):
    """Documented play of every decision except when to stop drawing:

    Eagle: ask for the species the seat wants most among those an opponent is known
      to hold (from public events); skip if no opponent is known to hold one.
    Mole: take the card of the species the seat wants most from the hand it sees.
    Magpie: take the zoo card worth most: 2 x own want of its species plus the size
      of that opponent's group (breaking an opponent's near-triplet); none if empty.
    White Sheep (owner decides) and placement: the best placement (_best_placement),
      until the limit; stop placing when nothing would bring a triplet closer.
    Mother Sheep: always take the free card.
    """
    phase = s[H_PHASE]
    players = s[H_PLAYERS]
    species = s[H_SPECIES]
    if phase == EAGLE_ASK_PHASE:
        best = 0
        for o in range(players):
            seen = KNOWN + (seat * MAX_PLAYERS + o) * NK + ANIMAL - 1     # seen + sp
            for sp in range(1, species + 1):
                v = (_want(s, seat, sp) + 1) * ((s[seen + sp] > 0) & (o != seat))
                best = max(best, _key(v, o, sp))
        v, o, sp = _unkey(best)
        if v == 0:
            return EAGLE_SKIP, 0, 0
        return EAGLE_ASK, o, sp
    if phase == MOLE_PHASE:
        seen = KNOWN + (seat * MAX_PLAYERS + s[H_SOURCE]) * NK + ANIMAL - 1
        best = 0
        for sp in range(1, species + 1):
            best = max(best, _key((_want(s, seat, sp) + 1) * (s[seen + sp] > 0), 0, sp))
        v, _, sp = _unkey(best)
        if v == 0:
            return MOLE_NONE, 0, 0
        return MOLE_TAKE, ANIMAL + sp - 1, 0
    if phase == MAGPIE_PHASE:
        breaks = rules[R_MAGPIE_BREAK] == 1
        best = 0
        for o in range(players):
            for sp in range(1, species + 1):
                want = _want(s, seat, sp)
                group = species_count(s, o, sp)
                takeable = (s[ZOO + o * NK + ANIMAL + sp - 1] > 0) & ((group < 3) | breaks) & (o != seat)
                # group >= 1 for a takeable card, so its value is positive
                best = max(best, _key((2 * want + group) * takeable, o, sp))
        v, o, sp = _unkey(best)
        if v == 0:
            return MAGPIE_NONE, 0, 0
        return MAGPIE_TAKE, o, ANIMAL + sp - 1
    if phase == MOTHER_PHASE:
        if s[H_NPILE] > 0:
            return MOTHER_TAKE, 0, 0
        return MOTHER_SKIP, 0, 0
    # White Sheep (its owner places) or placement (until the limit)
    white = phase == WHITE_PHASE
    if not white and s[H_PLACED] >= s[H_LIMIT]:
        return PLACE_DONE, 0, 0
    kind, sp = _best_placement(s, rules, seat, rng)
    if kind < 0:
        return (WHITE_NONE if white else PLACE_DONE), 0, 0
    return (WHITE_PLACE if white else PLACE), kind, sp


@njit(cache=True, inline="always")
def _draw_or_stop(s, rules, seat, rng, stop):
    """STOP if wanted and allowed (option must_draw_first), else draw from the largest hand."""
    if stop and not (rules[R_MUST_DRAW] == 1 and s[H_DRAWS] == 0):
        return STOP, 0, 0
    o, _ = draw_target(s, seat, rng)
    return DRAW_FROM, o, 0


@njit(cache=True, inline="always")
def _threshold_stops(s, params):
    return s[H_NTABLE] >= params[P_K]


@njit(cache=True, inline="always")
def threshold(s, rules, aux, seat, params, rng, buf):
    """Draw (from the largest hand) until k cards lie on the table, then stop."""
    if s[H_PHASE] != DRAW:
        return play_special(s, rules, seat, rng)
    return _draw_or_stop(s, rules, seat, rng, _threshold_stops(s, params))


@njit(cache=True, inline="always")
def _risk_stops(s, rules, seat, params):
    h = 0
    for o in range(s[H_PLAYERS]):
        if o != seat:
            h = max(h, s[SIZE + o])
    q = 1.0 / h
    stop = q > params[P_P]
    if params[P_W] > 0.0:
        placeable = max(0, (s[H_NTABLE] if rules[R_ZOO_BASIS] == 0 else s[H_DRAWS]) - 2)
        stop = stop or (1.0 - q) < q * params[P_W] * placeable
    return stop


@njit(cache=True, inline="always")
def risk(s, rules, aux, seat, params, rng, buf):
    """Stop when the next draw (from the largest hand, so q = 1 / its size) is a Black
    Sheep with probability q > p, or, with w > 0, when its value turns negative:
    (1 - q) x 1 more card at stake < q x w x the placements a stop now allows."""
    if s[H_PHASE] != DRAW:
        return play_special(s, rules, seat, rng)
    return _draw_or_stop(s, rules, seat, rng, _risk_stops(s, rules, seat, params))


# learned's feature set (stoptable.py), what the seat sees when it may stop: own
# triplets and the leading opponent's (0 .. to_win - 1 each), the largest opponent hand
# in bands of two cards (0-1, ..., 8-9, 10 or more: a draw from it is a Black Sheep
# with chance 1 / its size), and own zoo pairs (0, 1, 2 or more: a placement away from
# a triplet). The amount is the cards on the table, as `threshold`'s k.
HAND_BANDS, HAND_TOP, PAIR_BANDS = 6, 10, 3
LEARNED_AT = 1          # aux slot of the stop table's block (aux[0] is the unused start state)


@njit(cache=True, inline="always")
def stop_cell(s, rules, seat):
    """The cell of the seat's stop decision; -1 when it may not stop (a turn's first
    draw under must_draw_first) or is not drawing."""
    if s[H_PHASE] != DRAW or (rules[R_MUST_DRAW] == 1 and s[H_DRAWS] == 0):
        return -1
    w = s[H_TO_WIN]
    lead = 0
    hand = 0
    for o in range(s[H_PLAYERS]):
        if o != seat:
            lead = max(lead, triplets(s, o))
            hand = max(hand, s[SIZE + o])
    pairs = 0
    for sp in range(1, s[H_SPECIES] + 1):
        pairs += species_count(s, seat, sp) == 2
    cell = min(triplets(s, seat), w - 1) * w + min(lead, w - 1)
    return (cell * HAND_BANDS + min(hand, HAND_TOP) // 2) * PAIR_BANDS + min(pairs, PAIR_BANDS - 1)


@njit(cache=True, inline="always")
def stop_amount(s):
    return s[H_NTABLE]


@njit(cache=True, inline="always")
def stop_act(s, rules, seat, rng, stop):
    return _draw_or_stop(s, rules, seat, rng, stop)


@njit(cache=True, inline="always")
def _learned_stops(s, rules, aux, seat):
    # below the table's least threshold (the block's first slot) no cell stops: the
    # cell, which counts every seat's triplets, is worked out only where it may
    if s[H_NTABLE] < aux[LEARNED_AT]:
        return False
    c = stop_cell(s, rules, seat)
    return c >= 0 and s[H_NTABLE] >= aux[LEARNED_AT + 1 + c]


@njit(cache=True)
def learned(s, rules, aux, seat, params, rng, buf):
    """Draw (from the largest hand) until the cards on the table reach the threshold of
    the seat's cell in the stop table in aux, then stop; effects and placement as
    `threshold`."""
    if s[H_PHASE] != DRAW:
        return play_special(s, rules, seat, rng)
    return _draw_or_stop(s, rules, seat, rng, _learned_stops(s, rules, aux, seat))


# --- distilled: turn_optimal's stop decision as a linear rule over six terms -----------
#
# turn_optimal compares stopping now with drawing on, through the zoo's value at the end
# of the turn (single 0.2, pair 0.5, triplet 1, a winning zoo 10: its default
# objective). `stop_terms` measures the same trade in four numbers that cost a pass over
# the species, and `distilled` draws when a weighted sum of them is positive; the
# weights were fitted to turn_optimal's own decisions (distill.py, tables/distilled.json).
STOP_TERMS = ("bias", "stake", "placement", "next_card", "risk", "table")
T_VALUE = (0.0, 0.2, 0.5, 1.0)        # the objective of one species, by zoo count (3+: triplet)
T_WIN = 10.0


@njit(cache=True, inline="always")
def _value(c):
    return T_VALUE[min(c, 3)]


@njit(cache=True, inline="always")
def _gain(c):
    """What one more card of a species with c in the zoo adds to the objective."""
    return _value(c + 1) - _value(c)


@njit(cache=True)
def stop_terms(s, rules, seat, buf):
    """(q, stake, placement, next_card) of the seat's stop decision, all public to it:

    q          the chance that a draw from the largest opponent hand is a Black Sheep
    stake      what a stop now adds to the zoo's value: the table goes to the hand and
               up to `limit` cards are placed by the shared rule (_best_placement's
               order: the species closest to a triplet, then the most in hand); a stop
               that completes the winning triplets is worth the win, T_WIN
    placement  what one more placement (the limit a further card on the table allows)
               adds, with the cards in hand after the stop's placements
    next_card  the same, the drawn card joining the hand first: its species in
               proportion to the copies the seat has not seen (COPIES less its hand,
               every zoo and the table), specials left out

    Stake, placement and next_card are 0 while a stop would place nothing (limit 0).
    `buf` is scratch: per species, zoo count, hand count and unseen copies."""
    h = 1
    for o in range(s[H_PLAYERS]):
        if o != seat:
            h = max(h, s[SIZE + o])
    q = 1.0 / h
    n = s[H_NTABLE]
    limit = max(0, (n if rules[R_ZOO_BASIS] == 0 else s[H_DRAWS]) - 2)
    if limit == 0:
        return q, 0.0, 0.0, 0.0
    species = s[H_SPECIES]
    trips = 0
    zoo_value = 0.0
    for sp in range(species):
        z = species_count(s, seat, sp + 1)
        held = s[HAND + seat * NK + ANIMAL + sp]
        unseen = COPIES - held
        for o in range(s[H_PLAYERS]):
            unseen -= s[ZOO + o * NK + ANIMAL + sp]
        buf[sp, 0], buf[sp, 1], buf[sp, 2] = z, held, unseen
        trips += z >= 3
        zoo_value += _value(z)
    for i in range(n):
        sp = s[TABLE + i] - ANIMAL
        if sp >= 0:
            buf[sp, 1] += 1
            buf[sp, 2] -= 1
    to_win = s[H_TO_WIN]
    stake = 0.0
    for _ in range(limit):
        best = 0
        at = -1
        for sp in range(species):
            z, held = buf[sp, 0], buf[sp, 1]
            v = 16 * z + held if (z < 3) & (held > 0) else 0
            if v > best:
                best, at = v, sp
        if at < 0:
            break
        z = buf[at, 0]
        buf[at, 0] += 1
        buf[at, 1] -= 1
        if z == 2:
            trips += 1
            if trips >= to_win:
                return q, T_WIN - zoo_value, 0.0, 0.0
        stake += _gain(z)
    # the next placement goes to the species closest to a triplet among those in hand
    # (z_next, -1 for none); a drawn card of a species with more in the zoo goes first
    z_next = -1
    for sp in range(species):
        z = buf[sp, 0]
        if (z < 3) & (buf[sp, 1] > 0) & (z > z_next):
            z_next = z
    win = T_WIN - zoo_value - stake
    placement = 0.0
    if z_next >= 0:
        placement = win if z_next == 2 and trips + 1 >= to_win else _gain(z_next)
    total = 0
    expected = 0.0
    for sp in range(species):
        copies = max(buf[sp, 2], 0)
        z = buf[sp, 0]
        goes = max(z_next, z) if z < 3 else z_next
        if goes >= 0:
            expected += copies * (win if goes == 2 and trips + 1 >= to_win else _gain(goes))
        total += copies
    next_card = expected / total if total > 0 else placement
    return q, stake, placement, next_card


@njit(cache=True, inline="always")
def _distilled_stops(s, rules, seat, params, buf):
    q, stake, placement, next_card = stop_terms(s, rules, seat, buf)
    draw = (params[0] + params[1] * q * stake + params[2] * (1.0 - q) * placement
            + params[3] * (1.0 - q) * next_card + params[4] * q + params[5] * s[H_NTABLE])
    return draw <= 0.0


@njit(cache=True)
def distilled(s, rules, aux, seat, params, rng, buf):
    """Draw (from the largest hand) while bias + stake x q x stake + placement x (1 - q)
    x placement + next_card x (1 - q) x next_card + risk x q + table x cards on the
    table is positive (stop_terms; the weights are its parameters); effects and
    placement as `threshold`."""
    if s[H_PHASE] != DRAW:
        return play_special(s, rules, seat, rng)
    return _draw_or_stop(s, rules, seat, rng, _distilled_stops(s, rules, seat, params, buf))


@njit(cache=True)
def turn_optimal(s, rules, aux, seat, params, rng, buf):
    """Stop or draw, from whom, and the Eagle, Magpie and Mole choices, as the exact
    within-turn solver says (turnsolve.py); placement as `threshold`. (The dispatcher
    gives the solver its scratch; called alone, as here, it allocates one.)"""
    phase = s[H_PHASE]
    if not (phase == DRAW or phase == EAGLE_ASK_PHASE or phase == MAGPIE_PHASE or phase == MOLE_PHASE):
        return play_special(s, rules, seat, rng)
    return turnsolve.decide(s, rules, seat, params, np.empty((MAX_DECISIONS, 3), dtype=np.int32))


@njit(cache=True, inline="always")
def choose(policy_id, s, rules, aux, seat, params, rng, buf, scratch):
    """The built-in policies by id: `threshold`, `risk`, `turn_optimal`, `learned` and `distilled` share one
    copy of play_special (numba inlines each call site, and compiling it twice is slow)."""
    if (policy_id != THRESHOLD and policy_id != RISK and policy_id != TURN_OPTIMAL and policy_id != LEARNED
            and policy_id != DISTILLED):
        return random_policy(s, rules, aux, seat, params, rng, buf)
    phase = s[H_PHASE]
    if policy_id == TURN_OPTIMAL and (phase == DRAW or phase == EAGLE_ASK_PHASE or phase == MAGPIE_PHASE
                                      or phase == MOLE_PHASE):
        return turnsolve.decide(s, rules, seat, params, scratch)
    if phase != DRAW:
        return play_special(s, rules, seat, rng)
    if policy_id == THRESHOLD:
        stop = _threshold_stops(s, params)
    elif policy_id == LEARNED:
        stop = _learned_stops(s, rules, aux, seat)
    elif policy_id == DISTILLED:
        stop = _distilled_stops(s, rules, seat, params, buf)
    else:
        stop = _risk_stops(s, rules, seat, params)
    return _draw_or_stop(s, rules, seat, rng, stop)



@njit(cache=True, inline="always")
def choose_rollout(policy_id, s, rules, aux, seat, params, rng, buf, scratch):
    """`choose` cut to the search's rollout policies, distilled and random (its Engine record's rollout_greedy and
    rollout_random). The search inlines its rollout's dispatcher; with every built-in in it
    (turn_optimal's solver among them) the search kernel took 66 s to compile, against 41 s."""
    if policy_id == DISTILLED:
        return distilled(s, rules, aux, seat, params, rng, buf)
    return random_policy(s, rules, aux, seat, params, rng, buf)


@njit(cache=True)
def no_user_policies(policy_id, s, rules, aux, seat, params, rng, buf):
    """The user-policy dispatcher of the built-in kernels (games/kernels.py): play_game calls the
    built-ins itself, so this is never called, and `choose` is not compiled twice."""
    return 0, 0, 0
