"""Whole Bye-Bye Black Sheep games inside numba (same shape as battlesheep/play.py).

Random streams of game g: stream 0 deals the cards; stream 1 + s is the luck of
seat s's decisions (which card its blind draws yield, where a Magpie it lets in
lands); stream 1 + MAX_PLAYERS + s is seat s's policy. Luck is tied to seats, not to
policies, so rotating policies or changing a threshold keeps the deal identical and
the draws aligned for as long as decisions agree (ANALYSIS-GUIDE rules 2 and 3).
"""

import numpy as np
from numba import njit, prange

from ...rng import seed_stream
from ..unmanaged import cells, unmanaged
from . import policies
from .engine import (H_ACTOR, H_PHASE, MAX_DECISIONS, MAX_PLAYERS, O_ROTATION, STATE_SIZE, deal, outcome,
                     sample_chance, step)
from .model import OVER
from .rules import R_PLAYERS

N_STREAMS = 1 + 2 * MAX_PLAYERS
POLICY_STREAM = 1 + MAX_PLAYERS


# Not cache=True: it takes the policy dispatcher as an argument (see battlesheep/play.py).
@njit
def play_game(choose_fn, rules, slot_ids, slot_params, seat_slot, rngs, s, buf, row, log):
    """Deal and play one game; write its outcome row. If `log` has rows, decision t
    and its chance outcome go to log[t] = (actor, code, a, b, chance).

    Built-in policies are called directly, so that numba inlines them (it cannot
    inline `choose_fn`, an argument); `choose_fn` serves user policies, which see
    the state as an array."""
    rules = unmanaged(rules)
    buf = unmanaged(buf)
    rngs = unmanaged(rngs)
    slot_params = unmanaged(slot_params)
    slot_ids = cells(slot_ids)
    seat_slot = cells(seat_slot)
    state = s               # what a user policy sees: the state array
    s = cells(s)
    deal(s, rules, rngs[0])
    t = 0
    seat = -1
    pid = 0
    params = slot_params[0]
    policy_rng = luck = rngs[0]
    while s[H_PHASE] != OVER:
        if s[H_ACTOR] != seat:
            # a new actor (a new turn, or a White Sheep's owner): look up its policy, its
            # parameters and its streams once, not at every decision
            seat = s[H_ACTOR]
            slot = seat_slot[seat]
            pid = slot_ids[slot]
            params = slot_params[slot]
            policy_rng = rngs[POLICY_STREAM + seat]
            luck = rngs[1 + seat]
        if pid <= policies.LAST_BUILTIN:
            code, a, b = policies.choose(pid, s, rules, seat, params, policy_rng, buf)
        else:
            code, a, b = choose_fn(pid, state, rules, seat, params, policy_rng, buf)
        chance = sample_chance(s, rules, code, a, b, luck)
        if t < log.shape[0]:
            log[t, 0] = seat
            log[t, 1] = code
            log[t, 2] = a
            log[t, 3] = b
            log[t, 4] = chance
        t += 1
        step(s, rules, code, a, b, chance)
    outcome(s, row)


@njit(cache=True)
def seed_game(seed, game, players, rngs):
    """Seed the streams a game of `players` uses."""
    seed_stream(seed, game, 0, rngs[0])
    for seat in range(players):
        seed_stream(seed, game, 1 + seat, rngs[1 + seat])
        seed_stream(seed, game, POLICY_STREAM + seat, rngs[POLICY_STREAM + seat])


@njit(cache=True)
def _play_block(choose_fn, rules, slot_ids, slot_params, rotate, seed, first, out, lo, hi):
    s = np.empty(STATE_SIZE, dtype=np.int32)
    buf = np.empty((MAX_DECISIONS, 3), dtype=np.int32)
    rngs = np.empty((N_STREAMS, 4), dtype=np.uint64)
    seat_slot = np.empty(MAX_PLAYERS, dtype=np.int64)
    no_log = np.empty((0, 5), dtype=np.int32)
    p = rules[R_PLAYERS]
    for i in range(lo, hi):
        g = first + i
        seed_game(seed, g, p, rngs)
        rot = g % p if rotate else 0
        for seat in range(p):
            slot = seat + rot
            seat_slot[seat] = slot - p if slot >= p else slot      # (seat + rot) % p
        play_game(choose_fn, rules, slot_ids, slot_params, seat_slot, rngs, s, buf, out[i], no_log)
        out[i, O_ROTATION] = rot


@njit(cache=True, parallel=True)
def play_games(rules, init, slot_ids, slot_params, rotate, seed, first, out):
    """Games first .. first + len(out) - 1; `init` is unused (every game is dealt)."""
    n = out.shape[0]
    nblocks = min(n, 64)
    for b in prange(nblocks):
        _play_block(policies.no_user_policies, rules, slot_ids, slot_params, rotate, seed, first, out,
                    b * n // nblocks, (b + 1) * n // nblocks)


@njit(cache=True)
def replay(rules, slot_ids, slot_params, seat_slot, rngs, row, log):
    """One game with built-in policies, keeping its decision log (for trace)."""
    s = np.empty(STATE_SIZE, dtype=np.int32)
    buf = np.empty((MAX_DECISIONS, 3), dtype=np.int32)
    play_game(policies.no_user_policies, rules, slot_ids, slot_params, seat_slot, rngs, s, buf, row, log)


def make_play_games(choose_fn):
    """Chunk kernel for user policies (compiled once per process, not disk-cached)."""
    @njit(parallel=True)
    def play_games_user(rules, init, slot_ids, slot_params, rotate, seed, first, out):
        n = out.shape[0]
        nblocks = min(n, 64)
        for b in prange(nblocks):
            _play_block(choose_fn, rules, slot_ids, slot_params, rotate, seed, first, out,
                        b * n // nblocks, (b + 1) * n // nblocks)
    return play_games_user
