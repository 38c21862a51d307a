"""`sheepsim --time-limit SECONDS ...`: the command in a watched child process.

A policy runs as compiled code in sheepsim's process: a plugin that never returns
cannot be interrupted there (not even by Ctrl-C: numba holds the interpreter), and one
that writes outside its arrays kills the process with no message. A second process
can do what the first cannot: it starts the same command as a child, and

- stops it when no chunk has finished for SECONDS (`simulate` beats after every chunk;
  other commands are timed as a whole): the loop a plugin got stuck in;
- names the signal a crashed child died of (SIGSEGV: memory outside an array);
- kills it on Ctrl-C, which the child itself would not hear inside compiled code.

Each is one line and exit status 2 (130 for Ctrl-C), and a `--out` folder the child was
writing is marked failed with the reason, its finished chunks kept: the same command
resumes. The child's own output passes through unchanged; its exit status is the
command's.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# set in the child: the file whose modification time is its heartbeat, and whose text
# names the --out folder it writes (empty: none)
HEARTBEAT = "SHEEPSIM_HEARTBEAT"
POLL = 0.1          # seconds between looks at the child


def watched() -> bool:
    """True in the child of a --time-limit command."""
    return bool(os.environ.get(HEARTBEAT))


def beat(out: Path | None = None) -> None:
    """In the child: the command made progress (and writes to `out`, when given)."""
    path = os.environ.get(HEARTBEAT)
    if not path:
        return
    if out is not None:
        Path(path).write_text(str(Path(out).resolve()))
    os.utime(path)


def child_args(given: list[str]) -> list[str]:
    """The command line without --time-limit (the child does the work, unwatched by itself)."""
    rest, i = [], 0
    while i < len(given):
        if given[i] == "--time-limit":
            i += 2
            continue
        if not given[i].startswith("--time-limit="):
            rest.append(given[i])
        i += 1
    return rest


def supervise(command: list[str], limit: float, stderr=None) -> int:
    """Run `command` (a child process) under the watch described above; its exit status,
    or 2 after a one-line error on `stderr` (default sys.stderr)."""
    stderr = stderr or sys.stderr
    fd, heartbeat = tempfile.mkstemp(prefix="sheepsim-heartbeat-")
    os.close(fd)
    try:
        child = subprocess.Popen(command, env={**os.environ, HEARTBEAT: heartbeat})
        try:
            why = _watch(child, Path(heartbeat), limit)
        except KeyboardInterrupt:
            _stop(child)
            _mark_failed(Path(heartbeat), "interrupted (Ctrl-C)")
            print("interrupted: the command is stopped; with --out, its finished chunks are kept and the same "
                  "command resumes", file=stderr)
            return 130
        if why is None:
            code = child.returncode
            if code >= 0:
                return code
            name = _signal_name(-code)
            why = (f"the command died of {name}" + (
                   " (a crash in compiled code: a plugin policy reading or writing outside its arrays?); run it "
                   "once in checked mode to find it: SHEEPSIM_CHECKED=1 NUMBA_BOUNDSCHECK=1 sheepsim ..."
                   if -code in (signal.SIGSEGV, signal.SIGBUS) else ""))
        _mark_failed(Path(heartbeat), why)
        print(f"error: {why}; with --out, its finished chunks are kept and the folder says why; the same "
              f"command resumes", file=stderr)
        return 2
    finally:
        os.unlink(heartbeat)


def _watch(child: subprocess.Popen, heartbeat: Path, limit: float) -> str | None:
    """Wait for the child; None when it ended by itself, else why it was stopped."""
    while child.poll() is None:
        idle = time.time() - heartbeat.stat().st_mtime
        if idle > limit:
            _stop(child)
            return (f"nothing finished in {limit:g} s (--time-limit {limit:g}): a policy that never returns? "
                    f"(the first chunk's time includes compiling the kernels)")
        time.sleep(POLL)
    return None


def _stop(child: subprocess.Popen) -> None:
    # SIGKILL: a gentler signal waits for the interpreter, which compiled code never returns to
    child.kill()
    child.wait()


def _mark_failed(heartbeat: Path, why: str) -> None:
    """Mark the child's --out folder failed with `why` (its lock died with the child)."""
    import json

    from .results.store import MANIFEST, write_json
    text = heartbeat.read_text() if heartbeat.exists() else ""
    if not text:
        return
    manifest_path = Path(text) / MANIFEST
    try:
        manifest = json.loads(manifest_path.read_text())
    except (OSError, ValueError):
        return                  # killed before it wrote one: nothing says "running"
    if manifest.get("status") == "running":
        manifest["status"], manifest["error"] = "failed", why
        write_json(manifest_path, manifest)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
