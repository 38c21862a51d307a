"""Scripted tests of the Bye-Bye Black Sheep reference engine (the test oracle).

Every rule is checked on a small hand-built position (``new_game``) with the exact
``to_dict`` fields expected afterwards. Hands are written as lists of card kinds and
turned into count vectors by ``cards``; ``a(s)`` is the kind of an animal of species s.

A decision with a chance event is written ``(decision, chance)`` in ``play``:
``((DRAW_FROM, 1, 0), a(3))`` draws blindly from seat 1 and the card turns out to be
an animal of species 3.

Hand-built positions need not be reachable from a deal (e.g. small hands, a custom
hand limit); the reference engine does not require that.
"""

from __future__ import annotations

import copy
import json
import random

import pytest

from sheepsim.games.blacksheep import reference as R
from sheepsim.games.blacksheep.model import (
    BLACK,
    DRAW,
    DRAW_FROM,
    EAGLE,
    EAGLE_ASK,
    EAGLE_ASK_PHASE,
    EAGLE_SKIP,
    JOKER,
    MAGPIE,
    MAGPIE_NONE,
    MAGPIE_PHASE,
    MAGPIE_TAKE,
    MOLE,
    MOLE_NONE,
    MOLE_PHASE,
    MOLE_TAKE,
    MOTHER,
    MOTHER_PHASE,
    MOTHER_SKIP,
    MOTHER_TAKE,
    NKINDS,
    OVER,
    PLACE,
    PLACE_DONE,
    PLACE_PHASE,
    SETUP,
    STOP,
    WHITE,
    WHITE_NONE,
    WHITE_PHASE,
    WHITE_PLACE,
    WOLF,
)
from sheepsim.games.blacksheep.model import animal as a

# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------


def cards(*kinds) -> list[int]:
    """Count vector of a multiset of card kinds."""
    v = [0] * NKINDS
    for k in kinds:
        v[k] += 1
    return v


def empty() -> list[int]:
    return [0] * NKINDS


def make(rules, hands, pile=(), zoos=None, **kw):
    """new_game from hands/zoos given as lists of kinds."""
    return R.new_game(rules, [cards(*h) for h in hands], list(pile),
                      zoos=None if zoos is None else [cards(*z) for z in zoos], **kw)


def play(g, *steps):
    """Apply decisions in order; a step is a decision or (decision, chance)."""
    for st in steps:
        if isinstance(st[0], tuple):
            g = R.apply(g, st[0], st[1])
        else:
            g = R.apply(g, st)
    return g


def check(g, **expected):
    """Assert the given to_dict fields; hands/zoos/set_aside may be lists of kinds."""
    d = R.to_dict(g)
    for key, want in expected.items():
        if key in ("hands", "zoos", "set_aside"):
            want = [cards(*x) for x in want]
        assert d[key] == want, f"{key}: {d[key]} != {want}"


def draw(opp, kind):
    return ((DRAW_FROM, opp, 0), kind)


D_STOP = (STOP, 0, 0)
D_DONE = (PLACE_DONE, 0, 0)


def place(kind, s=None):
    return (PLACE, kind, s if s is not None else kind - a(1) + 1)


# ---------------------------------------------------------------------------
# setup
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 4, 5])
@pytest.mark.parametrize("setup", ["into_animal_deck", "into_draw_pile"])
@pytest.mark.parametrize("optional", [False, True])
def test_deal(n, setup, optional):
    rules = R.Rules(num_players=n, wolf=optional, white_sheep=optional, mother_sheep=optional,
                    joker=optional, optional_card_setup=setup)
    g = R.deal(rules, random.Random(n))
    S = SETUP[n]
    d = R.to_dict(g)
    assert R.card_census(g) == R.full_deck(rules)
    assert d["phase"] == DRAW and d["actor"] == 0 and d["active"] == 0 and d["turn"] == 0
    assert d["magpie_in_play"] is False and d["table"] == [] and d["winner"] == -1
    assert S["dealt"] + 2 == S["hand_limit"]
    for h in d["hands"]:
        assert sum(h) == S["dealt"] + 2
        assert h[BLACK] == 1 and h[EAGLE] + h[MOLE] == 1 and h[MAGPIE] == 0
    assert sum(d["hands"][p][EAGLE] for p in range(n)) == S["eagles"]
    n_opt = 4 if optional else 0
    assert len(d["pile"]) == S["species"] * 4 + n_opt - n * S["dealt"]
    if setup == "into_draw_pile":
        assert all(h[k] == 0 for h in d["hands"] for k in (WOLF, WHITE, MOTHER, JOKER))


def test_rules_validation():
    with pytest.raises(ValueError):
        R.Rules(num_players=6)
    with pytest.raises(ValueError):
        R.Rules(num_players=2, refill="some")
    with pytest.raises(ValueError):
        R.Rules(num_players=2, zoo_max_per_species=2)
    with pytest.raises(ValueError):           # optional card not enabled
        make(R.Rules(num_players=2), [[BLACK, WOLF], [BLACK]])
    with pytest.raises(ValueError):           # species 13 not used with 2 players
        make(R.Rules(num_players=2), [[BLACK, a(13)], [BLACK]])


