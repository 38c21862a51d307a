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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import SheepsimError
from ..games import get_game
from ..policies import parse_spec, seat_specs
from ..report import findings as F
from ..report import plots
from ..report.markdown import Report
from ..runner import simulate, versions
from ..start import policy_data
from ..stats import tables as T

KEYS = ("players", "policy", "start", "limit", "games", "against", "against_games", "options")


@dataclass
class Plan:
    game: Any
    rules: Any
    players: int
    policy: str
    budgets: list[int]          # the budgets the ladder may reach: start, 2 start, ... <= limit
    games: int
    against: str
    against_games: int


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


def run(spec: dict[str, Any], p: Plan, reports: Path, threads: int | None, progress: bool, command: str = "") -> Path:
    name, seed, game = spec["name"], spec["seed"], p.game
    figures = (reports / name).absolute()
    figures.mkdir(parents=True, exist_ok=True)
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
    steps, anchors = pd.DataFrame(steps), pd.DataFrame(anchors)

    report = Report(spec.get("title", f"{game.title}: skill ladder"), {
        "game": game.name, "game_version": game.version, "rules": p.rules.as_dict(), "players": p.players,
        "policies": [with_iters(p.policy, b) for b in played] + [p.against], "seed": seed,
        "games": {"per step": p.games, "against": p.against_games}, "packages": versions(), "command": command,
    }, description=spec.get("description"))
    report.headline(_headline(steps, p))
    report.findings(_findings(steps, anchors, p))
    fair = 1.0 / p.players
    report.figure(plots.lines_plot(
        {"2b against b": ([str(b) for b in steps["budget"]], steps["win_rate"], steps["win_rate_lo"],
                          steps["win_rate_hi"], fair)},
        figures / "ladder.png", f"{game.title}, {p.players} players: doubling the budget b", "budget b (iterations)",
        n={"2b against b": steps["decided"].to_numpy()}),
        f"Win rate of {p.policy} at 2b iterations in one seat against b in the other seat(s), decided games, "
        f"95% Wilson intervals; dashed: the fair 1/{p.players}.")
    report.heading("Each doubling")
    report.table(steps[["strong", "weak", "games", "decided", "win_rate", "win_rate_lo", "win_rate_hi", "seconds"]],
                 headers={"win_rate": "strong's win rate", "seconds": "run time (s)"},
                 caption=f"the stronger policy in one seat, the weaker in the other {p.players - 1}; seats rotated; "
                         f"win rate of decided games against the fair {fair:.1%}")
    report.heading(f"Each budget against {p.against}")
    report.figure(plots.lines_plot(
        {f"b against {p.against}": ([str(b) for b in anchors["budget"]], anchors["win_rate"],
                                    anchors["win_rate_lo"], anchors["win_rate_hi"], fair)},
        figures / "against.png", f"{game.title}, {p.players} players: budget b against {p.against}",
        "budget b (iterations)", n={f"b against {p.against}": anchors["decided"].to_numpy()}),
        f"Win rate of {p.policy} at b iterations in one seat against {p.against} in the other seat(s).")
    report.table(anchors[["policy", "games", "decided", "win_rate", "win_rate_lo", "win_rate_hi", "seconds"]],
                 headers={"seconds": "run time (s)"})
    total = steps["seconds"].sum() + anchors["seconds"].sum()
    report.paragraph(f"Run time: {total:.0f} s in all ({p.games:,} games a step, {p.against_games:,} against "
                     f"{p.against}).")
    return report.write(reports / f"{name}.md")


def _rates(row: pd.Series) -> dict[str, float]:
    return {"games": int(row["games"]), "decided": int(row["decided"]), "win_rate": float(row["win_rate"]),
            "win_rate_lo": float(row["win_rate_lo"]), "win_rate_hi": float(row["win_rate_hi"]),
            "fair": float(row["fair_rate"])}


def _headline(steps: pd.DataFrame, p: Plan) -> str:
    """Whether doubling the budget still pays at the top of the ladder."""
    last = steps.iloc[-1]
    b = int(last["budget"])
    won = (f"{2 * b} against {b} iterations wins {F.share(last['win_rate'], last['win_rate_lo'], last['win_rate_hi'])} "
           f"of decided games (fair {1.0 / p.players:.1%})")
    if last["win_rate_lo"] > 1.0 / p.players:
        return f"Doubling {p.policy}'s iterations still pays at the top of the ladder: {won}."
    return f"Doubling {p.policy}'s iterations stops paying, at this many games, at about {b} iterations: {won}."


def _findings(steps: pd.DataFrame, anchors: pd.DataFrame, p: Plan) -> list[str]:
    fair = 1.0 / p.players
    lines = []
    for s in steps.itertuples():
        verdict = "a significant gain" if s.win_rate_lo > fair else "no significant gain"
        lines.append(f"**{2 * s.budget} against {s.budget} iterations**: {F.share(s.win_rate, s.win_rate_lo, s.win_rate_hi)} "
                     f"of {s.decided:,} decided games (fair {fair:.1%}): {verdict} ({s.seconds:.0f} s).")
    last = steps.iloc[-1]
    if last["win_rate_lo"] > fair:
        lines.append(f"Skill still pays at the limit: every doubling up to {2 * int(last['budget'])} iterations "
                     f"won significantly more often; the ladder stopped at its limit ({p.budgets[-1]}).")
    else:
        lines.append(f"Skill stops paying, at this many games, at about {int(last['budget'])} iterations: "
                     f"{2 * int(last['budget'])} does not beat {int(last['budget'])} significantly.")
    best = anchors.loc[anchors["win_rate"].idxmax()]
    lines.append(f"Against {p.against}: from {F.share(anchors['win_rate'].iloc[0], anchors['win_rate_lo'].iloc[0], anchors['win_rate_hi'].iloc[0])} "
                 f"at {int(anchors['budget'].iloc[0])} iterations to {F.share(best['win_rate'], best['win_rate_lo'], best['win_rate_hi'])} "
                 f"at {int(best['budget'])}.")
    return lines
