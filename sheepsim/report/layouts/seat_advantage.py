"""The seat-advantage report (analysis/seat_advantage.py): seat 0's edge per cell, each
seat's share, game length, how the games felt, final scores and margins, tie-breaks."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ...runner import versions
from ...stats import tables as T
from .. import findings as F
from .. import plots
from ..markdown import Report


@dataclass
class Cell:
    label: str
    players: int
    policy: str
    games: int
    rules: Any
    specs: list


@dataclass
class SeatAdvantage:
    """What a seat-advantage run found, cell by cell (each table has a `cell` column)."""
    game: Any                           # the GameSpec
    cells: list[Cell]
    results: dict[str, pd.DataFrame]    # each cell's per-game results, by label: the figures draw them
    seconds: dict[str, float]           # each cell's run time
    seat_tables: dict[str, pd.DataFrame]    # tables.seat_table of each cell
    edges: pd.DataFrame                 # seat 0's edge, draws and the chi-square p of each cell
    seats: pd.DataFrame                 # every seat's share of each cell
    lengths: pd.DataFrame
    margins: pd.DataFrame
    feel: pd.DataFrame                  # the experience metrics
    tiebreak: pd.DataFrame | None       # how often the tie-break decides (None: a game without one)
    replays: list[dict[str, Any]]


def layout(spec: dict[str, Any], data: SeatAdvantage, figures: Path, command: str) -> Report:
    game, cells, results, seat_tables = data.game, data.cells, data.results, data.seat_tables
    unit = game.turn_unit
    edges = data.edges
    report = Report(spec.get("title", f"{game.title}: seat advantage"), {
        "game": game.name, "game_version": game.version,
        "rules": {c.label: c.rules.as_dict() for c in cells},
        "policies": sorted({c.policy for c in cells}), "seed": spec["seed"],
        "games": {c.label: c.games for c in cells}, "packages": versions(), "command": command,
    }, description=spec.get("description"))
    report.headline(headline(edges))
    report.findings(_findings(edges, data.lengths, results, seat_tables, unit))
    report.heading("Seat advantage")
    # a p-value that underflows is "tiny", never "0"
    shown = edges.assign(chi2_p=["n/a" if p != p else f"{p:.3g}" if p > 1e-300 else "< 1e-300"
                                 for p in edges["chi2_p"]])
    report.table(shown[["cell", "games", "decided", "edge", "edge_lo", "edge_hi", "draw_rate", "draw_rate_lo",
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
    report.table(data.seats[["cell", "seat", "decided", "wins", "shared", "win_rate", "win_rate_lo", "win_rate_hi"]],
                 caption="each seat's share of the decided games (sole wins, 95% Wilson); shared: the games it tied")
    report.heading(f"Game length ({unit})")
    report.table(data.lengths[["cell", "games", "mean", "mean_lo", "mean_hi", "median", "median_lo", "median_hi",
                               "q25", "q75", "p90", "p99", "capped_rate", "capped_rate_lo", "capped_rate_hi"]],
                 headers={"mean": f"mean {unit}", "median": f"median {unit}"},
                 caption=f"length in {unit}; mean with a normal 95% interval, median with a bootstrap one; "
                         f"capped games stopped at the turn cap")
    report.figure(plots.length_plot(results, figures / "length.png", f"{game.title}: game length", unit),
                  f"Cumulative share of games by length ({unit}), cut at the 99th percentile.")
    report.heading("How the games felt")
    report.table(data.feel, percent=["decided_share", "comeback"], headers=T.EXPERIENCE_HEADERS,
                 caption=T.EXPERIENCE_CAPTION)
    if T.level_note(data.feel):
        report.paragraph(T.level_note(data.feel))
    report.heading("Final scores and margin of victory")
    report.figure(plots.score_plot(results, figures / "scores.png", f"{game.title}: final score by seat"),
                  "Final score by seat, one panel per player count (box: quartiles; whiskers: 5-95%; dot: mean).")
    margins = data.margins
    report.table(margins.drop(columns=[margins.columns[0]]).set_index("cell").reset_index()
                 .rename(columns={"games": "decided"}),
                 headers={"mean": "mean margin", "median": "median margin"},
                 caption="margin = the winner's score minus the best other score, decided games; tied top "
                         "score = decided by the tie-break")
    report.figure(plots.margin_plot(results, figures / "margins.png", f"{game.title}: margin of victory"),
                  "Margin of victory in decided games.")
    if data.tiebreak is not None:
        report.heading("How often the tie-break decides")
        report.table(data.tiebreak[["cell", "games", "tiebreak", "tiebreak_rate", "tiebreak_rate_lo",
                                    "tiebreak_rate_hi", "shared", "shared_rate", "shared_rate_lo",
                                    "shared_rate_hi"]],
                     headers={"shared": "shared games"},
                     caption="tie-break: the top score was tied and the largest herd decided; shared: still tied")
    report.paragraph("Run time: " + ", ".join(f"{k} {v:.1f}s" for k, v in data.seconds.items()) + ".")
    report.replays(data.replays)
    return report


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
