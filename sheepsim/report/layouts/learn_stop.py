"""The learned-stop report (analysis/learn_stop.py): per player count, how policy
iteration went and the table it learned (a map), every policy against the field, the
best state-dependent policy against the best fixed rule, self-play, and the calibration
against an exactly solved optimum."""

from __future__ import annotations

import itertools
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
    players: list[int]
    rules: dict[int, Any]
    games: int
    target: int
    per_game: int
    max_iterations: int
    confidence: float
    eval_games: int
    candidates: list[str]
    field: str | None
    strongest: str | None = None                # the strongest player found, on the first strongest_games
    strongest_games: int = 0


@dataclass
class Verdict:
    """The best state-dependent policy against the best fixed rule (indices into the
    evaluated names), each best as a set: the policies not significantly worse."""
    best_fixed: int
    fixed_set: list[int]
    fixed: list[int]                            # every fixed rule evaluated
    best_dependent: int
    dependent_set: list[int]
    dependent: list[int]
    gap: tuple[float, float, float]             # the best fixed rule's regret to the best dependent one (paired)
    learned_gap: tuple[float, float, float]     # the learned table's win rate minus the best fixed rule's


@dataclass
class Meeting:
    """Policies at one table against each other (2 players: a pair head to head)."""
    at: str                                     # the table in words
    names: list[str]                            # the policies compared, by slot
    rates: list[tuple[float, float, float]]     # each one's win rate with its Wilson interval
    gaps: list[tuple[int, int, float, float, float]]    # (i, j, i's win rate minus j's, paired interval)


@dataclass
class Calibration:
    """The learned table against the exactly solved optimum (GameSpec.stop_optimum)."""
    setting: str
    states: str
    threshold: str
    exact: float                                # the first player's share, optimal against optimal
    learned_exact: float                        # the learned table's, by policy evaluation
    fixed_exact: float                          # the fixed rule's
    diff: np.ndarray                            # the learned threshold's distance to the optimum's, by state


@dataclass
class Count:
    """One player count: the learning, then the evaluation on fresh games."""
    players: int
    feats: Any                                  # the game's stop features (stoptable.Features)
    thresholds: np.ndarray                      # the learned table
    visits: np.ndarray                          # decisions near each cell's threshold, last iteration
    history: pd.DataFrame                       # one row per iteration
    converged: bool
    tests: int                                  # the last iteration's tests
    probes: int
    learn_seconds: float
    table: str                                  # the learned table's file, beside the report
    optimum: tuple[str, np.ndarray] | None      # the solved optimum's panel for the map (two features only)
    field: str
    names: list[str]                            # the policies evaluated against the field, the learned first
    evaluation: pd.DataFrame                    # their win rates, regrets to the best and the best set
    verdict: Verdict | None                     # None: no fixed rule or no state-dependent policy to compare
    trio: list[str]                             # with a verdict: the best of each kind and the learned table
    meetings: list[Meeting]                     # ... against each other
    selfplay: pd.DataFrame                      # every seat on the learned table, then on the fixed rule
    measured: tuple[float, float, float] | None     # the stop measure, learned minus fixed (paired)
    calibration: Calibration | None
    seconds: float                              # the evaluation's
    strongest: tuple[float, float, float] | None = None     # Plan.strongest's win rate against the field


@dataclass
class LearnStop:
    plan: Plan
    counts: list[Count]


def layout(spec: dict[str, Any], data: LearnStop, figures: Path, command: str) -> Report:
    p, seed, game = data.plan, spec["seed"], data.plan.game
    report = Report(spec.get("title", f"{game.title}: a stop table learned by policy iteration"), {
        "game": game.name, "game_version": game.version, "rules": {n: r.as_dict() for n, r in p.rules.items()},
        "players": p.players, "policies": ["learned"] + p.candidates + ([p.strongest] if p.strongest else []),
        "seed": seed, "games": {"per iteration": p.games, "evaluation": p.eval_games}
        | ({f"evaluation of {p.strongest}": p.strongest_games} if p.strongest else {}),
        "packages": versions(), "command": command,
    }, description=spec.get("description"))
    findings: list[str] = []
    answers: list[str] = []
    regrets: list[str] = []
    for c in data.counts:
        lines, answer, against = _player_count(report, p, c, seed, figures)
        findings += lines
        answers += [answer] if answer else []
        regrets += [against] if against else []
    if answers:
        report.headline("The learned table against the best fixed rules: " + "; ".join(answers) + "."
                        + (f" Against the strongest player found, {p.strongest} (the first {p.strongest_games:,} "
                           f"games): " + "; ".join(regrets) + "." if regrets else ""))
    report.findings(findings)
    return report


