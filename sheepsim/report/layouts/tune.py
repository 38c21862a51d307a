"""The tuner's report (analysis/tune.py): findings, the figure (each setting's objective
in the order tried, or the Pareto front of two objectives), the confirmed settings, the
sensitivity table and the settings tried. It reads the tuner's data model
(report/tuning_model.py) and what the analysis hands it, and never imports the analysis."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ...runner import versions
from ...stats.pareto import fronts, knee_scores
from .. import plots
from ..markdown import Report, format_interval
from ..tuning_model import METRICS, Knob, Objective, Plan, kind_of, label_of, setting_text, shown, shown_names


def _best_of_two(among: str) -> str:
    """What "best" means with two objectives, in the report's words (stats.pareto.knee_scores)."""
    return (f"best: the least sum of the two objectives, each scaled from 0 at the best to 1 at the worst value "
            f"among {among}; the knee of the front, nearest the corner where both are at their best")


@dataclass
class Tuning:
    plan: Plan
    trials: pd.DataFrame            # every setting tried (REPORTS/<name>/trials.parquet)
    seconds: float                  # the search's
    settings: list[dict]            # the confirmed settings, the best first
    ests: list[dict]                # their estimates on the confirmation's games (racing.confirm_run)
    confirmed: pd.DataFrame         # their measures, and each one's paired change from the best
    sensitivity: pd.DataFrame       # each knob of the best one step away, against the best
    replays: list[dict[str, Any]]   # games of the best setting's confirmation worth watching


def layout(spec: dict[str, Any], data: Tuning, figures: Path, command: str) -> Report:
    """The report, its figure drawn into FIGURES."""
    import optuna                    # its version; the analysis ran the study with it
    best = 0
    p, trials, seconds, settings, ests = data.plan, data.trials, data.seconds, data.settings, data.ests
    confirmed, sensitivity = data.confirmed, data.sensitivity
    name, game = spec["name"], p.game
    games_played = int(trials["games"].sum())
    names = shown_names(p)
    report = Report(spec.get("title", f"{game.title}: tuning"), {
        "game": game.name, "game_version": game.version, "players": p.players,
        "rules": {"options": p.options, "space": {k.name: _knob_text(k) for k in p.knobs}},
        "policies": p.policies + ([f"skill gap: {p.strong} against {p.weak}"] if p.needs_skill else []),
        "seed": p.seed,
        "games": {"racing blocks": p.blocks, "confirmation": p.confirm_games, "played in all": games_played},
        "search": f"optuna {optuna.__version__}, {'TPE' if len(p.objectives) == 1 else 'NSGA-II'}, "
                  f"{len(trials)} settings in batches of {p.batch}, successive halving by {p.eta}",
        "packages": {**versions(), "optuna": optuna.__version__}, "command": command,
    }, description=spec.get("description"))
    report.headline(_headline(p, settings, ests, best, confirmed))
    report.findings(_findings(p, settings, ests, best, confirmed, sensitivity, trials, seconds))
    report.replays(data.replays)
    report.figure(_figure(p, trials, settings, ests, best, figures), _caption(p))
    report.heading("Confirmed settings")
    report.table(confirmed.drop(columns=[c for c in confirmed if c.startswith("loss")]),
                 caption=f"{p.confirm_games:,} fresh games each, common to every row (seats rotated); 95% "
                         f"intervals; the difference from the best is paired game by game.",
                 **_formats(p, names))
    report.heading("Sensitivity: each knob one step from the best setting")
    report.table(sensitivity, caption="Each knob moved one step alone, on the confirmation's games; the change is "
                                      "paired with the best setting's games.", **_formats(p, names))
    report.heading("Every setting tried")
    knobs = [k.name for k in p.knobs]
    # best first by the rule that picks the best setting (the knee; one objective: its loss)
    losses = trials[[f"loss_{j}" for j in range(len(p.objectives))]].to_numpy(float)
    told = np.isfinite(losses).all(axis=1)
    score = np.full(len(trials), np.inf)
    score[told] = knee_scores(losses[told])
    tried = (trials.assign(score=score).sort_values(["games", "score", "trial"], ascending=[False, True, True])
             .drop_duplicates(knobs))
    columns = ["trial", *knobs, "games", *[o.measure for o in p.objectives], "rejected"]
    order = "" if len(p.objectives) == 1 else f" ({_best_of_two('the settings tried')})"
    report.table(tried[columns].head(20), caption=f"Each setting once (its first trial), the 20 that raced the "
                                                  f"most games, best first{order}: {len(tried)} distinct settings in "
                                                  f"{len(trials)} trials, all of them in {name}/trials.parquet.",
                 **_formats(p, names))
    return report


