"""Policy-parameter sweeps: a focal player against a field, best responses, equilibria.

Cell (P, x, y): one seat plays `policy:param=x`, the other P - 1 seats play
`field_policy:param=y`; the focal slot is rotated over every seat. All cells use the
same seed, so game g has the same deal and the same per-seat luck in every cell
(common random numbers), and a difference between two settings is estimated from
paired games.

Best response to a field y: the set of x whose paired difference to the best x is
not significantly below 0 (one-sided, Bonferroni over the candidates: multiple
comparison with the best), never a single argmax. A symmetric equilibrium
candidate is a y that lies in the best-response set to itself. Each candidate's best
set is then re-run against it on fresh seeds (a different seed); the candidate is a
confirmed equilibrium only when it stays in its own best-response set there, and the
follow-up (every seat at one setting) is played only at a confirmed equilibrium.

A fixed field: `field = "SPEC"` (instead of field_policy and field_values) has the
other P - 1 seats play that one SPEC, say Pig's `optimal` against `hold:t=x`. The field's
own policy is then also played in the focal slot on the same seeds, and each x gets its
regret against the field: the focal win rate lost by playing x rather than the field's
policy, the mean paired difference with its 95% interval. There is no equilibrium to look
for: the field is not one of the swept settings.
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
from ..policies import parse_spec, seat_specs
from ..report.markdown import Report, format_interval
from ..runner import simulate, versions
from ..start import policy_data
from .definition import player_counts
from ..stats.intervals import wilson_interval

KEYS = ("players", "policy", "param", "values", "field_policy", "field_values", "field", "games",
        "confirm_games", "options", "confidence")


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

    def field_spec(self, y: float | None) -> str:
        """The SPEC the field plays in column y."""
        return self.field if self.field is not None else _spec(self.game.name, self.field_policy, self.param, y)


def _spec(game: str, policy: str, param: str, value: float) -> str:
    return f"{policy}:{param}={value:g}"


def plan(spec: dict[str, Any], scale: float) -> Plan:
    game = get_game(spec["game"])
    for key in ("policy", "param", "values"):
        if key not in spec:
            raise SheepsimError(f"a policy_sweep needs `{key}`; keys: {', '.join(KEYS)}")
    values = [float(v) for v in spec["values"]]
    field = spec.get("field")
    if field is not None:
        if not isinstance(field, str):
            raise SheepsimError(f'`field` must be a policy SPEC, e.g. field = "optimal", not {field!r}')
        clash = [k for k in ("field_policy", "field_values") if k in spec]
        if clash:
            raise SheepsimError(f"give `field` (one SPEC for the other seats) or `{clash[0]}` (the field swept over "
                                f"`param`), not both")
        field_values: list = [None]                          # one column: the fixed field
    else:
        field_values = [float(v) for v in spec.get("field_values", values)]
    players = player_counts(spec, game)
    p = Plan(game, players, spec["policy"], spec.get("field_policy", spec["policy"]), spec["param"], values,
             field_values, max(1, round(spec.get("games", 2000) * scale)),
             max(1, round(spec.get("confirm_games", spec.get("games", 2000)) * scale)),
             dict(spec.get("options", {})), float(spec.get("confidence", 0.95)), field)
    focals = [_spec(game.name, p.policy, p.param, v) for v in values] + ([field] if field is not None else [])
    for n in players:
        rules = game.make_rules(n, p.options)               # validates players and options now
        for x in focals:
            for y in field_values:
                # the SPECs parse, and the policies can play these rules (Pig's optimal)
                policy_data(game, rules, seat_specs(game.name, [x] + [p.field_spec(y)] * (n - 1), n))
    if not 0.5 < p.confidence < 1:
        raise SheepsimError(f"confidence={p.confidence} must lie between 0.5 and 1")
    return p


def focal_outcomes(game, rules, focal: str, field: str, games: int, seed: int, threads) -> np.ndarray:
    """Per-game result of the focal slot, in game order: 1 it won, 0 a field seat won, -1
    no sole winner."""
    specs = [parse_spec(game.name, focal)] + [parse_spec(game.name, field)] * (rules.num_players - 1)
    df = simulate(game, rules, specs, games, seed, threads).results
    p = rules.num_players
    # with rotation, slot 0 (focal) sits on seat (-g) mod P in game g
    focal_seat = (-df["game"].to_numpy()) % p
    winner = df["winner"].to_numpy()
    return np.where(winner < 0, -1, winner == focal_seat).astype(np.int8)


def focal_wins(game, rules, focal: str, field: str, games: int, seed: int, threads) -> np.ndarray:
    """Per-game result of the focal slot (1 win, 0 otherwise), in game order."""
    return (focal_outcomes(game, rules, focal, field, games, seed, threads) == 1).astype(np.int8)


def regret(own: np.ndarray, wins: np.ndarray, z: float = 1.96) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each row's regret against `own`, the focal slot's wins when it plays the field's own
    policy on the same seeds: mean of own - wins per game, with a normal interval of
    half-width z standard errors (paired, so common random numbers narrow it)."""
    d = own[None, :].astype(float) - wins
    mean = d.mean(axis=1)
    se = d.std(axis=1, ddof=1) / np.sqrt(d.shape[1]) if d.shape[1] > 1 else np.full(len(d), np.inf)
    return mean, mean - z * se, mean + z * se


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