def _player_count(report: Report, p: Plan, c: Count, seed: int, figures: Path
                  ) -> tuple[list[str], str | None, str | None]:
    """The sections of one player count; its findings, its answer for the headline (the
    learned table against the best fixed rules) and the regrets to the strongest player
    for the headline, each None where there is none."""
    n, feats, names, field, game = c.players, c.feats, c.names, c.field, p.game
    report.heading(f"{n} players")
    stopped = (f"converged after {len(c.history)} iterations: the last found no change significant at "
               f"{p.confidence:.0%} (Holm, {c.tests} tests) on its fresh games" if c.converged else
               f"stopped at max_iterations = {p.max_iterations} without converging (the last iteration still "
               f"found {int(c.history['significant'].iloc[-1])} significant changes)")
    report.paragraph(f"Learning from {feats.fixed} (cells: {feats.doc}): "
                     f"{stopped}; {c.probes:,} probes in {c.learn_seconds:.0f} s. The table: "
                     f"`{c.table}` beside this report.")
    _maps(report, p, c, figures)
    _history(report, c.history)
    strongest = "" if c.strongest is None else (
        f"; regret to {p.strongest}: its win rate on the first {p.strongest_games:,} of these games, "
        f"{F.share(*c.strongest)}, minus this one's there, paired")
    report.table(c.evaluation, points=["regret", "regret_strongest"],
                 headers={"regret": "regret to the best (points)", "in_best_set": "in the best set",
                          "regret_strongest": f"regret to {p.strongest} (points)"},
                 caption=f"each policy in one seat against {field} in the other {n - 1}, seats rotated, the same "
                         f"{p.eval_games:,} games (seed {seed + 1}); regret: the best's win rate minus this one's, "
                         f"in percentage points, paired 95% interval; the best set: not significantly worse than the "
                         f"best at {p.confidence:.0%}{strongest}; fair share {1 / n:.1%}")
    lines = [f"**{n} players**: {stopped}."]
    answer = None
    v = c.verdict
    if v is not None:
        rate = c.evaluation[["win_rate", "win_rate_lo", "win_rate_hi"]].to_numpy()
        bf, bd = v.best_fixed, v.best_dependent
        # "found": the best of the policies tested, not a proven optimum (none is proved for
        # Bye-Bye Black Sheep; Pig's `optimal` is, and is named so when it is a candidate)
        dependent_words = best_words(names, v.dependent, v.dependent_set, bd, "state-dependent policy found",
                                     "state-dependent policies found")
        fixed_words = best_words(names, v.fixed, v.fixed_set, bf, "fixed rule")
        d, d_lo, d_hi = v.gap
        lines.append(f"{n} players against {field}: {dependent_words} wins {F.share(*rate[bd])}; "
                     f"{fixed_words} wins {F.share(*rate[bf])}: {names[bf]}'s regret to "
                     f"{names[bd]} is {F.points(d, d_lo, d_hi)} points (paired, {p.eval_games:,} games; "
                     f"significance at {p.confidence:.0%}, paired).")
        d, d_lo, d_hi = v.learned_gap
        verb = "beats" if d_lo > 0 else "trails" if d_hi < 0 else "cannot be told apart from"
        top = names[bf] + ("" if len(v.fixed_set) == 1 else
                           f", the top of the indistinguishable best fixed rules {_listed(names, v.fixed_set)}")
        answer = (f"at {n} players, each in one seat against {field}, it {verb} {top} (its win rate minus "
                  f"{names[bf]}'s: {F.points(d, d_lo, d_hi, signed=True)} points)")
        lines += _together(report, p, n, c.trio, c.meetings, field, seed)
    against = None
    if c.strongest is not None and v is not None:
        line, against = _strongest(p, c, field)
        lines.append(line)
    lines += _self_play(report, p, n, c.selfplay, feats, c.measured)
    if c.calibration is not None:
        first = c.selfplay.iloc[0]
        lines += _calibration(report, game, feats, c.calibration,
                              (first["first_player"], first["first_player_lo"], first["first_player_hi"]))
    report.paragraph(f"Evaluation: {c.seconds:.0f} s.")
    return lines, answer, against


