"""Policy-parameter sweeps: a focal player against a field, best responses, equilibria.

Cell (P, x, y): one seat plays `policy:param=x`, the other P - 1 seats play
`field_policy:param=y`; the focal slot is rotated over every seat. All cells use the
same seed, so game g has the same deal and the same per-seat luck in every cell
(common random numbers, ANALYSIS-GUIDE rule 3), and a difference between two
settings is estimated from paired games.

Best response to a field y: the set of x whose paired difference to the best x is
not significantly below 0 (one-sided, Bonferroni over the candidates: multiple
comparison with the best, rule 4), never a single argmax. A symmetric equilibrium
candidate is a y that lies in the best-response set to itself. The winner of each
best set is then re-run on fresh seeds (a different seed) to confirm it.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from statistics import NormalDist
from typing import Any

import numpy as np
import pandas as pd

from ..errors import SheepsimError
from ..games import get_game
from ..policies import parse_spec
from ..report.markdown import Report, format_interval
from ..runner import simulate, versions
from .stats import wilson_interval

KEYS = ("players", "policy", "param", "values", "field_policy", "field_values", "games", "confirm_games",
        "options", "confidence")


@dataclass
class Plan:
    game: Any
    players: list[int]
    policy: str
    field_policy: str
    param: str
    values: list[float]
    field_values: list[float]
    games: int
    confirm_games: int
    options: dict
    confidence: float


def _spec(game: str, policy: str, param: str, value: float) -> str:
    return f"{policy}:{param}={value:g}"


def plan(spec: dict[str, Any], scale: float) -> Plan:
    game = get_game(spec["game"])
    for key in ("policy", "param", "values"):
        if key not in spec:
            raise SheepsimError(f"a policy_sweep needs `{key}`; keys: {', '.join(KEYS)}")
    values = [float(v) for v in spec["values"]]
    field_values = [float(v) for v in spec.get("field_values", values)]
    players = list(spec.get("players", [game.players[0]]))
    p = Plan(game, players, spec["policy"], spec.get("field_policy", spec["policy"]), spec["param"], values,
             field_values, max(1, round(spec.get("games", 2000) * scale)),
             max(1, round(spec.get("confirm_games", spec.get("games", 2000)) * scale)),
             dict(spec.get("options", {})), float(spec.get("confidence", 0.95)))
    for n in players:
        game.make_rules(n, p.options)                       # validates players and options now
    for v in values:
        parse_spec(game.name, _spec(game.name, p.policy, p.param, v))
    for v in field_values:
        parse_spec(game.name, _spec(game.name, p.field_policy, p.param, v))
    if not 0.5 < p.confidence < 1:
        raise SheepsimError(f"confidence={p.confidence} must lie between 0.5 and 1")
    return p


def focal_wins(game, rules, focal: str, field: str, games: int, seed: int, threads) -> np.ndarray:
    """Per-game result of the focal slot (1 win, 0 otherwise), in game order."""
    specs = [parse_spec(game.name, focal)] + [parse_spec(game.name, field)] * (rules.num_players - 1)
    df = simulate(game, rules, specs, games, seed, threads).results
    p = rules.num_players
    # with rotation, slot 0 (focal) sits on seat (-g) mod P in game g
    focal_seat = (-df["game"].to_numpy()) % p
    return (df["winner"].to_numpy() == focal_seat).astype(np.int8)


def best_set(wins: np.ndarray, confidence: float) -> tuple[int, np.ndarray]:
    """Index of the best row and the mask of rows not significantly worse (paired).

    wins: [candidates, games] 0/1 outcomes on common random numbers.
    """
    means = wins.mean(axis=1)
    best = int(np.argmax(means))
    k = len(means)
    z = NormalDist().inv_cdf(1 - (1 - confidence) / max(1, k - 1))
    keep = np.zeros(k, dtype=bool)
    for i in range(k):
        d = wins[i].astype(float) - wins[best]
        se = d.std(ddof=1) / np.sqrt(len(d)) if len(d) > 1 else np.inf
        keep[i] = i == best or d.mean() + z * se >= 0
    return best, keep


def run(spec: dict[str, Any], p: Plan, reports: Path, threads, progress: bool) -> Path:
    from ..report import plots
    name = spec["name"]
    seed = int(spec["seed"])
    figures = (reports / name).absolute()
    figures.mkdir(parents=True, exist_ok=True)
    game = p.game
    report = Report(spec.get("title", f"{game.title}: {p.policy} sweep"), {
        "game": game.name, "game_version": game.version,
        "rules": {n: game.make_rules(n, p.options).as_dict() for n in p.players},
        "policies": [f"{p.policy}:{p.param}=x vs field {p.field_policy}:{p.param}=y"], "seed": seed,
        "games": f"{p.games:,} per cell; {p.confirm_games:,} per confirmation (seed {seed + 1})",
        "packages": versions(), "command": f"sheepsim run analyses/{name}.toml",
    })
    if spec.get("description"):
        report.paragraph(spec["description"])
    summary = []
    for n in p.players:
        rules = game.make_rules(n, p.options)
        wins = np.zeros((len(p.values), len(p.field_values), p.games), dtype=np.int8)
        for j, y in enumerate(p.field_values):
            if progress:
                print(f"{name}: {n} players, field {p.param}={y:g} ...", file=sys.stderr, flush=True)
            for i, x in enumerate(p.values):
                wins[i, j] = focal_wins(game, rules, _spec(game.name, p.policy, p.param, x),
                                        _spec(game.name, p.field_policy, p.param, y), p.games, seed, threads)
        rate = wins.mean(axis=2)
        rows = []
        for j, y in enumerate(p.field_values):
            best, keep = best_set(wins[:, j, :], p.confidence)
            rows.append({"field": y, "best": p.values[best], "best_rate": rate[best, j],
                         "best_set": [p.values[i] for i in np.flatnonzero(keep)]})
        br = pd.DataFrame(rows)
        equilibria = [r["field"] for r in rows if r["field"] in r["best_set"]]
        confirm, confirmed = _confirm(game, rules, p, br, equilibria, seed + 1, threads)
        summary.append((n, equilibria, confirm))
        report.heading(f"{n} players")
        if len(p.field_values) == 1:
            _single_field(report, p, n, wins[:, 0, :], figures, game)
        else:
            heat = plots.heatmap(rate, p.values, p.field_values, figures / f"heatmap-{n}p.png",
                                 f"{game.title}, {n} players: win rate of {p.policy}:{p.param}=x vs field "
                                 f"{p.field_policy}:{p.param}=y (n={p.games:,} per cell)",
                                 xlabel=f"field {p.param} (y)", ylabel=f"focal {p.param} (x)", fair=1 / n)
            report.figure(heat, f"Win rate of one {p.policy}:{p.param}=x player against {n - 1} "
                                f"{p.field_policy}:{p.param}=y players; the fair share is {1 / n:.1%}. "
                                f"Each cell {p.games:,} games with the focal player rotated over the seats; "
                                f"95% Wilson half-width at most {_halfwidth(p.games, n):.1%}.")
        br_table = br.assign(best_set=br["best_set"].map(lambda s: ", ".join(f"{v:g}" for v in s)))
        lo, hi = wilson_interval(np.round(br["best_rate"].to_numpy() * p.games), p.games)
        br_table["best_rate_lo"], br_table["best_rate_hi"] = lo, hi
        report.table(br_table[["field", "best", "best_rate", "best_rate_lo", "best_rate_hi", "best_set"]],
                     caption=f"best response to each field: `best_set` holds every {p.param} not significantly "
                             f"worse than the best at {p.confidence:.0%} (paired on common seeds, Bonferroni)")
        report.paragraph(_equilibrium_text(p, n, equilibria, confirm))
        if equilibria:
            # play at an equilibrium that fresh seeds confirmed, if any
            at = confirmed[0] if confirmed else equilibria[0]
            _play_at(report, game, rules, _spec(game.name, p.field_policy, p.param, at),
                     p.confirm_games, seed + 2, threads, figures, n)
    report.heading("Summary", level=2)
    report.paragraph("\n".join(f"- **{n} players**: symmetric equilibrium {p.param} in "
                               f"{{{', '.join(f'{v:g}' for v in eq) or 'none found'}}}"
                               + (f"; confirmed on fresh seeds: {c}" if c else "") for n, eq, c in summary))
    return report.write(reports / f"{name}.md")


def _play_at(report: Report, game, rules, spec: str, games: int, seed: int, threads, figures: Path, n: int) -> None:
    """Seat advantage, game length and capped games when every seat plays `spec`."""
    from ..report import plots
    from . import tables as T
    from ..policies import seat_specs
    df = simulate(game, rules, seat_specs(game.name, [spec], n), games, seed, threads).results
    seats = T.seat_table(df)
    edge = T.seat0_edge(df)
    length = T.length_table(df).iloc[0]
    capped = df["capped"].sum()
    clo, chi = wilson_interval(int(capped), len(df))
    report.heading(f"{n} players, every seat playing {spec}", level=3)
    report.paragraph(
        f"Seat 0 wins {format_interval(100 * edge['edge'], 100 * edge['edge_lo'], 100 * edge['edge_hi'], floatfmt='+.1f')}"
        f" percentage points more often than the fair {1 / n:.1%} ({len(df):,} games, seed {seed}). "
        f"Games last {length['mean']:.1f} turns on average (median {length['median']:g}, p90 {length['p90']:g}, "
        f"p99 {length['p99']:g})" + (f" and {df['draws'].mean():.1f} blind draws" if "draws" in df else "") +
        f"; {format_interval(capped / len(df), clo, chi, percent=True)} of games hit the turn cap.")
    report.table(seats[["seat", "decided", "wins", "win_rate", "win_rate_lo", "win_rate_hi"]])
    report.figure(plots.length_plot({f"{n}p {spec}": df}, figures / f"length-{n}p.png",
                                    f"{game.title}: game length, {n} players, {spec}"),
                  f"Cumulative share of games by length (turns), {n} players, every seat {spec}.")


def _single_field(report: Report, p: Plan, n: int, wins: np.ndarray, figures: Path, game) -> None:
    """Against one field: every setting with its interval and paired gap to the best."""
    from ..report import plots
    y = p.field_values[0]
    rate = wins.mean(axis=1)
    lo, hi = wilson_interval(wins.sum(axis=1), wins.shape[1])
    best, keep = best_set(wins, p.confidence)
    gap = [(wins[i].astype(float) - wins[best]).mean() for i in range(len(p.values))]
    table = pd.DataFrame({p.param: p.values, "win_rate": rate, "win_rate_lo": lo, "win_rate_hi": hi,
                          "paired_gap_to_best": gap, "in_best_set": keep})
    report.figure(plots.sweep_plot(p.values, rate, lo, hi, keep, figures / f"sweep-{n}p.png",
                                   f"{game.title}: {p.policy}:{p.param}=x against {p.field_policy}:{p.param}={y:g}"
                                   f" (n={wins.shape[1]:,} per point)", f"{p.param} (x)", fair=1 / n),
                  f"Win rate of {p.policy}:{p.param}=x against {p.field_policy}:{p.param}={y:g}; circled: the "
                  f"settings not significantly worse than the best.")
    report.table(table, caption="paired_gap_to_best: mean per-game difference to the best setting on the same "
                                "seeds (common random numbers)")


def _halfwidth(games: int, n: int) -> float:
    lo, hi = wilson_interval(round(games / n), games)
    return (hi - lo) / 2


def _confirm(game, rules, p: Plan, br: pd.DataFrame, equilibria: list[float], seed: int,
             threads) -> tuple[str, list[float]]:
    """Re-run the best set against each equilibrium field on fresh seeds; returns the
    text and the fields that stay in their own best set there."""
    parts = []
    confirmed = []
    for y in equilibria:
        cands = br.loc[br["field"] == y, "best_set"].iloc[0]
        wins = np.stack([focal_wins(game, rules, _spec(game.name, p.policy, p.param, x),
                                    _spec(game.name, p.field_policy, p.param, y), p.confirm_games, seed, threads)
                         for x in cands])
        best, keep = best_set(wins, p.confidence)
        rate = wins.mean(axis=1)
        lo, hi = wilson_interval(int(wins[best].sum()), wins.shape[1])
        if any(cands[i] == y for i in np.flatnonzero(keep)):
            confirmed.append(y)
        parts.append(f"against field {y:g}: best {cands[best]:g} "
                     f"({format_interval(rate[best], lo, hi, percent=True)}), "
                     f"set {{{', '.join(f'{cands[i]:g}' for i in np.flatnonzero(keep))}}}")
    return "; ".join(parts), confirmed


def _equilibrium_text(p: Plan, n: int, equilibria: list[float], confirm: str) -> str:
    if not equilibria:
        return (f"No {p.param} in this grid is a best response to itself with {n} players: the symmetric "
                f"equilibrium lies outside the grid or the sets are too tight to include it.")
    text = (f"Symmetric equilibrium candidates ({p.param} that is in its own best-response set): "
            f"{', '.join(f'{v:g}' for v in equilibria)}.")
    edges = {min(p.field_values), max(p.field_values)} & set(equilibria)
    if edges:
        text += (f" **{', '.join(f'{v:g}' for v in sorted(edges))} lies on the edge of the grid: widen the grid "
                 f"before trusting it.**")
    return text + (f" Fresh-seed confirmation: {confirm}." if confirm else "")
