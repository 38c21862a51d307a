"""Rule or deck variants against a baseline, on common seeds.

Every variant is played with the same seeds as the baseline (common random numbers,
ANALYSIS-GUIDE rule 3) and compared on seat balance, game length and capped games.
Length changes are paired per game index (game g of the variant against game g of
the baseline); seat-0 edges carry Wilson intervals. Each variant's change in mean
length is tested with a paired z-test and Holm-adjusted over the variants.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..errors import SheepsimError
from ..games import get_game
from ..policies import seat_specs
from ..report.markdown import Report
from ..runner import simulate, versions
from . import tables as T
from .stats import wilson_interval

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
    players = list(spec.get("players", [game.players[0]]))
    base = dict(spec.get("options", {}))
    for n in players:
        seat_specs(game.name, [_policy_for(spec, n)], n)
        for name, overrides in variants.items():
            if not isinstance(overrides, dict):
                raise SheepsimError(f"variant {name!r} must be a table of rule options")
            game.make_rules(n, {**base, **overrides})
    return {"game": game, "players": players, "base": base, "variants": variants,
            "games": max(1, round(spec.get("games", 10_000) * scale))}


def run(spec: dict[str, Any], plan: dict[str, Any], reports: Path, threads, progress: bool) -> Path:
    from ..report import plots
    game, name, seed = plan["game"], spec["name"], int(spec["seed"])
    figures = (reports / name).absolute()
    figures.mkdir(parents=True, exist_ok=True)
    report = Report(spec.get("title", f"{game.title}: rule variants"), {
        "game": game.name, "game_version": game.version,
        "rules": {"baseline options": plan["base"], "variants": plan["variants"]},
        "policies": {n: _policy_for(spec, n) for n in plan["players"]}, "seed": seed,
        "games": f"{plan['games']:,} per variant and player count", "packages": versions(),
        "command": f"sheepsim run analyses/{name}.toml",
    })
    if spec.get("description"):
        report.paragraph(spec["description"])
    rows = []
    for n in plan["players"]:
        policy = _policy_for(spec, n)
        results = {}
        for vname, overrides in plan["variants"].items():
            if progress:
                print(f"{name}: {n} players, {vname} ...", file=sys.stderr, flush=True)
            rules = game.make_rules(n, {**plan["base"], **overrides})
            results[vname] = simulate(game, rules, seat_specs(game.name, [policy], n), plan["games"], seed,
                                      threads).results
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
                         "p": _p_value(d.mean(), se) if vname != baseline else np.nan,
                         "capped_rate": capped / len(df), "capped_rate_lo": clo, "capped_rate_hi": chi})
    table = pd.DataFrame(rows)
    # a p-value that underflows is "tiny", never "0"
    table["p_holm"] = [("n/a" if np.isnan(v) else f"{v:.3g}" if v > 1e-300 else "< 1e-300") for v in _holm(table)]
    report.heading("Seat balance, length and capped games by variant")
    report.table(table[["players", "variant", "policy", "games", "edge", "edge_lo", "edge_hi", "mean_turns",
                        "turns_change", "turns_change_lo", "turns_change_hi", "p_holm", "capped_rate",
                        "capped_rate_lo", "capped_rate_hi"]], percent=["edge", "capped_rate"],
                 caption="edge: seat 0 win rate minus 1/P (95% Wilson); turns_change: mean paired change in "
                         f"turns against `{next(iter(plan['variants']))}` on the same seeds (95% CI); p_holm: "
                         "Holm-adjusted p-value of that change")
    report.figure(plots.variant_plot(table, figures / "variants.png", f"{game.title}: what each variant changes"),
                  "Change in mean game length (paired, 95% CI) and seat-0 edge (95% Wilson) per variant.")
    return report.write(reports / f"{name}.md")


def _p_value(mean: float, se: float) -> float:
    """Two-sided normal p-value of mean / se. By erfc, not 1 - cdf: the subtraction
    rounds every |z| above about 8.3 to p = 0, which the report would print as < 1e-300."""
    if se == 0:
        return 0.0 if mean != 0 else 1.0
    return math.erfc(abs(mean / se) / math.sqrt(2))


def _holm(table: pd.DataFrame) -> np.ndarray:
    """Holm step-down adjustment over all (players, variant) tests."""
    p = table["p"].to_numpy()
    out = np.full(len(p), np.nan)
    idx = [i for i in np.argsort(p) if not np.isnan(p[i])]
    running = 0.0
    for rank, i in enumerate(idx):
        running = max(running, min(1.0, (len(idx) - rank) * p[i]))
        out[i] = running
    return out
