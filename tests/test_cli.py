"""CLI: every command's happy path, and every bad input -> one line, exit 2, nothing written."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pytest

from conftest import assert_bad
from conftest import run_cli as run

# A 2-player position in the move phase: one tile, the example of README.md, "Battle Sheep positions".
#      (0,0) .    (1,0) A15
#  (-1,1) A1  (0,1) B16
MOVE_POSITION = {
    "game": "battle-sheep", "version": 1, "coords": "axial", "num_players": 2, "stack_size": 16,
    "phase": "move", "to_move": 0,
    "cells": [{"q": 0, "r": 0, "owner": None, "height": 0}, {"q": 1, "r": 0, "owner": 0, "height": 15},
              {"q": 0, "r": 1, "owner": 1, "height": 16}, {"q": -1, "r": 1, "owner": 0, "height": 1}],
    "tiles": [[[0, 0], [1, 0], [0, 1], [-1, 1]]],
}




def write(tmp_path: Path, data, name="pos.json") -> str:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return str(path)




def test_help_lists_every_command():
    result = run("--help")
    assert result.exit_code == 0
    commands = ("games", "rules", "policies", "simulate", "summarize", "compare", "trace", "legal", "examples", "run",
                "bench", "cache", "check")
    for command in commands:
        assert command in result.output
    for command in commands:
        sub = run(command, "--help")
        assert sub.exit_code == 0 and "Usage:" in sub.output


def test_version_is_the_package_version():
    from importlib.metadata import version

    import sheepsim
    result = run("--version")
    assert result.exit_code == 0
    assert result.output == f"sheepsim, version {sheepsim.__version__}\n" and sheepsim.__version__ == version("sheepsim")


def test_games_rules_policies():
    assert "battlesheep" in run("games").output
    rules = run("rules", "battlesheep")
    for name in ("tiles_per_player", "stack_size", "start_zone", "no_move", "final_tie", "placement_order", "board"):
        assert name in rules.output
    assert "outer_perimeter | any_edge" in rules.output
    data = json.loads(run("rules", "battlesheep", "--json").output)
    assert {o["name"]: o["default"] for o in data["options"]}["start_zone"] == "outer_perimeter"
    policies = run("policies", "battlesheep").output
    assert "random" in policies and "greedy:epsilon=<number>" in policies


def test_simulate_writes_parquet_with_manifest(tmp_path):
    out = tmp_path / "run"
    result = run("simulate", "battlesheep", "-p", "3", "--games", "300", "--policy", "greedy:epsilon=0.5",
                 "--seed", "5", "--out", str(out), "--chunk-size", "128", "-q")
    assert result.exit_code == 0, result.output
    assert "Win rate by seat" in result.output and "[" in result.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["game"] == "battlesheep" and manifest["seed"] == 5 and manifest["games"] == 300
    assert manifest["policies"] == ["greedy:epsilon=0.5"] * 3
    assert manifest["rules"]["num_players"] == 3 and "numba" in manifest["versions"]
    files = sorted(out.glob("chunk-*.parquet"))
    assert len(files) == 3
    df = pd.concat(pd.read_parquet(f) for f in files)
    assert list(df["game"]) == list(range(300))
    assert (df[["score_0", "score_1", "score_2"]].sum(axis=1) > 0).all()


def test_simulate_resume_skips_finished_chunks_and_matches(tmp_path):
    args = ["simulate", "battlesheep", "--games", "200", "--seed", "9", "--chunk-size", "50", "-q"]
    full, part = tmp_path / "full", tmp_path / "part"
    assert run(*args, "--out", str(full)).exit_code == 0
    assert run(*args, "--out", str(part)).exit_code == 0
    (part / "chunk-000002.parquet").unlink()           # an interrupted run lost a chunk
    kept = (part / "chunk-000000.parquet").stat().st_mtime_ns
    assert run(*args, "--out", str(part)).exit_code == 0
    assert (part / "chunk-000000.parquet").stat().st_mtime_ns == kept
    for i in range(4):
        a = pd.read_parquet(full / f"chunk-{i:06d}.parquet")
        b = pd.read_parquet(part / f"chunk-{i:06d}.parquet")
        pd.testing.assert_frame_equal(a, b)


def test_trace_text_and_json():
    text = run("trace", "battlesheep", "--seed", "3", "--game", "2")
    assert text.exit_code == 0
    assert "adds tile" in text.output and "places the starting stack" in text.output and "moves" in text.output
    assert " A16" in text.output or "A16" in text.output
    lines = text.output.splitlines()
    assert lines[0] == "Battle Sheep game 2 of seed 3, 2 players"
    assert lines[1].startswith("rules: every option at its default: tiles_per_player=4, stack_size=16, ")
    assert "{" not in text.output
    events = json.loads(run("trace", "battlesheep", "--seed", "3", "--game", "2", "--json").output)
    assert events[0]["event"] == "start" and events[-1]["event"] == "end"
    assert all("position" in e for e in events[:-1])
    assert events[-2]["position"]["phase"] == "over"


def test_trace_names_the_seats_of_a_shared_result():
    from sheepsim.games.battlesheep.trace import _describe_result
    result = {"winner": -1, "cowinners": [0, 2], "scores": [9, 7, 9], "herds": [6, 7, 6], "tiebreak": True,
              "loser": -1, "moves": 40}
    assert _describe_result(result) == ("Shared result between seats 0 and 2. seat 0: 9 pastures (herd 6), "
                                        "seat 1: 7 pastures (herd 7), seat 2: 9 pastures (herd 6)")


def test_trace_matches_simulate_row(tmp_path):
    out = tmp_path / "r"
    run("simulate", "battlesheep", "-p", "2", "--games", "5", "--seed", "11", "--policy", "greedy",
        "--policy", "random", "--out", str(out), "-q")
    df = pd.read_parquet(out / "chunk-000000.parquet")
    events = json.loads(run("trace", "battlesheep", "-p", "2", "--seed", "11", "--game", "4", "--policy", "greedy",
                            "--policy", "random", "--json").output)
    result = events[-1]["result"]
    row = df[df.game == 4].iloc[0]
    assert result["scores"] == [row.score_0, row.score_1] and result["winner"] == row.winner


def test_legal_lists_moves(tmp_path):
    result = run("legal", write(tmp_path, MOVE_POSITION))
    assert result.exit_code == 0
    moves = json.loads(result.output)
    # seat 0's stack of 15 on (1,0) can only go W to (0,0): 14 split sizes
    assert moves == [{"from": [1, 0], "to": [0, 0], "count": n} for n in range(1, 15)]


def test_legal_takes_the_game_from_the_registry(tmp_path):
    path = write(tmp_path, MOVE_POSITION)
    named = run("legal", path, "--game", "battlesheep")
    assert named.exit_code == 0 and json.loads(named.output) == json.loads(run("legal", path).output)
    assert_bad(run("legal", path, "--game", "pig"), "pig has no position format",
               "sheepsim legal works for: battlesheep")
    assert_bad(run("legal", path, "--game", "chess"), "unknown game 'chess'")


def test_simulate_from_position(tmp_path):
    result = run("simulate", "battlesheep", "--games", "50", "--from-position", write(tmp_path, MOVE_POSITION), "-q")
    assert result.exit_code == 0, result.output
    assert "50 games" in result.output


def _build_position(q0: int, r0: int) -> dict:
    """Seat 1 to build, after seat 0's first tile with its anchor on (q0, r0)."""
    hexes = [(q0, r0), (q0 + 1, r0), (q0, r0 + 1), (q0 + 1, r0 + 1)]
    return {"game": "battle-sheep", "version": 1, "coords": "axial", "num_players": 2, "stack_size": 16,
            "phase": "build", "to_move": 1, "cells": [_cell(q, r) for q, r in hexes]}


