"""Shared helpers for the Battle Sheep kernel tests (differential, conformance, rules).

Boards in the scripted tests are ASCII drawings, parsed by `parse_board`, so the
drawing IS the test data (same convention as tests/test_battlesheep_reference.py):

* Only the text after the ``|`` margin counts. Text line i is row r = r0 + i.
* A hex sits every 2 columns and every row is shifted half a hex (1 column) right of
  the row above, so column c of line i is q = q0 + (c - i) / 2. E is 2 columns
  right, SE one line down and 1 column right, SW one line down and 1 column left.
* ``.`` empty pasture; ``a``-``z`` empty pasture with a label; ``0``-``3`` a stack of
  that seat (heights given separately in reading order, default 1); ``A``-``Z`` a
  labelled NON-pasture position (hole, candidate tile, ...); a space is not pasture.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

# The test session's own numba cache, keyed like the user's (sheepsim/cache.py) but in
# the repository's ignored .pytest_cache: a repeat run of the same sources is warm (a
# fresh folder per session would cold-compile every kernel, minutes), and an edit
# starts a new folder. Set before numba is imported; a NUMBA_CACHE_DIR set by the
# developer wins, as it does for users.
_USER_CACHE = os.environ.get("NUMBA_CACHE_DIR")
from sheepsim import cache as _cache  # noqa: E402  (import sheepsim sets NUMBA_CACHE_DIR)

if not _USER_CACHE:
    _cache.use(_cache.folder(Path(__file__).resolve().parent.parent / ".pytest_cache" / "sheepsim-numba"))

import numpy as np  # noqa: E402

from sheepsim.games import all_games  # noqa: E402
from sheepsim.policies import load_plugin  # noqa: E402

# the plug-in game of sheepsim/examples, loaded as a user's `--plugin FILE` is: the
# registry holds a game written from outside sheepsim/games, and every test that reads
# the registry (the conformance suite first) plays it beside the built-ins
TICTACTOE = Path(__file__).resolve().parent.parent / "sheepsim" / "examples" / "tictactoe.py"
load_plugin(TICTACTOE)
# the plug-in agent of sheepsim/examples: loaded only by the tests that ask for it (the
# `lookahead` fixture), so every other test sees the registry without it
LOOKAHEAD = TICTACTOE.parent / "lookahead.py"
# every game's policies registered before any test swaps the registry for a copy
# (monkeypatch of policies._REGISTRY): a game first imported inside such a test
# registered into the copy, and its policies were gone for the rest of that worker
all_games()

from sheepsim.games.battlesheep import engine as E
from sheepsim.games.battlesheep import position as POS
from sheepsim.games.battlesheep import reference as REF
from sheepsim.games.battlesheep import rules as RU

# ---------------------------------------------------------------------------
# Boards and positions
# ---------------------------------------------------------------------------


def parse_board(art: str, heights=None, q0: int = 0, r0: int = 0):
    """(cells, labels): cells {(q, r): (owner or None, height)}, labels {ch: sorted hexes}."""
    rows = [line.split("|", 1)[1] for line in art.splitlines() if "|" in line]
    cells: dict = {}
    labels: dict = {}
    stacks_in_order = []
    for i, row in enumerate(rows):
        for c, ch in enumerate(row):
            if ch == " ":
                continue
            assert (c - i) % 2 == 0, f"character {ch!r} off the hex lattice at line {i} column {c}"
            h = (q0 + (c - i) // 2, r0 + i)
            if ch == ".":
                cells[h] = (None, 0)
            elif ch.islower():
                cells[h] = (None, 0)
                labels.setdefault(ch, []).append(h)
            elif ch.isupper():
                labels.setdefault(ch, []).append(h)
            elif ch.isdigit():
                cells[h] = (int(ch), 1)
                stacks_in_order.append(h)
            else:
                raise AssertionError(f"unknown board character {ch!r}")
    if heights is not None:
        assert len(heights) == len(stacks_in_order), "one height per stack, in reading order"
        for h, height in zip(stacks_in_order, heights):
            cells[h] = (cells[h][0], height)
    return cells, {k: sorted(v) for k, v in labels.items()}


def position_of(art: str, num_players: int, stack_size: int, phase: str, to_move,
                heights=None, q0: int = 0, r0: int = 0, tiles=None) -> tuple[dict, dict]:
    """A JSON position (the README's format) from an ASCII board, plus the labels."""
    cells, labels = parse_board(art, heights, q0, r0)
    pos: dict[str, Any] = {
        "game": "battle-sheep", "version": 1, "coords": "axial",
        "num_players": num_players, "stack_size": stack_size,
        "phase": phase, "to_move": to_move,
        "cells": [{"q": q, "r": r, "owner": o, "height": h} for (q, r), (o, h) in sorted(cells.items())],
    }
    if tiles is not None:
        pos["tiles"] = tiles
    return pos, labels


def kernel_of(pos: dict, **options):
    """(rules, rules_arr, state) of a position through the public converters."""
    rules = POS.rules_for(pos, options)
    ra = RU.to_array(rules)
    return rules, ra, POS.to_state(pos, rules)


def ref_rules(rules) -> REF.Rules:
    """The reference engine's Rules for sheepsim Rules (the board option is not a rule there)."""
    return REF.Rules(
        num_players=rules.num_players,
        tiles_per_player=rules["tiles_per_player"],
        stack_size=rules["stack_size"],
        start_zone=rules["start_zone"],
        no_move=rules["no_move"],
        final_tie=rules["final_tie"],
        placement_order=rules["placement_order"],
    )


# ---------------------------------------------------------------------------
# Moves
# ---------------------------------------------------------------------------


def canon(move: dict) -> tuple:
    """A hashable key of a JSON move (tile cell order does not matter)."""
    if "tile" in move:
        return ("tile", tuple(sorted((int(q), int(r)) for q, r in move["tile"])))
    if "place" in move:
        return ("place", tuple(int(v) for v in move["place"]))
    return ("move", tuple(int(v) for v in move["from"]), tuple(int(v) for v in move["to"]), int(move["count"]))


def kernel_legal(s, ra) -> set:
    """The kernel's legal moves as a set of canonical keys; asserts they are distinct."""
    moves = POS.legal_json(s, ra)
    keys = {canon(m) for m in moves}
    assert len(keys) == len(moves), f"kernel lists a move twice: {moves}"
    return keys


def ref_legal(game) -> set:
    moves = REF.legal_moves(game)
    keys = {canon(m) for m in moves}
    assert len(keys) == len(moves)
    return keys


def kernel_play(s, ra, move: dict) -> None:
    """Apply a JSON move to kernel state s in place (SheepsimError if illegal)."""
    kind, a, b, c = POS.json_to_action(s, ra, move)
    E.apply(s, ra, kind, a, b, c)


def mv(src, dst, n) -> dict:
    return {"from": list(src), "to": list(dst), "count": n}


# ---------------------------------------------------------------------------
# Outcomes
# ---------------------------------------------------------------------------


def outcome_row(s, ra) -> np.ndarray:
    row = np.zeros(E.O_SIZE, dtype=np.int32)
    E.outcome(s, ra, row)
    return row


def row_result(row, num_players: int) -> dict:
    """An outcome row in the reference engine's `result` shape."""
    mask = int(row[E.O_COWINNERS])
    return {
        "scores": [int(row[E.O_SCORE + t]) for t in range(num_players)],
        "herds": [int(row[E.O_HERD + t]) for t in range(num_players)],
        "winner": int(row[E.O_WINNER]),
        "cowinners": [t for t in range(num_players) if mask >> t & 1],
        "loser": int(row[E.O_LOSER]),
    }


def stacks_of(s) -> dict:
    """{(q, r): (owner, height)} of a kernel state, read through the position format."""
    return {(c["q"], c["r"]): (c["owner"], c["height"]) for c in POS.from_state(s)["cells"]
            if c["owner"] is not None}


def seat_sheep(s) -> list[int]:
    """Sheep of every seat on the pasture (conservation checks)."""
    n = int(s[E.H_NHEX])
    owners = s[E.OWNER:E.OWNER + n]
    heights = s[E.HEIGHT:E.HEIGHT + n]
    return [int(heights[owners == t].sum()) for t in range(int(s[E.H_PLAYERS]))]


@pytest.fixture(scope="module")
def lookahead():
    """The plug-in agent sheepsim/examples/lookahead.py, loaded as `--plugin FILE` loads
    it, registered for the test module that asks for it; the registry is restored after."""
    from sheepsim import policies
    saved = dict(policies._REGISTRY)
    yield load_plugin(LOOKAHEAD)
    policies._REGISTRY.clear()
    policies._REGISTRY.update(saved)


def kind_policy(play, kind: str, policy_id: int, params) -> Any:
    """Policy `policy_id` of the kernels of kind `kind` (a search agent: "search", or a
    plug-in agent's "agent_<name>") on the game of kernels `play`, as a Python function
    with the common policy signature (the re-deal tests call it at every decision). Its
    parameter vector is `params`, whatever the caller passes."""
    from numba import njit

    from sheepsim.games.kernels import of_kind
    called, view = of_kind(play, kind).choose_called, play.VIEW
    vector = np.zeros(8)
    vector[:len(params)] = params

    # the argument types the replay kernel passes (an int64 id, not a literal constant;
    # the game's views), so the kernels' cached dispatcher is loaded, not compiled again
    @njit
    def kernel(policy_id, s, rules, aux, seat, params, rng, buf):
        return called(policy_id, view(s), view(rules), view(aux), seat, params, view(rng), buf, np.empty_like(buf))

    def choose(s, rules, aux, seat, params, rng, buf):
        return kernel(np.int64(policy_id), s, rules, aux, seat, vector, rng, buf)
    return choose


def run_cli(*args: str):
    """Invoke the `sheepsim` CLI in-process."""
    from click.testing import CliRunner

    from sheepsim.cli import cli
    return CliRunner().invoke(cli, list(args))


def assert_bad(result, *needles: str):
    """Bad input: exit status 2, one line `error: ...` naming the problem, no traceback.
    The note announcing a compile (wrappers.cold_start_note) is said before the error
    when the problem shows only as the compile runs, a policy's types: it is not part
    of the error."""
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines()
             if line.strip() and not line.startswith("compiling the kernels for ")]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    assert "Traceback" not in result.output
    for needle in needles:
        assert needle in lines[0], lines[0]
