"""numba's cache folder (sheepsim/cache.py): keyed by the sources, the user's NUMBA_CACHE_DIR
wins, and `sheepsim cache info / clear` in a temporary cache root."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import assert_bad, run_cli
from sheepsim import cache as C

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def package(tmp_path) -> Path:
    """A copy of the package's sources to edit."""
    copy = tmp_path / "sheepsim"
    shutil.copytree(C.PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def test_key_follows_every_source_file(package):
    key = C.key(package)
    assert key == C.key(C.PACKAGE)          # same sources elsewhere: same key
    assert len(key) == C.KEY_LENGTH
    engine = package / "games" / "battlesheep" / "engine.py"
    engine.write_text(engine.read_text() + "\n# an edit\n")
    edited = C.key(package)
    assert edited != key
    # a new module, and a module moved to another name, are changes too
    (package / "games" / "extra.py").write_text("X = 1\n")
    added = C.key(package)
    assert added != edited
    (package / "games" / "extra.py").rename(package / "games" / "extra2.py")
    assert C.key(package) not in (key, edited, added)
    # files that are not Python sources do not count (they compile nothing)
    before = C.key(package)
    (package / "notes.txt").write_text("hello")
    assert C.key(package) == before


def test_key_follows_the_numba_build(package, monkeypatch):
    key = C.key(package)
    monkeypatch.setattr(C, "_numba_build", lambda: b"version 99")
    assert C.key(package) != key


def _fresh_process(code: str, **env: str) -> list[str]:
    """Lines printed by `code` in a new interpreter importing this checkout."""
    environ = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME")}
    environ.update(env, PYTHONPATH=str(REPO))
    out = subprocess.run([sys.executable, "-c", code], env=environ, capture_output=True, text=True, check=True)
    return out.stdout.split()


SHOW = "import os, sheepsim, numba; print(os.environ['NUMBA_CACHE_DIR'], numba.config.CACHE_DIR)"


def test_import_sets_the_keyed_folder_before_numba(tmp_path):
    expected = str(tmp_path / "sheepsim" / C.key())
    assert _fresh_process(SHOW, XDG_CACHE_HOME=str(tmp_path)) == [expected, expected]
    # numba imported first: its config is set too (its cached functions read it when decorated)
    numba_first = "import numba; " + SHOW
    assert _fresh_process(numba_first, XDG_CACHE_HOME=str(tmp_path)) == [expected, expected]


def test_users_numba_cache_dir_wins(tmp_path):
    mine = str(tmp_path / "mine")
    assert _fresh_process(SHOW, NUMBA_CACHE_DIR=mine, XDG_CACHE_HOME=str(tmp_path)) == [mine, mine]


def test_default_root_without_xdg(monkeypatch, tmp_path):
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert C.root() == tmp_path / ".cache" / "sheepsim"


# --- the CLI, in a temporary cache root ---------------------------------------------

def _fill(path: Path, files: int) -> None:
    path.mkdir(parents=True)
    for k in range(files):
        (path / f"kernel-{k}.nbc").write_bytes(b"x" * 1000)


@pytest.fixture
def root(tmp_path, monkeypatch) -> Path:
    """A cache root holding the folder in use (3 files), a stale one (2 files) and a
    folder that is not sheepsim's (not a key)."""
    base = tmp_path / "root"
    monkeypatch.setattr(C, "root", lambda: base)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(C.folder()))
    _fill(C.folder(), 3)
    _fill(base / "0123456789abcdef", 2)
    _fill(base / "notes", 1)
    return base


def test_cache_info(root):
    result = run_cli("cache", "info")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == f"in use: {C.folder()}  (0.0 MB, 3 files)"
    assert "stale" not in lines[0] and "set by you" not in result.output
    assert f"  {root / '0123456789abcdef'}  (0.0 MB, 2 files)" in lines
    assert "notes" not in result.output


def test_cache_clear_removes_the_folder_in_use_then_all(root):
    current = C.folder()
    result = run_cli("cache", "clear")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == [f"removed {current}  (0.0 MB, 3 files)"]
    assert not current.exists() and (root / "0123456789abcdef").exists()
    assert "(empty)" in run_cli("cache", "info").output
    result = run_cli("cache", "clear", "--all")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == [f"removed {root / '0123456789abcdef'}  (0.0 MB, 2 files)"]
    assert sorted(p.name for p in root.iterdir()) == ["notes"]      # not sheepsim's: kept
    assert run_cli("cache", "clear", "--all").output.strip() == f"nothing to remove in {root}"


def test_a_users_folder_is_shown_and_never_removed(root, tmp_path, monkeypatch):
    mine = tmp_path / "mine"
    _fill(mine, 1)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(mine))
    result = run_cli("cache", "info")
    assert result.output.splitlines()[0] == f"in use: {mine}  (0.0 MB, 1 file)  [NUMBA_CACHE_DIR, set by you]"
    # the keyed folder of these sources is then one of the others
    assert f"  {C.folder()}  (0.0 MB, 3 files)" in result.output.splitlines()
    assert_bad(run_cli("cache", "clear"), f"NUMBA_CACHE_DIR is set to {mine}", "--all")
    assert mine.exists()
    result = run_cli("cache", "clear", "--all")
    assert result.exit_code == 0, result.output
    assert mine.exists() and not C.folder().exists()


@pytest.mark.parametrize("args,needles", [
    (["cache", "clear", "--everything"], ["No such option", "--everything"]),
    (["cache", "purge"], ["No such command", "purge"]),
])
def test_bad_cache_commands(root, args, needles):
    assert_bad(run_cli(*args), *needles)
