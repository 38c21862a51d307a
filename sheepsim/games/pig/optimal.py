"""Pig's optimal policy: value iteration over (own score i, opponent score j, turn total k).

Neller & Presser ("Optimal Play of the Dice Game Pig", 2004) solve Pig exactly: the
probability P[i, j, k] that the player about to act, with banked score i against the
opponent's j and turn total k, wins if both players play optimally, satisfies

    roll(i, j, k) = ( (1 - P[j, i, 0])                  a 1: the turn total is lost
                      + sum over faces r = 2..6 of W(i, j, k + r) ) / 6
    hold(i, j, k) = 1 - P[j, i + k, 0]                  bank k, the opponent starts a turn
    P[i, j, k]    = max(roll, hold) for k > 0,  roll for k = 0

with W(i, j, k) = 1 when i + k >= goal (holding wins at once) and P[i, j, k] below it.
These are sheepsim's rules exactly (engine.py): holding is legal only with a turn
total > 0, so at k = 0 the only action is to roll; reaching the goal by holding wins at
once; rolling a 1 loses the turn total. (A hold at k = 0, which the equations as
written would allow, never beats a roll there: a roll busts at worst into the same
position and otherwise adds points. So the values are Neller & Presser's: P[0, 0, 0]
= 0.530593.)

How it is solved. The equations are circular only through a bust: a hold or a roll
keeps or raises the banked total i + j, and only a bust leads from (i, j, .) to (j, i,
0), the same total. So the score pairs are solved by decreasing i + j (every position
a hold leads to is final by then), and within one pair {(i, j), (j, i)} by value
iteration: sweep both turns' tables, k from high to low (each roll looks only at higher
k, already swept), until no value changes by more than `tol` in a sweep. It is value
iteration in a good order (Gauss-Seidel), not another method; tests/test_pig_optimal.py
checks it against plain value iteration over the whole table for a small goal. The
values then lie within a few tol of the exact ones (measured against tol 1e-15: about
2 tol at goal 100, 4 tol at goal 200).

The decision. After convergence the policy compares the two action values from the
converged table: hold when hold(i, j, k) >= roll(i, j, k) (a tie holds: banking is the
surer of two equal chances), else roll. The table is computed in Python once per
(goal, tol) and cached for the process (`solution`); runs that use `optimal` carry it
in the kernels' aux (`policy_data`), packed as bits:

    aux slot                         meaning
    0 .. STATE_SIZE - 1              the start state (game.initial_state)
    STATE_SIZE + A_GOAL              goal the table was solved for
    STATE_SIZE + A_TOL .. A_TOL + 1  its tol, the float64's bits as two int32
    STATE_SIZE + A_TABLE + (i * goal + j) * words(goal) + k // 32
                                     bit k % 32: 1 hold, 0 roll, at (i, j, k) with
                                     0 < k and i + k < goal (others are not read)
    then, in runs with a `learned` seat, its stop table (games/stoptable.py)

Only runs with an `optimal` seat get the table, so every other run's aux, and so its
results and golden hashes, are the start state alone.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
from numba import njit

from ...errors import SheepsimError
from .engine import BUST, FACES, STATE_SIZE

MAX_GOAL = 200          # the value table holds goal^3 float64 (64 MB at 200) and solves in seconds
MIN_TURN_CAP = 10_000   # the solved game has no cap; see check_rules
# sweeps per score pair before giving up: a safety net, never reached (the slowest pair,
# 38 points from the goal each, takes 177 sweeps to tol 1e-15 at goal 100 and at 200)
MAX_SWEEPS = 100_000
DEFAULT_TOL = 1e-9
TOL_RANGE = (1e-15, 1e-3)

# aux layout after the start state (see the module docstring)
A_GOAL, A_TOL, A_TABLE = 0, 1, 3


@njit(cache=True)
def words(goal):
    """int32 words of decision bits per score pair (one bit per turn total 0..goal-1)."""
    return (goal + 31) // 32


@njit(cache=True)
def _win(p, goal, i, j, k):
    """W(i, j, k): 1 when banking k reaches the goal (the player holds and wins), else P."""
    if i + k >= goal:
        return 1.0
    return p[i, j, k]


@njit(cache=True)
def _roll(p, goal, i, j, k):
    """The value of rolling at (i, j, k) under the table p."""
    # rules: a 1 loses the turn total and passes the turn, to the opponent at (j, i, 0)
    v = 1.0 - p[j, i, 0]
    for face in range(BUST + 1, FACES + 1):
        v += _win(p, goal, i, j, k + face)
    return v / FACES


@njit(cache=True)
def _hold(p, goal, i, j, k):
    """The value of holding at (i, j, k), k > 0: 1 if it reaches the goal, else the
    opponent starts a turn at (j, i + k, 0)."""
    if i + k >= goal:
        return 1.0
    return 1.0 - p[j, i + k, 0]


@njit(cache=True)
def _sweep(p, goal, i, j):
    """One value-iteration sweep of the player at (i, j): P[i, j, k] for k from goal - i - 1
    down to 0. Returns the largest change."""
    change = 0.0
    for k in range(goal - i - 1, -1, -1):
        v = _roll(p, goal, i, j, k)
        if k > 0:
            # rules: holding is legal only with a turn total > 0
            v = max(v, _hold(p, goal, i, j, k))
        change = max(change, abs(v - p[i, j, k]))
        p[i, j, k] = v
    return change


@njit(cache=True)
def _solve(goal, tol, p, sweeps):
    """Fill p (float64[goal, goal, goal], zeros) with the optimal win probabilities; the
    sweeps each score pair took go to sweeps[i, j]. Returns False if a pair did not
    converge within MAX_SWEEPS."""
    for total in range(2 * goal - 2, -1, -1):
        for i in range(max(0, total - goal + 1), total // 2 + 1):
            j = total - i
            n = 0
            while True:
                change = _sweep(p, goal, i, j)
                if j != i:
                    change = max(change, _sweep(p, goal, j, i))
                n += 1
                if change <= tol:
                    break
                if n >= MAX_SWEEPS:
                    return False
            sweeps[i, j] = sweeps[j, i] = n
    return True


@njit(cache=True)
def _decide(p, goal, hold):
    """hold[i, j, k] = 1 where the converged table's hold value is at least its roll value
    (ties hold), for 0 < k, i + k < goal; 0 (roll) elsewhere in the table."""
    for i in range(goal):
        for j in range(goal):
            for k in range(1, goal - i):
                hold[i, j, k] = _hold(p, goal, i, j, k) >= _roll(p, goal, i, j, k)


@dataclass(frozen=True)
class Solution:
    """The solved game for one (goal, tol).

    p[i, j, k]: the player to act's win probability at (i, j, k), i + k < goal (float64[goal,
    goal, goal]; entries with i + k >= goal are 0, not read: holding wins there);
    hold[i, j, k]: the decision, True to hold (bool, same shape); sweeps[i, j]: the
    value-iteration sweeps the score pair took."""

    goal: int
    tol: float
    p: np.ndarray
    hold: np.ndarray
    sweeps: np.ndarray

    def roll_value(self, i: int, j: int, k: int) -> float:
        return float(_roll(self.p, self.goal, i, j, k))

    def hold_value(self, i: int, j: int, k: int) -> float:
        """The value of holding (k > 0; holding on 0 is not legal)."""
        return float(_hold(self.p, self.goal, i, j, k))

    def decides_hold(self, i: int, j: int, k: int) -> bool:
        """The policy's decision at (i, j, k): never hold on 0, always hold to the goal."""
        if k == 0:
            return False
        return i + k >= self.goal or bool(self.hold[i, j, k])

    def boundary(self) -> np.ndarray:
        """int[i, j]: the least turn total at which the policy holds at own score i and
        opponent's j (goal - i where it rolls on until banking wins). Neller & Presser's
        roll/hold boundary is of this shape but for a few (i, j) where holding at one
        total and rolling at a higher one alternate; this is where holding first starts."""
        goal = self.goal
        k = np.arange(goal + 1)[None, None, :]        # to goal: at own score 0 only k = goal wins
        hold = np.concatenate([self.hold, np.zeros((goal, goal, 1), dtype=bool)], axis=2)
        holds = (hold & (k > 0)) | (np.arange(goal)[:, None, None] + k >= goal)
        return np.argmax(holds, axis=2)


