"""The last holes in bad input: each case is one line `error: ...`,
exit status 2, and nothing written. Most need no kernel."""

from __future__ import annotations

import shutil

import pytest

from sheepsim.analysis.definition import KINDS
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


# --- files the commands write: never replaced, no folders made, unless --force --------

@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    out = tmp_path_factory.mktemp("runs") / "pig"
    result = run("simulate", "pig", "-n", "200", "--chunk-size", "100", "--out", str(out), "-q")
    assert result.exit_code == 0, result.output
    return out


@pytest.mark.parametrize("option", ["--csv", "--json"])
def test_summarize_and_compare_refuse_to_replace_a_file_or_make_folders(finished, tmp_path, option):
    for command in (["summarize", str(finished)], ["compare", str(finished), str(finished)]):
        path = tmp_path / "taken.txt"
        path.write_text("someone else's")
        assert_bad(run(*command, option, str(path)), f"{option} {path} exists; give --force to replace it")
        assert path.read_text() == "someone else's"
        deep = tmp_path / "new" / "folder" / "t.out"
        assert_bad(run(*command, option, str(deep)), "the folder", "does not exist", "mkdir -p", "or give --force")
        assert not (tmp_path / "new").exists()
        for target in (path, deep):
            result = run(*command, option, str(target), "--force")
            assert result.exit_code == 0, result.output
            assert target.read_text() != "someone else's" and target.stat().st_size > 0
        path.unlink()
        shutil.rmtree(tmp_path / "new")


def test_trace_html_makes_folders_only_with_force(tmp_path):
    deep = tmp_path / "pages" / "r.html"
    assert_bad(run("trace", "pig", "--html", str(deep)), "does not exist", "or give --force")
    result = run("trace", "pig", "--html", str(deep), "--force")
    assert result.exit_code == 0, result.output
    assert deep.is_file()


def test_check_refuses_its_json_file_before_playing(tmp_path, monkeypatch):
    from sheepsim.analysis import check as C
    variant = tmp_path / "v.toml"
    variant.write_text('game = "pig"\n[variant]\ngoal = 50\n')
    taken = tmp_path / "verdict.json"
    taken.write_text("{}")
    monkeypatch.setattr(C, "run", None)          # refused before any game is played
    assert_bad(run("check", str(variant), "--json", str(taken)), "exists; give --force")
    assert taken.read_text() == "{}"


# --- game counts: a stated maximum, and aggregate memory that stays flat ----------------

@pytest.mark.parametrize("args,needles", [
    (["-n", "99999999999999999999"], ["--games 99,999,999,999,999,999,999 is more than a run holds",
                                      "at most 100,000,000 games with per-game rows", "1,000,000,000,000 with --aggregate"]),
    (["-n", "100000001"], ["at most 100,000,000 games with per-game rows"]),
    (["-n", "9223372036854775807", "--aggregate"], ["at most 1,000,000,000,000 games with --aggregate"]),
])
def test_game_counts_beyond_what_a_run_holds_are_refused(tmp_path, args, needles):
    assert_bad(run("simulate", "pig", *args, "--out", str(tmp_path / "run")), *needles)
    assert not (tmp_path / "run").exists()


def test_the_maximum_counts_are_accepted():
    from sheepsim.runner import MAX_GAMES, MAX_ROWS, check_games
    check_games(MAX_ROWS)
    check_games(MAX_GAMES, aggregate=True)
    with pytest.raises(SheepsimError, match="with --aggregate"):
        check_games(MAX_GAMES + 1, aggregate=True)


@pytest.mark.parametrize("games,scale,needle", [
    ("1000000000000000000000", [], "`games` 1,000,000,000,000,000,000,000 is more than a run holds"),
    ("1000000", ["--scale", "101"], "`games` 1,000,000 x --scale 101 is more than a run holds"),
])
def test_analysis_and_variant_counts_are_checked_after_scale(tmp_path, games, scale, needle):
    path = tmp_path / "a.toml"
    path.write_text(ANALYSIS.replace("games = 200", f"games = {games}"))
    assert_bad(run("run", str(path), "--reports", str(tmp_path / "reports"), *scale), needle,
               "at most 100,000,000 games per run")
    assert not (tmp_path / "reports").exists()
    variant = tmp_path / "v.toml"
    variant.write_text(f'game = "pig"\ngames = {games}\n[variant]\ngoal = 50\n')
    assert_bad(run("check", str(variant), *scale), "variant file", needle)


