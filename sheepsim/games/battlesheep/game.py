"""Battle Sheep: the public wrapper (validate and convert in Python, compute in kernels)."""

from __future__ import annotations

import json
import random
from typing import Any

import numpy as np
import pandas as pd

from ...policies import PolicySpec, register_policy
from .. import kernels as K
from ..base import GameSpec
from . import engine as E
from . import play as P
from . import policies as POL
from . import position as POS
from . import reference
from . import rules as R
from .presets import PRESETS
from .render import render_board

register_policy("battlesheep", "random", policy_id=POL.RANDOM,
                doc="uniform over the legal actions (Part A): first tile in one of 3 orientations, later "
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


def play_chunk(rules_arr, init, specs: list[PolicySpec], rotate: bool, seed: int, first: int, n: int) -> np.ndarray:
    return K.play_chunk(P, rules_arr, init, specs, rotate, seed, first, n)


def frame(rows: np.ndarray, rules, specs: list[PolicySpec], seed: int, first: int) -> pd.DataFrame:
    """Per-game results: the generic columns of every game plus Battle Sheep's own.
    Battle Sheep always ends (every move adds a stack), so `capped` is always False."""
    df = K.frame(rows, specs, seed, first, rules.num_players, E.O_ROTATION,
                 {"winner": (E.O_WINNER, np.int8), "cowinners": (E.O_COWINNERS, np.int8),
                  "turns": (E.O_MOVES, np.int16),
                  "tiebreak": (E.O_TIEBREAK, bool), "loser": (E.O_LOSER, np.int8),
                  "plies": (E.O_PLIES, np.int16), "hexes": (E.O_HEXES, np.int16)},
                 {"score": (E.O_SCORE, np.int8), "herd": (E.O_HERD, np.int8)})
    df.insert(df.columns.get_loc("turns") + 1, "capped", np.zeros(len(df), dtype=bool))
    return df


def _replay(rules, specs, seed: int, game: int, rotate: bool, init: np.ndarray):
    """Play game `game` exactly as the runner does, keeping its action log."""
    arr = R.to_array(rules)
    log, row, slots, _ = K.replay(P, arr, init, specs, rotate, seed, game)
    return arr, slots, log[:, 1:5], row


def trace(rules, specs, seed: int, game: int, rotate: bool, init: np.ndarray, as_json: bool) -> str:
    """Every action of one game, with the board after each; or JSON events."""
    arr, slots, log, row = _replay(rules, specs, seed, game, rotate, init)
    s = init.copy()
    seat_label = {seat: specs[int(slots[seat])].label for seat in range(rules.num_players)}
    events: list[dict[str, Any]] = [{"event": "start", "position": POS.from_state(s)}]
    lines = [f"Battle Sheep game {game} of seed {seed}, {rules.num_players} players, rules {rules.to_json()}",
             "seats: " + ", ".join(f"{chr(65 + t)}=seat {t} ({seat_label[t]})" for t in seat_label),
             render_board(s)]
    for action in log:
        seat = int(s[E.H_TO_MOVE])
        move = POS.action_to_json(s, action)
        E.apply(s, arr, *(int(x) for x in action))
        events.append({"event": "action", "seat": seat, "move": move, "position": POS.from_state(s)})
        lines += [f"{int(s[E.H_PLIES])}. seat {seat} ({chr(65 + seat)}) {_describe(move)}", render_board(s)]
    result = _result_dict(row, rules.num_players)
    events.append({"event": "end", "result": result})
    if as_json:
        return json.dumps(events, indent=1)
    lines.append(_describe_result(result))
    return "\n".join(lines)


def _describe(move: dict) -> str:
    if "tile" in move:
        return "adds tile " + " ".join(f"({q},{r})" for q, r in move["tile"])
    if "place" in move:
        return f"places the starting stack on ({move['place'][0]},{move['place'][1]})"
    return f"moves {move['count']} from ({move['from'][0]},{move['from'][1]}) to ({move['to'][0]},{move['to'][1]})"


def _result_dict(row: np.ndarray, p: int) -> dict[str, Any]:
    return {"winner": int(row[E.O_WINNER]),
            "cowinners": [t for t in range(p) if row[E.O_COWINNERS] >> t & 1],
            "scores": [int(row[E.O_SCORE + t]) for t in range(p)],
            "herds": [int(row[E.O_HERD + t]) for t in range(p)],
            "tiebreak": bool(row[E.O_TIEBREAK]), "loser": int(row[E.O_LOSER]),
            "moves": int(row[E.O_MOVES])}


def _describe_result(r: dict[str, Any]) -> str:
    scores = ", ".join(f"seat {t}: {s} pastures (herd {h})" for t, (s, h) in enumerate(zip(r["scores"], r["herds"])))
    if r["winner"] < 0:
        return f"Shared result between seats {r['cowinners']}. {scores}"
    how = " on the herd tie-break" if r["tiebreak"] else ""
    if r["loser"] >= 0:
        how = f" because seat {r['loser']} could not move"
    return f"Seat {r['winner']} wins{how}. {scores}"


def legal(position: dict, rules) -> list:
    s = POS.to_state(position, rules)
    return POS.legal_json(s, R.to_array(rules))


def reference_bench(rules, n_games: int, seed: int, policy: str = "random") -> float:
    """Games/s of the pure-Python reference engine under the uniform random policy."""
    ref_rules = reference.Rules(num_players=rules.num_players, tiles_per_player=rules["tiles_per_player"],
                                stack_size=rules["stack_size"], start_zone=rules["start_zone"],
                                no_move=rules["no_move"], final_tie=rules["final_tie"],
                                placement_order=rules["placement_order"])
    rng = random.Random(seed)
    return K.games_per_second(n_games, lambda: reference.play_random_game(ref_rules, rng))


GAME = GameSpec(
    name="battlesheep", title="Battle Sheep", version=E.VERSION, players=R.PLAYERS, options=R.OPTIONS,
    turn_unit="sheep moves", make_rules=R.make, to_array=R.to_array, initial_state=initial_state,
    rules_for_position=POS.rules_for, play_chunk=play_chunk, frame=frame, trace=trace, legal=legal,
    reference_bench=reference_bench,
    bench_workload="uniform random policy, complete games (building, placement, moves)",
    bench_more=(("greedy", "greedy policy (one-ply heuristic), complete games (building, placement, moves)"),),
)
