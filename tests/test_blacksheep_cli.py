"""CLI for Bye-Bye Black Sheep: rules, policies, simulate, trace, and every bad input ->
one line `error: ...`, exit status 2, no traceback, nothing written."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

from sheepsim.games import driver
from sheepsim.games import wrappers as W
from sheepsim.games.blacksheep import engine as E
from sheepsim.games.blacksheep.play import KERNELS as P
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
    E.deal(s, R.to_array(R.make(players, {"hand_limit": limit})), streams(1, 0, P.GAME.streams)[0])
    assert list(s[E.SIZE:E.SIZE + players]) == [8 if players == 2 else 7] * players
    assert s[E.H_HAND_LIMIT] == limit


def test_policies_lists_the_builtins_with_parameters():
    result = run("policies", "blacksheep")
    assert result.exit_code == 0
    out = result.output
    for name in ("random", "threshold", "risk"):
        assert re.search(rf"^{name}$", out, re.M), name
    for param, kind, default in (("threshold:k", "integer", "3"), ("risk:p", "number", "0.25"),
                                 ("risk:w", "number", "0")):
        assert re.search(rf"^    {param}=<{kind}>  \(default {re.escape(default)}[;)]", out, re.M), param
    assert "uniform over the legal decisions" in out and "(user)" not in out


def test_simulate_mixed_policies_writes_parquet_equal_to_the_kernel(tmp_path):
    out = tmp_path / "run"
    result = run("simulate", "blacksheep", "-p", "3", "--games", "500", "--policy", "threshold:k=4",
                 "--policy", "risk:p=0.3", "--policy", "random", "--seed", "7", "--out", str(out), "-q")
    assert result.exit_code == 0, result.output
    text = result.output
    assert "Bye-Bye Black Sheep, 3 players: 500 games" in text and "Win rate by seat" in text
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
    W.run_blocks(P.play_blocks, (R.to_array(R.make(3)), np.zeros(1, dtype=np.int32),
                 np.array([POL.THRESHOLD, POL.RISK, POL.RANDOM], dtype=np.int64), params, True, np.uint64(7), 0, rows,
                 faults, W.NO_METRICS))
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
HAND_BLOCK = re.compile(r"^  (the deal|after turn \d+|at the end): draw pile (\d+) cards?; (.*)\n"
                        r"((?:    seat \d (?:hand|zoo): .*\n?)+)", re.M)
# seed 1 game 0 of this setup: the Magpie enters in turn 1, Black Sheep are drawn with
# and without other cards at the watering hole, refills, a win in turn 27
PLAIN = ["-p", "3", "--policy", "threshold:k=7", "--seed", "1", "--game", "0"]


def _lines(text):
    return [m.groups() for m in map(DECISION_LINE.match, text.splitlines()) if m]


def _trace(*args):
    """The text's decision lines, each with the JSON states before and after it."""
    text = run("trace", "blacksheep", *args).output
    events = json.loads(run("trace", "blacksheep", *args, "--json").output)
    states = [e["state"] for e in events[:-1]]
    lines = _lines(text)
    assert len(lines) == len(events) - 2, "one line per decision"
    return text, [(int(t), int(q), d, before, after, e)
                  for (t, q, d), before, after, e in zip(lines, states, states[1:], events[1:-1])]


def _names(kinds):
    return ", ".join(KIND_NAMES[k] for k in kinds)


