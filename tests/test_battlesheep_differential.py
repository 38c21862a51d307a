"""Differential tests: the Numba kernel against the pure-Python reference engine.

The same seeded games are compared decision by decision. Each game
is played by `play.replay` (the runner's own loop, with the runner's policies and
streams) with an action log; the log is then replayed through `engine.apply` and
`reference.play` side by side, and at EVERY decision we check

* the kernel's legal set (position.legal_json) == reference.legal_moves, as sets, and
  the kernel lists no move twice;
* the action the policy chose is in it;
* after applying it in both, position.from_state(kernel) == reference.to_position;

* the logged actor is the seat to move (NATURE for a board=random build);

and at the end that the replayed state's outcome equals the kernel's own row, which
(winner, cowinners, loser, scores, herds) equals reference.result.

Hypothesis then builds positions no policy would reach (random pastures from random
legal tile sequences, random stack distributions in the move phase that keep every
seat's sheep at stack_size) and compares legal sets, every next state and outcomes.
"""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats as scipy_stats

from sheepsim.games import driver
from sheepsim.games.battlesheep import engine as E
from sheepsim.games.battlesheep.play import KERNELS as PL
from sheepsim.games.battlesheep import policies as POL
from sheepsim.games.battlesheep import position as POS
from sheepsim.games.battlesheep import reference as REF
from sheepsim.games.battlesheep import rules as RU
from sheepsim.games.battlesheep.game import initial_state
from sheepsim.games.wrappers import seat_slots
from sheepsim.rng import streams

from conftest import canon, kernel_legal, outcome_row, ref_legal, ref_rules, row_result

R, G = POL.RANDOM, POL.GREEDY
MAX_PLIES = 160     # 24 tiles + 4 placements + 4 players x 31 moves, rounded up

# Policy mixes per seat slot: (ids, greedy params [epsilon, opponent]). Game g of a
# config uses mix g % len(MIXES), with seat rotation on, so every slot plays every seat.
MIXES = [
    ((R, R, R, R), [0.0, 1.0]),
    ((G, G, G, G), [0.0, 1.0]),
    ((G, R, G, R), [0.0, 1.0]),
    ((R, G, G, G), [0.25, 0.5]),
    ((G, G, R, R), [0.0, 0.0]),
    ((G, G, G, G), [0.1, -1.0]),
]


def _replay(ra, init, slot_ids, slot_params, seed: int, g: int):
    """Game g exactly as the chunk kernel plays it (rotation on): (seat slots, log of
    (actor, kind, a, b, c, chance), row without the rotation column)."""
    seat_slot = seat_slots(g, int(ra[0]), True, E.MAX_PLAYERS)
    log = np.zeros((MAX_PLIES, E.ACTION_SIZE + 2), dtype=np.int32)
    row = np.zeros(E.O_SIZE, dtype=np.int32)
    fault = np.zeros(driver.FAULT_SIZE, dtype=np.int64)
    n = PL.replay(ra, init, slot_ids, slot_params, seat_slot, streams(seed, g, PL.GAME.streams), g, row, log, fault)
    assert not fault.any(), f"game {g}: fault {fault}"
    assert 0 < n <= MAX_PLIES
    return seat_slot, log[:n], row


