"""Bye-Bye Black Sheep: the trace text of one game (DESIGN 2, `trace`).

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
from .model import DECISION_NAMES, KIND_NAMES, PHASE_NAMES, species_of


# --- replay: play the game again, keeping its decision log ----------------------------

def _replay(rules, specs, seed: int, game: int, rotate: bool):
    arr = R.to_array(rules)
    p = rules.num_players
    rngs = streams(seed, game, P.N_STREAMS)
    slots = K.seat_slots(game, p, rotate, E.MAX_PLAYERS)
    ids, params = K.policy_arrays(specs)
    log = np.full((200_000, 5), -9, dtype=np.int32)
    row = np.zeros(E.O_SIZE, dtype=np.int32)
    if all(s.policy.builtin for s in specs):
        P.replay(arr, ids, params, slots, rngs, row, log)
    else:
        s = np.empty(E.STATE_SIZE, dtype=np.int32)
        buf = np.empty((E.MAX_DECISIONS, 3), dtype=np.int32)
        P.play_game(K.chooser(POL.choose, specs), arr, ids, params, slots, rngs, s, buf, row, log)
    return arr, rngs, slots, log[log[:, 0] != -9], row


# --- the text ----------------------------------------------------------------------------

def to_dict(s: np.ndarray) -> dict[str, Any]:
    """The full state (hidden hands included) as JSON-able data, in the canonical
    format shared with the reference engine."""
    p = int(s[E.H_PLAYERS])

    def rows(base):
        return [[int(x) for x in s[base + q * E.NK: base + (q + 1) * E.NK]] for q in range(p)]
    return {
        "phase": int(s[E.H_PHASE]), "actor": int(s[E.H_ACTOR]), "active": int(s[E.H_ACTIVE]),
        "turn": int(s[E.H_TURN]), "hands": rows(E.HAND), "zoos": rows(E.ZOO),
        "joker_species": [int(s[E.JOKER_AS + q]) for q in range(p)],
        "table": [int(k) for k in s[E.TABLE:E.TABLE + s[E.H_NTABLE]]],
        "pile": [int(k) for k in s[E.PILE:E.PILE + s[E.H_NPILE]][::-1]],
        "set_aside": rows(E.ASIDE), "magpie_in_play": bool(s[E.H_MAGPIE_IN]), "draws": int(s[E.H_DRAWS]),
        "limit": int(s[E.H_LIMIT]), "placed": int(s[E.H_PLACED]), "source": int(s[E.H_SOURCE]),
        "winner": int(s[E.H_WINNER]), "capped": bool(s[E.H_CAPPED]),
    }


def _cards(counts) -> str:
    parts = [f"{c}x {KIND_NAMES[k]}" if c > 1 else KIND_NAMES[k] for k, c in enumerate(counts) if c]
    return ", ".join(parts) or "-"


def _zoo(s, q) -> str:
    p_row = s[E.ZOO + q * E.NK: E.ZOO + (q + 1) * E.NK]
    groups = [f"{species_of(k)}:{c}" for k, c in enumerate(p_row) if c and k >= 8]
    if s[E.JOKER_AS + q]:
        groups.append(f"Joker as {int(s[E.JOKER_AS + q])}")
    return " ".join(groups) + f"  ({E.triplets(s, q)} triplets)"


def describe(code: int, a: int, b: int, chance: int) -> str:
    name = DECISION_NAMES[code]
    if name == "draw":
        return f"draws blindly from seat {a}: {KIND_NAMES[chance]}"
    if name == "eagle_ask":
        return f"Eagle: asks seat {a} for species {b}"
    if name in ("mole_take",):
        return f"Mole: takes {KIND_NAMES[a]}"
    if name == "magpie_take":
        return f"Magpie: takes {KIND_NAMES[b]} from seat {a}'s zoo"
    if name in ("place", "white_place"):
        what = KIND_NAMES[a] + (f" as species {b}" if a == 7 else "")
        extra = f" (the Magpie enters at pile position {chance})" if chance >= 0 else ""
        return ("White Sheep: places " if name == "white_place" else "places ") + what + extra
    return name.replace("_", " ")


def _effect(before: dict, after: dict, code: int, chance: int) -> str:
    """What an effect did, read off the states around it (for the trace text)."""
    name = DECISION_NAMES[code]
    if name == "eagle_ask":
        if len(after["table"]) > len(before["table"]):
            return f": gets {KIND_NAMES[after['table'][-1]]}"
        return ": no such card, the Eagle fails (table to hand, placement allowed)"
    if name == "mother_take":
        return f": Mother Sheep brings {KIND_NAMES[after['table'][-1]]}"
    if name == "draw" and KIND_NAMES[chance] == "Wolf":
        aside = [_cards(row) for row in after["set_aside"] if any(row)]
        return f": the Wolf sets aside {', '.join(aside) or 'nothing'}"
    return ""


def trace(rules, specs, seed: int, game: int, rotate: bool, init, as_json: bool) -> str:
    """Every decision with its luck; hands, zoos and the pile after every turn."""
    arr, rngs, slots, log, row = _replay(rules, specs, seed, game, rotate)
    s = np.empty(E.STATE_SIZE, dtype=np.int32)
    E.deal(s, arr, streams(seed, game, P.N_STREAMS)[0])
    p = rules.num_players
    events: list[dict[str, Any]] = [{"event": "deal", "state": to_dict(s)}]
    lines = [f"Bye-Bye Black Sheep game {game} of seed {seed}, {p} players, rules {rules.to_json()}",
             "seats: " + ", ".join(f"seat {t} ({specs[int(slots[t])].label})" for t in range(p))]
    lines += _hands(s, p)
    for seat, code, a, b, chance in log:
        turn = int(s[E.H_TURN])
        before = to_dict(s)
        E.step(s, arr, int(code), int(a), int(b), int(chance))
        text = describe(int(code), int(a), int(b), int(chance)) + _effect(before, to_dict(s), int(code), int(chance))
        events.append({"event": DECISION_NAMES[code], "seat": int(seat), "decision": [int(code), int(a), int(b)],
                       "chance": int(chance), "state": to_dict(s)})
        lines.append(f"  turn {turn} seat {seat}: {text}")
        if int(s[E.H_TURN]) != turn or s[E.H_PHASE] == 7:
            lines += _hands(s, p)
    result = {"winner": int(row[E.O_WINNER]), "capped": bool(row[E.O_CAPPED]), "turns": int(row[E.O_TURNS]),
              "triplets": [int(row[E.O_TRIPLETS + q]) for q in range(p)]}
    events.append({"event": "end", "result": result})
    if as_json:
        return json.dumps(events)
    lines.append(f"{'Capped: ' if result['capped'] else ''}"
                 f"{'draw' if result['winner'] < 0 else 'seat %d wins' % result['winner']} after "
                 f"{result['turns']} turns; triplets {result['triplets']}")
    return "\n".join(lines)


def _hands(s, p) -> list[str]:
    out = [f"    [{PHASE_NAMES[int(s[E.H_PHASE])]}] pile {int(s[E.H_NPILE])} cards"]
    for q in range(p):
        out.append(f"    seat {q} hand: {_cards(s[E.HAND + q * E.NK: E.HAND + (q + 1) * E.NK])}")
        out.append(f"    seat {q} zoo:  {_zoo(s, q)}")
    return out