# ---------------------------------------------------------------------------
# Black Sheep, stop and the N - 2 limit
# ---------------------------------------------------------------------------


def test_black_sheep_returns_and_ends_turn_without_placement():
    rules = R.Rules(num_players=2, hand_limit=4)
    g = make(rules, [[BLACK, a(1), a(2)], [BLACK, a(3), a(4), a(5)]], [a(6), a(7), a(8)])
    g = play(g, draw(1, a(3)))
    check(g, phase=DRAW, actor=0, table=[a(3)], draws=1, hands=[[BLACK, a(1), a(2)], [BLACK, a(4), a(5)]])
    g = play(g, draw(1, BLACK))
    # Black Sheep back to seat 1, the table (a3) to seat 0, no placement; seat 1 refills.
    assert R.to_dict(g) == {
        "phase": DRAW, "actor": 1, "active": 1, "turn": 1,
        "hands": [cards(BLACK, a(1), a(2), a(3)), cards(BLACK, a(4), a(5), a(6))],
        "zoos": [empty(), empty()], "joker_species": [0, 0], "table": [], "pile": [a(7), a(8)],
        "set_aside": [empty(), empty()], "magpie_in_play": False, "draws": 0, "limit": 0,
        "placed": 0, "source": -1, "winner": -1, "capped": False}


def test_stop_before_any_draw_allows_no_placement():
    rules = R.Rules(num_players=2)
    g = make(rules, [[BLACK, a(1)], [BLACK, a(2)]])
    assert R.legal_decisions(g) == [D_STOP, (DRAW_FROM, 1, 0)]
    g = play(g, D_STOP)
    check(g, phase=PLACE_PHASE, actor=0, limit=0, placed=0, draws=0, table=[])
    assert R.legal_decisions(g) == [D_DONE]


def test_stop_limit_table_cards_and_placement_from_whole_hand():
    rules = R.Rules(num_players=2, hand_limit=5)
    g = make(rules, [[BLACK, a(1)], [BLACK, a(2), a(2), a(3), a(4)]], [a(9)] * 5)
    g = play(g, draw(1, a(2)), draw(1, a(2)), draw(1, a(3)), D_STOP)
    check(g, phase=PLACE_PHASE, actor=0, limit=1, placed=0, draws=3, table=[],
          hands=[[BLACK, a(1), a(2), a(2), a(3)], [BLACK, a(4)]])
    assert R.legal_decisions(g) == [D_DONE, place(a(1)), place(a(2)), place(a(3))]
    g = play(g, place(a(1)))              # a card not drawn this turn may go to the zoo
    check(g, phase=PLACE_PHASE, placed=1, limit=1, zoos=[[a(1)], []],
          hands=[[BLACK, a(2), a(2), a(3)], [BLACK, a(4)]])
    assert R.legal_decisions(g) == [D_DONE]
    g = play(g, D_DONE)
    check(g, phase=DRAW, active=1, actor=1, turn=1, limit=0, placed=0, draws=0,
          hands=[[BLACK, a(2), a(2), a(3)], [BLACK, a(4), a(9), a(9), a(9)]], pile=[a(9)] * 2)


@pytest.mark.parametrize("basis,limit", [("table_cards", 2), ("blind_draws", 1)])
def test_limit_basis_with_eagle_card(basis, limit):
    # 3 blind draws (Eagle, a3, a4) + the Eagle's card a2 = 4 table cards.
    rules = R.Rules(num_players=2, zoo_limit_basis=basis)
    g = make(rules, [[BLACK, a(1)], [BLACK, EAGLE, a(2), a(3), a(4)]])
    g = play(g, draw(1, EAGLE), (EAGLE_ASK, 1, 2), draw(1, a(3)), draw(1, a(4)))
    check(g, table=[EAGLE, a(2), a(3), a(4)], draws=3)
    g = play(g, D_STOP)
    check(g, phase=PLACE_PHASE, limit=limit, hands=[[BLACK, a(1), EAGLE, a(2), a(3), a(4)], [BLACK]])


def test_special_cards_are_never_placed():
    rules = R.Rules(num_players=2)
    g = make(rules, [[BLACK, EAGLE, MOLE], [BLACK, a(1), a(2), a(3)]])
    g = play(g, draw(1, a(1)), draw(1, a(2)), draw(1, a(3)), D_STOP)
    assert R.legal_decisions(g) == [D_DONE, place(a(1)), place(a(2)), place(a(3))]


# ---------------------------------------------------------------------------
# Eagle
# ---------------------------------------------------------------------------


def test_eagle_success_asking_another_opponent():
    rules = R.Rules(num_players=3)
    g = make(rules, [[BLACK], [BLACK, EAGLE, a(1)], [BLACK, a(5), a(5)]])
    g = play(g, draw(1, EAGLE))
    check(g, phase=EAGLE_ASK_PHASE, actor=0, source=1, table=[EAGLE], draws=1)
    legal = R.legal_decisions(g)
    assert legal[0] == (EAGLE_SKIP, 0, 0)
    assert legal[1:] == [(EAGLE_ASK, o, s) for o in (1, 2) for s in range(1, 13)]
    g = play(g, (EAGLE_ASK, 2, 5))
    check(g, phase=DRAW, actor=0, source=-1, table=[EAGLE, a(5)], draws=1,
          hands=[[BLACK], [BLACK, a(1)], [BLACK, a(5)]])


