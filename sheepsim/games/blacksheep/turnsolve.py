"""Bye-Bye Black Sheep's exact within-turn stop solver, the `turn_optimal` policy.

At each draw decision of its turn the seat chooses to stop or to draw blindly from
one opponent, whichever maximises the expected value of the TURN OBJECTIVE, the value
of its own zoo once the turn is over:

    value(zoo) = win                         if the zoo holds the triplets to win
               = sum over species of f(c)    otherwise, f(0) = 0, f(1) = single,
                                             f(2) = pair, f(3 or more) = triplet

(policy parameters; a card left in hand is worth nothing to the objective). A stop
places by today's shared rule (policies.play_special: the species closest to a
triplet, up to N - 2 cards), and a Black Sheep leaves the zoo as it is.

What the seat may know, and the chance model. The seat sees its hand, every zoo, the
table, hand sizes, the pile size and its own KNOWN rows (engine.py: cards it knows an
opponent holds). Every other card is UNSEEN: the pool U, by kind, which fills each
opponent's unknown slots (its hand size minus what the seat knows of it) and the pile,
uniformly at random (the allocation `engine.determinize` samples from). So a blind
draw from opponent o with h cards, k_o of them known, yields

    a card of kind k   with probability (KNOWN[o, k] + u_o * U[k] / |U|) / h,
                       u_o = h - sum of KNOWN[o, .]

(the Black Sheep is always known: 1 / h). After a draw of kind k the seat's knowledge
moves as the engine moves it: KNOWN[o, k] drops by one if it was above 0 (the card
may have been the known one), else the card came out of the unknown slots (u_o and
U[k] drop by one). The solver therefore looks ahead through exactly the beliefs the
seat will hold when it reaches each later decision (tests/test_turn_optimal.py checks
this against brute force: every allocation of the unseen cards, the engine's own moves).
|U| is counted from the hidden hands' excess over KNOWN and the pile, as determinize
counts it; it equals the census minus every card the seat sees or knows, so it is
public, and the hidden-information test re-deals the rest.

What it solves and what it does not.
* Exact expectimax over stop or draw from each opponent, to `depth` more draws: at
  that horizon the seat stops (the value of the best policy that draws at most
  `depth` more cards this turn). A draw onto a table of fewer than 2 cards does not
  count toward the depth: a stop there places nothing, so a horizon that ended there
  would always stop. Each draw ends a turn with probability 1 / h, about 1/7.
* The solver covers the Eagle and the Magpie, in its look-ahead and at its real
  decisions: the Eagle asks the (opponent, species) it KNOWS the opponent holds, or
  skips, whichever has the highest value (it never asks blindly, so it never fails);
  the Magpie takes the zoo card, or none, of highest value. The objective counts only
  the seat's own zoo, so the Magpie takes for the seat's own sake (today's shared play
  also weighs breaking an opponent's group). The Mole too, at its real decision (it
  sees the hand: take the card of highest value); in the look-ahead a drawn Mole
  takes the best card in expectation over the hand it would see (the unknown slots
  filled from U: hypergeometric) and the look-ahead stops there, so a draw past a
  Mole counts as stopping right after it, a lower bound. Placement keeps the shared
  rule.
* Ties choose the stop, then the first opponent, species or card in seat and kind
  order; the policy draws no random number. Alike species (equal counts in hand, zoo,
  table, the pool and what each opponent is known to hold, and in opponents' zoos)
  and alike opponents (hand size, known cards) have equal values, since every choice
  the solver makes is a maximum: each class is solved once. At the horizon an
  animal's draw ends in a stop whose value does not depend on the opponent it came
  from: it is worked out once for all of them, in place (a call of the recursion
  costs numba's reference counts of its arrays). And two orders of the same draws
  (k1 from o1 then k2 from o2, and the other way round) reach the same beliefs: a
  transposition table keeps each position's value below the root, keyed by the
  whole belief array and the depth to go (compared whole: a hash collision cannot
  mislead it), where the look-ahead goes three draws deep or more. The same
  decisions, games bit-identical (tests/test_golden.py). Measured on one thread on
  2026-12-06, each change side by side with the code before it: sharing leaves, 3
  players (one turn_optimal against two k = 7) 134 to 157 games/s, 4 turn_optimal
  players 11.2 to 13.5; then the table, 155 to 166 and 13.1 to 16.8, and depth 2 in 3
  players 4.4 to 8.6; 2 players 1 to 3% slower at each step (about 700 games/s
  against k = 6, 380 self-play).
* Optional cards (Wolf, White Sheep, Mother Sheep, Joker) are not modelled: the
  policy refuses rules that use them (game.policy_data).

Cost (measured on this machine, one thread, the 3-player deal state): depth 1 is
77 us a decision, depth 2 is 610 us, depth 3 is 4.8 ms; each step multiplies by
about (opponents x outcome classes). Depth 1 is the default: against two k = 7
players over 2,000 3-player games depth 1 and depth 2 won the same share (44.4%
[42.2, 46.6] and 44.4% [42.2, 46.5]). `sheepsim bench` states decisions and games
per second.
"""

