"""`sheepsim trace GAME --html FILE`: the replay page of one game (report/replay.py).

The page embeds one document; these tests read it back and hold it against the game's
JSON trace: one step per event, Battle Sheep's hexes and last move, every card of a
card game in exactly one zone, hands hidden by default, the text of each decision, the
winners; the page loads nothing. --from-run replays a run's game with its settings, and
bad input is one line, exit 2, nothing written."""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest
from conftest import assert_bad
from conftest import run_cli as run

from sheepsim.games import all_games
from sheepsim.report import replay

# the player counts shown; every other registered game (a plug-in) at its smallest
SHOWN = {"battlesheep": ["-p", "2"], "blacksheep": ["-p", "3"], "hiboufou": ["-p", "2"],
         "bobbysitter": ["-p", "3"], "pig": []}
GAMES = {name: SHOWN.get(name, []) for name in all_games()}
# the declared traits: the games whose seats hold hidden cards, and the card games
# (hidden hands or a deck), whose replay views place every card in one zone
HIDDEN = [name for name, g in all_games().items() if g.hidden]
CARDS = [name for name, g in all_games().items() if g.hidden or g.read_deck is not None]
GAME = ["--seed", "3", "--game", "1"]
IDS = ("play", "prev", "next", "slider", "board", "event")


def document(page: str) -> dict:
    """The replay document embedded in a page."""
    m = re.search(r'<script type="application/json" id="replay-data">(.*?)</script>', page, re.DOTALL)
    assert m, "no embedded replay data"
    return json.loads(m.group(1))


def make(tmp_path, game: str, *args: str) -> tuple[str, dict, list[dict], str]:
    """(page, its document, the JSON trace, the text trace) of one game."""
    path = tmp_path / f"{game}.html"
    r = run("trace", game, *args, "--html", str(path))
    assert r.exit_code == 0, r.output
    assert f"wrote {path}" in r.output
    events = json.loads(run("trace", game, *args, "--json").output)
    page = path.read_text(encoding="utf-8")
    return page, document(page), events, run("trace", game, *args).output


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    folder = tmp_path_factory.mktemp("replay")
    return {game: make(folder, game, *args, *GAME) for game, args in GAMES.items()}


def states(events: list[dict], key: str = "state") -> list[dict]:
    """The state after every event; the end event repeats the last."""
    out = []
    for e in events:
        out.append(e.get(key, out[-1] if out else None))
    return out


# --- the page ---------------------------------------------------------------------------

@pytest.mark.parametrize("game", GAMES)
def test_page_is_one_self_contained_file_with_a_step_per_event(made, game):
    page, doc, events, _ = made[game]
    assert doc["format"] == replay.FORMAT and doc["game"] == game
    assert len(doc["steps"]) == len(events)
    assert [s["event"] for s in doc["steps"]] == [e["event"] for e in events]
    assert f"step 0 of {len(events) - 1}" in page          # step 0 the start, step K the K-th decision
    assert "back-to-report" not in page                    # made by trace --html, for no report
    # offline: no address to fetch, no script or style from elsewhere
    assert not re.search(r"https?://", page, re.IGNORECASE)
    assert not re.search(r"<script[^>]*\bsrc\s*=", page, re.IGNORECASE)
    assert not re.search(r"<link\b", page, re.IGNORECASE) and "@import" not in page and "url(http" not in page
    for element in IDS:
        assert f'id="{element}"' in page
    # provenance: game, seed, game index, players, rules, policies
    title = re.search(r"<title>(.*?)</title>", page).group(1)
    players = len(doc["seats"])
    assert all(x in title for x in (doc["title"], "game 1", "seed 3", f"{players} players"))
    assert doc["provenance"]["seed"] == 3 and doc["provenance"]["game"] == 1
    assert doc["provenance"]["players"] == players and doc["provenance"]["rules"]
    assert "rules" in page and all(s["policy"] in page for s in doc["seats"])
    assert doc["provenance"]["command"].startswith(f"sheepsim trace {game} ")


