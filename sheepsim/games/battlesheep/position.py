"""Positions: the JSON format (README.md, "Battle Sheep positions") <-> kernel state, with validation.

A position file holds one JSON object (or JSONL, one per line; the first is used).
Everything a user can get wrong raises `SheepsimError` with a one-line message.
`version` (1) and `coords` ("axial") may be left out; other values are refused, as are
coordinates outside -MAX_COORD..MAX_COORD (engine.py: the kernels' packed tile keys).
Actions convert between the kernel's [kind, a, b, c] rows and the JSON move format:
`{"tile": [[q,r] x4]}`, `{"place": [q,r]}`, `{"from": [q,r], "to": [q,r], "count": n}`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from ...errors import SheepsimError
from . import engine as E
from . import rules as R
from .engine import (H_LOSER, H_MOVES, H_NHEX, H_NPLACED, H_NTILES, H_PHASE, H_PLAYERS, H_STACK, H_TILES_KNOWN,
                     H_TO_MOVE, HEIGHT, KIND_PLACE, KIND_TILE, OWNER, PH_BUILD, PH_MOVE,
                     PH_OVER, PH_PLACE, Q, TILE_SHAPES)
from .engine import R as RCOL

PHASES = ("build", "place", "move", "over")
REQUIRED = ("game", "num_players", "stack_size", "phase", "to_move", "cells")


def _fail(problem: str) -> SheepsimError:
    return SheepsimError(f"bad position: {problem}")


def read_position_file(path: str | Path) -> dict[str, Any]:
    """The first JSON object of a .json or .jsonl file."""
    try:
        text = Path(path).read_text()
    except OSError as exc:
        raise SheepsimError(f"cannot read position file {path}: {exc.strerror}")
    text = text.strip()
    if not text:
        raise _fail(f"{path} is empty")
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        try:
            return json.loads(text.splitlines()[0])
        except json.JSONDecodeError as exc:
            raise _fail(f"{path} is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})")


def _hex(value: Any, what: str) -> tuple[int, int]:
    if (not isinstance(value, (list, tuple)) or len(value) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
        raise _fail(f"{what} must be [q, r] with two integers, got {value!r}")
    q, r = int(value[0]), int(value[1])
    if max(abs(q), abs(r)) > E.MAX_COORD:
        raise _fail(f"{what} ({q}, {r}) is outside the coordinates sheepsim supports: "
                    f"q and r must be within -{E.MAX_COORD}..{E.MAX_COORD}")
    return q, r


def _tile_orientation(cells: list[tuple[int, int]]) -> tuple[int, int, int] | None:
    """(orientation, q, r) of a 4-hex set that is a rhombus tile, else None."""
    wanted = set(cells)
    for o in range(3):
        for c in cells:
            anchor = (c[0] - int(TILE_SHAPES[o, 0, 0]), c[1] - int(TILE_SHAPES[o, 0, 1]))
            shape = {(anchor[0] + int(dq), anchor[1] + int(dr)) for dq, dr in TILE_SHAPES[o]}
            if shape == wanted:
                return o, anchor[0], anchor[1]
    return None


def rules_for(position: dict[str, Any], overrides: dict[str, Any] | None = None):
    """Rules implied by a position (player count, stack size) plus user options."""
    _check_fields(position)
    merged = dict(overrides or {})
    merged.setdefault("stack_size", position["stack_size"])
    if int(merged["stack_size"]) != position["stack_size"]:
        raise _fail(f"stack_size {position['stack_size']} differs from option stack_size={merged['stack_size']}")
    rules = R.make(position["num_players"], merged)
    if rules["board"] != "built":
        raise SheepsimError("option board cannot be combined with --from-position (the position is the board)")
    return rules


def _check_fields(p: Any) -> None:
    if not isinstance(p, dict):
        raise _fail("a position must be a JSON object")
    missing = [k for k in REQUIRED if k not in p]
    if missing:
        raise _fail(f"missing field(s) {', '.join(missing)}; required: {', '.join(REQUIRED)}")
    if p["game"] not in ("battle-sheep", "battlesheep"):
        raise _fail(f"game is {p['game']!r}, expected 'battle-sheep'")
    version = p.get("version", 1)
    if type(version) is not int or version != 1:        # not bool True, not 1.0
        raise _fail(f"version {version!r} is not supported; sheepsim reads version 1")
    if p.get("coords", "axial") != "axial":
        raise _fail(f"coords {p['coords']!r} is not supported; sheepsim reads 'axial' (pointy-top axial q, r)")
    n = p["num_players"]
    if not isinstance(n, int) or isinstance(n, bool) or not 2 <= n <= 4:
        raise _fail(f"num_players must be 2-4, got {n!r}")
    if not isinstance(p["stack_size"], int) or not 2 <= p["stack_size"] <= 32:
        raise _fail(f"stack_size must be an integer 2..32, got {p['stack_size']!r}")
    if p["phase"] not in PHASES:
        raise _fail(f"phase {p['phase']!r} is not one of {', '.join(PHASES)}")
    if not isinstance(p["cells"], list):
        raise _fail("cells must be a list of {q, r, owner, height} objects")


def to_state(p: dict[str, Any], rules) -> np.ndarray:
    """Validate a position against `rules` and build the kernel state."""
    _check_fields(p)
    players, stack = p["num_players"], p["stack_size"]
    cells: dict[tuple[int, int], tuple[int, int]] = {}
    for k, cell in enumerate(p["cells"]):
        if not isinstance(cell, dict) or not {"q", "r", "owner", "height"} <= set(cell):
            raise _fail(f"cell {k} must have q, r, owner and height")
        qr = _hex([cell["q"], cell["r"]], f"cell {k}")
        if qr in cells:
            raise _fail(f"hex ({qr[0]}, {qr[1]}) is listed twice (overlapping or duplicate hexes)")
        owner, height = cell["owner"], cell["height"]
        if not isinstance(height, int) or isinstance(height, bool) or height < 0:
            raise _fail(f"hex {qr}: height must be a non-negative integer, got {height!r}")
        if height > stack:
            raise _fail(f"hex {qr}: height {height} is above the stack size {stack}")
        if owner is not None and (not isinstance(owner, int) or isinstance(owner, bool) or not 0 <= owner < players):
            raise _fail(f"hex {qr}: owner {owner!r} does not exist; owners are 0..{players - 1} or null")
        if (owner is None) != (height == 0):
            raise _fail(f"hex {qr}: an owner needs a height >= 1 and an empty hex needs owner null, height 0")
        cells[qr] = (-1 if owner is None else owner, height)
    if not cells and p["phase"] != "build":
        raise _fail(f"phase {p['phase']} needs a pasture, but cells is empty")
    if len(cells) > E.MAX_HEX:
        raise _fail(f"{len(cells)} hexes is more than the {E.MAX_HEX} sheepsim supports")
    if len(cells) > players * rules["tiles_per_player"] * 4:
        raise _fail(f"{len(cells)} hexes is more than {players} players x tiles_per_player="
                    f"{rules['tiles_per_player']} tiles of 4 hold")

    for seat in range(players):
        total = sum(h for o, h in cells.values() if o == seat)
        if total > stack:
            raise _fail(f"seat {seat} has {total} sheep on the pasture; a seat has {stack} (stack_size)")
    order, tiles_known = _hex_order(p, cells)
    s = E.empty_state(R.to_array(rules))
    for q, r in order:
        E.add_hex(s, q, r)
    if not _connected(s):
        raise _fail("the pasture is not connected (every hex must be reachable through shared edges)")
    for i, qr in enumerate(order):
        owner, height = cells[qr]
        if owner >= 0:
            E.add_stack(s, owner, i, height)
    s[H_TILES_KNOWN] = int(tiles_known)
    s[H_NTILES] = len(order) // 4
    _set_phase(s, p, rules)
    return s


def _hex_order(p: dict[str, Any], cells: dict) -> tuple[list[tuple[int, int]], bool]:
    """Hex order for the kernel: tile by tile when tiles are given (tile k = 4k..4k+3)."""
    if "tiles" not in p or p["tiles"] is None:
        if p["phase"] == "build" and len(cells) % 4:
            raise _fail("a build-phase position without tiles must have a multiple of 4 hexes")
        return sorted(cells), False
    tiles = p["tiles"]
    if not isinstance(tiles, list):
        raise _fail("tiles must be a list of tiles, each 4 [q, r] hexes")
    order: list[tuple[int, int]] = []
    for k, tile in enumerate(tiles):
        if not isinstance(tile, list) or len(tile) != 4:
            raise _fail(f"tile {k} must list 4 hexes")
        hexes = [_hex(h, f"tile {k} hex") for h in tile]
        if _tile_orientation(hexes) is None:
            raise _fail(f"tile {k} {hexes} is not a 2x2 rhombus tile")
        order.extend(hexes)
    if len(set(order)) != len(order):
        raise _fail("tiles overlap")
    if set(order) != set(cells):
        raise _fail("tiles do not cover exactly the hexes listed in cells")
    return order, True


def _connected(s: np.ndarray) -> bool:
    n = int(s[H_NHEX])
    if n == 0:
        return True
    seen = {0}
    todo = [0]
    while todo:
        i = todo.pop()
        for d in range(6):
            j = int(E.nbr(s, i, d))
            if j >= 0 and j not in seen:
                seen.add(j)
                todo.append(j)
    return len(seen) == n


def _set_phase(s: np.ndarray, p: dict[str, Any], rules) -> None:
    players, stack = p["num_players"], p["stack_size"]
    rules_arr = R.to_array(rules)
    phase = PHASES.index(p["phase"])
    to_move = p["to_move"]
    n = int(s[H_NHEX])
    owners = s[OWNER:OWNER + n]
    heights = s[HEIGHT:HEIGHT + n]
    stacks = [int((owners == seat).sum()) for seat in range(players)]
    sheep = [int(heights[owners == seat].sum()) for seat in range(players)]
    total_tiles = players * rules["tiles_per_player"]
    if phase == PH_BUILD:
        if n % 4 or n // 4 >= total_tiles:
            raise _fail(f"a build-phase pasture has fewer than {total_tiles} whole tiles; this one has {n} hexes")
        if any(stacks):
            raise _fail("no stacks may stand on the pasture during building")
        expected = (n // 4) % players
    else:
        E._mark_start_zone(s, rules_arr)
    if phase == PH_PLACE:
        placed = sum(stacks)
        if any(c > 1 for c in stacks) or any(sheep[t] not in (0, stack) for t in range(players)) or placed >= players:
            raise _fail(f"during placement each seat has at most one stack of {stack} and someone is still to place")
        s[H_NPLACED] = placed
        expected = int(E.placing_seat(rules_arr, placed))
        if stacks[expected]:
            raise _fail(f"seat {expected} places next in this order but already has a stack")
    if phase in (PH_MOVE, PH_OVER):
        if sheep != [stack] * players:
            raise _fail(f"every seat must have exactly {stack} sheep on the pasture in phase "
                        f"{p['phase']}; found {sheep}")
        s[H_NPLACED] = players
        movable = [seat for seat in range(players) if E.can_move(s, seat)]
        if phase == PH_OVER and movable and rules["no_move"] == "skip":
            raise _fail(f"phase is over but seat(s) {movable} can still move")
        if phase == PH_MOVE and to_move not in movable:
            raise _fail(f"to_move must be a seat that can move; movable seats: {movable}")
        expected = to_move if phase == PH_MOVE else None
        if phase == PH_OVER and rules["no_move"] == "player_loses":
            # the loser is the seat that was due to move and could not; the format has
            # no field for it, so it is known only when exactly one seat is blocked
            blocked = [t for t in range(players) if t not in movable]
            if len(blocked) != 1:
                raise _fail(f"with no_move=player_loses a finished position must have exactly one blocked seat "
                            f"(the loser); blocked seats: {blocked}")
            s[H_LOSER] = blocked[0]
    if to_move != expected:
        raise _fail(f"to_move is {to_move!r} but in this {p['phase']} position it must be {expected!r}")
    s[H_PHASE] = phase
    s[H_TO_MOVE] = -1 if expected is None else expected
    s[H_MOVES] = 0


def from_state(s: np.ndarray) -> dict[str, Any]:
    """The JSON position of a kernel state (cells sorted by (q, r))."""
    n = int(s[H_NHEX])
    players = int(s[H_PLAYERS])
    stack = int(s[H_STACK])
    cells = []
    for i in sorted(range(n), key=lambda i: (int(s[Q + i]), int(s[RCOL + i]))):
        owner = int(s[OWNER + i])
        cells.append({"q": int(s[Q + i]), "r": int(s[RCOL + i]),
                      "owner": None if owner < 0 else owner, "height": int(s[HEIGHT + i])})
    phase = int(s[H_PHASE])
    pos: dict[str, Any] = {
        "game": "battle-sheep", "version": 1, "coords": "axial", "num_players": players,
        "stack_size": stack, "phase": PHASES[phase],
        "to_move": None if phase == PH_OVER else int(s[H_TO_MOVE]), "cells": cells,
    }
    if s[H_TILES_KNOWN]:
        pos["tiles"] = [sorted([int(s[Q + i]), int(s[RCOL + i])] for i in range(4 * k, 4 * k + 4))
                        for k in range(int(s[H_NTILES]))]
    return pos


def action_to_json(s: np.ndarray, action) -> dict[str, Any]:
    """A kernel action [kind, a, b, c] (legal in state s) as a JSON move."""
    kind, a, b, c = (int(x) for x in action)
    if kind == KIND_TILE:
        return {"tile": sorted([b + int(dq), c + int(dr)] for dq, dr in TILE_SHAPES[a])}
    if kind == KIND_PLACE:
        return {"place": [int(s[Q + a]), int(s[RCOL + a])]}
    dest = int(E.slide_end(s, a, b))
    return {"from": [int(s[Q + a]), int(s[RCOL + a])], "to": [int(s[Q + dest]), int(s[RCOL + dest])], "count": c}


def legal_json(s: np.ndarray, rules_arr: np.ndarray) -> list[dict[str, Any]]:
    buf = np.empty((E.MAX_ACTIONS, 4), dtype=np.int32)
    n = E.legal_actions(s, rules_arr, buf)
    return [action_to_json(s, buf[m]) for m in range(n)]


def json_to_action(s: np.ndarray, rules_arr: np.ndarray, move: dict[str, Any]) -> tuple[int, int, int, int]:
    """The legal kernel action matching a JSON move; SheepsimError if none does."""
    buf = np.empty((E.MAX_ACTIONS, 4), dtype=np.int32)
    n = E.legal_actions(s, rules_arr, buf)
    for m in range(n):
        if action_to_json(s, buf[m]) == _normalise(move):
            return tuple(int(x) for x in buf[m])
    raise SheepsimError(f"move {json.dumps(move)} is not legal here")


def _normalise(move: dict[str, Any]) -> dict[str, Any]:
    if "tile" in move:
        return {"tile": sorted([int(q), int(r)] for q, r in move["tile"])}
    if "place" in move:
        return {"place": [int(v) for v in move["place"]]}
    return {"from": [int(v) for v in move["from"]], "to": [int(v) for v in move["to"]], "count": int(move["count"])}
