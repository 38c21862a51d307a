"""A game from outside the package: sheepsim/examples/tictactoe.py, written only through
the public contract (games/kernels.py Engine, games/turngame.py, register_game).

conftest.py loads it as `--plugin FILE` loads a user's file, so the conformance suite
plays it with the built-ins; here: its exact answers (uniform random play gives the
first player 737/1260, the second 363/1260 and a draw 160/1260, worked out here by
walking every game through the engine's own hooks; perfect play always draws), the
search agents on it, `sheepsim games` naming its source, loading it through an entry
point in a fresh process, and a plug-in game's bad input.
"""

from __future__ import annotations

import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from conftest import TICTACTOE, assert_bad
from conftest import run_cli as run

from sheepsim.games import get_game, source
from sheepsim.policies import seat_specs
from sheepsim.runner import simulate

ROOT = Path(__file__).resolve().parent.parent


def _exact(E, s, arr, aux, buf) -> dict[int, Fraction]:
    """{winner (-1: a draw): probability} of uniform random play from `s`, every game
    walked through the engine's hooks (legal, step, outcome) with exact fractions."""
    if E.actor(s, arr) < 0:
        row = np.zeros(4, dtype=np.int32)
        E.outcome(s, arr, row)
        return {int(row[0]): Fraction(1)}
    n = E.legal(s, arr, aux, buf)
    moves = [int(buf[i, 0]) for i in range(n)]
    out: dict[int, Fraction] = {}
    for m in moves:
        t = s.copy()
        E.step(t, arr, aux, (m,), -1)
        for w, p in _exact(E, t, arr, aux, buf).items():
            out[w] = out.get(w, Fraction(0)) + p / n
    return out


def test_uniform_random_play_gives_the_exact_answer():
    game = get_game("tictactoe")
    E = game.play.ENGINE
    rules = game.make_rules(2, {})
    arr, aux = game.to_array(rules), game.initial_state(rules, None)
    s = np.zeros(E.shape.state_size, dtype=np.int32)
    E.start(s, arr, aux, np.zeros(4, dtype=np.uint64))
    exact = _exact(E, s, arr, aux, np.zeros((9, 1), dtype=np.int32))
    assert exact == {0: Fraction(737, 1260), 1: Fraction(363, 1260), -1: Fraction(160, 1260)}
    # the kernels agree: 100,000 games of random play, each share within 4 standard errors
    n = 100_000
    df = simulate(game, rules, seat_specs("tictactoe", ["random"], 2), n, seed=11).results
    for winner, p in exact.items():
        share = float((df["winner"] == winner).mean())
        assert abs(share - float(p)) < 4 * (float(p) * (1 - float(p)) / n) ** 0.5, (winner, share, float(p))


@pytest.mark.parametrize("spec", ["alphabeta:depth=9", "mcts:iters=3000"])
def test_perfect_play_draws_against_itself(spec):
    game = get_game("tictactoe")
    rules = game.make_rules(2, {})
    df = simulate(game, rules, seat_specs("tictactoe", [spec], 2), 12, seed=5, threads=2).results
    assert (df["winner"] == -1).all(), df["winner"].tolist()


def test_full_depth_search_never_loses_to_random_play():
    game = get_game("tictactoe")
    rules = game.make_rules(2, {})
    df = simulate(game, rules, seat_specs("tictactoe", ["alphabeta:depth=9", "random"], 2), 40, seed=9).results
    searcher = np.where(df["rotation"] == 0, 0, 1)          # the slot of alphabeta plays seat 0, then seat 1
    assert not (df["winner"].to_numpy() == 1 - searcher).any(), "the full-depth search lost a game"
    assert (df["winner"].to_numpy() == searcher).mean() > 0.5


def test_games_lists_the_plug_in_with_its_source_and_rules_and_policies_work():
    r = run("--plugin", str(TICTACTOE), "games")
    assert r.exit_code == 0, r.output
    line = next(x for x in r.output.splitlines() if x.startswith("tictactoe "))
    assert "Tic-tac-toe" in line and "2-2 players" in line and line.endswith(str(TICTACTOE))
    assert next(x for x in r.output.splitlines() if x.startswith("pig ")).endswith("built-in")
    assert source("tictactoe") == str(TICTACTOE)
    r = run("--plugin", str(TICTACTOE), "policies", "tictactoe")
    assert r.exit_code == 0 and "tactical" in r.output and "alphabeta" in r.output, r.output
    r = run("--plugin", str(TICTACTOE), "rules", "tictactoe")
    assert r.exit_code == 0, r.output


def test_an_entry_point_loads_the_game_in_a_fresh_process(tmp_path):
    """A package (mygames, the example file copied into it) names the game in the
    `sheepsim.games` entry point group: a fresh process finds it without --plugin (the
    distribution's metadata on sys.path)."""
    package = tmp_path / "mygames"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "tictactoe.py").write_text(TICTACTOE.read_text())
    dist = tmp_path / "mygames-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: mygames\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[sheepsim.games]\ntictactoe = mygames.tictactoe:GAME\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(ROOT)]))
    cmd = [sys.executable, "-c", "from sheepsim.cli import cli; cli()"]
    out = subprocess.run(cmd + ["games"], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    line = next(x for x in out.stdout.splitlines() if x.startswith("tictactoe "))
    assert line.endswith("entry point tictactoe = mygames.tictactoe:GAME"), line
    out = subprocess.run(cmd + ["simulate", "tictactoe", "-n", "2000", "-q", "--seed", "3"], capture_output=True,
                         text=True, env=env, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "Tic-tac-toe, 2 players: 2,000 games" in out.stdout


BAD_GAMES = {
    "a built-in's name": ("name='pig'", "game 'pig' is built in; a plug-in game needs a name of its own"),
    "a name with capitals": ("name='TicTac'", "game name 'TicTac': use lower-case letters"),
    "no winner column": ("columns={'turns': (2, np.int32)}", "its result columns must include winner, cowinners"),
}


@pytest.mark.parametrize("case", BAD_GAMES, ids=list(BAD_GAMES))
def test_a_bad_plug_in_game_is_one_line(tmp_path, case):
    """A plug-in file whose game cannot register: one line naming the problem, exit 2."""
    change, needle = BAD_GAMES[case]
    text = TICTACTOE.read_text()
    start = text.index("GAME = register_game(turn_game(")
    call = text[start:]
    if change.startswith("name="):
        call = call.replace('name="tictactoe"', change.replace("'", '"'), 1)
    else:
        call = call.replace('columns={"winner": (O_WINNER, np.int8), "cowinners": (O_COWINNERS, np.int8), '
                            '"turns": (O_MOVES, np.int32)}', change, 1)
    bad = tmp_path / "badgame.py"
    bad.write_text(text[:start] + call.split("register_policy(")[0])
    assert_bad(run("--plugin", str(bad), "games"), needle)


def test_a_plug_in_game_refuses_start_files(tmp_path):
    deck = tmp_path / "deck.toml"
    deck.write_text("[[card]]\n")
    assert_bad(run("--plugin", str(TICTACTOE), "simulate", "tictactoe", "--deck", str(deck)), "--deck")
