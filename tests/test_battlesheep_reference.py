"""Scripted tests of the Battle Sheep reference engine (the test oracle).

Every rule is checked on a small hand-worked position. Boards are written as ASCII
art and parsed by ``parse_board`` below, so the drawing IS the test data.

How to read a drawing (pointy-top axial coordinates, r grows downward):

* Only the text after the ``|`` margin counts. Text line i is row r = r0 + i.
* A hex sits every 2 columns, and every row is shifted half a hex (1 column) to the
  right of the row above, so column c of line i is q = q0 + (c - i) / 2.
  Hence E is 2 columns right, SE is one line down and 1 column right, SW is one
  line down and 1 column left, NE / NW one line up and 1 column right / left.
* ``.`` empty pasture; ``a``-``z`` empty pasture with a label; ``0``-``3`` a stack
  of that seat (heights listed separately in reading order, default 1);
  ``A``-``Z`` a labelled NON-pasture position (a hole, a candidate tile, ...);
  a space is not pasture.

Hand-made positions are not always reachable from a real game (e.g. the sheep
totals need not equal stack_size); the reference engine does not require that.
"""

from __future__ import annotations

import copy
import random

import pytest

from sheepsim.games.battlesheep.reference import (
    DIRECTIONS,
    TILE_SHAPES,
    VERSION,
    Rules,
    from_position,
    is_over,
    legal_moves,
    new_game,
    play,
    play_random_game,
    random_move,
    result,
    to_position,
)

from conftest import parse_board

# ---------------------------------------------------------------------------
# ASCII board helpers
# ---------------------------------------------------------------------------




def position_of(art, rules, phase, to_move, heights=None, q0=0, r0=0, tiles=None):
    """A JSON position (the README's format) from an ASCII board."""
    cells, labels = parse_board(art, heights, q0, r0)
    pos = {
        "game": "battle-sheep",
        "version": 1,
        "coords": "axial",
        "num_players": rules.num_players,
        "stack_size": rules.stack_size,
        "phase": phase,
        "to_move": to_move,
        "cells": [
            {"q": q, "r": r, "owner": o, "height": h} for (q, r), (o, h) in sorted(cells.items())
        ],
    }
    if tiles is not None:
        pos["tiles"] = tiles
    return pos, labels


def game_of(art, rules, phase="move", to_move=0, heights=None, q0=0, r0=0, tiles=None):
    pos, labels = position_of(art, rules, phase, to_move, heights, q0, r0, tiles)
    return from_position(pos, rules), labels


def mv(src, dst, n):
    return {"from": list(src), "to": list(dst), "count": n}


def tile(*cells):
    return {"tile": [list(c) for c in sorted(cells)]}


def stacks_of(game):
    """{(q, r): (owner, height)} read back through the public position format."""
    return {
        (c["q"], c["r"]): (c["owner"], c["height"])
        for c in to_position(game)["cells"]
        if c["owner"] is not None
    }


def test_parser_agrees_with_direction_table():
    # Sanity check of the drawing convention against DIRECTIONS (E NE NW W SW SE):
    #   |  b c        r=-1
    #   | d x a       r=0, x at the origin
    #   |  e f        r=1
    _, labels = parse_board(
        """
        |  b c
        | d x a
        |  e f
        """,
        q0=-1,
        r0=-1,
    )
    assert labels["x"] == [(0, 0)]
    assert [labels[k][0] for k in "acbdef"] == [(1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)]
    assert [labels[k][0] for k in "acbdef"] == DIRECTIONS


# ---------------------------------------------------------------------------
# Building
# ---------------------------------------------------------------------------


