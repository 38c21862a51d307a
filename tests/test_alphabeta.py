"""The alpha-beta search (search/alphabeta.py) on Battle Sheep, checked three ways:

* the kernel and its plain-Python twin (search/reference.alphabeta) choose the same
  action, and draw the same numbers, at every decision of whole games (building,
  placement and moves; 2 and 3 players; with and without a node budget);
* the twin's values agree with a plain minimax without pruning (reference.minimax) on
  positions small enough to search fully: the same best value and the same tied best
  actions, and an upper bound for every other action (fail-soft);
* a node budget that leaves room for one ply decides as depth 1 does;

and as a policy: `alphabeta:depth=D,nodes=N` through the registry and the game's search
kernels (search/agents.py), refused with one line where it cannot play.
"""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from conftest import assert_bad
from conftest import run_cli as run
from sheepsim.games import fast, get_game
from sheepsim.games import wrappers as W
from sheepsim.games.battlesheep import engine as E
from sheepsim.games.battlesheep.play import KERNELS as PL
from sheepsim.games.kernels import of_kind
from sheepsim.games.battlesheep import policies as POL
from sheepsim.policies import MAX_PARAMS, seat_specs
from sheepsim.rng import streams
from sheepsim.search import agents as A
from sheepsim.search import alphabeta as AB
from sheepsim.search import reference

PS = of_kind(PL, "search")   # the search agents' kernels of Battle Sheep (search/wiring.py)

SEED = 20261205


@njit
def _kernel(s, rules, aux, seat, params, rng, buf, scratch):
    # the game's own search dispatcher, with the argument types the replay kernel passes
    # (an int64 id, play.VIEW's pointers), so its cached compile is the one loaded
    return PS.choose_called(np.int64(A.ALPHABETA), fast.pointer(s), fast.pointer(rules), fast.pointer(aux),
                                   seat, params, fast.pointer(rng), buf, scratch)


def _greedy(pid, s, rules, aux, seat, params, rng, buf, scratch):
    assert pid == POL.GREEDY, "alphabeta falls back on the game's heuristic only"
    return POL.greedy(s, rules, aux, seat, params, rng, buf)


def _params(depth, nodes=0):
    v = np.zeros(MAX_PARAMS)
    v[AB.P_DEPTH], v[AB.P_NODES] = depth, nodes
    return v


def _positions(players, options, policies, games, seed, phase=None, every=1):
    """(state, rules, aux, seat to act) at the decisions of games played by `policies`."""
    game = get_game("battlesheep")
    rules = game.make_rules(players, options)
    arr, aux = game.to_array(rules), game.initial_state(rules, None)
    specs = seat_specs("battlesheep", policies, players)
    found = []
    for g in range(games):
        log, _, _, rngs = W.replay(PL, arr, aux, specs, True, seed, g)
        s = np.zeros(PL.GAME.state_size, dtype=np.int32)
        E.start(s, arr, aux, rngs[0])
        for t, entry in enumerate(log):
            who = int(E.actor(s, arr))
            if who == -1:
                break
            if who >= 0 and (phase is None or s[E.H_PHASE] == phase) and t % every == 0:
                found.append((s.copy(), arr, aux, who))
            E.step(s, arr, aux, tuple(int(x) for x in entry[1:5]), -1)
    return found


CASES = [  # players, options, the policies that play the games, the search's depth and node budget
    (2, {}, ["greedy", "territory"], 3, 0),
    (3, {"stack_size": 8}, ["random", "greedy", "territory"], 3, 400),
    (2, {"board": "random"}, ["territory", "random"], 4, 3000),
]


@pytest.mark.parametrize("players,options,policies,depth,nodes", CASES,
                         ids=[f"{c[0]}p-depth{c[3]}-nodes{c[4]}" for c in CASES])
def test_the_kernel_chooses_and_draws_as_its_python_twin(players, options, policies, depth, nodes):
    params = _params(depth, nodes)
    buf = np.zeros((PL.GAME.max_actions, PL.GAME.action_size), dtype=np.int32)
    positions = _positions(players, options, policies, 2, SEED, every=2)
    flat = 0
    for i, (s, rules, aux, seat) in enumerate(positions):
        rng_kernel, rng_twin = streams(SEED, i, 1)[0], streams(SEED, i, 1)[0]
        kernel = _kernel(s.copy(), rules, aux, np.int64(seat), params, rng_kernel, buf, buf.copy())
        twin = reference.alphabeta((PL.ENGINE, _greedy), PL.GAME, PS.SEARCH, PS.ROLLOUT_PARAMS, s.copy(), rules, aux, seat,
                                   params, rng_twin)
        assert tuple(int(x) for x in kernel) == twin, f"decision {i}, seat {seat}"
        assert np.array_equal(rng_kernel, rng_twin), f"decision {i}: the streams parted"
        flat += reference.alphabeta_root(PL.ENGINE, PL.GAME, PS.SEARCH, s, rules, aux, seat, params)[4]
    assert len(positions) >= 15
    # the rules' build (board=random) leaves no tile to choose; a built board's tiles tie
    # at one ply (no stack stands yet), and the heuristic places them
    assert flat < len(positions) and (flat > 0 or options.get("board") == "random")