def test_trace_is_readable():
    result = run("trace", "blacksheep", "--seed", "1", "--game", "0")
    assert result.exit_code == 0, result.output
    text = result.output
    lines = text.splitlines()
    assert lines[0] == ("Bye-Bye Black Sheep game 0 of seed 1: 2 players, 5 triplets to win, hand limit 8, "
                        "species 1-12")
    # the rules as NAME=VALUE words, not JSON
    assert lines[1].startswith("rules: every option at its default: zoo_limit_basis=table_cards, ")
    assert "{" not in text and '"' not in text
    rules_text = " ".join(line.strip() for line in lines[1:lines.index("seats: seat 0 (random), seat 1 (random)")])
    for option in R.OPTIONS:
        assert f"{option.name}={option.default}" in rules_text
    assert rules_text.endswith("(see `sheepsim rules blacksheep`)")
    # 0 means "by player count": the rules line says what it comes to, as the header does
    assert "hand_limit=0 (by player count: 8)" in rules_text
    assert "triplets_to_win=0 (by player count: 5)" in rules_text
    # said once: hidden hands are shown, the watering hole, the zoo notation
    assert text.count("This view shows every hand, the hidden ones included") == 1
    assert text.count("A zoo reads species:cards, e.g. 8:2 = two\ncards of animal 8.") == 1
    # the deal: both hands, each with its own Black Sheep
    deal = HAND_BLOCK.search(text)
    assert deal.group(1) == "the deal" and deal.group(2) == "36"
    assert deal.group(3) == "the Magpie lies beside the draw pile (not in play yet)"
    assert deal.group(4).startswith("    seat 0 hand: Black Sheep, ")
    decisions = _lines(text)
    said = [d for _, _, d in decisions]
    assert decisions[0][0] == "1"           # turns count from 1
    assert any(re.fullmatch(r"draws blindly from seat [01]: (Black Sheep|Eagle|Mole|Magpie|animal \d+)(: .*)?", d)
               for d in said)
    assert any(d.startswith("stops") for d in said) and any(d.startswith("places animal ") for d in said)
    assert any(d.endswith("the turn ends") for d in said)
    # no internal tokens
    for token in ("place done", "eagle skip", "eagle_ask", "mole none", "mother take", "magpie none",
                  "white none", "[draw]", "[over]"):
        assert token not in text, token
    assert not re.search(r"\btable\b", text), "the rulebook's word is the watering hole"
    assert re.search(r"^(Capped: .*|seat [01] wins in turn \d+ with 5 triplets; seat 0 has \d+ triplets?, "
                     r"seat 1 has \d+)$", lines[-1])
    # one line per decision, in the order of the JSON trace
    events = json.loads(run("trace", "blacksheep", "--seed", "1", "--game", "0", "--json").output)[1:-1]
    assert len(decisions) == len(events)
    for (turn, seat, d), e in zip(decisions, events):
        assert int(seat) == e["seat"]
        if e["event"] == "draw":
            assert d.startswith(f"draws blindly from seat {e['decision'][1]}: {KIND_NAMES[e['chance']]}")


def test_trace_header_and_rules_line_agree_on_set_limits():
    result = run("trace", "blacksheep", "-p", "3", "--seed", "1", "--game", "0", "-o", "hand_limit=9",
                 "-o", "triplets_to_win=3")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].endswith("3 players, 3 triplets to win, hand limit 9, species 1-12")
    assert lines[1].startswith("rules: hand_limit=9, triplets_to_win=3 (changed from the defaults)")
    assert "by player count" not in result.output


def test_trace_turn_numbers_come_from_the_state_and_the_win_is_in_the_last_turn():
    text, steps = _trace(*PLAIN)
    for turn, _, _, before, _, _ in steps:
        assert turn == before["turn"] + 1
    last_turn = steps[-1][0]
    assert last_turn == 27 and steps[-1][4]["winner"] == 2
    assert text.splitlines()[-1] == ("seat 2 wins in turn 27 with 4 triplets; seat 0 has 2 triplets, seat 1 has 2, "
                                     "seat 2 has 4")
    assert steps[-1][2] == ("places animal 12 in the zoo (1 of up to 6): it completes seat 2's 4th triplet of "
                            "the 4 needed, seat 2 wins")
    # the results count the winning turn too (game version 3): the same 27 turns
    end = json.loads(run("trace", "blacksheep", *PLAIN, "--json").output)[-1]["result"]
    assert end["turns"] == 27


