"""Hiboufou kernel vs reference engine, decision by decision.

The kernel plays a seeded game and logs every decision; the reference starts from the
kernel's shuffled order (new_game) and replays the same decisions. At every decision
both must list the same legal decisions, name the same actor, and agree on the whole
state (hands, row, pile, captured, counters) afterwards, and every card must be in
exactly one place. Then the results must agree. Plus determinism of the chunk kernel.
"""

from __future__ import annotations

import numba
import numpy as np
import pytest

from sheepsim.games import driver
from sheepsim.games import wrappers as W
from sheepsim.games.hiboufou import engine as E
from sheepsim.games.hiboufou.play import KERNELS as P
from sheepsim.games.hiboufou import reference as ref
from sheepsim.games.hiboufou import rules as R
from sheepsim.games.hiboufou.model import parse_deck
from sheepsim.games.hiboufou.policies import DEFENSIVE, GREEDY, RANDOM
from sheepsim.rng import streams

# 13 cards with 1..3 colours out of 4 (an explicit deck, e.g. from a JSON deck file)
EXPLICIT = parse_deck([["red"], ["orange"], ["yellow"], ["green"], ["red", "orange"], ["red", "yellow"],
                       ["orange", "green"], ["yellow", "green"], ["red", "green"], ["orange", "yellow"],
                       ["red", "orange", "yellow"], ["orange", "yellow", "green"], ["red", "green", "yellow"]])
DECK_8X2 = {"colours": 8, "colours_per_card": 2, "copies": 2}
DECK_3OF6 = {"colours": 6, "colours_per_card": 3, "copies": 1}

CASES = [
    # players, options, explicit deck, policy, games
    (2, {}, None, RANDOM, 40), (3, {}, None, RANDOM, 30), (4, {}, None, RANDOM, 25), (5, {}, None, RANDOM, 25),
    (3, DECK_8X2, None, RANDOM, 25), (4, DECK_3OF6, None, RANDOM, 25), (2, {}, EXPLICIT, RANDOM, 40),
    (4, {}, EXPLICIT, RANDOM, 40),
    (3, {"initial_slot": "left"}, None, RANDOM, 25),
    (3, {"empty_slot_priority": "strict"}, None, RANDOM, 25),
    (3, {"empty_slot_priority": "free"}, None, RANDOM, 25),
    (3, {"mandatory_play": "no"}, None, RANDOM, 25),
    (3, {"capture_condition": "hand_emptied"}, None, RANDOM, 25),
    (3, {"match_covered_card": "yes"}, None, RANDOM, 25),
    (3, {"play_after_forced_draw": "yes"}, None, RANDOM, 25),
    (2, {"play_after_forced_draw": "yes", "mandatory_play": "no", "empty_slot_priority": "strict"}, EXPLICIT,
     RANDOM, 40),
    (3, {"tiebreak": "fewest_cards_in_hand"}, None, RANDOM, 30),
    (3, {"tiebreak": "last_capture"}, None, RANDOM, 30),
    (5, {"tiebreak": "fewest_cards_in_hand", "colours": 4, "colours_per_card": 1, "copies": 5}, None, RANDOM, 30),
    (2, {"tiebreak": "last_capture", "turn_cap": 12}, None, RANDOM, 30),
    (4, {"turn_cap": 7}, None, RANDOM, 20),
    (2, {}, None, GREEDY, 40), (3, {}, None, GREEDY, 30), (5, DECK_8X2, None, GREEDY, 20),
    (3, {"capture_condition": "hand_emptied", "empty_slot_priority": "free", "match_covered_card": "yes"},
     None, GREEDY, 30),
    (3, {"empty_slot_priority": "strict", "mandatory_play": "no", "play_after_forced_draw": "yes"}, EXPLICIT,
     GREEDY, 30),
    (3, {}, None, DEFENSIVE, 30), (4, DECK_3OF6, None, DEFENSIVE, 25),
    (2, {"capture_condition": "hand_emptied", "mandatory_play": "no", "initial_slot": "left"}, None,
     DEFENSIVE, 30),
    (3, {"empty_slot_priority": "strict", "match_covered_card": "yes"}, EXPLICIT, DEFENSIVE, 30),
]


def _conserved(d: dict, n: int) -> bool:
    every = [c for h in d["hands"] for c in h] + [c for p in d["row"] for c in p] + d["pile"]
    every += [c for cs in d["captured"] for c in cs]
    return sorted(every) == list(range(n))


