"""Per-game results on disk: one Parquet file per chunk plus a manifest (DESIGN 5).

    OUT/manifest.json          what was run (game, version, rules, policies, seed,
                               games, chunk size, start position, versions)
    OUT/chunk-000000.parquet   games [0, chunk), written atomically

A folder holds one run. Re-running the same command into it resumes: finished
chunks are kept and skipped, so the end result is identical to an uninterrupted run.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import SheepsimError
from ..fileio import write_atomic

MANIFEST = "manifest.json"


def chunk_path(out: Path, index: int) -> Path:
    return out / f"chunk-{index:06d}.parquet"


def prepare_folder(out: Path, manifest: dict[str, Any]) -> set[int]:
    """Check the folder can be written and holds no other run; return finished chunks."""
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = tempfile.NamedTemporaryFile(dir=out, prefix=".probe-", delete=True)
        probe.close()
    except OSError as exc:
        raise SheepsimError(f"cannot write to output folder {out}: {exc.strerror}; choose a writable --out")
    existing = out / MANIFEST
    if existing.exists():
        try:
            old = json.loads(existing.read_text())
        except (OSError, json.JSONDecodeError):
            raise SheepsimError(f"{existing} is unreadable; choose an empty --out folder")
        if _identity(old) != _identity(manifest):
            raise SheepsimError(f"{out} holds a different run ({old.get('game')}, seed {old.get('seed')}, "
                                f"{old.get('games')} games); choose an empty --out folder")
        return {i for i in range(_chunks(manifest)) if chunk_path(out, i).exists()}
    if any(out.glob("chunk-*.parquet")):
        raise SheepsimError(f"{out} holds chunk files but no manifest; choose an empty --out folder")
    write_json(existing, manifest)
    return set()


def _identity(m: dict[str, Any]) -> dict[str, Any]:
    """The fields that determine the results (not timestamps or package versions)."""
    keys = ("game", "game_version", "rules", "policies", "seed", "games", "chunk_size", "rotate", "start_position")
    return {k: m.get(k) for k in keys}


def _chunks(manifest: dict[str, Any]) -> int:
    return -(-manifest["games"] // manifest["chunk_size"])


def write_json(path: Path, data: Any) -> None:
    write_atomic(path, json.dumps(data, indent=1, sort_keys=True) + "\n")


def write_chunk(out: Path, index: int, df: pd.DataFrame, manifest: dict[str, Any]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pandas(df, preserve_index=False)
    table = table.replace_schema_metadata({**(table.schema.metadata or {}),
                                           b"sheepsim": json.dumps(manifest, sort_keys=True).encode()})
    final = chunk_path(out, index)
    fd, tmp = tempfile.mkstemp(dir=out, prefix=f".{final.name}.")
    os.close(fd)
    try:
        pq.write_table(table, tmp)
        os.replace(tmp, final)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_results(out: str | Path) -> tuple[pd.DataFrame, dict[str, Any]]:
    """All finished chunks of a run folder, in game order, and its manifest."""
    out = Path(out)
    try:
        manifest = json.loads((out / MANIFEST).read_text())
    except (OSError, json.JSONDecodeError):
        raise SheepsimError(f"{out} is not a sheepsim results folder (no readable {MANIFEST})")
    files = sorted(out.glob("chunk-*.parquet"))
    df = pd.concat([pd.read_parquet(f) for f in files], ignore_index=True) if files else pd.DataFrame()
    return df, manifest
