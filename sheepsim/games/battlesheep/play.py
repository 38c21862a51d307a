"""Whole games inside numba: `play_game` (one game) and `play_games` (a chunk).

Random streams of game g (rng.py): stream 0 is the board (option board=random),
stream 1 + s is seat s's policy. Streams are tied to seats, not to policies, so
rotating policies over seats keeps common random numbers aligned (ANALYSIS-GUIDE 2).

Policies are assigned to slots; in game g with rotation on, seat s is played by slot
(s + g % P) % P, so every slot plays every seat equally often.
"""

import numpy as np
from numba import njit, prange

from ...rng import seed_stream
from .engine import (H_PHASE, H_TO_MOVE, KIND_TILE, MAX_ACTIONS, MAX_PLAYERS, O_ROTATION,
                     O_SIZE, PH_BUILD, PH_OVER, STATE_SIZE, outcome, random_tile, step)
from . import policies
from .rules import BOARD_RANDOM, R_BOARD, R_PLAYERS

MAX_PLIES = 160     # 24 tiles + 4 placements + 4 players x 31 moves, rounded up
N_STREAMS = 1 + MAX_PLAYERS


# Not cache=True: it takes the policy dispatcher as an argument, and numba cannot
# disk-cache such signatures (their key holds the function object). Callers that are
# cached (play_games, replay) carry its compiled code in their own cache entry.
@njit
def play_game(choose_fn, rules, init, slot_ids, slot_params, seat_slot, rngs, s, buf, row, log):
    """Play one game from state `init` to the end; write its outcome row.

    If `log` has rows, action t is written to log[t] (for trace and replay).
    """
    for k in range(STATE_SIZE):     # an explicit loop vectorises; s[:] = init did not
        s[k] = init[k]
    board_random = rules[R_BOARD] == BOARD_RANDOM
    t = 0
    while s[H_PHASE] != PH_OVER:
        seat = s[H_TO_MOVE]
        if board_random and s[H_PHASE] == PH_BUILD:
            # option board=random: a uniform legal build, independent of the policies
            o, q, r = random_tile(s, rngs[0])
            kind, a, b, c = KIND_TILE, o, q, r
        else:
            slot = seat_slot[seat]
            kind, a, b, c = choose_fn(slot_ids[slot], s, rules, seat, slot_params[slot], rngs[1 + seat], buf)
        if t < log.shape[0]:
            log[t, 0] = kind
            log[t, 1] = a
            log[t, 2] = b
            log[t, 3] = c
        t += 1
        step(s, rules, kind, a, b, c)
    outcome(s, rules, row)


@njit(cache=True)
def seat_slots(game, num_players, rotate, out):
    """Which policy slot plays each seat in this game; returns the rotation."""
    rot = game % num_players if rotate else 0
    for seat in range(num_players):
        out[seat] = (seat + rot) % num_players
    return rot


@njit(cache=True)
def _play_block(choose_fn, rules, init, slot_ids, slot_params, rotate, seed, first, out, lo, hi):
    s = np.empty(STATE_SIZE, dtype=np.int32)
    buf = np.empty((MAX_ACTIONS, 4), dtype=np.int32)
    rngs = np.empty((N_STREAMS, 4), dtype=np.uint64)
    seat_slot = np.empty(MAX_PLAYERS, dtype=np.int64)
    no_log = np.empty((0, 4), dtype=np.int32)
    for i in range(lo, hi):
        g = first + i
        # streams 0 (board) .. P (last seat); the unused rows of rngs stay stale
        for k in range(1 + rules[R_PLAYERS]):
            seed_stream(seed, g, k, rngs[k])
        rot = seat_slots(g, rules[R_PLAYERS], rotate, seat_slot)
        play_game(choose_fn, rules, init, slot_ids, slot_params, seat_slot, rngs, s, buf, out[i], no_log)
        out[i, O_ROTATION] = rot


@njit(cache=True, parallel=True)
def play_games(rules, init, slot_ids, slot_params, rotate, seed, first, out):
    """Games first .. first + len(out) - 1 of a run; out is int32[n, O_SIZE].

    Each game's result depends only on (rules, init, policies, seed, game index):
    blocks only share out the work, so any thread count gives the same rows.
    """
    n = out.shape[0]
    nblocks = min(n, 64)
    for b in prange(nblocks):
        # policies.choose, not a bare imported name: numba will not disk-cache a
        # kernel that passes a dispatcher held in a plain global (measured)
        _play_block(policies.choose, rules, init, slot_ids, slot_params, rotate, seed, first, out,
                    b * n // nblocks, (b + 1) * n // nblocks)


@njit(cache=True)
def replay(rules, init, slot_ids, slot_params, seat_slot, rngs, row, log):
    """One game with built-in policies, keeping its action log (for trace)."""
    s = np.empty(STATE_SIZE, dtype=np.int32)
    buf = np.empty((MAX_ACTIONS, 4), dtype=np.int32)
    play_game(policies.choose, rules, init, slot_ids, slot_params, seat_slot, rngs, s, buf, row, log)


def make_play_games(choose_fn):
    """A chunk kernel for user policies: same loop, `choose_fn` instead of `choose`.

    Closures are not found in numba's disk cache, so this compiles once per process
    (the documented slower start of user policies); games run at full speed.
    """
    @njit(parallel=True)
    def play_games_user(rules, init, slot_ids, slot_params, rotate, seed, first, out):
        n = out.shape[0]
        nblocks = min(n, 64)
        for b in prange(nblocks):
            _play_block(choose_fn, rules, init, slot_ids, slot_params, rotate, seed, first, out,
                        b * n // nblocks, (b + 1) * n // nblocks)
    return play_games_user


ROW_SIZE = O_SIZE
