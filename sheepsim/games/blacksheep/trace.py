"""Bye-Bye Black Sheep: the trace text of one game (the GameSpec's `trace`).

`_replay` plays the game and returns its decision log; everything below it only
reads that log and the states it leads to (`_states`: the kernel's own `deal` and
`step`, as `to_dict` data), so the text is what the engine did.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from ...rng import streams
from .. import driver, wrappers as W
from . import engine as E
from . import play as P
from . import policies as POL
from . import rules as R
from ..tracetext import ordinal, per_seat, plural, rules_lines, seats
from .model import (ANIMAL, BLACK, DECISION_NAMES, DRAW_FROM, EAGLE_ASK, EAGLE_SKIP, JOKER, KIND_NAMES, MAGPIE_NONE,
                    MAGPIE_TAKE, MOLE_NONE, MOLE_TAKE, MOTHER_SKIP, MOTHER_TAKE, OVER, PLACE, PLACE_DONE, SETUP,
                    STOP, WHITE_NONE, WHITE_PLACE, WOLF)


# --- replay: play the game again, keeping its decision log ----------------------------

def _replay(rules, specs, seed: int, game: int, rotate: bool):
    """(rules array, streams, seat slots, log, row) of game `game` as the runner plays
    it; log rows are (actor, code, a, b, chance)."""
    arr = R.to_array(rules)
    log, row, slots, rngs = W.replay(P.KERNELS, arr, np.zeros(1, dtype=np.int32), specs, rotate, seed, game)
    return arr, rngs, slots, log, row



# --- states ------------------------------------------------------------------------------

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


def known(s: np.ndarray) -> list:
    """What each seat knows of each hand (KNOWN[o][p][k], engine.py), as nested lists:
    the reference engine's `Game.known`."""
    p = int(s[E.H_PLAYERS])
    return [[[int(x) for x in s[E.KNOWN + (o * E.MAX_PLAYERS + q) * E.NK:][:E.NK]] for q in range(p)]
            for o in range(p)]


def _states(arr, seed: int, game: int, log) -> list[dict[str, Any]]:
    """The deal, then the state after every logged decision: the kernel's own deal
    (stream 0) and step with the logged chance outcomes."""
    s = np.empty(E.STATE_SIZE, dtype=np.int32)
    E.deal(s, arr, streams(seed, game, P.ENGINE.shape.streams)[0])
    states = [to_dict(s)]
    for _, code, a, b, chance in log:
        E.apply(s, arr, int(code), int(a), int(b), int(chance))
        states.append(to_dict(s))
    return states


def turn_number(before: dict) -> int:
    """The turn (counted from 1) a decision is taken in, read off the state before it.
    Every turn number in the text comes from here, the last one included: a won game
    ends inside its turn, so the game's `turns` result column (completed turns) is
    not used for the text."""
    return before["turn"] + 1


# --- the text ----------------------------------------------------------------------------

class _Table:
    """What the text needs to know about the game being traced."""

    def __init__(self, rules):
        self.rules = rules
        self.p = rules.num_players
        setup = SETUP[self.p]
        self.species = setup["species"]
        self.hand_limit = rules["hand_limit"] or setup["hand_limit"]
        self.to_win = rules["triplets_to_win"] or setup["triplets"]


def _names(kinds) -> str:
    return ", ".join(KIND_NAMES[k] for k in kinds)


def _cards(counts) -> str:
    parts = [f"{c}x {KIND_NAMES[k]}" if c > 1 else KIND_NAMES[k] for k, c in enumerate(counts) if c]
    return ", ".join(parts) or "-"


def _count(d: dict, q: int, sp: int) -> int:
    """Cards of species sp in q's zoo, a Joker bound to it included."""
    return d["zoos"][q][ANIMAL + sp - 1] + (d["joker_species"][q] == sp)


def _triplets(d: dict, q: int, t: _Table) -> int:
    return sum(_count(d, q, sp) >= 3 for sp in range(1, t.species + 1))


def _zoo(d: dict, q: int, t: _Table) -> str:
    """species:cards per species, e.g. `8:2`; the Joker with the species it is bound to
    (`8:2+Joker`, or `8:Joker` alone)."""
    row = d["zoos"][q]
    joker = d["joker_species"][q] if row[JOKER] else 0
    groups = []
    for sp in range(1, t.species + 1):
        c = row[ANIMAL + sp - 1]
        if c or sp == joker:
            groups.append(f"{sp}:" + "+".join(([str(c)] if c else []) + (["Joker"] if sp == joker else [])))
    return (" ".join(groups) or "empty") + f"  ({plural(_triplets(d, q, t), 'triplet')})"