def readable(p: Plan, o: Objective, value: float, lo: float = math.nan, hi: float = math.nan
             ) -> tuple[float, float, float]:
    """An objective as a figure shows it: edges and shares in points, a `zero` goal's
    size (its interval the sizes the value's interval holds)."""
    k = 100.0 if kind_of(o.measure) in ("points", "share") else 1.0
    value, lo, hi = k * value, k * lo, k * hi
    if o.goal == "zero":
        lo, hi = (0.0, max(-lo, hi)) if lo <= 0 <= hi else tuple(sorted((abs(lo), abs(hi))))
        value = abs(value)
    return value, lo, hi


def _axis(p: Plan, o: Objective) -> str:
    """A figure's axis: the objective, its unit, which way is better."""
    kind = kind_of(o.measure)
    label = {"zero": f"|{METRICS[o.metric][0]}|", "inside": o.label}.get(o.goal, METRICS[o.metric][0])
    unit = {"points": " (points)", "share": " (%)"}.get(kind, f" ({p.game.turn_unit})" if o.measure == "length" else "")
    return f"{label}{unit}, {_better(o)} is better"


def _better(o: Objective) -> str:
    return "lower" if o.goal in ("zero", "minimize") else "higher"


def _figure(p: Plan, trials: pd.DataFrame, settings: list, ests: list, best: int, folder: Path) -> Path:
    title = f"{p.game.title}, {p.players} players: "
    if len(p.objectives) == 1:
        o = p.objectives[0]
        told = trials[trials["state"] == "complete"]
        value = np.array([readable(p, o, v)[0] for v in told[o.measure]])
        return plots.history_plot(told["trial"].to_numpy(), value, told["games"].to_numpy(),
                                  readable(p, o, *shown(p, ests[best], o.measure)), folder / "history.png",
                                  title + "the objective of each setting tried", _axis(p, o).split(",")[0],
                                  _better(o))
    full = trials[(trials["state"] == "complete") & (trials["games"] == sum(p.blocks))]
    xs, ys = ([readable(p, o, v)[0] for v in full[o.measure]] for o in p.objectives)
    front = fronts(full[["loss_0", "loss_1"]].to_numpy()) == 0
    confirmed = []
    for i, (s, est) in enumerate(zip(settings, ests)):
        (x, xlo, xhi), (y, ylo, yhi) = (readable(p, o, *shown(p, est, o.measure)) for o in p.objectives)
        confirmed.append((x, xlo, xhi, y, ylo, yhi, setting_text(s) + (" (best)" if i == best else "")))
    return plots.pareto_plot(np.array(xs), np.array(ys), front, confirmed, folder / "pareto.png",
                             title + "two objectives of every setting raced to the end",
                             _axis(p, p.objectives[0]), _axis(p, p.objectives[1]),
                             better=tuple(_better(o) for o in p.objectives), best=best)


def _caption(p: Plan) -> str:
    if len(p.objectives) == 2:
        return (f"Every setting that raced all {sum(p.blocks):,} games (grey), the Pareto front of their estimates "
                f"(dark, joined) and the confirmed settings on {p.confirm_games:,} fresh games with 95% intervals. "
                f"The axes span the settings in the better half of the raced settings' range on both objectives "
                f"(and the best); the others, however good on one objective, give up the other, and are drawn "
                f"hollow at the axes' edge.")
    return (f"Each setting's objective, {p.objectives[0].label}, from the games it raced (the marker says how far "
            f"it got), and the best setting confirmed on {p.confirm_games:,} fresh games (line, 95% band).")


def _formats(p: Plan, names: list[str]) -> dict[str, Any]:
    """The report tables' number formats: edges and their changes in signed points,
    shares in percent (their changes in points); headers by the metrics' labels, a
    column in points saying so; a `zero` goal's change as the change in the size it judges
    (tune._change_row)."""
    labels = {m: label_of(m) for m in names}
    kinds = {m: kind_of(m) for m in names}
    sizes = {o.measure for o in p.objectives if o.goal == "zero"}
    points = ([m for m in names if kinds[m] == "points"]
              + [f"d_{m}" for m in names if kinds[m] in ("points", "share")])
    headers = {**labels, **{f"d_{m}": f"change in |{label}|" if m in sizes else f"change in {label}"
                            for m, label in labels.items()}}
    return {"points": points, "percent": [m for m in names if kinds[m] == "share"],
            "headers": {k: f"{v} (points)" if k in points else v for k, v in headers.items()}}


