"""The plain-Python search over the reference engines (search/python_mcts.py), which
`sheepsim bench` times beside the kernel agent.

* Its view of a reference engine (GameSpec.reference_search) agrees with the kernel along
  whole games: the same seat to act, as many legal actions, the same winners at the end.
* On a small Pig game it plays the exactly optimal action (test_search.pig_exact) wherever
  the two actions' values differ clearly.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from sheepsim.games import get_game, kernel_modules
from sheepsim.games import wrappers as W
from sheepsim.policies import seat_specs
from sheepsim.rng import streams
from sheepsim.search import python_mcts
from test_search import pig_decisive_positions


@pytest.mark.parametrize("name,players", [("pig", 2), ("battlesheep", 2), ("battlesheep", 3), ("battlesheep", 4)])
def test_the_reference_view_agrees_with_the_kernel_along_whole_games(name, players):
    game = get_game(name)
    E, _, PL = kernel_modules(name)
    rules = game.make_rules(players, {})
    arr, aux = game.to_array(rules), game.initial_state(rules, None)
    specs = seat_specs(name, ["random"], players)
    width = PL.GAME[2]
    lbuf = np.zeros((PL.GAME[1], width), dtype=np.int32)
    finished = 0
    for g in range(5):
        log, row = W.replay(PL, arr, aux, specs, True, 1, g)[:2]
        s = np.zeros(PL.GAME[0], dtype=np.int32)
        E.start(s, arr, aux, streams(1, g, PL.GAME[5])[0])
        for entry in log:
            if entry[0] >= 0:
                engine, position = game.reference_search(rules, s)
                assert engine.actor(position) == entry[0]
                assert len(engine.legal(position)) == E.legal(s, arr, aux, lbuf)
            E.step(s, arr, aux, tuple(int(x) for x in entry[1:1 + width]), int(entry[1 + width]))
        engine, position = game.reference_search(rules, s)
        assert engine.actor(position) == -1
        out = np.zeros(PL.SEARCH[0], dtype=np.int32)
        E.outcome(s, arr, out)
        mask = int(out[PL.SEARCH[1]])
        shares = engine.shares(position)
        assert [q for q in range(players) if shares[q] > 0] == [q for q in range(players) if mask >> q & 1]
        finished += 1
    assert finished == 5


def test_python_mcts_plays_the_exact_optimum_of_a_small_pig_game_where_it_matters():
    goal = 10
    game = get_game("pig")
    rules = game.make_rules(2, {"goal": goal})
    checked = 0
    for i, j, k, s, roll, hold in pig_decisive_positions(goal):
        engine, position = game.reference_search(rules, s)
        best = "hold" if hold > roll else "roll"
        chosen = python_mcts.search(engine, position, 1500, 0.7, random.Random(i * 100 + j * 10 + k))
        assert chosen == best, f"score {i}, other {j}, turn total {k}: roll {roll:.3f}, hold {hold:.3f}"
        checked += 1
    assert checked >= 15
