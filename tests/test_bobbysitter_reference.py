"""Scripted tests of the Bobby Sitter reference engine (the test oracle).

Decks are written as short card specs, card id = position in the list:

    "W"   a visible wolf alone          "W2"  a visible wolf with 2 sheep
    "S3"  3 sheep (no wolf)             "E"   empty (no sheep, no wolf)
    "H"   a hidden wolf alone           "H1"  1 sheep with a hidden wolf

Reactions are scripted per flip as {seat: (grab, time_ms)} with the shorthands
B(t) = grab a BOBBY at t ms, S(t) = grab the SHEEP at t ms, N = no reaction.
Unless a test says otherwise the initial shuffle is the identity, so the stack is the
deck in id order, top first.
"""

from __future__ import annotations

import math
import random
import statistics

import pytest

from sheepsim.games.bobbysitter import reference as R
from sheepsim.games.bobbysitter.model import (
    DEFAULT_COUNTS,
    EMPTY,
    GRAB_BOBBY,
    GRAB_SHEEP,
    HIDDEN,
    NONE,
    PROFILES,
    SHEEP,
    WOLF,
    generated_deck,
)

ADULT = PROFILES["adult"]
CHILD = PROFILES["child"]
N = (NONE, 999.0)


def B(t: float) -> tuple[int, float]:
    return (GRAB_BOBBY, float(t))


def S(t: float) -> tuple[int, float]:
    return (GRAB_SHEEP, float(t))


def deck(*specs: str) -> tuple:
    cards = []
    for spec in specs:
        kind, sheep = spec[0], int(spec[1:] or 0)
        assert kind in "WSEH"
        cards.append((sheep, kind == "W", kind == "H"))
    return tuple(cards)


def rules(n: int, specs, **kw) -> R.Rules:
    return R.Rules(num_players=n, deck=deck(*specs), **kw)


class Recording(R.ScriptedChance):
    """A ScriptedChance that also records the cards each shuffle was asked for."""

    def __init__(self, shuffles, reactions):
        super().__init__(shuffles, reactions)
        self.asked_shuffles: list[list[int]] = []

    def shuffle(self, cards):
        self.asked_shuffles.append(list(cards))
        return super().shuffle(cards)


def run(rl: R.Rules, reactions, shuffles=None, order=None):
    """New game (initial order `order`, default identity), then one flip per scripted
    reaction dict. Returns (game, events, chance); every script item must be used."""
    order = list(range(len(rl.deck))) if order is None else order
    chance = Recording([order] + list(shuffles or []), reactions)
    g = R.new_game(rl, chance)
    events = [R.flip(g, chance) for _ in reactions]
    chance.assert_done()
    return g, events, chance


def conserved(g: R.Game) -> bool:
    return g.stock + sum(g.tokens) == g.rules.tokens + g.minted


# ---------------------------------------------------------------------------
# deck, setup, state shape
# ---------------------------------------------------------------------------


def test_default_deck_classes():
    rl = R.Rules(num_players=4)
    assert rl.deck == tuple(generated_deck(DEFAULT_COUNTS)) and len(rl.deck) == 56
    classes = [R._class_of(rl, c) for c in range(56)]
    assert [classes.count(k) for k in (WOLF, SHEEP, EMPTY, HIDDEN)] == [14, 24, 8, 10]
    alt = R.Rules(num_players=4, wolf_with_sheep="sheep")
    classes = [R._class_of(alt, c) for c in range(56)]
    assert [classes.count(k) for k in (WOLF, SHEEP, EMPTY, HIDDEN)] == [10, 28, 8, 10]


def test_initial_setup_shared():
    rl = rules(3, ["W", "S1", "E", "H1", "S2"])
    g, _, chance = run(rl, [], order=[3, 1, 4, 0, 2])
    assert chance.asked_shuffles == [[0, 1, 2, 3, 4]]
    d = R.to_dict(g)
    assert set(d) == {"tokens", "stock", "minted", "active", "bobby_counters", "stacks", "discards", "flipper",
                      "flips", "reshuffles", "winner", "over", "capped", "penalties", "wolf_losses", "sheep_gains"}
    assert d == {
        "tokens": [2, 2, 2], "stock": 19, "minted": 0, "active": [True, True, True], "bobby_counters": 2,
        "stacks": [[3, 1, 4, 0, 2]], "discards": [[]], "flipper": 0, "flips": 0, "reshuffles": 0,
        "winner": -1, "over": False, "capped": False,
        "penalties": [0, 0, 0], "wolf_losses": [0, 0, 0], "sheep_gains": [0, 0, 0],
    }
    assert not R.is_over(g)
    with pytest.raises(ValueError, match="not over"):
        R.result(g)


def test_start_tokens_per_seat_handicap():
    g, _, _ = run(R.Rules(num_players=3, start_tokens=(3, 1, 2)), [])
    assert g.tokens == [3, 1, 2] and g.stock == 25 - 6
    g, _, _ = run(R.Rules(num_players=6, tokens=30, target_tokens=7, start_tokens=[6, 5, 4, 3, 2, 1]), [])
    assert g.tokens == [6, 5, 4, 3, 2, 1] and g.stock == 9 and g.bobby_counters == 5


# ---------------------------------------------------------------------------
# WOLF cards
# ---------------------------------------------------------------------------


