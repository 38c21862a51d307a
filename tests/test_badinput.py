"""The last holes in bad input (issue 36, item 6): each case is one line `error: ...`,
exit status 2, and nothing written. Most need no kernel."""

from __future__ import annotations

import pytest

from sheepsim.errors import SheepsimError
from sheepsim.policies import parse_spec
from conftest import assert_bad, run_cli as run


@pytest.mark.parametrize("game,spec,needles", [
    ("battlesheep", "greedy:epsilon=0.1,epsilon=0.2", ["parameter epsilon is given twice", "give each parameter once"]),
    ("battlesheep", "greedy:epsilon", ["parameter epsilon needs a value (epsilon=VALUE; allowed: 0..1)"]),
    ("pig", "learned:table", ["parameter table needs a value (table=VALUE; allowed: a file path)"]),
    ("battlesheep", "mcts:nodes=2", ["nodes=2 is too small; allowed: 0 (2 x iters + 1) or an integer from 3"]),
    ("battlesheep", "mcts:nodes=1", ["nodes=1 is too small"]),
])
def test_bad_policy_specs_say_what_is_wrong(game, spec, needles):
    with pytest.raises(SheepsimError) as caught:
        parse_spec(game, spec)
    for needle in needles:
        assert needle in str(caught.value)
    assert_bad(run("simulate", game, "--policy", spec, "-n", "10"), *needles)


def test_the_smallest_node_pools_are_still_allowed():
    assert parse_spec("battlesheep", "mcts:nodes=0").label == "mcts"
    assert parse_spec("battlesheep", "mcts:nodes=3").label == "mcts:nodes=3"


def test_a_repeated_rule_option_is_an_error_not_last_wins(tmp_path):
    result = run("simulate", "battlesheep", "-o", "stack_size=16", "-o", "stack_size=8", "-n", "10",
                 "--out", str(tmp_path / "run"))
    assert_bad(result, "option stack_size is given twice (stack_size=16 and stack_size=8)", "give each option once")
    assert not (tmp_path / "run").exists()


def test_an_empty_variant_table_is_called_empty(tmp_path):
    path = tmp_path / "v.toml"
    path.write_text('game = "pig"\n[variant]\n')
    assert_bad(run("check", str(path)), "its [variant] table is empty")
    path.write_text('game = "pig"\n')
    assert_bad(run("check", str(path)), "it has no [variant] table")


ANALYSIS = 'kind = "seat_advantage"\ngame = "pig"\ngames = 200\npolicies = ["random"]\n'


@pytest.mark.parametrize("lines,needles", [
    ('name = "site"', ["`name` 'site' is taken by the report site", "choose another name"]),
    ('name = "quick-look"', ["`name` 'quick-look' is taken by the quick looks"]),
])
def test_a_report_cannot_take_the_name_of_a_tool_folder(tmp_path, lines, needles):
    path = tmp_path / "a.toml"
    path.write_text(ANALYSIS + lines + "\n")
    assert_bad(run("run", str(path), "--reports", str(tmp_path / "reports")), *needles)
    assert not (tmp_path / "reports").exists()


def test_the_game_must_be_a_name(tmp_path):
    path = tmp_path / "a.toml"
    path.write_text(ANALYSIS.replace('game = "pig"', 'game = ["pig"]'))
    assert_bad(run("run", str(path), "--reports", str(tmp_path / "reports")),
               "`game` must be a game's name from `sheepsim games`", "not ['pig']")
    assert not (tmp_path / "reports").exists()


@pytest.mark.parametrize("kind", ["policy_sweep", "rule_variants", "seat_advantage"])
def test_one_player_count_is_read_as_a_list_of_one(kind):
    from sheepsim.analysis import seat_advantage, sweep, variants
    spec = {"kind": kind, "game": "pig", "players": 2, "games": 10, "policy": "hold", "param": "t",
            "values": [20], "variants": {"short": {"goal": 50}}, "policies": ["random"]}
    module = {"policy_sweep": sweep, "rule_variants": variants, "seat_advantage": seat_advantage}[kind]
    plan = module.plan(spec, 1.0)
    players = {"policy_sweep": lambda: plan.players, "rule_variants": lambda: plan["players"],
               # one cell per (policy, player count)
               "seat_advantage": lambda: [cell.players for cell in plan]}[kind]()
    assert players == [2]
