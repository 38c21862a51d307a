"""Hidden information in Hiboufou: a policy sees only what its seat may know.

A policy decides from what its seat may know: its own hand, the three piles of the row
(every face in them is public, covered cards included), the captured cards (each was
face up in the row before it was captured), hand sizes, the draw pile's size, and the
turn header (laid, drew). Hidden from it: the other seats' hands, and the draw pile's
content and order. The state holds no history beyond that, so nothing else constrains
the hidden cards.

The test plays seeded games by stepping the kernel from Python (the same streams,
calls and order as the driver's play_game, so each game is checked to equal
play.replay's row at the end). At every decision point it builds alternative states in which the hidden
cards are re-dealt:

    pool = every other seat's hand + the draw pile (PILE[H_PTOP:H_PEND])
    shuffle the pool; give every other seat back as many cards as it held (sorted, as
    the kernel keeps hands), the rest is the draw pile in the shuffled order.

The actor's hand, the row, the captured lists, the sizes and the header stay. Memory
that is not part of the state is scrambled: the slots below the pile top still hold
the cards drawn earlier (by any seat), and slots past a hand's, pile's or list's size
hold stale card ids.

Each alternative must be a consistent state (every card id exactly once, sizes kept,
hands sorted), list the same legal decisions (they are public to the actor), and the
policy with an identical copy of its stream must return the same decision and leave
its stream in the same state. Negative controls: deliberately cheating policies written
here are caught by the same machinery, and an honest one that counts the cards it has
seen (own hand, row, captured) is not.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from conftest import kind_policy
from numba import njit

from sheepsim.games import driver
from sheepsim.games.hiboufou import engine as E
from sheepsim.games.hiboufou import game as GAME
from sheepsim.games.hiboufou.play import KERNELS as P
from sheepsim.games.hiboufou import policies as POL
from sheepsim.games.hiboufou import rules as R
from sheepsim.games.hiboufou.model import DECISION_NAMES, END, NSPACES, PLAY
from sheepsim.policies import get_policy
from sheepsim.rng import rand_below, streams
from sheepsim.search.agents import ISMCTS, PIMC


MP, MC = E.MAX_PLAYERS, E.MC

# 16 cards of 1..3 colours out of 5, read the way --deck reads a file (initial_state)
DECK_FILE = {"deck": [["red"], ["orange"], ["yellow"], ["green"], ["blue"], ["red", "orange"], ["red", "yellow"],
                      ["orange", "green"], ["yellow", "blue"], ["green", "blue"], ["red", "blue"],
                      ["orange", "yellow", "green"], ["red", "green", "blue"], ["yellow", "green"],
                      ["orange", "blue"], ["red", "orange", "yellow"]]}


# ---------------------------------------------------------------------------
# Views of the kernel state and the consistency of a state
# ---------------------------------------------------------------------------

def hand(s, q):
    return s[E.HAND + q * MC: E.HAND + q * MC + s[E.SIZE + q]]


def draw_pile(s):
    return s[E.PILE + s[E.H_PTOP]: E.PILE + s[E.H_PEND]]


def piles(s):
    return [s[E.ROW + x * MC: E.ROW + x * MC + s[E.ROWN + x]] for x in range(NSPACES)]


def captured(s, q):
    return s[E.CAPT + q * MC: E.CAPT + q * MC + s[E.NCAPT + q]]


def assert_consistent(s, n_cards, what):
    p = int(s[E.H_PLAYERS])
    every = [hand(s, q) for q in range(p)] + piles(s) + [draw_pile(s)] + [captured(s, q) for q in range(p)]
    assert sorted(np.concatenate(every).tolist()) == list(range(n_cards)), f"{what}: a card is lost or doubled"
    for q in range(p):
        h = hand(s, q)
        assert (np.diff(h) > 0).all(), f"{what}: seat {q}'s hand is not sorted"


def legal(s, rules, deck, buf):
    n = E.legal(s, rules, deck, buf)
    return [tuple(int(x) for x in buf[m]) for m in range(n)]


# ---------------------------------------------------------------------------
# The re-deal
# ---------------------------------------------------------------------------

def redeal(s, actor, n_cards, rng):
    """A copy of s with everything `actor` may not know re-dealt (module docstring).
    Returns (alt, size of the hidden pool)."""
    p = int(s[E.H_PLAYERS])
    alt = s.copy()
    others = [q for q in range(p) if q != actor]
    pool = np.concatenate([hand(s, q) for q in others] + [draw_pile(s)]).astype(np.int32)
    rng.shuffle(pool)
    i = 0
    for q in others:
        k = int(s[E.SIZE + q])
        alt[E.HAND + q * MC: E.HAND + q * MC + k] = np.sort(pool[i:i + k])
        i += k
    top, end = int(s[E.H_PTOP]), int(s[E.H_PEND])
    alt[E.PILE + top: E.PILE + end] = pool[i:]
    assert end - top == len(pool) - i

    # not part of the game state: scramble it so that reading it cannot pass
    def scramble(lo, hi):
        alt[lo:hi] = rng.integers(0, n_cards, hi - lo)
    for q in range(MP):
        scramble(E.HAND + q * MC + int(s[E.SIZE + q]), E.HAND + (q + 1) * MC)
        scramble(E.CAPT + q * MC + int(s[E.NCAPT + q]), E.CAPT + (q + 1) * MC)
    for x in range(NSPACES):
        scramble(E.ROW + x * MC + int(s[E.ROWN + x]), E.ROW + (x + 1) * MC)
    scramble(E.PILE, E.PILE + top)          # the cards drawn so far, by every seat
    scramble(E.PILE + end, E.PILE + MC)
    return alt, len(pool)


# ---------------------------------------------------------------------------
# Playing and checking
# ---------------------------------------------------------------------------

def builtin(policy_id):
    """Built-in `policy_id` with the common policy signature (a fresh scratch a call)."""
    def choose(s, rules, aux, seat, params, rng, buf):
        return POL.choose(policy_id, s, rules, aux, seat, params, rng, buf, np.empty_like(buf))
    return choose


MIX = [  # (label, chooser): every policy the kernel ships
    ("random", builtin(POL.RANDOM)),
    ("greedy", builtin(POL.GREEDY)),
    ("defensive", builtin(POL.DEFENSIVE)),
]
IDS = {"random": POL.RANDOM, "greedy": POL.GREEDY, "defensive": POL.DEFENSIVE}
PARAMS = np.zeros(8)


def setup(players, options, start):
    rules = R.make(players, options)
    return R.to_array(rules), GAME.initial_state(rules, start)


def play_checked(players, options, start, seats, seed, game, redeals=2):
    """Play one game, re-dealing the hidden cards at every decision point. `seats` is
    one (label, chooser) per seat. Returns (checks by decision kind, checks by label,
    mismatches, pool sizes, share of re-deals that changed the hidden cards, state)."""
    arr, deck = setup(players, options, start)
    n_cards = len(deck)
    rngs = streams(seed, game, P.GAME.streams)
    s = np.empty(E.STATE_SIZE, dtype=np.int32)
    buf = np.empty((E.MAX_DECISIONS, 3), dtype=np.int32)
    alt_buf = np.empty((E.MAX_DECISIONS, 3), dtype=np.int32)
    shuffler = np.random.default_rng([seed, game, players])
    E.deal(s, arr, deck, rngs[0])
    kinds: Counter = Counter()
    labels: Counter = Counter()
    mismatches = []
    pools = []
    changed = []
    t = 0
    while s[E.H_OVER] == 0:
        seat = int(s[E.H_ACTOR])
        label, choose = seats[seat]
        policy_rng = rngs[P.GAME.policy + seat]
        assert_consistent(s, n_cards, f"game {game} decision {t}")
        moves = legal(s, arr, deck, buf)
        hidden = [hand(s, q).tolist() for q in range(players) if q != seat] + [draw_pile(s).tolist()]
        for r in range(redeals):
            alt, pooled = redeal(s, seat, n_cards, shuffler)
            where = f"seed {seed} game {game} decision {t} seat {seat} ({label}) re-deal {r}"
            assert_consistent(alt, n_cards, where)
            assert hand(alt, seat).tolist() == hand(s, seat).tolist()
            assert legal(alt, arr, deck, alt_buf) == moves, f"{where}: the legal decisions depend on hidden cards"
            rng_real, rng_alt = policy_rng.copy(), policy_rng.copy()
            d_real = tuple(int(x) for x in choose(s.copy(), arr, deck, seat, PARAMS, rng_real, buf))
            d_alt = tuple(int(x) for x in choose(alt, arr, deck, seat, PARAMS, rng_alt, alt_buf))
            if d_real != d_alt or not np.array_equal(rng_real, rng_alt):
                mismatches.append((where, d_real, d_alt))
            pools.append(pooled)
            # can a re-deal differ at all? (cards to two places, or a pile of 2 to order)
            places = sum(1 for q in range(players) if q != seat and s[E.SIZE + q] > 0) + (len(hidden[-1]) > 0)
            if places > 1 or len(hidden[-1]) > 1:
                changed.append([hand(alt, q).tolist() for q in range(players) if q != seat]
                               + [draw_pile(alt).tolist()] != hidden)
        code, a, b = (int(x) for x in choose(s, arr, deck, seat, PARAMS, policy_rng, buf))
        assert (code, a, b) in moves, f"game {game} decision {t}: illegal {(code, a, b)}"
        kinds[DECISION_NAMES[code]] += 1
        labels[label] += 1
        E.apply(s, arr, deck, code, a, b)
        t += 1
    assert_consistent(s, n_cards, f"game {game} at the end")
    return kinds, labels, mismatches, pools, changed, s


def seat_mix(players, game, mix=MIX):
    """Rotate the mix over seats and games so every policy plays every seat."""
    return [mix[(game + q) % len(mix)] for q in range(players)]


def replay_row(players, options, start, seats, seed, game):
    """The kernel's own row of that game (play.replay), for built-in seats."""
    arr, deck = setup(players, options, start)
    ids = np.array([IDS[label] for label, _ in seats], dtype=np.int64)
    params = np.zeros((players, 8))
    row = np.zeros(E.O_SIZE, dtype=np.int32)
    fault = np.zeros(driver.FAULT_SIZE, dtype=np.int64)
    P.replay(arr, deck, ids, params, np.arange(MP, dtype=np.int64) % players, streams(seed, game, P.GAME.streams),
             game, row, np.empty((0, E.ACTION_SIZE + 2), dtype=np.int32), fault)
    assert not fault.any()
    return row