def test_trace_says_what_lies_at_the_watering_hole_and_the_allowance_at_every_stop():
    for args in (PLAIN, EFFECTS, ["-p", "3", "--seed", "1", "--game", "0", "--policy", "random"]):
        _, steps = _trace(*args)
        stops = 0
        for _, q, d, before, after, e in steps:
            failed = e["event"] == "eagle_ask" and len(after["table"]) <= len(before["table"])
            if e["event"] != "stop" and not failed:
                continue
            stops += 1
            n = len(before["table"])
            if n:
                card = "the card" if n == 1 else f"the {n} cards"
                assert f"seat {q} takes {card} at the watering hole into hand ({_names(before['table'])})" in d, d
            assert after["limit"] == max(0, n - 2)
            cards = "card taken" if n == 1 else "cards taken"
            assert d.endswith(f"N = {n} {cards}, so up to N - 2 = {n - 2} may go to the zoo" if n > 2 else
                              f"N = {n} {cards}, so no card may go to the zoo"), d
        assert stops
    # the Eagle's failure is a stop too (random policy, seed 1 game 0, turn 8)
    _, steps = _trace("-p", "3", "--seed", "1", "--game", "0", "--policy", "random")
    assert any(d == "Eagle: asks seat 2 for an animal 10: seat 2 has none, so the Eagle fails: seat 1 takes the "
                    "3 cards at the watering hole into hand (animal 12, animal 7, Eagle); N = 3 cards taken, so up "
                    "to N - 2 = 1 may go to the zoo" for t, _, d, *_ in steps if t == 8)


def test_trace_allowance_counts_blind_draws_with_zoo_limit_basis_blind_draws():
    _, steps = _trace("-p", "3", "--policy", "threshold:k=7", "--seed", "1", "--game", "0",
                      "-o", "zoo_limit_basis=blind_draws", "-o", "wolf=on")
    stops = [(d, before, after) for _, _, d, before, after, e in steps if e["event"] == "stop"]
    assert stops[0][0] == ("stops: seat 0 takes the 8 cards at the watering hole into hand (animal 12, animal 9, "
                           "animal 7, animal 2, Eagle, animal 4, Mole, animal 1); N = 7 blind draws this turn, so up "
                           "to N - 2 = 5 may go to the zoo")
    for d, before, after in stops:
        assert f"N = {before['draws']} blind draw" in d and after["limit"] == max(0, before["draws"] - 2)


def test_trace_announces_the_magpie_entering_play():
    text, steps = _trace(*PLAIN)
    entered = [(t, d, after) for t, _, d, before, after, _ in steps
               if after["magpie_in_play"] and not before["magpie_in_play"]]
    assert len(entered) == 1 and text.count("the Magpie enters play") == 1
    turn, d, after = entered[0]
    assert turn == 1 and d == ("places animal 7 in the zoo (5 of up to 5); the Magpie enters play (animal 7 is "
                               "the 3rd species in seat 0's zoo) and goes into seat 0's hand")
    assert after["hands"][0][3] == 1        # the Magpie (kind 3) is in seat 0's hand
    assert "  after turn 1: draw pile 26 cards; the Magpie is in play\n" in text
    # option magpie_entry=draw_pile_shuffled: where it went in the pile
    _, steps = _trace(*PLAIN, "-o", "magpie_entry=draw_pile_shuffled")
    (d, after), = [(d, after) for _, _, d, before, after, _ in steps
                   if after["magpie_in_play"] and not before["magpie_in_play"]]
    assert d.endswith("the Magpie enters play (animal 7 is the 3rd species in seat 0's zoo) and is shuffled into "
                      "the draw pile, under 15 cards")
    assert after["pile"].index(3) == 15


def test_trace_says_what_a_black_sheep_did():
    text, steps = _trace(*PLAIN)
    blacks = [(t, q, d, before, after) for t, q, d, before, after, e in steps
              if e["event"] == "draw" and e["chance"] == 0]
    assert len(blacks) > 3
    for t, q, d, before, after in blacks:
        # what the engine did: the Black Sheep back to its owner, the rest to the drawer
        o = int(re.match(r"draws blindly from seat (\d)", d).group(1))
        assert after["hands"][o][0] == 1 and after["hands"][q][0] == 1 and after["table"] == []
        table = before["table"]
        for k in set(table):
            assert after["hands"][q][k] >= before["hands"][q][k] + table.count(k)
        assert after["turn"] == before["turn"] + 1 and after["placed"] == 0   # no placement, the turn ended
        rest = ("nothing else lay at the watering hole" if not table else
                f"seat {q} takes the other {'card' if len(table) == 1 else f'{len(table)} cards'} at the watering "
                f"hole into hand ({_names(table)})")
        assert d == f"draws blindly from seat {o}: Black Sheep: it goes back to seat {o}; {rest}; no zoo " \
                    f"placement, the turn ends"
    assert ("  turn 2 seat 1: draws blindly from seat 0: Black Sheep: it goes back to seat 0; seat 1 takes the "
            "other 4 cards at the watering hole into hand (animal 6, animal 5, Magpie, animal 7); no zoo placement, "
            "the turn ends\n") in text