@pytest.mark.parametrize("game", GAMES)
def test_each_step_says_its_event_in_the_trace_words(made, game):
    _, doc, events, text = made[game]
    lines = text.splitlines()
    shape = replay.text_shape(all_games()[game])
    decisions = [line.strip() for line in lines if re.match(shape.start, line)]
    steps = doc["steps"]
    assert len(decisions) == len(steps) - 2
    for step, line in zip(steps[1:-1], decisions):
        assert line in [said.strip() for said in step["text"].splitlines()]
    assert steps[-1]["text"].splitlines()[-1] == lines[-1]          # the result
    assert all(s["text"] and s["status"] for s in steps)
    # the page shows the state after each step, so its status names the seat that acts next
    for step, after in zip(steps, steps[1:-1]):
        assert f"seat {after['seat']}" in step["status"], (step["status"], after["seat"])
    for step, e in zip(steps, events):
        assert step["seat"] == e.get("seat", e.get("flipper"))


@pytest.mark.parametrize("game", GAMES)
def test_the_last_step_names_the_winners(made, game):
    _, doc, events, _ = made[game]
    result = events[-1]["result"]
    winners = result.get("cowinners", [result["winner"]] if result["winner"] >= 0 else [])
    assert doc["steps"][-1]["winners"] == winners
    assert doc["steps"][-1]["status"] == "game over"


def test_changes_expand_back_to_every_view(made):
    """Each step holds only the zones that changed; expanding gives every zone a value at
    every step, and a zone absent from a step kept its value."""
    for game in GAMES:
        _, doc, _, _ = made[game]
        ids = {z["id"] for z in doc["zones"]}
        full = replay.expand(doc)
        assert set(doc["steps"][0]["set"]) == ids
        for before, after, step in zip(full, full[1:], doc["steps"][1:]):
            assert set(after) == ids
            for zone in ids - set(step["set"]):
                assert after[zone] == before[zone]


# --- Battle Sheep -----------------------------------------------------------------------

def test_battlesheep_hexes_are_the_positions_and_the_mark_is_the_move(made):
    _, doc, events, _ = made["battlesheep"]
    full = replay.expand(doc)
    for view, position, step, e in zip(full, states(events, "position"), doc["steps"], events):
        board = {tuple(map(int, h.split(","))): (owner, height) for h, (owner, height, _) in view["board"].items()}
        cells = {(c["q"], c["r"]): (-1 if c["owner"] is None else c["owner"], c["height"]) for c in position["cells"]}
        assert board == cells
        for q in range(len(doc["seats"])):
            assert view[f"pastures:{q}"] == sum(c["owner"] == q for c in position["cells"])
        move = e.get("move")
        if move is None:
            assert "mark" not in step
        elif "from" in move:
            assert step["mark"]["from"] == "{},{}".format(*move["from"])
            assert step["mark"]["to"] == "{},{}".format(*move["to"])
            assert step["mark"]["count"] == move["count"]
        elif "tile" in move:
            assert sorted(step["mark"]["tile"]) == sorted("{},{}".format(*h) for h in move["tile"])
        else:
            assert step["mark"]["place"] == "{},{}".format(*move["place"])
    kinds = {next(iter(e["move"])) for e in events if "move" in e}
    assert kinds == {"tile", "place", "from"}      # building, placing and moving are all replayed
    result = events[-1]["result"]
    last = full[-1]
    assert [last[f"pastures:{q}"] for q in range(2)] == result["scores"]
    assert [last[f"herd:{q}"] for q in range(2)] == result["herds"]


def test_battlesheep_tiles_appear_as_they_are_laid(made):
    _, doc, events, _ = made["battlesheep"]
    full = replay.expand(doc)
    assert full[0]["board"] == {}
    laid = [len(v["board"]) for v, e in zip(full, events) if "tile" in e.get("move", {})]
    assert laid == [4 * (k + 1) for k in range(len(laid))]


# --- card games -------------------------------------------------------------------------

def _view_cards(doc: dict, view: dict) -> list[int]:
    """Every card the view shows or hides, once per appearance."""
    out: list[int] = []
    for z in doc["zones"]:
        if z["kind"] == "cards":
            out += view[z["id"]]
        elif z["kind"] == "groups":
            out += [c for g in view[z["id"]] for c in g]
    return out


