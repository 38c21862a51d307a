"""Battle Sheep: the public wrapper (validate and convert in Python, compute in kernels)."""

from __future__ import annotations

import json
from pathlib import Path

import random

import numpy as np
import pandas as pd

from ... import search
from ...search import python_mcts
from ...policies import PolicySpec, register_policy
from .. import wrappers as W
from ..base import Baseline, GameSpec
from . import engine as E
from . import play as P
from . import policies as POL
from . import position as POS
from . import reference
from . import rules as R
from . import view as V
from .presets import PRESETS
from .trace import trace

register_policy("battlesheep", "random", policy_id=POL.RANDOM,
                doc="uniform over the legal actions: first tile in one of 3 orientations, later "
                    "tiles uniform over distinct legal hex sets, starting hex uniform over eligible hexes, "
                    "moves uniform over (stack, direction, number of sheep) triples")(POL.random_policy)
register_policy("battlesheep", "greedy", policy_id=POL.GREEDY,
                params={"epsilon": (0.0, "probability of playing a uniformly random action instead", 0.0, 1.0),
                        "opponent": (1.0, "weight of the mean opponent mobility (0 = ignore opponents, "
                                          "< 0 = help them)", -100.0, 100.0)},
                doc="one-ply heuristic: builds the tile sharing the most edges with the pasture; places on "
                    "the hex with the most empty hexes in straight lines; moves to maximise own mobility "
                    "(per stack min(height-1, open directions)) minus `opponent` x mean opponent mobility; "
                    "ties broken at random")(POL.greedy)
register_policy("battlesheep", "territory", policy_id=POL.TERRITORY,
                params={"epsilon": (0.0, "probability of playing a uniformly random action instead", 0.0, 1.0)},
                doc="one ply on the position evaluation (the progress measure: pastures occupied + the empty "
                    "pastures the seat reaches first, up to the sheep it can still spread, + mobility / 32): "
                    "builds as greedy; places and moves to maximise its evaluation minus the best other "
                    "seat's; ties broken at random")(POL.territory)
search.register("battlesheep", "Battle Sheep", hidden=False, greedy="the greedy policy")


# printed by `sheepsim policies battlesheep`
POLICY_HELP = """\
A policy is an @njit function (the README's "Writing a policy"):

    policy(s, rules, aux, seat, params, rng, buf) -> (kind, a, b, c)

It returns one legal action for `seat`; `aux` is the start state.
`n = engine.legal(s, rules, aux, buf)` lists the n legal actions in buf
(int32[MAX_ACTIONS, 4]), one a row. Action kinds (engine.py):

    0 KIND_TILE  (0, orientation, q, r)  lay a pasture tile (orientation 0..2)
    1 KIND_PLACE (1, hex, 0, 0)          place the starting stack on hex
    2 KIND_MOVE  (2, hex, d, n)          move n sheep off hex in direction d

`hex` is an index into the state's hexes (its coordinates are s[Q + hex], s[R + hex]);
directions d: 0 E (1,0), 1 NE (1,-1), 2 NW (0,-1), 3 W (-1,0), 4 SW (-1,1), 5 SE (0,1).
State layout: the top of sheepsim/games/battlesheep/engine.py."""


def initial_state(rules, position: dict | None = None) -> np.ndarray:
    """Start state: a position file, a preset pasture, or an empty pasture."""
    arr = R.to_array(rules)
    if position is not None:
        return POS.to_state(position, rules)
    s = E.empty_state(arr)
    board = rules["board"]
    if board.startswith("preset:"):
        for tile in PRESETS[board.split(":", 1)[1]]:
            E.apply(s, arr, E.KIND_TILE, 0, tile[0][0], tile[0][1])
        s[E.H_PLIES] = 0
    return s


def play_chunk(rules_arr, init, specs: list[PolicySpec], rotate: bool, seed: int, first: int, n: int,
               metrics: np.ndarray | None = None) -> np.ndarray:
    return W.play_chunk(P.KERNELS, rules_arr, init, specs, rotate, seed, first, n, metrics)


