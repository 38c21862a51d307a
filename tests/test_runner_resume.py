"""Real processes: a run killed with SIGKILL resumes to the uninterrupted result without
redoing a finished chunk; aggregate mode's peak memory does not grow with the games."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import pandas as pd

from conftest import run_cli as run
from sheepsim.games import get_game
from sheepsim.policies import seat_specs
from sheepsim.results.store import read_results
from sheepsim.runner import simulate

def assert_same_frame(a: pd.DataFrame, b: pd.DataFrame) -> None:
    """Bit-identical frames: same columns, dtypes (categories included) and values
    (DataFrame.equals is vectorised; assert_frame_equal walks categoricals row by row)."""
    assert list(a.columns) == list(b.columns)
    assert a.dtypes.to_dict() == b.dtypes.to_dict()
    assert a.equals(b)



def _sheepsim(*args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "sheepsim.cli", *args], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)


def _recorded(out) -> dict:
    try:
        return json.loads((out / "manifest.json").read_text())["chunks"]
    except (OSError, ValueError, KeyError):
        return {}


def test_sigkill_then_same_command_resumes_to_the_uninterrupted_result(tmp_path):
    out = tmp_path / "run"
    args = ["simulate", "battlesheep", "--games", "100000", "--chunk-size", "2500", "--seed", "4",
            "--out", str(out), "-q"]
    proc = _sheepsim(*args, "--threads", "1")
    deadline = time.monotonic() + 120
    while len(_recorded(out)) < 5 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    assert proc.wait() == -signal.SIGKILL, proc.stderr.read().decode()
    done = _recorded(out)
    assert 5 <= len(done) < 40, "the kill should land mid-run"
    stamps = {e["file"]: ((out / e["file"]).stat().st_ino, (out / e["file"]).stat().st_mtime_ns)
              for e in done.values()}
    resumed = run(*args)
    assert resumed.exit_code == 0, resumed.output
    assert f"{len(done)} resumed" in resumed.output
    for name, stamp in stamps.items():         # finished chunks were not redone
        path = out / name
        assert (path.stat().st_ino, path.stat().st_mtime_ns) == stamp
    assert not list(out.glob(".chunk-*")), "temp files of the killed write are cleaned up"
    game = get_game("battlesheep")
    specs = seat_specs(game.name, ["random"], 2)
    whole = simulate(game, game.make_rules(2, {}), specs, 100000, 4, chunk_size=50000)
    df, manifest = read_results(out)
    assert manifest["status"] == "complete" and len(manifest["chunks"]) == 40
    assert_same_frame(df, whole.results)


def test_aggregate_peak_memory_is_flat_in_the_number_of_games(tmp_path):
    peaks = {}
    for games in (20_000, 200_000):
        out = tmp_path / f"agg{games}"
        proc = _sheepsim("simulate", "pig", "--games", str(games), "--chunk-size", "4000", "--aggregate",
                         "--threads", "1", "--out", str(out), "-q")
        assert proc.wait() == 0, proc.stderr.read().decode()
        manifest = json.loads((out / "manifest.json").read_text())
        assert manifest["played"] == games
        peaks[games] = manifest["peak_rss_mb"]
    # 10x the games (5 vs 50 chunks): the same peak within allocator noise
    assert peaks[200_000] < peaks[20_000] + 20, peaks
