"""Reports keep their scale: an analysis file records the scale its committed report is
made at, `sheepsim run` runs at it, `--only-changed` (what `make reports` runs) keeps a
report whose inputs are unchanged and says why it remakes one, and another scale writes
beside the committed report, never over it."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from sheepsim.analysis import inputs
from sheepsim.analysis.definition import load
from conftest import assert_bad, run_cli as run

REPO = Path(__file__).resolve().parent.parent

ANALYSIS = '''# a comment
kind = "seat_advantage"
game = "pig"
name = "pig-scaled"
scale = 2
games = 100
players = [2]
policies = ["random"]
'''


def _ok(*args):
    result = run(*args)
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture
def made(tmp_path, monkeypatch):
    """The analysis run once at its own scale, from a working folder of its own."""
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "pig-scaled.toml"
    path.write_text(ANALYSIS)
    out = _ok("run", str(path), "-q")
    assert "report: reports/pig-scaled.md" in out.splitlines()
    return path


def test_run_uses_the_files_scale_and_records_its_inputs(made, tmp_path):
    report = tmp_path / "reports" / "pig-scaled.md"
    record = json.loads((tmp_path / "reports" / "pig-scaled" / "inputs.json").read_text())
    assert record["scale"] == 2
    assert record["analysis"] == inputs.spec_hash(load(made))
    # the sources it read, the engine and the report's own modules among them
    assert "sheepsim/games/pig/engine.py" in record["sources"]
    assert "sheepsim/analysis/seat_advantage.py" in record["sources"]
    assert "sheepsim/cli.py" not in record["sources"]
    # the command it gives to remake it is the plain one: the scale is the file's
    assert "- **command**: sheepsim run pig-scaled.toml\n" in report.read_text()


def test_only_changed_keeps_a_current_report_and_says_so(made, tmp_path):
    report = tmp_path / "reports" / "pig-scaled.md"
    before = report.stat().st_mtime_ns
    out = _ok("run", str(made), "--only-changed")
    assert "kept reports/pig-scaled.md: made at --scale 2 from this analysis file and unchanged sources" in out
    assert report.stat().st_mtime_ns == before
    # a comment is not an input
    made.write_text("# another comment\n" + ANALYSIS)
    assert "kept reports/pig-scaled.md" in _ok("run", str(made), "--only-changed", "-q")
    assert report.stat().st_mtime_ns == before


def test_only_changed_remakes_a_report_and_says_why(made, tmp_path):
    made.write_text(ANALYSIS.replace("games = 100", "games = 120"))
    out = _ok("run", str(made), "--only-changed", "-q")
    assert "making reports/pig-scaled.md at --scale 2 (the analysis file changed)" in out
    assert "kept reports/pig-scaled.md" in _ok("run", str(made), "--only-changed", "-q")
    # a source it was made from, edited: the record's hash no longer matches the file
    record_path = tmp_path / "reports" / "pig-scaled" / "inputs.json"
    record = json.loads(record_path.read_text())
    record["sources"]["sheepsim/games/pig/engine.py"] = "0" * 64
    record_path.write_text(json.dumps(record))
    out = _ok("run", str(made), "--only-changed", "-q")
    assert "(sources changed: sheepsim/games/pig/engine.py)" in out
    # no record at all (a report made before records were kept)
    record_path.unlink()
    assert "(no record of what it was made from)" in _ok("run", str(made), "--only-changed", "-q")


def test_another_scale_writes_beside_the_committed_report(made, tmp_path):
    report = tmp_path / "reports" / "pig-scaled.md"
    before = report.read_text()
    out = _ok("run", str(made), "--scale", "0.5", "-q")
    assert ("report: reports/quick-look/pig-scaled.md (a quick look at --scale 0.5: intervals are wider than "
            "the committed report's, made at --scale 2)") in out
    out = _ok("run", str(made), "--scale", "4", "-q")
    assert "report: reports/scale-4/pig-scaled.md (at --scale 4, beside the committed report" in out
    assert (tmp_path / "reports" / "scale-4" / "pig-scaled.md").is_file()
    assert "- **command**: sheepsim run pig-scaled.toml --scale 4\n" in (
        tmp_path / "reports" / "scale-4" / "pig-scaled.md").read_text()
    assert report.read_text() == before
    assert json.loads((tmp_path / "reports" / "pig-scaled" / "inputs.json").read_text())["scale"] == 2


def test_a_smaller_run_never_replaces_a_larger_report_unless_forced(made, tmp_path):
    report = tmp_path / "reports" / "pig-scaled.md"
    before = report.read_text()
    assert_bad(run("run", str(made), "--scale", "1", "--reports", "reports"),
               "reports/pig-scaled.md was made at --scale 2; this run at --scale 1 would replace it with a "
               "smaller one: write it elsewhere (--reports DIR) or pass --force")
    assert report.read_text() == before
    _ok("run", str(made), "--scale", "1", "--reports", "reports", "--force", "-q")
    assert json.loads((tmp_path / "reports" / "pig-scaled" / "inputs.json").read_text())["scale"] == 1


@pytest.mark.parametrize("value,needle", [
    ("0", "`scale` must be a number above 0 and at most 1000, not 0"),
    ('"big"', "`scale` must be a number above 0 and at most 1000, not 'big'"),
    ("5000", "`scale` must be a number above 0 and at most 1000, not 5000"),
])
def test_a_bad_scale_is_one_line(tmp_path, value, needle):
    path = tmp_path / "bad.toml"
    path.write_text(ANALYSIS.replace("scale = 2", f"scale = {value}"))
    assert_bad(run("run", str(path), "--reports", str(tmp_path / "reports")), needle)
    assert not (tmp_path / "reports").exists()


def test_the_large_reports_record_their_scale_in_their_files():
    scales = {path.stem: tomllib.loads(path.read_text()).get("scale", 1)
              for path in (REPO / "analyses").glob("*.toml")}
    assert scales["battlesheep-strong-play"] == 10
    assert scales["battlesheep-strong-play-board"] == 10
    assert scales["pig-converge"] == 10
    assert scales["blacksheep-skill-ladder"] == 25
    assert scales["pig-learned-stop"] == 20


@pytest.mark.parametrize("path", sorted((REPO / "analyses").glob("*.toml")), ids=lambda p: p.stem)
def test_every_committed_report_was_made_from_its_analysis_file_at_its_scale(path):
    """What `make reports` keeps on a fresh clone: each analysis file's report is
    committed with its record, made from this very file at the scale it states, and with
    its saved data (report.json), so that the site draws it. (Sources are not compared
    here: an engine edit stales reports by design, and `make reports` says which.)"""
    spec = load(path)
    report = REPO / "reports" / f"{spec['name']}.md"
    assert report.is_file(), f"{path.name}: no committed report {report.name}"
    made = inputs.read(report.with_suffix(""))
    assert made is not None, f"{report.name} has no inputs.json: make reports could not keep it"
    assert made["analysis"] == inputs.spec_hash(spec), f"{report.name} was made from another version of {path.name}"
    assert made["scale"] == spec.get("scale", 1), f"{report.name} was made at --scale {made['scale']}"
    assert (report.with_suffix("") / "report.json").is_file(), f"{report.name} has no saved data for the site"
