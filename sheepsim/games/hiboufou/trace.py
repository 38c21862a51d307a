"""Hiboufou: the trace text of one game (the GameSpec's `trace`).

`_replay` plays the game and returns its decision log; everything below it only
reads that log and the states it leads to (`_states`: the kernel's own `deal` and
`step`, as `engine.to_dict` data), so the text is what the engine did.
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
from .model import DECISION_NAMES, DRAW, HAND_SIZE, MAX_PER_TURN, PLAY, SPACE_NAMES, card_name


# --- replay: play the game again, keeping its decision log ----------------------------

def _replay(rules, specs, seed: int, game: int, rotate: bool, deck):
    """(rules array, seat slots, log, row) of game `game` as the runner plays it; log
    rows are (actor, code, a, b): no decision has luck."""
    arr = R.to_array(rules)
    log, row, slots, _ = W.replay(P.KERNELS, arr, deck, specs, rotate, seed, game)
    return arr, slots, log[:, :4], row



# --- states ------------------------------------------------------------------------------

def _states(arr, deck, seed: int, game: int, log) -> list[dict[str, Any]]:
    """The deal, then the state after every logged decision (kernel deal and step)."""
    s = np.empty(E.STATE_SIZE, dtype=np.int32)
    E.deal(s, arr, deck, streams(seed, game, P.ENGINE.shape.streams)[0])
    states = [E.to_dict(s)]
    for _, code, a, b in log:
        E.apply(s, arr, deck, int(code), int(a), int(b))
        states.append(E.to_dict(s))
    return states


def turn_number(before: dict) -> int:
    """The turn (counted from 1) a decision is taken in, read off the state before it;
    every turn number in the text comes from here."""
    return before["turn"] + 1


# --- the text ----------------------------------------------------------------------------

DECK_OPTIONS = ("colours", "colours_per_card", "copies")


def _row(d: dict, name: dict) -> str:
    return "  ".join("[" + (f"{name[pile[-1]]} x{len(pile)}" if pile else "empty") + "]" for pile in d["row"])


def _table(d: dict, name: dict, title: str) -> list[str]:
    out = [f"  {title}: row {_row(d, name)}; draw pile {plural(len(d['pile']), 'card')}"]
    for q, hand in enumerate(d["hands"]):
        out.append(f"    seat {q} hand: {', '.join(name[c] for c in hand) or '-'}; captured {len(d['captured'][q])}")
    return out


def describe(before: dict, after: dict, seat: int, code: int, a: int, b: int, name: dict, rules) -> str:
    """One decision in words, with what it did (read off the states around it)."""
    if code == PLAY:
        text = f"lays {name[a]} on the {SPACE_NAMES[b]} space"
        won = len(after["captured"][seat]) - len(before["captured"][seat])
        if won:
            how = (f"its {ordinal(MAX_PER_TURN)} card this turn, its hand empty" if rules["capture_condition"] ==
                   "played3_and_empty" else "its hand empty")
            return f"{text}, {how}: seat {seat} wins the {SPACE_NAMES[b]} pile, {plural(won, 'card')}"
        if before["laid"] + 1 == MAX_PER_TURN:
            return f"{text}, its {ordinal(MAX_PER_TURN)} card: the turn ends"
        return text
    if code == DRAW:
        if not before["pile"]:
            return "cannot lay a card and the draw pile is empty: passes"
        text = f"cannot lay a card and draws {name[before['pile'][0]]}"
        if after["turn"] == before["turn"]:
            return text + "; it may lay cards now (play_after_forced_draw=yes)"
        return text + "; the turn ends"
    return "ends the turn"


def _refill(before: dict, after: dict, seat: int, code: int, name: dict) -> list[str]:
    """The draw back up to 3 cards at the end of a turn that laid cards (none after a
    forced draw)."""
    if code == DRAW:
        return []
    held = len(before["hands"][seat]) - (code == PLAY)
    got = len(after["hands"][seat]) - held
    drawn = ", ".join(name[c] for c in before["pile"][:got])
    if got and held + got >= HAND_SIZE:
        return [f"    seat {seat} draws back up to {HAND_SIZE} cards: {drawn}"]
    if got:
        return [f"    seat {seat} draws {drawn}; the draw pile is now empty, so it holds {plural(held + got, 'card')}"]
    if held < HAND_SIZE:
        return [f"    the draw pile is empty: seat {seat} draws nothing and holds {plural(held, 'card')}"]
    return []


def _result(final: dict, last_turn: int, row: np.ndarray, rules) -> list[str]:
    p = rules.num_players
    captured = [len(c) for c in final["captured"]]
    if final["turn"] == 0:
        why = "the draw pile is empty and nobody can lay a card before the first turn"
    elif bool(row[E.O_CAPPED]):
        why = (f"the turn cap (turn_cap={rules['turn_cap']}) stops the game after turn {last_turn}; it is scored "
               f"as usual")
    else:
        why = f"the draw pile is empty and nobody can lay a card: the game ends after turn {last_turn}"
    best = max(captured)
    tied = [q for q in range(p) if captured[q] == best]
    winners = [q for q in range(p) if row[E.O_COWINNERS] >> q & 1]
    if len(tied) == 1:
        who = f"seat {tied[0]} wins with {plural(best, 'captured card')}"
    elif winners == tied:
        who = f"{seats(tied)} share the win with {plural(best, 'captured card')} each"
    else:       # option tiebreak decided among the tied seats
        who = f"{seats(tied)} tie with {plural(best, 'captured card')} each; "
        if rules["tiebreak"] == "fewest_cards_in_hand":
            who += (f"{seats(winners)} {'wins' if len(winners) == 1 else 'share'} the tie-break, holding the "
                    f"fewest cards ({len(final['hands'][winners[0]])})")
        else:
            who += (f"seat {winners[0]} wins the tie-break with the most recent capture (turn "
                    f"{final['last_capture'][winners[0]] + 1})")
    return [f"{why}.", f"{who}; {per_seat(captured, 'captured card')}"]


def trace(rules, specs, seed: int, game: int, rotate: bool, deck, as_json: bool, deck_file=None) -> str:
    """Every decision and what it did, with the three spaces and the hands after every turn."""
    arr, slots, log, row = _replay(rules, specs, seed, game, rotate, deck)
    p = rules.num_players
    states = _states(arr, deck, seed, game, log)
    result = {"winner": int(row[E.O_WINNER]), "capped": bool(row[E.O_CAPPED]), "turns": int(row[E.O_TURNS]),
              "captured": [int(row[E.O_CAPTURES + q]) for q in range(p)]}
    if as_json:
        events: list[dict[str, Any]] = [{"event": "deal", "state": states[0]}]
        for (seat, code, a, b), d in zip(log, states[1:]):
            events.append({"event": DECISION_NAMES[code], "seat": int(seat), "decision": [int(code), int(a), int(b)],
                           "state": d})
        events.append({"event": "end", "result": result})
        return json.dumps(events)
    name = {c: card_name(int(m)) for c, m in enumerate(deck)}
    generated = np.array_equal(deck, R.deck_array(rules))
    if deck_file is not None:
        cards = f"deck file {deck_file} ({plural(len(deck), 'card')})"
    elif generated:
        cards = f"{len(deck)} cards (the generated deck: an assumption, no component list was found)"
    else:
        cards = f"{len(deck)} cards from an explicit deck"
    lines = [f"Hiboufou game {game} of seed {seed}: {p} players, {cards}"]
    lines += rules_lines(rules, R.OPTIONS, omit=() if generated and deck_file is None else DECK_OPTIONS)
    lines.append("seats: " + ", ".join(f"seat {t} ({specs[int(slots[t])].label})" for t in range(p)))
    lines += ["This view shows every hand, the hidden ones included. The row shows each space's top card and how",
              "many cards its pile holds, e.g. [red+blue x3]."]
    lines += _table(states[0], name, "the deal")
    for (seat, code, a, b), before, after in zip(log, states, states[1:]):
        seat, code, a, b = int(seat), int(code), int(a), int(b)
        lines.append(f"  turn {turn_number(before)} seat {seat}: "
                     f"{describe(before, after, seat, code, a, b, name, rules)}")
        if after["turn"] != before["turn"]:
            lines += _refill(before, after, seat, code, name)
            lines += _table(after, name, "at the end" if after["over"] else f"after turn {turn_number(before)}")
    lines += _result(states[-1], turn_number(states[-2]) if log.size else 0, row, rules)
    return "\n".join(lines)
