"""Bye-Bye Black Sheep's `distilled` policy: its terms and decisions against a readable
Python twin, decision by decision; its fit against known weights; the shipped weights
against turn_optimal on games they were not fitted on.

(Its decisions read only what the seat may know: test_blacksheep_hidden.py's re-deal
tests play it among their policies.)"""

from __future__ import annotations

import numpy as np
import pytest

from sheepsim.games import get_game
from sheepsim.games.blacksheep import distill as D
from sheepsim.games.blacksheep import engine as E
from sheepsim.games.blacksheep import policies as POL
from sheepsim.games.blacksheep import rules as R
from sheepsim.games.blacksheep.model import ANIMAL, COPIES, DRAW, DRAW_FROM, OVER, STOP
from sheepsim.policies import get_policy, seat_specs
from sheepsim.rng import streams

GAME = get_game("blacksheep")
WEIGHTS = np.array(D.read()["weights"])
AUX = np.zeros(1, np.int32)


def twin_terms(s, rules, seat):
    """policies.stop_terms read off its docstring, with the state's counts as dicts."""
    others = [int(s[E.SIZE + o]) for o in range(s[E.H_PLAYERS]) if o != seat]
    q = 1.0 / max(others + [1])
    n = int(s[E.H_NTABLE])
    limit = max(0, (n if rules[R.R_ZOO_BASIS] == 0 else int(s[E.H_DRAWS])) - 2)
    if limit == 0:
        return q, 0.0, 0.0, 0.0
    value = {0: 0.0, 1: 0.2, 2: 0.5, 3: 1.0}
    species = range(1, int(s[E.H_SPECIES]) + 1)
    table = [int(k) for k in s[E.TABLE:E.TABLE + n]]
    zoo = {sp: int(E.species_count(s, seat, sp)) for sp in species}
    hand = {sp: int(s[E.HAND + seat * E.NK + ANIMAL + sp - 1]) + table.count(ANIMAL + sp - 1) for sp in species}
    unseen = {sp: COPIES - int(s[E.HAND + seat * E.NK + ANIMAL + sp - 1]) - table.count(ANIMAL + sp - 1)
              - sum(int(s[E.ZOO + o * E.NK + ANIMAL + sp - 1]) for o in range(s[E.H_PLAYERS])) for sp in species}
    at_start = sum(value[min(z, 3)] for z in zoo.values())
    triplets = sum(z >= 3 for z in zoo.values())
    to_win = int(s[E.H_TO_WIN])

    def gain(z):
        return value[min(z + 1, 3)] - value[min(z, 3)]

    stake = 0.0
    for _ in range(limit):
        open_ = [sp for sp in species if zoo[sp] < 3 and hand[sp] > 0]
        if not open_:
            break
        sp = max(open_, key=lambda x: (zoo[x], hand[x], -x))      # closest to a triplet, most in hand, first
        stake += gain(zoo[sp])
        zoo[sp] += 1
        hand[sp] -= 1
        if zoo[sp] == 3:
            triplets += 1
            if triplets >= to_win:
                return q, 10.0 - at_start, 0.0, 0.0
    win = 10.0 - at_start - stake

    def next_gain(z):
        return win if z == 2 and triplets + 1 >= to_win else gain(z)

    z_next = max([zoo[sp] for sp in species if zoo[sp] < 3 and hand[sp] > 0], default=-1)
    placement = next_gain(z_next) if z_next >= 0 else 0.0
    copies = {sp: max(unseen[sp], 0) for sp in species}
    if sum(copies.values()) == 0:
        return q, stake, placement, placement
    expected = 0.0
    for sp in species:
        goes = max(z_next, zoo[sp]) if zoo[sp] < 3 else z_next
        if goes >= 0:
            expected += copies[sp] * next_gain(goes)
    return q, stake, placement, expected / sum(copies.values())


def twin_stops(s, rules, seat, weights):
    q, stake, placement, next_card = twin_terms(s, rules, seat)
    terms = [1.0, q * stake, (1 - q) * placement, (1 - q) * next_card, q, int(s[E.H_NTABLE])]
    return float(np.dot(weights, terms)) <= 0.0


