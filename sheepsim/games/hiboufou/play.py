"""Hiboufou's cached entry points to the shared driver (games/driver.py).

Streams of game g: stream 0 deals the cards (the shuffle fixes the draw pile order, so
decisions need no luck of their own: LUCK = POLICY); POLICY + s = 1 + s is seat s's
policy. Rotating policies or changing a parameter keeps the deal identical. `aux` is
the deck: int32 colour masks by card id (rules.deck_array).
"""

from numba import njit

from ...search import agents, mcts
from .. import driver, fast
from . import engine as E
from . import policies as P

POLICY = LUCK = 1
GAME = (E.STATE_SIZE, E.MAX_DECISIONS, E.ACTION_SIZE, LUCK, POLICY, POLICY + E.MAX_PLAYERS, E.O_ROTATION,
        E.MAX_PLAYERS, E.O_COWINNERS)
# what driver.user_kernels builds the user-policy kernels from
HOOKS = (E.start, E.actor, E.legal, E.nature, E.chance, E.step, E.outcome, E.progress, P.choose)
VIEW = fast.pointer
LAST_BUILTIN = P.LAST_BUILTIN
O_SIZE = E.O_SIZE


@njit(cache=True, nogil=True)
def play_blocks(rules, aux, slot_ids, slot_params, rotate, seed, first, out, faults, metrics, b_lo, b_hi):
    driver.play_blocks(E.start, E.actor, E.legal, E.nature, E.chance, E.step, E.outcome, E.progress, P.choose,
                       P.no_user_policies, P.LAST_BUILTIN, fast.pointer, GAME, rules, aux, slot_ids, slot_params,
                       rotate, seed, first, out, faults, metrics, b_lo, b_hi)


# replay (trace, tests) calls the hooks rather than inlining them (driver.called): it
# compiles in seconds and shares the compiled hooks with the user-policy kernels
R_START, R_ACTOR, R_LEGAL, R_NATURE, R_CHANCE, R_STEP, R_OUTCOME, R_PROGRESS, R_CHOOSE = map(driver.called, HOOKS)


@njit(cache=True)
def replay(rules, aux, slot_ids, slot_params, seat_slot, rngs, g, row, log, fault):
    return driver.replay(R_START, R_ACTOR, R_LEGAL, R_NATURE, R_CHANCE, R_STEP, R_OUTCOME, R_PROGRESS, R_CHOOSE,
                         P.no_user_policies, P.LAST_BUILTIN, fast.pointer, GAME, rules, aux, slot_ids, slot_params,
                         seat_slot, rngs, g, row, log, fault)


# --- the search agents (search/agents.py), in kernels of their own: runs without one
# keep the kernels above, unchanged. The outcome row's size and winners column, and
# the rollout policies: random, and "greedy" = the greedy policy.
SEARCH = (E.O_SIZE, E.O_COWINNERS, P.RANDOM, P.GREEDY)
ROLLOUT_PARAMS = mcts.rollout_params((), ())
# hidden cards: no alpha-beta (search/agents.py)
EXACT = agents.no_exact


@njit(cache=True, nogil=True)
def search(policy_id, s, rules, aux, seat, params, rng, buf, scratch):
    """Every search agent (search/agents.py) on this game, its hooks and rollout
    policies inlined, in a kernel of its own: the chunk, replay and user-policy
    kernels all call it, so the search compiles once per game (inlined into each of
    them it compiled again in each, and the search kernels took twice as long to warm)."""
    agents.decide(policy_id, E.actor, E.legal, E.nature, E.chance, E.step, E.outcome, E.progress, E.determinize,
                  E.copy_state, P.choose_rollout, R_CHOOSE, fast.pointer, GAME, SEARCH, ROLLOUT_PARAMS, True, EXACT,
                  s, rules, aux, seat, params, rng, buf, scratch)


@njit(cache=True, inline="always")
def choose_search(policy_id, s, rules, aux, seat, params, rng, buf, scratch):
    """The built-ins' dispatcher, with the search policies. The search's rollouts inline
    only the rollout policies (P.choose_rollout), and the other seats' built-ins are
    called (R_CHOOSE) rather than inlined a second time: the kernel compiles in about
    half the time (41 s against 66 s for Bye-Bye Black Sheep, 44 s against 74 s for
    Hiboufou, measured), with the same results and speed."""
    if agents.FIRST_ID <= policy_id <= agents.LAST_ID:
        search(policy_id, s, rules, aux, seat, params, rng, buf, scratch)
        return buf[0, 0], buf[0, 1], buf[0, 2]
    return R_CHOOSE(policy_id, s, rules, aux, seat, params, rng, buf, scratch)


# the replay and user-policy kernels' dispatcher: choose_search itself (it already calls
# every built-in, R_CHOOSE, and the search), called rather than inlined
choose_search_called = driver.called(choose_search)


@njit(cache=True, nogil=True)
def play_blocks_search(rules, aux, slot_ids, slot_params, rotate, seed, first, out, faults, metrics, b_lo,
                       b_hi):
    driver.play_blocks(E.start, E.actor, E.legal, E.nature, E.chance, E.step, E.outcome, E.progress, choose_search,
                       P.no_user_policies, agents.LAST_ID, fast.pointer, GAME, rules, aux, slot_ids, slot_params,
                       rotate, seed, first, out, faults, metrics, b_lo, b_hi)


@njit(cache=True)
def replay_search(rules, aux, slot_ids, slot_params, seat_slot, rngs, g, row, log, fault):
    return driver.replay(R_START, R_ACTOR, R_LEGAL, R_NATURE, R_CHANCE, R_STEP, R_OUTCOME, R_PROGRESS,
                         choose_search_called, P.no_user_policies, agents.LAST_ID, fast.pointer, GAME, rules, aux,
                         slot_ids, slot_params, seat_slot, rngs, g, row, log, fault)
