"""Bobby Sitter's kernels, on the shared driver's streams, seat slots and chunks.

Bobby Sitter is a game of simultaneous reactions, not of turns, so it keeps its own
per-flip loop (`play_game`): a flip is chance (the deck), then every active seat's
player model reacts at once, then the rules resolve the flip. The rest is the driver's
(games/driver.py): streams, seat rotation, blocks over threads, faults.

Random streams of game g (rng.py), tied to sources of chance (the randomness contract, ARCHITECTURE.md):

    stream 0        the deck: the initial shuffle and every reshuffle
    stream 1 + q    seat q's reactions (its player model draws from it every flip)

Player models are assigned to slots; with rotation on, seat q is played by slot
(q + g % P) % P, and a per-player start_tokens value follows its slot. A model has
its own signature (policies.py), USER_ARGS below, not the turn games' one.
"""

import numpy as np
from numba import njit

from .. import driver
from .. import tally as TL
from .engine import (ALIVE, H_FLIPPER, H_RESHUFFLES, O_COWINNERS, O_ROTATION, O_SIZE, STATE_SIZE, draw_card, outcome,
                     progress, resolve, setup)
from .model import GRAB_BOBBY, MAX_PLAYERS, NONE
from . import policies as P
from .rules import R_FLIPPER_BONUS, R_PLAYERS

DECK_STREAM = 0
POLICY = LUCK = REACT_STREAM = 1
N_STREAMS = REACT_STREAM + MAX_PLAYERS
LOG_COLS = 3 + MAX_PLAYERS      # flipper, card, reshuffles so far, grab of every seat
USER_ARGS = ("cls", "sheep", "is_flipper", "params", "rng", "rules")
ACTION_SIZE = 2                 # a reaction: (counter grabbed, reaction time)
RETURNS = "(counter grabbed: NONE, GRAB_SHEEP or GRAB_BOBBY; reaction time in ms, >= 0)"
# no Engine declares these kernels (the turn games' are generated from one): no
# kernels of another kind, such as the search agents', exist for Bobby Sitter
DECLARATION = None
GAME = driver.Shape(STATE_SIZE, 1, ACTION_SIZE, LUCK, POLICY, N_STREAMS, O_ROTATION, MAX_PLAYERS, O_COWINNERS)


@njit(cache=True)
def react_all(choose, user, s, rules, code, slot_ids, slot_params, seat_slot, rngs, grab, times):
    """Every active seat's reaction to the card with `code`, in seat order (times
    after the flipper bonus); -1, or the first seat whose user model returned a
    counter that does not exist."""
    f = s[H_FLIPPER]
    cls, sheep = code & 3, code >> 2
    for q in range(rules[R_PLAYERS]):
        grab[q] = 0
        times[q] = 0.0
        if s[ALIVE + q] == 1:
            slot = seat_slot[q]
            pid = slot_ids[slot]
            if pid <= P.LAST_BUILTIN:
                g, t = P.choose(pid, cls, sheep, q == f, slot_params[slot], rngs[REACT_STREAM + q], rules)
            else:
                g, t = user(pid, cls, sheep, q == f, slot_params[slot], rngs[REACT_STREAM + q], rules)
                if g < NONE or g > GRAB_BOBBY or not t >= 0.0:
                    grab[q] = g
                    return q
            grab[q] = g
            # the flipper bonus is a rule option, applied the same for every model
            times[q] = max(0.0, t - rules[R_FLIPPER_BONUS]) if q == f else t
    return -1


@njit(inline="always")
def play_game(user, rules, deck, slot_ids, slot_params, seat_slot, rngs, s, grab, times, loss, row, log, log_times,
              g, fault, tally):
    """Play one game; write its outcome row. If `log` has rows, flip t is logged as
    (flipper, card, reshuffles after the draw, grab of each seat) and log_times[t] as
    the reaction times (after the flipper bonus). Returns the number of flips, or -1
    after a fault. With the experience tally on (games/tally.py), progress (the
    tokens) is sampled at the start of every round and at the end, a round as in the
    turn games: the flip passes round the table, so a round starts where the flipper
    is below the one before it (every seat reacts to every flip, but a flip is one
    seat's turn to flip)."""
    setup(s, rules, deck, rngs[DECK_STREAM], seat_slot)
    players = rules[R_PLAYERS]
    tally = driver.unmanaged_tally(tally)
    sv, rv = driver._arr(s), driver._arr(rules)         # the tally's views (driver.unmanaged_tally)
    if tally[0]:
        TL.begin(tally, players)
    t = 0
    flipped = players          # the previous flipper (players: none yet)
    while s[H_FLIPPER] >= 0:
        f = s[H_FLIPPER]
        if tally[0] and f < flipped:
            TL.sample(progress, sv, rv, players, tally)
        flipped = f
        card = draw_card(s, rules, rngs[DECK_STREAM])
        bad = react_all(P.choose, user, s, rules, deck[card], slot_ids, slot_params, seat_slot, rngs, grab, times)
        if bad >= 0:
            driver._fault(fault, driver.FAULT_ILLEGAL, g, bad, t, (np.int64(grab[bad]), np.int64(times[bad])))
            return -1
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
    if tally[0]:
        TL.end(progress, sv, rv, players, row[O_COWINNERS], tally)
    return t


