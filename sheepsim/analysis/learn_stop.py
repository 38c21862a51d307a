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
- `strongest`, the strongest player found (a search agent, too slow for eval_games),
  in one seat against the field on the first `strongest_games` of the same games: its
  win rate, and every policy's regret to it, paired on those games;
- self-play with every seat on the learned table against every seat on the fixed
  rule: the seat advantage and the game length;
- a game whose optimal stop is solved exactly (GameSpec.stop_optimum; Pig's optimal.py):
  the learned boundary beside the optimum's and the first player's win rate in learned
  self-play against the optimum's;
- a game that declares a self-play measure (GameSpec.stop_measure; Bye-Bye Black Sheep:
  the games a Black Sheep decided): its share on the learned table and on the fixed rule.

Keys: players, options, games (per iteration), target (probes per cell and iteration),
per_game (probes per game at most), max_iterations, confidence, eval_games,
candidates, field, strongest, strongest_games.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..errors import SheepsimError
from ..games import get_game, stoptable
from ..policies import parse_spec, seat_specs
from ..report.layouts.learn_stop import Calibration, Count, LearnStop, Meeting, Plan, Verdict
from ..report.layouts.learn_stop import layout  # the kind's report (definition.Kind)
from ..runner import simulate, versions
from ..start import kernel_aux, policy_data
from . import policy_iteration as PI
from ..stats import tables as T
from ..stats.intervals import wilson_interval
from .sweep import best_set, focal_outcomes, focal_wins, regret, strongest_games

KEYS = ("players", "options", "games", "target", "per_game", "max_iterations", "confidence", "eval_games",
        "candidates", "field", "strongest", "strongest_games")
FIXED_RULES = ("hold", "threshold")        # the fixed stop rules: what "best threshold" ranges over


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
    strongest = spec.get("strongest")
    if strongest is not None and not isinstance(strongest, str):
        raise SheepsimError('`strongest` must be one policy SPEC, e.g. "pimc:worlds=800,z=1"')
    for n, r in rules.items():             # every SPEC parses and can play these rules, before any game
        feats = game.stop_features(r)
        for c in candidates + [feats.fixed] + ([strongest] if strongest else []):
            if parse_spec(game.name, c).policy.name == "learned":
                raise SheepsimError("the learned policy is evaluated with the table this analysis learns: leave "
                                    "`learned` out of `candidates`")
            policy_data(game, r, seat_specs(game.name, [c] + [field or feats.fixed] * (n - 1), n))
    p = Plan(game, players, rules, _count(spec, "games", 200_000, 1, 100_000_000),
             _count(spec, "target", 3000, 1, 10_000_000), _count(spec, "per_game", 64, 1, 10_000),
             _count(spec, "max_iterations", 30, 1, 1000), float(confidence),
             _count(spec, "eval_games", 100_000, 2, 100_000_000), candidates, field, strongest)
    p.games = max(1, round(p.games * scale))           # --scale: more games and probes, tighter tests
    p.target = max(1, round(p.target * scale))
    p.eval_games = max(2, round(p.eval_games * scale))
    p.strongest_games = strongest_games(spec, scale, p.eval_games, "eval_games")
    return p


def run(spec: dict[str, Any], p: Plan, reports: Path, threads: int | None, progress: bool,
        command: str = "") -> LearnStop:
    import numba
    if threads:
        numba.set_num_threads(threads)
    name, seed = spec["name"], spec["seed"]
    figures = (reports / name).absolute()
    return LearnStop(p, [_player_count(p, n, seed, figures, name, threads, progress, command) for n in p.players])


def _player_count(p: Plan, n: int, seed: int, figures: Path, name: str, threads, progress: bool,
                  command: str) -> Count:
    """One player count: learn its table, keep it beside the report, and evaluate it."""
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
    # the solved optimum beside the learned table, where the map is one panel
    optimum = None
    if game.stop_optimum is not None and len(feats.axes) == 2:
        solved = game.stop_optimum(rules, feats)
        optimum = (solved.panel, solved.cells())

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
    strongest = None
    if p.strongest:
        # a search agent costs thousands of times a fixed rule's game: it plays the first
        # strongest_games of the same games, and each regret to it is paired on those
        if progress:
            print(f"{name}, {n}p: {p.strongest} against {field}, {p.strongest_games:,} games ...", file=sys.stderr,
                  flush=True)
        top = focal_wins(game, rules, p.strongest, field, p.strongest_games, seed + 1, threads, progress)
        s_lo, s_hi = wilson_interval(int(top.sum()), len(top))
        strongest = (float(top.mean()), float(s_lo), float(s_hi))
        r, r_lo, r_hi = regret(top, wins[:, :p.strongest_games])
        table = table.assign(regret_strongest=r, regret_strongest_lo=r_lo, regret_strongest_hi=r_hi)
    fixed = [i for i, x in enumerate(names) if x != "learned" and parse_spec(game.name, x).policy.name in FIXED_RULES]
    dependent = [i for i in range(len(names)) if i not in fixed]
    verdict, trio, meetings = None, [], []
    if fixed and dependent:
        bf, fixed_set = best_among(wins, fixed, p.confidence)
        bd, dependent_set = best_among(wins, dependent, p.confidence)
        d, d_lo, d_hi = regret(wins[bd], wins[[bf]])
        m, m_lo, m_hi = regret(wins[0], wins[[bf]])         # names[0] is the learned table
        verdict = Verdict(bf, fixed_set, fixed, bd, dependent_set, dependent, (d[0], d_lo[0], d_hi[0]),
                          (m[0], m_lo[0], m_hi[0]))
        trio = list(dict.fromkeys([names[bd], "learned", names[bf]]))   # the learned table may be the best
        meetings = _together(p, n, trio, spec_learned, field, seed, threads)
    selfplay, measured = _self_play(p, n, spec_learned, feats, seed, threads)
    calibration = _calibration(game, rules, feats, learned) if game.stop_optimum is not None else None
    return Count(n, feats, learned.thresholds, learned.visits, learned.history, learned.converged,
                 len(learned.tests), learned.probes, learned.seconds, path.name, optimum, field, names, table,
                 verdict, trio, meetings, selfplay, measured, calibration, time.perf_counter() - t0, strongest)


def best_among(wins: np.ndarray, rows: list[int], confidence: float) -> tuple[int, list[int]]:
    """Of the policies `rows` (indices into wins, [policies, games] on common games), the
    one with the best point estimate and the set not significantly worse than it (paired,
    sweep.best_set): the optimum as a set, since a point estimate alone cannot pick
    between indistinguishable rules."""
    top, keep = best_set(wins[rows], confidence)
    return rows[top], [rows[i] for i in np.flatnonzero(keep)]


def _together(p: Plan, n: int, trio: list[str], spec_learned: str, field: str, seed: int,
              threads) -> list[Meeting]:
    """The best state-dependent policy, the learned table and the best fixed rule against
    each other: 2 players, each pair head to head; more, all three at one table (the
    other seats on `field`), seats rotated, so every pair is compared on the same games.
    Win rates with Wilson intervals and each pair's paired difference."""
    game, rules = p.game, p.rules[n]
    spec = {x: spec_learned if x == "learned" else x for x in trio}
    if n == 2:
        tables = [[x, y] for i, x in enumerate(trio) for y in trio[i + 1:]]
    else:
        tables = [trio + [field] * (n - len(trio))]
    meetings = []
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
        gaps = []
        for i in range(count):
            for j in range(i + 1, count):
                d, d_lo, d_hi = regret(wins[i], wins[[j]])
                gaps.append((i, j, d[0], d_lo[0], d_hi[0]))
        meetings.append(Meeting(at, names[:count], [(wins[i].mean(), lo[i], hi[i]) for i in range(count)], gaps))
    return meetings


def _self_play(p: Plan, n: int, spec_learned: str, feats, seed: int,
               threads) -> tuple[pd.DataFrame, tuple[float, float, float] | None]:
    """Seat advantage and game length with every seat on the learned table, and on the
    fixed rule (and the game's stop measure, GameSpec.stop_measure): the table, and the
    measure's paired difference, learned minus fixed (None without one)."""
    game, rules = p.game, p.rules[n]
    rows, decided = [], []
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
    measured = None
    if decided:
        d, d_lo, d_hi = regret(decided[0], decided[1][None, :])         # paired: the same deals
        measured = (d[0], d_lo[0], d_hi[0])
    return pd.DataFrame(rows), measured


def _calibration(game, rules, feats, learned) -> Calibration:
    """The learned boundary against the exact optimum's (GameSpec.stop_optimum), and the
    first player's share under each, evaluated exactly."""
    optimum = game.stop_optimum(rules, feats)
    diff, mine_exact = optimum.compare(learned.thresholds, learned.visits)
    # the same rate without sampling noise: policy evaluation of the table (and of the
    # fixed rule learning started from, for scale)
    return Calibration(optimum.setting, optimum.states, optimum.threshold, optimum.first(), mine_exact,
                       optimum.constant(feats.initial), diff)
