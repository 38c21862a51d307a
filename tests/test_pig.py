"""Pig, the calibration game: kernel vs reference, bounds, rules, calibration, CLI.

Pig exists to check the stop-threshold machinery against a published answer: with
both players holding at 20 and goal 100, the first player wins with probability
0.5347 (Neller & Presser, "Optimal Play of the Dice Game Pig", 2004). Two tests pin
it: an exact dynamic programme over the rules as sheepsim implements them (so the
published number and our reading of the rules agree), and a 1,000,000-game
simulation of the kernel whose 99.9% Wilson interval must contain it. The generic
engine contract (same seed same rows for any thread count and chunk size, replay,
seeds differ, user policies) is tests/test_conformance.py's.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from sheepsim.stats.intervals import wilson_interval
from sheepsim.errors import SheepsimError
from sheepsim.games import driver, get_game
from sheepsim.games import wrappers as W
from sheepsim.games.pig import engine as E
from sheepsim.games.pig.play import KERNELS as PL
from sheepsim.games.pig import policies as POL
from sheepsim.games.pig import reference as REF
from sheepsim.games.pig import rules as RU
from sheepsim.games.pig.game import initial_state
from sheepsim import policies as POLICIES
from sheepsim.policies import describe, get_policy, parse_spec, register_policy, seat_specs
from sheepsim.rng import rand_below, streams
from sheepsim.runner import simulate
from conftest import assert_bad, run_cli

GAME = get_game("pig")
PUBLISHED_HOLD20_FIRST_WIN = 0.5347      # Neller & Presser, goal 100, both hold at 20
NAMES = {E.ACT_ROLL: REF.ROLL, E.ACT_HOLD: REF.HOLD}


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def rules_of(**options):
    return RU.make(2, options)


def ref_rules(rules) -> REF.Rules:
    return REF.Rules(goal=rules["goal"], turn_cap=rules["turn_cap"])


def as_game(s) -> REF.Game:
    """A kernel state in the reference engine's shape."""
    to_act = int(s[E.S_TO_ACT])
    return REF.Game(scores=(int(s[E.S_SCORE]), int(s[E.S_SCORE + 1])), turn_total=int(s[E.S_TURN]),
                    to_act=None if to_act < 0 else to_act, turns=int(s[E.S_TURNS]), rolls=int(s[E.S_ROLLS]))


def as_state(game: REF.Game) -> np.ndarray:
    s = np.zeros(E.STATE_SIZE, dtype=np.int32)
    s[E.S_SCORE], s[E.S_SCORE + 1] = game.scores
    s[E.S_TURN] = game.turn_total
    s[E.S_TO_ACT] = -1 if game.to_act is None else game.to_act
    s[E.S_TURNS] = game.turns
    s[E.S_ROLLS] = game.rolls
    return s


def kernel_legal(s, ra) -> list[str]:
    buf = np.zeros((E.MAX_ACTIONS, E.ACTION_SIZE), dtype=np.int32)
    return [NAMES[int(a)] for a in buf[:E.legal(s, ra, E.init_state(ra), buf), 0]]


def slots_of(specs):
    ids = np.array([p.policy.id for p in specs], dtype=np.int64)
    params = np.array([p.vector() for p in specs])
    return ids, params


def replay(rules, specs, seed: int, g: int, rotate: bool = True):
    """Game g exactly as the runner plays it: (seat_slot, log of (actor, action, face),
    row). The face is -1 for a hold; the row gets the rotation column the chunk kernel
    writes (replay leaves it 0)."""
    log, row, seat_slot, _ = W.replay(PL, RU.to_array(rules), initial_state(rules), specs, rotate, seed, g)
    assert int(row[E.O_ROTATION]) == 0
    row[E.O_ROTATION] = g % 2 if rotate else 0
    return seat_slot, log, row


def run_rows(rules, specs, seed=11, first=0, n=2000, rotate=True):
    ids, params = slots_of(specs)
    out = np.zeros((n, E.O_SIZE), dtype=np.int32)
    faults = np.zeros((driver.BLOCKS, driver.FAULT_SIZE), dtype=np.int64)
    W.run_blocks(PL.play_blocks, (RU.to_array(rules), initial_state(rules), ids, params, rotate, np.uint64(seed),
                                  first, out, faults, W.NO_METRICS))
    assert not faults.any()
    return out


