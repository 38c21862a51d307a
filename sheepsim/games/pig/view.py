"""Pig's HTML replay view (report/replay.py draws it; GameSpec.replay_view):
the die, the turn total, each seat's score towards the goal."""

from __future__ import annotations

from typing import Any

from ..view import GameView, TextShape, Zone, states


TEXT_SHAPE = TextShape(start=r"^  (rolls|holds)", lead=r"^turn \d+: ")


def view(rules, init, events: list[dict]) -> GameView:
    """The die, the turn total at stake, each seat's score towards the goal."""
    p = rules.num_players
    zones = [Zone("die", "die", "last roll"), Zone("turn_total", "count", "turn total"),
             Zone("turns", "count", "turns played"), Zone("rolls", "count", "rolls")]
    zones += [Zone(f"score:{q}", "count", "score", q, max=rules["goal"]) for q in range(p)]
    values, status, marks = [], [], []
    face = 0
    for e, s in states(events):
        face = e["face"] if e["event"] == "roll" else 0 if e["event"] == "hold" else face
        v: dict[str, Any] = {"die": face, "turn_total": s["turn_total"], "turns": s["turns"], "rolls": s["rolls"]}
        v.update({f"score:{q}": s["scores"][q] for q in range(p)})
        values.append(v)
        marks.append(None)
        status.append("game over" if "result" in e or s["to_act"] is None else
                      f"turn {s['turns'] + 1}: seat {s['to_act']} rolls or holds")
    return GameView(zones, values, status, marks)