def _hands(d: dict, t: _Table, title: str) -> list[str]:
    magpie = ("the Magpie is in play" if d["magpie_in_play"] else
              "the Magpie lies beside the draw pile (not in play yet)")
    out = [f"  {title}: draw pile {plural(len(d['pile']), 'card')}; {magpie}"]
    for q in range(t.p):
        out.append(f"    seat {q} hand: {_cards(d['hands'][q])}")
        out.append(f"    seat {q} zoo:  {_zoo(d, q, t)}")
    return out


def _takes_table(seat: int, table: list[int], other: bool = False) -> str:
    n = len(table)
    what = ("the other card" if n == 1 else f"the other {n} cards") if other else (
        "the card" if n == 1 else f"the {n} cards")
    return f"seat {seat} takes {what} at the watering hole into hand ({_names(table)})"


def _allowance(before: dict, after: dict, table: list[int], t: _Table) -> str:
    """The zoo placement allowance N - 2 of a stop or failed Eagle (option zoo_limit_basis)."""
    if t.rules["zoo_limit_basis"] == "table_cards":
        n = len(table)
        what = "card taken" if n == 1 else "cards taken"
    else:
        n = before["draws"]
        what = ("blind draw" if n == 1 else "blind draws") + " this turn"
    assert after["limit"] == max(0, n - 2), "the allowance differs from the engine's"
    if n <= 2:
        return f"; N = {n} {what}, so no card may go to the zoo"
    return f"; N = {n} {what}, so up to N - 2 = {n - 2} may go to the zoo"


def _placement(before: dict, after: dict, placer: int, kind: int, sp: int, chance: int, t: _Table) -> str:
    """What a placement did beyond the card moving: the Magpie entering, a triplet, a win."""
    out = ""
    if after["magpie_in_play"] and not before["magpie_in_play"]:
        others = [q for q in range(t.p) if q != placer and before["zoos"][q][kind]]
        why = (f"{KIND_NAMES[kind]} is also in {seats(others)}'s zoo" if others else
               f"{KIND_NAMES[kind]} is the 3rd species in seat {placer}'s zoo")
        if t.rules["magpie_entry"] == "trigger_hand":
            where = f"goes into seat {placer}'s hand"
        else:
            where = ("is shuffled into the draw pile, " +
                     ("on top" if chance == 0 else f"under {plural(chance, 'card')}"))
        out += f"; the Magpie enters play ({why}) and {where}"
    species = sp if kind == JOKER else kind - ANIMAL + 1
    if _count(before, placer, species) == 2:
        n = _triplets(after, placer, t)
        if after["winner"] == placer and after["phase"] == OVER:
            out += f": it completes seat {placer}'s {ordinal(n)} triplet of the {t.to_win} needed, seat {placer} wins"
        else:
            out += f": it completes a triplet of animal {species} (seat {placer} has {n} of the {t.to_win} needed)"
    return out


def _end_of_turn(before: dict, after: dict, code: int, chance: int, t: _Table) -> list[str]:
    """The end of a turn: Wolf cards back to their owner, then the refill (or the other
    way round, option wolf_return), read off the states around the step that ended it."""
    a = before["active"]
    aside = {q: row for q, row in enumerate(before["set_aside"]) if any(row)}
    back = [f"    seat {q} takes back the cards the Wolf set aside: {_cards(row)}" for q, row in aside.items()]
    # refill = hand growth minus what the step itself moved into hands
    got = []
    for q in range(t.p):
        grew = sum(after["hands"][q]) - sum(before["hands"][q]) - sum(before["set_aside"][q])
        if code == DRAW_FROM and chance == BLACK and q == a:
            grew -= len(before["table"])        # the other table cards went into the drawer's hand
        got.append(grew)
    order = [(a + k) % t.p for k in range(1, t.p)] + ([a] if t.rules["refill"] == "all" else [])
    assert sum(got) == len(before["pile"]) - len(after["pile"]) and all(got[q] == 0 for q in range(t.p)
                                                                        if q not in order), "refill misread"
    who = "no hand" if t.rules["refill"] == "all" else "no other hand"
    if not before["pile"]:
        refill = "    refill: the draw pile is empty, so nobody draws"
    elif not any(got):
        refill = f"    refill: {who} is below {t.hand_limit} cards, so nobody draws"
    else:
        drawn, at = [], 0
        for q in order:
            if got[q]:
                drawn.append(f"seat {q} draws {got[q]} ({_names(before['pile'][at:at + got[q]])})")
                at += got[q]
        left = f"{plural(len(after['pile']), 'card')} left" if after["pile"] else "the draw pile is now empty"
        refill = (f"    refill to {t.hand_limit} cards, clockwise from seat {order[0]}: {', '.join(drawn)}; "
                  f"{left}")
    return back + [refill] if t.rules["wolf_return"] == "before_refill" else [refill] + back


