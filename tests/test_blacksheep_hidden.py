"""Hidden information in Bye-Bye Black Sheep: a policy sees only what its seat may know.

A policy decides from what its seat may know: its own hand, the table, all zoos,
hand sizes, the draw pile size, what it saw with a Mole, what is public from earlier
turns (the KNOWN block: KNOWN[actor, p, k] is a lower bound on seat p's cards of kind
k that the actor has from public events and Mole looks). Everything else is hidden.

The test plays seeded games by stepping the kernel from Python (the same streams,
calls and order as the driver's play_game, so each game is checked to equal
play.replay's row at the end). At every decision point it builds alternative states in which the
hidden cards are re-dealt:

    pool = for every other seat p: HAND[p] - KNOWN[actor, p]   (what the actor
           cannot be sure of; the Black Sheep is always known, so never in the pool)
         + the draw pile (content and order)
    shuffle the pool; give every other seat back exactly as many hidden cards as it
    had (hand sizes keep), the rest is the pile (pile size keeps).

The actor's hand, zoos, table, set-aside cards, the header and the actor's KNOWN
rows stay. At a MOLE decision the source hand is fully known (KNOWN = HAND), so it
stays whole. Other observers' KNOWN rows are clipped to the new hands (the actor
does not know what another seat saw with a Mole), and the stale memory above the
pile top, which is not part of the game state, is scrambled.

Each alternative must be a consistent state (card census = full deck, every hand
holds exactly its own Black Sheep, lower bounds hold), list the same legal decisions
(they are public to the actor), and the policy with an identical copy of its stream
must return the same decision and leave its stream in the same state. A negative
control: deliberately cheating policies written here are caught by the same machinery,
and an honest one that reads the Mole-revealed hand directly is not.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from conftest import kind_policy
from numba import njit

from sheepsim.games import driver
from sheepsim.games.blacksheep import distill
from sheepsim.games.blacksheep import engine as E
from sheepsim.games.blacksheep.play import KERNELS as P
from sheepsim.games.blacksheep import policies as POL
from sheepsim.games.blacksheep import reference as ref
from sheepsim.games.blacksheep import rules as R
from sheepsim.games.blacksheep.game import _reference_options
from sheepsim.games.blacksheep.model import (ANIMAL, BLACK, DRAW, DRAW_FROM, EAGLE, EAGLE_ASK, EAGLE_ASK_PHASE,
                                             EAGLE_SKIP, MAGPIE, MOLE_PHASE, NKINDS, OVER, PHASE_NAMES, STOP)
from sheepsim.policies import get_policy
from sheepsim.rng import streams
from sheepsim.search.agents import ISMCTS, PIMC


MP, NK = E.MAX_PLAYERS, E.NK
N_STREAMS = P.GAME.streams
AUX = np.zeros(1, dtype=np.int32)     # the game's aux: unused (game.initial_state)
ALL_OPTIONAL = {"wolf": "on", "white_sheep": "on", "mother_sheep": "on", "joker": "on"}


# ---------------------------------------------------------------------------
# Views of the kernel state and the consistency of a state
# ---------------------------------------------------------------------------

def hands(s):
    return s[E.HAND:E.HAND + MP * NK].reshape(MP, NK)


def known(s):
    return s[E.KNOWN:E.KNOWN + MP * MP * NK].reshape(MP, MP, NK)


def pile(s):
    return s[E.PILE:E.PILE + s[E.H_NPILE]]


def census(s) -> list[int]:
    """Cards per kind over hands, zoos, set-aside, table, pile and the Magpie beside the pile."""
    p = int(s[E.H_PLAYERS])
    counts = np.zeros(NK, dtype=np.int64)
    for base in (E.HAND, E.ZOO, E.ASIDE):
        counts += s[base:base + p * NK].reshape(p, NK).sum(axis=0)
    counts += np.bincount(s[E.TABLE:E.TABLE + s[E.H_NTABLE]], minlength=NK)
    counts += np.bincount(pile(s), minlength=NK)
    if not s[E.H_MAGPIE_IN]:
        counts[MAGPIE] += 1
    return [int(c) for c in counts]


def assert_consistent(s, deck, what):
    p = int(s[E.H_PLAYERS])
    h = hands(s)[:p]
    assert (h >= 0).all(), what
    assert census(s) == deck, f"{what}: card census differs from the full deck"
    assert (h[:, BLACK] == 1).all(), f"{what}: every seat holds exactly its own Black Sheep"
    assert list(s[E.SIZE:E.SIZE + p]) == list(h.sum(axis=1)), f"{what}: hand sizes"
    assert (known(s)[:p, :p] <= h[None, :, :]).all(), f"{what}: a KNOWN lower bound exceeds a hand"


def legal(s, rules, buf):
    n = E.legal_decisions(s, rules, buf)
    return [tuple(int(x) for x in buf[m]) for m in range(n)]


# ---------------------------------------------------------------------------
# The re-deal
# ---------------------------------------------------------------------------

def redeal(s, actor, rng):
    """A copy of s with everything `actor` may not know re-dealt (module docstring).
    Returns (alt, size of the hidden pool)."""
    p = int(s[E.H_PLAYERS])
    alt = s.copy()
    h, k = hands(alt), known(alt)
    others = [q for q in range(p) if q != actor]
    hidden = {}
    pool = []
    for q in others:
        extra = h[q] - k[actor, q]
        assert (extra >= 0).all(), f"KNOWN[{actor}, {q}] exceeds seat {q}'s hand"
        assert extra[BLACK] == 0, "everybody knows every seat holds its own Black Sheep"
        if s[E.H_PHASE] == MOLE_PHASE and q == s[E.H_SOURCE]:
            assert not extra.any(), "the Mole showed the actor that whole hand"
        pool.extend(np.repeat(np.arange(NK), extra))
        hidden[q] = int(extra.sum())
        h[q] = k[actor, q]
    npile = int(s[E.H_NPILE])
    pool.extend(int(c) for c in pile(s))
    pool = np.array(pool, dtype=np.int32)
    rng.shuffle(pool)
    i = 0
    for q in others:
        np.add.at(h[q], pool[i:i + hidden[q]], 1)
        i += hidden[q]
    alt[E.PILE:E.PILE + npile] = pool[i:]
    # not part of the game state: cards that were on top of the pile before a refill
    alt[E.PILE + npile:E.PILE + E.MAX_CARDS] = rng.integers(0, NKINDS, E.MAX_CARDS - npile)
    for o in others:
        np.minimum(k[o, :p], h[:p], out=k[o, :p])
    return alt, len(pool)


# ---------------------------------------------------------------------------
# Playing and checking
# ---------------------------------------------------------------------------

def builtin(policy_id):
    """Built-in `policy_id` with the common policy signature (a fresh scratch a call)."""
    def choose(s, rules, aux, seat, params, rng, buf):
        return POL.choose(policy_id, s, rules, aux, seat, params, rng, buf, np.empty_like(buf))
    return choose


MIX = [  # (label, chooser, params): the honest heuristics the kernel ships (distilled: its own test)
    ("threshold:k=3", builtin(POL.THRESHOLD), [3.0]),
    ("risk:p=0.3", builtin(POL.RISK), [0.3, 0.0]),
    ("random", builtin(POL.RANDOM), []),
    ("threshold:k=5", builtin(POL.THRESHOLD), [5.0]),
    ("risk:p=0.2,w=1.5", builtin(POL.RISK), [0.2, 1.5]),
    ("threshold:k=1", builtin(POL.THRESHOLD), [1.0]),
]
IDS = {"threshold": POL.THRESHOLD, "risk": POL.RISK, "random": POL.RANDOM, "distilled": POL.DISTILLED}


def _vector(params):
    out = np.zeros(8)
    out[:len(params)] = params
    return out


def play_checked(players, options, seats, seed, game, redeals=2, check_every=1):
    """Play one game, re-dealing the hidden cards at decision points. `seats` is one
    (label, chooser, params) per seat. Returns (checks per phase, mismatches, pool sizes)."""
    rules = R.make(players, options)
    arr = R.to_array(rules)
    deck = ref.full_deck(ref.Rules(**_reference_options(rules.as_dict())))
    rngs = streams(seed, game, N_STREAMS)
    s = np.empty(E.STATE_SIZE, dtype=np.int32)
    buf = np.empty((E.MAX_DECISIONS, 3), dtype=np.int32)
    alt_buf = np.empty((E.MAX_DECISIONS, 3), dtype=np.int32)
    vectors = [_vector(params) for _, _, params in seats]
    shuffler = np.random.default_rng([seed, game, players])
    E.deal(s, arr, rngs[0])
    checks: Counter = Counter()
    mismatches = []
    pools = []
    t = 0
    while s[E.H_PHASE] != OVER:
        seat = int(s[E.H_ACTOR])
        label, choose, _ = seats[seat]
        policy_rng = rngs[P.GAME.policy + seat]
        if t % check_every == 0:
            assert_consistent(s, deck, f"game {game} decision {t}")
            moves = legal(s, arr, buf)
            for r in range(redeals):
                alt, pooled = redeal(s, seat, shuffler)
                where = (f"seed {seed} game {game} decision {t} seat {seat} ({label}) "
                         f"phase {PHASE_NAMES[s[E.H_PHASE]]} re-deal {r}")
                assert_consistent(alt, deck, where)
                assert legal(alt, arr, alt_buf) == moves, f"{where}: the legal decisions depend on hidden cards"
                rng_real, rng_alt = policy_rng.copy(), policy_rng.copy()
                d_real = tuple(int(x) for x in choose(s.copy(), arr, AUX, seat, vectors[seat], rng_real, buf))
                d_alt = tuple(int(x) for x in choose(alt, arr, AUX, seat, vectors[seat], rng_alt, alt_buf))
                if d_real != d_alt or not np.array_equal(rng_real, rng_alt):
                    mismatches.append((where, d_real, d_alt))
                checks[PHASE_NAMES[s[E.H_PHASE]]] += 1
                pools.append(pooled)
        code, a, b = (int(x) for x in choose(s, arr, AUX, seat, vectors[seat], policy_rng, buf))
        assert (code, a, b) in legal(s, arr, buf), f"game {game} decision {t}: illegal {(code, a, b)}"
        chance = int(E.sample_chance(s, arr, code, a, b, rngs[P.GAME.luck + seat]))
        E.apply(s, arr, code, a, b, chance)
        t += 1
    assert_consistent(s, deck, f"game {game} at the end")
    return checks, mismatches, pools, s


def seat_mix(players, game, mix=MIX):
    """Rotate the mix over seats and games so every policy plays every seat."""
    return [mix[(game + q) % len(mix)] for q in range(players)]


def replay_row(players, options, seats, seed, game):
    """The kernel's own row of that game (play.replay), for builtin-only seats."""
    rules = R.make(players, options)
    ids = np.array([IDS[label.split(":")[0]] for label, _, _ in seats], dtype=np.int64)
    params = np.array([_vector(p) for _, _, p in seats])
    row = np.zeros(E.O_SIZE, dtype=np.int32)
    fault = np.zeros(driver.FAULT_SIZE, dtype=np.int64)
    P.replay(R.to_array(rules), AUX, ids, params, np.arange(MP, dtype=np.int64) % players,
             streams(seed, game, N_STREAMS), game, row, np.empty((0, E.ACTION_SIZE + 2), dtype=np.int32), fault)
    assert not fault.any()
    return row


