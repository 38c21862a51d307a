"""The search agents' kernels, for every turn game: written once, here.

games/kernels.py writes each game's kernels from a template; this module registers the
search agents' part (kind "search", the kind of every policy search/__init__.py
registers). A run with a search seat plays in these kernels, the others keep the
built-ins' kernels unchanged. The template follows the game's header, which binds the
game's hooks (START .. CHOOSE, R_*: called twins), VIEW, GAME and its Engine record _E.
"""

from ..games import kernels

# What every agent's kernels know of the game: its header binds the hooks (games/kernels.py)
CONTEXT = '''
from sheepsim.search import agents, alphabeta, mcts

# the outcome row's size and winners column, and the rollout policies' ids and vectors
SEARCH = (_E.o_size, GAME.cowinners, _E.rollout_random, _E.rollout_greedy)
ROLLOUT_PARAMS = mcts.rollout_params(*_E.rollout_params)
DETERMINIZE = _E.determinize or mcts.no_determinize
COPY_STATE = _E.copy_state or mcts.copy_whole
ROLLOUT = _E.choose_rollout or CHOOSE
HIDDEN = _E.hidden
'''

# The built-in agents' `search`: agents.decide runs the one its id names
AGENTS = '''
# alpha-beta only where nothing is hidden and decisions meet no luck (agents.py)
EXACT = alphabeta.search if _E.exact else agents.no_exact
FIRST_ID, LAST_ID = agents.FIRST_ID, agents.LAST_ID


@njit(cache=True, nogil=True)
def search(policy_id, s, rules, aux, seat, params, rng, buf, scratch):
    """Every search agent (search/agents.py) on this game, its hooks and rollout
    policies inlined, in a kernel of its own: the chunk, replay and user-policy
    kernels all call it, so the search compiles once per game (inlined into each of
    them it compiled again in each, and the search kernels took twice as long to warm)."""
    agents.decide(policy_id, ACTOR, LEGAL, NATURE, CHANCE, STEP, OUTCOME, PROGRESS, DETERMINIZE, COPY_STATE, ROLLOUT,
                  R_CHOOSE, VIEW, GAME, SEARCH, ROLLOUT_PARAMS, HIDDEN, EXACT, s, rules, aux, seat, params, rng, buf,
                  scratch)
'''

# The kernels around `search` (the ids FIRST_ID .. LAST_ID): the dispatcher, the chunk
# and replay kernels; a plug-in agent's kernels (search/plugin.py) share them
DISPATCH = '''

@njit(cache=True, inline="always")
def choose_search(policy_id, s, rules, aux, seat, params, rng, buf, scratch):
    """The built-ins' dispatcher, with the search policies. The other seats' built-ins
    are called (R_CHOOSE) rather than inlined a second time: the kernel compiles in
    about half the time (41 s against 66 s for Bye-Bye Black Sheep, 44 s against 74 s
    for Hiboufou, measured), with the same results and speed."""
    if FIRST_ID <= policy_id <= LAST_ID:
        search(policy_id, s, rules, aux, seat, params, rng, buf, scratch)
        return {action}
    return R_CHOOSE(policy_id, s, rules, aux, seat, params, rng, buf, scratch)


# choose_search called rather than inlined: the replay and user-policy kernels'
# dispatcher, compiled in seconds (driver.called, as the hooks' twins)
choose_called = driver.called(choose_search)


@njit(cache=True, nogil=True)
def play_blocks(rules, aux, slot_ids, slot_params, rotate, seed, first, out, faults, metrics, b_lo, b_hi):
    driver.play_blocks(START, ACTOR, LEGAL, NATURE, CHANCE, STEP, OUTCOME, PROGRESS, choose_search, NO_USER,
                       LAST_ID, VIEW, GAME, rules, aux, slot_ids, slot_params, rotate, seed, first, out, faults,
                       metrics, b_lo, b_hi)


@njit(cache=True)
def replay(rules, aux, slot_ids, slot_params, seat_slot, rngs, g, row, log, fault):
    return driver.replay(R_START, R_ACTOR, R_LEGAL, R_NATURE, R_CHANCE, R_STEP, R_OUTCOME, R_PROGRESS, choose_called,
                         NO_USER, LAST_ID, VIEW, GAME, rules, aux, slot_ids, slot_params, seat_slot, rngs, g,
                         row, log, fault)
'''

kernels.register_kind("search", CONTEXT + AGENTS + DISPATCH, __name__)
