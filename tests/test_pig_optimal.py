"""Pig's optimal policy: the solved game (games/pig/optimal.py) and the kernel policy.

Exact answers anchor it: the solver's P(0, 0, 0) is Neller & Presser's
0.530593; a plain-Python value iteration over the whole table of a small goal gives the
same values and decisions; the kernel policy takes the table's decision in every state
and at every decision of replayed games; simulated optimal play matches the solved win
probability, and an exact evaluation of optimal against hold-at-t. Bad input through
the CLI is one line, exit 2, nothing written.
"""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from sheepsim.stats.intervals import wilson_interval
from sheepsim.errors import SheepsimError
from sheepsim.games import get_game
from sheepsim.games import wrappers as W
from sheepsim.games.pig import engine as E
from sheepsim.games.pig import optimal as O
from sheepsim.games.pig.play import KERNELS as PL
from sheepsim.games.pig import policies as POL
from sheepsim.games.pig import rules as RU
from sheepsim.policies import seat_specs
from sheepsim.runner import simulate
from sheepsim.start import kernel_aux
from conftest import assert_bad, run_cli

GAME = get_game("pig")
PUBLISHED_OPTIMAL_FIRST_WIN = 0.530593      # Neller & Presser, goal 100, both players optimal


# ---------------------------------------------------------------------------
# The solver against published and independent answers
# ---------------------------------------------------------------------------


def test_first_player_wins_the_published_0_530593():
    sol = O.solution(100)
    assert sol.p[0, 0, 0] == pytest.approx(PUBLISHED_OPTIMAL_FIRST_WIN, abs=1e-6)
    # at k = 0 the only action is a roll: the value is the roll value (to within the
    # tolerance, one update further), not a hold's
    assert sol.p[0, 0, 0] == pytest.approx(sol.roll_value(0, 0, 0), abs=O.DEFAULT_TOL)
    assert not sol.decides_hold(0, 0, 0)


def plain_value_iteration(goal: int, tol: float = 1e-14) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Textbook value iteration, independent of the solver's order: every state updated at
    once from the previous sweep (Jacobi), over the whole table, until nothing moves by
    more than tol. Returns (P, roll, hold) as float64[goal, goal, goal] over (i, j, k), 1
    where i + k >= goal (the mover holds and wins)."""
    i, j, k = np.ogrid[:goal, :goal, :goal]
    live = (i + k < goal) & (j >= 0)
    banked = np.minimum(i + k, goal - 1)            # i + k, clipped where not live
    p = np.where(live, 0.0, 1.0)
    while True:
        ahead = np.concatenate([p, np.ones((goal, goal, 6))], axis=2)    # turn totals past the table: won
        start = p[:, :, 0]
        # a 1 passes the turn to the opponent at (j, i, 0); faces 2..6 add to k
        roll = (1.0 - start.T[:, :, None] + sum(ahead[:, :, face:face + goal] for face in range(2, 7))) / 6
        hold = 1.0 - start[j, banked]               # bank k: the opponent starts at (j, i + k, 0)
        new = np.where(live, np.where(k > 0, np.maximum(roll, hold), roll), 1.0)
        change = np.abs(new - p).max()
        p = new
        if change <= tol:
            return p, roll, hold


def test_solver_equals_plain_value_iteration_on_a_small_goal():
    # goal 50: the smallest goals are all "roll until banking reaches the goal" (up to 37),
    # here the optimal player holds in thousands of states, so decisions can differ
    goal = 50
    p, roll, hold = plain_value_iteration(goal)
    sol = O.solution(goal, 1e-14)
    i, _, k = np.ogrid[:goal, :goal, :goal]
    live = np.broadcast_to(i + k < goal, p.shape)
    # Jacobi stops with its error a few hundred times its last change
    assert np.abs(sol.p - p)[live].max() < 1e-11
    decided = live & (k > 0)
    # no near-tie, so the two computations must agree on every decision
    assert np.abs(hold - roll)[decided].min() > 1e-9
    assert np.array_equal(sol.hold[decided], (hold > roll)[decided])
    assert 1000 < sol.hold[decided].sum() < decided.sum() // 2


def test_tol_bounds_the_value_error():
    exact = O.solution(100, 1e-15).p
    for tol in (1e-9, 1e-6):
        # measured about 2 tol at goal 100 (the policy's help says so)
        assert np.abs(O.solution(100, tol).p - exact).max() < 3 * tol
    # the default tolerance already takes the exact decisions
    assert np.array_equal(O.solution(100).hold, O.solution(100, 1e-15).hold)


# ---------------------------------------------------------------------------
# The kernel policy reads the table
# ---------------------------------------------------------------------------


@njit
def kernel_decisions(goal, rules, aux, out):
    """out[seat, i, j, k]: the kernel policy's action for `seat` with own score i, the
    opponent's j and turn total k."""
    s = np.zeros(E.STATE_SIZE, dtype=np.int32)
    buf = np.zeros((E.MAX_ACTIONS, E.ACTION_SIZE), dtype=np.int32)
    params = np.zeros(8)
    rng = np.zeros(4, dtype=np.uint64)
    for seat in range(2):
        for i in range(goal):
            for j in range(goal):
                for k in range(goal):
                    s[E.S_SCORE + seat] = i
                    s[E.S_SCORE + 1 - seat] = j
                    s[E.S_TURN] = k
                    s[E.S_TO_ACT] = seat
                    out[seat, i, j, k] = POL.optimal(s, rules, aux, seat, params, rng, buf)


