"""Results on disk: one file per chunk plus a manifest with their checksums.

    OUT/manifest.json          what was run (game, version, rules, policies, seed, games,
                               chunk size, mode, start position, versions) and, under
                               "chunks", {index: {file, sha256, bytes, games}} of every
                               finished chunk; "status" running, complete, or failed with
                               the "error" that stopped it (resume redoes nothing it kept)
    OUT/chunk-000000.parquet   rows mode: games [0, chunk) one row each
    OUT/chunk-000000.json      aggregate mode: the chunk's counts (results.aggregate)
    OUT/aggregate.json         aggregate mode, once complete: all counts merged
    OUT/.lock                  held (flock) by the process writing the folder

Crash safety: a chunk file is written to a temp file, fsynced and renamed into place;
only then is its checksum added to the manifest (itself replaced atomically). A kill at
any moment therefore leaves every manifest entry pointing at a complete file, or a
chunk without an entry (redone on resume). A file that is missing, truncated or altered
later fails its checksum and is redone too.

A folder holds one run. The same command resumes it; a command with different results
(see IDENTITY) is refused naming what differs. Backend, threads and workers are not part
of the identity: results do not depend on them. The chunk size is stored: it names the
chunk files and, with --ci-halfwidth, where a run may stop. A resume that gives no chunk
size takes the stored one; a different one is refused.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import SheepsimError
from ..fileio import disk_full, write_atomic
from .aggregate import Aggregate

MANIFEST = "manifest.json"
AGGREGATE = "aggregate.json"
LOCK = ".lock"
FORMAT = "sheepsim-run/2"
# The manifest fields that determine the results (not timing, versions or backend).
IDENTITY = ("game", "game_version", "rules", "policies", "seed", "games", "rotate", "start_position",
            "mode", "ci_halfwidth", "metrics")

Payload = pd.DataFrame | Aggregate


def chunk_name(index: int, mode: str) -> str:
    return f"chunk-{index:06d}.{'json' if mode == 'aggregate' else 'parquet'}"


def write_json(path: Path, data: Any) -> None:
    write_atomic(path, json.dumps(data, indent=1, sort_keys=True) + "\n")


def _write_chunk_file(path: Path, data: bytes) -> None:
    """Temp file + rename, without fsync: a kill cannot tear it, and what a power cut
    might (a renamed file with lost contents) fails its checksum and is redone."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with disk_full(path), open(tmp, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _ours(name: str) -> bool:
    """Files a run folder may hold: ours, or temp files of an interrupted write."""
    return (name in (MANIFEST, AGGREGATE, LOCK) or name.startswith(("chunk-", ".chunk-", f".{MANIFEST}.",
                                                                     f".{AGGREGATE}.", ".probe-")))


def _describe_difference(old: dict[str, Any], new: dict[str, Any]) -> str:
    diffs = [k for k in IDENTITY if old.get(k) != new.get(k)]
    return "; ".join(f"{k} {json.dumps(old.get(k))} there, {json.dumps(new.get(k))} here" for k in diffs[:3])


def inspect_folder(out: Path, manifest: dict[str, Any], chunk_size: int | None) -> tuple[dict | None, int | None]:
    """Read-only checks before anything is written: (the folder's manifest or None, the
    chunk size it fixes or None). Refuses files, foreign folders and other runs."""
    try:
        return _inspect(out, manifest, chunk_size)
    except OSError as exc:
        raise SheepsimError(f"cannot read output folder {out}: {exc.strerror}; choose a readable --out")


