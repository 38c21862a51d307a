"""Conformance of the Bye-Bye Black Sheep kernel: what is specific to
the game. The generic engine contract (the randomness contract, outcome bounds every game
shares, the census after every decision, a legal action for every seat to act, user
policies) is tests/test_conformance.py's, for every game.

Invariants, checked between every two decisions of many kernel games stepped from
Python (2-5 players, the optional cards off, all on and one at a time, other option
variants; random seats, and mixed seats so that games are also won):

* every card is in exactly one place: hands + zoos + table + pile + set-aside + the
  Magpie beside the pile while it is not in play = the full deck, no count negative;
* every player holds exactly their own Black Sheep; no Black Sheep on the table, in
  the pile, a zoo or set aside; zoos hold only animals and the Joker;
* hand sizes are the sums of the hands; KNOWN lower bounds never exceed the hands;
* the table is empty and nothing is set aside when a turn starts;
* the legal decisions are distinct and sorted, the decision taken is one of them;
* a game ends by a win or at the turn cap, the outcome row agrees with the zoos and
  with the decisions counted here (a won game's turns count the winning turn), and it
  is the row the kernel's play.replay writes.

Outcome rows of many more games (play_blocks) respect the game's bounds; with the same
policy in every slot, rotation changes nothing but the rotation column (streams belong
to seats). The luck is exact: the random policy is uniform over the legal decisions of
given phases and leaves the state alone, a blind draw is uniform over the cards of the
hand, the Magpie's place is uniform over the gaps of the pile (chi-square over many
fresh streams), and decisions without luck leave the luck stream alone.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from scipy.stats import chisquare

from sheepsim.games import driver
from sheepsim.games import wrappers as W
from sheepsim.games.blacksheep import engine as E
from sheepsim.games.blacksheep.play import KERNELS as P
from sheepsim.games.blacksheep import policies as POL
from sheepsim.games.blacksheep import reference as ref
from sheepsim.games.blacksheep import rules as R
from sheepsim.games.blacksheep.game import _reference_options
from sheepsim.games.blacksheep.model import (ANIMAL, BLACK, DRAW, DRAW_FROM, EAGLE_ASK_PHASE, JOKER, MAGPIE,
                                             MOLE, OVER, PHASE_NAMES, PLACE, STOP, WHITE_PHASE)
from sheepsim.rng import streams

MP, NK = E.MAX_PLAYERS, E.NK
ALL_OPTIONAL = {"wolf": "on", "white_sheep": "on", "mother_sheep": "on", "joker": "on"}
RA, TH, RI = POL.RANDOM, POL.THRESHOLD, POL.RISK
N_STREAMS = P.GAME.streams
AUX = np.zeros(1, dtype=np.int32)     # the game's aux: unused (game.initial_state)


def hands(s, p):
    return s[E.HAND:E.HAND + p * NK].reshape(p, NK)


def zoos(s, p):
    return s[E.ZOO:E.ZOO + p * NK].reshape(p, NK)


def aside(s, p):
    return s[E.ASIDE:E.ASIDE + p * NK].reshape(p, NK)


def known(s, p):
    return s[E.KNOWN:E.KNOWN + MP * MP * NK].reshape(MP, MP, NK)[:p, :p]


def table(s):
    return s[E.TABLE:E.TABLE + s[E.H_NTABLE]]


def pile(s):
    return s[E.PILE:E.PILE + s[E.H_NPILE]]


def full_deck(rules) -> np.ndarray:
    return np.array(ref.full_deck(ref.Rules(**_reference_options(rules.as_dict()))))


def triplets_of(s, p) -> list[int]:
    """Triplets per seat, counted here from the zoo rows (a Joker counts for its species)."""
    out = []
    for q in range(p):
        counts = zoos(s, p)[q, ANIMAL:ANIMAL + s[E.H_SPECIES]].copy()
        if s[E.JOKER_AS + q]:
            counts[s[E.JOKER_AS + q] - 1] += 1
        out.append(int((counts >= 3).sum()))
    return out


def check_state(s, p, deck, where):
    h, z, a, k = hands(s, p), zoos(s, p), aside(s, p), known(s, p)
    for name, rows in (("hand", h), ("zoo", z), ("set-aside", a), ("KNOWN", k)):
        assert (rows >= 0).all(), f"{where}: a negative {name} count"
    assert 0 <= s[E.H_NPILE] <= E.MAX_CARDS and 0 <= s[E.H_NTABLE] <= E.MAX_CARDS, where
    census = h.sum(axis=0) + z.sum(axis=0) + a.sum(axis=0)
    census += np.bincount(table(s), minlength=NK) + np.bincount(pile(s), minlength=NK)
    census[MAGPIE] += 0 if s[E.H_MAGPIE_IN] else 1
    assert np.array_equal(census, deck), f"{where}: census {census.tolist()} != full deck {deck.tolist()}"
    assert (h[:, BLACK] == 1).all(), f"{where}: Black Sheep in hands {h[:, BLACK].tolist()}"
    assert not z[:, :JOKER].any(), f"{where}: a zoo holds a special card"
    assert not a[:, BLACK].any() and BLACK not in table(s) and BLACK not in pile(s), where
    if not s[E.H_MAGPIE_IN]:
        assert not h[:, MAGPIE].any() and MAGPIE not in table(s) and MAGPIE not in pile(s), where
    for q in range(p):
        assert (s[E.JOKER_AS + q] > 0) == (z[q, JOKER] == 1), f"{where}: Joker binding of zoo {q}"
        assert 0 <= s[E.JOKER_AS + q] <= s[E.H_SPECIES]
    assert list(s[E.SIZE:E.SIZE + p]) == h.sum(axis=1).tolist(), f"{where}: hand sizes"
    assert (k <= h[None, :, :]).all(), f"{where}: a KNOWN lower bound exceeds a hand"
    assert (k[:, :, BLACK] == 1).all(), f"{where}: everybody knows everybody's Black Sheep"
    phase, actor, active = int(s[E.H_PHASE]), int(s[E.H_ACTOR]), int(s[E.H_ACTIVE])
    if phase == OVER:
        assert actor == -1, where
    elif phase == WHITE_PHASE:
        assert actor == s[E.H_SOURCE] != active, where
    else:
        assert actor == active, where
    if phase == DRAW and s[E.H_DRAWS] == 0:
        assert s[E.H_NTABLE] == 0 and not a.any(), f"{where}: a turn starts with cards on the table"


def play_checked(rules, seat_ids, seat_params, seed, game, seen):
    """Step one game (the driver's streams and order, seat q played by slot q) checking
    every state; returns (state, decisions, blind draws). `seen` counts the situations
    reached."""
    p = rules.num_players
    arr = R.to_array(rules)
    deck = full_deck(rules)
    rngs = streams(seed, game, N_STREAMS)
    s = np.empty(E.STATE_SIZE, dtype=np.int32)
    buf = np.empty((E.MAX_DECISIONS, 3), dtype=np.int32)
    E.deal(s, arr, rngs[0])
    check_state(s, p, deck, f"game {game} after the deal")
    assert s[E.H_NPILE] == deck.sum() - 1 - (p * (SETUP_DEALT[p] + 2))
    t = draws = 0
    while s[E.H_PHASE] != OVER:
        where = f"seed {seed} game {game} decision {t}"
        seat = int(s[E.H_ACTOR])
        n = E.legal_decisions(s, arr, buf)
        moves = [tuple(int(x) for x in buf[m]) for m in range(n)]
        assert 1 <= n <= E.MAX_DECISIONS and moves == sorted(set(moves)), f"{where}: legal {moves}"
        code, a, b = (int(x) for x in POL.choose(seat_ids[seat], s, arr, AUX, seat, seat_params[seat],
                                                rngs[P.GAME.policy + seat], buf, np.empty_like(buf)))
        assert (code, a, b) in moves, f"{where}: {(code, a, b)} not legal"
        chance = int(E.sample_chance(s, arr, code, a, b, rngs[P.GAME.luck + seat]))
        if code == DRAW_FROM:
            assert 0 <= chance < NK and hands(s, p)[a, chance] > 0, where
            draws += 1
        E.apply(s, arr, code, a, b, chance)
        t += 1
        assert s[E.H_DECISIONS] == t
        check_state(s, p, deck, f"{where} after {(code, a, b)} chance {chance}")
        seen[PHASE_NAMES[s[E.H_PHASE]]] += 1
        seen["set-aside"] += bool(aside(s, p).any())
        seen["magpie in pile"] += MAGPIE in pile(s)
        seen["joker in zoo"] += bool(zoos(s, p)[:, JOKER].any())
        seen["mole look"] += code == DRAW_FROM and chance == MOLE
    return s, t, draws


SETUP_DEALT = {p: E.SETUP_ARR[p, 1] for p in range(2, 6)}


def check_end(s, rules, decisions, draws, row):
    """A finished game: a win or the cap, and the outcome row says so. `turns` is the
    turns played: the completed ones (H_TURN), and for a won game also the winning turn,
    which ends inside it."""
    p = rules.num_players
    cap, to_win = rules["turn_cap"], int(s[E.H_TO_WIN])
    trip = triplets_of(s, p)
    winner, capped = int(s[E.H_WINNER]), bool(s[E.H_CAPPED])
    assert s[E.H_PHASE] == OVER
    if capped:
        assert s[E.H_TURN] == cap and max(trip) < to_win
        if rules["cap_resolution"] == "draw":
            assert winner == -1
        else:
            best = max((trip[q], int(zoos(s, p)[q].sum())) for q in range(p))
            tops = [q for q in range(p) if (trip[q], int(zoos(s, p)[q].sum())) == best]
            assert winner == (tops[0] if len(tops) == 1 else -1)
    else:
        assert s[E.H_TURN] < cap and 0 <= winner < p
        assert trip[winner] >= to_win
        assert all(trip[q] < to_win for q in range(p) if q != winner), trip
    assert row[E.O_WINNER] == winner and row[E.O_CAPPED] == capped
    assert row[E.O_COWINNERS] == ((1 << winner) if winner >= 0 else 0)
    assert row[E.O_TURNS] == s[E.H_TURN] + (0 if capped else 1)
    assert row[E.O_DECISIONS] == decisions and row[E.O_DRAWS] == draws
    assert row[E.O_TRIPLETS:E.O_TRIPLETS + MP].tolist() == trip + [0] * (MP - p)
    assert row[E.O_ZOO:E.O_ZOO + MP].tolist() == zoos(s, p).sum(axis=1).tolist() + [0] * (MP - p)
    assert all(row[E.O_ZOO + q] >= 3 * row[E.O_TRIPLETS + q] for q in range(p))


def _seats(kind, p):
    if kind == "random":
        return np.full(p, RA, dtype=np.int64), np.zeros((p, 8))
    ids = np.array([[TH, RI, RA][q % 3] for q in range(p)], dtype=np.int64)
    params = np.zeros((p, 8))
    params[:, 0] = [[3.0, 0.3, 0.0][q % 3] for q in range(p)]
    return ids, params


INVARIANT_CASES = [(p, opts, "random", 12) for p in (2, 3, 4, 5) for opts in ({}, ALL_OPTIONAL)]
INVARIANT_CASES += [(p, opts, "mixed", 20) for p in (2, 3, 4, 5) for opts in ({}, ALL_OPTIONAL)]
INVARIANT_CASES += [
    (3, {"wolf": "on"}, "mixed", 10), (4, {"white_sheep": "on"}, "mixed", 8),
    (2, {"mother_sheep": "on"}, "mixed", 10), (5, {"joker": "on"}, "mixed", 8),
    (3, {**ALL_OPTIONAL, "magpie_entry": "draw_pile_shuffled", "optional_card_setup": "into_draw_pile",
         "eagle_accepts_joker": "yes", "mole_can_take_joker": "no", "zoo_max_per_species": "3",
         "magpie_can_break_triplet": "no", "wolf_return": "after_refill"}, "random", 12),
    (4, {**ALL_OPTIONAL, "zoo_limit_basis": "blind_draws", "refill": "all", "must_draw_first": "yes"}, "mixed", 8),
    (2, {**ALL_OPTIONAL, "turn_cap": 30, "cap_resolution": "most_triplets"}, "random", 25),
    (5, {"turn_cap": 20, "cap_resolution": "most_triplets"}, "mixed", 25),
    (3, {"hand_limit": 10, "triplets_to_win": 2}, "mixed", 10),
]


def _id(case):
    p, opts, kind, _ = case
    return f"{p}p-{kind}-" + ("+".join(f"{k}={v}" for k, v in opts.items()) or "base")


@pytest.mark.parametrize("case", INVARIANT_CASES, ids=[_id(c) for c in INVARIANT_CASES])
def test_conservation_and_knowledge_invariants_between_decisions(case):
    p, opts, kind, games = case
    rules = R.make(p, opts)
    ids, params = _seats(kind, p)
    ends = set()
    seen: Counter = Counter()
    for g in range(games):
        s, decisions, draws = play_checked(rules, ids, params, 31, g, seen)
        row = np.zeros(E.O_SIZE, dtype=np.int32)
        E.outcome(s, R.to_array(rules), row)
        check_end(s, rules, decisions, draws, row)
        kernel_row = np.zeros(E.O_SIZE, dtype=np.int32)
        fault = np.zeros(driver.FAULT_SIZE, dtype=np.int64)
        taken = P.replay(R.to_array(rules), AUX, ids, params, np.arange(MP, dtype=np.int64) % p,
                         streams(31, g, N_STREAMS), g, kernel_row, np.empty((0, E.ACTION_SIZE + 2), dtype=np.int32),
                         fault)
        assert not fault.any() and taken == decisions
        assert np.array_equal(row, kernel_row), f"game {g}: the stepped game is not the kernel's game"
        ends.add("cap" if s[E.H_CAPPED] else "win")
    if kind == "mixed" and not opts.get("turn_cap"):
        assert "win" in ends
    if opts.get("turn_cap"):
        assert "cap" in ends
    # the games reach the situations the invariants are about
    assert seen["eagle"] and seen["mole"] and seen["magpie"] and seen["place"] and seen["mole look"]
    if opts.get("wolf") == "on":
        assert seen["set-aside"]
    if opts.get("white_sheep") == "on":
        assert seen["white"]
    if opts.get("mother_sheep") == "on":
        assert seen["mother"]
    if opts.get("joker") == "on" and kind == "random":
        assert seen["joker in zoo"]
    if opts.get("magpie_entry") == "draw_pile_shuffled":
        assert seen["magpie in pile"]


# ---------------------------------------------------------------------------
# Outcome rows of many games (play_blocks)
# ---------------------------------------------------------------------------

def run(rules, kind="mixed", seed=11, first=0, n=400, rotate=True):
    ids, params = _seats(kind, rules.num_players)
    out = np.zeros((n, E.O_SIZE), dtype=np.int32)
    faults = np.zeros((driver.BLOCKS, driver.FAULT_SIZE), dtype=np.int64)
    W.run_blocks(P.play_blocks, (R.to_array(rules), AUX, ids, params, rotate, np.uint64(seed), first, out, faults,
                                 W.NO_METRICS))
    assert not faults.any()
    return out


ROW_CASES = [(p, opts, kind) for p in (2, 3, 4, 5) for opts in ({}, ALL_OPTIONAL) for kind in ("random", "mixed")]
ROW_CASES += [(3, {"turn_cap": 15, "cap_resolution": "most_triplets"}, "mixed"),
              (4, {**ALL_OPTIONAL, "triplets_to_win": 1}, "random")]


@pytest.mark.parametrize("p,opts,kind", ROW_CASES,
                         ids=[f"{c[0]}p-{c[2]}-{'+'.join(f'{k}={v}' for k, v in c[1].items()) or 'base'}"
                              for c in ROW_CASES])
def test_outcome_rows_respect_bounds(p, opts, kind):
    rules = R.make(p, opts)
    n = 2000
    rows = run(rules, kind, seed=5, n=n)
    cap = rules["turn_cap"]
    to_win = rules["triplets_to_win"] or E.SETUP_ARR[p, 5]
    deck = full_deck(rules)
    winner, capped, turns = rows[:, E.O_WINNER], rows[:, E.O_CAPPED], rows[:, E.O_TURNS]
    trip = rows[:, E.O_TRIPLETS:E.O_TRIPLETS + MP]
    zoo = rows[:, E.O_ZOO:E.O_ZOO + MP]
    assert ((winner >= -1) & (winner < p)).all()
    assert np.array_equal(rows[:, E.O_COWINNERS], np.where(winner >= 0, 1 << np.maximum(winner, 0), 0))
    assert np.array_equal(rows[:, E.O_ROTATION], np.arange(n) % p)
    # a game ends by a win or the cap; a won game's turns count the winning turn, so a
    # game won in the cap-th turn has turns == cap too
    won = ~capped.astype(bool)
    assert (turns[~won] == cap).all() and (turns[won] <= cap).all() and (turns[won] >= 1).all()
    assert (winner[won] >= 0).all()
    assert (trip[won, :][np.arange(won.sum()), winner[won]] >= to_win).all()
    others = trip.copy()
    others[np.arange(n)[won], winner[won]] = 0
    assert (others < to_win).all(), "a seat reached the target without winning"
    if rules["cap_resolution"] == "draw":
        assert (winner[~won] == -1).all()
    # seats beyond the player count are empty; zoos hold at least 3 cards per triplet
    assert not trip[:, p:].any() and not zoo[:, p:].any()
    assert (zoo >= 3 * trip).all() and (trip >= 0).all()
    assert (zoo.sum(axis=1) <= deck[ANIMAL:].sum() + deck[JOKER]).all()
    assert (rows[:, E.O_DECISIONS] >= turns).all() and (rows[:, E.O_DRAWS] <= rows[:, E.O_DECISIONS]).all()
    assert (rows[:, E.O_DECISIONS] > 0).all()


# ---------------------------------------------------------------------------
# Streams belong to seats (the rest of the randomness contract: test_conformance.py)
# ---------------------------------------------------------------------------

N = 300


def test_randomness_contract_rotation_only_reassigns_policies():
    """Streams belong to seats: with the same policy in every slot, rotation changes nothing."""
    rules = R.make(4, ALL_OPTIONAL)
    cols = [c for c in range(E.O_SIZE) if c != E.O_ROTATION]
    plain, rotated = run(rules, "random", rotate=False, n=N), run(rules, "random", rotate=True, n=N)
    assert (plain[:, E.O_ROTATION] == 0).all()
    assert np.array_equal(plain[:, cols], rotated[:, cols])
    mixed_plain, mixed_rot = run(rules, rotate=False, n=N), run(rules, rotate=True, n=N)
    assert not np.array_equal(mixed_plain[:, cols], mixed_rot[:, cols])


# ---------------------------------------------------------------------------
# The luck is exact: uniform random policy, uniform blind draws
# ---------------------------------------------------------------------------

def _find(players, options, predicate, seed=3):
    """The first state of seeded threshold games where predicate(s, arr) is truthy:
    (state, rules array, the predicate's value)."""
    arr = R.to_array(R.make(players, options))
    s = np.empty(E.STATE_SIZE, dtype=np.int32)
    buf = np.empty((E.MAX_DECISIONS, 3), dtype=np.int32)
    params = np.zeros(8)
    params[0] = 3.0
    for g in range(300):
        rngs = streams(seed, g, N_STREAMS)
        E.deal(s, arr, rngs[0])
        while s[E.H_PHASE] != OVER:
            found = predicate(s, arr)
            if found:
                return s, arr, found
            seat = int(s[E.H_ACTOR])    # a Python int, as play_checked passes: one compile of choose
            code, a, b = POL.choose(TH, s, arr, AUX, seat, params, rngs[P.GAME.policy + seat], buf, np.empty_like(buf))
            E.apply(s, arr, code, a, b, E.sample_chance(s, arr, code, a, b, rngs[P.GAME.luck + seat]))
    raise AssertionError("no such decision point")


def _fresh(i):
    """A fresh stream per sample: many independent streams, as games use them."""
    return streams(2024, i, 1)[0]


def _legal(s, arr):
    buf = np.empty((E.MAX_DECISIONS, 3), dtype=np.int32)
    n = E.legal_decisions(s, arr, buf)
    return [tuple(int(x) for x in buf[m]) for m in range(n)]


@pytest.mark.parametrize("players,phase", [(5, DRAW), (5, EAGLE_ASK_PHASE), (2, E.PLACE_PHASE)],
                         ids=["5p-draw", "5p-eagle", "2p-place"])
def test_random_policy_is_uniform_over_the_legal_decisions(players, phase):
    s, arr, moves = _find(players, {}, lambda s, arr: s[E.H_PHASE] == phase and len(_legal(s, arr)) >= 3
                          and _legal(s, arr))
    buf = np.empty((E.MAX_DECISIONS, 3), dtype=np.int32)
    before = s.copy()
    n = len(moves)
    draws = 300 * n
    counts = dict.fromkeys(moves, 0)
    for i in range(draws):
        counts[tuple(int(x) for x in POL.random_policy(s, arr, AUX, int(s[E.H_ACTOR]), np.zeros(8), _fresh(i),
                                                       buf))] += 1
    assert np.array_equal(s, before), "a policy must not change the state"
    assert sum(counts.values()) == draws and min(counts.values()) > 0
    assert chisquare(list(counts.values())).pvalue > 1e-3, counts


def _mixed_hand(s, arr):
    """An opponent of the active player whose hand holds >= 5 kinds, one of them twice."""
    if s[E.H_PHASE] != DRAW:
        return None
    p = int(s[E.H_PLAYERS])
    for o in range(p):
        h = hands(s, p)[o]
        if o != s[E.H_ACTIVE] and (h > 0).sum() >= 5 and h.max() >= 2:
            return o + 1
    return None


def test_blind_draws_are_uniform_over_the_cards_of_the_hand():
    s, arr, o = _find(3, ALL_OPTIONAL, _mixed_hand)
    o -= 1
    hand = hands(s, 3)[o].copy()
    kinds = np.flatnonzero(hand)
    draws = 500 * int(hand.sum())
    got = np.zeros(NK, dtype=np.int64)
    for i in range(draws):
        got[E.sample_chance(s, arr, DRAW_FROM, o, 0, _fresh(i))] += 1
    assert not got[hand == 0].any(), "a draw yielded a card that is not in the hand"
    assert got[BLACK] > 0
    assert chisquare(got[kinds], draws * hand[kinds] / hand.sum()).pvalue > 1e-3, (hand.tolist(), got.tolist())


def _magpie_trigger(s, arr):
    """A legal placement that lets the Magpie in, if any."""
    if s[E.H_PHASE] != E.PLACE_PHASE:
        return None
    for code, a, b in _legal(s, arr):
        if code == PLACE and E.magpie_triggers(s, s[E.H_ACTOR], a):
            return code, a, b
    return None


def test_magpie_position_is_uniform_over_the_gaps_of_the_pile():
    """With magpie_entry=draw_pile_shuffled, the placement that lets the Magpie in
    draws its position uniformly among the npile + 1 gaps (0 = top)."""
    s, arr, (code, a, b) = _find(3, {"magpie_entry": "draw_pile_shuffled"}, _magpie_trigger)
    gaps = int(s[E.H_NPILE]) + 1
    assert gaps > 10
    draws = 400 * gaps
    got = np.bincount([E.sample_chance(s, arr, code, a, b, _fresh(i)) for i in range(draws)], minlength=gaps)
    assert len(got) == gaps and got.min() > 0
    assert chisquare(got).pvalue > 1e-3


def test_decisions_without_luck_leave_the_luck_stream_alone():
    """Only a blind draw or a Magpie entering the pile consumes the mover's luck stream,
    so common random numbers stay aligned (play.py docstring)."""
    rules = R.make(4, ALL_OPTIONAL)
    arr = R.to_array(rules)
    s = np.empty(E.STATE_SIZE, dtype=np.int32)
    buf = np.empty((E.MAX_DECISIONS, 3), dtype=np.int32)
    seen = set()
    for g in range(4):
        rngs = streams(8, g, N_STREAMS)
        E.deal(s, arr, rngs[0])
        while s[E.H_PHASE] != OVER:
            n = E.legal_decisions(s, arr, buf)
            for m in range(n):
                code, a, b = (int(x) for x in buf[m])
                if code != DRAW_FROM:
                    luck = _fresh(g).copy()
                    assert E.sample_chance(s, arr, code, a, b, luck) == -1
                    assert np.array_equal(luck, _fresh(g))
                    seen.add(code)
            seat = int(s[E.H_ACTOR])    # as above
            code, a, b = POL.choose(RA, s, arr, AUX, seat, np.zeros(8), rngs[P.GAME.policy + seat], buf,
                                   np.empty_like(buf))
            E.apply(s, arr, code, a, b, E.sample_chance(s, arr, code, a, b, rngs[P.GAME.luck + seat]))
    assert {STOP, PLACE} <= seen
