"""The convergence report (analysis/converge.py): seat 0's edge and every seat's share at
each level of strength, where the answer stops moving (or that it still moves), and how
strong each level is."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ...runner import versions
from .. import findings as F
from .. import plots
from ..markdown import Report


@dataclass
class Plan:
    game: Any
    players: list[int]
    rules: dict[int, Any]       # by player count
    ladder: list[str]           # the levels' SPECs, weakest first: the family's, then `top`
    family: int                 # how many of the ladder are the family's (the rest are `top`)
    games: int
    halfwidth: float
    tolerance: float
    anchors: list[str]
    strength_players: int
    strength_games: int
    exact: float | None
    play_all: bool = False      # climb every level even after the answer settles (a calibration)
    policy: str = ""            # the family's SPEC without its knob, and the knob
    knob: str = "iters"
    measure_games: int = 200    # the self-play games the game's own measure (GameSpec.stop_measure) reads

    def tick(self, level: str) -> str:
        """A level as a figure's axis names it: the family's by its knob's value (the
        family is in the axis title), `top` levels by their SPEC."""
        k = self.ladder.index(level)
        return level.split(f"{self.knob}=")[1].split(",")[0] if k < self.family else level

    def axis(self, what: str) -> str:
        return f"{what}: {self.knob} of {self.policy}" if self.policy else what


@dataclass
class Converge:
    plan: Plan
    answers: pd.DataFrame           # a row per (player count, level played): the edge, every seat's share, length...
    strength: pd.DataFrame          # a row per level: its matches and rating, then the anchors' ratings
    stopped: dict[int, int]         # player count -> the ladder index of the level it settled at
    seconds: float                  # the whole run's


def layout(spec: dict[str, Any], data: Converge, figures: Path, command: str) -> Report:
    p, answers, strength, stopped, total = data.plan, data.answers, data.strength, data.stopped, data.seconds
    seed, game = spec["seed"], p.game
    report = Report(spec.get("title", f"{game.title}: the answer against strength"), {
        "game": game.name, "game_version": game.version, "rules": p.rules[p.players[0]].as_dict(),
        "players": p.players, "policies": p.ladder + p.anchors, "seed": seed,
        "games": {"per level, at most": p.games, "per strength match": p.strength_games},
        "halfwidth": p.halfwidth, "tolerance": p.tolerance, "packages": versions(), "command": command,
    }, description=spec.get("description"))
    report.headline(headline(answers, stopped, p))
    report.findings(_findings(answers, strength, stopped, p))
    report.figure(plots.lines_plot(
        {f"{n} players": ([p.tick(x) for x in g["level"]], g["edge"], g["edge_lo"], g["edge_hi"], 0.0)
         for n, g in answers.groupby("players")},
        figures / "edge.png", f"{game.title}: seat 0's edge against strength", p.axis("every seat plays"),
        n={f"{n} players": g["decided"].to_numpy() for n, g in answers.groupby("players")},
        edge="seat 0's edge (points)"),
        "Seat 0's share of decided games minus the fair 1/P, every seat playing the level, weakest first; 95% "
        "Wilson intervals.")
    lines = {}          # every line over every level played (a gap where a match was not), so they align
    levels = strength[strength["level"].isin(p.ladder)]
    for key in ["below"] + p.anchors:
        if key in levels and levels[key].notna().any():
            lines["against the level below" if key == "below" else f"against {key}"] = (
                [p.tick(x) for x in levels["level"]], levels[key], levels[f"{key}_lo"], levels[f"{key}_hi"], 0.5)
    report.figure(plots.lines_plot(lines, figures / "strength.png", f"{game.title}: how strong each level is",
                                   p.axis("level"), n={k: p.strength_games for k in lines}),
                  f"Each level's win rate in {p.strength_players} players against the level below and against "
                  f"each anchor, seats rotated, a game without a sole winner half; 95% Wilson intervals.")
    report.heading("The answer at each level")
    shown = ["players", "level", "games", "decided", "edge", "edge_lo", "edge_hi"] + \
        [c for c in answers.columns if c.startswith("seat") and c[4:].isdigit()
         for c in (c, f"{c}_lo", f"{c}_hi")] + \
        [c for k in ("no_sole_winner", "length", "lead_changes", "decided_share", "comeback", "drama")
         for c in (k, f"{k}_lo", f"{k}_hi")]
    measure = game.stop_measure if game.stop_measure is not None and game.stop_measure.column in answers else None
    if measure is not None:
        shown += [measure.column, f"{measure.column}_lo", f"{measure.column}_hi"]
    report.table(answers[[c for c in dict.fromkeys(shown + ["seconds"]) if c in answers]].round({"seconds": 1}),
                 headers={"edge": "seat 0's edge", "no_sole_winner": "no sole winner", "length": "mean length",
                          "lead_changes": "lead changes", "decided_share": "decided share", "comeback": "comeback rate",
                          "seconds": "run time (s)", **{f"seat{k}": f"seat {k}" for k in range(8)},
                          **({measure.column: measure.header} if measure else {})},
                 points=["edge"], percent=["no_sole_winner", "comeback", "decided_share"] +
                 [f"seat{k}" for k in range(8)] + ([measure.column] if measure else []),
                 caption="every seat plays the level; shares of decided games; 95% intervals; each level stops at "
                         f"a half-width of {100 * p.halfwidth:.1f} points or {p.games:,} games" +
                         (f"; {measure.header}: {measure.meaning}, read from the first {p.measure_games:,} games "
                          "of each level" if measure else ""))
    report.heading("The strength of each level")
    cols = ["level"] + [c for key in ["below"] + p.anchors for c in (key, f"{key}_lo", f"{key}_hi")
                        if key in strength] + ["rating", "rating_lo", "rating_hi"]
    report.table(strength[cols], percent=[k for k in ["below"] + p.anchors if k in strength],
                 headers={"below": "against the level below", "rating": "rating (Elo scale)",
                          **{a: f"against {a}" for a in p.anchors}},
                 caption=f"win rates in {p.strength_players} players, {p.strength_games:,} games a match, seats "
                         f"rotated; Bradley-Terry ratings over every match, {p.anchors[0]} at 0, 95% bootstrap "
                         f"intervals (200 resamples); the anchors last")
    report.paragraph(f"Run time: {total:.0f} s in all ({answers['seconds'].sum():.1f} s of self-play).")
    return report


def _seats(row) -> list[str]:
    """A level's seat-share keys ("seat0", "seat1", ...)."""
    return [k for k in row.keys() if k.startswith("seat") and k[4:].isdigit()]


