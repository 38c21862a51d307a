"""Bobby Sitter kernel vs reference engine, flip by flip.

The kernel plays a seeded game (play.replay keeps its flip log: flipper, card, every
seat's grab and time). The test then steps the kernel from Python with the game's own
deck stream and the logged reactions, and the reference replays the same game from
the same shuffles (read from the kernel's stack after each one) and the same
reactions. After every flip both must agree on the whole state (tokens, stock,
counters, stacks and discards, flipper, winner, counters per seat), and at the end on
the result row. The chunk kernel must give the replay's row. (Any thread count or
chunking giving the same rows is tests/test_conformance.py's.)
"""

from __future__ import annotations

import numpy as np
import pytest

from sheepsim.games import driver
from sheepsim.games import wrappers as W
from sheepsim.games.bobbysitter import engine as E
from sheepsim.games.bobbysitter import play as P
from sheepsim.games.bobbysitter import reference as ref
from sheepsim.games.bobbysitter import rules as R
from sheepsim.games.bobbysitter.model import PROFILES
from sheepsim.games.wrappers import seat_slots
from sheepsim.rng import streams

CHILD, YOUNG = PROFILES["child"], PROFILES["young_child"]
SLOPPY = (450.0, 0.4, 0.5, 0.6, 0.3)        # many false reactions and wrong grabs: every penalty path
DECK = [{"sheep": 2}, {"wolf": True}, {"sheep": 1, "wolf": True}, {"hidden_wolf": True}, {},
        {"sheep": 3, "hidden_wolf": True}, {"sheep": 1}]

CASES = [
    # players, options, explicit deck, profiles by player slot, games
    (2, {}, None, [PROFILES["adult"]], 60),
    (3, {}, None, [CHILD, PROFILES["adult"], PROFILES["adult"]], 50),
    (4, {}, None, [YOUNG, SLOPPY], 50),
    (6, {}, None, [SLOPPY], 40),
    (5, {"start_tokens": "3,2,2,1,2"}, None, [CHILD, PROFILES["adult"]], 40),
    (3, {"stack_mode": "per_player"}, None, [SLOPPY], 40),
    (4, {"stack_mode": "per_player", "empty_cards": 0, "sheep_cards": 3}, None, [SLOPPY], 30),
    (3, {"wolf_with_sheep": "sheep"}, None, [SLOPPY], 40),
    (3, {"wrong_counter_penalty": 0, "max_loss_per_card": "unlimited"}, None, [SLOPPY], 40),
    (4, {"max_loss_per_card": "unlimited", "sheep_race_loser_penalty": 1}, None, [SLOPPY], 40),
    (3, {"last_standing_wins": "no"}, None, [SLOPPY], 40),
    (3, {"target_tokens": 12, "tokens": 14, "empty_stock": "no_gain"}, None, [SLOPPY, PROFILES["adult"]], 30),
    (3, {"target_tokens": 12, "tokens": 14, "empty_stock": "unlimited_tokens"}, None, [SLOPPY], 30),
    (4, {"flip_cap": 15}, None, [PROFILES["adult"]], 40),
    (4, {"flip_cap": 10, "cap_resolution": "draw"}, None, [PROFILES["adult"]], 30),
    (3, {"flipper_reaction_bonus_ms": 120}, None, [PROFILES["adult"]], 40),
    (2, {"target_tokens": 9}, DECK, [SLOPPY], 40),
    (4, {"stack_mode": "per_player"}, DECK, [SLOPPY, CHILD], 30),
]


class KernelChance:
    """The reference's chance: shuffles read from the kernel, reactions from its log."""

    def __init__(self, reactions):
        self.shuffles: list[list[int]] = []
        self.reactions = reactions          # {seat: (grab, time)} of the current flip

    def shuffle(self, cards):
        order = self.shuffles.pop(0)
        assert sorted(order) == sorted(cards)
        return list(order)

    def react(self, seat, card, cls, is_flipper):
        return self.reactions[seat]