def test_first_tile_exactly_three_orientations_at_origin():
    # The 3 orientations of the rhombus, (0,0) marked o:
    #   |o x        |  x x       |  x
    #   | x x       | o x        | o x
    #                            |  x
    g = new_game(Rules(2))
    assert g.phase == "build" and g.to_move == 0
    expected = [
        {"tile": [[0, 0], [0, 1], [1, -1], [1, 0]]},
        {"tile": [[0, 0], [0, 1], [1, 0], [1, 1]]},
        {"tile": [[0, 0], [1, -1], [1, 0], [2, -1]]},
    ]
    assert sorted(legal_moves(g), key=str) == sorted(expected, key=str)
    # The drawings above describe the same three sets.
    for art, r0 in (("|o x\n| x x", 0), ("|  x x\n| o x", -1), ("|  x\n| o x\n|  x", -1)):
        _, labels = parse_board(art, r0=r0)
        cells = sorted(labels["o"] + labels["x"])
        assert {"tile": [list(c) for c in cells]} in expected
    assert {tuple(sorted(s)) for s in TILE_SHAPES} == {
        tuple(tuple(c) for c in m["tile"]) for m in expected
    }
    # The same shape anywhere else is not a legal first tile.
    with pytest.raises(ValueError):
        play(g, tile((1, 0), (2, 0), (1, 1), (2, 1)))
    # Cell order inside the move does not matter to play().
    g1 = play(g, {"tile": [[1, 1], [0, 0], [1, 0], [0, 1]]})
    assert g1.phase == "build" and g1.to_move == 1
    assert to_position(g1)["tiles"] == [[[0, 0], [0, 1], [1, 0], [1, 1]]]


FIRST = tile((0, 0), (1, 0), (0, 1), (1, 1))


def test_tile_must_share_an_edge_and_single_contact_is_enough():
    # Existing tile a. Candidate T touches a along ONE edge only, (2,-1)-(1,0).
    # Candidate F is a diagonal near-miss: (2,2) lies 2 steps from (1,1), in the
    # direction of a hex corner. On a hex grid non-neighbouring hexes share no edge
    # and not even a corner, so F does not touch the pasture.
    #   |    T T            r=-2
    #   |     T T           r=-1
    #   |  a a              r=0
    #   |   a a             r=1
    #   |        F F        r=2
    #   |         F F       r=3
    art = """
        |    T T
        |     T T
        |  a a
        |   a a
        |        F F
        |         F F
    """
    _, labels = parse_board(art, q0=0, r0=-2)
    assert labels["a"] == [(0, 0), (0, 1), (1, 0), (1, 1)]
    assert labels["T"] == [(2, -2), (2, -1), (3, -2), (3, -1)]
    assert labels["F"] == [(2, 2), (2, 3), (3, 2), (3, 3)]
    g = play(new_game(Rules(2)), FIRST)
    moves = legal_moves(g)
    touching = {"tile": [list(c) for c in labels["T"]]}
    far = {"tile": [list(c) for c in labels["F"]]}
    assert touching in moves
    assert far not in moves
    with pytest.raises(ValueError):
        play(g, far)
    g2 = play(g, touching)
    assert g2.to_move == 0 and len(to_position(g2)["cells"]) == 8


def test_second_tile_set_matches_brute_force():
    # Every later tile = a translation of one of the 3 shapes, no overlap, and at
    # least one hex that neighbours the pasture. Brute force over a window.
    g = play(new_game(Rules(2)), FIRST)
    pasture = {(0, 0), (1, 0), (0, 1), (1, 1)}
    expected = set()
    for shape in TILE_SHAPES:
        for dq in range(-6, 7):
            for dr in range(-6, 7):
                cells = tuple(sorted((q + dq, r + dr) for q, r in shape))
                if any(c in pasture for c in cells):
                    continue
                if any((q + a, r + b) in pasture for q, r in cells for a, b in DIRECTIONS):
                    expected.add(cells)
    got = [tuple(tuple(c) for c in m["tile"]) for m in legal_moves(g)]
    assert len(got) == len(set(got)), "distinct moves = distinct hex sets"
    assert set(got) == expected
    assert len(expected) == 42  # 14 per orientation around a 2x2 rhombus


def test_overlapping_tile_rejected():
    # Existing tile a; candidate tile t would cover the a at (1,1) (marked X).
    #   |a a
    #   | a X t
    #   |  t t
    g = play(new_game(Rules(2)), FIRST)
    overlapping = tile((1, 1), (2, 1), (1, 2), (2, 2))
    assert overlapping not in legal_moves(g)
    with pytest.raises(ValueError):
        play(g, overlapping)
    # The same shape shifted one hex east does not overlap and touches: legal.
    assert tile((2, 1), (3, 1), (2, 2), (3, 2)) in legal_moves(g)


