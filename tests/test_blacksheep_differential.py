"""Kernel vs reference engine, decision by decision.

The kernel plays a seeded game and logs every decision with its luck (the card a
blind draw yielded, the Magpie's pile position); the reference replays the same deal,
decisions and luck. At every decision both must list the same legal decisions, name
the same actor, and agree on the whole state (hands, zoos, table, pile, set-aside,
counters, and what each seat knows of the others' hands) afterwards.
"""

from __future__ import annotations

import numpy as np
import pytest

from sheepsim.games import driver
from sheepsim.games.blacksheep import engine as E
from sheepsim.games.blacksheep.play import KERNELS as P
from sheepsim.games.blacksheep import reference as ref
from sheepsim.games.blacksheep import rules as R
from sheepsim.games.blacksheep.game import _reference_options
from sheepsim.games.blacksheep.trace import known, to_dict
from sheepsim.games.blacksheep.policies import RANDOM, RISK, THRESHOLD
from sheepsim.rng import streams

ALL_OPTIONAL = {"wolf": "on", "white_sheep": "on", "mother_sheep": "on", "joker": "on"}
# games per case kept small for the 10-minute `make test` budget: every rule case stays
CASES = [
    (2, {}, RANDOM, 27), (3, {}, RANDOM, 20), (4, {}, RANDOM, 17), (5, {}, RANDOM, 13),
    (2, ALL_OPTIONAL, RANDOM, 27), (3, ALL_OPTIONAL, RANDOM, 20), (4, ALL_OPTIONAL, RANDOM, 17),
    (5, ALL_OPTIONAL, RANDOM, 17),
    (3, {**ALL_OPTIONAL, "magpie_entry": "draw_pile_shuffled", "zoo_limit_basis": "blind_draws",
         "refill": "all", "wolf_return": "after_refill", "eagle_accepts_joker": "yes",
         "mole_can_take_joker": "no", "magpie_can_break_triplet": "no", "zoo_max_per_species": "3"}, RANDOM, 27),
    (2, {**ALL_OPTIONAL, "optional_card_setup": "into_draw_pile", "must_draw_first": "yes",
         "turn_cap": 40, "cap_resolution": "most_triplets"}, RANDOM, 27),
    (4, {"turn_cap": 30}, RANDOM, 13),
    (2, {}, THRESHOLD, 40), (3, ALL_OPTIONAL, THRESHOLD, 40), (5, ALL_OPTIONAL, THRESHOLD, 27),
    (4, {**ALL_OPTIONAL, "magpie_entry": "draw_pile_shuffled"}, RISK, 33),
    (3, {"hand_limit": 9, "triplets_to_win": 2}, THRESHOLD, 40),
]


def replay_both(players, options, policy, seed, game):
    rules = R.make(players, options)
    arr = R.to_array(rules)
    ref_rules = ref.Rules(**_reference_options(rules.as_dict()))
    rngs = streams(seed, game, P.GAME.streams)
    ids = np.full(players, policy, dtype=np.int64)
    params = np.zeros((players, 8))
    params[:, 0] = 3.0 if policy == THRESHOLD else 0.3
    slots = np.arange(E.MAX_PLAYERS, dtype=np.int64) % players
    log = np.full((100_000, E.ACTION_SIZE + 2), -9, dtype=np.int32)
    row = np.zeros(E.O_SIZE, dtype=np.int32)
    fault = np.zeros(driver.FAULT_SIZE, dtype=np.int64)
    taken = P.replay(arr, np.zeros(1, dtype=np.int32), ids, params, slots, rngs, game, row, log, fault)
    assert not fault.any() and 0 < taken <= len(log)
    log = log[log[:, 0] != -9]
    assert len(log) == taken

    s = np.empty(E.STATE_SIZE, dtype=np.int32)
    E.deal(s, arr, streams(seed, game, P.GAME.streams)[0])
    start = to_dict(s)
    g = ref.new_game(ref_rules, start["hands"], start["pile"])
    assert ref.to_dict(g) == start, "the reference reads the deal differently"
    assert g.known == known(s), "the deal makes different cards public"
    buf = np.empty((E.MAX_DECISIONS, 3), dtype=np.int32)
    for t, (seat, code, a, b, chance) in enumerate(log):
        n = E.legal_decisions(s, arr, buf)
        kernel_legal = [tuple(int(x) for x in buf[m]) for m in range(n)]
        assert kernel_legal == ref.legal_decisions(g), f"legal decisions differ at decision {t}"
        assert int(seat) == int(s[E.H_ACTOR]) == ref.actor(g)
        decision = (int(code), int(a), int(b))
        assert decision in kernel_legal
        E.apply(s, arr, *decision, int(chance))
        g = ref.apply(g, decision, None if chance < 0 else int(chance))
        assert to_dict(s) == ref.to_dict(g), f"states differ after decision {t} {decision} chance {chance}"
        assert known(s) == g.known, f"knowledge differs after decision {t} {decision} chance {chance}"
    assert ref.is_over(g) and s[E.H_PHASE] == 7
    result = ref.result(g)
    assert result["winner"] == row[E.O_WINNER] and result["capped"] == bool(row[E.O_CAPPED])
    assert result["turns"] == row[E.O_TURNS]
    assert result["triplets"] == [int(row[E.O_TRIPLETS + q]) for q in range(players)]
    return len(log)


@pytest.mark.parametrize("players,options,policy,games", CASES)
def test_kernel_matches_reference_decision_by_decision(players, options, policy, games):
    decisions = sum(replay_both(players, options, policy, 2026, g) for g in range(games))
    assert decisions > games * 10
