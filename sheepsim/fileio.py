"""Atomic file writes: readers never see half a file, and a failed write leaves none.

A full disk (or quota, or an I/O error) is no bad input, but it is no defect either:
`disk_full` turns it into one line at every write site, and `all_or_nothing` removes
again the files a failed command wrote, so no figure sits without its report.
"""

from __future__ import annotations

import errno
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path

from .errors import SheepsimError

# errors of the disk, not of the path the user chose
FULL = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EIO})

_journals: list[list[Path]] = []      # the files written inside each open all_or_nothing


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
    """Files written through write_atomic inside the block are removed if it fails, so a
    command leaves all of its output or none of it."""
    journal: list[Path] = []
    _journals.append(journal)
    try:
        yield
    except BaseException:
        for path in journal:
            path.unlink(missing_ok=True)
        raise
    finally:
        _journals.remove(journal)


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
            os.replace(tmp, target)
        except BaseException:
            os.unlink(tmp)
            raise
    for journal in _journals:
        journal.append(target)
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