def test_build_turn_order_and_reverse_placement_order():
    # 3 players, 1 tile each, building a 2x6 strip:
    #   |a a b b c c
    #   | a a b b c c
    # Tiles: seat 0 a, seat 1 b, seat 2 c. Every hex is on the outer perimeter.
    for order, expected_seats in (("clockwise_from_first", [0, 1, 2]), ("reverse", [2, 1, 0])):
        rules = Rules(3, tiles_per_player=1, placement_order=order)
        g = new_game(rules)
        seats = []
        for k in range(3):
            seats.append(g.to_move)
            g = play(g, tile((2 * k, 0), (2 * k + 1, 0), (2 * k, 1), (2 * k + 1, 1)))
        assert seats == [0, 1, 2]
        assert g.phase == "place"
        assert {tuple(m["place"]) for m in legal_moves(g)} == {(q, r) for q in range(6) for r in (0, 1)}
        placed_by = []
        for spot in ((0, 0), (5, 1), (2, 0)):
            placed_by.append(g.to_move)
            g = play(g, {"place": list(spot)})
        assert placed_by == expected_seats
        assert stacks_of(g) == {
            (0, 0): (expected_seats[0], 16),
            (5, 1): (expected_seats[1], 16),
            (2, 0): (expected_seats[2], 16),
        }
        # Seat 0 moves first whatever the placement order.
        assert g.phase == "move" and g.to_move == 0


# ---------------------------------------------------------------------------
# Placement of the starting stacks
# ---------------------------------------------------------------------------

RING = """
    |  a a a
    | a b b a
    |a b H b a
    | a b b a
    |  a 0 a
"""
# A hexagon of radius 2 around the hole H at (0,0). The inner rim b touches only
# the hole; the outer ring a (and the seat-0 stack) touches the unbounded outside.


def test_hole_rim_not_eligible_for_outer_perimeter():
    rules = Rules(2, start_zone="outer_perimeter")
    g, labels = game_of(RING, rules, phase="place", to_move=1, heights=[16], q0=-1, r0=-2)
    assert labels["H"] == [(0, 0)]
    assert labels["b"] == [(-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0)]
    assert len(labels["a"]) == 11  # 12 outer hexes, one of them holds seat 0's stack
    assert stacks_of(g) == {(-1, 2): (0, 16)}
    assert sorted(tuple(m["place"]) for m in legal_moves(g)) == labels["a"]
    with pytest.raises(ValueError):
        play(g, {"place": [0, 1]})  # rim of the hole
    with pytest.raises(ValueError):
        play(g, {"place": [-1, 2]})  # occupied


def test_hole_rim_eligible_for_any_edge():
    rules = Rules(2, start_zone="any_edge")
    g, labels = game_of(RING, rules, phase="place", to_move=1, heights=[16], q0=-1, r0=-2)
    assert sorted(tuple(m["place"]) for m in legal_moves(g)) == sorted(labels["a"] + labels["b"])
    g2 = play(g, {"place": [0, 1]})
    assert stacks_of(g2) == {(-1, 2): (0, 16), (0, 1): (1, 16)}
    assert g2.phase == "move" and g2.to_move == 0


def test_bay_open_to_the_outside_counts_as_outer_perimeter():
    # The ring with a channel G G from the hole H to the outside: H is now part of
    # the unbounded outside, so every hex around it is a start hex.
    #   |  a a a
    #   | a b b a
    #   |a b H G G
    #   | a b b a
    #   |  a 0 a
    art = """
        |  a a a
        | a b b a
        |a b H G G
        | a b b a
        |  a 0 a
    """
    g, labels = game_of(art, Rules(2), phase="place", to_move=1, heights=[16], q0=-1, r0=-2)
    assert labels["G"] == [(1, 0), (2, 0)]
    assert len(labels["a"] + labels["b"]) == 15
    assert sorted(tuple(m["place"]) for m in legal_moves(g)) == sorted(labels["a"] + labels["b"])


def test_interior_hex_never_eligible():
    # A hexagon of radius 1: the centre c has 6 pasture neighbours, so it is
    # never a start hex; the 6 others touch the outside.
    #   |  . .
    #   | . c .
    #   |  . .
    art = """
        |  . .
        | . c .
        |  . .
    """
    for zone in ("outer_perimeter", "any_edge"):
        g, labels = game_of(art, Rules(2, start_zone=zone), phase="place", to_move=0, q0=-1, r0=-1)
        assert labels["c"] == [(0, 0)]
        assert sorted(tuple(m["place"]) for m in legal_moves(g)) == [
            (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0)
        ]


# ---------------------------------------------------------------------------
# Moving
# ---------------------------------------------------------------------------