def test_wolf_counters_go_in_reaction_order_and_the_slowest_loses():
    g, [e], _ = run(rules(3, ["W"]), [{0: B(500), 1: B(300), 2: B(400)}])
    assert e["flipper"] == 0 and e["card"] == 0 and e["class"] == WOLF and not e["reshuffled"]
    assert e["reactions"] == {0: [GRAB_BOBBY, 500.0], 1: [GRAB_BOBBY, 300.0], 2: [GRAB_BOBBY, 400.0]}
    assert e["bobby_taken"] == [1, 2]
    assert e["losses"] == [1, 0, 0] and e["gains"] == [0, 0, 0]
    assert e["sheep_winner"] == -1 and e["eliminated"] == []
    assert g.tokens == [1, 2, 2] and g.stock == 20
    assert g.wolf_losses == [1, 0, 0] and g.penalties == [0, 0, 0]
    assert g.bobby_counters == 2     # counters go back after the card
    assert g.flipper == 1 and g.flips == 1 and g.discards == [[0]] and g.stacks == [[]]


def test_wolf_with_six_players_five_counters():
    reacts = {s: B(100 + 10 * s) for s in range(6)}
    _, [e], _ = run(rules(6, ["W"]), [reacts])
    assert e["bobby_taken"] == [0, 1, 2, 3, 4] and e["losses"] == [0, 0, 0, 0, 0, 1]


def test_wolf_seat_without_reaction_loses():
    # a seat that does not react holds no BOBBY; the counters it left go to the others
    g, [e], _ = run(rules(3, ["W"]), [{0: N, 1: B(300), 2: B(600)}])
    assert e["bobby_taken"] == [1, 2] and e["losses"] == [1, 0, 0] and g.wolf_losses == [1, 0, 0]


@pytest.mark.parametrize("penalty,max_loss,expected", [
    (1, "one", 1), (1, "unlimited", 2), (0, "one", 1), (0, "unlimited", 1)])
def test_wrong_counter_on_wolf(penalty, max_loss, expected):
    # seat 0 grabs the SHEEP on a wolf: wrong counter AND no BOBBY; the two
    # BOBBY grabbers both get a counter because seat 0 left one free
    rl = rules(3, ["W"], start_tokens=(3, 3, 3), wrong_counter_penalty=penalty, max_loss_per_card=max_loss)
    g, [e], _ = run(rl, [{0: S(100), 1: B(300), 2: B(400)}])
    assert e["bobby_taken"] == [1, 2]
    assert e["losses"] == [expected, 0, 0]
    assert g.tokens == [3 - expected, 3, 3] and g.wolf_losses == [expected, 0, 0]
    assert g.stock == 25 - 9 + expected and conserved(g)


def test_nobody_loses_more_than_held():
    rl = rules(3, ["W"], start_tokens=(1, 2, 2), max_loss_per_card="unlimited")
    g, [e], _ = run(rl, [{0: S(100), 1: B(300), 2: B(400)}])
    assert e["losses"] == [1, 0, 0] and e["eliminated"] == [0]
    assert g.tokens == [0, 2, 2] and g.wolf_losses == [1, 0, 0] and conserved(g)


def test_wolf_with_sheep_option():
    # a visible wolf with sheep is a WOLF card by default ...
    _, [e], _ = run(rules(2, ["W2"]), [{0: S(100), 1: B(200)}])
    assert e["class"] == WOLF and e["losses"] == [1, 0] and e["sheep_winner"] == -1
    # ... and a SHEEP card with wolf_with_sheep="sheep"
    _, [e], _ = run(rules(2, ["W2"], wolf_with_sheep="sheep"), [{0: S(100), 1: B(200)}])
    assert e["class"] == SHEEP and e["sheep_winner"] == 0 and e["gains"] == [1, 0] and e["losses"] == [0, 1]
    # a wolf alone stays a WOLF card under the option
    _, [e], _ = run(rules(2, ["W"], wolf_with_sheep="sheep"), [{0: B(100), 1: B(200)}])
    assert e["class"] == WOLF and e["losses"] == [0, 1]


# ---------------------------------------------------------------------------
# ties
# ---------------------------------------------------------------------------


def test_bobby_tie_goes_clockwise_from_the_flipper():
    # flip 1 (seat 0) is a quiet empty card; flip 2 is flipped by seat 1.
    # seats 0 and 2 tie at 300: seat 2 is 1 step clockwise from the flipper, seat 0 is 2
    _, [_, e], _ = run(rules(3, ["E", "W"]), [{0: N, 1: N, 2: N}, {0: B(300), 1: B(200), 2: B(300)}])
    assert e["flipper"] == 1 and e["bobby_taken"] == [1, 2] and e["losses"] == [1, 0, 0]


def test_bobby_tie_the_flipper_first():
    _, [_, e], _ = run(rules(3, ["E", "W"]), [{0: N, 1: N, 2: N}, {0: B(300), 1: B(300), 2: B(300)}])
    assert e["flipper"] == 1 and e["bobby_taken"] == [1, 2] and e["losses"] == [1, 0, 0]
    _, [_, _, e], _ = run(rules(3, ["E", "E", "W"]), [{0: N, 1: N, 2: N}] * 2 + [{0: B(7), 1: B(7), 2: B(7)}])
    assert e["flipper"] == 2 and e["bobby_taken"] == [2, 0] and e["losses"] == [0, 1, 0]


@pytest.mark.parametrize("flipper,winner", [(0, 1), (1, 1), (2, 3), (3, 3)])
def test_sheep_race_tie_clockwise_from_the_flipper(flipper, winner):
    # seats 1 and 3 tie at 250 for the SHEEP; flipper 0: 1 is closer; flipper 1: itself;
    # flipper 2: 3 is 1 step away, 1 is 3 steps; flipper 3: itself
    quiet = [{s: N for s in range(4)}] * flipper
    _, events, _ = run(rules(4, ["E"] * flipper + ["S1"]), quiet + [{0: S(300), 1: S(250), 2: N, 3: S(250)}])
    e = events[-1]
    assert e["flipper"] == flipper and e["sheep_winner"] == winner
    assert e["gains"] == [1 if s == winner else 0 for s in range(4)]