def follow_up_at(checks: list[Check]) -> Check | None:
    """The confirmed equilibrium to play every seat at: the one closest to being its own
    best response on fresh seeds (largest gap, 0 when it is the fresh best), the lower
    setting on a tie; None when no candidate was confirmed."""
    confirmed = [c for c in checks if c.confirmed]
    return max(confirmed, key=lambda c: (c.gap, -c.field)) if confirmed else None


def run(spec: dict[str, Any], p: Plan, reports: Path, threads, progress: bool, command: str = "") -> Path:
    from ..report import plots
    name = spec["name"]
    seed = int(spec["seed"])
    figures = (reports / name).absolute()
    figures.mkdir(parents=True, exist_ok=True)
    game = p.game
    report = Report(spec.get("title", f"{game.title}: {p.policy} sweep"), {
        "game": game.name, "game_version": game.version,
        "rules": {n: game.make_rules(n, p.options).as_dict() for n in p.players},
        "policies": [f"{p.policy}:{p.param}=x vs field " +
                     (p.field if p.field is not None else f"{p.field_policy}:{p.param}=y")],
        "seed": (f"{seed} (every cell, and {p.field} in the focal slot)" if p.field is not None else
                 f"{seed} (every cell), {seed + 1} (fresh-seed checks), {seed + 2} (games at the equilibrium)"),
        "games": (f"{p.games:,} per cell" if p.field is not None else
                  f"{p.games:,} per cell; {p.confirm_games:,} per fresh-seed check and per equilibrium follow-up"),
        "packages": versions(), "command": command,
    }, description=spec.get("description"))
    q = p.param
    weak: dict[int, list[float]] = {}
    answers: list[str] = []
    for n in p.players:
        rules = game.make_rules(n, p.options)
        outcomes = np.zeros((len(p.values), len(p.field_values), p.games), dtype=np.int8)
        for j, y in enumerate(p.field_values):
            if progress:
                print(f"{name}: {n} players, field {p.field_spec(y)} ...", file=sys.stderr, flush=True)
            for i, x in enumerate(p.values):
                outcomes[i, j] = focal_outcomes(game, rules, _spec(game.name, p.policy, q, x), p.field_spec(y),
                                                p.games, seed, threads)
        wins = (outcomes == 1).astype(np.int8)
        rate = wins.mean(axis=2)
        lo, hi = wilson_interval(wins.sum(axis=2), p.games)
        keep = np.zeros(rate.shape, dtype=bool)
        rows = []
        for j, y in enumerate(p.field_values):
            best, keep[:, j] = best_set(wins[:, j, :], p.confidence)
            rows.append({"field": p.field if p.field is not None else y, "best": p.values[best],
                         "best_rate": rate[best, j], "best_rate_lo": lo[best, j], "best_rate_hi": hi[best, j],
                         "best_set": [p.values[i] for i in np.flatnonzero(keep[:, j])]})
        br = pd.DataFrame(rows)
        # a fixed field is not one of the settings: nothing is a best response to itself
        equilibria = [] if p.field is not None else [r["field"] for r in rows if r["field"] in r["best_set"]]
        checks = _confirm(game, rules, p, br, equilibria, seed + 1, threads)
        at = follow_up_at(checks)
        report.heading(f"{n} players")
        own = None
        if p.field is not None:
            # the field's own policy in the focal slot, on the same seeds: what each x is
            # measured against (its regret)
            if progress:
                print(f"{name}: {n} players, {p.field} in the focal slot ...", file=sys.stderr, flush=True)
            own = focal_wins(game, rules, p.field, p.field, p.games, seed, threads)
        regrets = None
        if len(p.field_values) == 1:
            regrets = _single_field(report, p, n, outcomes[:, 0, :], figures, game, own)
        else:
            marks = np.zeros(rate.shape, dtype=bool)
            for c in checks:
                if c.confirmed and c.field in p.values:
                    marks[p.values.index(c.field), p.field_values.index(c.field)] = True
            heat = plots.heatmap(rate, p.values, p.field_values, figures / f"heatmap-{n}p.png",
                                 f"{game.title}, {n} players: win rate of {p.policy}:{q}=x against a field of "
                                 f"{p.field_policy}:{q}=y (n={p.games:,} per cell)",
                                 xlabel=f"field {q} (y)", ylabel=f"focal {q} (x)", centre=1 / n, lo=lo, hi=hi,
                                 outline=keep, outline_label="best-response set of the column",
                                 marks=marks, marks_label="equilibrium confirmed on fresh seeds",
                                 value_label=f"focal win rate (white: the fair {1 / n:.0%})", n=p.games)
            report.figure(heat, f"Win rate of one {p.policy}:{q}=x player against {n - 1} "
                                f"{p.field_policy}:{q}=y players; white is the fair {1 / n:.1%} and so is every "
                                f"cell whose 95% interval holds it. Boxed: each field's best-response set; star: "
                                f"an equilibrium confirmed on fresh seeds. Each cell {p.games:,} games with the "
                                f"focal player rotated over the seats.")
            note = _diagonal_note(p, n, outcomes, lo, hi)
            if note:
                report.paragraph(note)
        report.table(br.assign(best_set=br["best_set"].map(lambda v: ", ".join(f"{x:g}" for x in v))),
                     headers={"field": "field" if p.field is not None else f"field {q}", "best": f"best {q}",
                              "best_rate": "its win rate",
                              "best_set": f"best-response set ({q} not significantly worse)"},
                     caption=f"best response to each field: every {q} not significantly worse than the best at "
                             f"{p.confidence:.0%} (paired on common seeds, Bonferroni)")
        if checks:
            report.heading(f"Fresh-seed check, {n} players", level=3)
            report.table(pd.DataFrame([{
                "field": c.field, "candidates": ", ".join(f"{x:g}" for x in c.candidates), "best": c.best,
                "best_rate": c.rate[0], "best_rate_lo": c.rate[1], "best_rate_hi": c.rate[2],
                "kept": ", ".join(f"{x:g}" for x in c.kept), "gap": c.gap, "confirmed": c.confirmed}
                for c in checks]), points=["gap"],
                headers={"field": f"field {q}", "candidates": "re-run", "best": f"fresh best {q}",
                         "best_rate": "its win rate", "kept": "fresh best-response set",
                         "gap": "field's gap to the fresh best (points)", "confirmed": "confirmed"},
                caption=f"each candidate's best-response set re-run on {p.confirm_games:,} fresh games; a candidate "
                        f"is confirmed only when it stays in its own best-response set, i.e. against a field of "
                        f"itself it is not significantly worse than the fresh best at {p.confidence:.0%} (paired)")
        report.findings([_equilibrium_text(p, n, br, equilibria, checks, at, regrets)])
        answers.append(_answer(p, n, br, checks))
        weak[n] = _degenerate_fields(p, n, br)
        if at is not None:
            line = _play_at(report, game, rules, _spec(game.name, p.field_policy, q, at.field),
                            p.confirm_games, seed + 2, threads, figures, n, at)
            report.findings([line])
    report.findings(_degenerate_text(p, weak))
    report.headline(_headline(p, answers))
    return report.write(reports / f"{name}.md")


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