def test_slide_stops_before_stack_and_before_gap():
    #   |0 . x 1 . .      r=0: seat 0 (0,0) h=3, seat 1 (3,0)
    #   | 0 y   . .       r=1: seat 0 (0,1) h=2, gap at (2,1)
    # (0,0) east: passes (1,0), stops on x=(2,0) before seat 1's stack.
    # (0,0) south-east: blocked by its own stack at (0,1) (own stacks block too).
    # (0,1) east: stops on y=(1,1) before the gap.
    # (0,1) north-east: (1,0), then (2,-1) is off the board.
    art = """
        |0 . x 1 . .
        | 0 y   . .
    """
    g, labels = game_of(art, Rules(2), heights=[3, 1, 2])
    assert labels["x"] == [(2, 0)] and labels["y"] == [(1, 1)]
    assert stacks_of(g) == {(0, 0): (0, 3), (3, 0): (1, 1), (0, 1): (0, 2)}
    assert legal_moves(g) == [
        mv((0, 0), (2, 0), 1),
        mv((0, 0), (2, 0), 2),
        mv((0, 1), (1, 1), 1),  # E comes before NE in DIRECTIONS order
        mv((0, 1), (1, 0), 1),
    ]
    with pytest.raises(ValueError):
        play(g, mv((0, 0), (1, 0), 1))  # must go as far as possible
    with pytest.raises(ValueError):
        play(g, mv((0, 1), (3, 1), 1))  # may not jump the gap
    g2 = play(g, mv((0, 0), (2, 0), 2))
    assert stacks_of(g2) == {(0, 0): (0, 1), (2, 0): (0, 2), (3, 0): (1, 1), (0, 1): (0, 2)}


def test_count_range_is_1_to_height_minus_1():
    #   |0 . x     (0,0) h=4 can only go east, to x=(2,0)
    #   | 0        (0,1) h=1 cannot split although (1,0) is free
    art = """
        |0 . x
        | 0
    """
    g, _ = game_of(art, Rules(2), heights=[4, 1])
    assert legal_moves(g) == [mv((0, 0), (2, 0), n) for n in (1, 2, 3)]
    for bad in (0, 4, -1):
        with pytest.raises(ValueError):
            play(g, mv((0, 0), (2, 0), bad))
    with pytest.raises(ValueError):
        play(g, mv((0, 1), (1, 0), 1))
    g2 = play(g, mv((0, 0), (2, 0), 3))
    assert stacks_of(g2)[(0, 0)] == (0, 1) and stacks_of(g2)[(2, 0)] == (0, 3)


def test_blocked_seat_is_skipped():
    # 3 players.
    #   |1 0 . . .       r=0: seat 1 (0,0) h=5, seat 0 (1,0) h=6
    #   | 2 . . . 1      r=1: seat 2 (0,1) h=6, seat 1 (4,1) h=1
    # Seat 1 is blocked: (0,0) is walled in by seat 0, seat 2 and the edge, and
    # (4,1) has a single sheep.
    art = """
        |1 0 . . .
        | 2 . . . 1
    """
    g, _ = game_of(art, Rules(3), heights=[5, 6, 6, 1])
    assert legal_moves(g) == (
        [mv((1, 0), (4, 0), n) for n in range(1, 6)] + [mv((1, 0), (1, 1), n) for n in range(1, 6)]
    )
    g = play(g, mv((1, 0), (4, 0), 3))
    assert g.phase == "move" and g.to_move == 2  # seat 1 skipped
    assert legal_moves(g) == [mv((0, 1), (3, 1), n) for n in range(1, 6)]
    #   |1 0 . . 0       seat 0 (1,0) h=3, (4,0) h=3
    #   | 2 . . 2 1      seat 2 (0,1) h=1, (3,1) h=5
    g = play(g, mv((0, 1), (3, 1), 5))
    assert g.to_move == 0  # seat 1 still blocked, seat 0 next
    assert legal_moves(g) == (
        [mv((1, 0), (3, 0), n) for n in (1, 2)]
        + [mv((1, 0), (1, 1), n) for n in (1, 2)]
        + [mv((4, 0), (2, 0), n) for n in (1, 2)]
    )
    g = play(g, mv((4, 0), (2, 0), 2))
    assert g.to_move == 2