def _state_cards(game: str, s: dict) -> list[int]:
    def flat(rows):
        return [c for row in rows for c in row]
    if game == "hiboufou":
        return flat(s["hands"]) + flat(s["row"]) + s["pile"] + flat(s["captured"])
    if game == "bobbysitter":
        return flat(s["stacks"]) + flat(s["discards"])
    from sheepsim.games.blacksheep.model import MAGPIE

    def counts(rows):
        return [k for row in rows for k, n in enumerate(row) for _ in range(n)]
    # rules: the Magpie lies beside the draw pile until it enters play
    return (counts(s["hands"]) + counts(s["zoos"]) + counts(s["set_aside"]) + s["table"] + s["pile"]
            + ([] if s["magpie_in_play"] else [MAGPIE]))


def _conserved(game: str, doc: dict, events: list[dict]) -> None:
    full = replay.expand(doc)
    total = None
    for view, s in zip(full, states(events)):
        shown = Counter(_view_cards(doc, view))
        assert shown == Counter(_state_cards(game, s))
        total = total or sum(shown.values())
        assert sum(shown.values()) == total
    assert all(0 <= c < len(doc["cards"]) for c in shown)
    assert all(0 <= f < len(doc["faces"]) for f in doc["cards"])


@pytest.mark.parametrize("game", CARDS)
def test_every_card_is_in_exactly_one_zone(made, game):
    _, doc, events, _ = made[game]
    _conserved(game, doc, events)
    if game != "blacksheep":
        assert sorted(_view_cards(doc, replay.expand(doc)[0])) == list(range(len(doc["cards"])))


@pytest.mark.parametrize("game, args", [
    ("blacksheep", ["-p", "4", "-o", "wolf=on", "-o", "joker=on", "-o", "white_sheep=on", "-o", "mother_sheep=on",
                    "--policy", "threshold:k=5", "--seed", "2"]),
    ("blacksheep", ["-p", "2", "-o", "magpie_entry=draw_pile_shuffled", "--seed", "7", "--game", "3"]),
    ("bobbysitter", ["-p", "4", "-o", "stack_mode=per_player", "--seed", "1"]),
    ("hiboufou", ["-p", "4", "--policy", "greedy", "-o", "colours=8", "-o", "colours_per_card=3", "-o", "copies=1"]),
])
def test_every_card_is_in_exactly_one_zone_under_other_rules(tmp_path, game, args):
    _, doc, events, _ = make(tmp_path, game, *args)
    _conserved(game, doc, events)


def test_blacksheep_joker_sits_with_its_species(tmp_path):
    from sheepsim.games.blacksheep.model import ANIMAL, JOKER
    for seed in range(6):
        _, doc, events, _ = make(tmp_path, "blacksheep", "-p", "3", "-o", "joker=on", "--policy", "threshold:k=6",
                                 "--seed", str(seed))
        for view, s in zip(replay.expand(doc), states(events)):
            for q, bound in enumerate(s["joker_species"]):
                for group in view[f"zoo:{q}"]:
                    if JOKER in group and bound:
                        assert all(c in (JOKER, ANIMAL + bound - 1) for c in group)
                        return
    pytest.skip("no Joker reached a zoo in these games")


@pytest.mark.parametrize("game", HIDDEN)
def test_hands_are_hidden_by_default(made, game):
    page, doc, _, _ = made[game]
    zones = {z["id"]: z for z in doc["zones"]}
    for q in range(len(doc["seats"])):
        hand = zones[f"hand:{q}"]
        assert hand["hidden"] is True and hand["owner"] == q
    assert zones["pile"]["hidden"] is True and zones["pile"]["layout"] == "pile"
    toggle = re.search(r'<input id="toggle-hidden"[^>]*>', page).group(0)
    assert "checked" not in toggle and "disabled" not in toggle
    assert "show hidden hands" in page
    # the hands of every seat are in the view, names and all, for the toggle to show
    full = replay.expand(doc)
    assert all(full[0][f"hand:{q}"] for q in range(len(doc["seats"])))


