"""The tuner's evaluation and search (tune.py plans the run and makes its tables): a
setting played on a block of games, its measures and losses; an optuna study asked in
batches, each batch raced by successive halving on common seeds, and the confirmation
of the best settings on fresh seeds. The module docstring of tune.py says what each step
means."""

from __future__ import annotations

import json
import math
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..errors import SheepsimError
from ..policies import seat_specs
from ..report.tuning_model import Objective, Plan, offset
from ..runner import simulate
from ..runner.progress import progress_bar
from ..start import policy_data
from ..stats import measures as M
from ..stats import tables as T
from ..stats.pareto import fronts, knee_scores, rank

STUDY = "tune"
STUDY_FILE = "study.sqlite3"


def _optuna():
    import optuna
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
    return optuna


# --- evaluating a setting --------------------------------------------------------------

def block_seed(seed: int, block: int) -> int:
    """The seed of racing block `block` (0, 1, ...) or of the confirmation (-1): a fresh
    stream for each, the same for every setting."""
    return int(np.random.SeedSequence([seed, 0x7475, block + 1]).generate_state(1, np.uint32)[0])


def options_of(p: Plan, setting: dict[str, Any]) -> dict[str, Any]:
    """The rule options of a setting (knob name -> value): the file's `options`, each
    knob's option, per-player knobs last, over the others' values."""
    options = dict(p.options)
    for k in p.knobs:
        if k.player is None:
            options[k.option] = setting[k.name]
    for k in p.knobs:
        if k.player is not None:
            current = options.get(k.option, next(o.default for o in p.game.options if o.name == k.option))
            values = [int(v) for v in str(current).split(",")]
            values = values * p.players if len(values) == 1 else values
            values[k.player] = setting[k.name]
            options[k.option] = ",".join(str(v) for v in values)
    return options


def _play(p: Plan, setting: dict[str, Any], games: int, seed: int, threads: int | None) -> dict[str, Any]:
    """One block of a setting: the measures' per-game (a, b), and the seats' winners."""
    rules = p.game.make_rules(p.players, options_of(p, setting))
    df = simulate(p.game, rules, seat_specs(p.game.name, p.policies, p.players), games, seed, threads,
                  metrics=True, notify=_to_stderr).results
    names = {"edge", "focal_edge", "length", *M.EXPERIENCE}
    target = next((o.range for o in p.objectives if o.goal == "inside"), None)
    out = {"pairs": M.per_game(df, sorted(names | ({"target_length"} if target else set())), target),
           "frame": df[["game", "winner", "num_players", "rotation", "turns", "drama"]]}
    if p.needs_skill:
        skill = simulate(p.game, rules, seat_specs(p.game.name, [p.strong] + [p.weak] * (p.players - 1), p.players),
                         games, seed, threads, notify=_to_stderr).results
        out["pairs"]["skill_gap"] = M.slot_share(skill)
    return out


def _to_stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _key(setting: dict[str, Any]) -> str:
    return json.dumps(setting, sort_keys=True)


def valid(p: Plan, setting: dict[str, Any]) -> str:
    """'' when the rules take the setting, else why not."""
    try:
        policy_data(p.game, p.game.make_rules(p.players, options_of(p, setting)),
                    seat_specs(p.game.name, p.policies, p.players))
    except SheepsimError as exc:
        return str(exc)
    return ""


def played(p: Plan, setting: dict[str, Any], blocks: int, threads: int | None) -> list[dict]:
    """The setting's first `blocks` racing blocks, played once each (cached)."""
    out = []
    for b in range(blocks):
        key = (_key(setting), b)
        if key not in p.cache:
            p.cache[key] = _play(p, setting, p.blocks[b], block_seed(p.seed, b), threads)
        out.append(p.cache[key])
    return out


def estimates(runs: list[dict]) -> dict[str, tuple[float, np.ndarray | None]]:
    """Every measure of the pooled blocks: name -> (value, per-game influence values)."""
    pairs = {name: (np.concatenate([r["pairs"][name][0] for r in runs]),
                    np.concatenate([r["pairs"][name][1] for r in runs])) for name in runs[0]["pairs"]}
    out = {name: M.ratio(a, b) for name, (a, b) in pairs.items()}
    frame = pd.concat([r["frame"] for r in runs], ignore_index=True)
    out["balance"] = M.balance(frame)
    winner = frame["winner"].to_numpy()
    wins = np.bincount(winner[winner >= 0], minlength=int(frame["num_players"].iloc[0]))
    # the delta method's interval fails near 1 (the largest gap is a maximum of noisy
    # gaps); tables show the parametric bootstrap's, as every summary does
    out["balance_interval"] = T.balance(wins, int(wins.sum()))[1:] if wins.sum() else (math.nan, math.nan)
    return out