# 4 words of bits per score pair; 2, the second one partly used (goals up to 37 never hold early)
@pytest.mark.parametrize("goal", [100, 50])
def test_kernel_policy_takes_the_table_decision_in_every_state(goal):
    rules = RU.make(2, {"goal": goal})
    sol = O.solution(goal)
    aux = kernel_aux(GAME, rules, None, seat_specs("pig", ["optimal"], 2))
    out = np.full((2, goal, goal, goal), -1, dtype=np.int64)
    kernel_decisions(goal, RU.to_array(rules), aux, out)
    i, _, k = np.ogrid[:goal, :goal, :goal]
    expected = np.where((k > 0) & (sol.hold | (i + k >= goal)), E.ACT_HOLD, E.ACT_ROLL)
    assert np.array_equal(out[0], expected) and np.array_equal(out[1], expected)


def optimal_decisions(rules, specs, seed: int, games: int):
    """(i, j, k, action) of every decision an `optimal` seat took in games 0..games-1, read
    from the replay log (as trace shows them) and replayed through the engine."""
    arr = RU.to_array(rules)
    aux = kernel_aux(GAME, rules, None, specs)
    for g in range(games):
        log, _, slots, _ = W.replay(PL, arr, aux, specs, True, seed, g)
        s = aux[:E.STATE_SIZE].copy()
        for who, action, face in log:
            if specs[int(slots[who])].policy.name == "optimal":
                yield int(s[E.S_SCORE + who]), int(s[E.S_SCORE + 1 - who]), int(s[E.S_TURN]), int(action)
            E.apply(s, arr, int(action), int(max(face, 0)))


def test_kernel_decision_equals_the_table_at_every_decision_of_replayed_games():
    rules = RU.make(2, {})
    sol = O.solution(100)
    seen = {"roll": 0, "hold": 0, "high": 0}
    # against hold:t=20 and against random, which leaves optimal far ahead or behind
    for field in ("hold:t=20", "random"):
        for i, j, k, action in optimal_decisions(rules, seat_specs("pig", ["optimal", field], 2), 5, 60):
            assert action == (E.ACT_HOLD if sol.decides_hold(i, j, k) else E.ACT_ROLL), (i, j, k)
            seen["hold" if action == E.ACT_HOLD else "roll"] += 1
            seen["high"] += k >= 32          # a decision read from a score pair's second word of bits
    assert min(seen.values()) > 0, seen


