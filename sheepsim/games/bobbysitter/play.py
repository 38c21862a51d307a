"""Whole games inside numba: `play_game` (one game) and `play_games` (a chunk).

Random streams of game g (rng.py), tied to sources of chance (ANALYSIS-GUIDE rule 2):

    stream 0        the deck: the initial shuffle and every reshuffle
    stream 1 + q    seat q's reactions (its player model draws from it every flip)

Player models are assigned to slots; with rotation on, seat q is played by slot
(q + g % P) % P, and a per-player start_tokens value follows its slot.
"""

import numpy as np
from numba import njit, prange

from ...rng import seed_stream
from .engine import (ALIVE, H_FLIPPER, H_RESHUFFLES, O_ROTATION, STATE_SIZE, draw_card, outcome, resolve, setup)
from .model import MAX_PLAYERS
from . import policies
from .rules import R_FLIPPER_BONUS, R_PLAYERS

DECK_STREAM = 0
REACT_STREAM = 1
N_STREAMS = REACT_STREAM + MAX_PLAYERS
LOG_COLS = 3 + MAX_PLAYERS      # flipper, card, reshuffles so far, grab of every seat


@njit(cache=True)
def react_all(choose_fn, s, rules, code, slot_ids, slot_params, seat_slot, rngs, grab, times):
    """Every active seat's reaction to the card with `code`, in seat order (times
    after the flipper bonus)."""
    f = s[H_FLIPPER]
    cls, sheep = code & 3, code >> 2
    for q in range(rules[R_PLAYERS]):
        grab[q] = 0
        times[q] = 0.0
        if s[ALIVE + q] == 1:
            slot = seat_slot[q]
            g, t = choose_fn(slot_ids[slot], cls, sheep, q == f, slot_params[slot], rngs[REACT_STREAM + q], rules)
            grab[q] = g
            # the flipper bonus is a rule (A-S8), applied the same for every model
            times[q] = max(0.0, t - rules[R_FLIPPER_BONUS]) if q == f else t


# Not cache=True: it takes the model dispatcher as an argument (see pig/play.py).
@njit
def play_game(choose_fn, rules, deck, slot_ids, slot_params, seat_slot, rngs, s, grab, times, loss, row,
              log, log_times):
    """Play one game; write its outcome row. If `log` has rows, flip t is logged as
    (flipper, card, reshuffles after the draw, grab of each seat) and log_times[t] as
    the reaction times (after the flipper bonus). Returns the number of flips."""
    setup(s, rules, deck, rngs[DECK_STREAM], seat_slot)
    t = 0
    while s[H_FLIPPER] >= 0:
        f = s[H_FLIPPER]
        card = draw_card(s, rules, rngs[DECK_STREAM])
        react_all(choose_fn, s, rules, deck[card], slot_ids, slot_params, seat_slot, rngs, grab, times)
        resolve(s, rules, deck[card], grab, times, loss)
        if t < log.shape[0]:
            log[t, 0] = f
            log[t, 1] = card
            log[t, 2] = s[H_RESHUFFLES]
            for q in range(MAX_PLAYERS):
                log[t, 3 + q] = grab[q]
                log_times[t, q] = times[q]
        t += 1
    outcome(s, rules, row)
    return t


@njit(cache=True)
def seat_slots(game, num_players, rotate, out):
    rot = game % num_players if rotate else 0
    for seat in range(num_players):
        out[seat] = (seat + rot) % num_players
    return rot


@njit(cache=True)
def _play_block(choose_fn, rules, deck, slot_ids, slot_params, rotate, seed, first, out, lo, hi):
    s = np.empty(STATE_SIZE, dtype=np.int32)
    grab = np.zeros(MAX_PLAYERS, dtype=np.int32)
    loss = np.zeros(MAX_PLAYERS, dtype=np.int32)
    times = np.zeros(MAX_PLAYERS, dtype=np.float64)
    rngs = np.zeros((N_STREAMS, 4), dtype=np.uint64)
    seat_slot = np.zeros(MAX_PLAYERS, dtype=np.int64)
    no_log = np.empty((0, LOG_COLS), dtype=np.int32)
    no_times = np.empty((0, MAX_PLAYERS), dtype=np.float64)
    p = rules[R_PLAYERS]
    for i in range(lo, hi):
        g = first + i
        seed_stream(seed, g, DECK_STREAM, rngs[DECK_STREAM])
        for q in range(p):
            seed_stream(seed, g, REACT_STREAM + q, rngs[REACT_STREAM + q])
        rot = seat_slots(g, p, rotate, seat_slot)
        play_game(choose_fn, rules, deck, slot_ids, slot_params, seat_slot, rngs, s, grab, times, loss, out[i],
                  no_log, no_times)
        out[i, O_ROTATION] = rot


@njit(cache=True, parallel=True)
def play_games(rules, deck, slot_ids, slot_params, rotate, seed, first, out):
    """Games first .. first + len(out) - 1 of a run; out is int32[n, O_SIZE]. Blocks
    only share out the work: any thread count gives the same rows."""
    n = out.shape[0]
    nblocks = min(n, 64)
    for b in prange(nblocks):
        _play_block(policies.choose, rules, deck, slot_ids, slot_params, rotate, seed, first, out,
                    b * n // nblocks, (b + 1) * n // nblocks)


@njit(cache=True)
def replay(rules, deck, slot_ids, slot_params, seat_slot, rngs, row, log, log_times):
    """One game with built-in models, keeping its flip log (trace); returns the flips."""
    s = np.empty(STATE_SIZE, dtype=np.int32)
    grab = np.zeros(MAX_PLAYERS, dtype=np.int32)
    loss = np.zeros(MAX_PLAYERS, dtype=np.int32)
    times = np.zeros(MAX_PLAYERS, dtype=np.float64)
    return play_game(policies.choose, rules, deck, slot_ids, slot_params, seat_slot, rngs, s, grab, times, loss,
                     row, log, log_times)


def make_play_games(choose_fn):
    """A chunk kernel for user models (compiled once per process, not disk-cached)."""
    @njit(parallel=True)
    def play_games_user(rules, deck, slot_ids, slot_params, rotate, seed, first, out):
        n = out.shape[0]
        nblocks = min(n, 64)
        for b in prange(nblocks):
            _play_block(choose_fn, rules, deck, slot_ids, slot_params, rotate, seed, first, out,
                        b * n // nblocks, (b + 1) * n // nblocks)
    return play_games_user