def describe(before: dict, after: dict, code: int, a: int, b: int, chance: int, t: _Table) -> str:
    """One decision in words, with what it did (read off the states around it)."""
    active = before["active"]
    table = before["table"]
    if code == DRAW_FROM:
        text = f"draws blindly from seat {a}: {KIND_NAMES[chance]}"
        if chance == BLACK:
            rest = ("nothing else lay at the watering hole" if not table else
                    _takes_table(active, table, other=True))
            return f"{text}: it goes back to seat {a}; {rest}; no zoo placement, the turn ends"
        if chance == WOLF:
            if not table:
                return f"{text}: nothing else lies at the watering hole for seat {a} to set aside"
            what = "the other card" if len(table) == 1 else f"the other {len(table)} cards"
            return (f"{text}: seat {a} sets aside {what} at the watering hole ({_names(table)}) until the end "
                    f"of the turn; the Wolf stays at the watering hole")
        return text
    if code == STOP:
        text = "stops before drawing" if before["draws"] == 0 else "stops"
        text += (": " + _takes_table(active, table)) if table else "; nothing lies at the watering hole"
        return text + _allowance(before, after, table, t)
    if code == EAGLE_SKIP:
        return "Eagle: asks nobody; the Eagle stays at the watering hole"
    if code == EAGLE_ASK:
        text = f"Eagle: asks seat {a} for an animal {b}"
        if len(after["table"]) > len(table):
            if after["table"][-1] == JOKER:
                return f"{text}: seat {a} has none and hands over the Joker (eagle_accepts_joker=yes)"
            return f"{text}: seat {a} hands one over to the watering hole"
        return (f"{text}: seat {a} has none, so the Eagle fails: " + _takes_table(active, table)
                + _allowance(before, after, table, t))
    if code in (MOLE_NONE, MOLE_TAKE):
        src = before["source"]
        if code == MOLE_TAKE:
            return f"Mole: looks at seat {src}'s hand and takes {KIND_NAMES[a]} to the watering hole"
        animals = any(before["hands"][src][ANIMAL:]) or (
            before["hands"][src][JOKER] and t.rules["mole_can_take_joker"] == "yes")
        return f"Mole: looks at seat {src}'s hand and takes nothing" + ("" if animals else " (no animal card in it)")
    if code == MAGPIE_NONE:
        def takeable(q, k):     # option magpie_can_break_triplet
            sp = before["joker_species"][q] if k == JOKER else k - ANIMAL + 1
            return t.rules["magpie_can_break_triplet"] == "yes" or _count(before, q, sp) < 3
        cards = [(q, k) for q in range(t.p) if q != active for k in range(JOKER, len(KIND_NAMES))
                 if before["zoos"][q][k]]
        why = ("" if any(takeable(q, k) for q, k in cards) else " (their zoos are empty)" if not cards else
               " (every card in their zoos is in a triplet, magpie_can_break_triplet=no)")
        return "Magpie: takes no card from an opponent's zoo" + why
    if code == MAGPIE_TAKE:
        sp = before["joker_species"][a] if b == JOKER else b - ANIMAL + 1
        what = f"the Joker (bound to species {sp})" if b == JOKER else KIND_NAMES[b]
        broken = f", breaking seat {a}'s triplet of animal {sp}" if _count(before, a, sp) == 3 else ""
        return f"Magpie: takes {what} from seat {a}'s zoo to the watering hole{broken}"
    if code == WHITE_NONE:
        return "White Sheep (drawn from this seat): moves no card from hand to own zoo"
    if code in (PLACE, WHITE_PLACE):
        placer = before["actor"]
        what = f"the Joker as species {b}" if a == JOKER else KIND_NAMES[a]
        if code == WHITE_PLACE:
            text = f"White Sheep (drawn from this seat): moves {what} from hand to own zoo (no N - 2 limit)"
        else:
            text = f"places {what} in the zoo ({before['placed'] + 1} of up to {before['limit']})"
        return text + _placement(before, after, placer, a, b, chance, t)
    if code == MOTHER_SKIP:
        return "Mother Sheep: leaves the draw pile alone" + ("" if before["pile"] else " (it is empty)")
    if code == MOTHER_TAKE:
        return ("Mother Sheep: turns the top card of the draw pile up at the watering hole: "
                + KIND_NAMES[after["table"][-1]])
    assert code == PLACE_DONE
    placed, limit = before["placed"], before["limit"]
    if limit == 0:
        return "may place no card; the turn ends"
    if placed == 0:
        return f"places no card (up to {limit} allowed); the turn ends"
    if placed == limit:
        return f"has placed {'the card' if limit == 1 else f'the {limit} cards'} allowed; the turn ends"
    return f"places no more cards ({placed} of up to {limit}); the turn ends"


