"""Determinized flat Monte Carlo on common random numbers (`pimc`), for every game.

At a decision the seat samples `worlds` worlds. A world is one re-deal of what the seat
cannot see (the contract's `determinize`; a perfect-information game has its one real
state) and one stream of luck and rollout decisions. In each world every legal action
of the seat is played, then the game is played on by the rollout policy (the game's
`random` or its heuristic, `greedy`) to its end, or for `cutoff` decisions and scored
by `progress` (soft shares with `temp` > 0), exactly as an mcts iteration scores its
leaf (mcts._rewards). The seat plays the heuristic's choice (the rollout policy
`greedy`'s action here) unless the action with the highest summed reward beats it
surely: its advantage, paired world by world, is above `z` standard errors of its
mean (z = 0: any advantage; the first legal action among equals).

Why a paired test. A decision that departs from a sound heuristic on noise is a loss:
a game has dozens of decisions, and at a few points between two actions a hundred
worlds choose between them nearly at random. Measured on Pig (2,000 games against
hold at 20, seats rotated, 100 worlds and hold-at-20 rollouts): the plain argmax won
35.8% [32.9, 38.8] (1,000 games), z = 1 47.8% [45.6, 49.9], z = 2 50.4% [48.2, 52.6],
level with its heuristic where the heuristic is close to optimal.

Why one ply and common random numbers. In a push-your-luck or hidden-card game most
of a decision's effect is drowned by the luck that follows it: two actions a point of
win rate apart need tens of thousands of independent rollouts to tell apart, and
mcts at a few hundred iterations then chooses little better than at random (it loses
to the heuristic it rolls out with). Here every action of a world meets the same deal,
the same draws for as long as their games stay aligned and the same rollout stream,
so the luck they share cancels in the comparison and a few hundred worlds separate
them. It is the rollout algorithm (Bertsekas, Tsitsiklis and Wu 1997; Tesauro and
Galperin 1996: one step of policy improvement over the rollout policy, so with the
game's heuristic as rollout it plays at least about as well as the heuristic wherever
the samples can tell; the paired test keeps it so at a budget) and, in a
hidden-information game, Perfect Information Monte
Carlo (Ginsberg's GIB; Long, Sturtevant, Buro and Furtak 2010) one ply deep: the
seat's later decisions are the rollout policy's, which decides from its own seat's
view of the world, so the strategy fusion of a deeper PIMC does not arise.

Cost: worlds x (legal actions) rollouts a decision; a forced move costs nothing.

Randomness: each world's re-deal comes from the seat's policy stream `rng`, and its
luck and rollout stream is seeded from one 64-bit draw of it (rng.seed_stream), so the
decisions depend only on (config, seed, game index) and, in a hidden-information game,
on hidden cards only through `determinize` (tests/test_search.py and the games' re-deal
tests). Its plain-Python twin is search/reference.py's `pimc`.
"""

import numpy as np
from numba import njit

from ..rng import next_u64, seed_stream
from . import mcts as M

# the parameter vector (policies.PolicySpec.vector), in the registered order
P_WORLDS, P_ROLLOUT, P_CUTOFF, P_TEMP, P_Z = range(5)


@njit(cache=True)
def _sure(gain, gain2, worlds, z):
    """Whether an action's advantage over the heuristic's choice, summed world by world
    (`gain`, and its squares `gain2`), is above z standard errors of its mean: the
    paired test that lets the search leave the heuristic. Never with one world (no
    error to measure) but with z = 0, where any advantage does."""
    mean = gain / worlds
    if z == 0.0:
        return mean > 0.0
    if worlds < 2:
        return False
    var = max(0.0, (gain2 - worlds * mean * mean) / (worlds - 1))
    return mean > z * np.sqrt(var / worlds)


@njit(inline="always")
def search(actor, legal, nature, chance, step, outcome, progress, determinize, copy_state, choose, prior, view,
           game, spec, rollout_params, hidden, s, rules, aux, seat, params, rng, buf, scratch):
    """Search from `s`, `seat` to act; write the chosen action into buf[0] and return
    the number of rollouts played. The hooks, `game`, `spec` and `rollout_params` as
    for mcts.search."""
    width = game.action_size
    size = game.state_size
    players = rules[0]
    worlds = np.int64(params[P_WORLDS])
    which = np.int64(params[P_ROLLOUT])
    rollout_id = spec[M.S_GREEDY] if which == M.ROLLOUT_GREEDY else spec[M.S_RANDOM]
    rparams = rollout_params[which]
    cutoff = np.int64(params[P_CUTOFF])
    temp = params[P_TEMP]
    z = params[P_Z]

    world = np.empty(size, dtype=np.int32)
    state = np.empty(size, dtype=np.int32)
    # the hooks see the search's own copy through one view made once, as in
    # mcts.search: the root is only read (by copy_state), `state` stays in use in the
    # loop, so alive, while `sim` points into it
    sim = view(state)
    rows = np.empty((game.max_actions, width), dtype=np.int32)
    scratch = np.empty((game.max_actions, width), dtype=np.int32)     # the policies' own, as mcts's
    copy_state(state, s, size)
    # the seat's legal actions: what it may see of its own hand, the same in every world
    n = legal(sim, rules, aux, rows)
    if n == 1:                              # a forced move: nothing to compare
        for k in range(width):
            buf[0, k] = rows[0, k]
        return 0
    # the heuristic's choice, the tie-break: asked before the worlds, while `state` is
    # still in use below (numba frees an array at its last use, and `sim` points into it)
    action = M.heuristic(prior, spec, rollout_params, sim, rules, aux, seat, rng, buf, scratch)
    favourite = -1
    for i in range(n):
        same = True
        for k in range(width):
            if rows[i, k] != action[k]:
                same = False
        if same:
            favourite = i
            break
    stream0 = np.empty(4, dtype=np.uint64)
    stream = np.empty(4, dtype=np.uint64)
    total = np.zeros(n)                     # each action's summed reward
    got = np.zeros(n)                       # ... in this world
    gain = np.zeros(n)                      # its advantage over the heuristic's choice, summed ...
    gain2 = np.zeros(n)                     # ... and squared, world by world
    orow = np.zeros(spec[M.S_O_SIZE], dtype=np.int32)
    prog = np.zeros(game.max_players, dtype=np.float64)
    reward = np.zeros(game.max_players, dtype=np.float64)
    for w in range(worlds):
        copy_state(state, s, size)
        if hidden:
            determinize(sim, rules, aux, seat, rng)
        copy_state(world, state, size)      # the world every action of it starts from
        seed_stream(next_u64(rng), w, 0, stream0)
        for i in range(n):
            copy_state(state, world, size)
            for k in range(4):
                stream[k] = stream0[k]
            step(sim, rules, aux, rows[i], chance(sim, rules, aux, rows[i], stream))
            cut = M.rollout(actor, nature, chance, step, choose, sim, rules, aux, rollout_id, rparams, cutoff,
                            stream, buf, scratch)
            M._rewards(outcome, progress, spec, sim, rules, players, cut, temp, orow, prog, reward)
            got[i] = reward[seat]
            total[i] += got[i]
        if favourite >= 0:
            for i in range(n):
                d = got[i] - got[favourite]
                gain[i] += d
                gain2[i] += d * d

    best = 0
    for i in range(1, n):
        if total[i] > total[best]:
            best = i
    if favourite >= 0 and best != favourite and not _sure(gain[best], gain2[best], worlds, z):
        best = favourite
    for k in range(width):
        buf[0, k] = rows[best, k]
    return worlds * n
