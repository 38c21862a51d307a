"""The one library function that resolves a run's start (sheepsim.start.resolve), the
CLI's --policy and --option types, and a user policy's wrong return type."""

from __future__ import annotations

import json

import pytest

from conftest import assert_bad, run_cli
from sheepsim.errors import SheepsimError
from sheepsim.games import get_game
from sheepsim.start import resolve


def test_resolve_gives_rules_and_start_objects(tmp_path):
    bs = get_game("blacksheep")
    rules, start = resolve(bs, 4, ["wolf=on"])
    assert rules.num_players == 4 and rules["wolf"] == "on" and start is None
    assert resolve(bs, None, {"joker": "on"})[0].num_players == bs.players[0]
    deck = tmp_path / "deck.json"
    deck.write_text(json.dumps([["red", "blue"], ["red", "green"], ["blue", "green"]] * 4))
    rules, start = resolve(get_game("hiboufou"), 3, (), deck_file=deck)
    assert start == {"deck": get_game("hiboufou").read_deck(deck)} and rules.num_players == 3


def test_resolve_refuses_what_cannot_start(tmp_path):
    deck = tmp_path / "deck.json"
    deck.write_text(json.dumps([["red", "blue"]] * 4))
    with pytest.raises(SheepsimError, match="takes no deck file; --deck works for: hiboufou, bobbysitter"):
        resolve(get_game("pig"), None, (), deck_file=deck)
    with pytest.raises(SheepsimError, match="give --deck or --from-position, not both"):
        resolve(get_game("hiboufou"), 3, (), position_file=deck, deck_file=deck)
    with pytest.raises(SheepsimError, match="no position format"):
        resolve(get_game("pig"), None, (), position_file=deck)
    with pytest.raises(SheepsimError, match="NAME=VALUE"):
        resolve(get_game("pig"), None, ["goal"])


def test_option_and_policy_types_name_the_valid_choices():
    assert_bad(run_cli("simulate", "blacksheep", "-o", "wolves=on", "-n", "10"),
               "blacksheep has no rule option 'wolves'", "valid options:", "wolf")
    assert_bad(run_cli("simulate", "blacksheep", "-o", "wolf", "-n", "10"), "must look like NAME=VALUE")
    assert_bad(run_cli("simulate", "blacksheep", "--policy", "thresold:k=4", "-n", "10"),
               "unknown blacksheep policy 'thresold'", "valid policies: random, threshold, risk")
    assert_bad(run_cli("trace", "pig", "--policy", "hold:q=3"), "hold")
    ok = run_cli("simulate", "pig", "-o", "goal=50", "--policy", "hold:t=15", "-n", "20", "-q")
    assert ok.exit_code == 0, ok.output


FLOAT_PLUGIN = '''
from numba import njit
from sheepsim.policies import register_policy

@register_policy("pig", "floaty", doc="returns a float: not an action")
@njit
def floaty(s, rules, aux, seat, params, rng, buf):
    return 0.5
'''


def test_a_policy_returning_a_float_gets_one_line(tmp_path):
    plugin = tmp_path / "floaty.py"
    plugin.write_text(FLOAT_PLUGIN)
    result = run_cli("--plugin", str(plugin), "simulate", "pig", "--policy", "floaty", "--policy", "hold",
                     "-n", "10", "-q")
    assert_bad(result, "user policy floaty could not be compiled", "return an integer or a 1-tuple of integers")