# ---------------------------------------------------------------------------
# SHEEP cards
# ---------------------------------------------------------------------------


def test_sheep_card_fastest_sheep_grabber_gains():
    g, [e], _ = run(rules(3, ["S2"]), [{0: S(400), 1: S(350), 2: N}])
    assert e["class"] == SHEEP and e["sheep_winner"] == 1
    assert e["gains"] == [0, 1, 0] and e["losses"] == [0, 0, 0]   # losing the race is free
    assert g.tokens == [2, 3, 2] and g.stock == 18 and g.sheep_gains == [0, 1, 0] and g.flipper == 1


def test_sheep_race_loser_penalty_option():
    g, [e], _ = run(rules(3, ["S2"], sheep_race_loser_penalty=1), [{0: S(400), 1: S(350), 2: N}])
    assert e["sheep_winner"] == 1 and e["losses"] == [1, 0, 0] and g.tokens == [1, 3, 2] and g.stock == 19
    assert g.penalties == [0, 0, 0] and g.wolf_losses == [0, 0, 0]   # neither bucket counts sheep-card losses


@pytest.mark.parametrize("penalty", [1, 0])
def test_bobby_on_a_sheep_card_is_a_wrong_counter(penalty):
    g, [e], _ = run(rules(3, ["S1"], wrong_counter_penalty=penalty), [{0: B(100), 1: S(300), 2: N}])
    assert e["sheep_winner"] == 1 and e["bobby_taken"] == []
    assert e["losses"] == [penalty, 0, 0] and e["gains"] == [0, 1, 0]
    assert g.tokens == [2 - penalty, 3, 2] and conserved(g)


def test_sheep_card_nobody_grabs_the_sheep():
    g, [e], _ = run(rules(2, ["S3"], wrong_counter_penalty=0), [{0: B(100), 1: N}])
    assert e["sheep_winner"] == -1 and e["gains"] == [0, 0] and e["losses"] == [0, 0] and g.stock == 21


def test_empty_stock_no_gain():
    # empty_stock=no_gain: 4 tokens in the box, 2 each: the stock is empty from the start
    rl = rules(2, ["S1"], tokens=4)
    g, [e], _ = run(rl, [{0: S(100), 1: N}])
    assert g.stock == 0 and e["sheep_winner"] == 0 and e["gains"] == [0, 0]
    assert g.tokens == [2, 2] and g.sheep_gains == [0, 0] and g.minted == 0


def test_empty_stock_gain_uses_the_stock_before_the_cards_losses():
    # ruling: losses and gains of one card are simultaneous, so the race loser's token
    # (paid into the stock on this same card) cannot pay the winner
    rl = rules(2, ["S1"], tokens=4, sheep_race_loser_penalty=1)
    g, [e], _ = run(rl, [{0: S(100), 1: S(200)}])
    assert e["sheep_winner"] == 0 and e["gains"] == [0, 0] and e["losses"] == [0, 1]
    assert g.tokens == [2, 1] and g.stock == 1 and g.minted == 0 and conserved(g)


def test_empty_stock_unlimited_tokens_mints():
    rl = rules(2, ["S1", "W"], tokens=4, empty_stock="unlimited_tokens")
    g, [e1, e2], _ = run(rl, [{0: S(100), 1: N}, {0: B(100), 1: B(200)}])
    assert e1["gains"] == [1, 0] and e1["sheep_winner"] == 0
    assert e2["losses"] == [0, 1]
    assert g.tokens == [3, 1] and g.minted == 1 and g.stock == 1 and conserved(g)
    assert R.to_dict(g)["minted"] == 1


def test_unlimited_tokens_takes_from_a_non_empty_stock_first():
    rl = rules(2, ["S1"], tokens=5, empty_stock="unlimited_tokens")
    g, _, _ = run(rl, [{0: S(100), 1: N}])
    assert g.tokens == [3, 2] and g.stock == 0 and g.minted == 0


# ---------------------------------------------------------------------------
# no-react cards
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("spec,cls", [("E", EMPTY), ("H", HIDDEN), ("H2", HIDDEN)])
def test_no_react_card_every_reaction_costs_one(spec, cls):
    g, [e], _ = run(rules(3, [spec], max_loss_per_card="unlimited"), [{0: S(100), 1: B(200), 2: N}])
    assert e["class"] == cls and e["losses"] == [1, 1, 0] and e["gains"] == [0, 0, 0]
    assert e["sheep_winner"] == -1 and e["bobby_taken"] == []
    assert g.penalties == [1, 1, 0] and g.wolf_losses == [0, 0, 0] and g.stock == 21


# ---------------------------------------------------------------------------
# elimination, flipper order
# ---------------------------------------------------------------------------


def test_elimination_removes_a_bobby_counter():
    rl = rules(3, ["W", "W"], start_tokens=(1, 2, 2))
    g, [e1, e2], _ = run(rl, [{0: B(500), 1: B(100), 2: B(200)}, {1: B(300), 2: B(200)}])
    assert e1["eliminated"] == [0] and e1["losses"] == [1, 0, 0]
    # eliminated seat 0 is no longer asked; one counter left for two players
    assert set(e2["reactions"]) == {1, 2} and e2["flipper"] == 1
    assert e2["bobby_taken"] == [2] and e2["losses"] == [0, 1, 0]
    assert g.active == [False, True, True] and g.bobby_counters == 1 and g.tokens == [0, 1, 2]
    assert not g.over and g.flipper == 2


