"""The engine contract's hidden-information hooks: determinize and progress.

determinize(s, rules, aux, seat, rng) re-deals in place what `seat` cannot see, for the
two hidden-information card games (Bye-Bye Black Sheep, Hiboufou; the engine
docstrings say what each seat may know). Seeded games are played through the hooks
(start, actor, legal, chance, step) with the built-in policies, and at many decision
points determinize runs on copies, for the actor and for a seat that is not acting:

(a) what the seat may know is unchanged (the exact state slots that are public or its
    own), (b) the seat's legal decisions are unchanged when it is the actor, (c) the
    conservation invariants hold, (d) the game plays on to its end from the re-dealt
    state, (e) the hidden cards do change, and on small positions the re-deal is
    uniform over the arrangements of the unseen cards (chi-square against an
    enumeration), (f) the same stream gives the same re-deal, (g) no built-in policy
    decides differently (or uses its stream differently) on the re-dealt state, and
    (h) the re-deal depends only on what the seat knows: re-dealing a re-dealt state
    with the same stream gives the same state.

progress(s, rules, out) is checked against the outcome row at the end of each game and
against the rules' own ranking (Bye-Bye Black Sheep's cap resolution) along the way.
"""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest
from numba import njit
from scipy.stats import chisquare

from sheepsim.games import fast
from sheepsim.games.blacksheep import engine as BE
from sheepsim.games.blacksheep.play import KERNELS as BP
from sheepsim.games.blacksheep import policies as BPOL
from sheepsim.games.blacksheep import reference as BREF
from sheepsim.games.blacksheep import rules as BR
from sheepsim.games.blacksheep.game import _reference_options
from sheepsim.games.blacksheep.model import BLACK, MAGPIE, MOLE_PHASE
from sheepsim.games.hiboufou import engine as HE
from sheepsim.games.hiboufou import game as HG
from sheepsim.games.hiboufou.play import KERNELS as HP
from sheepsim.games.hiboufou import policies as HPOL
from sheepsim.games.hiboufou import rules as HR
from sheepsim.games.hiboufou.model import NSPACES
from sheepsim.rng import rand_below, streams

MP = 5
assert BE.MAX_PLAYERS == HE.MAX_PLAYERS == MP
NK, MC = BE.NK, HE.MC


# ---------------------------------------------------------------------------
# Bye-Bye Black Sheep: views of the state
# ---------------------------------------------------------------------------

def b_hands(s):
    return s[BE.HAND:BE.HAND + MP * NK].reshape(MP, NK)


def b_known(s):
    return s[BE.KNOWN:BE.KNOWN + MP * MP * NK].reshape(MP, MP, NK)


def b_pile(s):
    return s[BE.PILE:BE.PILE + s[BE.H_NPILE]]


def b_seen(s, seat):
    """Every slot `seat` may know (engine.py, before determinize)."""
    k = b_known(s)
    return (s[:BE.HEADER].tolist(), b_hands(s)[seat].tolist(), s[BE.SIZE:BE.SIZE + MP].tolist(),
            s[BE.ZOO:BE.TABLE].tolist(),                           # ZOO, JOKER_AS, ASIDE
            s[BE.TABLE:BE.TABLE + s[BE.H_NTABLE]].tolist(),
            k[seat].tolist(), k[:, seat].tolist(), [k[q, q].tolist() for q in range(MP)])


def b_hidden(s, seat):
    p = int(s[BE.H_PLAYERS])
    return [b_hands(s)[q].tolist() for q in range(p) if q != seat] + [b_pile(s).tolist()]


def b_state(s):
    """The game state: everything but the slots past the table and the pile."""
    return np.concatenate([s[:BE.TABLE + s[BE.H_NTABLE]], s[BE.PILE:BE.PILE + s[BE.H_NPILE]], s[BE.KNOWN:]])


def b_pool(s, seat):
    """The unseen cards as a sorted list of kinds, and the hidden slots per place."""
    p = int(s[BE.H_PLAYERS])
    h, k = b_hands(s), b_known(s)
    pool, slots = [], []
    for q in range(p):
        if q != seat:
            extra = h[q] - k[seat, q]
            pool += np.repeat(np.arange(NK), extra).tolist()
            slots.append(int(extra.sum()))
    pool += b_pile(s).tolist()
    slots.append(int(s[BE.H_NPILE]))
    return sorted(pool), slots