def test_trace_narrates_refills():
    text, steps = _trace(*PLAIN)
    lines = text.splitlines()
    ends = [(before, after) for _, _, _, before, after, _ in steps if after["turn"] != before["turn"]]
    refills = [line for line in lines if line.startswith("    refill")]
    assert len(refills) == len(ends)
    for line, (before, after) in zip(refills, ends):
        a = before["active"]
        if not before["pile"]:
            assert line == "    refill: the draw pile is empty, so nobody draws"
            continue
        if before["pile"] == after["pile"]:
            assert line == "    refill: no other hand is below 7 cards, so nobody draws"
            continue
        at, said = 0, []
        for k in (1, 2):
            q = (a + k) % 3
            got = sum(after["hands"][q]) - sum(before["hands"][q])
            if got:
                said.append(f"seat {q} draws {got} ({_names(before['pile'][at:at + got])})")
                at += got
        left = f"{len(after['pile'])} cards left" if after["pile"] else "the draw pile is now empty"
        assert line == f"    refill to 7 cards, clockwise from seat {(a + 1) % 3}: {', '.join(said)}; {left}"
    assert ("    refill to 7 cards, clockwise from seat 1: seat 1 draws 3 (animal 10, animal 7, animal 8), seat 2 "
            "draws 4 (animal 11, animal 1, animal 4, animal 5); 26 cards left") in lines
    assert "    refill to 7 cards, clockwise from seat 0: seat 0 draws 2 (animal 1, animal 11), seat 1 draws 1 " \
           "(animal 10); the draw pile is now empty" in lines


def test_trace_names_every_effect_and_shows_the_hands_after_each_turn():
    result = run("trace", "blacksheep", *EFFECTS)
    assert result.exit_code == 0, result.output
    text = result.output
    assert text.splitlines()[1].startswith(
        "rules: wolf=on, white_sheep=on, mother_sheep=on, joker=on (changed from the defaults); the others at")
    assert "8:2+Joker = two animal 8 and the Joker bound to species 8" in text.replace("\n", " ")
    events = json.loads(run("trace", "blacksheep", *EFFECTS, "--json").output)
    said = [d for _, _, d in _lines(text)]
    for kind in ("Black Sheep", "Wolf", "Eagle", "Mole", "White Sheep", "Mother Sheep"):
        # an effect's outcome may follow after a colon (e.g. what the Wolf set aside)
        assert any(re.fullmatch(rf"draws blindly from seat \d: {kind}(: .+)?", d) for d in said), kind
    assert any(re.fullmatch(r"Eagle: asks seat \d for an animal \d+: seat \d hands one over to the watering hole", d)
               for d in said)
    assert any(re.fullmatch(r"Mole: looks at seat \d's hand and takes animal \d+ to the watering hole", d)
               for d in said)
    assert any(re.fullmatch(r"Magpie: takes animal \d+ from seat \d's zoo to the watering hole", d) for d in said)
    # seat 0 had three animal 9 in its zoo
    assert ("  turn 12 seat 2: Magpie: takes animal 9 from seat 0's zoo to the watering hole, breaking seat 0's "
            "triplet of animal 9") in text.splitlines()
    assert any(re.fullmatch(r"White Sheep \(drawn from this seat\): moves animal \d+ from hand to own zoo \(no N - 2 "
                            r"limit\)(; .*)?", d) for d in said)
    assert any(re.fullmatch(r"Mother Sheep: turns the top card of the draw pile up at the watering hole: .+", d)
               for d in said)
    assert any(d.startswith("places the Joker as species 1 in the zoo") for d in said)
    assert "    seat 1 zoo:  1:2+Joker 5:3 7:2 8:2 10:3  (3 triplets)" in text
    # after every turn: the pile size, every hand (hidden ones too) and every zoo, as in the JSON state
    blocks = HAND_BLOCK.findall(text)
    states = [e["state"] for e in events[:-1]]
    turn_ends = [now for before, now in zip(states, states[1:]) if now["turn"] != before["turn"] or now["phase"] == 7]
    assert len(blocks) == 1 + len(turn_ends)
    for (_, npile, magpie, body), state in zip(blocks, [events[0]["state"]] + turn_ends):
        assert int(npile) == len(state["pile"])
        assert magpie == ("the Magpie is in play" if state["magpie_in_play"] else
                          "the Magpie lies beside the draw pile (not in play yet)")
        for q, counts in enumerate(state["hands"]):
            listed = ", ".join(f"{c}x {KIND_NAMES[k]}" if c > 1 else KIND_NAMES[k] for k, c in enumerate(counts) if c)
            assert f"    seat {q} hand: {listed}\n" in body + "\n"