def test_aggregate_memory_stays_flat_at_the_maximum(monkeypatch):
    """The runner used to list every chunk index up front: at 10^12 games that list
    alone grew by gigabytes. Chunks here are stand-ins (no kernel), stopped after three."""
    import tracemalloc

    from sheepsim import runner as R
    from sheepsim.games import get_game
    from sheepsim.policies import seat_specs
    from sheepsim.results.aggregate import Aggregate
    from sheepsim.runner import backends

    monkeypatch.setattr(backends.LocalBackend, "warm", lambda self, job, prepared, notify: 0.0)
    monkeypatch.setattr(backends, "compute", lambda job, index, prepared: Aggregate(2))

    class Enough(Exception):
        pass

    def stop(index):
        if index == 2:
            raise Enough
    game = get_game("pig")
    rules = game.make_rules(2, {})
    tracemalloc.start()
    with pytest.raises(Enough):
        R.simulate(game, rules, seat_specs("pig", ["random"], 2), R.MAX_GAMES, aggregate=True, chunk_size=100_000,
                   on_chunk=stop, notify=None)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 20e6, f"{peak / 1e6:.0f} MB for three chunks"


# --- faults in a plugin policy: one line, and the run folder says it stopped ------------

FAULTY = '''
from numba import njit
from sheepsim.policies import register_policy

@register_policy("pig", "raises", doc="raises at its first decision")
@njit
def raises(s, rules, aux, seat, params, rng, buf):
    if seat >= 0:
        raise ValueError("no idea what to do")
    return 0

@register_policy("pig", "illegal", doc="returns an action pig does not have")
@njit
def illegal(s, rules, aux, seat, params, rng, buf):
    return 7
'''


@pytest.mark.parametrize("policy,needles", [
    ("raises", ["user policy raises raised ValueError: no idea what to do"]),
    ("illegal", ["policy illegal returned the illegal action (7,)"]),
])
def test_a_faulty_plugin_stops_the_run_in_one_line_and_marks_the_folder(tmp_path, policy, needles):
    import json

    plugin = tmp_path / f"faulty_{policy}.py"
    plugin.write_text(FAULTY)
    out = tmp_path / "run"
    args = ["--plugin", str(plugin), "simulate", "pig", "-n", "300", "--chunk-size", "100", "--policy", policy,
            "--policy", "random", "--out", str(out), "-q"]
    assert_bad(run(*args), *needles)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "failed" and needles[0] in manifest["error"]
    assert manifest["chunks"] == {} and not list(out.glob("chunk-*"))
    assert_bad(run("summarize", str(out)), "holds a run that stopped on an error", needles[0])
    # the same command again meets the same fault: still one line, still marked
    assert_bad(run(*args), *needles)
    assert json.loads((out / "manifest.json").read_text())["status"] == "failed"


def test_a_plugin_that_raises_in_trace_is_one_line(tmp_path):
    plugin = tmp_path / "faulty_trace.py"
    plugin.write_text(FAULTY)
    assert_bad(run("--plugin", str(plugin), "trace", "pig", "--policy", "raises", "--policy", "random"),
               "user policy raises raised ValueError: no idea what to do")


# --- a full disk: one line, nothing half-written ----------------------------------------

def _full(*args, **kwargs):
    import errno
    raise OSError(errno.ENOSPC, "No space left on device")


def test_a_full_disk_stops_simulate_out_in_one_line(tmp_path, monkeypatch):
    import json

    from sheepsim.results import store

    class Full:
        def __init__(self, *args, **kwargs):
            pass

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        write = _full
    # the chunk file's own open(), in the store module only
    monkeypatch.setattr(store, "open", Full, raising=False)
    out = tmp_path / "run"
    assert_bad(run("simulate", "pig", "-n", "300", "--chunk-size", "100", "--out", str(out), "-q"),
               f"cannot write {out / 'chunk-000000.parquet'}: No space left on device", "free some space")
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "failed" and "No space left on device" in manifest["error"]
    assert sorted(p.name for p in out.iterdir()) == [".lock", "manifest.json"]      # no chunk, no temp file
    monkeypatch.undo()
    result = run("simulate", "pig", "-n", "300", "--chunk-size", "100", "--out", str(out), "-q")
    assert result.exit_code == 0, result.output           # space again: the same command finishes it
    assert json.loads((out / "manifest.json").read_text())["status"] == "complete"


