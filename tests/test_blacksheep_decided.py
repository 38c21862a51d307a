"""Games decided by a Black Sheep (games/blacksheep/decided.py): the winning-stop test
against hand-built positions and against brute force through the engine's own moves
(stop, then every placement sequence the rules allow), and the per-game count
against a plain reading of replayed games."""

from __future__ import annotations

import numpy as np
import pytest
from test_turn_optimal import a, position

from sheepsim.games import get_game
from sheepsim.games import wrappers as W
from sheepsim.games.blacksheep import decided as D
from sheepsim.games.blacksheep import engine as E
from sheepsim.games.blacksheep.model import BLACK, DRAW_FROM, PLACE, PLACE_PHASE, STOP
from sheepsim.policies import seat_specs
from sheepsim.start import kernel_aux

GAME = get_game("blacksheep")


@pytest.mark.parametrize("table, zoo, hand, to_win, wins", [
    ((a(1), a(3), a(4)), {a(1): 2, a(2): 3}, {}, 2, True),           # N = 3: one card, completes a(1)
    ((a(1), a(3)), {a(1): 2, a(2): 3}, {}, 2, False),                 # N = 2 places nothing
    ((a(3), a(4), a(5)), {a(1): 1, a(2): 3}, {a(1): 2}, 2, False),    # a(1) needs 2 cards, N - 2 = 1
    ((a(3), a(4), a(5), a(6)), {a(1): 1, a(2): 3}, {a(1): 2}, 2, True),
    ((a(1), a(3), a(4), a(5)), {a(1): 2, a(3): 2}, {}, 2, True),     # two triplets at once
    ((a(1), a(3), a(4), a(5)), {a(1): 2, a(3): 2}, {}, 3, False),
    ((a(2), a(3), a(4)), {a(2): 3, a(3): 3}, {}, 2, True),            # already there (never at a draw in play)
])
def test_stop_wins_on_hand_built_positions(table, zoo, hand, to_win, wins):
    s, rules = position(3, {0: hand, 1: {a(5): 2}, 2: {a(6): 2}}, zoos={0: zoo}, table=table)
    s[E.H_TO_WIN] = to_win
    assert D.stop_wins(s, rules) is wins


def _brute_force_stop_wins(s, rules):
    """Stop, then try every multiset of placements (order cannot change the zoo the
    placements end with, and the engine checks the win after each one)."""
    aux = np.zeros(1, np.int32)
    buf = np.zeros((E.MAX_DECISIONS, 3), np.int32)
    t = s.copy()
    seat = int(t[E.H_ACTIVE])
    E.step(t, rules, aux, np.array((STOP, 0, 0), np.int32), -1)

    def search(t, least):
        if t[E.H_WINNER] == seat:
            return True
        if t[E.H_PHASE] != PLACE_PHASE:
            return False
        n = E.legal(t, rules, aux, buf)
        for code, kind, sp in buf[:n].copy():
            if code == PLACE and kind >= least:
                u = t.copy()
                E.step(u, rules, aux, np.array((code, kind, sp), np.int32), -1)
                if search(u, kind):
                    return True
        return False
    return search(t, 0)


@pytest.mark.parametrize("players, options", [(3, {}), (4, {}), (2, {"zoo_limit_basis": "blind_draws"}),
                                              (5, {"zoo_max_per_species": "3"})])
def test_stop_wins_agrees_with_brute_force_at_every_draw_decision(players, options):
    rules = GAME.make_rules(players, options)
    arr = GAME.to_array(rules)
    specs = seat_specs("blacksheep", ["threshold:k=9"], players)    # long turns: big tables to place from
    aux = kernel_aux(GAME, rules, None, specs)
    play = GAME.play
    checked = winning = 0
    for g in range(12):
        log, _, _, rngs = W.replay(play, arr, aux, specs, True, 3, g)
        s = np.zeros(E.STATE_SIZE, np.int32)
        play.R_START(s, arr, aux, rngs[0])
        for entry in log:
            action, c = tuple(int(x) for x in entry[1:4]), int(entry[4])
            if action[0] == DRAW_FROM:
                want = _brute_force_stop_wins(s, arr)
                assert D.stop_wins(s, arr) is want, (g, s[E.H_NTABLE])
                checked += 1
                winning += want
            play.R_STEP(s, arr, aux, action, c)
    assert checked > 200 and winning > 0          # the case that matters was met


def test_a_game_is_decided_when_a_loser_busts_on_a_winning_table():
    """The count against a plain reading: every Black Sheep drawn on a winning table,
    by whom, and the game's winner."""
    players = 3
    rules = GAME.make_rules(players, {})
    arr = GAME.to_array(rules)
    specs = seat_specs("blacksheep", ["threshold:k=10"], players)
    aux = kernel_aux(GAME, rules, None, specs)
    games = range(60)
    got = D.decided_by_black_sheep(GAME.play, arr, aux, specs, True, 11, games)
    want = []
    for g in games:
        log, row, _, rngs = W.replay(GAME.play, arr, aux, specs, True, 11, g)
        s = np.zeros(E.STATE_SIZE, np.int32)
        GAME.play.R_START(s, arr, aux, rngs[0])
        busted = []
        for entry in log:
            action, c = tuple(int(x) for x in entry[1:4]), int(entry[4])
            if action[0] == DRAW_FROM and c == BLACK and _brute_force_stop_wins(s, arr):
                busted.append(int(s[E.H_ACTIVE]))
            GAME.play.R_STEP(s, arr, aux, action, c)
        assert s[E.H_WINNER] == row[E.O_WINNER]
        want.append(int(any(b != row[E.O_WINNER] for b in busted)))
    assert got.tolist() == want
    assert 0 < sum(want) < len(want)
