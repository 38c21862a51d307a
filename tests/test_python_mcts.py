"""The plain-Python search over the reference engines (search/python_mcts.py), which
`sheepsim bench` times beside the kernel agent.

* Its view of a reference engine (GameSpec.reference_search) agrees with the kernel along
  whole games: the same seat to act, as many legal actions, the same winners at the end.
* On a small Pig game it plays the exactly optimal action (test_search.pig_exact) wherever
  the two actions' values differ clearly.
* Hiboufou's and Bye-Bye Black Sheep's re-deals keep what the searching seat sees and
  move only what it cannot, and the search's choice does not change when the unseen
  cards are re-dealt. Bye-Bye Black Sheep's (reference.determinize, written apart from
  engine.determinize) leaves every public slot and every record of knowledge as the
  kernel's does, at every decision of whole games.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from sheepsim.games.kernels import of_kind
from sheepsim.games import get_game
from sheepsim.games import wrappers as W
from sheepsim.policies import seat_specs
from sheepsim.rng import streams
from sheepsim.search import python_mcts
from test_search import pig_decisive_positions


@pytest.mark.parametrize("name,players", [("pig", 2), ("battlesheep", 2), ("battlesheep", 3), ("battlesheep", 4),
                                          ("hiboufou", 2), ("hiboufou", 3), ("blacksheep", 3)])
def test_the_reference_view_agrees_with_the_kernel_along_whole_games(name, players):
    game = get_game(name)
    PL = game.play
    E = PL.ENGINE
    rules = game.make_rules(players, {})
    arr, aux = game.to_array(rules), game.initial_state(rules, None)
    specs = seat_specs(name, ["random"], players)
    width = PL.GAME.action_size
    lbuf = np.zeros((PL.GAME.max_actions, width), dtype=np.int32)
    finished = 0
    for g in range(5):
        log, row = W.replay(PL, arr, aux, specs, True, 1, g)[:2]
        s = np.zeros(PL.GAME.state_size, dtype=np.int32)
        E.start(s, arr, aux, streams(1, g, PL.GAME.streams)[0])
        for entry in log:
            if entry[0] >= 0:
                engine, position = game.reference_search(rules, s)
                assert engine.actor(position) == entry[0]
                assert len(engine.legal(position)) == E.legal(s, arr, aux, lbuf)
            E.step(s, arr, aux, tuple(int(x) for x in entry[1:1 + width]), int(entry[1 + width]))
        engine, position = game.reference_search(rules, s)
        assert engine.actor(position) == -1
        out = np.zeros(of_kind(PL, "search").SEARCH[0], dtype=np.int32)
        E.outcome(s, arr, out)
        mask = int(out[of_kind(PL, "search").SEARCH[1]])
        # the kernel's rewards (mcts._rewards): the winners share the win; none is a draw
        winners = [q for q in range(players) if mask >> q & 1]
        expected = [1 / len(winners) if q in winners else 0.0 for q in range(players)] if winners else \
            [1 / players] * players
        assert engine.shares(position) == pytest.approx(expected)
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


def _kernel_positions(name, players, games, options=None):
    """(rules, kernel state) at every seat's decision of random games, rebuilt from the
    replays as the bench rebuilds them (search/bench.py, seed 1)."""
    from sheepsim.search.bench import _positions
    game = get_game(name)
    PL = game.play
    E = PL.ENGINE
    rules = game.make_rules(players, options or {})
    arr, aux = game.to_array(rules), game.initial_state(rules, None)
    specs = seat_specs(name, ["random"], players)
    for g in range(games):
        log = W.replay(PL, arr, aux, specs, True, 1, g)[0]
        for _, s in _positions(E, PL, arr, aux, g, log):
            yield rules, s


def _hiboufou_positions(players, games=3):
    game = get_game("hiboufou")
    for rules, s in _kernel_positions("hiboufou", players, games):
        yield game.reference_search(rules, s)


def _unseen(game, seat):
    """The cards `seat` cannot see: the other hands and the pile, as one sorted list."""
    return sorted([c for q, h in enumerate(game.hands) if q != seat for c in h] + game.pile)


def test_hiboufou_redeal_keeps_what_the_seat_sees():
    rng = random.Random(0)
    moved = 0
    for engine, position in _hiboufou_positions(3):
        seat = engine.actor(position)
        g = engine.determinize(position, seat, rng)
        assert g.hands[seat] == position.hands[seat] and g.row == position.row and g.captured == position.captured
        assert [len(h) for h in g.hands] == [len(h) for h in position.hands] and len(g.pile) == len(position.pile)
        assert _unseen(g, seat) == _unseen(position, seat)
        assert all(h == sorted(h) for h in g.hands)
        moved += g.hands != position.hands or g.pile != position.pile
    assert moved > 50


# game, players, games, every how many positions, iterations, positions checked at least
# (Bye-Bye Black Sheep's reference search is slow: fewer, shorter searches)
REDEALS = [("hiboufou", 2, 2, 4, 30, 10), ("blacksheep", 3, 1, 50, 12, 6)]


@pytest.mark.parametrize("name,players,games,every,iters,least", REDEALS, ids=[r[0] for r in REDEALS])
def test_search_does_not_change_when_the_unseen_cards_are_redealt(name, players, games, every, iters, least):
    game = get_game(name)
    checked = 0
    for i, (rules, s) in enumerate(_kernel_positions(name, players, games)):
        if i % every:
            continue
        engine, position = game.reference_search(rules, s)
        seat = engine.actor(position)
        other = engine.determinize(position, seat, random.Random(100 + i))      # another world, same knowledge
        assert python_mcts.search(engine, position, iters, 0.7, random.Random(i)) == \
            python_mcts.search(engine, other, iters, 0.7, random.Random(i))
        checked += 1
    assert checked >= least


BLACKSHEEP_ALL = {"wolf": "on", "white_sheep": "on", "mother_sheep": "on", "joker": "on"}


def _pool(hands, pile, seat):
    """The cards `seat` cannot see, by kind: the others' unseen counts and the pile."""
    return sorted(pile + [c for i, h in enumerate(hands) if i != seat for c, n in enumerate(h) for _ in range(n)])


