"""A search agent written as a plug-in: one-ply lookahead on the game's own evaluation.

Nothing here is inside sheepsim/search/: this one file writes an agent over the engine
contract (sheepsim/search/plugin.py says what `decide` receives) and registers it for
the games it plays. Load it with --plugin, as a user policy:

    sheepsim --plugin lookahead.py simulate battlesheep --policy lookahead --policy greedy -n 200
    sheepsim --plugin tictactoe.py --plugin lookahead.py simulate tictactoe --policy lookahead --policy mcts

The agent plays each legal action in `samples` worlds and keeps the action whose
resulting position it likes best on average: a won game counts 10^6 (shared among
co-winners), a lost one -10^6, otherwise its standing by the game's `progress` hook
minus the best standing of another seat. A world re-deals what the seat cannot see
(`determinize`, in a hidden-information game) and draws the action's luck (a die, a
blind draw) from one stream that every action of the world shares, so the actions
meet the same luck (common random numbers). Ties go to the first legal action.

Every draw comes from the seat's own policy stream `rng`, so results stay a function
of (config, seed, game index), as for the built-in agents. Cost: samples x (legal
actions) steps and evaluations a decision.
"""

import numpy as np
from numba import njit

from sheepsim.games import all_games
from sheepsim.rng import next_u64, seed_stream
from sheepsim.search.plugin import register_agent

P_SAMPLES = 0               # the parameter vector, in the registered order
WIN = 1e6
S_O_SIZE, S_COWINNERS = 0, 1        # what `spec` holds first: the result row's size and winners column


@njit(cache=True)
def lookahead(actor, legal, nature, chance, step, outcome, progress, determinize, copy_state, choose, prior, view,
              game, spec, rollout_params, hidden, s, rules, aux, seat, params, rng, buf, scratch):
    size = game.state_size
    players = rules[0]
    samples = np.int64(params[P_SAMPLES])
    state = np.empty(size, dtype=np.int32)
    world = np.empty(size, dtype=np.int32)
    sim = view(state)           # the hooks' view of our copy; `s` itself is only read
    rows = np.empty((game.max_actions, game.action_size), dtype=np.int32)
    copy_state(state, s, size)
    n = legal(sim, rules, aux, rows)
    total = np.zeros(n)
    stream = np.empty(4, dtype=np.uint64)
    row = np.zeros(spec[S_O_SIZE], dtype=np.int32)
    standing = np.zeros(game.max_players)
    for w in range(samples if n > 1 else 0):
        copy_state(state, s, size)
        if hidden:
            determinize(sim, rules, aux, seat, rng)
        copy_state(world, state, size)
        key = next_u64(rng)
        for i in range(n):
            copy_state(state, world, size)
            seed_stream(key, w, 0, stream)          # the same luck for every action of this world
            step(sim, rules, aux, rows[i], chance(sim, rules, aux, rows[i], stream))
            if actor(sim, rules) == -1:
                outcome(sim, rules, row)
                winners = row[spec[S_COWINNERS]]
                if winners >> seat & 1:
                    shared = 0
                    for q in range(players):
                        shared += winners >> q & 1
                    total[i] += WIN / shared
                elif winners != 0:
                    total[i] -= WIN
            else:
                progress(sim, rules, standing)
                other = -np.inf
                for q in range(players):
                    if q != seat and standing[q] > other:
                        other = standing[q]
                total[i] += standing[seat] - other
    best = 0
    for i in range(1, n):
        if total[i] > total[best]:
            best = i
    for k in range(game.action_size):
        buf[0, k] = rows[best, k]


# the games it plays: every turn game registered when it is loaded (a plug-in game too,
# if its file comes first on the command line); not Bobby Sitter's simultaneous reactions
GAMES = [name for name, game in all_games().items() if not game.simultaneous]

register_agent("lookahead", lookahead, games=GAMES,
               params={"samples": (8.0, "worlds each action is played in (luck and hidden cards sampled)", 1.0,
                                   1e6)},
               integers=("samples",),
               doc="one-ply lookahead on the game's evaluation (a plug-in agent, sheepsim/examples/lookahead.py): "
                   "each legal action played in `samples` worlds on common luck, the best average standing "
                   "(own progress minus the best other seat's; a win or loss counts 10^6) is played")
