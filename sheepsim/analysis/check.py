"""`sheepsim check VARIANT.toml`: a designer's rule variant against the base game, in a minute.

A variant file names a game, its player counts, the base rules (`[base]`: rule options
and a `deck` file, default the rulebook's game) and what the variant changes
(`[variant]`, the same keys). For each player count four runs are played, base and
variant each on the same seeds (common random numbers: paired differences):

    self-play   every seat plays `policy` (default: the game's stronger skill policy,
                GameSpec.skill_policies), with the kernels' experience tally
    skill       one seat plays `strong` and the others `weak` (default: the game's skill
                pair), the strong slot rotated over the seats

and every measure is compared game by game: game g of the variant against game g of
the base, the same deal as far as the rules allow and the same per-seat luck. Each
measure is a ratio of per-game sums, r = sum(a) / sum(b) (b = 1 for a plain mean, the
games it is defined for otherwise), and the change r_variant - r_base has the delta-
method standard error of the paired per-game influence values (a - r b) / mean(b), the
paired t of a plain mean when b = 1. Its p-value is two-sided normal, Holm-adjusted
over every (player count, measure) row, and the findings name what moved.
"""

from __future__ import annotations

import math
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..errors import SheepsimError
from ..games import get_game
from ..policies import seat_specs
from ..report.markdown import format_interval, unsigned_zero
from ..runner import simulate
from ..start import policy_data, resolve
from ..stats import tables as T
from .definition import SHAPES, count_problem, read_toml
from ..stats import measures as M
from ..stats.intervals import holm_adjusted, normal_p

KEYS = ("game", "name", "description", "players", "seed", "games", "policy", "strong", "weak", "target_length",
        "base", "variant")
DEFAULT_GAMES = 50_000        # per run: four runs per player count stay well under a minute on 2 cores
ALPHA = 0.05
WIDTH = 100                   # the verdict fits a 100-column terminal, as the summary does

# name, label, kind: "points" (a share shown in signed percentage points), "share" (%),
# "count" (a plain number, in `unit` for length)
MEASURES = (("edge", "seat 0 edge", "points"),
            ("length", "length", "count"),
            ("decided_share", "decided share", "share"),
            ("comeback", "comeback rate", "share"),
            ("lead_changes", "lead changes", "count"),
            ("target_length", "target length score", "count"),
            ("skill_gap", "skill gap", "points"))


@dataclass
class Side:
    """The base game or the variant at one player count."""

    rules: Any
    start: dict | None
    changes: dict[str, Any]       # the file's table (options and deck), for the header


@dataclass
class Plan:
    game: Any
    path: Path
    name: str
    players: list[int]
    seed: int
    games: int
    policy: str
    strong: str
    weak: str
    target: tuple[float, float] | None
    sides: dict[int, dict[str, Side]] = field(default_factory=dict)


@dataclass
class Verdict:
    plan: Plan
    table: pd.DataFrame           # players, measure, label, kind, base(_lo/_hi), variant(_lo/_hi),
                                  # change(_lo/_hi), p, p_holm
    findings: list[str]
    seconds: float                # wall time, less the compile
    compile_seconds: float        # compiling kernels (a first run only)


def _problem(path: Path, text: str) -> SheepsimError:
    return SheepsimError(f"variant file {path}: {text}")


def _side(game, path: Path, n: int, table: dict[str, Any], which: str) -> Side:
    options = {k: v for k, v in table.items() if k != "deck"}
    deck = table.get("deck")
    if deck is not None and not isinstance(deck, str):
        raise _problem(path, f"[{which}] deck must be a deck file's path (relative to the variant file)")
    deck_path = None if deck is None else (path.parent / deck)
    try:
        rules, start = resolve(game, n, options, None, deck_path)
    except SheepsimError as exc:
        raise _problem(path, f"[{which}] at {n} players: {exc}")
    return Side(rules, start, dict(table))


