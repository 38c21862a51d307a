"""Scripted rule tests on the Battle Sheep KERNEL, one per rule and option.

Each test builds a position (ASCII board -> JSON position -> position.to_state), asks
the kernel for its legal moves (position.legal_json), applies moves through
position.json_to_action + engine.apply and reads the result with engine.outcome.
The drawing convention is in tests/conftest.py (q grows to the right, r downward,
each row shifted half a hex right of the one above; digits are stacks of that seat).
Rule references: the rules and their readings, sheepsim/games/battlesheep/READINGS.md.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

from sheepsim.errors import SheepsimError
from sheepsim.games import driver
from sheepsim.games.battlesheep import engine as E
from sheepsim.games.battlesheep.play import KERNELS as PL
from sheepsim.games.battlesheep import policies as POL
from sheepsim.games.battlesheep import position as POS
from sheepsim.games.battlesheep import rules as RU
from sheepsim.games.battlesheep.game import initial_state
from sheepsim.games.battlesheep.presets import PRESETS
from sheepsim.rng import streams

from conftest import canon, kernel_of, kernel_play, mv, outcome_row, parse_board, position_of, row_result, stacks_of


def load(art, players, stack, phase="move", to_move=0, heights=None, q0=0, r0=0, tiles=None, **options):
    pos, labels = position_of(art, players, stack, phase, to_move, heights, q0, r0, tiles)
    rules, ra, s = kernel_of(pos, **options)
    return rules, ra, s, labels


def legal(s, ra) -> set:
    return {canon(m) for m in POS.legal_json(s, ra)}


def keys(moves) -> set:
    return {canon(m) for m in moves}


def tile(*cells) -> dict:
    return {"tile": [list(c) for c in sorted(cells)]}


def fresh(players=2, **options):
    rules = RU.make(players, options)
    ra = RU.to_array(rules)
    return rules, ra, E.empty_state(ra)


def phase_of(s) -> str:
    return POS.PHASES[int(s[E.H_PHASE])]


FIRST = tile((0, 0), (1, 0), (0, 1), (1, 1))

# ---------------------------------------------------------------------------
# Building the pasture
# ---------------------------------------------------------------------------


def test_first_tile_has_exactly_three_options_at_the_origin():
    # The 3 orientations of the rhombus with its anchor o on the origin:
    #   |o x        |  x x       |  x
    #   | x x       | o x        | o x
    #                            |  x
    rules, ra, s = fresh()
    assert phase_of(s) == "build" and int(s[E.H_TO_MOVE]) == 0
    expected = []
    for art, r0 in (("|o x\n| x x", 0), ("|  x x\n| o x", -1), ("|  x\n| o x\n|  x", -1)):
        _, labels = parse_board(art, r0=r0)
        assert labels["o"] == [(0, 0)]
        expected.append(tile(*labels["o"], *labels["x"]))
    assert legal(s, ra) == keys(expected)
    # the same shape anywhere else is not a first tile
    with pytest.raises(SheepsimError, match="not legal"):
        POS.json_to_action(s, ra, tile((1, 0), (2, 0), (1, 1), (2, 1)))
    kernel_play(s, ra, {"tile": [[1, 1], [0, 0], [1, 0], [0, 1]]})   # cell order does not matter
    assert phase_of(s) == "build" and int(s[E.H_TO_MOVE]) == 1
    assert POS.from_state(s)["tiles"] == [[[0, 0], [0, 1], [1, 0], [1, 1]]]


def test_tile_must_share_an_edge_and_may_not_overlap():
    # Existing tile a. T touches a along ONE edge, (2,-1)-(1,0): legal.
    # F is a diagonal near-miss: (2,2) is 2 steps from (1,1), so no shared edge.
    # X would cover the a at (1,1): overlap, illegal.
    #   |    T T            r=-2
    #   |     T T           r=-1
    #   |  a a              r=0
    #   |   a a X X         r=1     X = (1,1) (a!), (2,1), (1,2), (2,2) as one tile
    #   |        F F        r=2
    #   |         F F       r=3
    _, labels = parse_board("""
        |    T T
        |     T T
        |  a a
        |   a a
        |        F F
        |         F F
    """, r0=-2)
    rules, ra, s = fresh()
    kernel_play(s, ra, FIRST)
    moves = legal(s, ra)
    assert canon(tile(*labels["T"])) in moves
    assert canon(tile(*labels["F"])) not in moves
    overlapping = tile((1, 1), (2, 1), (1, 2), (2, 2))
    assert canon(overlapping) not in moves
    with pytest.raises(SheepsimError, match="not legal"):
        POS.json_to_action(s, ra, overlapping)
    with pytest.raises(SheepsimError, match="not legal"):
        POS.json_to_action(s, ra, tile(*labels["F"]))
    # brute force: every translation of every shape, no overlap, at least one hex
    # neighbouring the pasture (sharing an edge = being neighbours on a hex grid)
    pasture = {(0, 0), (1, 0), (0, 1), (1, 1)}
    dirs = list(zip(E.DQ.tolist(), E.DR.tolist()))
    expected = set()
    for shape in E.TILE_SHAPES.tolist():
        for dq in range(-6, 7):
            for dr in range(-6, 7):
                cells = [(q + dq, r + dr) for q, r in shape]
                if any(c in pasture for c in cells):
                    continue
                if any((q + a, r + b) in pasture for q, r in cells for a, b in dirs):
                    expected.add(canon(tile(*cells)))
    assert moves == expected and len(moves) == 42   # 14 per orientation around a rhombus
    kernel_play(s, ra, tile(*labels["T"]))
    assert int(s[E.H_NHEX]) == 8 and int(s[E.H_TO_MOVE]) == 0


def test_build_order_and_placement_orders():
    # 3 players, 1 tile each, a 2x6 strip built left to right:
    #   |a a b b c c          tile a by seat 0, b by seat 1, c by seat 2
    #   | a a b b c c         every hex is on the outer perimeter
    for order, placers in (("clockwise_from_first", [0, 1, 2]), ("reverse", [2, 1, 0])):
        rules, ra, s = fresh(3, tiles_per_player=1, placement_order=order)
        builders = []
        for k in range(3):
            builders.append(int(s[E.H_TO_MOVE]))
            kernel_play(s, ra, tile((2 * k, 0), (2 * k + 1, 0), (2 * k, 1), (2 * k + 1, 1)))
        assert builders == [0, 1, 2]
        assert phase_of(s) == "place"
        assert legal(s, ra) == {("place", (q, r)) for q in range(6) for r in (0, 1)}
        got = []
        for spot in ((0, 0), (5, 1), (2, 0)):
            got.append(int(s[E.H_TO_MOVE]))
            kernel_play(s, ra, {"place": list(spot)})
        assert got == placers
        assert stacks_of(s) == {(0, 0): (placers[0], 16), (5, 1): (placers[1], 16), (2, 0): (placers[2], 16)}
        # seat 0 moves first whatever the placement order (seat 0 acts first in every phase)
        assert phase_of(s) == "move" and int(s[E.H_TO_MOVE]) == 0


def test_stack_size_and_tiles_per_player_options():
    # 2 players x tiles_per_player=2: building lasts exactly 4 tiles; stacks of 7.
    #   |a a b b c c d d
    #   | a a b b c c d d
    rules, ra, s = fresh(2, tiles_per_player=2, stack_size=7)
    for k in range(4):
        assert phase_of(s) == "build" and int(s[E.H_TO_MOVE]) == k % 2
        kernel_play(s, ra, tile((2 * k, 0), (2 * k + 1, 0), (2 * k, 1), (2 * k + 1, 1)))
    assert phase_of(s) == "place" and int(s[E.H_NHEX]) == 16
    kernel_play(s, ra, {"place": [0, 0]})
    kernel_play(s, ra, {"place": [7, 1]})
    assert stacks_of(s) == {(0, 0): (0, 7), (7, 1): (1, 7)}
    # seat 0's stack of 7 at (0,0): E to (7,0), SE to (0,1) (then off the board)
    assert legal(s, ra) == keys([mv((0, 0), (7, 0), n) for n in range(1, 7)] +
                                [mv((0, 0), (0, 1), n) for n in range(1, 7)])
    # tiles_per_player=1, 4 players: the 4th tile ends building
    rules, ra, s = fresh(4, tiles_per_player=1, stack_size=3)
    for k in range(4):
        kernel_play(s, ra, tile((2 * k, 0), (2 * k + 1, 0), (2 * k, 1), (2 * k + 1, 1)))
    assert phase_of(s) == "place" and int(s[E.H_TO_MOVE]) == 0


# ---------------------------------------------------------------------------
# Starting stacks
# ---------------------------------------------------------------------------

# Preset ring-2p: a 6x6 hex parallelogram of 8 tiles with the middle tile missing.
# a = outer perimeter (touches the unbounded outside), b = rim of the hole H only,
# . = interior hexes touching neither.
RING_2P = """
    |a a a a a a
    | a . b b b a
    |  a b H H b a
    |   a b H H b a
    |    a b b b . a
    |     a a a a a a