def hold_turn_outcomes(score: int, goal: int, t: float) -> dict[int, float]:
    """{points banked: probability} of one hold-at-t turn from `score` (0 = bust)."""
    out: dict[int, float] = {}
    frontier = {0: 1.0}
    while frontier:
        nxt: dict[int, float] = {}
        for total, p in frontier.items():
            if total > 0 and (total >= t or score + total >= goal):
                out[total] = out.get(total, 0.0) + p
                continue
            out[0] = out.get(0, 0.0) + p / 6
            for face in range(2, 7):
                nxt[total + face] = nxt.get(total + face, 0.0) + p / 6
        frontier = nxt
    return out


def exact_first_player_win(goal: int, t_first: float, t_second: float) -> float:
    """P(seat 0 wins) when seat 0 holds at t_first and seat 1 at t_second, exactly.

    W[p][i][j]: seat p, to start a turn with score i against j, wins. A turn banking
    x > 0 leads to (j, i + x), a larger score sum, so pairs are solved by decreasing
    i + j; a bust leads to the swapped pair (j, i), solved together as a 2x2 system.
    """
    turns = [[hold_turn_outcomes(i, goal, t) for i in range(goal)] for t in (t_first, t_second)]
    W = [[[0.0] * goal for _ in range(goal)] for _ in range(2)]

    def parts(p, a, b):
        """W[p][a][b] = c + bust * (1 - W[1-p][b][a])."""
        c = 0.0
        for x, prob in turns[p][a].items():
            if x > 0:
                c += prob if a + x >= goal else prob * (1.0 - W[1 - p][b][a + x])
        return c, turns[p][a].get(0, 0.0)

    for total in range(2 * goal - 2, -1, -1):
        for i in range(max(0, total - goal + 1), min(goal - 1, total) + 1):
            j = total - i
            for p in (0, 1):
                ca, ba = parts(p, i, j)            # W[p][i][j]
                cb, bb = parts(1 - p, j, i)        # W[1-p][j][i]
                w = (ca + ba - ba * (cb + bb)) / (1.0 - ba * bb)
                W[p][i][j] = w
                W[1 - p][j][i] = cb + bb * (1.0 - w)
    return W[0][0][0]


# ---------------------------------------------------------------------------
# Differential: kernel vs reference, decision by decision
# ---------------------------------------------------------------------------

DIFF_SPECS = [("random", "random"), ("hold", "random"), ("hold:t=25", "hold"), ("hold:t=7", "hold:t=1"),
              ("hold:t=1000", "random")]
DIFF_RULES = [{}, {"goal": 10}, {"goal": 37, "turn_cap": 12}, {"turn_cap": 1}]


def _ref_policy(spec):
    return REF.hold_policy(spec.values[0]) if spec.policy.name == "hold" else None