# far from the origin, up to the documented limit (tiles built later reach beyond it)
FAR = [(600, 0), (-600, 0), (0, 600), (-510, 509), (999_999, -1_000_000), (-1_000_000, 999_999)]


@pytest.mark.parametrize("q0,r0", FAR)
def test_legal_far_from_the_origin_is_the_translated_origin_list(tmp_path, q0, r0):
    at_origin = json.loads(run("legal", write(tmp_path, _build_position(0, 0), "origin.json")).output)
    far = run("legal", write(tmp_path, _build_position(q0, r0), "far.json"))
    assert far.exit_code == 0, far.output
    moved = [{"tile": [[q + q0, r + r0] for q, r in m["tile"]]} for m in at_origin]
    assert len(at_origin) == 42 and json.loads(far.output) == moved


@pytest.mark.parametrize("q0,r0", [FAR[0], FAR[4], FAR[5]])
def test_simulate_far_from_the_origin_plays_the_same_games(tmp_path, q0, r0):
    # the rules do not depend on where the pasture lies: every game, built by greedy
    # and random tiles, ends exactly as the same games started at the origin
    frames = []
    for name, q, r in (("origin", 0, 0), ("far", q0, r0)):
        out = tmp_path / name
        result = run("simulate", "battlesheep", "--games", "60", "--seed", "4", "--policy", "greedy",
                     "--policy", "random", "--from-position", write(tmp_path, _build_position(q, r), f"{name}.json"),
                     "--out", str(out), "-q")
        assert result.exit_code == 0, result.output
        frames.append(pd.read_parquet(out / "chunk-000000.parquet"))
    assert frames[0]["hexes"].eq(32).all()            # every game built its whole pasture
    pd.testing.assert_frame_equal(frames[0], frames[1])


