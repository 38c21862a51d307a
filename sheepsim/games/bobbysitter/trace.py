"""Bobby Sitter: the trace text of one game (the GameSpec's `trace`).

`_replay` plays the game and returns its flip log; everything below it only reads
that log and the states it leads to (`_flips`: the kernel's own `setup`, `draw_card`
and `resolve` with the logged reactions), so the text is what the engine did.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from ...rng import streams
from .. import wrappers as W
from . import engine as E
from . import play as P
from . import policies as POL
from . import rules as R
from ..tracetext import per_seat, plural, rules_lines, seats
from .model import (CLASS_NAMES, DEFAULT_COUNTS, EMPTY, GRAB_BOBBY, GRAB_NAMES, GRAB_SHEEP, HIDDEN, MAX_PLAYERS,
                    NONE, SHEEP, WOLF, card_name)


# --- replay: play the game again, keeping its flip log ---------------------------------

def _replay(rules, specs, seed: int, game: int, rotate: bool, deck):
    arr = R.to_array(rules)
    slots = W.seat_slots(game, rules.num_players, rotate, MAX_PLAYERS)
    ids, params = W.policy_arrays(specs)
    kernel = W.user_kernels(P, specs)[1] if W.user_policies(specs) else P.replay
    size = 4096
    while True:
        log = np.full((size, P.LOG_COLS), -1, dtype=np.int32)
        log_times = np.zeros((size, MAX_PLAYERS))
        row = np.zeros(E.O_SIZE, dtype=np.int32)
        fault = np.zeros(W.driver.FAULT_SIZE, dtype=np.int64)
        flips = kernel(arr, deck, ids, params, slots, streams(seed, game, P.N_STREAMS), game, row, log, log_times,
                       fault)
        if fault[W.driver.F_CODE]:
            W.raise_fault(P, fault, specs, rules.num_players, rotate)
        if flips <= size:
            return arr, slots, log[:flips], log_times[:flips], row
        size = int(flips)



# --- states ------------------------------------------------------------------------------

def _flips(arr, deck, seed: int, game: int, slots, log, log_times, p: int, per_player: bool):
    """The setup state, then per flip (flipper, card, reactions, state before, state
    after): the kernel stepped from Python with the game's own deck stream (only setup
    and reshuffles draw from it) and the logged reactions. reactions = {seat: (grab,
    ms)} of the seats in the game that reached for a counter."""
    deck_rng = streams(seed, game, P.N_STREAMS)[P.DECK_STREAM]
    s = np.empty(E.STATE_SIZE, dtype=np.int32)
    E.setup(s, arr, deck, deck_rng, slots)
    start = E.to_dict(s, p, per_player)
    flips = []
    grab = np.zeros(MAX_PLAYERS, dtype=np.int32)
    loss = np.zeros(MAX_PLAYERS, dtype=np.int32)
    for t, (flipper, card, _, *grabs) in enumerate(log):
        before = E.to_dict(s, p, per_player)
        drawn = E.draw_card(s, arr, deck_rng)
        assert drawn == card, "trace replay diverged from the game"
        grab[:] = grabs
        times = log_times[t].copy()
        E.resolve(s, arr, int(deck[card]), grab, times, loss)
        reactions = {q: (int(grabs[q]), round(float(times[q]), 3)) for q in range(p)
                     if before["active"][q] and grabs[q] != NONE}
        flips.append((int(flipper), int(card), reactions, before, E.to_dict(s, p, per_player)))
    return start, flips


def flip_number(before: dict) -> int:
    """The flip (counted from 1) a card is turned in; every flip number in the text
    comes from here."""
    return before["flips"] + 1


# --- the text ----------------------------------------------------------------------------

def _cards(rules, deck: np.ndarray, deck_file) -> list[tuple[int, bool, bool]]:
    """(sheep, wolf, hidden_wolf) of every card id, when known: the deck file's or the
    generated deck's cards whose codes are the dealt ones; else read back from the codes
    (with wolf_with_sheep=sheep a wolf with sheep then shows as sheep only)."""
    for source in ([R.read_deck(deck_file)] if deck_file is not None else []) + [None]:
        cards = R.deck_cards(rules, source)
        if np.array_equal(R.deck_array(rules, source), deck):
            return cards
    return [(int(c) >> 2, int(c) & 3 == WOLF, int(c) & 3 == HIDDEN) for c in deck]


def _card(card: tuple[int, bool, bool], code: int) -> str:
    """What the card shows, and the reaction it calls for."""
    sheep, wolf, _ = card
    cls = code & 3
    shown = card_name(card)
    if wolf and cls == SHEEP:
        return f"{shown}, a sheep card (wolf_with_sheep=sheep): everyone grabs the SHEEP"
    return f"{shown}: " + ("everyone grabs a BOBBY", "everyone grabs the SHEEP", "nobody may react",
                           "nobody may react")[cls]


def _order(reactions: dict, flipper: int, p: int) -> list[int]:
    """Reaction order: by time, ties to the seat closer clockwise to the flipper."""
    return sorted(reactions, key=lambda q: (reactions[q][1], (q - flipper) % p))


def _settle(code: int, flipper: int, reactions: dict, before: dict, after: dict, rules) -> list[str]:
    """Who gained or lost a token on this card, and why (model.py "Resolution"); the
    amounts are checked against the engine's."""
    p = rules.num_players
    cls = code & 3
    order = _order(reactions, flipper, p)
    wrong = rules["wrong_counter_penalty"]
    owed: dict[int, list] = {}           # seat -> [tokens owed, reasons]
    said = []
    if cls == WOLF:
        bobby = [q for q in order if reactions[q][0] == GRAB_BOBBY]
        took, left = bobby[:before["bobby_counters"]], bobby[before["bobby_counters"]:]
        if took:
            what = ("the BOBBY counter" if before["bobby_counters"] == 1 else
                    "a BOBBY counter" if len(took) == 1 else "BOBBY counters")
            said.append(f"{seats(took)} {'takes' if len(took) == 1 else 'take'} {what}")
        for q in range(p):
            if not before["active"][q]:
                continue
            grab = reactions.get(q, (NONE, 0))[0]
            if q in left:
                owed[q] = [1, ["left without a BOBBY"]]
            elif grab == GRAB_SHEEP:
                capped = wrong and rules["max_loss_per_card"] == "one"
                owed[q] = [1 + wrong, ["grabbed the SHEEP, the wrong counter, and holds no BOBBY"
                                       + (" (at most one token a card)" if capped else "")]]
            elif grab == NONE:
                owed[q] = [1, ["did not react, so holds no BOBBY"]]
    elif cls == SHEEP:
        sheep = [q for q in order if reactions[q][0] == GRAB_SHEEP]
        if sheep:
            q = sheep[0]
            if after["tokens"][q] > before["tokens"][q] or after["minted"] > before["minted"]:
                minted = after["minted"] > before["minted"]
                said.append(f"seat {q} takes the SHEEP: +1 token"
                            + (" (the stock is empty: a new token, empty_stock=unlimited_tokens)" if minted else
                               " from the stock"))
            else:
                said.append(f"seat {q} takes the SHEEP, but the stock is empty: no token (empty_stock=no_gain)")
            race = rules["sheep_race_loser_penalty"]
            for o in sheep[1:]:
                if race:
                    owed[o] = [race, ["too slow for the SHEEP (sheep_race_loser_penalty=1)"]]
        for q in order:
            if reactions[q][0] == GRAB_BOBBY and wrong:
                owed[q] = [wrong, ["grabbed a BOBBY, the wrong counter"]]
    else:
        what = "an empty card" if cls == EMPTY else "a hidden wolf"
        for q in order:
            owed[q] = [1, [f"reacted to a no-react card ({what})"]]
    for q, (n, why) in owed.items():
        if rules["max_loss_per_card"] == "one":
            n = min(n, 1)
        n = min(n, before["tokens"][q])
        gained = 1 if cls == SHEEP and said and said[0].startswith(f"seat {q} takes the SHEEP: +1") else 0
        assert before["tokens"][q] - n + gained == after["tokens"][q], "the text misreads a loss"
        if n:
            said.append(f"seat {q} loses {plural(n, 'token')}: {', '.join(why)}")
    for q in range(p):
        if before["active"][q] and not after["active"][q]:
            left = after["bobby_counters"]
            removed = (f"one BOBBY counter is removed ({left} left)" if after["bobby_counters"] <
                       before["bobby_counters"] else "no BOBBY counter is left to remove")
            said.append(f"seat {q} has no token left and is eliminated; {removed}")
    changed = [q for q in range(p) if after["tokens"][q] != before["tokens"][q]]
    assert all(q in owed or (said and said[0].startswith(f"seat {q} takes the SHEEP")) for q in changed)
    return said


