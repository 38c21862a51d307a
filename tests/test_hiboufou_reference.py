"""Scripted tests of the Hiboufou reference engine (the test oracle).

Cards are written as colour letters, one letter per colour on the card:

    r red   o orange   y yellow   g green   b blue   p purple   k pink   n brown

so "og" is an orange+green card (letter order does not matter). Positions are built
from such strings by ``position`` (card ids are given in order of appearance: hands
seat by seat, then the row LEFT, CENTRE, RIGHT bottom to top, then the draw pile top
first, then the captured cards), or dealt by ``start`` (the deck IS the deal order).
Hand-built positions need not be reachable from a deal; the engine does not require
that. Every scripted row is drawn in a comment, tops of piles shown, bottom first:

    LEFT      CENTRE     RIGHT
    [ro]      [yg]       [ ]          (an empty space is [ ])
"""

from __future__ import annotations

import itertools
import random
import zlib

import pytest

from sheepsim.games.hiboufou import reference as R
from sheepsim.games.hiboufou.model import (
    CENTRE,
    COLOUR_NAMES,
    DRAW,
    END,
    LEFT,
    PLAY,
    RIGHT,
    check_deck_for_players,
    colours_of,
    parse_deck,
)

L, C, Rt = LEFT, CENTRE, RIGHT
LETTERS = "roygbpkn"   # letter i = colour i = COLOUR_NAMES[i]
assert [COLOUR_NAMES[i][0] for i in range(6)] == list("roygbp")


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------


def norm(spec: str) -> str:
    return "".join(sorted(spec, key=LETTERS.index))


def spec_of(mask: int) -> str:
    return "".join(LETTERS[c] for c in colours_of(mask))


def masks(*specs: str) -> tuple:
    return parse_deck([[COLOUR_NAMES[LETTERS.index(ch)] for ch in s] for s in specs])


def position(hands, row=((), (), ()), pile=(), captured=None, *, actor=0, turn=0, laid=0, drew=False,
             last_capture=None, over=False, **opts) -> R.Game:
    n = len(hands)
    captured = captured if captured is not None else [[] for _ in range(n)]
    specs: list[str] = []

    def ids(group):
        out = []
        for s in group:
            out.append(len(specs))
            specs.append(s)
        return out

    d = {"hands": [ids(h) for h in hands], "row": [ids(p) for p in row], "pile": ids(pile),
         "captured": [ids(c) for c in captured], "actor": actor, "turn": turn, "laid": laid,
         "drew": drew, "over": over, "last_capture": last_capture or [-1] * n}
    rules = R.Rules(num_players=n, deck=masks(*specs), **opts)
    return R.from_dict(rules, d)


def start(deal_order, num_players, **opts) -> R.Game:
    """A new game whose deck, listed as specs, is also the deal order."""
    rules = R.Rules(num_players=num_players, deck=masks(*deal_order), **opts)
    return R.new_game(rules, list(range(len(deal_order))))


def card(g: R.Game, spec: str, seat=None) -> int:
    """Lowest card id with these colours in the hand of `seat` (default: the actor)."""
    seat = g.actor if seat is None else seat
    m = masks(spec)[0]
    return min(c for c in g.hands[seat] if g.deck[c] == m)


def play(g: R.Game, spec: str, space: int) -> R.Game:
    return R.apply(g, (PLAY, card(g, spec), space))


def plays(g: R.Game) -> set:
    """The legal PLAYs as {(spec, space)}."""
    return {(spec_of(g.deck[a]), b) for code, a, b in R.legal_decisions(g) if code == PLAY}


def others(g: R.Game) -> list:
    return [d for d in R.legal_decisions(g) if d[0] != PLAY]


def tops(g: R.Game) -> list:
    return [spec_of(g.deck[p[-1]]) if p else "" for p in g.row]


def hand(g: R.Game, seat: int) -> list:
    return sorted(spec_of(g.deck[c]) for c in g.hands[seat])


def P(*pairs) -> set:
    return {(norm(s), sp) for s, sp in pairs}


