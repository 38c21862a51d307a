"""Ratings across a policy population: a round robin, Bradley-Terry ratings, cycles.

Every pair of the listed policies plays `games` 2-player games, seats rotated (each
policy plays each seat equally often) on the analysis seed, so every pair sees the same
deals. Ratings: the Bradley-Terry model P(i beats j) = 1 / (1 + exp(r_j - r_i)), fitted
by maximum likelihood (scipy.optimize.minimize, L-BFGS, on the log-likelihood of every
pair's wins; a draw or shared win counts half a win to each), shown on the Elo scale
(400 / ln 10 per unit of r) with the first policy at 0. Intervals: a parametric
bootstrap, each pair's wins redrawn from its observed rate, refitted `bootstrap` times;
the 2.5 and 97.5 percentiles. A cycle is reported when the pairwise results contradict
any ranking: A beats B beats C beats A, each significantly (the pair's 95% Wilson
interval excludes one half), found by a depth-first search of the "beats" graph. With
no cycle some order fits every significant result, but not necessarily the ratings'
(Bradley-Terry weighs every pair): each significant result the ratings' order
contradicts (the winner rated below the loser) is listed.

Analysis keys: policies (SPECs, at least 3), games (per pair), options, bootstrap.
"""

from __future__ import annotations

import math
import sys
import time
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy.optimize import minimize

from ..errors import SheepsimError
from ..games import get_game
from ..policies import seat_specs
from ..report.layouts.ratings import Plan, Ratings
from ..report.layouts.ratings import layout  # the kind's report (definition.Kind)
from ..runner import simulate
from ..start import policy_data
from ..stats import tables as T
from ..stats.intervals import wilson_interval

KEYS = ("policies", "games", "options", "bootstrap")
ELO = 400 / math.log(10)


def plan(spec: dict[str, Any], scale: float) -> Plan:
    game = get_game(spec["game"])
    if game.players[0] > 2:
        raise SheepsimError(f"ratings come from 2-player games; {game.title} takes {game.players[0]} or more")
    rules = game.make_rules(2, spec.get("options", {}))
    policies = spec.get("policies", [])
    specs = seat_specs(game.name, policies, len(policies)) if policies else []
    labels = [s.label for s in specs]
    if len(set(labels)) < 3:
        raise SheepsimError("ratings need at least 3 different policies (`policies = [...]`), a round robin of pairs")
    policy_data(game, rules, specs)                 # the policies can play these rules (Pig's optimal)
    games = spec.get("games", 10_000)
    if not isinstance(games, int):
        raise SheepsimError("`games` of ratings is one number, the games per pair")
    bootstrap = spec.get("bootstrap", 1000)
    if not isinstance(bootstrap, int) or not 100 <= bootstrap <= 100_000:
        raise SheepsimError(f"`bootstrap` must be a whole number of resamples, 100..100000, not {bootstrap!r}")
    return Plan(game, rules, list(dict.fromkeys(labels)), max(1, round(games * scale)), bootstrap)


def fit(wins: np.ndarray, played: np.ndarray) -> np.ndarray:
    """Bradley-Terry strengths r (r[0] = 0) from wins[i, j], the (half-)wins of i over
    j, and played[i, j], their games: maximum likelihood."""
    n = len(wins)

    def nll(x):
        r = np.concatenate([[0.0], x])
        d = r[:, None] - r[None, :]
        beat = 1.0 / (1.0 + np.exp(-d))             # beat[i, j] = P(i beats j)
        loss = np.sum(wins * np.logaddexp(0.0, -d))  # -sum w_ij log P(i beats j), written stably
        # d loss / d r_k = -sum_j w_kj P(j beats k) + sum_i w_ik P(k beats i)
        grad = -(wins * beat.T).sum(axis=1) + (wins.T * beat).sum(axis=1)
        return loss, grad[1:]
    result = minimize(nll, np.zeros(n - 1), jac=True, method="L-BFGS-B", bounds=[(-30, 30)] * (n - 1))
    return np.concatenate([[0.0], result.x])


def cycle(beats: np.ndarray) -> list[int] | None:
    """A cycle of the directed graph beats[i, j] (i beats j significantly), or None."""
    n = len(beats)
    state = [0] * n         # 0 new, 1 on the path, 2 done
    path: list[int] = []

    def visit(i):
        state[i] = 1
        path.append(i)
        for j in range(n):
            if beats[i, j]:
                if state[j] == 1:
                    return path[path.index(j):] + [j]
                if state[j] == 0:
                    found = visit(j)
                    if found:
                        return found
        state[i] = 2
        path.pop()
        return None

    for i in range(n):
        if state[i] == 0:
            found = visit(i)
            if found:
                return found
    return None


def contradicted(order: list[int], beats: np.ndarray) -> list[tuple[int, int]]:
    """The pairs (i, j) where i beats j significantly (beats[i, j]) but the order (best
    first) puts j above i."""
    rank = {k: position for position, k in enumerate(order)}
    return [(int(i), int(j)) for i, j in zip(*np.nonzero(beats)) if rank[int(i)] > rank[int(j)]]


def run(spec: dict[str, Any], p: Plan, reports: Path, threads: int | None, progress: bool,
        command: str = "") -> Ratings:
    name, seed, game = spec["name"], spec["seed"], p.game
    n = len(p.labels)
    wins = np.zeros((n, n))         # half-wins of row over column
    played = np.zeros((n, n))
    seconds = {}
    for i, j in combinations(range(n), 2):
        if progress:
            print(f"{name}: {p.labels[i]} against {p.labels[j]}, {p.games:,} games ...", file=sys.stderr, flush=True)
        specs = seat_specs(game.name, [p.labels[i], p.labels[j]], 2)
        start = time.perf_counter()
        df = simulate(game, p.rules, specs, p.games, seed, threads, progress=progress).results
        seconds[(i, j)] = time.perf_counter() - start
        sole = T.policy_table(df).set_index("policy")["wins"]      # sole wins, by policy over seats
        won_i, won_j = sole[specs[0].label], sole[specs[1].label]
        draws = len(df) - won_i - won_j
        wins[i, j], wins[j, i] = won_i + draws / 2, won_j + draws / 2
        played[i, j] = played[j, i] = len(df)
    rate = np.divide(wins, played, out=np.full((n, n), np.nan), where=played > 0)
    lo, hi = wilson_interval(np.where(played > 0, wins, 0), played)
    r = fit(wins, played)
    rng = np.random.default_rng(seed)
    boots = np.array([fit(resample(rng, rate, played), played) for _ in range(p.bootstrap)])
    r_lo, r_hi = np.percentile(boots, [2.5, 97.5], axis=0)
    table = pd.DataFrame({"policy": p.labels, "rating": ELO * r, "rating_lo": ELO * r_lo, "rating_hi": ELO * r_hi,
                          "mean_win_rate": np.nanmean(rate, axis=1)}).sort_values("rating", ascending=False)
    beats = np.nan_to_num(lo) > 0.5
    loop = cycle(beats)
    against = contradicted([p.labels.index(x) for x in table["policy"]], beats)
    return Ratings(p, table, rate, lo, hi, played, loop, against, seconds)


def resample(rng, rate, played):
    """Each pair's wins redrawn from its observed rate (upper triangle; the lower mirrors
    it); a pair that never met stays at none."""
    n = len(rate)
    w = np.zeros((n, n))
    for i, j in combinations(range(n), 2):
        if not played[i, j]:
            continue
        k = rng.binomial(int(played[i, j]), rate[i, j])
        w[i, j], w[j, i] = k, played[i, j] - k
    return w
