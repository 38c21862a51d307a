"""Bobby Sitter: the trace text of one game (DESIGN 2, `trace`).

`_replay` plays the game and returns its flip log; everything below it only reads
that log and the states it leads to.
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
from .model import CLASS_NAMES, GRAB_NAMES, MAX_PLAYERS, NONE, card_name


# --- replay: play the game again, keeping its flip log ---------------------------------

def _replay(rules, specs, seed: int, game: int, rotate: bool, deck):
    arr = R.to_array(rules)
    slots = K.seat_slots(game, rules.num_players, rotate, MAX_PLAYERS)
    ids, params = K.policy_arrays(specs)
    size = 4096
    while True:
        log = np.full((size, P.LOG_COLS), -1, dtype=np.int32)
        log_times = np.zeros((size, MAX_PLAYERS))
        row = np.zeros(E.O_SIZE, dtype=np.int32)
        rngs = streams(seed, game, P.N_STREAMS)
        if K.user_policies(specs):
            s = np.empty(E.STATE_SIZE, dtype=np.int32)
            scratch = np.zeros(MAX_PLAYERS, dtype=np.int32)
            flips = P.play_game(K.chooser(POL.choose, specs), arr, deck, ids, params, slots, rngs, s, scratch,
                                np.zeros(MAX_PLAYERS), np.zeros(MAX_PLAYERS, dtype=np.int32), row, log, log_times)
        else:
            flips = P.replay(arr, deck, ids, params, slots, rngs, row, log, log_times)
        if flips <= size:
            return arr, slots, log[:flips], log_times[:flips], row
        size = int(flips)


# --- the text ----------------------------------------------------------------------------

def trace(rules, specs, seed: int, game: int, rotate: bool, deck, as_json: bool, deck_file=None) -> str:
    """Every flip: the card, who reacted, how and when, what it cost, tokens after."""
    arr, slots, log, log_times, row = _replay(rules, specs, seed, game, rotate, deck)
    p = rules.num_players
    per_player = rules["stack_mode"] == "per_player"
    # step the kernel from Python with the game's own deck stream (only setup and
    # reshuffles draw from it) and the logged reactions
    deck_rng = streams(seed, game, P.N_STREAMS)[P.DECK_STREAM]
    s = np.empty(E.STATE_SIZE, dtype=np.int32)
    E.setup(s, arr, deck, deck_rng, slots)
    events: list[dict[str, Any]] = [{"event": "setup", "state": E.to_dict(s, p, per_player)}]
    label = {q: specs[int(slots[q])].label for q in range(p)}
    lines = [f"Bobby Sitter game {game} of seed {seed}, {p} players, {len(deck)} cards (deck and profiles: "
             f"assumptions unless given), rules {rules.to_json()}",
             "seats: " + ", ".join(f"seat {q} ({label[q]}, {int(s[E.TOKENS + q])} tokens)" for q in range(p))]
    grab = np.zeros(MAX_PLAYERS, dtype=np.int32)
    loss = np.zeros(MAX_PLAYERS, dtype=np.int32)
    for t, (flipper, card, _, *grabs) in enumerate(log):
        before = E.to_dict(s, p, per_player)
        drawn = E.draw_card(s, arr, deck_rng)
        assert drawn == card, "trace replay diverged from the game"
        code = int(deck[card])
        grab[:] = grabs
        times = log_times[t].copy()
        E.resolve(s, arr, code, grab, times, loss)
        after = E.to_dict(s, p, per_player)
        reactions = {q: [int(grabs[q]), round(float(times[q]), 3)] for q in range(p)
                     if before["active"][q] and grabs[q] != NONE}
        events.append({"event": "flip", "flipper": int(flipper), "card": int(card),
                       "class": CLASS_NAMES[code & 3], "reshuffled": after["reshuffles"] > before["reshuffles"],
                       "reactions": reactions, "state": after})
        lines.append(_flip_line(t, int(flipper), card, code, rules, reactions, before, after))
    result = {"winner": int(row[E.O_WINNER]), "flips": int(row[E.O_TURNS]), "capped": bool(row[E.O_CAPPED]),
              "tokens": [int(row[E.O_TOKENS + q]) for q in range(p)]}
    events.append({"event": "end", "result": result})
    if as_json:
        return json.dumps(events)
    end = "a draw" if result["winner"] < 0 else f"seat {result['winner']} wins"
    lines.append(f"{end} after {result['flips']} flips{' (flip cap)' if result['capped'] else ''}; "
                 f"tokens {result['tokens']}")
    return "\n".join(lines)


def _flip_line(t: int, flipper: int, card: int, code: int, rules, reactions: dict, before: dict,
               after: dict) -> str:
    cls = code & 3
    shown = card_name((code >> 2, cls == 0, cls == 3))
    call = ("everyone grabs a BOBBY", "everyone grabs the SHEEP", "nobody may react", "nobody may react")[cls]
    head = (f"flip {t + 1}: seat {flipper} flips card {card}, {shown}: {call}"
            + ("  [reshuffled]" if after["reshuffles"] > before["reshuffles"] else ""))
    order = sorted(reactions, key=lambda q: (reactions[q][1], (q - flipper) % rules.num_players))
    said = [f"seat {q} {GRAB_NAMES[reactions[q][0]]} {reactions[q][1]:.0f} ms" for q in order]
    changes = []
    for q in range(rules.num_players):
        d = after["tokens"][q] - before["tokens"][q]
        if d:
            changes.append(f"seat {q} {d:+d}")
        if before["active"][q] and not after["active"][q]:
            changes.append(f"seat {q} eliminated")
    return (f"{head}\n    reactions: {', '.join(said) or 'none'}; {', '.join(changes) or 'no change'}; "
            f"tokens {after['tokens']}, stock {after['stock']}, BOBBY counters {after['bobby_counters']}")
