"""Hiboufou: the public wrapper (validate and convert in Python, compute in kernels).

No component list of the real game was found: the default deck (6 colours, every pair
of colours 4 times, 60 cards) is an ASSUMPTION (RULES-DOSSIER Part A), and the deck
options exist so designers can explore others.
"""

from __future__ import annotations

import json
import random
from typing import Any

import numpy as np
import pandas as pd

from ...errors import SheepsimError
from ...policies import PolicySpec, register_policy
from ...rng import streams
from .. import kernels as K
from ..base import GameSpec
from . import engine as E
from . import play as P
from . import policies as POL
from . import reference
from . import rules as R
from .model import DECISION_NAMES, SPACE_NAMES, card_name

register_policy("hiboufou", "random", policy_id=POL.RANDOM,
                doc="uniform over the legal decisions (lay a card on a space, end the turn, or draw when "
                    "nothing can be laid) at every decision point")(POL.random_policy)
register_policy("hiboufou", "greedy", policy_id=POL.GREEDY,
                doc="searches the laying sequences that empty the hand this turn and captures the biggest "
                    "pile it can; otherwise keeps laying on the lowest pile while holding more than 3 cards, "
                    "else ends the turn")(POL.greedy)
register_policy("hiboufou", "defensive", policy_id=POL.DEFENSIVE,
                doc="captures like greedy when it can; otherwise picks the move that leaves the smallest "
                    "biggest pile for the next player (ties: end the turn, then the first legal play)"
                )(POL.defensive)


def initial_state(rules, position: dict | None = None) -> np.ndarray:
    """The deck (colour masks by card id): every game is dealt from it."""
    return R.deck_array(rules)


def play_chunk(rules_arr, deck, specs: list[PolicySpec], rotate: bool, seed: int, first: int, n: int) -> np.ndarray:
    if K.user_policies(specs):
        raise SheepsimError("user policies are not supported for hiboufou yet; built-in policies: "
                            "random, greedy, defensive")
    return K.play_chunk(P, POL.choose, E.O_SIZE, rules_arr, deck, specs, rotate, seed, first, n)


def frame(rows: np.ndarray, rules, specs: list[PolicySpec], seed: int, first: int) -> pd.DataFrame:
    """Per-game results: the generic columns (score_s = captured cards) plus forced
    draws (`stuck`) and decisions."""
    return K.frame(rows, specs, seed, first, rules.num_players, E.O_ROTATION,
                   {"winner": (E.O_WINNER, np.int8), "cowinners": (E.O_COWINNERS, np.int8),
                    "turns": (E.O_TURNS, np.int32), "capped": (E.O_CAPPED, bool), "stuck": (E.O_STUCK, np.int32),
                    "decisions": (E.O_DECISIONS, np.int32)},
                   {"score": (E.O_CAPTURES, np.int16)})


def trace(rules, specs, seed: int, game: int, rotate: bool, deck, as_json: bool) -> str:
    """Every decision, with the three spaces and the hands after every turn."""
    if K.user_policies(specs):
        raise SheepsimError("user policies are not supported for hiboufou yet")
    arr = R.to_array(rules)
    p = rules.num_players
    rngs = streams(seed, game, P.N_STREAMS)
    slots = K.seat_slots(game, p, rotate, E.MAX_PLAYERS)
    ids, params = K.policy_arrays(specs)
    log = np.full((100_000, 4), -9, dtype=np.int32)
    row = np.zeros(E.O_SIZE, dtype=np.int32)
    P.replay(arr, deck, ids, params, slots, rngs, row, log)
    log = log[log[:, 0] != -9]
    s = np.empty(E.STATE_SIZE, dtype=np.int32)
    E.deal(s, arr, deck, streams(seed, game, P.N_STREAMS)[0])
    name = {c: card_name(int(m)) for c, m in enumerate(deck)}
    events: list[dict[str, Any]] = [{"event": "deal", "state": E.to_dict(s)}]
    lines = [f"Hiboufou game {game} of seed {seed}, {p} players, {len(deck)} cards (deck: assumption unless "
             f"given), rules {rules.to_json()}",
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


def reference_bench(rules, n_games: int, seed: int, policy: str = "random") -> float:
    """Games/s of the reference engine, every seat on the uniform random policy."""
    ref_rules = R.reference_rules(rules)
    rng = random.Random(seed)
    return K.games_per_second(n_games, lambda: reference.play_random_game(ref_rules, rng))


GAME = GameSpec(
    name="hiboufou", title="Hiboufou", version=E.VERSION, players=R.PLAYERS, options=R.OPTIONS,
    turn_unit="turns", make_rules=R.make, to_array=R.to_array, initial_state=initial_state,
    play_chunk=play_chunk, frame=frame, trace=trace, reference_bench=reference_bench,
    bench_players=3, bench_workload="uniform random policy, complete games (deck: the assumed default)",
)