import numpy as np
from numba import njit

from .engine import (H_DRAWS, H_NPILE, H_PHASE, H_SOURCE, H_NTABLE, H_PLAYERS, H_SPECIES, H_TO_WIN, HAND, KNOWN,
                     MAX_DECISIONS, MAX_PLAYERS, NK, PILE, SIZE, TABLE, ZOO, species_count)
from .model import (ANIMAL, DRAW, DRAW_FROM, EAGLE, EAGLE_ASK, EAGLE_ASK_PHASE, EAGLE_SKIP, MAGPIE,
                    MAGPIE_NONE, MAGPIE_PHASE, MAGPIE_TAKE, MAX_SPECIES, MOLE, MOLE_NONE, MOLE_PHASE, MOLE_TAKE,
                    STOP)
from .rules import R_MAGPIE_BREAK, R_MUST_DRAW, R_ZOO_BASIS

# the parameter vector, in the registered order
P_DEPTH, P_TRIPLET, P_PAIR, P_SINGLE, P_WIN = range(5)
MAX_DEPTH = 6

# the solver's work array (int32, the policy's scratch): the seat's beliefs, moved by
# the look-ahead's draws and moved back after each one
W_TAB = 0                                   # [NK] cards of each kind on the table
W_KN = W_TAB + NK                           # [MAX_PLAYERS * NK] KNOWN[seat, o, k]
W_H = W_KN + MAX_PLAYERS * NK               # [MAX_PLAYERS] hand sizes
W_UNK = W_H + MAX_PLAYERS                   # [MAX_PLAYERS] unknown slots per hand
W_U = W_UNK + MAX_PLAYERS                   # [NK] the unseen pool by kind
W_NU = W_U + NK                             # |U|
W_NTABLE = W_NU + 1                         # cards on the table
W_DRAWS = W_NTABLE + 1                      # blind draws this turn
W_Z = W_DRAWS + 1                           # [MAX_SPECIES] the stop value's zoo counts
W_HH = W_Z + MAX_SPECIES                    # [MAX_SPECIES] and hand counts
W_SIZE = W_HH + MAX_SPECIES
assert W_SIZE <= MAX_DECISIONS * 3          # fits the policy's scratch, int32[MAX_DECISIONS, 3]


@njit(cache=True, inline="always")
def _f(c, params):
    if c >= 3:
        return params[P_TRIPLET]
    if c == 2:
        return params[P_PAIR]
    if c == 1:
        return params[P_SINGLE]
    return 0.0


@njit(cache=True)
def stop_value(s, rules, seat, w, params, limit):
    """The objective's value of the zoo after taking the table into hand and placing
    up to `limit` cards by the shared rule (the species of highest 16 x zoo + hand
    with zoo < 3 and a card in hand; which of a tie is placed does not change the
    value, since tied species have equal counts)."""
    species = s[H_SPECIES]
    trip = 0
    for sp in range(species):
        z = species_count(s, seat, sp + 1)
        w[W_Z + sp] = z
        w[W_HH + sp] = s[HAND + seat * NK + ANIMAL + sp] + w[W_TAB + ANIMAL + sp]
        trip += z >= 3
    to_win = s[H_TO_WIN]
    for _ in range(limit):
        best = 0
        at = -1
        for sp in range(species):
            z = w[W_Z + sp]
            h = w[W_HH + sp]
            v = 16 * z + h if (z < 3) & (h > 0) else 0
            if v > best:
                best, at = v, sp
        if at < 0:
            break
        w[W_Z + at] += 1
        w[W_HH + at] -= 1
        if w[W_Z + at] == 3:
            trip += 1
            if trip >= to_win:
                return params[P_WIN]
    total = 0.0
    for sp in range(species):
        total += _f(w[W_Z + sp], params)
    return total


