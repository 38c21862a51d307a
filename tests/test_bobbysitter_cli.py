"""Bobby Sitter through the CLI and the chunk kernel: options, policies, simulate,
trace, deck files, user player models, invariants over many games, and bad input
(one line, exit 2)."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from conftest import assert_bad
from conftest import run_cli as run
from sheepsim.games import get_game
from sheepsim.policies import seat_specs

GAME = get_game("bobbysitter")


def test_rules_and_policies_listed():
    text = run("rules", "bobbysitter").output
    for name in ("wolf_cards", "sheep_cards", "hidden_wolf_cards", "empty_cards", "tokens", "start_tokens",
                 "target_tokens", "stack_mode", "wolf_with_sheep", "wrong_counter_penalty", "max_loss_per_card",
                 "sheep_race_loser_penalty", "last_standing_wins", "empty_stock", "flip_cap", "cap_resolution",
                 "flipper_reaction_bonus_ms"):
        assert name in text
    policies = run("policies", "bobbysitter").output
    for name in ("adult", "child", "young_child", "profile", "median_ms", "p_wrong_counter", "ASSUMED"):
        assert name in policies


def test_simulate_trace_and_handicap_follow_the_player():
    sim = run("simulate", "bobbysitter", "-p", "4", "--games", "2000", "--policy", "child", "--policy", "adult",
              "--policy", "adult", "--policy", "adult", "-o", "start_tokens=3,2,2,2", "-q")
    assert sim.exit_code == 0, sim.output
    assert "Bobby Sitter, 4 players: 2,000 games" in sim.output and "child" in sim.output
    events = json.loads(run("trace", "bobbysitter", "-p", "4", "--policy", "child", "--policy", "adult",
                            "--policy", "adult", "--policy", "adult", "-o", "start_tokens=3,2,2,2", "--seed", "1",
                            "--game", "3", "--json").output)
    assert events[0]["event"] == "setup" and events[-1]["event"] == "end"
    # game 3 rotates slot 0 (the child) onto seat (4 - 3 % 4) % 4 = 1
    assert events[0]["state"]["tokens"] == [2, 3, 2, 2]
    for e in events[:-1]:
        st = e["state"]
        assert st["stock"] + sum(st["tokens"]) == 25 + st["minted"]
        assert sorted(sum(st["stacks"], []) + sum(st["discards"], [])) == list(range(56))
    assert events[-2]["state"]["over"] and events[-1]["result"]["flips"] == len(events) - 2
    text = run("trace", "bobbysitter", "-p", "3", "--seed", "1").output
    assert "flip 1: seat 0 flips card" in text and "reactions:" in text and "; stock " in text


def test_invariants_over_many_games():
    """Conservation and endings over many chunk-kernel games with sloppy players."""
    for options in ({}, {"stack_mode": "per_player", "last_standing_wins": "no"},
                    {"target_tokens": 15, "tokens": 20, "empty_stock": "unlimited_tokens"}):
        rules = GAME.make_rules(5, options)
        specs = seat_specs("bobbysitter", ["profile:p_false_empty=0.4,p_false_hidden=0.5,p_wrong_counter=0.2",
                                           "young_child"] * 2 + ["adult"], 5)
        rows = GAME.play_chunk(GAME.to_array(rules), GAME.initial_state(rules, None), specs, True, 3, 0, 20_000)
        df = GAME.frame(rows, rules, specs, 3, 0)
        tokens = df[[f"score_{q}" for q in range(5)]].to_numpy()
        elim = df[[f"eliminated_{q}" for q in range(5)]].to_numpy()
        starts = df[[f"start_{q}" for q in range(5)]].to_numpy()
        gains = df[[f"sheep_gains_{q}" for q in range(5)]].to_numpy()
        lost = df[[f"penalties_{q}" for q in range(5)]].to_numpy() + df[[f"wolf_losses_{q}" for q in range(5)]].to_numpy()
        assert ((elim == 1) == (tokens == 0)).all()          # eliminated exactly when out of tokens
        assert (tokens <= starts + gains - lost).all()        # other losses are wrong grabs / races
        decided = df["winner"] >= 0
        won = tokens[np.arange(len(df)), df["winner"].clip(0)]
        target = rules["target_tokens"]
        # a winner reached the target, or is the last one standing, or led at the cap
        assert ((won >= target) | (elim.sum(1) == 4) | df["capped"])[decided].all()
        assert ((~decided) | (elim[np.arange(len(df)), df["winner"].clip(0)] == 0)).all()
        assert (df["turns"] <= rules["flip_cap"]).all() and df["turns"].min() >= 1


def test_deck_file(tmp_path):
    deck = tmp_path / "deck.toml"
    deck.write_text('cards = [{sheep = 2, count = 20}, {wolf = true, count = 10}, {count = 5}, {hidden_wolf = true}]\n')
    out = run("simulate", "bobbysitter", "-p", "3", "--deck", str(deck), "--games", "500", "-q",
              "--out", str(tmp_path / "run"))
    assert out.exit_code == 0, out.output
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert len(manifest["start_position"]["deck"]) == 36
    events = json.loads(run("trace", "bobbysitter", "-p", "3", "--deck", str(deck), "--json").output)
    assert sorted(sum(events[0]["state"]["stacks"], [])) == list(range(36))
    js = tmp_path / "deck.json"
    js.write_text(json.dumps([{"sheep": 1}, {"wolf": True, "sheep": 1}]))
    assert run("simulate", "bobbysitter", "--deck", str(js), "--games", "50", "-q").exit_code == 0


# ---------------------------------------------------------------------------
# trace text
# ---------------------------------------------------------------------------

SLOPPY = "profile:p_false_empty=0.4,p_false_hidden=0.5,p_wrong_counter=0.2"
FLIP = re.compile(r"^flip (\d+): seat (\d) flips card (\d+), (.*)$")


def _blocks(*args):
    """The text's flips (number, header rest, the lines under it), each with its JSON event
    and the state before it."""
    text = run("trace", "bobbysitter", *args).output
    events = json.loads(run("trace", "bobbysitter", *args, "--json").output)
    blocks = []
    for line in text.splitlines():
        m = FLIP.match(line)
        if m:
            blocks.append([int(m.group(1)), m.group(4), []])
        elif blocks and line.startswith("    "):
            blocks[-1][2].append(line.strip())
    assert len(blocks) == len(events) - 2
    states = [e["state"] for e in events[:-1]]
    return text, [(n, head, body, e, before) for (n, head, body), e, before in zip(blocks, events[1:-1], states)]


def test_trace_header_and_flip_numbers():
    text, blocks = _blocks("-p", "3", "--seed", "1")
    lines = text.splitlines()
    assert lines[0] == ("Bobby Sitter game 0 of seed 1: 3 players, 5 tokens to win, 56 cards (the generated deck: "
                        "an assumption, no card list was found)")
    assert lines[1].startswith("rules: every option at its default: wolf_cards=10, wolf_sheep_cards=4, ")
    assert "{" not in text and "Reaction profiles are assumptions" in text
    assert [n for n, *_ in blocks] == list(range(1, len(blocks) + 1))
    assert all(n == before["flips"] + 1 for n, _, _, _, before in blocks)
    assert blocks[0][2] == ["nobody reacts: no change; seat 0 has 2 tokens, seat 1 has 2, seat 2 has 2; stock 19, BOBBY counters 2"]
    assert blocks[3][2] == ["reactions: seat 0 BOBBY 379 ms, seat 1 BOBBY 435 ms, seat 2 BOBBY 543 ms",
                            "seats 0 and 1 take BOBBY counters; seat 2 loses 1 token: left without a BOBBY",
                            "seat 0 has 2 tokens, seat 1 has 2, seat 2 has 1; stock 20, BOBBY counters 2"]


def test_trace_says_why_a_token_was_lost():
    text, blocks = _blocks("-p", "3", "--policy", SLOPPY, "--seed", "1", "--game", "0")
    reasons = {"left without a BOBBY", "grabbed a BOBBY, the wrong counter",
               "grabbed the SHEEP, the wrong counter, and holds no BOBBY (at most one token a card)",
               "reacted to a no-react card (a hidden wolf)", "reacted to a no-react card (an empty card)"}
    seen = set()
    for n, head, body, e, before in blocks:
        said = "; ".join(body)
        for q, (was, now) in enumerate(zip(before["tokens"], e["state"]["tokens"])):
            if now < was:
                m = re.search(rf"seat {q} loses {was - now} tokens?: ([^;]+)", said)
                assert m and m.group(1) in reasons, (n, said)
                seen.add(m.group(1))
            elif now > was:
                assert f"seat {q} takes the SHEEP: +1 token from the stock" in said
            else:
                assert f"seat {q} loses" not in said
    assert seen == reasons, "every reason appears in this game"
    assert ("seat 0 takes the BOBBY counter; seat 1 loses 1 token: grabbed the SHEEP, the wrong counter, and holds "
            "no BOBBY (at most one token a card)") in text
    assert ("seat 1 takes the SHEEP: +1 token from the stock; seat 0 loses 1 token: grabbed a BOBBY, the wrong "
            "counter") in text
    assert ("seat 1 loses 1 token: reacted to a no-react card (an empty card); seat 1 has no token left and is "
            "eliminated; one BOBBY counter is removed (0 left)") in text
    # with max_loss_per_card=unlimited the wrong SHEEP costs 2, said without the cap
    text = run("trace", "bobbysitter", "-p", "3", "--policy", SLOPPY, "--seed", "1", "--game", "0",
               "-o", "max_loss_per_card=unlimited").output
    assert re.search(r"loses 2 tokens: grabbed the SHEEP, the wrong counter, and holds no BOBBY(;|$)", text, re.M)


def test_trace_says_why_a_game_ended():
    def last(*args):
        return run("trace", "bobbysitter", *args).output.splitlines()[-1]
    assert last("-p", "3", "--seed", "1") == ("seat 2 reaches 5 tokens (target_tokens=5) and wins after 11 flips; "
                                              "seat 0 has 2 tokens, seat 1 has 2, seat 2 has 5")
    assert last("-p", "3", "--policy", SLOPPY, "--seed", "1") == ("seat 0 is the last player standing and wins "
                                                                   "after 17 flips; seat 0 has 3 tokens, seat 1 has 0, seat 2 has 0")
    assert last("-p", "2", "--policy", SLOPPY, "--seed", "1", "--game", "4") == (
        "every remaining player (seats 0 and 1) is eliminated on the same card: a draw after 2 flips; seat 0 has 0 tokens, seat 1 has 0")
    assert last("-p", "6", "--seed", "1", "--game", "3", "-o", "stack_mode=per_player", "-o",
                "last_standing_wins=no") == ("seat 2, the last player left, is eliminated: a draw after 89 flips; "
                                             "seat 0 has 0 tokens, seat 1 has 0, seat 2 has 0, seat 3 has 0, seat 4 has 0, seat 5 has 0")
    capped = ["-p", "3", "--seed", "1", "--game", "3", "-o", "flip_cap=30"]
    assert last(*capped) == ("the flip cap (flip_cap=30) stops the game after 30 flips: seat 1 wins with the most "
                             "tokens (cap_resolution=most_tokens); seat 0 has 1 token, seat 1 has 3, seat 2 has 0")
    assert last(*capped, "-o", "cap_resolution=draw") == ("the flip cap (flip_cap=30) stops the game after 30 flips: "
                                                          "a draw (cap_resolution=draw); seat 0 has 1 token, seat 1 has 3, seat 2 has 0")
    end = json.loads(run("trace", "bobbysitter", *capped, "--json").output)[-1]["result"]
    assert end == {"winner": 1, "flips": 30, "capped": True, "tokens": [1, 3, 0]}


def test_trace_wolf_with_sheep_cards_keep_their_wolf():
    args = ["-p", "3", "--seed", "1", "--game", "3"]
    assert "flip 28: seat 1 flips card 11, wolf + 1 sheep: everyone grabs a BOBBY" in \
        run("trace", "bobbysitter", *args).output.splitlines()
    text, blocks = _blocks(*args, "-o", "wolf_with_sheep=sheep")
    assert "flip 28: seat 1 flips card 11, wolf + 1 sheep, a sheep card (wolf_with_sheep=sheep): everyone grabs " \
           "the SHEEP" in text.splitlines()
    n, head, body, e, before = blocks[27]
    assert e["class"] == "sheep" and body[1] == "seat 1 takes the SHEEP: +1 token from the stock"
    # every wolf + sheep card of the deck (ids 10-13) is named with its wolf
    assert all(head.startswith("wolf + 1 sheep, a sheep card") for _, head, _, e, _ in blocks if 10 <= e["card"] < 14)


def test_trace_deck_file_header(tmp_path):
    deck = tmp_path / "deck.toml"
    deck.write_text('cards = [{sheep = 2, count = 20}, {wolf = true, sheep = 1, count = 10}, {count = 5}]\n')
    text = run("trace", "bobbysitter", "-p", "3", "--deck", str(deck), "-o", "wolf_with_sheep=sheep").output
    lines = text.splitlines()
    assert lines[0] == f"Bobby Sitter game 0 of seed 0: 3 players, 5 tokens to win, deck file {deck} (35 cards)"
    seats_at = next(i for i, line in enumerate(lines) if line.startswith("seats: "))
    rules_text = " ".join(line.strip() for line in lines[1:seats_at])
    assert rules_text.startswith("rules: wolf_with_sheep=sheep (changed from the defaults); the others at their "
                                 "defaults: tokens=25, ")
    for name in ("wolf_cards", "wolf_sheep_cards", "sheep_cards", "hidden_wolf_cards", "empty_cards"):
        assert f"{name}=" not in text
    assert re.search(r"^flip \d+: seat \d flips card (2\d|1\d), wolf \+ 1 sheep, a sheep card", text, re.M)


USER_MODEL = '''
from numba import njit
from sheepsim.policies import register_policy
from sheepsim.games.bobbysitter.model import WOLF, SHEEP, NONE, GRAB_SHEEP, GRAB_BOBBY
from sheepsim.rng import rand_float

@register_policy("bobbysitter", "statue", params={"ms": (300.0, "fixed reaction time", 1.0, 5000.0)},
                 doc="never reacts to a no-react card, never grabs wrong, always takes `ms`")
@njit
def statue(cls, sheep, is_flipper, params, rng, rules):
    rand_float(rng)
    if cls == WOLF:
        return GRAB_BOBBY, params[0]
    if cls == SHEEP:
        return GRAB_SHEEP, params[0]
    return NONE, 0.0
'''


def test_user_model(tmp_path):
    plugin = tmp_path / "statue.py"
    plugin.write_text(USER_MODEL)
    out = run("--plugin", str(plugin), "simulate", "bobbysitter", "-p", "2", "--policy", "statue",
              "--policy", "young_child", "--games", "3000", "-q")
    assert out.exit_code == 0, out.output
    line = [x for x in out.output.splitlines() if x.startswith("| statue")][0]
    assert float(line.split("|")[-2].split("%")[0]) > 80       # a fast, flawless player wins most games
    text = run("--plugin", str(plugin), "trace", "bobbysitter", "-p", "2", "--policy", "statue", "--policy",
               "adult").output
    assert "statue" in text and "flip 1:" in text


@pytest.mark.parametrize("args,needle", [
    (["-p", "7"], "2-6 players"),
    (["-p", "1"], "2-6 players"),
    (["--policy", "adult:median_ms=-5"], "allowed: 1..60000"),
    (["--policy", "child:p_false_empty=1.5"], "allowed: 0..1"),
    (["--policy", "profile:p_wrong_counter=-0.1"], "allowed: 0..1"),
    (["-o", "start_tokens=5"], "not below target_tokens=5"),
    (["-p", "3", "-o", "start_tokens=3,2"], "one value for everyone or one per player"),
    (["-p", "6", "-o", "start_tokens=4", "-o", "tokens=20"], "the box holds tokens=20"),
    (["-o", "start_tokens=0"], "out of range"),
    (["-o", "stack_mode=mine"], "shared | per_player"),
    (["-o", "wolf_cards=0", "-o", "wolf_sheep_cards=0", "-o", "sheep_cards=0", "-o", "hidden_wolf_cards=0",
      "-o", "empty_cards=0"], "1..1000"),
    (["--policy", "robot"], "valid policies: adult, child, young_child, profile"),
])
def test_bad_input(args, needle):
    assert_bad(run("simulate", "bobbysitter", "--games", "10", *args), needle)


@pytest.mark.parametrize("text,needle", [
    ("cards = []\n", "no cards"),
    ("cards = [{sheep = 1, colour = 'red'}]\n", "unknown card field 'colour'"),
    ("cards = [{wolf = true, hidden_wolf = true}]\n", "visible and a hidden wolf"),
    ("cards = [{sheep = -1}]\n", "sheep must be an integer 0..3"),
    ("cards = [{sheep = 1, count = 0}]\n", "count must be an integer"),
    ("cards = [3]\n", "a card is a table"),
    ("cards = [{sheep = 1\n", "not valid TOML"),
])
def test_bad_deck_file(tmp_path, text, needle):
    deck = tmp_path / "deck.toml"
    deck.write_text(text)
    assert_bad(run("simulate", "bobbysitter", "--deck", str(deck), "--games", "10"), needle)


def test_per_player_deck_too_small(tmp_path):
    deck = tmp_path / "deck.json"
    deck.write_text(json.dumps([{"sheep": 1}, {"wolf": True}]))
    assert_bad(run("simulate", "bobbysitter", "-p", "3", "-o", "stack_mode=per_player", "--deck", str(deck),
                   "--games", "10"), "only 2 card(s)")
