"""Learn a state-dependent stop table by policy iteration, and measure what it gains.

For each player count: learn a table (policy_iteration.py) from the fixed rule at the
threshold equilibrium, write it as REPORTS/<name>/learned-<P>p.json (what
`learned:table=FILE` plays), then evaluate, on the analysis seed + 1 (fresh games):

- the learned policy, every `candidates` SPEC and the fixed rule, each in one seat
  against `field` in the others (default: the fixed rule), seats rotated, all on the
  same games (common random numbers): win rates with Wilson intervals, the paired
  regret of each against the best, and the regret of the best fixed threshold
  (`hold`, `threshold` SPECs) against the best state-dependent policy found (the best
  of those tested, not a proven optimum), with its interval;
- self-play with every seat on the learned table against every seat on the fixed
  rule: the seat advantage and the game length;
- a game whose optimal stop is solved exactly (GameSpec.stop_optimum; Pig's optimal.py):
  the learned boundary beside the optimum's and the first player's win rate in learned
  self-play against the optimum's;
- a game that declares a self-play measure (GameSpec.stop_measure; Bye-Bye Black Sheep:
  the games a Black Sheep decided): its share on the learned table and on the fixed rule.

Keys: players, options, games (per iteration), target (probes per cell and iteration),
per_game (probes per game at most), max_iterations, confidence, eval_games,
candidates, field.
"""

from __future__ import annotations

import itertools
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..errors import SheepsimError
from ..games import get_game, stoptable
from ..policies import parse_spec, seat_specs
from ..report import findings as F
from ..report import plots
from ..report.markdown import Report
from ..runner import simulate, versions
from ..start import kernel_aux, policy_data
from . import policy_iteration as PI
from ..stats import tables as T
from ..stats.intervals import wilson_interval
from .sweep import best_set, focal_outcomes, regret

KEYS = ("players", "options", "games", "target", "per_game", "max_iterations", "confidence", "eval_games",
        "candidates", "field")
FIXED_RULES = ("hold", "threshold")        # the fixed stop rules: what "best threshold" ranges over


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


def _count(spec: dict, key: str, default: int, low: int, high: int) -> int:
    value = spec.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise SheepsimError(f"`{key}` must be a whole number {low}..{high}, not {value!r}")
    return value


def plan(spec: dict[str, Any], scale: float) -> Plan:
    game = get_game(spec["game"])
    if game.stop_features is None:
        from ..games import all_games
        have = ", ".join(g.name for g in all_games().values() if g.stop_features is not None)
        raise SheepsimError(f"{game.name} has no stop table to learn; learn_stop works for: {have}")
    players = spec.get("players", game.players[0])
    players = players if isinstance(players, list) else [players]
    rules = {n: game.make_rules(n, spec.get("options", {})) for n in players}
    confidence = spec.get("confidence", 0.95)
    if not isinstance(confidence, (int, float)) or not 0.5 < confidence < 1:
        raise SheepsimError(f"`confidence` must lie between 0.5 and 1, not {confidence!r}")
    candidates = spec.get("candidates", [])
    if not isinstance(candidates, list) or not all(isinstance(c, str) for c in candidates):
        raise SheepsimError('`candidates` must be a list of policy SPECs, e.g. ["turn_optimal", "threshold:k=7"]')
    field = spec.get("field")
    if field is not None and not isinstance(field, str):
        raise SheepsimError('`field` must be one policy SPEC, e.g. "optimal"')
    for n, r in rules.items():             # every SPEC parses and can play these rules, before any game
        feats = game.stop_features(r)
        for c in candidates + [feats.fixed]:
            if parse_spec(game.name, c).policy.name == "learned":
                raise SheepsimError("the learned policy is evaluated with the table this analysis learns: leave "
                                    "`learned` out of `candidates`")
            policy_data(game, r, seat_specs(game.name, [c] + [field or feats.fixed] * (n - 1), n))
    p = Plan(game, players, rules, _count(spec, "games", 200_000, 1, 100_000_000),
             _count(spec, "target", 3000, 1, 10_000_000), _count(spec, "per_game", 64, 1, 10_000),
             _count(spec, "max_iterations", 30, 1, 1000), float(confidence),
             _count(spec, "eval_games", 100_000, 2, 100_000_000), candidates, field)
    p.games = max(1, round(p.games * scale))           # --scale: more games and probes, tighter tests
    p.target = max(1, round(p.target * scale))
    p.eval_games = max(2, round(p.eval_games * scale))
    return p