HIDDEN_CASES = [
    # players, options, start (None: the generated deck), games. Without mandatory play
    # greedy and defensive end their turns and games stall until the turn cap: a lower
    # cap keeps those cases from being mostly END and DRAW decisions.
    (2, {}, None, 40), (3, {}, None, 30), (4, {}, None, 24), (5, {}, None, 20),
    (3, {"mandatory_play": "no", "play_after_forced_draw": "yes", "turn_cap": 120}, None, 15),
    (3, {"capture_condition": "hand_emptied", "match_covered_card": "yes"}, None, 15),
    (4, {"empty_slot_priority": "strict", "initial_slot": "left", "tiebreak": "last_capture"}, None, 12),
    (5, {"empty_slot_priority": "free", "colours": 8, "copies": 2}, None, 10),
    (2, {"initial_slot": "left", "tiebreak": "fewest_cards_in_hand"}, DECK_FILE, 30),
    (4, {"capture_condition": "hand_emptied", "play_after_forced_draw": "yes"}, DECK_FILE, 30),
]


@pytest.mark.parametrize("players,options,start,games", HIDDEN_CASES,
                         ids=[f"{c[0]}p-{'+'.join(f'{k}={v}' for k, v in c[1].items()) or 'base'}"
                              f"{'-deckfile' if c[2] else ''}" for c in HIDDEN_CASES])
