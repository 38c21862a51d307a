"""Bye-Bye Black Sheep's HTML replay view (report/replay.py draws it; GameSpec.replay_view):
the watering hole, the draw pile, each seat's hand, zoo and triplets."""

from __future__ import annotations

from typing import Any

from ..view import GameView, TextShape, Zone, states
from .model import ANIMAL, JOKER, KIND_NAMES, MAGPIE, PHASE_NAMES
from .trace import _Table, _triplets

_TURN = r"^  turn \d+ seat \d+: "
TEXT_SHAPE = TextShape(start=_TURN, drop=r"^  (after turn \d+|at the end): |^    seat \d+ (hand|zoo): ",
                       deal=r"^  the deal: ")

# species colours (animal s is colour s - 1), distinct at a glance, white text on each
_SPECIES = ("#c0392b", "#d35400", "#b7950b", "#27ae60", "#16a085", "#2980b9", "#8e44ad", "#c2185b",
            "#6d4c41", "#546e7a", "#7cb342", "#00838f", "#5e35b1", "#ad1457", "#ef6c00", "#37474f")
_SPECIALS = {"Black Sheep": ("Black", "#1b1b1b", "#fff"), "Eagle": ("Eagle", "#f5e6c8", "#5a3e00"),
             "Mole": ("Mole", "#e8dcd0", "#4e342e"), "Magpie": ("Magpie", "#e3eaf2", "#102a43"),
             "Wolf": ("Wolf", "#9e9e9e", "#111"), "White Sheep": ("White", "#ffffff", "#333"),
             "Mother Sheep": ("Mother", "#fde2ef", "#7a1f4a"), "Joker": ("Joker", "#fff3b0", "#6b4f00")}


def view(rules, init, events: list[dict]) -> GameView:
    """The watering hole, the draw pile (face down), the Magpie while it lies beside
    the pile, each seat's hand (hidden), zoo (one group per species, a Joker with the
    species it is bound to), cards a Wolf set aside, and triplets towards the win."""
    table = _Table(rules)
    p = rules.num_players
    faces = []
    for k, name in enumerate(KIND_NAMES):
        if k >= ANIMAL:
            faces.append({"name": name, "short": str(k - ANIMAL + 1), "colours": [_SPECIES[k - ANIMAL]], "fg": "#fff"})
        else:
            short, bg, fg = _SPECIALS[name]
            faces.append({"name": name, "short": short, "colours": [bg], "fg": fg})
    zones = [Zone("table", "cards", "watering hole"), Zone("pile", "cards", "draw pile", hidden=True, layout="pile"),
             Zone("magpie", "cards", "beside the pile (not in play yet)", optional=True)]
    for q in range(p):
        zones += [Zone(f"hand:{q}", "cards", "hand", q, hidden=True), Zone(f"zoo:{q}", "groups", "zoo", q),
                  Zone(f"aside:{q}", "cards", "set aside by the Wolf", q, optional=True),
                  Zone(f"triplets:{q}", "count", "triplets", q, max=table.to_win)]

    def expand(counts):
        return [k for k, n in enumerate(counts) for _ in range(n)]

    values, status, marks = [], [], []
    for e, s in states(events):
        v: dict[str, Any] = {"table": list(s["table"]), "pile": list(s["pile"]),
                             "magpie": [] if s["magpie_in_play"] else [MAGPIE]}
        for q in range(p):
            zoo, bound = s["zoos"][q], s["joker_species"][q]
            groups = []
            for k in range(len(zoo)):
                cards = [k] * zoo[k] if k != JOKER else []
                if k >= ANIMAL and k - ANIMAL + 1 == bound and zoo[JOKER]:
                    cards += [JOKER] * zoo[JOKER]
                if cards:
                    groups.append(cards)
            if zoo[JOKER] and not (bound and ANIMAL + bound - 1 < len(zoo)):
                groups.append([JOKER] * zoo[JOKER])
            v[f"hand:{q}"] = expand(s["hands"][q])
            v[f"zoo:{q}"] = groups
            v[f"aside:{q}"] = expand(s["set_aside"][q])
            v[f"triplets:{q}"] = _triplets(s, q, table)
        values.append(v)
        marks.append(None)
        phase = PHASE_NAMES[s["phase"]]
        if "result" in e or phase == "over":
            status.append("game over")
        else:
            turn = f"turn {s['turn'] + 1}, seat {s['active']}'s turn: "
            status.append(turn + {
                "draw": f"seat {s['actor']} draws or stops ({s['draws']} drawn)",
                "place": f"seat {s['actor']} places cards in its zoo ({s['placed']} of up to {s['limit']})",
                "white": f"seat {s['actor']} may move a card to its zoo (White Sheep)",
            }.get(phase, f"seat {s['actor']} resolves the {phase.capitalize()}"))
    return GameView(zones, values, status, marks, faces, list(range(len(KIND_NAMES))))