# Shared by the end-of-game tests (2 players):
#   |0 . 1 1 1     seat 0 (0,0) h=4; seat 1 (2,0) h=2, (3,0) h=1, (4,0) h=1
#   | .            (0,1) empty
# Seat 0 plays (0,0) -> (1,0) with 1 sheep. Seat 1's (2,0) is then walled in, so
# seat 1 cannot move, while seat 0 can still go from (0,0) to (0,1).
ENDGAME = """
    |0 . 1 1 1
    | .
"""


def endgame(rules):
    g, _ = game_of(ENDGAME, rules, heights=[4, 2, 1, 1])
    assert legal_moves(g) == [mv((0, 0), (1, 0), n) for n in (1, 2, 3)] + [
        mv((0, 0), (0, 1), n) for n in (1, 2, 3)
    ]
    return play(g, mv((0, 0), (1, 0), 1))


def test_skip_then_game_over_when_nobody_can_move_shared_result():
    rules = Rules(2, stack_size=4)
    g = endgame(rules)
    assert g.phase == "move" and g.to_move == 0  # seat 1 skipped, seat 0 again
    assert legal_moves(g) == [mv((0, 0), (0, 1), n) for n in (1, 2)]
    g = play(g, mv((0, 0), (0, 1), 1))
    # |0 0 1 1 1
    # | 0          everyone is stuck
    assert is_over(g) and g.phase == "over" and g.to_move is None
    assert legal_moves(g) == []
    assert to_position(g)["to_move"] is None
    # 3 hexes each, one herd of 3 each: shared result.
    assert result(g) == {"scores": [3, 3], "herds": [3, 3], "winner": -1, "cowinners": [0, 1], "loser": -1}
    with pytest.raises(ValueError):
        random_move(g, random.Random(0))


def test_game_ends_now():
    g = endgame(Rules(2, stack_size=4, no_move="game_ends_now"))
    # Seat 1's turn and it cannot move: over at once, scored as usual.
    # |0 0 1 1 1   seat 0: 2 hexes, seat 1: 3 hexes
    assert is_over(g) and g.to_move is None
    assert result(g) == {"scores": [2, 3], "herds": [2, 3], "winner": 1, "cowinners": [1], "loser": -1}


def test_player_loses():
    g = endgame(Rules(2, stack_size=4, no_move="player_loses"))
    # Seat 1 is blocked on its turn and loses, although it leads 3 to 2.
    assert is_over(g)
    assert result(g) == {"scores": [2, 3], "herds": [2, 3], "winner": 0, "cowinners": [0], "loser": 1}
    # The loser is recovered from the position (the only blocked seat).
    g2 = from_position(to_position(g), g.rules)
    assert result(g2) == result(g)


def test_no_move_at_start_of_move_phase():
    # Pasture |. . .   seat 0 placed on (0,0), seat 1 now places on (1,0):
    # seat 0 is walled in before the first move; seat 1 could go east.
    art = "|0 . ."
    for no_move, expected in (
        ("skip", ("move", 1, None)),
        ("game_ends_now", ("over", None, {"scores": [1, 1], "herds": [1, 1], "winner": -1, "cowinners": [0, 1], "loser": -1})),
        ("player_loses", ("over", None, {"scores": [1, 1], "herds": [1, 1], "winner": 1, "cowinners": [1], "loser": 0})),
    ):
        rules = Rules(2, stack_size=16, no_move=no_move, start_zone="any_edge")
        g, _ = game_of(art, rules, phase="place", to_move=1, heights=[16])
        g = play(g, {"place": [1, 0]})
        assert (g.phase, g.to_move) == expected[:2]
        if expected[2] is not None:
            assert result(g) == expected[2]
        else:
            assert legal_moves(g) == [mv((1, 0), (2, 0), n) for n in range(1, 16)]


# ---------------------------------------------------------------------------
# Scoring
# ---------------------------------------------------------------------------


def test_herd_tie_break():
    # Small analogue of the rulebook's 15 vs 15 with herds 10 vs 9: 3 vs 3 hexes,
    # herds 3 vs 2.
    #   |0 0 0 . 1 1 . 1
    g, _ = game_of("|0 0 0 . 1 1 . 1", Rules(2), phase="over", to_move=None)
    assert result(g) == {"scores": [3, 3], "herds": [3, 2], "winner": 0, "cowinners": [0], "loser": -1}
    # More hexes beats a bigger herd.
    #   |0 0 0 . 1 . 1 . 1 . 1
    g, _ = game_of("|0 0 0 . 1 . 1 . 1 . 1", Rules(2), phase="over", to_move=None)
    assert result(g) == {"scores": [3, 4], "herds": [3, 1], "winner": 1, "cowinners": [1], "loser": -1}


