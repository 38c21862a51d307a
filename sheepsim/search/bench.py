"""`sheepsim bench`'s search rows: what a search decision costs, beside a random playout.

Per game with a search policy (mcts or ismcts, the one it plays), every seat searching at
`budget` iterations, rollouts random, the game's smallest player count:

* search games/s at 1 and N threads: the game's search kernel, best of REPEATS runs;
* decisions/s and iterations/s at 1 thread: the searching decisions of those games
  (counted from their replays) over the 1-thread time;
* playout ratio: the cost of one iteration over the cost of a random playout of the
  same remaining game. The playouts are timed from the very positions the search
  decided at (every searching decision of those games, rebuilt from the replays),
  each played out by the search's own rollout (mcts.rollout, random policy) in a
  kernel of this module, at 1 thread, less the time of copying the position, which a
  playout needs only because it consumes its state. The tree's own work (copying and
  determinizing the state, descending, expanding, backing up) is what lifts the ratio
  above 1 (target: at most 2);
* Python agent: a plain-Python search at the same budget, timed on searching decisions
  of game 0 (its positions rebuilt from the kernel's log), decisions/s and the kernel's
  speed over it (target: at least 100x): UCT over the game's pure-Python reference
  engine (search/python_mcts.py; for Bye-Bye Black Sheep and Hiboufou re-dealing the
  unseen cards at each iteration, through the reference's own re-deal).
"""

from __future__ import annotations

import functools
import random
import time
from typing import Any

import numpy as np
from numba import njit

from ..games import fast
from ..games.kernels import of_kind
from ..timing import numba_threads, timed as _timed
from . import mcts as M

REPEATS = 3
TARGET_SECONDS = 0.6        # one 1-thread run of search games, about
PYTHON_SECONDS = 3.0        # the Python search's share of the bench, about ...
PYTHON_DECISIONS = 5        # ... but at least this many decisions (Bye-Bye Black Sheep's take 1.5 s)


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
    from ..policies import seat_specs

    PL = game.play
    E = PL.ENGINE
    name = _search_name(game)
    players = game.bench_players or game.players[0]
    rules = game.make_rules(players, {})
    arr, aux = game.to_array(rules), game.initial_state(rules, None)
    spec = f"{name}:iters={budget}"
    specs = seat_specs(game.name, [spec], players)

    def play(n, s=specs):
        return lambda: game.play_chunk(arr, aux, s, True, 1, 0, n)

    play(1)()                                       # compile (or load) the search kernel
    n = 1
    while n < 512 and _timed(play(n))[0] < TARGET_SECONDS / 2:
        n *= 2
    one, many = _best(play(n), 1), _best(play(n), threads)
    # the searching decisions of those games, and how many decisions each had left
    decisions, left = 0, 0
    logs = _logs(PL, arr, aux, specs, 1, n)
    for log in logs:
        seats = log[:, 0] >= 0
        decisions += int(seats.sum())
        left += int((len(log) - np.nonzero(seats)[0]).sum())
    positions = [_positions(E, PL, arr, aux, g, log) for g, log in enumerate(logs)]
    iteration = one / (decisions * budget)
    playout = _playout_seconds(PL, arr, aux, np.stack([state for game_ in positions for _, state in game_]))
    python, timed, spent = _python_agent(game, rules, specs, positions[0], budget)
    kernel_rate = decisions / one
    python_rate = timed / spent
    return {"game": game.name, "players": players, "policy": spec, "games": n,
            "games_per_s_1t": n / one, "games_per_s_nt": n / many, "threads": threads,
            "decisions_per_s_1t": kernel_rate, "iterations_per_s_1t": decisions * budget / one,
            "decisions_per_game": decisions / n, "mean_decisions_left": left / decisions,
            "iteration_s": iteration, "playout_s": playout,
            "playout_ratio": iteration / playout,
            "python_agent": python, "python_decisions": timed, "python_decisions_per_s": python_rate,
            "python_ratio": kernel_rate / python_rate}


def _logs(PL, arr, aux, specs, seed: int, games: int) -> list[np.ndarray]:
    """The replay logs of games 0 .. games - 1 on `seed`, seats rotated: a row a step,
    column 0 the seat that decided it (-1: nature), so a searching decision is a row
    with column 0 >= 0 when every seat searches."""
    from ..games import wrappers as W
    return [W.replay(PL, arr, aux, specs, True, seed, g)[0] for g in range(games)]


