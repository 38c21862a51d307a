"""The summary `sheepsim simulate` (and `sheepsim summarize`) prints: what was run, then
seats, policies, unfinished games and game length, every rate with its interval.

Per-game rows and aggregate-only runs print the same text: both are first reduced to
the same counts (`_Counts`); from counts the length quantiles are exact (from the
histogram) and carry no bootstrap interval. Lines fit a 100-column terminal.
"""

from __future__ import annotations

import json
import textwrap
from collections import Counter
from dataclasses import dataclass
from typing import Any

import pandas as pd

from ..stats import tables as T
from ..stats.intervals import wilson_interval
from ..report import findings as F
from ..report.markdown import format_interval, table_to_markdown
from ..results import aggregate as A

WIDTH = 100
SEAT_COLUMNS = ["seat", "games", "decided", "wins", "shared", "win_rate", "win_rate_lo", "win_rate_hi", "fair_rate"]
POLICY_COLUMNS = ["policy", "games", "decided", "wins", "shared", "win_rate", "win_rate_lo", "win_rate_hi"]
# the summary's column names (the tables' own names are the analyses' convention)
HEADERS = {"win_rate": "win rate", "fair_rate": "fair rate", "shared": "shared wins"}
# the summary warns of a seat or policy winning at least this share of the decided games
# (the reports' degenerate cells start at findings.ALWAYS, 99%: a summary is read alone)
NEARLY = 0.95


@dataclass
class _Counts:
    """What the summary prints, from rows or from an aggregate."""

    seats: pd.DataFrame
    policies: pd.DataFrame | None
    games: int
    draws: int                  # no winner at all
    shared: int | None          # a win shared by two or more seats (None: counts stored
                                # before they were told apart from draws)
    capped: int
    length: dict[str, float]    # mean, mean_lo, mean_hi, median (median_lo, median_hi), q25, q75, p90, p99
    tiebreak: int | None        # games decided by the tie-break (games that have one)
    exact: bool                 # quantiles exact from a histogram (aggregate mode)
    experience: pd.DataFrame | None = None      # the --metrics table (stats.tables.experience_table)
    ends: pd.DataFrame | None = None            # how the games ended (stats.tables.end_table)
    turns: Counter | None = None                # the length histogram {turns: games}


def _from_rows(df: pd.DataFrame, several_policies: bool) -> _Counts:
    length = T.length_table(df).iloc[0].to_dict()
    no_winner = df["winner"].to_numpy() < 0
    shared = int((no_winner & (df["cowinners"].to_numpy() != 0)).sum())
    tiebreak = None
    if "tiebreak" in df:
        tiebreak = int(T.tiebreak_rate(df).iloc[0]["tiebreak"])
    return _Counts(T.seat_table(df), T.policy_table(df) if several_policies else None, len(df),
                   int(no_winner.sum()) - shared, shared, int(df["capped"].sum()), length, tiebreak, False,
                   T.experience_table(df), T.end_table(df), Counter(df["turns"].to_numpy().tolist()))


def _from_aggregate(agg: A.Aggregate, several_policies: bool) -> _Counts:
    undecided, shared = agg.games - agg.decided, agg.shared_games
    return _Counts(A.seat_table(agg), A.policy_table(agg) if several_policies else None, agg.games,
                   undecided - (shared or 0), shared, int(agg.sums.get("capped", 0)),
                   A.length_summary(agg), agg.decided_true["tiebreak"] if "tiebreak" in agg.decided_true else None,
                   True, A.experience_table(agg), A.end_table(agg), agg.turns)


def _wrap(text: str) -> list[str]:
    return textwrap.wrap(text, WIDTH, subsequent_indent="    ", break_on_hyphens=False)


def _rules_text(game, rules: dict[str, Any]) -> str:
    """The options that differ from the game's defaults at this player count."""
    defaults = game.make_rules(rules["num_players"], {}).as_dict()
    changed = [f"{k}={_option_text(v)}" for k, v in rules.items() if k != "num_players" and defaults.get(k) != v]
    return ", ".join(changed) + " (others as the rules)" if changed else "as the rules (every option at its default)"


def _option_text(value: Any) -> str:
    return ",".join(str(v) for v in value) if isinstance(value, (list, tuple)) else str(value)