def _knob_text(k: Knob) -> str:
    """'start_tokens of player 0: 1..9' (a range) or 'colours: 4, 6, 8' (choices)."""
    what = k.option + (f" of player {k.player}" if k.player is not None else "")
    if k.choices:
        return f"{what}: {', '.join(str(v) for v in k.values)}"
    step = k.values[1] - k.values[0] if len(k.values) > 1 else 1
    return f"{what}: {k.values[0]}..{k.values[-1]}" + (f" step {step}" if step != 1 else "")


def _objective_text(p: Plan, o: Objective, est: dict) -> str:
    value, lo, hi = shown(p, est, o.measure)
    kind = kind_of(o.measure)
    if kind == "points":
        text = format_interval(100 * value, 100 * lo, 100 * hi, floatfmt=".1f", signed=True) + " points"
    elif kind == "share":
        text = format_interval(value, lo, hi, percent=True)
    else:
        text = format_interval(value, lo, hi, floatfmt=".3f" if o.measure in ("target_length", "balance") else ".2f")
    unit = f" {p.game.turn_unit}" if o.measure == "length" else ""
    return f"{METRICS[o.metric][0] if o.goal != 'inside' else o.label} {text}{unit}"


def _tied(confirmed: pd.DataFrame, best: int) -> list[str]:
    """The other confirmed settings that cannot be told apart from the best (one objective)."""
    others = confirmed.drop(index=best)
    return [s for s, v in zip(others["setting"], others["against the best"]) if "worse" not in v]


def _headline(p: Plan, settings, ests, best, confirmed) -> str:
    """The tuner's answer: the best setting with its objectives, and the settings that
    cannot be told apart from it (the optimum as a set)."""
    objectives = "; ".join(_objective_text(p, o, ests[best]) for o in p.objectives)
    text = (f"The best setting found is {setting_text(settings[best])} ({objectives}, on {p.confirm_games:,} fresh "
            f"games)")
    others = confirmed.drop(index=best)
    if len(p.objectives) == 1:
        tied = _tied(confirmed, best)
        text += f"; {'; '.join(tied)} cannot be told apart from it" if tied else ""
    else:
        trade = [s for s, v in zip(others["setting"], others["against the best"]) if v.startswith("a trade-off")]
        text += f"; {'; '.join(trade)} trade one objective for the other" if trade else ""
    return text + "."


def _findings(p: Plan, settings, ests, best, confirmed, sensitivity, trials, seconds) -> list[str]:
    objectives = "; ".join(_objective_text(p, o, ests[best]) for o in p.objectives)
    meaning = "" if len(p.objectives) == 1 else f"; {_best_of_two('the confirmed settings')}"
    lines = [f"Best setting: **{setting_text(settings[best])}**: {objectives} (confirmed on {p.confirm_games:,} "
             f"fresh games, 95% intervals{meaning})."]
    others = confirmed.drop(index=best)
    if len(p.objectives) == 1 and not others.empty:
        tied = _tied(confirmed, best)
        lines.append("Cannot be told apart from it on the fresh games: " + ("; ".join(tied) if tied else
                     f"none of the other {len(others)} confirmed settings") + ".")
    elif not others.empty:
        lines.append("The Pareto front's other confirmed settings, against the best: "
                     + "; ".join(f"{s}: {v}" for s, v in zip(others["setting"], others["against the best"])) + ".")
    if not sensitivity.empty:
        moves = {v: [f"{r['knob']} {r['from']} -> {r['to']}" for _, r in sensitivity.iterrows()
                     if r["against the best"].split(":")[0] == v] for v in ("worse", "better", "a trade-off")}
        parts = [", ".join(moves["worse"]) + " made it detectably worse" if moves["worse"] else
                 "no move made it detectably worse"]
        if moves["a trade-off"]:
            parts.append(", ".join(moves["a trade-off"]) + " traded one objective for the other")
        if moves["better"]:
            parts.append(", ".join(moves["better"]) + " made it detectably better: the search stopped short of the "
                         "best setting (raise `trials`)")
        lines.append(f"One step away from it ({len(sensitivity)} moves, one knob at a time): " + "; ".join(parts)
                     + "; the sensitivity table gives each change.")
    rejected = int((trials["state"] == "pruned").sum())
    full = int(((trials["state"] == "complete") & (trials["games"] == sum(p.blocks))).sum())
    rate = len(trials) / (seconds / 60) if seconds > 0 else math.nan
    lines.append(f"Search: {len(trials)} settings ({rejected} rejected by the rules), {full} raced to all "
                 f"{sum(p.blocks):,} games; {int(trials['games'].sum()):,} games in {seconds:.0f} s, "
                 f"{rate:.0f} settings a minute.")
    return lines
