"""Bobby Sitter kernel, rule by rule: scripted flips through engine.resolve with chosen
reactions (the reference engine has its own scripted tests; the differential tests
tie the two together)."""

from __future__ import annotations

import numpy as np
import pytest

from sheepsim.games.bobbysitter import engine as E
from sheepsim.games.bobbysitter import rules as R
from sheepsim.games.bobbysitter.model import EMPTY, GRAB_BOBBY, GRAB_SHEEP, HIDDEN, NONE, SHEEP, WOLF
from sheepsim.rng import streams

B, S, N = GRAB_BOBBY, GRAB_SHEEP, NONE


def start(players=4, **options):
    rules = R.make(players, {k: str(v) for k, v in options.items()})
    arr, deck = R.to_array(rules), R.deck_array(rules)
    s = np.empty(E.STATE_SIZE, dtype=np.int32)
    E.setup(s, arr, deck, streams(1, 0, 1)[0], np.arange(6, dtype=np.int64))
    return s, arr


def flip(s, arr, cls, grabs, times, sheep=1):
    grab = np.zeros(6, dtype=np.int32)
    t = np.zeros(6)
    grab[:len(grabs)] = grabs
    t[:len(times)] = times
    E.resolve(s, arr, cls + 4 * sheep, grab, t, np.zeros(6, dtype=np.int32))
    return [int(x) for x in s[E.TOKENS:E.TOKENS + int(arr[0])]]


def test_setup_tokens_stock_counters_and_handicap():
    s, arr = start(4, start_tokens="3,2,2,1")
    assert [int(x) for x in s[E.TOKENS:E.TOKENS + 4]] == [3, 2, 2, 1]
    assert s[E.H_STOCK] == 25 - 8 and s[E.H_BOBBY] == 3 and s[E.H_FLIPPER] == 0
    assert sorted(s[E.ORDER:E.ORDER + 56]) == list(range(56))


def test_wolf_slowest_bobby_grabber_loses():
    s, arr = start(4)
    assert flip(s, arr, WOLF, [B, B, B, B], [300, 500, 400, 450]) == [2, 1, 2, 2]
    assert s[E.WOLF_LOSSES + 1] == 1 and s[E.H_STOCK] == 18


def test_wolf_ties_go_clockwise_from_the_flipper():
    s, arr = start(3)
    s[E.H_FLIPPER] = 1
    # seats 0 and 2 tie; clockwise from flipper 1: 1, 2, 0, so seat 0 is last
    assert flip(s, arr, WOLF, [B, B, B], [400, 100, 400]) == [1, 2, 2]


def test_wrong_counter_on_a_wolf_card_costs_one_token_or_two():
    s, arr = start(3)
    assert flip(s, arr, WOLF, [S, B, B], [300, 500, 400]) == [1, 2, 2]   # counters enough for the others
    s, arr = start(3, max_loss_per_card="unlimited")
    assert flip(s, arr, WOLF, [S, B, B], [300, 500, 400]) == [0, 2, 2]
    assert s[E.ALIVE] == 0 and s[E.H_BOBBY] == 1


def test_sheep_race_wrong_grab_and_loser_penalty():
    s, arr = start(3)
    assert flip(s, arr, SHEEP, [S, S, B], [420, 410, 300]) == [2, 3, 1]
    assert s[E.SHEEP_GAINS + 1] == 1
    s, arr = start(3, sheep_race_loser_penalty=1, wrong_counter_penalty=0)
    assert flip(s, arr, SHEEP, [S, S, B], [420, 410, 300]) == [1, 3, 2]


@pytest.mark.parametrize("cls", [EMPTY, HIDDEN])
def test_no_react_cards_cost_every_reactor(cls):
    s, arr = start(4)
    assert flip(s, arr, cls, [N, S, B, N], [0, 300, 350, 0], sheep=0) == [2, 1, 1, 2]
    assert s[E.PENALTIES + 1] == s[E.PENALTIES + 2] == 1