HIDDEN_CASES = [
    (2, {}, 36), (3, {}, 30), (4, {}, 24), (5, {}, 18),
    (2, ALL_OPTIONAL, 36), (3, ALL_OPTIONAL, 30), (4, ALL_OPTIONAL, 24), (5, ALL_OPTIONAL, 18),
    # the Magpie shuffled into the (hidden) pile, optional cards dealt into the pile,
    # other effect options
    (3, {**ALL_OPTIONAL, "magpie_entry": "draw_pile_shuffled", "optional_card_setup": "into_draw_pile",
         "eagle_accepts_joker": "yes", "mole_can_take_joker": "no", "zoo_max_per_species": "3",
         "magpie_can_break_triplet": "no"}, 30),
    (4, {**ALL_OPTIONAL, "zoo_limit_basis": "blind_draws", "refill": "all", "wolf_return": "after_refill",
         "must_draw_first": "yes"}, 24),
]


@pytest.mark.parametrize("players,options,games", HIDDEN_CASES,
                         ids=[f"{c[0]}p-{'+'.join(f'{k}={v}' for k, v in c[1].items()) or 'base'}"
                              for c in HIDDEN_CASES])
def test_decisions_do_not_change_when_hidden_cards_are_redealt(players, options, games):
    seed = 404
    total: Counter = Counter()
    pools = []
    for g in range(games):
        seats = seat_mix(players, g)
        checks, mismatches, pooled, s = play_checked(players, options, seats, seed, g)
        assert not mismatches, f"{len(mismatches)} decisions depend on hidden cards, first: {mismatches[0]}"
        total += checks
        pools += pooled
        # the Python loop is the kernel's own game
        row = np.zeros(E.O_SIZE, dtype=np.int32)
        E.outcome(s, R.to_array(R.make(players, options)), row)
        assert np.array_equal(row, replay_row(players, options, seats, seed, g)), f"game {g}"
    # the checks reach the decisions that read knowledge, and the re-deals really hide something
    assert total["draw"] > 200 and total["place"] > 50
    assert total["eagle"] > 0 and total["mole"] > 0
    if options.get("white_sheep") == "on":
        assert total["white"] + total["mother"] > 0
    assert np.mean(np.array(pools) > 0) > 0.95


