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

from typing import Any

from .search.bench import _logs, _search_name
from .timing import numba_threads, timed as _timed


REFERENCE_ITERS = 256       # the yardstick: plain mcts (random rollouts) at this budget
COST_GAMES = 4              # self-play games that time an agent's decision
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


def agent_row(game, spec: str, games: int, threads: int) -> dict[str, Any]:
    """`spec`'s cost per decision (1 thread) and its strength at equal time: its win
    rate over `games` 2-player games (seats rotated, decided games, Wilson 95%) against
    the game's mcts (or ismcts) with random rollouts at the iterations that cost as much
    a decision, REFERENCE_ITERS scaled by the two measured costs."""
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
    iters = max(1, round(REFERENCE_ITERS * cost / reference_cost))
    opponent = parse_spec(game.name, f"{_search_name(game)}:iters={iters}").label
    df = simulate(game, rules, seat_specs(game.name, [label, opponent], players), games, 1, threads,
                  notify=None).results
    row = policy_table(df).set_index("policy").loc[label]
    lo, hi = wilson_interval(int(row["wins"]), int(row["decided"]))
    return {"game": game.name, "agent": label, "ms_per_decision": 1000 * cost, "decisions_per_s": 1 / cost,
            "reference": reference, "reference_ms_per_decision": 1000 * reference_cost, "equal_time": opponent,
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
            f"{r['equal_time']} costs about what {r['agent']} does" for r in rows]
    return "\n".join(out)