def test_eagle_failure_then_placement():
    rules = R.Rules(num_players=2)
    g = make(rules, [[BLACK, a(1), a(5)], [BLACK, EAGLE, a(2), a(3), a(4)]], [a(8)] * 10)
    g = play(g, draw(1, a(2)), draw(1, a(3)), draw(1, EAGLE), (EAGLE_ASK, 1, 7))
    # Seat 1 has no species 7: like a stop, 3 table cards -> limit 1.
    check(g, phase=PLACE_PHASE, actor=0, source=-1, limit=1, placed=0, draws=3, table=[],
          hands=[[BLACK, a(1), a(5), a(2), a(3), EAGLE], [BLACK, a(4)]])
    g = play(g, place(a(5)), D_DONE)
    check(g, phase=DRAW, active=1, turn=1, zoos=[[a(5)], []],
          hands=[[BLACK, a(1), a(2), a(3), EAGLE], [BLACK, a(4)] + [a(8)] * 6])


def test_eagle_skip():
    rules = R.Rules(num_players=2)
    g = make(rules, [[BLACK], [BLACK, EAGLE, a(2)]])
    g = play(g, draw(1, EAGLE), (EAGLE_SKIP, 0, 0))
    check(g, phase=DRAW, actor=0, source=-1, table=[EAGLE], draws=1, hands=[[BLACK], [BLACK, a(2)]])


@pytest.mark.parametrize("accepts", [False, True])
def test_eagle_and_joker_option(accepts):
    rules = R.Rules(num_players=2, joker=True, eagle_accepts_joker=accepts)
    g = make(rules, [[BLACK], [BLACK, EAGLE, JOKER, a(2)]])
    g = play(g, draw(1, EAGLE))
    # A real card of the species is always handed over first.
    g2 = play(g, (EAGLE_ASK, 1, 2))
    check(g2, phase=DRAW, table=[EAGLE, a(2)], hands=[[BLACK], [BLACK, JOKER]])
    g = play(g, (EAGLE_ASK, 1, 5))
    if accepts:
        check(g, phase=DRAW, table=[EAGLE, JOKER], hands=[[BLACK], [BLACK, a(2)]])
    else:
        check(g, phase=PLACE_PHASE, limit=0, table=[], hands=[[BLACK, EAGLE], [BLACK, JOKER, a(2)]])


# ---------------------------------------------------------------------------
# Mole
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("joker_ok", [True, False])
def test_mole_take_and_none(joker_ok):
    rules = R.Rules(num_players=2, joker=True, mole_can_take_joker=joker_ok)
    g = make(rules, [[BLACK], [BLACK, MOLE, EAGLE, JOKER, a(2), a(3), a(3)]])
    g = play(g, draw(1, MOLE))
    check(g, phase=MOLE_PHASE, actor=0, source=1, table=[MOLE])
    expected = [(MOLE_NONE, 0, 0)] + ([(MOLE_TAKE, JOKER, 0)] if joker_ok else []) + \
        [(MOLE_TAKE, a(2), 0), (MOLE_TAKE, a(3), 0)]
    assert R.legal_decisions(g) == expected
    g1 = play(g, (MOLE_TAKE, a(3), 0))
    check(g1, phase=DRAW, actor=0, source=-1, table=[MOLE, a(3)], draws=1,
          hands=[[BLACK], [BLACK, EAGLE, JOKER, a(2), a(3)]])
    g2 = play(g, (MOLE_NONE, 0, 0))
    check(g2, phase=DRAW, source=-1, table=[MOLE], hands=[[BLACK], [BLACK, EAGLE, JOKER, a(2), a(3), a(3)]])
    if joker_ok:
        g3 = play(g, (MOLE_TAKE, JOKER, 0))
        check(g3, table=[MOLE, JOKER])


def test_mole_on_hand_without_animals():
    rules = R.Rules(num_players=2)
    g = play(make(rules, [[BLACK], [BLACK, MOLE, EAGLE]]), draw(1, MOLE))
    assert R.legal_decisions(g) == [(MOLE_NONE, 0, 0)]


# ---------------------------------------------------------------------------
# Magpie entry and Magpie take
# ---------------------------------------------------------------------------


def _three_draws_then_stop(rules, seat0_hand, zoos, pile=(), **kw):
    """Seat 0 draws 3 animals (12, 11, 10) from seat 1 and stops: limit 1."""
    g = make(rules, [seat0_hand, [BLACK, a(10), a(11), a(12)]], pile, zoos=zoos, **kw)
    return play(g, draw(1, a(12)), draw(1, a(11)), draw(1, a(10)), D_STOP)