@pytest.mark.parametrize("players,options", [(3, {}), (4, BLACKSHEEP_ALL)])
def test_blacksheep_redeal_keeps_what_the_seat_sees_as_the_kernel_does(players, options):
    from sheepsim.games.blacksheep import engine as E
    from sheepsim.games.blacksheep import model
    from sheepsim.games.blacksheep import reference as ref
    from sheepsim.games.blacksheep.trace import known, to_dict
    game = get_game("blacksheep")
    rng = random.Random(0)
    moved = moles = 0
    for k, (rules, s) in enumerate(_kernel_positions("blacksheep", players, 2, options)):
        engine, position = game.reference_search(rules, s)
        # every seat in turn, not only the one to act: a Mole's look is re-dealt only
        # for a seat that is neither the looker (who acts) nor the one looked at
        seat = (engine.actor(position) + k) % players
        g = ref.determinize(position, seat, rng)
        # the seat's own view, the public slots, the sizes and the unseen cards stay
        before, after = ref.to_dict(position), ref.to_dict(g)
        assert {f: v for f, v in after.items() if f not in ("hands", "pile")} == \
               {f: v for f, v in before.items() if f not in ("hands", "pile")}
        assert g.hands[seat] == position.hands[seat] and g.known[seat] == position.known[seat]
        assert [sum(h) for h in g.hands] == [sum(h) for h in position.hands] and len(g.pile) == len(position.pile)
        unseen = [[h[q] - position.known[seat][i][q] for q in range(len(h))] for i, h in enumerate(position.hands)]
        unseen_after = [[h[q] - g.known[seat][i][q] for q in range(len(h))] for i, h in enumerate(g.hands)]
        assert _pool(unseen, position.pile, seat) == _pool(unseen_after, g.pile, seat)
        # the kernel's re-deal of the same state leaves the same knowledge: every row but
        # a Mole's look, which is of the re-dealt hand
        t = s.copy()
        E.determinize(t, game.to_array(rules), game.initial_state(rules, None), seat, streams(7, k, 1)[0])
        mine = ref.from_dict(position.rules, to_dict(t), known=known(t))     # checks knowledge <= hands
        assert {f: v for f, v in to_dict(t).items() if f not in ("hands", "pile")} == \
               {f: v for f, v in after.items() if f not in ("hands", "pile")}
        mole = g.phase == model.MOLE_PHASE and g.actor != seat and g.source != seat
        for o in range(players):
            for q in range(players):
                if mole and (o, q) == (g.actor, g.source):
                    assert g.known[o][q] == g.hands[q] and mine.known[o][q] == mine.hands[q]
                    moles += 1
                else:
                    assert g.known[o][q] == mine.known[o][q], (k, o, q)
        moved += g.hands != position.hands or g.pile != position.pile
    assert moved > 100 and moles > 10