def _run_and_compare(players: int, overrides: dict, games: int, seed: int) -> int:
    """Play `games` games with play.replay and compare each with the reference; returns decisions."""
    rules = RU.make(players, overrides)
    ra = RU.to_array(rules)
    rr = ref_rules(rules)
    init = initial_state(rules)
    board_random = rules["board"] == "random"
    decisions = 0
    for g in range(games):
        ids, par = MIXES[g % len(MIXES)]
        slot_ids = np.array(ids[:players], dtype=np.int64)
        slot_params = np.array([par] * players, dtype=np.float64)
        _, log, row = _replay(ra, init, slot_ids, slot_params, seed, g)
        plies = int(row[E.O_PLIES]) - int(init[E.H_PLIES])
        assert 0 < plies <= MAX_PLIES and len(log) == plies
        k = init.copy()
        ref = REF.from_position(POS.from_state(k), rr)
        where = f"rules {rules.to_json()} seed {seed} game {g}"
        for t in range(plies):
            pos = POS.from_state(k)
            assert pos == REF.to_position(ref), f"{where} ply {t}: states differ"
            legal = kernel_legal(k, ra)
            expected = ref_legal(ref)
            if legal != expected:
                raise AssertionError(
                    f"{where} ply {t}: legal sets differ\nposition {json.dumps(pos)}\n"
                    f"kernel only {sorted(legal - expected)}\nreference only {sorted(expected - legal)}")
            action = [int(x) for x in log[t, 1:1 + E.ACTION_SIZE]]
            building = int(k[E.H_PHASE]) == E.PH_BUILD
            actor = driver.NATURE if board_random and building else int(k[E.H_TO_MOVE])
            assert int(log[t, 0]) == actor and int(log[t, -1]) == -1, f"{where} ply {t}: log row {log[t]}"
            move = POS.action_to_json(k, action)
            assert canon(move) in legal, f"{where} ply {t}: chosen {move} not legal in {json.dumps(pos)}"
            E.apply(k, ra, *action)
            ref = REF.play(ref, move)
            decisions += 1
        end = POS.from_state(k)
        assert end == REF.to_position(ref), f"{where}: final states differ"
        assert end["phase"] == "over" and REF.is_over(ref)
        assert np.array_equal(outcome_row(k, ra), row), f"{where}: replaying the log does not give the kernel's row"
        got = row_result(row, players)
        want = REF.result(ref)
        assert got == want, f"{where}: outcome {got} != reference {want}\nposition {json.dumps(end)}"
        # seats beyond the player count stay zero
        assert not row[E.O_SCORE + players:E.O_SCORE + E.MAX_PLAYERS].any()
        assert not row[E.O_HERD + players:E.O_HERD + E.MAX_PLAYERS].any()
    return decisions


SMALL = {"tiles_per_player": 1, "stack_size": 4}

# (players, option overrides, games): small boards and stacks reach end positions fast;
# a few dozen games per player count with the boxed rules keep the real sizes honest.
# The counts are kept small for the 10-minute `make test` budget: every rule case stays.
CONFIGS = [
    (2, {}, 50),
    (3, {}, 25),
    (4, {}, 20),
    (2, {"tiles_per_player": 1, "stack_size": 3}, 200),
    (2, {"tiles_per_player": 2, "stack_size": 5}, 150),
    (2, {"tiles_per_player": 3, "stack_size": 6}, 75),
    (2, {"tiles_per_player": 5, "stack_size": 4}, 50),
    (3, {"tiles_per_player": 1, "stack_size": 5}, 125),
    (3, {"tiles_per_player": 2, "stack_size": 4}, 100),
    (4, {"tiles_per_player": 1, "stack_size": 3}, 125),
    (4, {"tiles_per_player": 2, "stack_size": 5}, 60),
    (2, {**SMALL, "start_zone": "any_edge"}, 125),
    (2, {"tiles_per_player": 3, "stack_size": 5, "start_zone": "any_edge"}, 75),
    (3, {"tiles_per_player": 2, "stack_size": 5, "start_zone": "any_edge"}, 60),
    (4, {"tiles_per_player": 2, "stack_size": 4, "start_zone": "any_edge"}, 50),
    (2, {**SMALL, "no_move": "game_ends_now"}, 150),
    (3, {"tiles_per_player": 2, "stack_size": 5, "no_move": "game_ends_now"}, 100),
    (4, {**SMALL, "no_move": "game_ends_now"}, 100),
    (2, {**SMALL, "no_move": "player_loses"}, 150),
    (2, {"tiles_per_player": 2, "stack_size": 6, "no_move": "player_loses"}, 100),
    (2, {**SMALL, "final_tie": "second_largest_herd"}, 125),
    (3, {"tiles_per_player": 2, "stack_size": 6, "final_tie": "second_largest_herd"}, 75),
    (4, {"tiles_per_player": 2, "stack_size": 5, "final_tie": "second_largest_herd"}, 50),
    (2, {**SMALL, "placement_order": "reverse"}, 100),
    (3, {**SMALL, "placement_order": "reverse"}, 100),
    (4, {"tiles_per_player": 2, "stack_size": 4, "placement_order": "reverse"}, 50),
    (2, {"tiles_per_player": 2, "stack_size": 5, "board": "random"}, 100),
    (3, {"tiles_per_player": 1, "stack_size": 6, "board": "random"}, 75),
    (4, {"tiles_per_player": 1, "stack_size": 4, "board": "random"}, 75),
    (2, {"board": "preset:ring-2p", "stack_size": 6}, 40),
    (2, {"board": "preset:ring-2p", "stack_size": 6, "start_zone": "any_edge"}, 40),
    (3, {"board": "preset:parallelogram-3p", "stack_size": 5}, 25),
    (4, {"board": "preset:ring-4p", "stack_size": 4, "placement_order": "reverse"}, 25),
]