# ---------------------------------------------------------------------------
# decks, options, setup
# ---------------------------------------------------------------------------


def test_default_deck_is_60_cards_15_pairs_times_4():
    deck = R.build_deck(R.Rules(num_players=2))
    assert len(deck) == 60
    assert all(m.bit_count() == 2 and m < 1 << 6 for m in deck)
    assert {m: deck.count(m) for m in set(deck)} == {sum(1 << c for c in p): 4
                                                     for p in itertools.combinations(range(6), 2)}
    # lexicographic combinations, copies consecutive
    assert [spec_of(m) for m in deck[:8]] == ["ro"] * 4 + ["ry"] * 4
    assert spec_of(deck[-1]) == "bp"
    combos = [sum(1 << c for c in p) for p in itertools.combinations(range(6), 2)]
    assert deck == [m for m in combos for _ in range(4)]


@pytest.mark.parametrize("colours,per_card,copies,count", [
    (8, 3, 2, 112), (6, 3, 4, 80), (4, 1, 6, 24), (2, 2, 10, 10), (8, 8, 10, 10)])
def test_generated_deck_counts(colours, per_card, copies, count):
    deck = R.build_deck(R.Rules(num_players=3, colours=colours, colours_per_card=per_card, copies=copies))
    assert len(deck) == count
    assert all(m.bit_count() == per_card and m < 1 << colours for m in deck)
    assert len(set(deck)) == count // copies


def test_explicit_deck_overrides_generation():
    deck = masks("r", "og", "ybp", "r", "k", "n", "rn")
    rules = R.Rules(num_players=2, deck=list(deck), colours=3)
    assert rules.deck == deck and R.build_deck(rules) == list(deck)
    assert deck[:3] == (0b1, 0b1010, 0b110100)


@pytest.mark.parametrize("obj,msg", [
    ([], "empty"),
    ("red", "list of cards"),
    ([["red"], []], "card 1 has no colour"),
    ([["red", "mauve"]], "unknown colour 'mauve'"),
    ([["red", "green", "Red"]], "appears twice"),
    ([["red"], "green"], "card 1: expected a list"),
])
def test_parse_deck_errors(obj, msg):
    with pytest.raises(ValueError, match=msg):
        parse_deck(obj)


def test_parse_deck_custom_names():
    assert parse_deck([["Owl"], ["owl", "moon"]], ["owl", "moon"]) == (1, 3)
    with pytest.raises(ValueError, match="unknown colour 'red'"):
        parse_deck([["red"]], ["owl", "moon"])


def test_too_few_cards():
    check_deck_for_players([1] * 7, 2)
    with pytest.raises(ValueError, match="2 players need at least 7"):
        check_deck_for_players([1] * 6, 2)
    with pytest.raises(ValueError, match="5 players need at least 16"):
        R.Rules(num_players=5, deck=(1,) * 15)
    with pytest.raises(ValueError, match="need at least"):
        R.Rules(num_players=4, colours=3, colours_per_card=3, copies=10)   # 10 < 13
    R.Rules(num_players=5, deck=(1,) * 16)


@pytest.mark.parametrize("kw", [
    dict(num_players=1), dict(num_players=6), dict(num_players=2, colours=9), dict(num_players=2, colours=1),
    dict(num_players=2, colours_per_card=7), dict(num_players=2, colours_per_card=0),
    dict(num_players=2, copies=0), dict(num_players=2, copies=11), dict(num_players=2, initial_slot="right"),
    dict(num_players=2, empty_slot_priority="loose"), dict(num_players=2, capture_condition="x"),
    dict(num_players=2, tiebreak="coin"), dict(num_players=2, turn_cap=0),
    dict(num_players=2, mandatory_play=1), dict(num_players=2, deck=(1, 0, 1, 1, 1, 1, 1)),
    dict(num_players=2, deck=(1, 256, 1, 1, 1, 1, 1)), dict(num_players=2, deck=()),
])
def test_bad_options(kw):
    with pytest.raises(ValueError):
        R.Rules(**kw)


