"""Conformance of the Battle Sheep kernel: the rules' own bounds.

For every player count (2-4) under the default rules, board=random and every preset
that fits, with random and greedy seats: play always ends within MAX_PLIES; sheep are
conserved (every seat's heights sum to stack_size); each move adds exactly one stack,
so moves <= P * (stack_size - 1); scores count occupied hexes; outcome rows are within
bounds and agree with the final position. Every game is the chunk kernel's: its
replay (play.replay, the runner's own loop) gives the chunk's row and a log that,
applied to the start state, gives the final position checked here. Rotation only
reassigns policies. The generic contract (same seed same rows for any thread count
and chunk size, replay of one game, different seeds differ, the census after every
decision, a legal action for every seat to act) is tests/test_conformance.py's.
"""

from __future__ import annotations

import numpy as np
import pytest

from sheepsim.games import driver
from sheepsim.games import wrappers as W
from sheepsim.games.battlesheep import engine as E
from sheepsim.games.battlesheep.play import KERNELS as PL
from sheepsim.games.battlesheep import policies as POL
from sheepsim.games.battlesheep import rules as RU
from sheepsim.games.battlesheep.game import initial_state
from sheepsim.games.battlesheep.presets import PRESETS
from sheepsim.games.wrappers import seat_slots
from sheepsim.rng import streams

from conftest import outcome_row, seat_sheep

R, G = POL.RANDOM, POL.GREEDY
GREEDY_PARAMS = [0.0, 1.0]
MAX_PLIES = 160     # 24 tiles + 4 placements + 4 players x 31 moves, rounded up


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


def _run(rules, policy="mixed", seed=11, first=0, n=300, rotate=True):
    """Rows of games first .. first + n - 1 from the chunk kernel (built-in policies)."""
    ra = RU.to_array(rules)
    slot_ids, slot_params = _slots(policy, rules.num_players)
    out = np.zeros((n, E.O_SIZE), dtype=np.int32)
    faults = np.zeros((driver.BLOCKS, driver.FAULT_SIZE), dtype=np.int64)
    W.run_blocks(PL.play_blocks, (ra, initial_state(rules), slot_ids, slot_params, rotate, np.uint64(seed), first,
                                  out, faults, W.NO_METRICS))
    assert not faults.any()
    return out


def _replay(ra, init, slot_ids, slot_params, seed, g):
    """Game g exactly as the chunk kernel plays it (rotation on): (log, row, final
    state). The log rows are (actor, kind, a, b, c, chance); the final state is `init`
    with the logged actions applied, each by the actor the log names."""
    players = int(ra[0])
    seat_slot = seat_slots(g, players, True, E.MAX_PLAYERS)
    log = np.zeros((MAX_PLIES, E.ACTION_SIZE + 2), dtype=np.int32)
    row = np.zeros(E.O_SIZE, dtype=np.int32)
    fault = np.zeros(driver.FAULT_SIZE, dtype=np.int64)
    n = PL.replay(ra, init, slot_ids, slot_params, seat_slot, streams(77, g, PL.GAME.streams), g, row, log, fault)
    assert not fault.any(), f"game {g}: fault {fault}"
    assert 0 < n <= MAX_PLIES
    board_random = int(ra[RU.R_BOARD]) == RU.BOARD_RANDOM
    s = init.copy()
    for t in range(n):
        who, action, c = int(log[t, 0]), [int(x) for x in log[t, 1:1 + E.ACTION_SIZE]], int(log[t, -1])
        building = int(s[E.H_PHASE]) == E.PH_BUILD
        # the rules build a random board (nature); every other decision is the seat to move's
        assert who == (driver.NATURE if board_random and building else int(s[E.H_TO_MOVE])), f"game {g} ply {t}"
        assert c == -1          # Battle Sheep has no luck
        E.apply(s, ra, *action)
    return log[:n], row, s


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
    games = 300
    chunk = _run(rules, policy, seed=77, n=games)
    winners = set()
    for g in range(games):
        log, row, s = _replay(ra, init, slot_ids, slot_params, 77, g)
        # the replay is the chunk kernel's game: its row, but the rotation column,
        # which the chunk kernel writes
        assert int(row[E.O_ROTATION]) == 0 and int(chunk[g, E.O_ROTATION]) == g % players
        cols = [c for c in range(E.O_SIZE) if c != E.O_ROTATION]
        assert np.array_equal(row[cols], chunk[g, cols]), f"game {g}: replay differs from the chunk kernel"
        # the logged actions lead to a final position with the kernel's outcome
        assert np.array_equal(outcome_row(s, ra), row), f"game {g}: the log does not give the kernel's outcome"
        n = int(s[E.H_NHEX])
        owners = s[E.OWNER:E.OWNER + n]
        heights = s[E.HEIGHT:E.HEIGHT + n]
        moves = int(row[E.O_MOVES])
        # termination within the declared cap, and the game really is over
        assert int(s[E.H_PHASE]) == E.PH_OVER and int(s[E.H_TO_MOVE]) == -1
        assert 0 < int(row[E.O_PLIES]) <= MAX_PLIES
        assert int(row[E.O_PLIES]) == (0 if preset else tiles) + players + moves
        assert len(log) == int(row[E.O_PLIES])      # one decision a ply
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
        winners.add(winner)
    # random play is not stuck on one result
    assert len(winners) >= 2


def test_rotation_only_reassigns_policies():
    """Rotation moves policies between seats; with identical policies in every slot
    it changes nothing, because streams belong to seats (play.py docstring)."""
    rules = RU.make(3)
    n = 300
    plain = _run(rules, policy="greedy", rotate=False, n=n)
    rotated = _run(rules, policy="greedy", rotate=True, n=n)
    assert (plain[:, E.O_ROTATION] == 0).all()
    assert np.array_equal(rotated[:, E.O_ROTATION], np.arange(n) % 3)
    cols = [c for c in range(E.O_SIZE) if c != E.O_ROTATION]
    assert np.array_equal(plain[:, cols], rotated[:, cols])
    # with different policies in the slots, rotation does change the games
    mixed_plain = _run(rules, policy="mixed", rotate=False, n=n)
    mixed_rot = _run(rules, policy="mixed", rotate=True, n=n)
    assert not np.array_equal(mixed_plain[:, cols], mixed_rot[:, cols])