def moved(below, above) -> tuple[float, str]:
    """How far the answer moved between two levels, and where: the largest change of
    seat 0's edge or of any seat's share. In 3 or 4 players the edge can stand still
    while the other seats trade places, and that answer has not stopped moving."""
    changes = [(abs(above["edge"] - below["edge"]), "seat0")] + \
        [(abs(above[k] - below[k]), k) for k in _seats(above) if k in below.keys()]
    return max(changes, key=lambda c: c[0])


def _apart(below, above) -> bool:
    """Whether the largest move between two levels (moved) is beyond what their 95%
    intervals can hide: more than the root of the sum of the squared half-widths (the
    levels' games are independent draws on the same seeds; common deals correlate them
    positively, so this errs towards "too wide to tell")."""
    size, seat = moved(below, above)
    half = [(r[f"{k}_hi"] - r[f"{k}_lo"]) / 2 for r in (below, above)
            for k in ["edge" if seat == "seat0" else seat]]
    return size > (half[0] ** 2 + half[1] ** 2) ** 0.5


def _pts(share: float) -> str:
    """A share as points: "1 point", "1.5 points"."""
    return f"{100 * share:g} point{'' if round(100 * share, 9) == 1 else 's'}"


def _said(row, unit: str = " points") -> str:
    return f"{F.points(row['edge'], row['edge_lo'], row['edge_hi'], signed=True)}{unit} at {row['level']}"