def test_magpie_entry_third_distinct_species_into_hand():
    rules = R.Rules(num_players=2)
    g = _three_draws_then_stop(rules, [BLACK, a(1), a(3)], zoos=[[a(1), a(2)], []])
    check(g, magpie_in_play=False, limit=1)
    g_same = play(g, place(a(1)))        # species already in the zoo: no entry
    check(g_same, magpie_in_play=False, hands=[[BLACK, a(3), a(10), a(11), a(12)], [BLACK]])
    g = play(g, place(a(3)))             # 3rd distinct species: the Magpie enters
    check(g, magpie_in_play=True, zoos=[[a(1), a(2), a(3)], []],
          hands=[[BLACK, a(1), MAGPIE, a(10), a(11), a(12)], [BLACK]])
    assert R.card_census(g) == R.card_census(g_same)


def test_magpie_entry_species_in_another_zoo():
    rules = R.Rules(num_players=2)
    g = _three_draws_then_stop(rules, [BLACK, a(4), a(5)], zoos=[[], [a(4)]])
    g_no = play(g, place(a(5)))
    check(g_no, magpie_in_play=False)
    g = play(g, place(a(4)))
    check(g, magpie_in_play=True, zoos=[[a(4)], [a(4)]],
          hands=[[BLACK, a(5), MAGPIE, a(10), a(11), a(12)], [BLACK]])


def test_magpie_entry_not_by_joker_and_only_once():
    rules = R.Rules(num_players=2, joker=True)
    g = _three_draws_then_stop(rules, [BLACK, JOKER, a(4)], zoos=[[a(1), a(2)], [a(4)]])
    g1 = play(g, place(JOKER, 4))       # Joker: never triggers (neither condition)
    check(g1, magpie_in_play=False, zoos=[[a(1), a(2), JOKER], [a(4)]], joker_species=[4, 0])
    # A Joker in the zoo is not a species for condition (i): a1 + Joker(2) + a3 = 2 species.
    g2 = _three_draws_then_stop(rules, [BLACK, a(3)], zoos=[[a(1), JOKER], []], joker_species=[2, 0])
    check(play(g2, place(a(3))), magpie_in_play=False, zoos=[[a(1), a(3), JOKER], []])
    # Already in play (a Magpie in seat 1's hand): no second Magpie.
    g3 = make(rules, [[BLACK, a(4)], [BLACK, MAGPIE, a(10), a(11), a(12)]], zoos=[[], [a(4)]])
    check(g3, magpie_in_play=True)
    g3 = play(g3, draw(1, a(12)), draw(1, a(11)), draw(1, a(10)), D_STOP, place(a(4)))
    check(g3, magpie_in_play=True, zoos=[[a(4)], [a(4)]],
          hands=[[BLACK, a(10), a(11), a(12)], [BLACK, MAGPIE]])


def test_magpie_entry_draw_pile_shuffled_needs_position():
    rules = R.Rules(num_players=2, magpie_entry="draw_pile_shuffled")
    g = _three_draws_then_stop(rules, [BLACK, a(4), a(5)], zoos=[[], [a(4)]], pile=[a(7), a(8)])
    assert R.chance_outcomes(g, place(a(4))) == {0: 1 / 3, 1: 1 / 3, 2: 1 / 3}
    assert R.chance_outcomes(g, place(a(5))) is None
    with pytest.raises(ValueError):
        R.apply(g, place(a(4)))                 # entry needs a position
    with pytest.raises(ValueError):
        R.apply(g, place(a(4)), 3)              # only 0..len(pile)
    with pytest.raises(ValueError):
        R.apply(g, place(a(5)), 0)              # no entry: chance must be None
    for pos, pile in [(0, [MAGPIE, a(7), a(8)]), (1, [a(7), MAGPIE, a(8)]), (2, [a(7), a(8), MAGPIE])]:
        g2 = R.apply(g, place(a(4)), pos)
        check(g2, magpie_in_play=True, pile=pile, hands=[[BLACK, a(5), a(10), a(11), a(12)], [BLACK]])


def test_magpie_take_and_triplet_option():
    for can_break in (True, False):
        rules = R.Rules(num_players=3, joker=True, magpie_can_break_triplet=can_break)
        g = make(rules, [[BLACK], [BLACK, MAGPIE], [BLACK]],
                 zoos=[[a(9)], [a(2)] * 3 + [a(5)], [JOKER, a(6), a(6), a(7)]], joker_species=[0, 0, 6])
        g = play(g, draw(1, MAGPIE))
        check(g, phase=MAGPIE_PHASE, actor=0, source=1, table=[MAGPIE])
        legal = R.legal_decisions(g)
        if can_break:
            assert legal == [(MAGPIE_NONE, 0, 0), (MAGPIE_TAKE, 1, a(2)), (MAGPIE_TAKE, 1, a(5)),
                             (MAGPIE_TAKE, 2, JOKER), (MAGPIE_TAKE, 2, a(6)), (MAGPIE_TAKE, 2, a(7))]
        else:   # species 2 (3 cards) and 6 (2 cards + the Joker bound to 6) are triplets
            assert legal == [(MAGPIE_NONE, 0, 0), (MAGPIE_TAKE, 1, a(5)), (MAGPIE_TAKE, 2, a(7))]
    rules = R.Rules(num_players=3, joker=True)
    g = make(rules, [[BLACK], [BLACK, MAGPIE], [BLACK]],
             zoos=[[], [], [JOKER, a(6), a(6)]], joker_species=[0, 0, 6])
    g = play(g, draw(1, MAGPIE))
    g1 = play(g, (MAGPIE_TAKE, 2, JOKER))
    check(g1, phase=DRAW, source=-1, table=[MAGPIE, JOKER], zoos=[[], [], [a(6), a(6)]], joker_species=[0, 0, 0])
    g2 = play(g, (MAGPIE_NONE, 0, 0))
    check(g2, phase=DRAW, table=[MAGPIE], zoos=[[], [], [JOKER, a(6), a(6)]], joker_species=[0, 0, 6])
    g3 = play(g1, D_STOP)      # the Joker comes back to a hand, unbound
    check(g3, hands=[[BLACK, MAGPIE, JOKER], [BLACK], [BLACK]], limit=0)


