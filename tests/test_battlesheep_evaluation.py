"""Battle Sheep's position evaluation (engine.standing, the progress hook) against its
readable definition (reference.standing), and the policy `territory` built on it.

Positions come from kernel games of random, greedy and territory seats (so stacks get
blocked, stranded and walled in), read into the reference through the position
format; the evaluation's terms are sums of integers and of multiples of 1/32, so the
two must agree exactly.
"""

from __future__ import annotations

import numpy as np
import pytest

from sheepsim.games.battlesheep import engine as E
from sheepsim.games.battlesheep.play import KERNELS as PL
from sheepsim.games.battlesheep import policies as POL
from sheepsim.games.battlesheep import position as POS
from sheepsim.games.battlesheep import reference as REF
from sheepsim.games.battlesheep import rules as RU
from sheepsim.games.battlesheep.game import initial_state
from sheepsim.rng import streams

from conftest import assert_bad, kernel_of, position_of, ref_rules, run_cli

CONFIGS = [(2, {}), (3, {"start_zone": "any_edge"}), (4, {"no_move": "game_ends_now"}),
           (2, {"board": "preset:ring-2p", "stack_size": 7}), (3, {"tiles_per_player": 6, "stack_size": 32})]
POLICIES = (POL.RANDOM, POL.GREEDY, POL.TERRITORY)


def _positions(players: int, options: dict, games: int, seed: int):
    """(rules, rules array, state) at every decision and at the end of `games` games,
    each seat playing random, greedy or territory by seat and game."""
    rules = RU.make(players, options)
    ra = RU.to_array(rules)
    init = initial_state(rules)
    buf = np.empty((E.MAX_ACTIONS, 4), dtype=np.int32)
    params = np.array([0.0, 1.0])
    for g in range(games):
        rngs = streams(seed, g, PL.GAME.streams)
        s = init.copy()
        while True:
            yield rules, ra, s.copy()
            if s[E.H_PHASE] == E.PH_OVER:
                break
            seat = int(s[E.H_TO_MOVE])
            policy = POLICIES[(seat + g) % 3]
            before = s.copy()
            action = POL.choose(policy, s, ra, init, seat, params, rngs[PL.GAME.policy + seat], buf, buf)
            assert np.array_equal(s, before)        # territory unmakes what it makes
            legal = E.legal_actions(s, ra, buf)
            assert any(tuple(buf[m]) == tuple(int(x) for x in action) for m in range(legal))
            E.apply(s, ra, *(int(x) for x in action))


def _standing(s) -> list[float]:
    out = np.full(E.MAX_PLAYERS, -1.0)
    E.standing(s, out, np.full(E.EV_SIZE, -7, dtype=np.int32))
    return [float(x) for x in out[:int(s[E.H_PLAYERS])]]


@pytest.mark.parametrize("players,options", CONFIGS, ids=[f"{p}p-{o}" for p, o in CONFIGS])
def test_the_kernel_evaluation_is_the_readable_one(players, options):
    seen = {"differ": 0, "claims": 0, "over": 0, "capped": 0}
    for rules, ra, s in _positions(players, options, 12, 20261205 + players):
        game = REF.from_position(POS.from_state(s), ref_rules(rules))
        want = REF.standing(game)
        got = _standing(s)
        assert got == want, POS.from_state(s)
        progress = np.zeros(E.MAX_PLAYERS)
        E.progress(s, ra, progress)
        assert list(progress[:players]) == got
        scores = REF.result(game)["scores"]
        seen["claims"] += any(v >= score + 1 for v, score in zip(got, scores))
        seen["differ"] += len(set(got)) > 1 and len(set(scores)) == 1
        if s[E.H_PHASE] == E.PH_OVER:
            seen["over"] += 1
            assert got == [float(x) for x in scores]    # the score, exactly, at the end
    assert seen["over"] == 12 and seen["claims"] > 0 and seen["differ"] > 0, seen


def test_the_terms_on_a_drawn_board():
    """One row of pastures, by hand. Seat 0: stacks of 3 (moves east only) and of 2
    (walled in: blocked for good). Seat 1: a stack of 3 with both sides open, and two
    stranded stacks of 1. Distances from the stacks that can move: a 1, b 2 (as near
    to both: nobody's) and c 3 from seat 0; c 1, b 2, a 3, d 1, e 2 from seat 1. So
    seat 0 reaches a first, seat 1 c, d, e; seat 0 can spread 2 sheep, and seat 1 only 2."""
    pos, _ = position_of("""
        |1 0 a b c 1 d e 1 0
    """, 2, 5, "move", 0, heights=[1, 3, 3, 1, 2])
    rules, ra, s = kernel_of(pos)
    occupied = [2, 3]
    first_capped = [min(1, 2), min(3, 2)]
    mobility = [min(3 - 1, 1) + 0, min(3 - 1, 2)]
    want = [occupied[q] + first_capped[q] + mobility[q] / 32 for q in range(2)]
    assert want == [3.03125, 5.0625]
    assert _standing(s) == want
    assert REF.standing(REF.from_position(pos, ref_rules(rules))) == want


def test_territory_beats_random_and_refuses_bad_parameters():
    result = run_cli("simulate", "battlesheep", "-n", "200", "--policy", "territory", "--policy", "random", "-q")
    assert result.exit_code == 0, result.output
    line = next(x for x in result.output.splitlines() if x.startswith("| territory |"))
    assert float(line.split("|")[-2].split("%")[0]) > 90.0, line
    assert_bad(run_cli("simulate", "battlesheep", "-n", "10", "--policy", "territory:epsilon=2"),
               "epsilon", "territory")
    assert_bad(run_cli("simulate", "battlesheep", "-n", "10", "--policy", "territory:opponent=1"),
               "opponent", "epsilon")
