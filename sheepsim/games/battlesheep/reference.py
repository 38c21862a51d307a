"""Readable pure-Python reference engine for Battle Sheep.

This module is a *test oracle*: it is written for clarity, not speed, and is meant
to be compared move-for-move against the fast engine. It uses only the standard
library.

Rule sources:

* the published rules: the Blue Orange rulebook of 2014 (R14), the multilingual
  rulebook (RML), the Board Game Arena help text (BGA), reviews and programs;
* READINGS.md in this folder - where they are silent or ambiguous, the reading
  sheepsim takes by default and the options that select the others.

Vocabulary (rulebook names):

* **pasture**  - the hexes of the board, built from tiles;
* **tile**     - a 2x2 rhombus of 4 pasture hexes (3 orientations);
* **stack**    - a pile of a seat's sheep standing on one pasture hex;
* **herd**     - a group of a seat's occupied hexes connected through shared edges.

Coordinates are pointy-top axial (q, r), r growing downward. The six neighbour
offsets, in the canonical direction order E, NE, NW, W, SW, SE, are ``DIRECTIONS``.

The game has four phases: ``build`` (players add tiles), ``place`` (each player puts
one stack of all their sheep on an outside hex), ``move`` (players split stacks) and
``over``.

Public API: ``Rules``, ``Game``, ``new_game``, ``legal_moves``, ``play``,
``is_over``, ``result``, ``standing``, ``to_position``, ``from_position``, ``random_move``,
``play_random_game``.
"""

from __future__ import annotations

import operator
import random
from dataclasses import dataclass, field
from typing import Optional

VERSION = 1

Hex = tuple[int, int]

# E, NE, NW, W, SW, SE in axial (q, r) with r growing downward (README.md, "Battle Sheep positions").
DIRECTIONS: list[Hex] = [(1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)]

# The 2x2 rhombus ("diamond") tile has exactly 3 orientations up to translation; it
# is symmetric under a half turn and under mirroring, so these are all of them.
TILE_SHAPES: list[tuple[Hex, Hex, Hex, Hex]] = [
    ((0, 0), (1, 0), (0, 1), (1, 1)),
    ((0, 0), (1, -1), (1, 0), (2, -1)),
    ((0, 0), (0, 1), (1, -1), (1, 0)),
]

START_ZONES = ("outer_perimeter", "any_edge")
NO_MOVE_OPTIONS = ("skip", "game_ends_now", "player_loses")
FINAL_TIE_OPTIONS = ("shared", "second_largest_herd")
PLACEMENT_ORDERS = ("clockwise_from_first", "reverse")


# ---------------------------------------------------------------------------
# Rules and state
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Rules:
    """The rule options of one Battle Sheep game (the readings behind them: READINGS.md).

    * ``num_players`` - 2..4.
    * ``tiles_per_player`` - 4 in the box (R14/RML: 8, 12, 16 tiles for 2, 3, 4).
    * ``stack_size`` - sheep per player, 16 in the box.
    * ``start_zone`` - ``outer_perimeter`` (default: only hexes touching the
      unbounded outside) or ``any_edge`` (rims of holes count too).
    * ``no_move`` - ``skip`` (default: a blocked player is skipped, the game ends
      when nobody can move), ``game_ends_now`` (the game ends as soon as the player
      whose turn it is cannot move) or ``player_loses`` (original Splits: that player
      loses; meant for 2 players).
    * ``final_tie`` - ``shared`` (default) or ``second_largest_herd``.
    * ``placement_order`` - ``clockwise_from_first`` (default) or ``reverse``.
    """

    num_players: int
    tiles_per_player: int = 4
    stack_size: int = 16
    start_zone: str = "outer_perimeter"
    no_move: str = "skip"
    final_tie: str = "shared"
    placement_order: str = "clockwise_from_first"

    def __post_init__(self) -> None:
        if not 2 <= self.num_players <= 4:
            raise ValueError(f"num_players must be 2..4, got {self.num_players}")
        if self.tiles_per_player < 1:
            raise ValueError("tiles_per_player must be >= 1")
        if self.stack_size < 1:
            raise ValueError("stack_size must be >= 1")
        for name, value, allowed in (
            ("start_zone", self.start_zone, START_ZONES),
            ("no_move", self.no_move, NO_MOVE_OPTIONS),
            ("final_tie", self.final_tie, FINAL_TIE_OPTIONS),
            ("placement_order", self.placement_order, PLACEMENT_ORDERS),
        ):
            if value not in allowed:
                raise ValueError(f"{name} must be one of {allowed}, got {value!r}")

    @property
    def total_tiles(self) -> int:
        """Number of tiles in the pasture: 4 per player in the box."""
        return self.num_players * self.tiles_per_player

    def placement_seats(self) -> list[int]:
        """The order in which seats put down their starting stack."""
        seats = list(range(self.num_players))
        return seats if self.placement_order == "clockwise_from_first" else seats[::-1]