def _flip_lines(flipper: int, card: int, code: int, cards, reactions: dict, before: dict, after: dict,
                rules) -> list[str]:
    p = rules.num_players
    head = f"flip {flip_number(before)}: seat {flipper} flips card {card}, {_card(cards[card], code)}"
    out = [head]
    if after["reshuffles"] > before["reshuffles"]:
        out.append("    the stack was empty: the flipped cards are shuffled into a new stack first"
                   if rules["stack_mode"] == "shared" else
                   f"    seat {flipper}'s own stack was empty: its flipped cards are shuffled into a new stack first")
    said = [f"seat {q} {GRAB_NAMES[reactions[q][0]]} {reactions[q][1]:.0f} ms" for q in _order(reactions, flipper, p)]
    settled = "; ".join(_settle(code, flipper, reactions, before, after, rules)) or "no change"
    counts = f"{per_seat(after['tokens'], 'token')}; stock {after['stock']}, BOBBY counters {after['bobby_counters']}"
    if not said:
        return out + [f"    nobody reacts: {settled}; {counts}"]
    return out + [f"    reactions: {', '.join(said)}", f"    {settled}", f"    {counts}"]


def _ending(final: dict, last: dict, rules) -> str:
    flips = plural(flip_number(last), "flip")
    tokens = per_seat(final['tokens'], 'token')
    w = final["winner"]
    if final["capped"]:
        cap = f"the flip cap (flip_cap={rules['flip_cap']}) stops the game after {flips}"
        if rules["cap_resolution"] == "draw":
            return f"{cap}: a draw (cap_resolution=draw); {tokens}"
        won = f"seat {w} wins with the most tokens" if w >= 0 else "a tie for the most tokens: a draw"
        return f"{cap}: {won} (cap_resolution=most_tokens); {tokens}"
    if w >= 0 and final["tokens"][w] >= rules["target_tokens"]:
        return f"seat {w} reaches {plural(final['tokens'][w], 'token')} (target_tokens={rules['target_tokens']}) " \
               f"and wins after {flips}; {tokens}"
    if w >= 0:
        return f"seat {w} is the last player standing and wins after {flips}; {tokens}"
    out = [q for q, alive in enumerate(last["active"]) if alive]
    if len(out) == 1:
        return f"seat {out[0]}, the last player left, is eliminated: a draw after {flips}; {tokens}"
    return f"every remaining player ({seats(out)}) is eliminated on the same card: a draw after {flips}; {tokens}"


