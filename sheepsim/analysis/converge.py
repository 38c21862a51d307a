"""Convergence: follow an answer up the strength scale until it stops moving.

A balance answer ("seat 0 wins 4 points more often") is an answer between players of
some strength; between stronger ones it may be another. This analysis climbs a ladder
of one agent family ordered by strength (`policy` with its strength knob `knob` at each
of `levels`, e.g. mcts at 256, 512, ... iterations, or alphabeta at depths 1, 2, ...),
then the SPECs of `top` (say Pig's `learned` and `optimal`), and at each level:

* the answer: every seat plays the level (self-play), for each player count, on the
  analysis seed (common random numbers: every level sees the same deals and boards),
  until every seat's share has a 95% half-width of at most `halfwidth` (the runner's
  sequential stopping, simulate --ci-halfwidth, looked at every CHUNK games) or `games`
  were played. Measured: seat
  0's edge (its share of decided games minus the fair 1/P), each seat's share, game
  length, games without a sole winner, the experience metrics (simulate --metrics), and
  the game's own yes-or-no of a game where it declares one (GameSpec.stop_measure; Bye-Bye
  Black Sheep: the games a Black Sheep decided), read by replaying the run's first
  `measure_games` games (a replay costs what the game did: a search agent searches again);
* the strength, in 2 players (the game's smallest count if it has no 2-player game):
  the level in one seat against the level below in the other, and against each of
  `anchors` (random, a heuristic, a fixed search), `strength_games` games each, seats
  rotated; Bradley-Terry ratings (analysis/ratings.py) over every such match place
  the levels on one scale (Elo points, the first anchor at 0).

A player count stops climbing at the first level whose edge and every seat's share are
within `tolerance` of the level below's, both with half-widths of at most `halfwidth`:
the answer "stops moving" there (in 3 and 4 players the edge can stand still while the
other seats trade places: that answer is still moving). Otherwise it climbs to the top and the report says it is "still
moving", with the two strongest levels' answers. `top` levels are played whatever the
family did: they are the reference the family is compared with. With `exact` (seat 0's
share under perfect play, known for Pig) the report says whether the strongest level's
interval holds it, and never claims convergence the exact answer contradicts. With
`play_all` every level plays even after the answer settles (a calibration: the report
then says whether the levels above stayed where it settled).

Hours of play: every self-play run and match writes its games, chunk by chunk, into a
folder of its own under `reports/.runs/<name>/` (the runner's resumable `out`), so an
interrupted analysis, run again, resumes each run where it stopped rather than from
the start (results depend only on the run's configuration, seed and game index, so a
resumed run equals an unbroken one). The folders go once the report is written.

Analysis keys: players, policy, knob, levels, top, games, halfwidth, tolerance, anchors,
strength_games, measure_games, exact, play_all, options.
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..errors import SheepsimError
from ..fileio import resumable
from ..games import get_game
from ..policies import parse_spec, seat_specs
from ..report.layouts.converge import Converge, Plan, moved
from ..report.layouts.converge import layout  # the kind's report (definition.Kind)
from ..runner import simulate
from ..start import kernel_aux, policy_data
from . import ratings
from ..stats import tables as T
from .definition import player_counts, runs_folder
from ..stats.intervals import wilson_interval

# self-play runs in chunks of this many games, so sequential stopping looks at its
# intervals often (a chunk is where the runner checks them; results do not depend on it)
CHUNK = 250
KEYS = ("players", "policy", "knob", "levels", "top", "games", "halfwidth", "tolerance", "anchors",
        "strength_games", "measure_games", "exact", "play_all", "options")


def _named(game: str, spec: str) -> str:
    """An anchor's name: its label, or the SPEC as written where the label drops a
    default the reader should see ("alphabeta:depth=3", not "alphabeta")."""
    label = parse_spec(game, spec).label
    return spec.replace(" ", "") if len(spec.replace(" ", "")) > len(label) else label


def with_knob(policy: str, knob: str, value: int) -> str:
    """The SPEC `policy` with `knob` = value."""
    return f"{policy}{',' if ':' in policy else ':'}{knob}={value}"


def plan(spec: dict[str, Any], scale: float) -> Plan:
    game = get_game(spec["game"])
    players = player_counts(spec, game)
    rules = {p: game.make_rules(p, spec.get("options", {})) for p in players}
    policy = spec.get("policy")
    if not isinstance(policy, str):
        raise SheepsimError('a convergence analysis climbs one agent family: `policy = "mcts"` (a SPEC without '
                            'its strength knob)')
    base = parse_spec(game.name, policy)            # unknown, refused or malformed: its own one-line error
    knob = spec.get("knob", "iters" if "iters" in base.policy.params else "depth")
    if knob not in base.policy.params:
        raise SheepsimError(f"policy {base.policy.name} has no parameter {knob!r} to climb; its parameters: "
                            f"{', '.join(base.policy.params) or 'none'}")
    if f"{knob}=" in policy:
        raise SheepsimError(f"give the policy without {knob} ({policy!r}): the levels set it")
    levels = spec.get("levels")
    if not (isinstance(levels, list) and len(levels) >= 2 and all(
            isinstance(v, int) and not isinstance(v, bool) for v in levels) and levels == sorted(set(levels))):
        raise SheepsimError(f"`levels` must list at least two whole values of {knob}, increasing, e.g. "
                            f"[256, 512, 1024], not {levels!r}")
    top = spec.get("top", [])
    if not (isinstance(top, list) and all(isinstance(t, str) for t in top)):
        raise SheepsimError(f'`top` must be a list of policy SPECs, e.g. ["optimal"], not {top!r}')
    ladder = [with_knob(policy, knob, v) for v in levels] + list(top)
    anchors = spec.get("anchors", ["random"])
    if not (isinstance(anchors, list) and anchors and all(isinstance(a, str) for a in anchors)):
        raise SheepsimError(f'`anchors` must be a list of policy SPECs, e.g. ["random", "greedy"], not {anchors!r}')
    numbers = {"games": (10_000, True), "strength_games": (1_000, True), "measure_games": (200, True),
               "halfwidth": (0.015, False),
               "tolerance": (0.01, False)}
    got = {}
    for key, (default, whole) in numbers.items():
        value = spec.get(key, default)
        ok = isinstance(value, int) and not isinstance(value, bool) and value > 0 if whole else \
            isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value < 0.5
        if not ok:
            raise SheepsimError(f"`{key}` must be " + ("a positive whole number of games" if whole else
                                                      "a share between 0 and 0.5, e.g. 0.015 for 1.5 points") +
                                f", not {value!r}")
        got[key] = value
    exact = spec.get("exact")
    if exact is not None:
        if not (isinstance(exact, (int, float)) and not isinstance(exact, bool) and 0 <= exact <= 1):
            raise SheepsimError(f"`exact` is seat 0's share of decided games under perfect play, 0..1, not {exact!r}")
        if len(players) != 1:
            raise SheepsimError("`exact` holds for one player count: give `players = N` with it")
    play_all = spec.get("play_all", False)
    if not isinstance(play_all, bool):
        raise SheepsimError(f"`play_all` is true or false, not {play_all!r}")
    strength_players = 2 if 2 in game.players else game.players[0]
    strength_rules = rules.get(strength_players) or game.make_rules(strength_players, spec.get("options", {}))
    rules.setdefault(strength_players, strength_rules)
    for level in ladder:                            # check every cell now, not after an hour
        for p in players:
            policy_data(game, rules[p], seat_specs(game.name, [level], p))
        for other in anchors:
            policy_data(game, strength_rules, seat_specs(game.name, [level, other], strength_players))
    # each level's label names its knob even at the default ("alphabeta:depth=3", not "alphabeta")
    labels = [parse_spec(game.name, s).label for s in ladder]
    labels = [x if k >= len(levels) or f"{knob}=" in x else with_knob(x, knob, levels[k])
              for k, x in enumerate(labels)]
    return Plan(game, players, rules, labels, len(levels),
                max(1, round(got["games"] * scale)), float(got["halfwidth"]), float(got["tolerance"]),
                [_named(game.name, a) for a in anchors], strength_players,
                max(1, round(got["strength_games"] * scale)), exact, play_all, policy, knob,
                max(1, round(got["measure_games"] * scale)))


def _folder(runs: Path, *what: Any) -> Path:
    """The resumable folder of one run of the analysis: named by everything that makes
    the run (a changed level, count or rule starts a folder of its own)."""
    return runs / hashlib.sha256(json.dumps(what, sort_keys=True, default=str).encode()).hexdigest()[:16]


def _selfplay(p: Plan, level: str, players: int, seed: int, threads, progress, runs: Path) -> dict[str, Any]:
    """One level's answer in `players` players: every seat plays `level`."""
    start = time.perf_counter()
    out = _folder(runs, "selfplay", level, players, p.rules[players].as_dict(), p.games, p.halfwidth, seed)
    with resumable():
        df = simulate(p.game, p.rules[players], seat_specs(p.game.name, [level], players), p.games, seed, threads,
                      out=out, progress=progress, ci_halfwidth=p.halfwidth, metrics=True, chunk_size=CHUNK).results
    seconds = time.perf_counter() - start
    seats = T.seat_table(df)
    row = {"players": players, "level": level, "games": len(df), **T.seat0_edge(df), "seconds": seconds}
    row["halfwidth"] = (row["edge_hi"] - row["edge_lo"]) / 2
    for s in seats.itertuples():
        row[f"seat{s.seat}"], row[f"seat{s.seat}_lo"], row[f"seat{s.seat}_hi"] = s.win_rate, s.win_rate_lo, \
            s.win_rate_hi
    row["no_sole_winner"] = seats.attrs["draw_rate"]
    row["no_sole_winner_lo"], row["no_sole_winner_hi"] = seats.attrs["draw_rate_lo"], seats.attrs["draw_rate_hi"]
    length = T.length_table(df).iloc[0]
    row["length"], row["length_lo"], row["length_hi"] = length["mean"], length["mean_lo"], length["mean_hi"]
    experience = T.experience_row(df)
    for key in ("lead_changes", "decided_share", "comeback", "drama"):
        row[key], row[f"{key}_lo"], row[f"{key}_hi"] = (experience[key], experience[f"{key}_lo"],
                                                        experience[f"{key}_hi"])
    measure = p.game.stop_measure
    if measure is not None:
        specs = seat_specs(p.game.name, [level], players)
        sample = np.sort(df["game"].to_numpy())[:p.measure_games]
        yes = measure.games(p.game.play, p.game.to_array(p.rules[players]),
                            kernel_aux(p.game, p.rules[players], None, specs), specs, True, seed, sample)
        lo, hi = wilson_interval(np.array([yes.sum()]), len(yes))
        c = measure.column
        row[c], row[f"{c}_lo"], row[f"{c}_hi"], row[f"{c}_games"] = yes.mean(), lo[0], hi[0], len(yes)
    return row


