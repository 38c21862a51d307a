"""Hiboufou through the CLI: options, simulate, trace, deck files, user policies, and bad
input (one line, exit 2)."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest

from conftest import assert_bad
from conftest import run_cli as run


def test_rules_and_policies_listed():
    text = run("rules", "hiboufou").output
    for name in ("colours", "colours_per_card", "copies", "initial_slot", "empty_slot_priority", "mandatory_play",
                 "capture_condition", "match_covered_card", "play_after_forced_draw", "tiebreak", "turn_cap"):
        assert name in text
    policies = run("policies", "hiboufou").output
    assert "random" in policies and "greedy" in policies and "defensive" in policies


def test_simulate_and_trace_agree():
    sim = run("simulate", "hiboufou", "-p", "3", "--games", "300", "--policy", "greedy", "--seed", "4", "-q")
    assert sim.exit_code == 0, sim.output
    assert "Hiboufou, 3 players: 300 games" in sim.output
    events = json.loads(run("trace", "hiboufou", "-p", "3", "--policy", "greedy", "--seed", "4", "--game", "2",
                            "--json").output)
    assert events[0]["event"] == "deal" and events[-1]["event"] == "end"
    final = events[-2]["state"]
    assert final["over"] and [len(c) for c in final["captured"]] == events[-1]["result"]["captured"]
    # every card is in exactly one place after every event
    for e in events[:-1]:
        st = e["state"]
        cards = sum(st["hands"], []) + sum(st["row"], []) + st["pile"] + sum(st["captured"], [])
        assert sorted(cards) == list(range(60))
    text = run("trace", "hiboufou", "-p", "3", "--seed", "4", "--game", "2").output
    assert "row [" in text and "seat 0 hand:" in text and ("lays " in text)


# ---------------------------------------------------------------------------
# trace text
# ---------------------------------------------------------------------------

LINE = re.compile(r"^  turn (\d+) seat (\d): (.*)$")
# seed 4 game 2 of 3 random players: captures, a forced draw, passes on an empty pile
GAME_ARGS = ["-p", "3", "--seed", "4", "--game", "2"]


def _steps(*args):
    """The text's decision lines, each with the JSON states before and after it."""
    text = run("trace", "hiboufou", *args).output
    events = json.loads(run("trace", "hiboufou", *args, "--json").output)
    states = [e["state"] for e in events[:-1]]
    lines = [LINE.match(line).groups() for line in text.splitlines() if LINE.match(line)]
    assert len(lines) == len(events) - 2
    return text, [(int(t), int(q), d, before, after, e)
                  for (t, q, d), before, after, e in zip(lines, states, states[1:], events[1:-1])]


def test_trace_header_and_turn_numbers():
    text, steps = _steps(*GAME_ARGS)
    lines = text.splitlines()
    assert lines[0] == ("Hiboufou game 2 of seed 4: 3 players, 60 cards (the generated deck: an assumption, no "
                        "component list was found)")
    assert lines[1].startswith("rules: every option at its default: colours=6, colours_per_card=2, copies=4, ")
    assert "{" not in text and "This view shows every hand, the hidden ones included." in text
    for turn, _, _, before, _, _ in steps:
        assert turn == before["turn"] + 1
    assert steps[0][0] == 1 and steps[-1][0] == 37
    end = json.loads(run("trace", "hiboufou", *GAME_ARGS, "--json").output)[-1]["result"]
    assert end["turns"] == 37
    assert lines[-2:] == ["the draw pile is empty and nobody can lay a card: the game ends after turn 37.",
                          "seat 2 wins with 28 captured cards; seat 0 has 2 captured cards, seat 1 has 17, seat 2 has 28"]