def test_eliminated_players_are_skipped_as_flippers():
    quiet = {0: N, 2: N, 3: N}
    g, events, _ = run(rules(4, ["E"] * 6, start_tokens=(2, 1, 2, 2)),
                       [{0: N, 1: B(100), 2: N, 3: N}] + [quiet] * 5)
    assert events[0]["eliminated"] == [1]
    assert [e["flipper"] for e in events] == [0, 2, 3, 0, 2, 3]
    assert g.flipper == 0 and g.bobby_counters == 2


def test_flipper_eliminated_on_its_own_flip():
    # seat 1 flips a hidden wolf and touches a counter with its last token
    g, events, _ = run(rules(3, ["E", "H1", "E"], start_tokens=(2, 1, 2)),
                       [{0: N, 1: N, 2: N}, {0: N, 1: S(100), 2: N}, {0: N, 2: N}])
    assert events[1]["eliminated"] == [1] and events[2]["flipper"] == 2 and g.flipper == 0


# ---------------------------------------------------------------------------
# end conditions
# ---------------------------------------------------------------------------


def test_win_at_target():
    g, _, _ = run(rules(2, ["S1", "E"], start_tokens=(4, 2)), [{0: S(200), 1: S(300)}])
    assert g.over and R.is_over(g) and g.winner == 0 and g.flipper == -1 and not g.capped
    assert R.result(g) == {"winner": 0, "flips": 1, "reshuffles": 0, "capped": False, "tokens": [5, 2],
                           "eliminated": [0, 0], "penalties": [0, 0], "wolf_losses": [0, 0],
                           "sheep_gains": [1, 0]}
    with pytest.raises(ValueError, match="over"):
        R.flip(g, R.ScriptedChance([], []))


def test_target_option():
    g, _, _ = run(rules(2, ["S1", "S1"], target_tokens=7, start_tokens=(5, 6)), [{0: S(100), 1: N}])
    assert not g.over and g.tokens == [6, 6]
    g, _, _ = run(rules(2, ["S1", "S1"], target_tokens=7, start_tokens=(5, 6)),
                  [{0: S(100), 1: N}, {0: S(300), 1: S(200)}])
    assert g.over and g.winner == 1 and g.tokens == [6, 7]


def test_last_standing_wins():
    g, [e], _ = run(rules(2, ["W", "S1"], start_tokens=(1, 2)), [{0: B(400), 1: B(300)}])
    assert e["eliminated"] == [0] and g.over and g.winner == 1 and not g.capped and g.flipper == -1
    assert R.result(g)["eliminated"] == [1, 0] and g.bobby_counters == 0


def test_last_standing_does_not_win_when_option_off():
    rl = rules(2, ["W", "W", "S1"], start_tokens=(1, 2), target_tokens=3, last_standing_wins=False)
    g, [e1, e2, e3], _ = run(rl, [{0: B(400), 1: B(300)}, {1: B(100)}, {1: S(100)}])
    assert e1["eliminated"] == [0] and not e1["losses"][1]
    # alone: seat 1 flips every card; with no BOBBY counter left a wolf always costs 1
    assert e2["flipper"] == 1 and e2["bobby_taken"] == [] and e2["losses"] == [0, 1]
    assert e3["flipper"] == 1 and e3["gains"] == [0, 1]
    assert g.tokens == [0, 2] and not g.over and g.flipper == 1 and g.bobby_counters == 0


def test_last_standing_alone_reaches_target():
    rl = rules(2, ["W", "S1"], start_tokens=(1, 2), target_tokens=3, last_standing_wins=False)
    g, _, _ = run(rl, [{0: B(400), 1: B(300)}, {1: S(100)}])
    assert g.over and g.winner == 1 and not g.capped


def test_last_standing_alone_eliminated_is_a_draw():
    rl = rules(2, ["W", "E"], start_tokens=(1, 1), last_standing_wins=False)
    g, _, _ = run(rl, [{0: B(400), 1: B(300)}, {1: B(100)}])
    assert g.over and g.winner == -1 and not g.capped and g.active == [False, False]


def test_all_eliminated_together_is_a_draw():
    g, [e], _ = run(rules(2, ["E"], start_tokens=(1, 1)), [{0: B(100), 1: S(200)}])
    assert e["eliminated"] == [0, 1] and g.over and g.winner == -1 and not g.capped
    assert g.bobby_counters == 0 and R.result(g)["eliminated"] == [1, 1]
    g, [e], _ = run(rules(3, ["H1"], start_tokens=(1, 1, 1)), [{0: S(1), 1: S(2), 2: B(3)}])
    assert e["eliminated"] == [0, 1, 2] and g.winner == -1 and g.bobby_counters == 0 and conserved(g)


def test_flip_cap_most_tokens_wins():
    rl = rules(3, ["S1", "E"], flip_cap=2)
    g, [e1, _], _ = run(rl, [{0: S(100), 1: N, 2: N}, {0: N, 1: N, 2: N}])
    assert e1["gains"] == [1, 0, 0] and g.tokens == [3, 2, 2]
    assert g.over and g.capped and g.winner == 0 and g.flips == 2 and g.flipper == -1
    assert R.result(g)["capped"] is True


def test_flip_cap_draw_resolution():
    rl = rules(3, ["S1", "E"], flip_cap=2, cap_resolution="draw")
    g, _, _ = run(rl, [{0: S(100), 1: N, 2: N}, {0: N, 1: N, 2: N}])
    assert g.over and g.capped and g.winner == -1


