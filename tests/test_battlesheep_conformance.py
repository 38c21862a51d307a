"""Conformance of the Battle Sheep kernel (DESIGN section 7) and the randomness contract.

For every player count (2-4) under the default rules, board=random and every preset
that fits, with random and greedy seats: play always ends within MAX_PLIES; sheep are
conserved (every seat's heights sum to stack_size); each move adds exactly one stack,
so moves <= P * (stack_size - 1); scores count occupied hexes; outcome rows are within
bounds. Then the randomness contract (DESIGN section 3): rows are bit-identical for
any thread count and any chunking, any game replays alone from its index, the same
seed gives the same rows and different seeds give different ones.
"""

from __future__ import annotations

import numba
import numpy as np
import pytest

from sheepsim.games.battlesheep import engine as E
from sheepsim.games.battlesheep import play as PL
from sheepsim.games.battlesheep import policies as POL
from sheepsim.games.battlesheep import rules as RU
from sheepsim.games.battlesheep.game import initial_state
from sheepsim.games.battlesheep.presets import PRESETS
from sheepsim.rng import streams

from conftest import seat_sheep

R, G = POL.RANDOM, POL.GREEDY
GREEDY_PARAMS = [0.0, 1.0]


def _boards(players: int) -> list[str]:
    """Default build, random build, and every preset whose tile count fits the box."""
    fitting = [f"preset:{name}" for name, tiles in PRESETS.items() if len(tiles) == 4 * players]
    return ["built", "random"] + fitting


CASES = [(p, board, pol) for p in (2, 3, 4) for board in _boards(p) for pol in ("random", "greedy", "mixed")]
# the largest game the kernel supports: 24 tiles, 4 x 32 sheep (the MAX_PLIES bound is tight here)
CASES += [(4, "built", pol, {"tiles_per_player": 6, "stack_size": 32}) for pol in ("random", "greedy")]
CASES += [(2, "built", "greedy", {"no_move": "player_loses"}), (3, "built", "mixed", {"no_move": "game_ends_now"}),
          (2, "built", "random", {"tiles_per_player": 1, "stack_size": 2}),
          (3, "random", "random", {"start_zone": "any_edge", "final_tie": "second_largest_herd",
                                   "placement_order": "reverse"})]


def _slots(policy: str, players: int):
    ids = {"random": [R] * players, "greedy": [G] * players, "mixed": [G if t % 2 else R for t in range(players)]}
    return np.array(ids[policy], dtype=np.int64), np.array([GREEDY_PARAMS] * players, dtype=np.float64)