"""


def _ring(start_zone):
    rules = RU.make(2, {"board": "preset:ring-2p", "start_zone": start_zone})
    return rules, RU.to_array(rules), initial_state(rules)


def test_board_preset_builds_the_preset_pasture_and_starts_in_placement():
    cells, labels = parse_board(RING_2P)
    for order, first in (("clockwise_from_first", 0), ("reverse", 1)):
        rules = RU.make(2, {"board": "preset:ring-2p", "placement_order": order})
        s = initial_state(rules)
        pos = POS.from_state(s)
        assert pos["phase"] == "place" and pos["to_move"] == first
        assert int(s[E.H_PLIES]) == 0 and int(s[E.H_NTILES]) == 8
        assert {(c["q"], c["r"]) for c in pos["cells"]} == set(cells)
        assert all(c["owner"] is None for c in pos["cells"])
        assert len(cells) == 32 and labels["H"] == [(2, 2), (2, 3), (3, 2), (3, 3)]
        assert pos["tiles"] == [sorted(list(h) for h in t) for t in PRESETS["ring-2p"]]
    # the other presets too: the right number of hexes, all in placement
    for name, tiles in PRESETS.items():
        players = len(tiles) // 4
        s = initial_state(RU.make(players, {"board": f"preset:{name}"}))
        assert phase_of(s) == "place" and int(s[E.H_NHEX]) == 4 * len(tiles)
        assert {(int(s[E.Q + i]), int(s[E.R + i])) for i in range(4 * len(tiles))} == {h for t in tiles for h in t}


def test_outer_perimeter_excludes_hole_rims():
    _, labels = parse_board(RING_2P)
    assert len(labels["a"]) == 20 and len(labels["b"]) == 10
    rules, ra, s = _ring("outer_perimeter")
    assert legal(s, ra) == {("place", h) for h in labels["a"]}
    with pytest.raises(SheepsimError, match="not legal"):
        POS.json_to_action(s, ra, {"place": [2, 1]})     # rim of the hole
    with pytest.raises(SheepsimError, match="not legal"):
        POS.json_to_action(s, ra, {"place": [1, 1]})     # interior
    kernel_play(s, ra, {"place": [0, 0]})
    # an occupied hex is no longer available to the next seat
    assert legal(s, ra) == {("place", h) for h in labels["a"] if h != (0, 0)}


def test_any_edge_includes_hole_rims():
    _, labels = parse_board(RING_2P)
    rules, ra, s = _ring("any_edge")
    assert legal(s, ra) == {("place", h) for h in labels["a"] + labels["b"]}
    kernel_play(s, ra, {"place": [0, 0]})
    kernel_play(s, ra, {"place": [2, 1]})
    assert stacks_of(s) == {(0, 0): (0, 16), (2, 1): (1, 16)}
    assert phase_of(s) == "move" and int(s[E.H_TO_MOVE]) == 0


def test_bay_open_to_the_outside_is_outer_perimeter():
    # A radius-2 hexagon whose centre hole H is opened to the outside by the gap G G:
    # H is then outside, so every hex around it may take a starting stack.
    #   |  a a a
    #   | a b b a
    #   |a b H G G
    #   | a b b a
    #   |  a 0 a
    rules, ra, s, labels = load("""
        |  a a a
        | a b b a
        |a b H G G
        | a b b a
        |  a 0 a
    """, 2, 16, phase="place", to_move=1, heights=[16], q0=-1, r0=-2)
    assert labels["G"] == [(1, 0), (2, 0)]
    assert legal(s, ra) == {("place", h) for h in labels["a"] + labels["b"]}


# ---------------------------------------------------------------------------
# Moves
# ---------------------------------------------------------------------------


def test_the_six_directions_slide_as_far_as_possible():
    # Seat 0's stack of 3 in the middle of a radius-2 hexagon; each direction ends on
    # the lettered hex at the rim (E e, NE n, NW w, W x, SW s, SE t); seat 1 sits on
    # a hex that is no line end.
    #   |  w . n
    #   | . . . 1
    #   |x . 0 . e
    #   | . . . .
    #   |  s . t
    rules, ra, s, labels = load("""
        |  w . n
        | . . . 1
        |x . 0 . e
        | . . . .
        |  s . t
    """, 2, 3, heights=[3, 3], q0=-1, r0=-2)
    ends = {d: labels[k][0] for d, k in zip(range(6), "enwxst")}
    # the labels follow the engine's direction table
    for d, (q, r) in ends.items():
        assert (q, r) == (2 * int(E.DQ[d]), 2 * int(E.DR[d]))
    assert legal(s, ra) == keys([mv((0, 0), ends[d], n) for d in range(6) for n in (1, 2)])


def test_slide_stops_before_stacks_and_before_gaps():
    #   |0 . x 1 . .      r=0: seat 0 (0,0) h=3, seat 1 (3,0) h=5
    #   | 0 y   . .       r=1: seat 0 (0,1) h=2, gap at (2,1)
    # (0,0) E passes (1,0) and stops on x=(2,0) before seat 1's stack;
    # (0,0) SE is blocked by its own stack at (0,1) (own stacks block too);
    # (0,1) E stops on y=(1,1) before the gap; (0,1) NE reaches (1,0), then off board.
    rules, ra, s, labels = load("""
        |0 . x 1 . .
        | 0 y   . .
    """, 2, 5, heights=[3, 5, 2])
    assert labels["x"] == [(2, 0)] and labels["y"] == [(1, 1)]
    assert legal(s, ra) == keys([mv((0, 0), (2, 0), 1), mv((0, 0), (2, 0), 2),
                                 mv((0, 1), (1, 1), 1), mv((0, 1), (1, 0), 1)])
    with pytest.raises(SheepsimError, match="not legal"):
        POS.json_to_action(s, ra, mv((0, 0), (1, 0), 1))      # must go as far as possible
    with pytest.raises(SheepsimError, match="not legal"):
        POS.json_to_action(s, ra, mv((0, 1), (3, 1), 1))      # may not jump the gap
    with pytest.raises(SheepsimError, match="not legal"):
        POS.json_to_action(s, ra, mv((0, 0), (4, 0), 1))      # may not jump a stack
    kernel_play(s, ra, mv((0, 0), (2, 0), 2))
    assert stacks_of(s) == {(0, 0): (0, 1), (2, 0): (0, 2), (3, 0): (1, 5), (0, 1): (0, 2)}
    assert int(s[E.H_TO_MOVE]) == 1 and int(s[E.H_MOVES]) == 1


def test_count_is_1_to_height_minus_1():
    #   |0 . x     (0,0) h=4 can only go E, to x=(2,0); SE (0,1) is its own stack
    #   | 0 . 1    (0,1) h=1 cannot split although (1,1) is free
    rules, ra, s, labels = load("""
        |0 . x
        | 0 . 1
    """, 2, 5, heights=[4, 1, 5])
    assert legal(s, ra) == keys([mv((0, 0), (2, 0), n) for n in (1, 2, 3)])
    for bad in (0, 4, -1):
        with pytest.raises(SheepsimError, match="not legal"):
            POS.json_to_action(s, ra, mv((0, 0), (2, 0), bad))
    with pytest.raises(SheepsimError, match="not legal"):
        POS.json_to_action(s, ra, mv((0, 1), (1, 1), 1))
    kernel_play(s, ra, mv((0, 0), (2, 0), 3))
    assert stacks_of(s)[(0, 0)] == (0, 1) and stacks_of(s)[(2, 0)] == (0, 3)


def test_blocked_player_is_skipped():
    # 3 players, 6 sheep each.
    #   |1 0 . . .       r=0: seat 1 (0,0) h=5, seat 0 (1,0) h=6
    #   | 2 . . . 1      r=1: seat 2 (0,1) h=6, seat 1 (4,1) h=1
    # Seat 1 is blocked: (0,0) is walled in by seat 0, seat 2 and the edge, and
    # (4,1) holds a single sheep.
    rules, ra, s, _ = load("""
        |1 0 . . .
        | 2 . . . 1
    """, 3, 6, heights=[5, 6, 6, 1])
    assert not E.can_move(s, 1)
    assert legal(s, ra) == keys([mv((1, 0), (4, 0), n) for n in range(1, 6)] +
                                [mv((1, 0), (1, 1), n) for n in range(1, 6)])
    kernel_play(s, ra, mv((1, 0), (4, 0), 3))
    assert phase_of(s) == "move" and int(s[E.H_TO_MOVE]) == 2       # seat 1 skipped
    assert legal(s, ra) == keys([mv((0, 1), (3, 1), n) for n in range(1, 6)])
    #   |1 0 . . 0       seat 0 (1,0) h=3, (4,0) h=3
    #   | 2 . . 2 1      seat 2 (0,1) h=1, (3,1) h=5
    kernel_play(s, ra, mv((0, 1), (3, 1), 5))
    assert int(s[E.H_TO_MOVE]) == 0                                  # seat 1 still blocked
    kernel_play(s, ra, mv((4, 0), (2, 0), 2))
    assert int(s[E.H_TO_MOVE]) == 2


# Shared by the end-of-game tests (2 players, 4 sheep each):
#   |0 . 1 1 1     seat 0 (0,0) h=4; seat 1 (2,0) h=2, (3,0) h=1, (4,0) h=1
#   | .            (0,1) empty
# Seat 0 plays (0,0) -> (1,0) with 1 sheep. Seat 1's (2,0) is then walled in, so
# seat 1 cannot move, while seat 0 can still go from (0,0) to (0,1).
ENDGAME = """
    |0 . 1 1 1
    | .
