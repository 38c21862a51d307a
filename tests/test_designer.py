"""What a designer expects to find: example files that load and play, rule and policy
texts a user can read without notes kept outside the repository, an example at the end
of every --help, a hint for a misplaced --plugin, and `compare` of two paired runs.

Every run here is small and uses kernels other tests compile anyway (Pig, and one
short run of each game an example file is for)."""

from __future__ import annotations

import fnmatch
import inspect
import json
import re
import shlex
import tomllib
from pathlib import Path

import click
import numpy as np
import pytest

from sheepsim.stats.intervals import mean_interval
from sheepsim.cli import cli
from sheepsim.examples import EXAMPLES, text
from sheepsim.games import all_games, get_game
from sheepsim.results.store import read_results
from conftest import assert_bad, run_cli as run

ROOT = Path(__file__).resolve().parent.parent
GAMES = tuple(all_games())          # the registry's, the plug-in game conftest.py loads among them
# what a user cannot look up: the decision codes (A-B2, A-X1, ...) and parts of rules
# notes kept outside the repository
DOSSIER_CODE = re.compile(r"\b[A-Z]-[A-Z]\d|\bPart [AB]\b|RULES-DOSSIER|dossier", re.IGNORECASE)


def _ok(*args):
    result = run(*args)
    assert result.exit_code == 0, result.output
    return result.output


# ---------------------------------------------------------------- example files

def test_examples_writes_every_file_and_lists_it(tmp_path):
    out = tmp_path / "ex"
    printed = _ok("examples", str(out))
    for example in EXAMPLES:
        path = out / example.name
        assert path.read_text() == text(example.name)
        assert f"wrote {path}" in printed and example.use.format(path=path) in printed


