"""No module outside a game's own folder names a game (sheepsim/ARCHITECTURE.md: the
GameSpec): what is particular to one game is a field of its GameSpec, and the generic
modules read only the fields. The one exception is the registry (games/__init__.py),
which lists the built-in games and their aliases so that it can import each only when
asked for. And the games, a lower layer than report/, never import it, nor does
report/ import analysis/, the layer above it (an analysis kind hands its report data).

Read off the sources (their syntax trees): a string that is a game's name, or an
import of a game's package. Prose (docstrings, comments, help texts and examples that
mention a game inside a longer text) is not code and is not counted.
"""

from __future__ import annotations

import ast
from pathlib import Path

import sheepsim

ROOT = Path(sheepsim.__file__).parent
GAMES = {"battlesheep", "blacksheep", "hiboufou", "bobbysitter", "pig", "tictactoe"}
REGISTRY = {"games/__init__.py"}
PLUGINS = {"examples/tictactoe.py"}


def _generic_modules():
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        parts = rel.split("/")
        # a game's folder, the registry, and the example plug-in game (a user's file)
        if parts[0] == "games" and len(parts) > 2 or rel in REGISTRY or rel in PLUGINS:
            continue
        yield rel, ast.parse(path.read_text(encoding="utf-8"))


def _imported(node) -> list[str]:
    if isinstance(node, ast.ImportFrom):
        return [node.module or ""] + [f"{node.module or ''}.{a.name}" for a in node.names]
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    return []


def test_no_generic_module_names_a_game():
    found = []
    for rel, tree in _generic_modules():
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in GAMES:
                found.append(f"{rel}:{node.lineno} {node.value!r}")
            for name in _imported(node):
                if GAMES & set(name.split(".")):
                    found.append(f"{rel}:{node.lineno} imports {name}")
    assert not found, found


def test_the_games_do_not_import_report():
    found = []
    for path in sorted((ROOT / "games").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            for name in _imported(node):
                if "report" in name.split("."):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} imports {name}")
    assert not found, found


def test_report_does_not_import_analysis():
    found = []
    for path in sorted((ROOT / "report").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            for name in _imported(node):
                if "analysis" in name.split("."):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} imports {name}")
    assert not found, found