def run(spec: dict[str, Any], p: Plan, reports: Path, threads: int | None, progress: bool, command: str = "") -> Path:
    import numba
    if threads:
        numba.set_num_threads(threads)
    name, seed, game = spec["name"], spec["seed"], p.game
    figures = (reports / name).absolute()
    figures.mkdir(parents=True, exist_ok=True)
    report = Report(spec.get("title", f"{game.title}: a stop table learned by policy iteration"), {
        "game": game.name, "game_version": game.version, "rules": {n: r.as_dict() for n, r in p.rules.items()},
        "players": p.players, "policies": ["learned"] + p.candidates, "seed": seed,
        "games": {"per iteration": p.games, "evaluation": p.eval_games}, "packages": versions(), "command": command,
    }, description=spec.get("description"))
    findings: list[str] = []
    answers: list[str] = []
    for n in p.players:
        lines, answer = _player_count(report, p, n, seed, figures, name, threads, progress, command)
        findings += lines
        answers += [answer] if answer else []
    if answers:
        report.headline("The learned table against the best fixed rules: " + "; ".join(answers) + ".")
    report.findings(findings)
    return report.write(reports / f"{name}.md")


def _player_count(report: Report, p: Plan, n: int, seed: int, figures: Path, name: str, threads, progress: bool,
                  command: str) -> tuple[list[str], str | None]:
    """The sections of one player count; its findings and its answer for the headline
    (the learned table against the best fixed rules), None without fixed rules."""
    game, rules = p.game, p.rules[n]
    feats = game.stop_features(rules)
    learned = PI.learn(game.play, game.to_array(rules), game.initial_state(rules, None), feats, p.games, p.target,
                       p.per_game, p.max_iterations, seed, p.confidence, progress, f"{name}, {n}p: ")
    path = figures / f"learned-{n}p.json"
    stoptable.save(path, game, rules, feats, learned.thresholds, {
        "command": command, "seed": seed, "games_per_iteration": p.games, "target": p.target,
        "per_game": p.per_game, "iterations": len(learned.history), "converged": learned.converged,
        "confidence": p.confidence, "probes": learned.probes, "seconds": round(learned.seconds, 1),
        "start": feats.fixed, "packages": versions()})
    spec_learned = f"learned:table={path}"
    field = p.field or feats.fixed
    report.heading(f"{n} players")
    stopped = (f"converged after {len(learned.history)} iterations: the last found no change significant at "
               f"{p.confidence:.0%} (Holm, {len(learned.tests)} tests) on its fresh games" if learned.converged else
               f"stopped at max_iterations = {p.max_iterations} without converging (the last iteration still "
               f"found {int(learned.history['significant'].iloc[-1])} significant changes)")
    report.paragraph(f"Learning from {feats.fixed} (cells: {feats.doc}): "
                     f"{stopped}; {learned.probes:,} probes in {learned.seconds:.0f} s. The table: "
                     f"`{path.name}` beside this report.")
    _maps(report, p, n, feats, learned, figures)
    _history(report, learned)

    # every policy in one seat against the field, on the same games
    names = ["learned"] + p.candidates + ([feats.fixed] if feats.fixed not in p.candidates else [])
    specs = [spec_learned if x == "learned" else x for x in names]
    if progress:
        print(f"{name}, {n}p: evaluating {len(specs)} policies against {field}, {p.eval_games:,} games each ...",
              file=sys.stderr, flush=True)
    t0 = time.perf_counter()
    outcomes = np.stack([focal_outcomes(game, rules, s, field, p.eval_games, seed + 1, threads) for s in specs])
    wins = (outcomes == 1).astype(np.int8)
    best, keep = best_set(wins, p.confidence)
    gap, gap_lo, gap_hi = regret(wins[best], wins)
    lo, hi = wilson_interval(wins.sum(axis=1), wins.shape[1])
    table = pd.DataFrame({"policy": names, "win_rate": wins.mean(axis=1), "win_rate_lo": lo, "win_rate_hi": hi,
                          "regret": gap, "regret_lo": gap_lo, "regret_hi": gap_hi, "in_best_set": keep})
    report.table(table, points=["regret"],
                 headers={"regret": "regret to the best (points)", "in_best_set": "in the best set"},
                 caption=f"each policy in one seat against {field} in the other {n - 1}, seats rotated, the same "
                         f"{p.eval_games:,} games (seed {seed + 1}); regret: the best's win rate minus this one's, "
                         f"in percentage points, paired 95% interval; the best set: not significantly worse than the "
                         f"best at {p.confidence:.0%}; fair share {1 / n:.1%}")
    lines = [f"**{n} players**: {stopped}."]
    fixed = [i for i, x in enumerate(names) if x != "learned" and parse_spec(game.name, x).policy.name in FIXED_RULES]
    dependent = [i for i in range(len(names)) if i not in fixed]
    answer = None
    if fixed and dependent:
        bf, fixed_set = best_among(wins, fixed, p.confidence)
        bd, dependent_set = best_among(wins, dependent, p.confidence)
        d, d_lo, d_hi = regret(wins[bd], wins[[bf]])
        # "found": the best of the policies tested, not a proven optimum (none is proved for
        # Bye-Bye Black Sheep; Pig's `optimal` is, and is named so when it is a candidate)
        dependent_words = best_words(names, dependent, dependent_set, bd, "state-dependent policy found",
                                     "state-dependent policies found")
        fixed_words = best_words(names, fixed, fixed_set, bf, "fixed rule")
        lines.append(f"{n} players against {field}: {dependent_words} wins {F.share(wins[bd].mean(), lo[bd], hi[bd])}; "
                     f"{fixed_words} wins {F.share(wins[bf].mean(), lo[bf], hi[bf])}: {names[bf]}'s regret to "
                     f"{names[bd]} is {F.points(d[0], d_lo[0], d_hi[0])} points (paired, {p.eval_games:,} games; "
                     f"significance at {p.confidence:.0%}, paired).")
        d, d_lo, d_hi = regret(wins[0], wins[[bf]])         # names[0] is the learned table
        verb = "beats" if d_lo[0] > 0 else "trails" if d_hi[0] < 0 else "cannot be told apart from"
        top = names[bf] + ("" if len(fixed_set) == 1 else
                           f", the top of the indistinguishable best fixed rules {_listed(names, fixed_set)}")
        answer = (f"at {n} players, each in one seat against {field}, it {verb} {top} (its win rate minus "
                  f"{names[bf]}'s: {F.points(d[0], d_lo[0], d_hi[0], signed=True)} points)")
        lines += _together(report, p, n, [names[bd], "learned", names[bf]], spec_learned, field, seed, threads)
    first, more = _self_play(report, p, n, spec_learned, feats, seed, threads)
    lines += more
    if game.stop_optimum is not None:
        lines += _calibration(report, game, rules, feats, learned, first)
    report.paragraph(f"Evaluation: {time.perf_counter() - t0:.0f} s.")
    return lines, answer