@dataclass(frozen=True)
class Game:
    """One game state. Treated as immutable: ``play`` always builds a new Game.

    * ``pasture`` - every pasture hex.
    * ``stacks`` - hex -> (owner seat, height) for every occupied hex.
      (Never mutated after construction.)
    * ``tiles`` - the tiles in placement order (each a sorted tuple of 4 hexes), or
      ``None`` if unknown (a position read without its "tiles" list).
    * ``tiles_placed`` - how many tiles are down (equals len(tiles) when known).
    * ``phase`` - "build", "place", "move" or "over".
    * ``to_move`` - seat to act, ``None`` when over.
    * ``loser`` - seat that lost under ``no_move="player_loses"``, else -1.
    """

    rules: Rules
    pasture: frozenset
    stacks: dict = field(hash=False)
    tiles: Optional[tuple]
    tiles_placed: int
    phase: str
    to_move: Optional[int]
    loser: int = -1


# ---------------------------------------------------------------------------
# Hex helpers
# ---------------------------------------------------------------------------


def _add(a: Hex, b: Hex) -> Hex:
    return (a[0] + b[0], a[1] + b[1])


def _neighbours(h: Hex) -> list[Hex]:
    """The 6 neighbour positions of a hex (sharing an edge = being neighbours)."""
    return [_add(h, d) for d in DIRECTIONS]


def _int(x) -> int:
    """An integer from a move (Python or NumPy int; not bool, not float)."""
    if isinstance(x, bool):
        raise ValueError(f"expected an integer, got {x!r}")
    try:
        return operator.index(x)
    except TypeError:
        raise ValueError(f"expected an integer, got {x!r}") from None


def _hex(x) -> Hex:
    """Parse a JSON [q, r] pair into a hex tuple; ValueError on bad input."""
    try:
        q, r = x
    except (TypeError, ValueError):
        raise ValueError(f"not a hex coordinate pair: {x!r}") from None
    return (_int(q), _int(r))


# ---------------------------------------------------------------------------
# Building the pasture
# ---------------------------------------------------------------------------


def _legal_tiles(pasture: frozenset) -> list[tuple[Hex, ...]]:
    """All distinct legal tiles (as sorted 4-hex tuples) for the next building turn.

    * First tile: one of the 3 orientations with its (0,0) hex at the origin
      (our decision, so that boards are comparable and there are exactly 3 first moves).
    * Later tiles: any translation of any orientation that does not overlap the
      pasture and shares at least one hex edge with it (RML, BGA: "must touch ...
      along at least one side"). On a hex grid, sharing an edge is the same as being
      neighbours. Holes are allowed.
    """
    if not pasture:
        return sorted(tuple(sorted(shape)) for shape in TILE_SHAPES)

    # A touching tile must contain a "frontier" hex: a non-pasture neighbour of the
    # pasture. Anchor each orientation on every frontier hex in every possible way.
    frontier = {n for h in pasture for n in _neighbours(h) if n not in pasture}
    found = set()
    for f in frontier:
        for shape in TILE_SHAPES:
            for anchor in shape:
                shift = (f[0] - anchor[0], f[1] - anchor[1])
                cells = tuple(sorted(_add(c, shift) for c in shape))
                if not any(c in pasture for c in cells):
                    found.add(cells)
    return sorted(found)


# ---------------------------------------------------------------------------
# Placing the starting stacks
# ---------------------------------------------------------------------------


