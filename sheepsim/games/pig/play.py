"""Whole games inside numba: `play_game` (one game) and `play_games` (a chunk).

Random streams of game g (rng.py), tied to seats and to sources of chance, never to
policies (ANALYSIS-GUIDE rule 2):

    stream 0          unused (reserved; not seeded)
    stream 1 + s      seat s's die: the k-th roll of seat s is its k-th draw
    stream 3 + s      seat s's policy (the random policy's coin)

Dice and policy coins are separate streams so that a randomised policy does not shift
the dice: two threshold policies in the same seat see the same dice for the rolls
they both make (common random numbers stay aligned when decisions diverge).

Policies are assigned to slots; in game g with rotation on, seat s is played by slot
(s + g % P) % P, so every slot plays every seat equally often.
"""

import numpy as np
from numba import njit, prange

from ...rng import rand_below, seed_stream
from .engine import FACES, MAX_ACTIONS, MAX_PLAYERS, O_ROTATION, O_SIZE, S_TO_ACT, STATE_SIZE, \
    ACT_ROLL, outcome, step
from . import policies
from .rules import R_PLAYERS

DIE_STREAM = 1
POLICY_STREAM = DIE_STREAM + MAX_PLAYERS
N_STREAMS = POLICY_STREAM + MAX_PLAYERS
MAX_LOG = 4096      # trace's first log size; replayed with a bigger one if a game is longer


# Not cache=True: it takes the policy dispatcher as an argument, and numba cannot
# disk-cache such signatures (their key holds the function object). Callers that are
# cached (play_games, replay) carry its compiled code in their own cache entry.
@njit
def play_game(choose_fn, rules, init, slot_ids, slot_params, seat_slot, rngs, s, buf, row, log):
    """Play one game from state `init` to the end; write its outcome row.

    If `log` has rows, decision t is written to log[t] as (action, face), face 0 for
    a hold. Returns the number of decisions (so a caller can see a log was too short).
    """
    for k in range(STATE_SIZE):
        s[k] = init[k]
    t = 0
    # The acting seat's rows (policy id, parameters, streams) are taken once per turn,
    # not per decision: each row view costs reference counting, and taking them per
    # decision made whole games about 18% slower (measured, 1 thread).
    seat = 0
    policy_id = slot_ids[seat_slot[0]]
    params = slot_params[seat_slot[0]]
    policy_rng = rngs[POLICY_STREAM]
    die = rngs[DIE_STREAM]
    while s[S_TO_ACT] >= 0:
        if s[S_TO_ACT] != seat:
            seat = s[S_TO_ACT]
            policy_id = slot_ids[seat_slot[seat]]
            params = slot_params[seat_slot[seat]]
            policy_rng = rngs[POLICY_STREAM + seat]
            die = rngs[DIE_STREAM + seat]
        action = choose_fn(policy_id, s, rules, seat, params, policy_rng, buf)
        face = 0
        if action == ACT_ROLL:
            face = 1 + rand_below(die, FACES)
        if t < log.shape[0]:
            log[t, 0] = action
            log[t, 1] = face
        t += 1
        step(s, rules, action, face)
    outcome(s, rules, row)
    return t


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
    buf = np.empty(MAX_ACTIONS, dtype=np.int32)
    rngs = np.zeros((N_STREAMS, 4), dtype=np.uint64)
    seat_slot = np.empty(MAX_PLAYERS, dtype=np.int64)
    no_log = np.empty((0, 2), dtype=np.int32)
    for i in range(lo, hi):
        g = first + i
        for k in range(DIE_STREAM, N_STREAMS):      # stream 0 is unused
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
    """One game with built-in policies, keeping its (action, face) log (for trace);
    returns the number of decisions."""
    s = np.empty(STATE_SIZE, dtype=np.int32)
    buf = np.empty(MAX_ACTIONS, dtype=np.int32)
    return play_game(policies.choose, rules, init, slot_ids, slot_params, seat_slot, rngs, s, buf, row, log)


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