@pytest.mark.parametrize("options", DIFF_RULES, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "default")
@pytest.mark.parametrize("pair", DIFF_SPECS, ids="-vs-".join)
def test_kernel_matches_reference_decision_by_decision(pair, options):
    """Replay the kernel's logged games (its actions and die rolls) through the
    reference: same legal sets, same hold decisions, same states, same result."""
    rules = rules_of(**options)
    ra, rr = RU.to_array(rules), ref_rules(rules)
    specs = seat_specs("pig", list(pair), 2)
    rows = run_rows(rules, specs, seed=5, n=60)
    coin_holds = coin_both = 0
    for g in range(60):
        seat_slot, log, row = replay(rules, specs, 5, g)
        assert np.array_equal(row, rows[g]), "replay differs from the chunk kernel"
        s = initial_state(rules)
        game = REF.new_game(rr)
        assert as_game(s) == game
        for actor, action, face in log:
            seat = game.to_act
            assert actor == seat
            spec = specs[int(seat_slot[seat])]
            legal = REF.legal_actions(game)
            assert kernel_legal(s, ra) == legal, game
            name = NAMES[int(action)]
            assert name in legal
            policy = _ref_policy(spec)
            if policy is not None:
                assert policy(game, rr) == name, (game, spec.label)
            elif len(legal) == 2:
                coin_both += 1
                coin_holds += name == REF.HOLD
            assert face == -1 if name == REF.HOLD else 1 <= face <= 6      # a hold has no luck
            game = REF.step(game, rr, name, int(face) if name == REF.ROLL else None)
            E.apply(s, ra, int(action), int(face))
            assert as_game(s) == game
        assert REF.is_over(game) and E.is_terminal(s)
        expected = REF.result(game, rr)
        assert int(row[E.O_WINNER]) == expected["winner"]
        assert [int(row[E.O_SCORE]), int(row[E.O_SCORE + 1])] == expected["scores"]
        assert int(row[E.O_TURNS]) == expected["turns"] and int(row[E.O_ROLLS]) == expected["rolls"]
        assert bool(row[E.O_CAPPED]) == expected["capped"]
    if coin_both >= 200:
        # the random policy's coin is fair where both actions are legal
        lo, hi = wilson_interval(coin_holds, coin_both, 0.999)
        assert lo <= 0.5 <= hi


def test_kernel_policies_match_reference_on_scripted_states():
    """hold:t and random decide like the reference over a grid of states."""
    rules = rules_of(goal=50)
    ra, rr = RU.to_array(rules), ref_rules(rules)
    buf = np.zeros((E.MAX_ACTIONS, E.ACTION_SIZE), dtype=np.int32)
    aux = E.init_state(ra)      # the start state; policies ignore it
    rng = streams(1, 0, 1)[0]
    for t in (1.0, 6.5, 20.0, 49.0, 1000.0):
        params = np.zeros(8)
        params[POL.P_T] = t
        ref = REF.hold_policy(t)
        for seat in (0, 1):
            for score in range(0, 50, 3):
                for total in range(0, 60):
                    game = REF.Game(scores=(score, 7) if seat == 0 else (7, score), turn_total=total, to_act=seat)
                    s = as_state(game)
                    action = int(POL.choose(POL.HOLD, s, ra, aux, seat, params, rng, buf, buf.copy()))
                    assert NAMES[action] == ref(game, rr), (t, game)
                    picked = NAMES[int(POL.choose(POL.RANDOM, s, ra, aux, seat, params, rng, buf, buf.copy()))]
                    assert picked in REF.legal_actions(game)
                    assert np.array_equal(s, as_state(game))        # policies do not touch the state


def test_dice_are_tied_to_seats():
    """Seat s's k-th roll is the k-th draw of stream LUCK + s = 1 + s, whatever the policies
    (the randomness contract, sheepsim/ARCHITECTURE.md): two thresholds in one seat see the same dice."""
    rules = rules_of()
    seen = {}
    for pair in (("hold", "random"), ("hold:t=30", "random"), ("random", "hold:t=5")):
        specs = seat_specs("pig", list(pair), 2)
        for g in (0, 1, 2, 3):
            seat_slot, log, row = replay(rules, specs, 9, g, rotate=False)
            s = initial_state(rules)
            faces = {0: [], 1: []}
            for actor, action, face in log:
                seat = int(s[E.S_TO_ACT])
                assert actor == seat
                if action == E.ACT_ROLL:
                    faces[seat].append(int(face))
                E.apply(s, RU.to_array(rules), int(action), int(face))
            rngs = streams(9, g, PL.GAME.streams)
            assert PL.GAME.luck == 1
            for seat in (0, 1):
                stream = rngs[PL.GAME.luck + seat].copy()
                expected = [1 + int(rand_below(stream, 6)) for _ in faces[seat]]
                assert faces[seat] == expected
                seen.setdefault((g, seat), []).append(faces[seat])
    for rolls in seen.values():
        longest = max(rolls, key=len)
        assert all(r == longest[:len(r)] for r in rolls)


# ---------------------------------------------------------------------------
# Scripted rules (kernel and reference side by side)
# ---------------------------------------------------------------------------