def evaluate(thresholds: np.ndarray, goal: int, tol: float = 1e-13, max_sweeps: int = 100_000) -> np.ndarray:
    """Policy evaluation of a threshold rule: V[i, j, k], the win chance of the player to
    act at (i, j, k) when both players hold once the turn total reaches thresholds[i, j]
    (int[goal, goal]; never on 0, always when banking reaches the goal) and roll below
    it. The equations above with max(roll, hold) replaced by the rule's action, solved by
    plain value iteration over the whole table until no value moves by more than tol in
    a sweep (numpy; about 10 s at goal 100). V[0, 0, 0] is the first player's win rate in
    self-play: the learned policy's calibration against the optimum's P[0, 0, 0]."""
    t = np.asarray(thresholds).reshape(goal, goal)
    v = np.zeros((goal, goal, goal + 7))
    i = np.arange(goal)[:, None]
    j = np.arange(goal)[None, :]
    for _ in range(max_sweeps):
        before = v.copy()
        for k in range(goal - 1, -1, -1):
            live = i + k < goal
            roll = (1.0 - v[:, :, 0].T) / 6.0
            for r in range(2, 7):
                roll = roll + np.where(i + k + r >= goal, 1.0, v[:, :, min(k + r, goal + 6)]) / 6.0
            hold = 1.0 - v[j, np.minimum(i + k, goal - 1), 0]      # V[opponent j, own i + k, 0]
            v[:, :, k] = np.where(live, np.where((k > 0) & (k >= t), hold, roll), 0.0)
        if np.abs(v - before).max() < tol:
            return v
    raise SheepsimError(f"the policy evaluation of a Pig stop rule did not converge in {max_sweeps} sweeps")