def _inspect(out: Path, manifest: dict[str, Any], chunk_size: int | None) -> tuple[dict | None, int | None]:
    if out.exists() and not out.is_dir():
        raise SheepsimError(f"cannot write to output folder {out}: it is a file; choose a folder for --out")
    if not out.exists():
        return None, None
    existing = out / MANIFEST
    if not existing.exists():
        foreign = sorted(p.name for p in out.iterdir() if not _ours(p.name))
        chunks = [p.name for p in out.iterdir() if p.name.startswith("chunk-")]
        if foreign:
            raise SheepsimError(f"{out} is not empty and holds no sheepsim run (found {foreign[0]!r}); "
                                f"choose an empty or new --out folder")
        if chunks:
            raise SheepsimError(f"{out} holds chunk files but no manifest; choose an empty --out folder")
        return None, None
    try:
        old = json.loads(existing.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        raise SheepsimError(f"{existing} is unreadable; choose an empty --out folder")
    if not isinstance(old, dict) or "game" not in old or "seed" not in old:
        raise SheepsimError(f"{existing} is not a sheepsim manifest; choose an empty --out folder")
    old.setdefault("mode", "rows")            # written before aggregate mode existed
    old.setdefault("ci_halfwidth", None)
    old.setdefault("metrics", False)          # written before the experience metrics existed
    if any(old.get(k) != manifest.get(k) for k in IDENTITY):
        raise SheepsimError(f"{out} holds a different run ({_describe_difference(old, manifest)}); "
                            f"run the same command to resume it, or choose an empty --out folder")
    stored = old.get("chunk_size")
    if chunk_size is not None and stored is not None and chunk_size != stored:
        raise SheepsimError(f"{out} holds this run in chunks of {stored} games, not {chunk_size}; "
                            f"resume with --chunk-size {stored} (or without --chunk-size)")
    return old, stored


class RunFolder:
    """The folder of one run, locked for writing; records finished chunks in the manifest."""

    def __init__(self, out: Path, manifest: dict[str, Any], old: dict[str, Any] | None):
        self.out, self.manifest = out, manifest
        self.mode = manifest["mode"]
        try:
            out.mkdir(parents=True, exist_ok=True)
            probe = tempfile.NamedTemporaryFile(dir=out, prefix=".probe-", delete=True)
            probe.close()
            self._lock = _lock(out / LOCK)
        except OSError as exc:
            raise SheepsimError(f"cannot write to output folder {out}: {exc.strerror}; choose a writable --out")
        for p in out.iterdir():           # temp files of writes a kill interrupted
            if p.name.startswith((".chunk-", f".{MANIFEST}.", f".{AGGREGATE}.")):
                p.unlink(missing_ok=True)
        # entries of the previous attempt stay until a check fails (then the chunk is redone)
        manifest["chunks"] = dict((old or {}).get("chunks", {}))
        manifest["status"] = "running"
        self.save_manifest()

    def save_manifest(self) -> None:
        write_json(self.out / MANIFEST, self.manifest)

    def load(self, index: int) -> tuple[Payload | None, str]:
        """A finished chunk of the previous attempt, or (None, why it must be redone)."""
        entry = self.manifest["chunks"].get(str(index))
        if entry is None:
            return None, "not finished"
        try:
            data = (self.out / entry["file"]).read_bytes()
            why = "" if hashlib.sha256(data).hexdigest() == entry.get("sha256") else "corrupted"
        except OSError:
            why = "missing"
        if why:
            del self.manifest["chunks"][str(index)]
            return None, why
        return decode(data, self.mode), "ok"

    def save(self, index: int, payload: Payload) -> None:
        """Write one chunk atomically, then record its checksum in the manifest."""
        data = encode(payload, self.mode, {"index": index, **{k: self.manifest.get(k) for k in IDENTITY}})
        name = chunk_name(index, self.mode)
        _write_chunk_file(self.out / name, data)
        games = payload.games if isinstance(payload, Aggregate) else len(payload)
        self.manifest["chunks"][str(index)] = {"file": name, "sha256": hashlib.sha256(data).hexdigest(),
                                               "bytes": len(data), "games": games}
        self.save_manifest()

    def drop_beyond(self, last: int) -> None:
        """Remove chunks after `last` (computed past a sequential stop, or left by one)."""
        for key in [k for k in self.manifest["chunks"] if int(k) > last]:
            del self.manifest["chunks"][key]
        self.save_manifest()              # first forget them, then delete: never an entry without its file
        for p in self.out.glob("chunk-*"):
            if int(p.name[6:12]) > last:
                p.unlink(missing_ok=True)

    def finish(self, aggregate: Aggregate | None) -> None:
        if aggregate is not None:
            write_atomic(self.out / AGGREGATE, aggregate.to_json())
        self.manifest["status"] = "complete"
        self.save_manifest()

    def fail(self, error: str) -> None:
        """Mark the run as stopped by `error` (resume redoes nothing it kept); the error
        itself is what the user hears, so a write that fails here is not reported."""
        self.manifest["status"] = "failed"
        self.manifest["error"] = error
        try:
            self.save_manifest()
        except OSError:
            pass

    def close(self) -> None:
        if self.manifest.get("status") == "complete":
            # a finished run needs no lock file; removed while still held, so no writer
            # can be between its open and its lock
            (self.out / LOCK).unlink(missing_ok=True)
        os.close(self._lock)


def _lock(path: Path) -> int:
    """Hold an exclusive lock on the folder (released by the kernel even on SIGKILL)."""
    import fcntl
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise SheepsimError(f"another sheepsim process is writing to {path.parent}; wait for it or choose "
                            f"another --out folder")
    return fd


def encode(payload: Payload, mode: str, meta: dict[str, Any]) -> bytes:
    """A chunk's stored bytes: Parquet (rows, with `meta` in the schema) or JSON counts."""
    if mode == "aggregate":
        return payload.to_json()
    import pyarrow as pa
    import pyarrow.parquet as pq
    table = pa.Table.from_pandas(payload, preserve_index=False)
    table = table.replace_schema_metadata({**(table.schema.metadata or {}),
                                           b"sheepsim": json.dumps(meta, sort_keys=True).encode()})
    buf = io.BytesIO()
    pq.write_table(table, buf)
    return buf.getvalue()


def decode(data: bytes, mode: str) -> Payload:
    if mode == "aggregate":
        return Aggregate.from_json(data)
    return pd.read_parquet(io.BytesIO(data))


def read_manifest(out: Path) -> dict[str, Any]:
    try:
        manifest = json.loads((out / MANIFEST).read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        raise SheepsimError(f"{out} is not a sheepsim results folder (no readable {MANIFEST})")
    if not isinstance(manifest, dict):
        raise SheepsimError(f"{out / MANIFEST} is not a sheepsim manifest (not a JSON object)")
    manifest.setdefault("mode", "rows")
    # a finished run is read as data (an unfinished one is refused by its status first)
    problem = _manifest_problem(manifest) if manifest.get("status") == "complete" else ""
    if problem:
        raise SheepsimError(f"{out / MANIFEST} was edited or damaged: {problem}; run its simulate command into a "
                            f"new --out folder")
    return manifest


def _whole(value: Any, low: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= low


def _manifest_problem(m: dict[str, Any]) -> str:
    """What is wrong with a manifest's fields as simulate writes them, or "" (the
    chunks' checksums are checked as they are read)."""
    if not isinstance(m.get("game"), str):
        return f"game {m.get('game')!r} is not a game's name"
    if not _whole(m.get("seed"), 0) or m["seed"] > 2**63 - 1:
        return f"seed {m.get('seed')!r} is not a whole number from 0 to 2^63 - 1"
    if not _whole(m.get("games"), 1):
        return f"games {m.get('games')!r} is not a positive whole number"
    if not _whole(m.get("chunk_size"), 1):
        return f"chunk_size {m.get('chunk_size')!r} is not a positive whole number"
    if not (isinstance(m.get("policies"), list) and m["policies"] and all(isinstance(p, str) for p in m["policies"])):
        return f"policies {m.get('policies')!r} is not a list of policy SPECs"
    if m["mode"] not in ("rows", "aggregate"):
        return f"mode {m['mode']!r} is not rows or aggregate"
    rules = m.get("rules")
    if not (isinstance(rules, dict) and _whole(rules.get("num_players"), 1)):
        return "rules has no player count (num_players)"
    chunks = m.get("chunks")
    if not isinstance(chunks, dict):
        return "it lists no chunks with their checksums (the `chunks` table)"
    for key, entry in chunks.items():
        if not (key.isdigit() and isinstance(entry, dict) and isinstance(entry.get("file"), str)
                and isinstance(entry.get("sha256"), str) and Path(entry["file"]).name == entry["file"]):
            return f"chunk entry {key!r} is not an index with its file name and sha256"
    return ""


def _chunks(out: Path, manifest: dict[str, Any]):
    """Verified payloads of the recorded chunks, in game order."""
    entries = manifest["chunks"]      # read_manifest checked it is there
    for key in sorted(entries, key=int):
        entry = entries[key]
        try:
            data = (out / entry["file"]).read_bytes()
        except OSError:
            data = b""
        if hashlib.sha256(data).hexdigest() != entry["sha256"]:
            raise SheepsimError(f"{out / entry['file']} is missing or corrupted; run the same simulate "
                                f"command again to recompute it")
        yield decode(data, manifest["mode"])


def read_results(out: str | Path) -> tuple[pd.DataFrame, dict[str, Any]]:
    """All finished chunks of a rows-mode run folder, in game order, and its manifest."""
    out = Path(out)
    manifest = read_manifest(out)
    if manifest["mode"] == "aggregate":
        raise SheepsimError(f"{out} holds an aggregate-only run (no per-game rows); use read_aggregate")
    frames = list(_chunks(out, manifest))
    df = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    return df, manifest


def read_aggregate(out: str | Path) -> tuple[Aggregate, dict[str, Any]]:
    """The merged counts of an aggregate-mode run folder (finished chunks), and its manifest."""
    out = Path(out)
    manifest = read_manifest(out)
    if manifest["mode"] != "aggregate":
        raise SheepsimError(f"{out} holds per-game rows; use read_results")
    total = Aggregate(manifest["rules"]["num_players"])
    for part in _chunks(out, manifest):
        total.add(part)
    return total, manifest