def _outside(pasture: frozenset) -> set[Hex]:
    """Non-pasture positions connected to the unbounded outside.

    Flood fill over non-pasture positions inside the pasture's bounding box grown by
    one hex on every side. The ring of that grown box is entirely non-pasture and
    connected, and any path to infinity must cross it, so the flood fill finds
    exactly the outside positions that neighbour the pasture. Enclosed holes are not
    reached.
    """
    qs = [q for q, _ in pasture]
    rs = [r for _, r in pasture]
    qmin, qmax, rmin, rmax = min(qs) - 1, max(qs) + 1, min(rs) - 1, max(rs) + 1
    start = (qmin, rmin)  # a corner of the grown box: certainly outside
    seen = {start}
    todo = [start]
    while todo:
        h = todo.pop()
        for n in _neighbours(h):
            if (
                n not in seen
                and n not in pasture
                and qmin <= n[0] <= qmax
                and rmin <= n[1] <= rmax
            ):
                seen.add(n)
                todo.append(n)
    return seen


def eligible_start_hexes(game: Game) -> list[Hex]:
    """Unoccupied hexes where a starting stack may be put, sorted by (q, r).

    RML/BGA: on the OUTSIDE border of the pasture.
    ``outer_perimeter`` (the default): one of the hex's 6 neighbour positions is not
    pasture and that position is connected to the unbounded outside (the rim of an
    enclosed hole does not count, justpushstart). ``any_edge``: any hex with a
    non-pasture neighbour position.
    """
    pasture = game.pasture
    if not pasture:
        return []
    if game.rules.start_zone == "outer_perimeter":
        outside = _outside(pasture)
        touches = lambda h: any(n in outside for n in _neighbours(h))  # noqa: E731
    else:
        touches = lambda h: any(n not in pasture for n in _neighbours(h))  # noqa: E731
    return sorted(h for h in pasture if h not in game.stacks and touches(h))


# ---------------------------------------------------------------------------
# Moving
# ---------------------------------------------------------------------------


def _is_free(game: Game, h: Hex) -> bool:
    """Empty pasture: on the board and no stack on it (one stack per hex)."""
    return h in game.pasture and h not in game.stacks


def _slide_end(game: Game, start: Hex, d: Hex) -> Optional[Hex]:
    """Where a stack split off at ``start`` lands when sent in direction ``d``.

    Rules: the new stack moves in a straight line as far as it can and stops
    on the LAST empty pasture hex before a hex holding any stack (own or opponent's)
    or a missing hex (board edge, gap or hole). It may not jump and must move at
    least one hex, so ``None`` if the first hex is not free.
    """
    cur = _add(start, d)
    if not _is_free(game, cur):
        return None
    while _is_free(game, _add(cur, d)):
        cur = _add(cur, d)
    return cur


def _split_moves(game: Game, seat: int) -> list[dict]:
    """All moves of ``seat``: (stack, direction, count) triples, in the order
    stack by (q, r), then DIRECTIONS order, then count ascending.

    Rules: choose an own stack of height h >= 2, leave at least one sheep and
    move n = 1..h-1 sheep; the destination is fixed by the direction.
    """
    moves = []
    for h in sorted(game.stacks):
        owner, height = game.stacks[h]
        if owner != seat or height < 2:
            continue
        for d in DIRECTIONS:
            end = _slide_end(game, h, d)
            if end is None:
                continue
            for n in range(1, height):
                moves.append({"from": [h[0], h[1]], "to": [end[0], end[1]], "count": n})
    return moves


def can_move(game: Game, seat: int) -> bool:
    """True if ``seat`` has at least one legal split move.

    A stack is blocked when its height is 1 or none of its 6 neighbours is empty pasture.
    """
    for h, (owner, height) in game.stacks.items():
        if owner == seat and height >= 2 and any(_is_free(game, n) for n in _neighbours(h)):
            return True
    return False


