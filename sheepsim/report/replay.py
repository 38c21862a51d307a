"""One game as a self-contained HTML page: `sheepsim trace GAME --html FILE`.

The page is built from the game's trace and nothing else: its JSON events (the full
state after every event) and its text (the same events in words).

    JSON events --(the game's view: a pure function of one state)--> one view a step
    text trace  --(cut at each event's first line)------------------> one text a step

A view gives a value to each of the game's *zones* (the table, a pile, a seat's hand or
zoo, a counter, Battle Sheep's pasture); the zones themselves (label, owner seat,
hidden or not, layout) are declared once. The page embeds one document (JSON, below)
and one generic script, replay.js, draws any game from it: cards from the game's list
of card faces, the pasture as an SVG hex board. The page loads nothing: no network, no
other file.

The document, format "sheepsim-replay/1":

    game, title, heading   CLI name, rulebook title, the text trace's first line
    provenance             seed, game, players, rules (the text trace's words), policies, rotate,
                           start (deck or position file), run (--from-run folder),
                           command (regenerates the page), version (sheepsim's)
    seats                  [{seat, name, policy, colour}]
    faces, cards           card games: faces [{name, short, band, colours, fg}], and
                           cards[card id] = index of its face
    zones                  [{id, kind, label, owner, hidden, layout, max, optional}]
    steps                  one per JSON event: {event, seat, text, status, mark,
                           winners, set}; `status` says who acts next (the state after
                           the event); `set` holds the zones whose value changed
                           since the step before (the first step holds every zone); a
                           "hex" zone's value is a dict and changes key by key
    report                 optional {href, title}: the report the replay was made for
                           (the site's replays), linked as "back to the report"

Step 0 is the start and step K the game's K-th decision (Battle Sheep's move K), so the
page's step counter and its address (#step=K) read as the text trace numbers moves.

Zone kinds and their values:

    cards    card ids, top first for a pile; layout "fan" (every card), "top" (a
             face-up pile: its top card and the count) or "pile" (face down: a back
             and the count, the cards themselves when shown)
    groups   lists of card ids (a zoo: one list per species)
    count    an integer; `max` draws it as a bar towards a target
    die      the face last rolled, 0 before any roll
    text     a short text
    hex      {"q,r": [owner or -1, height, tile or -1]} for every pasture hex

A zone with hidden=true is private (a hand) or face down (a draw pile): the page shows
its backs and count until "show hidden hands" is ticked (a game with no such zone has
no toggle). The view keeps every card, so
each card of a state is in exactly one zone at every step.
"""

from __future__ import annotations

import html
import json
import re
import textwrap
from collections.abc import Callable
from dataclasses import asdict, dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from .. import __version__
from ..errors import SheepsimError
from ..fileio import check_new_file, write_atomic

