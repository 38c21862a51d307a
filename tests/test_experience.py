"""Experience metrics (analysis/experience.py): the definitions on hand-made trajectories,
and the replayed trajectory against an independent reading of Pig's decision log."""

import math

import numpy as np
import pytest

from sheepsim.analysis import experience as X
from sheepsim.games import get_game
from sheepsim.games import wrappers as W
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
        samples = X.trajectory(game.play, arr, aux, specs, True, 11, g)
        log = W.replay(game.play, arr, aux, specs, True, 11, g)[0]
        assert np.array_equal(samples, _pig_rounds(log, 50))
        winner = int(rows[g, game.play.E.O_WINNER])
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
    cow = game.play.E.O_COWINNERS
    for g in range(4):
        samples = X.trajectory(game.play, arr, aux, specs, True, 5, g)
        assert samples.shape[1] == players and len(samples) >= 2
        mask = int(rows[g, cow])
        if bin(mask).count("1") == 1:
            w = mask.bit_length() - 1
            assert samples[-1][w] == samples[-1].max()
