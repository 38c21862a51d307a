"""Pig: the public wrapper (validate and convert in Python, compute in kernels).

Pig is the calibration game: both seats holding at 20 with goal 100, the first player
wins with probability 0.5347 (Neller & Presser), which tests/test_pig.py checks; both
playing optimally, 0.5306 (optimal.py, tests/test_pig_optimal.py).
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pandas as pd

from ... import search
from ...search import python_mcts
from ...policies import PolicySpec, register_policy
from .. import stoptable, wrappers as W
from ..base import GameSpec, StopOptimum
from . import engine as E
from . import optimal as OPT
from . import play as P
from . import policies as POL
from . import reference
from . import rules as R
from . import view as V
from .trace import trace

register_policy("pig", "random", policy_id=POL.RANDOM,
                doc="uniform over the legal actions: a fair coin between roll and hold when both are legal "
                    "(turn total > 0), else roll")(POL.random_policy)
register_policy("pig", "hold", policy_id=POL.HOLD,
                params={"t": (20.0, "turn total at which to hold", 1.0, 1000.0)}, integers=("t",),
                doc="hold at t (Neller & Presser): roll until the turn total reaches t or banking it would "
                    "reach the goal, then hold")(POL.hold)
register_policy("pig", "optimal", policy_id=POL.OPTIMAL,
                params={"tol": (OPT.DEFAULT_TOL, "value-iteration tolerance: the game is solved until no win "
                                                 "probability changes by more than tol in a sweep (the values then "
                                                 "lie within about 2 tol of the exact ones at goal 100, 4 tol at "
                                                 "200)", *OPT.TOL_RANGE)},
                doc="optimal play (Neller & Presser): roll or hold as the exactly solved game says, the best "
                    "chance to win against an optimal opponent (both optimal, the first player wins 0.5306 at "
                    "goal 100); solved once per goal and tol, for goal <= 200 and turn_cap >= 10000")(POL.optimal)
register_policy("pig", "learned", policy_id=POL.LEARNED,
                files={"table": "stop table file (JSON, from a `learn_stop` analysis); default: the one sheepsim "
                                 "ships for Pig at goal 100"},
                doc="holds once the turn total reaches its cell's threshold in a stop table learned by "
                    "simulation (cells: own score and opponent's score, 20 bands of the goal each); rolls at 0 "
                    "and holds when banking wins")(POL.learned)
search.register("pig", "Pig", hidden=False, greedy="hold at 20", luck=True)

# printed by `sheepsim policies pig`
POLICY_HELP = """\
A policy is an @njit function (the README's "Writing a policy"):

    policy(s, rules, aux, seat, params, rng, buf) -> action

It returns the action itself: 0 roll (engine.ACT_ROLL) or 1 hold (engine.ACT_HOLD,
legal once the turn total is above 0); `aux` is the start state (then, in runs with
an `optimal` seat, its decision table: optimal.py).
`n = engine.legal(s, rules, aux, buf)` lists them in buf (int32[MAX_ACTIONS, 1]).
State: s[S_SCORE + seat] banked scores, s[S_TURN] the turn total (engine.py)."""


def initial_state(rules, position: dict | None = None) -> np.ndarray:
    """Start state (Pig has no position format: `position` is ignored)."""
    return E.init_state(R.to_array(rules))


def stop_features(rules) -> stoptable.Features:
    """The learned policy's feature set (policies.stop_cell)."""
    bands = min(POL.BUCKETS, rules["goal"])
    lows = [-(-b * rules["goal"] // bands) for b in range(bands + 1)]     # each band's lowest score (stop_cell)
    scores = tuple(f"{a}-{b - 1}" if b - 1 > a else f"{a}" for a, b in zip(lows, lows[1:]))
    # reach 25: the far probe rolls on to T + 25, far enough to see "roll on to win" (the
    # optimum's answer when the opponent nears the goal) that reach 8 missed (measured:
    # the learned table's regret to the optimum 2.0% at reach 8, 0.9% at 25, --scale 4)
    return stoptable.Features(
        "pig-score-bands-v1", (("own score band", bands), ("opponent's score band", bands)), "turn total",
        initial=20, window=6, fixed="hold:t=20", floor=1, reach=25,
        doc=f"own and opponent's banked score, each in {bands} equal bands of the goal "
            f"({rules['goal'] / bands:g} points a band)", ticks=(scores, scores))


def stop_optimum(rules, feats: stoptable.Features) -> StopOptimum:
    """The exact optimum (optimal.py) that learn_stop holds the learned table against:
    its hold boundary at each score band's lowest scores, the first player's exact win
    rate, and the learned table's distance from the boundary and exact win rate."""
    goal = rules["goal"]
    bands = feats.axes[0][1]

    def cells() -> np.ndarray:
        edge = OPT.solution(goal).boundary()
        lows = [-(-b * goal // bands) for b in range(bands)]        # the lowest score in each band
        return edge[np.ix_(lows, lows)].astype(float)

    def compare(thresholds: np.ndarray, visits: np.ndarray) -> tuple[np.ndarray, float]:
        edge = OPT.solution(goal).boundary()
        band = (np.arange(goal) * bands) // goal
        mine = thresholds.reshape(bands, bands)[band[:, None], band[None, :]]
        reached = (visits.reshape(bands, bands) > 0)[band[:, None], band[None, :]]
        # a threshold at or past the goal's distance and a boundary of goal - i both mean "roll to win"
        dist = goal - np.arange(goal)[:, None]
        diff = np.abs(np.minimum(mine, dist) - np.minimum(edge, dist))[reached]
        # the same rate without sampling noise: policy evaluation of the table
        return diff, float(OPT.evaluate(mine, goal)[0, 0, 0])

    return StopOptimum(
        setting=f"goal {goal}", states="(own, opponent) scores", threshold="hold threshold",
        panel="optimal (at each band's lowest scores)", cells=cells,
        first=lambda: float(OPT.solution(goal).p[0, 0, 0]), compare=compare,
        constant=lambda t: float(OPT.evaluate(np.full((goal, goal), t), goal)[0, 0, 0]))


def policy_data(rules, specs: list[PolicySpec]) -> np.ndarray:
    """What a run of `specs` appends to the start state in aux: the optimal policy's
    decision table if a seat plays it (solved here on first use, then cached), then the
    learned policy's stop table if a seat plays it, else nothing. Refuses rules the
    tables were not made for."""
    parts = []
    tols = POL.optimal_tols(specs)
    if tols:
        OPT.check_rules(rules["goal"], rules["turn_cap"], tols)
        parts.append(OPT.table(rules["goal"], tols[0]))
    learned = stoptable.for_run(GAME, rules, specs, POL.LEARNED)
    if learned is not None:
        parts.append(stoptable.block(learned))
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int32)


def play_chunk(rules_arr, init, specs: list[PolicySpec], rotate: bool, seed: int, first: int, n: int,
               metrics: np.ndarray | None = None) -> np.ndarray:
    POL.check_aux(init, int(rules_arr[R.R_GOAL]), specs)
    return W.play_chunk(P.KERNELS, rules_arr, init, specs, rotate, seed, first, n, metrics)


def frame(rows: np.ndarray, rules, specs: list[PolicySpec], seed: int, first: int) -> pd.DataFrame:
    """Per-game results: the generic columns of every game plus Pig's `rolls`."""
    return W.frame(rows, specs, seed, first, rules.num_players, E.O_ROTATION,
                   {"winner": (E.O_WINNER, np.int8), "cowinners": (E.O_COWINNERS, np.int8),
                    "turns": (E.O_TURNS, np.int32), "capped": (E.O_CAPPED, bool), "rolls": (E.O_ROLLS, np.int32)},
                   {"score": (E.O_SCORE, np.int32)})


def _reference_rules(rules) -> reference.Rules:
    return reference.Rules(goal=rules["goal"], turn_cap=rules["turn_cap"])


def reference_bench(rules, n_games: int, seed: int, policy: str = "random") -> float:
    """Games/s of the pure-Python reference engine under the uniform random policy."""
    ref_rules = _reference_rules(rules)
    rng = random.Random(seed)
    return W.games_per_second(n_games, lambda: reference.play_random_game(ref_rules, rng))


def reference_search(rules, s: np.ndarray):
    """The reference engine as the plain-Python search sees it, and `s` as a reference game."""
    ref_rules = _reference_rules(rules)

    def apply(game, action, rng):
        face = rng.randint(1, 6) if action == reference.ROLL else None
        return reference.step(game, ref_rules, action, face), face

    def shares(game):
        winner = reference.result(game, ref_rules)["winner"]
        return [0.5, 0.5] if winner < 0 else [float(winner == 0), float(winner == 1)]

    engine = python_mcts.Engine(actor=lambda game: -1 if game.to_act is None else game.to_act,
                                legal=reference.legal_actions, apply=apply, shares=shares)
    to_act = int(s[E.S_TO_ACT])
    return engine, reference.Game(scores=(int(s[E.S_SCORE]), int(s[E.S_SCORE + 1])), turn_total=int(s[E.S_TURN]),
                                  to_act=None if to_act < 0 else to_act, turns=int(s[E.S_TURNS]),
                                  rolls=int(s[E.S_ROLLS]))



END_CONDITIONS = ("goal reached", "turn cap")

GAME = GameSpec(
    name="pig", title="Pig", version=E.VERSION, players=R.PLAYERS, options=R.OPTIONS,
    turn_unit="turns", make_rules=R.make, to_array=R.to_array, initial_state=initial_state,
    play_chunk=play_chunk, frame=frame, trace=trace, reference_bench=reference_bench,
    reference_search=reference_search,
    policy_help=POLICY_HELP, policy_data=policy_data, stop_features=stop_features, play=P.KERNELS, compile_seconds=15,
    stop_optimum=stop_optimum,
    end_conditions=END_CONDITIONS, end_condition=W.end_at_cap,
    skill_policies=("hold", "random"),
    luck=True,
    readings=Path(__file__).with_name("READINGS.md"),
    replay_view=V.view, replay_text=V.TEXT_SHAPE,
)
