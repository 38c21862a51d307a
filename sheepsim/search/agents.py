"""The search agents' ids and their one dispatcher, for every game.

Every game's search kernels (search/wiring.py: choose_search, choose_called) hand every
policy id from FIRST_ID to LAST_ID to `decide`, with the game's hooks; `decide` runs the
agent the id names. A new agent is an id here, a branch in `decide` and a registration
in search/__init__.py: no game changes.

* MCTS and ISMCTS: search/mcts.py (one algorithm; ISMCTS determinizes, `hidden`).
* PIMC: search/pimc.py, determinized flat Monte Carlo on common random numbers, every
  game (one real world where nothing is hidden).
* ALPHABETA: search/alphabeta.py, for perfect-information games without luck. A game
  declares `exact` (its Engine record, games/kernels.py) and gets this search; the others get `no_exact`, so their
  kernels never compile it (the registry refuses alphabeta for them: search/__init__.py).
"""

from numba import njit

from . import mcts, pimc

# above every game's built-ins, below policies.USER_ID_BASE
MCTS, ISMCTS, ALPHABETA, PIMC = 90, 91, 92, 93
FIRST_ID, LAST_ID = MCTS, PIMC


@njit(cache=True)
def no_exact(actor, legal, step, outcome, progress, copy_state, prior, view, game, spec, rollout_params, s, rules,
             aux, seat, params, rng, buf, scratch):
    """The `exact` search of a game with luck or hidden cards: none. The policy registry
    refuses alphabeta for such a game before any kernel runs, so this is never called."""
    return 0


@njit(inline="always")
def decide(policy_id, actor, legal, nature, chance, step, outcome, progress, determinize, copy_state, choose, prior,
           view, game, spec, rollout_params, hidden, exact, s, rules, aux, seat, params, rng, buf, scratch):
    """Run the agent `policy_id` names from `s`, `seat` to act: its action into buf[0].
    The hooks and `game`, `spec`, `rollout_params`, `hidden` as for mcts.search; `exact`
    is alphabeta.search or no_exact."""
    if policy_id == ALPHABETA:
        exact(actor, legal, step, outcome, progress, copy_state, prior, view, game, spec, rollout_params, s, rules,
              aux, seat, params, rng, buf, scratch)
    elif policy_id == PIMC:
        pimc.search(actor, legal, nature, chance, step, outcome, progress, determinize, copy_state, choose, prior,
                    view, game, spec, rollout_params, hidden, s, rules, aux, seat, params, rng, buf, scratch)
    else:
        mcts.search(actor, legal, nature, chance, step, outcome, progress, determinize, copy_state, choose, prior,
                    view, game, spec, rollout_params, hidden, s, rules, aux, seat, params, rng, buf)
