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
from ..report.markdown import Report, format_interval
from ..runner import simulate, versions
from ..start import policy_data
from ..stats import tables as T
from .definition import player_counts
from ..stats.intervals import holm_adjusted, normal_p, wilson_interval

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
        command: str = "") -> Path:
    from ..report import plots
    game, name, seed = plan["game"], spec["name"], int(spec["seed"])
    unit = game.turn_unit
    figures = (reports / name).absolute()
    figures.mkdir(parents=True, exist_ok=True)
    report = Report(spec.get("title", f"{game.title}: rule variants"), {
        "game": game.name, "game_version": game.version,
        "rules": {"baseline options": plan["base"], "variants": plan["variants"]},
        "policies": {n: _policy_for(spec, n) for n in plan["players"]}, "seed": seed,
        "games": f"{plan['games']:,} per variant and player count", "packages": versions(), "command": command,
    }, description=spec.get("description"))
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
    # a p-value that underflows is "tiny", never "0"
    table["p_holm"] = [("n/a" if np.isnan(v) else f"{v:.3g}" if v > 1e-300 else "< 1e-300")
                       for v in table["p_holm_value"]]
    baseline = next(iter(plan["variants"]))
    experience = pd.DataFrame(experience)
    report.headline(_headline(table, baseline, unit))
    report.findings(_findings(table, baseline, unit) + _experience_findings(experience, baseline)
                    + F.degenerate_lines(odd, unit))
    report.heading("Seat balance, length and capped games by variant")
    report.table(table[["players", "variant", "policy", "games", "edge", "edge_lo", "edge_hi", "mean_turns",
                        "turns_change", "turns_change_lo", "turns_change_hi", "p_holm", "capped_rate",
                        "capped_rate_lo", "capped_rate_hi"]], points=["edge"],
                 headers={"mean_turns": f"mean {unit}", "turns_change": f"change in {unit}",
                          "p_holm": "p (Holm)"},
                 caption=f"seat-0 edge: seat 0's win rate minus 1/P in percentage points (95% Wilson); change in "
                         f"{unit}: mean paired change against `{baseline}` on the same seeds (95% CI); p (Holm): "
                         f"the Holm-adjusted p-value of that change")
    report.figure(plots.variant_plot(table, figures / "variants.png", f"{game.title}: what each variant changes",
                                     unit),
                  f"Change in mean game length ({unit}, paired, 95% CI) and seat-0 edge (points, 95% Wilson) per "
                  f"variant.")
    report.heading("How the games felt, by variant")
    shown = experience.drop(columns=[f"p_{m}" for m in PAIRED])
    report.table(shown, percent=["decided_share", "comeback"], points=[f"d_{m}" for m in PAIRED if m != "lead_changes"],
                 headers={**T.EXPERIENCE_HEADERS, **{f"d_{m}": f"change in {T.EXPERIENCE_HEADERS[m]}" for m in PAIRED}},
                 caption="The experience metrics of each variant's games (simulate --metrics; 95% intervals, "
                         "balance by parametric bootstrap), and the paired change of the decided share, the "
                         f"comeback rate and the lead changes against `{baseline}` on the same seeds (95% CI).")
    return report.write(reports / f"{name}.md")


PAIRED = ("decided_share", "comeback", "lead_changes")


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