def test_mole_reveals_the_source_hand_to_the_actor():
    """At a MOLE decision KNOWN[actor, source] is the source's whole hand, and it is
    the only seat whose knowledge of that hand grew."""
    found = 0
    for g in range(20):
        rules = R.make(3, ALL_OPTIONAL)
        arr = R.to_array(rules)
        rngs = streams(7, g, N_STREAMS)
        s = np.empty(E.STATE_SIZE, dtype=np.int32)
        buf = np.empty((E.MAX_DECISIONS, 3), dtype=np.int32)
        E.deal(s, arr, rngs[0])
        params = _vector([3.0])
        while s[E.H_PHASE] != OVER:
            seat = int(s[E.H_ACTOR])
            before = known(s).copy()
            code, a, b = POL.choose(POL.THRESHOLD, s, arr, AUX, seat, params, rngs[P.GAME.policy + seat], buf,
                                   np.empty_like(buf))
            chance = E.sample_chance(s, arr, code, a, b, rngs[P.GAME.luck + seat])
            E.apply(s, arr, code, a, b, chance)
            if s[E.H_PHASE] == MOLE_PHASE:
                found += 1
                src, actor = int(s[E.H_SOURCE]), int(s[E.H_ACTOR])
                assert np.array_equal(known(s)[actor, src], hands(s)[src])
                for o in range(3):
                    if o != actor:
                        assert (known(s)[o, src] <= before[o, src]).all()
    assert found > 10