def test_a_full_disk_stops_report_out_in_one_line(tmp_path, monkeypatch):
    from sheepsim.report import site

    reports = tmp_path / "reports"
    reports.mkdir()
    (reports / "note.md").write_text("# A note\n\nSome text.\n")
    monkeypatch.setattr(site, "_write", _full)
    assert_bad(run("report", str(reports), "--out", str(tmp_path / "site")),
               f"cannot write {tmp_path / 'site'}: No space left on device")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["reports"]       # no site, no staging folder
    monkeypatch.undo()
    assert run("report", str(reports), "--out", str(tmp_path / "site")).exit_code == 0


def test_a_full_disk_stops_run_without_a_figure_left_beside_no_report(tmp_path, monkeypatch):
    import errno
    import os

    from sheepsim import fileio

    fsync = os.fsync

    def full_at_the_markdown(fd):         # every figure and data file is written, then the report is not
        if ".md." in os.readlink(f"/proc/self/fd/{fd}"):
            raise OSError(errno.ENOSPC, "No space left on device")
        fsync(fd)
    monkeypatch.setattr(fileio.os, "fsync", full_at_the_markdown)
    path = tmp_path / "full.toml"
    path.write_text(ANALYSIS)
    reports = tmp_path / "reports"
    assert_bad(run("run", str(path), "--reports", str(reports), "-q"), "full.md: No space left on device")
    assert [p for p in reports.rglob("*") if p.is_file()] == []
    monkeypatch.undo()
    assert run("run", str(path), "--reports", str(reports), "-q").exit_code == 0
    assert (reports / "full.md").is_file() and (reports / "full").is_dir()


def test_a_full_disk_during_a_remake_leaves_the_old_report_whole(tmp_path, monkeypatch):
    """A failed remake puts back every file it had replaced: the report, its figures and
    data stay as they were, byte for byte, and no backup is left behind."""
    import errno
    import os

    from sheepsim import fileio

    path = tmp_path / "full.toml"
    path.write_text(ANALYSIS)
    reports = tmp_path / "reports"
    assert run("run", str(path), "--reports", str(reports), "-q").exit_code == 0
    before = {p: p.read_bytes() for p in reports.rglob("*") if p.is_file()}
    assert len(before) > 2
    fsync = os.fsync

    def full_at_the_markdown(fd):
        if ".md." in os.readlink(f"/proc/self/fd/{fd}"):
            raise OSError(errno.ENOSPC, "No space left on device")
        fsync(fd)
    monkeypatch.setattr(fileio.os, "fsync", full_at_the_markdown)
    path.write_text(ANALYSIS + "seed = 99\n")         # another report: every file would change
    assert_bad(run("run", str(path), "--reports", str(reports), "-q"), "full.md: No space left on device")
    assert {p: p.read_bytes() for p in reports.rglob("*") if p.is_file()} == before


def test_nested_all_or_nothing_blocks_each_put_back_what_they_replaced(tmp_path):
    from sheepsim.fileio import all_or_nothing, write_atomic

    old, new = tmp_path / "old.txt", tmp_path / "new.txt"
    old.write_text("as it was")
    with pytest.raises(RuntimeError):
        with all_or_nothing():
            write_atomic(old, "outer")
            with all_or_nothing():
                write_atomic(old, "inner")
                write_atomic(new, "new")
            assert old.read_text() == "inner" and new.read_text() == "new"   # the inner block succeeded
            raise RuntimeError("the outer block fails")
    assert old.read_text() == "as it was" and not new.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.txt"]


LEARN_STOP = ('kind = "learn_stop"\ngame = "pig"\nseed = 3\ngames = 2000\ntarget = 500\nmax_iterations = 1\n'
              'eval_games = 400\nfield = "optimal"\ncandidates = ["hold:t=25"]\n')