def test_new_game_deals_one_at_a_time_clockwise():
    order = list(range(60))[::-1]           # card 59 is dealt first
    g = R.new_game(R.Rules(num_players=3), order)
    d = R.to_dict(g)
    assert d["hands"] == [sorted([59, 56, 53]), sorted([58, 55, 52]), sorted([57, 54, 51])]
    assert d["row"] == [[], [50], []]
    assert d["pile"] == list(range(49, -1, -1))
    assert d["captured"] == [[], [], []]
    assert (d["actor"], d["turn"], d["laid"], d["drew"], d["over"]) == (0, 0, 0, False, False)
    assert set(d) == {"hands", "row", "pile", "captured", "last_capture", "actor", "turn", "laid", "drew", "over"}
    g = R.new_game(R.Rules(num_players=3, initial_slot="left"), order)
    assert R.to_dict(g)["row"] == [[50], [], []]
    with pytest.raises(ValueError, match="permutation"):
        R.new_game(R.Rules(num_players=3), order[:-1] + [1])


def test_deal_is_seeded():
    a = R.deal(R.Rules(num_players=4), random.Random(7))
    b = R.deal(R.Rules(num_players=4), random.Random(7))
    assert R.to_dict(a) == R.to_dict(b)
    assert len(a.pile) == 60 - 13


# ---------------------------------------------------------------------------
# placement: adjacency, nothing to lay next to, empty-space priority, covered card
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("prio", ["fill_if_possible", "strict", "free"])
def test_centre_card_matches_both_sides(prio):
    #   LEFT   CENTRE   RIGHT
    #   [ro]   [ ]      [gb]       (after the centre pile was captured)
    g = position([["og", "rb", "ry", "bp", "r"], ["y", "y", "y"]], row=(["ro"], [], ["gb"]), pile=["p"],
                 empty_slot_priority=prio)
    # og: o with red+orange, g with green+blue (different colours); rb: r and b;
    # ry matches only the left, bp only the right. r matches left only.
    # The end piles are lone (their only neighbour, the centre, is empty), so any card may
    # cover them, but only `free` lets a card go on a pile while the centre can be filled.
    expected = P(("og", C), ("rb", C))
    if prio == "free":
        expected |= {(card, space) for card in ("og", "rb", "ry", "bp", "r") for space in (L, Rt)}
    assert plays(g) == expected
    assert others(g) == []


def test_centre_card_matches_both_sides_through_one_colour():
    #   [ro]   [ ]   [rb]
    g = position([["ry", "yb", "o"], ["y", "y", "y"]], row=(["ro"], [], ["rb"]), pile=["p"])
    assert plays(g) == P(("ry", C))          # red matches both sides


def test_no_laying_next_to_nothing():
    # initial_slot=left:   [ro]   [ ]   [ ]
    g = start(["ry", "p", "gb", "p", "op", "p", "ro", "y", "y"], 2, initial_slot="left")
    assert tops(g) == ["ro", "", ""]
    assert hand(g, 0) == ["gb", "op", "ry"]
    # RIGHT has no occupied neighbour; LEFT's only neighbour is empty; gb misses red+orange
    assert plays(g) == P(("ry", C), ("op", C))
    g = play(g, "ry", C)                     # [ro] [ry] [ ]
    # now RIGHT may take a card matching ry (none in hand: gb, op); LEFT may be covered
    # by a card matching ry, CENTRE by one matching ro
    assert plays(g) == P(("op", C))
    assert others(g) == [(END, 0, 0)]


def test_empty_row_takes_any_card_anywhere():
    #   [ ]   [ ]   [ ]
    g = position([["r", "o", "y"], ["g", "g", "g"]], pile=["b"], captured=[["p"], []])
    assert plays(g) == {(s, sp) for s in "roy" for sp in (L, C, Rt)}
    g = play(g, "r", Rt)                     # [ ] [ ] [r]: only CENTRE is next to something
    # o and y do not match red, so no empty space can be filled; the lone pile [r] has no
    # occupied neighbour, so any card may cover it
    assert plays(g) == P(("o", Rt), ("y", Rt))
    assert others(g) == [(END, 0, 0)]