def b_check(s, deck, what):
    """Conservation (every card once: the census is the full deck), each seat holds its
    own Black Sheep, sizes, and knowledge: KNOWN[q, q] <= KNOWN[o, q] <= HAND[q]."""
    p = int(s[BE.H_PLAYERS])
    h, k = b_hands(s)[:p], b_known(s)[:p, :p]
    assert (h >= 0).all(), what
    counts = np.zeros(NK, dtype=np.int64)
    for base in (BE.HAND, BE.ZOO, BE.ASIDE):
        counts += s[base:base + p * NK].reshape(p, NK).sum(axis=0)
    counts += np.bincount(s[BE.TABLE:BE.TABLE + s[BE.H_NTABLE]], minlength=NK)
    counts += np.bincount(b_pile(s), minlength=NK)
    counts[MAGPIE] += s[BE.H_MAGPIE_IN] == 0         # the Magpie waits beside the pile
    assert counts.tolist() == deck, f"{what}: the card census is not the full deck"
    assert (h[:, BLACK] == 1).all(), f"{what}: every seat holds exactly its own Black Sheep"
    assert s[BE.SIZE:BE.SIZE + p].tolist() == h.sum(axis=1).tolist(), f"{what}: hand sizes"
    assert (k <= h[None]).all(), f"{what}: a KNOWN lower bound exceeds a hand"
    diagonal = np.array([k[q, q] for q in range(p)])
    assert (diagonal[None] <= k).all(), f"{what}: a seat knows less than the public bound"
    if s[BE.H_PHASE] == MOLE_PHASE:
        assert (k[s[BE.H_ACTOR], s[BE.H_SOURCE]] == h[s[BE.H_SOURCE]]).all(), f"{what}: the Mole shows a hand"


# ---------------------------------------------------------------------------
# Hiboufou: views of the state
# ---------------------------------------------------------------------------

def h_hand(s, q):
    return s[HE.HAND + q * MC:HE.HAND + q * MC + s[HE.SIZE + q]]


def h_pile(s):
    return s[HE.PILE + s[HE.H_PTOP]:HE.PILE + s[HE.H_PEND]]


def h_seen(s, seat):
    p = int(s[HE.H_PLAYERS])
    return (s[:HE.HEADER].tolist(), h_hand(s, seat).tolist(), s[HE.SIZE:HE.SIZE + MP].tolist(),
            [s[HE.ROW + x * MC:HE.ROW + x * MC + s[HE.ROWN + x]].tolist() for x in range(NSPACES)],
            s[HE.ROWN:HE.ROWN + NSPACES].tolist(), s[HE.NCAPT:HE.NCAPT + MP].tolist(),
            [s[HE.CAPT + q * MC:HE.CAPT + q * MC + s[HE.NCAPT + q]].tolist() for q in range(p)],
            s[HE.LAST:HE.LAST + MP].tolist())


def h_hidden(s, seat):
    p = int(s[HE.H_PLAYERS])
    return [h_hand(s, q).tolist() for q in range(p) if q != seat] + [h_pile(s).tolist()]


def h_state(s):
    p = int(s[HE.H_PLAYERS])
    return np.concatenate([s[:HE.HAND]] + [h_hand(s, q) for q in range(p)] + [h_pile(s)] + [s[HE.ROWN:HE.PILE]]
                          + [s[HE.NCAPT:]])


def h_pool(s, seat):
    p = int(s[HE.H_PLAYERS])
    pool = [c for q in range(p) if q != seat for c in h_hand(s, q)] + h_pile(s).tolist()
    slots = [int(s[HE.SIZE + q]) for q in range(p) if q != seat] + [len(h_pile(s))]
    return sorted(pool), slots


def h_check(s, n_cards, what):
    p = int(s[HE.H_PLAYERS])
    every = ([h_hand(s, q) for q in range(p)] + [s[HE.ROW + x * MC:HE.ROW + x * MC + s[HE.ROWN + x]]
                                                 for x in range(NSPACES)]
             + [h_pile(s)] + [s[HE.CAPT + q * MC:HE.CAPT + q * MC + s[HE.NCAPT + q]] for q in range(p)])
    assert sorted(np.concatenate(every).tolist()) == list(range(n_cards)), f"{what}: a card is lost or doubled"
    for q in range(p):
        assert (np.diff(h_hand(s, q)) > 0).all(), f"{what}: seat {q}'s hand is not sorted"