def _config_id(config) -> str:
    players, overrides, games = config
    opts = ",".join(f"{k}={v}" for k, v in overrides.items()) or "default"
    return f"{players}p-{opts}-x{games}"


@pytest.mark.parametrize("config", CONFIGS, ids=[_config_id(c) for c in CONFIGS])
def test_kernel_games_match_reference_move_by_move(config):
    players, overrides, games = config
    decisions = _run_and_compare(players, overrides, games, seed=20240 + players)
    # every game has at least its tiles (unless preset), its placements and one move
    assert decisions >= games * (players + 1)


def test_replay_with_choose_matches_the_kernel_log():
    """Stepping the kernel with policies.choose by hand makes the same decisions as
    the runner's loop (so the differential replay of the log tests the policies' own path)."""
    rules = RU.make(3, {"tiles_per_player": 2, "stack_size": 6})
    ra = RU.to_array(rules)
    init = initial_state(rules)
    buf = np.empty((E.MAX_ACTIONS, 4), dtype=np.int32)
    scratch = np.empty_like(buf)
    for g in range(20):
        ids, par = MIXES[g % len(MIXES)]
        slot_ids = np.array(ids[:3], dtype=np.int64)
        slot_params = np.array([par] * 3, dtype=np.float64)
        seat_slot, log, row = _replay(ra, init, slot_ids, slot_params, 5, g)
        rngs = streams(5, g, PL.GAME.streams)
        k = init.copy()
        t = 0
        while k[E.H_PHASE] != E.PH_OVER:
            seat = int(k[E.H_TO_MOVE])
            slot = int(seat_slot[seat])
            action = POL.choose(slot_ids[slot], k, ra, init, seat, slot_params[slot], rngs[PL.GAME.policy + seat], buf,
                                scratch)
            assert int(log[t, 0]) == seat, f"game {g} ply {t}"
            assert [int(x) for x in action] == [int(x) for x in log[t, 1:1 + E.ACTION_SIZE]], f"game {g} ply {t}"
            E.apply(k, ra, *(int(x) for x in action))
            t += 1
        assert t == int(row[E.O_PLIES]) == len(log)
        assert np.array_equal(outcome_row(k, ra), row)


# ---------------------------------------------------------------------------
# Hypothesis: positions no policy would reach
# ---------------------------------------------------------------------------