def test_a_run_without_its_table_is_refused_not_read_past_aux():
    rules = RU.make(2, {})
    arr, specs = RU.to_array(rules), seat_specs("pig", ["optimal", "hold"], 2)
    with pytest.raises(SheepsimError, match="needs its decision table in aux, which holds the start state alone"):
        GAME.play_chunk(arr, GAME.initial_state(rules, None), specs, True, 0, 0, 10)
    other = kernel_aux(GAME, rules, None, seat_specs("pig", ["optimal:tol=1e-6"], 2))
    with pytest.raises(SheepsimError, match="holds the table of goal=100, tol=1e-06"):
        GAME.trace(rules, specs, 0, 0, True, other, False)
    # runs without an optimal seat keep the start state alone as aux (their results unchanged)
    assert np.array_equal(kernel_aux(GAME, rules, None, seat_specs("pig", ["hold"], 2)),
                          GAME.initial_state(rules, None))


# ---------------------------------------------------------------------------
# Simulated play
# ---------------------------------------------------------------------------


def test_simulated_first_player_win_rate_is_the_solved_one():
    n = 200_000
    df = simulate(GAME, RU.make(2, {}), seat_specs("pig", ["optimal"], 2), n, seed=2004, rotate=False).results
    assert not df["capped"].any()
    wins = int((df["winner"] == 0).sum())
    lo, hi = wilson_interval(wins, n, 0.99)
    assert lo <= PUBLISHED_OPTIMAL_FIRST_WIN <= hi, f"seat 0 won {wins / n:.5f} [{lo:.5f}, {hi:.5f}] of {n:,}"


def exact_optimal_against_hold(goal: int, t: int) -> tuple[float, float]:
    """P(optimal wins) against hold-at-t, exactly: (optimal first, hold first).

    A[i, j, k]: optimal to act at (i, j, k) against the hold player's j; H[j, i]: the
    hold player about to start a turn with j against optimal's i. A turn keeps or raises
    i + j except a bust, so pairs go by decreasing i + j; within one, A[i, j, .] and
    H[j, i] depend on each other only through busts: A is affine in H[j, i], so the pair
    is one linear equation in it."""
    sol = O.solution(goal)
    A = np.zeros((goal, goal, goal))
    H = np.zeros((goal, goal))

    def hold_turn(score: int) -> dict[int, float]:
        """{points banked: probability} of a hold-at-t turn from `score` (0: a bust)."""
        out: dict[int, float] = {}
        frontier = {0: 1.0}
        while frontier:
            nxt: dict[int, float] = {}
            for total, prob in frontier.items():
                if total > 0 and (total >= t or score + total >= goal):
                    out[total] = out.get(total, 0.0) + prob
                    continue
                out[0] = out.get(0, 0.0) + prob / 6
                for face in range(2, 7):
                    nxt[total + face] = nxt.get(total + face, 0.0) + prob / 6
            frontier = nxt
        return out

    def optimal_turn(i: int, j: int, h: float) -> np.ndarray:
        """A[i, j, k] for every k, with H[j, i] = h."""
        a = np.zeros(goal - i)
        for k in range(goal - i - 1, -1, -1):
            if sol.decides_hold(i, j, k):
                a[k] = H[j, i + k]
            else:
                a[k] = (h + sum(1.0 if i + k + f >= goal else a[k + f] for f in range(2, 7))) / 6
        return a

    turns = [hold_turn(j) for j in range(goal)]
    for total in range(2 * goal - 2, -1, -1):
        for i in range(max(0, total - goal + 1), min(goal - 1, total) + 1):
            j = total - i
            base = optimal_turn(i, j, 0.0)
            slope = optimal_turn(i, j, 1.0) - base
            # H[j, i] = c + bust * A[i, j, 0], with A[i, j, 0] = base[0] + slope[0] * H[j, i]
            c = sum(prob * (0.0 if j + x >= goal else A[i, j + x, 0]) for x, prob in turns[j].items() if x > 0)
            bust = turns[j].get(0, 0.0)
            H[j, i] = (c + bust * base[0]) / (1.0 - bust * slope[0])
            A[i, j, :goal - i] = base + slope * H[j, i]
    return float(A[0, 0, 0]), float(H[0, 0])


