"""The words of a report's findings, shared by every analysis kind.

Each analysis writes its own findings (what its data shows), but says an edge, a share
or a degenerate result the same way: the numbers come from the data at whatever scale
the analysis ran, so the words stay true, and each claim carries its interval.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..stats import tables as T
from ..stats.intervals import wilson_interval
from .markdown import format_interval

# a seat at or beyond these win rates of decided games is called out as degenerate
ALWAYS, NEVER = 0.99, 0.01


def share(rate: float, lo: float, hi: float) -> str:
    """'51.2% [50.3, 52.1]'."""
    return format_interval(rate, lo, hi, percent=True)


def points(value: float, lo: float, hi: float, signed: bool = False) -> str:
    """A difference of two rates in percentage points, '2.6 [2.5, 2.7]' (signed:
    '+2.6 [+2.5, +2.7]'), by the one rule of markdown.format_interval; the words say
    'points' beside it."""
    return format_interval(value, lo, hi, percent=True, signed=True) if signed else \
        format_interval(100 * value, 100 * lo, 100 * hi, floatfmt=".1f")


def edge_words(edge: float, lo: float, hi: float, fair: float | None = None, who: str = "seat 0") -> str:
    """'seat 0 wins 3.1 [2.5, 3.7] points more often than the fair 50.0%', '... less often'
    when the whole interval is below it (the numbers then say how much less), and the
    signed edge, '... is -1.8 [-3.9, +0.4] points', when the interval holds zero: "1.8
    [-0.4, 3.9] points less often" would be easy to misread. The direction is read off
    the interval as printed (a bound that rounds to zero keeps its sign), as verdict's."""
    against = f" than the fair {fair:.1%}" if fair is not None else " than the fair share"
    if lo > 0:
        return f"{who} wins {points(edge, lo, hi)} points more often{against}"
    if hi < 0:
        return f"{who} wins {points(-edge, -hi, -lo)} points less often{against}"
    fair_share = f"the fair {fair:.1%}" if fair is not None else "the fair share"
    return f"{who}'s edge over {fair_share} is {points(edge, lo, hi, signed=True)} points"


def verdict(lo: float, hi: float, who: str = "seat 0") -> str:
    """The words for an edge's 95% interval: they follow its signs, as printed."""
    if lo <= 0 <= hi:
        return f"no detectable edge for {who}"
    return f"{who} is favoured" if lo > 0 else f"{who} is at a disadvantage"


def unequal_seats(seats: pd.DataFrame, lo: float, hi: float, level: float = 0.05) -> str:
    """'; but the seats are not equal (chi-square p = 0.0002): seat 2 wins most, 36.0%
    [34.6, 37.4] against the fair 33.3%' when the chi-square test of equal seats (the
    seat table's attrs, tables.seat_table) rejects while seat 0's edge interval [lo, hi]
    holds zero or seat 0 is not the seat that wins most; else ''."""
    p = seats.attrs.get("chi2_p", float("nan"))
    if not p < level:
        return ""
    top = seats.loc[seats["win_rate"].idxmax()]
    if int(top["seat"]) == 0 and (lo > 0 or hi < 0):
        return ""
    shown = f"p = {p:.2g}" if p > 1e-300 else "p < 1e-300"
    return (f"; but the seats are not equal (chi-square {shown}): seat {int(top['seat'])} wins most, "
            f"{share(top['win_rate'], top['win_rate_lo'], top['win_rate_hi'])} against the fair "
            f"{top['fair_rate']:.1%}")


def chance_note(hits: int, cells: int, confidence: float = 0.95) -> str:
    """How many of `cells` 95% intervals would exclude the truth by chance alone."""
    expected = (1 - confidence) * cells
    if hits == 0:
        return ""
    if hits <= max(1.0, 2 * expected):
        return f" ({hits} of {cells} intervals excluding it is about what chance gives at {confidence:.0%})"
    return ""


def oddities(df: pd.DataFrame, unit: str = "turns") -> list[str]:
    """Words for what makes one run's games degenerate, [] when nothing does: a seat
    that (almost) always or never wins, games that all last the same length or are
    over within one round, games stopped by the turn cap."""
    seats, turns = T.seat_table(df), df["turns"].to_numpy()
    notes = win_notes(seats, "seat")
    if turns.size:
        notes += length_notes(int(turns.min()), int(turns.max()), float(np.median(turns)), T.num_players(df), unit)
    capped = int(df["capped"].sum())
    if capped:
        lo, hi = wilson_interval(capped, len(df))
        notes.append(f"{share(capped / len(df), lo, hi)} of games hit the turn cap (their length and result "
                     f"are the cap's, not the game's)")
    return notes + (foregone_note(seats, int(turns.min()), int(turns.max())) if turns.size else [])


def win_notes(table: pd.DataFrame, key: str, always: float = ALWAYS, never: float = NEVER) -> list[str]:
    """A seat, or a policy (`key` names the table's column), that wins at least `always`
    or at most `never` of the decided games (never: only where its fair share is at least
    10%), or no game with a sole winner; nothing below 20 decided games."""
    decided = int(table["decided"].iloc[0]) if len(table) else 0
    if len(table) and decided == 0:
        return ["no game has a sole winner"]
    notes = []
    for row in table.itertuples() if decided >= 20 else ():
        rate, who = share(row.win_rate, row.win_rate_lo, row.win_rate_hi), f"{key} {getattr(row, key)}"
        if row.win_rate >= always:
            notes.append(f"{who} wins {rate} of decided games")
        elif row.win_rate <= never and row.fair_rate >= 0.1:
            notes.append(f"{who} {'never wins' if row.wins == 0 else f'wins only {rate}'}")
    return notes


def length_notes(shortest: int, longest: int, median: float, players: int, unit: str = "turns") -> list[str]:
    """Games that all last the same length, or half of them over within the first round
    (from the extremes and the median, so a length histogram serves as well as rows)."""
    if shortest == longest:
        return [f"every game lasts exactly {shortest} {unit}"]
    if median <= players:
        return [f"half the games are over within the first round ({unit} <= players)"]
    return []


def foregone_note(seats: pd.DataFrame, shortest: int, longest: int) -> list[str]:
    """Every game the same length and won by the same seat: nothing a player chose
    changed the result."""
    games = int(seats["games"].iloc[0]) if len(seats) else 0
    if shortest == longest and games and int(seats["wins"].max()) == games:
        return ["the deal and the seat order fix the result before anyone chooses"]
    return []


def degenerate_lines(results: dict[str, pd.DataFrame], unit: str = "turns") -> list[str]:
    """The oddities of each run, one line per distinct set of them."""
    return grouped({label: oddities(df, unit) for label, df in results.items()})


def grouped(notes: dict[str, list[str]]) -> list[str]:
    """'**A; B**: what A and B share.' for the cells with the same oddities (so five
    player counts with trivially short games read as one line, not five)."""
    groups: dict[tuple[str, ...], list[str]] = {}
    for label, found in notes.items():
        if found:
            groups.setdefault(tuple(found), []).append(label)
    return [f"**{'; '.join(labels)}**: " + "; ".join(found) + "." for found, labels in groups.items()]