# ---------------------------------------------------------------------------
# Negative control: the machinery catches policies that peek
# ---------------------------------------------------------------------------

# The built-ins the policies below call, as called (not inlined) twins: each policy that
# inlined threshold compiled it afresh (12-16 s a policy, cold); a twin compiles once,
# into the disk cache, and the same decisions follow (driver.called).
THRESHOLD, PLAY_SPECIAL, DRAW_TARGET = (driver.called(f) for f in (POL.threshold, POL.play_special, POL.draw_target))


@njit
def cheat_stop_on_eagle(s, rules, aux, seat, params, rng, buf):
    """Stops drawing as soon as any opponent's hand holds an Eagle (reads HAND)."""
    if s[E.H_PHASE] != DRAW:
        return PLAY_SPECIAL(s, rules, seat, rng)
    for o in range(s[E.H_PLAYERS]):
        if o != seat and s[E.HAND + o * NK + EAGLE] > 0 and s[E.H_NTABLE] > 0:
            return STOP, 0, 0
    o, _ = DRAW_TARGET(s, seat, rng)
    return DRAW_FROM, o, 0


@njit
def cheat_eagle_asks_what_is_there(s, rules, aux, seat, params, rng, buf):
    """Threshold play, but the Eagle asks for a species the opponent really holds."""
    if s[E.H_PHASE] == EAGLE_ASK_PHASE:
        for o in range(s[E.H_PLAYERS]):
            if o == seat:
                continue
            for sp in range(s[E.H_SPECIES], 0, -1):
                if s[E.HAND + o * NK + ANIMAL + sp - 1] > 0:
                    return EAGLE_ASK, o, sp
        return EAGLE_SKIP, 0, 0
    return THRESHOLD(s, rules, aux, seat, params, rng, buf)