def _match(p: Plan, level: str, other: str, seed: int, threads, progress,
           runs: Path) -> tuple[float, float, float]:
    """(wins of `level`, of `other`, games) in 2 players (strength_players), seats
    rotated; a game without a sole winner counts half to each (ratings.py)."""
    specs = seat_specs(p.game.name, [level] + [other] * (p.strength_players - 1), p.strength_players)
    rules = p.rules[p.strength_players]
    out = _folder(runs, "match", level, other, p.strength_players, rules.as_dict(), p.strength_games, seed)
    with resumable():
        df = simulate(p.game, rules, specs, p.strength_games, seed, threads, out=out, chunk_size=CHUNK,
                      progress=progress).results
    sole = T.policy_table(df).set_index("policy")["wins"]
    won, lost = float(sole[specs[0].label]), float(len(df) - sole[specs[0].label])
    if p.strength_players == 2:
        drawn = len(df) - sole[specs[0].label] - sole[specs[1].label]
        won, lost = won + drawn / 2, float(sole[specs[1].label]) + drawn / 2
    return won, lost, float(len(df))


def settled(below: dict[str, Any], above: dict[str, Any], p: Plan) -> bool:
    """Whether two consecutive levels agree: seat 0's edge and every seat's share within
    `tolerance`, both edge half-widths at most `halfwidth` (rounded to a tenth of a
    point: a half-width a hair over the target after sequential stopping's last chunk is
    the target)."""
    narrow = max(below["halfwidth"], above["halfwidth"]) <= p.halfwidth + 5e-4
    return narrow and moved(below, above)[0] <= p.tolerance