TUNE = ('kind = "tune"\ngame = "bobbysitter"\nseed = 7\nplayers = 4\nfocal_policy = "child"\npolicy = "adult"\n'
        'objectives = [{ metric = "focal_edge", goal = "zero" }]\ntrials = 4\ngames = 200\nconfirm_games = 400\n'
        '[space.target]\noption = "target_tokens"\nlow = 4\nhigh = 7\n')


@pytest.mark.parametrize("analysis,data,kept", [(LEARN_STOP, "learned-2p.json", []),
                                               (TUNE, "trials.parquet", ["study.sqlite3"])])
def test_a_full_disk_at_an_analysis_data_file_is_one_line_and_leaves_nothing(tmp_path, monkeypatch, analysis, data,
                                                                             kept):
    """The learned stop table and the tuner's trial table go through the same atomic,
    journalled writes as the figures: a full disk at either is one line, no report file
    left (the tuner keeps its study, on purpose: the same command resumes it)."""
    import errno
    import os

    from sheepsim import fileio

    fsync = os.fsync

    def full_at_the_data(fd):
        if f"/.{data}." in os.readlink(f"/proc/self/fd/{fd}"):
            raise OSError(errno.ENOSPC, "No space left on device")
        fsync(fd)
    monkeypatch.setattr(fileio.os, "fsync", full_at_the_data)
    path = tmp_path / "full.toml"
    path.write_text(analysis)
    reports = tmp_path / "reports"
    assert_bad(run("run", str(path), "--reports", str(reports), "-q"), f"{data}: No space left on device")
    assert [p.name for p in reports.rglob("*") if p.is_file()] == kept


# --- summarize checks the manifest it reads ---------------------------------------------

@pytest.mark.parametrize("edit,needle", [
    ({"seed": 99.5}, "seed 99.5 is not a whole number"),
    ({"games": -5}, "games -5 is not a positive whole number"),
    ({"chunk_size": 0}, "chunk_size 0 is not a positive whole number"),
    ({"policies": "random"}, "policies 'random' is not a list of policy SPECs"),
    ({"chunks": None}, "it lists no chunks with their checksums"),
    ({"chunks": {"0": {"file": "../elsewhere.parquet", "sha256": "0"}}}, "chunk entry '0' is not an index"),
])
def test_summarize_refuses_an_edited_manifest(finished, tmp_path, edit, needle):
    import json
    copy = tmp_path / "copy"
    shutil.copytree(finished, copy)
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest.update(edit)
    if manifest["chunks"] is None:
        del manifest["chunks"]
    (copy / "manifest.json").write_text(json.dumps(manifest))
    assert_bad(run("summarize", str(copy)), "manifest.json was edited or damaged", needle, "new --out folder")


@pytest.mark.parametrize("kind", KINDS)
def test_every_analysis_kind_follows_the_one_protocol(kind):
    """run_file drives every kind the same way (analysis/definition.py Kind): its keys, a
    plan of (spec, scale), a run of (spec, plan, reports, threads, progress, command) that
    returns data, the data class its layout declares in report/layouts/, and that layout
    of (spec, data, figures, command), which makes the report."""
    import dataclasses
    import inspect
    import typing

    from sheepsim.analysis.definition import COMMON, Kind, kind_module
    module = kind_module(kind)
    assert isinstance(module, Kind)
    assert isinstance(module.KEYS, tuple) and not set(module.KEYS) & COMMON
    assert len(inspect.signature(module.plan).parameters) == 2
    run_params = list(inspect.signature(module.run).parameters)
    assert len(run_params) == 6 and run_params[2:] == ["reports", "threads", "progress", "command"]
    assert inspect.signature(module.run).parameters["command"].default == ""
    layout = module.layout
    assert layout.__module__.startswith("sheepsim.report.layouts."), layout.__module__
    assert list(inspect.signature(layout).parameters) == ["spec", "data", "figures", "command"]
    returned = typing.get_type_hints(module.run)["return"]
    assert dataclasses.is_dataclass(returned) and returned.__module__ == layout.__module__, returned
    assert typing.get_type_hints(layout)["data"] is returned
    assert typing.get_type_hints(layout)["return"].__name__ == "Report"