def test_empty_stock_no_gain_or_minted():
    for mode, expected, minted in (("no_gain", 5, 0), ("unlimited_tokens", 6, 1)):
        s, arr = start(2, tokens=10, target_tokens=7, start_tokens="5,5", empty_stock=mode)
        assert s[E.H_STOCK] == 0
        assert flip(s, arr, SHEEP, [S, S], [300, 400])[0] == expected and s[E.H_MINTED] == minted


def test_elimination_removes_a_counter_and_skips_the_flipper():
    s, arr = start(3, start_tokens="1,2,2")
    s[E.H_FLIPPER] = 2
    flip(s, arr, WOLF, [B, B, B], [900, 100, 200])
    assert s[E.ALIVE] == 0 and s[E.H_BOBBY] == 1 and s[E.H_ACTIVE] == 2
    assert s[E.H_FLIPPER] == 1          # seat 0 is out: after seat 2 comes seat 1


def test_win_at_target_and_last_standing():
    s, arr = start(2, start_tokens="4,2")
    flip(s, arr, SHEEP, [S, S], [300, 400])
    assert s[E.H_WINNER] == 0 and s[E.H_FLIPPER] == -1
    s, arr = start(2, start_tokens="1,2")
    flip(s, arr, WOLF, [B, B], [500, 400])
    assert s[E.H_WINNER] == 1 and s[E.H_FLIPPER] == -1
    s, arr = start(2, start_tokens="1,2", last_standing_wins="no")
    flip(s, arr, WOLF, [B, B], [500, 400])
    assert s[E.H_WINNER] == -1 and s[E.H_FLIPPER] == 1     # plays on alone


def test_everyone_out_together_is_a_draw():
    s, arr = start(2, start_tokens="1,1")
    flip(s, arr, EMPTY, [B, B], [300, 300], sheep=0)
    assert s[E.H_WINNER] == -1 and s[E.H_FLIPPER] == -1 and s[E.H_CAPPED] == 0 and s[E.H_ACTIVE] == 0


def test_flip_cap_most_tokens_or_draw():
    s, arr = start(3, flip_cap=1)
    flip(s, arr, SHEEP, [S, S, S], [300, 400, 500])
    assert s[E.H_CAPPED] == 1 and s[E.H_WINNER] == 0
    s, arr = start(3, flip_cap=1)
    flip(s, arr, EMPTY, [N, N, N], [0, 0, 0], sheep=0)
    assert s[E.H_CAPPED] == 1 and s[E.H_WINNER] == -1        # a tie for most
    s, arr = start(3, flip_cap=1, cap_resolution="draw")
    flip(s, arr, SHEEP, [S, S, S], [300, 400, 500])
    assert s[E.H_CAPPED] == 1 and s[E.H_WINNER] == -1


def test_reshuffle_and_per_player_deal():
    s, arr = start(2)
    rng = streams(1, 0, 1)[0]
    deck = R.deck_array(R.make(2))
    first = [int(E.draw_card(s, arr, rng)) for _ in range(56)]
    assert sorted(first) == list(range(56)) and s[E.H_RESHUFFLES] == 0
    E.draw_card(s, arr, rng)
    assert s[E.H_RESHUFFLES] == 1 and s[E.POS] == 1
    rules = R.make(3, {"stack_mode": "per_player"})
    s = np.empty(E.STATE_SIZE, dtype=np.int32)
    E.setup(s, R.to_array(rules), deck, streams(2, 0, 1)[0], np.arange(6, dtype=np.int64))
    assert [int(s[E.LEN + q]) for q in range(3)] == [19, 19, 18]
    regions = [set(int(c) for c in s[E.ORDER + s[E.OFF + q]:E.ORDER + s[E.OFF + q] + s[E.LEN + q]])
               for q in range(3)]
    assert set().union(*regions) == set(range(56)) and sum(map(len, regions)) == 56