def verdicts(answers: pd.DataFrame, stopped: dict[int, int], p: Plan) -> dict[int, str]:
    """Per player count: where the edge stops moving, or that it is still moving."""
    out = {}
    for n, g in answers.groupby("players"):
        family = g[g["level"].isin(p.ladder[:p.family])].reset_index(drop=True)
        if n in stopped:
            at = family.index[family["level"] == p.ladder[stopped[n]]][0]
            below, above = family.iloc[at], family.iloc[at + 1]
            out[n] = (f"stops moving from {below['level']} on: "
                      f"{F.points(below['edge'], below['edge_lo'], below['edge_hi'], signed=True)} points there, "
                      f"{_said(above, '')}")
        elif len(family) >= 2 and moved(family.iloc[-2], family.iloc[-1])[0] <= p.tolerance:
            # the two strongest agree, but `games` ran out before the intervals were narrow
            out[n] = (f"may have stopped moving, too wide to tell: {_said(family.iloc[-1])}, "
                      f"{_said(family.iloc[-2], '')} agree within {_pts(p.tolerance)}, but settling needs "
                      f"half-widths of {_pts(p.halfwidth)}")
        elif len(family) >= 2 and not _apart(family.iloc[-2], family.iloc[-1]):
            # apart by more than the tolerance, but by less than the intervals can tell
            below, above = family.iloc[-2], family.iloc[-1]
            size, seat = moved(below, above)
            what = "the edge" if seat == "seat0" else f"seat {seat[4:]}'s share"
            out[n] = (f"has not settled, too wide to tell whether it still moves: {_said(above)}, "
                      f"{_said(below, '')}; {what} moved {100 * size:.1f} points, more than the tolerance of "
                      f"{_pts(p.tolerance)} but within the two intervals")
        elif len(family) >= 2:
            below, above = family.iloc[-2], family.iloc[-1]
            out[n] = f"is still moving at the strongest level played: {_said(above)}, {_said(below, '')}"
            size, seat = moved(below, above)
            if seat != "seat0" and abs(above["edge"] - below["edge"]) <= p.tolerance:
                # the edge agrees; another seat's share is what still moves
                out[n] += (f"; the edge agrees, but seat {seat[4:]}'s share moved {100 * size:.1f} points "
                           f"({below[seat]:.1%} to {above[seat]:.1%})")
        else:
            out[n] = f"was measured at one level only: {_said(family.iloc[-1])}"
    n = p.players[0]
    if _reached(answers, p) is False and n in stopped:  # never "stops moving" where the exact answer says otherwise
        out[n] = out[n].replace("stops moving from", "settles within the tolerance from", 1) + \
            ", but not at the answer"
    return out


def _reached(answers: pd.DataFrame, p: Plan) -> bool | None:
    """Whether the strongest family level's interval holds the exact answer (None: no `exact`)."""
    if p.exact is None:
        return None
    strongest = answers[answers["level"].isin(p.ladder[:p.family])].iloc[-1]
    fair = 1.0 / p.players[0]
    return bool(strongest["edge_lo"] + fair <= p.exact <= strongest["edge_hi"] + fair)


def headline(answers: pd.DataFrame, stopped: dict[int, int], p: Plan) -> str:
    said = verdicts(answers, stopped, p)
    reached = _reached(answers, p)
    parts = [f"{n} players: {text}" for n, text in said.items()]
    text = f"Seat 0's edge against strength ({p.ladder[0].split(':')[0]}): " + "; ".join(parts)
    if p.exact is not None:
        text += (f"; the exact answer under perfect play, seat 0 winning {p.exact:.2%}, is "
                 f"{'inside' if reached else 'outside'} the strongest search level's interval")
    return text + "."