# ---------------------------------------------------------------------------
# Wolf
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("order", ["before_refill", "after_refill"])
def test_wolf_set_aside_and_return(order):
    rules = R.Rules(num_players=3, wolf=True, hand_limit=4, wolf_return=order)
    g = make(rules, [[BLACK, a(1)], [BLACK, WOLF, a(2), a(3)], [BLACK, a(4), a(5)]],
             [a(6), a(7), a(8), a(9), a(10)])
    g = play(g, draw(1, a(2)), draw(2, a(4)), draw(1, WOLF))
    # No decision: the cards already on the table go to seat 1's set-aside.
    check(g, phase=DRAW, actor=0, source=-1, table=[WOLF], draws=3,
          set_aside=[[], [a(2), a(4)], []], hands=[[BLACK, a(1)], [BLACK, a(3)], [BLACK, a(5)]])
    g = play(g, draw(2, a(5)), D_STOP)
    check(g, phase=PLACE_PHASE, limit=0, table=[], set_aside=[[], [a(2), a(4)], []],
          hands=[[BLACK, a(1), WOLF, a(5)], [BLACK, a(3)], [BLACK]])
    g = play(g, D_DONE)
    if order == "before_refill":
        check(g, hands=[[BLACK, a(1), WOLF, a(5)], [BLACK, a(3), a(2), a(4)], [BLACK, a(6), a(7), a(8)]],
              pile=[a(9), a(10)])
    else:
        check(g, hands=[[BLACK, a(1), WOLF, a(5)], [BLACK, a(3), a(6), a(7), a(2), a(4)],
                        [BLACK, a(8), a(9), a(10)]], pile=[])
    check(g, set_aside=[[], [], []], phase=DRAW, active=1, turn=1)


def test_wolf_set_aside_returns_after_black_sheep():
    rules = R.Rules(num_players=2, wolf=True, hand_limit=1)
    g = make(rules, [[BLACK], [BLACK, WOLF, a(2)]])
    g = play(g, draw(1, a(2)), draw(1, WOLF), draw(1, BLACK))
    check(g, phase=DRAW, active=1, hands=[[BLACK, WOLF], [BLACK, a(2)]], set_aside=[[], []], table=[])


# ---------------------------------------------------------------------------
# White Sheep
# ---------------------------------------------------------------------------


def test_white_sheep_owner_wins_as_non_active_player():
    rules = R.Rules(num_players=2, white_sheep=True, triplets_to_win=2)
    g = make(rules, [[BLACK], [BLACK, WHITE, a(3), EAGLE]],
             zoos=[[a(3)], [a(3), a(3), a(4), a(4), a(4)]])
    g = play(g, draw(1, WHITE))
    check(g, phase=WHITE_PHASE, actor=1, active=0, source=1, table=[WHITE])
    assert R.legal_decisions(g) == [(WHITE_NONE, 0, 0), (WHITE_PLACE, a(3), 3)]
    g_none = play(g, (WHITE_NONE, 0, 0))
    check(g_none, phase=DRAW, actor=0, active=0, source=-1, table=[WHITE])
    g = play(g, (WHITE_PLACE, a(3), 3))
    # Magpie entry (species 3 is in seat 0's zoo) into the placer's hand, then the win.
    assert R.to_dict(g) == {
        "phase": OVER, "actor": -1, "active": 0, "turn": 0,
        "hands": [cards(BLACK), cards(BLACK, EAGLE, MAGPIE)],
        "zoos": [cards(a(3)), cards(a(3), a(3), a(3), a(4), a(4), a(4))], "joker_species": [0, 0],
        "table": [WHITE], "pile": [], "set_aside": [empty(), empty()], "magpie_in_play": True,
        "draws": 1, "limit": 0, "placed": 0, "source": -1, "winner": 1, "capped": False}
    assert R.is_over(g) and R.legal_decisions(g) == []
    # the game ends inside turn 0 (to_dict turn stays 0); the winning turn counts
    assert R.result(g) == {"winner": 1, "capped": False, "triplets": [0, 2], "zoo_cards": [1, 6], "turns": 1}
    with pytest.raises(ValueError):
        R.apply(g, D_STOP)


