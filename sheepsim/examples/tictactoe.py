"""Tic-tac-toe: a sixth game, written as a plug-in through sheepsim's public contract.

Nothing here is inside sheepsim/games/: this one file declares the engine's hooks, two
built-in policies, the Engine record and the GameSpec, and registers the game. Load it
with --plugin (or through the `sheepsim.games` entry point group of a package):

    sheepsim --plugin tictactoe.py simulate tictactoe -n 100000
    sheepsim --plugin tictactoe.py simulate tictactoe --policy alphabeta:depth=9 -n 20

Its answers are known exactly, so it checks the machinery: under uniform random play
the first player wins 737/1260 = 0.58492 of games, the second 363/1260 = 0.28810, and
160/1260 = 0.12698 are drawn; perfect play always draws (alphabeta searching all 9
plies must draw against itself).

The state is one int32 vector, as the contract asks (sheepsim/ARCHITECTURE.md):

    slot      meaning
    0 .. 8    the cells, row by row: 0 empty, 1 seat 0's X, 2 seat 1's O
    TO_ACT    the seat to move, -1 once the game is over
    MOVES     marks placed
    WINNER    the seat with three in a row, -1 for none (yet, or a draw)

An action is one integer, the cell (0..8). Seat 0 always plays X and moves first.
"""

from __future__ import annotations

import sys

import numpy as np
from numba import njit

from sheepsim import search
from sheepsim.games import fast, register_game
from sheepsim.games.driver import Shape
from sheepsim.games.kernels import Engine, load
from sheepsim.games.turngame import turn_game
from sheepsim.policies import register_policy
from sheepsim.rng import rand_below

CELLS = 9
TO_ACT, MOVES, WINNER = 9, 10, 11
STATE_SIZE = 12
MAX_PLAYERS = 2
# the result row: winner (-1: a draw), the winners' bit mask, marks placed, then the
# seat rotation the driver records
O_WINNER, O_COWINNERS, O_MOVES, O_ROTATION = range(4)
O_SIZE = 4
LINES = np.array([[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]],
                 dtype=np.int64)


# --- the engine: the hooks of the contract -------------------------------------------------

@njit(cache=True)
def start(s, rules, aux, rng):
    """An empty board, seat 0 to move."""
    for k in range(STATE_SIZE):
        s[k] = 0
    s[WINNER] = -1


@njit(cache=True)
def actor(s, rules):
    return s[TO_ACT]


@njit(cache=True)
def legal(s, rules, aux, buf):
    """The empty cells, in order; none once the game is over."""
    if s[TO_ACT] < 0:
        return 0
    n = 0
    for c in range(CELLS):
        if s[c] == 0:
            buf[n, 0] = c
            n += 1
    return n


@njit(cache=True)
def nature(s, rules, aux, rng):
    """The rules never decide anything themselves (never called)."""
    return 0


@njit(cache=True)
def chance(s, rules, aux, action, rng):
    """No luck: a mark lands where it is put."""
    return -1


@njit(cache=True)
def _three(s, mark):
    for i in range(LINES.shape[0]):
        if s[LINES[i, 0]] == mark and s[LINES[i, 1]] == mark and s[LINES[i, 2]] == mark:
            return True
    return False


@njit(cache=True)
def step(s, rules, aux, action, c):
    """Put the mover's mark on the cell; three in a row wins, a full board draws."""
    seat = s[TO_ACT]
    s[action[0]] = seat + 1
    s[MOVES] += 1
    if _three(s, seat + 1):
        s[WINNER] = seat
        s[TO_ACT] = -1
    elif s[MOVES] == CELLS:
        s[TO_ACT] = -1
    else:
        s[TO_ACT] = 1 - seat


@njit(cache=True)
def outcome(s, rules, row):
    w = s[WINNER]
    row[O_WINNER] = w
    row[O_COWINNERS] = 1 << w if w >= 0 else 0
    row[O_MOVES] = s[MOVES]


@njit(cache=True)
def progress(s, rules, out):
    """Each seat's standing: 10 for three in a row, else the lines it still holds
    alone (its marks, no other), each weighted by its marks in it. The search's
    cut-offs and the experience metrics read it."""
    for q in range(MAX_PLAYERS):
        out[q] = 0.0
    for q in range(MAX_PLAYERS):
        if s[WINNER] == q:
            out[q] = 10.0
            continue
        for i in range(LINES.shape[0]):
            mine, theirs = 0, 0
            for k in range(3):
                v = s[LINES[i, k]]
                mine += v == q + 1
                theirs += v == 2 - q
            if theirs == 0:
                out[q] += mine
    return