def loss(o: Objective, est: dict[str, tuple[float, Any]], players: int) -> float:
    """What the sampler minimises for objective `o` (NaN: undefined, ranked last)."""
    value = est[o.measure][0] - offset(o.measure, players)
    return {"minimize": value, "maximize": -value, "zero": abs(value), "inside": -value}[o.goal]


def loss_influence(o: Objective, est: dict[str, tuple[float, Any]], players: int) -> np.ndarray | None:
    """The per-game influence values of the loss (its sign flips for maximize and inside,
    and follows the value's sign for zero)."""
    value, infl = est[o.measure]
    if infl is None:
        return None
    value -= offset(o.measure, players)
    sign = {"minimize": 1.0, "maximize": -1.0, "inside": -1.0, "zero": 1.0 if value >= 0 else -1.0}[o.goal]
    return sign * infl


# --- the search ---------------------------------------------------------------------------

def open_study(p: Plan, folder: Path, progress: bool):
    """The study stored in folder/study.sqlite3 for this file and scale: resumed when
    its identity matches, else started anew (a changed file)."""
    optuna = _optuna()
    url = f"sqlite:///{(folder / STUDY_FILE).as_posix()}"
    directions = ["minimize"] * len(p.objectives)
    if (folder / STUDY_FILE).exists():
        try:
            study = optuna.load_study(study_name=STUDY, storage=url)
        except Exception:        # another program's file, or no study of that name: start anew
            study = None
        if study is not None and study.user_attrs.get("identity") == p.identity:
            return study
        if study is not None:
            optuna.delete_study(study_name=STUDY, storage=url)
        if progress:
            print(f"tune: {folder / STUDY_FILE} holds a study of another file or scale: starting anew",
                  file=sys.stderr, flush=True)
    study = optuna.create_study(study_name=STUDY, storage=url, directions=directions)
    study.set_user_attr("identity", p.identity)
    return study


def sampler(p: Plan, number: int):
    """The sampler for trial `number`, seeded from (seed, number): a resumed study asks
    what an uninterrupted one would."""
    optuna = _optuna()
    seed = int(np.random.SeedSequence([p.seed, 0x73616D, number]).generate_state(1, np.uint32)[0])
    if len(p.objectives) == 1:
        return optuna.samplers.TPESampler(seed=seed, n_startup_trials=p.batch, multivariate=True)
    return optuna.samplers.NSGAIISampler(seed=seed, population_size=p.batch)


def distributions(p: Plan) -> dict[str, Any]:
    optuna = _optuna()
    d = optuna.distributions
    return {k.name: d.CategoricalDistribution(list(k.values)) if k.choices else
            d.IntDistribution(k.values[0], k.values[-1], step=(k.values[1] - k.values[0]) if len(k.values) > 1 else 1)
            for k in p.knobs}


def search(p: Plan, study, threads: int | None, progress: bool) -> None:
    """Ask and race batches until `trials` settings were tried (the ones stored count)."""
    optuna = _optuna()
    TS = optuna.trial.TrialState
    batches = math.ceil(p.trials / p.batch)
    told = {t.user_attrs.get("batch") for t in study.trials if t.state != TS.RUNNING}
    running = {t.user_attrs.get("batch") for t in study.trials if t.state == TS.RUNNING}
    todo = [b for b in range(batches) if b in running or b not in told]
    bar = progress_bar(batches * p.batch, progress, "settings")
    bar.update((batches - len(todo)) * p.batch)
    space = distributions(p)
    for b in todo:
        # a batch cut short keeps its trials (their settings are stored): finish it
        members = [optuna.trial.Trial(study, t._trial_id) if t.state == TS.RUNNING else t
                   for t in study.trials if t.user_attrs.get("batch") == b]
        while len(members) < p.batch:
            study.sampler = sampler(p, len(study.trials))
            members.append(study.ask(space))
            members[-1].set_user_attr("batch", b)
        race(p, study, members, threads)
        bar.update(p.batch)
    bar.close()