def test_white_sheep_with_joker_ignores_limit():
    rules = R.Rules(num_players=2, white_sheep=True, joker=True, zoo_max_per_species=3)
    g = make(rules, [[BLACK], [BLACK, WHITE, JOKER]], zoos=[[], [a(1)] * 3])
    g = play(g, draw(1, WHITE))
    assert R.legal_decisions(g) == [(WHITE_NONE, 0, 0)] + [(WHITE_PLACE, JOKER, s) for s in range(2, 13)]
    g = play(g, (WHITE_PLACE, JOKER, 7))
    check(g, phase=DRAW, actor=0, zoos=[[], [a(1)] * 3 + [JOKER]], joker_species=[0, 7],
          placed=0, limit=0, magpie_in_play=False)


# ---------------------------------------------------------------------------
# Mother Sheep
# ---------------------------------------------------------------------------


def test_mother_sheep_take_skip_and_empty_pile():
    rules = R.Rules(num_players=2, mother_sheep=True, wolf=True)
    g = make(rules, [[BLACK], [BLACK, MOTHER, a(2)]], [WOLF, a(6)])
    g = play(g, draw(1, MOTHER))
    check(g, phase=MOTHER_PHASE, actor=0, source=1, table=[MOTHER])
    assert R.legal_decisions(g) == [(MOTHER_SKIP, 0, 0), (MOTHER_TAKE, 0, 0)]
    g1 = play(g, (MOTHER_TAKE, 0, 0))     # the Wolf from the pile: no effect fires
    check(g1, phase=DRAW, source=-1, table=[MOTHER, WOLF], pile=[a(6)], draws=1, set_aside=[[], []])
    g1 = play(g1, D_STOP)
    check(g1, limit=0, hands=[[BLACK, MOTHER, WOLF], [BLACK, a(2)]])
    g2 = play(g, (MOTHER_SKIP, 0, 0))
    check(g2, phase=DRAW, source=-1, table=[MOTHER], pile=[WOLF, a(6)])
    g3 = play(make(rules, [[BLACK], [BLACK, MOTHER]], []), draw(1, MOTHER))
    assert R.legal_decisions(g3) == [(MOTHER_SKIP, 0, 0)]


# ---------------------------------------------------------------------------
# Refill, zoo maximum, turn cap, must_draw_first
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("who", ["others", "all"])
def test_refill_order_when_pile_runs_short(who):
    rules = R.Rules(num_players=3, hand_limit=4, refill=who)
    # Seat 1 is active: refill seat 2, then seat 0, then (with "all") seat 1 last.
    g = make(rules, [[BLACK], [BLACK, a(1)], [BLACK, a(2)]], [a(3), a(4), a(5), a(6)], active=1)
    check(g, phase=DRAW, actor=1, active=1)
    g = play(g, D_STOP, D_DONE)
    # Seat 2 takes its 2 first; seat 0 gets only the 2 cards left.
    check(g, hands=[[BLACK, a(5), a(6)], [BLACK, a(1)], [BLACK, a(2), a(3), a(4)]], pile=[])
    g = make(rules, [[BLACK], [BLACK, a(1)], [BLACK, a(2)]], [a(3), a(4), a(5), a(6), a(7), a(8)],
             active=1)
    g = play(g, D_STOP, D_DONE)
    if who == "others":
        check(g, hands=[[BLACK, a(5), a(6), a(7)], [BLACK, a(1)], [BLACK, a(2), a(3), a(4)]], pile=[a(8)])
    else:
        check(g, hands=[[BLACK, a(5), a(6), a(7)], [BLACK, a(1), a(8)], [BLACK, a(2), a(3), a(4)]], pile=[])
    check(g, active=2, actor=2, turn=1, phase=DRAW)


def test_refill_others_short_pile():
    rules = R.Rules(num_players=3, hand_limit=4)
    g = make(rules, [[BLACK], [BLACK], [BLACK, a(2)]], [a(3), a(4), a(5), a(6)])
    g = play(g, D_STOP, D_DONE)
    check(g, hands=[[BLACK], [BLACK, a(3), a(4), a(5)], [BLACK, a(2), a(6)]], pile=[])


@pytest.mark.parametrize("zmax", [0, 3])
def test_zoo_max_per_species(zmax):
    rules = R.Rules(num_players=2, joker=True, zoo_max_per_species=zmax)
    g = _three_draws_then_stop(rules, [BLACK, a(1), a(2), a(3), JOKER],
                               zoos=[[a(1)] * 3 + [a(2)] * 2 + [a(3)], []])
    legal = R.legal_decisions(g)
    assert (place(a(1)) in legal) == (zmax == 0)
    assert ((PLACE, JOKER, 1) in legal) == (zmax == 0)
    assert place(a(2)) in legal and (PLACE, JOKER, 2) in legal
    # The Joker counts: a(2) x 2 + Joker bound to 2 = 3 cards.
    g = make(rules, [[BLACK, a(2)], [BLACK, a(10), a(11), a(12)]],
             zoos=[[a(2), a(2), JOKER], []], joker_species=[2, 0])
    g = play(g, draw(1, a(12)), draw(1, a(11)), draw(1, a(10)), D_STOP)
    assert (place(a(2)) in R.legal_decisions(g)) == (zmax == 0)


def _cap_game(res, zoos, joker_species=None):
    rules = R.Rules(num_players=3, turn_cap=5, cap_resolution=res, joker=True)
    g = make(rules, [[BLACK], [BLACK], [BLACK]], zoos=zoos, joker_species=joker_species, turn=4, active=2)
    return play(g, D_STOP, D_DONE)