def both_step(game: REF.Game, rules, action: str, face=None) -> REF.Game:
    """Step the kernel and the reference from the same state; they must agree."""
    s = as_state(game)
    E.apply(s, RU.to_array(rules), E.ACT_HOLD if action == REF.HOLD else E.ACT_ROLL, face or 0)
    after = REF.step(game, ref_rules(rules), action, face)
    assert as_game(s) == after
    return after


def kernel_row(game: REF.Game, rules) -> np.ndarray:
    row = np.zeros(E.O_SIZE, dtype=np.int32)
    E.outcome(as_state(game), RU.to_array(rules), row)
    return row


def test_roll_adds_the_face_to_the_turn_total():
    after = both_step(REF.Game(scores=(10, 20), turn_total=15, to_act=0, turns=4, rolls=9), rules_of(), REF.ROLL, 4)
    assert after == REF.Game(scores=(10, 20), turn_total=19, to_act=0, turns=4, rolls=10)


def test_bust_loses_the_turn_total_and_passes_the_turn():
    after = both_step(REF.Game(scores=(10, 20), turn_total=15, to_act=0, turns=4, rolls=9), rules_of(), REF.ROLL, 1)
    assert after == REF.Game(scores=(10, 20), turn_total=0, to_act=1, turns=5, rolls=10)


def test_bust_on_the_first_roll_passes_the_turn():
    after = both_step(REF.Game(scores=(0, 0), turn_total=0, to_act=1, turns=1, rolls=3), rules_of(), REF.ROLL, 1)
    assert after == REF.Game(scores=(0, 0), turn_total=0, to_act=0, turns=2, rolls=4)


def test_hold_banks_the_turn_total_and_passes_the_turn():
    after = both_step(REF.Game(scores=(10, 20), turn_total=15, to_act=1, turns=5, rolls=9), rules_of(), REF.HOLD)
    assert after == REF.Game(scores=(10, 35), turn_total=0, to_act=0, turns=6, rolls=9)


def test_hold_needs_a_turn_total():
    """sheepsim's choice: holding on 0 is not a legal action (it would bank nothing)."""
    rules = rules_of()
    start = REF.Game(scores=(10, 20), turn_total=0, to_act=0)
    assert kernel_legal(as_state(start), RU.to_array(rules)) == REF.legal_actions(start) == [REF.ROLL]
    with pytest.raises(ValueError, match="not legal"):
        REF.step(start, ref_rules(rules), REF.HOLD)
    rolled = REF.Game(scores=(10, 20), turn_total=2, to_act=0)
    assert kernel_legal(as_state(rolled), RU.to_array(rules)) == [REF.ROLL, REF.HOLD]


def test_holding_to_the_goal_wins_at_once():
    rules = rules_of()
    # 90 + 10 = 100: seat 0 wins; seat 1 gets no final turn
    won = both_step(REF.Game(scores=(90, 95), turn_total=10, to_act=0, turns=20, rolls=80), rules, REF.HOLD)
    assert won == REF.Game(scores=(100, 95), turn_total=0, to_act=None, turns=21, rolls=80)
    row = kernel_row(won, rules)
    assert int(row[E.O_WINNER]) == 0 and int(row[E.O_COWINNERS]) == 1 and not row[E.O_CAPPED]
    assert REF.result(won, ref_rules(rules))["winner"] == 0
    assert kernel_legal(as_state(won), RU.to_array(rules)) == REF.legal_actions(won) == []
    # 90 + 9 = 99 falls short: the game goes on
    short = both_step(REF.Game(scores=(90, 95), turn_total=9, to_act=0), rules, REF.HOLD)
    assert short.to_act == 1 and short.scores == (99, 95)
    # overshooting the goal still wins (seat 1, 95 + 12 = 107)
    over = both_step(REF.Game(scores=(99, 95), turn_total=12, to_act=1), rules, REF.HOLD)
    assert over.to_act is None and int(kernel_row(over, rules)[E.O_WINNER]) == 1
    assert int(kernel_row(over, rules)[E.O_COWINNERS]) == 2