# row for the priority tests:   [ro]   [yg]   [ ]
PRIO_ROW = (["ro"], ["yg"], [])


@pytest.mark.parametrize("prio,expected", [
    ("fill_if_possible", P(("gb", Rt), ("ry", Rt))),
    ("strict", P(("gb", Rt), ("ry", Rt))),
    ("free", P(("gb", L), ("gb", Rt), ("ry", L), ("ry", C), ("ry", Rt), ("rp", C))),
])
def test_empty_slot_priority_when_a_card_fits_the_empty_space(prio, expected):
    g = position([["gb", "ry", "rp"], ["k", "k", "k"]], row=PRIO_ROW, pile=["n"], empty_slot_priority=prio)
    assert plays(g) == expected


@pytest.mark.parametrize("prio,expected", [
    ("fill_if_possible", P(("rp", C), ("op", C), ("rb", C))),
    ("strict", set()),
    ("free", P(("rp", C), ("op", C), ("rb", C))),
])
def test_empty_slot_priority_when_nothing_fits_the_empty_space(prio, expected):
    # RIGHT needs yellow or green: no card of the hand has either
    g = position([["rp", "op", "rb"], ["k", "k", "k"]], row=PRIO_ROW, pile=["n"], empty_slot_priority=prio)
    assert plays(g) == expected
    assert others(g) == ([] if expected else [(DRAW, 0, 0)])


def test_fill_if_possible_is_evaluated_before_every_card():
    g = position([["gb", "ry", "rp"], ["k", "k", "k"]], row=PRIO_ROW, pile=["n"])
    g = play(g, "gb", Rt)                    # [ro] [yg] [gb]: the row is full
    # ry: on LEFT (matches yg); not CENTRE (misses gb); RIGHT (matches yg). rp: nowhere.
    assert plays(g) == P(("ry", L), ("ry", Rt))
    assert others(g) == [(END, 0, 0)]


@pytest.mark.parametrize("match,expected", [
    (False, P(("rb", C), ("og", L), ("og", C), ("og", Rt), ("yp", L), ("yp", Rt))),
    (True, P(("og", L), ("og", C), ("og", Rt))),
])
def test_match_covered_card(match, expected):
    #   [ro]   [yg]   [gb]
    # rb on CENTRE matches ro and gb but not the covered yg; yp on LEFT/RIGHT matches yg
    # but not the covered ro / gb; og matches everything it touches and covers.
    g = position([["rb", "og", "yp"], ["k", "k", "k"]], row=(["ro"], ["yg"], ["gb"]), pile=["n"],
                 match_covered_card=match)
    assert plays(g) == expected


# ---------------------------------------------------------------------------
# capture, turn end, refill
# ---------------------------------------------------------------------------

FULL_ROW = (["ro"], ["yg"], ["gb"])   # [ro] [yg] [gb]


def test_capture_on_third_card_with_empty_hand():
    g = position([["rg", "oy", "og"], ["k", "k", "k"]], row=FULL_ROW, pile=["p", "p", "n", "b"], turn=4)
    g = play(g, "rg", Rt)        # [ro]    [yg]  [gb rg]
    g = play(g, "oy", L)         # [ro oy] [yg]  [gb rg]
    assert (g.actor, g.laid) == (0, 2)
    g = play(g, "og", C)         # [ro oy] [yg og] [gb rg] -> captures CENTRE
    d = R.to_dict(g)
    assert [spec_of(g.deck[c]) for c in d["captured"][0]] == ["yg", "og"]     # bottom to top
    assert tops(g) == ["oy", "", "rg"]
    assert d["last_capture"] == [4, -1]
    assert (d["actor"], d["turn"], d["laid"]) == (1, 5, 0)
    assert hand(g, 0) == ["n", "p", "p"] and [spec_of(g.deck[c]) for c in d["pile"]] == ["b"]