def test_turn_cap_draw_and_most_triplets():
    zoos = [[a(1)] * 3 + [a(2)] * 3, [a(3)] * 3 + [a(4)] * 3 + [a(5)], [a(6)] * 3]
    g = _cap_game("draw", zoos)
    check(g, phase=OVER, actor=-1, active=2, turn=5, winner=-1, capped=True, draws=0, limit=0)
    assert R.result(g) == {"winner": -1, "capped": True, "triplets": [2, 2, 1], "zoo_cards": [6, 7, 3],
                           "turns": 5}
    assert R.legal_decisions(g) == []
    # most_triplets: seats 0 and 1 tie on 2 triplets, seat 1 has more zoo cards.
    check(_cap_game("most_triplets", zoos), winner=1, capped=True)
    # single leader on triplets (the Joker counts toward its species)
    zoos2 = [[a(1)] * 3 + [a(2)] * 2 + [JOKER], [a(3)] * 3 + [a(4)] * 2 + [a(5)], []]
    check(_cap_game("most_triplets", zoos2, [2, 0, 0]), winner=0, capped=True)
    # full tie: draw
    zoos3 = [[a(1)] * 3, [a(3)] * 3, []]
    check(_cap_game("most_triplets", zoos3), winner=-1, capped=True)


def test_turn_cap_not_reached_continues():
    rules = R.Rules(num_players=2, turn_cap=3)
    g = make(rules, [[BLACK], [BLACK]], turn=1, active=1)
    g = play(g, D_STOP, D_DONE)
    check(g, phase=DRAW, turn=2, active=0, capped=False)
    g = play(g, D_STOP, D_DONE)
    check(g, phase=OVER, turn=3, capped=True, winner=-1)


def test_must_draw_first():
    rules = R.Rules(num_players=3, must_draw_first=True)
    g = make(rules, [[BLACK], [BLACK, a(1)], [BLACK, a(2)]])
    assert R.legal_decisions(g) == [(DRAW_FROM, 1, 0), (DRAW_FROM, 2, 0)]
    with pytest.raises(ValueError):
        R.apply(g, D_STOP)
    g = play(g, draw(2, a(2)))
    assert R.legal_decisions(g) == [D_STOP, (DRAW_FROM, 1, 0), (DRAW_FROM, 2, 0)]


@pytest.mark.parametrize("card", [a(5), JOKER])
def test_win_by_placement_stops_at_once(card):
    rules = R.Rules(num_players=2, triplets_to_win=1, joker=True)
    g = _three_draws_then_stop(rules, [BLACK, card], zoos=[[a(5), a(5)], []], pile=[a(1)])
    assert (PLACE, JOKER, 5) in R.legal_decisions(g) or card != JOKER
    g = play(g, (PLACE, card, 5))
    # The game ends before PLACE_DONE: no refill, the turn is not completed (turn stays 0),
    # but result()["turns"] counts the winning turn.
    check(g, phase=OVER, actor=-1, winner=0, capped=False, placed=1, limit=0, draws=3, active=0,
          turn=0, hands=[[BLACK, a(10), a(11), a(12)], [BLACK]], pile=[a(1)],
          joker_species=[5 if card == JOKER else 0, 0])
    assert R.result(g) == {"winner": 0, "capped": False, "triplets": [1, 0], "zoo_cards": [3, 0], "turns": 1}


def test_fourth_card_makes_no_second_triplet():
    rules = R.Rules(num_players=2)
    g = make(rules, [[BLACK], [BLACK]], zoos=[[a(1)] * 4 + [a(2)] * 2, []])
    assert R.result(g)["triplets"] == [1, 0]


# ---------------------------------------------------------------------------
# probabilities, errors, immutability
# ---------------------------------------------------------------------------


def test_draw_probabilities():
    rules = R.Rules(num_players=2)
    g = make(rules, [[BLACK], [BLACK, a(1), a(1), EAGLE]])
    assert R.draw_probabilities(g, 1) == {BLACK: 0.25, EAGLE: 0.25, a(1): 0.5}
    assert R.draw_probabilities(g, 0) == {BLACK: 1.0}
    assert R.chance_outcomes(g, (DRAW_FROM, 1, 0)) == R.draw_probabilities(g, 1)


def test_apply_raises_on_illegal_and_inconsistent_chance():
    rules = R.Rules(num_players=2)
    g = make(rules, [[BLACK, a(1)], [BLACK, a(2)]])
    for bad in [(DRAW_FROM, 0, 0), (PLACE, a(1), 1), (PLACE_DONE, 0, 0), (99, 0, 0), (STOP, 0, 1)]:
        with pytest.raises(ValueError):
            R.apply(g, bad)
    with pytest.raises(ValueError):
        R.apply(g, (DRAW_FROM, 1, 0))             # chance missing
    with pytest.raises(ValueError):
        R.apply(g, (DRAW_FROM, 1, 0), a(1))       # not in that hand
    with pytest.raises(ValueError):
        R.apply(g, (DRAW_FROM, 1, 0), NKINDS)
    with pytest.raises(ValueError):
        R.apply(g, D_STOP, 0)                     # no chance event
    with pytest.raises(ValueError):
        R.apply(g, "stop")
    g2 = R.apply(g, (DRAW_FROM, 1, 0), a(2))
    with pytest.raises(ValueError):
        R.apply(g2, place(a(1)))                  # PLACE in DRAW phase
    assert R.to_dict(g) == R.to_dict(make(rules, [[BLACK, a(1)], [BLACK, a(2)]]))