def load(path: Path, scale: float = 1.0) -> Plan:
    """Read and validate a variant file: every problem is one SheepsimError before any
    game is played."""
    path = Path(path)
    spec = read_toml(path, "variant file")
    unknown = sorted(set(spec) - set(KEYS))
    if unknown:
        raise _problem(path, f"unknown key {unknown[0]!r}; valid keys: {', '.join(KEYS)}")
    if "game" not in spec:
        raise _problem(path, "it names no `game`; e.g. game = \"blacksheep\" (see `sheepsim games`)")
    if not isinstance(spec["game"], str):
        raise _problem(path, f"`game` must be a game's name (see `sheepsim games`), not {spec['game']!r}")
    try:
        game = get_game(spec["game"])
    except SheepsimError as exc:
        raise _problem(path, str(exc))
    for key in ("players", "seed", "name", "description"):
        fits, what = SHAPES[key]
        if key in spec and not fits(spec[key]):
            raise _problem(path, f"`{key}` must be {what}, not {spec[key]!r}")
    games = spec.get("games", DEFAULT_GAMES)
    if not (isinstance(games, int) and not isinstance(games, bool) and games > 0):
        raise _problem(path, f"`games` must be a positive whole number of games per run, not {games!r}")
    for key in ("base", "variant"):
        if key in spec and not isinstance(spec[key], dict):
            raise _problem(path, f"[{key}] must be a table of rule options (and `deck`), e.g. [{key}] wolf = \"on\"")
    if "variant" not in spec:
        raise _problem(path, "it has no [variant] table: name the rule options (or the deck) the variant "
                             "changes, e.g. [variant] wolf = \"on\"")
    if not spec["variant"]:
        raise _problem(path, "its [variant] table is empty: name the rule options (or the deck) the variant "
                             "changes, e.g. [variant] wolf = \"on\"")
    strong, weak = game.skill_policies
    strong, weak = spec.get("strong", strong), spec.get("weak", weak)
    policy = spec.get("policy", strong)
    for key, value in (("policy", policy), ("strong", strong), ("weak", weak)):
        if not isinstance(value, str):
            raise _problem(path, f"`{key}` must be one policy SPEC (see `sheepsim policies {game.name}`)")
    if strong == weak:
        raise _problem(path, f"`strong` and `weak` are both {strong!r}: the skill gap needs two different policies")
    target = _target(path, spec.get("target_length"))
    players = spec.get("players", [game.players[0]])
    players = [players] if isinstance(players, int) else list(players)
    problem = count_problem({"games": games}, scale)
    if problem:
        raise _problem(path, problem)
    plan = Plan(game, path, str(spec.get("name", path.stem)), players, int(spec.get("seed", 0)),
                max(1, round(games * scale)), policy, strong, weak, target)
    for n in players:
        sides = {which: _side(game, path, n, spec.get(which, {}), which) for which in ("base", "variant")}
        for which, side in sides.items():
            for specs in _specs(plan, n).values():
                try:
                    policy_data(game, side.rules, specs)      # the policies can play it (Pig's optimal)
                except SheepsimError as exc:
                    raise _problem(path, f"[{which}] at {n} players: {exc}")
        plan.sides[n] = sides
    return plan


def _target(path: Path, value: Any) -> tuple[float, float] | None:
    if value is None:
        return None
    try:
        return T.target_range(value)
    except ValueError as exc:
        raise _problem(path, f"`target_length` {exc}")


def _specs(plan: Plan, n: int) -> dict[str, list]:
    """The two runs' seat slots: self-play, and the strong slot 0 against weak."""
    name = plan.game.name
    try:
        return {"self": seat_specs(name, [plan.policy], n),
                "skill": seat_specs(name, [plan.strong] + [plan.weak] * (n - 1), n)}
    except SheepsimError as exc:
        raise _problem(plan.path, str(exc))


SELF_PLAY = ("edge", "length", "decided_share", "comeback", "lead_changes")