def test_reaching_the_goal_must_be_banked():
    """A turn total that would reach the goal wins nothing until held: rolling on
    stays legal, and a bust then loses it all."""
    rules = rules_of()
    game = REF.Game(scores=(90, 0), turn_total=12, to_act=0)
    assert kernel_legal(as_state(game), RU.to_array(rules)) == [REF.ROLL, REF.HOLD]
    game = both_step(game, rules, REF.ROLL, 3)
    assert game.to_act == 0 and game.turn_total == 15
    game = both_step(game, rules, REF.ROLL, 1)
    assert game == REF.Game(scores=(90, 0), turn_total=0, to_act=1, turns=1, rolls=2)


def test_turn_cap_ends_the_game_as_a_draw():
    rules = rules_of(turn_cap=3)
    game = REF.Game(scores=(40, 50), turn_total=8, to_act=0, turns=2, rolls=10)
    capped = both_step(game, rules, REF.HOLD)
    assert capped == REF.Game(scores=(48, 50), turn_total=0, to_act=None, turns=3, rolls=10)
    row = kernel_row(capped, rules)
    assert int(row[E.O_WINNER]) == -1 and int(row[E.O_COWINNERS]) == 0 and int(row[E.O_CAPPED]) == 1
    assert REF.result(capped, ref_rules(rules))["capped"]
    # a bust on the last turn ends it too
    assert both_step(game, rules, REF.ROLL, 1).to_act is None
    # a win on the last turn is a win, not a draw
    won = both_step(REF.Game(scores=(95, 50), turn_total=8, to_act=0, turns=2), rules, REF.HOLD)
    row = kernel_row(won, rules)
    assert int(row[E.O_WINNER]) == 0 and int(row[E.O_CAPPED]) == 0


def test_hold_policy_thresholds():
    rules, rr = rules_of(), ref_rules(rules_of())
    ra = RU.to_array(rules)
    buf = np.zeros((E.MAX_ACTIONS, E.ACTION_SIZE), dtype=np.int32)
    aux = E.init_state(ra)      # the start state; policies ignore it
    rng = streams(0, 0, 1)[0]
    params = np.zeros(8)
    params[POL.P_T] = 20.0
    cases = [((0, 0), 0, REF.ROLL), ((0, 0), 19, REF.ROLL), ((0, 0), 20, REF.HOLD), ((0, 0), 25, REF.HOLD),
             ((95, 0), 4, REF.ROLL), ((95, 0), 5, REF.HOLD), ((99, 99), 0, REF.ROLL), ((99, 99), 2, REF.HOLD)]
    for scores, total, expected in cases:
        game = REF.Game(scores=scores, turn_total=total, to_act=0)
        assert REF.hold_policy(20)(game, rr) == expected
        assert NAMES[int(POL.hold(as_state(game), ra, aux, 0, params, rng, buf))] == expected


# ---------------------------------------------------------------------------
# The rules' bounds, and rotation
# ---------------------------------------------------------------------------

CONFORMANCE = [({}, ("random", "random")), ({}, ("hold", "hold:t=25")), ({"goal": 10}, ("hold:t=1", "random")),
               ({"goal": 1000}, ("hold:t=100", "hold")), ({"turn_cap": 5}, ("random", "hold"))]