# ---------------------------------------------------------------------------
# The two games behind one interface
# ---------------------------------------------------------------------------

class Game:
    """What the checks need of one game: its engine, policies, streams and views."""

    def __init__(self, name, E, POL, PLAY, policies, seen, hidden, state, pool):
        self.name, self.E, self.POL, self.PLAY = name, E, POL, PLAY
        self.policies = policies            # (label, policy id, params) of every built-in
        self.seen, self.hidden, self.state, self.pool = seen, hidden, state, pool

    def legal(self, s, arr, aux, buf):
        n = self.E.legal(s, arr, aux, buf)
        return [tuple(int(x) for x in buf[m]) for m in range(n)]

    def decide(self, pid, params, s, arr, aux, seat, rng, buf):
        return tuple(int(x) for x in self.POL.choose(pid, s, arr, aux, seat, params, rng, buf, np.empty_like(buf)))

    def step(self, s, arr, aux, action, rngs):
        who = int(self.E.actor(s, arr))
        c = int(self.E.chance(s, arr, aux, action, rngs[self.PLAY.GAME.luck + who]))
        self.E.step(s, arr, aux, action, c)


def _vector(params):
    out = np.zeros(8)
    out[:len(params)] = params
    return out


BLACKSHEEP = Game("blacksheep", BE, BPOL, BP,
                  [("random", BPOL.RANDOM, _vector([])), ("threshold:k=3", BPOL.THRESHOLD, _vector([3.0])),
                   ("risk:p=0.3", BPOL.RISK, _vector([0.3, 0.0])), ("threshold:k=6", BPOL.THRESHOLD, _vector([6.0])),
                   ("risk:p=0.2,w=1.5", BPOL.RISK, _vector([0.2, 1.5]))],
                  b_seen, b_hidden, b_state, b_pool)
HIBOUFOU = Game("hiboufou", HE, HPOL, HP,
                [("random", HPOL.RANDOM, _vector([])), ("greedy", HPOL.GREEDY, _vector([])),
                 ("defensive", HPOL.DEFENSIVE, _vector([]))],
                h_seen, h_hidden, h_state, h_pool)
ALL_OPTIONAL = {"wolf": "on", "white_sheep": "on", "mother_sheep": "on", "joker": "on",
                "magpie_entry": "draw_pile_shuffled"}


def setup(game, players, options, start=None):
    """(packed rules, aux, consistency check of a state)."""
    if game is BLACKSHEEP:
        rules = BR.make(players, options)
        deck = BREF.full_deck(BREF.Rules(**_reference_options(rules.as_dict())))
        return BR.to_array(rules), np.zeros(1, dtype=np.int32), lambda s, what: b_check(s, deck, what)
    rules = HR.make(players, options)
    aux = HG.initial_state(rules, start)
    return HR.to_array(rules), aux, lambda s, what: h_check(s, len(aux), what)


def determinized(game, s, arr, aux, seat, rng):
    """A re-dealt copy of s; the stream `rng` advances."""
    d = s.copy()
    game.E.determinize(d, arr, aux, seat, rng)
    return d


def play_out(game, s, arr, aux, rngs, labels, check, what, cap=20000):
    """Play s to its end with the built-in policies `labels` (one per seat); check the
    invariants now and then; return (decisions, outcome row, progress)."""
    buf = np.empty((game.E.MAX_DECISIONS, 3), dtype=np.int32)
    t = 0
    while (who := int(game.E.actor(s, arr))) >= 0:
        _, pid, params = labels[who]
        action = game.decide(pid, params, s, arr, aux, who, rngs[game.PLAY.GAME.policy + who], buf)
        assert action in game.legal(s, arr, aux, buf), f"{what}: illegal {action} after {t} decisions"
        game.step(s, arr, aux, action, rngs)
        t += 1
        assert t < cap, f"{what}: no end after {cap} decisions"
        if t % 50 == 0:
            check(s, f"{what} decision {t}")
    check(s, f"{what} at the end")
    row = np.zeros(game.E.O_SIZE, dtype=np.int32)
    game.E.outcome(s, arr, row)
    out = np.full(MP, -1.0)
    game.E.progress(s, arr, out)
    return t, row, out


