"""Battle Sheep's HTML replay view (report/replay.py draws it; GameSpec.replay_view):
the pasture as a hex board, each seat's pastures and largest herd, the last move marked."""

from __future__ import annotations

from typing import Any

from ..view import GameView, TextShape, Zone, states


TEXT_SHAPE = TextShape(start=r"^\d+\. seat \d+ ", drop=r"^ ")


def _hex(q: int, r: int) -> str:
    return f"{q},{r}"


def herd_sizes(cells: list[dict], seat: int) -> int:
    """The seat's largest herd: its most hexes connected edge to edge (rules: the
    tie-break). Neighbours of (q, r): (q±1, r), (q, r±1), (q+1, r-1), (q-1, r+1)."""
    own = {(c["q"], c["r"]) for c in cells if c["owner"] == seat}
    best, seen = 0, set()
    for h in own:
        if h in seen:
            continue
        seen.add(h)
        todo, size = [h], 0
        while todo:
            q, r = todo.pop()
            size += 1
            for n in ((q + 1, r), (q - 1, r), (q, r + 1), (q, r - 1), (q + 1, r - 1), (q - 1, r + 1)):
                if n in own and n not in seen:
                    seen.add(n)
                    todo.append(n)
        best = max(best, size)
    return best


def view(rules, init, events: list[dict]) -> GameView:
    """The pasture (every hex: owner, height, tile), each seat's pastures and largest
    herd; the mark is the last move's hexes. Seats are named by their letters too, as
    the text trace and the board drawing name them ("seat 0 (A)")."""
    p = rules.num_players
    zones = [Zone("board", "hex", "pasture")]
    for q in range(p):
        zones += [Zone(f"pastures:{q}", "count", "pastures", q), Zone(f"herd:{q}", "count", "largest herd", q)]
    values, status, marks = [], [], []
    for e, position in states(events, "position"):
        tile = {}
        for k, t in enumerate(position.get("tiles") or []):
            for q, r in t:
                tile[_hex(q, r)] = k
        board = {_hex(c["q"], c["r"]): [-1 if c["owner"] is None else c["owner"], c["height"],
                                         tile.get(_hex(c["q"], c["r"]), -1)] for c in position["cells"]}
        v: dict[str, Any] = {"board": board}
        for q in range(p):
            v[f"pastures:{q}"] = sum(c["owner"] == q for c in position["cells"])
            v[f"herd:{q}"] = herd_sizes(position["cells"], q)
        values.append(v)
        move = e.get("move")
        if move is None:
            marks.append(None)
        elif "tile" in move:
            marks.append({"tile": [_hex(q, r) for q, r in move["tile"]]})
        elif "place" in move:
            marks.append({"place": _hex(*move["place"])})
        else:
            marks.append({"from": _hex(*move["from"]), "to": _hex(*move["to"]), "count": move["count"]})
        phase, who = position["phase"], position.get("to_move")
        status.append("game over" if "result" in e or phase == "over" else {
            "build": f"building the pasture: seat {who} adds a tile",
            "place": f"placing the starting stacks: seat {who} places its {position['stack_size']} sheep",
            "move": f"moving: seat {who} splits a stack"}[phase])
    return GameView(zones, values, status, marks, seats=[f"seat {q} ({chr(65 + q)})" for q in range(p)])