@pytest.mark.parametrize("players,options", [(2, {}), (3, {}), (4, {}), (5, {}),
                                             (3, {"zoo_limit_basis": "blind_draws", "must_draw_first": "yes"})])
def test_decisions_equal_the_python_twin(players, options):
    """Every decision of `distilled` seats (one seat with other weights) in whole games
    equals the twin's, and its four terms equal the twin's."""
    rules = R.to_array(R.make(players, options))
    other = WEIGHTS * np.array([1.0, 0.5, 2.0, 1.0, 1.0, 1.5])
    buf = np.empty((E.MAX_DECISIONS, 3), np.int32)
    checked = stops = 0
    for g in range(12):
        rng = streams(31, g, E.SHAPE.streams)
        s = np.zeros(E.STATE_SIZE, np.int32)
        E.deal(s, rules, rng[0])
        while s[E.H_PHASE] != OVER:
            seat = int(s[E.H_ACTOR])
            weights = other if seat == 1 else WEIGHTS
            params = np.zeros(8)
            params[:6] = weights
            if s[E.H_PHASE] == DRAW:
                assert POL.stop_terms(s, rules, seat, buf) == pytest.approx(twin_terms(s, rules, seat), abs=1e-12)
            code, a, b = POL.choose(POL.DISTILLED, s, rules, AUX, seat, params, rng[E.SHAPE.policy + seat], buf,
                                    np.empty_like(buf))
            if s[E.H_PHASE] == DRAW:
                may_stop = not (options.get("must_draw_first") == "yes" and s[E.H_DRAWS] == 0)
                expected = STOP if may_stop and twin_stops(s, rules, seat, weights) else DRAW_FROM
                assert code == expected, f"game {g}, seat {seat}"
                if code == DRAW_FROM:        # from the largest hand
                    assert s[E.SIZE + a] == max(s[E.SIZE + o] for o in range(players) if o != seat)
                checked += 1
                stops += code == STOP
            c = E.sample_chance(s, rules, code, a, b, rng[E.SHAPE.luck + seat])
            E.apply(s, rules, code, a, b, c)
    assert checked > 150 * players // 2 and stops > 10


def test_the_fit_recovers_known_weights():
    """Decisions drawn from a logistic model with known weights: the fit finds them."""
    rng = np.random.default_rng(5)
    x = np.column_stack([np.ones(60_000), rng.normal(0, 2, 60_000), rng.uniform(0, 1, 60_000)])
    truth = np.array([0.5, -1.5, 3.0])
    y = (rng.uniform(size=60_000) < 1 / (1 + np.exp(-x @ truth))).astype(float)
    assert D.fit(x, y) == pytest.approx(truth, abs=0.08)
    assert D.agreement(x, y, truth) == pytest.approx(D.agreement(x, y, D.fit(x, y)), abs=0.005)


def test_the_shipped_weights_follow_turn_optimal_on_fresh_games():
    """The registered defaults are the table's fit; on games the fit never saw (another
    seed), the rule chooses as turn_optimal at 95% of its stop decisions or more."""
    table = D.read()
    spec = get_policy("blacksheep", "distilled")
    assert tuple(spec.params) == POL.STOP_TERMS == tuple(table["terms"])
    assert [spec.params[t][0] for t in POL.STOP_TERMS] == table["weights"]
    assert table["agreement"] >= 0.95 and table["seed"] != 77
    x, y = D.collect(2, 0, 16, 77, False, 6)
    assert len(y) > 400
    assert D.agreement(x, y, WEIGHTS) >= 0.95


def test_distilled_beats_the_equilibrium_threshold():
    """A smoke check of strength on fixed seeds (the note and README measure it): one
    distilled seat against threshold:k=6 in 2 players wins more than half of 1,000 games."""
    rules = GAME.make_rules(2, {})
    specs = seat_specs("blacksheep", ["distilled", "threshold:k=6"], 2)
    rows = GAME.play_chunk(GAME.to_array(rules), GAME.initial_state(rules, None), specs, True, 3, 0, 1000)
    winner, rotation = rows[:, E.O_WINNER], rows[:, E.O_ROTATION]
    assert ((winner >= 0) & ((winner + rotation) % 2 == 0)).sum() / 1000 > 0.52
