"""Hiboufou: the trace text of one game (DESIGN 2, `trace`).

`_replay` plays the game and returns its decision log; everything below it only
reads that log and the states it leads to.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from ...rng import streams
from .. import kernels as K
from . import engine as E
from . import play as P
from . import policies as POL
from . import rules as R
from .model import DECISION_NAMES, SPACE_NAMES, card_name


# --- replay: play the game again, keeping its decision log ----------------------------

def _replay(rules, specs, seed: int, game: int, rotate: bool, deck):
    arr = R.to_array(rules)
    p = rules.num_players
    rngs = streams(seed, game, P.N_STREAMS)
    slots = K.seat_slots(game, p, rotate, E.MAX_PLAYERS)
    ids, params = K.policy_arrays(specs)
    log = np.full((100_000, 4), -9, dtype=np.int32)
    row = np.zeros(E.O_SIZE, dtype=np.int32)
    if K.user_policies(specs):
        # the runner's user kernel calls play_game with the same chooser and streams
        s = np.empty(E.STATE_SIZE, dtype=np.int32)
        buf = np.empty((E.MAX_DECISIONS, 3), dtype=np.int32)
        P.play_game(K.chooser(POL.choose, specs), arr, deck, ids, params, slots, rngs, s, buf, row, log)
    else:
        P.replay(arr, deck, ids, params, slots, rngs, row, log)
    return arr, slots, log[log[:, 0] != -9], row


# --- the text ----------------------------------------------------------------------------

def trace(rules, specs, seed: int, game: int, rotate: bool, deck, as_json: bool, deck_file=None) -> str:
    """Every decision, with the three spaces and the hands after every turn."""
    arr, slots, log, row = _replay(rules, specs, seed, game, rotate, deck)
    p = rules.num_players
    s = np.empty(E.STATE_SIZE, dtype=np.int32)
    E.deal(s, arr, deck, streams(seed, game, P.N_STREAMS)[0])
    name = {c: card_name(int(m)) for c, m in enumerate(deck)}
    events: list[dict[str, Any]] = [{"event": "deal", "state": E.to_dict(s)}]
    generated = np.array_equal(deck, R.deck_array(rules))
    lines = [f"Hiboufou game {game} of seed {seed}, {p} players, {len(deck)} cards "
             f"({'generated deck: an assumption' if generated else 'deck file'}), rules {rules.to_json()}",
             "seats: " + ", ".join(f"seat {t} ({specs[int(slots[t])].label})" for t in range(p))]
    lines += _table(E.to_dict(s), name)
    for seat, code, a, b in log:
        turn = int(s[E.H_TURN])
        E.step(s, arr, deck, int(code), int(a), int(b))
        d = E.to_dict(s)
        events.append({"event": DECISION_NAMES[code], "seat": int(seat), "decision": [int(code), int(a), int(b)],
                       "state": d})
        what = (f"lays {name[int(a)]} on the {SPACE_NAMES[int(b)]} space" if code == 0 else
                "ends the turn" if code == 1 else "cannot lay a card and draws")
        lines.append(f"  turn {turn} seat {seat}: {what}")
        if int(s[E.H_TURN]) != turn or d["over"]:
            lines += _table(d, name)
    result = {"winner": int(row[E.O_WINNER]), "capped": bool(row[E.O_CAPPED]), "turns": int(row[E.O_TURNS]),
              "captured": [int(row[E.O_CAPTURES + q]) for q in range(p)]}
    events.append({"event": "end", "result": result})
    if as_json:
        return json.dumps(events)
    lines.append(f"{'draw' if result['winner'] < 0 else 'seat %d wins' % result['winner']} after "
                 f"{result['turns']} turns; captured cards {result['captured']}")
    return "\n".join(lines)


def _table(d: dict, name: dict) -> list[str]:
    tops = ["[" + (f"{name[pile[-1]]} x{len(pile)}" if pile else "empty") + "]" for pile in d["row"]]
    out = [f"    row: {'  '.join(tops)}   draw pile {len(d['pile'])}"]
    for q, hand in enumerate(d["hands"]):
        out.append(f"    seat {q} hand: {', '.join(name[c] for c in hand) or '-'}; captured {len(d['captured'][q])}")
    return out