SECOND_HERD = """
    |0 0 . 0 0 . 2 2 2
    | . 1 1 . 1 . 1 . .
"""
# Seat 0: herds 2 + 2 (4 hexes). Seat 1: herds 2 + 1 + 1 (4 hexes). Seat 2: 3 hexes.
# (Stacks of different seats may touch; a herd counts own hexes only.)


def test_shared_result_among_score_and_herd_tied_seats():
    g, _ = game_of(SECOND_HERD, Rules(3, final_tie="shared"), phase="over", to_move=None)
    assert result(g) == {"scores": [4, 4, 3], "herds": [2, 2, 3], "winner": -1, "cowinners": [0, 1], "loser": -1}


def test_second_largest_herd():
    g, _ = game_of(SECOND_HERD, Rules(3, final_tie="second_largest_herd"), phase="over", to_move=None)
    assert result(g) == {"scores": [4, 4, 3], "herds": [2, 2, 3], "winner": 0, "cowinners": [0], "loser": -1}
    # Still tied after the second herd: shared.
    #   |0 0 . 1 1 . 0 . 1     seat 0: 2 + 1, seat 1: 2 + 1
    g, _ = game_of("|0 0 . 1 1 . 0 . 1", Rules(2, final_tie="second_largest_herd"), phase="over", to_move=None)
    assert result(g) == {"scores": [3, 3], "herds": [2, 2], "winner": -1, "cowinners": [0, 1], "loser": -1}
    # Both seats have one herd of 3: second herds 0 and 0 -> shared.
    #   |0 0 0 . 1 1 1
    # (With equal scores and equal largest herds, a seat with a single herd always
    # faces another single-herd seat, so "0 if none" only ever ties.)
    g, _ = game_of("|0 0 0 . 1 1 1", Rules(2, final_tie="second_largest_herd"), phase="over", to_move=None)
    assert result(g) == {"scores": [3, 3], "herds": [3, 3], "winner": -1, "cowinners": [0, 1], "loser": -1}
    # The largest herd is still compared before the second one.
    #   |0 0 . 0 . 1 1 1     seat 0: 2 + 1 vs seat 1: 3 -> seat 1 wins on the largest herd
    g, _ = game_of("|0 0 . 0 . 1 1 1", Rules(2, final_tie="second_largest_herd"), phase="over", to_move=None)
    assert result(g)["winner"] == 1


# ---------------------------------------------------------------------------
# Position format
# ---------------------------------------------------------------------------


def test_to_position_exact_format():
    g = play(new_game(Rules(2)), FIRST)
    assert to_position(g) == {
        "game": "battle-sheep",
        "version": VERSION,
        "coords": "axial",
        "num_players": 2,
        "stack_size": 16,
        "phase": "build",
        "to_move": 1,
        "cells": [
            {"q": 0, "r": 0, "owner": None, "height": 0},
            {"q": 0, "r": 1, "owner": None, "height": 0},
            {"q": 1, "r": 0, "owner": None, "height": 0},
            {"q": 1, "r": 1, "owner": None, "height": 0},
        ],
        "tiles": [[[0, 0], [0, 1], [1, 0], [1, 1]]],
    }


def test_from_position_without_tiles():
    # Two tiles down (8 cells, no "tiles" list): the third tile is seat 0's, and
    # after it seat 1 places the fourth.
    #   |. . . .
    #   | . . . .
    pos, _ = position_of("|. . . .\n| . . . .", Rules(2), "build", 0)
    g = from_position(pos, Rules(2))
    assert len(legal_moves(g)) > 0
    g2 = play(g, tile((4, 0), (5, 0), (4, 1), (5, 1)))
    assert g2.to_move == 1 and g2.phase == "build"
    assert "tiles" not in to_position(g2)
    assert len(to_position(g2)["cells"]) == 12
    # With 4 tiles per player and 2 players, the 8th tile ends the build phase.
    pos7 = {**pos, "to_move": 0, "cells": [
        {"q": q, "r": r, "owner": None, "height": 0} for q in range(14) for r in (0, 1)
    ]}
    g7 = from_position(pos7, Rules(2))
    g8 = play(g7, tile((14, 0), (15, 0), (14, 1), (15, 1)))
    assert g8.phase == "place" and g8.to_move == 0


