"""`sheepsim bench --agent`'s rows: what a search agent's decision costs, and how strong
that time makes it. Per game and agent SPEC: its seconds a decision at 1 thread, every
seat playing it (COST_GAMES games timed after a compile run, their decisions counted
from the replays), and its win rate over 2-player games against the game's mcts (or
ismcts), random rollouts, at the iterations that cost as much a decision.

It plays whole runs (runner.simulate) and reads the policy table (stats/tables.py), so
it sits beside bench.py on the top layer; search/bench.py, the search rows, stays with
the agents it times.
"""

from __future__ import annotations

import math
from typing import Any

from .search.bench import _logs, _search_name
from .timing import numba_threads, timed as _timed


REFERENCE_ITERS = 256       # the yardstick: plain mcts (random rollouts) at this budget
COST_GAMES = 4              # self-play games that time an agent's decision
CLOSE = 0.1                 # the equal-time opponent's cost within 10% of the agent's ...
ROUNDS = 4                  # ... or after this many rescalings
_reference_costs: dict[str, float] = {}     # game -> REFERENCE_ITERS's seconds a decision, this process


def _cost(game, rules, spec: str, players: int) -> float:
    """Seconds per decision of `spec` playing every seat, 1 thread: COST_GAMES games
    timed (after a compile run), their decisions counted from the replays."""
    from .policies import seat_specs
    PL = game.play
    arr, aux = game.to_array(rules), game.initial_state(rules, None)
    specs = seat_specs(game.name, [spec], players)
    game.play_chunk(arr, aux, specs, True, 2, 0, 1)              # compile (or load)
    with numba_threads(1):
        seconds = _timed(lambda: game.play_chunk(arr, aux, specs, True, 2, 0, COST_GAMES))[0]
    decisions = sum(int((log[:, 0] >= 0).sum()) for log in _logs(PL, arr, aux, specs, 2, COST_GAMES))
    return seconds / decisions


def equal_iters(cost_at, target: float, guess: int) -> tuple[int, float]:
    """The opponent's iterations whose measured seconds a decision, cost_at(iters), come
    within CLOSE of `target`, and that cost (the closest tried, after ROUNDS more tries).
    From `guess` (REFERENCE_ITERS scaled by the two measured costs), each try follows
    the cost curve through the last two measured (a straight line in log-log: cost as
    a power of the iterations), the first as if linear. A deep tree costs more an
    iteration than a shallow one, so the linear guess alone gives a long search too much
    time (Hiboufou, one thread: against pimc:worlds=160,z=1's 10.4 ms a decision, 256
    iterations' 0.67 ms scaled said 4,002 iterations; measured, 2,882 cost 10.8 ms)."""
    tried = [(guess, cost_at(guess))]
    for _ in range(ROUNDS):
        n, c = tried[-1]
        if abs(c / target - 1) <= CLOSE:
            break
        power = 1.0
        if len(tried) >= 2 and tried[-2][0] != n and tried[-2][1] != c:
            # timing noise can bend a two-point slope: kept between a half and 3
            power = min(3.0, max(0.5, math.log(c / tried[-2][1]) / math.log(n / tried[-2][0])))
        nxt = max(1, round(n * (target / c) ** (1 / power)))
        if any(nxt == m for m, _ in tried):
            break
        tried.append((nxt, cost_at(nxt)))
    return min(tried, key=lambda t: abs(t[1] / target - 1))


def agent_row(game, spec: str, games: int, threads: int) -> dict[str, Any]:
    """`spec`'s cost per decision (1 thread) and its strength at equal time: its win
    rate over `games` 2-player games (seats rotated, decided games, Wilson 95%) against
    the game's mcts (or ismcts) with random rollouts at the iterations that cost as much
    a decision, measured (equal_iters)."""
    from .stats.intervals import wilson_interval
    from .stats.tables import policy_table
    from .policies import parse_spec, seat_specs
    from .runner import simulate
    label = parse_spec(game.name, spec).label
    players = 2 if 2 in game.players else game.players[0]
    rules = game.make_rules(players, {})
    cost = _cost(game, rules, label, players)
    reference = f"{_search_name(game)}:iters={REFERENCE_ITERS}"
    if game.name not in _reference_costs:           # one yardstick a game, however many agents
        _reference_costs[game.name] = _cost(game, rules, reference, players)
    reference_cost = _reference_costs[game.name]
    iters, opponent_cost = equal_iters(
        lambda n: _cost(game, rules, f"{_search_name(game)}:iters={n}", players), cost,
        max(1, round(REFERENCE_ITERS * cost / reference_cost)))
    opponent = parse_spec(game.name, f"{_search_name(game)}:iters={iters}").label
    df = simulate(game, rules, seat_specs(game.name, [label, opponent], players), games, 1, threads,
                  notify=None).results
    row = policy_table(df).set_index("policy").loc[label]
    lo, hi = wilson_interval(int(row["wins"]), int(row["decided"]))
    return {"game": game.name, "agent": label, "ms_per_decision": 1000 * cost, "decisions_per_s": 1 / cost,
            "reference": reference, "reference_ms_per_decision": 1000 * reference_cost, "equal_time": opponent,
            "equal_time_ms_per_decision": 1000 * opponent_cost,
            "games": games,
            "decided": int(row["decided"]), "win_rate": float(row["win_rate"]), "win_rate_lo": float(lo),
            "win_rate_hi": float(hi)}


def agents_table(rows: list[dict[str, Any]]) -> str:
    head = ["game", "agent", "ms/decision 1t", "decisions/s 1t", "equal-time opponent", "decided", "win rate [95%]"]
    body = [[r["game"], r["agent"], f"{r['ms_per_decision']:,.2f}", f"{r['decisions_per_s']:,.0f}", r["equal_time"],
             f"{r['decided']:,}", f"{100 * r['win_rate']:.1f}% [{100 * r['win_rate_lo']:.1f}, "
                                  f"{100 * r['win_rate_hi']:.1f}]"] for r in rows]
    widths = [max(len(x) for x in col) for col in zip(head, *body)]
    line = lambda cells: "  ".join(c.ljust(w) if i < 2 or i == 4 else c.rjust(w)  # noqa: E731
                                   for i, (c, w) in enumerate(zip(cells, widths)))
    out = ["", "agents: a decision's cost, and the strength it buys: the win rate of decided 2-player games "
               "against plain mcts or ismcts (random rollouts) given the same time a decision, seats rotated:",
           line(head), line(["-" * w for w in widths])]
    out += [line(b) for b in body]
    out += [f"{r['game']}: {r['reference']} costs {r['reference_ms_per_decision']:.2f} ms a decision; "
            f"{r['equal_time']} costs {r['equal_time_ms_per_decision']:.2f} ms, measured, where {r['agent']} costs "
            f"{r['ms_per_decision']:.2f}" for r in rows]
    return "\n".join(out)