def best_among(wins: np.ndarray, rows: list[int], confidence: float) -> tuple[int, list[int]]:
    """Of the policies `rows` (indices into wins, [policies, games] on common games), the
    one with the best point estimate and the set not significantly worse than it (paired,
    sweep.best_set): the optimum as a set, since a point estimate alone cannot pick
    between indistinguishable rules."""
    top, keep = best_set(wins[rows], confidence)
    return rows[top], [rows[i] for i in np.flatnonzero(keep)]


def _listed(names: list[str], members: list[int]) -> str:
    return names[members[0]] if len(members) == 1 else "{" + ", ".join(names[i] for i in members) + "}"


def best_words(names: list[str], rows: list[int], members: list[int], top: int, kind: str,
               kinds: str = "") -> str:
    """'the best fixed rule, threshold:k=6, significantly better than the others,' or 'of the
    best fixed rules {threshold:k=6, threshold:k=7}, threshold:k=6' when several cannot be
    told apart (members: best_among's set of the policies `rows`; `kinds`, the plural,
    `kind` + 's' if not given)."""
    if len(rows) == 1:
        return f"the only {kind}, {names[top]},"
    if len(members) == 1:
        return f"the best {kind}, {names[top]}, significantly better than the others,"
    return f"of the best {kinds or kind + 's'} {_listed(names, members)}, {names[top]}"


