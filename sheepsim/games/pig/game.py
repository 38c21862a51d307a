"""Pig: the public wrapper (validate and convert in Python, compute in kernels).

Pig is the calibration game: both seats holding at 20 with goal 100, the first player
wins with probability 0.5347 (Neller & Presser), which tests/test_pig.py checks.
"""

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
from . import reference
from . import rules as R

register_policy("pig", "random", policy_id=POL.RANDOM,
                doc="uniform over the legal actions: a fair coin between roll and hold when both are legal "
                    "(turn total > 0), else roll")(POL.random_policy)
register_policy("pig", "hold", policy_id=POL.HOLD,
                params={"t": (20.0, "turn total at which to hold", 1.0, 1000.0)},
                doc="hold at t (Neller & Presser): roll until the turn total reaches t or banking it would "
                    "reach the goal, then hold")(POL.hold)



def initial_state(rules, position: dict | None = None) -> np.ndarray:
    """Start state (Pig has no position format: `position` is ignored)."""
    return E.init_state(R.to_array(rules))


def play_chunk(rules_arr, init, specs: list[PolicySpec], rotate: bool, seed: int, first: int, n: int) -> np.ndarray:
    return K.play_chunk(P, rules_arr, init, specs, rotate, seed, first, n)


def frame(rows: np.ndarray, rules, specs: list[PolicySpec], seed: int, first: int) -> pd.DataFrame:
    """Per-game results: the generic columns of every game plus Pig's `rolls`."""
    return K.frame(rows, specs, seed, first, rules.num_players, E.O_ROTATION,
                   {"winner": (E.O_WINNER, np.int8), "cowinners": (E.O_COWINNERS, np.int8),
                    "turns": (E.O_TURNS, np.int32), "capped": (E.O_CAPPED, bool), "rolls": (E.O_ROLLS, np.int32)},
                   {"score": (E.O_SCORE, np.int32)})


def _replay(rules, specs, seed: int, game: int, rotate: bool, init: np.ndarray):
    """Play game `game` exactly as the runner does, keeping its (action, face) log
    (face 0 for a hold)."""
    arr = R.to_array(rules)
    log, row, slots, _ = K.replay(P, arr, init, specs, rotate, seed, game, P.MAX_LOG)
    return arr, slots, np.stack([log[:, 1], np.maximum(log[:, 2], 0)], axis=1), row


def state_dict(s: np.ndarray) -> dict[str, Any]:
    """A kernel state as JSON: scores, turn_total, to_act (None when over), turns, rolls."""
    to_act = int(s[E.S_TO_ACT])
    return {"scores": [int(s[E.S_SCORE + t]) for t in range(E.MAX_PLAYERS)], "turn_total": int(s[E.S_TURN]),
            "to_act": None if to_act < 0 else to_act, "turns": int(s[E.S_TURNS]), "rolls": int(s[E.S_ROLLS])}


def trace(rules, specs, seed: int, game: int, rotate: bool, init: np.ndarray, as_json: bool) -> str:
    """Every roll and hold of one game with the scores; or JSON events with the full state."""
    arr, slots, log, row = _replay(rules, specs, seed, game, rotate, init)
    s = init.copy()
    seat_label = {seat: specs[int(slots[seat])].label for seat in range(rules.num_players)}
    events: list[dict[str, Any]] = [{"event": "start", "state": state_dict(s)}]
    lines = [f"Pig game {game} of seed {seed}, {rules.num_players} players, rules {rules.to_json()}",
             "seats: " + ", ".join(f"seat {t} ({seat_label[t]})" for t in seat_label)]
    for action, face in log:
        seat = int(s[E.S_TO_ACT])
        total, score = int(s[E.S_TURN]), int(s[E.S_SCORE + seat])
        if total == 0:
            lines.append(f"turn {int(s[E.S_TURNS]) + 1}: seat {seat} ({seat_label[seat]}), "
                         f"scores {int(s[E.S_SCORE])}-{int(s[E.S_SCORE + 1])}")
        E.apply(s, arr, int(action), int(face))
        if action == E.ACT_HOLD:
            event = {"event": "hold", "seat": seat, "banked": total}
            text = f"  holds: banks {total}, score {score} -> {score + total}"
            if s[E.S_TO_ACT] < 0 and score + total >= rules["goal"]:
                text += f" (reaches the goal {rules['goal']})"
        elif face == E.BUST:
            event = {"event": "roll", "seat": seat, "face": 1, "bust": True, "lost": total}
            text = f"  rolls 1: bust, loses the turn total {total}"
        else:
            event = {"event": "roll", "seat": seat, "face": int(face), "bust": False}
            text = f"  rolls {int(face)}: turn total {int(s[E.S_TURN])}"
        event["state"] = state_dict(s)
        events.append(event)
        lines.append(text)
    result = _result_dict(row)
    events.append({"event": "end", "result": result})
    if as_json:
        return json.dumps(events, indent=1)
    lines.append(_describe_result(result))
    return "\n".join(lines)


def _result_dict(row: np.ndarray) -> dict[str, Any]:
    return {"winner": int(row[E.O_WINNER]),
            "cowinners": [t for t in range(E.MAX_PLAYERS) if row[E.O_COWINNERS] >> t & 1],
            "scores": [int(row[E.O_SCORE + t]) for t in range(E.MAX_PLAYERS)],
            "turns": int(row[E.O_TURNS]), "rolls": int(row[E.O_ROLLS]), "capped": bool(row[E.O_CAPPED])}


def _describe_result(r: dict[str, Any]) -> str:
    scores = f"scores {r['scores'][0]}-{r['scores'][1]}, {r['turns']} turns, {r['rolls']} rolls"
    if r["capped"]:
        return f"Draw: the turn cap ended the game. {scores}"
    return f"Seat {r['winner']} wins. {scores}"


def reference_bench(rules, n_games: int, seed: int, policy: str = "random") -> float:
    """Games/s of the pure-Python reference engine under the uniform random policy."""
    ref_rules = reference.Rules(goal=rules["goal"], turn_cap=rules["turn_cap"])
    rng = random.Random(seed)
    return K.games_per_second(n_games, lambda: reference.play_random_game(ref_rules, rng))


GAME = GameSpec(
    name="pig", title="Pig", version=E.VERSION, players=R.PLAYERS, options=R.OPTIONS,
    turn_unit="turns", make_rules=R.make, to_array=R.to_array, initial_state=initial_state,
    play_chunk=play_chunk, frame=frame, trace=trace, reference_bench=reference_bench,
)