def census(s, rules, aux) -> np.ndarray:
    """(Python) what a game conserves: empty cells plus marks placed, always 9 (each
    move fills exactly one empty cell)."""
    return np.array([int((s[:CELLS] == 0).sum()) + int(s[MOVES])], dtype=np.int64)


# --- the built-in policies ------------------------------------------------------------------

RANDOM, TACTICAL = 0, 1
LAST_BUILTIN = TACTICAL


@njit(cache=True)
def random_policy(s, rules, aux, seat, params, rng, buf):
    """Uniform over the empty cells."""
    n = legal(s, rules, aux, buf)
    return buf[rand_below(rng, n), 0]


@njit(cache=True)
def _completes(s, cell, mark):
    """Whether `mark` on the empty `cell` makes three in a row."""
    for i in range(LINES.shape[0]):
        hits, here = 0, False
        for k in range(3):
            x = LINES[i, k]
            if x == cell:
                here = True
            elif s[x] == mark:
                hits += 1
        if here and hits == 2:
            return True
    return False


@njit(cache=True)
def tactical(s, rules, aux, seat, params, rng, buf):
    """Wins if it can, blocks the other's three if it must, else takes the centre,
    else a random empty cell."""
    n = legal(s, rules, aux, buf)
    for want in (seat + 1, 2 - seat):
        for i in range(n):
            if _completes(s, buf[i, 0], want):
                return buf[i, 0]
    if s[4] == 0:
        return 4
    return buf[rand_below(rng, n), 0]


@njit(cache=True)
def choose(policy_id, s, rules, aux, seat, params, rng, buf, scratch):
    """The built-ins' dispatcher, by id (the kernels call it)."""
    if policy_id == TACTICAL:
        return tactical(s, rules, aux, seat, params, rng, buf)
    return random_policy(s, rules, aux, seat, params, rng, buf)


@njit(cache=True)
def no_user_policies(policy_id, s, rules, aux, seat, params, rng, buf):
    """The built-in kernels' stand-in for a user-policy dispatcher: never called."""
    return 0


# --- the declaration ---------------------------------------------------------------------------

ENGINE = Engine(
    start, actor, legal, nature, chance, step, outcome, progress, choose,
    no_user_policies=no_user_policies, last_builtin=LAST_BUILTIN, view=fast.array,
    # streams: 0 the game's own chance (unused), 1 + q seat q's policy; no decision luck
    shape=Shape(state_size=STATE_SIZE, max_actions=CELLS, action_size=1, luck=1, policy=1, streams=1 + MAX_PLAYERS,
                rotation=O_ROTATION, max_players=MAX_PLAYERS, cowinners=O_COWINNERS),
    o_size=O_SIZE, rollout_random=RANDOM, rollout_greedy=TACTICAL, exact=True, census=census)
KERNELS = load(sys.modules[__name__])


def board(s, rules) -> str:
    """The board as three lines of X, O and . (the trace's picture)."""
    marks = ".XO"
    return "\n".join(" ".join(marks[int(s[3 * r + c])] for c in range(3)) for r in range(3))


GAME = register_game(turn_game(
    declaration=sys.modules[__name__], name="tictactoe", title="Tic-tac-toe", players=(2, 2),
    columns={"winner": (O_WINNER, np.int8), "cowinners": (O_COWINNERS, np.int8), "turns": (O_MOVES, np.int32)},
    turn_unit="marks placed", state_text=board, action_text=lambda a: f"cell {a[0]}",
    skill_policies=("tactical", "random"), compile_seconds=10,
    policy_help="A policy is an @njit function policy(s, rules, aux, seat, params, rng, buf) -> cell (0..8),\n"
                "an empty cell of s[0:9] (0 empty, 1 X = seat 0, 2 O = seat 1)."))

register_policy("tictactoe", "random", policy_id=RANDOM, doc="uniform over the empty cells")(random_policy)
register_policy("tictactoe", "tactical", policy_id=TACTICAL,
                doc="wins if it can, blocks the other's three if it must, else the centre, else a random cell")(
    tactical)
search.register("tictactoe", "Tic-tac-toe", hidden=False, greedy="tactical (win, block, centre)")