def _case_id(case) -> str:
    extra = case[3] if len(case) > 3 else {}
    return f"{case[0]}p-{case[1]}-{case[2]}" + "".join(f"-{k}={v}" for k, v in extra.items())


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_games_end_conserve_sheep_and_respect_bounds(case):
    players, board, policy = case[:3]
    overrides = {"board": board, **(case[3] if len(case) > 3 else {})}
    rules = RU.make(players, overrides)
    ra = RU.to_array(rules)
    init = initial_state(rules)
    stack = rules["stack_size"]
    tiles = players * rules["tiles_per_player"]
    preset = board.startswith("preset:")
    if preset:
        assert int(init[E.H_PHASE]) == E.PH_PLACE and int(init[E.H_NHEX]) == 4 * tiles
    slot_ids, slot_params = _slots(policy, players)
    s = np.empty(E.STATE_SIZE, dtype=np.int32)
    buf = np.empty((E.MAX_ACTIONS, 4), dtype=np.int32)
    log = np.zeros((PL.MAX_PLIES, 4), dtype=np.int32)
    seat_slot = np.empty(E.MAX_PLAYERS, dtype=np.int64)
    games = 300
    rows = np.zeros((games, E.O_SIZE), dtype=np.int32)
    winners = set()
    for g in range(games):
        row = rows[g]
        PL.seat_slots(g, players, True, seat_slot)
        PL.play_game(POL.choose, ra, init, slot_ids, slot_params, seat_slot, streams(77, g, PL.N_STREAMS),
                     s, buf, row, log)
        n = int(s[E.H_NHEX])
        owners = s[E.OWNER:E.OWNER + n]
        heights = s[E.HEIGHT:E.HEIGHT + n]
        moves = int(row[E.O_MOVES])
        # termination within the declared cap, and the game really is over
        assert int(s[E.H_PHASE]) == E.PH_OVER and int(s[E.H_TO_MOVE]) == -1
        assert 0 < int(row[E.O_PLIES]) <= PL.MAX_PLIES
        assert int(row[E.O_PLIES]) == (0 if preset else tiles) + players + moves
        # the pasture is all the tiles
        assert int(row[E.O_HEXES]) == n == 4 * tiles
        # conservation: every seat's heights sum to stack_size; an owner iff sheep on the hex
        assert seat_sheep(s) == [stack] * players
        assert ((owners >= 0) == (heights >= 1)).all() and (owners < players).all()
        # every move splits one stack in two
        occupied = int((owners >= 0).sum())
        assert moves == occupied - players
        assert 0 <= moves <= players * (stack - 1)
        # scores count occupied hexes; herds are groups of them
        scores = [int(row[E.O_SCORE + t]) for t in range(players)]
        herds = [int(row[E.O_HERD + t]) for t in range(players)]
        assert scores == [int((owners == t).sum()) for t in range(players)]
        assert sum(scores) == occupied
        assert all(1 <= h <= sc for h, sc in zip(herds, scores))
        assert not row[E.O_SCORE + players:E.O_SCORE + E.MAX_PLAYERS].any()
        # outcome bounds and consistency
        winner, mask, loser = int(row[E.O_WINNER]), int(row[E.O_COWINNERS]), int(row[E.O_LOSER])
        assert -1 <= winner < players
        assert 0 < mask < 1 << players
        if winner >= 0:
            assert mask == 1 << winner
        else:
            assert bin(mask).count("1") >= 2
        if rules["no_move"] == "player_loses":
            assert loser in (0, 1) and mask == 1 << (1 - loser)
            assert not E.can_move(s, loser)
        else:
            assert loser == -1
            top = max(scores)
            tops = [t for t in range(players) if scores[t] == top]
            assert all(scores[t] == top for t in range(players) if mask >> t & 1)
            assert int(row[E.O_TIEBREAK]) == (len(tops) > 1)
            best_herd = max(herds[t] for t in tops)
            assert all(herds[t] == best_herd for t in range(players) if mask >> t & 1)
        if rules["no_move"] == "skip":
            # the game ends only when nobody at all can move
            assert not any(E.can_move(s, t) for t in range(players))
        assert int(row[E.O_ROTATION]) == 0     # play_game leaves the rotation column to play_games
        winners.add(winner)
    # random play is not stuck on one result, and the same seed replays the same games
    assert len(winners) >= 2
    again = np.zeros(E.O_SIZE, dtype=np.int32)
    for g in (0, games - 1):
        PL.seat_slots(g, players, True, seat_slot)
        PL.play_game(POL.choose, ra, init, slot_ids, slot_params, seat_slot, streams(77, g, PL.N_STREAMS),
                     s, buf, again, log)
        assert np.array_equal(again, rows[g])


# ---------------------------------------------------------------------------
# The randomness contract (DESIGN section 3)
# ---------------------------------------------------------------------------

N = 300


def _run(rules, policy="mixed", seed=11, first=0, n=N, rotate=True, init=None):
    ra = RU.to_array(rules)
    slot_ids, slot_params = _slots(policy, rules.num_players)
    out = np.zeros((n, E.O_SIZE), dtype=np.int32)
    PL.play_games(ra, initial_state(rules) if init is None else init, slot_ids, slot_params, rotate,
                  np.uint64(seed), first, out)
    return out


CONTRACT_RULES = [
    pytest.param(RU.make(2), id="2p-built"),
    pytest.param(RU.make(3, {"board": "random"}), id="3p-random-board"),
    pytest.param(RU.make(4, {"board": "preset:ring-4p"}), id="4p-ring-preset"),
]