def test_no_capture_when_cards_remain_after_three():
    # a hand of 4 (after a forced draw): 3 cards laid, 1 left -> no capture, turn ends
    g = position([["rg", "oy", "og", "k"], ["k", "k", "k"]], row=FULL_ROW, pile=["p", "n", "b"])
    for spec, sp in (("rg", Rt), ("oy", L), ("og", C)):
        g = play(g, spec, sp)
    assert g.captured == [[], []] and tops(g) == ["oy", "og", "rg"]
    assert (g.actor, g.turn) == (1, 1)
    assert hand(g, 0) == ["k", "n", "p"]             # refilled 2 from the top: p, n
    assert [spec_of(g.deck[c]) for c in g.pile] == ["b"]


def test_no_capture_after_two_cards_and_end():
    g = position([["rg", "oy", "k"], ["k", "k", "k"]], row=FULL_ROW, pile=["p", "n", "b"])
    g = play(g, "rg", Rt)
    g = play(g, "oy", L)
    assert others(g) == [(END, 0, 0)]
    g = R.apply(g, (END, 0, 0))
    assert g.captured == [[], []] and g.actor == 1
    assert hand(g, 0) == ["k", "n", "p"] and len(g.pile) == 1


@pytest.mark.parametrize("condition", ["played3_and_empty", "hand_emptied"])
def test_emptying_a_short_hand_late_in_the_game(condition):
    # the pile is empty; seat 0 holds 2 cards; seat 1 holds a purple card that fits nowhere
    #   [bp ro]   [yg]   [gb]
    g = position([["og", "rb"], ["k"]], row=(["bp", "ro"], ["yg"], ["gb"]), capture_condition=condition)
    g = play(g, "og", C)                 # [.. ro] [yg og] [gb]
    g = play(g, "rb", C)                 # [.. ro] [yg og rb] [gb]: hand empty after 2 cards
    if condition == "played3_and_empty":
        assert not g.over and R.legal_decisions(g) == [(END, 0, 0)]
        g = R.apply(g, (END, 0, 0))
        assert g.captured == [[], []]
        assert R.result(g)["winner"] == -1 and R.result(g)["cowinners"] == [0, 1]
    else:
        assert [spec_of(g.deck[c]) for c in g.captured[0]] == ["yg", "og", "rb"]
        assert tops(g) == ["ro", "", "gb"] and g.last_capture == [0, -1]
        # [ro] [ ] [gb]: both end piles are now lone, so seat 1's card may cover either
        assert not g.over and g.actor == 1
        assert plays(g) == P(("k", L), ("k", Rt))
        return
    # nobody can play any more and the pile is empty: the game is over
    assert g.over and g.actor == -1 and not g.capped


def test_hand_emptied_captures_after_a_single_card():
    g = position([["og"], ["k", "k"]], row=(["bp", "ro"], ["yg"], ["gb"]), pile=[],
                 capture_condition="hand_emptied")
    g = play(g, "og", L)                 # [bp ro og] [yg] [gb] -> captures LEFT (3 cards)
    assert len(g.captured[0]) == 3 and tops(g) == ["", "yg", "gb"]


def test_refill_short_pile():
    g = position([["og", "rb", "k"], ["k", "k", "k"]], row=FULL_ROW, pile=["y"])
    g = play(g, "og", C)
    g = play(g, "rb", C)
    g = R.apply(g, (END, 0, 0))
    assert hand(g, 0) == ["k", "y"] and g.pile == []      # only 1 card left to draw


# ---------------------------------------------------------------------------
# forced draw, mandatory play
# ---------------------------------------------------------------------------


def test_forced_draw_ends_the_turn_without_refill():
    # pink/purple/brown fit nothing on [ro] [yg] [gb]
    g = position([["p", "k", "n"], ["y", "y", "y"]], row=FULL_ROW, pile=["og", "b"])
    assert R.legal_decisions(g) == [(DRAW, 0, 0)]
    g = R.apply(g, (DRAW, 0, 0))
    assert hand(g, 0) == ["k", "n", "og", "p"]           # the top card, even though it fits
    assert (g.actor, g.turn, g.laid, g.drew) == (1, 1, 0, False)
    assert [spec_of(g.deck[c]) for c in g.pile] == ["b"]


