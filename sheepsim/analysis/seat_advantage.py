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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import SheepsimError
from ..games import get_game
from ..policies import seat_specs
from ..report import plots
from ..report import findings as F
from ..report.markdown import Report
from ..runner import simulate, versions
from ..start import policy_data
from ..stats import tables as T
from .definition import player_counts

KEYS = ("players", "policies", "games", "options")


@dataclass
class Cell:
    label: str
    players: int
    policy: str
    games: int
    rules: Any
    specs: list


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
        command: str = "") -> Path:
    game = get_game(spec["game"])
    name = spec["name"]
    unit = game.turn_unit
    figures = (reports / name).absolute()      # the report links figures relative to itself
    figures.mkdir(parents=True, exist_ok=True)
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
    # a p-value that underflows is "tiny", never "0"
    edges["chi2_p"] = ["n/a" if p != p else f"{p:.3g}" if p > 1e-300 else "< 1e-300" for p in edges["chi2_p"]]
    seats = pd.concat([t.assign(cell=label) for label, t in seat_tables.items()], ignore_index=True)
    lengths = pd.concat([T.length_table(df).assign(cell=label) for label, df in results.items()], ignore_index=True)
    margins = pd.concat([T.margin_table(df).loc[lambda m: m.iloc[:, 0] == "all"].assign(cell=label)
                         for label, df in results.items()], ignore_index=True)

    report = Report(spec.get("title", f"{game.title}: seat advantage"), {
        "game": game.name, "game_version": game.version,
        "rules": {c.label: c.rules.as_dict() for c in cells},
        "policies": sorted({c.policy for c in cells}), "seed": spec["seed"],
        "games": {c.label: c.games for c in cells}, "packages": versions(), "command": command,
    }, description=spec.get("description"))
    report.headline(headline(edges))
    report.findings(_findings(edges, lengths, results, seat_tables, unit))
    report.heading("Seat advantage")
    report.table(edges[["cell", "games", "decided", "edge", "edge_lo", "edge_hi", "draw_rate", "draw_rate_lo",
                        "draw_rate_hi", "chi2_p"]], percent=["draw_rate"], points=["edge"],
                 caption="seat-0 edge: seat 0's win rate minus the fair 1/P over decided games, in percentage "
                         "points (95% Wilson); the chi-square tests sole wins by seat against equal seats")
    policies = list(dict.fromkeys(c.policy for c in cells))
    if len(policies) == 1:
        report.figure(plots.forest_plot(seat_tables, figures / "seats.png", f"{game.title}: win rate by seat"),
                      "Each seat's win rate minus its fair 1/P, in percentage points, with 95% Wilson whiskers "
                      "(all seats play the named policy).")
    else:
        # one group of whiskers per cell made a figure 2,160 px tall for 15 cells: seat 0's
        # edge against the policy, a line per player count, reads the same numbers at a glance
        plots.remove(figures / "seats.png")
        report.figure(_edge_by_policy(cells, edges, policies, figures, game.title),
                      "Seat 0's win rate minus the fair 1/P, in percentage points, with 95% Wilson whiskers and "
                      "ribbons, by the policy every seat plays (in the analysis file's order), one line per player "
                      "count; each seat's share is in the table below.")
    report.table(seats[["cell", "seat", "decided", "wins", "shared", "win_rate", "win_rate_lo", "win_rate_hi"]],
                 caption="each seat's share of the decided games (sole wins, 95% Wilson); shared: the games it tied")
    report.heading(f"Game length ({unit})")
    report.table(lengths[["cell", "games", "mean", "mean_lo", "mean_hi", "median", "median_lo", "median_hi", "q25",
                          "q75", "p90", "p99", "capped_rate", "capped_rate_lo", "capped_rate_hi"]],
                 headers={"mean": f"mean {unit}", "median": f"median {unit}"},
                 caption=f"length in {unit}; mean with a normal 95% interval, median with a bootstrap one; "
                         f"capped games stopped at the turn cap")
    report.figure(plots.length_plot(results, figures / "length.png", f"{game.title}: game length", unit),
                  f"Cumulative share of games by length ({unit}), cut at the 99th percentile.")
    report.heading("How the games felt")
    feel = pd.DataFrame([{"cell": label, **T.experience_row(df)} for label, df in results.items()])
    report.table(feel, percent=["decided_share", "comeback"], headers=T.EXPERIENCE_HEADERS,
                 caption=T.EXPERIENCE_CAPTION)
    if T.level_note(feel):
        report.paragraph(T.level_note(feel))
    report.heading("Final scores and margin of victory")
    report.figure(plots.score_plot(results, figures / "scores.png", f"{game.title}: final score by seat"),
                  "Final score by seat, one panel per player count (box: quartiles; whiskers: 5-95%; dot: mean).")
    report.table(margins.drop(columns=[margins.columns[0]]).set_index("cell").reset_index()
                 .rename(columns={"games": "decided"}),
                 headers={"mean": "mean margin", "median": "median margin"},
                 caption="margin = the winner's score minus the best other score, decided games; tied top "
                         "score = decided by the tie-break")
    report.figure(plots.margin_plot(results, figures / "margins.png", f"{game.title}: margin of victory"),
                  "Margin of victory in decided games.")
    if all("tiebreak" in df for df in results.values()):
        report.heading("How often the tie-break decides")
        tb = pd.concat([T.tiebreak_rate(df).assign(cell=label) for label, df in results.items()], ignore_index=True)
        report.table(tb[["cell", "games", "tiebreak", "tiebreak_rate", "tiebreak_rate_lo", "tiebreak_rate_hi",
                         "shared", "shared_rate", "shared_rate_lo", "shared_rate_hi"]],
                     headers={"shared": "shared games"},
                     caption="tie-break: the top score was tied and the largest herd decided; shared: still tied")
    report.paragraph("Run time: " + ", ".join(f"{k} {v:.1f}s" for k, v in seconds.items()) + ".")
    report.replays([r for cell in cells for r in replays(game, cell, results[cell.label], spec, unit)])
    return report.write(reports / f"{name}.md")