def test_examples_default_folder_is_examples(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _ok("examples")
    assert sorted(p.name for p in (tmp_path / "examples").iterdir()) == sorted(e.name for e in EXAMPLES)


def test_the_readme_lists_every_example_file_and_git_ignores_the_folder():
    readme = (ROOT / "README.md").read_text()
    paragraph = readme.split("**Example files.**")[1].split("```")[0]
    assert sorted(re.findall(r"`([\w-]+\.(?:json|toml|py))`", paragraph)) == sorted(e.name for e in EXAMPLES)
    assert "/examples/" in (ROOT / ".gitignore").read_text().splitlines()


def test_examples_never_overwrite_without_force(tmp_path):
    out = tmp_path / "ex"
    _ok("examples", str(out))
    edited = out / "position.json"
    edited.write_text("my own board")
    others = [out / e.name for e in EXAMPLES if e.name != "position.json"]
    for path in others:
        path.unlink()
    assert_bad(run("examples", str(out)), f"{edited} already exists", "--force")
    assert edited.read_text() == "my own board"
    assert not any(path.exists() for path in others)          # refused: nothing written at all
    _ok("examples", str(out), "--force")
    assert edited.read_text() == text("position.json")
    (tmp_path / "a-file").write_text("")
    assert_bad(run("examples", str(tmp_path / "a-file")), "is a file, not a folder")


def test_example_files_are_package_data_for_a_non_editable_install():
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    globs = data["sheepsim.examples"]
    for example in EXAMPLES:
        assert any(fnmatch.fnmatch(example.name, g) for g in globs), example.name


def test_the_example_position_loads_and_plays(tmp_path):
    _ok("examples", str(tmp_path))
    path = str(tmp_path / "position.json")
    moves = json.loads(_ok("legal", path))
    assert moves and all(set(m) == {"place"} for m in moves)       # a pasture with stacks to place
    assert "200 games" in _ok("simulate", "battlesheep", "--from-position", path, "-n", "200", "-q")


def test_the_example_analysis_runs(tmp_path):
    _ok("examples", str(tmp_path))
    printed = _ok("run", str(tmp_path / "analysis.toml"), "--scale", "0.05", "--reports", str(tmp_path / "r"), "-q")
    assert f"report: {tmp_path / 'r' / 'analysis.md'}" in printed
    markdown = (tmp_path / "r" / "analysis.md").read_text()
    assert markdown.startswith("# Pig: how much does moving first pay?")
    # the findings follow the path on the console: the report's own bullets, without Markdown marks
    bullets = re.findall(r"^- (.*)$", markdown.split("## Findings\n\n")[1].split("\n## ")[0], re.M)
    console = printed.split("Findings:\n")[1]
    assert bullets and console.count("\n- ") + console.startswith("- ") == len(bullets)
    assert " ".join(console.split()) == " ".join(re.sub(r"\*\*|`", "", " ".join("- " + b for b in bullets)).split())
    assert "**" not in console and max(len(line) for line in console.splitlines()) <= 100


@pytest.mark.parametrize("game,deck,cards", [("hiboufou", "hiboufou-deck.toml", 50),
                                             ("bobbysitter", "bobbysitter-deck.toml", 56)])
def test_the_example_decks_load_and_play(tmp_path, game, deck, cards):
    _ok("examples", str(tmp_path))
    path = tmp_path / deck
    printed = _ok("simulate", game, "-p", "3", "--deck", str(path), "-n", "200", "-q")
    assert f"deck: {path} ({cards} cards, replacing the generated deck)" in printed.replace("\n    ", " ")


# ---------------------------------------------------------------- rules and policies

@pytest.mark.parametrize("game", GAMES)
def test_rules_and_policies_name_no_dossier_codes(game):
    for command in ("rules", "policies"):
        printed = _ok(command, game)
        assert not DOSSIER_CODE.search(printed), DOSSIER_CODE.search(printed).group(0)


def test_rules_still_say_what_is_assumed_and_what_the_rules_leave_open():
    assert "ASSUMED" in _ok("rules", "hiboufou") and "ASSUMED" in _ok("rules", "bobbysitter")
    blacksheep = _ok("rules", "blacksheep")
    assert "the rules do not say" in blacksheep and "not a published rule" in blacksheep
    assert "where it is silent or unclear, the help says so" in blacksheep.replace("\n", " ")


@pytest.mark.parametrize("game", GAMES)
def test_policies_document_the_signature(game):
    printed = _ok("policies", game)
    signature = ("model(cls, sheep, is_flipper" if get_game(game).simultaneous else
                 "policy(s, rules, aux, seat, params")
    assert signature in printed


def test_blacksheep_policy_help_lists_every_decision_code_as_the_model_numbers_it():
    from sheepsim.games.blacksheep import model
    printed = _ok("policies", "blacksheep")
    listed = {name: int(code) for code, name in re.findall(r"(\d+) ([A-Z_]+) \(", printed)}
    names = ["STOP", "DRAW", "EAGLE_SKIP", "EAGLE_ASK", "MOLE_NONE", "MOLE_TAKE", "MAGPIE_NONE", "MAGPIE_TAKE",
             "WHITE_NONE", "WHITE_PLACE", "MOTHER_SKIP", "MOTHER_TAKE", "PLACE_DONE", "PLACE"]
    assert listed == {name: getattr(model, "DRAW_FROM" if name == "DRAW" else name) for name in names}


# ---------------------------------------------------------------- --help

def _commands(group: click.Group, prefix: tuple[str, ...] = ()):
    for name, command in group.commands.items():
        yield prefix + (name,), command
        if isinstance(command, click.Group):
            yield from _commands(command, prefix + (name,))


def _parses(line: str) -> None:
    """Parse an example command line as sheepsim would (types, choices, policy SPECs,
    rule option names), without running it."""
    args = shlex.split(line)[1:]
    command, parent = cli, click.Context(cli, info_name="sheepsim")
    while isinstance(command, click.Group):
        name, args = args[0], args[1:]
        command = command.get_command(parent, name)
        assert command is not None, f"{line}: no command {name!r}"
        parent = click.Context(command, info_name=name, parent=parent) if isinstance(command, click.Group) \
            else command.make_context(name, args, parent=parent)
    if "policies" in parent.params and "players" in parent.params:       # one --policy, or one per seat
        from sheepsim.games import get_game
        from sheepsim.policies import seat_specs
        game = get_game(parent.params["game"])
        seat_specs(game.name, parent.params["policies"], parent.params["players"] or game.players[0])


@pytest.mark.parametrize("path,command", [pytest.param(p, c, id=" ".join(p)) for p, c in _commands(cli)])
def test_every_help_ends_with_an_example_that_parses(path, command):
    last = inspect.cleandoc(command.help or "").rstrip().split("\n\n")[-1]
    lines = last.splitlines()
    assert lines[:2] == ["\b", "Example:"], f"{' '.join(path)} --help does not end with an example"
    examples = [line.strip() for line in lines[2:]]
    assert examples and all(e.startswith("sheepsim ") for e in examples)
    assert any(" ".join(path) in e for e in examples)          # the example uses the command itself
    for example in examples:
        for part in example.split(" && "):
            _parses(part)


@pytest.mark.parametrize("path,command", [pytest.param(p, c, id=" ".join(p)) for p, c in _commands(cli)])
def test_every_help_table_keeps_its_layout(path, command):
    # click rewraps a paragraph into running text unless it starts with a \b line: an
    # indented table (keys and what they mean, in columns) would be run together
    for paragraph in inspect.cleandoc(command.help or "").split("\n\n"):
        lines = paragraph.splitlines()
        assert lines[0] == "\b" or not any(line.startswith(" ") for line in lines), \
            f"{' '.join(path)} --help: a table without \\b: {lines[0]!r}"


def test_run_help_describes_the_analysis_file_format():
    from sheepsim.analysis import definition, grid, seat_advantage, sweep, variants
    printed = " ".join(_ok("run", "--help").split())
    for kind, module in (("seat_advantage", seat_advantage), ("policy_sweep", sweep),
                         ("rule_variants", variants), ("grid", grid)):
        listed = printed.split(f" {kind} ", 2)[-1].split(" A key")[0]
        assert all(key in listed for key in module.KEYS), (kind, module.KEYS)
    assert all(kind in printed for kind in definition.KINDS)
    assert all(key in printed for key in definition.COMMON)


def test_the_analysis_in_run_help_is_a_complete_file(tmp_path):
    help_text = inspect.cleandoc(cli.commands["run"].help)
    body = help_text.split("A complete file:\n")[1].split("\n`sheepsim examples`")[0]
    spec = tomllib.loads("\n".join(line.strip() for line in body.splitlines()))
    path = tmp_path / "mine.toml"
    path.write_text("\n".join(f"{k} = {json.dumps(v)}" for k, v in spec.items()) + "\n")
    from sheepsim.analysis.definition import load
    assert load(path)["kind"] == "seat_advantage"


# ---------------------------------------------------------------- --plugin after the command

@pytest.mark.parametrize("args", [["simulate", "pig", "--plugin", "my.py", "-n", "10"],
                                  ["simulate", "pig", "--plugin=my.py", "-n", "10"]])
def test_plugin_after_the_command_gets_a_hint(args):
    assert_bad(run(*args), "--plugin goes before the command: sheepsim --plugin my.py simulate pig -n 10")


def test_other_unknown_options_keep_clicks_message():
    assert_bad(run("simulate", "pig", "--bogus"), "No such option '--bogus'")


# ---------------------------------------------------------------- compare

def _pig(folder: Path, *policies: str, seed: int = 7, games: int = 600, extra=()) -> Path:
    args = [arg for p in policies for arg in ("--policy", p)]
    _ok("simulate", "pig", "-n", str(games), "--seed", str(seed), *args, "--out", str(folder), "-q", *extra)
    return folder


def _by_hand(x: np.ndarray) -> tuple[float, float, float]:
    mean = float(x.mean())
    return (mean, *mean_interval(mean, float(x.std(ddof=1)), len(x)))


def test_compare_gives_the_paired_difference_of_the_rows(tmp_path):
    a = _pig(tmp_path / "a", "hold:t=25", "hold")
    b = _pig(tmp_path / "b", "hold", "hold")
    printed = _ok("compare", str(a), str(b), "--json", str(tmp_path / "c.json"), "--csv", str(tmp_path / "c.csv"))
    data = json.loads((tmp_path / "c.json").read_text())
    rows_a, rows_b = read_results(a)[0], read_results(b)[0]
    assert data["paired_games"] == 600 and data["differs"] == ["policies"]
    wa, wb = rows_a["winner"].to_numpy(), rows_b["winner"].to_numpy()
    for seat, row in enumerate(data["seats"]):
        want = _by_hand((wa == seat).astype(float) - (wb == seat).astype(float))
        assert (row["diff_rate"], row["diff_rate_lo"], row["diff_rate_hi"]) == pytest.approx(want, abs=1e-12)
        assert row["a_wins"] == int((wa == seat).sum())
    # slot 0 holds hold:t=25 in A: its seat in game g is (0 - rotation) mod 2
    slot_a = (wa + rows_a["rotation"].to_numpy()) % 2 == 0
    slot_b = (wb + rows_b["rotation"].to_numpy()) % 2 == 0
    slot = data["slots"][0]
    assert (slot["a_policy"], slot["b_policy"]) == ("hold:t=25", "hold")
    assert (slot["diff_rate"], slot["diff_rate_lo"], slot["diff_rate_hi"]) == \
        pytest.approx(_by_hand(slot_a.astype(float) - slot_b.astype(float)), abs=1e-12)
    length = data["length"]
    assert (length["diff"], length["diff_lo"], length["diff_hi"]) == pytest.approx(
        _by_hand(rows_a["turns"].to_numpy(float) - rows_b["turns"].to_numpy(float)), abs=1e-12)
    assert "600 games paired by index" in printed and "they differ in: policies" in printed
    assert "Win rate by player slot" in printed and "| 0 | hold:t=25 | hold |" in printed
    # a difference of two rates: signed percentage points, never "%"
    from sheepsim.report.markdown import format_interval
    assert "| A - B (points) |" in printed
    for row in data["seats"]:
        shown = format_interval(row["diff_rate"], row["diff_rate_lo"], row["diff_rate_hi"], percent=True, signed=True)
        assert f"| {shown} |" in printed and "%" not in shown
    csv = (tmp_path / "c.csv").read_text().splitlines()
    assert csv[0].startswith("table,seat,a_wins") and len(csv) == 1 + 2 + 2


def test_identical_runs_differ_by_exactly_zero(tmp_path):
    a = _pig(tmp_path / "a", "hold:t=15", "random")
    b = _pig(tmp_path / "b", "hold:t=15", "random", extra=("--chunk-size", "250"))   # chunking changes nothing
    printed = _ok("compare", str(a), str(b), "--json", str(tmp_path / "c.json"))
    data = json.loads((tmp_path / "c.json").read_text())
    for row in data["seats"] + data["slots"]:
        assert row["diff_rate"] == row["diff_rate_lo"] == row["diff_rate_hi"] == 0.0
    assert data["length"]["diff"] == data["length"]["diff_lo"] == data["length"]["diff_hi"] == 0.0
    assert "they differ in nothing" in printed
    assert printed.count(" | 0.0 [0.0, 0.0] |") == len(data["seats"]) + len(data["slots"])


def test_compare_pairs_only_the_common_game_indices(tmp_path):
    a = _pig(tmp_path / "a", "hold", games=300)
    b = _pig(tmp_path / "b", "random", games=500)
    data_path = tmp_path / "c.json"
    _ok("compare", str(a), str(b), "--json", str(data_path))
    assert json.loads(data_path.read_text())["paired_games"] == 300


def test_compare_refuses_runs_that_cannot_be_paired(tmp_path):
    base = _pig(tmp_path / "base", "hold")
    assert_bad(run("compare", str(base), str(_pig(tmp_path / "seed", "hold", seed=8))),
               "run A has seed 7 and run B seed 8", "needs the same seed")
    _ok("simulate", "blacksheep", "-p", "2", "-n", "20", "--out", str(tmp_path / "bs2"), "-q")
    _ok("simulate", "blacksheep", "-p", "3", "-n", "20", "--out", str(tmp_path / "bs3"), "-q")
    assert_bad(run("compare", str(tmp_path / "bs2"), str(tmp_path / "bs3")),
               "run A has 2 players and run B 3", "same player count")
    assert_bad(run("compare", str(tmp_path / "bs2"), str(base)), "run A is a blacksheep run and run B a pig run")
    agg = _pig(tmp_path / "agg", "hold", extra=("--aggregate",))
    assert_bad(run("compare", str(base), str(agg)), "is aggregate-only (--aggregate)", "rerun it without --aggregate")
    assert_bad(run("compare", str(base), str(tmp_path)), "is not a sheepsim results folder")
    (tmp_path / "half").mkdir()
    (tmp_path / "half" / "manifest.json").write_text(json.dumps({"game": "pig", "seed": 7, "status": "running",
                                                                 "chunks": {"0": {}}}))
    assert_bad(run("compare", str(tmp_path / "half"), str(base)), "is unfinished", "then compare")
    (tmp_path / "a-file").write_text("")
    assert_bad(run("compare", str(base), str(base), "--json", str(tmp_path / "a-file" / "c.json")), "cannot write")


def test_compare_refuses_runs_without_a_common_game_index(tmp_path, monkeypatch):
    from sheepsim.report import compare as C
    a = _pig(tmp_path / "a", "hold", games=100)
    real = C.read_results

    def shifted(folder):            # as if B had played other game indices only
        df, manifest = real(folder)
        if Path(folder) == a:
            return df, manifest
        return df.assign(game=df["game"] + 1000), manifest
    monkeypatch.setattr(C, "read_results", shifted)
    assert_bad(run("compare", str(a), str(_pig(tmp_path / "b", "hold", games=100))),
               "runs A and B hold no common game index (A: games 0..99, B: games 1,000..1,099)")


def test_the_readme_position_example_is_a_valid_position(tmp_path):
    readme = (ROOT / "README.md").read_text()
    block = readme.split("**Battle Sheep positions.**")[1].split("```json\n")[1].split("```")[0]
    path = tmp_path / "readme.json"
    path.write_text(block)
    moves = json.loads(_ok("legal", str(path)))
    # seat 0's stack of 15 on (1, 0) can only go W to (0, 0): 14 split sizes
    assert moves == [{"from": [1, 0], "to": [0, 0], "count": n} for n in range(1, 15)]
