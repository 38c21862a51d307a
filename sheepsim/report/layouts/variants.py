"""The rule-variants report (analysis/variants.py): seat balance, length and capped games
of each variant against the baseline, and how the games felt."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ...runner import versions
from ...stats import tables as T
from ...stats.intervals import holm_adjusted
from .. import findings as F
from .. import plots
from ..markdown import Report, format_interval

PAIRED = ("decided_share", "comeback", "lead_changes")      # the experience measures compared game by game


@dataclass
class Variants:
    game: Any                           # the GameSpec
    base: dict[str, Any]                # the baseline options
    variants: dict[str, dict]           # name -> options, the baseline first
    policies: dict[int, str]            # every seat's policy, by player count
    games: int                          # per variant and player count
    table: pd.DataFrame                 # a row per (player count, variant): edge, length and its paired change, p
    experience: pd.DataFrame            # the experience metrics and the paired changes of PAIRED, with their p
    odd: dict[str, pd.DataFrame]        # the per-game results of the cells findings.oddities flags


def layout(spec: dict[str, Any], data: Variants, figures: Path, command: str) -> Report:
    game, seed, table, experience = data.game, int(spec["seed"]), data.table, data.experience
    unit = game.turn_unit
    report = Report(spec.get("title", f"{game.title}: rule variants"), {
        "game": game.name, "game_version": game.version,
        "rules": {"baseline options": data.base, "variants": data.variants},
        "policies": data.policies, "seed": seed,
        "games": f"{data.games:,} per variant and player count", "packages": versions(), "command": command,
    }, description=spec.get("description"))
    # a p-value that underflows is "tiny", never "0"
    table = table.assign(p_holm=[("n/a" if np.isnan(v) else f"{v:.3g}" if v > 1e-300 else "< 1e-300")
                                 for v in table["p_holm_value"]])
    baseline = next(iter(data.variants))
    report.headline(_headline(table, baseline, unit))
    report.findings(_findings(table, baseline, unit) + _experience_findings(experience, baseline)
                    + F.degenerate_lines(data.odd, unit))
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
    return report


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