FORMAT = "sheepsim-replay/1"
# seat colours, seat 0 first (Bobby Sitter seats up to 6 players); colour-blind-safe
# hues from the Okabe-Ito palette, darkened enough for white numbers on them
SEAT_COLOURS = ("#d55e00", "#0072b2", "#009e73", "#cc79a7", "#8a6d00", "#56267a")


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
    every zone, the status line and the highlight (mark)."""
    zones: list[Zone]
    values: list[dict[str, Any]]
    status: list[str]
    marks: list[dict | None]
    faces: list[dict] | None = None
    cards: list[int] | None = None


# --- the text: one piece per event --------------------------------------------------------

@dataclass(frozen=True)
class TextShape:
    """How a game's text trace is cut into events: `start` opens an event's lines,
    `lead` lines belong to the next event (Pig's `turn N:`), `drop` lines repeat what
    the picture shows (boards, hands), `deal` is the line about the start."""
    start: str
    lead: str | None = None
    drop: str | None = None
    deal: str | None = None


_TURN = r"^  turn \d+ seat \d+: "
TEXT_SHAPES = {
    "battlesheep": TextShape(start=r"^\d+\. seat \d+ ", drop=r"^ "),
    "blacksheep": TextShape(start=_TURN, drop=r"^  (after turn \d+|at the end): |^    seat \d+ (hand|zoo): ",
                            deal=r"^  the deal: "),
    "hiboufou": TextShape(start=_TURN, drop=r"^  (after turn \d+|at the end): |^    seat \d+ hand: ",
                          deal=r"^  the deal: "),
    "bobbysitter": TextShape(start=r"^flip \d+: "),
    "pig": TextShape(start=r"^  (rolls|holds)", lead=r"^turn \d+: "),
}


def split_text(text: str, shape: TextShape, events: int) -> tuple[list[str], list[str]]:
    """(header lines, one text per event) of a text trace with `events` JSON events
    (the start, the decisions, the end). The result is the text's trailing unindented
    lines; each decision's text is its own line and the lines under it that the
    picture does not show."""
    lines = text.splitlines()
    start, lead = re.compile(shape.start), re.compile(shape.lead) if shape.lead else None
    drop = re.compile(shape.drop) if shape.drop else None
    k = len(lines)
    while k and lines[k - 1] and not lines[k - 1][0].isspace() and not start.match(lines[k - 1]):
        k -= 1
    end, body = lines[k:], lines[:k]
    header, blocks, pending = [], [], []
    for line in body:
        if lead is not None and lead.match(line):
            pending.append(line)
        elif start.match(line):
            blocks.append(pending + [line])
            pending = []
        elif not blocks:
            header.append(line)
        elif drop is None or not drop.match(line):
            blocks[-1].append(line)
    if len(blocks) != events - 2 or not end:
        raise RuntimeError(f"the text trace has {len(blocks)} decisions for {events - 2} JSON events")
    deal = [line.strip() for line in header if shape.deal and re.match(shape.deal, line)]
    first = "\n".join(deal) or "The start of the game."
    return header, [first] + [textwrap.dedent("\n".join(b)).strip() for b in blocks] + ["\n".join(end)]


def rules_text(header: list[str]) -> str:
    """The `rules: ...` line of a text trace's header with its continuation lines, joined."""
    out: list[str] = []
    for line in header:
        if line.startswith("rules:") or out and line.startswith("    "):
            out.append(line.strip())
        elif out:
            break
    return " ".join(out).removeprefix("rules: ")


def _states(events: list[dict], key: str = "state"):
    """(event, state) for every event; the end event has none and repeats the last."""
    state = None
    for e in events:
        state = e.get(key, state)
        yield e, state


# --- Battle Sheep -------------------------------------------------------------------------

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


def battlesheep_view(rules, init, events: list[dict]) -> GameView:
    """The pasture (every hex: owner, height, tile), each seat's pastures and largest
    herd; the mark is the last move's hexes."""
    p = rules.num_players
    zones = [Zone("board", "hex", "pasture")]
    for q in range(p):
        zones += [Zone(f"pastures:{q}", "count", "pastures", q), Zone(f"herd:{q}", "count", "largest herd", q)]
    values, status, marks = [], [], []
    for e, position in _states(events, "position"):
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
    return GameView(zones, values, status, marks)


# --- Bye-Bye Black Sheep ------------------------------------------------------------------

# species colours (animal s is colour s - 1), distinct at a glance, white text on each
_SPECIES = ("#c0392b", "#d35400", "#b7950b", "#27ae60", "#16a085", "#2980b9", "#8e44ad", "#c2185b",
            "#6d4c41", "#546e7a", "#7cb342", "#00838f", "#5e35b1", "#ad1457", "#ef6c00", "#37474f")
_SPECIALS = {"Black Sheep": ("Black", "#1b1b1b", "#fff"), "Eagle": ("Eagle", "#f5e6c8", "#5a3e00"),
             "Mole": ("Mole", "#e8dcd0", "#4e342e"), "Magpie": ("Magpie", "#e3eaf2", "#102a43"),
             "Wolf": ("Wolf", "#9e9e9e", "#111"), "White Sheep": ("White", "#ffffff", "#333"),
             "Mother Sheep": ("Mother", "#fde2ef", "#7a1f4a"), "Joker": ("Joker", "#fff3b0", "#6b4f00")}


def blacksheep_view(rules, init, events: list[dict]) -> GameView:
    """The watering hole, the draw pile (face down), the Magpie while it lies beside
    the pile, each seat's hand (hidden), zoo (one group per species, a Joker with the
    species it is bound to), cards a Wolf set aside, and triplets towards the win."""
    from ..games.blacksheep.model import ANIMAL, JOKER, KIND_NAMES, MAGPIE, PHASE_NAMES
    from ..games.blacksheep.trace import _Table, _triplets
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
    for e, s in _states(events):
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


# --- Hiboufou -----------------------------------------------------------------------------

_COLOURS = {"red": "#d62828", "orange": "#f77f00", "yellow": "#f2c200", "green": "#2a9d4b", "blue": "#1d6fd1",
            "purple": "#7b3fb5", "pink": "#f06bb0", "brown": "#8b5a2b"}


def hiboufou_view(rules, deck, events: list[dict]) -> GameView:
    """The three spaces of the row (face-up piles: the top card and how many), the draw
    pile (face down), each seat's hand (hidden) and captured cards."""
    from ..games.hiboufou.model import COLOUR_NAMES, SPACE_NAMES, card_name, colours_of
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
    for e, s in _states(events):
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


# --- Bobby Sitter -------------------------------------------------------------------------

_CLASS_COLOURS = {"wolf": ("#3d3d3d", "#fff"), "sheep": ("#e9f5db", "#1f4d0f"), "empty": ("#f3ead7", "#6b5a3a"),
                  "hidden wolf": ("#d9d0ec", "#3b2a66")}


def bobbysitter_view(rules, deck, events: list[dict]) -> GameView:
    """The stack(s) (face down) and the flipped cards (face up), the stock of tokens
    and the BOBBY counters, each seat's tokens towards the target and its reaction to
    the card just flipped."""
    from ..games.bobbysitter.model import CLASS_NAMES, GRAB_NAMES, card_name
    from ..games.bobbysitter.trace import _cards
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
    for e, s in _states(events):
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


# --- Pig ----------------------------------------------------------------------------------

def pig_view(rules, init, events: list[dict]) -> GameView:
    """The die, the turn total at stake, each seat's score towards the goal."""
    p = rules.num_players
    zones = [Zone("die", "die", "last roll"), Zone("turn_total", "count", "turn total"),
             Zone("turns", "count", "turns played"), Zone("rolls", "count", "rolls")]
    zones += [Zone(f"score:{q}", "count", "score", q, max=rules["goal"]) for q in range(p)]
    values, status, marks = [], [], []
    face = 0
    for e, s in _states(events):
        face = e["face"] if e["event"] == "roll" else 0 if e["event"] == "hold" else face
        v: dict[str, Any] = {"die": face, "turn_total": s["turn_total"], "turns": s["turns"], "rolls": s["rolls"]}
        v.update({f"score:{q}": s["scores"][q] for q in range(p)})
        values.append(v)
        marks.append(None)
        status.append("game over" if "result" in e or s["to_act"] is None else
                      f"turn {s['turns'] + 1}: seat {s['to_act']} rolls or holds")
    return GameView(zones, values, status, marks)


def generic_view(rules, init, events: list[dict]) -> GameView:
    """A game without a view of its own (a plug-in game, games/turngame.py): each
    event's position as its trace draws it, in a fixed-width box."""
    zones = [Zone("position", "text", "position", layout="pre")]
    values, status, marks = [], [], []
    for e, after in zip(events, events[1:] + [None]):
        values.append({"position": e.get("state", "")})
        marks.append(None)
        # the page shows the position after the step: its status names who decides next
        status.append("game over" if after is None or "result" in e else
                      f"seat {after['seat']} to move" if after.get("seat") is not None else "the rules decide")
    return GameView(zones, values, status, marks)


VIEWS: dict[str, Callable[[Any, Any, list[dict]], GameView]] = {
    "battlesheep": battlesheep_view, "blacksheep": blacksheep_view, "hiboufou": hiboufou_view,
    "bobbysitter": bobbysitter_view, "pig": pig_view}
# the text of games/turngame.py's generic trace: "N. seat q (policy) plays ...", then the
# position drawn under it (which the picture shows)
GENERIC_SHAPE = TextShape(start=r"^\d+\. (seat \d+|the rules) ", drop=r"^   ")


# --- the document -------------------------------------------------------------------------

def _winners(result: dict) -> list[int]:
    if "cowinners" in result:
        return list(result["cowinners"])
    return [result["winner"]] if result.get("winner", -1) >= 0 else []


def diff(before: dict[str, Any] | None, after: dict[str, Any], kinds: dict[str, str]) -> dict[str, Any]:
    """The zones whose value changed (all of them after None); a hex board by hex."""
    if before is None:
        return dict(after)
    out: dict[str, Any] = {}
    for k, v in after.items():
        if kinds[k] == "hex":
            changed = {h: x for h, x in v.items() if before[k].get(h) != x}
            if changed:
                out[k] = changed
        elif before[k] != v:
            out[k] = v
    return out


def expand(doc: dict) -> list[dict[str, Any]]:
    """Every step's full view back from the document's changes (what replay.js does)."""
    kinds = {z["id"]: z["kind"] for z in doc["zones"]}
    out, cur = [], {}
    for step in doc["steps"]:
        cur = dict(cur)
        for k, v in step["set"].items():
            cur[k] = {**cur.get(k, {}), **v} if kinds[k] == "hex" else v
        out.append(cur)
    return out


def build(game, rules, specs, seed: int, game_index: int, rotate: bool, init, deck_file=None,
          start: str | None = None, run: Path | None = None, command: str | None = None) -> dict[str, Any]:
    """The replay document of game `game_index` of the run of `seed` (the arguments of
    the game's `trace`); `start` names the deck or position file, `run` the run folder
    and `command` the command line that makes the page, for its provenance."""
    from ..games import wrappers as W
    events = json.loads(game.trace(rules, specs, seed, game_index, rotate, init, True, deck_file=deck_file))
    text = game.trace(rules, specs, seed, game_index, rotate, init, False, deck_file=deck_file)
    header, texts = split_text(text, TEXT_SHAPES.get(game.name, GENERIC_SHAPE), len(events))
    view = VIEWS.get(game.name, generic_view)(rules, init, events)
    p = rules.num_players
    slots = W.seat_slots(game_index, p, rotate, p)
    seats = [{"seat": q, "name": f"seat {q}" + (f" ({chr(65 + q)})" if game.name == "battlesheep" else ""),
              "policy": specs[int(slots[q])].label, "colour": SEAT_COLOURS[q % len(SEAT_COLOURS)]} for q in range(p)]
    kinds = {z.id: z.kind for z in view.zones}
    steps, before = [], None
    for e, values, words, status, mark in zip(events, view.values, texts, view.status, view.marks):
        seat = e.get("seat", e.get("flipper"))
        step = {"event": e["event"], "seat": seat, "text": words, "status": status, "set": diff(before, values, kinds)}
        if mark:
            step["mark"] = mark
        if "result" in e:
            step["winners"] = _winners(e["result"])
        steps.append(step)
        before = values
    doc: dict[str, Any] = {
        "format": FORMAT, "game": game.name, "title": game.title, "heading": header[0] if header else game.title,
        "provenance": {"seed": seed, "game": game_index, "players": p, "rules": rules_text(header),
                       "policies": [s["policy"] for s in seats], "rotate": rotate, "start": start,
                       "run": None if run is None else str(run), "command": command, "version": __version__},
        "seats": seats,
        # a zone's unset fields (no owner, not hidden, ...) are left out
        "zones": [{k: v for k, v in asdict(z).items() if v is not None and v is not False} for z in view.zones],
        "steps": steps}
    if view.faces is not None:
        doc["faces"], doc["cards"] = view.faces, view.cards
    return doc


# --- the page -----------------------------------------------------------------------------

def _asset(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def _script_json(doc: dict) -> str:
    """JSON safe inside <script>: no `</script>` or `<!--` can close it early."""
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=False).replace("<", "\\u003c")


def page(doc: dict) -> str:
    """The self-contained HTML page of a replay document."""
    e = html.escape
    prov = doc["provenance"]
    report = doc.get("report")
    back = (f'<nav class="back"><a id="back-to-report" href="{e(report["href"], quote=True)}">&larr; back to the '
            f'report: {e(report["title"])}</a></nav>' if report else "")
    title = f"{doc['title']} replay: game {prov['game']} of seed {prov['seed']}, {prov['players']} players"
    policies = ", ".join(f"seat {q} {pol}" for q, pol in enumerate(prov["policies"]))
    facts = [("game", f"{doc['title']} ({doc['game']}), game {prov['game']} of the run of seed {prov['seed']}"),
             ("players", str(prov["players"])), ("policies", policies + ("" if prov["rotate"] else " (no rotation)")),
             ("rules", prov["rules"] or "the defaults")]
    if prov["start"]:
        facts.append(("start", prov["start"]))
    if prov["run"]:
        facts.append(("run", prov["run"]))
    if prov["command"]:
        facts.append(("command", prov["command"]))
    facts.append(("made by", f"sheepsim {prov['version']}"))
    legend = "".join(
        f'<li><span class="swatch" style="background:{s["colour"]}"></span><b>{e(s["name"])}</b> '
        f'<span class="policy">{e(s["policy"])}</span></li>' for s in doc["seats"])
    n = len(doc["steps"])
    plain = f"{doc['title']} game {prov['game']} of seed {prov['seed']}, {prov['players']} players"
    heading = "" if doc["heading"] == plain else f'<p class="heading">{e(doc["heading"])}</p>'
    toggle = ('<label class="toggle" title="hands and face-down piles"><input id="toggle-hidden" type="checkbox"> '
              'show hidden hands</label>' if any(z.get("hidden") for z in doc["zones"]) else "")
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="sheepsim {e(prov['version'])}">
<title>{e(title)}</title>
<style>
{_asset("replay.css")}
</style>
</head>
<body class="game-{e(doc['game'])}">
<header>
{back}
<h1>{e(doc['title'])} <span class="sub">game {prov['game']} of seed {prov['seed']} &middot; {prov['players']} players</span></h1>
{heading}
<details id="provenance"><summary>rules, policies and how to make this page again</summary>
<dl>{"".join(f"<dt>{e(k)}</dt><dd>{e(v)}</dd>" for k, v in facts)}</dl>
</details>
</header>
<nav class="controls" aria-label="replay controls">
<button id="play" type="button" title="play the game step by step (space)" aria-pressed="false">&#x25B6; play</button>
<button id="first" type="button" title="the start (Home)">&laquo; first</button>
<button id="prev" type="button" title="step back (left arrow)">&#x25C0; back</button>
<input id="slider" type="range" min="0" max="{n - 1}" value="0" step="1" aria-label="step">
<button id="next" type="button" title="step forward (right arrow)">forward &#x25B6;</button>
<button id="last" type="button" title="last step (End)">last &raquo;</button>
<span id="counter" aria-live="polite">step 0 of {n - 1}</span>
{toggle}
</nav>
<main>
<section id="board" aria-label="the table"></section>
<aside>
<div id="status"></div>
<div id="event" aria-live="polite"></div>
<h2>seats</h2>
<ul id="legend">{legend}</ul>
<p class="keys">keys: &larr; &rarr; step, Home/End first/last, space plays or pauses. Step 0 is the start,
step K the K-th decision; the address ends #step=K to link a step.</p>
</aside>
</main>
<script type="application/json" id="replay-data">{_script_json(doc)}</script>
<script>
{_asset("replay.js")}
</script>
</body>
</html>
"""


# --- files and runs -----------------------------------------------------------------------

def check_output(path: Path, force: bool = False) -> None:
    """Fail before any game is played if the page cannot be written to `path`, or would
    replace a file or create folders without `force`."""
    check_new_file(path, "--html", force, "replay.html")


def write(path: Path, doc: dict) -> tuple[Path, int]:
    """Write the page atomically (no half-written file on failure); (path, bytes)."""
    data = page(doc).encode("utf-8")
    try:
        return write_atomic(path, data), len(data)
    except OSError as exc:
        raise SheepsimError(f"cannot write --html {path}: {exc.strerror or exc}; write the page elsewhere")


@dataclass(frozen=True)
class RunSettings:
    """What a finished run played with, as `trace` needs it."""
    game: str
    rules: Any
    policies: list[str]
    seed: int
    rotate: bool
    start: dict | None
    start_file: Path | None
    games: int


def run_settings(folder: Path, game) -> RunSettings:
    """The settings of the finished run in `folder` (its manifest), for replaying one
    of its games exactly: same game and engine version, rules, policies, seed,
    rotation and start (deck or position)."""
    from ..results.store import read_manifest
    m = read_manifest(Path(folder))
    if m.get("status") != "complete":
        raise SheepsimError(f"{folder} holds an unfinished run; run its simulate command again to finish it first")
    if m["game"] != game.name:
        raise SheepsimError(f"{folder} is a run of {m['game']}, not {game.name}: use `sheepsim trace {m['game']} "
                            f"--from-run {folder}`")
    if m.get("game_version", game.version) != game.version:
        raise SheepsimError(f"{folder} was played by {game.name} engine version {m['game_version']}, this sheepsim "
                            f"has version {game.version}: its games cannot be replayed exactly; simulate it again")
    values = dict(m["rules"])
    rules = game.make_rules(values.pop("num_players"), values)
    start_file = m.get("start_file")
    return RunSettings(game.name, rules, list(m["policies"]), int(m["seed"]), bool(m["rotate"]),
                       m.get("start_position"), Path(start_file) if start_file else None,
                       int(m.get("played", m["games"])))


def trace_command(game, rules, policies: list[str], seed: int, game_index: int, rotate: bool,
                  start_option: str | None = None, run: Path | None = None) -> str:
    """The `sheepsim trace` command line that makes this page again."""
    import shlex
    if run is not None:
        return shlex.join(["sheepsim", "trace", game.name, "--from-run", str(run), "--game", str(game_index),
                           "--html", "FILE"])
    args = ["sheepsim", "trace", game.name, "-p", str(rules.num_players), "--seed", str(seed),
            "--game", str(game_index)]
    for label in (policies[:1] if len(set(policies)) == 1 else policies):
        args += ["--policy", label]
    for o in game.options:
        if rules[o.name] != o.default:
            v = rules[o.name]
            args += ["-o", f"{o.name}={','.join(map(str, v)) if isinstance(v, tuple) else v}"]
    if not rotate:
        args.append("--no-rotate")
    if start_option:
        args += start_option.split(" ", 1)
    return shlex.join(args + ["--html", "FILE"])


def write_replay(path: Path, game: str, players: int, options: dict[str, Any], policies: list[str], seed: int,
                 index: int, rotate: bool = True, label: str | None = None,
                 report: dict[str, str] | None = None) -> Path:
    """The replay page of game `index` of a report's run (a `replays` record of the
    report's saved data, report/saved.py): the site links each report to a few games,
    and `report` ({href, title}) links the page back to the report."""
    from ..games import get_game
    from ..policies import seat_specs
    from ..start import kernel_aux
    g = get_game(game)
    rules = g.make_rules(players, options)
    specs = seat_specs(g.name, policies, players)
    command = trace_command(g, rules, [s.label for s in specs], seed, index, rotate, None, None)
    doc = build(g, rules, specs, seed, index, rotate, kernel_aux(g, rules, None, specs), command=command)
    if report is not None:
        doc["report"] = dict(report)
    return write(path, doc)[0]