def check_tol(tol: float) -> None:
    if not TOL_RANGE[0] <= tol <= TOL_RANGE[1]:
        raise SheepsimError(f"optimal tol={tol:g} is out of range; allowed: {TOL_RANGE[0]:g}..{TOL_RANGE[1]:g}")


def check_goal(goal: int) -> None:
    if goal > MAX_GOAL:
        raise SheepsimError(f"the optimal policy solves Pig up to goal={MAX_GOAL} (its table grows as goal^3), "
                            f"not goal={goal}; choose a smaller goal or another policy")


@functools.cache
def solution(goal: int, tol: float = DEFAULT_TOL) -> Solution:
    """The solved game for `goal` (10..MAX_GOAL) and `tol`, computed once per process."""
    check_goal(goal)
    check_tol(tol)
    p = np.zeros((goal, goal, goal))
    sweeps = np.zeros((goal, goal), dtype=np.int64)
    if not _solve(goal, tol, p, sweeps):
        raise SheepsimError(f"the optimal policy's value iteration did not converge to tol={tol:g} within "
                            f"{MAX_SWEEPS:,} sweeps (goal={goal}); choose a larger tol")
    hold = np.zeros((goal, goal, goal), dtype=np.bool_)
    _decide(p, goal, hold)
    for a in (p, hold, sweeps):
        a.flags.writeable = False           # shared by every caller of the cache
    return Solution(goal, tol, p, hold, sweeps)


@functools.cache
def table(goal: int, tol: float = DEFAULT_TOL) -> np.ndarray:
    """What a run with `optimal` appends to the start state in aux: the header (goal, tol)
    and the decision bits (module docstring), int32."""
    sol = solution(goal, tol)
    w = words(goal)
    padded = np.zeros((goal, goal, w * 32), dtype=np.uint32)
    padded[:, :, :goal] = sol.hold
    # bit b of word w holds turn total 32 w + b
    bits = (padded.reshape(goal, goal, w, 32) << np.arange(32, dtype=np.uint32)).sum(axis=3, dtype=np.uint32)
    header = np.zeros(A_TABLE, dtype=np.int32)
    header[A_GOAL] = goal
    header[A_TOL:A_TOL + 2] = np.array([tol], dtype=np.float64).view(np.int32)
    out = np.concatenate([header, bits.reshape(-1).view(np.int32)])
    out.flags.writeable = False
    return out


def check_rules(goal: int, turn_cap: int, tols: list[float]) -> None:
    """Refuse, in one line, a run whose `optimal` seats could not play what was solved."""
    _one_tol(tols)
    check_goal(goal)
    if turn_cap < MIN_TURN_CAP:
        # The solved game has no cap. With the cap at 10,000 turns (the default) a game
        # that reaches it is so rare that the capped game is the solved one; a lower cap
        # makes another game, whose optimal play near the cap is not this table's.
        raise SheepsimError(f"the optimal policy is solved for Pig without a turn cap and plays only with "
                            f"turn_cap >= {MIN_TURN_CAP} (the default), not turn_cap={turn_cap}")


def _one_tol(tols: list[float]) -> None:
    if len(tols) > 1:
        raise SheepsimError(f"the optimal seats ask for different tol values ({', '.join(f'{t:g}' for t in tols)}): "
                            f"a run carries one decision table; give every optimal seat the same tol")


def check_aux(aux: np.ndarray, goal: int, tols: list[float], after: int = 0) -> None:
    """The guard of the kernels' entry points (play_chunk, trace): a run with `optimal`
    seats must carry the table for its goal and tol, or the kernel would read past aux.
    `after`: the slots that follow the table (a learned seat's stop table)."""
    if not tols:
        return
    _one_tol(tols)
    have = table_of(aux[:len(aux) - after])
    if have != (goal, tols[0]):
        found = "the start state alone" if have is None else f"the table of goal={have[0]}, tol={have[1]:g}"
        raise SheepsimError(f"the optimal policy (goal={goal}, tol={tols[0]:g}) needs its decision table in aux, "
                            f"which holds {found}: build aux with sheepsim.start.kernel_aux")


def table_of(aux: np.ndarray) -> tuple[int, float] | None:
    """(goal, tol) of the decision table in a run's aux, None if aux is the start state alone."""
    if len(aux) <= STATE_SIZE + A_TABLE:
        return None
    head = np.asarray(aux[STATE_SIZE:STATE_SIZE + A_TABLE], dtype=np.int32)
    goal = int(head[A_GOAL])
    if len(aux) != STATE_SIZE + A_TABLE + goal * goal * words(goal):
        return None
    return goal, float(head[A_TOL:A_TOL + 2].copy().view(np.float64)[0])