def test_card_faces_read_as_the_text_trace_does(made):
    from sheepsim.games.blacksheep.model import KIND_NAMES
    _, doc, _, _ = made["blacksheep"]
    assert [f["name"] for f in doc["faces"]] == list(KIND_NAMES)
    _, doc, events, _ = made["hiboufou"]
    names = {f["name"] for f in doc["faces"]}
    first = events[1]
    assert first["event"] == "play"
    laid = doc["faces"][doc["cards"][first["decision"][1]]]["name"]
    assert laid in names and f"lays {laid} on the" in doc["steps"][1]["text"]


def test_pig_has_nothing_hidden(made):
    page, doc, events, _ = made["pig"]
    assert not any(z.get("hidden") for z in doc["zones"])
    assert '<input id="toggle-hidden"' not in page and "hidden hands" not in page      # no toggle for nothing
    full = replay.expand(doc)
    for view, e, s in zip(full, events, states(events)):
        assert [view["score:0"], view["score:1"]] == s["scores"][:2]
        if e["event"] == "roll":
            assert view["die"] == e["face"]


def test_pages_are_small(made):
    for game in GAMES:
        page = made[game][0]
        assert len(page.encode()) < 400_000, game


# --- --from-run -------------------------------------------------------------------------

@pytest.fixture(scope="module")
def finished_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("run") / "bb"
    r = run("simulate", "blacksheep", "-p", "3", "-n", "12", "--policy", "threshold:k=7", "--policy", "random",
            "--policy", "risk", "--seed", "9", "-o", "wolf=on", "--out", str(out), "-q")
    assert r.exit_code == 0, r.output
    return out


def test_from_run_replays_that_game_with_the_runs_settings(tmp_path, finished_run):
    from sheepsim.runner import read_run
    path = tmp_path / "from-run.html"
    r = run("trace", "blacksheep", "--from-run", str(finished_run), "--game", "5", "--html", str(path))
    assert r.exit_code == 0, r.output
    doc = document(path.read_text())
    same = ["-p", "3", "--policy", "threshold:k=7", "--policy", "random", "--policy", "risk", "--seed", "9",
            "-o", "wolf=on", "--game", "5"]
    _, direct, events, _ = make(tmp_path, "blacksheep", *same)
    assert doc["steps"] == direct["steps"] and doc["seats"] == direct["seats"]
    assert doc["provenance"]["run"] == str(finished_run)
    assert "--from-run" in doc["provenance"]["command"]
    row = read_run(finished_run).results.set_index("game").loc[5]
    assert doc["steps"][-1]["winners"] == ([int(row["winner"])] if row["winner"] >= 0 else [])
    # text and JSON traces take --from-run too
    assert json.loads(run("trace", "blacksheep", "--from-run", str(finished_run), "--game", "5", "--json").output) \
        == events


def test_from_run_game_beyond_the_run_is_an_error(tmp_path, finished_run):
    path = tmp_path / "x.html"
    assert_bad(run("trace", "blacksheep", "--from-run", str(finished_run), "--game", "12", "--html", str(path)),
               "--game 12", "12 games")
    assert not path.exists() and list(tmp_path.iterdir()) == []


def test_from_run_refuses_settings_of_its_own(tmp_path, finished_run):
    for extra in (["--seed", "1"], ["-p", "3"], ["--policy", "random"], ["-o", "wolf=off"], ["--no-rotate"]):
        assert_bad(run("trace", "blacksheep", "--from-run", str(finished_run), *extra, "--html",
                       str(tmp_path / "x.html")), "--from-run", extra[0].lstrip("-")[:4])
    assert_bad(run("trace", "battlesheep", "--from-run", str(finished_run)), "blacksheep")
    assert_bad(run("trace", "blacksheep", "--from-run", str(tmp_path / "nothing")), "not a sheepsim results folder")
    assert list(tmp_path.iterdir()) == []


# --- bad input ----------------------------------------------------------------------------

def test_folder_that_does_not_exist(tmp_path):
    path = tmp_path / "missing" / "replay.html"
    assert_bad(run("trace", "pig", "--html", str(path)), str(path.parent), "does not exist", "mkdir -p")
    assert not path.parent.exists()