def test_apply_never_mutates_and_dict_roundtrip():
    rules = R.Rules(num_players=3, wolf=True, white_sheep=True, mother_sheep=True, joker=True,
                    magpie_entry="draw_pile_shuffled")
    rng = random.Random(7)
    for seed in range(3):
        g = R.deal(rules, random.Random(seed))
        while not R.is_over(g):
            before = copy.deepcopy(R.to_dict(g))
            d = R.random_decision(g, rng)
            g2 = R.apply(g, d, R.random_chance(g, d, rng))
            assert R.to_dict(g) == before
            assert R.to_dict(R.from_dict(rules, before)) == before
            g = g2


# ---------------------------------------------------------------------------
# invariants over random games
# ---------------------------------------------------------------------------

_VARIANTS = [
    {},
    {"magpie_entry": "draw_pile_shuffled", "refill": "all", "wolf_return": "after_refill"},
    {"zoo_limit_basis": "blind_draws", "magpie_can_break_triplet": False, "zoo_max_per_species": 3},
    {"must_draw_first": True, "eagle_accepts_joker": True, "mole_can_take_joker": False,
     "cap_resolution": "most_triplets", "optional_card_setup": "into_draw_pile"},
]


def _check_invariants(g, deck, n):
    d = R.to_dict(g)
    assert R.card_census(g) == deck                              # every card in one place
    assert all(h[BLACK] == 1 for h in d["hands"])                # each seat: its own Black Sheep
    assert all(min(h) >= 0 for h in d["hands"] + d["zoos"] + d["set_aside"])
    for p in range(n):
        z = d["zoos"][p]
        assert all(z[k] == 0 for k in range(JOKER))               # only animals and the Joker
        assert (z[JOKER] == 1) == (d["joker_species"][p] > 0)
    legal = R.legal_decisions(g)
    assert legal == sorted(legal)
    if d["phase"] == OVER:
        assert legal == [] and d["actor"] == -1
    else:
        assert legal and 0 <= d["actor"] < n
        assert d["winner"] == -1
        if d["phase"] != WHITE_PHASE:
            assert d["actor"] == d["active"]
        if d["phase"] == DRAW and d["draws"] == 0:               # start of a turn
            assert d["table"] == [] and not any(map(any, d["set_aside"]))
        if d["phase"] != PLACE_PHASE:
            assert d["limit"] == 0


def test_random_game_invariants():
    rng = random.Random(12345)
    games = 0
    for n in (2, 3, 4, 5):
        for optional in (False, True):
            for i in range(32):
                extra = _VARIANTS[i % len(_VARIANTS)]
                rules = R.Rules(num_players=n, wolf=optional, white_sheep=optional,
                                mother_sheep=optional, joker=optional,
                                turn_cap=500 if i % 2 else 150, **extra)
                deck = R.full_deck(rules)
                g = R.deal(rules, random.Random(rng.random()))
                while not R.is_over(g):
                    _check_invariants(g, deck, n)
                    dec = R.random_decision(g, rng)
                    g = R.apply(g, dec, R.random_chance(g, dec, rng))
                _check_invariants(g, deck, n)
                res = R.result(g)
                target = rules.effective_triplets_to_win
                if res["capped"]:
                    assert res["turns"] == rules.turn_cap
                    assert all(t < target for t in res["triplets"])
                else:
                    assert res["winner"] >= 0 and res["triplets"][res["winner"]] >= target
                    assert sum(t >= target for t in res["triplets"]) == 1
                json.loads(json.dumps(R.to_dict(g)))          # lists, ints, bools only
                games += 1
    assert games == 256


def test_play_random_game_reproducible():
    rules = R.Rules(num_players=4, joker=True, wolf=True)
    g1 = R.play_random_game(rules, random.Random(3))
    g2 = R.play_random_game(rules, random.Random(3))
    assert R.to_dict(g1) == R.to_dict(g2) and R.is_over(g1)


def test_white_sheep_placement_magpie_into_draw_pile():
    rules = R.Rules(num_players=2, white_sheep=True, magpie_entry="draw_pile_shuffled")
    g = make(rules, [[BLACK], [BLACK, WHITE, a(3)]], [a(1)], zoos=[[a(3)], []])
    g = play(g, draw(1, WHITE))
    assert R.chance_outcomes(g, (WHITE_PLACE, a(3), 3)) == {0: 0.5, 1: 0.5}
    with pytest.raises(ValueError):
        R.apply(g, (WHITE_PLACE, a(3), 3))
    g = R.apply(g, (WHITE_PLACE, a(3), 3), 1)
    check(g, phase=DRAW, actor=0, source=-1, magpie_in_play=True, pile=[a(1), MAGPIE],
          zoos=[[a(3)], [a(3)]], hands=[[BLACK], [BLACK]], table=[WHITE])
