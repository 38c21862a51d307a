"""Skill ladder: how much does doubling a search agent's budget pay, and where does it stop?

For one game and player count, the budget doubles at each step (start, 2 x start, ...):
step b plays the search policy at 2b iterations in one seat against the same policy at
b in every other seat, seats rotated (every slot plays every seat equally often), on the
analysis seed, so every step sees the same deals (common random numbers). The ladder
stops at the first step whose gain is not significant (the 95% Wilson interval of 2b's
win rate over decided games reaches down to the fair 1/P) or when 2b would pass the
limit. Each budget that played also meets `against` (default: random) the same way, to
place the ladder on an absolute scale.

Analysis keys: players (one count), policy (a search SPEC without iters, e.g.
"mcts:rollout=greedy"), start, limit, games (per step), against, against_games, options.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import SheepsimError
from ..games import get_game
from ..policies import parse_spec, seat_specs
from ..report.layouts.ladder import Ladder, Plan
from ..report.layouts.ladder import layout  # the kind's report (definition.Kind)
from ..runner import simulate
from ..start import policy_data
from ..stats import tables as T

KEYS = ("players", "policy", "start", "limit", "games", "against", "against_games", "options")


def with_iters(policy: str, iters: int) -> str:
    """The SPEC `policy` at `iters` iterations."""
    return f"{policy}{',' if ':' in policy else ':'}iters={iters}"


def plan(spec: dict[str, Any], scale: float) -> Plan:
    game = get_game(spec["game"])
    players = spec.get("players", game.players[0])
    if not isinstance(players, int):
        raise SheepsimError("a skill ladder is for one player count: `players = N`")
    rules = game.make_rules(players, spec.get("options", {}))
    policy = spec.get("policy", "mcts")
    base = parse_spec(game.name, policy)            # unknown, refused or malformed: its own one-line error
    if "iters" not in base.policy.params:
        raise SheepsimError(f"a skill ladder doubles a search policy's `iters`: {policy!r} has none (use mcts or "
                            f"ismcts, e.g. policy = \"mcts:rollout=greedy\")")
    if "iters=" in policy:
        raise SheepsimError(f"give the ladder's policy without iters ({policy!r}): the ladder sets it")
    start, limit = spec.get("start", 16), spec.get("limit", 1024)
    for key, value in (("start", start), ("limit", limit)):
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 500_000:
            raise SheepsimError(f"`{key}` must be a whole number of iterations, 1..500000, not {value!r}")
    if limit < 2 * start:
        raise SheepsimError(f"the ladder's limit ({limit}) is below its first step, {start} against {2 * start} "
                            f"iterations: give limit >= {2 * start}")
    budgets = [start]
    while budgets[-1] * 2 <= limit:
        budgets.append(budgets[-1] * 2)
    games = spec.get("games", 10_000)
    if not isinstance(games, int):
        raise SheepsimError("`games` of a skill ladder is one number, the games per step")
    against = spec.get("against", "random")
    for b in budgets:                               # check every cell now, not after an hour
        policy_data(game, rules, [parse_spec(game.name, with_iters(policy, b)),
                                  *seat_specs(game.name, [against], players)])
    against_games = spec.get("against_games", games)
    return Plan(game, rules, players, policy, budgets, max(1, round(games * scale)), against,
                max(1, round(against_games * scale)))


def _cell(p: Plan, first: str, others: str, games: int, seed: int, threads: int | None,
          progress: bool) -> tuple[pd.Series, float]:
    """`first`'s win-rate row (policy_table) when it plays one seat against `others`."""
    specs = seat_specs(p.game.name, [first] + [others] * (p.players - 1), p.players)
    start = time.perf_counter()
    df = simulate(p.game, p.rules, specs, games, seed, threads, progress=progress).results
    seconds = time.perf_counter() - start
    table = T.policy_table(df).set_index("policy")
    return table.loc[specs[0].label], seconds


def run(spec: dict[str, Any], p: Plan, reports: Path, threads: int | None, progress: bool,
        command: str = "") -> Ladder:
    name, seed = spec["name"], spec["seed"]
    steps, anchors = [], []
    # compile the search kernel first (a cold cache takes a minute): a step's time is its games'
    _cell(p, with_iters(p.policy, p.budgets[0]), p.against, 1, seed, threads, False)
    for b in p.budgets[:-1]:
        strong, weak = with_iters(p.policy, 2 * b), with_iters(p.policy, b)
        if progress:
            print(f"{name}: {strong} against {weak}, {p.games:,} games ...", file=sys.stderr, flush=True)
        row, seconds = _cell(p, strong, weak, p.games, seed, threads, progress)
        steps.append({"budget": b, "strong": strong, "weak": weak, **_rates(row), "seconds": seconds})
        if not row["win_rate_lo"] > row["fair_rate"]:
            break
    played = sorted({s["budget"] for s in steps} | {2 * s["budget"] for s in steps})
    for b in played:
        policy = with_iters(p.policy, b)
        if progress:
            print(f"{name}: {policy} against {p.against}, {p.against_games:,} games ...", file=sys.stderr, flush=True)
        row, seconds = _cell(p, policy, p.against, p.against_games, seed, threads, progress)
        anchors.append({"budget": b, "policy": policy, **_rates(row), "seconds": seconds})
    return Ladder(p, pd.DataFrame(steps), pd.DataFrame(anchors), [with_iters(p.policy, b) for b in played] + [p.against])


def _rates(row: pd.Series) -> dict[str, float]:
    return {"games": int(row["games"]), "decided": int(row["decided"]), "win_rate": float(row["win_rate"]),
            "win_rate_lo": float(row["win_rate_lo"]), "win_rate_hi": float(row["win_rate_hi"]),
            "fair": float(row["fair_rate"])}