HYP = settings(max_examples=150, deadline=None, derandomize=True,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@st.composite
def rule_options(draw, max_tiles=3):
    players = draw(st.integers(2, 4))
    opts = {
        "tiles_per_player": draw(st.integers(1, max_tiles)),
        "stack_size": draw(st.integers(2, 9)),
        "start_zone": draw(st.sampled_from(["outer_perimeter", "any_edge"])),
        "no_move": draw(st.sampled_from(["skip", "game_ends_now"] + (["player_loses"] if players == 2 else []))),
        "final_tie": draw(st.sampled_from(["shared", "second_largest_herd"])),
        "placement_order": draw(st.sampled_from(["clockwise_from_first", "reverse"])),
    }
    return players, opts


def _random_pasture(data, rr: REF.Rules, tiles: int) -> REF.Game:
    """A pasture of `tiles` tiles from a hypothesis-chosen legal tile sequence (reference)."""
    game = REF.new_game(rr)
    for _ in range(tiles):
        moves = REF.legal_moves(game)
        game = REF.play(game, moves[data.draw(st.integers(0, len(moves) - 1), label="tile")])
    return game


def _position(game: REF.Game, keep_tiles: bool) -> dict:
    pos = REF.to_position(game)
    if not keep_tiles:
        pos.pop("tiles", None)
    return pos


def _load_both(pos: dict, players: int, opts: dict):
    rules = RU.make(players, opts)
    ra = RU.to_array(rules)
    rr = ref_rules(rules)
    s = POS.to_state(pos, POS.rules_for(pos, opts))
    return rules, ra, rr, s, REF.from_position(pos, rr)


def _compare_all_successors(s, ra, ref, data, limit=40) -> None:
    """Legal sets equal; for (up to `limit`) legal moves, the next states are equal."""
    pos = POS.from_state(s)
    assert pos == REF.to_position(ref)
    legal = kernel_legal(s, ra)
    expected = ref_legal(ref)
    assert legal == expected, (f"legal sets differ in {json.dumps(pos)}\nkernel only {sorted(legal - expected)}\n"
                               f"reference only {sorted(expected - legal)}")
    moves = POS.legal_json(s, ra)
    if len(moves) > limit:
        moves = data.draw(st.permutations(moves), label="sample")[:limit]
    for move in moves:
        k = s.copy()
        kind, a, b, c = POS.json_to_action(k, ra, move)
        E.apply(k, ra, kind, a, b, c)
        nxt = REF.play(ref, move)
        assert POS.from_state(k) == REF.to_position(nxt), f"after {move} from {json.dumps(pos)}"


def _play_out(s, ra, ref, players: int, rnd: random.Random) -> None:
    """Random continuation to the end, comparing at every step, then the outcome."""
    while not REF.is_over(ref):
        pos = POS.from_state(s)
        assert pos == REF.to_position(ref)
        legal = POS.legal_json(s, ra)
        assert {canon(m) for m in legal} == ref_legal(ref), f"legal sets differ in {json.dumps(pos)}"
        move = rnd.choice(legal)
        kind, a, b, c = POS.json_to_action(s, ra, move)
        E.apply(s, ra, kind, a, b, c)
        ref = REF.play(ref, move)
    end = POS.from_state(s)
    assert end == REF.to_position(ref)
    assert row_result(outcome_row(s, ra), players) == REF.result(ref), f"outcome differs in {json.dumps(end)}"


@HYP
@given(rule_options(), st.data(), st.booleans())
def test_build_positions(options, data, keep_tiles):
    players, opts = options
    rr = ref_rules(RU.make(players, opts))
    built = data.draw(st.integers(0, rr.total_tiles - 1), label="tiles down")
    game = _random_pasture(data, rr, built)
    pos = _position(game, keep_tiles)
    rules, ra, rr, s, ref = _load_both(pos, players, opts)
    assert int(s[E.H_TO_MOVE]) == built % players
    _compare_all_successors(s, ra, ref, data)
    _play_out(s, ra, ref, players, random.Random(data.draw(st.integers(0, 2**32), label="seed")))


@HYP
@given(rule_options(), st.data(), st.booleans())
def test_place_positions(options, data, keep_tiles):
    players, opts = options
    rr = ref_rules(RU.make(players, opts))
    game = _random_pasture(data, rr, rr.total_tiles)
    assert game.phase == "place"
    placed = data.draw(st.integers(0, players - 1), label="stacks down")
    for _ in range(placed):
        moves = REF.legal_moves(game)
        if not moves:
            break
        game = REF.play(game, data.draw(st.sampled_from(moves), label="place"))
    if game.phase != "place":
        return      # a pasture with fewer start hexes than players; nothing to place
    pos = _position(game, keep_tiles)
    rules, ra, rr, s, ref = _load_both(pos, players, opts)
    _compare_all_successors(s, ra, ref, data)
    _play_out(s, ra, ref, players, random.Random(data.draw(st.integers(0, 2**32), label="seed")))


@st.composite
def _composition(draw, total: int, parts: int) -> list[int]:
    """`total` split into `parts` positive heights."""
    cuts = sorted(draw(st.lists(st.integers(1, total - 1), min_size=parts - 1, max_size=parts - 1, unique=True)))
    edges = [0] + cuts + [total]
    return [b - a for a, b in zip(edges, edges[1:])]


@HYP
@given(rule_options(max_tiles=4), st.data(), st.booleans())
def test_move_positions(options, data, keep_tiles):
    players, opts = options
    stack = opts["stack_size"]
    rr = ref_rules(RU.make(players, opts))
    game = _random_pasture(data, rr, rr.total_tiles)
    hexes = data.draw(st.permutations(sorted(game.pasture)), label="hex order")
    # every seat gets 1..stack stacks, together at most one per hex
    room = len(hexes)
    counts = []
    for seat in range(players):
        most = min(stack, room - (players - 1 - seat))
        counts.append(data.draw(st.integers(1, most), label=f"stacks of {seat}"))
        room -= counts[-1]
    stacks = {}
    it = iter(hexes)
    for seat in range(players):
        for height in data.draw(_composition(stack, counts[seat]), label=f"heights of {seat}"):
            stacks[next(it)] = (seat, height)
    probe = REF.Game(rr, game.pasture, stacks, game.tiles, game.tiles_placed, "move", 0)
    movable = [t for t in range(players) if REF.can_move(probe, t)]
    if movable:
        phase, to_move = "move", data.draw(st.sampled_from(movable), label="to move")
    elif opts["no_move"] == "player_loses":
        return      # an "over" position does not say who lost when both seats are blocked
    else:
        phase, to_move = "over", None
    pos = REF.to_position(REF.Game(rr, game.pasture, stacks, game.tiles, game.tiles_placed, phase, to_move))
    if not keep_tiles:
        pos.pop("tiles")
    rules, ra, rr, s, ref = _load_both(pos, players, opts)
    assert [sum(h for o, h in stacks.values() if o == t) for t in range(players)] == [stack] * players
    # outcome of the board as it stands (both engines rank an unfinished board too)
    got = row_result(outcome_row(s, ra), players)
    want = REF.result(ref)
    assert got == want, f"outcome differs in {json.dumps(pos)}"
    if phase == "over":
        assert POS.legal_json(s, ra) == []
        return
    _compare_all_successors(s, ra, ref, data)
    _play_out(s, ra, ref, players, random.Random(data.draw(st.integers(0, 2**32), label="seed")))


# ---------------------------------------------------------------------------
# The uniform random policy is exactly uniform over the reference's moves
# ---------------------------------------------------------------------------

def _draw_counts(s, ra, expected: set, draws: int, seed: int) -> dict:
    """Counts of `draws` random-policy actions, each from a fresh stream of its own."""
    buf = np.empty((E.MAX_ACTIONS, 4), dtype=np.int32)
    params = np.zeros(2)
    seat = int(s[E.H_TO_MOVE])
    aux = s.copy()          # the start state; policies ignore it
    counts = dict.fromkeys(expected, 0)
    for i in range(draws):
        rng = streams(seed, i, 1)[0]
        action = POL.choose(POL.RANDOM, s, ra, aux, seat, params, rng, buf, np.empty_like(buf))
        key = canon(POS.action_to_json(s, [int(x) for x in action]))
        assert key in counts, f"draw {i}: illegal action {key}"
        counts[key] += 1
    return counts


def _assert_uniform(counts: dict) -> None:
    observed = np.array(list(counts.values()))
    assert (observed > 0).all(), "some legal action was never drawn"
    p = scipy_stats.chisquare(observed).pvalue
    assert p > 0.001, f"chi-square p = {p:.2g} over {len(observed)} actions: not uniform"


def _kernel_and_ref_after(players, opts, moves):
    rules = RU.make(players, opts)
    ra = RU.to_array(rules)
    s = E.empty_state(ra)
    ref = REF.new_game(ref_rules(rules))
    for move in moves:
        kind, a, b, c = POS.json_to_action(s, ra, move)
        E.apply(s, ra, kind, a, b, c)
        ref = REF.play(ref, move)
    return s, ra, ref


TWO_TILES = [{"tile": [[0, 0], [1, 0], [0, 1], [1, 1]]}, {"tile": [[2, 0], [3, 0], [2, 1], [3, 1]]}]
# a third tile in a notch, so candidate tiles have 1 to 3 contact edges (the rejection
# sampler must undo the k-fold over-proposal of a tile with k contacts)
THREE_TILES = TWO_TILES + [{"tile": [[1, 2], [2, 2], [1, 3], [2, 3]]}]


def test_random_first_tile_is_uniform_over_three():
    s, ra, ref = _kernel_and_ref_after(2, {}, [])
    counts = _draw_counts(s, ra, ref_legal(ref), 3000, seed=1)
    assert len(counts) == 3
    _assert_uniform(counts)


@pytest.mark.parametrize("tiles", [TWO_TILES, THREE_TILES], ids=["2 tiles", "3 tiles"])
def test_random_tile_is_uniform_over_distinct_legal_tiles(tiles):
    s, ra, ref = _kernel_and_ref_after(2, {}, tiles)
    expected = ref_legal(ref)
    contacts = {int(E.tile_contacts(s, *(int(x) for x in POS.json_to_action(s, ra, {"tile": list(k[1])})[1:])))
                for k in expected}
    assert len(contacts) >= 2           # the position really mixes contact counts
    counts = _draw_counts(s, ra, expected, 60 * len(expected), seed=2 + len(tiles))
    _assert_uniform(counts)


def test_random_place_is_uniform_over_eligible_hexes():
    # ring-2p preset after seat 0 placed: 19 eligible outer hexes, none on the hole rim
    rules = RU.make(2, {"board": "preset:ring-2p"})
    ra = RU.to_array(rules)
    s = initial_state(rules)
    E.apply(s, ra, *POS.json_to_action(s, ra, {"place": [0, 0]}))
    ref = REF.from_position(POS.from_state(s), ref_rules(rules))
    expected = ref_legal(ref)
    assert len(expected) == 19
    _assert_uniform(_draw_counts(s, ra, expected, 200 * len(expected), seed=7))


def test_random_move_is_uniform_over_stack_direction_count_triples():
    # seat 0: (0,0) h=5 (2 open directions x 4 counts) and (3,1) h=2 (open
    # directions x 1 count): stacks with many sheep must not be favoured per stack
    #   |0 . . . .
    #   | . . . 0 .
    #   |  1 . . . .
    pos = {"game": "battle-sheep", "num_players": 2, "stack_size": 7, "phase": "move", "to_move": 0,
           "cells": [{"q": q, "r": r, "owner": None, "height": 0} for r in range(3) for q in range(-r, 5 - r)]}
    for cell in pos["cells"]:
        where = (cell["q"], cell["r"])
        if where in ((0, 0), (3, 1), (-2, 2)):
            cell["owner"], cell["height"] = {(0, 0): (0, 5), (3, 1): (0, 2), (-2, 2): (1, 7)}[where]
    rules = POS.rules_for(pos)
    ra = RU.to_array(rules)
    s = POS.to_state(pos, rules)
    expected = ref_legal(REF.from_position(pos, ref_rules(rules)))
    froms = {k[1] for k in expected}
    assert froms == {(0, 0), (3, 1)} and len(expected) > 10
    _assert_uniform(_draw_counts(s, ra, expected, 200 * len(expected), seed=11))
