"""Rule or deck variants against a baseline, on common seeds.

Every variant is played with the same seeds as the baseline (common random numbers)
and compared on seat balance, game length and capped games.
Length changes are paired per game index (game g of the variant against game g of
the baseline); seat-0 edges carry Wilson intervals. Each variant's change in mean
length is tested with a paired z-test and Holm-adjusted over the variants.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..errors import SheepsimError
from ..games import get_game
from ..policies import seat_specs
from ..report import findings as F
from ..report.layouts.variants import PAIRED, Variants
from ..report.layouts.variants import layout  # the kind's report (definition.Kind)
from ..runner import simulate
from ..start import policy_data
from ..stats import tables as T
from ..stats.intervals import holm_adjusted, normal_p, wilson_interval
from .definition import player_counts

KEYS = ("players", "policy", "games", "options", "variants")


def _policy_for(spec: dict[str, Any], players: int) -> str:
    policy = spec.get("policy", "random")
    if isinstance(policy, dict):
        if str(players) not in policy:
            raise SheepsimError(f"`policy` has no entry for {players} players; give one per player count")
        return policy[str(players)]
    return policy


def plan(spec: dict[str, Any], scale: float) -> dict[str, Any]:
    game = get_game(spec["game"])
    variants = spec.get("variants")
    if not isinstance(variants, dict) or not variants:
        raise SheepsimError("a rule_variants analysis needs a [variants] table: name = { option = value, ... }")
    players = player_counts(spec, game)
    base = dict(spec.get("options", {}))
    for n in players:
        specs = seat_specs(game.name, [_policy_for(spec, n)], n)
        for name, overrides in variants.items():
            if not isinstance(overrides, dict):
                raise SheepsimError(f"variant {name!r} must be a table of rule options")
            rules = game.make_rules(n, {**base, **overrides})
            try:
                policy_data(game, rules, specs)         # the policies can play it (Pig's optimal)
            except SheepsimError as exc:
                raise SheepsimError(f"variant {name!r}: {exc}")
    return {"game": game, "players": players, "base": base, "variants": variants,
            "games": max(1, round(spec.get("games", 10_000) * scale))}


def run(spec: dict[str, Any], plan: dict[str, Any], reports: Path, threads, progress: bool,
        command: str = "") -> Variants:
    game, name, seed = plan["game"], spec["name"], int(spec["seed"])
    unit = game.turn_unit
    rows, odd, experience = [], {}, []
    for n in plan["players"]:
        policy = _policy_for(spec, n)
        results = {}
        for vname, overrides in plan["variants"].items():
            if progress:
                print(f"{name}: {n} players, {vname} ...", file=sys.stderr, flush=True)
            rules = game.make_rules(n, {**plan["base"], **overrides})
            results[vname] = simulate(game, rules, seat_specs(game.name, [policy], n), plan["games"], seed,
                                      threads, metrics=True).results
        baseline = next(iter(results))
        base_turns = results[baseline]["turns"].to_numpy(float)
        for vname, df in results.items():
            edge = T.seat0_edge(df)
            turns = df["turns"].to_numpy(float)
            d = turns - base_turns
            se = d.std(ddof=1) / np.sqrt(len(d)) if vname != baseline else 0.0
            capped = int(df["capped"].sum())
            clo, chi = wilson_interval(capped, len(df))
            rows.append({"players": n, "variant": vname, "policy": policy, "games": len(df),
                         "edge": edge["edge"], "edge_lo": edge["edge_lo"], "edge_hi": edge["edge_hi"],
                         "mean_turns": turns.mean(), "turns_change": d.mean(),
                         "turns_change_lo": d.mean() - 1.96 * se, "turns_change_hi": d.mean() + 1.96 * se,
                         "p": normal_p(d.mean(), se) if vname != baseline else np.nan,
                         "capped_rate": capped / len(df), "capped_rate_lo": clo, "capped_rate_hi": chi})
        odd.update({f"{n}p {vname}": df for vname, df in results.items() if F.oddities(df, unit)})
        experience += _experience_rows(n, policy, results)
    table = pd.DataFrame(rows)
    table["p_holm_value"] = holm_adjusted(table["p"].to_numpy())
    return Variants(game, plan["base"], plan["variants"], {n: _policy_for(spec, n) for n in plan["players"]},
                    plan["games"], table, pd.DataFrame(experience), odd)


def _experience_rows(n: int, policy: str, results: dict[str, pd.DataFrame]) -> list[dict[str, Any]]:
    """Each variant's experience row (tables.experience_row) with the paired change of
    each PAIRED measure against the first variant, the baseline, and its p (NaN for the
    baseline itself)."""
    from .check import paired_ratio
    from ..stats.measures import per_game
    baseline = next(iter(results))
    base = per_game(results[baseline], PAIRED)
    rows = []
    for vname, df in results.items():
        row: dict[str, Any] = {"players": n, "variant": vname, "policy": policy, **T.experience_row(df)}
        mine = per_game(df, PAIRED)
        for m in PAIRED:
            c = paired_ratio(base[m], mine[m])
            row[f"d_{m}"], row[f"d_{m}_lo"], row[f"d_{m}_hi"] = c["change"], c["change_lo"], c["change_hi"]
            row[f"p_{m}"] = c["p"] if vname != baseline else np.nan
        rows.append(row)
    return rows