def trace(rules, specs, seed: int, game: int, rotate: bool, deck, as_json: bool, deck_file=None) -> str:
    """Every flip: the card, who reacted, how and when, who won or lost a token and
    why, tokens after; and why the game ended."""
    arr, slots, log, log_times, row = _replay(rules, specs, seed, game, rotate, deck)
    p = rules.num_players
    per_player = rules["stack_mode"] == "per_player"
    start, flips = _flips(arr, deck, seed, game, slots, log, log_times, p, per_player)
    result = {"winner": int(row[E.O_WINNER]), "flips": int(row[E.O_TURNS]), "capped": bool(row[E.O_CAPPED]),
              "tokens": [int(row[E.O_TOKENS + q]) for q in range(p)]}
    if as_json:
        events: list[dict[str, Any]] = [{"event": "setup", "state": start}]
        for flipper, card, reactions, before, after in flips:
            code = int(deck[card])
            events.append({"event": "flip", "flipper": flipper, "card": card, "class": CLASS_NAMES[code & 3],
                           "reshuffled": after["reshuffles"] > before["reshuffles"],
                           "reactions": {q: list(r) for q, r in reactions.items()}, "state": after})
        events.append({"event": "end", "result": result})
        return json.dumps(events)
    cards = _cards(rules, deck, deck_file)
    generated = deck_file is None and np.array_equal(deck, R.deck_array(rules))
    if deck_file is not None:
        what = f"deck file {deck_file} ({plural(len(deck), 'card')})"
    elif generated:
        what = f"{len(deck)} cards (the generated deck: an assumption, no card list was found)"
    else:
        what = f"{len(deck)} cards from an explicit deck"
    label = {q: specs[int(slots[q])].label for q in range(p)}
    lines = [f"Bobby Sitter game {game} of seed {seed}: {p} players, {rules['target_tokens']} tokens to win, "
             f"{what}"]
    lines += rules_lines(rules, R.OPTIONS, omit=() if generated else DEFAULT_COUNTS)
    lines.append("seats: " + ", ".join(f"seat {q} ({label[q]}, {start['tokens'][q]} tokens)" for q in range(p)))
    lines.append("Reaction profiles are assumptions (no player data was found); a reaction is the counter a seat "
                 "reached for and when.")
    for flipper, card, reactions, before, after in flips:
        lines += _flip_lines(flipper, card, int(deck[card]), cards, reactions, before, after, rules)
    lines.append(_ending(flips[-1][4], flips[-1][3], rules))
    return "\n".join(lines)