@pytest.mark.parametrize("options,pair", CONFORMANCE, ids=[f"{o}-{'-'.join(p)}" for o, p in CONFORMANCE])
def test_games_end_and_respect_bounds(options, pair):
    rules = rules_of(**options)
    goal, cap = rules["goal"], rules["turn_cap"]
    specs = seat_specs("pig", list(pair), 2)
    n = 3000
    rows = run_rows(rules, specs, seed=77, n=n)
    winner, mask = rows[:, E.O_WINNER], rows[:, E.O_COWINNERS]
    capped, turns, rolls = rows[:, E.O_CAPPED], rows[:, E.O_TURNS], rows[:, E.O_ROLLS]
    scores = rows[:, E.O_SCORE:E.O_SCORE + 2]
    assert ((winner >= -1) & (winner <= 1)).all()
    assert np.array_equal(capped == 1, winner == -1)
    assert (turns >= 1).all() and (turns <= cap).all()
    assert (turns[capped == 1] == cap).all()
    assert (rolls >= turns).all()               # a turn has at least one roll: no hold on 0
    assert (scores >= 0).all()
    decided = winner >= 0
    idx = np.nonzero(decided)[0]
    assert (scores[idx, winner[idx]] >= goal).all()
    assert (scores[idx, 1 - winner[idx]] < goal).all()
    assert (mask[decided] == 1 << winner[decided]).all() and (mask[~decided] == 0).all()
    assert (scores[~decided] < goal).all()
    # the seat that won took the last turn: seat 0 plays the odd-numbered turns
    assert (winner[decided] == (turns[decided] - 1) % 2).all()
    # hold policies overshoot the goal by at most 5 (they hold as soon as they can reach it)
    if all(p.startswith("hold") for p in pair):
        assert (scores[idx, winner[idx]] <= goal + 5).all()
    if cap >= 1000:
        assert not capped.any()
    assert np.array_equal(rows[:, E.O_ROTATION], np.arange(n) % 2)


def test_rotation_only_reassigns_policies():
    rules, specs = rules_of(), seat_specs("pig", ["hold"], 2)
    plain = run_rows(rules, specs, rotate=False)
    rotated = run_rows(rules, specs, rotate=True)
    cols = [c for c in range(E.O_SIZE) if c != E.O_ROTATION]
    assert np.array_equal(plain[:, cols], rotated[:, cols])


# ---------------------------------------------------------------------------
# Calibration against Neller & Presser
# ---------------------------------------------------------------------------


def test_exact_hold_at_20_first_player_win_is_the_published_value():
    """The rules as implemented (hold when the turn total reaches 20 or banking would
    reach the goal; the goal must be banked) give exactly the published 0.5347."""
    assert exact_first_player_win(100, 20, 20) == pytest.approx(PUBLISHED_HOLD20_FIRST_WIN, abs=5e-5)


def test_calibration_hold_at_20_first_player_wins_0_5347():
    rules = rules_of(goal=100)
    n = 1_000_000
    run = simulate(GAME, rules, seat_specs("pig", ["hold:t=20"], 2), n, seed=20040101, chunk_size=250_000)
    df = run.results
    assert not df["capped"].any()
    wins = int((df["winner"] == 0).sum())
    lo, hi = wilson_interval(wins, n, 0.999)
    assert lo <= PUBLISHED_HOLD20_FIRST_WIN <= hi, f"seat 0 won {wins / n:.5f} [{lo:.5f}, {hi:.5f}] of {n:,}"


@pytest.mark.parametrize("goal,t0,t1", [(30, 10, 10), (50, 25, 8)])
def test_simulation_matches_exact_value_for_other_thresholds(goal, t0, t1):
    rules = rules_of(goal=goal)
    n = 200_000
    rows = run_rows(rules, seat_specs("pig", [f"hold:t={t0}", f"hold:t={t1}"], 2), seed=8, n=n, rotate=False)
    lo, hi = wilson_interval(int((rows[:, E.O_WINNER] == 0).sum()), n, 0.999)
    assert lo <= exact_first_player_win(goal, t0, t1) <= hi


# ---------------------------------------------------------------------------
# Policy parameter ranges (sheepsim.policies, generic)
# ---------------------------------------------------------------------------


def test_hold_parameter_is_range_checked():
    assert parse_spec("pig", "hold:t=25").values == (25.0,)
    assert parse_spec("pig", "hold:t=1").label == "hold:t=1" and parse_spec("pig", "hold:t=1000").values == (1000.0,)
    assert parse_spec("pig", "hold").label == "hold" and parse_spec("pig", "hold:t=20").label == "hold"
    for bad in ("-1", "0", "0.5", "1000.5", "nan", "inf"):
        with pytest.raises(SheepsimError, match=r"hold parameter t=.* is out of range; allowed: integer 1\.\.1000"):
            parse_spec("pig", f"hold:t={bad}")
    assert describe(get_policy("pig", "hold"))["params"]["t"] == {
        "default": 20.0, "help": "turn total at which to hold", "low": 1.0, "high": 1000.0}