def frame(rows: np.ndarray, rules, specs: list[PolicySpec], seed: int, first: int) -> pd.DataFrame:
    """Per-game results: the generic columns of every game plus Battle Sheep's own.
    Battle Sheep always ends (every move adds a stack), so `capped` is always False."""
    df = W.frame(rows, specs, seed, first, rules.num_players, E.O_ROTATION,
                 {"winner": (E.O_WINNER, np.int8), "cowinners": (E.O_COWINNERS, np.int8),
                  "turns": (E.O_MOVES, np.int16),
                  "tiebreak": (E.O_TIEBREAK, bool), "loser": (E.O_LOSER, np.int8),
                  "plies": (E.O_PLIES, np.int16), "hexes": (E.O_HEXES, np.int16)},
                 {"score": (E.O_SCORE, np.int8), "herd": (E.O_HERD, np.int8)})
    df.insert(df.columns.get_loc("turns") + 1, "capped", np.zeros(len(df), dtype=bool))
    return df


def legal(position: dict, rules) -> list:
    s = POS.to_state(position, rules)
    return POS.legal_json(s, R.to_array(rules))


def _reference_rules(rules) -> reference.Rules:
    return reference.Rules(num_players=rules.num_players, tiles_per_player=rules["tiles_per_player"],
                           stack_size=rules["stack_size"], start_zone=rules["start_zone"],
                           no_move=rules["no_move"], final_tie=rules["final_tie"],
                           placement_order=rules["placement_order"])


def reference_bench(rules, n_games: int, seed: int, policy: str = "random") -> float:
    """Games/s of the pure-Python reference engine under the uniform random policy."""
    ref_rules = _reference_rules(rules)
    rng = random.Random(seed)
    return W.games_per_second(n_games, lambda: reference.play_random_game(ref_rules, rng))


def _move(key) -> dict:
    """A reference move key (a hashable tuple) back to the reference's JSON move."""
    if key[0] == "tile":
        return {"tile": [list(h) for h in key[1]]}
    if key[0] == "place":
        return {"place": list(key[1])}
    return {"from": list(key[1]), "to": list(key[2]), "count": key[3]}


def reference_search(rules, s: np.ndarray):
    """The reference engine as the plain-Python search sees it (no chance: the game's
    only randomness, a random board, is drawn before play), and `s` as a reference game."""
    def shares(game):
        top = reference.result(game)["cowinners"]
        return [1.0 / len(top) if q in top else 0.0 for q in range(rules.num_players)]

    engine = python_mcts.Engine(
        actor=lambda game: -1 if reference.is_over(game) else game.to_move,
        legal=lambda game: [reference._canonical(m) for m in reference.legal_moves(game)],
        apply=lambda game, key, rng: (reference.play(game, _move(key)), None), shares=shares)
    return engine, reference.from_position(POS.from_state(s), _reference_rules(rules))



# the plain-C program `sheepsim bench` times beside the kernel (same rules, same random
# policy), and its fixed 32-hex board, as a position file (the kernels) and in its own format
BASELINES = Path(__file__).resolve().parents[2] / "baselines"


def baseline_workloads(rules) -> tuple[tuple[str, np.ndarray, str], ...]:
    """Complete 2-player games, and placement and moves on the fixed board board32."""
    board = POS.to_state(json.loads((BASELINES / "board32.json").read_text()), rules)
    return (("complete 2-player games", initial_state(rules, None), "-"),
            ("board32: placement and moves", board, str(BASELINES / "board32.txt")))


END_CONDITIONS = ("no one can move", "a seat cannot move")


def end_condition(df: pd.DataFrame, rules) -> np.ndarray:
    """Battle Sheep has no cap: it ends when no one can move (no_move=skip, the
    rulebook) or at the first seat that cannot (game_ends_now, player_loses)."""
    return np.full(len(df), 0 if rules["no_move"] == "skip" else 1, dtype=np.int8)

GAME = GameSpec(
    name="battlesheep", title="Battle Sheep", version=E.VERSION, players=R.PLAYERS, options=R.OPTIONS,
    turn_unit="sheep moves", make_rules=R.make, to_array=R.to_array, initial_state=initial_state,
    rules_for_position=POS.rules_for, play_chunk=play_chunk, frame=frame, trace=trace, legal=legal,
    read_position=POS.read_position_file,
    reference_bench=reference_bench, reference_search=reference_search, policy_help=POLICY_HELP,
    bench_workload="uniform random policy, complete games (building, placement, moves)",
    bench_more=(("greedy", "greedy policy (one-ply heuristic), complete games (building, placement, moves)"),),
    baseline=Baseline(BASELINES / "bsfull.c", players=2, policy="random", workloads=baseline_workloads),
    play=P.KERNELS, compile_seconds=45, end_conditions=END_CONDITIONS, end_condition=end_condition,
    skill_policies=("greedy", "random"),
    readings=Path(__file__).with_name("READINGS.md"),
    replay_view=V.view, replay_text=V.TEXT_SHAPE,
)
