"""Hiboufou through the CLI: options, simulate, trace, and bad input (one line, exit 2)."""

from __future__ import annotations

import json

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
    assert "Hiboufou: 300 games, 3 players" in sim.output
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
    assert "row: [" in text and "seat 0 hand:" in text and ("lays " in text)


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