# ---------------------------------------------------------------------------
# (a)-(h) along seeded games
# ---------------------------------------------------------------------------

def check_point(game, s, arr, aux, seat, is_actor, rng, policy_rngs, check, where, stats, play_on):
    """Every check at one decision point, for one seat; s and the streams are not changed."""
    before = s.copy()
    r1 = rng.copy()
    d = determinized(game, s, arr, aux, seat, r1)
    assert np.array_equal(s, before)
    # (f) the same stream, the same re-deal (and the stream moves on the same way)
    r2 = rng.copy()
    assert np.array_equal(determinized(game, s, arr, aux, seat, r2), d) and np.array_equal(r1, r2), where
    # (a) and (c)
    assert game.seen(d, seat) == game.seen(s, seat), f"{where}: something the seat knows changed"
    check(d, where)
    assert game.pool(d, seat) == game.pool(s, seat), f"{where}: the unseen cards or the hidden slots changed"
    # (h) a state the seat cannot tell from s (another re-deal of it) gives the same
    # re-deal with the same stream
    other = determinized(game, s, arr, aux, seat, r1.copy())
    assert np.array_equal(game.state(determinized(game, other, arr, aux, seat, rng.copy())), game.state(d)), \
        f"{where}: the re-deal depends on hidden cards"
    buf = np.empty((game.E.MAX_DECISIONS, 3), dtype=np.int32)
    if is_actor:
        # (b) and (g)
        assert game.legal(d, arr, aux, buf) == game.legal(s, arr, aux, buf), f"{where}: legal decisions changed"
        for label, pid, params in game.policies:
            ra, rb = policy_rngs[seat].copy(), policy_rngs[seat].copy()
            da = game.decide(pid, params, s.copy(), arr, aux, seat, ra, buf)
            db = game.decide(pid, params, d.copy(), arr, aux, seat, rb, buf)
            assert da == db and np.array_equal(ra, rb), f"{where}: {label} decides from hidden cards: {da} {db}"
            stats["decisions"] += 1
    # (e) the hidden cards move whenever they can
    pool, slots = game.pool(s, seat)
    if len(set(pool)) > 1 and (sum(x > 0 for x in slots) > 1 or slots[-1] > 1):
        stats["can change"] += 1
        stats["changed"] += game.hidden(d, seat) != game.hidden(s, seat)
        if len(pool) >= 8:
            stats["big pools"] += 1
            stats["big pools changed"] += game.hidden(d, seat) != game.hidden(s, seat)
    if game is BLACKSHEEP and s[BE.H_PHASE] == MOLE_PHASE:
        stats["mole, " + ("actor" if is_actor else "other seat")] += 1
    # (d)
    if play_on:
        labels = [game.policies[(seat + q) % len(game.policies)] for q in range(int(s[0]))]
        t, row, out = play_out(game, d, arr, aux, streams(99, stats["played on"], game.PLAY.GAME.streams), labels,
                               check, f"{where}, played on")
        stats["played on"] += 1
        stats["decisions played on"] += t