def test_play_after_forced_draw():
    g = position([["p", "k", "n"], ["y", "y", "y"]], row=FULL_ROW, pile=["og", "b"], play_after_forced_draw=True)
    g = R.apply(g, (DRAW, 0, 0))
    assert (g.actor, g.laid, g.drew) == (0, 0, True)
    # only the drawn card can go; no second DRAW, no END (mandatory play)
    assert plays(g) == P(("og", L), ("og", C), ("og", Rt)) and others(g) == []
    g = play(g, "og", C)
    g = R.apply(g, (END, 0, 0))
    assert hand(g, 0) == ["k", "n", "p"] and g.actor == 1 and len(g.pile) == 1


def test_play_after_forced_draw_ends_turn_when_drawn_card_does_not_fit():
    g = position([["p", "k", "n"], ["y", "y", "y"]], row=FULL_ROW, pile=["p", "og"], play_after_forced_draw=True)
    g = R.apply(g, (DRAW, 0, 0))
    assert g.actor == 1 and hand(g, 0) == ["k", "n", "p", "p"]


@pytest.mark.parametrize("after", [False, True])
def test_draw_from_empty_pile_is_a_pass(after):
    # seat 1 can still play (y fits), so the game goes on
    g = position([["p", "k", "n"], ["y", "y", "y"]], row=(["o", "ro"], ["yg"], ["gb"]),
                 play_after_forced_draw=after)
    assert R.legal_decisions(g) == [(DRAW, 0, 0)]
    g = R.apply(g, (DRAW, 0, 0))
    assert hand(g, 0) == ["k", "n", "p"] and (g.actor, g.turn, g.over) == (1, 1, False)


def test_mandatory_play_false():
    g = position([["og", "p", "k"], ["y", "y", "y"]], row=FULL_ROW, pile=["b", "n"], mandatory_play=False)
    assert others(g) == [(END, 0, 0)] and plays(g) == P(("og", L), ("og", C), ("og", Rt))
    g2 = R.apply(g, (END, 0, 0))                      # stop without laying a card
    assert (g2.actor, g2.turn) == (1, 1) and hand(g2, 0) == ["k", "og", "p"] and len(g2.pile) == 2
    # default: the first card is compulsory
    g = position([["og", "p", "k"], ["y", "y", "y"]], row=FULL_ROW, pile=["b", "n"])
    assert others(g) == []
    # cannot play: DRAW only, mandatory or not
    g = position([["p", "p", "k"], ["y", "y", "y"]], row=FULL_ROW, pile=["b", "n"], mandatory_play=False)
    assert R.legal_decisions(g) == [(DRAW, 0, 0)]


# ---------------------------------------------------------------------------
# end of game, result, turn cap
# ---------------------------------------------------------------------------


def test_end_of_game():
    # pile empty; seat 1 holds purple cards that fit nowhere on [.. ro] [yg] [gb]
    g = position([["og"], ["p", "p"]], row=(["b", "ro"], ["yg"], ["gb"]), turn=0, turn_cap=1)
    g = play(g, "og", C)
    assert not g.over and R.legal_decisions(g) == [(END, 0, 0)]
    g = R.apply(g, (END, 0, 0))
    assert g.over and g.actor == -1 and R.legal_decisions(g) == []
    assert not g.capped                      # a natural end at the cap is not "capped"
    assert R.result(g) == {"winner": -1, "cowinners": [0, 1], "captured": [0, 0], "turns": 1, "capped": False}
    with pytest.raises(ValueError, match="over"):
        R.apply(g, (DRAW, 0, 0))


def test_game_goes_on_while_someone_can_play():
    # pile empty, seat 0 cannot play, seat 1 can
    g = position([["p"], ["og", "k"]], row=(["b", "ro"], ["yg"], ["gb"]))
    g = R.apply(g, (DRAW, 0, 0))
    assert not g.over and g.actor == 1


def test_lone_first_card_may_be_covered_by_anything():
    # 2 players, 7 cards, nothing fits next to the first card [ ] [g] [ ]: the empty
    # spaces stay closed, but the lone centre pile may be covered by any card
    g = start(["p", "o", "p", "o", "p", "o", "g"], 2)
    assert not g.over and g.actor == 0
    assert plays(g) == P(("p", C))           # seat 0 was dealt the three purple cards