def _findings(answers: pd.DataFrame, strength: pd.DataFrame, stopped: dict[int, int], p: Plan) -> list[str]:
    lines = [f"**{n} players**: seat 0's edge {text}." for n, text in verdicts(answers, stopped, p).items()]
    for n, g in answers.groupby("players"):  # 3 and 4 players: which seat gains with strength
        family = g[g["level"].isin(p.ladder[:p.family])]
        seats = _seats(family.iloc[0]) if len(family) >= 2 and n >= 3 else []
        if seats:
            weak, strong = family.iloc[0], family.iloc[-1]
            change = {k: strong[k] - weak[k] for k in seats}
            up, down = max(change, key=change.get), min(change, key=change.get)
            lines.append(f"{n} players, from {weak['level']} to {strong['level']}: seat {up[4:]} gains most "
                         f"({F.share(weak[up], weak[up + '_lo'], weak[up + '_hi'])} to "
                         f"{F.share(strong[up], strong[up + '_lo'], strong[up + '_hi'])} of decided games), "
                         f"seat {down[4:]} loses most ({F.share(weak[down], weak[down + '_lo'], weak[down + '_hi'])}"
                         f" to {F.share(strong[down], strong[down + '_lo'], strong[down + '_hi'])}).")
    measure = p.game.stop_measure if p.game is not None else None
    if measure is not None and measure.column in answers:  # the game's own measure, weakest to strongest
        c = measure.column
        for n, g in answers.groupby("players"):
            said = [f"{F.share(r[c], r[c + '_lo'], r[c + '_hi'])}{' of the games' if k == 0 else ''} at "
                    f"{r['level']}" for k, (_, r) in enumerate(g.iterrows())]
            lines.append(f"{n} players: {measure.finding} " + ", ".join(said) + f" (the first "
                         f"{p.measure_games:,} games of each level, weakest first).")
    for n, at in stopped.items():           # play_all: did the levels above stay where it settled?
        family = answers[(answers["players"] == n) & answers["level"].isin(p.ladder[at + 2:p.family])]
        if len(family):
            settled_at = answers[(answers["players"] == n) & (answers["level"] == p.ladder[at + 1])].iloc[0]
            away = family[(family["edge"] - settled_at["edge"]).abs() > p.tolerance]
            lines.append(f"{n} players, the levels above: " + ", ".join(_said(r, "") for _, r in family.iterrows())
                         + (f"; {len(away)} of them more than {_pts(p.tolerance)} from where it settled: "
                            f"the stop was premature." if len(away) else
                            f"; every one within {_pts(p.tolerance)} of where it settled."))
    if "rating" in strength:                # an answer between players weaker than an anchor says so
        rated = strength.set_index("level")
        for n, at in stopped.items():
            top = p.ladder[at + 1]
            stronger = [a for a in p.anchors if a in rated.index and top in rated.index
                        and rated.loc[a, "rating_lo"] > rated.loc[top, "rating_hi"]]
            if stronger:
                lines.append(f"{n} players: where the edge settled, {top} is rated below "
                             f"{', '.join(stronger)} (Bradley-Terry, the intervals apart): the answer there is "
                             f"between players weaker than {stronger[0]}.")
    for row in strength.itertuples():
        below = getattr(row, "below", float("nan"))
        if below == below and not row.below_lo > 0.5:
            lines.append(f"{row.level} is not significantly stronger than the level below "
                         f"({F.share(row.below, row.below_lo, row.below_hi)} of its games against it): an answer "
                         f"that stops moving there may have stopped with the strength, not with good play.")
    if p.exact is not None:
        n = p.players[0]
        g = answers[answers["players"] == n]
        fair = 1.0 / n
        for r in g.itertuples():
            holds = r.edge_lo + fair <= p.exact <= r.edge_hi + fair
            lines.append(f"{r.level}: seat 0 wins {F.share(r.edge + fair, r.edge_lo + fair, r.edge_hi + fair)}; the "
                         f"exact share under perfect play, {p.exact:.2%}, is {'inside' if holds else 'outside'} "
                         f"its interval.")
        last_family = g[g["level"].isin(p.ladder[:p.family])].iloc[-1]
        if not last_family.edge_lo + fair <= p.exact <= last_family.edge_hi + fair:
            lines.append(f"The strongest search level played ({last_family.level}) does not reach the exact "
                         f"answer: its convergence, if any, is to a wrong value.")
    return lines
