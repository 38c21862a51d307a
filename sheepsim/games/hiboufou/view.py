"""Hiboufou's HTML replay view (report/replay.py draws it; GameSpec.replay_view):
the row's three spaces, the draw pile, each seat's hand and captured cards."""

from __future__ import annotations

from typing import Any

from ..view import GameView, TextShape, Zone, states
from .model import COLOUR_NAMES, SPACE_NAMES, card_name, colours_of

_TURN = r"^  turn \d+ seat \d+: "
TEXT_SHAPE = TextShape(start=_TURN, drop=r"^  (after turn \d+|at the end): |^    seat \d+ hand: ",
                       deal=r"^  the deal: ")

_COLOURS = {"red": "#d62828", "orange": "#f77f00", "yellow": "#f2c200", "green": "#2a9d4b", "blue": "#1d6fd1",
            "purple": "#7b3fb5", "pink": "#f06bb0", "brown": "#8b5a2b"}


def view(rules, deck, events: list[dict]) -> GameView:
    """The three spaces of the row (face-up piles: the top card and how many), the draw
    pile (face down), each seat's hand (hidden) and captured cards."""
    p = rules.num_players
    faces, face_of, cards = [], {}, []
    for m in (int(x) for x in deck):
        if m not in face_of:
            face_of[m] = len(faces)
            faces.append({"name": card_name(m), "short": "", "band": card_name(m).replace("+", "\n"), "fg": "#fff",
                          "colours": [_COLOURS[COLOUR_NAMES[c]] for c in colours_of(m)]})
        cards.append(face_of[m])
    zones = [Zone(f"space:{x}", "cards", f"{name} space", layout="top") for x, name in enumerate(SPACE_NAMES)]
    zones.append(Zone("pile", "cards", "draw pile", hidden=True, layout="pile"))
    for q in range(p):
        zones += [Zone(f"hand:{q}", "cards", "hand", q, hidden=True),
                  Zone(f"captured:{q}", "cards", "captured", q, layout="pile")]
    values, status, marks = [], [], []
    for e, s in states(events):
        v: dict[str, Any] = {f"space:{x}": row[::-1] for x, row in enumerate(s["row"])}
        v["pile"] = list(s["pile"])
        for q in range(p):
            v[f"hand:{q}"] = list(s["hands"][q])
            v[f"captured:{q}"] = list(s["captured"][q])
        values.append(v)
        marks.append(None)
        status.append("game over" if "result" in e or s["over"] else
                      f"turn {s['turn'] + 1}: seat {s['actor']} to play ({s['laid']} laid this turn)")
    return GameView(zones, values, status, marks, faces, cards)
