"""One conformance suite over the game registry (like pgx's api_test).

Every registered game and player count is held to the engine contract (the hooks of
sheepsim/games/driver.py): random play ends; the game's census (every card, sheep and
token in exactly one place) never changes; a seat to act always has a legal action;
the kernel's rows equal a game stepped here through the hooks, in Python, decision by
decision (an independent check of the driver: same streams, same order); outcome rows
respect their bounds; the same seed gives the same rows for 1 and 2 threads, any chunk
size and a replay of one game; the random policy is uniform over the legal set; a user
policy with the one common signature runs in every game, and one that returns an
illegal action stops the run with a one-line error.

The games are the registry's, the plug-in games loaded by conftest.py among them (the
tic-tac-toe of sheepsim/examples, written from outside the package), and each test
reads the games' declared traits, not a list of names: a game of simultaneous
reactions (Bobby Sitter) has no decision hooks (its per-flip loop is tested in its own
files) and takes part in the determinism and bounds checks. The hooks are read from
each game's Engine record (games/kernels.py). Rule-specific checks stay in each game's
own test files.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import chisquare

from sheepsim.errors import SheepsimError
from sheepsim.games import all_games, get_game
from sheepsim.games.driver import NATURE
from sheepsim.policies import seat_specs
from sheepsim.rng import rand_below, streams
from sheepsim.runner import simulate
from sheepsim.start import kernel_aux

TURN_GAMES = [name for name, g in all_games().items() if not g.simultaneous]
CASES = [(name, p) for name, g in all_games().items() for p in range(g.players[0], g.players[1] + 1)]
TURN_CASES = [(name, p) for name, p in CASES if name in TURN_GAMES]
SEED = 20261201


def base_policy(name: str) -> str:
    """The policy with id 0: `random` in the turn games, `adult` in Bobby Sitter."""
    from sheepsim.policies import policies_for
    return policies_for(name)[0].name


def contract(name):
    """(Engine record, cached kernels) of a turn game: its hooks as the driver plays them."""
    PL = get_game(name).play
    return PL.ENGINE, PL


def _setup(name, players, options=None):
    game = get_game(name)
    rules = game.make_rules(players, options or {})
    return game, rules, game.to_array(rules), game.initial_state(rules, None)


def step_game(name, players, seed, g, on_state=None):
    """Game g played here through the hooks, as the driver documents it: streams 0,
    LUCK + q and POLICY + q; seat q played by slot (q + g % P) % P (rotation on; every
    slot plays `random`). Returns (final state, row, decisions)."""
    E, PL = contract(name)
    game, rules, arr, aux = _setup(name, players)
    spec = seat_specs(name, ["random"], players)[0]
    assert spec.policy.id == 0
    G = PL.GAME
    size, max_actions, width, luck, pol, nstreams = G.state_size, G.max_actions, G.action_size, G.luck, G.policy, G.streams
    rngs = streams(seed, g, nstreams)
    s = np.zeros(size, dtype=np.int32)
    buf = np.zeros((max_actions, width), dtype=np.int32)
    E.start(s, arr, aux, rngs[0])
    decisions = 0
    while (who := int(E.actor(s, arr))) != -1:
        if on_state is not None:
            on_state(s, arr, aux, who)
        if who == NATURE:
            action = E.nature(s, arr, aux, rngs[0])
        else:
            n = E.legal(s, arr, aux, buf)
            assert n > 0, f"game {g}: seat {who} to act without a legal action"
            # the random policy itself (choose's policy 0), called from here: the dispatcher
            # over every built-in would compile once more for plain arrays (minutes)
            action = spec.policy.fn(s, arr, aux, who, spec.vector(), rngs[pol + who], buf)
        action = tuple(int(x) for x in np.atleast_1d(action))
        c = E.chance(s, arr, aux, action, rngs[luck + who if who >= 0 else 0])
        E.step(s, arr, aux, action, c)
        decisions += 1
    row = np.zeros(PL.O_SIZE, dtype=np.int32)
    E.outcome(s, arr, row)
    row[PL.GAME.rotation] = g % players
    return s, row, decisions


@pytest.mark.parametrize("name,players", TURN_CASES)
def test_hooks_played_in_python_give_the_kernel_rows_and_keep_the_census(name, players):
    E, PL = contract(name)
    game, rules, arr, aux = _setup(name, players)
    specs = seat_specs(name, ["random"], players)
    games = 12
    census = E.census or (lambda s, rules_arr, aux_arr: np.zeros(0, dtype=np.int64))
    rows = game.play_chunk(arr, aux, specs, True, SEED, 0, games)
    for g in range(games):
        start = {}

        def check(s, rules_arr, aux_arr, who):
            # every card, sheep and token in exactly one place: the census never changes
            now = census(s, rules_arr, aux_arr)
            assert (now >= 0).all(), f"game {g}: a negative count in the census"
            start.setdefault("census", now)
            assert np.array_equal(now, start["census"]), f"game {g}: census {now} != {start['census']}"
            assert -1 <= who < players or who == NATURE

        s, row, decisions = step_game(name, players, SEED, g, on_state=check)
        assert np.array_equal(census(s, arr, aux), start["census"])
        # progress ranks the seats on the game's own scale: a winner is never behind
        standing = np.zeros(PL.GAME.max_players)
        E.progress(s, arr, standing)
        mask = int(rows[g][PL.GAME.cowinners])
        for winner in (q for q in range(players) if mask >> q & 1):
            assert standing[winner] == standing[:players].max(), f"game {g}: winner {winner} behind, {standing}"
        assert np.array_equal(row, rows[g]), f"game {g}: stepped through the hooks {row} != kernel {rows[g]}"
        log, replayed, _, _ = game_replay(name, players, g)
        assert len(log) == decisions
        assert np.array_equal(without_rotation(PL, replayed), without_rotation(PL, rows[g]))


def without_rotation(PL, row):
    """A row without its rotation column, which the chunk kernel writes and replay does not."""
    return np.delete(row, PL.GAME.rotation)


def game_replay(name, players, g, specs=None):
    from sheepsim.games import wrappers as W
    PL = get_game(name).play
    game, rules, arr, aux = _setup(name, players)
    return W.replay(PL, arr, aux, specs or seat_specs(name, ["random"], players), True, SEED, g)


@pytest.mark.parametrize("name,players", CASES)
def test_outcome_rows_respect_their_bounds(name, players):
    game, rules, arr, aux = _setup(name, players)
    df = simulate(game, rules, seat_specs(name, [base_policy(name)], players), 300, seed=SEED).results
    assert len(df) == 300 and (df["turns"] >= 0).all()
    assert df["winner"].between(-1, players - 1).all()
    mask = df["cowinners"].to_numpy().astype(np.int64)
    assert (mask < 1 << players).all()
    winner = df["winner"].to_numpy().astype(np.int64)
    won = winner >= 0
    assert (mask[won] == np.left_shift(1, winner[won])).all(), "a winner's cowinners is its own bit"
    shared = mask[~won]
    assert ((shared == 0) | (shared & (shared - 1) != 0)).all(), "no winner: nobody, or several share"
    assert (df.loc[df["capped"], "winner"] >= -1).all()
    assert df["winner"].nunique() >= 2, "random play is stuck on one result"


# besides every game's defaults: options and mixed policies that take other paths
VARIANTS = [("battlesheep", 2, {"board": "random"}, ["greedy", "random"]),
            ("battlesheep", 3, {"board": "preset:parallelogram-3p"}, ["random", "greedy:epsilon=0.3"]),
            ("blacksheep", 4, {"wolf": "on", "joker": "on"}, ["threshold:k=7", "random"]),
            ("hiboufou", 3, {"empty_slot_priority": "strict"}, ["greedy", "random", "defensive"]),
            ("bobbysitter", 4, {"start_tokens": "3,2,2,2"}, ["child", "adult"]),
            ("pig", 2, {"goal": 50}, ["hold:t=15", "random"]),
            # the search agents (search/agents.py) draw from the seat's policy stream: the
            # randomness contract holds for them too (Battle Sheep's random board: a NATURE
            # build before the search's first decision)
            ("pig", 2, {}, ["mcts:iters=20,rollout=greedy", "hold"]),
            ("battlesheep", 3, {"board": "random"}, ["mcts:iters=10", "greedy", "random"]),
            ("battlesheep", 2, {}, ["alphabeta:depth=2", "greedy"]),
            ("blacksheep", 3, {}, ["ismcts:iters=6,cutoff=30", "threshold:k=6", "random"]),
            ("hiboufou", 2, {}, ["ismcts:iters=6,rollout=greedy", "greedy"]),
            ("blacksheep", 2, {}, ["pimc:worlds=3", "threshold:k=6"]),
            ("hiboufou", 3, {}, ["pimc:worlds=2,cutoff=10", "greedy", "random"]),
            ("pig", 2, {"goal": 60}, ["optimal", "hold:t=20"]),      # optimal reads its table from aux
            # the plug-in game (sheepsim/examples/tictactoe.py) with its heuristic and the search agents
            ("tictactoe", 2, {}, ["tactical", "random"]),
            ("tictactoe", 2, {}, ["mcts:iters=30,rollout=greedy", "random"]),
            ("tictactoe", 2, {}, ["alphabeta:depth=3", "tactical"])]
DETERMINISM = [(n, p, {}, None) for n, p in CASES] + VARIANTS


@pytest.mark.parametrize("name,players,options,policies", DETERMINISM,
                         ids=[f"{n}-{p}{'-' + '-'.join(map(str, o.values())) if o else ''}"
                              f"{'-' + pols[0].split(':')[0] if pols else ''}" for n, p, o, pols in DETERMINISM])
def test_same_seed_same_rows_for_any_thread_count_chunk_size_and_replay(name, players, options, policies):
    import numba
    game, rules, arr, aux = _setup(name, players, options)
    pols = policies or [base_policy(name)]
    specs = seat_specs(name, [pols[i % len(pols)] for i in range(players)] if len(pols) > 1 else pols, players)
    aux = kernel_aux(game, rules, None, specs)       # the start, and any data the policies read
    n = 200
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = game.play_chunk(arr, aux, specs, True, SEED, 0, n)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two = game.play_chunk(arr, aux, specs, True, SEED, 0, n)
    finally:
        numba.set_num_threads(before)
    assert np.array_equal(one, two)
    pieces = np.concatenate([game.play_chunk(arr, aux, specs, True, SEED, lo, hi - lo)
                             for lo, hi in ((0, 1), (1, 64), (64, 65), (65, 200))])
    assert np.array_equal(one, pieces)
    # another seed gives other games, not a few changed rows; and games are not all alike
    other = game.play_chunk(arr, aux, specs, True, SEED + 1, 0, n)
    assert (one != other).any(axis=1).mean() > 0.25
    from sheepsim.games import wrappers as W
    if len({r.tobytes() for r in one}) <= n // 4:
        # a game whose result rows take few values (tic-tac-toe's: a winner, a length)
        # shows its games differ in their decisions: most of 8 replays are distinct
        assert name in TURN_GAMES, f"{name}: only {len({r.tobytes() for r in one})} distinct rows in {n} games"
        logs = {W.replay(game.play, arr, aux, specs, True, SEED, g)[0].tobytes() for g in range(8)}
        assert len(logs) >= 6, f"{name}: only {len(logs)} distinct games of 8"
    if name in TURN_GAMES:
        PL = game.play
        for g in (0, 137):
            _, row, _, _ = W.replay(PL, arr, aux, specs, True, SEED, g)
            assert np.array_equal(without_rotation(PL, row), without_rotation(PL, one[g])), f"replay of game {g}"


def _states(name, players, games=6, every=7):
    """A sample of positions with a seat to act, from random play."""
    out = []

    def keep(s, arr, aux, who):
        if who >= 0 and keep.k % every == 0:
            out.append((s.copy(), who))
        keep.k += 1
    keep.k = 0
    for g in range(games):
        step_game(name, players, SEED, g, on_state=keep)
    return out


@pytest.mark.parametrize("name", TURN_GAMES)
def test_random_policy_is_uniform_over_the_legal_set(name):
    E, PL = contract(name)
    players = get_game(name).players[1]
    game, rules, arr, aux = _setup(name, players)
    random_policy = seat_specs(name, ["random"], players)[0].policy.fn
    params = np.zeros(8)
    buf = np.zeros((PL.GAME.max_actions, PL.GAME.action_size), dtype=np.int32)
    tested = 0
    for s, who in _states(name, players):
        n = E.legal(s, arr, aux, buf)
        if n < 2 or n > 60:
            continue
        legal = [tuple(int(x) for x in row) for row in buf[:n]]
        counts = dict.fromkeys(legal, 0)
        rng_rows = streams(SEED + tested, 0, 1)
        draws = 40 * n
        for _ in range(draws):
            t = s.copy()
            # the random policy itself, as step_game calls it (so its compile is shared);
            # that the kernels' dispatcher plays it for id 0 is what the rows test above shows
            action = tuple(int(x) for x in np.atleast_1d(random_policy(t, arr, aux, who, params, rng_rows[0],
                                                                       buf.copy())))
            assert action in counts, f"random chose {action}, not legal here"
            counts[action] += 1
        p = chisquare(list(counts.values())).pvalue
        assert p > 1e-4, f"{name}: random policy not uniform over {n} legal actions (p = {p:.2g}): {counts}"
        tested += 1
        if tested == 6:
            break
    assert tested >= 3, "too few positions with a choice"


# one user policy for every game: the first legal action, or with cheat=1 an action that
# is never legal (one policy, so both runs share one compiled kernel: they take minutes)
def _first_legal_or_cheat(E, width):
    from numba import njit
    items = ", ".join(f"buf[0, {k}]" for k in range(width))
    namespace = {"legal": E.legal}
    exec(f"def policy(s, rules, aux, seat, params, rng, buf):\n"
         f"    if params[0] > 0:\n"
         f"        return ({', '.join(['-7'] * width)},)\n"
         f"    legal(s, rules, aux, buf)\n"
         f"    return ({items},)\n", namespace)
    return njit(namespace["policy"])


@pytest.mark.parametrize("name", TURN_GAMES)
def test_a_user_policy_with_the_common_signature_runs_and_an_illegal_one_stops_the_run(name, monkeypatch):
    from sheepsim import policies as POLICIES
    E, PL = contract(name)
    monkeypatch.setattr(POLICIES, "_REGISTRY", dict(POLICIES._REGISTRY))
    POLICIES.register_policy(name, "first-legal", params={"cheat": (0.0, "1: return an illegal action", 0, 1)},
                             doc="the first legal action")(_first_legal_or_cheat(E, PL.GAME.action_size))
    players = get_game(name).players[0]
    game, rules, arr, aux = _setup(name, players)
    specs = seat_specs(name, ["first-legal", "random"], players)
    df = simulate(game, rules, specs, 40, seed=SEED).results
    assert len(df) == 40 and set(df["policy_0"]) == {"first-legal", "random"}
    # user-policy blocks run on Python threads (wrappers.play_chunk): the same rows for
    # any thread count and chunking, as in the cached kernels
    import numba
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = game.play_chunk(arr, aux, specs, True, SEED, 0, 150)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two = game.play_chunk(arr, aux, specs, True, SEED, 0, 150)
    finally:
        numba.set_num_threads(before)
    pieces = np.concatenate([game.play_chunk(arr, aux, specs, True, SEED, lo, hi - lo)
                             for lo, hi in ((0, 70), (70, 71), (71, 150))])
    assert np.array_equal(one, two) and np.array_equal(one, pieces)
    assert len({r.tobytes() for r in one}) > 10
    with pytest.raises(SheepsimError) as err:
        simulate(game, rules, seat_specs(name, ["random", "first-legal:cheat=1"], players), 40, seed=SEED)
    text = str(err.value)
    assert "policy first-legal:cheat=1 returned the illegal action (-7" in text and "game 0, seat 1" in text
    assert "\n" not in text


# what a trace calls a turn (Battle Sheep: a move; Bobby Sitter: a flip), read off its text
TURNS_SHOWN = {"battlesheep": (r"^\d+\. seat \d \([A-D]\) moves ", "count"),
               "blacksheep": (r"^  turn (\d+) seat ", "max"), "hiboufou": (r"^  turn (\d+) seat ", "max"),
               "pig": (r"^turn (\d+): ", "max"), "bobbysitter": (r"^flip (\d+): ", "max"),
               "tictactoe": (r"^\d+\. seat \d ", "count")}


@pytest.mark.parametrize("name,players", [(n, get_game(n).players[0]) for n in TURNS_SHOWN])
def test_turns_equal_the_turns_the_trace_shows(name, players):
    import re
    game, rules, arr, aux = _setup(name, players)
    specs = seat_specs(name, [base_policy(name)], players)
    pattern, how = TURNS_SHOWN[name]
    df = simulate(game, rules, specs, 6, seed=SEED).results
    for g in range(6):
        text = game.trace(rules, specs, SEED, g, True, aux, False)
        found = [m.group(1) if m.groups() else "" for m in re.finditer(pattern, text, flags=re.M)]
        shown = len(found) if how == "count" else max((int(x) for x in found), default=0)
        assert shown == int(df["turns"][g]), f"game {g}: the trace shows {shown} turns, results say {df['turns'][g]}"