def _edge_by_policy(cells: list[Cell], edges: pd.DataFrame, policies: list[str], figures: Path, title: str) -> Path:
    """Seat 0's edge against the policy every seat plays, one line per player count."""
    edge = edges.set_index("cell")
    lines, counts = {}, {}
    for players in dict.fromkeys(c.players for c in cells):
        mine = [c for c in cells if c.players == players]
        rows = edge.loc[[c.label for c in mine]]
        lines[f"{players} players"] = ([c.policy for c in mine], rows["edge"].to_numpy(), rows["edge_lo"].to_numpy(),
                                       rows["edge_hi"].to_numpy(), 0.0)
        counts[f"{players} players"] = rows["decided"].to_numpy()
    return plots.lines_plot(lines, figures / "seat0-edge.png", f"{title}: seat 0's edge by policy",
                            "policy (every seat)", n=counts,
                            edge="seat 0's edge over 1/P (points)")


def replays(game, cell: Cell, df: pd.DataFrame, spec: dict[str, Any], unit: str) -> list[dict[str, Any]]:
    """Three games of one run worth watching (tables.worth_watching) as replay records
    (report/saved.py)."""
    base = {"game": game.name, "players": cell.players, "options": dict(spec.get("options", {})),
            "policies": [s.label for s in cell.specs], "seed": spec["seed"], "rotate": True, "run": cell.label}
    return T.worth_watching(df, unit, base)


def _findings(edges: pd.DataFrame, lengths: pd.DataFrame, results: dict[str, pd.DataFrame],
              seat_tables: dict[str, pd.DataFrame], unit: str) -> list[str]:
    """A line per cell on seat 0's edge (and on unequal seats when the chi-square says
    so); the range of lengths; degenerate cells."""
    lines = [f"**{row.cell}**: {F.edge_words(row.edge, row.edge_lo, row.edge_hi, row.fair)}, over "
             f"{row.decided:,} decided games: {F.verdict(row.edge_lo, row.edge_hi)}"
             f"{F.unequal_seats(seat_tables[row.cell], row.edge_lo, row.edge_hi)}."
             for row in edges.itertuples()]
    short, long = lengths.loc[lengths["median"].idxmin()], lengths.loc[lengths["median"].idxmax()]
    lines.append(f"Games last a median of {short['median']:g} {unit} ({short['cell']}) to {long['median']:g} "
                 f"({long['cell']}); the 99th percentile reaches {lengths['p99'].max():g}.")
    return lines + F.degenerate_lines(results, unit)


def headline(edges: pd.DataFrame) -> str:
    """The answer to "how big is seat 0's edge, and how does it change with the
    policies (in the order the analysis lists them, e.g. weakest first)": per player count, the edge under the first and the last
    policy, and under which policies seat 0 is favoured, at a disadvantage or neither."""
    def edge(row) -> str:
        return F.points(row.edge, row.edge_lo, row.edge_hi, signed=True)
    several = edges["policy"].nunique() > 1
    parts = []
    for players, rows in edges.groupby("players", sort=False):
        first, last = rows.iloc[0], rows.iloc[-1]
        if len(rows) > 1:
            text = (f"{players} players from {edge(first)} points under {first.policy} to {edge(last)} "
                    f"under {last.policy}")
        else:
            text = f"at {players} players {edge(first)} points" + (f" under {first.policy}" if several else "")
        sides: dict[str, list[str]] = {}
        for row in rows.itertuples():
            side = "favoured" if row.edge_lo > 0 else "at a disadvantage" if row.edge_hi < 0 else "no detectable edge"
            sides.setdefault(side, []).append(row.policy)
        if len(sides) > 1:
            text += " (" + "; ".join(f"{side} under {', '.join(who)}" for side, who in sides.items()) + ")"
        else:
            text += f" ({next(iter(sides))}{' under every policy' if len(rows) > 1 else ''})"
        parts.append(text)
    lead = ("Seat 0's edge over the fair share, from the first policy listed to the last: " if several else
            f"Seat 0's edge over the fair share under {edges['policy'].iloc[0]}: ")
    return lead + "; ".join(parts) + "."
