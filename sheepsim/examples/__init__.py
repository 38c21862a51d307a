"""Example files the README uses, shipped inside the package (`sheepsim examples DIR`).

The repository's top level is fixed, and a pip-installed sheepsim has no checkout
beside it, so the files travel as package data (pyproject.toml) and the command copies
them into a folder of the user's choice, where they can be read, edited and passed to
--from-position, --deck and `sheepsim legal`.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from ..errors import SheepsimError
from ..fileio import write_atomic


@dataclass(frozen=True)
class Example:
    name: str
    what: str
    use: str            # a command that uses it, with {path} for the written file


EXAMPLES = (
    Example("position.json", "a Battle Sheep position: a 2-player pasture of 8 tiles, stacks still to place",
            "sheepsim legal {path}"),
    Example("hiboufou-deck.toml", "a Hiboufou deck: 5 colours, every pair 4 times and every triple once",
            "sheepsim simulate hiboufou -p 3 --deck {path}"),
    Example("bobbysitter-deck.toml", "a Bobby Sitter deck: 56 cards, fewer cards nobody may react to",
            "sheepsim simulate bobbysitter -p 3 --deck {path}"),
    Example("analysis.toml", "an analysis file: Pig's first-player edge under two policies, commented",
            "sheepsim run {path} --scale 0.1"),
    Example("variant.toml", "a rule variant: Bye-Bye Black Sheep with the Wolf card against the base game",
            "sheepsim check {path}"),
    Example("tictactoe.py", "a sixth game written as a plug-in (tic-tac-toe, whose answers are known exactly)",
            "sheepsim --plugin {path} simulate tictactoe -n 100000"),
    Example("lookahead.py", "a search agent written as a plug-in (one-ply lookahead on each game's evaluation)",
            "sheepsim --plugin {path} simulate battlesheep --policy lookahead --policy greedy -n 200"),
)


def text(name: str) -> str:
    """The shipped text of one example file."""
    return resources.files(__name__).joinpath(name).read_text(encoding="utf-8")


def write_examples(folder: Path, force: bool = False) -> list[tuple[Example, Path]]:
    """Copy every example file into `folder` (created if missing). Existing files are
    refused before anything is written, unless `force`: a user's edited copy is never
    lost by accident, and a refusal leaves the folder as it was."""
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise SheepsimError(f"{folder} is a file, not a folder; give a folder for the example files")
    targets = [(e, folder / e.name) for e in EXAMPLES]
    existing = [str(path) for _, path in targets if path.exists()]
    if existing and not force:
        verb = "exists" if len(existing) == 1 else "exist"
        raise SheepsimError(f"{', '.join(existing)} already {verb}; add --force to overwrite, or give another "
                            f"folder (sheepsim examples DIR)")
    contents = [text(e.name) for e in EXAMPLES]       # read all before writing any
    written: list[Path] = []
    for (_, path), content in zip(targets, contents):
        try:
            write_atomic(path, content)
        except OSError as exc:
            for done in written:        # all or nothing: no folder with half the examples
                if str(done) not in existing:
                    done.unlink(missing_ok=True)
            raise SheepsimError(f"cannot write {path}: {exc.strerror or exc}; choose a writable folder")
        written.append(path)
    return targets