def walk(game, players, options, seed, games, every, start=None, play_on_every=7):
    """Play `games` seeded games with a mix of the built-in policies and run check_point
    at every `every`-th decision for the actor and a rotating non-acting seat."""
    arr, aux, check = setup(game, players, options, start)
    stats: Counter = Counter()
    for g in range(games):
        rngs = streams(seed, g, game.PLAY.GAME.streams)
        det_rng = streams(seed + 1, g, 1)[0]        # determinize's own stream
        s = np.zeros(game.E.STATE_SIZE, dtype=np.int32)
        game.E.start(s, arr, aux, rngs[0])
        labels = [game.policies[(g + q) % len(game.policies)] for q in range(players)]
        buf = np.empty((game.E.MAX_DECISIONS, 3), dtype=np.int32)
        t = 0
        points = 0
        while (who := int(game.E.actor(s, arr))) >= 0:
            if t % every == 0:
                check(s, f"game {g} decision {t}")
                other = (who + 1 + points % (players - 1)) % players
                for seat in (who, other):
                    where = f"{game.name} {players}p {options} game {g} decision {t} seat {seat} (actor {who})"
                    check_point(game, s, arr, aux, seat, seat == who, det_rng,
                                [rngs[game.PLAY.GAME.policy + q] for q in range(MP)], check, where, stats,
                                play_on=points % play_on_every == 0)
                    rand_below(det_rng, 2)     # move the stream on
                    stats["points"] += 1
                points += 1
            _, pid, params = labels[who]
            action = game.decide(pid, params, s, arr, aux, who, rngs[game.PLAY.GAME.policy + who], buf)
            game.step(s, arr, aux, action, rngs)
            t += 1
        check(s, f"game {g} at the end")
        # progress at the end is the outcome's own scale
        row = np.zeros(game.E.O_SIZE, dtype=np.int32)
        game.E.outcome(s, arr, row)
        out = np.full(MP, -1.0)
        game.E.progress(s, arr, out)
        if game is BLACKSHEEP:
            want = row[BE.O_TRIPLETS:BE.O_TRIPLETS + MP] + row[BE.O_ZOO:BE.O_ZOO + MP] / 100
        else:
            want = row[HE.O_CAPTURES:HE.O_CAPTURES + MP].astype(float)
        assert np.allclose(out, want) and (out[players:] == 0).all(), (g, out, want)
    return stats


WALKS = [(BLACKSHEEP, p, {}, 8, 2, None) for p in (2, 3, 4, 5)] + [
    (BLACKSHEEP, 3, ALL_OPTIONAL, 8, 2, None),
    (BLACKSHEEP, 4, {**ALL_OPTIONAL, "optional_card_setup": "into_draw_pile", "refill": "all"}, 8, 2, None),
] + [(HIBOUFOU, p, {}, 10, 2, None) for p in (2, 3, 4, 5)] + [
    (HIBOUFOU, 3, {"play_after_forced_draw": "yes", "capture_condition": "hand_emptied"}, 8, 2, None),
    (HIBOUFOU, 2, {}, 12, 1, {"deck": [["red"], ["orange"], ["yellow"], ["green"], ["red", "orange"],
                                       ["orange", "yellow"], ["yellow", "green"], ["red", "green"],
                                       ["red", "yellow"], ["orange", "green"], ["red", "orange", "yellow"],
                                       ["green", "yellow", "orange"]]}),
]


@pytest.mark.parametrize("game,players,options,games,every,start", WALKS,
                         ids=[f"{w[0].name}-{w[1]}p-{'+'.join(w[2]) or 'base'}{'-deck' if w[5] else ''}"
                              for w in WALKS])
def test_determinize_along_games(game, players, options, games, every, start):
    stats = walk(game, players, options, 2027, games, every, start)
    assert stats["points"] > 200 and stats["decisions"] > 100 * len(game.policies), stats
    assert stats["played on"] >= games, stats
    # (e) the re-deal is not the identity: where it can move a card it nearly always
    # does, and with 8 or more unseen cards always (the chance of the identity is tiny)
    assert stats["can change"] > 0.5 * stats["points"], stats
    assert stats["changed"] > 0.9 * stats["can change"], stats
    assert stats["big pools changed"] == stats["big pools"] > 0, stats


def test_mole_decisions_are_determinized_for_both_seats():
    """A Mole decision is reached and re-dealt both for the looking seat (whose view of
    the source hand is whole, so that hand stays) and for another seat (after which
    the looking seat sees the source's new hand, b_check)."""
    stats = walk(BLACKSHEEP, 3, ALL_OPTIONAL, 11, 6, 1, play_on_every=10 ** 9)
    assert stats["mole, actor"] > 0 and stats["mole, other seat"] > 0, stats


# ---------------------------------------------------------------------------
# (e) uniformity on small positions
# ---------------------------------------------------------------------------

def exact_distribution(pool, slots, as_outcome):
    """P(outcome) when the physical cards of `pool` are placed in a uniformly random
    order into the slots (hands of slots[i] cards, the pile last, in order): every
    permutation of the labelled cards, mapped to the game's outcome."""
    counts = Counter()
    for perm in itertools.permutations(range(len(pool))):
        cards = [pool[i] for i in perm]
        parts, i = [], 0
        for n in slots:
            parts.append(cards[i:i + n])
            i += n
        counts[as_outcome(parts)] += 1
    total = sum(counts.values())
    return {k: v / total for k, v in counts.items()}