@njit(cache=True, inline="always")
def _limit(rules, w):
    n = w[W_NTABLE] if rules[R_ZOO_BASIS] == 0 else w[W_DRAWS]
    return max(0, n - 2)


@njit(cache=True, inline="always")
def _want(s, seat, sp):
    """policies._want: zoo + hand count of species sp, 0 once it is a triplet. It
    reads the hand and the zoo only, so it stays fixed while the turn draws."""
    z = species_count(s, seat, sp)
    return (z + s[HAND + seat * NK + ANIMAL + sp - 1]) * (z < 3)


@njit(cache=True, inline="always")
def _push(w, o, kind, known):
    """A card of `kind` leaves opponent o's hand for the table (o < 0: from a zoo, by
    the Magpie), moving the seat's knowledge as the engine does: a known card if the
    seat knew of one, else one of the unknown slots."""
    if o >= 0:
        if known:
            w[W_KN + o * NK + kind] -= 1
        else:
            w[W_U + kind] -= 1
            w[W_NU] -= 1
            w[W_UNK + o] -= 1
        w[W_H + o] -= 1
    w[W_TAB + kind] += 1
    w[W_NTABLE] += 1


@njit(cache=True, inline="always")
def _pop(w, o, kind, known):
    """Undo _push."""
    if o >= 0:
        if known:
            w[W_KN + o * NK + kind] += 1
        else:
            w[W_U + kind] += 1
            w[W_NU] += 1
            w[W_UNK + o] += 1
        w[W_H + o] += 1
    w[W_TAB + kind] -= 1
    w[W_NTABLE] -= 1


@njit(cache=True)
def _mole_value(s, rules, seat, w, params, o):
    """The look-ahead's Mole, drawn from o (its card on the table): the expected value
    of the best take, or none, among the animals o's hand holds, each take followed by
    a stop. Candidates in decreasing value: the take of rank r happens when o holds its
    species and none ranked above; the hand's unknown slots are filled from U, and
    P(no card of a set S among u slots) = prod over j < u of (|U| - m_S - j) / (|U| - j)."""
    species = s[H_SPECIES]
    u = w[W_UNK + o]
    n = w[W_NU]
    none = stop_value(s, rules, seat, w, params, _limit(rules, w))
    values = np.empty(MAX_SPECIES, dtype=np.float64)
    held = np.zeros(MAX_SPECIES, dtype=np.bool_)
    for sp in range(species):
        kind = ANIMAL + sp
        held[sp] = w[W_KN + o * NK + kind] > 0 or (u > 0 and w[W_U + kind] > 0)
        if held[sp]:
            known = w[W_KN + o * NK + kind] > 0
            _push(w, o, kind, known)
            values[sp] = stop_value(s, rules, seat, w, params, _limit(rules, w))
            _pop(w, o, kind, known)
    total = 0.0
    absent = 1.0          # P(o holds none of the species ranked so far)
    m = 0                 # unseen cards of those species
    for _ in range(species):
        at = -1
        for sp in range(species):
            if held[sp] and (at < 0 or values[sp] > values[at]):
                at = sp
        if at < 0 or values[at] <= none:
            break
        held[at] = False
        kind = ANIMAL + at
        if w[W_KN + o * NK + kind] > 0:
            total += absent * values[at]
            absent = 0.0
            break
        m += w[W_U + kind]
        after = 1.0
        for j in range(u):
            after *= max(0.0, (n - m - j) / (n - j))
        total += (absent - after) * values[at]
        absent = after
    return total + absent * none


@njit(cache=True)
def _signature(s, seat, w, kind):
    """Everything the look-ahead reads of one species, as one integer: two species
    with equal signatures are interchangeable and have equal values."""
    sig = species_count(s, seat, kind - ANIMAL + 1)
    sig = sig * 64 + s[HAND + seat * NK + kind]
    sig = sig * 64 + w[W_TAB + kind]
    sig = sig * 8 + w[W_U + kind]
    for o in range(s[H_PLAYERS]):
        if o != seat:
            sig = sig * 8 + w[W_KN + o * NK + kind]
            sig = sig * 8 + species_count(s, o, kind - ANIMAL + 1)
    return sig


@njit(cache=True)
def _same_opponent(s, w, o, q):
    """Do opponents o and q look alike to the seat (hand size, known cards)?"""
    if w[W_H + o] != w[W_H + q]:
        return False
    for k in range(NK):
        if w[W_KN + o * NK + k] != w[W_KN + q * NK + k]:
            return False
    return True