@pytest.mark.parametrize("rules", CONTRACT_RULES)
def test_randomness_contract_same_seed_same_rows(rules):
    a = _run(rules)
    b = _run(rules)
    assert np.array_equal(a, b)
    assert (a[:, E.O_PLIES] > 0).all()        # every row was written


@pytest.mark.parametrize("rules", CONTRACT_RULES)
def test_randomness_contract_bit_identical_for_any_thread_count(rules):
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("numba has a single thread here")
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = _run(rules)
        numba.set_num_threads(2)
        two = _run(rules)
    finally:
        numba.set_num_threads(before)
    assert np.array_equal(one, two)


@pytest.mark.parametrize("rules", CONTRACT_RULES)
def test_randomness_contract_bit_identical_for_any_chunking(rules):
    whole = _run(rules)
    for sizes in ([1, 7, 100, 100, 92], [100, 100, 100], [7] * 42 + [6]):
        assert sum(sizes) == N
        starts = np.cumsum([0] + sizes[:-1])
        parts = {}
        # chunks run out of order: nothing may carry over from one call to the next
        for first, size in reversed(list(zip(starts, sizes))):
            parts[first] = _run(rules, first=int(first), n=size)
        chunked = np.concatenate([parts[f] for f in starts])
        assert np.array_equal(whole, chunked), f"chunking {sizes[:5]}..."


@pytest.mark.parametrize("rules", CONTRACT_RULES)
def test_randomness_contract_any_game_replays_alone_from_its_index(rules):
    rows = _run(rules, first=1000, n=50)
    ra = RU.to_array(rules)
    slot_ids, slot_params = _slots("mixed", rules.num_players)
    init = initial_state(rules)
    s = np.empty(E.STATE_SIZE, dtype=np.int32)
    buf = np.empty((E.MAX_ACTIONS, 4), dtype=np.int32)
    log = np.zeros((0, 4), dtype=np.int32)
    seat_slot = np.empty(E.MAX_PLAYERS, dtype=np.int64)
    for i in (0, 1, 17, 49):
        g = 1000 + i
        row = np.zeros(E.O_SIZE, dtype=np.int32)
        rot = PL.seat_slots(g, rules.num_players, True, seat_slot)
        PL.play_game(POL.choose, ra, init, slot_ids, slot_params, seat_slot, streams(11, g, PL.N_STREAMS),
                     s, buf, row, log)
        row[E.O_ROTATION] = rot
        assert np.array_equal(row, rows[i]), f"game {g}"
        assert int(rows[i, E.O_ROTATION]) == g % rules.num_players


@pytest.mark.parametrize("rules", CONTRACT_RULES)
def test_randomness_contract_different_seeds_differ(rules):
    a = _run(rules, seed=1)
    b = _run(rules, seed=2)
    assert not np.array_equal(a, b)
    # and not just in one row: the seed reaches every game's streams
    differing = int((a != b).any(axis=1).sum())
    assert differing > N // 4
    # different game indices under one seed are different games too
    assert len({tuple(r) for r in a[:, E.O_SCORE:E.O_HERD + E.MAX_PLAYERS]}) > 10


def test_randomness_contract_rotation_only_reassigns_policies():
    """Rotation moves policies between seats; with identical policies in every slot
    it changes nothing, because streams belong to seats (play.py docstring)."""
    rules = RU.make(3)
    plain = _run(rules, policy="greedy", rotate=False)
    rotated = _run(rules, policy="greedy", rotate=True)
    assert (plain[:, E.O_ROTATION] == 0).all()
    assert np.array_equal(rotated[:, E.O_ROTATION], np.arange(N) % 3)
    cols = [c for c in range(E.O_SIZE) if c != E.O_ROTATION]
    assert np.array_equal(plain[:, cols], rotated[:, cols])
    # with different policies in the slots, rotation does change the games
    mixed_plain = _run(rules, policy="mixed", rotate=False)
    mixed_rot = _run(rules, policy="mixed", rotate=True)
    assert not np.array_equal(mixed_plain[:, cols], mixed_rot[:, cols])