def _positions(E, PL, arr, aux, g, log) -> list:
    """(seat, state) at every searching decision of the bench's game g, whose replay is
    `log`: the game dealt again from its stream 0 and its logged actions applied."""
    from ..rng import streams
    s = np.zeros(PL.GAME.state_size, dtype=np.int32)
    E.start(s, arr, aux, streams(1, g, PL.GAME.streams)[0])
    width = PL.GAME.action_size
    positions = []
    for entry in log:
        if entry[0] >= 0:
            positions.append((int(entry[0]), s.copy()))
        E.step(s, arr, aux, tuple(int(x) for x in entry[1:1 + width]), int(entry[1 + width]))
    return positions


@functools.lru_cache(maxsize=None)
def _playouts(PL):
    """A kernel over the play module PL's hooks: copy each row of `states` and, when
    `play`, roll it out with mcts.rollout (random policy, no cut-off), `reps` times
    over; returns how many copies ended at the end of their game. The hooks are the
    closure's constants, compiled in as the search kernel's are (passed as arguments
    from Python, numba calls them several times slower), and the rollout gets its arrays
    in the forms the search's own rollout gets them (the driver's views of the rules,
    aux, stream and decision buffer, a plain scratch array, a row of the rollout
    parameters): reference counting alone made a playout several times slower."""
    _start, actor, _legal, nature, chance, step, _outcome, _progress, choose = PL.HOOKS
    S = of_kind(PL, "search")
    game, view, random_id, rollout_params = PL.GAME, PL.VIEW, S.SEARCH[M.S_RANDOM], S.ROLLOUT_PARAMS

    @njit
    def run(states, rules_arr, aux_arr, reps, play, stream):
        state = np.empty(game.state_size, dtype=np.int32)
        sim, rules, aux, rng = view(state), view(rules_arr), view(aux_arr), view(stream)
        buf_array = np.empty((game.max_actions, game.action_size), dtype=np.int32)
        buf = fast.array(buf_array)
        scratch = np.empty((game.max_actions, game.action_size), dtype=np.int32)
        rparams = rollout_params[M.ROLLOUT_RANDOM]
        done = 0
        for _ in range(reps):
            for i in range(states.shape[0]):
                for k in range(game.state_size):
                    state[k] = states[i, k]
                if play:
                    M.rollout(actor, nature, chance, step, choose, sim, rules, aux, random_id, rparams, 0, rng, buf,
                              scratch)
                # the playouts that reached the end of the game (reading the state also
                # keeps a copy-only run from being optimised away)
                done += actor(sim, rules) == -1
        return done
    return run


def _playout_seconds(PL, arr, aux, states) -> float:
    """One random playout's time from `states` (rows), copying excluded (the docstring)."""
    from ..rng import streams
    kernel = _playouts(PL)
    rng = streams(3, 0, 1)[0]

    def run(reps, play):
        return lambda: kernel(states, arr, aux, reps, play, rng)

    run(1, True)(), run(1, False)()                 # compile
    reps = 1
    while _timed(run(reps, True))[0] < TARGET_SECONDS / 2:
        reps *= 2
    with numba_threads(1):
        played = min(_timed(run(reps, True))[0] for _ in range(REPEATS))
        copied = min(_timed(run(reps, False))[0] for _ in range(REPEATS))
    return (played - copied) / (reps * len(states))


def _python_agent(game, rules, specs, positions, budget):
    """(which Python agent, decisions timed, seconds): python_mcts over the game's
    reference engine at the same budget and exploration constant, timed on `positions`
    (_positions of the kernel's game 0, converted) for about PYTHON_SECONDS, and at least
    PYTHON_DECISIONS decisions."""
    from . import python_mcts

    c = float(specs[0].vector()[M.P_C])
    order = np.random.default_rng(0).permutation(len(positions))   # spread over the game
    timed, spent = 0, 0.0
    for i in order:
        if spent >= PYTHON_SECONDS and timed >= PYTHON_DECISIONS:
            break
        engine, position = game.reference_search(rules, positions[i][1])
        start = time.perf_counter()
        python_mcts.search(engine, position, budget, c, random.Random(timed))
        spent += time.perf_counter() - start
        timed += 1
    return "search/python_mcts.py over the reference engine", timed, spent


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
               "(random rollouts timed from the positions the search decided at; target <= 2); "
               "kernel / python = the kernel's decisions/s at 1 thread over a plain-Python search's at the same "
               "budget (target >= 100)")
    out += [f"{r['game']}: {r['games']} search games per run, {r['decisions_per_game']:.0f} searching decisions a game "
            f"with {r['mean_decisions_left']:.0f} decisions left on average; Python: {r['python_agent']}, timed on "
            f"{r['python_decisions']} of them" for r in rows]
    return "\n".join(out)