# the transposition table (solve): a position's beliefs, w[:T_KEY], and its depth to go
T_KEY = W_Z
T_CAP = 4096                # slots, a power of 2; a full table stops storing, never errs
T_PROBE = 8                 # slots tried from a key's hash before giving up


@njit(cache=True, inline="always")
def _hash(w, depth):
    """A key's 64-bit FNV-1a hash, never 0 (0 marks an empty slot)."""
    h = np.uint64(14695981039346656037)
    for i in range(T_KEY):
        h = (h ^ np.uint64(w[i] & 0xFFFFFFFF)) * np.uint64(1099511628211)
    h = (h ^ np.uint64(depth)) * np.uint64(1099511628211)
    return h | np.uint64(1)


@njit(cache=True)
def _lookup(w, depth, h, tkeys, thash):
    """The slot holding this position, of hash h (thash[slot] != 0), or the empty slot
    where it would go (thash[slot] == 0), or -1 when the probed slots are all taken by
    others. Keys are compared whole: a hash collision cannot return another position's
    value."""
    cap = thash.shape[0]
    at = np.int64(h & np.uint64(cap - 1))
    for _ in range(T_PROBE):
        if thash[at] == 0:
            return at
        if thash[at] == h and tkeys[at, T_KEY] == depth:
            same = True
            for i in range(T_KEY):
                if tkeys[at, i] != w[i]:
                    same = False
                    break
            if same:
                return at
        at = (at + 1) & (cap - 1)
    return -1


@njit(cache=True)
def _store(w, depth, h, tkeys, thash, tvals, slot, value):
    """Keep the position's value in the slot _lookup found empty for it (a deeper
    position may have taken that slot meanwhile: then this one is not kept)."""
    if thash[slot] != 0:
        return
    for i in range(T_KEY):
        tkeys[slot, i] = w[i]
    tkeys[slot, T_KEY] = depth
    tvals[slot] = value
    thash[slot] = h


# what a position of the look-ahead asks for (best's `mode`)
AT_DRAW, AT_EAGLE, AT_MAGPIE, AT_MOLE = 0, 1, 2, 3


