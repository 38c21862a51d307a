"""`sheepsim compare DIR_A DIR_B`: the paired difference of two runs on the same seeds.

Game g of a run depends only on (rules, start, policies, seed, g), and its luck comes
from streams keyed by (seed, g). Two runs with the same seed and player count that
differ in their policies or rules therefore play game g from the same deal and dice,
and the difference A - B is best estimated game by game (common random numbers): for
each game index both runs hold, d_g = x_A(g) - x_B(g), reported as the mean of d with
the normal interval of a mean (stats.intervals.mean_interval).
Pairing removes the deal-to-deal variance that two independent runs would carry, so
the interval is much narrower than the one of two separate win rates.

Compared per game: each seat's sole win (1 or 0: a draw or a shared win counts 0 for
every seat), each player slot's sole win (slot i holds the i-th --policy; with rotation
it moves over the seats, and this follows it), and the length. Runs of different games,
seeds or player counts, runs without common game indices, and aggregate-only runs
(they keep counts, not games) are refused: no pairing exists.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..stats.intervals import mean_interval
from ..errors import SheepsimError
from ..results.store import read_manifest, read_results
from .markdown import format_interval, table_to_markdown
from .summary import _plain, _policies_text, _rules_text, _wrap

# manifest fields that may differ between the two runs, and how the text names them
DIFFERENCES = {"policies": "policies", "rules": "rules", "rotate": "seat rotation",
               "start_position": "start (deck or position file)", "game_version": "engine version"}
HEADERS = {"a_wins": "A wins", "b_wins": "B wins", "a_win_rate": "A win rate", "b_win_rate": "B win rate",
           "diff_rate": "A - B (points)", "a_policy": "A policy", "b_policy": "B policy"}
PERCENT = ["a_win_rate", "b_win_rate"]
POINTS = ["diff_rate"]          # a difference of two rates: signed percentage points


@dataclass
class Comparison:
    """Two runs paired game by game: the tables `compare` prints and writes."""

    folders: tuple[Path, Path]
    manifests: tuple[dict[str, Any], dict[str, Any]]
    games: int                      # game indices both runs hold
    differs: list[str]              # DIFFERENCES keys whose values differ
    seats: pd.DataFrame             # seat, a_wins, b_wins, a_win_rate, b_win_rate, diff_rate(_lo, _hi)
    slots: pd.DataFrame | None      # slot, a_policy, b_policy, then as seats; None with one policy
    length: dict[str, float]        # a_mean, b_mean, diff, diff_lo, diff_hi


def _load(folder: Path, which: str) -> tuple[pd.DataFrame, dict[str, Any]]:
    manifest = read_manifest(folder)
    if manifest.get("status") != "complete":
        raise SheepsimError(f"run {which} ({folder}) is unfinished ({len(manifest.get('chunks', {}))} chunk(s) "
                            f"saved); run its simulate command again to finish it, then compare")
    if manifest["mode"] == "aggregate":
        raise SheepsimError(f"run {which} ({folder}) is aggregate-only (--aggregate): it keeps counts, not the "
                            f"per-game rows a paired comparison needs; rerun it without --aggregate")
    return read_results(folder)


def _check_pairable(ma: dict[str, Any], mb: dict[str, Any]) -> None:
    """The same game, seed and player count, or game g is not the same deal in both."""
    if ma["game"] != mb["game"]:
        raise SheepsimError(f"run A is a {ma['game']} run and run B a {mb['game']} run; compare two runs "
                            f"of the same game")
    if ma["seed"] != mb["seed"]:
        raise SheepsimError(f"run A has seed {ma['seed']} and run B seed {mb['seed']}: a paired comparison "
                            f"needs the same seed (the same deals and luck in game g); rerun one with "
                            f"--seed {ma['seed']}")
    pa, pb = ma["rules"]["num_players"], mb["rules"]["num_players"]
    if pa != pb:
        raise SheepsimError(f"run A has {pa} players and run B {pb}: a paired comparison needs the same "
                            f"player count")


def _paired(x: np.ndarray, y: np.ndarray) -> tuple[float, float, float]:
    """Mean of the per-game differences x - y and its 95% normal interval."""
    d = x.astype(float) - y.astype(float)
    mean = float(d.mean())
    sd = float(d.std(ddof=1)) if len(d) > 1 else float("nan")
    lo, hi = mean_interval(mean, sd, len(d))
    return mean, lo, hi


def _win_rows(keys: list[int], wins_a: np.ndarray, wins_b: np.ndarray) -> list[dict[str, Any]]:
    """One row per key (seat or slot) from (games, keys) 0/1 win matrices."""
    rows = []
    for k in keys:
        diff, lo, hi = _paired(wins_a[:, k], wins_b[:, k])
        rows.append({"a_wins": int(wins_a[:, k].sum()), "b_wins": int(wins_b[:, k].sum()),
                     "a_win_rate": float(wins_a[:, k].mean()), "b_win_rate": float(wins_b[:, k].mean()),
                     "diff_rate": diff, "diff_rate_lo": lo, "diff_rate_hi": hi})
    return rows


def _sole_wins(df: pd.DataFrame, players: int, by_slot: bool) -> np.ndarray:
    """(games, players) 0/1: who won alone, by seat or by player slot. Seat s holds slot
    (s + rotation) mod P in every game (games.wrappers.frame)."""
    winner = df["winner"].to_numpy().astype(np.int64)
    who = (winner + df["rotation"].to_numpy()) % players if by_slot else winner
    who = np.where(winner >= 0, who, -1)
    return (who[:, None] == np.arange(players)[None, :]).astype(np.int8)


def compare_runs(folder_a: Path, folder_b: Path) -> Comparison:
    """Pair two finished rows-mode run folders game by game; SheepsimError (one line,
    saying why) when they cannot be paired."""
    folder_a, folder_b = Path(folder_a), Path(folder_b)
    a, ma = _load(folder_a, "A")
    b, mb = _load(folder_b, "B")
    _check_pairable(ma, mb)
    both = a.merge(b, on="game", suffixes=("_a", "_b"), validate="one_to_one").sort_values("game")
    if both.empty:
        raise SheepsimError(f"runs A and B hold no common game index (A: {_span(a)}, B: {_span(b)}); "
                            f"a paired comparison compares game g of A with game g of B")
    players = ma["rules"]["num_players"]
    side = {s: both[[c for c in both if c.endswith(f"_{s}")]].rename(columns=lambda c: c[:-2]) for s in "ab"}
    seats = pd.DataFrame(_win_rows(list(range(players)), _sole_wins(side["a"], players, False),
                                   _sole_wins(side["b"], players, False)))
    seats.insert(0, "seat", range(players))
    slots = None
    if len(set(ma["policies"])) > 1 or len(set(mb["policies"])) > 1 or ma["policies"] != mb["policies"]:
        slots = pd.DataFrame(_win_rows(list(range(players)), _sole_wins(side["a"], players, True),
                                       _sole_wins(side["b"], players, True)))
        slots.insert(0, "b_policy", mb["policies"])
        slots.insert(0, "a_policy", ma["policies"])
        slots.insert(0, "slot", range(players))
    turns_a, turns_b = side["a"]["turns"].to_numpy(), side["b"]["turns"].to_numpy()
    diff, lo, hi = _paired(turns_a, turns_b)
    length = {"a_mean": float(turns_a.mean()), "b_mean": float(turns_b.mean()),
              "diff": diff, "diff_lo": lo, "diff_hi": hi}
    differs = [k for k in DIFFERENCES if ma.get(k) != mb.get(k)]
    return Comparison((folder_a, folder_b), (ma, mb), len(both), differs, seats, slots, length)


def _span(df: pd.DataFrame) -> str:
    if df.empty:
        return "no games"
    return f"games {int(df['game'].min()):,}..{int(df['game'].max()):,}"


def _run_line(label: str, folder: Path, game, m: dict[str, Any]) -> list[str]:
    return _wrap(f"{label} = {folder}: {m.get('played', m['games']):,} games; policies: {_policies_text(m)}; "
                 f"rules: {_rules_text(game, m['rules'])}")


def comparison_text(game, c: Comparison) -> str:
    ma, mb = c.manifests
    players = ma["rules"]["num_players"]
    lines = [f"{game.title}, {players} players, seed {ma['seed']}: {c.games:,} games paired by index "
             f"(game g of A against game g of B)"]
    lines += _run_line("A", c.folders[0], game, ma) + _run_line("B", c.folders[1], game, mb)
    if c.differs:
        lines += _wrap("they differ in: " + ", ".join(DIFFERENCES[k] for k in c.differs))
    else:
        lines += _wrap("they differ in nothing: the same settings play the same games, so every difference is 0")
    lines += [""] + _wrap("Win rate by seat, the share of the paired games won alone (a draw or a shared win "
                          "counts 0); A - B is the mean per-game difference in percentage points with its 95% "
                          "normal interval:")
    lines += [_table(c.seats)]
    if c.slots is not None:
        lines += ["", "Win rate by player slot (slot i is the i-th --policy; it follows its player over the seats):",
                  _table(c.slots)]
    n = c.length
    diff = format_interval(n["diff"], n["diff_lo"], n["diff_hi"], floatfmt=".2f", signed=True)
    lines += [""] + _wrap(f"Game length ({game.turn_unit}): mean A {n['a_mean']:.2f}, B {n['b_mean']:.2f}; "
                          f"A - B {diff} (paired, 95% normal interval)")
    return "\n".join(lines)


def _table(df: pd.DataFrame) -> str:
    return table_to_markdown(df, percent=PERCENT, points=POINTS, headers=HEADERS).rstrip("\n")


def comparison_tables(game, c: Comparison) -> dict[str, Any]:
    """Every number of the comparison as data (`compare --json`)."""
    def run(folder: Path, m: dict[str, Any]) -> dict[str, Any]:
        return {"folder": str(folder), "games": m.get("played", m["games"]), "policies": m["policies"],
                "rules": m["rules"], "rotate": m["rotate"], "start_file": m.get("start_file")}
    ma, mb = c.manifests
    return _plain({
        "game": game.name, "players": ma["rules"]["num_players"], "seed": ma["seed"], "paired_games": c.games,
        "a": run(c.folders[0], ma), "b": run(c.folders[1], mb), "differs": c.differs,
        "seats": c.seats.to_dict("records"),
        "slots": None if c.slots is None else c.slots.to_dict("records"),
        "length": {"unit": game.turn_unit, **c.length},
    })


def comparison_json(game, c: Comparison) -> str:
    return json.dumps(comparison_tables(game, c), indent=1, allow_nan=False) + "\n"


def comparison_csv(game, c: Comparison) -> str:
    """The seat and slot tables in one CSV, told apart by its first column, `table`."""
    parts = [c.seats.assign(table="seat")]
    if c.slots is not None:
        parts.append(c.slots.assign(table="slot"))
    table = pd.concat(parts, ignore_index=True).astype({"seat": "Int64"})
    if "slot" in table:
        table = table.astype({"slot": "Int64"})
    return table[["table", *[col for col in table if col != "table"]]].to_csv(index=False)