def test_flip_cap_tie_for_most_is_a_draw():
    rl = rules(3, ["S1", "S1"], flip_cap=2)
    g, _, _ = run(rl, [{0: S(100), 1: N, 2: N}, {0: N, 1: S(100), 2: N}])
    assert g.tokens == [3, 3, 2] and g.over and g.capped and g.winner == -1


def test_flip_cap_counts_only_active_seats():
    # seat 0 is out; seats 1 and 2 hold 2 and 1: seat 1 wins at the cap
    rl = rules(3, ["W", "E"], start_tokens=(1, 2, 2), flip_cap=2)
    g, _, _ = run(rl, [{0: B(300), 1: B(100), 2: B(200)}, {1: N, 2: B(100)}])
    assert g.tokens == [0, 2, 1] and g.capped and g.winner == 1


def test_win_on_the_cap_flip_is_not_capped():
    g, _, _ = run(rules(2, ["S1"], start_tokens=(4, 2), flip_cap=1), [{0: S(100), 1: N}])
    assert g.over and g.winner == 0 and not g.capped


# ---------------------------------------------------------------------------
# stacks
# ---------------------------------------------------------------------------


def test_shared_stack_reshuffle():
    rl = rules(2, ["E", "E", "S1"])
    quiet = {0: N, 1: N}
    g, events, chance = run(rl, [quiet] * 4, shuffles=[[1, 2, 0]], order=[2, 0, 1])
    assert [e["card"] for e in events] == [2, 0, 1, 1]
    assert [e["reshuffled"] for e in events] == [False, False, False, True]
    # the reshuffle gets the whole deck in ascending id order, not in discard order
    assert chance.asked_shuffles == [[0, 1, 2], [0, 1, 2]]
    assert g.reshuffles == 1 and g.stacks == [[2, 0]] and g.discards == [[1]] and g.flips == 4


def test_scripted_shuffle_must_be_a_permutation():
    with pytest.raises(AssertionError, match="permutation"):
        R.new_game(rules(2, ["E", "E", "E"]), R.ScriptedChance([[0, 0, 1]], []))
    chance = R.ScriptedChance([[0, 1], [1, 2]], [{0: N, 1: N}] * 3)
    g = R.new_game(rules(2, ["E", "E"]), chance)
    R.flip(g, chance)
    R.flip(g, chance)
    with pytest.raises(AssertionError, match="permutation"):
        R.flip(g, chance)


def test_scripted_reactions_must_fit():
    chance = R.ScriptedChance([[0, 1]], [{0: N}])
    g = R.new_game(rules(2, ["E", "E"]), chance)
    with pytest.raises(AssertionError, match="no scripted reaction for seat 1"):
        R.flip(g, chance)
    chance = R.ScriptedChance([[0, 1]], [{0: N, 1: N, 2: N}])
    g = R.new_game(rules(2, ["E", "E"]), chance)
    R.flip(g, chance)
    with pytest.raises(AssertionError, match="scripted for seats"):
        chance.assert_done()


def test_per_player_deal_round_robin():
    rl = rules(3, ["E"] * 7, stack_mode="per_player")
    g, _, _ = run(rl, [], order=[6, 5, 4, 3, 2, 1, 0])
    assert g.stacks == [[6, 3, 0], [5, 2], [4, 1]] and g.discards == [[], [], []]
    quiet = {0: N, 1: N, 2: N}
    g, events, _ = run(rl, [quiet] * 4, order=[6, 5, 4, 3, 2, 1, 0])
    assert [(e["flipper"], e["card"]) for e in events] == [(0, 6), (1, 5), (2, 4), (0, 3)]
    assert g.stacks == [[0], [2], [1]] and g.discards == [[6, 3], [5], [4]]
    assert R.to_dict(g)["stacks"] == [[0], [2], [1]]


def test_per_player_reshuffles_own_discard():
    rl = rules(2, ["E", "E", "E"], stack_mode="per_player")
    quiet = {0: N, 1: N}
    g, events, chance = run(rl, [quiet] * 5, order=[2, 1, 0], shuffles=[[1], [0, 2]])
    # seat 0 holds [2, 0], seat 1 holds [1]
    assert [(e["flipper"], e["card"], e["reshuffled"]) for e in events] == [
        (0, 2, False), (1, 1, False), (0, 0, False), (1, 1, True), (0, 0, True)]
    assert chance.asked_shuffles == [[0, 1, 2], [1], [0, 2]]
    assert g.reshuffles == 2 and g.stacks == [[2], []] and g.discards == [[0], [1]]


def test_per_player_eliminated_cards_leave_play():
    rl = rules(3, ["E"] * 9, stack_mode="per_player", start_tokens=(2, 1, 2))
    quiet = {0: N, 2: N}
    g, events, _ = run(rl, [{0: N, 1: N, 2: N}, {0: N, 1: B(50), 2: N}] + [quiet] * 4)
    # deal: seat 0 [0, 3, 6], seat 1 [1, 4, 7], seat 2 [2, 5, 8]; seat 1 is out after its first flip
    assert events[1]["eliminated"] == [1]
    assert [e["flipper"] for e in events] == [0, 1, 2, 0, 2, 0]
    assert [e["card"] for e in events] == [0, 1, 2, 3, 5, 6]
    assert g.stacks == [[], [4, 7], [8]] and g.discards == [[0, 3, 6], [1], [2, 5]]


# ---------------------------------------------------------------------------
# the player model (RandomChance)
# ---------------------------------------------------------------------------


class StubRng:
    """Returns scripted uniforms and normals and logs every call."""

    def __init__(self, uniforms, normals):
        self.uniforms, self.normals, self.calls = list(uniforms), list(normals), []

    def random(self):
        self.calls.append("random")
        return self.uniforms.pop(0)

    def gauss(self, mu, sigma):
        self.calls.append(("gauss", mu, sigma))
        return self.normals.pop(0)

    def shuffle(self, x):
        self.calls.append("shuffle")


