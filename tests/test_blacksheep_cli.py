"""CLI for Bye-Bye Black Sheep: rules, policies, simulate, trace, and every bad input of
the issue -> one line `error: ...`, exit status 2, no traceback, nothing written."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

from sheepsim.games import driver
from sheepsim.games.blacksheep import engine as E
from sheepsim.games.blacksheep import play as P
from sheepsim.games.blacksheep import policies as POL
from sheepsim.games.blacksheep import reference as ref
from sheepsim.games.blacksheep import rules as R
from sheepsim.games.blacksheep.game import _reference_options
from sheepsim.games.blacksheep.model import DECISION_NAMES, KIND_NAMES, NKINDS
from conftest import assert_bad
from conftest import run_cli as run

OPTIONAL = ["-o", "wolf=on", "-o", "white_sheep=on", "-o", "mother_sheep=on", "-o", "joker=on"]
# seed 1 game 5 of this setup has every card effect: Black Sheep, Wolf, Eagle, Mole,
# Magpie, White Sheep and Mother Sheep (asserted below, so a changed deal shows)
EFFECTS = ["-p", "3", "--seed", "1", "--game", "5", "--policy", "threshold:k=4", *OPTIONAL]


def test_games_lists_blacksheep():
    result = run("games")
    assert result.exit_code == 0
    assert re.search(r"^blacksheep\s+Bye-Bye Black Sheep\s+2-5 players\s+version 3", result.output, re.M)


def test_rules_lists_every_option():
    result = run("rules", "blacksheep")
    assert result.exit_code == 0, result.output
    assert "players: 2-5" in result.output
    for option in R.OPTIONS:
        assert f"{option.name}  (default: {option.default})" in result.output
        assert f"allowed: {option.allowed()}" in result.output
    for allowed in ("off | on", "table_cards | blind_draws", "trigger_hand | draw_pile_shuffled", "none | 3",
                    "before_refill | after_refill", "draw | most_triplets", "into_animal_deck | into_draw_pile"):
        assert allowed in result.output
    data = json.loads(run("rules", "blacksheep", "--json").output)
    assert data["game"] == "blacksheep" and data["players"] == [2, 5]
    assert [o["name"] for o in data["options"]] == [o.name for o in R.OPTIONS]
    defaults = {o["name"]: o["default"] for o in data["options"]}
    assert defaults["wolf"] == defaults["white_sheep"] == defaults["mother_sheep"] == defaults["joker"] == "off"
    assert defaults["turn_cap"] == 500 and defaults["magpie_entry"] == "trigger_hand"


@pytest.mark.parametrize("players,limit", [(2, 12), (3, 9)])
def test_hand_limit_is_the_refill_limit_not_the_starting_hand(players, limit):
    # what `sheepsim rules` says is what the deal does: hand_limit sets the refill
    # limit only; the starting hand stays as dealt by player count (8 for 2 players, else 7)
    help_text = next(o.help for o in R.OPTIONS if o.name == "hand_limit")
    assert help_text.startswith("refill limit") and "does not change the starting hand" in help_text
    from sheepsim.rng import streams
    s = np.empty(E.STATE_SIZE, dtype=np.int32)
    E.deal(s, R.to_array(R.make(players, {"hand_limit": limit})), streams(1, 0, P.GAME[5])[0])
    assert list(s[E.SIZE:E.SIZE + players]) == [8 if players == 2 else 7] * players
    assert s[E.H_HAND_LIMIT] == limit


def test_policies_lists_the_builtins_with_parameters():
    result = run("policies", "blacksheep")
    assert result.exit_code == 0
    out = result.output
    for name in ("random", "threshold", "risk"):
        assert re.search(rf"^{name}$", out, re.M), name
    for param, default in (("threshold:k", "3"), ("risk:p", "0.25"), ("risk:w", "0")):
        assert re.search(rf"^    {param}=<number>  \(default {re.escape(default)}[;)]", out, re.M), param
    assert "uniform over the legal decisions" in out and "(user)" not in out


def test_simulate_mixed_policies_writes_parquet_equal_to_the_kernel(tmp_path):
    out = tmp_path / "run"
    result = run("simulate", "blacksheep", "-p", "3", "--games", "500", "--policy", "threshold:k=4",
                 "--policy", "risk:p=0.3", "--policy", "random", "--seed", "7", "--out", str(out), "-q")
    assert result.exit_code == 0, result.output
    text = result.output
    assert "Bye-Bye Black Sheep: 500 games, 3 players" in text and "Win rate by seat" in text
    for label in ("threshold:k=4", "risk:p=0.3", "random"):
        assert label in text
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["game"] == "blacksheep" and manifest["game_version"] == E.VERSION
    assert manifest["games"] == 500 and manifest["seed"] == 7 and manifest["rotate"] is True
    assert manifest["policies"] == ["threshold:k=4", "risk:p=0.3", "random"]
    assert manifest["rules"]["num_players"] == 3 and manifest["rules"]["wolf"] == "off"
    df = pd.concat(pd.read_parquet(f) for f in sorted(out.glob("chunk-*.parquet")))
    assert list(df["game"]) == list(range(500))
    assert (df["rotation"] == df["game"] % 3).all() and (df["num_players"] == 3).all()
    assert df["winner"].between(-1, 2).all()
    for seat in range(3):
        assert set(df[f"policy_{seat}"].astype(str)) == {"threshold:k=4", "risk:p=0.3", "random"}
    # the Parquet rows are the kernel's rows for these seeds and policies
    params = np.zeros((3, 8))
    params[0, 0], params[1, 0] = 4.0, 0.3
    rows = np.zeros((500, E.O_SIZE), dtype=np.int32)
    faults = np.zeros((driver.BLOCKS, driver.FAULT_SIZE), dtype=np.int64)
    P.play_games(R.to_array(R.make(3)), np.zeros(1, dtype=np.int32),
                 np.array([POL.THRESHOLD, POL.RISK, POL.RANDOM], dtype=np.int64), params, True, np.uint64(7), 0, rows,
                 faults)
    assert not faults.any()
    for column, o in (("winner", E.O_WINNER), ("turns", E.O_TURNS), ("draws", E.O_DRAWS),
                      ("decisions", E.O_DECISIONS), ("capped", E.O_CAPPED)):
        assert np.array_equal(df[column].to_numpy().astype(np.int64), rows[:, o]), column
    for seat in range(3):
        assert np.array_equal(df[f"score_{seat}"].to_numpy(), rows[:, E.O_TRIPLETS + seat])
        assert np.array_equal(df[f"zoo_{seat}"].to_numpy(), rows[:, E.O_ZOO + seat])


def test_simulate_with_options_records_them(tmp_path):
    out = tmp_path / "opt"
    result = run("simulate", "blacksheep", "-p", "5", "--games", "120", *OPTIONAL, "-o", "turn_cap=50",
                 "-o", "magpie_entry=draw_pile_shuffled", "--policy", "risk:p=0.2,w=1.5", "--out", str(out), "-q")
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["rules"]["joker"] == "on" and manifest["rules"]["turn_cap"] == 50
    assert manifest["policies"] == ["risk:p=0.2,w=1.5"] * 5
    df = pd.read_parquet(out / "chunk-000000.parquet")
    assert len(df) == 120 and (df["turns"] <= 50).all()


# ---------------------------------------------------------------------------
# trace
# ---------------------------------------------------------------------------

DECISION_LINE = re.compile(r"^  turn (\d+) seat (\d): (.*)$")


def _lines(text):
    return [m.groups() for m in map(DECISION_LINE.match, text.splitlines()) if m]


def test_trace_is_readable():
    result = run("trace", "blacksheep", "--seed", "1", "--game", "0")
    assert result.exit_code == 0, result.output
    text = result.output
    lines = text.splitlines()
    assert lines[0].startswith("Bye-Bye Black Sheep game 0 of seed 1, 2 players, rules {")
    assert lines[1] == "seats: seat 0 (random), seat 1 (random)"
    # the deal: both hands, each with its own Black Sheep
    assert lines[3].startswith("    seat 0 hand: Black Sheep, ")
    assert lines[5].startswith("    seat 1 hand: Black Sheep, ")
    decisions = _lines(text)
    said = [d for _, _, d in decisions]
    assert any(re.fullmatch(r"draws blindly from seat [01]: (Black Sheep|Eagle|Mole|Magpie|animal \d+)", d)
               for d in said)
    assert "stop" in said and "place done" in said and any(d.startswith("places animal ") for d in said)
    assert re.search(r"^(Capped: )?(draw|seat [01] wins) after \d+ turns; triplets \[\d+, \d+\]$", lines[-1])
    # one line per decision, in the order of the JSON trace
    events = json.loads(run("trace", "blacksheep", "--seed", "1", "--game", "0", "--json").output)[1:-1]
    assert len(decisions) == len(events)
    for (turn, seat, d), e in zip(decisions, events):
        assert int(seat) == e["seat"]
        if e["event"] == "draw":
            assert d == f"draws blindly from seat {e['decision'][1]}: {KIND_NAMES[e['chance']]}"


def test_trace_names_every_effect_and_shows_the_hands_after_each_turn():
    result = run("trace", "blacksheep", *EFFECTS)
    assert result.exit_code == 0, result.output
    text = result.output
    events = json.loads(run("trace", "blacksheep", *EFFECTS, "--json").output)
    said = [d for _, _, d in _lines(text)]
    for kind in ("Black Sheep", "Wolf", "Eagle", "Mole", "White Sheep", "Mother Sheep"):
        # an effect's outcome may follow after a colon (e.g. what the Wolf set aside)
        assert any(re.fullmatch(rf"draws blindly from seat \d: {kind}(: .+)?", d) for d in said), kind
    assert any(re.fullmatch(r"Eagle: asks seat \d for species \d+: (gets .+|no such card.*)", d) for d in said)
    assert any(re.fullmatch(r"Mole: takes animal \d+", d) for d in said)
    assert any(re.fullmatch(r"Magpie: takes animal \d+ from seat \d's zoo", d) for d in said)
    assert any(re.fullmatch(r"White Sheep: places animal \d+", d) for d in said)
    assert any(d.startswith("mother take: Mother Sheep brings ") for d in said) and "stop" in said
    # after every turn: the pile size, every hand (hidden ones too) and every zoo, as in the JSON state
    blocks = re.findall(r"    \[(\w+)\] pile (\d+) cards\n((?:    seat \d (?:hand|zoo): .*\n?)+)", text)
    states = [e["state"] for e in events[:-1]]
    turn_ends = [now for before, now in zip(states, states[1:]) if now["turn"] != before["turn"] or now["phase"] == 7]
    assert len(blocks) == 1 + len(turn_ends)
    for (phase, npile, body), state in zip(blocks, [events[0]["state"]] + turn_ends):
        assert int(npile) == len(state["pile"])
        for q, counts in enumerate(state["hands"]):
            listed = ", ".join(f"{c}x {KIND_NAMES[k]}" if c > 1 else KIND_NAMES[k] for k, c in enumerate(counts) if c)
            assert f"    seat {q} hand: {listed}\n" in body + "\n"


def test_trace_states_the_outcome_of_every_effect():
    text = run("trace", "blacksheep", *EFFECTS).output
    lines = [d for _, _, d in _lines(text)]
    eagle = [d for d in lines if d.startswith("Eagle: asks")]
    mother = [d for d in lines if d.startswith("mother take") or "Mother Sheep:" in d]
    wolf = [i for i, d in enumerate(lines) if "draws blindly" in d and ": Wolf" in d]
    assert eagle and mother and wolf, "the traced game must show each effect"
    assert all(re.search(r"gets|got|no such card|fails|takes", d) for d in eagle), eagle
    assert all(re.search(r"animal \d+|Eagle|Mole|Magpie|Wolf|Sheep|Joker", d.replace("Mother Sheep:", ""))
               for d in mother), mother
    assert all("aside" in lines[i] for i in wolf)


def test_trace_json_is_the_full_state_after_every_event_and_replays_in_the_reference():
    events = json.loads(run("trace", "blacksheep", *EFFECTS, "--json").output)
    rules = R.make(3, {"wolf": "on", "white_sheep": "on", "mother_sheep": "on", "joker": "on"})
    ref_rules = ref.Rules(**_reference_options(rules.as_dict()))
    deck = ref.full_deck(ref_rules)
    assert events[0]["event"] == "deal" and events[-1]["event"] == "end"
    seen = set()
    game = ref.from_dict(ref_rules, events[0]["state"])
    for e in events:
        if "state" in e:
            state = e["state"]
            # hidden hands included: every seat's hand, counts per kind
            assert len(state["hands"]) == 3 and all(len(h) == NKINDS and h[0] == 1 for h in state["hands"])
            assert ref.card_census(ref.from_dict(ref_rules, state)) == deck
        if e["event"] in ("deal", "end"):
            continue
        code, a, b = e["decision"]
        assert e["event"] == DECISION_NAMES[code] and e["seat"] == ref.actor(game)
        game = ref.apply(game, (code, a, b), None if e["chance"] < 0 else e["chance"])
        assert ref.to_dict(game) == e["state"], f"event {e}"
        seen.add(e["event"])
        if e["event"] == "draw":
            seen.add(KIND_NAMES[e["chance"]])
    assert {"Black Sheep", "Wolf", "White Sheep", "Mother Sheep", "Eagle", "Mole", "Magpie"} <= seen
    assert {"eagle_ask", "mole_take", "magpie_take", "white_place", "mother_take", "stop", "place"} <= seen
    assert any(any(row) for e in events[1:-1] for row in e["state"]["set_aside"]), "a Wolf set cards aside"
    result = ref.result(game)
    end = events[-1]["result"]
    assert end == {"winner": result["winner"], "capped": result["capped"], "turns": result["turns"],
                   "triplets": result["triplets"]}


def test_trace_matches_the_simulate_row(tmp_path):
    out = tmp_path / "r"
    args = ["-p", "3", "--seed", "1", "--policy", "threshold:k=4", *OPTIONAL]
    assert run("simulate", "blacksheep", *args, "--games", "6", "--out", str(out), "-q").exit_code == 0
    row = pd.read_parquet(out / "chunk-000000.parquet").set_index("game").loc[4]
    end = json.loads(run("trace", "blacksheep", *args, "--game", "4", "--json").output)[-1]["result"]
    assert end["winner"] == row.winner and end["turns"] == row.turns and end["capped"] == row.capped
    assert end["triplets"] == [row.score_0, row.score_1, row.score_2]


# ---------------------------------------------------------------------------
# Bad inputs: one line, exit 2, no traceback, nothing written
# ---------------------------------------------------------------------------

BAD = [
    (["-p", "1"], ["blacksheep takes 2-5 players", "not 1"]),
    (["-p", "6"], ["blacksheep takes 2-5 players", "not 6"]),
    (["-o", "colour=red"], ["unknown blacksheep option 'colour'", "zoo_limit_basis", "joker"]),
    (["-o", "wolf=maybe"], ["wolf", "maybe", "off | on"]),
    (["-o", "joker=yes"], ["joker", "off | on"]),
    (["-o", "magpie_entry=sky"], ["magpie_entry", "trigger_hand | draw_pile_shuffled"]),
    (["-o", "turn_cap=5"], ["turn_cap", "10..100000"]),
    (["-o", "hand_limit=5"], ["hand_limit=5", "below the starting hand of 8 cards", "0 (by player count) or 8..12"]),
    (["-p", "2", "-o", "triplets_to_win=13"], ["triplets_to_win=13", "0..12"]),
    (["--policy", "threshold:k=-1"], ["threshold", "k=-1", "0..40"]),
    (["--policy", "risk:p=1.5"], ["risk", "p=1.5", "0..1"]),
    (["--policy", "risk:p=-0.1"], ["risk", "p=-0.1", "0..1"]),
    (["--policy", "risk:w=-1"], ["risk", "w=-1", "0..100"]),
    (["--policy", "greedy"], ["unknown blacksheep policy 'greedy'", "random, threshold, risk"]),
    (["--policy", "threshold:q=2"], ["no parameter", "its parameters: k"]),
    (["--policy", "risk:p=lots"], ["not a number"]),
    (["-p", "3", "--policy", "random", "--policy", "risk"], ["one --policy for all seats or one per seat"]),
]


@pytest.mark.parametrize("args,needles", BAD, ids=[" ".join(a) for a, _ in BAD])
def test_bad_input_is_one_line_exit_2(tmp_path, args, needles):
    out = tmp_path / "never"
    assert_bad(run("simulate", "blacksheep", "--games", "10", *args, "--out", str(out)), *needles)
    assert not out.exists()
    assert_bad(run("trace", "blacksheep", *args), *needles)


def test_bad_game_count_and_position_file(tmp_path):
    assert_bad(run("simulate", "blacksheep", "--games", "0"), "--games must be a positive")
    path = tmp_path / "pos.json"
    path.write_text("{}")
    assert_bad(run("simulate", "blacksheep", "--from-position", str(path)), "blacksheep has no position format")
