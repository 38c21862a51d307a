"""The policy-sweep report (analysis/sweep.py): per player count the heat map of a swept
field or the curve against one field, the best responses, the fresh-seed checks of the
equilibrium candidates and the games every seat plays at the confirmed one; the
regrets against a fixed field. Here too the sweep's plan and its checks, which the
sweep fills."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ...runner import versions
from ...stats import tables as T
from .. import findings as F
from .. import plots
from ..markdown import Report, format_interval


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
    field: str | None = None        # a fixed field SPEC (`field`), instead of field_policy:param=y
    outside: tuple[str, ...] = ()    # SPECs played against the equilibrium (`outside`)
    outside_games: int = 0
    strongest: str | None = None     # the strongest player found, on the first strongest_games of them
    strongest_games: int = 0

    @property
    def beyond(self) -> list[str]:
        """Every SPEC played against the equilibrium, outside the family."""
        return list(self.outside) + ([self.strongest] if self.strongest else [])

    def field_spec(self, y: float | None) -> str:
        """The SPEC the field plays in column y."""
        return self.field if self.field is not None else spec_of(self.field_policy, self.param, y)


def spec_of(policy: str, param: str, value: float) -> str:
    return f"{policy}:{param}={value:g}"


@dataclass
class Check:
    """The fresh-seed check of one equilibrium candidate y: its best-response set is
    re-run on new seeds against a field of y."""
    field: float
    candidates: list[float]
    best: float                  # the fresh seeds' best response to y
    rate: tuple[float, float, float]     # its win rate with the Wilson interval
    kept: list[float]            # not significantly worse than it on the fresh seeds
    gap: float                   # y's paired win-rate difference to the fresh best (<= 0)

    @property
    def confirmed(self) -> bool:
        """y is still a best response to itself on fresh seeds: only then is it called a
        confirmed equilibrium."""
        return self.field in self.kept


@dataclass
class FollowUp:
    """Every seat at the confirmed equilibrium `spec`: its games and their tables."""
    spec: str
    results: pd.DataFrame        # the per-game results: the length figure draws them
    seats: pd.DataFrame          # tables.seat_table
    edge: dict[str, float]       # tables.seat0_edge
    length: pd.Series            # tables.length_table's row
    feel: pd.DataFrame           # tables.experience_row, as a table
    replays: list[dict[str, Any]]


@dataclass
class Outside:
    """Policies outside the swept family against a field of the confirmed equilibrium."""
    field: str                   # the equilibrium's SPEC, every other seat
    own: tuple[float, float, float]      # its own win rate in the focal slot on the same games, Wilson interval
    table: pd.DataFrame          # per SPEC: win_rate (_lo, _hi) and gain (_lo, _hi), paired against `own`


@dataclass
class Count:
    """One player count of a sweep."""
    players: int
    outcomes: np.ndarray         # [value, field, game]: the focal slot's result (1 won, 0 lost, -1 no sole winner)
    rate: np.ndarray             # [value, field] focal win rates, with their Wilson bounds
    lo: np.ndarray
    hi: np.ndarray
    keep: np.ndarray             # [value, field]: in the field's best-response set
    responses: pd.DataFrame      # each field's best response and best-response set
    equilibria: list[float]      # the fields in their own best-response set (the candidates)
    checks: list[Check]
    at: Check | None             # the confirmed equilibrium every seat then plays
    single: pd.DataFrame | None  # against one field: each setting's win rate, gap (and regret against a fixed field)
    own_rate: float | None       # a fixed field's own policy in the focal slot: its win rate
    follow: FollowUp | None
    outside: Outside | None = None


@dataclass
class Sweep:
    plan: Plan
    seed: int
    rules: dict[int, Any]        # by player count
    counts: list[Count]


def layout(spec: dict[str, Any], data: Sweep, figures: Path, command: str) -> Report:
    p, seed, game = data.plan, data.seed, data.plan.game
    report = Report(spec.get("title", f"{game.title}: {p.policy} sweep"), {
        "game": game.name, "game_version": game.version,
        "rules": {n: data.rules[n].as_dict() for n in p.players},
        "policies": [f"{p.policy}:{p.param}=x vs field " +
                     (p.field if p.field is not None else f"{p.field_policy}:{p.param}=y")],
        "seed": (f"{seed} (every cell, and {p.field} in the focal slot)" if p.field is not None else
                 f"{seed} (every cell), {seed + 1} (fresh-seed checks), {seed + 2} (games at the equilibrium)"
                 + (f", {seed + 3} (policies outside the family)" if p.beyond else "")),
        "games": (f"{p.games:,} per cell" if p.field is not None else
                  f"{p.games:,} per cell; {p.confirm_games:,} per fresh-seed check and per equilibrium follow-up"
                  + (f"; {p.outside_games:,} per policy outside the family" if p.outside else "")
                  + (f"; {p.strongest_games:,} for {p.strongest}, the first of them" if p.strongest else "")),
        "packages": versions(), "command": command,
    }, description=spec.get("description"))
    q = p.param
    for c in data.counts:
        n, checks = c.players, c.checks
        report.heading(f"{n} players")
        regrets = None
        if len(p.field_values) == 1:
            regrets = _single_field(report, p, n, c, figures)
        else:
            marks = np.zeros(c.rate.shape, dtype=bool)
            for k in checks:
                if k.confirmed and k.field in p.values:
                    marks[p.values.index(k.field), p.field_values.index(k.field)] = True
            heat = plots.heatmap(c.rate, p.values, p.field_values, figures / f"heatmap-{n}p.png",
                                 f"{game.title}, {n} players: win rate of {p.policy}:{q}=x against a field of "
                                 f"{p.field_policy}:{q}=y (n={p.games:,} per cell)",
                                 xlabel=f"field {q} (y)", ylabel=f"focal {q} (x)", centre=1 / n, lo=c.lo, hi=c.hi,
                                 outline=c.keep, outline_label="best-response set of the column",
                                 marks=marks, marks_label="equilibrium confirmed on fresh seeds",
                                 value_label=f"focal win rate (white: the fair {1 / n:.0%})", n=p.games)
            report.figure(heat, f"Win rate of one {p.policy}:{q}=x player against {n - 1} "
                                f"{p.field_policy}:{q}=y players; white is the fair {1 / n:.1%} and so is every "
                                f"cell whose 95% interval holds it. Boxed: each field's best-response set; star: "
                                f"an equilibrium confirmed on fresh seeds. Each cell {p.games:,} games with the "
                                f"focal player rotated over the seats.")
            note = _diagonal_note(p, n, c.outcomes, c.lo, c.hi)
            if note:
                report.paragraph(note)
        br = c.responses
        report.table(br.assign(best_set=br["best_set"].map(lambda v: ", ".join(f"{x:g}" for x in v))),
                     headers={"field": "field" if p.field is not None else f"field {q}", "best": f"best {q}",
                              "best_rate": "its win rate",
                              "best_set": f"best-response set ({q} not significantly worse)"},
                     caption=f"best response to each field: every {q} not significantly worse than the best at "
                             f"{p.confidence:.0%} (paired on common seeds, Bonferroni)")
        if checks:
            report.heading(f"Fresh-seed check, {n} players", level=3)
            report.table(pd.DataFrame([{
                "field": k.field, "candidates": ", ".join(f"{x:g}" for x in k.candidates), "best": k.best,
                "best_rate": k.rate[0], "best_rate_lo": k.rate[1], "best_rate_hi": k.rate[2],
                "kept": ", ".join(f"{x:g}" for x in k.kept), "gap": k.gap, "confirmed": k.confirmed}
                for k in checks]), points=["gap"],
                headers={"field": f"field {q}", "candidates": "re-run", "best": f"fresh best {q}",
                         "best_rate": "its win rate", "kept": "fresh best-response set",
                         "gap": "field's gap to the fresh best (points)", "confirmed": "confirmed"},
                caption=f"each candidate's best-response set re-run on {p.confirm_games:,} fresh games; a candidate "
                        f"is confirmed only when it stays in its own best-response set, i.e. against a field of "
                        f"itself it is not significantly worse than the fresh best at {p.confidence:.0%} (paired)")
        report.findings([_equilibrium_text(p, n, br, c.equilibria, checks, c.at, regrets)])
        if c.follow is not None:
            report.findings([_play_at(report, game, c.follow, figures, n)])
        if c.outside is not None:
            report.findings([_outside(report, p, n, c.outside)])
    report.findings(_degenerate_text(p, {c.players: _degenerate_fields(c.responses) for c in data.counts}))
    report.headline(_headline(p, [_answer(p, c.players, c.responses, c.checks) for c in data.counts])
                    + _beyond(p, [c for c in data.counts if c.outside is not None]))
    return report


def _diagonal_note(p: Plan, n: int, outcomes: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> str:
    """Why a self-play cell (focal x = field y) is not at the fair 1/P, in words. Every seat
    plays the same there and seats rotate, so the focal player wins 1/P of the games some
    seat wins alone; a win rate counts every game, so the games with no sole winner (a
    shared win, a game stopped by the turn cap) pull it below 1/P. Each cell whose interval
    lies below 1/P is named with that share and the rate it implies, or, when the implied
    rate is outside its interval too, as chance; "" when there are none."""
    q = p.param
    explained, chance = [], []
    for i, x in enumerate(p.values):
        if x not in p.field_values:
            continue
        j = p.field_values.index(x)
        if hi[i, j] >= 1 / n:           # at the fair share (above it only by chance)
            continue
        none = float((outcomes[i, j] == -1).mean())
        rate = f"{q} = {x:g}: {(outcomes[i, j] == 1).mean():.1%}"
        if lo[i, j] <= (1 - none) / n <= hi[i, j]:
            explained.append(f"{rate}, with no sole winner in {none:.1%} of the games, so (1 - {none:.1%}) / {n} = "
                             f"{(1 - none) / n:.1%} expected")
        else:
            chance.append(f"{rate} ({none:.1%} without a sole winner)")
    if not explained and not chance:
        return ""
    text = f"Self-play cells (focal {q} = field {q}) below the fair {1 / n:.1%}: "
    if explained:
        text += (f"every seat plays the same and seats rotate, so the focal player wins 1/{n} of the games some seat "
                 f"wins alone, and the win rate counts the games without a sole winner (shared wins, games stopped "
                 f"by the turn cap) as not won. " + "; ".join(explained) + ". ")
    if chance:
        text += (("Not explained so: " if explained else "") + "; ".join(chance) + ", below by chance: the cells "
                 f"share their seeds, so one unlucky run of deals shows in several ({p.games:,} games a cell).")
    return text.strip()


def _play_at(report: Report, game, follow: FollowUp, figures: Path, n: int) -> str:
    """Seat advantage, game length and capped games when every seat plays the confirmed
    equilibrium; the findings line it returns says the same in one sentence."""
    unit, spec, df, edge, length = game.turn_unit, follow.spec, follow.results, follow.edge, follow.length
    capped = share_capped = ""
    if length["capped"]:
        share_capped = F.share(length["capped_rate"], length["capped_rate_lo"], length["capped_rate_hi"])
        capped = f"; {share_capped} of games hit the turn cap"
    text = (f"{F.edge_words(edge['edge'], edge['edge_lo'], edge['edge_hi'], 1 / n)} ({len(df):,} games). Games "
            f"last {length['mean']:.1f} {unit} on average (median {length['median']:.0f}, 90th percentile "
            f"{length['p90']:.0f}, 99th {length['p99']:.0f})" +
            (f" with {df['draws'].mean():.1f} blind draws" if "draws" in df else "") + (capped or
            "; no game hit the turn cap") + ".")
    report.heading(f"{n} players, every seat playing {spec}", level=3)
    report.paragraph(f"Played at {spec}, the confirmed equilibrium closest to being its own best response on "
                     f"fresh seeds. " + text[0].upper() + text[1:])
    report.table(follow.seats[["seat", "decided", "wins", "win_rate", "win_rate_lo", "win_rate_hi"]])
    report.table(follow.feel, percent=["decided_share", "comeback"],
                 headers=T.EXPERIENCE_HEADERS, caption=T.EXPERIENCE_CAPTION)
    report.replays(follow.replays)
    report.figure(plots.length_plot({f"{n}p {spec}": df}, figures / f"length-{n}p.png",
                                    f"{game.title}: game length, {n} players, {spec}", unit),
                  f"Cumulative share of games by length ({unit}), {n} players, every seat {spec}, cut at the "
                  f"99th percentile.")
    return (f"**{n} players, every seat at {spec}**: {text}" +
            (" Those games' lengths and results are the cap's, not the game's." if capped else ""))


def _gain(row) -> str:
    return format_interval(row["gain"], row["gain_lo"], row["gain_hi"], percent=True, signed=True)


def _outside(report: Report, p: Plan, n: int, o: Outside) -> str:
    """The table of the policies outside the family against the equilibrium field; the
    findings line it returns says whether one of them beats the equilibrium, by how much."""
    report.heading(f"{n} players, beyond {p.policy}: against a field of {o.field}", level=3)
    own = format_interval(*o.own, percent=True)
    games = (f"{p.outside_games:,} games each" if not p.strongest else
             f"{p.outside_games:,} games each, {p.strongest} the first {p.strongest_games:,} of them (a search agent: "
             f"its gain is paired with {o.field}'s own on those games)")
    report.table(o.table, points=["gain"],
                 headers={"policy": "in the focal slot", "win_rate": f"win rate against {o.field}",
                          "gain": f"gain over {o.field} itself (points)"},
                 caption=f"{games}, the focal slot rotated over the seats, on seeds of their own; {o.field} itself "
                         f"won {own} in the focal slot on all {p.outside_games:,} games, and each gain is the mean "
                         f"paired difference with its 95% interval")
    best = o.table.loc[o.table["gain"].idxmax()]
    words = ", ".join(f"{r.policy} {format_interval(r.win_rate, r.win_rate_lo, r.win_rate_hi, percent=True)} "
                      f"({_gain(r._asdict())} points)" for r in o.table.itertuples())
    verdict = (f"so {o.field} is an equilibrium among {p.policy} policies only: {best['policy']} beats it by "
               f"{_gain(best)} points" if best["gain_lo"] > 0 else
               f"no policy tested beats {o.field} significantly")
    return (f"**{n} players, beyond {p.policy}**: against a field of {o.field}, {words}, where {o.field} itself "
            f"wins {own} on the same games; {verdict}.")


def _beyond(p: Plan, counts: list[Count]) -> str:
    """The headline's second sentence: the best policy outside the family against each
    equilibrium, where one beats it."""
    parts = []
    for c in counts:
        best = c.outside.table.loc[c.outside.table["gain"].idxmax()]
        if best["gain_lo"] > 0:
            parts.append(f"at {c.players} players {best['policy']} by {_gain(best)} points")
    if not parts:
        return ""
    return (f" They are equilibria among {p.policy} policies only; outside that family the best policy tested "
            f"beats them: " + "; ".join(parts) + ".")


def _single_field(report: Report, p: Plan, n: int, c: Count, figures: Path) -> pd.DataFrame | None:
    """Against one field: every setting with its interval and paired gap to the best; with
    a fixed field also the field's win rate and each setting's regret. Returns that
    table (None without a fixed field)."""
    field = p.field_spec(p.field_values[0])
    table = c.single
    games = c.outcomes.shape[2]
    headers = {"gap": "gap to the best (points)", "in_best_set": "in the best set"}
    caption = ("gap to the best: mean per-game difference in win rate to the best setting on the same seeds "
               "(common random numbers), in percentage points")
    if c.own_rate is not None:
        headers.update(win_rate=f"win rate against {field}",
                       field_rate=f"{field}'s win rate" if n == 2 else f"the {field} seats' win rate",
                       regret=f"regret against {field} (points)")
        caption += (f"; regret: the win rate lost by playing {p.policy}:{p.param}=x instead of {field} itself, "
                    f"the mean paired difference with its 95% interval. In the focal slot on these seeds {field} "
                    f"won {c.own_rate:.1%} (in expectation, with seats rotated, the fair {1 / n:.1%} of the games "
                    f"with a sole winner); every regret shares that luck, so the regrets move together and their "
                    f"differences are the gaps to the best")
    report.figure(plots.sweep_plot(p.values, table["win_rate"].to_numpy(), table["win_rate_lo"].to_numpy(),
                                   table["win_rate_hi"].to_numpy(), table["in_best_set"].to_numpy(),
                                   figures / f"sweep-{n}p.png",
                                   f"{p.game.title}: {p.policy}:{p.param}=x against {field}"
                                   f" (n={games:,} per point)", f"{p.param} (x)", fair=1 / n, n=games),
                  f"Win rate of {p.policy}:{p.param}=x against {field}; circled: the "
                  f"settings not significantly worse than the best.")
    report.table(table, points=["gap", "regret"], headers=headers, caption=caption)
    return table if c.own_rate is not None else None


def _values(vs) -> str:
    vs = list(vs)
    return ", ".join(f"{v:g}" for v in vs[:-1]) + (" and " if len(vs) > 1 else "") + f"{vs[-1]:g}" if vs else ""


def _equilibrium_text(p: Plan, n: int, br: pd.DataFrame, equilibria: list[float], checks: list[Check],
                      at: Check | None, regrets: pd.DataFrame | None = None) -> str:
    q = p.param
    head = f"**{n} players**: "
    if len(p.field_values) == 1:
        row = br.iloc[0]
        head += (f"against {p.field_spec(p.field_values[0])} the best {q} is {row['best']:g}, winning "
                 f"{format_interval(row['best_rate'], row['best_rate_lo'], row['best_rate_hi'], percent=True)}; "
                 + (f"every other {q} is significantly worse (at {p.confidence:.0%}). " if len(row["best_set"]) == 1
                    else f"every {q} in {{{', '.join(f'{v:g}' for v in row['best_set'])}}} is not significantly "
                         f"worse (at {p.confidence:.0%}). "))
        if p.field is not None:
            return head + ("" if regrets is None else _regret_text(p, n, regrets))
        if not equilibria:
            return head + f"{q} = {row['field']:g} is not among the best, so it is not a best response to itself."
    if not equilibria:
        return _then(head, f"no {q} in this grid is a best response to itself: the symmetric equilibrium lies "
                           f"outside the grid, or the sets are too tight to include it.")
    confirmed = [c for c in checks if c.confirmed]
    text = (f"{'the candidate' if len(equilibria) == 1 else 'candidates'} for a symmetric equilibrium "
            f"({q} in its own best-response set on the sweep's seeds): {_values(equilibria)}. ")
    failed = [c for c in checks if not c.confirmed]
    if confirmed:
        text += (f"Fresh seeds confirm {_values(c.field for c in confirmed)}: against a field of "
                 f"{'itself it' if len(confirmed) == 1 else 'itself each'} is not significantly worse than the best "
                 f"response at {p.confidence:.0%} (paired), so it stays in its own best-response set; ")
    else:
        text += f"Fresh seeds confirm {'none of them' if len(failed) > 1 else 'no candidate'}: "
    if failed:
        text += "; ".join(f"{c.field:g} is not confirmed (against a field of {c.field:g}, {q} = {c.best:g} "
                                 f"significantly beats it on fresh seeds)" for c in failed)
    text = text.rstrip(":; ") + ". "
    if at is not None:
        text += (f"The follow-up below plays every seat at {q} = {at.field:g}"
                 + (" (on fresh seeds the best point estimate against itself)." if at.best == at.field else
                    f" (the confirmed candidate closest to its own best response: {q} = {at.best:g} is best against "
                    f"it on fresh seeds, but not significantly better)."))
    else:
        text += (f"With no confirmed equilibrium no follow-up is played: rerun with a larger --scale for "
                 f"tighter sets.")
    edges = {min(p.field_values), max(p.field_values)} & {c.field for c in confirmed}
    if edges:
        text += f" **{_values(sorted(edges))} lies on the edge of the grid: widen the grid before trusting it.**"
    return _then(head, text)


def _then(head: str, text: str) -> str:
    """head + text, text capitalised when head ends a sentence."""
    return head + (text[0].upper() + text[1:] if head.endswith(". ") else text)


def _answer(p: Plan, n: int, br: pd.DataFrame, checks: list[Check]) -> str:
    """One player count's part of the headline: the confirmed equilibria, or against a
    fixed field the best-response set."""
    if p.field is not None:
        return f"at {n} players {p.param} = {_values(br.iloc[0]['best_set'])}"
    confirmed = [c.field for c in checks if c.confirmed]
    return f"at {n} players {p.param} = {_values(confirmed)}" if confirmed else f"at {n} players none confirmed"


def _headline(p: Plan, answers: list[str]) -> str:
    """The sweep's answer in one sentence: its equilibria, or its best responses to a
    fixed field, per player count."""
    if p.field is not None:
        return (f"Against {p.field}, the best {p.policy}:{p.param} (every setting not significantly worse than the "
                f"best at {p.confidence:.0%}): " + "; ".join(answers) + ".")
    return (f"Symmetric equilibria of {p.policy}:{p.param} confirmed on fresh seeds (each, against a field of "
            f"itself, not significantly worse than the best response at {p.confidence:.0%}): "
            + "; ".join(answers) + ".")


def _regret_text(p: Plan, n: int, t: pd.DataFrame) -> str:
    """The smallest and the largest regret against a fixed field, and the field's win rate
    against the setting with the smallest."""
    def pts(r) -> str:
        return format_interval(100 * r["regret"], 100 * r["regret_lo"], 100 * r["regret_hi"], floatfmt=".1f")
    low, high = t.loc[t["regret"].idxmin()], t.loc[t["regret"].idxmax()]
    who = f"{p.field} wins" if n == 2 else f"the {p.field} seats together win"
    return (f"Regret against {p.field} (the win rate lost by playing {p.policy}:{p.param}=x instead of {p.field}): "
            f"smallest at {p.param} = {low[p.param]:g}, {pts(low)} points, largest at {p.param} = "
            f"{high[p.param]:g}, {pts(high)} points. Against {p.policy}:{p.param}={low[p.param]:g}, {who} "
            f"{F.share(low['field_rate'], low['field_rate_lo'], low['field_rate_hi'])}.")


def _degenerate_fields(br: pd.DataFrame) -> list[float]:
    """Fields so weak that their best response (almost) always wins: degenerate cells."""
    return list(br.loc[br["best_rate"] >= F.ALWAYS, "field"])


def _degenerate_text(p: Plan, weak: dict[int, list[float]]) -> list[str]:
    """One line per distinct set of degenerate fields, naming the player counts."""
    groups: dict[tuple, list[int]] = {}
    for n, fields in weak.items():
        if fields:
            groups.setdefault(tuple(fields), []).append(n)
    field = (lambda fields: p.field) if p.field is not None else (lambda fields: f"{p.param} = {_values(fields)}")
    return [f"**Degenerate cells** ({_values(ns)} players): against a field of {field(fields)} "
            f"the best response wins (nearly) every game, so such a field is never worth playing."
            for fields, ns in groups.items()]