def test_decisions_do_not_change_when_hidden_cards_are_redealt(players, options, start, games):
    seed = 404
    kinds: Counter = Counter()
    labels: Counter = Counter()
    pools, changed = [], []
    captures = 0
    for g in range(games):
        seats = seat_mix(players, g)
        k, lab, mismatches, pooled, ch, s = play_checked(players, options, start, seats, seed, g)
        assert not mismatches, f"{len(mismatches)} decisions depend on hidden cards, first: {mismatches[0]}"
        kinds += k
        labels += lab
        pools += pooled
        changed += ch
        # the Python loop is the kernel's own game
        row = np.zeros(E.O_SIZE, dtype=np.int32)
        E.outcome(s, R.to_array(R.make(players, options)), row)
        assert np.array_equal(row, replay_row(players, options, start, seats, seed, g)), f"game {g}"
        captures += int(row[E.O_CAPTURES:E.O_CAPTURES + players].sum() > 0)
    # every policy and every kind of decision was checked, games had captures
    assert min(labels[name] for name in IDS) > 5 * games, labels
    assert kinds["play"] > 10 * games and kinds["end"] > 0 and kinds["draw"] > 0, kinds
    assert captures > games // 2
    # the re-deals really hide something: there is a hidden pool nearly always (not at
    # the very end of a game), and where a re-deal can differ it nearly always does
    assert np.mean(np.array(pools) > 0) > 0.85
    assert len(changed) > 0.6 * len(pools) and np.mean(changed) > 0.85