def _initial_order(s, p, per_player):
    if not per_player:
        return [int(c) for c in s[E.ORDER:E.ORDER + int(s[E.H_NCARDS])]]
    regions = [[int(c) for c in s[E.ORDER + s[E.OFF + q]:E.ORDER + s[E.OFF + q] + s[E.LEN + q]]] for q in range(p)]
    return [regions[k % p][k // p] for k in range(int(s[E.H_NCARDS]))]


def replay_both(players, options, deck, profiles, seed, game):
    rules = R.make(players, options)
    arr, deck_arr = R.to_array(rules), R.deck_array(rules, deck)
    per_player = rules["stack_mode"] == "per_player"
    slots = seat_slots(game, players, True, 6)
    ids = np.full(players, 3, dtype=np.int64)
    params = np.zeros((players, 8))
    for slot in range(players):
        params[slot, :5] = profiles[slot % len(profiles)]
    log = np.full((5000, P.LOG_COLS), -1, dtype=np.int32)
    log_times = np.zeros((5000, 6))
    row = np.zeros(E.O_SIZE, dtype=np.int32)
    fault = np.zeros(driver.FAULT_SIZE, dtype=np.int64)
    flips = P.replay(arr, deck_arr, ids, params, slots, streams(seed, game, P.N_STREAMS), game, row, log, log_times,
                     fault)
    assert not fault.any()
    assert 0 < flips <= 5000
    # the kernel, stepped from Python
    deck_rng = streams(seed, game, P.N_STREAMS)[P.DECK_STREAM]
    s = np.empty(E.STATE_SIZE, dtype=np.int32)
    E.setup(s, arr, deck_arr, deck_rng, slots)
    # the reference, on the same shuffles and reactions
    starts = [int(arr[R.R_START + slots[q]]) for q in range(players)]
    chance = KernelChance({})
    chance.shuffles.append(_initial_order(s, players, per_player))
    g = ref.new_game(R.reference_rules(rules, starts, deck), chance)
    assert ref.to_dict(g) == E.to_dict(s, players, per_player)
    grab, loss = np.zeros(6, dtype=np.int32), np.zeros(6, dtype=np.int32)
    for t in range(flips):
        flipper, card = int(log[t, 0]), int(log[t, 1])
        reshuffles = int(s[E.H_RESHUFFLES])
        assert flipper == int(s[E.H_FLIPPER])
        assert E.draw_card(s, arr, deck_rng) == card
        if s[E.H_RESHUFFLES] > reshuffles:
            r = flipper if per_player else 0
            lo = E.ORDER + int(s[E.OFF + r])
            chance.shuffles.append([int(c) for c in s[lo:lo + int(s[E.LEN + r])]])
        active = [q for q in range(players) if s[E.ALIVE + q]]
        chance.reactions = {q: (int(log[t, 3 + q]), float(log_times[t, q])) for q in active}
        grab[:] = log[t, 3:3 + 6]
        E.resolve(s, arr, deck_arr[card], grab, log_times[t].copy(), loss)
        event = ref.flip(g, chance)
        assert event["card"] == card and event["flipper"] == flipper
        assert ref.to_dict(g) == E.to_dict(s, players, per_player), f"flip {t}"
    assert ref.is_over(g) and not chance.shuffles
    res = ref.result(g)
    assert res["winner"] == row[E.O_WINNER] and res["flips"] == row[E.O_TURNS] == flips
    assert res["capped"] == bool(row[E.O_CAPPED]) and res["reshuffles"] == row[E.O_RESHUFFLES]
    for q in range(players):
        assert res["tokens"][q] == row[E.O_TOKENS + q]
        assert res["eliminated"][q] == row[E.O_ELIMINATED + q]
        assert res["penalties"][q] == row[E.O_PENALTIES + q]
        assert res["wolf_losses"][q] == row[E.O_WOLF_LOSSES + q]
        assert res["sheep_gains"][q] == row[E.O_SHEEP_GAINS + q]
    return row, res, ids, params, arr, deck_arr


@pytest.mark.parametrize("players,options,deck,profiles,games", CASES)
def test_kernel_matches_reference(players, options, deck, profiles, games):
    outcomes = set()
    for game in range(games):
        row, res, ids, params, arr, deck_arr = replay_both(players, options, deck, profiles, 7, game)
        outcomes.add("cap" if res["capped"] else "draw" if res["winner"] < 0 else "win")
        # the chunk kernel plays the same game
        out = np.zeros((1, E.O_SIZE), dtype=np.int32)
        faults = np.zeros((driver.BLOCKS, driver.FAULT_SIZE), dtype=np.int64)
        W.run_blocks(P.play_blocks, (arr, deck_arr, ids, params, True, np.uint64(7), game, out, faults, W.NO_METRICS))
        assert not faults.any()
        assert (out[0, :E.O_ROTATION] == row[:E.O_ROTATION]).all() and (out[0, E.O_ROTATION + 1:] ==
                                                                        row[E.O_ROTATION + 1:]).all()
    assert "win" in outcomes or "cap" in outcomes


def test_reaction_model_matches_its_specification():
    """The kernel's profile: log-normal times with the given median and spread, and
    the false-reaction and wrong-counter probabilities, over many flips (fixed seed)."""
    from sheepsim.games.bobbysitter import policies as POL
    from sheepsim.games.bobbysitter.model import EMPTY, GRAB_BOBBY, GRAB_SHEEP, HIDDEN, NONE, SHEEP, WOLF
    params = np.zeros(8)
    params[:5] = (500.0, 0.3, 0.1, 0.25, 0.05)
    rng = streams(11, 0, 1)[0]
    rules = R.to_array(R.make(2))
    n = 40_000
    times = np.array([POL.profile(WOLF, 0, False, params, rng, rules)[1] for _ in range(n)])
    assert abs(np.median(times) / 500.0 - 1) < 0.01
    assert abs(np.log(times).std() / 0.3 - 1) < 0.02
    wolf = [POL.profile(WOLF, 0, False, params, rng, rules)[0] for _ in range(n)]
    sheep = [POL.profile(SHEEP, 2, False, params, rng, rules)[0] for _ in range(n)]
    empty = [POL.profile(EMPTY, 0, False, params, rng, rules)[0] for _ in range(n)]
    hidden = [POL.profile(HIDDEN, 1, False, params, rng, rules)[0] for _ in range(n)]

    def near(k, p):
        return abs(k / n - p) < 4 * np.sqrt(p * (1 - p) / n)
    assert near(wolf.count(GRAB_SHEEP), 0.05) and set(wolf) == {GRAB_SHEEP, GRAB_BOBBY}
    assert near(sheep.count(GRAB_BOBBY), 0.05) and set(sheep) == {GRAB_SHEEP, GRAB_BOBBY}
    assert near(n - empty.count(NONE), 0.10) and set(empty) == {NONE, GRAB_BOBBY}
    assert near(n - hidden.count(NONE), 0.25) and set(hidden) == {NONE, GRAB_SHEEP}


def test_kernel_and_reference_agree_in_distribution():
    """End to end with their own randomness: a child's win rate against 2 adults from
    the kernel and from the reference's RandomChance agree (two-proportion z < 4)."""
    import random
    rules = R.make(3, {})
    arr, deck = R.to_array(rules), R.deck_array(rules)
    ids = np.array([1, 0, 0], dtype=np.int64)
    params = np.zeros((3, 8))
    params[0, :5], params[1:, :5] = YOUNG, PROFILES["adult"]
    n_k = 60_000
    out = np.zeros((n_k, E.O_SIZE), dtype=np.int32)
    faults = np.zeros((driver.BLOCKS, driver.FAULT_SIZE), dtype=np.int64)
    W.run_blocks(P.play_blocks, (arr, deck, ids, params, False, np.uint64(5), 0, out, faults, W.NO_METRICS))
    assert not faults.any()
    k_rate = (out[:, E.O_WINNER] == 0).mean()
    rng = random.Random(5)
    n_r = 6000
    wins = sum(ref.result(ref.play(R.reference_rules(rules), [YOUNG, PROFILES["adult"], PROFILES["adult"]],
                                   rng))["winner"] == 0 for _ in range(n_r))
    r_rate = wins / n_r
    pooled = (k_rate * n_k + wins) / (n_k + n_r)
    z = (k_rate - r_rate) / np.sqrt(pooled * (1 - pooled) * (1 / n_k + 1 / n_r))
    assert abs(z) < 4, (k_rate, r_rate)
    assert k_rate < 1 / 3 - 0.05          # the slower player is measurably worse off