def replay_both(players, options, deck, policy, seed, game):
    rules = R.make(players, options)
    arr = R.to_array(rules)
    masks = R.deck_array(rules, deck)
    ref_rules = R.reference_rules(rules, deck)
    assert list(masks) == ref.build_deck(ref_rules)
    ids = np.full(players, policy, dtype=np.int64)
    params = np.zeros((players, 8))
    slots = np.arange(E.MAX_PLAYERS, dtype=np.int64) % players
    log = np.full((100_000, E.ACTION_SIZE + 2), -9, dtype=np.int32)
    row = np.zeros(E.O_SIZE, dtype=np.int32)
    fault = np.zeros(driver.FAULT_SIZE, dtype=np.int64)
    taken = P.replay(arr, masks, ids, params, slots, streams(seed, game, P.GAME.streams), game, row, log, fault)
    assert not fault.any() and 0 < taken <= len(log)
    log = log[log[:, 0] != -9]
    assert len(log) == taken
    assert (log[:, 4] == -1).all(), "Hiboufou decisions have no chance outcome"
    log = log[:, :4]

    order = E.shuffled_order(len(masks), streams(seed, game, P.GAME.streams)[0])
    s = np.empty(E.STATE_SIZE, dtype=np.int32)
    E.setup(s, arr, masks, order)
    g = ref.new_game(ref_rules, [int(c) for c in order])
    assert E.to_dict(s) == ref.to_dict(g), "the reference reads the deal differently"
    buf = np.empty((E.MAX_DECISIONS, 3), dtype=np.int32)
    for t, (seat, code, a, b) in enumerate(log):
        n = E.legal(s, arr, masks, buf)
        kernel_legal = [tuple(int(x) for x in buf[m]) for m in range(n)]
        assert kernel_legal == ref.legal_decisions(g), f"legal decisions differ at decision {t}"
        assert int(seat) == int(s[E.H_ACTOR]) == ref.actor(g)
        decision = (int(code), int(a), int(b))
        assert decision in kernel_legal
        E.apply(s, arr, masks, *decision)
        g = ref.apply(g, decision)
        d = E.to_dict(s)
        assert d == ref.to_dict(g), f"states differ after decision {t} {decision}"
        assert _conserved(d, len(masks)), f"a card is lost or doubled after decision {t}"
    assert ref.is_over(g) and s[E.H_OVER] == 1
    result = ref.result(g)
    assert result["winner"] == row[E.O_WINNER]
    assert sum(1 << q for q in result["cowinners"]) == row[E.O_COWINNERS]
    assert result["capped"] == bool(row[E.O_CAPPED]) and result["turns"] == row[E.O_TURNS]
    assert result["captured"] == [int(row[E.O_CAPTURES + q]) for q in range(players)]
    assert row[E.O_DECISIONS] == len(log)
    assert row[E.O_STUCK] == int(np.sum(log[:, 1] == 2))
    return len(log)


@pytest.mark.parametrize("players,options,deck,policy,games", CASES)
def test_kernel_matches_reference_decision_by_decision(players, options, deck, policy, games):
    decisions = sum(replay_both(players, options, deck, policy, 2026, g) for g in range(games))
    assert decisions > games * 3


def _run(players, options, policy, n, first=0, chunk=None):
    rules = R.make(players, options)
    arr, masks = R.to_array(rules), R.deck_array(rules)
    ids = np.array([policy, RANDOM, DEFENSIVE, GREEDY, RANDOM][:players], dtype=np.int64)
    params = np.zeros((players, 8))
    out = np.zeros((n, E.O_SIZE), dtype=np.int32)
    step = chunk or n
    for lo in range(0, n, step):
        faults = np.zeros((driver.BLOCKS, driver.FAULT_SIZE), dtype=np.int64)
        W.run_blocks(P.play_blocks, (arr, masks, ids, params, True, np.uint64(99), first + lo, out[lo:lo + step],
                                     faults, W.NO_METRICS))
        assert not faults.any()
    return out


@pytest.mark.parametrize("policy", [RANDOM, GREEDY])
def test_results_identical_for_thread_counts_and_chunking(policy):
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = _run(4, {}, policy, 3000)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two = _run(4, {}, policy, 3000)
        chunked = _run(4, {}, policy, 3000, chunk=417)
    finally:
        numba.set_num_threads(before)
    assert np.array_equal(one, two) and np.array_equal(one, chunked)
    # every card ends in exactly one place: captures never exceed the deck
    assert (one[:, E.O_CAPTURES:E.O_CAPTURES + 4].sum(1) <= 60).all()
    assert one[:, E.O_TURNS].min() > 0


def _random_policy_games(players, options, games):
    """Step games with the kernel's random policy from Python, checking every choice
    against its definition: decision number rand_below(rng, n) of the legal list.
    Returns the biggest hand seen."""
    from sheepsim.games.hiboufou.policies import random_policy
    from sheepsim.rng import rand_below
    rules = R.make(players, options)
    arr, masks = R.to_array(rules), R.deck_array(rules)
    s = np.empty(E.STATE_SIZE, dtype=np.int32)
    buf = np.empty((E.MAX_DECISIONS, 3), dtype=np.int32)
    params = np.zeros(8)
    biggest = 0
    for game in range(games):
        rngs = streams(5, game, P.GAME.streams)
        E.deal(s, arr, masks, rngs[0])
        while not s[E.H_OVER]:
            seat = int(s[E.H_ACTOR])
            biggest = max(biggest, int(s[E.SIZE + seat]))
            rng = rngs[P.GAME.policy + seat]
            n = E.legal(s, arr, masks, buf)
            expected = tuple(int(x) for x in buf[rand_below(rng.copy(), n)])
            decision = tuple(int(x) for x in random_policy(s, arr, masks, seat, params, rng, buf))
            assert decision == expected
            E.apply(s, arr, masks, *decision)
    return biggest


@pytest.mark.parametrize("players,options,games", [
    (3, {}, 60), (2, {"empty_slot_priority": "strict", "mandatory_play": "no"}, 40),
    (4, {"empty_slot_priority": "free", "play_after_forced_draw": "yes"}, 30),
    # one colour a card out of 8: seats are stuck and draw often, so hands grow past
    # the packed fast path of random_policy (policies.PACKED cards)
    (2, {"colours": 8, "colours_per_card": 1, "copies": 10}, 40),
])
def test_random_policy_is_rand_below_of_the_legal_list(players, options, games):
    from sheepsim.games.hiboufou.policies import PACKED
    biggest = _random_policy_games(players, options, games)
    if options.get("colours_per_card") == 1:
        assert biggest > PACKED