# ---------------------------------------------------------------------------
# Negative control: the machinery catches policies that peek
# ---------------------------------------------------------------------------

# the built-in random policy as a called (not inlined) twin: inlined, it made the policy
# below a 45-second cold compile of its own; the twin compiles once, into the disk cache
RANDOM = driver.called(POL.random_policy)


@njit
def cheat_starves_the_next_seat(s, rules, deck, seat, params, rng, buf):
    """Lays the card that the NEXT seat's hand matches least (reads its HAND)."""
    n = E.legal(s, rules, deck, buf)
    nxt = (seat + 1) % s[E.H_PLAYERS]
    best, best_k = 1 << 30, 0
    for j in range(n):
        if buf[j, 0] != PLAY:
            continue
        m = deck[buf[j, 1]]
        score = 0
        for i in range(s[E.SIZE + nxt]):
            if deck[s[E.HAND + nxt * MC + i]] & m:
                score += 1
        if score < best:
            best, best_k = score, j
    return buf[best_k, 0], buf[best_k, 1], buf[best_k, 2]


@njit
def cheat_reads_the_draw_pile(s, rules, deck, seat, params, rng, buf):
    """Greedy, but keeps laying (when it may end the turn) while the card it would draw
    next shares a colour with the centre's top: reads PILE, whose order is hidden."""
    n = E.legal(s, rules, deck, buf)
    if (buf[n - 1, 0] == END and buf[0, 0] == PLAY and s[E.H_PTOP] < s[E.H_PEND]
            and deck[s[E.PILE + s[E.H_PTOP]]] & E.top_mask(s, deck, 1)):
        return buf[0, 0], buf[0, 1], buf[0, 2]
    return POL.greedy(s, rules, deck, seat, params, rng, buf)


@njit
def cheat_remembers_what_others_drew(s, rules, deck, seat, params, rng, buf):
    """Defensive, but lays the first card sharing a colour with the card drawn last (by
    whichever seat drew it): reads the stale slot below the pile top."""
    n = E.legal(s, rules, deck, buf)
    top = s[E.H_PTOP]
    if top > 0:
        last = deck[s[E.PILE + top - 1]]
        for j in range(n):
            if buf[j, 0] == PLAY and deck[buf[j, 1]] & last:
                return buf[j, 0], buf[j, 1], buf[j, 2]
    return POL.defensive(s, rules, deck, seat, params, rng, buf)


@njit
def cheat_uses_the_random_stream_on_hidden_cards(s, rules, deck, seat, params, rng, buf):
    """Random play, but burns a random number when the next seat holds a red card: the
    leak shows in the stream, not necessarily in this decision."""
    nxt = (seat + 1) % s[E.H_PLAYERS]
    for i in range(s[E.SIZE + nxt]):
        if deck[s[E.HAND + nxt * MC + i]] & 1:
            rand_below(rng, 2)
            break
    return RANDOM(s, rules, deck, seat, params, rng, buf)


@njit
def honest_counts_what_it_has_seen(s, rules, deck, seat, params, rng, buf):
    """Lays the card whose colours are rarest among the cards it has NOT seen (the deck
    minus its hand, every card in the row and every captured card): all public to it."""
    n = E.legal(s, rules, deck, buf)
    seen = np.zeros(deck.shape[0], dtype=np.bool_)
    for i in range(s[E.SIZE + seat]):
        seen[s[E.HAND + seat * MC + i]] = True
    for x in range(NSPACES):
        for i in range(s[E.ROWN + x]):
            seen[s[E.ROW + x * MC + i]] = True
    for q in range(s[E.H_PLAYERS]):
        for i in range(s[E.NCAPT + q]):
            seen[s[E.CAPT + q * MC + i]] = True
    best, best_k = 1 << 30, 0
    for j in range(n):
        if buf[j, 0] != PLAY:
            continue
        score = 0
        for c in range(deck.shape[0]):
            if not seen[c] and deck[c] & deck[buf[j, 1]]:
                score += 1
        if score < best:
            best, best_k = score, j
    return buf[best_k, 0], buf[best_k, 1], buf[best_k, 2]