"""


def _endgame(**options):
    rules, ra, s, _ = load(ENDGAME, 2, 4, heights=[4, 2, 1, 1], **options)
    assert legal(s, ra) == keys([mv((0, 0), (1, 0), n) for n in (1, 2, 3)] +
                                [mv((0, 0), (0, 1), n) for n in (1, 2, 3)])
    kernel_play(s, ra, mv((0, 0), (1, 0), 1))
    return rules, ra, s


def test_game_ends_when_nobody_can_move_with_a_shared_result():
    rules, ra, s = _endgame()
    assert phase_of(s) == "move" and int(s[E.H_TO_MOVE]) == 0       # seat 1 skipped
    assert legal(s, ra) == keys([mv((0, 0), (0, 1), n) for n in (1, 2)])
    kernel_play(s, ra, mv((0, 0), (0, 1), 1))
    #   |0 0 1 1 1
    #   | 0          nobody can move
    assert phase_of(s) == "over" and int(s[E.H_TO_MOVE]) == -1
    assert POS.legal_json(s, ra) == []
    assert POS.from_state(s)["to_move"] is None
    row = outcome_row(s, ra)
    # 3 hexes and one herd of 3 each: shared result (READINGS.md, "Still tied after the herd tie-break"), winner -1
    assert row_result(row, 2) == {"scores": [3, 3], "herds": [3, 3], "winner": -1, "cowinners": [0, 1], "loser": -1}
    assert int(row[E.O_TIEBREAK]) == 1 and int(row[E.O_MOVES]) == 2


def test_no_move_game_ends_now():
    rules, ra, s = _endgame(no_move="game_ends_now")
    # seat 1's turn and it cannot move: over at once although seat 0 could still move
    assert phase_of(s) == "over" and E.can_move(s, 0)
    assert row_result(outcome_row(s, ra), 2) == {"scores": [2, 3], "herds": [2, 3], "winner": 1,
                                                 "cowinners": [1], "loser": -1}


def test_no_move_player_loses():
    rules, ra, s = _endgame(no_move="player_loses")
    # seat 1 is blocked on its turn and loses, although it leads 3 to 2 (Splits)
    assert phase_of(s) == "over"
    row = outcome_row(s, ra)
    assert row_result(row, 2) == {"scores": [2, 3], "herds": [2, 3], "winner": 0, "cowinners": [0], "loser": 1}
    with pytest.raises(SheepsimError, match="2 players only"):
        RU.make(3, {"no_move": "player_loses"})


def test_no_move_at_the_start_of_the_move_phase():
    # Pasture |0 . .  : seat 0 placed on (0,0); seat 1 now places on (1,0), walling
    # seat 0 in before the first move, while seat 1 could go E to (2,0).
    for no_move, phase, to_move, result in (
        ("skip", "move", 1, None),
        ("game_ends_now", "over", -1, {"scores": [1, 1], "herds": [1, 1], "winner": -1, "cowinners": [0, 1], "loser": -1}),
        ("player_loses", "over", -1, {"scores": [1, 1], "herds": [1, 1], "winner": 1, "cowinners": [1], "loser": 0}),
    ):
        rules, ra, s, _ = load("|0 . .", 2, 16, phase="place", to_move=1, heights=[16], no_move=no_move)
        kernel_play(s, ra, {"place": [1, 0]})
        assert (phase_of(s), int(s[E.H_TO_MOVE])) == (phase, to_move), no_move
        if result is None:
            assert legal(s, ra) == keys([mv((1, 0), (2, 0), n) for n in range(1, 16)])
        else:
            assert row_result(outcome_row(s, ra), 2) == result


# ---------------------------------------------------------------------------
# Scoring (all stacks of 1: nobody can move, so these are finished games)
# ---------------------------------------------------------------------------


def _over(art, players, stack, heights=None, **options):
    rules, ra, s, _ = load(art, players, stack, phase="over", to_move=None, heights=heights, **options)
    return outcome_row(s, ra)


def test_herd_tie_break():
    # Small analogue of the rulebook's 15 vs 15 with herds 10 vs 9: 3 vs 3 hexes,
    # largest herds 3 vs 2 -> seat 0 wins on the tie-break.
    #   |0 0 0 . 1 1 . 1
    row = _over("|0 0 0 . 1 1 . 1", 2, 3)
    assert row_result(row, 2) == {"scores": [3, 3], "herds": [3, 2], "winner": 0, "cowinners": [0], "loser": -1}
    assert int(row[E.O_TIEBREAK]) == 1
    # More hexes beats a bigger herd (seat 0's (0,0) h=2 is walled in by the edge).
    #   |0 0 0 . 1 . 1 . 1 . 1
    row = _over("|0 0 0 . 1 . 1 . 1 . 1", 2, 4, heights=[2, 1, 1, 1, 1, 1, 1])
    assert row_result(row, 2) == {"scores": [3, 4], "herds": [3, 1], "winner": 1, "cowinners": [1], "loser": -1}
    assert int(row[E.O_TIEBREAK]) == 0


def test_shared_result_only_among_the_tied_seats():
    #   |0 0 . 1 1 . 2 . 2      seats 0 and 1: 2 hexes, herd 2; seat 2: 2 hexes, herd 1
    row = _over("|0 0 . 1 1 . 2 . 2", 3, 2)
    assert row_result(row, 3) == {"scores": [2, 2, 2], "herds": [2, 2, 1], "winner": -1, "cowinners": [0, 1],
                                  "loser": -1}
    assert int(row[E.O_COWINNERS]) == 0b011


def test_final_tie_second_largest_herd():
    #   |0 0 . 0 0 . 1 1 . 1 . 1      seat 0: herds 2 + 2; seat 1: herds 2 + 1 + 1
    art = "|0 0 . 0 0 . 1 1 . 1 . 1"
    shared = _over(art, 2, 4)
    assert row_result(shared, 2)["cowinners"] == [0, 1] and int(shared[E.O_WINNER]) == -1
    second = _over(art, 2, 4, final_tie="second_largest_herd")
    assert row_result(second, 2) == {"scores": [4, 4], "herds": [2, 2], "winner": 0, "cowinners": [0], "loser": -1}
    # still tied after the second herd: shared
    #   |0 0 . 1 1 . 0 . 1      seat 0: 2 + 1, seat 1: 2 + 1
    row = _over("|0 0 . 1 1 . 0 . 1", 2, 3, final_tie="second_largest_herd")
    assert int(row[E.O_WINNER]) == -1 and int(row[E.O_COWINNERS]) == 0b11
    # one herd each: no second herd on either side -> shared
    #   |0 0 0 . 1 1 1
    row = _over("|0 0 0 . 1 1 1", 2, 3, final_tie="second_largest_herd")
    assert int(row[E.O_WINNER]) == -1
    # the largest herd is still compared first
    #   |0 0 . 0 . 1 1 1        seat 0: 2 + 1 vs seat 1: 3 -> seat 1
    row = _over("|0 0 . 0 . 1 1 1", 2, 3, final_tie="second_largest_herd")
    assert int(row[E.O_WINNER]) == 1


def test_herds_connect_only_through_shared_edges_of_own_hexes():
    # Seat 0's four hexes: (0,0)-(1,0) touch; (1,1) touches (1,0) (SE of it is (1,1)),
    # so 3 form one herd; (3,1) is alone. Seat 1's 4 hexes lie between them but
    # stacks of other seats never join a herd.
    #   |0 0 1 . 1
    #   | . 0 1 0 1
    row = _over("|0 0 1 . 1\n| . 0 1 0 1", 2, 4)
    assert row_result(row, 2)["herds"] == [3, 2]
    assert row_result(row, 2)["scores"] == [4, 4] and int(row[E.O_WINNER]) == 0


# ---------------------------------------------------------------------------
# board=random: the pasture does not depend on the seat policies
# ---------------------------------------------------------------------------


def _board_after_play(board, slot_ids, seed, game):
    """(pasture tiles at the end, the first 8 log rows) of one game of the runner's loop."""
    rules = RU.make(2, {"board": board})
    ra = RU.to_array(rules)
    init = initial_state(rules)
    row = np.zeros(E.O_SIZE, dtype=np.int32)
    log = np.zeros((160, E.ACTION_SIZE + 2), dtype=np.int32)
    fault = np.zeros(driver.FAULT_SIZE, dtype=np.int64)
    slots = np.array([0, 1, 0, 0], dtype=np.int64)
    params = np.array([[0.0, 1.0], [0.0, 1.0]])
    n = PL.replay(ra, init, np.array(slot_ids, dtype=np.int64), params, slots, streams(seed, game, PL.GAME.streams),
                  game, row, log, fault)
    assert not fault.any() and 0 < n <= len(log)
    s = init.copy()
    for action in log[:n, 1:1 + E.ACTION_SIZE]:
        E.apply(s, ra, *(int(x) for x in action))
    assert int(s[E.H_PHASE]) == E.PH_OVER
    if board == "random":
        assert (log[:8, 0] == driver.NATURE).all()      # the rules, not a seat, build
    return POS.from_state(s)["tiles"], log[:8].copy()


