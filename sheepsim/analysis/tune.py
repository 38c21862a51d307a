"""Tuning (`tune` analysis kind): search rule options, deck parameters and per-player
handicaps for the setting that best meets one or two objectives.

The search space is a table of knobs, each one rule option (`sheepsim rules GAME`),
an integer range or a list of choices:

    [space.target]                  every player's value of an option: low..high in
    option = "target_tokens"        steps of `step` (default 1)
    low = 5
    high = 12
    [space.child_start]             a per-player option (Bobby Sitter's start_tokens):
    option = "start_tokens"         player slot `player`'s value alone (slot 0 is the
    player = 0                      first policy, the focal player); the others keep
    low = 1                         their value (from a knob on the same option, or
    high = 9                        from `options`)
    [space.colours]
    option = "colours"
    choices = [4, 5, 6, 7]

The objectives, one or two (stats/measures.py defines the metrics):

    { metric = "focal_edge", goal = "zero" }       the value's size minimised
    { metric = "balance", goal = "maximize" }      or "minimize"
    { metric = "length", goal = "inside", range = [20, 30] }
                                                   the target-length score maximised
    { metric = "skill_gap", goal = "maximize" }    a second run per setting: `strong`
                                                   in one seat (rotated) against `weak`

Search: optuna's TPE for one objective, NSGA-II for two, asked in batches of `batch`
settings. Noise is handled by racing (successive halving on common seeds): every
setting of a batch plays the first block of games, the best 1/eta of them play the next
block, and so on for `rungs` blocks, `games` in all (block sizes games / eta^(rungs-1),
then each rung eta times the games so far). Each block has its own seed, the same for
every setting (common random numbers), so settings that race in a rung are ranked on
the same games; two objectives rank by non-dominated front, then by the sum of the
objectives' ranks. Every setting is told to the sampler with its estimate from the games
it played (trial attribute `games`); only the settings that played every block can be
chosen. A setting the rules reject (a start at or above the target) is told as pruned.

Confirmation (the best of many noisy estimates is biased upwards): the best `confirm`
settings (one objective) or up to `confirm` settings along the Pareto front (two) play
`confirm_games` fresh games (a seed no block used), common to all of them, each measure
with its 95% interval and the paired difference from the best. Then the sensitivity
table: each knob of the best setting moved one step down and one step up alone, on the
confirmation's games.

Resumable: the study is stored in REPORTS/<name>/study.sqlite3 (optuna's RDB storage).
Running the same file at the same scale again goes on from the trials stored there (a
finished study goes straight to the confirmation, a raised `trials` adds batches); a
file changed in what the trials depend on (the space, objectives, policies, options,
games, racing or seed) starts a new study.
The sampler is seeded from (seed, trial number) at each ask and an evaluation depends
only on the setting and the block seeds, so a resumed study ends as an uninterrupted one.

This module plans the run and makes its tables; racing.py plays, races and confirms the
settings; the plan, knobs and objectives are report/tuning_model.py's, which the report
(report/layouts/tune.py) reads with the data this module hands it.

Analysis keys: players, policy, focal_policy, strong, weak, options, space, objectives,
trials, batch, games, eta, rungs, confirm, confirm_games.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import sys
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import SheepsimError
from ..fileio import write_atomic
from ..games import get_game
from ..policies import seat_specs
from ..report.layouts.tune import Tuning
from ..report.layouts.tune import layout  # the kind's report (definition.Kind)
from ..report.tuning_model import METRICS, Knob, Objective, Plan, setting_text, shown, shown_names
from ..start import policy_data
from ..stats import measures as M
from ..stats import tables as T
from . import racing as R
from .racing import _key, block_seed, confirm_run, loss, loss_influence, neighbours, options_of, valid

KEYS = ("players", "policy", "focal_policy", "strong", "weak", "options", "space", "objectives", "trials", "batch",
        "games", "eta", "rungs", "confirm", "confirm_games")
GOALS = ("minimize", "maximize", "zero", "inside")


def _problem(text: str) -> SheepsimError:
    return SheepsimError(f"tune: {text}")


def _whole(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _knob(game, name: str, spec: Any, players: int) -> Knob:
    if not isinstance(spec, dict):
        raise _problem(f"[space.{name}] must be a table, e.g. {{ option = \"colours\", low = 4, high = 8 }}")
    unknown = sorted(set(spec) - {"option", "player", "low", "high", "step", "choices"})
    if unknown:
        raise _problem(f"[space.{name}]: unknown key {unknown[0]!r}; valid keys: option, player, low, high, step, "
                       f"choices")
    options = {o.name: o for o in game.options}
    option = spec.get("option", name)
    if option not in options:
        raise _problem(f"[space.{name}]: unknown {game.name} option {option!r}; valid options: "
                       f"{', '.join(options)}")
    o = options[option]
    player = spec.get("player")
    if player is not None:
        per_player = [x.name for x in game.options if x.per_player] or ["none"]
        if not o.per_player:
            raise _problem(f"[space.{name}]: {option} is one value for every player, so it takes no `player`; "
                           f"per-player options: {', '.join(per_player)}")
        if not (_whole(player) and 0 <= player < players):
            raise _problem(f"[space.{name}]: `player` must be a player slot 0..{players - 1}, not {player!r}")
    if "choices" in spec:
        if {"low", "high", "step"} & set(spec):
            raise _problem(f"[space.{name}]: give either choices or low/high, not both")
        choices = spec["choices"]
        if not isinstance(choices, list) or not choices:
            raise _problem(f"[space.{name}]: `choices` is an empty range; give a list of {option}'s values "
                           f"({o.allowed()})")
        for c in choices:
            try:
                o.parse(c)
            except SheepsimError as exc:
                raise _problem(f"[space.{name}]: {exc}")
        return Knob(name, option, tuple(choices), player, True)
    if o.choices is not None:
        raise _problem(f"[space.{name}]: {option} takes choices ({o.allowed()}): give `choices = [...]`")
    low, high, step = spec.get("low"), spec.get("high"), spec.get("step", 1)
    if not all(_whole(v) for v in (low, high, step)) or step < 1:
        raise _problem(f"[space.{name}]: give whole numbers low and high (and step >= 1) for {option}, "
                       f"allowed {o.low}..{o.high}")
    if low > high:
        raise _problem(f"[space.{name}]: the range {low}..{high} is empty (low above high)")
    if low < o.low or high > o.high:
        raise _problem(f"[space.{name}]: the range {low}..{high} leaves {option}'s allowed {o.low}..{o.high}")
    return Knob(name, option, tuple(range(low, high + 1, step)), player)


def _objective(spec: Any, i: int) -> Objective:
    if not isinstance(spec, dict) or "metric" not in spec:
        raise _problem(f"objective {i + 1} must be a table with a metric and a goal, e.g. "
                       f"{{ metric = \"edge\", goal = \"zero\" }}")
    unknown = sorted(set(spec) - {"metric", "goal", "range"})
    if unknown:
        raise _problem(f"objective {i + 1}: unknown key {unknown[0]!r}; valid keys: metric, goal, range")
    metric, goal = spec["metric"], spec.get("goal")
    if metric not in METRICS:
        raise _problem(f"objective {i + 1}: unknown metric {metric!r}; valid metrics: {', '.join(METRICS)}")
    if goal not in GOALS:
        raise _problem(f"objective {i + 1}: unknown goal {goal!r}; valid goals: {', '.join(GOALS)}")
    if goal != "inside":
        if "range" in spec:
            raise _problem(f"objective {i + 1}: a `range` belongs to goal = \"inside\"")
        return Objective(metric, goal)
    if metric != "length":
        raise _problem(f"objective {i + 1}: goal \"inside\" is for metric \"length\" (the target-length score)")
    try:
        return Objective(metric, goal, T.target_range(spec.get("range")))
    except ValueError as exc:
        raise _problem(f"objective {i + 1}: `range` {exc}")


def _positive(spec: dict, key: str, default: int, least: int = 1) -> int:
    value = spec.get(key, default)
    if not (_whole(value) and value >= least):
        raise _problem(f"`{key}` must be a whole number >= {least}, not {value!r}")
    return value


def plan(spec: dict[str, Any], scale: float) -> Plan:
    game = get_game(spec["game"])
    players = spec.get("players", game.players[0])
    if not _whole(players):
        raise _problem("`players` must be one player count")
    strong, weak = game.skill_policies
    field_policy = spec.get("policy", strong)
    focal = spec.get("focal_policy")
    policies = [focal if focal is not None else field_policy] + [field_policy] * (players - 1)
    space = spec.get("space")
    if not isinstance(space, dict) or not space:
        raise _problem("a tune analysis needs a [space] table of knobs, e.g. [space.colours] option = \"colours\", "
                       "low = 4, high = 8")
    knobs = [_knob(game, name, s, players) for name, s in space.items()]
    objectives = spec.get("objectives")
    if not isinstance(objectives, list) or not 1 <= len(objectives) <= 2:
        raise _problem("give one or two objectives, e.g. objectives = [{ metric = \"edge\", goal = \"zero\" }]")
    objectives = [_objective(o, i) for i, o in enumerate(objectives)]
    if any(o.metric == "focal_edge" for o in objectives) and focal is None:
        raise _problem("the focal_edge metric needs a `focal_policy` (player slot 0's policy)")
    eta, rungs = _positive(spec, "eta", 2, 2), _positive(spec, "rungs", 3)
    games = max(eta ** (rungs - 1), round(_positive(spec, "games", 8000) * scale))
    totals = [math.ceil(games / eta ** (rungs - 1 - r)) for r in range(rungs)]
    p = Plan(game, players, policies, spec.get("strong", strong), spec.get("weak", weak),
             dict(spec.get("options", {})), knobs, objectives, _positive(spec, "trials", 48),
             _positive(spec, "batch", 8, 2), [b - a for a, b in zip([0] + totals[:-1], totals)], eta,
             _positive(spec, "confirm", 3), max(1, round(_positive(spec, "confirm_games", 40_000) * scale)),
             int(spec["seed"]))
    p.needs_skill = any(o.metric == "skill_gap" for o in objectives)
    try:
        specs = seat_specs(game.name, policies, players)
        base = game.make_rules(players, p.options)
        policy_data(game, base, specs)
        if p.needs_skill:
            seat_specs(game.name, [p.strong] + [p.weak] * (players - 1), players)
    except SheepsimError as exc:
        raise _problem(str(exc))
    # what the trials depend on: raising `trials` (or changing the confirmation or the
    # words) goes on with the stored study
    kept = {k: v for k, v in spec.items() if k not in ("trials", "confirm", "confirm_games", "name", "title",
                                                       "description")}
    p.identity = hashlib.sha256(json.dumps([kept, round(games), game.version], sort_keys=True, default=str).encode()
                                ).hexdigest()[:16]
    return p


# --- the run and its report ---------------------------------------------------------------

def run(spec: dict[str, Any], p: Plan, reports: Path, threads: int | None, progress: bool,
        command: str = "") -> Tuning:
    folder = (reports / spec["name"]).absolute()
    study = R.open_study(p, folder, progress)
    R.search(p, study, threads, progress)
    trials = R.trials_table(p, study)
    seconds = R.search_seconds(study)
    picked = R.candidates(p, trials)
    if picked.empty:
        raise SheepsimError(f"tune: no setting played all {sum(p.blocks):,} games (every one the rules rejected?); "
                            f"widen the space")
    if progress:
        print(f"{spec['name']}: confirming {len(picked)} setting(s) on {p.confirm_games:,} fresh games ...",
              file=sys.stderr, flush=True)
    settings = [dict(study.trials[int(n)].params) for n in picked["trial"]]       # the values as asked
    ests = [R.confirm_run(p, s, threads) for s in settings]
    best = R.knee(p, ests)
    order = [best] + [i for i in range(len(settings)) if i != best]       # the best first
    settings, ests, best = [settings[i] for i in order], [ests[i] for i in order], 0
    confirmed = _confirmed_table(p, settings, ests, best)
    sensitivity = _sensitivity_table(p, settings[best], ests[best], threads)
    buffer = io.BytesIO()
    trials.to_parquet(buffer, index=False)
    write_atomic(folder / "trials.parquet", buffer.getvalue())      # a full disk: one line, no half file
    return Tuning(p, trials, seconds, settings, ests, confirmed, sensitivity, replays(p, settings[best]))


def _measures_row(p: Plan, est: dict, names: list[str]) -> dict[str, float]:
    row = {}
    for m in names:
        row[m], row[f"{m}_lo"], row[f"{m}_hi"] = shown(p, est, m)
    return row


def _change_row(p: Plan, base: dict, moved: dict) -> dict[str, Any]:
    """Each objective's paired change from `base` to `moved` ("d_" + measure) and the
    verdict from the objectives' losses: better, worse, or no detectable change. The
    change is of what the verdict judges: for a `zero` goal the value's size (a change
    of the signed edge from -0.5 to +0.6 points is a clear +1.1, yet the size moved by
    +0.1, no detectable change); for the others the value, whose change is the loss's
    up to its sign."""
    row, verdicts = {}, []
    for o in p.objectives:
        (vb, ib), (vm, im) = base[o.measure], moved[o.measure]
        lb, lm = loss(o, base, p.players), loss(o, moved, p.players)
        change, lo, hi, _ = M.paired(lb, loss_influence(o, base, p.players), lm, loss_influence(o, moved, p.players))
        row[f"d_{o.measure}"], row[f"d_{o.measure}_lo"], row[f"d_{o.measure}_hi"] = (
            (change, lo, hi) if o.goal == "zero" else M.paired(vb, ib, vm, im)[:3])
        verdicts.append("worse" if lo > 0 else "better" if hi < 0 else "same")
    # dominance: better (worse) when better (worse) on some objective and worse (better) on none
    if "better" in verdicts and "worse" not in verdicts:
        row["against the best"] = "better"
    elif "worse" in verdicts and "better" not in verdicts:
        row["against the best"] = "worse"
    elif "better" in verdicts:
        row["against the best"] = "a trade-off: " + ", ".join(
            f"{v} {METRICS[o.metric][0] if o.goal != 'inside' else o.label}" for o, v in zip(p.objectives, verdicts)
            if v != "same")
    else:
        row["against the best"] = "no detectable change"
    return row


def replays(p: Plan, setting: dict[str, Any]) -> list[dict[str, Any]]:
    """Three games of the best setting's confirmation run worth watching
    (tables.worth_watching), as the report's replay records (report/saved.py)."""
    frame = p.cache[(_key(setting), "confirm")]["frame"]
    base = {"game": p.game.name, "players": p.players, "options": options_of(p, setting), "policies": p.policies,
            "seed": block_seed(p.seed, -1), "rotate": True, "run": f"best setting {setting_text(setting)}"}
    return T.worth_watching(frame, p.game.turn_unit, base)


