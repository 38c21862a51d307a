"""Experience metrics (stats/experience.py): the definitions on hand-made trajectories,
the replayed trajectory against an independent reading of Pig's decision log, and the
kernels' running tally (games/tally.py) against the definitions, game by game."""

import math

import numpy as np
import pytest

from sheepsim.stats import experience as X
from sheepsim.games import get_game
from sheepsim.games.pig.engine import O_WINNER
from sheepsim.games import wrappers as W
from sheepsim.games.trajectory import trajectory
from sheepsim.games.tally import METRICS, M_SIZE
from sheepsim.policies import seat_specs
from sheepsim.start import kernel_aux


def test_metrics_of_a_comeback():
    # seat 1 trails at half-time (sample 2 of 4), takes the lead at sample 3 and keeps it
    samples = [[0, 0], [10, 0], [20, 5], [20, 30], [25, 40]]
    m = X.metrics(np.array(samples), winners=0b10)
    assert m.rounds == 4
    assert m.lead_changes == 1            # seat 0's first sole lead is no change; seat 1 taking it is
    assert m.decided_at == 3 and m.decided_share == pytest.approx(0.75)
    assert m.comeback == 1.0
    assert m.drama == pytest.approx(0 + 10 + 15 + 0 + 0)


def test_ties_are_no_ones_lead_and_a_tie_at_the_end_is_not_decided_early():
    # the lead goes 0 -> tie -> 0 -> 1 -> tie: one change (0 to 1); seat 0 wins on a tie-break
    samples = [[0, 0, 0], [3, 1, 0], [3, 3, 0], [4, 3, 1], [4, 5, 1], [5, 5, 2]]
    m = X.metrics(np.array(samples), winners=0b001)
    assert m.lead_changes == 1
    assert m.decided_at == 5 and m.decided_share == 1.0
    assert m.comeback == 0.0               # at sample 2 seat 0 is level, not behind
    assert m.drama == pytest.approx(1.0)  # behind by 1 at sample 4 only


def test_a_leader_from_the_start_and_a_shared_win():
    m = X.metrics(np.array([[1, 0], [2, 1], [3, 1]]), winners=0b01)
    assert (m.lead_changes, m.decided_at, m.comeback, m.drama) == (0, 0, 0.0, 0.0)
    shared = X.metrics(np.array([[1, 0], [1, 2], [3, 3]]), winners=0b11)
    assert math.isnan(shared.decided_at) and math.isnan(shared.decided_share) and math.isnan(shared.comeback)
    assert shared.drama == pytest.approx(0.5 + 0.5 + 0)     # the winners' mean deficit
    drawn = X.metrics(np.array([[0, 0], [1, 2]]), winners=0)
    assert drawn.drama == 0.0 and math.isnan(drawn.decided_at) and math.isnan(drawn.comeback)


def _pig_rounds(log, goal):
    """Banked scores at each round start and at the end, read from Pig's log alone: a
    roll of 1 loses the turn total, a hold banks it; seat 0 opens every round."""
    scores, turn, seat = [0, 0], 0, 0
    out = [list(scores)]
    for who, action, face in log:
        if who == 0 and seat == 1:
            out.append(list(scores))
        seat = who
        if action == 0:           # roll
            turn = 0 if face == 1 else turn + face
        else:
            scores[who] += turn
            turn = 0
    out.append(list(scores))
    assert max(scores) >= goal
    return np.array(out, dtype=float)


def test_the_replayed_pig_trajectory_is_the_banked_scores_of_each_round():
    game = get_game("pig")
    rules = game.make_rules(2, {"goal": 50})
    specs = seat_specs("pig", ["hold:t=15", "hold:t=25"], 2)
    arr = game.to_array(rules)
    aux = kernel_aux(game, rules, None, specs)
    rows = game.play_chunk(arr, aux, specs, True, 11, 0, 12)
    for g in range(12):
        samples = trajectory(game.play, arr, aux, specs, True, 11, g)
        log = W.replay(game.play, arr, aux, specs, True, 11, g)[0]
        assert np.array_equal(samples, _pig_rounds(log, 50))
        winner = int(rows[g, O_WINNER])
        assert X.sole_leader(samples[-1]) == winner


@pytest.mark.parametrize("name,players,policy", [("battlesheep", 3, "greedy"), ("blacksheep", 4, "threshold:k=7"),
                                                  ("hiboufou", 2, "random")])
def test_the_last_sample_ranks_the_winner_first(name, players, policy):
    """Every driver game: the trajectory replays to the runner's own end, and no seat
    stands above a sole winner there (progress is each game's own scoring)."""
    game = get_game(name)
    rules = game.make_rules(players, {})
    specs = seat_specs(name, [policy], players)
    arr = game.to_array(rules)
    aux = kernel_aux(game, rules, None, specs)
    rows = game.play_chunk(arr, aux, specs, True, 5, 0, 4)
    cow = game.play.GAME.cowinners
    for g in range(4):
        samples = trajectory(game.play, arr, aux, specs, True, 5, g)
        assert samples.shape[1] == players and len(samples) >= 2
        mask = int(rows[g, cow])
        if bin(mask).count("1") == 1:
            w = mask.bit_length() - 1
            assert samples[-1][w] == samples[-1].max()


KERNEL_CASES = [("pig", 2, ["hold:t=15", "hold:t=25"], {"goal": 50}), ("pig", 2, ["random", "hold:t=20"], {}),
                ("battlesheep", 3, ["greedy", "random", "greedy"], {}),
                ("battlesheep", 2, ["random"], {"board": "random"}),
                ("blacksheep", 4, ["threshold:k=7", "random", "threshold:k=5", "threshold:k=9"], {}),
                ("blacksheep", 2, ["risk:p=0.2"], {}),
                ("hiboufou", 3, ["greedy", "random", "defensive"], {}), ("hiboufou", 5, ["random"], {})]


