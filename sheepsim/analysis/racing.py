"""The tuner's search (tune.py): an optuna study asked in batches, each batch raced by
successive halving on common seeds, and the confirmation of the best settings on fresh
seeds. The module docstring of tune.py says what each step means."""

from __future__ import annotations

import math
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..runner.progress import progress_bar
from ..stats import measures as M
from . import tune as U

STUDY = "tune"


def _optuna():
    import optuna
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
    return optuna


def open_study(p: U.Plan, folder: Path, progress: bool):
    """The study stored in folder/study.sqlite3 for this file and scale: resumed when
    its identity matches, else started anew (a changed file)."""
    optuna = _optuna()
    url = f"sqlite:///{(folder / U.STUDY_FILE).as_posix()}"
    directions = ["minimize"] * len(p.objectives)
    if (folder / U.STUDY_FILE).exists():
        try:
            study = optuna.load_study(study_name=STUDY, storage=url)
        except Exception:        # another program's file, or no study of that name: start anew
            study = None
        if study is not None and study.user_attrs.get("identity") == p.identity:
            return study
        if study is not None:
            optuna.delete_study(study_name=STUDY, storage=url)
        if progress:
            print(f"tune: {folder / U.STUDY_FILE} holds a study of another file or scale: starting anew",
                  file=sys.stderr, flush=True)
    study = optuna.create_study(study_name=STUDY, storage=url, directions=directions)
    study.set_user_attr("identity", p.identity)
    return study


def sampler(p: U.Plan, number: int):
    """The sampler for trial `number`, seeded from (seed, number): a resumed study asks
    what an uninterrupted one would."""
    optuna = _optuna()
    seed = int(np.random.SeedSequence([p.seed, 0x73616D, number]).generate_state(1, np.uint32)[0])
    if len(p.objectives) == 1:
        return optuna.samplers.TPESampler(seed=seed, n_startup_trials=p.batch, multivariate=True)
    return optuna.samplers.NSGAIISampler(seed=seed, population_size=p.batch)


def distributions(p: U.Plan) -> dict[str, Any]:
    optuna = _optuna()
    d = optuna.distributions
    return {k.name: d.CategoricalDistribution(list(k.values)) if k.choices else
            d.IntDistribution(k.values[0], k.values[-1], step=(k.values[1] - k.values[0]) if len(k.values) > 1 else 1)
            for k in p.knobs}


def search(p: U.Plan, study, threads: int | None, progress: bool) -> None:
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


def race(p: U.Plan, study, members: list, threads: int | None) -> None:
    """Successive halving over one batch (optuna Trials still to tell, or FrozenTrials
    told before an interruption), then tell each Trial its losses at the games it
    reached (a setting the rules reject: pruned)."""
    optuna = _optuna()
    TS = optuna.trial.TrialState
    settings = [dict(t.params) for t in members]
    reasons = [U.valid(p, s) for s in settings]
    alive = [i for i, why in enumerate(reasons) if not why]
    reached: dict[int, tuple[int, dict]] = {}
    for r in range(len(p.blocks)):
        for i in alive:
            reached[i] = (r + 1, U.estimates(U.played(p, settings[i], r + 1, threads)))
        if r + 1 < len(p.blocks) and alive:
            losses = np.array([[U.loss(o, reached[i][1], p.players) for o in p.objectives] for i in alive])
            keep = U.rank(losses)[:max(1, math.ceil(len(alive) / p.eta))]
            alive = [alive[j] for j in sorted(keep.tolist())]
    for i, trial in enumerate(members):
        if not isinstance(trial, optuna.trial.Trial):
            continue                     # told before an interruption: the same values again
        if reasons[i]:
            trial.set_user_attr("rejected", reasons[i])
            study.tell(trial, state=TS.PRUNED)
            continue
        blocks, est = reached[i]
        losses = [U.loss(o, est, p.players) for o in p.objectives]
        trial.set_user_attr("games", int(sum(p.blocks[:blocks])))
        trial.set_user_attr("values", {k: v for k, (v, _) in est.items() if k != "balance_interval"})
        if any(math.isnan(v) for v in losses):      # no decided game to measure it on
            study.tell(trial, state=TS.FAIL)
        else:
            study.tell(trial, losses)


# --- what the study found -----------------------------------------------------------------

def trials_table(p: U.Plan, study) -> pd.DataFrame:
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
            row[name] = value - U.offset(name, p.players) if value is not None else math.nan
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


def candidates(p: U.Plan, trials: pd.DataFrame) -> pd.DataFrame:
    """The settings to confirm: of those that played every block (each setting once),
    the `confirm` best (one objective) or up to `confirm` spread along the Pareto front."""
    full = trials[(trials["state"] == "complete") & (trials["games"] == sum(p.blocks))]
    full = full.drop_duplicates([k.name for k in p.knobs])
    losses = full[[f"loss_{i}" for i in range(len(p.objectives))]].to_numpy()
    if len(p.objectives) == 1:
        return full.iloc[U.rank(losses)[:p.confirm]]
    front = full[U.fronts(losses) == 0]
    return front.iloc[np.argsort(knee_scores(front[["loss_0", "loss_1"]].to_numpy()), kind="stable")[:p.confirm]]


def confirm_run(p: U.Plan, setting: dict[str, Any], threads: int | None) -> dict[str, tuple[float, Any]]:
    """The setting's measures on the confirmation's fresh games (common to every setting)."""
    key = (U._key(setting), "confirm")
    if key not in p.cache:
        p.cache[key] = U._play(p, setting, p.confirm_games, U.block_seed(p.seed, -1), threads)
    return U.estimates([p.cache[key]])


def shown(p: U.Plan, est: dict[str, tuple[float, Any]], name: str) -> tuple[float, float, float]:
    """A measure as reports show it, with its 95% interval: edges less the fair 1/P."""
    value, infl = est[name]
    lo, hi = est["balance_interval"] if name == "balance" else M.interval(value, infl)
    shift = U.offset(name, p.players)
    return value - shift, lo - shift, hi - shift


def knee_scores(losses: np.ndarray) -> np.ndarray:
    """The sum of each row's losses, each scaled to its range over the rows: the least is
    the compromise (the knee) of a Pareto front, and the best of one objective."""
    span = losses.max(axis=0) - losses.min(axis=0)
    return ((losses - losses.min(axis=0)) / np.where(span > 0, span, 1.0)).sum(axis=1)


def knee(p: U.Plan, ests: list[dict]) -> int:
    """The best confirmed setting: the knee of the confirmed settings' losses."""
    return int(np.argmin(knee_scores(np.array([[U.loss(o, e, p.players) for o in p.objectives] for e in ests]))))


def neighbours(p: U.Plan, setting: dict[str, Any]):
    """(knob, moved setting) for each knob moved one step down and one step up alone."""
    for k in p.knobs:
        i = k.values.index(setting[k.name])
        for j in (i - 1, i + 1):
            if 0 <= j < len(k.values):
                yield k, {**setting, k.name: k.values[j]}