def _policies_text(m: dict[str, Any]) -> str:
    labels = m["policies"]
    if len(set(labels)) == 1:
        return f"{labels[0]} in every seat"
    if not m["rotate"]:
        return ", ".join(f"seat {i} {label}" for i, label in enumerate(labels)) + " (not rotated)"
    return (", ".join(f"slot {i} {label}" for i, label in enumerate(labels))
            + f", rotated (slot i plays seat (i - g) mod {len(labels)} in game g)")


def _start_text(m: dict[str, Any]) -> str | None:
    start, name = m.get("start_position"), m.get("start_file")
    if not start:
        return None
    if "deck" in start:
        return f"deck: {name or 'a deck file'} ({len(start['deck'])} cards, replacing the generated deck)"
    return f"start position: {name or 'a position file'}"


def _speed_text(run, m: dict[str, Any]) -> str:
    played = m.get("played", m["games"])
    resumed = run.extra.get("resumed", 0)
    if resumed and run.extra.get("computed", 1) == 0:
        return f"all {resumed} chunk(s) were already in the run folder: nothing was played"
    computed_games = run.extra.get("computed_games", played)
    rate = f"{computed_games / run.seconds:,.0f} games/s" if run.seconds > 0 else "too fast to time"
    if m.get("backend") == "dask":
        where = f"Dask, {_count(m.get('workers') or 0, 'worker')}"
    else:
        where = _count(m["threads"], "thread") if isinstance(m.get("threads"), int) else "this machine"
    text = f"speed: {computed_games:,} games in {run.seconds:.2f} s, {rate} on {where}"
    if resumed:
        text += f"; {resumed} chunk(s) resumed from the run folder"
    compile_s = m.get("compile_seconds")
    if compile_s and compile_s >= 0.5:
        text += f" (compile {compile_s:.1f} s, not counted)"
    return text


def _header(game, run) -> list[str]:
    m = run.manifest
    played = m.get("played", m["games"])
    lines = [f"{game.title}, {m['rules']['num_players']} players: {played:,} games, seed {m['seed']}"]
    lines += _wrap("rules: " + _rules_text(game, m["rules"]))
    start = _start_text(m)
    if start:
        lines += _wrap(start)
    lines += _wrap("policies: " + _policies_text(m))
    lines += _wrap(_speed_text(run, m))
    return lines + [""]


def _table(df: pd.DataFrame, columns: list[str]) -> str:
    return table_to_markdown(df[[c for c in columns if c in df]], percent=["win_rate", "fair_rate"],
                             headers=HEADERS).rstrip("\n")


def _outcomes(c: _Counts, game, rules: dict[str, Any], rotate: bool) -> list[str]:
    """Games without a sole winner, the chi-square, capped games: the lines that say
    how much of the run the seat table does not show."""
    undecided = c.draws + (c.shared or 0)
    decided = c.games - undecided
    lo, hi = wilson_interval(undecided, c.games)
    kinds = (f"{_count(c.draws, 'draw')}, {_count(c.shared, 'shared win')}" if c.shared is not None
             else "draws and shared wins: these stored counts do not tell them apart")
    lines = [f"no sole winner: {format_interval(undecided / c.games, lo, hi, percent=True)} of games ({kinds}), "
             f"Ludii's drawishness"]
    p = c.seats.attrs["chi2_p"]
    lines.append(f"seats equal? chi-square p {_p_text(p)} over {decided:,} decided games" if decided
                 else "seats equal? n/a: no game had a sole winner")
    if decided:
        b, lo, hi = T.balance(c.seats["wins"].to_numpy(), decided)
        lines.append("balance (1 - the largest gap between seat win rates): "
                     + format_interval(b, lo, hi, floatfmt=".3f"))
    lines += _wrap(_uniformity_text(c, rules["num_players"], rotate))
    cap = next((v for k, v in rules.items() if k.endswith("_cap")), None)
    lo, hi = wilson_interval(c.capped, c.games)
    if cap is not None or c.capped:
        share = format_interval(c.capped / c.games, lo, hi, percent=True)
        at = f" at the cap of {cap:,} {game.turn_unit}" if cap is not None else " at the cap"
        note = ": lengths are cut there, and those games' results are the cap's" if c.capped else ""
        lines += _wrap(f"capped: {_count(c.capped, 'game')} ({share}) stopped{at}{note}; completion (ended by "
                       f"the rules): {format_interval(1 - c.capped / c.games, 1 - hi, 1 - lo, percent=True)}")
    if c.tiebreak is not None:
        lo, hi = wilson_interval(c.tiebreak, c.games)
        lines.append("decided by the tie-break: " + format_interval(c.tiebreak / c.games, lo, hi, percent=True))
    return lines