def _hand_over(game: Game, first_candidate: int) -> tuple[str, Optional[int], int]:
    """Decide who acts next in the move phase: returns (phase, to_move, loser).

    ``first_candidate`` is the seat whose turn it is in plain clockwise order (the
    mover's successor, or seat 0 at the start of the move phase).

    * ``skip`` (the default; R14 and the ludorium review): blocked seats are skipped;
      walk clockwise from ``first_candidate`` through all seats (the mover itself comes
      last) and give the turn to the first seat that can move. Nobody can move -> over.
    * ``game_ends_now`` (Tuupertunut): if ``first_candidate`` cannot move, the game
      is over right away.
    * ``player_loses`` (Splits): as ``game_ends_now``, and that seat loses.
    """
    p = game.rules.num_players
    rule = game.rules.no_move
    if rule == "skip":
        for i in range(p):
            seat = (first_candidate + i) % p
            if can_move(game, seat):
                return "move", seat, -1
        return "over", None, -1
    if can_move(game, first_candidate):
        return "move", first_candidate, -1
    loser = first_candidate if rule == "player_loses" else -1
    return "over", None, loser


# ---------------------------------------------------------------------------
# Public API
# ---------------------------------------------------------------------------


def new_game(rules: Rules) -> Game:
    """An empty board in the build phase with seat 0 to act (seat 0 always acts first)."""
    return Game(
        rules=rules,
        pasture=frozenset(),
        stacks={},
        tiles=(),
        tiles_placed=0,
        phase="build",
        to_move=0,
    )


def legal_moves(game: Game) -> list[dict]:
    """All legal moves for the seat to act, in the JSON move format; [] when over.

    Orders (deterministic): tiles sorted by their sorted hex list; placements by
    (q, r); split moves by source (q, r), DIRECTIONS order, then count.
    """
    if game.phase == "build":
        return [{"tile": [[q, r] for q, r in cells]} for cells in _legal_tiles(game.pasture)]
    if game.phase == "place":
        return [{"place": [q, r]} for q, r in eligible_start_hexes(game)]
    if game.phase == "move":
        return _split_moves(game, game.to_move)
    return []


def _canonical(move) -> tuple:
    """Normalise a JSON move to a hashable key; ValueError if malformed."""
    if not isinstance(move, dict):
        raise ValueError(f"a move must be a dict, got {move!r}")
    keys = set(move)
    if keys == {"tile"}:
        cells = move["tile"]
        if not isinstance(cells, (list, tuple)) or len(cells) != 4:
            raise ValueError(f"a tile has 4 hexes: {move!r}")
        return ("tile", tuple(sorted(_hex(c) for c in cells)))
    if keys == {"place"}:
        return ("place", _hex(move["place"]))
    if keys == {"from", "to", "count"}:
        return ("move", _hex(move["from"]), _hex(move["to"]), _int(move["count"]))
    raise ValueError(f"unknown move format: {move!r}")


def play(game: Game, move: dict) -> Game:
    """Return the state after ``move``; the input ``game`` is not modified.

    Raises ValueError if the move is malformed or not legal in this state.
    """
    key = _canonical(move)
    legal = {_canonical(m) for m in legal_moves(game)}
    if key not in legal:
        raise ValueError(f"illegal move in phase {game.phase!r} for seat {game.to_move}: {move!r}")

    rules = game.rules
    p = rules.num_players

    if key[0] == "tile":
        cells = key[1]
        pasture = game.pasture | frozenset(cells)
        tiles = None if game.tiles is None else game.tiles + (cells,)
        placed = game.tiles_placed + 1
        if placed < rules.total_tiles:
            # Clockwise, one tile at a time: tile k is placed by seat k % P (RML, BGA).
            phase, to_move = "build", placed % p
        else:
            # Building done: starting stacks, in the order of option placement_order.
            phase, to_move = "place", rules.placement_seats()[0]
        return Game(rules, pasture, dict(game.stacks), tiles, placed, phase, to_move)

    if key[0] == "place":
        h = key[1]
        stacks = dict(game.stacks)
        stacks[h] = (game.to_move, rules.stack_size)  # all the seat's sheep in one stack
        order = rules.placement_seats()
        done = len(stacks)  # every seat places exactly one stack
        if done < p:
            return Game(rules, game.pasture, stacks, game.tiles, game.tiles_placed, "place", order[done])
        base = Game(rules, game.pasture, stacks, game.tiles, game.tiles_placed, "move", None)
        # Move phase: seat 0 moves first (as in every phase), subject to the no-move rule.
        phase, to_move, loser = _hand_over(base, 0)
        return Game(rules, game.pasture, stacks, game.tiles, game.tiles_placed, phase, to_move, loser)

    # Split move: n sheep leave the source and land on the slide's end hex.
    _, src, dst, n = key
    owner, height = game.stacks[src]
    stacks = dict(game.stacks)
    stacks[src] = (owner, height - n)
    stacks[dst] = (owner, n)
    base = Game(rules, game.pasture, stacks, game.tiles, game.tiles_placed, "move", None)
    phase, to_move, loser = _hand_over(base, (game.to_move + 1) % p)
    return Game(rules, game.pasture, stacks, game.tiles, game.tiles_placed, phase, to_move, loser)