def test_round_trip_through_positions():
    rng = random.Random(12345)
    for rules in (Rules(2), Rules(3, no_move="game_ends_now"), Rules(4, placement_order="reverse")):
        g = new_game(rules)
        while True:
            pos = to_position(g)
            g2 = from_position(copy.deepcopy(pos), rules)
            assert to_position(g2) == pos
            assert legal_moves(g2) == legal_moves(g)
            if is_over(g):
                assert result(g2) == result(g)
                break
            move = random_move(g, rng)
            assert to_position(play(g2, move)) == to_position(play(g, move))
            g = play(g, move)


# ---------------------------------------------------------------------------
# Whole random games and API contracts
# ---------------------------------------------------------------------------


def test_random_games_conserve_sheep_and_bound_moves():
    configs = [
        Rules(2),
        Rules(3),
        Rules(4),
        Rules(2, start_zone="any_edge", final_tie="second_largest_herd"),
        Rules(2, no_move="player_loses"),
        Rules(3, no_move="game_ends_now", placement_order="reverse"),
        Rules(2, tiles_per_player=2, stack_size=6),
    ]
    rng = random.Random(2024)
    for rules in configs:
        for _ in range(15):
            g = new_game(rules)
            counts = {"build": 0, "place": 0, "move": 0}
            while not is_over(g):
                counts[g.phase] += 1
                g = play(g, random_move(g, rng))
            p = rules.num_players
            assert counts["build"] == p * rules.tiles_per_player
            assert counts["place"] == p
            assert counts["move"] <= p * (rules.stack_size - 1)
            pos = to_position(g)
            assert len(pos["cells"]) == 4 * p * rules.tiles_per_player
            assert len(pos["tiles"]) == p * rules.tiles_per_player
            for seat in range(p):
                assert sum(c["height"] for c in pos["cells"] if c["owner"] == seat) == rules.stack_size
            res = result(g)
            assert res["scores"] == [sum(1 for c in pos["cells"] if c["owner"] == s) for s in range(p)]
            if res["winner"] >= 0:
                assert res["cowinners"] == [res["winner"]]
            else:
                assert len(res["cowinners"]) >= 2
            if rules.no_move == "skip":
                # The game only ends when nobody at all can move.
                for seat in range(p):
                    probe = from_position({**pos, "phase": "move", "to_move": seat}, rules)
                    assert legal_moves(probe) == []
            if rules.no_move == "player_loses":
                assert res["loser"] in (0, 1) and res["winner"] == 1 - res["loser"]


def test_play_random_game_is_deterministic_per_seed():
    a = play_random_game(Rules(2), random.Random(7))
    b = play_random_game(Rules(2), random.Random(7))
    assert is_over(a) and to_position(a) == to_position(b)


def test_play_rejects_illegal_moves():
    g = new_game(Rules(2))
    for bad in (
        {"place": [0, 0]},                       # wrong phase
        mv((0, 0), (1, 0), 1),                   # wrong phase
        {"tile": [[0, 0], [1, 0], [0, 1]]},      # 3 hexes
        {"tile": [[0, 0], [1, 0], [0, 1], [2, 2]]},  # not a rhombus
        {"foo": 1},
        "E",
    ):
        with pytest.raises(ValueError):
            play(g, bad)
    # A stack of the other seat cannot be moved.
    #   |0 . . 1 .     seat 0 to move
    g, _ = game_of("|0 . . 1 .", Rules(2), heights=[5, 5])
    with pytest.raises(ValueError):
        play(g, mv((3, 0), (1, 0), 1))
    with pytest.raises(ValueError):
        play(g, {"from": [0, 0], "to": [2, 0], "count": 1.0})


def test_play_does_not_mutate_input():
    rng = random.Random(99)
    g = new_game(Rules(3))
    while not is_over(g):
        before_pos = copy.deepcopy(to_position(g))
        before_stacks = dict(g.stacks)
        before = (g.phase, g.to_move, g.tiles, g.tiles_placed, g.pasture)
        move = random_move(g, rng)
        move_copy = copy.deepcopy(move)
        g2 = play(g, move)
        assert g2 is not g
        assert to_position(g) == before_pos
        assert g.stacks == before_stacks
        assert (g.phase, g.to_move, g.tiles, g.tiles_placed, g.pasture) == before
        assert move == move_copy
        g = g2