@njit(inline="always")
def _play_block(user, rules, deck, slot_ids, slot_params, rotate, seed, first, out, fault, metrics, lo, hi):
    s = np.empty(STATE_SIZE, dtype=np.int32)
    grab = np.zeros(MAX_PLAYERS, dtype=np.int32)
    loss = np.zeros(MAX_PLAYERS, dtype=np.int32)
    times = np.zeros(MAX_PLAYERS, dtype=np.float64)
    rngs = np.zeros((N_STREAMS, 4), dtype=np.uint64)
    seat_slot = np.zeros(MAX_PLAYERS, dtype=np.int64)
    no_log = np.empty((0, LOG_COLS), dtype=np.int32)
    no_times = np.empty((0, MAX_PLAYERS), dtype=np.float64)
    tally = TL.buffers(metrics.shape[0] > 0, MAX_PLAYERS)
    p = rules[R_PLAYERS]
    for i in range(lo, hi):
        g = first + i
        driver.seed_game(seed, g, p, LUCK, POLICY, rngs)
        rot = driver.seat_slots(g, p, rotate, seat_slot)
        if play_game(user, rules, deck, slot_ids, slot_params, seat_slot, rngs, s, grab, times, loss, out[i],
                     no_log, no_times, g, fault, tally) < 0:
            return
        out[i, O_ROTATION] = rot
        if tally[0]:
            metrics[i, :] = tally[-1]


@njit(inline="always")
def _play_blocks(user, rules, deck, slot_ids, slot_params, rotate, seed, first, out, faults, metrics, b_lo, b_hi):
    """Blocks b_lo .. b_hi - 1 of a chunk, in turn (see driver.play_blocks)."""
    for b in range(b_lo, min(b_hi, min(out.shape[0], driver.BLOCKS))):
        lo, hi = driver.block_games(out.shape[0], b)
        _play_block(user, rules, deck, slot_ids, slot_params, rotate, seed, first, out, faults[b], metrics, lo, hi)


@njit(inline="always")
def _replay(user, rules, deck, slot_ids, slot_params, seat_slot, rngs, g, row, log, log_times, fault):
    s = np.empty(STATE_SIZE, dtype=np.int32)
    grab = np.zeros(MAX_PLAYERS, dtype=np.int32)
    loss = np.zeros(MAX_PLAYERS, dtype=np.int32)
    times = np.zeros(MAX_PLAYERS, dtype=np.float64)
    return play_game(user, rules, deck, slot_ids, slot_params, seat_slot, rngs, s, grab, times, loss, row, log,
                     log_times, g, fault, TL.buffers(False, MAX_PLAYERS))


@njit(cache=True, nogil=True)
def play_blocks(rules, deck, slot_ids, slot_params, rotate, seed, first, out, faults, metrics, b_lo, b_hi):
    """Blocks b_lo .. b_hi - 1 of the games first .. first + len(out) - 1 of a run; out
    is int32[n, O_SIZE] and metrics as driver.play_blocks takes them (wrappers.run_blocks
    shares the blocks out over threads)."""
    _play_blocks(P.no_user_models, rules, deck, slot_ids, slot_params, rotate, seed, first, out, faults, metrics,
                 b_lo, b_hi)


@njit(cache=True)
def replay(rules, deck, slot_ids, slot_params, seat_slot, rngs, g, row, log, log_times, fault):
    """One game with built-in models, keeping its flip log (trace); returns the flips."""
    return _replay(P.no_user_models, rules, deck, slot_ids, slot_params, seat_slot, rngs, g, row, log, log_times,
                   fault)


def user_kernels(user, kind=None):
    """(block kernel, replay kernel) with the user-model dispatcher `user`, as
    driver.user_kernels makes them for the turn games (compiled once per process).
    Bobby Sitter has no kernels of another kind (no search agent plays it): `kind` is
    always None."""
    @njit(nogil=True)
    def play_blocks_user(rules, deck, slot_ids, slot_params, rotate, seed, first, out, faults, metrics, b_lo, b_hi):
        _play_blocks(user, rules, deck, slot_ids, slot_params, rotate, seed, first, out, faults, metrics, b_lo, b_hi)

    @njit
    def replay_user(rules, deck, slot_ids, slot_params, seat_slot, rngs, g, row, log, log_times, fault):
        return _replay(user, rules, deck, slot_ids, slot_params, seat_slot, rngs, g, row, log, log_times, fault)
    return play_blocks_user, replay_user