def _together(report: Report, p: Plan, n: int, trio: list[str], spec_learned: str, field: str, seed: int,
              threads) -> list[str]:
    """The best state-dependent policy, the learned table and the best fixed rule against
    each other: 2 players, each pair head to head; more, all three at one table (the
    other seats on `field`), seats rotated, so every pair is compared on the same games.
    Win rates with Wilson intervals and each pair's paired difference."""
    game, rules = p.game, p.rules[n]
    trio = list(dict.fromkeys(trio))            # the learned table may be the best state-dependent policy
    spec = {x: spec_learned if x == "learned" else x for x in trio}
    if n == 2:
        tables = [[x, y] for i, x in enumerate(trio) for y in trio[i + 1:]]
    else:
        tables = [trio + [field] * (n - len(trio))]
    rows, lines = [], []
    for names in tables:
        df = simulate(game, rules, [parse_spec(game.name, spec.get(x, x)) for x in names], p.eval_games, seed + 1,
                      threads).results
        winner = df["winner"].to_numpy()
        g = df["game"].to_numpy()
        wins = np.stack([winner == (i - g) % n for i in range(len(names))]).astype(np.int8)   # slot i's seat
        count = len(trio) if n > 2 else 2
        lo, hi = wilson_interval(wins.sum(axis=1), wins.shape[1])
        rest = n - count
        at = " v ".join(names[:count]) + (f", {rest} seat{'s' if rest > 1 else ''} {field}" if rest else "")
        for i in range(count):
            rows.append({"table": at, "policy": names[i], "win_rate": wins[i].mean(), "win_rate_lo": lo[i],
                         "win_rate_hi": hi[i]})
        said = []
        for i in range(count):
            for j in range(i + 1, count):
                d, d_lo, d_hi = regret(wins[i], wins[[j]])
                said.append(f"{names[i]} minus {names[j]} "
                            f"{F.points(d[0], d_lo[0], d_hi[0], signed=True)} points")
        lines.append(f"{n} players, against each other ({at}, seats rotated, {p.eval_games:,} games): "
                     + ", ".join(f"{names[i]} wins {F.share(wins[i].mean(), lo[i], hi[i])}" for i in range(count))
                     + f"; paired: {'; '.join(said)}.")
    report.table(pd.DataFrame(rows), percent=["win_rate", "win_rate_lo", "win_rate_hi"],
                 caption=f"against each other, seats rotated, {p.eval_games:,} games a table (seed {seed + 1}); "
                         f"fair share {1 / n:.1%}" + (f"; the other seats play {field}" if n > len(trio) else ""))
    return lines


def _self_play(report: Report, p: Plan, n: int, spec_learned: str, feats, seed: int, threads):
    """Seat advantage and game length with every seat on the learned table, and on the
    fixed rule: (the first player's (rate, lo, hi) on the learned table, findings)."""
    game, rules = p.game, p.rules[n]
    rows, lines, decided = [], [], []
    measure = game.stop_measure
    for label, spec in (("learned", spec_learned), (feats.fixed, feats.fixed)):
        specs = seat_specs(game.name, [spec], n)
        df = simulate(game, rules, specs, p.eval_games, seed + 1, threads, rotate=False).results
        seats = T.seat_table(df)
        length = T.length_table(df).iloc[0]
        first = seats.iloc[0]
        rows.append({"every seat": label, "first_player": first["win_rate"], "first_player_lo": first["win_rate_lo"],
                     "first_player_hi": first["win_rate_hi"], "mean_turns": length["mean"],
                     "mean_turns_lo": length["mean_lo"], "mean_turns_hi": length["mean_hi"]})
        if measure is not None:
            d = measure.games(game.play, game.to_array(rules), kernel_aux(game, rules, None, specs), specs,
                              False, seed + 1, range(p.eval_games))
            lo, hi = wilson_interval(np.array([d.sum()]), len(d))
            c = measure.column
            rows[-1].update({c: d.mean(), f"{c}_lo": lo[0], f"{c}_hi": hi[0]})
            decided.append(d)
    table = pd.DataFrame(rows)
    headers = {"first_player": "first player's win rate", "mean_turns": f"mean game length ({game.turn_unit})"}
    if measure is not None:
        headers[measure.column] = measure.header
    shares = [c for c in table.columns if c.startswith(("first_player",) + ((measure.column,) if measure else ()))]
    report.table(table, percent=shares, headers=headers,
                 caption=f"self-play, every seat on one policy, {p.eval_games:,} games each (the same deals)"
                         + (f"; {measure.header}: {measure.meaning}" if decided else ""))
    a, b = rows
    lines.append(f"{n} players, self-play: the first player wins "
                 f"{F.share(a['first_player'], a['first_player_lo'], a['first_player_hi'])} when every seat plays "
                 f"the learned table, {F.share(b['first_player'], b['first_player_lo'], b['first_player_hi'])} on "
                 f"{feats.fixed}; games last {a['mean_turns']:.2f} against {b['mean_turns']:.2f} {game.turn_unit}.")
    if decided:
        d, d_lo, d_hi = regret(decided[0], decided[1][None, :])         # paired: the same deals
        c = measure.column
        lines.append(f"{n} players, self-play: {measure.finding} "
                     f"{F.share(a[c], a[f'{c}_lo'], a[f'{c}_hi'])} of the games on the learned "
                     f"table, {F.share(b[c], b[f'{c}_lo'], b[f'{c}_hi'])} on {feats.fixed} "
                     f"(paired difference {F.points(d[0], d_lo[0], d_hi[0], signed=True)} points).")
    return (a["first_player"], a["first_player_lo"], a["first_player_hi"]), lines


