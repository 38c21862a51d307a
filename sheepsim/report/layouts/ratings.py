"""The ratings report (analysis/ratings.py): Bradley-Terry ratings of a round robin,
each pair's win rate, cycles and the pairwise results the ratings' order contradicts."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ...runner import versions
from .. import findings as F
from .. import plots
from ..markdown import Report


@dataclass
class Plan:
    game: Any
    rules: Any
    labels: list[str]
    games: int
    bootstrap: int


@dataclass
class Ratings:
    plan: Plan
    table: pd.DataFrame                 # each policy's rating with its bootstrap interval, best first
    rate: np.ndarray                    # [i, j]: i's win rate against j (draws half), with its Wilson bounds
    lo: np.ndarray
    hi: np.ndarray
    played: np.ndarray                  # [i, j]: the games of the pair
    loop: list[int] | None              # a cycle of significant wins, or None
    against: list[tuple[int, int]]      # (i, j): i beats j significantly, yet is rated below it
    seconds: dict[tuple[int, int], float]   # each pair's run time


def layout(spec: dict[str, Any], data: Ratings, figures: Path, command: str) -> Report:
    p, table, rate, lo, hi, played, loop = data.plan, data.table, data.rate, data.lo, data.hi, data.played, data.loop
    seed, game, seconds = spec["seed"], p.game, data.seconds
    said = [f"{p.labels[i]} beats {p.labels[j]} {F.share(rate[i, j], lo[i, j], hi[i, j])}" for i, j in data.against]
    report = Report(spec.get("title", f"{game.title}: ratings"), {
        "game": game.name, "game_version": game.version, "rules": p.rules.as_dict(), "policies": p.labels,
        "seed": seed, "games": {"per pair": p.games}, "bootstrap": p.bootstrap, "packages": versions(),
        "command": command,
    }, description=spec.get("description"))
    report.headline(_headline(table, said))
    report.findings(_findings(table, loop, p.labels, said))
    report.heading("Ratings")
    report.table(table, headers={"rating": "rating (Elo scale)", "mean_win_rate": "mean win rate"},
                 percent=["mean_win_rate"],
                 caption=f"Bradley-Terry maximum likelihood on the Elo scale, {p.labels[0]} at 0; 95% parametric "
                         f"bootstrap intervals ({p.bootstrap} resamples); mean win rate over its pairs, draws half")
    order = [p.labels.index(x) for x in table["policy"]]
    report.figure(plots.heatmap(rate[np.ix_(order, order)], list(table["policy"]), list(table["policy"]),
                                figures / "pairs.png", f"{game.title}: win rate of the row against the column",
                                "against", "policy", centre=0.5, lo=lo[np.ix_(order, order)],
                                hi=hi[np.ix_(order, order)], value_label="row's win rate",
                                n=played[np.ix_(order, order)]),
                  "Each pair's win rate (row against column, draws half), rows and columns by rating; a cell whose "
                  "95% Wilson interval holds 50% is drawn neutral.")
    report.paragraph("Run time: " + ", ".join(f"{p.labels[i]} v {p.labels[j]} {s:.0f}s"
                                              for (i, j), s in seconds.items()) + ".")
    return report


def _headline(table: pd.DataFrame, said: list[str]) -> str:
    """Who rates highest, and whether a significant pairwise result contradicts the order."""
    top, second = table.iloc[0], table.iloc[1]
    apart = "clearly apart" if top.rating_lo > second.rating_hi else "their intervals overlap"
    text = f"Highest rating: {top.policy}, {top.rating - second.rating:.0f} Elo above {second.policy} ({apart}); "
    if said:
        return text + (f"the ratings' order is contradicted by {len(said)} significant pairwise "
                       f"result{'s' if len(said) > 1 else ''} ({'; '.join(said)}).")
    return text + "no significant pairwise result contradicts the ratings' order."


def _findings(table: pd.DataFrame, loop: list[int] | None, labels: list[str], said: list[str]) -> list[str]:
    """said: the significant pairwise results the ratings' order contradicts, in words."""
    top, bottom = table.iloc[0], table.iloc[-1]
    lines = [f"Strongest: **{top.policy}**, {top.rating - bottom.rating:.0f} Elo above the weakest, {bottom.policy} "
             f"(ratings with 95% intervals below)."]
    for a, b in zip(table.itertuples(), table.iloc[1:].itertuples()):
        apart = a.rating_lo > b.rating_hi
        lines.append(f"{a.policy} {a.rating:+.0f} [{a.rating_lo:+.0f}, {a.rating_hi:+.0f}] against {b.policy} "
                     f"{b.rating:+.0f} [{b.rating_lo:+.0f}, {b.rating_hi:+.0f}]: "
                     f"{'clearly ahead' if apart else 'intervals overlap'}.")
    if loop:
        lines.append("**A cycle**: " + " beats ".join(labels[i] for i in loop) + ", each significantly: no single "
                     "ranking fits these results, and the ratings average over it.")
    elif said:
        lines.append("No cycle: no set of policies beats each other in a circle significantly, so some order fits "
                     "every significant pairwise result, but not the ratings' order.")
    else:
        lines.append("No cycle: no set of policies beats each other in a circle significantly, and the ratings' "
                     "order is consistent with every significant pairwise result.")
    lines += [f"**Against the ratings' order**: {x}, yet is rated below it (95% Wilson interval above 50%)."
              for x in said]
    return lines