def test_simulated_optimal_against_hold_matches_an_exact_evaluation():
    goal, t, n = 50, 10, 100_000
    rules = RU.make(2, {"goal": goal})
    first, second = exact_optimal_against_hold(goal, t)
    for specs, seat, exact in ((["optimal", f"hold:t={t}"], 0, first), ([f"hold:t={t}", "optimal"], 1, second)):
        df = simulate(GAME, rules, seat_specs("pig", specs, 2), n, seed=40, rotate=False).results
        wins = int((df["winner"] == seat).sum())
        lo, hi = wilson_interval(wins, n, 0.999)
        assert lo <= exact <= hi, f"{specs}: optimal won {wins / n:.5f} [{lo:.5f}, {hi:.5f}], exact {exact:.5f}"


def test_optimal_beats_hold_at_20():
    n = 40_000
    df = simulate(GAME, RU.make(2, {}), seat_specs("pig", ["optimal", "hold:t=20"], 2), n, seed=7).results
    # seats rotated: optimal is slot 0, on seat 0 in even games and seat 1 in odd ones
    won = int((df["winner"] == df["game"] % 2).sum())
    lo, _ = wilson_interval(won, n, 0.999)
    assert lo > 0.5, f"optimal won {won / n:.4f} of {n:,} against hold:t=20, interval from {lo:.4f}"


# ---------------------------------------------------------------------------
# The CLI: the policy is listed; bad input is one line, exit 2, nothing written
# ---------------------------------------------------------------------------


def test_policies_lists_optimal_with_its_parameter():
    text = run_cli("policies", "pig").output
    assert "optimal\n" in text and "optimal:tol=<number>  (default 1e-09; allowed 1e-15..0.001)" in text
    assert "value-iteration tolerance" in text


def test_trace_of_an_optimal_game():
    result = run_cli("trace", "pig", "--policy", "optimal", "--policy", "hold", "--seed", "3", "--game", "1")
    assert result.exit_code == 0, result.output
    assert "seat 0 (hold), seat 1 (optimal)" in result.output and "holds: banks" in result.output


@pytest.mark.parametrize("args,needles", [
    (["-o", "goal=201", "--policy", "optimal"], ["solves Pig up to goal=200", "not goal=201"]),
    (["-o", "turn_cap=9999", "--policy", "random", "--policy", "optimal"],
     ["without a turn cap", "turn_cap >= 10000", "not turn_cap=9999"]),
    (["--policy", "optimal", "--policy", "optimal:tol=1e-6"], ["different tol values (1e-09, 1e-06)"]),
    (["--policy", "optimal:tol=1e-2"], ["optimal parameter tol=1e-2 is out of range", "1e-15..0.001"]),
])
def test_simulate_refuses_what_the_table_cannot_play(tmp_path, args, needles):
    out = tmp_path / "run"
    assert_bad(run_cli("simulate", "pig", "--games", "10", "--out", str(out), *args), *needles)
    assert not out.exists()


def test_trace_refuses_a_goal_too_large():
    assert_bad(run_cli("trace", "pig", "-o", "goal=300", "--policy", "optimal"), "solves Pig up to goal=200")


@pytest.mark.parametrize("body,needles", [
    ('kind = "seat_advantage"\npolicies = ["optimal"]\noptions = { goal = 250 }\n', ["not goal=250"]),
    ('kind = "policy_sweep"\npolicy = "optimal"\nparam = "tol"\nvalues = [1e-9, 1e-6]\nfield = "optimal"\n',
     ["different tol values"]),
    ('kind = "grid"\nfocal_policy = "optimal"\npolicy = "hold"\n'
     'rows = { name = "cap", option = "turn_cap", values = [10000, 100] }\nmetrics = ["focal_win_rate"]\n',
     ["turn_cap=100"]),
    ('kind = "rule_variants"\npolicy = "optimal"\n[variants]\nbase = {}\nlong = { goal = 500 }\n',
     ["variant 'long'", "not goal=500"]),
])
def test_run_refuses_before_writing_anything(tmp_path, body, needles):
    toml = tmp_path / "a.toml"
    toml.write_text('game = "pig"\ngames = 100\n' + body)
    reports = tmp_path / "rep"
    assert_bad(run_cli("run", str(toml), "--reports", str(reports), "-q"), *needles)
    assert not reports.exists()