def test_trace_says_when_a_pile_is_won():
    text, steps = _steps(*GAME_ARGS)
    won = [(q, d, before, after, e) for _, q, d, before, after, e in steps
           if e["event"] == "play" and len(after["captured"][q]) > len(before["captured"][q])]
    assert len(won) > 3 and text.count(" pile, ") == len(won)
    spaces = ("left", "centre", "right")
    for q, d, before, after, e in won:
        space = e["decision"][2]
        n = len(before["row"][space]) + 1
        assert after["row"][space] == [] and len(after["captured"][q]) - len(before["captured"][q]) == n
        assert d.endswith(f", its 3rd card this turn, its hand empty: seat {q} wins the {spaces[space]} pile, "
                          f"{n} cards"), d
    assert ("  turn 6 seat 2: lays orange+yellow on the left space, its 3rd card this turn, its hand empty: seat 2 "
            "wins the left pile, 5 cards") in text.splitlines()


def test_trace_forced_draw_and_pass_on_an_empty_pile():
    text, steps = _steps(*GAME_ARGS)
    draws = [(d, before, after) for _, _, d, before, after, e in steps if e["event"] == "draw"]
    assert any(before["pile"] for _, before, _ in draws) and any(not before["pile"] for _, before, _ in draws)
    for d, before, after in draws:
        if before["pile"]:
            assert d.startswith("cannot lay a card and draws ") and d.endswith("; the turn ends")
            assert len(after["pile"]) == len(before["pile"]) - 1
        else:
            assert d == "cannot lay a card and the draw pile is empty: passes", d
            assert after["hands"] == before["hands"]
    assert "  turn 27 seat 2: cannot lay a card and draws orange+purple; the turn ends" in text.splitlines()
    assert "  turn 31 seat 0: cannot lay a card and the draw pile is empty: passes" in text.splitlines()
    # with play_after_forced_draw=yes the drawer may go on
    text = run("trace", "hiboufou", "-p", "2", "--seed", "1", "--game", "1", "-o", "play_after_forced_draw=yes",
               "-o", "mandatory_play=no").output
    assert re.search(r"cannot lay a card and draws \S+; it may lay cards now \(play_after_forced_draw=yes\)", text)


def test_trace_refills_after_a_turn():
    text, steps = _steps(*GAME_ARGS)
    lines = text.splitlines()
    assert lines.index("    seat 0 draws back up to 3 cards: red+yellow, blue+purple") == \
        lines.index("  turn 1 seat 0: ends the turn") + 1
    assert "    the draw pile is empty: seat 0 draws nothing and holds 0 cards" in lines


def test_trace_names_who_shares_a_shared_win_and_the_tie_break():
    args = ["-p", "2", "--policy", "defensive", "--seed", "1", "--game", "1"]
    end = json.loads(run("trace", "hiboufou", *args, "--json").output)[-1]["result"]
    assert end["winner"] == -1 and end["captured"] == [27, 27]
    text = run("trace", "hiboufou", *args).output
    assert text.splitlines()[-1] == "seats 0 and 1 share the win with 27 captured cards each; seat 0 has 27 captured cards, seat 1 has 27"
    text = run("trace", "hiboufou", *args, "-o", "tiebreak=last_capture").output
    assert text.splitlines()[-1] == ("seats 0 and 1 tie with 27 captured cards each; seat 1 wins the tie-break with "
                                     "the most recent capture (turn 36); seat 0 has 27 captured cards, seat 1 has 27")
    assert "  turn 36 seat 1: lays blue+purple on the centre space, its 3rd card this turn, its hand empty: seat 1 " \
           "wins the centre pile, 5 cards" in text.splitlines()
    text = run("trace", "hiboufou", *args, "-o", "tiebreak=fewest_cards_in_hand").output
    assert text.splitlines()[-1] == ("seats 0 and 1 tie with 27 captured cards each; seat 1 wins the tie-break, "
                                     "holding the fewest cards (0); seat 0 has 27 captured cards, seat 1 has 27")
    assert "    seat 0 hand: orange+purple; captured 27\n    seat 1 hand: -; captured 27" in text


