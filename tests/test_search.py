"""The search policies (sheepsim/search): mcts and ismcts through the engine contract.

* The kernel (search/mcts.py) and its plain-Python twin (search/reference.py) choose the
  same action at every decision of whole games, with the same streams, in every game
  (max-n at 3 players, chance nodes, cut-offs, a pool that fills, determinization).
* With a large budget on a small Pig game, mcts plays the exactly optimal action
  (value iteration written here) wherever the two actions' values differ clearly.
* Bad input: one line, exit status 2, nothing written.
The randomness contract (threads, chunks, replay) is test_conformance's, and the
re-deal tests are test_blacksheep_hidden's and test_hiboufou_hidden's.
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest
from numba import njit

from conftest import assert_bad
from conftest import run_cli as run
from sheepsim.games.kernels import of_kind
from sheepsim.games import get_game
from sheepsim.games import wrappers as W
from sheepsim.games.driver import NATURE
from sheepsim.games.pig import engine as PE
from sheepsim.games.pig.play import KERNELS as PP
from sheepsim.policies import MAX_PARAMS, policies_for, seat_specs
from sheepsim.search import agents as A
from sheepsim.search import mcts as M
from sheepsim.search import reference

PP_SEARCH = of_kind(PP, "search")   # the game's search kernels (search/wiring.py)

SEED = 20261202


def _rollout(POL, greedy):
    """The rollout dispatcher for the Python twin: the built-ins called directly (the
    dispatcher over every built-in would compile again for plain arrays)."""
    def choose(pid, s, rules, aux, seat, params, rng, buf, scratch):
        if pid == POL.RANDOM:
            return POL.random_policy(s, rules, aux, seat, params, rng, buf)
        return greedy(s, rules, aux, seat, params, rng, buf)
    return choose


TWINS = [  # game, players, options, policies by slot (slot 0 searches), decisions compared
    ("pig", 2, {"goal": 60}, ["mcts:iters=30,rollout=greedy", "hold:t=10"], 400),
    ("pig", 2, {"goal": 60}, ["mcts:iters=25,cutoff=4,nodes=9", "random"], 400),
    ("battlesheep", 3, {}, ["mcts:iters=12", "mcts:iters=5,c=2", "random"], 60),
    # a full node pool (21 nodes: 10 expansions) and, with 40 to 118 moves a position, a
    # full pool of kept legal lists (32 rows a node): the kernel's fallback to generating
    # lists at every visit, against the twin, which never keeps them
    ("battlesheep", 2, {}, ["mcts:iters=40,nodes=21", "random"], 40),
    # soft cut-off shares (temp): Battle Sheep's evaluation scores the cut-off leaves
    ("battlesheep", 2, {}, ["mcts:iters=30,cutoff=6,temp=2,rollout=greedy", "greedy"], 40),
    # a node's first expansion is the heuristic's choice (expand=greedy)
    ("battlesheep", 2, {}, ["mcts:iters=30,cutoff=6,expand=greedy", "random"], 40),
    ("hiboufou", 2, {}, ["ismcts:iters=6,cutoff=20,expand=greedy", "random"], 60),
    ("blacksheep", 3, {}, ["ismcts:iters=6", "random", "random"], 60),
    ("hiboufou", 2, {}, ["ismcts:iters=6,cutoff=20", "random"], 60),
    # pimc: every action of a world on the same deal and stream, ties to the heuristic
    ("pig", 2, {"goal": 60}, ["pimc:worlds=8", "hold:t=10"], 400),
    # a paired test loose enough to leave the heuristic often (z=0.5), and z=0
    ("pig", 2, {"goal": 60}, ["pimc:worlds=40,z=0.5", "pimc:worlds=6,z=0,rollout=random"], 300),
    ("blacksheep", 3, {}, ["pimc:worlds=3", "random", "random"], 60),
    ("hiboufou", 2, {}, ["pimc:worlds=3,cutoff=20,rollout=random", "greedy"], 40),
]


@pytest.mark.parametrize("name,players,options,policies,decisions", TWINS,
                         ids=[f"{t[0]}-{t[3][0]}" for t in TWINS])
def test_the_kernel_chooses_as_its_python_twin_at_every_decision(name, players, options, policies, decisions):
    game = get_game(name)
    PL = game.play
    E = PL.ENGINE
    POL = importlib.import_module(f"sheepsim.games.{name}.policies")
    rules = game.make_rules(players, options)
    arr, aux = game.to_array(rules), game.initial_state(rules, None)
    specs = seat_specs(name, policies, players)
    # rollout=greedy's policy, as the Engine record names it (Bye-Bye Black Sheep's is
    # `distilled`), called as its Python function of the same name
    greedy = getattr(POL, next(d.name for d in policies_for(name) if d.id == E.rollout_greedy))
    hooks = (E, _rollout(POL, greedy))
    searched = 0
    for g in (0, 1):
        log, _, slots, rngs = W.replay(PL, arr, aux, specs, True, SEED, g)
        G = PL.GAME
        size, max_actions, width, luck, pol = G.state_size, G.max_actions, G.action_size, G.luck, G.policy
        s = np.zeros(size, dtype=np.int32)
        buf = np.zeros((max_actions, width), dtype=np.int32)
        E.start(s, arr, aux, rngs[0])
        for t, entry in enumerate(log[:decisions]):
            who = int(E.actor(s, arr))
            assert who == entry[0], f"game {g} decision {t}"
            if who == NATURE:
                action = E.nature(s, arr, aux, rngs[0])
            else:
                spec = specs[slots[who]]
                rng = rngs[pol + who]
                if spec.policy.id == A.PIMC:
                    action = reference.pimc(hooks, PL.GAME, of_kind(PL, "search").SEARCH, of_kind(PL, "search").ROLLOUT_PARAMS, E.determinize is not None,
                                            s.copy(), arr, aux, who, spec.vector(), rng)
                    searched += 1
                elif spec.policy.id >= A.MCTS:
                    action = reference.search(hooks, PL.GAME, of_kind(PL, "search").SEARCH, of_kind(PL, "search").ROLLOUT_PARAMS, spec.policy.id == A.ISMCTS,
                                              s.copy(), arr, aux, who, spec.vector(), rng)
                    searched += 1
                else:
                    action = hooks[1](spec.policy.id, s, arr, aux, who, spec.vector(), rng, buf, buf.copy())
            action = tuple(int(x) for x in np.atleast_1d(action))
            assert action == tuple(int(x) for x in entry[1:1 + width]), \
                f"game {g} decision {t} seat {who}: kernel {tuple(entry[1:1 + width])}, Python twin {action}"
            c = E.chance(s, arr, aux, action, rngs[luck + who if who >= 0 else 0])
            assert c == entry[1 + width]
            E.step(s, arr, aux, action, c)
    assert searched >= 20


def pig_exact(goal):
    """P(win) of the player to act at (own score, other's score, turn total), both
    playing optimally, and the value of each action: value iteration (Neller and
    Presser) under sheepsim's rules (hold needs a turn total > 0; holding at the goal
    wins; rolling past it does not)."""
    p = np.zeros((goal, goal, goal + 6))
    while True:
        roll = np.zeros_like(p)
        hold = np.full_like(p, -1.0)
        for i in range(goal):
            for j in range(goal):
                for k in range(goal - i):
                    if k > 0:
                        hold[i, j, k] = 1.0 - p[j, i + k, 0] if i + k < goal else 1.0
                    v = (1.0 - p[j, i, 0]) / 6
                    for face in range(2, 7):
                        v += (p[i, j, k + face] if i + k + face < goal else 1.0) / 6
                    roll[i, j, k] = v
        new = np.maximum(roll, hold)
        if np.abs(new - p).max() < 1e-12:
            return new, roll, hold
        p = new


def pig_decisive_positions(goal):
    """(i, j, k, state, roll value, hold value) at the positions of a small Pig game
    (own score i, other's score j, turn total k) where the exact optimum's two actions
    differ by at least 0.04: what a search at a test's budget must get right."""
    from sheepsim.games.pig import engine as E
    _, roll, hold = pig_exact(goal)
    for i in range(0, goal, 2):
        for j in range(0, goal, 3):
            for k in range(1, goal - i):
                if abs(roll[i, j, k] - hold[i, j, k]) < 0.04:
                    continue        # too close to call at this budget
                s = np.zeros(E.STATE_SIZE, dtype=np.int32)
                s[E.S_SCORE], s[E.S_SCORE + 1], s[E.S_TURN] = i, j, k
                yield i, j, k, s, roll[i, j, k], hold[i, j, k]


@njit
def _pig_search(s, rules, params, rng):
    buf = np.zeros((2, 1), dtype=np.int32)
    # the replay kernel's search, with the argument types it passes (an int32 seat): its
    # cached compile is loaded, where the inlined choose_search would compile anew
    return PP_SEARCH.choose_called(A.MCTS, s, rules, s, np.int32(0), params, rng, buf, buf.copy())


def test_mcts_plays_the_exact_optimum_of_a_small_pig_game_where_it_matters():
    from sheepsim.games.pig import engine as E
    from sheepsim.rng import streams
    goal = 10
    game = get_game("pig")
    arr = game.to_array(game.make_rules(2, {"goal": goal}))
    params = np.zeros(MAX_PARAMS)
    params[[M.P_ITERS, M.P_C]] = 20_000, 0.7
    checked = 0
    for i, j, k, s, roll, hold in pig_decisive_positions(goal):
        best = E.ACT_HOLD if hold > roll else E.ACT_ROLL
        assert _pig_search(s, arr, params, streams(SEED, i * 100 + j * 10 + k, 1)[0]) == best, \
            f"score {i}, other {j}, turn total {k}: roll {roll:.3f}, hold {hold:.3f}"
        checked += 1
    assert checked >= 15


def test_search_beats_the_heuristic_it_rolls_out_with_in_battle_sheep(tmp_path):
    """A sanity check of strength, not a measurement: 100 iterations against greedy."""
    game = get_game("battlesheep")
    rules = game.make_rules(2, {})
    specs = seat_specs("battlesheep", ["mcts:iters=100", "greedy"], 2)
    rows = game.play_chunk(game.to_array(rules), game.initial_state(rules, None), specs, True, SEED, 0, 120)
    df = game.frame(rows, rules, specs, SEED, 0)
    winner_policy = [df[f"policy_{w}"].iloc[i] if w >= 0 else None for i, w in enumerate(df["winner"])]
    assert winner_policy.count("mcts:iters=100") > winner_policy.count("greedy") * 1.3


@pytest.mark.parametrize("args,needles", [
    (["simulate", "pig", "--policy", "mcts:iters=0"], ["iters=0 is out of range", "integer 1..1000000"]),
    (["simulate", "pig", "--policy", "mcts:iters=2.5"], ["whole number"]),
    (["simulate", "pig", "--policy", "mcts:c=-1"], ["c=-1 is out of range", "0..100"]),
    (["simulate", "pig", "--policy", "mcts:rollout=smart"], ["rollout='smart'", "random, greedy"]),
    (["simulate", "battlesheep", "--policy", "ismcts"], ["no hidden information", "use mcts"]),
    (["simulate", "blacksheep", "--policy", "mcts"], ["hides cards", "use ismcts"]),
    (["simulate", "bobbysitter", "--policy", "mcts"], ["unknown bobbysitter policy 'mcts'"]),
    (["simulate", "blacksheep", "--policy", "pimc:worlds=0"], ["worlds=0 is out of range", "integer 1..1000000"]),
    (["simulate", "hiboufou", "--policy", "pimc:z=-1"], ["z=-1 is out of range", "0..10"]),
])
def test_bad_search_input_is_one_line_exit_2(tmp_path, args, needles):
    out = tmp_path / "out"
    assert_bad(run(*args, "--out", str(out)), *needles)
    assert not out.exists()


def test_policies_lists_the_search_that_fits_the_game():
    text = run("policies", "blacksheep").output
    assert "ismcts" in text and "ismcts:rollout=<name>  (default random; allowed one of random, greedy)" in text
    assert "\nmcts\n" not in text
    assert "\nmcts\n" in run("policies", "pig").output


def test_a_named_parameter_value_round_trips_through_its_label():
    from sheepsim.policies import parse_spec
    spec = parse_spec("pig", "mcts:rollout=greedy,iters=64")
    assert spec.label == "mcts:iters=64,rollout=greedy"
    assert spec.vector()[M.P_ROLLOUT] == M.ROLLOUT_GREEDY
    assert parse_spec("pig", spec.label) == spec


@njit
def _hold_at_10(s, rules, aux, seat, params, rng, buf):
    total = s[PE.S_TURN]
    if total > 0 and (total >= 10 or s[PE.S_SCORE + seat] + total >= rules[1]):
        return PE.ACT_HOLD
    return PE.ACT_ROLL


def test_a_user_policy_and_a_search_policy_share_a_run(monkeypatch):
    """The user-policy kernels with the search dispatcher (driver.user_kernels, search=True)
    play exactly the games of the built-in search kernel when the user policy makes the
    built-in's decisions (hold at 10 draws nothing from its stream)."""
    from sheepsim import policies as POLICIES
    from sheepsim.policies import register_policy
    monkeypatch.setattr(POLICIES, "_REGISTRY", dict(POLICIES._REGISTRY))
    register_policy("pig", "mine_hold_10")(_hold_at_10)
    game = get_game("pig")
    rules = game.make_rules(2, {})
    arr, aux = game.to_array(rules), game.initial_state(rules, None)
    user = game.play_chunk(arr, aux, seat_specs("pig", ["mcts:iters=8", "mine_hold_10"], 2), True, SEED, 0, 40)
    built = game.play_chunk(arr, aux, seat_specs("pig", ["mcts:iters=8", "hold:t=10"], 2), True, SEED, 0, 40)
    assert np.array_equal(user, built)
    assert len({r.tobytes() for r in user}) > 20