@njit
def cheat_reads_the_pile(s, rules, aux, seat, params, rng, buf):
    """Threshold play, but keeps drawing while the top card of the draw pile is an
    animal of an odd species (reads PILE: its content and order are hidden)."""
    n = s[E.H_NPILE]
    if s[E.H_PHASE] == DRAW and n > 0 and s[E.PILE + n - 1] >= ANIMAL and (s[E.PILE + n - 1] - ANIMAL) % 2 == 0:
        o, _ = DRAW_TARGET(s, seat, rng)
        return DRAW_FROM, o, 0
    return THRESHOLD(s, rules, aux, seat, params, rng, buf)


@njit
def cheat_uses_the_random_stream_on_hidden_cards(s, rules, aux, seat, params, rng, buf):
    """Same decisions as threshold, but burns a random number when the next seat holds
    a Mole: the leak shows in the stream, not in this decision."""
    nxt = (seat + 1) % s[E.H_PLAYERS]
    if s[E.HAND + nxt * NK + E.MOLE] > 0:
        POL.rand_below(rng, 2)
    return THRESHOLD(s, rules, aux, seat, params, rng, buf)


@njit
def honest_mole_reads_hand(s, rules, aux, seat, params, rng, buf):
    """Threshold play; at a MOLE decision it reads the source's HAND directly, which
    the Mole showed it, and takes the highest species there."""
    if s[E.H_PHASE] == MOLE_PHASE:
        src = s[E.H_SOURCE]
        for sp in range(s[E.H_SPECIES], 0, -1):
            if s[E.HAND + src * NK + ANIMAL + sp - 1] > 0:
                return E.MOLE_TAKE, ANIMAL + sp - 1, 0
        return E.MOLE_NONE, 0, 0
    return THRESHOLD(s, rules, aux, seat, params, rng, buf)


CHEATS = [
    pytest.param(cheat_stop_on_eagle, 3, {}, id="stop-when-an-opponent-holds-an-eagle"),
    pytest.param(cheat_eagle_asks_what_is_there, 3, {}, id="eagle-asks-for-a-card-that-is-there"),
    pytest.param(cheat_reads_the_pile, 2, {}, id="reads-the-draw-pile"),
    pytest.param(cheat_uses_the_random_stream_on_hidden_cards, 4, {}, id="stream-use-depends-on-a-hidden-hand"),
]


@pytest.mark.parametrize("cheat,players,options", CHEATS)
def test_negative_control_a_peeking_policy_is_caught(cheat, players, options):
    seats = [("cheat", cheat, [3.0])] + [MIX[0]] * (players - 1)
    caught = 0
    for g in range(4):
        _, mismatches, _, _ = play_checked(players, options, seats, 505, g, redeals=3)
        assert all("(cheat)" in m[0] for m in mismatches), "only the cheating seat may be caught"
        caught += len(mismatches)
    assert caught > 0, "the re-deal machinery did not catch a policy that reads hidden cards"


def test_negative_control_reading_the_mole_revealed_hand_is_allowed():
    seats = [("mole-reader", honest_mole_reads_hand, [3.0])] * 3
    moles = 0
    for g in range(8):
        checks, mismatches, _, _ = play_checked(3, ALL_OPTIONAL, seats, 606, g, redeals=3)
        assert not mismatches, mismatches[0]
        moles += checks["mole"]
    assert moles > 0


