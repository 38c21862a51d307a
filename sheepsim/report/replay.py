"""One game as a self-contained HTML page: `sheepsim trace GAME --html FILE`.

The page is built from the game's trace and nothing else: its JSON events (the full
state after every event) and its text (the same events in words).

    JSON events --(the game's view: a pure function of one state)--> one view a step
    text trace  --(cut at each event's first line)------------------> one text a step

A view gives a value to each of the game's *zones* (the table, a pile, a seat's hand or
zoo, a counter, Battle Sheep's pasture); the zones themselves (label, owner seat,
hidden or not, layout) are declared once. A game's view and the shape of its text are
its GameSpec's `replay_view` and `replay_text` (the built-in games' in their folders'
view.py, over the data classes of games/view.py); a game without them (a plug-in made
with games/turngame.py) gets the generic view here: its position as text. The page embeds one document (JSON, below)
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
from dataclasses import asdict, dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from .. import __version__
from ..errors import SheepsimError
from ..fileio import check_new_file, write_atomic
from ..games.view import GameView, TextShape, Zone

FORMAT = "sheepsim-replay/1"
# seat colours, seat 0 first (Bobby Sitter seats up to 6 players); colour-blind-safe
# hues from the Okabe-Ito palette, darkened enough for white numbers on them
SEAT_COLOURS = ("#d55e00", "#0072b2", "#009e73", "#cc79a7", "#8a6d00", "#56267a")


# --- the text: one piece per event --------------------------------------------------------

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


# the text of games/turngame.py's generic trace: "N. seat q (policy) plays ...", then the
# position drawn under it (which the picture shows)
GENERIC_SHAPE = TextShape(start=r"^\d+\. (seat \d+|the rules) ", drop=r"^   ")


def text_shape(game) -> TextShape:
    """How `game`'s text trace is cut into events: its GameSpec.replay_text, else the
    generic trace's shape."""
    return game.replay_text or GENERIC_SHAPE


def view_of(game):
    """`game`'s view function: its GameSpec.replay_view, else the generic view."""
    return game.replay_view or generic_view


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
    header, texts = split_text(text, text_shape(game), len(events))
    view = view_of(game)(rules, init, events)
    p = rules.num_players
    slots = W.seat_slots(game_index, p, rotate, p)
    names = view.seats or [f"seat {q}" for q in range(p)]
    seats = [{"seat": q, "name": names[q],
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