@pytest.mark.parametrize("args,needles", [
    (["simulate", "chess"], ["unknown game 'chess'", "battlesheep"]),
    (["rules", "chess"], ["unknown game", "valid games"]),
    (["simulate", "battlesheep", "--policy", "smart"], ["unknown battlesheep policy 'smart'", "random, greedy"]),
    (["simulate", "battlesheep", "--policy", "greedy:depth=3"], ["no parameter", "epsilon, opponent"]),
    (["simulate", "battlesheep", "--policy", "greedy:epsilon=x"], ["not a number"]),
    (["simulate", "battlesheep", "-p", "2", "--policy", "random", "--policy", "greedy", "--policy", "random"],
     ["one --policy for all seats or one per seat"]),
    (["simulate", "battlesheep", "-o", "colour=red"], ["battlesheep has no rule option 'colour'", "start_zone"]),
    (["simulate", "battlesheep", "-o", "start_zone=middle"], ["start_zone", "outer_perimeter | any_edge"]),
    (["simulate", "battlesheep", "-o", "stack_size=99"], ["stack_size", "2..32"]),
    (["simulate", "battlesheep", "-o", "stack_size"], ["NAME=VALUE"]),
    (["simulate", "battlesheep", "-p", "3", "-o", "no_move=player_loses"], ["2 players only"]),
    (["simulate", "battlesheep", "-p", "3", "-o", "board=preset:ring-2p"], ["presets that fit", "parallelogram-3p"]),
    (["simulate", "battlesheep", "-p", "1"], ["2-4 players", "not 1"]),
    (["simulate", "battlesheep", "-p", "5"], ["2-4 players", "not 5"]),
    (["simulate", "battlesheep", "--games", "0"], ["--games must be a positive"]),
    (["simulate", "battlesheep", "--games", "-5"], ["--games must be a positive"]),
    (["simulate", "battlesheep", "--threads", "0"], ["--threads"]),
    (["simulate", "battlesheep", "--frobnicate"], ["No such option"]),
    (["run", "analyses/does-not-exist.toml"], ["cannot read analysis file"]),
])
def test_bad_input_is_one_line_exit_2(args, needles):
    assert_bad(run(*args), *needles)


