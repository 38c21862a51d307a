"""`sheepsim bench`'s search rows: what a search decision costs, beside a random playout.

Per game with a search policy (mcts or ismcts, the one it plays), every seat searching at
`budget` iterations, rollouts random, the game's smallest player count:

* search games/s at 1 and N threads: the game's search kernel, best of REPEATS runs;
* decisions/s and iterations/s at 1 thread: the searching decisions of those games
  (counted from their replays) over the 1-thread time;
* playout ratio: the cost of one iteration over the cost of a random playout of the
  same remaining game. The playout's cost is the random kernel's time per decision
  (its games/s and mean decisions per game, at 1 thread) times the mean number of
  decisions left at a search decision: what a rollout from there plays. The tree's
  own work (descending, expanding, copying and determinizing the state, backing up)
  is what lifts the ratio above 1 (issue target: at most 2);
* Python agent: a plain-Python search at the same budget, timed on searching decisions
  of game 0 (its positions rebuilt from the kernel's log), decisions/s and the kernel's
  speed over it (target: at least 100x). For Battle Sheep and Pig, UCT over the game's
  pure-Python reference engine (search/python_mcts.py); for the hidden-information
  games, whose references cannot determinize, the twin (search/reference.py) over the
  compiled engine hooks (_python_agent).
"""

from __future__ import annotations

import random
import time
from typing import Any

import numpy as np

from ..bench import _timed, numba_threads
from . import mcts as M

REPEATS = 3
TARGET_SECONDS = 0.6        # one 1-thread run of search games, about
PYTHON_SECONDS = 3.0        # the Python twin's share of the bench, about


def _search_name(game) -> str | None:
    from ..policies import policies_for
    for p in policies_for(game.name):
        if p.name in ("mcts", "ismcts") and not p.refuse:
            return p.name
    return None


def search_games(games: list) -> list:
    return [g for g in games if _search_name(g)]


def _best(run, threads: int) -> float:
    """The fastest of REPEATS runs at `threads` threads, wall seconds."""
    with numba_threads(threads):
        return min(_timed(run)[0] for _ in range(REPEATS))


def search_row(game, budget: int, threads: int) -> dict[str, Any]:
    from ..games import kernel_modules
    from ..games import wrappers as W
    from ..policies import seat_specs
    from ..rng import streams
    from . import reference

    E, POL, PL = kernel_modules(game.name)
    name = _search_name(game)
    players = game.bench_players or game.players[0]
    rules = game.make_rules(players, {})
    arr, aux = game.to_array(rules), game.initial_state(rules, None)
    spec = f"{name}:iters={budget}"
    specs = seat_specs(game.name, [spec], players)
    randoms = seat_specs(game.name, ["random"], players)

    def play(n, s=specs):
        return lambda: game.play_chunk(arr, aux, s, True, 1, 0, n)

    play(1)()                                       # compile (or load) the search kernel
    n = 1
    while n < 512 and _timed(play(n))[0] < TARGET_SECONDS / 2:
        n *= 2
    one, many = _best(play(n), 1), _best(play(n), threads)
    # the searching decisions of those games, and how many decisions each had left
    decisions, left = 0, 0
    logs = [W.replay(PL, arr, aux, specs, True, 1, g)[0] for g in range(n)]
    for log in logs:
        seats = log[:, 0] >= 0
        decisions += int(seats.sum())
        left += int((len(log) - np.nonzero(seats)[0]).sum())
    # the random kernel: time per decision
    m = 1000
    while _timed(play(m, randoms))[0] < TARGET_SECONDS / 2 and m < 1_000_000:
        m *= 2
    random_one = _best(play(m, randoms), 1)
    random_length = np.mean([len(W.replay(PL, arr, aux, randoms, True, 1, g)[0]) for g in range(200)])
    per_decision = random_one / (m * random_length)
    iteration = one / (decisions * budget)
    playout = per_decision * left / decisions
    python, timed, spent = _python_agent(game, E, POL, PL, rules, arr, aux, specs, logs[0], budget, name)
    kernel_rate = decisions / one
    python_rate = timed / spent
    return {"game": game.name, "players": players, "policy": spec, "games": n,
            "games_per_s_1t": n / one, "games_per_s_nt": n / many, "threads": threads,
            "decisions_per_s_1t": kernel_rate, "iterations_per_s_1t": decisions * budget / one,
            "decisions_per_game": decisions / n, "mean_decisions_left": left / decisions,
            "random_decision_s": per_decision, "iteration_s": iteration, "playout_s": playout,
            "playout_ratio": iteration / playout,
            "python_agent": python, "python_decisions": timed, "python_decisions_per_s": python_rate,
            "python_ratio": kernel_rate / python_rate}


