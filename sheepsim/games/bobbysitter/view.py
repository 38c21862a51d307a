"""Bobby Sitter's HTML replay view (report/replay.py draws it; GameSpec.replay_view):
the stack(s) and flipped cards, the stock and BOBBY counters, each seat's tokens and reaction."""

from __future__ import annotations

from typing import Any

from ..view import GameView, TextShape, Zone, states
from .model import CLASS_NAMES, GRAB_NAMES, card_name
from .trace import _cards


TEXT_SHAPE = TextShape(start=r"^flip \d+: ")

_CLASS_COLOURS = {"wolf": ("#3d3d3d", "#fff"), "sheep": ("#e9f5db", "#1f4d0f"), "empty": ("#f3ead7", "#6b5a3a"),
                  "hidden wolf": ("#d9d0ec", "#3b2a66")}


def view(rules, deck, events: list[dict]) -> GameView:
    """The stack(s) (face down) and the flipped cards (face up), the stock of tokens
    and the BOBBY counters, each seat's tokens towards the target and its reaction to
    the card just flipped."""
    p = rules.num_players
    per_player = rules["stack_mode"] == "per_player"
    faces, face_of, cards = [], {}, []
    for card, code in zip(_cards(rules, deck, None), (int(c) for c in deck)):
        key = (card, code & 3)
        if key not in face_of:
            # big: the sheep (and a visible wolf, W); the band: the class, which decides
            # the reaction the card calls for
            sheep, wolf, _ = card
            short = ("W" if wolf else "") + (("+" if wolf else "") + str(sheep) if sheep else "") or "\u2013"
            cls = CLASS_NAMES[code & 3]
            bg, fg = _CLASS_COLOURS[cls]
            face_of[key] = len(faces)
            faces.append({"name": card_name(card), "short": short, "band": cls.replace(" ", "\n"), "colours": [bg],
                          "fg": fg})
        cards.append(face_of[key])
    regions = range(p) if per_player else range(1)
    zones = []
    for r in regions:
        owner = r if per_player else None
        zones += [Zone(f"stack:{r}", "cards", "stack", owner, hidden=True, layout="pile"),
                  Zone(f"flipped:{r}", "cards", "flipped", owner, layout="top")]
    zones += [Zone("stock", "count", "tokens in the stock"), Zone("bobby", "count", "BOBBY counters")]
    for q in range(p):
        zones += [Zone(f"tokens:{q}", "count", "tokens", q, max=rules["target_tokens"]),
                  Zone(f"reaction:{q}", "text", "reaction", q)]
    values, status, marks = [], [], []
    for e, s in states(events):
        v: dict[str, Any] = {"stock": s["stock"], "bobby": s["bobby_counters"]}
        for r in regions:
            v[f"stack:{r}"] = list(s["stacks"][r])
            v[f"flipped:{r}"] = s["discards"][r][::-1]
        reactions = {int(q): r for q, r in e.get("reactions", {}).items()}
        for q in range(p):
            v[f"tokens:{q}"] = s["tokens"][q]
            said = f"{GRAB_NAMES[reactions[q][0]]} {reactions[q][1]:.0f} ms" if q in reactions else ""
            v[f"reaction:{q}"] = said if s["active"][q] or said else "eliminated"
        values.append(v)
        marks.append(None)
        status.append("game over" if "result" in e or s["over"] else
                      f"{s['flips']} flipped: seat {s['flipper']} flips next")
    return GameView(zones, values, status, marks, faces, cards)