def test_register_policy_bounds_are_generic(monkeypatch):
    monkeypatch.setattr(POLICIES, "_REGISTRY", dict(POLICIES._REGISTRY))
    fn = POL.hold
    register_policy("pig", "lowonly", params={"t": (3, "at least 2", 2)})(fn)
    register_policy("pig", "highonly", params={"t": (3, "at most 5", None, 5), "u": (0.0, "free")})(fn)
    assert parse_spec("pig", "lowonly:t=1e6").values == (1e6,)
    with pytest.raises(SheepsimError, match="allowed: >= 2"):
        parse_spec("pig", "lowonly:t=1.5")
    assert parse_spec("pig", "highonly:t=-7,u=-1e9").values == (-7.0, -1e9)
    with pytest.raises(SheepsimError, match="allowed: <= 5"):
        parse_spec("pig", "highonly:t=5.01")
    assert describe(get_policy("pig", "highonly"))["params"]["u"] == {"default": 0.0, "help": "free"}
    with pytest.raises(SheepsimError, match="outside its own range 0..1"):
        register_policy("pig", "broken", params={"p": (2.0, "probability", 0, 1)})
    with pytest.raises(SheepsimError, match="declare"):
        register_policy("pig", "broken", params={"p": (2.0,)})
    # Battle Sheep's parameters declare no range and stay unbounded
    assert parse_spec("battlesheep", "greedy:epsilon=0.25,opponent=-3").values == (0.25, -3.0)


# ---------------------------------------------------------------------------
# User policies and the CLI
# ---------------------------------------------------------------------------


def test_user_policy_runs_through_the_runner_and_trace(monkeypatch):
    from numba import njit

    @njit
    def twelve(s, rules, aux, seat, params, rng, buf):
        # hold:t=12 written by a user: hold at 12, or when banking reaches the goal
        total = s[E.S_TURN]
        if total > 0 and (total >= 12 or s[E.S_SCORE + seat] + total >= rules[RU.R_GOAL]):
            return E.ACT_HOLD
        return E.ACT_ROLL

    monkeypatch.setattr(POLICIES, "_REGISTRY", dict(POLICIES._REGISTRY))
    register_policy("pig", "twelve", doc="hold at 12")(twelve)
    rules = rules_of()
    specs = seat_specs("pig", ["twelve", "hold:t=12"], 2)
    a = simulate(GAME, rules, specs, 300, seed=2).results
    # the same decisions as hold:t=12 (same dice, tied to seats): same games
    b = simulate(GAME, rules, seat_specs("pig", ["hold:t=12"], 2), 300, seed=2).results
    cols = ["winner", "turns", "rolls", "score_0", "score_1"]
    assert a[cols].equals(b[cols])
    events = json.loads(GAME.trace(rules, specs, 2, 7, True, initial_state(rules), True))
    assert events[-1]["result"]["winner"] == int(a.loc[7, "winner"])






def test_cli_simulate_rules_policies_games():
    result = run_cli("simulate", "pig", "--games", "1000", "--policy", "hold:t=25", "--policy", "hold", "-q")
    assert result.exit_code == 0, result.output
    assert "Pig, 2 players: 1,000 games" in result.output and "hold:t=25" in result.output
    assert "Win rate by policy" in result.output and "Game length (turns)" in result.output
    assert "pig" in run_cli("games").output
    rules = run_cli("rules", "pig")
    assert rules.exit_code == 0 and "goal  (default: 100)" in rules.output and "integer 10..1000" in rules.output
    assert "turn_cap" in rules.output
    policies = run_cli("policies", "pig").output
    assert "random" in policies and "hold:t=<integer>  (default 20; allowed integer 1..1000)" in policies