def is_over(game: Game) -> bool:
    """True once the game has ended (phase "over")."""
    return game.phase == "over"


def herd_sizes(game: Game, seat: int) -> list[int]:
    """Sizes of the seat's herds (groups of own-occupied hexes connected through
    shared edges), largest first."""
    own = {h for h, (owner, _) in game.stacks.items() if owner == seat}
    sizes = []
    while own:
        todo = [own.pop()]
        size = 0
        while todo:
            h = todo.pop()
            size += 1
            for n in _neighbours(h):
                if n in own:
                    own.remove(n)
                    todo.append(n)
        sizes.append(size)
    return sorted(sizes, reverse=True)


def _rank(game: Game, seats: list[int], scores: list[int], herds: list[list[int]]) -> list[int]:
    """The seats that come out on top among ``seats`` (one seat = a single winner).

    R14: most occupied hexes wins; among tied seats, the largest herd wins.
    Still tied -> ``shared`` stops here; ``second_largest_herd`` compares the
    second-largest herd (0 if the seat has only one herd).
    """
    best = max(scores[s] for s in seats)
    tied = [s for s in seats if scores[s] == best]
    largest = lambda s: herds[s][0] if herds[s] else 0  # noqa: E731
    best = max(largest(s) for s in tied)
    tied = [s for s in tied if largest(s) == best]
    if len(tied) > 1 and game.rules.final_tie == "second_largest_herd":
        second = lambda s: herds[s][1] if len(herds[s]) > 1 else 0  # noqa: E731
        best = max(second(s) for s in tied)
        tied = [s for s in tied if second(s) == best]
    return tied


def result(game: Game) -> dict:
    """Scores and winner of the game (meant for a finished game; on an unfinished
    one it ranks the current board).

    * ``scores`` - occupied hexes per seat (stack height does not matter, R14);
    * ``herds``  - largest herd per seat;
    * ``winner`` - the single winning seat, or -1 for a shared result;
    * ``cowinners`` - the seats sharing first place ([winner] if single);
    * ``loser``  - the blocked seat under ``no_move="player_loses"``, else -1.
    """
    p = game.rules.num_players
    scores = [0] * p
    for owner, _ in game.stacks.values():
        scores[owner] += 1
    all_herds = [herd_sizes(game, s) for s in range(p)]
    herds = [h[0] if h else 0 for h in all_herds]

    if game.loser >= 0:
        # Splits: the blocked player loses whatever the score. With 2 players the
        # other seat wins; with more (not really meaningful) the others are ranked.
        others = [s for s in range(p) if s != game.loser]
        top = _rank(game, others, scores, all_herds)
    else:
        top = _rank(game, list(range(p)), scores, all_herds)
    winner = top[0] if len(top) == 1 else -1
    return {
        "scores": scores,
        "herds": herds,
        "winner": winner,
        "cowinners": top,
        "loser": game.loser,
    }