def test_board_random_ignores_policies_while_building():
    boards = set()
    for game in range(5):
        layouts = []
        for ids in ([POL.RANDOM, POL.RANDOM], [POL.GREEDY, POL.GREEDY], [POL.GREEDY, POL.RANDOM]):
            tiles, log = _board_after_play("random", ids, 123, game)
            layouts.append((str(tiles), log.tobytes()))
        assert len(set(layouts)) == 1, f"game {game}: the random board depends on the policies"
        boards.add(layouts[0][0])
    assert len(boards) == 5     # ... but does depend on the game
    # the check has teeth: with board=built the policies do build different pastures
    built = {str(_board_after_play("built", ids, 123, 0)[0]) for ids in ([0, 0], [1, 1])}
    assert len(built) == 2


# ---------------------------------------------------------------------------
# Position validation (SheepsimError, message naming the problem)
# ---------------------------------------------------------------------------

#   |0 . . 1       seat 0 (0,0) h=4, seat 1 (3,0) h=4
VALID = position_of("|0 . . 1", 2, 4, "move", 0, heights=[4, 4])[0]


def _bad(edit, match):
    pos = copy.deepcopy(VALID)
    edit(pos)
    with pytest.raises(SheepsimError, match=match):
        rules = POS.rules_for(pos)
        POS.to_state(pos, rules)


