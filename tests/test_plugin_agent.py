"""A search agent from outside the package: sheepsim/examples/lookahead.py, written only
through search/plugin.py's contract and loaded as `--plugin FILE` loads it.

Its decisions equal a plain-Python twin's decision by decision (tic-tac-toe, every
decision of 40 games); it plays in the kernels of a kind of its own, beside the
built-in agents in one run, with results that depend only on (config, seed, game
index); its bad registrations are one-line errors. The re-deal tests of the two
hidden-information games (test_blacksheep_hidden.py, test_hiboufou_hidden.py) check it
too, and test_dask.py plays it, with the plug-in game, on Dask workers.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import LOOKAHEAD, assert_bad
from conftest import run_cli as run
from numba import njit

from sheepsim.errors import SheepsimError
from sheepsim.games import get_game
from sheepsim.games import wrappers as W
from sheepsim.policies import get_policy, seat_specs
from sheepsim.runner import simulate
from sheepsim.search.plugin import FIRST_PLUGIN_ID, LAST_PLUGIN_ID, register_agent
from sheepsim.start import kernel_aux


def twin(E, s, arr, aux, seat: int, samples: int) -> int:
    """The agent's decision in plain Python, for a game without luck or hidden cards:
    every legal action's position scored `samples` times (a win 10^6 shared among the
    co-winners, a loss -10^6, else own progress minus the best other seat's), the
    first of the best."""
    buf = np.zeros((E.shape.max_actions, 1), dtype=np.int32)
    n = E.legal(s, arr, aux, buf)
    if n == 1:
        return int(buf[0, 0])
    totals = []
    for i in range(n):
        t = s.copy()
        E.step(t, arr, aux, (int(buf[i, 0]),), -1)
        if E.actor(t, arr) == -1:
            row = np.zeros(E.o_size, dtype=np.int32)
            E.outcome(t, arr, row)
            winners = int(row[E.shape.cowinners])
            value = 1e6 / bin(winners).count("1") if winners >> seat & 1 else (-1e6 if winners else 0.0)
        else:
            out = np.zeros(E.shape.max_players)
            E.progress(t, arr, out)
            value = out[seat] - max(out[q] for q in range(int(arr[0])) if q != seat)
        total = 0.0
        for _ in range(samples):
            total += value
        totals.append(total)
    return int(buf[int(np.argmax(totals)), 0])     # argmax: the first of the best


@pytest.mark.parametrize("samples", [1, 3])
def test_decisions_equal_the_python_twin(lookahead, samples):
    game = get_game("tictactoe")
    E = game.play.ENGINE
    rules = game.make_rules(2, {})
    arr = game.to_array(rules)
    specs = seat_specs("tictactoe", [f"lookahead:samples={samples}", "random"], 2)
    aux = kernel_aux(game, rules, None, specs)
    checked = 0
    for g in range(40):
        log, row, slots, streams = W.replay(game.play, arr, aux, specs, True, 17, g)
        s = np.zeros(E.shape.state_size, dtype=np.int32)
        E.start(s, arr, aux, streams[0])
        for actor, action, chance in log:
            if slots[actor] == 0:                       # the agent's seat
                assert action == twin(E, s, arr, aux, int(actor), samples), (g, s.tolist())
                checked += 1
            E.step(s, arr, aux, (int(action),), int(chance))
    assert checked > 100


def test_it_plays_beside_the_builtin_agents_with_results_fixed_by_the_seed(lookahead):
    game = get_game("tictactoe")
    rules = game.make_rules(2, {})
    specs = seat_specs("tictactoe", ["lookahead", "mcts:iters=40"], 2)
    assert W.kernel_kind(specs) == "agent_lookahead"    # its kernels play mcts too
    one = simulate(game, rules, specs, 60, seed=3, chunk_size=60, threads=1).results
    many = simulate(game, rules, specs, 60, seed=3, chunk_size=7, threads=2).results
    assert one.equals(many)
    assert set(one["policy_0"]) == {"lookahead", "mcts:iters=40"}
    # against uniform random play it won 92.7% of 2,000 games (measured with the CLI);
    # 400 games here, on a fixed seed: above 85%, far from random play's 44% average
    random = simulate(game, rules, seat_specs("tictactoe", ["lookahead", "random"], 2), 400, seed=4).results
    agent = np.where(random["rotation"] == 0, 0, 1)
    assert (random["winner"] == agent).mean() > 0.85


def test_the_policy_registry_and_its_help_name_it(lookahead):
    policy = get_policy("pig", "lookahead")
    assert policy.kind == "agent_lookahead" and FIRST_PLUGIN_ID <= policy.id <= LAST_PLUGIN_ID
    result = run("--plugin", str(LOOKAHEAD), "policies", "battlesheep")
    assert result.exit_code == 0 and "lookahead:samples=<integer>" in result.output, result.output
    assert_bad(run("--plugin", str(LOOKAHEAD), "simulate", "pig", "--policy", "lookahead:samples=0"),
               "samples=0 is out of range")


@njit
def _nothing(*args):
    return 0


def test_bad_registrations_are_one_line_errors(lookahead):
    with pytest.raises(SheepsimError, match="must be an @njit function"):
        register_agent("plain", lambda *a: 0, games=["pig"])
    with pytest.raises(SheepsimError, match="already has a policy 'mcts'"):
        register_agent("mcts", _nothing, games=["battlesheep"])
    with pytest.raises(SheepsimError, match="unknown game 'chess'"):
        register_agent("chessbot", _nothing, games=["chess"])
    with pytest.raises(SheepsimError, match="agent name 'Bad-Name'"):
        register_agent("Bad-Name", _nothing, games=["pig"])
    with pytest.raises(SheepsimError, match="name the games"):
        register_agent("nowhere", _nothing, games=[])