@njit(cache=True)
def best(s, rules, seat, w, memo, tkeys, thash, tvals, params, depth, mode, source, level):
    """(value, a, b) of the best choice at a decision of the seat's turn with `depth`
    draws to go, one function because numba compiles self-recursion and not recursion
    through several functions:

    AT_DRAW    stop (a = -1) or draw from opponent a: the expected value over the
               kinds the draw may yield, each followed by its effect;
    AT_EAGLE   skip (a = -1) or ask opponent a for species b, a card it is known to hold;
    AT_MAGPIE  take nothing (a = -1) or the card of kind b from opponent a's zoo;
    AT_MOLE    (the hand of `source` is seen) take nothing (a = -1) or a card of kind b.
    """
    # recursive calls pass typed integers, never literals: a literal would make numba
    # compile another specialisation of the recursion, which it cannot resolve
    at_draw, at_eagle, at_magpie, nobody = np.int64(AT_DRAW), np.int64(AT_EAGLE), np.int64(AT_MAGPIE), np.int64(-1)
    if mode == AT_EAGLE or mode == AT_MAGPIE or mode == AT_MOLE:
        value = best(s, rules, seat, w, memo, tkeys, thash, tvals, params, depth, at_draw, nobody, level)[0]
        ca, cb = -1, 0
        for o in range(s[H_PLAYERS]):
            if o == seat or (mode == AT_MOLE and o != source):
                continue
            for sp in range(1, s[H_SPECIES] + 1):
                kind = ANIMAL + sp - 1
                if mode == AT_MAGPIE:
                    group = species_count(s, o, sp)
                    if s[ZOO + o * NK + kind] == 0 or (group >= 3 and rules[R_MAGPIE_BREAK] == 0):
                        continue
                    _push(w, -1, kind, True)
                    v = best(s, rules, seat, w, memo, tkeys, thash, tvals, params, depth, at_draw, nobody, level)[0]
                    _pop(w, -1, kind, True)
                else:
                    if w[W_KN + o * NK + kind] == 0:
                        continue
                    _push(w, o, kind, True)
                    v = best(s, rules, seat, w, memo, tkeys, thash, tvals, params, depth, at_draw, nobody, level)[0]
                    _pop(w, o, kind, True)
                if v > value:
                    value, ca, cb = v, o, (sp if mode == AT_EAGLE else kind)
        return value, ca, cb
    may_stop = not (rules[R_MUST_DRAW] == 1 and w[W_DRAWS] == 0)
    value = stop_value(s, rules, seat, w, params, _limit(rules, w)) if may_stop else -np.inf
    choice = -1
    if depth <= 0 and may_stop:
        return value, choice, 0
    depth = max(depth, 1)
    # a position met before by another order of the same draws (k1 from o1 then k2
    # from o2, or the other way round): its value is the one worked out then (below
    # the root only: the root's choice is wanted, not only its value)
    slot = -1
    h = np.uint64(0)
    if level > 0 and thash.shape[0] > 0:
        h = _hash(w, depth)             # once: the lookup and the store below share it
        slot = _lookup(w, depth, h, tkeys, thash)
        if slot >= 0 and thash[slot] != 0:
            return tvals[slot], -1, 0
    # a draw onto a table of fewer than 2 cards cannot raise the placement limit yet
    # (N - 2 <= 0), so it does not count toward the horizon: every look-ahead reaches
    # a position where a stop places, however small `depth` is
    below = depth - 1 if w[W_NTABLE] >= 2 else depth
    sigs = memo[level, 0]         # this level's species signatures, values and leaves
    vals = memo[level, 1]
    leaves = memo[level, 2]
    bs = stop_value(s, rules, seat, w, params, 0)       # a Black Sheep: no placement
    # once a position, not once an opponent: a species' signature reads the seat's
    # beliefs here, which a draw from any opponent leaves as they were once undone
    # (worked out when first needed: NaN until then); and at the horizon (below = 0)
    # the draw of an animal ends in a stop on the table with it, whoever it came from:
    # its value (a leaf) is worked out once for every opponent
    for kind in range(ANIMAL, NK):
        sigs[kind] = np.nan
        leaves[kind] = np.nan
    for o in range(s[H_PLAYERS]):
        if o == seat:
            continue
        twin = False
        for q in range(o):
            if q != seat and _same_opponent(s, w, o, q):
                twin = True
                break
        if twin:
            continue
        h = w[W_H + o]
        unk = w[W_UNK + o]
        n = w[W_NU]
        total = bs / h
        for kind in range(1, NK):
            known = w[W_KN + o * NK + kind]
            p = (known + (unk * w[W_U + kind] / n if n > 0 else 0.0)) / h
            vals[kind] = np.nan         # not (yet) worked out for this opponent
            if p <= 0.0:
                continue
            if kind >= ANIMAL:
                if np.isnan(sigs[kind]):
                    sigs[kind] = float(_signature(s, seat, w, kind))
                same = -1
                for k2 in range(ANIMAL, kind):
                    if sigs[k2] == sigs[kind] and not np.isnan(vals[k2]):
                        same = k2
                        break
                if same >= 0:
                    vals[kind] = vals[same]
                    total += p * vals[kind]
                    continue
                if below <= 0 and not np.isnan(leaves[kind]):
                    vals[kind] = leaves[kind]
                    total += p * vals[kind]
                    continue
            _push(w, o, kind, known > 0)
            w[W_DRAWS] += 1
            if kind == MOLE:
                v = _mole_value(s, rules, seat, w, params, o)
            elif kind == EAGLE:
                v = best(s, rules, seat, w, memo, tkeys, thash, tvals, params, below, at_eagle, nobody, level + 1)[0]
            elif kind == MAGPIE:
                v = best(s, rules, seat, w, memo, tkeys, thash, tvals, params, below, at_magpie, nobody, level + 1)[0]
            elif below <= 0:
                # the horizon: a stop after the draw (a draw was made, so the seat may
                # stop), worked out here rather than by a call of `best`, whose arrays
                # numba counts references to at every call
                v = stop_value(s, rules, seat, w, params, _limit(rules, w))
            else:
                v = best(s, rules, seat, w, memo, tkeys, thash, tvals, params, below, at_draw, nobody, level + 1)[0]
            w[W_DRAWS] -= 1
            _pop(w, o, kind, known > 0)
            vals[kind] = v
            if below <= 0 and kind >= ANIMAL:
                leaves[kind] = v
            total += p * v
        if total > value:           # a tie stops, or keeps the earlier opponent
            value, choice = total, o
    if slot >= 0:
        _store(w, depth, h, tkeys, thash, tvals, slot, value)
    return value, choice, 0