def _confirmed_table(p: Plan, settings: list[dict], ests: list[dict], best: int) -> pd.DataFrame:
    rows = []
    for i, (s, est) in enumerate(zip(settings, ests)):
        rows.append({"setting": setting_text(s) + (" (best)" if i == best else ""),
                     **_measures_row(p, est, shown_names(p)),
                     **({} if i == best else _change_row(p, ests[best], est)),
                     **{f"loss_{j}": loss(o, est, p.players) for j, o in enumerate(p.objectives)}})
    table = pd.DataFrame(rows)
    if "against the best" not in table:          # the best was the only setting to confirm
        table["against the best"] = ""
    return table[[c for c in table if c != "against the best"] + ["against the best"]].fillna({"against the best": ""})


def _sensitivity_table(p: Plan, setting: dict, est: dict, threads: int | None) -> pd.DataFrame:
    rows = []
    for k, moved in neighbours(p, setting):
        row = {"knob": k.name, "from": setting[k.name], "to": moved[k.name]}
        why = valid(p, moved)
        if why:
            rows.append({**row, "against the best": f"the rules reject it: {why}"})
            continue
        other = confirm_run(p, moved, threads)
        rows.append({**row, **_measures_row(p, other, [o.measure for o in p.objectives]), **_change_row(p, est, other)})
    return pd.DataFrame(rows)