def _uniformity_text(c: _Counts, players: int, rotate: bool) -> str:
    """Outcome uniformity, with what its value means here: the value of equal seats at
    this player count, and that it measures seats, so rotated policies, one of which
    wins most games, still read as uniform as a coin flip."""
    u, lo, hi = T.uniformity(c.seats["wins"].to_numpy(), c.games)
    equal = f"; {1 - 4 * (players - 1) / players ** 2:.3f} for {players} equal seats" if players > 2 else ""
    text = (f"outcome uniformity (Ludii's, of the seats' results; 0: a fair coin flip, 1: a foregone "
            f"result{equal}): {format_interval(u, lo, hi, floatfmt='.3f')}")
    if c.policies is not None and rotate:
        best = c.policies.loc[c.policies["win_rate"].idxmax()]
        if best["win_rate_lo"] > best["fair_rate"]:
            text += (f"; it sees seats, not policies: {best['policy']} wins "
                     f"{F.share(best['win_rate'], best['win_rate_lo'], best['win_rate_hi'])} of decided games, "
                     f"but rotation gives those wins to every seat alike")
    return text


def _warnings(c: _Counts, game, players: int) -> list[str]:
    """What makes the run degenerate (findings' words): a seat or policy that wins
    NEARLY all decided games or (almost) never, every game one length or over in the
    first round, a result fixed by the deal."""
    notes = F.win_notes(c.seats, "seat", always=NEARLY)
    if c.policies is not None:
        notes += [n for n in F.win_notes(c.policies, "policy", always=NEARLY) if n not in notes]
    if c.turns:
        shortest, longest = min(c.turns), max(c.turns)
        notes += F.length_notes(shortest, longest, c.length["median"], players, game.turn_unit)
        notes += F.foregone_note(c.seats, shortest, longest)
    if not notes:
        return []
    head = (f"Warnings (a seat or policy winning {NEARLY:.0%} or more, or {F.NEVER:.0%} or less, of decided "
            f"games; every game one length; half of them over in the first round):")
    return ["", *_wrap(head), *[line for n in notes for line in _wrap("- " + n)]]


def _length(c: _Counts, game, target: tuple[float, float] | None = None) -> list[str]:
    n = c.length
    median = f"median {n['median']:g}"
    if not c.exact:
        median += f" [{n['median_lo']:g}, {n['median_hi']:g}]"
    exact = " (exact, from the length histogram)" if c.exact else ""
    lines = _wrap(f"Game length ({game.turn_unit}): mean {n['mean']:.2f} [{n['mean_lo']:.2f}, {n['mean_hi']:.2f}], "
                  f"{median}, IQR {n['q25']:g}-{n['q75']:g}, p90 {n['p90']:g}, p99 {n['p99']:g}{exact}")
    if target is not None:
        t = T.target_length_row(c.turns, *target)
        lines += _wrap(f"target length {target[0]:g}-{target[1]:g} {game.turn_unit}: score "
                       f"{format_interval(t['score'], t['score_lo'], t['score_hi'], floatfmt='.3f')} (1 inside "
                       f"the range, falling to 0 at no length and at twice its top; Ludii's IdealDuration), "
                       f"{t['inside_rate']:.1%} of games inside it")
    return lines


def _stop(m) -> list[str]:
    """Where --ci-halfwidth stopped the run, or that the game limit came first."""
    stop = m.get("stopped")
    if not stop:
        return []
    widest = max(stop["halfwidths"]) if stop["halfwidths"] else float("nan")
    if stop["reached"]:
        return [""] + _wrap(f"stopped after {stop['games']:,} games ({stop['chunks']} chunks of {m['chunk_size']:,}): "
                            f"every seat's 95% half-width <= {m['ci_halfwidth']:g} (widest {widest:.4g})")
    return [""] + _wrap(f"game limit {m['games']:,} reached before every seat's 95% half-width was <= "
                        f"{m['ci_halfwidth']:g} (widest {widest:.4g})")


def _counts(run) -> _Counts:
    several = len(set(run.manifest["policies"])) > 1
    return _from_aggregate(run.aggregate, several) if run.aggregate is not None else _from_rows(run.results, several)