def _cell(q, r, owner=None, height=0):
    return {"q": q, "r": r, "owner": owner, "height": height}


def _variant(**changes):
    pos = json.loads(json.dumps(MOVE_POSITION))
    pos.update(changes)
    return pos


BAD_POSITIONS = [
    ("{not json", ["not valid JSON"]),
    ({"game": "battle-sheep", "num_players": 2}, ["missing field", "stack_size"]),
    (_variant(cells=MOVE_POSITION["cells"] + [_cell(0, 0)]), ["listed twice"]),
    (_variant(cells=[_cell(0, 0), _cell(1, 0, 0, 17), _cell(0, 1, 1, 16), _cell(-1, 1)]), ["height 17", "above"]),
    (_variant(cells=[_cell(0, 0), _cell(1, 0, 0, 15), _cell(0, 1, 5, 16), _cell(-1, 1, 0, 1)]),
     ["owner 5 does not exist", "0..1"]),
    (_variant(cells=MOVE_POSITION["cells"] + [_cell(9, 9)], tiles=None), ["not connected"]),
    (_variant(num_players=7), ["num_players must be 2-4"]),
    (_variant(phase="dance"), ["phase 'dance'", "build, place, move, over"]),
    (_variant(to_move=3), ["to_move must be a seat that can move"]),
    (_variant(tiles=[[[0, 0], [1, 0], [2, 0], [3, 0]]]), ["not a 2x2 rhombus"]),
    (_variant(cells=[_cell(0, 0), _cell(1, 0, 0, 15), _cell(0, 1, 1, 16), _cell(-1, 1, None, 1)]),
     ["owner needs a height"]),
    (_variant(version=2), ["version 2 is not supported", "reads version 1"]),
    (_variant(version="1"), ["version '1' is not supported", "reads version 1"]),
    (_variant(coords="offset"), ["coords 'offset' is not supported", "reads 'axial'"]),
    (_variant(cells=[_cell(2**32, 0)] + MOVE_POSITION["cells"][1:], tiles=None),
     ["cell 0 (4294967296, 0) is outside", "-1000000..1000000"]),
    (_build_position(1_000_000, -1), ["cell 1 (1000001, -1) is outside", "-1000000..1000000"]),
    (_variant(tiles=[[[0, 0], [1, 0], [0, 1], [-1, 10**6 + 1]]]), ["tile 0 hex", "is outside", "-1000000..1000000"]),
]


@pytest.mark.parametrize("data,needles", BAD_POSITIONS)
def test_bad_positions(tmp_path, data, needles):
    path = write(tmp_path, data)
    assert_bad(run("legal", path), *needles)
    out = tmp_path / "never"
    assert_bad(run("simulate", "battlesheep", "--games", "10", "--from-position", path, "--out", str(out)), *needles)
    assert not out.exists()