def _python_agent(game, E, POL, PL, rules, arr, aux, specs, log, budget, name):
    """(which Python agent, decisions timed, seconds): a plain-Python search at the same
    budget, timed on the searching decisions of the kernel's game `log` in order, for
    about PYTHON_SECONDS. Perfect-information games: python_mcts over the game's reference
    engine (the same positions, converted). The hidden-information games' references
    keep no record of what each seat knows, which determinizing needs: there it is the
    twin, search/reference.py, whose engine calls are the compiled hooks (so the Python
    it is compared with is faster than a Python engine would be)."""
    from ..rng import streams
    from . import python_mcts, reference

    greedy = POL.hold if game.name == "pig" else getattr(POL, "greedy", None)

    def rollout(pid, s, rules_, aux_, seat, params, rng, buf, scratch):
        if pid == POL.RANDOM:
            return POL.random_policy(s, rules_, aux_, seat, params, rng, buf)
        return greedy(s, rules_, aux_, seat, params, rng, buf)

    s = np.zeros(PL.GAME[0], dtype=np.int32)
    E.start(s, arr, aux, streams(1, 0, PL.GAME[5])[0])
    width = PL.GAME[2]
    positions = []              # (seat, state) at every searching decision of the game
    for entry in log:
        if entry[0] >= 0:
            positions.append((int(entry[0]), s.copy()))
        E.step(s, arr, aux, tuple(int(x) for x in entry[1:1 + width]), int(entry[1 + width]))
    vector = specs[0].vector()
    c = float(vector[M.P_C])
    timed, spent = 0, 0.0
    # in a fixed shuffled order, so that the decisions timed are spread over the game
    for i in np.random.default_rng(0).permutation(len(positions)):
        if spent >= PYTHON_SECONDS:
            break
        who, s = positions[i]
        if game.reference_search:
            engine, position = game.reference_search(rules, s)
            start = time.perf_counter()
            python_mcts.search(engine, position, budget, c, random.Random(timed))
        else:
            rng = streams(2, timed, 1)[0]
            start = time.perf_counter()
            reference.search((E, rollout), PL.GAME, PL.SEARCH, PL.ROLLOUT_PARAMS, name == "ismcts", s,
                             arr, aux, who, vector, rng)
        spent += time.perf_counter() - start
        timed += 1
    python = ("search/python_mcts.py over the reference engine" if game.reference_search
              else "search/reference.py over the compiled hooks")
    return python, timed, spent


def table(rows: list[dict[str, Any]], threads: int) -> str:
    head = ["game", "players", "policy", "games/s 1t", f"games/s {threads}t", "decisions/s 1t", "iterations/s 1t",
            "iteration / playout", "python decisions/s", "kernel / python"]
    body = [[r["game"], str(r["players"]), r["policy"], f"{r['games_per_s_1t']:,.1f}", f"{r['games_per_s_nt']:,.1f}",
             f"{r['decisions_per_s_1t']:,.0f}", f"{r['iterations_per_s_1t']:,.0f}", f"{r['playout_ratio']:.2f}x",
             f"{r['python_decisions_per_s']:,.2f}", f"{r['python_ratio']:,.0f}x"] for r in rows]
    widths = [max(len(x) for x in col) for col in zip(head, *body)]
    line = lambda cells: "  ".join(c.ljust(w) if i == 0 else c.rjust(w)  # noqa: E731
                                   for i, (c, w) in enumerate(zip(cells, widths)))
    out = ["", "search (every seat searching, random rollouts):", line(head), line(["-" * w for w in widths])]
    out += [line(b) for b in body]
    out.append("iteration / playout = one search iteration's time over a random playout of the same remaining game "
               "(the random kernel's time per decision x the mean decisions left at a search decision; target <= 2); "
               "kernel / python = the kernel's decisions/s at 1 thread over a plain-Python search's at the same "
               "budget (target >= 100)")
    out += [f"{r['game']}: {r['games']} search games per run, {r['decisions_per_game']:.0f} searching decisions a game "
            f"with {r['mean_decisions_left']:.0f} decisions left on average; Python: {r['python_agent']}, timed on "
            f"{r['python_decisions']} of them" for r in rows]
    return "\n".join(out)