def _play_at(report: Report, game, rules, spec: str, games: int, seed: int, threads, figures: Path, n: int,
             at: Check) -> str:
    """Seat advantage, game length and capped games when every seat plays `spec`; the
    findings line it returns says the same in one sentence."""
    from ..policies import seat_specs
    from ..report import findings as F
    from ..report import plots
    from ..stats import tables as T
    unit = game.turn_unit
    df = simulate(game, rules, seat_specs(game.name, [spec], n), games, seed, threads, metrics=True).results
    seats = T.seat_table(df)
    edge = T.seat0_edge(df)
    length = T.length_table(df).iloc[0]
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
    report.table(seats[["seat", "decided", "wins", "win_rate", "win_rate_lo", "win_rate_hi"]])
    report.table(pd.DataFrame([T.experience_row(df)]), percent=["decided_share", "comeback"],
                 headers=T.EXPERIENCE_HEADERS, caption=T.EXPERIENCE_CAPTION)
    defaults = {o.name: o.default for o in game.options}
    base = {"game": game.name, "players": n,
            "options": {k: v for k, v in rules.as_dict().items() if k in defaults and v != defaults[k]},
            "policies": [spec] * n, "seed": seed, "rotate": True, "run": f"{n}p, every seat {spec}"}
    report.replays(T.worth_watching(df, unit, base))
    report.figure(plots.length_plot({f"{n}p {spec}": df}, figures / f"length-{n}p.png",
                                    f"{game.title}: game length, {n} players, {spec}", unit),
                  f"Cumulative share of games by length ({unit}), {n} players, every seat {spec}, cut at the "
                  f"99th percentile.")
    return (f"**{n} players, every seat at {spec}**: {text}" +
            (" Those games' lengths and results are the cap's, not the game's." if capped else ""))