def test_game_over_at_setup():
    # 2 players, 7 cards, with match_covered_card nothing may cover the lone first card
    # either: no draw pile, nobody can play, the game is over before the first turn
    g = start(["p", "o", "p", "o", "p", "o", "g"], 2, match_covered_card=True)
    assert g.over and g.actor == -1 and R.result(g)["cowinners"] == [0, 1]


def ended(captured_counts, hand_sizes, last_capture, tiebreak):
    n = len(captured_counts)
    return position([["k"] * h for h in hand_sizes], captured=[["p"] * c for c in captured_counts],
                    row=([], ["n"] * (3 * n + 1), []), last_capture=list(last_capture), over=True, tiebreak=tiebreak)


@pytest.mark.parametrize("tiebreak,counts,hands,last,winner,cowinners", [
    ("shared", [3, 3, 1], [2, 1, 0], [5, 2, 7], -1, [0, 1]),
    ("fewest_cards_in_hand", [3, 3, 1], [2, 1, 0], [5, 2, 7], 1, [1]),
    ("fewest_cards_in_hand", [3, 3, 1], [1, 1, 0], [5, 2, 7], -1, [0, 1]),
    ("last_capture", [3, 3, 1], [2, 1, 0], [5, 2, 7], 0, [0]),       # seat 2 is not tied
    ("last_capture", [3, 3, 1], [2, 1, 0], [2, 5, 7], 1, [1]),
    ("last_capture", [0, 0, 0], [2, 1, 0], [-1, -1, -1], -1, [0, 1, 2]),
    ("shared", [1, 4, 3], [0, 0, 0], [1, 2, 3], 1, [1]),
    ("fewest_cards_in_hand", [1, 4, 3], [0, 5, 0], [1, 2, 3], 1, [1]),
])
def test_tiebreaks(tiebreak, counts, hands, last, winner, cowinners):
    res = R.result(ended(counts, hands, last, tiebreak))
    assert (res["winner"], res["cowinners"], res["captured"]) == (winner, cowinners, counts)


def test_result_needs_a_finished_game():
    with pytest.raises(ValueError, match="not over"):
        R.result(R.deal(R.Rules(num_players=2), random.Random(1)))


def test_turn_cap():
    g = R.play_random_game(R.Rules(num_players=2, turn_cap=5), random.Random(3))
    res = R.result(g)
    assert g.over and res["capped"] and res["turns"] == 5
    # nobody ever plays: only the cap ends the game, scored normally (all 0: shared)
    g = R.deal(R.Rules(num_players=3, mandatory_play=False, turn_cap=7), random.Random(4))
    while not g.over:
        g = R.apply(g, (END, 0, 0) if (END, 0, 0) in R.legal_decisions(g) else (DRAW, 0, 0))
    assert R.result(g) == {"winner": -1, "cowinners": [0, 1, 2], "captured": [0, 0, 0], "turns": 7, "capped": True}


# ---------------------------------------------------------------------------
# API details
# ---------------------------------------------------------------------------


def test_apply_rejects_illegal_and_does_not_mutate():
    g = position([["og", "p", "k"], ["y", "y", "y"]], row=FULL_ROW, pile=["b", "n"])
    before = R.to_dict(g)
    for bad in [(END, 0, 0), (DRAW, 0, 0), (PLAY, card(g, "p"), C), (PLAY, card(g, "og"), 3), (PLAY, 99, C),
                (PLAY, card(g, "y", seat=1), C), "x"]:
        with pytest.raises(ValueError):
            R.apply(g, bad)
    g2 = R.apply(g, [PLAY, card(g, "og"), C])        # a list is accepted
    assert R.to_dict(g) == before and R.to_dict(g2) != before