def sample_redeals(game, s, arr, aux, seat, n, outcome_of):
    rng = streams(31, seat, 1)[0]
    got = Counter()
    for _ in range(n):
        got[outcome_of(determinized(game, s, arr, aux, seat, rng))] += 1
    return got


def assert_uniform(got, expected, n):
    assert set(got) <= set(expected), f"re-deals outside the consistent allocations: {set(got) - set(expected)}"
    cells = sorted(expected)
    observed = np.array([got[c] for c in cells], dtype=float)
    exp = np.array([expected[c] * n for c in cells])
    assert exp.min() >= 5, "too few samples for a chi-square"
    stat, p = chisquare(observed, exp)
    assert p > 1e-3, (stat, p, len(cells))
    return len(cells), p


def small_blacksheep_position():
    """A 3-player deal cut down to six unseen cards for seat 0: seat 0 knows all but
    two cards of each opponent's hand (a Mole look, say), and the pile holds two cards
    (the rest of it went to seat 0's zoo, so the census is still the full deck)."""
    arr, aux, check = setup(BLACKSHEEP, 3, {})
    s = np.zeros(BE.STATE_SIZE, dtype=np.int32)
    BE.start(s, arr, aux, streams(5, 0, BP.GAME.streams)[0])
    h, k = b_hands(s), b_known(s)
    for q in (1, 2):
        k[0, q] = h[q]
        kinds = [x for x in range(NK) if h[q, x] > 0 and x != BLACK]
        for x in kinds[-2:]:
            k[0, q, x] -= 1
    n = int(s[BE.H_NPILE])
    zoo = s[BE.ZOO:BE.ZOO + NK]
    for c in s[BE.PILE + 2:BE.PILE + n]:
        zoo[c] += 1
    s[BE.H_NPILE] = 2
    check(s, "the small position")
    return s, arr, aux


def test_blacksheep_redeal_is_uniform_on_a_small_position():
    s, arr, aux = small_blacksheep_position()
    pool, slots = b_pool(s, 0)
    assert len(pool) == 6 and slots == [2, 2, 2], (pool, slots)
    assert len(set(pool)) >= 4, "several kinds, so allocations differ in probability"
    expected = exact_distribution(pool, slots, lambda parts: (tuple(sorted(parts[0])), tuple(sorted(parts[1])),
                                                              tuple(parts[2])))
    n = 30_000

    def outcome_of(d):
        def hidden_part(q):
            return tuple(int(x) for x in np.repeat(np.arange(NK), b_hands(d)[q] - b_known(d)[0, q]))
        return hidden_part(1), hidden_part(2), tuple(int(x) for x in b_pile(d))

    cells, _ = assert_uniform(sample_redeals(BLACKSHEEP, s, arr, aux, 0, n, outcome_of), expected, n)
    assert cells > 20