def _experience_findings(experience: pd.DataFrame, baseline: str, alpha: float = 0.05) -> list[str]:
    """The experience changes against the baseline that are significant (Holm over every
    variant, player count and measure), in words."""
    p = experience[[f"p_{m}" for m in PAIRED]].to_numpy().ravel()
    held = holm_adjusted(p).reshape(len(experience), len(PAIRED)) <= alpha
    words = {"decided_share": ("games stay open longer (decided share)", "games are decided earlier (decided share)"),
             "comeback": ("comebacks are more common", "comebacks are rarer"),
             "lead_changes": ("the lead changes hands more often", "the lead changes hands less often")}
    parts = []
    for (_, r), sig in zip(experience.iterrows(), held):
        for m, s in zip(PAIRED, sig):
            if s:
                up, down = words[m]
                scale, unit = (100, " points") if m != "lead_changes" else (1, " a game")
                a, b = sorted((abs(r[f"d_{m}_lo"]) * scale, abs(r[f"d_{m}_hi"]) * scale))
                parts.append(f"{r['players']}p `{r['variant']}`: {up if r[f'd_{m}'] > 0 else down}, "
                             f"{format_interval(abs(r[f'd_{m}']) * scale, a, b, floatfmt='.2f')}{unit}")
    tests = int(np.isfinite(p).sum())
    if not parts:
        return [f"No variant changes the decided share, the comeback rate or the lead changes detectably against "
                f"`{baseline}` (Holm, {alpha:.0%} over {tests} tests)."]
    return [f"How the games feel against `{baseline}` (Holm, {alpha:.0%} over {tests} tests): " + "; ".join(parts)
            + "."]


def _headline(table: pd.DataFrame, baseline: str, unit: str, alpha: float = 0.05) -> str:
    """What the variants change, in one sentence: the largest significant change of the
    length against the baseline, and in how many cells seat 0's edge is detectable."""
    others = table[table["variant"] != baseline]
    changed = others[others["p_holm_value"] < alpha]
    if changed.empty:
        text = f"No variant changes the game length significantly against `{baseline}` (Holm, {alpha:.0%})"
    else:
        r = changed.loc[changed["turns_change"].abs().idxmax()]
        change = format_interval(r["turns_change"], r["turns_change_lo"], r["turns_change_hi"], floatfmt=".2f",
                                 signed=True)
        text = (f"{len(changed)} of {len(others)} variant cells change the game length significantly against "
                f"`{baseline}` (Holm, {alpha:.0%}), the most `{r['variant']}` at {r['players']} players, "
                f"{change} {unit}")
    tilted = table[(table["edge_lo"] > 0) | (table["edge_hi"] < 0)]
    return text + (f"; seat 0's edge is detectable in {len(tilted)} of {len(table)} cells" if len(tilted) else
                   f"; seat 0's edge is within noise in all {len(table)} cells") + "."


def _findings(table: pd.DataFrame, baseline: str, unit: str, alpha: float = 0.05) -> list[str]:
    """Per player count: what lengthens or shortens the game (Holm-significant), which
    variant moves seat 0 off its fair share, and capped games."""
    lines = []
    for n, t in table.groupby("players", sort=False):
        parts = []
        others = t[t["variant"] != baseline]
        changed = others[others["p_holm_value"] < alpha]
        for word, part in (("lengthens", changed[changed["turns_change"] > 0]),
                           ("shortens", changed[changed["turns_change"] < 0])):
            for r in part.itertuples():
                a, b = sorted((abs(r.turns_change_lo), abs(r.turns_change_hi)))
                parts.append(f"`{r.variant}` {word} games by "
                             f"{format_interval(abs(r.turns_change), a, b, floatfmt='.2f')} {unit}")
        same = others[~(others["p_holm_value"] < alpha)]
        if not same.empty:
            names = ", ".join(f"`{v}`" for v in same["variant"])
            parts.append(f"{names} change{'s' if len(same) == 1 else ''} the length by no significant amount "
                         f"(Holm, {alpha:.0%})")
        tilted = t[(t["edge_lo"] > 0) | (t["edge_hi"] < 0)]
        if tilted.empty:
            parts.append("seat 0's edge is within noise in every variant (each interval holds 0)")
        else:
            parts.append("; ".join(f"with `{r.variant}` {F.edge_words(r.edge, r.edge_lo, r.edge_hi)}"
                                   for r in tilted.itertuples()) + F.chance_note(len(tilted), len(t)))
        capped = t[t["capped_rate"] > 0]
        if not capped.empty:
            parts.append("games hit the turn cap in " + ", ".join(
                f"`{r.variant}` ({F.share(r.capped_rate, r.capped_rate_lo, r.capped_rate_hi)})"
                for r in capped.itertuples()))
        lines.append(f"**{n} players** ({t['policy'].iloc[0]}): " + "; ".join(parts) + ".")
    return lines