def test_valid_base_position_loads():
    rules, ra, s = kernel_of(copy.deepcopy(VALID))
    assert legal(s, ra) == keys([mv((0, 0), (2, 0), n) for n in (1, 2, 3)])


def test_validation_duplicate_hex():
    _bad(lambda p: p["cells"].append({"q": 1, "r": 0, "owner": None, "height": 0}),
         r"hex \(1, 0\) is listed twice")


def test_validation_height_above_stack_size():
    def edit(p):
        p["cells"][0]["height"] = 5
    _bad(edit, r"hex \(0, 0\): height 5 is above the stack size 4")


def test_validation_owner_that_does_not_exist():
    def edit(p):
        p["cells"][3]["owner"] = 2
    _bad(edit, r"hex \(3, 0\): owner 2 does not exist")


def test_validation_disconnected_board():
    # |0 . . 1   . .     two hexes far east, not touching the rest
    _bad(lambda p: p["cells"].extend([{"q": 6, "r": 0, "owner": None, "height": 0},
                                      {"q": 7, "r": 0, "owner": None, "height": 0}]), "not connected")


@pytest.mark.parametrize("field", POS.REQUIRED)
def test_validation_missing_fields(field):
    def edit(p):
        del p[field]
    _bad(edit, rf"missing field\(s\) {field}; required")


