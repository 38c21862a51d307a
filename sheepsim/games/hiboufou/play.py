"""Whole Hiboufou games inside numba (same shape as blacksheep/play.py).

Random streams of game g: stream 0 deals the cards (the shuffle fixes the draw pile
order, so transitions need no chance); stream 1 + s is seat s's policy. Rotating
policies or changing a parameter keeps the deal identical.

Every kernel takes the rules vector and the deck (int32 colour masks by card id,
rules.deck_array).
"""

import numpy as np
from numba import njit, prange

from ...rng import seed_stream
from ..unmanaged import cells, unmanaged
from . import policies
from .engine import (H_ACTOR, H_OVER, MAX_DECISIONS, MAX_PLAYERS, O_ROTATION, STATE_SIZE, deal_cards, outcome,
                     step)
from .rules import R_PLAYERS

N_STREAMS = 1 + MAX_PLAYERS
POLICY_STREAM = 1


# Not cache=True: it takes the policy dispatcher as an argument (see battlesheep/play.py).
@njit
def play_game(choose_fn, rules, deck, slot_ids, slot_params, seat_slot, rngs, s, buf, row, log):
    """Deal and play one game; write its outcome row. If `log` has rows, decision t
    goes to log[t] = (actor, code, a, b).

    Built-in policies are called directly, so that numba inlines them (it cannot
    inline `choose_fn`, an argument); `choose_fn` serves user policies, which see
    the state as an array. The arrays go without reference counting and the state as
    a raw pointer (sheepsim/games/unmanaged.py: together about a third of the time)."""
    # built-in code gets raw pointers (three words a call instead of a struct of seven
    # per array, and no wraparound tests), user policies arrays without reference counts
    rules_array = unmanaged(rules)
    deck_array = unmanaged(deck)
    state = unmanaged(s)
    buf = unmanaged(buf)
    rngs = unmanaged(rngs)
    slot_params = unmanaged(slot_params)
    slot_ids = cells(slot_ids)
    seat_slot = cells(seat_slot)
    rules = cells(rules_array)
    deck = cells(deck_array)
    s = cells(state)
    deal_cards(s, rules, deck, deck_array.shape[0], cells(rngs[0]))
    t = 0
    # the actor's policy, parameters and stream are looked up when the actor changes
    # (once a turn), not at every decision
    seat = -1
    pid = 0
    params = slot_params[0]
    rng = rngs[0]
    while s[H_OVER] == 0:
        if s[H_ACTOR] != seat:
            seat = s[H_ACTOR]
            slot = seat_slot[seat]
            pid = slot_ids[slot]
            params = slot_params[slot]
            rng = rngs[POLICY_STREAM + seat]
        if pid <= policies.LAST_BUILTIN:
            code, a, b = policies.choose(pid, s, rules, deck, seat, params, cells(rng), buf)
        else:
            code, a, b = choose_fn(pid, state, rules_array, deck_array, seat, params, rng, buf)
        if t < log.shape[0]:
            log[t, 0] = seat
            log[t, 1] = code
            log[t, 2] = a
            log[t, 3] = b
        t += 1
        step(s, rules, deck, code, a, b)
    outcome(s, rules, row)


@njit(cache=True)
def seed_game(seed, game, players, rngs):
    """Seed the streams a game of `players` uses."""
    seed_stream(seed, game, 0, rngs[0])
    for seat in range(players):
        seed_stream(seed, game, POLICY_STREAM + seat, rngs[POLICY_STREAM + seat])


@njit(cache=True)
def _play_block(choose_fn, rules, deck, slot_ids, slot_params, rotate, seed, first, out, lo, hi):
    s = np.empty(STATE_SIZE, dtype=np.int32)
    buf = np.empty((MAX_DECISIONS, 3), dtype=np.int32)
    rngs = np.empty((N_STREAMS, 4), dtype=np.uint64)
    seat_slot = np.empty(MAX_PLAYERS, dtype=np.int64)
    no_log = np.empty((0, 4), dtype=np.int32)
    p = rules[R_PLAYERS]
    for i in range(lo, hi):
        g = first + i
        seed_game(seed, g, p, rngs)
        rot = g % p if rotate else 0
        for seat in range(p):
            seat_slot[seat] = (seat + rot) % p
        play_game(choose_fn, rules, deck, slot_ids, slot_params, seat_slot, rngs, s, buf, out[i], no_log)
        out[i, O_ROTATION] = rot


@njit(cache=True, parallel=True)
def play_games(rules, deck, slot_ids, slot_params, rotate, seed, first, out):
    """Games first .. first + len(out) - 1, one outcome row each."""
    n = out.shape[0]
    nblocks = min(n, 64)
    for b in prange(nblocks):
        _play_block(policies.no_user_policies, rules, deck, slot_ids, slot_params, rotate, seed, first, out,
                    b * n // nblocks, (b + 1) * n // nblocks)


@njit(cache=True)
def replay(rules, deck, slot_ids, slot_params, seat_slot, rngs, row, log):
    """One game with built-in policies, keeping its decision log (for trace and tests)."""
    s = np.empty(STATE_SIZE, dtype=np.int32)
    buf = np.empty((MAX_DECISIONS, 3), dtype=np.int32)
    play_game(policies.no_user_policies, rules, deck, slot_ids, slot_params, seat_slot, rngs, s, buf, row, log)


def make_play_games(choose_fn):
    """Chunk kernel for user policies (compiled once per process, not disk-cached)."""
    @njit(parallel=True)
    def play_games_user(rules, deck, slot_ids, slot_params, rotate, seed, first, out):
        n = out.shape[0]
        nblocks = min(n, 64)
        for b in prange(nblocks):
            _play_block(choose_fn, rules, deck, slot_ids, slot_params, rotate, seed, first, out,
                        b * n // nblocks, (b + 1) * n // nblocks)
    return play_games_user
