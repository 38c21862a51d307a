"""The skill-ladder report (analysis/ladder.py): each doubling of the search budget
against the budget below, and each budget against a fixed opponent."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ...runner import versions
from .. import findings as F
from .. import plots
from ..markdown import Report


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


@dataclass
class Ladder:
    plan: Plan
    steps: pd.DataFrame             # each doubling: strong (2b) against weak (b), its win rate and run time
    anchors: pd.DataFrame           # each budget that played against `against`
    policies: list[str]             # every SPEC that played, the opponent last


def layout(spec: dict[str, Any], data: Ladder, figures: Path, command: str) -> Report:
    p, steps, anchors = data.plan, data.steps, data.anchors
    seed, game = spec["seed"], p.game
    report = Report(spec.get("title", f"{game.title}: skill ladder"), {
        "game": game.name, "game_version": game.version, "rules": p.rules.as_dict(), "players": p.players,
        "policies": data.policies, "seed": seed,
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
    return report


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
