"""Bye-Bye Black Sheep policies (@njit) and the built-in dispatcher.

Signature (DESIGN section 4): policy(s, rules, seat, params, rng, buf) -> (code, a, b),
a legal decision (model.py) for `seat`, the actor. Hidden information: a policy may
read only what its seat may know: its own HAND row, SIZE, ZOO, JOKER_AS, TABLE, the
pile size, the header, and its own KNOWN rows (what public events and Mole looks
revealed). tests/test_blacksheep_hidden.py re-deals everything else and checks that
no decision changes.

Every policy but `random` shares `play_special`, documented play of the card effects
and of zoo placement; they differ only in when to stop drawing.
"""

from numba import njit

from ...rng import rand_below
from .engine import (JOKER_AS, H_DRAWS, H_LIMIT, H_NPILE, H_NTABLE, H_PHASE, H_PLACED, H_PLAYERS, H_SOURCE, H_SPECIES,
                     HAND, KNOWN, MAX_PLAYERS, NK, SIZE, ZOO, legal_decisions, species_count)
from .model import (ANIMAL, DRAW, DRAW_FROM, EAGLE_ASK, EAGLE_ASK_PHASE, EAGLE_SKIP, JOKER, MAGPIE_NONE,
                    MAGPIE_PHASE, MAGPIE_TAKE, MOLE_NONE, MOLE_PHASE, MOLE_TAKE, MOTHER_PHASE, MOTHER_SKIP,
                    MOTHER_TAKE, PLACE, PLACE_DONE, STOP, WHITE_NONE, WHITE_PHASE, WHITE_PLACE)
from .rules import R_MAGPIE_BREAK, R_MUST_DRAW, R_ZOO_BASIS

RANDOM, THRESHOLD, RISK = 0, 1, 2
LAST_BUILTIN = RISK
P_K = 0                 # threshold: stop once k cards lie on the table
P_P, P_W = 0, 1         # risk: stop if P(Black Sheep next) > p, or if w > 0 and drawing has negative value


@njit(cache=True)
def random_policy(s, rules, seat, params, rng, buf):
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
    return z + s[HAND + seat * NK + ANIMAL + sp - 1] if z < 3 else 0


@njit(cache=True, inline="always")
def _best_placement(s, rules, seat, rng):
    """(kind, species) to place: the species closest to a triplet in the zoo (ties:
    more in hand, then at random); a Joker only to complete a triplet. (-1, 0): none."""
    hand = HAND + seat * NK + ANIMAL - 1        # hand[hand + sp]: cards of species sp
    zoo = ZOO + seat * NK + ANIMAL - 1
    joker_as = s[JOKER_AS + seat]
    best_sp = 0
    best_v = 0
    ties = 0
    for sp in range(1, s[H_SPECIES] + 1):
        h = s[hand + sp]
        z = s[zoo + sp] + (joker_as == sp)      # species_count
        # 0 = not placeable: none in hand, or a triplet already (a 4th scores nothing);
        # computed without branches, which the data would mispredict
        v = 10 * z + h if (z < 3) & (h > 0) else 0
        if v > best_v:
            best_sp, best_v, ties = sp, v, 1
        elif v == best_v and v > 0:
            ties += 1
            if rand_below(rng, ties) == 0:
                best_sp = sp
    if s[HAND + seat * NK + JOKER] > 0:
        for sp in range(1, s[H_SPECIES] + 1):
            if species_count(s, seat, sp) == 2:
                return JOKER, sp
    # species with a triplet were skipped, so the choice also respects zoo_max_per_species
    if best_sp == 0:
        return -1, 0
    return ANIMAL + best_sp - 1, best_sp


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
    # the loops below compute every candidate's value without branches (a value that
    # cannot win is made too low) so that only a new best costs a branch
    if phase == EAGLE_ASK_PHASE:
        best_o, best_sp, best_v = -1, 0, 0
        for o in range(s[H_PLAYERS]):
            if o == seat:
                continue
            seen = KNOWN + (seat * MAX_PLAYERS + o) * NK + ANIMAL - 1     # seen + sp
            for sp in range(1, s[H_SPECIES] + 1):
                v = _want(s, seat, sp) + 1 if s[seen + sp] > 0 else 0
                if v > best_v:
                    best_o, best_sp, best_v = o, sp, v
        if best_o < 0:
            return EAGLE_SKIP, 0, 0
        return EAGLE_ASK, best_o, best_sp
    if phase == MOLE_PHASE:
        seen = KNOWN + (seat * MAX_PLAYERS + s[H_SOURCE]) * NK + ANIMAL - 1
        best_k, best_v = -1, -1
        for sp in range(1, s[H_SPECIES] + 1):
            v = _want(s, seat, sp) if s[seen + sp] > 0 else -1
            if v > best_v:
                best_k, best_v = ANIMAL + sp - 1, v
        if best_k < 0:
            return MOLE_NONE, 0, 0
        return MOLE_TAKE, best_k, 0
    if phase == MAGPIE_PHASE:
        best_o, best_k, best_v = -1, -1, -1
        keep_triplets = rules[R_MAGPIE_BREAK] == 0
        for o in range(s[H_PLAYERS]):
            if o == seat:
                continue
            for sp in range(1, s[H_SPECIES] + 1):
                k = ANIMAL + sp - 1
                group = species_count(s, o, sp)
                takeable = (s[ZOO + o * NK + k] > 0) & ((group < 3) | (not keep_triplets))
                v = 2 * _want(s, seat, sp) + group if takeable else -1
                if v > best_v:
                    best_o, best_k, best_v = o, k, v
        if best_o < 0:
            return MAGPIE_NONE, 0, 0
        return MAGPIE_TAKE, best_o, best_k
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
def threshold(s, rules, seat, params, rng, buf):
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
def risk(s, rules, seat, params, rng, buf):
    """Stop when the next draw (from the largest hand, so q = 1 / its size) is a Black
    Sheep with probability q > p, or, with w > 0, when its value turns negative:
    (1 - q) x 1 more card at stake < q x w x the placements a stop now allows."""
    if s[H_PHASE] != DRAW:
        return play_special(s, rules, seat, rng)
    return _draw_or_stop(s, rules, seat, rng, _risk_stops(s, rules, seat, params))


@njit(cache=True, inline="always")
def choose(policy_id, s, rules, seat, params, rng, buf):
    """The built-in policies by id: `threshold` and `risk` share one copy of
    play_special (numba inlines each call site, and compiling it twice is slow)."""
    if policy_id != THRESHOLD and policy_id != RISK:
        return random_policy(s, rules, seat, params, rng, buf)
    if s[H_PHASE] != DRAW:
        return play_special(s, rules, seat, rng)
    if policy_id == THRESHOLD:
        stop = _threshold_stops(s, params)
    else:
        stop = _risk_stops(s, rules, seat, params)
    return _draw_or_stop(s, rules, seat, rng, stop)



@njit(cache=True)
def no_user_policies(policy_id, s, rules, seat, params, rng, buf):
    """The `choose_fn` of play.py's kernels for built-in policies: play_game calls the
    built-ins itself, so this is never called, and `choose` is not compiled twice."""
    return 0, 0, 0