CHEATS = [
    pytest.param(cheat_starves_the_next_seat, 3, {}, id="reads-the-next-seats-hand"),
    pytest.param(cheat_reads_the_draw_pile, 2, {"mandatory_play": "no", "turn_cap": 150},
                 id="reads-the-draw-pile"),
    pytest.param(cheat_remembers_what_others_drew, 4, {}, id="reads-the-drawn-cards-below-the-pile-top"),
    pytest.param(cheat_uses_the_random_stream_on_hidden_cards, 3, {}, id="stream-use-depends-on-a-hidden-hand"),
]


@pytest.mark.parametrize("cheat,players,options", CHEATS)
def test_negative_control_a_peeking_policy_is_caught(cheat, players, options):
    seats = [("cheat", cheat)] + [MIX[(q + 1) % len(MIX)] for q in range(players - 1)]
    caught = 0
    for g in range(4):
        _, _, mismatches, _, _, _ = play_checked(players, options, None, seats, 505, g, redeals=3)
        assert all("(cheat)" in m[0] for m in mismatches), "only the cheating seat may be caught"
        caught += len(mismatches)
    assert caught > 0, "the re-deal machinery did not catch a policy that reads hidden cards"


def test_negative_control_counting_the_public_cards_is_allowed():
    seats = [("counter", honest_counts_what_it_has_seen)] * 3
    plays = 0
    for g in range(6):
        kinds, _, mismatches, _, _, _ = play_checked(3, {}, None, seats, 606, g, redeals=3)
        assert not mismatches, mismatches[0]
        plays += kinds["play"]
    assert plays > 100


# ---------------------------------------------------------------------------
# The information-set search (search/mcts.py) passes the same re-deal test
# ---------------------------------------------------------------------------

def agent(policy_id, params):
    """A search agent (its id and parameter vector) with the common policy signature."""
    return kind_policy(P, "search", policy_id, params)


def ismcts(iters, rollout):
    """ismcts:iters=..,rollout=.. (its own parameters)."""
    return agent(ISMCTS, [iters, 0.7, rollout, 0, 0])


@pytest.mark.parametrize("players", [2, 4])
def test_ismcts_decisions_do_not_change_when_hidden_cards_are_redealt(players):
    mix = [("ismcts:iters=6", ismcts(6, 0)), MIX[1], ("ismcts:iters=4,rollout=greedy", ismcts(4, 1)), MIX[0]]
    by_label: Counter = Counter()
    for g in range(4):
        _, labels, mismatches, _, changed, _ = play_checked(players, {}, None, seat_mix(players, g, mix), 406, g)
        assert not mismatches, f"{len(mismatches)} search decisions depend on hidden cards, first: {mismatches[0]}"
        by_label += labels
        assert np.mean(changed) > 0.85
    assert by_label["ismcts:iters=6"] > 40 and by_label["ismcts:iters=4,rollout=greedy"] > 40


@pytest.mark.parametrize("players", [2, 3])
def test_pimc_decisions_do_not_change_when_hidden_cards_are_redealt(players):
    # every world re-deals from what the seat knows; its actions are the seat's own
    mix = [("pimc:worlds=3,z=0", agent(PIMC, [3, 1, 0, 0, 0])), MIX[1],
           ("pimc:worlds=2,rollout=random,cutoff=10,z=0", agent(PIMC, [2, 0, 10, 0, 0])), MIX[0]]
    by_label: Counter = Counter()
    for g in range(3):
        _, labels, mismatches, _, changed, _ = play_checked(players, {}, None, seat_mix(players, g, mix), 408, g)
        assert not mismatches, f"{len(mismatches)} pimc decisions depend on hidden cards, first: {mismatches[0]}"
        by_label += labels
        assert np.mean(changed) > 0.85
    assert by_label["pimc:worlds=3,z=0"] > 30 and by_label["pimc:worlds=2,rollout=random,cutoff=10,z=0"] > 30


def test_a_plugin_agent_passes_the_redeal_test(lookahead):
    # sheepsim/examples/lookahead.py, a search agent loaded from outside the package
    # (search/plugin.py): its worlds re-deal from what the seat knows, as pimc's do
    choose = kind_policy(P, "agent_lookahead", get_policy("hiboufou", "lookahead").id, [2.0])
    mix = [("lookahead:samples=2", choose), MIX[1], MIX[0]]
    by_label: Counter = Counter()
    for g in range(3):
        _, labels, mismatches, _, changed, _ = play_checked(3, {}, None, seat_mix(3, g, mix), 409, g)
        assert not mismatches, f"{len(mismatches)} decisions depend on hidden cards, first: {mismatches[0]}"
        by_label += labels
        assert np.mean(changed) > 0.85
    assert by_label["lookahead:samples=2"] > 30
