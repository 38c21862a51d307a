"""`sheepsim --time-limit`: a command in a watched child process (sheepsim/watchdog.py).
The watch itself is tested on small Python children (fast, exact timing); the command
line on a plugin that crashes the process and one that never returns."""

import io
import json
import os
import subprocess
import sys
import time

import pytest

from sheepsim import watchdog


def _child(code: str) -> list[str]:
    return [sys.executable, "-c", code]


BEATS = ("import os, time\n"
         "for _ in range(8):\n"
         "    time.sleep(0.25)\n"
         "    os.utime(os.environ['SHEEPSIM_HEARTBEAT'])\n")


def test_a_child_that_keeps_beating_runs_past_the_limit_and_keeps_its_exit_status():
    err = io.StringIO()
    start = time.time()
    assert watchdog.supervise(_child(BEATS + "raise SystemExit(3)"), 1.0, err) == 3
    assert time.time() - start > 1.9 and err.getvalue() == ""          # 2 s in all, 0.25 s between beats


def test_a_child_that_stops_beating_is_stopped_in_one_line():
    err = io.StringIO()
    start = time.time()
    assert watchdog.supervise(_child(BEATS + "time.sleep(60)"), 1.0, err) == 2
    assert 2.9 < time.time() - start < 20
    lines = err.getvalue().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: nothing finished in 1 s (--time-limit 1)")


def test_a_crash_is_named_and_its_folder_marked_failed(tmp_path):
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps({"status": "running", "chunks": {"0": {}}}))
    crash = (f"import os, signal, pathlib\n"
             f"pathlib.Path(os.environ['SHEEPSIM_HEARTBEAT']).write_text({str(tmp_path)!r})\n"
             f"os.kill(os.getpid(), signal.SIGSEGV)\n")
    err = io.StringIO()
    assert watchdog.supervise(_child(crash), 30, err) == 2
    assert err.getvalue().startswith("error: the command died of SIGSEGV (a crash in compiled code")
    assert "SHEEPSIM_CHECKED=1 NUMBA_BOUNDSCHECK=1" in err.getvalue() and len(err.getvalue().splitlines()) == 1
    saved = json.loads(manifest.read_text())
    assert saved["status"] == "failed" and saved["error"].startswith("the command died of SIGSEGV")
    assert saved["chunks"] == {"0": {}}                     # its chunks kept, for the same command to resume


@pytest.mark.parametrize("given,child", [
    (["--time-limit", "5", "simulate", "pig"], ["simulate", "pig"]),
    (["--plugin", "p.py", "--time-limit=5", "trace", "pig"], ["--plugin", "p.py", "trace", "pig"]),
])
def test_the_child_runs_the_command_without_the_time_limit(given, child):
    assert watchdog.child_args(given) == child


LOOPS = '''
from numba import njit
from sheepsim.policies import register_policy

@register_policy("pig", "loops", doc="never returns")
@njit
def loops(s, rules, aux, seat, params, rng, buf):
    n = 0
    while s[0] >= 0:
        n += 1
    return n
'''


def _sheepsim(*args, cwd):
    return subprocess.run([sys.executable, "-c", "from sheepsim.cli import main; main()", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=600, env={**os.environ, "COLUMNS": "200"})


def test_a_plugin_that_never_returns_is_stopped_and_its_folder_marked_failed(tmp_path):
    (tmp_path / "loops.py").write_text(LOOPS)
    done = _sheepsim("--plugin", "loops.py", "--time-limit", "3", "simulate", "pig", "-n", "400", "--chunk-size",
                     "100", "--policy", "loops", "--policy", "random", "--out", "run", "-q", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith("error: nothing finished in 3 s (--time-limit 3)")
    manifest = tmp_path / "run" / "manifest.json"
    if manifest.exists():               # killed after the runner opened the folder: it says why
        saved = json.loads(manifest.read_text())
        assert saved["status"] == "failed" and "--time-limit 3" in saved["error"]


def test_a_watched_command_that_ends_well_says_what_it_would_unwatched(tmp_path):
    args = ["simulate", "pig", "-n", "300", "--policy", "hold:t=20", "--policy", "random", "--seed", "4", "-q"]
    plain = _sheepsim(*args, cwd=tmp_path)
    watched = _sheepsim("--time-limit", "300", *args, cwd=tmp_path)
    assert plain.returncode == watched.returncode == 0, watched.stderr
    def numbers(out):                   # all but the timing line
        return [line for line in out.splitlines() if "games/s" not in line]
    assert numbers(watched.stdout) == numbers(plain.stdout) and "slot 0 hold" in plain.stdout