def test_validation_owner_height_mismatch():
    def owner_without_sheep(p):
        p["cells"][1]["owner"] = 0
    _bad(owner_without_sheep, r"hex \(1, 0\): an owner needs a height")

    def sheep_without_owner(p):
        p["cells"][0]["owner"] = None
    _bad(sheep_without_owner, r"hex \(0, 0\): an owner needs a height")


def test_validation_to_move_that_cannot_move():
    # |0 1 . .   seat 0 (0,0) h=4 walled in by the edge and seat 1; seat 1 (1,0) can move
    pos = position_of("|0 1 . .", 2, 4, "move", 0, heights=[4, 4])[0]
    with pytest.raises(SheepsimError, match=r"to_move must be a seat that can move; movable seats: \[1\]"):
        POS.to_state(pos, POS.rules_for(pos))
    pos["to_move"] = 1
    kernel_of(pos)      # the same board with the movable seat to move is fine


def test_validation_phase_over_while_someone_can_move():
    pos = copy.deepcopy(VALID)
    pos["phase"], pos["to_move"] = "over", None
    with pytest.raises(SheepsimError, match=r"phase is over but seat\(s\) \[0, 1\] can still move"):
        POS.to_state(pos, POS.rules_for(pos))


def test_validation_sheep_totals_and_placement_and_build():
    def short(p):
        p["cells"][0]["height"] = 3
    _bad(short, r"every seat must have exactly 4 sheep.*\[3, 4\]")
    # two stacks in the placement phase
    pos = position_of("|0 . . 1", 2, 4, "place", 0, heights=[4, 4])[0]
    with pytest.raises(SheepsimError, match="during placement"):
        POS.to_state(pos, POS.rules_for(pos))
    # stacks during building
    pos = position_of("|0 . . .", 2, 4, "build", 1, heights=[4])[0]
    with pytest.raises(SheepsimError, match="no stacks may stand on the pasture during building"):
        POS.to_state(pos, POS.rules_for(pos))
    # a tile that is not a rhombus
    pos = position_of("|. . . .", 2, 4, "build", 1, tiles=[[[0, 0], [1, 0], [2, 0], [3, 0]]])[0]
    with pytest.raises(SheepsimError, match="not a 2x2 rhombus"):
        POS.to_state(pos, POS.rules_for(pos))
    # wrong seat to act in building: tile 1 down, so seat 1 builds next
    pos = position_of("|. .\n| . .", 2, 4, "build", 0)[0]
    with pytest.raises(SheepsimError, match="to_move is 0 but in this build position it must be 1"):
        POS.to_state(pos, POS.rules_for(pos))