def test_observation_shows_only_public_information_and_own_hand():
    g = R.deal(R.Rules(num_players=3), random.Random(11))
    ob = R.observation(g, 1)
    assert ob["hand"] == g.hands[1]
    assert ob["hand_sizes"] == [3, 3, 3] and ob["pile_size"] == 60 - 10
    assert ob["row"] == g.row and ob["captured"] == [0, 0, 0]
    assert (ob["actor"], ob["turn"], ob["laid"], ob["drew"], ob["over"]) == (0, 0, 0, False, False)
    assert set(ob) == {"seat", "hand", "row", "pile_size", "hand_sizes", "captured", "last_capture",
                       "actor", "turn", "laid", "drew", "over"}


def test_random_games_are_reproducible():
    a = R.play_random_game(R.Rules(num_players=4), random.Random(5))
    b = R.play_random_game(R.Rules(num_players=4), random.Random(5))
    assert R.to_dict(a) == R.to_dict(b) and R.result(a) == R.result(b)


# ---------------------------------------------------------------------------
# invariants over random games
# ---------------------------------------------------------------------------

DECKS = [
    dict(),                                                   # default 60
    dict(colours=8, colours_per_card=2, copies=2),            # 56
    dict(colours=6, colours_per_card=3, copies=4),            # 80
    dict(colours=4, colours_per_card=1, copies=6),            # 24 monochrome
    dict(deck=masks(*(["r", "ro", "oy", "ygb", "bp", "pkr", "n", "rn", "kn"] * 3))),   # 27 explicit
]
OPTION_SETS = [
    dict(),
    dict(empty_slot_priority="strict", initial_slot="left", match_covered_card=True),
    dict(empty_slot_priority="free", capture_condition="hand_emptied", play_after_forced_draw=True,
         tiebreak="last_capture"),
    dict(mandatory_play=False, tiebreak="fewest_cards_in_hand", turn_cap=300),
]


def check_game(rules: R.Rules, rng: random.Random) -> R.Game:
    g = R.deal(rules, rng)
    n = rules.num_players
    ncards = len(g.deck)
    draws_with_card = [0] * n
    steps = 0
    while True:
        census = sorted([c for h in g.hands for c in h] + [c for p in g.row for c in p] + g.pile
                        + [c for cs in g.captured for c in cs])
        assert census == list(range(ncards)), "every card in exactly one place"
        for s in range(n):
            assert g.hands[s] == sorted(g.hands[s])
            assert len(g.hands[s]) <= 3 + draws_with_card[s], "hand above 3 without forced draws"
        if g.over:
            assert g.actor == -1 and R.legal_decisions(g) == []
            break
        if g.pile:
            # while the pile lasts every seat holds >= 3 cards at a turn start
            assert all(len(h) >= 3 for s, h in enumerate(g.hands) if s != g.actor or g.laid == 0)
        legal = R.legal_decisions(g)
        assert legal and legal == sorted(set(legal))
        assert 0 <= g.laid < 3
        before = R.to_dict(g)
        d = R.random_decision(g, rng)
        if d[0] == DRAW and g.pile:
            draws_with_card[g.actor] += 1
        g2 = R.apply(g, d)
        assert R.to_dict(g) == before
        g = g2
        steps += 1
    res = R.result(g)
    assert res["turns"] == g.turn <= rules.turn_cap
    if rules.mandatory_play:
        assert not res["capped"], "with mandatory play every game ends naturally"
        assert not g.pile
    assert sum(res["captured"]) + sum(len(h) for h in g.hands) + sum(len(p) for p in g.row) == ncards
    if res["winner"] >= 0:
        assert res["cowinners"] == [res["winner"]]
    return g


@pytest.mark.parametrize("deck_kw", DECKS, ids=["default60", "8c2x2", "6c3x4", "mono24", "explicit27"])
@pytest.mark.parametrize("opts", OPTION_SETS, ids=["defaults", "strict", "free", "optional"])
def test_random_game_invariants(deck_kw, opts):
    rng = random.Random(zlib.crc32(repr((deck_kw, opts)).encode()))
    for n in (2, 3, 4, 5):
        for _ in range(6):
            check_game(R.Rules(num_players=n, **deck_kw, **opts), rng)