def race(p: Plan, study, members: list, threads: int | None) -> None:
    """Successive halving over one batch (optuna Trials still to tell, or FrozenTrials
    told before an interruption), then tell each Trial its losses at the games it
    reached (a setting the rules reject: pruned)."""
    optuna = _optuna()
    TS = optuna.trial.TrialState
    settings = [dict(t.params) for t in members]
    reasons = [valid(p, s) for s in settings]
    alive = [i for i, why in enumerate(reasons) if not why]
    reached: dict[int, tuple[int, dict]] = {}
    for r in range(len(p.blocks)):
        for i in alive:
            reached[i] = (r + 1, estimates(played(p, settings[i], r + 1, threads)))
        if r + 1 < len(p.blocks) and alive:
            losses = np.array([[loss(o, reached[i][1], p.players) for o in p.objectives] for i in alive])
            keep = rank(losses)[:max(1, math.ceil(len(alive) / p.eta))]
            alive = [alive[j] for j in sorted(keep.tolist())]
    for i, trial in enumerate(members):
        if not isinstance(trial, optuna.trial.Trial):
            continue                     # told before an interruption: the same values again
        if reasons[i]:
            trial.set_user_attr("rejected", reasons[i])
            study.tell(trial, state=TS.PRUNED)
            continue
        blocks, est = reached[i]
        losses = [loss(o, est, p.players) for o in p.objectives]
        trial.set_user_attr("games", int(sum(p.blocks[:blocks])))
        trial.set_user_attr("values", {k: v for k, (v, _) in est.items() if k != "balance_interval"})
        if any(math.isnan(v) for v in losses):      # no decided game to measure it on
            study.tell(trial, state=TS.FAIL)
        else:
            study.tell(trial, losses)


# --- what the study found -----------------------------------------------------------------

def trials_table(p: Plan, study) -> pd.DataFrame:
    """One row per trial: its setting, state, games played, losses and every measure
    (edges less the fair 1/P), the rules' reason for a rejected setting."""
    rows = []
    for t in study.trials:
        values = t.user_attrs.get("values", {})
        row = {"trial": t.number, "batch": t.user_attrs.get("batch"),
               **{k.name: t.params.get(k.name) for k in p.knobs},
               "state": t.state.name.lower(), "games": t.user_attrs.get("games", 0)}
        for i in range(len(p.objectives)):
            row[f"loss_{i}"] = t.values[i] if t.values is not None else math.nan
        for name, value in values.items():
            row[name] = value - offset(name, p.players) if value is not None else math.nan
        row["rejected"] = t.user_attrs.get("rejected", "")
        row["seconds"] = ((t.datetime_complete - t.datetime_start).total_seconds()
                          if t.datetime_complete and t.datetime_start else math.nan)
        rows.append(row)
    return pd.DataFrame(rows)


def search_seconds(study) -> float:
    """Wall time of the search: each batch from its first ask to its last tell, summed
    (a resumed study counts every session's batches, not the pause between them)."""
    spans: dict[Any, list] = {}
    for t in study.trials:
        if t.datetime_start and t.datetime_complete:
            span = spans.setdefault(t.user_attrs.get("batch"), [t.datetime_start, t.datetime_complete])
            span[0], span[1] = min(span[0], t.datetime_start), max(span[1], t.datetime_complete)
    return sum((b - a).total_seconds() for a, b in spans.values())


def candidates(p: Plan, trials: pd.DataFrame) -> pd.DataFrame:
    """The settings to confirm: of those that played every block (each setting once),
    the `confirm` best (one objective) or up to `confirm` spread along the Pareto front."""
    full = trials[(trials["state"] == "complete") & (trials["games"] == sum(p.blocks))]
    full = full.drop_duplicates([k.name for k in p.knobs])
    losses = full[[f"loss_{i}" for i in range(len(p.objectives))]].to_numpy()
    if len(p.objectives) == 1:
        return full.iloc[rank(losses)[:p.confirm]]
    front = full[fronts(losses) == 0]
    return front.iloc[np.argsort(knee_scores(front[["loss_0", "loss_1"]].to_numpy()), kind="stable")[:p.confirm]]


def confirm_run(p: Plan, setting: dict[str, Any], threads: int | None) -> dict[str, tuple[float, Any]]:
    """The setting's measures on the confirmation's fresh games (common to every setting)."""
    key = (_key(setting), "confirm")
    if key not in p.cache:
        p.cache[key] = _play(p, setting, p.confirm_games, block_seed(p.seed, -1), threads)
    return estimates([p.cache[key]])


def knee(p: Plan, ests: list[dict]) -> int:
    """The best confirmed setting: the knee of the confirmed settings' losses."""
    return int(np.argmin(knee_scores(np.array([[loss(o, e, p.players) for o in p.objectives] for e in ests]))))


def neighbours(p: Plan, setting: dict[str, Any]):
    """(knob, moved setting) for each knob moved one step down and one step up alone."""
    for k in p.knobs:
        i = k.values.index(setting[k.name])
        for j in (i - 1, i + 1):
            if 0 <= j < len(k.values):
                yield k, {**setting, k.name: k.values[j]}
