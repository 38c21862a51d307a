"""numba's disk cache, in a folder keyed by the package's sources.

numba checks a cached kernel only against the file that defines it: after an edit to
engine.py, a kernel cached from a file that inlines engine code still loads, and
runs the old code. So the whole cache lives in a folder named after a hash of every
.py file of the package (path and contents) and of the numba build: any edit, or
another numba, gives a new, empty folder, and nothing stale can load. The price is a
cold compile after every edit to any file of the package.

Layout: ROOT/<KEY_LENGTH hex digits>/... with ROOT = $XDG_CACHE_HOME/sheepsim or
~/.cache/sheepsim. A NUMBA_CACHE_DIR the user set wins and is left alone.
Standard library only: `configure` runs at `import sheepsim`, before numba is imported.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import sys
from pathlib import Path
from typing import NamedTuple

from .errors import SheepsimError

ENV = "NUMBA_CACHE_DIR"
KEY_LENGTH = 16
PACKAGE = Path(__file__).resolve().parent


def root() -> Path:
    """The folder holding one cache folder per source key."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "sheepsim"


def _numba_build() -> bytes:
    """numba's _version.py (version and git revision), read without importing numba:
    importing it here would fix its cache folder before we choose one, and
    importlib.metadata takes ~40 ms."""
    spec = importlib.util.find_spec("numba")
    if spec is None or spec.origin is None:
        return b""
    try:
        return (Path(spec.origin).parent / "_version.py").read_bytes()
    except OSError:
        return b""


# settings that change compiled code without changing a source file: the checked mode
# of games/fast.py and numba's bounds checking
MODES = ("SHEEPSIM_CHECKED", "NUMBA_BOUNDSCHECK")


def key(package: Path = PACKAGE) -> str:
    """Hash of every .py file under `package` (path relative to it, and contents), of
    the numba build and of the MODES settings. Relative paths: two checkouts of the
    same sources share a key (numba separates their files by absolute path inside the
    folder)."""
    h = hashlib.sha256(_numba_build())
    h.update(repr([os.environ.get(m, "") for m in MODES]).encode())
    files = []
    # os.walk and plain strings: a pathlib walk takes twice the time of the hashing
    for dirpath, dirnames, names in os.walk(package):
        dirnames[:] = [d for d in dirnames if d != "__pycache__"]
        rel_dir = os.path.relpath(dirpath, package).replace(os.sep, "/")
        files += [(f"{rel_dir}/{n}", os.path.join(dirpath, n)) for n in names if n.endswith(".py")]
    for rel, path in sorted(files):
        with open(path, "rb") as f:
            data = f.read()
        # lengths delimit the fields, so no two different inputs hash the same stream
        name = rel.encode()
        h.update(b"%d:%s%d:" % (len(name), name, len(data)))
        h.update(data)
    return h.hexdigest()[:KEY_LENGTH]


def folder(base: Path | None = None) -> Path:
    """The cache folder of these sources under `base` (default: root())."""
    return (root() if base is None else base) / key()


def use(path: Path) -> None:
    """Make numba cache in `path`. Through the environment (numba reads it at import
    and again before each compile), and into numba's config too when numba is already
    imported (its cached functions pick their folder when they are decorated)."""
    os.environ[ENV] = str(path)
    if "numba" in sys.modules:
        sys.modules["numba"].config.CACHE_DIR = str(path)


def configure() -> None:
    """Called at `import sheepsim`: the keyed folder, unless the user set NUMBA_CACHE_DIR.
    Creates nothing; numba makes the folder when it first writes there (and falls back
    to its own default if it cannot)."""
    if not os.environ.get(ENV):
        use(folder())


def in_use() -> Path:
    """The folder numba caches in (configure() has set NUMBA_CACHE_DIR if the user did not)."""
    return Path(os.environ.get(ENV) or folder())


def _managed(path: Path) -> bool:
    """Is `path` sheepsim's own keyed folder for these sources (not one the user named)?"""
    return path.resolve() == folder().resolve()


def _is_key(path: Path) -> bool:
    return (path.is_dir() and len(path.name) == KEY_LENGTH
            and all(c in "0123456789abcdef" for c in path.name))


def _size(path: Path) -> tuple[int, int]:
    """(bytes, files) under path."""
    total = files = 0
    for dirpath, _, names in os.walk(path):
        for name in names:
            try:
                total += os.stat(os.path.join(dirpath, name)).st_size
                files += 1
            except OSError:
                pass        # removed meanwhile by another process
    return total, files


class Folder(NamedTuple):
    path: Path
    bytes: int
    files: int


class Info(NamedTuple):
    current: Folder
    managed: bool           # False: the user's NUMBA_CACHE_DIR is in use
    root: Path
    others: list[Folder]    # the root's other keyed folders: older sources, other numba builds or checkouts


def _folder(path: Path) -> Folder:
    return Folder(path, *_size(path))


def _others(current: Path) -> list[Path]:
    base = root()
    if not base.is_dir():
        return []
    return sorted(p for p in base.iterdir() if _is_key(p) and p.resolve() != current.resolve())


def info() -> Info:
    current = in_use()
    return Info(_folder(current), _managed(current), root(), [_folder(p) for p in _others(current)])


def clear(everything: bool = False) -> list[Folder]:
    """Remove the folder in use (if sheepsim's own) and, with `everything`, every keyed
    folder under root(); returns what was removed. A folder the user named in
    NUMBA_CACHE_DIR is never removed: it may hold more than sheepsim's kernels."""
    current = in_use()
    own = _managed(current)
    if not own and not everything:
        raise SheepsimError(f"{ENV} is set to {current}, a folder sheepsim does not manage; remove it "
                            f"yourself, or use --all to remove sheepsim's own folders under {root()}")
    targets = ([current] if own and current.is_dir() else []) + (_others(current) if everything else [])
    removed = []
    for path in targets:
        entry = _folder(path)
        shutil.rmtree(path, ignore_errors=True)
        removed.append(entry)
    return removed

