"""Bye-Bye Black Sheep: the public wrapper (validate and convert in Python, compute in kernels)."""

from __future__ import annotations

import json
import random
from typing import Any

import numpy as np
import pandas as pd

from ...policies import PolicySpec, register_policy
from ...rng import streams
from .. import kernels as K
from ..base import GameSpec
from . import engine as E
from . import play as P
from . import policies as POL
from . import rules as R
from .model import DECISION_NAMES, KIND_NAMES, PHASE_NAMES, species_of

register_policy("blacksheep", "random", policy_id=POL.RANDOM,
                doc="uniform over the legal decisions at every decision point (draw from each opponent or "
                    "stop; every Eagle request or skip; every Mole/Magpie take or none; every placement or "
                    "done)")(POL.random_policy)
register_policy("blacksheep", "threshold", policy_id=POL.THRESHOLD,
                params={"k": (3.0, "stop once k cards lie on the table", 0.0, 40.0)},
                doc="draws from the opponent with the largest hand until k cards lie on the table, then "
                    "stops; effects and placement as described in `play_special` (Eagle: ask for the most "
                    "wanted species an opponent is known to hold; Mole: take the most wanted card; Magpie: "
                    "take the most valuable zoo card; place the species closest to a triplet)")(POL.threshold)
register_policy("blacksheep", "risk", policy_id=POL.RISK,
                params={"p": (0.25, "stop when the next draw is a Black Sheep with probability above p", 0.0, 1.0),
                        "w": (0.0, "if > 0, also stop when (1 - q) < q * w * placements a stop allows now",
                              0.0, 100.0)},
                doc="draws from the largest hand (Black Sheep chance q = 1 / its size) and stops when q > p "
                    "or, with w > 0, when drawing has negative value; effects and placement as `threshold`"
                )(POL.risk)


def initial_state(rules, position: dict | None = None) -> np.ndarray:
    """Every game is dealt from its own stream; the kernel needs no start state."""
    return np.zeros(1, dtype=np.int32)


def play_chunk(rules_arr, init, specs: list[PolicySpec], rotate: bool, seed: int, first: int, n: int) -> np.ndarray:
    return K.play_chunk(P, rules_arr, init, specs, rotate, seed, first, n)


def frame(rows: np.ndarray, rules, specs: list[PolicySpec], seed: int, first: int) -> pd.DataFrame:
    """Per-game results: the generic columns (score_s = triplets) plus draws,
    decisions and zoo sizes."""
    return K.frame(rows, specs, seed, first, rules.num_players, E.O_ROTATION,
                   {"winner": (E.O_WINNER, np.int8), "cowinners": (E.O_COWINNERS, np.int8),
                    "turns": (E.O_TURNS, np.int32), "capped": (E.O_CAPPED, bool), "draws": (E.O_DRAWS, np.int32),
                    "decisions": (E.O_DECISIONS, np.int32)},
                   {"score": (E.O_TRIPLETS, np.int8), "zoo": (E.O_ZOO, np.int8)})


def _replay(rules, specs, seed: int, game: int, rotate: bool):
    """(rules array, streams, seat slots, log, row) of game `game` as the runner plays
    it; log rows are (actor, code, a, b, chance)."""
    arr = R.to_array(rules)
    log, row, slots, rngs = K.replay(P, arr, initial_state(rules), specs, rotate, seed, game)
    return arr, rngs, slots, log, row


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
    E.deal(s, arr, rngs[0])
    p = rules.num_players
    events: list[dict[str, Any]] = [{"event": "deal", "state": to_dict(s)}]
    lines = [f"Bye-Bye Black Sheep game {game} of seed {seed}, {p} players, rules {rules.to_json()}",
             "seats: " + ", ".join(f"seat {t} ({specs[int(slots[t])].label})" for t in range(p))]
    lines += _hands(s, p)
    for seat, code, a, b, chance in log:
        turn = int(s[E.H_TURN])
        before = to_dict(s)
        E.apply(s, arr, int(code), int(a), int(b), int(chance))
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


def reference_bench(rules, n_games: int, seed: int, policy: str = "threshold:k=6") -> float:
    """Games/s of the reference engine with every seat on the threshold stop rule.

    The reference has no port of `play_special`: it stops and draws like `threshold`
    and places the species closest to a triplet, but declines the Eagle, Mole and
    Magpie (a comparable workload, stated in the bench output)."""
    from . import reference as ref
    from .model import DRAW, DRAW_FROM, MOTHER_TAKE, PLACE, PLACE_PHASE, STOP
    k = float(policy.partition("k=")[2] or 3)
    ref_rules = ref.Rules(**_reference_options(rules.as_dict()))
    rng = random.Random(seed)

    def decide(g):
        legal = ref.legal_decisions(g)
        d = ref.to_dict(g)
        if d["phase"] == DRAW:
            if len(d["table"]) >= k and legal[0][0] == STOP:
                return legal[0]
            sizes = [(sum(h), rng.random(), o) for o, h in enumerate(d["hands"]) if o != d["active"]]
            return (DRAW_FROM, max(sizes)[2], 0)
        if d["phase"] == PLACE_PHASE:
            places = [x for x in legal if x[0] == PLACE and x[1] >= 8]
            if places:
                zoo = d["zoos"][d["active"]]
                return max(places, key=lambda x: (zoo[x[1]] if zoo[x[1]] < 3 else -1, rng.random()))
        take = [x for x in legal if x[0] == MOTHER_TAKE]
        return take[0] if take else legal[0]

    def play_one():
        g = ref.deal(ref_rules, rng)
        while not ref.is_over(g):
            decision = decide(g)
            g = ref.apply(g, decision, ref.random_chance(g, decision, rng))

    return K.games_per_second(n_games, play_one)


def _reference_options(opts: dict[str, Any]) -> dict[str, Any]:
    yes = {"yes": True, "no": False, "on": True, "off": False}
    out = {}
    for k, v in opts.items():
        if k == "zoo_max_per_species":
            out[k] = 0 if v == "none" else 3
        elif isinstance(v, str) and v in yes:
            out[k] = yes[v]
        else:
            out[k] = v
    return out


GAME = GameSpec(
    name="blacksheep", title="Bye-Bye Black Sheep", version=E.VERSION, players=R.PLAYERS, options=R.OPTIONS,
    turn_unit="turns", make_rules=R.make, to_array=R.to_array, initial_state=initial_state,
    play_chunk=play_chunk, frame=frame, trace=trace, reference_bench=reference_bench,
    bench_players=3, bench_policy="threshold:k=6",
    bench_workload="complete games (reference: same stop rule and placement, Eagle/Mole/Magpie declined)",
)