def test_trace_says_when_the_turn_cap_ended_a_game():
    text, steps = _steps(*GAME_ARGS, "-o", "turn_cap=8")
    assert steps[-1][0] == 8 and steps[-1][4]["over"]
    assert json.loads(run("trace", "hiboufou", *GAME_ARGS, "-o", "turn_cap=8", "--json").output)[-1]["result"][
        "capped"]
    assert text.splitlines()[-2:] == ["the turn cap (turn_cap=8) stops the game after turn 8; it is scored as usual.",
                                      "seat 2 wins with 5 captured cards; seat 0 has 0 captured cards, seat 1 has 0, seat 2 has 5"]


@pytest.mark.parametrize("args,needle", [
    (["-p", "6"], "2-5 players"),
    (["-p", "1"], "2-5 players"),
    (["-o", "colours=9"], "2..8"),
    (["-o", "empty_slot_priority=sometimes"], "fill_if_possible | strict | free"),
    (["-o", "colours=2", "-o", "colours_per_card=3"], "colours_per_card"),
    (["-p", "5", "-o", "colours=2", "-o", "colours_per_card=2", "-o", "copies=1"], "need"),
    (["--policy", "sneaky"], "valid policies: random, greedy, defensive"),
])
def test_bad_input(args, needle):
    assert_bad(run("simulate", "hiboufou", "--games", "10", *args), needle)


# ---------------------------------------------------------------------------
# --deck FILE
# ---------------------------------------------------------------------------

# 13 cards: the fewest 4 players can be dealt (3 each plus the first face-up card)
DECK = [["red", "orange"], ["red", "yellow"], ["orange", "yellow"], ["red"], ["orange"], ["yellow"],
        ["red", "orange", "yellow"], ["green", "red"], ["green", "orange"], ["green", "yellow"], ["green"],
        ["blue", "green"], ["blue", "red"]]
DECK_TOML = "# a designer's deck\nname = \"thirteen\"\ncards = [\n" + "".join(
    "  [" + ", ".join(f'"{c}"' for c in card) + "],\n" for card in DECK) + "]\n"


