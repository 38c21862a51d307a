"""Pig kernels: state layout, legal actions, step, outcome (all @njit).

State is ONE int32 vector (`STATE_SIZE`), so it can be copied, compared and hashed:

    slot         meaning
    S_SCORE + s  banked score of seat s (s = 0, 1)
    S_TURN       turn total: points rolled this turn, not yet banked
    S_TO_ACT     seat to act, -1 when the game is over
    S_TURNS      completed turns (a turn ends with a bust or a hold)
    S_ROLLS      dice rolled so far, both seats together

Actions are one int, ACT_ROLL or ACT_HOLD (as a 1-tuple in the contract's hooks,
games/driver.py). The die is chance, not a decision: `chance` draws the face from the
acting seat's die stream and `step` applies it, so a game can be replayed from its log
of (action, face) pairs.

Rules (Neller & Presser 2004): seat 0 starts. On a turn the player repeatedly chooses
roll or hold. A roll of 1 ("pig") ends the turn and loses the turn total; any other
face adds to it. A hold banks the turn total and ends the turn. The game ends when a
player holds with score + turn total >= goal: that player wins at once (the second
player gets no final turn). Rolling stays legal past the goal (pointless, not
forbidden). Option turn_cap ends a game still running after that many completed
turns as a draw.

sheepsim's choice (Neller & Presser leave it open): holding is legal only with a turn
total > 0. Holding on 0 would bank nothing and only pass the turn; forbidding it
keeps "hold" meaning "bank points", makes a turn end with at least one roll, and
means two passive policies cannot pass the turn back and forth until the cap.
Kernels trust their inputs: `game.py` validates before calling them.

The hooks are inline="always": a Pig decision is a few instructions, and calling
step and legal rather than inlining them cost a quarter of the chunk kernel's speed
(measured); the kernels still compile in seconds.
"""

import numpy as np
from numba import njit

from ...rng import rand_below
from ..driver import Shape
from .rules import R_GOAL, R_TURN_CAP

VERSION = 1
MAX_PLAYERS = 2
MAX_ACTIONS = 2
ACTION_SIZE = 1
FACES = 6
BUST = 1            # rules: rolling a 1 ends the turn and loses the turn total

S_SCORE, S_TURN, S_TO_ACT, S_TURNS, S_ROLLS = 0, 2, 3, 4, 5
STATE_SIZE = 6

ACT_ROLL, ACT_HOLD = 0, 1

# Outcome row written by `outcome` / play_game (int32 columns). cowinners is the bitmask
# of winning seats: 1 << winner, or 0 for a capped game (nobody won; Pig never shares).
O_WINNER, O_COWINNERS, O_TURNS, O_CAPPED, O_ROLLS, O_ROTATION = range(6)
O_SCORE = 6
O_SIZE = O_SCORE + MAX_PLAYERS


@njit(cache=True)
def init_state(rules):
    """A fresh game: scores 0, turn total 0, seat 0 to act."""
    s = np.zeros(STATE_SIZE, dtype=np.int32)
    s[S_TO_ACT] = 0
    return s


@njit(cache=True, inline="always")
def is_terminal(s):
    return s[S_TO_ACT] < 0


@njit(cache=True, inline="always")
def start(s, rules, aux, rng):
    """The game starts from the state in `aux` (initial_state: a fresh game)."""
    for k in range(STATE_SIZE):
        s[k] = aux[k]


@njit(cache=True, inline="always")
def actor(s, rules):
    return s[S_TO_ACT]


@njit(cache=True, inline="always")
def legal(s, rules, aux, buf):
    """Fill buf (int32[MAX_ACTIONS, 1]) with the legal actions; return their count.

    Order: roll, then hold (legal only with a turn total > 0). None when over.
    """
    if s[S_TO_ACT] < 0:
        return 0
    buf[0, 0] = ACT_ROLL
    if s[S_TURN] > 0:
        buf[1, 0] = ACT_HOLD
        return 2
    return 1


@njit(cache=True, inline="always")
def nature(s, rules, aux, rng):
    """Pig has no decision of the rules' own (never called)."""
    return ACT_ROLL


@njit(cache=True, inline="always")
def chance(s, rules, aux, action, rng):
    """The die of a roll (1..6) from the seat's die stream; -1 for a hold."""
    if action[0] == ACT_ROLL:
        return 1 + rand_below(rng, FACES)
    return -1


@njit(cache=True, inline="always")
def step(s, rules, aux, action, face):
    apply(s, rules, action[0], face)


@njit(cache=True, inline="always")
def _end_turn(s, rules, seat):
    """The turn passes to the other seat, unless the turn cap ends the game."""
    s[S_TURN] = 0
    s[S_TURNS] += 1
    if s[S_TURNS] >= rules[R_TURN_CAP]:
        s[S_TO_ACT] = -1
    else:
        s[S_TO_ACT] = 1 - seat


@njit(cache=True, inline="always")
def apply(s, rules, action, face):
    """Apply one legal action in place; `face` (1..6) is the die of a roll, unused by a hold."""
    seat = s[S_TO_ACT]
    if action == ACT_HOLD:
        s[S_SCORE + seat] += s[S_TURN]
        if s[S_SCORE + seat] >= rules[R_GOAL]:
            # rules: reaching the goal by holding wins at once
            s[S_TURN] = 0
            s[S_TURNS] += 1
            s[S_TO_ACT] = -1
        else:
            _end_turn(s, rules, seat)
        return
    s[S_ROLLS] += 1
    if face == BUST:
        _end_turn(s, rules, seat)
    else:
        s[S_TURN] += face


@njit(cache=True, inline="always")
def outcome(s, rules, row):
    """Write the outcome row (O_* columns) of a finished game.

    The seat whose banked score reached the goal wins; if nobody did, the turn cap
    ended the game: a draw (winner -1, cowinners 0, capped 1).
    """
    winner = -1
    for seat in range(MAX_PLAYERS):
        row[O_SCORE + seat] = s[S_SCORE + seat]
        if s[S_SCORE + seat] >= rules[R_GOAL]:
            winner = seat
    row[O_WINNER] = winner
    row[O_COWINNERS] = 1 << winner if winner >= 0 else 0
    row[O_CAPPED] = 1 if winner < 0 else 0
    row[O_TURNS] = s[S_TURNS]
    row[O_ROLLS] = s[S_ROLLS]


@njit(cache=True)
def progress(s, rules, out):
    """Each seat's standing: its banked score, into out[seat] (float64)."""
    for q in range(MAX_PLAYERS):
        out[q] = s[S_SCORE + q]


def census(s, rules, aux) -> np.ndarray:
    """Pig moves nothing between places: nothing to conserve."""
    return np.zeros(0, dtype=np.int64)


# The kernels' sizes and random streams (driver.Shape), tied to seats and to sources of
# chance, never to policies (so that seat rotation keeps common random numbers
# aligned): stream 0 of game g is unused; luck + s = 1 + s is seat s's die (the k-th
# roll of seat s is its k-th draw); policy + s = 3 + s is seat s's policy (the random
# policy's coin). Dice and policy coins are separate streams so that a randomised
# policy does not shift the dice: two threshold policies in the same seat see the same
# dice for the rolls they both make.
SHAPE = Shape(STATE_SIZE, MAX_ACTIONS, ACTION_SIZE, luck=1, policy=1 + MAX_PLAYERS, streams=1 + 2 * MAX_PLAYERS,
              rotation=O_ROTATION, max_players=MAX_PLAYERS, cowinners=O_COWINNERS)