@pytest.mark.parametrize("field,value,match", [
    ("version", 2, r"version 2 is not supported; sheepsim reads version 1"),
    ("version", True, r"version True is not supported"),
    ("version", 1.0, r"version 1.0 is not supported"),
    ("coords", "cube", r"coords 'cube' is not supported; sheepsim reads 'axial'"),
])
def test_validation_version_and_coords(field, value, match):
    def edit(p):
        p[field] = value
    _bad(edit, match)


def test_version_and_coords_may_be_left_out():
    pos = copy.deepcopy(VALID)
    del pos["version"], pos["coords"]
    rules, ra, s = kernel_of(pos)
    assert legal(s, ra) == keys([mv((0, 0), (2, 0), n) for n in (1, 2, 3)])


@pytest.mark.parametrize("q,r", [(2**32, 0), (0, -2**31), (E.MAX_COORD + 1, 0), (0, -E.MAX_COORD - 1)])
def test_validation_coordinates_out_of_range(q, r):
    def edit(p):
        p["cells"][3].update(q=q, r=r)
    _bad(edit, rf"cell 3 \({q}, {r}\) is outside the coordinates sheepsim supports: "
               rf"q and r must be within -{E.MAX_COORD}\.\.{E.MAX_COORD}")


@pytest.mark.parametrize("q0,r0", [(600, 0), (-600, 0), (0, -600), (E.MAX_COORD - 1, E.MAX_COORD - 1),
                                   (-E.MAX_COORD, -E.MAX_COORD)])
