"""Battle Sheep `greedy` against its definition `greedy_reference`, decision by decision.

`greedy` scores candidates from what they change instead of listing and recounting
them (policies.py); it must stay the same policy. Games are played the way
play.play_game plays them (streams per seat, board=random builds from stream 0), and
at EVERY greedy decision both versions get the same state and a copy of the same
stream; we check they return the same action, leave their streams in the same state
(so the same tie-break draws, and epsilon's draw), and that `greedy` leaves the state
untouched. Configurations cover 2-4 players, the build, placement and move phases,
start_zone=any_edge, board=random and a preset, small and the largest tiles_per_player
and stack_size, epsilon > 0 and several opponent weights, greedy against greedy and
against random seats (positions greedy alone would not reach).
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from sheepsim.games.battlesheep import engine as E
from sheepsim.games.battlesheep.play import KERNELS as PL
from sheepsim.games.battlesheep import policies as POL
from sheepsim.games.battlesheep import rules as RU
from sheepsim.games.battlesheep.game import initial_state
from sheepsim.rng import streams

# (players, options, seats, [epsilon, opponent], games); seats "greedy" = every seat,
# "mixed" = greedy and random seats alternating, shifted by one seat every game
CONFIGS = [
    (2, {}, "greedy", [0.0, 1.0], 60),
    (2, {"tiles_per_player": 2, "stack_size": 5}, "mixed", [0.0, 0.0], 40),
    (2, {"board": "preset:ring-2p"}, "greedy", [0.0, 2.5], 30),
    (3, {"start_zone": "any_edge"}, "greedy", [0.2, -0.5], 50),
    (3, {"board": "random", "tiles_per_player": 3, "stack_size": 9}, "mixed", [0.0, 2.5], 50),
    (4, {"start_zone": "any_edge", "no_move": "game_ends_now"}, "mixed", [0.1, 1.0], 40),
    (4, {"tiles_per_player": 6, "stack_size": 32}, "greedy", [0.0, 1.0], 30),
]
PHASES = {E.PH_BUILD: "build", E.PH_PLACE: "place", E.PH_MOVE: "move"}


def _compare_games(players: int, options: dict, seats: str, params: list, games: int, seed: int) -> tuple:
    """Play the games; at each greedy decision compare greedy with greedy_reference.

    Returns (decisions per phase, decisions per phase where greedy drew from its
    stream), so the caller can check every phase and the tie-break were exercised."""
    rules = RU.make(players, options)
    ra = RU.to_array(rules)
    init = initial_state(rules)
    vector = np.array(params, dtype=np.float64)
    buf = np.empty((E.MAX_ACTIONS, 4), dtype=np.int32)
    decisions: Counter = Counter()
    drew: Counter = Counter()
    for g in range(games):
        rngs = streams(seed, g, PL.GAME.streams)
        s = init.copy()
        while s[E.H_PHASE] != E.PH_OVER:
            seat = int(s[E.H_TO_MOVE])
            phase = int(s[E.H_PHASE])
            if ra[RU.R_BOARD] == RU.BOARD_RANDOM and phase == E.PH_BUILD:
                o, q, r = E.random_tile(s, rngs[0])
                action = (E.KIND_TILE, o, q, r)
            elif seats == "greedy" or (seat + g) % 2 == 0:
                rng = rngs[PL.GAME.policy + seat]
                before, rng_before = s.copy(), rng.copy()
                rng_ref = rng.copy()
                action = tuple(int(x) for x in POL.greedy(s, ra, init, seat, vector, rng, buf))
                expected = tuple(int(x) for x in POL.greedy_reference(s.copy(), ra, init, seat, vector, rng_ref, buf))
                where = f"game {g}, ply {int(s[E.H_PLIES])}, seat {seat}, {PHASES[phase]}"
                assert action == expected, where
                assert np.array_equal(rng, rng_ref), f"{where}: different draws"
                assert np.array_equal(s, before), f"{where}: greedy changed the state"
                decisions[PHASES[phase]] += 1
                drew[PHASES[phase]] += not np.array_equal(rng, rng_before)
            else:
                action = POL.random_policy(s, ra, init, seat, vector, rngs[PL.GAME.policy + seat], buf)
            E.apply(s, ra, *(int(x) for x in action))
    return decisions, drew


@pytest.mark.parametrize("players,options,seats,params,games", CONFIGS,
                         ids=[f"{c[0]}p-{'-'.join(f'{k}={v}' for k, v in c[1].items()) or 'default'}-{c[2]}"
                              for c in CONFIGS])
def test_same_decisions_and_draws_as_the_reference(players, options, seats, params, games):
    decisions, drew = _compare_games(players, options, seats, params, games, seed=20261201 + players)
    phases = {"place", "move"} if options.get("board", "built") != "built" else {"build", "place", "move"}
    assert set(decisions) == phases
    # ties (and epsilon) must have made greedy draw in every phase it played, or the
    # test would not see the order of the candidates and of the draws
    assert all(drew[phase] > 0 for phase in phases), (decisions, drew)