def test_cli_simulate_writes_rolls_and_generic_columns(tmp_path):
    out = tmp_path / "r"
    result = run_cli("simulate", "pig", "--games", "50", "--policy", "hold", "--policy", "random", "--seed", "3",
                     "--out", str(out), "-q")
    assert result.exit_code == 0, result.output
    import pandas as pd
    df = pd.read_parquet(out / "chunk-000000.parquet")
    assert list(df.columns) == ["game", "seed", "rotation", "num_players", "winner", "cowinners", "turns", "capped",
                                "rolls", "score_0", "score_1", "policy_0", "policy_1"]
    assert (df["rolls"] >= df["turns"]).all()
    events = json.loads(run_cli("trace", "pig", "--seed", "3", "--game", "4", "--policy", "hold", "--policy",
                                "random", "--json").output)
    row = df[df.game == 4].iloc[0]
    assert events[-1]["result"]["scores"] == [row.score_0, row.score_1]
    assert events[-1]["result"]["winner"] == row.winner and events[-1]["result"]["rolls"] == row.rolls


def test_cli_trace_text_and_json():
    text = run_cli("trace", "pig", "--seed", "1", "--game", "0")
    assert text.exit_code == 0, text.output
    assert "turn 1: seat 0 (random)" in text.output and "rolls" in text.output and "holds: banks" in text.output
    assert text.output.splitlines()[:2] == ["Pig game 0 of seed 1, 2 players", "rules: every option at its default: "
                                            "goal=100, turn_cap=10000 (see `sheepsim rules pig`)"]
    assert "wins" in text.output or "Draw" in text.output
    events = json.loads(run_cli("trace", "pig", "--seed", "1", "--game", "0", "--json").output)
    assert events[0] == {"event": "start", "state": {"scores": [0, 0], "turn_total": 0, "to_act": 0, "turns": 0,
                                                     "rolls": 0}}
    assert events[-1]["event"] == "end" and events[-2]["state"]["to_act"] is None
    assert {e["event"] for e in events[1:-1]} <= {"roll", "hold"}
    # the events replay through the reference engine to the same end state
    rr = REF.Rules()
    game = REF.new_game(rr)
    for e in events[1:-1]:
        game = REF.step(game, rr, e["event"], e.get("face"))
        assert e["state"] == {"scores": list(game.scores), "turn_total": game.turn_total, "to_act": game.to_act,
                              "turns": game.turns, "rolls": game.rolls}


def test_trace_replays_games_longer_than_its_first_log(monkeypatch):
    rules, specs = rules_of(), seat_specs("pig", ["random"], 2)
    init = initial_state(rules)
    full = GAME.trace(rules, specs, 1, 0, True, init, True)
    monkeypatch.setattr(PL, "MAX_LOG", 8)
    assert GAME.trace(rules, specs, 1, 0, True, init, True) == full
    assert len(json.loads(full)) > 8 + 2


def test_cli_bench_runs():
    result = run_cli("bench", "pig", "--games", "2000", "--reference-games", "20", "--no-startup",
                     "--search-budget", "0")
    assert result.exit_code == 0, result.output
    row = [line for line in result.output.splitlines() if line.startswith("pig ")]
    assert len(row) == 1 and "ref games/s" in result.output and row[0].split()[1] == "2"


@pytest.mark.parametrize("args,needles", [
    (["simulate", "pig", "-p", "3"], ["pig takes 2-2 players, not 3"]),
    (["simulate", "pig", "--policy", "hold:t=-1"], ["hold parameter t=-1 is out of range", "1..1000"]),
    (["simulate", "pig", "--policy", "hold:k=3"], ["no parameter", "its parameters: t"]),
    (["simulate", "pig", "--policy", "greedy"], ["unknown pig policy 'greedy'", "random, hold"]),
    (["simulate", "pig", "-o", "goal=5"], ["goal", "10..1000"]),
    (["simulate", "pig", "-o", "turn_cap=0"], ["turn_cap", "1..1000000"]),
    (["simulate", "pig", "-o", "dice=2"], ["pig has no rule option 'dice'", "goal, turn_cap"]),
    (["trace", "pig", "--policy", "hold:t=1001"], ["out of range"]),
    (["simulate", "pig", "--from-position", "x.json"], ["pig has no position format"]),
])
def test_cli_bad_input_is_one_line_exit_2(args, needles):
    assert_bad(run_cli(*args), *needles)