MODEL_DECK = ["W", "S1", "E", "H1", "H", "W2"]   # ids 0..5


@pytest.mark.parametrize("card,u_react,u_wrong,grab", [
    (0, 0.0, 0.49, GRAB_SHEEP), (0, 0.0, 0.50, GRAB_BOBBY),       # wolf: wrong counter iff u_wrong < p
    (5, 0.0, 0.49, GRAB_SHEEP), (5, 0.0, 0.60, GRAB_BOBBY),       # wolf with sheep
    (1, 0.0, 0.49, GRAB_BOBBY), (1, 0.99, 0.50, GRAB_SHEEP),      # sheep
    (2, 0.19, 0.0, GRAB_BOBBY), (2, 0.20, 0.0, NONE),             # empty: p_false_empty = 0.2
    (3, 0.59, 0.0, GRAB_SHEEP), (3, 0.60, 0.0, NONE),             # hidden + sheep: p_false_hidden = 0.6
    (4, 0.59, 0.0, GRAB_BOBBY), (4, 0.60, 0.9, NONE),             # hidden alone
])
def test_random_chance_grabs(card, u_react, u_wrong, grab):
    rl = rules(2, MODEL_DECK)
    rng = StubRng([u_react, u_wrong], [0.0])
    chance = R.RandomChance(rng, [(400.0, 0.3, 0.2, 0.6, 0.5)] * 2, rl)
    assert chance.react(1, card, R._class_of(rl, card), False) == (grab, 400.0)
    # always all three draws, in this order, whatever the card
    assert rng.calls == ["random", "random", ("gauss", 0, 1)]


def test_random_chance_time_and_flipper_bonus():
    rl = rules(2, MODEL_DECK, flipper_reaction_bonus_ms=100.0)
    chance = R.RandomChance(StubRng([0.5] * 6, [0.5, 0.5, -1.0]), [ADULT, ADULT], rl)
    t = 450.0 * math.exp(0.25 * 0.5)
    assert chance.react(0, 0, WOLF, True) == (GRAB_BOBBY, pytest.approx(t - 100.0))
    assert chance.react(1, 0, WOLF, False) == (GRAB_BOBBY, pytest.approx(t))
    assert chance.react(1, 0, WOLF, False)[1] == pytest.approx(450.0 * math.exp(-0.25))
    # never below 0
    rl = rules(2, MODEL_DECK, flipper_reaction_bonus_ms=5000.0)
    chance = R.RandomChance(StubRng([0.5] * 2, [0.0]), [ADULT, ADULT], rl)
    assert chance.react(0, 1, SHEEP, True) == (GRAB_SHEEP, 0.0)


@pytest.mark.parametrize("bonus,winner", [(0.0, 1), (100.0, 0)])
def test_flipper_bonus_decides_the_sheep_race(bonus, winner):
    # seat 0 (flipper) 500 ms, seat 1 450 ms; a 100 ms bonus makes the flipper faster
    rl = rules(2, ["S1"], flipper_reaction_bonus_ms=bonus)
    chance = R.RandomChance(StubRng([0.5] * 4, [0.0, 0.0]), [(500.0, 0.2, 0, 0, 0), (450.0, 0.2, 0, 0, 0)], rl)
    g = R.Game(rules=rl, tokens=[2, 2], stock=21, active=[True, True], bobby_counters=1,
               stacks=[[0]], discards=[[]], penalties=[0, 0], wolf_losses=[0, 0], sheep_gains=[0, 0])
    e = R.flip(g, chance)
    assert e["reactions"][0] == [GRAB_SHEEP, 500.0 - bonus] and e["sheep_winner"] == winner


def test_random_chance_draws_per_active_seat_in_seat_order():
    rl = rules(3, ["E", "E"], start_tokens=(2, 1, 2))
    rng = StubRng([0.9, 0.9, 0.0, 0.9, 0.9, 0.9] + [0.9, 0.9] * 2, [0.0] * 5)
    chance = R.RandomChance(rng, [ADULT] * 3, rl)
    g = R.Game(rules=rl, tokens=[2, 1, 2], stock=20, active=[True, True, True], bobby_counters=2,
               stacks=[[0, 1]], discards=[[]], penalties=[0] * 3, wolf_losses=[0] * 3, sheep_gains=[0] * 3)
    e = R.flip(g, chance)      # seat 1 (u_react 0.0) touches a counter on the empty card
    assert e["eliminated"] == [1] and e["reactions"][1][0] == GRAB_BOBBY
    R.flip(g, chance)          # only seats 0 and 2 draw now
    assert rng.calls.count("random") == 10 and not rng.uniforms and not rng.normals


def test_random_chance_statistics():
    rl = R.Rules(num_players=2)
    rng = random.Random(20240601)
    n = 20000
    for name, (median, spread, p_empty, p_hidden, p_wrong) in (("adult", ADULT), ("young_child", PROFILES["young_child"])):
        chance = R.RandomChance(rng, [PROFILES[name]] * 2, rl)
        times, wrong, false_empty, false_hidden = [], 0, 0, 0
        for _ in range(n):
            g, t = chance.react(0, 0, WOLF, False)
            times.append(t)
            wrong += g == GRAB_SHEEP
            wrong += chance.react(0, 20, SHEEP, False)[0] == GRAB_BOBBY
            false_empty += chance.react(0, 50, EMPTY, False)[0] != NONE
            false_hidden += chance.react(0, 40, HIDDEN, False)[0] != NONE
        assert statistics.median(times) == pytest.approx(median, rel=0.01)
        assert statistics.stdev(math.log(t) for t in times) == pytest.approx(spread, rel=0.03)
        # tolerances are about 4 standard errors
        assert abs(wrong / (2 * n) - p_wrong) < 4 * math.sqrt(p_wrong * (1 - p_wrong) / (2 * n))
        assert abs(false_empty / n - p_empty) < 4 * math.sqrt(p_empty * (1 - p_empty) / n)
        assert abs(false_hidden / n - p_hidden) < 4 * math.sqrt(p_hidden * (1 - p_hidden) / n)