@pytest.mark.parametrize("name,players,policies,options", KERNEL_CASES)
def test_the_kernels_metrics_are_the_reference_game_by_game(name, players, policies, options):
    """The kernels' running tally (games/tally.py) against the reference read off each
    game's replayed trajectory (experience.metrics), for every game of a chunk; the
    rows do not change when the tally is on."""
    game = get_game(name)
    rules = game.make_rules(players, options)
    specs = seat_specs(name, policies, players)
    arr = game.to_array(rules)
    aux = kernel_aux(game, rules, None, specs)
    n = 40
    plain = game.play_chunk(arr, aux, specs, True, 3, 100, n)
    tallied = np.full((n, M_SIZE), -7.0)
    rows = game.play_chunk(arr, aux, specs, True, 3, 100, n, tallied)
    assert np.array_equal(rows, plain)
    cow = game.play.GAME.cowinners
    seen_changes = 0
    for i in range(n):
        ref = X.metrics(trajectory(game.play, arr, aux, specs, True, 3, 100 + i), int(rows[i, cow]))
        got = dict(zip(METRICS, tallied[i]))
        assert got["rounds"] == ref.rounds and got["lead_changes"] == ref.lead_changes, i
        for key in ("decided_at", "comeback"):
            want = getattr(ref, key)
            assert (math.isnan(got[key]) and math.isnan(want)) or got[key] == want, (i, key)
        assert got["drama"] == pytest.approx(ref.drama, rel=1e-12, abs=1e-12), i
        seen_changes += ref.lead_changes > 0
    assert seen_changes > 0     # the check saw leads change hands (Battle Sheep too, since its evaluation)


def _bobby_trajectory(arr, deck, ids, params, seed, game, players):
    """Bobby Sitter's samples, read by stepping its engine from Python through the
    flips of the kernel's own log: the tokens before the first flip, whenever the
    flipper is below the previous one (the flip has gone round the table), and at
    the end."""
    from sheepsim.games import driver
    from sheepsim.games.bobbysitter import engine as BE
    from sheepsim.games.bobbysitter import play as BP
    from sheepsim.rng import streams
    slots = W.seat_slots(game, players, True, BP.MAX_PLAYERS)
    log = np.zeros((5000, BP.LOG_COLS), dtype=np.int32)
    log_times = np.zeros((5000, BP.MAX_PLAYERS))
    row = np.zeros(BE.O_SIZE, dtype=np.int32)
    fault = np.zeros(driver.FAULT_SIZE, dtype=np.int64)
    flips = BP.replay(arr, deck, ids, params, slots, streams(seed, game, BP.N_STREAMS), game, row, log, log_times,
                      fault)
    assert 0 < flips <= len(log) and not fault.any()
    rng = streams(seed, game, BP.N_STREAMS)[BP.DECK_STREAM]
    s = np.empty(BE.STATE_SIZE, dtype=np.int32)
    BE.setup(s, arr, deck, rng, slots)
    grab, loss = np.zeros(BP.MAX_PLAYERS, dtype=np.int32), np.zeros(BP.MAX_PLAYERS, dtype=np.int32)
    samples, last = [], players
    for t in range(flips):
        flipper = int(s[BE.H_FLIPPER])
        assert flipper == log[t, 0]
        if flipper < last:
            samples.append([float(s[BE.TOKENS + q]) for q in range(players)])
        last = flipper
        card = BE.draw_card(s, arr, rng)
        grab[:] = log[t, 3:3 + BP.MAX_PLAYERS]
        BE.resolve(s, arr, deck[card], grab, log_times[t].copy(), loss)
    assert s[BE.H_FLIPPER] < 0
    samples.append([float(s[BE.TOKENS + q]) for q in range(players)])
    return np.array(samples), int(row[BE.O_COWINNERS])


@pytest.mark.parametrize("players,policies,options", [(3, ["child", "adult", "adult"], {}),
                                                      (4, ["adult"], {"flip_cap": 15})])
def test_bobby_sitters_metrics_are_the_reference_game_by_game(players, policies, options):
    game = get_game("bobbysitter")
    rules = game.make_rules(players, options)
    specs = seat_specs("bobbysitter", policies, players)
    arr = game.to_array(rules)
    aux = kernel_aux(game, rules, None, specs)
    ids, params = W.policy_arrays(specs)
    n = 30
    tallied = np.zeros((n, M_SIZE))
    rows = game.play_chunk(arr, aux, specs, True, 9, 0, n, tallied)
    assert np.array_equal(rows, game.play_chunk(arr, aux, specs, True, 9, 0, n))
    changes = 0
    for g in range(n):
        samples, winners = _bobby_trajectory(arr, aux, ids, params, 9, g, players)
        assert winners == rows[g, game.play.O_COWINNERS]
        ref = X.metrics(samples, winners)
        got = dict(zip(METRICS, tallied[g]))
        assert (got["rounds"], got["lead_changes"]) == (ref.rounds, ref.lead_changes), g
        for key in ("decided_at", "comeback"):
            want = getattr(ref, key)
            assert (math.isnan(got[key]) and math.isnan(want)) or got[key] == want, (g, key)
        assert got["drama"] == pytest.approx(ref.drama, rel=1e-12, abs=1e-12), g
        changes += ref.lead_changes
    assert changes > 0