def write(tmp_path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_deck_file_is_dealt_recorded_and_read_the_same_from_toml_and_json(tmp_path):
    toml = write(tmp_path, "deck.toml", DECK_TOML)
    bare = write(tmp_path, "deck.json", json.dumps(DECK))
    # the same deck with each card's colours in another order and case
    wrapped = write(tmp_path, "cards.json", json.dumps({"cards": [[c.upper() for c in card[::-1]]
                                                                  for card in DECK]}))
    outs = []
    for i, deck in enumerate((toml, bare, wrapped)):
        out = tmp_path / f"run{i}"
        result = run("simulate", "hiboufou", "-p", "4", "--deck", deck, "--games", "200", "--policy", "greedy",
                     "--policy", "random", "--policy", "defensive", "--policy", "random", "--seed", "3",
                     "--out", str(out), "-q")
        assert result.exit_code == 0, result.output
        assert "Hiboufou, 4 players: 200 games" in result.output
        outs.append(out)
    manifests = [json.loads((out / "manifest.json").read_text()) for out in outs]
    # provenance: the deck, canonical (colour order, lower case), whatever the file looked like
    canonical = [sorted(card, key=["red", "orange", "yellow", "green", "blue"].index) for card in DECK]
    assert all(m["start_position"] == {"deck": canonical} for m in manifests)
    frames = [pd.concat([pd.read_parquet(f) for f in sorted(out.glob("chunk-*.parquet"))], ignore_index=True)
              for out in outs]
    assert frames[0].equals(frames[1]) and frames[0].equals(frames[2])
    # the deck is the one dealt: 13 cards, and never more captured than that
    assert (frames[0][[f"score_{q}" for q in range(4)]].sum(axis=1) <= 13).all()
    generated = run("simulate", "hiboufou", "-p", "4", "--games", "200", "--policy", "greedy", "--policy",
                    "random", "--policy", "defensive", "--policy", "random", "--seed", "3", "-q")
    assert generated.exit_code == 0 and generated.output != run(
        "simulate", "hiboufou", "-p", "4", "--deck", toml, "--games", "200", "--policy", "greedy", "--policy",
        "random", "--policy", "defensive", "--policy", "random", "--seed", "3", "-q").output

    trace = run("trace", "hiboufou", "-p", "4", "--deck", toml, "--seed", "3", "--game", "5", "--policy", "greedy",
                "--policy", "random", "--policy", "defensive", "--policy", "random", "--json")
    assert trace.exit_code == 0, trace.output
    events = json.loads(trace.output)
    for e in events[:-1]:
        st = e["state"]
        cards = sum(st["hands"], []) + sum(st["row"], []) + st["pile"] + sum(st["captured"], [])
        assert sorted(cards) == list(range(13))
    row = frames[0][frames[0].game == 5].iloc[0]
    assert events[-1]["result"]["captured"] == [int(row[f"score_{q}"]) for q in range(4)]
    text = run("trace", "hiboufou", "-p", "4", "--deck", toml, "--seed", "3", "--game", "5").output
    lines = text.splitlines()
    assert lines[0] == f"Hiboufou game 5 of seed 3: 4 players, deck file {toml} (13 cards)" and "green+blue" in text
    # the generated deck's options do not apply to a deck file
    assert lines[1].startswith("rules: every option at its default: initial_slot=centre, ")
    assert "colours=" not in text and "copies=" not in text


TOO_MANY = json.dumps([["red", "orange"]] * 721)


@pytest.mark.parametrize("name,text,args,needles", [
    ("missing.toml", None, [], ["cannot read deck file", "missing.toml", "No such file"]),
    ("bad.toml", 'cards = [\n  ["red", "orange"],\n  ["red" "blue"],\n]\n', [],
     ["bad.toml is not valid TOML", "line 3"]),
    ("bad.json", '[\n  ["red", "orange"],\n  ["red" "blue"]\n]\n', [], ["bad.json is not valid JSON", "line 3"]),
    ("empty.toml", "cards = []\n", [], ["empty.toml", "the deck is empty"]),
    ("nothing.toml", "# no cards yet\n", [], ["nothing.toml has no cards"]),
    ("typo.toml", 'card = [["red"]]\n', [], ["unknown key 'card'"]),
    ("blank.json", json.dumps([["red"], ["orange"], []]), [], ["blank.json", "card 3 has no colour"]),
    ("mauve.json", json.dumps({"cards": [["red"], ["red", "mauve"]]}), [],
     ["card 2: unknown colour 'mauve'", "known colours: red, orange, yellow, green, blue, purple, pink, brown"]),
    ("twice.toml", 'cards = [["red", "blue", "Red"]]\n', [], ["card 1: colour 'Red' appears twice"]),
    ("word.json", json.dumps(["red", "orange"]), [], ["card 1: expected a list of colour names"]),
    ("table.json", json.dumps({"cards": "red"}), [], ["the cards must be a list"]),
    ("deck.txt", json.dumps(DECK), [], ["deck.txt must end in .toml", ".json"]),
    ("few.json", json.dumps(DECK), ["-p", "5"], ["few.json", "13 cards; 5 players need 16..720"]),
    ("many.json", TOO_MANY, [], ["many.json", "721 cards; 2 players need 7..720"]),
    ("deck.json", json.dumps(DECK), ["-o", "copies=2"], ["replaces the generated", "copies"]),
    ("deck.json", json.dumps(DECK), ["--from-position", "pos.json"], ["--deck or --from-position, not both"]),
])
def test_bad_deck_files(tmp_path, name, text, args, needles):
    path = write(tmp_path, name, text) if text is not None else str(tmp_path / name)
    assert_bad(run("simulate", "hiboufou", "--games", "10", "--deck", path, *args), *needles)
    assert_bad(run("trace", "hiboufou", "--deck", path, *args), *needles)


def test_deck_for_a_game_without_decks(tmp_path):
    deck = write(tmp_path, "deck.json", json.dumps(DECK))
    assert_bad(run("simulate", "pig", "--games", "10", "--deck", deck), "pig takes no deck file",
               "--deck works for: ", "hiboufou")
    assert "--deck FILE" in run("simulate", "--help").output


# ---------------------------------------------------------------------------
# User policies (--plugin)
# ---------------------------------------------------------------------------

# my-random re-implements the built-in random policy; my-greedy calls the built-in greedy
PLUGIN = '''
from numba import njit
from sheepsim.policies import register_policy
from sheepsim.games.hiboufou import engine as E
from sheepsim.games.hiboufou.policies import greedy
from sheepsim.rng import rand_below

@register_policy("hiboufou", "my-random", doc="uniform over the legal decisions, as a plugin")
@njit
def my_random(s, rules, deck, seat, params, rng, buf):
    n = E.legal(s, rules, deck, buf)
    k = rand_below(rng, n)
    return buf[k, 0], buf[k, 1], buf[k, 2]

@register_policy("hiboufou", "my-greedy", doc="the built-in greedy, called from a plugin")
@njit
def my_greedy(s, rules, deck, seat, params, rng, buf):
    return greedy(s, rules, deck, seat, params, rng, buf)

@register_policy("hiboufou", "wrong-shape", doc="the old Battle Sheep signature: no aux (the deck)")
@njit
def wrong_shape(s, rules, seat, params, rng, buf):
    return 2, 0, 0
'''


def test_user_policies_equal_to_built_ins_give_identical_results(tmp_path, monkeypatch):
    from sheepsim import policies as POLICIES
    from sheepsim.games import get_game
    from sheepsim.policies import seat_specs
    from sheepsim.runner import simulate
    monkeypatch.setattr(POLICIES, "_REGISTRY", dict(POLICIES._REGISTRY))
    plugin = write(tmp_path, "mine.py", PLUGIN)
    listed = run("--plugin", plugin, "policies", "hiboufou")
    assert "my-random  (user)" in listed.output and "policy(s, rules, aux, seat, params, rng, buf), aux the deck" in listed.output

    user = ["my-random", "my-greedy", "defensive"]
    builtin = ["random", "greedy", "defensive"]
    sim = run("--plugin", plugin, "simulate", "hiboufou", "-p", "3", "--games", "300", "--seed", "6", "-q",
              *[f"--policy={p}" for p in user])
    assert sim.exit_code == 0, sim.output
    assert "my-greedy" in sim.output and "Win rate by policy" in sim.output

    game = get_game("hiboufou")
    rules = game.make_rules(3, {})
    a = simulate(game, rules, seat_specs("hiboufou", user, 3), 400, seed=6).results
    b = simulate(game, rules, seat_specs("hiboufou", builtin, 3), 400, seed=6).results
    same = [c for c in a.columns if not c.startswith("policy_")]
    assert a[same].equals(b[same])
    assert a["winner"].nunique() > 1 and (a["decisions"] > 20).all()

    # built-ins first: every --plugin load makes new policy functions, and new functions
    # compile a new replay kernel (~15 s); the text trace below reuses the last load's
    # (the registry keeps it in this process), so the user replay kernel compiles once
    traces = [json.loads(run("--plugin", plugin, "trace", "hiboufou", "-p", "3", "--seed", "6", "--game", "9",
                             "--json", *[f"--policy={p}" for p in policies]).output) for policies in (builtin, user)]
    assert traces[0] == traces[1]
    assert traces[0][-1]["result"]["captured"] == [int(a.loc[9, f"score_{q}"]) for q in range(3)]
    text = run("trace", "hiboufou", "-p", "3", "--seed", "6", "--game", "9", *[f"--policy={p}" for p in user]).output
    assert "seat 0 (my-random)" in text and "lays " in text

    assert_bad(run("--plugin", plugin, "simulate", "hiboufou", "--games", "10", "--policy", "wrong-shape"),
               "hiboufou policy wrong-shape takes 6 arguments", "(s, rules, aux, seat, params, rng, buf)")