# ---------------------------------------------------------------------------
# The information-set search (search/mcts.py) passes the same re-deal test
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("players,options", [(2, {}), (3, ALL_OPTIONAL)], ids=["2p-base", "3p-all-optional"])
def test_distilled_decisions_do_not_change_when_hidden_cards_are_redealt(players, options):
    # its features read the seat's own hand, the zoos and the table: all public or its own
    mix = [("distilled", builtin(POL.DISTILLED), distill.read()["weights"]), MIX[0], MIX[1], MIX[3]]
    total: Counter = Counter()
    for g in range(12):
        seats = seat_mix(players, g, mix)
        checks, mismatches, pooled, s = play_checked(players, options, seats, 411, g)
        assert not mismatches, f"{len(mismatches)} distilled decisions depend on hidden cards, first: {mismatches[0]}"
        total += checks
        assert np.mean(np.array(pooled) > 0) > 0.9
        row = np.zeros(E.O_SIZE, dtype=np.int32)
        E.outcome(s, R.to_array(R.make(players, options)), row)
        assert np.array_equal(row, replay_row(players, options, seats, 411, g)), f"game {g}"
    assert total["draw"] > 100 and total["place"] > 20


def agent(policy_id, params):
    """A search agent (its id and parameter vector) with the common policy signature."""
    return kind_policy(P, "search", policy_id, params)


def ismcts(iters, rollout):
    """ismcts:iters=..,rollout=.. (its own parameters)."""
    return agent(ISMCTS, [iters, 0.7, rollout, 0, 0])


@pytest.mark.parametrize("players,options", [(3, {}), (4, ALL_OPTIONAL)], ids=["3p-base", "4p-all-optional"])
def test_ismcts_decisions_do_not_change_when_hidden_cards_are_redealt(players, options):
    mix = [("ismcts:iters=6", ismcts(6, 0), []), MIX[0], ("ismcts:iters=4,rollout=greedy", ismcts(4, 1), []),
           MIX[1]]
    total: Counter = Counter()
    for g in range(4):
        checks, mismatches, pooled, _ = play_checked(players, options, seat_mix(players, g, mix), 405, g)
        assert not mismatches, f"{len(mismatches)} search decisions depend on hidden cards, first: {mismatches[0]}"
        total += checks
        assert np.mean(np.array(pooled) > 0) > 0.9
    assert total["draw"] > 100 and total["place"] > 20


@pytest.mark.parametrize("players,options", [(2, {}), (4, ALL_OPTIONAL)], ids=["2p-base", "4p-all-optional"])
def test_pimc_decisions_do_not_change_when_hidden_cards_are_redealt(players, options):
    # every world re-deals from what the seat knows; its actions are the seat's own
    mix = [("pimc:worlds=3,z=0", agent(PIMC, [3, 1, 0, 0, 0]), []), MIX[0],
           ("pimc:worlds=2,rollout=random,cutoff=10,z=0", agent(PIMC, [2, 0, 10, 0, 0]), []), MIX[1]]
    total: Counter = Counter()
    for g in range(3):
        checks, mismatches, pooled, _ = play_checked(players, options, seat_mix(players, g, mix), 407, g)
        assert not mismatches, f"{len(mismatches)} pimc decisions depend on hidden cards, first: {mismatches[0]}"
        total += checks
        assert np.mean(np.array(pooled) > 0) > 0.9
    assert total["draw"] > 50 and total["place"] > 10


def test_a_plugin_agent_passes_the_redeal_test(lookahead):
    # sheepsim/examples/lookahead.py, a search agent loaded from outside the package
    # (search/plugin.py): its worlds re-deal from what the seat knows, as pimc's do
    choose = kind_policy(P, "agent_lookahead", get_policy("blacksheep", "lookahead").id, [2.0])
    mix = [("lookahead:samples=2", choose, []), MIX[0], MIX[1]]
    total: Counter = Counter()
    for g in range(3):
        checks, mismatches, pooled, _ = play_checked(3, {}, seat_mix(3, g, mix), 409, g)
        assert not mismatches, f"{len(mismatches)} decisions depend on hidden cards, first: {mismatches[0]}"
        total += checks
        assert np.mean(np.array(pooled) > 0) > 0.9
    assert total["draw"] > 30
