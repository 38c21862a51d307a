"""Seat (first-player) advantage under given policies, with length, scores and margins.

Each cell is (player count, one policy for every seat): with the same policy on every
seat, any difference between seats is the seat itself (seat advantage depends on the
policies, so the report always says which). Rates are over decided games with 95%
Wilson intervals; draws are reported apart.

The runs tally the experience metrics (simulate --metrics) so that each run can name
three games worth watching, kept in the report's sidecar as replays (report/saved.py):
a typical game (the median length), the longest, and the biggest comeback (the largest
`drama`, the winner's summed deficit to the leader). `sheepsim report` links them.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import SheepsimError
from ..games import get_game
from ..policies import seat_specs
from ..report.layouts.seat_advantage import Cell, SeatAdvantage
from ..report.layouts.seat_advantage import layout  # the kind's report (definition.Kind)
from ..runner import simulate
from ..start import policy_data
from ..stats import tables as T
from .definition import player_counts

KEYS = ("players", "policies", "games", "options")


def plan(spec: dict[str, Any], scale: float) -> list[Cell]:
    game = get_game(spec["game"])
    games = spec.get("games", 10_000)
    options = spec.get("options", {})
    if not isinstance(options, dict):
        raise SheepsimError("`options` must be a table of rule options, e.g. options = { start_zone = \"any_edge\" }")
    cells = []
    for policy in spec.get("policies", ["random"]):
        # a count by the SPEC itself ("mcts:iters=256"), else by the policy's name, else `default`
        count = (games.get(policy, games.get(policy.split(":")[0], games.get("default")))
                 if isinstance(games, dict) else games)
        if not isinstance(count, int) or count <= 0:
            raise SheepsimError(f"games for policy {policy!r} must be a positive integer (games = N, or a table "
                                f"with one entry per policy SPEC or name, or `default`)")
        for players in player_counts(spec, game):
            rules = game.make_rules(players, options)
            specs = seat_specs(game.name, [policy], players)
            policy_data(game, rules, specs)         # the policies can play these rules (Pig's optimal)
            cells.append(Cell(f"{players}p {specs[0].label}", players, specs[0].label,
                              max(1, round(count * scale)), rules, specs))
    return cells


def run(spec: dict[str, Any], cells: list[Cell], reports: Path, threads: int | None, progress: bool,
        command: str = "") -> SeatAdvantage:
    game = get_game(spec["game"])
    name = spec["name"]
    unit = game.turn_unit
    results: dict[str, pd.DataFrame] = {}
    seconds = {}
    for cell in cells:
        if progress:
            print(f"{name}: {cell.label}, {cell.games:,} games ...", file=sys.stderr, flush=True)
        start = time.perf_counter()
        results[cell.label] = simulate(game, cell.rules, cell.specs, cell.games, spec["seed"], threads,
                                       metrics=True).results
        seconds[cell.label] = time.perf_counter() - start
    seat_tables = {label: T.seat_table(df) for label, df in results.items()}

    edges = pd.DataFrame([{"cell": label, "players": cell.players, "policy": cell.policy, "games": len(df),
                           **T.seat0_edge(df), "fair": st["fair_rate"].iloc[0],
                           "draw_rate": st.attrs["draw_rate"], "draw_rate_lo": st.attrs["draw_rate_lo"],
                           "draw_rate_hi": st.attrs["draw_rate_hi"], "chi2_p": st.attrs["chi2_p"]}
                          for cell, (label, df), st in zip(cells, results.items(), seat_tables.values())])
    seats = pd.concat([t.assign(cell=label) for label, t in seat_tables.items()], ignore_index=True)
    lengths = pd.concat([T.length_table(df).assign(cell=label) for label, df in results.items()], ignore_index=True)
    margins = pd.concat([T.margin_table(df).loc[lambda m: m.iloc[:, 0] == "all"].assign(cell=label)
                         for label, df in results.items()], ignore_index=True)
    feel = pd.DataFrame([{"cell": label, **T.experience_row(df)} for label, df in results.items()])
    tiebreak = (pd.concat([T.tiebreak_rate(df).assign(cell=label) for label, df in results.items()],
                          ignore_index=True) if all("tiebreak" in df for df in results.values()) else None)
    return SeatAdvantage(game, cells, results, seconds, seat_tables, edges, seats, lengths, margins, feel, tiebreak,
                         [r for cell in cells for r in replays(game, cell, results[cell.label], spec, unit)])


def replays(game, cell: Cell, df: pd.DataFrame, spec: dict[str, Any], unit: str) -> list[dict[str, Any]]:
    """Three games of one run worth watching (tables.worth_watching) as replay records
    (report/saved.py)."""
    base = {"game": game.name, "players": cell.players, "options": dict(spec.get("options", {})),
            "policies": [s.label for s in cell.specs], "seed": spec["seed"], "rotate": True, "run": cell.label}
    return T.worth_watching(df, unit, base)