def test_far_positions_build_like_the_origin(q0, r0):
    # the tile candidates were packed in 10 bits per coordinate: beyond about +-509
    # the list came out short or empty and greedy played a stale action
    def translated(moves, dq, dr):
        return {canon({"tile": [[q + dq, r + dr] for q, r in m["tile"]]}) for m in moves}
    _, ra, s0, _ = load("|. .\n| . .", 2, 16, "build", 1)
    _, ra, s, _ = load("|. .\n| . .", 2, 16, "build", 1, q0=q0, r0=r0)
    moves = POS.legal_json(s, ra)
    assert len(moves) == 42 and translated(POS.legal_json(s0, ra), q0, r0) == keys(moves)
    # greedy builds the whole pasture out there, every tile touching it
    buf = np.empty((E.MAX_ACTIONS, 4), dtype=np.int32)
    rng = streams(7, 0, 1)[0]
    aux = s.copy()          # the start state; policies ignore it
    while phase_of(s) == "build":
        kind, o, q, r = POL.greedy(s, ra, aux, int(s[E.H_TO_MOVE]), np.array([0.0, 1.0]), rng, buf)
        assert kind == E.KIND_TILE and E.tile_contacts(s, o, q, r) > 0
        E.apply(s, ra, kind, o, q, r)
    assert int(s[E.H_NHEX]) == 32 and phase_of(s) == "place"


def test_rule_options_are_validated_with_the_allowed_values():
    with pytest.raises(SheepsimError, match=r"board=preset:ring-4p has 16 tiles.*presets that fit: "
                                            r"preset:parallelogram-2p, preset:ring-2p"):
        RU.make(2, {"board": "preset:ring-4p"})
    with pytest.raises(SheepsimError, match=r"start_zone='holes'.*outer_perimeter \| any_edge"):
        RU.make(2, {"start_zone": "holes"})
    with pytest.raises(SheepsimError, match=r"stack_size=1.*2\.\.32"):
        RU.make(2, {"stack_size": 1})
    with pytest.raises(SheepsimError, match=r"tiles_per_player=7.*1\.\.6"):
        RU.make(4, {"tiles_per_player": 7})
    # a position is the board: it cannot be combined with another board option
    with pytest.raises(SheepsimError, match="option board cannot be combined"):
        POS.rules_for(copy.deepcopy(VALID), {"board": "random"})
    with pytest.raises(SheepsimError, match="stack_size 4 differs from option stack_size=5"):
        POS.rules_for(copy.deepcopy(VALID), {"stack_size": 5})


def test_finished_player_loses_position_needs_exactly_one_blocked_seat():
    # A0 A1 .  B1 B1   (row r=0): both seats blocked, so who was due to move (and lost)
    # is unknown; the format has no loser field, so such a position is rejected.
    cells = [{"q": q, "r": 0, "owner": o, "height": h}
             for q, o, h in [(0, 0, 1), (1, 0, 1), (2, None, 0), (3, 1, 1), (4, 1, 1)]]
    pos = {"game": "battle-sheep", "version": 1, "coords": "axial", "num_players": 2, "stack_size": 2,
           "phase": "over", "to_move": None, "cells": cells}
    rules = RU.make(2, {"stack_size": 2, "tiles_per_player": 2, "no_move": "player_loses"})
    with pytest.raises(SheepsimError, match=r"exactly one blocked seat \(the loser\); blocked seats: \[0, 1\]"):
        POS.to_state(pos, rules)
    # with the default skip rule the same board is simply a finished, shared game
    skip = RU.make(2, {"stack_size": 2, "tiles_per_player": 2})
    assert POS.legal_json(POS.to_state(pos, skip), RU.to_array(skip)) == []
