"""What a game's HTML replay view gives (report/replay.py draws it): pure data classes.

A game with a replay view of its own (`GameSpec.replay_view`, in its folder's view.py)
builds a `GameView` from its JSON trace: its zones, and per JSON event the value of
every zone, the status line and the highlight; `GameSpec.replay_text` is the
`TextShape` that cuts its text trace into one piece per event. They live here, in the
contract layer, so that a game's folder declares its view without importing report/
(a higher layer); report/replay.py documents the page and the zone kinds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Zone:
    id: str
    kind: str                      # cards | groups | count | die | text | hex
    label: str
    owner: int | None = None       # the seat it belongs to; None: the table
    hidden: bool = False           # private or face down: backs until the toggle shows it
    layout: str = "fan"            # cards: fan | top | pile; text: pre keeps its lines and spaces
    max: int | None = None         # count: the target the bar fills towards
    optional: bool = False         # not drawn while empty (e.g. cards set aside by a Wolf)


@dataclass
class GameView:
    """What a game's view function gives: its zones, and per JSON event the value of
    every zone, the status line and the highlight (mark). `seats`: each seat's name on
    the page (Battle Sheep's "seat 0 (A)"), None for "seat q"."""
    zones: list[Zone]
    values: list[dict[str, Any]]
    status: list[str]
    marks: list[dict | None]
    faces: list[dict] | None = None
    cards: list[int] | None = None
    seats: list[str] | None = None


@dataclass(frozen=True)
class TextShape:
    """How a game's text trace is cut into events: `start` opens an event's lines,
    `lead` lines belong to the next event (Pig's `turn N:`), `drop` lines repeat what
    the picture shows (boards, hands), `deal` is the line about the start."""
    start: str
    lead: str | None = None
    drop: str | None = None
    deal: str | None = None


def states(events: list[dict], key: str = "state"):
    """(event, state) for every event; the end event has none and repeats the last."""
    state = None
    for e in events:
        state = e.get(key, state)
        yield e, state