def run(spec: dict[str, Any], p: Plan, reports: Path, threads: int | None, progress: bool,
        command: str = "") -> Converge:
    name, seed, game = spec["name"], spec["seed"], p.game
    runs = runs_folder(reports, name)
    names = p.anchors + [x for x in p.ladder if x not in p.anchors]
    wins = np.zeros((len(names), len(names)))
    played = np.zeros_like(wins)
    answers, strength = [], []
    climbing = {n: True for n in p.players}
    stopped: dict[int, int] = {}                    # player count -> the level index it settled at
    start = time.perf_counter()

    def say(text):
        if progress:
            print(f"{name}: {text} ...", file=sys.stderr, flush=True)

    for i, level in enumerate(p.ladder):
        in_family = i < p.family
        if not any(climbing.values()) and in_family and not p.play_all:
            continue
        # the strength: this level against the one below it that played (a family that
        # settled early skips its stronger levels) and against each anchor
        row = {"level": level}
        below = [(strength[-1]["level"], "below")] if strength else []
        for other, key in below + [(a, a) for a in p.anchors]:
            if parse_spec(game.name, other).label == parse_spec(game.name, level).label:
                continue                            # the same agent (an anchor on the ladder)
            say(f"{level} against {other}")
            w, l, n = _match(p, level, other, seed, threads, progress, runs)
            a, b = names.index(level), names.index(other)
            wins[a, b] += w
            wins[b, a] += l
            played[a, b] += n
            played[b, a] += n
            lo, hi = wilson_interval(w, w + l)
            row[key], row[f"{key}_lo"], row[f"{key}_hi"] = w / (w + l), lo, hi
        strength.append(row)
        for players in p.players:
            if not climbing[players] and in_family and not p.play_all:
                continue
            say(f"{level}, every seat, {players} players")
            answers.append(_selfplay(p, level, players, seed, threads, progress, runs))
            mine = [r for r in answers if r["players"] == players]
            if in_family and len(mine) >= 2 and settled(mine[-2], mine[-1], p) and climbing[players]:
                climbing[players] = False
                stopped[players] = p.ladder.index(mine[-2]["level"])
    answers = pd.DataFrame(answers)
    strength = pd.DataFrame(strength)
    rated = played.sum(axis=1) > 0
    names = [n for n, r in zip(names, rated) if r]
    wins, played = wins[np.ix_(rated, rated)], played[np.ix_(rated, rated)]
    elo = ratings.ELO * ratings.fit(wins, played)
    rate = np.divide(wins, played, out=np.full(wins.shape, np.nan), where=played > 0)
    rng = np.random.default_rng(seed)
    boots = np.array([ratings.fit(ratings.resample(rng, rate, played), played) for _ in range(200)])
    lo, hi = ratings.ELO * np.percentile(boots, [2.5, 97.5], axis=0)
    elos = pd.DataFrame({"policy": names, "rating": elo, "rating_lo": lo, "rating_hi": hi})
    strength = strength.merge(elos.rename(columns={"policy": "level"}), on="level", how="left")
    # the anchors' own ratings below the levels: the scale's fixed points
    strength = pd.concat([strength, elos[elos["policy"].isin(p.anchors) & ~elos["policy"].isin(p.ladder)]
                          .rename(columns={"policy": "level"})], ignore_index=True)
    return Converge(p, answers, strength, stopped, time.perf_counter() - start)