def standing(game: Game) -> list[float]:
    """Each seat's estimate of the pastures it will end with: the readable definition
    of the kernels' evaluation (engine.standing, the progress hook).

    occupied + min(first, spare) + mobility / 32, where for each seat

    * ``occupied`` - the pastures it stands on (its score);
    * ``first`` - the empty pastures nearer (in steps between neighbouring empty
      pastures) to one of its stacks that can move than to any other seat's; an
      empty pasture no stack that can move reaches counts for nobody;
    * ``spare`` - height - 1 summed over its stacks that can move (2 sheep or more
      and an empty neighbour): the new pastures its sheep can still take;
    * ``mobility`` - min(height - 1, empty neighbours) summed over its stacks.

    Once the game is over it is the score.
    """
    p = game.rules.num_players
    scores = result(game)["scores"]
    if is_over(game):
        return [float(x) for x in scores]

    def free_neighbours(h: Hex) -> int:
        return sum(_is_free(game, n) for n in _neighbours(h))

    movers = [h for h, (_, height) in game.stacks.items() if height >= 2 and free_neighbours(h) > 0]
    distance = []               # per seat: empty pasture -> steps from its nearest mover
    for seat in range(p):
        seen = {h: 0 for h in movers if game.stacks[h][0] == seat}
        todo = list(seen)
        for h in todo:          # the list grows as it is read: breadth first
            for n in _neighbours(h):
                if _is_free(game, n) and n not in seen:
                    seen[n] = seen[h] + 1
                    todo.append(n)
        distance.append({h: d for h, d in seen.items() if h not in game.stacks})
    out = []
    for seat in range(p):
        first = sum(1 for h, d in distance[seat].items()
                    if all(d < distance[other].get(h, d + 1) for other in range(p) if other != seat))
        own = [(h, height) for h, (owner, height) in game.stacks.items() if owner == seat]
        spare = sum(height - 1 for h, height in own if h in movers)
        mobility = sum(min(height - 1, free_neighbours(h)) for h, height in own)
        out.append(scores[seat] + min(first, spare) + mobility / 32)
    return out


def to_position(game: Game) -> dict:
    """The JSON position of this state (README.md, "Battle Sheep positions").

    ``cells`` lists every pasture hex once, sorted by (q, r); ``tiles`` lists the
    tiles in placement order (omitted if the tile list is unknown).
    """
    cells = []
    for q, r in sorted(game.pasture):
        owner, height = game.stacks.get((q, r), (None, 0))
        cells.append({"q": q, "r": r, "owner": owner, "height": height})
    pos = {
        "game": "battle-sheep",
        "version": VERSION,
        "coords": "axial",
        "num_players": game.rules.num_players,
        "stack_size": game.rules.stack_size,
        "phase": game.phase,
        "to_move": game.to_move if game.phase != "over" else None,
        "cells": cells,
    }
    if game.tiles is not None:
        pos["tiles"] = [[[q, r] for q, r in tile] for tile in game.tiles]
    return pos


def from_position(position: dict, rules: Rules) -> Game:
    """Build a Game from a JSON position (the README's format, assumed valid).

    Without "tiles", ``len(cells) // 4`` tiles count as placed. The position does not
    record who lost under ``player_loses``; for an "over" position we infer it as the
    only seat without a legal move, if there is exactly one (else -1).
    """
    pasture = frozenset((c["q"], c["r"]) for c in position["cells"])
    stacks = {
        (c["q"], c["r"]): (c["owner"], c["height"])
        for c in position["cells"]
        if c.get("owner") is not None and c.get("height", 0) > 0
    }
    if position.get("tiles") is not None:
        tiles = tuple(tuple(sorted(_hex(c) for c in t)) for t in position["tiles"])
        tiles_placed = len(tiles)
    else:
        tiles = None
        tiles_placed = len(pasture) // 4
    phase = position["phase"]
    to_move = position.get("to_move") if phase != "over" else None
    game = Game(rules, pasture, stacks, tiles, tiles_placed, phase, to_move)
    if phase == "over" and rules.no_move == "player_loses":
        blocked = [s for s in range(rules.num_players) if not can_move(game, s)]
        if len(blocked) == 1:
            game = Game(rules, pasture, stacks, tiles, tiles_placed, phase, None, blocked[0])
    return game


def random_move(game: Game, rng: random.Random) -> dict:
    """The uniform random policy, defined exactly.

    Build: the first tile is one of the 3 orientations at the origin; later tiles are
    uniform over the distinct legal resulting hex sets. Place: uniform over eligible
    hexes. Move: uniform over (stack, direction, count) triples. All three are just
    a uniform choice among ``legal_moves``.
    """
    moves = legal_moves(game)
    if not moves:
        raise ValueError("no legal move: the game is over")
    return rng.choice(moves)


def play_random_game(rules: Rules, rng: random.Random) -> Game:
    """Play a whole game with ``random_move`` for every seat; return the final Game."""
    game = new_game(rules)
    while not is_over(game):
        game = play(game, random_move(game, rng))
    return game