def _layout(feats, values: np.ndarray):
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
    panels = {}
    for b in range(shape[1]):
        part = np.moveaxis(v[:, b], 1, -1)                 # axis 0, axes 3.., axis 2
        panels[f"{names[1]} = {ticks[1][b]}"] = part.reshape(shape[0] * len(rest), shape[2])
    rows = [f"{i}/{j}" for i in ticks[0] for j in rest]
    return panels, rows, ticks[2], names[2], f"{names[0]} / {', '.join(names[3:])}"


def _maps(report: Report, p: Plan, n: int, feats, learned, figures: Path) -> None:
    panels, rows, cols, xlabel, ylabel = _layout(feats, learned.thresholds)
    unseen_panels, *_ = _layout(feats, learned.visits == 0)
    unseen = {k: v.astype(bool) for k, v in unseen_panels.items()}
    if len(panels) == 1:
        panels = {"learned": panels[""]}
        unseen = {"learned": unseen[""]}
        if p.game.stop_optimum is not None:
            optimum = p.game.stop_optimum(p.rules[n], feats)
            panels[optimum.panel] = optimum.cells()
    path = plots.stop_map(panels, rows, cols, figures / f"stop-map-{n}p.png",
                          f"{p.game.title}, {n} players: the {feats.amount} at which the seat stops", xlabel, ylabel,
                          feats.amount, unseen=unseen)
    report.figure(path, f"The learned stop table ({feats.doc}): the {feats.amount} at which the seat stops; grey: "
                        f"cells not reached near their threshold in the last iteration (the table's value there is "
                        f"never or seldom used).")


def _history(report: Report, learned) -> None:
    h = learned.history
    report.table(h[["iteration", "probes", "tests", "significant", "raised", "lowered", "mean_threshold", "seconds"]],
                 headers={"significant": "significant (Holm)", "mean_threshold": "mean threshold after",
                          "seconds": "time (s)"},
                 caption=f"policy iteration, {int(h['games'].iloc[0]):,} fresh games an iteration")


def _calibration(report: Report, game, rules, feats, learned, first: tuple[float, float, float]) -> list[str]:
    """The learned boundary against the exact optimum's (GameSpec.stop_optimum), and the
    first player's rate in learned self-play (`first`, from _self_play) against its exact value."""
    optimum = game.stop_optimum(rules, feats)
    exact = optimum.first()
    diff, mine_exact = optimum.compare(learned.thresholds, learned.visits)
    rate, lo, hi = first
    inside = lo <= exact <= hi
    # the same rate without sampling noise: policy evaluation of the table (and of the
    # fixed rule learning started from, for scale)
    fixed_exact = optimum.constant(feats.initial)
    report.paragraph(
        f"Calibration against the exact optimum ({optimum.setting}): in learned self-play the first player wins "
        f"{F.share(rate, lo, hi)}; optimal against optimal, "
        f"{exact:.4f} exactly: {'inside' if inside else 'outside'} the interval. Without sampling noise (policy "
        f"evaluation of the table, optimal.evaluate) the learned table's first player wins {mine_exact:.4f}, "
        f"{mine_exact - exact:+.4f} from the optimum's ({feats.fixed}: {fixed_exact:.4f}, "
        f"{fixed_exact - exact:+.4f}). Over the {optimum.states} "
        f"the learned table reaches, its {optimum.threshold} differs from the optimum's by {diff.mean():.2f} points on "
        f"average (median {np.median(diff):.0f}, within 2 points at {np.mean(diff <= 2):.0%} of them).")
    return [f"{game.title} calibration: the first player wins {F.share(rate, lo, hi)} "
            f"in learned self-play, the exact optimum {exact:.4f} ({'inside' if inside else 'outside'} the interval); "
            f"evaluated exactly, the learned table gives {mine_exact:.4f} ({feats.fixed}: {fixed_exact:.4f}); "
            f"the learned {optimum.threshold} is {diff.mean():.2f} points from the optimum's on average."]
