"""Each game's rules readings (games/<game>/READINGS.md): reachable from `sheepsim rules
GAME --readings`, and every `option=value` they name is a rule option the game accepts
with that value (a reading that points to a misspelt option would send a designer
nowhere). Values written as a placeholder (N, NAME) are checked for the option alone."""

from __future__ import annotations

import re

import pytest
from conftest import TICTACTOE, assert_bad
from conftest import run_cli as run

from sheepsim.games import NAMES, get_game

SETTING = re.compile(r"`([a-z_]+)=([^`\s]+)`")


@pytest.mark.parametrize("name", NAMES)
def test_the_readings_name_real_options_and_print(name):
    game = get_game(name)
    text = game.readings.read_text()
    assert text.startswith(f"# {game.title}: the rules readings")
    options = {o.name for o in game.options}
    settings = SETTING.findall(text)
    assert settings, "a readings file names the option of at least one other reading"
    for option, value in settings:
        assert option in options, f"{name}: the readings name {option}, not an option"
        if not re.fullmatch(r"[A-Z]+|[a-z]+:[A-Z]+", value):     # N, NAME, preset:NAME: placeholders
            # a per-player value (start_tokens=3,2,2) sets the player count
            players = value.count(",") + 1 if "," in value else game.players[0]
            game.make_rules(players, {option: value})
    r = run("rules", name, "--readings")
    assert r.exit_code == 0 and r.output.startswith(f"# {game.title}: the rules readings"), r.output
    assert f"sheepsim rules {name} --readings" in run("rules", name).output


def test_a_game_without_readings_says_so():
    assert_bad(run("--plugin", str(TICTACTOE), "rules", "tictactoe", "--readings"), "gives no rules readings")
