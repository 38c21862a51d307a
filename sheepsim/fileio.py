"""Atomic file writes: readers never see half a file, and a failed write leaves none.

A full disk (or quota, or an I/O error) is no bad input, but it is no defect either:
`disk_full` turns it into one line at every write site, and `all_or_nothing` removes
again the files a failed command wrote, and puts back the ones it replaced, so no
figure sits without its report and a failed remake leaves the old report whole.
"""

from __future__ import annotations

import errno
import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path

from .errors import SheepsimError

# errors of the disk, not of the path the user chose
FULL = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EIO})

# the files written inside each open all_or_nothing: {file: its backup, None if it is new}
_journals: list[dict[Path, Path | None]] = []


@contextmanager
def disk_full(path: str | os.PathLike[str]):
    """A full disk while writing `path` as one line naming it (other OSErrors pass)."""
    try:
        yield
    except OSError as exc:
        if exc.errno not in FULL:
            raise
        raise SheepsimError(f"cannot write {path}: {exc.strerror or os.strerror(exc.errno)}; free some space "
                            f"(or choose another folder) and run the command again") from None


@contextmanager
def all_or_nothing():
    """Files written through write_atomic inside the block are removed if it fails, and
    the files they replaced put back, so a command leaves all of its output or none of it
    (and a failed remake, the report as it was)."""
    journal: dict[Path, Path | None] = {}
    _journals.append(journal)
    try:
        yield
    except BaseException:
        for path, backup in journal.items():
            if backup is None:
                path.unlink(missing_ok=True)
            else:
                os.replace(backup, path)
        raise
    else:
        for backup in journal.values():
            if backup is not None:
                backup.unlink(missing_ok=True)
    finally:
        _journals.remove(journal)


@contextmanager
def resumable():
    """Files written inside the block stay when an enclosing all_or_nothing fails: work
    the command resumes when run again (analysis/converge.py's run folders), not its
    output. A run folder is whole at every moment (results/store.py), so it may stay."""
    outer = _journals[:]
    _journals.clear()
    try:
        yield
    finally:
        _journals[:] = outer


def _keep_before(target: Path) -> None:
    """Before write_atomic replaces `target` inside an all_or_nothing, keep the file as it
    was (a hard link beside it: no copy, no space) for the block to put back."""
    for depth, journal in enumerate(_journals):      # each open block its own backup
        if target in journal:
            continue                      # written before in this block: its first backup stands
        backup = None
        if target.exists():
            backup = target.with_name(f".{target.name}.before-{depth}")
            backup.unlink(missing_ok=True)
            try:
                os.link(target, backup)
            except OSError:               # a file system without hard links
                shutil.copy2(target, backup)
        journal[target] = backup


def write_atomic(path: str | os.PathLike[str], data: str | bytes) -> Path:
    """Write via a temp file in the same folder and os.replace, so readers never see half a file."""
    target = Path(path)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    with disk_full(target):
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
        try:
            # mkstemp makes the file private (0600); reports are meant to be read and shared.
            os.chmod(tmp, 0o644)
            with os.fdopen(fd, "wb") as fh:
                fh.write(payload)
                fh.flush()
                os.fsync(fh.fileno())
            _keep_before(target)
            os.replace(tmp, target)
        except BaseException:
            os.unlink(tmp)
            raise
    return target


def check_new_file(path: str | os.PathLike[str], option: str, force: bool, example: str) -> None:
    """Fail before any work if `option`'s FILE cannot be written, or would replace a file
    or create folders the user did not ask for (`force` allows both)."""
    path = Path(path)
    parent = path.parent
    if path.is_dir():
        raise SheepsimError(f"{option} {path} is a folder; give a file name, e.g. {option} {path / example}")
    if parent.exists() and not parent.is_dir():
        raise SheepsimError(f"cannot write {option} {path}: {parent} is a file, not a folder; write it elsewhere")
    if not parent.exists():
        if force:
            return                  # write_atomic creates the folders
        raise SheepsimError(f"cannot write {option} {path}: the folder {parent} does not exist; create it "
                            f"(mkdir -p {parent}) or give --force")
    if path.exists() and not force:
        raise SheepsimError(f"{option} {path} exists; give --force to replace it, or another file name")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise SheepsimError(f"cannot write {option} {path}: the folder {parent} is not writable; write it elsewhere")