@njit(cache=True)
def beliefs(s, seat, w):
    """Fill the work array with the seat's view at a draw decision of its turn."""
    p = s[H_PLAYERS]
    for k in range(NK):
        w[W_TAB + k] = 0
        w[W_U + k] = 0
    for t in range(s[H_NTABLE]):
        w[W_TAB + s[TABLE + t]] += 1
    n = 0
    for o in range(MAX_PLAYERS):
        w[W_H + o] = 0
        w[W_UNK + o] = 0
        for k in range(NK):
            w[W_KN + o * NK + k] = 0
        if o >= p or o == seat:
            continue
        h = s[SIZE + o]
        w[W_H + o] = h
        unknown = h
        for k in range(NK):
            kn = s[KNOWN + (seat * MAX_PLAYERS + o) * NK + k]
            w[W_KN + o * NK + k] = kn
            unknown -= kn
            # the pool's count of kind k (public in total; determinize counts it so)
            excess = s[HAND + o * NK + k] - kn
            w[W_U + k] += excess
            n += excess
        w[W_UNK + o] = unknown
    for i in range(s[H_NPILE]):
        w[W_U + s[PILE + i]] += 1
    w[W_NU] = n + s[H_NPILE]
    w[W_NTABLE] = s[H_NTABLE]
    w[W_DRAWS] = s[H_DRAWS]


@njit(cache=True)
def solve(s, rules, seat, params, scratch):
    """(value, a, b) of the best choice at the seat's current decision (a draw, Eagle,
    Magpie or Mole decision of its turn), as `best` gives them; `scratch` is any
    int32 array of W_SIZE slots or more."""
    w = scratch.reshape(-1)
    beliefs(s, seat, w)
    depth = np.int64(params[P_DEPTH])
    # per look-ahead level (a draw; the free draws below 2 table cards add two): the
    # signatures, values and leaf values of the kinds a draw may yield
    memo = np.empty((depth + 3, 3, NK), dtype=np.float64)
    # the transposition table, where the look-ahead goes three draws deep or more (the
    # first decision of a turn, and depths above 1): only there do two orders of the
    # same draws meet below the root; elsewhere its allocation would cost for nothing
    cap = T_CAP if depth + max(0, 2 - w[W_NTABLE]) >= 3 else 0
    tkeys = np.empty((cap, T_KEY + 1), dtype=np.int32)
    thash = np.zeros(cap, dtype=np.uint64)
    tvals = np.empty(cap, dtype=np.float64)
    phase = s[H_PHASE]
    mode = AT_DRAW
    if phase == EAGLE_ASK_PHASE:
        mode = AT_EAGLE
    elif phase == MAGPIE_PHASE:
        mode = AT_MAGPIE
    elif phase == MOLE_PHASE:
        mode = AT_MOLE      # the seat now knows the source's whole hand (KNOWN, engine._resolve)
    return best(s, rules, seat, w, memo, tkeys, thash, tvals, params, depth, np.int64(mode), np.int64(s[H_SOURCE]),
                np.int64(0))


@njit(cache=True)
def decide(s, rules, seat, params, scratch):
    """The seat's decision at a draw, Eagle, Magpie or Mole decision of its turn."""
    _, a, b = solve(s, rules, seat, params, scratch)
    phase = s[H_PHASE]
    if phase == DRAW:
        return (STOP, 0, 0) if a < 0 else (DRAW_FROM, a, 0)
    if phase == EAGLE_ASK_PHASE:
        return (EAGLE_SKIP, 0, 0) if a < 0 else (EAGLE_ASK, a, b)
    if phase == MAGPIE_PHASE:
        return (MAGPIE_NONE, 0, 0) if a < 0 else (MAGPIE_TAKE, a, b)
    return (MOLE_NONE, 0, 0) if a < 0 else (MOLE_TAKE, b, 0)


def refuse(rules: dict, objective: dict) -> str:
    """Why turn_optimal cannot play these rules with this objective ('' if it can)."""
    on = [name for name in ("wolf", "white_sheep", "mother_sheep", "joker") if rules.get(name) == "on"]
    if on:
        return (f"turn_optimal models the base game's cards only; turn off {', '.join(on)} "
                f"(options wolf, white_sheep, mother_sheep, joker)")
    o = objective
    if not o["single"] <= o["pair"] <= o["triplet"] <= o["win"]:
        return (f"turn_optimal objective: need single <= pair <= triplet <= win, got single={o['single']:g}, "
                f"pair={o['pair']:g}, triplet={o['triplet']:g}, win={o['win']:g}")
    return ""