def per_game(self_play: pd.DataFrame, skill: pd.DataFrame, target: tuple[float, float] | None
             ) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Every measure as per-game (a, b), the measure being sum(a) / sum(b) (stats/measures.py):
    seat 0's and the strong slot's sole wins over decided games, the experience metrics
    over the games they are defined for, the length and target score over all games."""
    out = M.per_game(self_play, SELF_PLAY + (("target_length",) if target is not None else ()), target)
    out["skill_gap"] = M.slot_share(skill)
    return out


def paired_ratio(base: tuple[np.ndarray, np.ndarray], variant: tuple[np.ndarray, np.ndarray]
                 ) -> dict[str, float]:
    """Both ratios with their 95% intervals and the paired change r_variant - r_base with
    its interval and p (delta method on the per-game influence values, stats/measures.py).
    NaN where a side has no game the measure is defined for."""
    (rb, ib), (rv, iv) = M.ratio(*base), M.ratio(*variant)
    if ib is None or iv is None:
        return {k: math.nan for k in ("base", "base_lo", "base_hi", "variant", "variant_lo", "variant_hi",
                                      "change", "change_lo", "change_hi", "p")}
    change, lo, hi, sd = M.paired(rb, ib, rv, iv)
    return {"base": rb, **dict(zip(("base_lo", "base_hi"), M.interval(rb, ib))),
            "variant": rv, **dict(zip(("variant_lo", "variant_hi"), M.interval(rv, iv))),
            "change": change, "change_lo": lo, "change_hi": hi, "p": normal_p(change, sd / math.sqrt(len(ib)))}


def run(plan: Plan, threads: int | None = None, progress: bool = True) -> Verdict:
    """Play the four runs per player count and compare them (the module docstring)."""
    import time
    t0 = time.perf_counter()
    rows, compile_seconds = [], 0.0
    for n in plan.players:
        measured = {}
        for which, side in plan.sides[n].items():
            runs = {}
            for kind, specs in _specs(plan, n).items():
                if progress:
                    print(f"check: {n} players, {which}, {kind} ...", file=sys.stderr, flush=True)
                done = simulate(plan.game, side.rules, specs, plan.games, plan.seed, threads,
                                position=side.start, metrics=kind == "self", notify=_to_stderr if progress else None)
                runs[kind] = done.results
                compile_seconds += done.manifest.get("compile_seconds") or 0.0
            measured[which] = per_game(runs["self"], runs["skill"], plan.target)
        fair = 1.0 / n
        for name, label, kind in MEASURES:
            if name not in measured["base"]:
                continue
            row = paired_ratio(measured["base"][name], measured["variant"][name])
            if kind == "points":              # edges: the win rate less the fair 1/P
                for key in ("base", "base_lo", "base_hi", "variant", "variant_lo", "variant_hi"):
                    row[key] -= fair
            rows.append({"players": n, "measure": name, "label": label, "kind": kind, **row})
    table = pd.DataFrame(rows)
    table["p_holm"] = holm_adjusted(table["p"].to_numpy())
    return Verdict(plan, table, findings(table, plan), time.perf_counter() - t0 - compile_seconds, compile_seconds)


def _to_stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


# --- words -------------------------------------------------------------------------------

def _number(kind: str, x: float, signed: bool = False, digits: int = 2) -> str:
    if kind in ("points", "share"):
        return unsigned_zero(f"{100 * x:{'+' if signed else ''}.1f}")
    return unsigned_zero(f"{x:{'+' if signed else ''}.{digits}f}")


def _amount(r, kind: str, unit: str, digits: int = 2) -> str:
    """'3.1 [2.6, 3.6] points': the change's size with its interval by magnitude, or the
    signed change when its interval holds zero (markdown.format_interval's rule)."""
    what = {"points": " points", "share": " points", "count": f" {unit}" if unit else ""}[kind]
    scale, fmt = (100, ".1f") if kind in ("points", "share") else (1, f".{digits}f")
    if r.change_lo * r.change_hi > 0:
        a, b = sorted((abs(r.change_lo), abs(r.change_hi)))
        return format_interval(scale * abs(r.change), scale * a, scale * b, floatfmt=fmt) + what
    return format_interval(scale * r.change, scale * r.change_lo, scale * r.change_hi, floatfmt=fmt,
                           signed=True) + what


def _sentence(r, plan: Plan) -> str:
    """What a significant change means, in the designer's words."""
    unit = plan.game.turn_unit
    up = r.change > 0
    if r.measure == "edge":
        if r.base * r.variant < 0:
            return (f"seat 0's edge turned from {_number('points', r.base, True)} to "
                    f"{_number('points', r.variant, True)} points (a change of {_amount(r, 'points', '')})")
        further = abs(r.variant) > abs(r.base)
        return (f"seat 0's edge {'rose' if up else 'fell'} by {_amount(r, 'points', '')} "
                f"(from {_number('points', r.base, True)} to {_number('points', r.variant, True)}: "
                f"{'further from' if further else 'closer to'} fair)")
    if r.measure == "length":
        return (f"games got {'longer' if up else 'shorter'} by {_amount(r, 'count', unit)} "
                f"(from {r.base:.2f} to {r.variant:.2f})")
    if r.measure == "decided_share":
        return (f"games were decided {'later' if up else 'earlier'}: the eventual winner led for good from "
                f"{_number('share', r.variant)}% of the game instead of {_number('share', r.base)}% "
                f"({_amount(r, 'share', '')})")
    if r.measure == "comeback":
        return (f"comebacks became {'more' if up else 'less'} common: the winner trailed at half-time in "
                f"{_number('share', r.variant)}% of won games instead of {_number('share', r.base)}% "
                f"({_amount(r, 'share', '')})")
    if r.measure == "lead_changes":
        return (f"the lead changed hands {'more' if up else 'less'} often: {r.variant:.2f} times a game instead "
                f"of {r.base:.2f} ({_amount(r, 'count', '')})")
    if r.measure == "target_length":
        lo, hi = plan.target
        return (f"the length fits the target {lo:g}-{hi:g} {unit} {'better' if up else 'worse'}: score "
                f"{r.variant:.3f} instead of {r.base:.3f} ({_amount(r, 'count', '', 3)})")
    return (f"skill matters {'more' if up else 'less'}: {plan.strong} against {plan.weak} wins "
            f"{_number('points', r.variant, True)} points from its fair share instead of "
            f"{_number('points', r.base, True)} ({_amount(r, 'points', '')})")


def findings(table: pd.DataFrame, plan: Plan, alpha: float = ALPHA) -> list[str]:
    """One line per player count: each Holm-significant change in words, then the
    measures that did not move detectably, then those that cannot move."""
    lines = []
    for n, t in table.groupby("players", sort=False):
        moved = t[t["p_holm"] <= alpha]
        still = t[~(t["p_holm"] <= alpha)]
        parts = [_sentence(r, plan) for r in moved.itertuples()]
        flat = still[(still["change_lo"] == still["change_hi"]) & (still["change"] == 0)]
        unmoved = still.drop(flat.index)
        if not unmoved.empty:
            parts.append("no significant change in " + ", ".join(unmoved["label"])
                         + f" (Holm, {alpha:.0%} over {len(table)} tests)")
        if not flat.empty:
            parts.append(", ".join(flat["label"]) + " came out the same in every game of base and variant")
        lines.append(f"{n} players: " + "; ".join(parts) + ".")
    return lines


def verdict_text(v: Verdict) -> str:
    """The verdict as `sheepsim check` prints it: what was compared, the table, the findings."""
    plan, game = v.plan, v.plan.game
    def changes(which: str) -> str:
        table = plan.sides[plan.players[0]][which].changes
        return ", ".join(f"{k}={_text(x)}" for k, x in table.items()) or "the rules' defaults"
    lines = [f"{game.title}: variant '{plan.name}' against the base game, {plan.games:,} games per run, seed "
             f"{plan.seed}, common seeds",
             f"base: {changes('base')}",
             f"variant: {changes('variant')}",
             f"self-play: {plan.policy} in every seat; skill gap: {plan.strong} in one seat (rotated) against "
             f"{plan.weak}",
             ""]
    head = ["players", "measure", "base [95% CI]", "variant [95% CI]", "change [95% CI]", "p (Holm)"]
    rows = []
    for r in v.table.itertuples():
        label = f"{r.label} ({game.turn_unit})" if r.measure == "length" else r.label
        percent = r.kind in ("points", "share")
        signed = r.kind == "points"
        floatfmt = ".3f" if r.measure == "target_length" else ".2f"
        fmt = {"floatfmt": floatfmt, "percent": percent, "signed": signed}
        rows.append([str(r.players), label, format_interval(r.base, r.base_lo, r.base_hi, **fmt),
                     format_interval(r.variant, r.variant_lo, r.variant_hi, **fmt),
                     format_interval(r.change, r.change_lo, r.change_hi, floatfmt=floatfmt, percent=percent,
                                     signed=True),
                     _p(r.p_holm)])
    widths = [max(len(x) for x in col) for col in zip(head, *rows)]
    lines += ["  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()
              for cells in [head, ["-" * w for w in widths], *rows]]
    lines += [""] + textwrap.wrap("edges and shares in percentage points; the change is paired game by game on "
                                  "common seeds; p: Holm-adjusted over the table", WIDTH)
    lines += ["", "Findings:"]
    lines += [part for line in v.findings
              for part in textwrap.wrap(line, WIDTH, initial_indent="- ", subsequent_indent="  ")]
    # loading cached kernels takes about a second; more is a first run's compile
    compiled = f" (plus {v.compile_seconds:.0f} s compiling the kernels: a first run only)" \
        if v.compile_seconds >= 5 else ""
    runs = 4 * len(plan.players)
    lines += ["", f"{runs} runs of {plan.games:,} games played in {v.seconds:.1f} s{compiled}"]
    return "\n".join(lines)


def _text(value: Any) -> str:
    return ",".join(str(x) for x in value) if isinstance(value, (list, tuple)) else str(value)


def _p(p: float) -> str:
    if p != p:
        return "n/a"
    return f"{p:.3g}" if p > 1e-300 else "< 1e-300"


def verdict_json(v: Verdict) -> dict[str, Any]:
    plan = v.plan
    return {"game": plan.game.name, "name": plan.name, "file": str(plan.path), "seed": plan.seed,
            "games": plan.games, "players": plan.players, "policy": plan.policy, "strong": plan.strong,
            "weak": plan.weak, "target_length": plan.target,
            "base": plan.sides[plan.players[0]]["base"].changes,
            "variant": plan.sides[plan.players[0]]["variant"].changes,
            "rows": v.table.replace({np.nan: None}).to_dict("records"), "findings": v.findings,
            "seconds": v.seconds, "compile_seconds": v.compile_seconds}
