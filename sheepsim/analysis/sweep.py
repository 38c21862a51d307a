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

Beyond the family: `outside = ["SPEC", ...]` plays each SPEC in the focal slot against
the field of every player count's confirmed equilibrium (the one the follow-up plays),
on seeds of their own, and the equilibrium's own setting in the focal slot on the same
games: an equilibrium of the swept family need not be one against every policy, and the
paired gain (the SPEC's win rate minus the setting's, with its 95% interval) says by how
much a policy outside the family beats it. `outside_games` games each (default
`confirm_games`). `strongest = "SPEC"`: the strongest player found, a search agent too
slow for `outside_games`, joins them on the first `strongest_games` of those games
(paired with the equilibrium's own on the same games).
"""

from __future__ import annotations

import sys
from pathlib import Path
from statistics import NormalDist
from typing import Any

import numpy as np
import pandas as pd

from ..errors import SheepsimError
from ..games import get_game
from ..policies import parse_spec, seat_specs
from ..report.layouts.sweep import Check, Count, FollowUp, Outside, Plan, Sweep, spec_of
from ..report.layouts.sweep import layout  # the kind's report (definition.Kind)
from ..runner import simulate
from ..start import policy_data
from ..stats import tables as T
from ..stats.intervals import wilson_interval
from .definition import player_counts

KEYS = ("players", "policy", "param", "values", "field_policy", "field_values", "field", "games",
        "confirm_games", "options", "confidence", "outside", "outside_games", "strongest", "strongest_games")


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
    outside = spec.get("outside", [])
    if not (isinstance(outside, list) and all(isinstance(o, str) for o in outside)):
        raise SheepsimError(f'`outside` must be a list of policy SPECs, e.g. outside = ["turn_optimal"], not {outside!r}')
    strongest = spec.get("strongest")
    if strongest is not None and not isinstance(strongest, str):
        raise SheepsimError(f'`strongest` must be one policy SPEC, e.g. strongest = "pimc:worlds=800", not {strongest!r}')
    if strongest in outside:
        raise SheepsimError(f"`strongest` ({strongest}) is also in `outside`: name it once")
    if (outside or strongest) and field is not None:
        raise SheepsimError("`outside` and `strongest` play policies against the equilibrium of a swept field; a "
                            "fixed `field` has none: put those SPECs in the focal `values`' place or drop them")
    players = player_counts(spec, game)
    confirm = spec.get("confirm_games", spec.get("games", 2000))
    outside_games = max(1, round(spec.get("outside_games", confirm) * scale))
    p = Plan(game, players, spec["policy"], spec.get("field_policy", spec["policy"]), spec["param"], values,
             field_values, max(1, round(spec.get("games", 2000) * scale)), max(1, round(confirm * scale)),
             dict(spec.get("options", {})), float(spec.get("confidence", 0.95)), field, tuple(outside),
             outside_games, strongest, strongest_games(spec, scale, outside_games, "outside_games"))
    focals = ([spec_of(p.policy, p.param, v) for v in values] + ([field] if field is not None else [])
              + list(outside) + ([strongest] if strongest else []))
    for n in players:
        rules = game.make_rules(n, p.options)               # validates players and options now
        for x in focals:
            for y in field_values:
                # the SPECs parse, and the policies can play these rules (Pig's optimal)
                policy_data(game, rules, seat_specs(game.name, [x] + [p.field_spec(y)] * (n - 1), n))
    if not 0.5 < p.confidence < 1:
        raise SheepsimError(f"confidence={p.confidence} must lie between 0.5 and 1")
    return p


def strongest_games(spec: dict[str, Any], scale: float, most: int, of: str) -> int:
    """`strongest_games` times `scale` (default: `most`, the games the other policies play,
    `of` their key): the strongest player is compared on the first of their games, so it
    may play fewer, never more."""
    value = spec.get("strongest_games")
    if value is None:
        return most
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise SheepsimError(f"`strongest_games` must be a positive whole number of games, not {value!r}")
    games = max(1, round(value * scale))
    if games > most:
        raise SheepsimError(f"`strongest_games` ({value:,}) must be at most `{of}`: the strongest player is compared "
                            f"on the first of the games the others play")
    return games


def focal_outcomes(game, rules, focal: str, field: str, games: int, seed: int, threads,
                   progress: bool = False) -> np.ndarray:
    """Per-game result of the focal slot, in game order: 1 it won, 0 a field seat won, -1
    no sole winner."""
    specs = [parse_spec(game.name, focal)] + [parse_spec(game.name, field)] * (rules.num_players - 1)
    df = simulate(game, rules, specs, games, seed, threads, progress=progress).results
    p = rules.num_players
    # with rotation, slot 0 (focal) sits on seat (-g) mod P in game g
    focal_seat = (-df["game"].to_numpy()) % p
    winner = df["winner"].to_numpy()
    return np.where(winner < 0, -1, winner == focal_seat).astype(np.int8)


def focal_wins(game, rules, focal: str, field: str, games: int, seed: int, threads,
               progress: bool = False) -> np.ndarray:
    """Per-game result of the focal slot (1 win, 0 otherwise), in game order."""
    return (focal_outcomes(game, rules, focal, field, games, seed, threads, progress) == 1).astype(np.int8)


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


def follow_up_at(checks: list[Check]) -> Check | None:
    """The confirmed equilibrium to play every seat at: the one closest to being its own
    best response on fresh seeds (largest gap, 0 when it is the fresh best), the lower
    setting on a tie; None when no candidate was confirmed."""
    confirmed = [c for c in checks if c.confirmed]
    return max(confirmed, key=lambda c: (c.gap, -c.field)) if confirmed else None


def run(spec: dict[str, Any], p: Plan, reports: Path, threads, progress: bool, command: str = "") -> Sweep:
    name = spec["name"]
    seed = int(spec["seed"])
    game = p.game
    q = p.param
    rules_of, counts = {}, []
    for n in p.players:
        rules = rules_of[n] = game.make_rules(n, p.options)
        outcomes = np.zeros((len(p.values), len(p.field_values), p.games), dtype=np.int8)
        for j, y in enumerate(p.field_values):
            if progress:
                print(f"{name}: {n} players, field {p.field_spec(y)} ...", file=sys.stderr, flush=True)
            for i, x in enumerate(p.values):
                outcomes[i, j] = focal_outcomes(game, rules, spec_of(p.policy, q, x), p.field_spec(y), p.games, seed,
                                                threads)
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
        own = None
        if p.field is not None:
            # the field's own policy in the focal slot, on the same seeds: what each x is
            # measured against (its regret)
            if progress:
                print(f"{name}: {n} players, {p.field} in the focal slot ...", file=sys.stderr, flush=True)
            own = focal_wins(game, rules, p.field, p.field, p.games, seed, threads)
        single = _single_field(p, outcomes[:, 0, :], own) if len(p.field_values) == 1 else None
        follow = (_play_at(game, rules, spec_of(p.field_policy, q, at.field), p.confirm_games, seed + 2, threads, n)
                  if at is not None else None)
        beyond = None
        if (p.outside or p.strongest) and at is not None:
            if progress:
                print(f"{name}: {n} players, {', '.join(p.beyond)} against the equilibrium ...", file=sys.stderr,
                      flush=True)
            beyond = _outside(game, rules, p, spec_of(p.field_policy, q, at.field), seed + 3, threads, progress)
        counts.append(Count(n, outcomes, rate, lo, hi, keep, br, equilibria, checks, at, single,
                            None if own is None else float(own.mean()), follow, beyond))
    return Sweep(p, seed, rules_of, counts)


def _play_at(game, rules, spec: str, games: int, seed: int, threads, n: int) -> FollowUp:
    """Every seat plays `spec`: the games, their seat table, seat 0's edge, their length
    and the games worth watching."""
    unit = game.turn_unit
    df = simulate(game, rules, seat_specs(game.name, [spec], n), games, seed, threads, metrics=True).results
    defaults = {o.name: o.default for o in game.options}
    base = {"game": game.name, "players": n,
            "options": {k: v for k, v in rules.as_dict().items() if k in defaults and v != defaults[k]},
            "policies": [spec] * n, "seed": seed, "rotate": True, "run": f"{n}p, every seat {spec}"}
    return FollowUp(spec, df, T.seat_table(df), T.seat0_edge(df), T.length_table(df).iloc[0],
                    pd.DataFrame([T.experience_row(df)]), T.worth_watching(df, unit, base))


def _outside(game, rules, p: Plan, field: str, seed: int, threads, progress: bool) -> Outside:
    """Each `outside` SPEC in the focal slot against a field of the equilibrium `field`,
    and `field` itself there on the same games: win rates and the paired gains; the
    `strongest` on the first strongest_games of them."""
    own = focal_wins(game, rules, field, field, p.outside_games, seed, threads)
    rows = []
    for spec in p.beyond:
        games = p.strongest_games if spec == p.strongest else p.outside_games
        # the strongest is a search agent: its games are the long wait, worth a progress bar
        wins = focal_wins(game, rules, spec, field, games, seed, threads, progress and spec == p.strongest)
        lo, hi = wilson_interval(int(wins.sum()), len(wins))
        gain, g_lo, g_hi = regret(wins, own[None, :games])          # wins - own, paired on the same games
        rows.append({"policy": spec, "games": games, "win_rate": wins.mean(), "win_rate_lo": lo, "win_rate_hi": hi,
                     "gain": gain[0], "gain_lo": g_lo[0], "gain_hi": g_hi[0]})
    lo, hi = wilson_interval(int(own.sum()), len(own))
    return Outside(field, (float(own.mean()), float(lo), float(hi)), pd.DataFrame(rows))


def _single_field(p: Plan, outcomes: np.ndarray, own: np.ndarray | None = None) -> pd.DataFrame:
    """Against one field: every setting with its interval, its paired gap to the best
    and whether it is in the best set; with `own` (a fixed field's policy in the focal
    slot, same seeds) also the field's win rate and each setting's regret."""
    wins = (outcomes == 1).astype(np.int8)
    games = wins.shape[1]
    rate = wins.mean(axis=1)
    lo, hi = wilson_interval(wins.sum(axis=1), games)
    best, keep = best_set(wins, p.confidence)
    gap = [(wins[i].astype(float) - wins[best]).mean() for i in range(len(p.values))]
    table = pd.DataFrame({p.param: p.values, "win_rate": rate, "win_rate_lo": lo, "win_rate_hi": hi})
    if own is not None:
        field_wins = (outcomes == 0).sum(axis=1)
        f_lo, f_hi = wilson_interval(field_wins, games)
        r, r_lo, r_hi = regret(own, wins)
        table = table.assign(field_rate=field_wins / games, field_rate_lo=f_lo, field_rate_hi=f_hi,
                             regret=r, regret_lo=r_lo, regret_hi=r_hi)
    return table.assign(gap=gap, in_best_set=keep)


def _confirm(game, rules, p: Plan, br: pd.DataFrame, equilibria: list[float], seed: int, threads) -> list[Check]:
    """Re-run the best set against each equilibrium field on fresh seeds."""
    checks = []
    for y in equilibria:
        cands = br.loc[br["field"] == y, "best_set"].iloc[0]
        wins = np.stack([focal_wins(game, rules, spec_of(p.policy, p.param, x),
                                    spec_of(p.field_policy, p.param, y), p.confirm_games, seed, threads)
                         for x in cands])
        best, keep = best_set(wins, p.confidence)
        lo, hi = wilson_interval(int(wins[best].sum()), wins.shape[1])
        own = cands.index(y)
        checks.append(Check(y, list(cands), cands[best], (float(wins[best].mean()), lo, hi),
                            [cands[i] for i in np.flatnonzero(keep)],
                            float((wins[own].astype(float) - wins[best]).mean())))
    return checks