def _strongest(p: Plan, c: Count, field: str) -> tuple[str, str]:
    """The strongest player's finding (its win rate and the regrets of the best fixed rule,
    the best state-dependent policy and the learned table to it) and the headline's part."""
    n, names, v, e = c.players, c.names, c.verdict, c.evaluation

    def gap(i: int) -> str:
        return F.points(e["regret_strongest"][i], e["regret_strongest_lo"][i], e["regret_strongest_hi"][i],
                        signed=True)

    bd = v.best_dependent
    lo, hi = e["regret_strongest_lo"][bd], e["regret_strongest_hi"][bd]
    standing = (f"{p.strongest} is significantly stronger than {names[bd]} here" if lo > 0 else
                f"{names[bd]} is significantly stronger than {p.strongest} here" if hi < 0 else
                f"{p.strongest} and {names[bd]} cannot be told apart here")
    line = (f"{n} players against {field}, the strongest player found: {p.strongest} wins {F.share(*c.strongest)} "
            f"(the first {p.strongest_games:,} of the games); regret to it, paired on those games: the best fixed "
            f"rule {names[v.best_fixed]} {gap(v.best_fixed)} points, {names[bd]} {gap(bd)}"
            + ("" if bd == 0 else f", the learned table {gap(0)}") + f"; {standing}.")
    return line, f"at {n} players {names[v.best_fixed]}'s regret is {gap(v.best_fixed)} points ({standing})"


def _listed(names: list[str], members: list[int]) -> str:
    return names[members[0]] if len(members) == 1 else "{" + ", ".join(names[i] for i in members) + "}"


def best_words(names: list[str], rows: list[int], members: list[int], top: int, kind: str,
               kinds: str = "") -> str:
    """'the best fixed rule, threshold:k=6, significantly better than the others,' or 'of the
    best fixed rules {threshold:k=6, threshold:k=7}, threshold:k=6' when several cannot be
    told apart (members: the set not significantly worse than the best among `rows`
    (learn_stop.best_among); `kinds`, the plural, `kind` + 's' if not given)."""
    if len(rows) == 1:
        return f"the only {kind}, {names[top]},"
    if len(members) == 1:
        return f"the best {kind}, {names[top]}, significantly better than the others,"
    return f"of the best {kinds or kind + 's'} {_listed(names, members)}, {names[top]}"


def together_lines(n: int, meetings: list[Meeting], eval_games: int) -> list[str]:
    """Each meeting in words: who wins how often, and each pair's paired difference."""
    lines = []
    for m in meetings:
        said = [f"{m.names[i]} minus {m.names[j]} {F.points(d, d_lo, d_hi, signed=True)} points"
                for i, j, d, d_lo, d_hi in m.gaps]
        lines.append(f"{n} players, against each other ({m.at}, seats rotated, {eval_games:,} games): "
                     + ", ".join(f"{x} wins {F.share(*r)}" for x, r in zip(m.names, m.rates))
                     + f"; paired: {'; '.join(said)}.")
    return lines


def _together(report: Report, p: Plan, n: int, trio: list[str], meetings: list[Meeting], field: str,
              seed: int) -> list[str]:
    """The best state-dependent policy, the learned table and the best fixed rule against
    each other: their win rates with Wilson intervals and each pair's paired difference."""
    rows = [{"table": m.at, "policy": x, "win_rate": r[0], "win_rate_lo": r[1], "win_rate_hi": r[2]}
            for m in meetings for x, r in zip(m.names, m.rates)]
    report.table(pd.DataFrame(rows), percent=["win_rate", "win_rate_lo", "win_rate_hi"],
                 caption=f"against each other, seats rotated, {p.eval_games:,} games a table (seed {seed + 1}); "
                         f"fair share {1 / n:.1%}" + (f"; the other seats play {field}" if n > len(trio) else ""))
    return together_lines(n, meetings, p.eval_games)


def _self_play(report: Report, p: Plan, n: int, table: pd.DataFrame, feats,
               measured: tuple[float, float, float] | None) -> list[str]:
    """Seat advantage and game length with every seat on the learned table, and on the
    fixed rule: its findings."""
    game = p.game
    measure = game.stop_measure
    headers = {"first_player": "first player's win rate", "mean_turns": f"mean game length ({game.turn_unit})"}
    if measure is not None:
        headers[measure.column] = measure.header
    shares = [c for c in table.columns if c.startswith(("first_player",) + ((measure.column,) if measure else ()))]
    report.table(table, percent=shares, headers=headers,
                 caption=f"self-play, every seat on one policy, {p.eval_games:,} games each (the same deals)"
                         + (f"; {measure.header}: {measure.meaning}" if measured is not None else ""))
    a, b = table.iloc[0], table.iloc[1]
    lines = [f"{n} players, self-play: the first player wins "
             f"{F.share(a['first_player'], a['first_player_lo'], a['first_player_hi'])} when every seat plays "
             f"the learned table, {F.share(b['first_player'], b['first_player_lo'], b['first_player_hi'])} on "
             f"{feats.fixed}; games last {a['mean_turns']:.2f} against {b['mean_turns']:.2f} {game.turn_unit}."]
    if measured is not None:
        d, d_lo, d_hi = measured
        c = measure.column
        lines.append(f"{n} players, self-play: {measure.finding} "
                     f"{F.share(a[c], a[f'{c}_lo'], a[f'{c}_hi'])} of the games on the learned "
                     f"table, {F.share(b[c], b[f'{c}_lo'], b[f'{c}_hi'])} on {feats.fixed} "
                     f"(paired difference {F.points(d, d_lo, d_hi, signed=True)} points).")
    return lines