def test_random_chance_bound_by_new_game_and_checks_profiles():
    rl = R.Rules(num_players=3)
    chance = R.RandomChance(random.Random(1), [ADULT] * 3)
    g = R.new_game(rl, chance)
    assert chance.rules is rl
    R.flip(g, chance)
    with pytest.raises(ValueError, match="profiles"):
        R.new_game(rl, R.RandomChance(random.Random(1), [ADULT] * 2))
    with pytest.raises(ValueError, match="profile 0"):
        R.RandomChance(random.Random(1), [(450.0, 0.25, 1.5, 0.1, 0.1)])


# ---------------------------------------------------------------------------
# whole games
# ---------------------------------------------------------------------------


def random_rules(rng: random.Random) -> R.Rules:
    n = rng.randint(2, 6)
    target = rng.choice([3, 5, 5, 6, 8])
    starts = tuple(rng.randint(1, target - 1) for _ in range(n)) if rng.random() < 0.5 else ()
    if not starts and target <= 2:
        starts = (1,) * n
    need = sum(starts) if starts else 2 * n
    tokens = rng.choice([max(25, need), max(25, need), need, need + 1, need + 3])
    if rng.random() < 0.3:
        cards = [(rng.randint(0, 3), *rng.choice([(True, False), (False, True), (False, False)]))
                 for _ in range(rng.randint(n, 12))]
    else:
        cards = generated_deck(DEFAULT_COUNTS)
    return R.Rules(
        num_players=n, deck=tuple(cards), tokens=tokens, start_tokens=starts, target_tokens=target,
        stack_mode=rng.choice(["shared", "per_player"]), wolf_with_sheep=rng.choice(["wolf", "sheep"]),
        wrong_counter_penalty=rng.choice([0, 1]), max_loss_per_card=rng.choice(["one", "unlimited"]),
        sheep_race_loser_penalty=rng.choice([0, 1]), last_standing_wins=rng.random() < 0.7,
        empty_stock=rng.choice(["no_gain", "unlimited_tokens"]), flip_cap=rng.choice([8, 40, 300, 2000]),
        cap_resolution=rng.choice(["most_tokens", "draw"]), flipper_reaction_bonus_ms=rng.choice([0.0, 60.0]),
    )


def check_state(g: R.Game, d: dict, n_cards: int) -> None:
    rl = g.rules
    assert d["stock"] >= 0 and all(t >= 0 for t in d["tokens"])
    assert d["stock"] + sum(d["tokens"]) == rl.tokens + d["minted"]
    every = [c for s in d["stacks"] for c in s] + [c for s in d["discards"] for c in s]
    assert sorted(every) == list(range(n_cards))
    out = d["active"].count(False)
    assert d["bobby_counters"] == max(0, rl.num_players - 1 - out)
    assert all(a == (t > 0) for a, t in zip(d["active"], d["tokens"]))
    assert len(d["stacks"]) == (1 if rl.stack_mode == "shared" else rl.num_players)
    if d["over"]:
        assert d["flipper"] == -1
    else:
        assert d["active"][d["flipper"]] and d["flips"] < rl.flip_cap
        assert all(t < rl.target_tokens for t in d["tokens"])


def test_invariants_over_random_games():
    meta = random.Random(7)
    endings = {"target": 0, "last": 0, "draw": 0, "capped": 0}
    for i in range(500):
        rl = random_rules(meta)
        profiles = [meta.choice([ADULT, CHILD, PROFILES["young_child"], (400.0, 0.4, 0.3, 0.4, 0.2)])
                    for _ in range(rl.num_players)]
        chance = R.RandomChance(random.Random(i), profiles, rl)
        g = R.new_game(rl, chance)
        d = R.to_dict(g)
        check_state(g, d, len(rl.deck))
        while not R.is_over(g):
            before = d
            e = R.flip(g, chance)
            d = R.to_dict(g)
            check_state(g, d, len(rl.deck))
            assert d["flips"] == before["flips"] + 1
            assert sorted(e["reactions"]) == [s for s in range(rl.num_players) if before["active"][s]]
            assert e["flipper"] == before["flipper"]
            lost = [b - a + gn for a, b, gn in zip(d["tokens"], before["tokens"], e["gains"])]
            assert lost == e["losses"] and all(0 <= x <= 2 for x in lost)
            if rl.max_loss_per_card == "one":
                assert max(lost) <= 1
            assert sum(e["gains"]) <= 1
            assert e["eliminated"] == [s for s in range(rl.num_players) if before["active"][s] and not d["active"][s]]
            assert len(e["bobby_taken"]) <= before["bobby_counters"]
            if rl.stack_mode == "per_player":
                for s in range(rl.num_players):
                    if not before["active"][s]:
                        assert d["stacks"][s] == before["stacks"][s] and d["discards"][s] == before["discards"][s]
        res = R.result(g)
        alive = [s for s in range(rl.num_players) if g.active[s]]
        assert res["eliminated"] == [0 if a else 1 for a in g.active] and res["flips"] == g.flips
        assert sum(res["sheep_gains"]) - sum(res["penalties"]) - sum(res["wolf_losses"]) >= \
            sum(g.tokens) - sum(R.start_tokens_of(rl))
        if res["capped"]:
            endings["capped"] += 1
            assert g.flips == rl.flip_cap
            best = max(g.tokens[s] for s in alive)
            leaders = [s for s in alive if g.tokens[s] == best]
            expect = leaders[0] if rl.cap_resolution == "most_tokens" and len(leaders) == 1 else -1
            assert res["winner"] == expect
        elif res["winner"] == -1:
            endings["draw"] += 1
            assert alive == []
        elif g.tokens[res["winner"]] >= rl.target_tokens:
            endings["target"] += 1
        else:
            endings["last"] += 1
            assert alive == [res["winner"]] and rl.last_standing_wins
    assert all(k >= 10 for k in endings.values()), endings   # every way to end occurs