def test_a_folder_given_as_the_file(tmp_path):
    assert_bad(run("trace", "pig", "--html", str(tmp_path)), str(tmp_path), "is a folder", "replay.html")
    assert list(tmp_path.iterdir()) == []


def test_html_and_json_together(tmp_path):
    path = tmp_path / "r.html"
    assert_bad(run("trace", "pig", "--html", str(path), "--json"), "--html", "--json")
    assert not path.exists()


def test_unwritable_folder(tmp_path, monkeypatch):
    """A write that fails (here: the folder is not writable) is one line and leaves no file."""
    import os
    path = tmp_path / "r.html"
    monkeypatch.setattr(os, "access", lambda *a, **k: False)
    assert_bad(run("trace", "pig", "--html", str(path)), "not writable", str(tmp_path))
    monkeypatch.undo()

    def fail(*a, **k):
        raise PermissionError(13, "Permission denied")
    monkeypatch.setattr(replay, "write_atomic", fail)
    assert_bad(run("trace", "pig", "--html", str(path)), "cannot write", "Permission denied")
    assert list(tmp_path.iterdir()) == []


def test_existing_page_is_replaced_whole_with_force_only(tmp_path):
    path = tmp_path / "r.html"
    path.write_text("old")
    assert_bad(run("trace", "pig", "--seed", "2", "--html", str(path)), "exists; give --force to replace it")
    assert path.read_text() == "old"
    r = run("trace", "pig", "--seed", "2", "--html", str(path), "--force")
    assert r.exit_code == 0, r.output
    assert document(path.read_text())["provenance"]["seed"] == 2
    assert [p.name for p in tmp_path.iterdir()] == ["r.html"]


def test_a_file_given_as_the_folder(tmp_path):
    (tmp_path / "notes").write_text("x")
    assert_bad(run("trace", "pig", "--html", str(tmp_path / "notes" / "r.html")), "is a file, not a folder")
    assert [p.name for p in tmp_path.iterdir()] == ["notes"]


def test_the_script_parses(made):
    """The page's own script is valid JavaScript (when node is there to say so)."""
    import shutil
    import subprocess
    node = shutil.which("node")
    if node is None:
        pytest.skip("no node to parse the script")
    page = made["blacksheep"][0]
    script = re.findall(r"<script>(.*?)</script>", page, re.DOTALL)
    assert len(script) == 1
    checked = subprocess.run([node, "--check", "-"], input=script[0], capture_output=True, text=True, timeout=60,
                             check=False)
    assert checked.returncode == 0, checked.stderr


def test_battlesheep_step_k_is_move_k(made):
    """Step 0 is the start, step K the K-th move, as the text trace numbers it."""
    _, doc, _, _ = made["battlesheep"]
    for k, step in enumerate(doc["steps"][1:-1], start=1):
        assert step["text"].startswith(f"{k}. seat {step['seat']} "), (k, step["text"])


def test_the_blacksheep_result_has_no_raw_lists(made):
    """The last step says the result in words ("seat 0 has 2 triplets, ..."), never as a
    Python list ("triplets [2, 2, 4]")."""
    _, doc, _, text = made["blacksheep"]
    for said in (doc["steps"][-1]["text"], text.splitlines()[-1]):
        assert not re.search(r"\[\d+(, \d+)+\]", said), said


def test_a_replay_for_a_report_links_back_to_it(tmp_path):
    path = replay.write_replay(tmp_path / "r.html", "pig", 2, {}, ["hold", "random"], 3, 1,
                               report={"href": "../pig-seats.html", "title": "Pig: seats & <turns>"})
    page = path.read_text(encoding="utf-8")
    assert document(page)["report"] == {"href": "../pig-seats.html", "title": "Pig: seats & <turns>"}
    link = re.search(r'<a id="back-to-report" href="([^"]+)">([^<]*)</a>', page)
    assert link and link.group(1) == "../pig-seats.html"
    assert link.group(2) == "&larr; back to the report: Pig: seats &amp; &lt;turns&gt;"