def test_trace_states_the_outcome_of_every_effect():
    text, steps = _trace(*EFFECTS)
    wolf = [(t, q, d, before, after) for t, q, d, before, after, e in steps
            if e["event"] == "draw" and e["chance"] == 4]
    assert wolf, "the traced game must show the Wolf"
    for _, _, d, before, after in wolf:
        o = int(re.match(r"draws blindly from seat (\d)", d).group(1))
        table = before["table"]
        if table:
            what = "the other card" if len(table) == 1 else f"the other {len(table)} cards"
            assert d.endswith(f": Wolf: seat {o} sets aside {what} at the watering hole ({_names(table)}) until "
                              f"the end of the turn; the Wolf stays at the watering hole"), d
            assert after["table"] == [4] and sum(after["set_aside"][o]) == sum(before["set_aside"][o]) + len(table)
        else:
            assert d.endswith(f": Wolf: nothing else lies at the watering hole for seat {o} to set aside"), d
    assert ("  turn 10 seat 0: draws blindly from seat 2: Wolf: seat 2 sets aside the other card at the watering "
            "hole (animal 2) until the end of the turn; the Wolf stays at the watering hole") in text
    # the set-aside cards go back to their owner at the end of the turn, before the refill
    lines = text.splitlines()
    back = lines.index("    seat 2 takes back the cards the Wolf set aside: animal 2")
    assert lines[back - 1] == "  turn 10 seat 0: has placed the 2 cards allowed; the turn ends"
    assert lines[back + 1].startswith("    refill")
    mother = [d for _, _, d, *_ in steps if d.startswith("Mother Sheep:")]
    assert mother and all(re.search(r": (animal \d+|Eagle|Mole|Magpie|Wolf|White Sheep|Joker)$|leaves", d)
                          for d in mother), mother


def test_trace_wolf_cards_return_after_the_refill_with_wolf_return_after_refill():
    text = run("trace", "blacksheep", "-p", "3", "--policy", "threshold:k=7", "--seed", "1", "--game", "0",
               "-o", "wolf=on", "-o", "wolf_return=after_refill").output
    lines = text.splitlines()
    back = lines.index("    seat 0 takes back the cards the Wolf set aside: animal 2")
    assert lines[back - 1].startswith("    refill")


def test_trace_says_when_the_turn_cap_ended_a_game():
    args = ["-p", "2", "--policy", "threshold:k=7", "--seed", "1", "--game", "0", "-o", "turn_cap=10"]
    text = run("trace", "blacksheep", *args).output
    assert text.splitlines()[-1] == ("Capped: the turn cap (turn_cap=10) stops the game after turn 10: a draw; "
                                     "seat 0 has 3 triplets, seat 1 has 0")
    assert _lines(text)[-1][0] == "10"
    args += ["-o", "cap_resolution=most_triplets"]
    text = run("trace", "blacksheep", *args).output
    final = json.loads(run("trace", "blacksheep", *args, "--json").output)[-2]["state"]
    zoo = [sum(z) for z in final["zoos"]]
    assert final["capped"] and final["winner"] == 0 and zoo == [14, 4]
    assert text.splitlines()[-1] == ("Capped: the turn cap (turn_cap=10) stops the game after turn 10 "
                                     "(cap_resolution=most_triplets): seat 0 wins on most triplets, then most zoo "
                                     "cards; seat 0 has 3 triplets, seat 1 has 0; seat 0 has 14 zoo cards, seat 1 has 4")


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
    (["-o", "colour=red"], ["blacksheep has no rule option 'colour'", "zoo_limit_basis", "joker"]),
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