@pytest.mark.parametrize("players,n_cards,seat", [(2, 9, 0), (2, 9, 1), (3, 11, 2)])
def test_hiboufou_redeal_is_uniform_on_a_small_deal(players, n_cards, seat):
    """Just after the deal of a small deck: the unseen cards are the other hands and
    the pile; every allocation of distinct card ids is equally likely."""
    colours = ["red", "orange", "yellow", "green", "blue"]
    start = {"deck": [[colours[i % 5], colours[(i + 1 + i // 5) % 5]] for i in range(n_cards)]}
    arr, aux, check = setup(HIBOUFOU, players, {}, start)
    s = np.zeros(HE.STATE_SIZE, dtype=np.int32)
    HE.start(s, arr, aux, streams(8, 0, HP.GAME.streams)[0])
    check(s, "the deal")
    pool, slots = h_pool(s, seat)
    expected = exact_distribution(pool, slots, lambda parts: tuple(tuple(sorted(x)) for x in parts[:-1])
                                  + (tuple(parts[-1]),))
    assert len(set(expected.values())) == 1, "distinct cards: every allocation alike"
    n = 40 * len(expected)
    got = sample_redeals(HIBOUFOU, s, arr, aux, seat, n,
                         lambda d: tuple(tuple(h_hand(d, q).tolist()) for q in range(players) if q != seat)
                         + (tuple(h_pile(d).tolist()),))
    cells, _ = assert_uniform(got, expected, n)
    assert cells == len(expected), "every allocation is reached"


# ---------------------------------------------------------------------------
# The driver's form: raw pointers
# ---------------------------------------------------------------------------

@njit
def _b_determinize_pointer(s, rules, aux, seat, rng):
    BE.determinize(fast.pointer(s), fast.pointer(rules), fast.pointer(aux), seat, fast.pointer(rng))


@njit
def _h_determinize_pointer(s, rules, aux, seat, rng):
    HE.determinize(fast.pointer(s), fast.pointer(rules), fast.pointer(aux), seat, fast.pointer(rng))


@njit
def _b_progress_pointer(s, rules, out):
    BE.progress(fast.pointer(s), fast.pointer(rules), fast.pointer(out))


@njit
def _h_progress_pointer(s, rules, out):
    HE.progress(fast.pointer(s), fast.pointer(rules), fast.pointer(out))


@pytest.mark.parametrize("game", [BLACKSHEEP, HIBOUFOU], ids=lambda g: g.name)
def test_hooks_on_raw_pointers_match_arrays(game):
    """The driver hands the hooks raw pointers (games/fast.py): same results."""
    det, prog = ((_b_determinize_pointer, _b_progress_pointer) if game is BLACKSHEEP
                 else (_h_determinize_pointer, _h_progress_pointer))
    arr, aux, check = setup(game, 4, {})
    rngs = streams(3, 1, game.PLAY.GAME.streams)
    s = np.zeros(game.E.STATE_SIZE, dtype=np.int32)
    game.E.start(s, arr, aux, rngs[0])
    buf = np.empty((game.E.MAX_DECISIONS, 3), dtype=np.int32)
    for t in range(60):
        who = int(game.E.actor(s, arr))
        if who < 0:
            break
        for seat in range(4):
            r1, r2 = rngs[0].copy(), rngs[0].copy()
            a, b = s.copy(), s.copy()
            game.E.determinize(a, arr, aux, seat, r1)
            det(b, arr, aux, seat, r2)
            assert np.array_equal(a, b) and np.array_equal(r1, r2)
        o1, o2 = np.zeros(MP), np.zeros(MP)
        game.E.progress(s, arr, o1)
        prog(s, arr, o2)
        assert np.array_equal(o1, o2)
        _, pid, params = game.policies[1]
        game.step(s, arr, aux, game.decide(pid, params, s, arr, aux, who, rngs[game.PLAY.GAME.policy + who], buf), rngs)


# ---------------------------------------------------------------------------
# progress along the way
# ---------------------------------------------------------------------------

def test_blacksheep_progress_ranks_as_the_cap_resolution():
    """triplets + zoo cards / 100: the seat ahead is the one the rules' cap resolution
    (most triplets, then most zoo cards) would name, a tie is a tie."""
    arr, aux, check = setup(BLACKSHEEP, 4, {})
    seen = Counter()
    for g in range(4):
        rngs = streams(17, g, BP.GAME.streams)
        s = np.zeros(BE.STATE_SIZE, dtype=np.int32)
        BE.start(s, arr, aux, rngs[0])
        buf = np.empty((BE.MAX_DECISIONS, 3), dtype=np.int32)
        while (who := int(BE.actor(s, arr))) >= 0:
            out = np.zeros(MP)
            BE.progress(s, arr, out)
            best = np.flatnonzero(out[:4] == out[:4].max())
            assert int(BE._cap_winner(s)) == (best[0] if len(best) == 1 else -1)
            for q in range(4):
                assert out[q] == BE.triplets(s, q) + BE.zoo_cards(s, q) / 100
            seen["ties" if len(best) > 1 else "leader"] += 1
            seen["triplets"] += out[:4].max() >= 1
            _, pid, params = BLACKSHEEP.policies[3]
            BLACKSHEEP.step(s, arr, aux, BLACKSHEEP.decide(pid, params, s, arr, aux, who,
                                                           rngs[BP.GAME.policy + who], buf), rngs)
    assert seen["ties"] > 0 and seen["leader"] > 0 and seen["triplets"] > 0, seen
