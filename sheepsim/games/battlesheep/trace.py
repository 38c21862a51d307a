"""Battle Sheep: the trace text of one game (the GameSpec's `trace`).

`_replay` plays the game and returns its action log; everything below it only reads
that log and the positions it leads to.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from .. import wrappers as W
from . import engine as E
from . import play as P
from . import policies as POL
from . import position as POS
from . import rules as R
from ..tracetext import rules_lines, seats
from .render import render_board


# --- replay: play the game again, keeping its action log -------------------------------

def _replay(rules, specs, seed: int, game: int, rotate: bool, init: np.ndarray):
    """Play game `game` exactly as the runner does, keeping its action log."""
    arr = R.to_array(rules)
    log, row, slots, _ = W.replay(P.KERNELS, arr, init, specs, rotate, seed, game)
    return arr, slots, log[:, 1:5], row



# --- the text ----------------------------------------------------------------------------

def trace(rules, specs, seed: int, game: int, rotate: bool, init: np.ndarray, as_json: bool,
          deck_file=None) -> str:
    """Every action of one game, with the board after each; or JSON events."""
    arr, slots, log, row = _replay(rules, specs, seed, game, rotate, init)
    s = init.copy()
    seat_label = {seat: specs[int(slots[seat])].label for seat in range(rules.num_players)}
    events: list[dict[str, Any]] = [{"event": "start", "position": POS.from_state(s)}]
    lines = [f"Battle Sheep game {game} of seed {seed}, {rules.num_players} players", *rules_lines(rules, R.OPTIONS),
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
        return f"Shared result between {seats(r['cowinners'])}. {scores}"
    how = " on the herd tie-break" if r["tiebreak"] else ""
    if r["loser"] >= 0:
        how = f" because seat {r['loser']} could not move"
    return f"Seat {r['winner']} wins{how}. {scores}"
