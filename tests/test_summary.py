"""What `sheepsim simulate` prints, as a designer reads it:
the header says what was run, unfinished games are counted with intervals, and the
rough edges found by trying bad input fail in one line or do the expected thing."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from sheepsim import runner as RUNNER
from sheepsim.games import get_game
from sheepsim.policies import seat_specs
from sheepsim.results.store import LOCK
from conftest import assert_bad, run_cli as run

WIDTH = 100


def _ok(*args):
    result = run(*args)
    assert result.exit_code == 0, result.output
    return result.output


def test_the_header_names_changed_options_policies_and_speed():
    plain = _ok("simulate", "blacksheep", "-p", "3", "-n", "300", "-q")
    wolf = _ok("simulate", "blacksheep", "-p", "3", "-n", "300", "-o", "wolf=on", "-o", "turn_cap=50", "-q")
    assert plain.splitlines()[0] == "Bye-Bye Black Sheep, 3 players: 300 games, seed 0"
    assert "rules: as the rules (every option at its default)" in plain
    assert "rules: turn_cap=50, wolf=on (others as the rules)" in wolf      # in the rules' order
    assert plain.splitlines()[1] != wolf.splitlines()[1]
    assert "policies: random in every seat" in plain
    assert "speed: 300 games in" in plain and "games/s on" in plain
    mixed = _ok("simulate", "pig", "-n", "200", "--policy", "hold:t=15", "--policy", "random", "-q")
    assert "policies: slot 0 hold:t=15, slot 1 random, rotated (slot i plays seat (i - g) mod 2 in game g)" in mixed
    # the formula the text states is the kernels' own rotation, at 3 players too
    from sheepsim.games.wrappers import seat_slots
    for g in range(6):
        slots = seat_slots(g, 3, True, 3)
        assert [int(slots[(i - g) % 3]) for i in range(3)] == [0, 1, 2]
    fixed = _ok("simulate", "pig", "-n", "200", "--policy", "hold", "--policy", "random", "--no-rotate", "-q")
    assert "policies: seat 0 hold, seat 1 random (not rotated)" in fixed


def test_every_line_fits_a_100_column_terminal():
    text = _ok("simulate", "bobbysitter", "-p", "6", "-n", "200", "--policy", "child", "--policy", "adult",
               "--policy", "young_child", "--policy", "adult", "--policy", "child", "--policy", "adult",
               "-o", "start_tokens=3,2,2,2,3,2", "-o", "wolf_with_sheep=sheep", "-q")
    wide = [line for line in text.splitlines() if len(line) > WIDTH]
    assert not wide, wide


def test_capped_games_are_counted_with_their_interval():
    text = _ok("simulate", "blacksheep", "-p", "3", "-n", "200", "-o", "turn_cap=10", "-q")
    line = next(line for line in text.splitlines() if line.startswith("capped:"))
    assert line.startswith("capped: 200 games (100.0% [98.1, 100.0]) stopped at the cap of 10 turns")
    assert "lengths are cut there" in line
    uncapped = _ok("simulate", "pig", "-n", "200", "-q")
    assert "capped: 0 games (0.0% [0.0, 1.9]) stopped at the cap of 10,000 turns" in uncapped


def test_mean_length_has_an_interval_in_rows_and_in_aggregate_mode(tmp_path):
    rows = _ok("simulate", "pig", "-n", "2000", "-q")
    agg = _ok("simulate", "pig", "-n", "2000", "--aggregate", "--out", str(tmp_path / "a"), "-q")
    for text in (rows, agg):
        line = next(line for line in text.splitlines() if line.startswith("Game length"))
        mean = line.split("mean ")[1].split("]")[0]          # "x.xx [lo, hi"
        value, bounds = mean.split(" [")
        lo, hi = (float(b) for b in bounds.split(", "))
        assert lo < float(value) < hi
    assert "(exact, from the length histogram)" in agg.replace("\n    ", " ")


def test_no_decided_game_gives_n_a_not_a_p_value():
    text = _ok("simulate", "blacksheep", "-p", "3", "-n", "100", "--policy", "threshold:k=0", "-q")
    assert "seats equal? n/a: no game had a sole winner" in text
    assert "1e-300" not in text


def test_draws_and_shared_wins_are_told_apart():
    # Hiboufou's default tie-break shares a tie for most cards: shared wins, no draws
    text = _ok("simulate", "hiboufou", "-p", "3", "-n", "3000", "-q")
    line = next(line for line in text.splitlines() if line.startswith("no sole winner"))
    counts = re.search(r"\((\d[\d,]*) draws?, (\d[\d,]*) shared wins?\)", line)
    assert counts, line
    shared = int(counts.group(2).replace(",", ""))
    assert shared > 0, line
    table = text.split("Win rate by seat")[1].split("no sole winner")[0]
    assert "shared wins" in table
    assert sum(int(row.split("|")[5]) for row in table.splitlines() if row.startswith("| ") and
               row.split("|")[1].strip().isdigit()) >= 2 * shared      # each shared win counts 2+ seats


HIBOUFOU_FORCED = ("simulate", "hiboufou", "-p", "3", "-n", "300", "--policy", "greedy", "-o", "colours=5",
                   "-o", "colours_per_card=3", "-q")


def _warnings(text: str) -> list[str]:
    block = text.split("\nWarnings (")[1]
    return [line for line in block.splitlines() if line.startswith("- ")]


@pytest.mark.parametrize("mode", ["rows", "aggregate"])
def test_a_degenerate_run_says_so(tmp_path, mode):
    # the README's Hiboufou deck of 5 colours, 3 a card: seat 0 wins every game, all of one length
    extra = ("--aggregate", "--out", str(tmp_path / "agg")) if mode == "aggregate" else ()
    text = _ok(*HIBOUFOU_FORCED, *extra)
    head = text.split("\nWarnings (")[1].split(":\n")[0]
    assert "95% or more, or 1% or less, of decided games" in head
    assert _warnings(text) == ["- seat 0 wins 100.0% [98.7, 100.0] of decided games", "- seat 1 never wins",
                               "- seat 2 never wins", "- every game lasts exactly 13 turns",
                               "- the deal and the seat order fix the result before anyone chooses"]
    assert "outcome uniformity (Ludii's, of the seats' results; 0: a fair coin flip, 1: a foregone result; " \
           "0.111\n    for 3 equal seats): 1.000" in text


def test_uniformity_says_it_sees_seats_when_one_rotated_policy_wins_nearly_always():
    text = _ok("simulate", "battlesheep", "-p", "2", "-n", "2000", "--policy", "greedy", "--policy", "random",
               "--seed", "1", "-q")
    first, *rest = text.split("outcome uniformity")[1].splitlines()
    wrapped = [first, *[r for r in rest[:next(i for i, r in enumerate(rest) if not r.startswith("    "))]]]
    line = " ".join(" ".join(wrapped).split())
    assert line.startswith("(Ludii's, of the seats' results; 0: a fair coin flip, 1: a foregone result): 0.0")
    greedy = re.search(r"\| greedy \| [\d,]+ \| [\d,]+ \| [\d,]+ \| \d+ \| (9\d\.\d% \[[\d.]+, [\d.]+\]) \|", text)
    assert greedy, text
    assert line.endswith(f"it sees seats, not policies: greedy wins {greedy.group(1)} of decided games, but "
                         f"rotation gives those wins to every seat alike")
    assert _warnings(text) == [f"- policy greedy wins {greedy.group(1)} of decided games"]
    # the same policies not rotated: the seats show it, and the uniformity needs no note
    fixed = _ok("simulate", "battlesheep", "-p", "2", "-n", "2000", "--policy", "greedy", "--policy", "random",
                "--seed", "1", "--no-rotate", "-q")
    assert "it sees seats, not policies" not in fixed and "- seat 0 wins 9" in fixed


def test_an_ordinary_run_has_no_warnings_and_two_holds_are_told_apart():
    text = _ok("simulate", "pig", "-n", "2000", "--policy", "hold:t=20", "--policy", "hold:t=25", "-q")
    assert "Warnings" not in text and "it sees seats" not in text
    assert "policies: slot 0 hold:t=20, slot 1 hold:t=25, rotated" in text
    assert "| hold:t=20 |" in text and "| hold:t=25 |" in text


def test_games_per_second_leave_the_compile_out():
    game = get_game("pig")
    rules = game.make_rules(2, {})
    run = RUNNER.simulate(game, rules, seat_specs("pig", ["random"], 2), 100, notify=None)
    assert "compile_seconds" in run.manifest and run.manifest["compile_seconds"] >= 0
    assert run.extra["computed_games"] == 100


def test_a_finished_run_resumed_says_nothing_was_played_and_leaves_no_lock(tmp_path):
    out = tmp_path / "run"
    _ok("simulate", "pig", "-n", "300", "--chunk-size", "100", "--out", str(out), "-q")
    assert not (out / LOCK).exists()
    again = _ok("simulate", "pig", "-n", "300", "--chunk-size", "100", "--out", str(out), "-q")
    assert "all 3 chunk(s) were already in the run folder: nothing was played" in again
    assert "games/s" not in again


def test_a_deck_file_is_named_in_the_header(tmp_path):
    deck = tmp_path / "six.toml"
    deck.write_text('cards = [{sheep = 2, count = 30}, {wolf = true, count = 10}]\n')
    text = _ok("simulate", "bobbysitter", "-p", "3", "-n", "50", "--deck", str(deck), "-q")
    assert f"deck: {deck} (40 cards, replacing the generated deck)" in text.replace("\n    ", " ")


def test_ctrl_c_exits_130_and_says_what_was_kept(tmp_path, monkeypatch):
    from sheepsim.runner import backends
    real = backends.compute

    def interrupted(job, index, prepared=None):
        if index == 2:
            raise KeyboardInterrupt
        return real(job, index, prepared)
    monkeypatch.setattr(backends, "compute", interrupted)
    out = tmp_path / "run"
    result = run("simulate", "pig", "-n", "500", "--chunk-size", "100", "--out", str(out), "-q")
    assert result.exit_code == 130, result.output
    assert f"interrupted: 2 of 5 chunk(s) are saved in {out}; run the same command again to resume" \
        in result.output
    assert json.loads((out / "manifest.json").read_text())["status"] == "running"
    monkeypatch.setattr(backends, "compute", real)
    resumed = _ok("simulate", "pig", "-n", "500", "--chunk-size", "100", "--out", str(out), "-q")
    assert "2 chunk(s) resumed" in resumed


def test_bare_sheepsim_prints_the_help():
    result = run()
    assert result.exit_code == 0 and result.output.startswith("Usage: ") and "Commands:" in result.output
    assert "error" not in result.output


@pytest.mark.parametrize("args,needles", [
    (["trace", "pig", "--game", "99999999999999999999"], ["--game", "9223372036854775807"]),
    (["simulate", "blacksheep", "--policy", "threshold:k=1.5"], ["k=1.5 must be a whole number", "integer 0..40"]),
    (["simulate", "pig", "--policy", "hold:t=20.5"], ["t=20.5 must be a whole number", "integer 1..1000"]),
])
def test_bad_values_are_one_line(args, needles):
    assert_bad(run(*args), *needles)


def test_integer_parameters_still_take_whole_numbers_written_as_floats():
    assert "hold:t=15" in _ok("simulate", "pig", "-n", "20", "--policy", "hold:t=15.0", "-q")
    assert "k=<integer>" in _ok("policies", "blacksheep")


@pytest.mark.parametrize("deck,options,needles", [
    ('cards = [{sheep = 2, count = 30}, {wolf = true, count = 10}]\n', ["-o", "sheep_cards=20"],
     ["replaces the generated one", "sheep_cards"]),
    ('cards = [{sheep = 9, count = 30}, {wolf = true, count = 10}]\n', [], ["sheep must be an integer 0..3", "9"]),
])
def test_bobby_sitter_deck_mistakes_are_refused(tmp_path, deck, options, needles):
    path = tmp_path / "deck.toml"
    path.write_text(deck)
    assert_bad(run("simulate", "bobbysitter", "--deck", str(path), *options, "-n", "10", "-q"), *needles)


PLUGIN = '''
from numba import njit
from sheepsim.policies import register_policy

@register_policy({game!r}, {name!r})
@njit
def mine(s, rules, aux, seat, params, rng, buf):
    return 0
'''


@pytest.mark.parametrize("game,name,needles", [
    ("pigg", "mine", ["unknown game 'pigg'", "valid games: battlesheep"]),
    ("pig", "random", ["pig already has a built-in policy 'random'", "built-ins: random, hold"]),
])
def test_plugins_for_unknown_games_or_built_in_names_are_refused(tmp_path, game, name, needles):
    plugin = tmp_path / "plugin.py"
    plugin.write_text(PLUGIN.format(game=game, name=name))
    assert_bad(run("--plugin", str(plugin), "policies", "pig"), *needles)


def test_a_cold_compile_is_announced_before_it_starts(monkeypatch):
    import dataclasses
    import types

    from numba import njit

    from sheepsim import policies as POLICIES
    from sheepsim.games import wrappers as W
    from sheepsim.games.pig import engine as E
    from sheepsim.policies import register_policy

    game = get_game("pig")
    rules = game.make_rules(2, {})
    builtin = seat_specs("pig", ["random"], 2)
    RUNNER.simulate(game, rules, builtin, 20, notify=None)
    assert W.cold_start_note(game, builtin) is None           # compiled: nothing to announce

    @njit
    def never_compiled(x):
        return x
    monkeypatch.setattr(W, "_on_disk", lambda kernel: False)
    cold = dataclasses.replace(game, play=types.SimpleNamespace(play_blocks=never_compiled))
    monkeypatch.setattr(W.os, "getloadavg", lambda: (0.4, 0.5, 0.5))
    monkeypatch.setattr(W.os, "cpu_count", lambda: 2)
    assert W.cold_start_note(cold, builtin) == \
        "compiling the kernels for Pig, first run only, about 15 s (measured on an idle 2-core machine)"
    # a busy machine stretches the compile: the note says the load it measured
    monkeypatch.setattr(W.os, "getloadavg", lambda: (6.3, 5.0, 4.0))
    assert W.cold_start_note(cold, builtin) == ("compiling the kernels for Pig, first run only, about 15 s "
                                                "(measured on an idle 2-core machine; longer now, the load is "
                                                "6.3 on 2 cores)")

    @njit
    def roller(s, rules, aux, seat, params, rng, buf):
        return E.ACT_ROLL
    monkeypatch.setattr(POLICIES, "_REGISTRY", dict(POLICIES._REGISTRY))
    register_policy("pig", "roller")(roller)
    specs = seat_specs("pig", ["roller", "random"], 2)
    note = W.cold_start_note(game, specs)
    assert note.startswith("compiling the kernels for Pig with user policy roller (once per process")
    heard: list[str] = []
    RUNNER.simulate(game, rules, specs, 50, notify=heard.append)
    assert heard == [note]
    RUNNER.simulate(game, rules, specs, 50, notify=heard.append)
    assert heard == [note] and W.cold_start_note(game, specs) is None


def test_integer_parameters_are_declared_by_name(monkeypatch):
    from sheepsim import policies as POLICIES
    from sheepsim.errors import SheepsimError
    from sheepsim.games.pig import policies as POL
    from sheepsim.policies import parse_spec, register_policy

    monkeypatch.setattr(POLICIES, "_REGISTRY", dict(POLICIES._REGISTRY))
    register_policy("pig", "counted", params={"t": (3.0, "whole", 1, 9), "u": (0.5, "any")}, integers=("t",))(POL.hold)
    assert parse_spec("pig", "counted:t=4,u=0.25").values == (4.0, 0.25)
    with pytest.raises(SheepsimError, match="t=4.5 must be a whole number; allowed: integer 1..9"):
        parse_spec("pig", "counted:t=4.5")
    with pytest.raises(SheepsimError, match="not one of its parameters"):
        register_policy("pig", "wrong", params={"t": (3.0, "whole")}, integers=("k",))
    with pytest.raises(SheepsimError, match="needs a whole default"):
        register_policy("pig", "wrong", params={"t": (3.5, "whole")}, integers=("t",))


ANALYSIS = '''kind = "seat_advantage"
game = "pig"
games = 200
players = [2]
policies = ["random"]
'''


@pytest.mark.parametrize("line,needles", [
    ('seed = "one"', ["`seed` must be a whole number >= 0, not 'one'"]),
    ('name = "../../escape"', ["`name` '../../escape' must be a plain file name"]),
    ('name = "/tmp/abs"', ["must be a plain file name"]),
])
def test_analysis_files_with_wrong_types_fail_in_one_line_writing_nothing(tmp_path, line, needles):
    path = tmp_path / "bad.toml"
    path.write_text(ANALYSIS + line + "\n")
    assert_bad(run("run", str(path), "--reports", str(tmp_path / "reports")), *needles)
    assert not (tmp_path / "reports").exists()


@pytest.mark.parametrize("key,value,needles", [
    ("values", '"10,20"', ["`values` must be a list of numbers, e.g. [10, 20], not '10,20'"]),
    ("policies", '"random"', ["`policies` must be a list of policy SPECs", "not 'random'"]),
    ("games", "-5", ["`games` must be a positive whole number"]),
])
def test_lists_and_counts_are_checked_before_a_kind_reads_them(tmp_path, key, value, needles):
    lines = [line for line in ANALYSIS.splitlines() if not line.startswith(key)]
    path = tmp_path / "bad.toml"
    path.write_text("\n".join(lines + [f"{key} = {value}"]) + "\n")
    assert_bad(run("run", str(path), "--reports", str(tmp_path / "reports")), *needles)


def test_a_quick_look_is_written_beside_the_reports_not_over_them(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "pig-quick.toml"
    path.write_text(ANALYSIS)
    out = _ok("run", str(path), "--scale", "0.5", "-q")
    assert "report: reports/quick-look/pig-quick.md (a quick look at --scale 0.5" in out
    assert (tmp_path / "reports" / "quick-look" / "pig-quick.md").exists()
    assert not (tmp_path / "reports" / "pig-quick.md").exists()


@pytest.mark.parametrize("mode", [[], ["--aggregate"]])
def test_summarize_prints_a_finished_run_without_playing_it(tmp_path, mode, monkeypatch):
    out = tmp_path / "run"
    args = ["pig", "-n", "600", "--chunk-size", "200", "--policy", "hold", "--policy", "random", *mode]
    printed = _ok("simulate", *args, "--out", str(out), "-q")
    from sheepsim.runner import backends
    monkeypatch.setattr(backends, "compute", None)          # summarize must not play a game
    summary = _ok("summarize", str(out), "--csv", str(tmp_path / "s.csv"), "--json", str(tmp_path / "s.json"))

    def body(text):       # the summary without its speed line and the folder line
        return [line for line in text.splitlines() if not line.startswith(("speed:", "results:"))]
    assert body(summary) == body(printed)
    data = json.loads((tmp_path / "s.json").read_text())
    assert data["run"]["games"] == 600 and data["outcomes"]["games"] == 600
    assert [row["wins"] for row in data["seats"]] == [int(line.split("|")[4]) for line in summary.splitlines()
                                                      if line.startswith(("| 0 |", "| 1 |"))]
    csv = (tmp_path / "s.csv").read_text().splitlines()
    assert csv[0].startswith("table,seat,games,decided,wins") and len(csv) == 1 + 2 + 2


def test_summarize_refuses_unfinished_or_foreign_folders_in_one_line(tmp_path):
    assert_bad(run("summarize", str(tmp_path)), "is not a sheepsim results folder")
    (tmp_path / "manifest.json").write_text(json.dumps({"game": "pig", "seed": 0, "status": "running",
                                                        "chunks": {"0": {}}}))
    assert_bad(run("summarize", str(tmp_path)), "unfinished run (1 chunk(s) saved)", "run its simulate command again")


def test_summarize_writes_nothing_and_prints_nothing_when_a_file_cannot_be_written(tmp_path):
    out = tmp_path / "run"
    _ok("simulate", "pig", "-n", "100", "--out", str(out), "-q")
    (tmp_path / "a-file").write_text("")
    assert_bad(run("summarize", str(out), "--json", str(tmp_path / "a-file" / "s.json")), "cannot write")


@pytest.mark.parametrize("path", sorted((Path(__file__).parent.parent / "analyses").glob("*.toml")),
                         ids=lambda p: p.stem)
def test_every_committed_analysis_file_passes_the_shape_checks(path):
    from sheepsim.analysis.definition import load
    assert load(path)["name"] == path.stem