def _header(rules, specs, seed: int, game: int, slots, t: _Table) -> list[str]:
    lines = [f"Bye-Bye Black Sheep game {game} of seed {seed}: {t.p} players, {t.to_win} triplets to win, "
             f"hand limit {t.hand_limit}, species 1-{t.species}"]
    by_count = {name: f"by player count: {value}" for name, value in
                (("hand_limit", t.hand_limit), ("triplets_to_win", t.to_win)) if rules[name] == 0}
    lines += rules_lines(rules, R.OPTIONS, resolved=by_count)
    lines.append("seats: " + ", ".join(f"seat {q} ({specs[int(slots[q])].label})" for q in range(t.p)))
    joker = "; 8:2+Joker = two animal 8 and the Joker bound to species 8" if rules["joker"] == "on" else ""
    lines += ["This view shows every hand, the hidden ones included (a player sees only their own). Drawn cards",
              "lie face up at the watering hole until the turn ends. A zoo reads species:cards, e.g. 8:2 = two",
              f"cards of animal 8{joker}."]
    return lines


def _ending(last: dict, final: dict, result: dict, t: _Table) -> str:
    turn = turn_number(last)
    triplets = per_seat(result["triplets"], "triplet")
    if final["capped"]:
        cap = f"the turn cap (turn_cap={t.rules['turn_cap']}) stops the game after turn {turn}"
        if t.rules["cap_resolution"] == "draw":
            return f"Capped: {cap}: a draw; {triplets}"
        zoo = per_seat([sum(z) for z in final["zoos"]], "zoo card")
        won = (f"seat {final['winner']} wins on most triplets, then most zoo cards" if final["winner"] >= 0 else
               "a draw, tied on most triplets and then on most zoo cards")
        return f"Capped: {cap} (cap_resolution=most_triplets): {won}; {triplets}; {zoo}"
    return f"seat {final['winner']} wins in turn {turn} with {t.to_win} triplets; {triplets}"


def trace(rules, specs, seed: int, game: int, rotate: bool, init, as_json: bool, deck_file=None) -> str:
    """Every decision with its luck and what it did; hands, zoos and the pile after every turn."""
    arr, rngs, slots, log, row = _replay(rules, specs, seed, game, rotate)
    states = _states(arr, seed, game, log)
    t = _Table(rules)
    p = t.p
    result = {"winner": int(row[E.O_WINNER]), "capped": bool(row[E.O_CAPPED]), "turns": int(row[E.O_TURNS]),
              "triplets": [int(row[E.O_TRIPLETS + q]) for q in range(p)]}
    if as_json:
        events: list[dict[str, Any]] = [{"event": "deal", "state": states[0]}]
        for (seat, code, a, b, chance), after in zip(log, states[1:]):
            events.append({"event": DECISION_NAMES[code], "seat": int(seat), "decision": [int(code), int(a), int(b)],
                           "chance": int(chance), "state": after})
        events.append({"event": "end", "result": result})
        return json.dumps(events)
    lines = _header(rules, specs, seed, game, slots, t) + _hands(states[0], t, "the deal")
    for (seat, code, a, b, chance), before, after in zip(log, states, states[1:]):
        code, a, b, chance = int(code), int(a), int(b), int(chance)
        lines.append(f"  turn {turn_number(before)} seat {seat}: {describe(before, after, code, a, b, chance, t)}")
        if after["turn"] != before["turn"]:
            lines += _end_of_turn(before, after, code, chance, t)
        if after["turn"] != before["turn"] or after["phase"] == OVER:
            title = "at the end" if after["phase"] == OVER else f"after turn {turn_number(before)}"
            lines += _hands(after, t, title)
    lines.append(_ending(states[-2], states[-1], result, t))
    return "\n".join(lines)