def summary_tables(game, run, target: tuple[float, float] | None = None) -> dict[str, Any]:
    """The summary's numbers as data (`sheepsim summarize --json/--csv`): the run, the
    seat and policy tables (rates with their _lo/_hi), unfinished games, balance,
    outcome uniformity and length (with the target-length score when `target`)."""
    m, c = run.manifest, _counts(run)
    decided = int(c.seats["wins"].sum())
    balance = dict(zip(("balance", "balance_lo", "balance_hi"), T.balance(c.seats["wins"].to_numpy(), decided))) \
        if decided else {"balance": None}
    uniformity = dict(zip(("uniformity", "uniformity_lo", "uniformity_hi"),
                          T.uniformity(c.seats["wins"].to_numpy(), c.games)))
    return _plain({
        "run": {"game": game.name, "players": m["rules"]["num_players"], "games": m.get("played", m["games"]),
                "seed": m["seed"], "rules": m["rules"], "policies": m["policies"], "rotate": m["rotate"],
                "start_file": m.get("start_file")},
        "seats": c.seats.to_dict("records"),
        "policies": None if c.policies is None else c.policies.to_dict("records"),
        "outcomes": {"games": c.games, "draws": c.draws, "shared_wins": c.shared, "capped": c.capped,
                     "tiebreak": c.tiebreak, "chi2_p": c.seats.attrs["chi2_p"], **balance, **uniformity},
        "length": {"unit": game.turn_unit, **c.length},
        "target_length": None if target is None else T.target_length_row(c.turns, *target),
        "experience": None if c.experience is None else c.experience.to_dict("records"),
        "ends": None if c.ends is None else c.ends.to_dict("records"),
    })


def summary_json(game, run, target: tuple[float, float] | None = None) -> str:
    return json.dumps(summary_tables(game, run, target), indent=1, allow_nan=False) + "\n"


def summary_csv(game, run) -> str:
    """The seat and policy tables in one CSV, told apart by its first column, `table`."""
    data = summary_tables(game, run)
    parts = [pd.DataFrame(data["seats"]).assign(table="seat")]
    if data["policies"]:
        parts.append(pd.DataFrame(data["policies"]).assign(table="policy"))
    table = pd.concat(parts, ignore_index=True).astype({"seat": "Int64"})
    return table[["table", *[c for c in table if c != "table"]]].to_csv(index=False)


def _plain(value: Any) -> Any:
    """JSON-able: numpy numbers as Python ones, NaN (a rate over no games) as None."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and value != value:
        return None
    return value


def summary_text(game, run, target: tuple[float, float] | None = None) -> str:
    """The summary; `target` (shortest, longest) adds the target-length score."""
    m = run.manifest
    c = _counts(run)
    lines = _header(game, run)
    lines += ["Win rate by seat (of the games with a sole winner; 95% Wilson intervals):",
              _table(c.seats, SEAT_COLUMNS), ""]
    lines += _outcomes(c, game, m["rules"], m["rotate"])
    if c.policies is not None:
        lines += ["", "Win rate by policy (all seats):", _table(c.policies, POLICY_COLUMNS)]
    lines += [""] + _length(c, game, target)
    if c.experience is not None:
        lines += ["", "Experience (--metrics; progress sampled at each round's start; 95% intervals):",
                  _experience(c.experience)]
    if c.ends is not None:
        lines += _wrap("ended by: " + ", ".join(
            f"{r.end} {format_interval(r.end_rate, r.end_rate_lo, r.end_rate_hi, percent=True)} ({r.ended:,})"
            for r in c.ends.itertuples()))
    if m.get("peak_rss_mb") and run.aggregate is not None:
        lines.append(f"peak memory (RSS) of this process: {m['peak_rss_mb']:,.0f} MB")
    lines += _warnings(c, game, m["rules"]["num_players"])
    return "\n".join(lines + _stop(m))


def _experience(table: pd.DataFrame) -> str:
    share = {"comeback", "decided_share"}       # shares as percentages, the rest in rounds or progress
    rows = [[r.metric, format_interval(r.mean, r.mean_lo, r.mean_hi, percent=r.metric in share, floatfmt=".2f"),
             f"{r.games:,}", r.meaning] for r in table.itertuples()]
    head = ["metric", "mean [95% CI]", "games", "what it is"]
    widths = [max(len(x) for x in col) for col in zip(head, *rows)]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()
                     for cells in [head, ["-" * w for w in widths], *rows])


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def _p_text(p: float) -> str:
    """'= 0.0123', or '< 1e-300' for a p-value that underflows (never '= 0')."""
    if p != p:
        return "n/a"
    return f"= {p:.3g}" if p > 1e-300 else "< 1e-300"