def _single_field(report: Report, p: Plan, n: int, outcomes: np.ndarray, figures: Path, game,
                  own: np.ndarray | None = None) -> pd.DataFrame | None:
    """Against one field: every setting with its interval and paired gap to the best; with
    `own` (a fixed field's policy in the focal slot, same seeds) also the field's win rate
    and each setting's regret. Returns that table (None without `own`)."""
    from ..report import plots
    field = p.field_spec(p.field_values[0])
    wins = (outcomes == 1).astype(np.int8)
    games = wins.shape[1]
    rate = wins.mean(axis=1)
    lo, hi = wilson_interval(wins.sum(axis=1), games)
    best, keep = best_set(wins, p.confidence)
    gap = [(wins[i].astype(float) - wins[best]).mean() for i in range(len(p.values))]
    table = pd.DataFrame({p.param: p.values, "win_rate": rate, "win_rate_lo": lo, "win_rate_hi": hi})
    headers = {"gap": "gap to the best (points)", "in_best_set": "in the best set"}
    caption = ("gap to the best: mean per-game difference in win rate to the best setting on the same seeds "
               "(common random numbers), in percentage points")
    if own is not None:
        field_wins = (outcomes == 0).sum(axis=1)
        f_lo, f_hi = wilson_interval(field_wins, games)
        r, r_lo, r_hi = regret(own, wins)
        table = table.assign(field_rate=field_wins / games, field_rate_lo=f_lo, field_rate_hi=f_hi,
                             regret=r, regret_lo=r_lo, regret_hi=r_hi)
        headers.update(win_rate=f"win rate against {field}",
                       field_rate=f"{field}'s win rate" if n == 2 else f"the {field} seats' win rate",
                       regret=f"regret against {field} (points)")
        caption += (f"; regret: the win rate lost by playing {p.policy}:{p.param}=x instead of {field} itself, "
                    f"the mean paired difference with its 95% interval. In the focal slot on these seeds {field} "
                    f"won {own.mean():.1%} (in expectation, with seats rotated, the fair {1 / n:.1%} of the games "
                    f"with a sole winner); every regret shares that luck, so the regrets move together and their "
                    f"differences are the gaps to the best")
    table = table.assign(gap=gap, in_best_set=keep)
    report.figure(plots.sweep_plot(p.values, rate, lo, hi, keep, figures / f"sweep-{n}p.png",
                                   f"{game.title}: {p.policy}:{p.param}=x against {field}"
                                   f" (n={games:,} per point)", f"{p.param} (x)", fair=1 / n, n=games),
                  f"Win rate of {p.policy}:{p.param}=x against {field}; circled: the "
                  f"settings not significantly worse than the best.")
    report.table(table, points=["gap", "regret"], headers=headers, caption=caption)
    return table if own is not None else None


def _confirm(game, rules, p: Plan, br: pd.DataFrame, equilibria: list[float], seed: int, threads) -> list[Check]:
    """Re-run the best set against each equilibrium field on fresh seeds."""
    checks = []
    for y in equilibria:
        cands = br.loc[br["field"] == y, "best_set"].iloc[0]
        wins = np.stack([focal_wins(game, rules, _spec(game.name, p.policy, p.param, x),
                                    _spec(game.name, p.field_policy, p.param, y), p.confirm_games, seed, threads)
                         for x in cands])
        best, keep = best_set(wins, p.confidence)
        lo, hi = wilson_interval(int(wins[best].sum()), wins.shape[1])
        own = cands.index(y)
        checks.append(Check(y, list(cands), cands[best], (float(wins[best].mean()), lo, hi),
                            [cands[i] for i in np.flatnonzero(keep)],
                            float((wins[own].astype(float) - wins[best]).mean())))
    return checks


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
    from ..report.findings import share

    def pts(r) -> str:
        return format_interval(100 * r["regret"], 100 * r["regret_lo"], 100 * r["regret_hi"], floatfmt=".1f")
    low, high = t.loc[t["regret"].idxmin()], t.loc[t["regret"].idxmax()]
    who = f"{p.field} wins" if n == 2 else f"the {p.field} seats together win"
    return (f"Regret against {p.field} (the win rate lost by playing {p.policy}:{p.param}=x instead of {p.field}): "
            f"smallest at {p.param} = {low[p.param]:g}, {pts(low)} points, largest at {p.param} = "
            f"{high[p.param]:g}, {pts(high)} points. Against {p.policy}:{p.param}={low[p.param]:g}, {who} "
            f"{share(low['field_rate'], low['field_rate_lo'], low['field_rate_hi'])}.")


def _degenerate_fields(p: Plan, n: int, br: pd.DataFrame) -> list[float]:
    """Fields so weak that their best response (almost) always wins: degenerate cells."""
    from ..report.findings import ALWAYS
    return list(br.loc[br["best_rate"] >= ALWAYS, "field"])


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