def test_missing_position_file(tmp_path):
    assert_bad(run("legal", str(tmp_path / "nope.json")), "cannot read position file")


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write anywhere")
def test_unwritable_out_folder_nonroot(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    assert_bad(run("simulate", "battlesheep", "--games", "10", "--out", str(locked / "x")), "cannot write")


def test_out_is_a_file(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert_bad(run("simulate", "battlesheep", "--games", "10", "--out", str(blocker / "sub")), "cannot write")
    assert blocker.read_text() == "x"


def test_out_folder_with_another_run(tmp_path):
    out = tmp_path / "r"
    assert run("simulate", "battlesheep", "--games", "10", "--seed", "1", "--out", str(out), "-q").exit_code == 0
    assert_bad(run("simulate", "battlesheep", "--games", "10", "--seed", "2", "--out", str(out)), "different run")


def test_bad_analysis_files(tmp_path):
    assert_bad(run("run", write(tmp_path, "kind = [", "a.toml")), "not valid TOML")
    assert_bad(run("run", write(tmp_path, 'kind = "magic"\ngame = "battlesheep"', "b.toml")), "unknown analysis kind")
    assert_bad(run("run", write(tmp_path, 'kind = "seat_advantage"\ngame = "battlesheep"\nplayerz = [2]', "c.toml")),
               "unknown key 'playerz'")
    assert_bad(run("run", write(tmp_path, 'kind = "seat_advantage"\ngame = "battlesheep"\nplayers = [7]', "d.toml"),
                   "--reports", str(tmp_path / "rep")), "2-4 players")
    assert not (tmp_path / "rep").exists()


def test_run_small_analysis_writes_report(tmp_path):
    toml = ('name = "tiny"\nkind = "seat_advantage"\ngame = "battlesheep"\nseed = 4\nplayers = [2, 3]\n'
            'policies = ["random", "greedy"]\ngames = 200\n')
    (tmp_path / "rep" / "tiny").mkdir(parents=True)
    (tmp_path / "rep" / "tiny" / "seats.png").write_text("an earlier run's figure")
    result = run("run", write(tmp_path, toml, "tiny.toml"), "--reports", str(tmp_path / "rep"), "-q")
    assert result.exit_code == 0, result.output
    text = (tmp_path / "rep" / "tiny.md").read_text()
    assert "](tiny/seat0-edge.png)" in text and "## Seat advantage" in text and "2p random" in text and "3p greedy" in text and "## Provenance" in text
    for fig in ("seat0-edge.png", "length.png", "scores.png", "margins.png"):
        assert (tmp_path / "rep" / "tiny" / fig).stat().st_size > 1000
    # several policies: seat 0's edge by policy, a line per player count, instead of a
    # whisker group per cell (15 cells made it 2,160 px tall); the per-seat shares stay in a table
    assert not (tmp_path / "rep" / "tiny" / "seats.png").exists()
    spec = json.loads((tmp_path / "rep" / "tiny" / "seat0-edge.json").read_text())
    assert [s["label"] for s in spec["series"]] == ["2 players", "3 players"] and spec["points"]
    assert all(s["x"] == ["random", "greedy"] and s["fair"] == 0 for s in spec["series"])
    edge = [line for line in text.splitlines() if line.startswith("| 3p greedy |")][0].split("|")[4]
    assert abs(100 * spec["series"][1]["y"][1] - float(edge.split()[0])) <= 0.05 + 1e-9     # the table's number


PLUGIN = '''
from numba import njit
from sheepsim.policies import register_policy
from sheepsim.games.battlesheep import engine as E

@register_policy("battlesheep", "last-legal", doc="always the last legal action")
@njit
def last_legal(s, rules, aux, seat, params, rng, buf):
    n = E.legal_actions(s, rules, buf)
    return buf[n - 1, 0], buf[n - 1, 1], buf[n - 1, 2], buf[n - 1, 3]
'''


def test_plugin_registers_a_policy_for_the_cli(tmp_path):
    plugin = write(tmp_path, PLUGIN, "lastlegal.py")
    listed = run("--plugin", plugin, "policies", "battlesheep")
    assert "last-legal  (user)" in listed.output and "always the last legal action" in listed.output
    result = run("--plugin", plugin, "simulate", "battlesheep", "--games", "30", "--policy", "last-legal",
                 "--policy", "random", "-q")
    assert result.exit_code == 0, result.output
    assert "last-legal" in result.output and "Win rate by policy" in result.output


def test_bad_plugins(tmp_path):
    assert_bad(run("--plugin", str(tmp_path / "none.py"), "games"), "does not exist")
    assert_bad(run("--plugin", write(tmp_path, "import not_a_module_xyz", "broken.py"), "games"),
               "failed to import", "ModuleNotFoundError")