def test_same_seed_same_game():
    rl = R.Rules(num_players=4, stack_mode="per_player")
    profiles = [ADULT, CHILD, ADULT, PROFILES["young_child"]]
    a, b = R.play(rl, profiles, random.Random(99)), R.play(rl, profiles, random.Random(99))
    assert R.to_dict(a) == R.to_dict(b) and R.result(a) == R.result(b)
    c = R.play(rl, profiles, random.Random(100))
    assert R.to_dict(a) != R.to_dict(c)


def test_play_random_game_default_rules():
    for n in range(2, 7):
        g = R.play_random_game(R.Rules(num_players=n), random.Random(n))
        res = R.result(g)
        assert g.over and set(res) == {"winner", "flips", "reshuffles", "capped", "tokens", "eliminated",
                                       "penalties", "wolf_losses", "sheep_gains"}
        # target 5 and 2 each: the stock is never empty (at most 6 players x 4 tokens < 25)
        assert g.minted == 0 and conserved(g)


# ---------------------------------------------------------------------------
# rules validation
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("kw,msg", [
    ({"num_players": 1}, "num_players"),
    ({"num_players": 7}, "num_players"),
    ({"num_players": True}, "num_players"),
    ({"num_players": 2, "deck": ()}, "1..1000 cards"),
    ({"num_players": 2, "deck": ((1, False, False),) * 1001}, "1..1000 cards"),
    ({"num_players": 2, "deck": ((1, True, True),)}, "both a visible and a hidden wolf"),
    ({"num_players": 2, "deck": ((4, False, False),)}, "sheep must be 0..3"),
    ({"num_players": 2, "deck": ((-1, False, False),)}, "sheep must be 0..3"),
    ({"num_players": 2, "deck": ((1, False),)}, "expected"),
    ({"num_players": 2, "deck": ((1, 2, False),)}, "wolf must be"),
    ({"num_players": 2, "tokens": 0}, "tokens must be"),
    ({"num_players": 2, "start_tokens": (0, 2)}, "seat 0 must be >= 1"),
    ({"num_players": 2, "start_tokens": (2, 5)}, "seat 1 .* below target_tokens"),
    ({"num_players": 2, "start_tokens": (2, 2, 2)}, "one value per seat"),
    ({"num_players": 2, "start_tokens": (2,)}, "one value per seat"),
    ({"num_players": 2, "target_tokens": 2}, "below target_tokens"),
    ({"num_players": 2, "target_tokens": 1, "start_tokens": (1, 1)}, "target_tokens must be"),
    ({"num_players": 3, "tokens": 5}, "more than the 5 tokens"),
    ({"num_players": 2, "tokens": 20, "target_tokens": 12, "start_tokens": (11, 10)}, "more than the 20"),
    ({"num_players": 3, "stack_mode": "per_player", "deck": ((1, False, False),) * 2}, "at least 3 cards"),
    ({"num_players": 2, "stack_mode": "private"}, "stack_mode"),
    ({"num_players": 2, "wolf_with_sheep": "bobby"}, "wolf_with_sheep"),
    ({"num_players": 2, "wrong_counter_penalty": 2}, "wrong_counter_penalty"),
    ({"num_players": 2, "max_loss_per_card": 1}, "max_loss_per_card"),
    ({"num_players": 2, "sheep_race_loser_penalty": -1}, "sheep_race_loser_penalty"),
    ({"num_players": 2, "last_standing_wins": 1}, "last_standing_wins"),
    ({"num_players": 2, "empty_stock": "borrow"}, "empty_stock"),
    ({"num_players": 2, "flip_cap": 0}, "flip_cap"),
    ({"num_players": 2, "cap_resolution": "coin"}, "cap_resolution"),
    ({"num_players": 2, "flipper_reaction_bonus_ms": -1.0}, "flipper_reaction_bonus_ms"),
    ({"num_players": 2, "flipper_reaction_bonus_ms": float("inf")}, "flipper_reaction_bonus_ms"),
])
def test_bad_rules(kw, msg):
    with pytest.raises(ValueError, match=msg):
        R.Rules(**kw)


def test_good_edge_rules():
    R.Rules(num_players=6)                                              # 5 BOBBY counters, 13 in the stock
    R.Rules(num_players=2, tokens=4)                                    # empty stock allowed
    R.Rules(num_players=2, stack_mode="per_player", deck=((0, False, False),) * 2)
    R.Rules(num_players=2, deck=[[1, 1, 0], (0, False, True)])          # lists and 0/1 accepted
    assert R.Rules(num_players=2, deck=[[1, 1, 0]]).deck == ((1, True, False),)
    assert R.Rules(num_players=2, start_tokens=[1, 4]).start_tokens == (1, 4)