def panels(feats, values: np.ndarray):
    """Panels of a table for stop_map: two axes, one panel; more, one panel per value of
    axis 1, rows over axis 0 and the axes after axis 2, columns over axis 2."""
    shape = [s for _, s in feats.axes]
    v = np.asarray(values, float).reshape(shape)
    names = [a for a, _ in feats.axes]
    # the buckets as the game names them ("0-4" points of a band), not their indices
    ticks = [list(t) for t in feats.ticks] or [[str(i) for i in range(n)] for n in shape]
    if len(shape) == 2:
        return {"": v}, ticks[0], ticks[1], names[1], names[0]
    rest = [", ".join(t) for t in itertools.product(*ticks[3:])]
    out = {}
    for b in range(shape[1]):
        part = np.moveaxis(v[:, b], 1, -1)                 # axis 0, axes 3.., axis 2
        out[f"{names[1]} = {ticks[1][b]}"] = part.reshape(shape[0] * len(rest), shape[2])
    rows = [f"{i}/{j}" for i in ticks[0] for j in rest]
    return out, rows, ticks[2], names[2], f"{names[0]} / {', '.join(names[3:])}"


def _maps(report: Report, p: Plan, c: Count, figures: Path) -> None:
    feats, n = c.feats, c.players
    shown, rows, cols, xlabel, ylabel = panels(feats, c.thresholds)
    unseen_panels, *_ = panels(feats, c.visits == 0)
    unseen = {k: v.astype(bool) for k, v in unseen_panels.items()}
    if len(shown) == 1:
        shown = {"learned": shown[""]}
        unseen = {"learned": unseen[""]}
        if c.optimum is not None:
            name, cells = c.optimum
            shown[name] = cells
    path = plots.stop_map(shown, rows, cols, figures / f"stop-map-{n}p.png",
                          f"{p.game.title}, {n} players: the {feats.amount} at which the seat stops", xlabel, ylabel,
                          feats.amount, unseen=unseen)
    report.figure(path, f"The learned stop table ({feats.doc}): the {feats.amount} at which the seat stops; grey: "
                        f"cells not reached near their threshold in the last iteration (the table's value there is "
                        f"never or seldom used).")


def _history(report: Report, h: pd.DataFrame) -> None:
    report.table(h[["iteration", "probes", "tests", "significant", "raised", "lowered", "mean_threshold", "seconds"]],
                 headers={"significant": "significant (Holm)", "mean_threshold": "mean threshold after",
                          "seconds": "time (s)"},
                 caption=f"policy iteration, {int(h['games'].iloc[0]):,} fresh games an iteration")


def _calibration(report: Report, game, feats, k: Calibration, first: tuple[float, float, float]) -> list[str]:
    """The learned boundary against the exact optimum's, and the first player's rate in
    learned self-play (`first`) against its exact value."""
    exact, diff, mine_exact, fixed_exact = k.exact, k.diff, k.learned_exact, k.fixed_exact
    rate, lo, hi = first
    inside = lo <= exact <= hi
    report.paragraph(
        f"Calibration against the exact optimum ({k.setting}): in learned self-play the first player wins "
        f"{F.share(rate, lo, hi)}; optimal against optimal, "
        f"{exact:.4f} exactly: {'inside' if inside else 'outside'} the interval. Without sampling noise (policy "
        f"evaluation of the table, optimal.evaluate) the learned table's first player wins {mine_exact:.4f}, "
        f"{mine_exact - exact:+.4f} from the optimum's ({feats.fixed}: {fixed_exact:.4f}, "
        f"{fixed_exact - exact:+.4f}). Over the {k.states} "
        f"the learned table reaches, its {k.threshold} differs from the optimum's by {diff.mean():.2f} points on "
        f"average (median {np.median(diff):.0f}, within 2 points at {np.mean(diff <= 2):.0%} of them).")
    return [f"{game.title} calibration: the first player wins {F.share(rate, lo, hi)} "
            f"in learned self-play, the exact optimum {exact:.4f} ({'inside' if inside else 'outside'} the interval); "
            f"evaluated exactly, the learned table gives {mine_exact:.4f} ({feats.fixed}: {fixed_exact:.4f}); "
            f"the learned {k.threshold} is {diff.mean():.2f} points from the optimum's on average."]