@pytest.mark.parametrize("players,depth", [(2, 3), (3, 2), (2, 4)])
def test_the_twin_agrees_with_plain_minimax(players, depth):
    positions = _positions(players, {"stack_size": 5, "tiles_per_player": 2}, ["random"] * players, 3,
                           SEED + players, phase=E.PH_MOVE, every=3)
    buf = np.zeros((PL.GAME.max_actions, PL.GAME.action_size), dtype=np.int32)
    params = _params(depth)
    compared = 0
    for s, rules, aux, seat in positions[:8]:
        actions, decided, _, _, flat = reference.alphabeta_root(PL.ENGINE, PL.GAME, PS.SEARCH, s, rules, aux, seat, params)
        one = reference.minimax(PL.ENGINE, PS.SEARCH, s, rules, aux, seat, 1, buf)
        # flat: one ply ties every action, and the search stops there (the heuristic plays)
        assert flat == (len(actions) > 1 and max(one.values()) - min(one.values()) <= AB.TIE)
        if len(actions) == 1 or flat:
            continue
        exact = reference.minimax(PL.ENGINE, PS.SEARCH, s, rules, aux, seat, depth, buf)
        top = max(exact.values())
        assert max(decided) == pytest.approx(top, abs=1e-9)
        best = {a for a, v in exact.items() if v >= top - AB.TIE}
        assert {a for a, v in zip(actions, decided) if v >= max(decided) - AB.TIE} == best
        for a, v in zip(actions, decided):          # the others: upper bounds of their values
            assert v >= exact[a] - 1e-9
        compared += 1
    assert compared >= 3


def test_a_budget_too_small_for_a_second_ply_decides_as_depth_one():
    positions = _positions(2, {}, ["greedy", "random"], 1, SEED, phase=E.PH_MOVE, every=3)
    compared = 0
    for s, rules, aux, seat in positions:
        one = reference.alphabeta_root(PL.ENGINE, PL.GAME, PS.SEARCH, s, rules, aux, seat, _params(1))
        if len(one[0]) == 1 or one[4]:
            continue                                # a forced move, or a flat root: no second ply
        capped = reference.alphabeta_root(PL.ENGINE, PL.GAME, PS.SEARCH, s, rules, aux, seat, _params(6, 1))
        two = reference.alphabeta_root(PL.ENGINE, PL.GAME, PS.SEARCH, s, rules, aux, seat, _params(2))
        assert capped[1] == one[1] and capped[3] == one[3] == len(one[0])
        assert two[3] > one[3]                      # a second ply makes more positions
        compared += 1
    assert compared >= 3


def test_as_a_policy_two_plies_beat_the_one_ply_heuristic():
    """alphabeta through the registry and the game's chunk kernel (search/agents.py);
    tests/test_conformance.py holds its rows to replay, threads and chunks."""
    game = get_game("battlesheep")
    rules = game.make_rules(2, {})
    arr, aux = game.to_array(rules), game.initial_state(rules, None)
    specs = seat_specs("battlesheep", ["alphabeta:depth=2,nodes=5000", "greedy"], 2)
    rows = game.play_chunk(arr, aux, specs, True, SEED, 0, 24)
    # seats rotate, so the search holds each seat in turn; depth 2 beats one-ply greedy
    # in about 85% of games (measured on longer runs): 17 of 24 is far below that
    winner, rotation = rows[:, E.O_WINNER], rows[:, E.O_ROTATION]
    wins = int(((winner >= 0) & ((winner + rotation) % 2 == 0)).sum())     # slot 0 (wrappers.frame)
    assert set(rotation) == {0, 1} and wins >= 17, wins


@pytest.mark.parametrize("args,needles", [
    (["simulate", "battlesheep", "--policy", "alphabeta:depth=0"], ["depth=0 is out of range", "integer 1..32"]),
    (["simulate", "battlesheep", "--policy", "alphabeta:depth=2.5"], ["whole number", "integer 1..32"]),
    (["simulate", "battlesheep", "--policy", "alphabeta:nodes=-1"], ["nodes=-1 is out of range"]),
    (["simulate", "battlesheep", "--policy", "alphabeta:iters=5"], ["iters", "depth, nodes"]),
    (["simulate", "pig", "--policy", "alphabeta"], ["Pig has luck in its decisions", "use mcts"]),
    (["simulate", "blacksheep", "--policy", "alphabeta"], ["hides cards", "use ismcts"]),
    (["simulate", "hiboufou", "--policy", "alphabeta"], ["hides cards", "use ismcts"]),
    (["simulate", "bobbysitter", "--policy", "alphabeta"], ["unknown bobbysitter policy 'alphabeta'"]),
])
def test_bad_alphabeta_input_is_one_line_exit_2(tmp_path, args, needles):
    out = tmp_path / "out"
    assert_bad(run(*args, "--out", str(out)), *needles)
    assert not out.exists()


def test_policies_lists_alphabeta_where_it_plays():
    text = run("policies", "battlesheep").output
    assert "alphabeta:depth=<integer>  (default 3; allowed integer 1..32)" in text
    assert "\nalphabeta\n" not in run("policies", "pig").output
