"""Pig: the trace text of one game (the GameSpec's `trace`).

`_replay` plays the game and returns its (action, face) log; everything below it
only reads that log and the states it leads to.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from .. import wrappers as W
from . import engine as E
from . import play as P
from . import policies as POL
from ..tracetext import rules_lines
from . import rules as R


# --- replay: play the game again, keeping its (action, face) log ----------------------

def _replay(rules, specs, seed: int, game: int, rotate: bool, init: np.ndarray):
    """Play game `game` exactly as the runner does, keeping its (action, face) log
    (face 0 for a hold)."""
    arr = R.to_array(rules)
    POL.check_aux(init, rules["goal"], specs)
    log, row, slots, _ = W.replay(P.KERNELS, arr, init, specs, rotate, seed, game, P.ENGINE.max_log)
    return arr, slots, np.stack([log[:, 1], np.maximum(log[:, 2], 0)], axis=1), row



# --- the text ----------------------------------------------------------------------------

def state_dict(s: np.ndarray) -> dict[str, Any]:
    """A kernel state as JSON: scores, turn_total, to_act (None when over), turns, rolls."""
    to_act = int(s[E.S_TO_ACT])
    return {"scores": [int(s[E.S_SCORE + t]) for t in range(E.MAX_PLAYERS)], "turn_total": int(s[E.S_TURN]),
            "to_act": None if to_act < 0 else to_act, "turns": int(s[E.S_TURNS]), "rolls": int(s[E.S_ROLLS])}


def trace(rules, specs, seed: int, game: int, rotate: bool, init: np.ndarray, as_json: bool,
          deck_file=None) -> str:
    """Every roll and hold of one game with the scores; or JSON events with the full state."""
    arr, slots, log, row = _replay(rules, specs, seed, game, rotate, init)
    s = init[:E.STATE_SIZE].copy()          # aux may go on with the optimal policy's table
    seat_label = {seat: specs[int(slots[seat])].label for seat in range(rules.num_players)}
    events: list[dict[str, Any]] = [{"event": "start", "state": state_dict(s)}]
    lines = [f"Pig game {game} of seed {seed}, {rules.num_players} players", *rules_lines(rules, R.OPTIONS),
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
