"""Alpha-beta search through the engine contract (games/driver.py): `alphabeta`.

For perfect-information games without luck (Battle Sheep): a depth-limited minimax
search with alpha-beta pruning, iterative deepening and move ordering, scoring its
leaves with the game's `progress` hook (Battle Sheep's position evaluation,
engine.standing). A strength anchor in its own right: no random playouts, so its
decisions are those of the evaluation looked at `depth` plies deep.

Values. Every value is the searching seat's, `seat`: at a leaf,

    progress[seat] - max(progress[other seats])

and, once the game is over, WIN x (seat's share of the win - the best other seat's
share) on top of it (a share is 1 / number of winners for each winner, 0 otherwise),
so any won game outranks any standing. With 3 or 4 players the search is *paranoid*
(Sturtevant and Korf 2000): every other seat is assumed to play against the searching
seat, minimising that value, so the tree keeps alpha-beta's pruning; max-n would
have each seat maximise its own standing but prunes almost nothing. Paranoid play is
cautious, not a model of real opponents: a documented choice.

A ply is one decision of the seat `actor` names (a seat that cannot move is skipped by
the rules, so plies need not alternate); a node where `actor` is the searching seat
takes the maximum of its children, any other seat's node the minimum. Nature (Battle
Sheep's board=random build) only decides before the first seat does, so the search
never meets it; a game with luck (chance outcomes) is not for it.

Iterative deepening: depth 1, 2, ... up to `depth`, each iteration searching the
root's actions in the order of the previous iteration's values (best first), which is
where alpha-beta prunes most. Inside the tree, at nodes with two or more plies left,
the children are ordered by their own evaluation (one evaluation each, best first for
the node's seat); with one ply left they are searched in the legal order.

Budget. `nodes` caps the states the search makes (each child stepped, for ordering or
for search, counts one); 0 means no cap. An iteration that would pass the cap is
abandoned and the last complete one decides; depth 1 always completes. The cap is a
count, so a decision depends only on the state and the seat's stream, never on the
machine's speed (equal-time comparisons calibrate `nodes` to a measured time).

The chosen action. At the root every action is searched with the window (best - TIE,
+inf), so the actions that tie with the best are known exactly: the best of them if
one, one drawn uniformly from the seat's stream among the tied (in the root's order)
otherwise. When one ply ties every root action (the evaluation cannot tell them apart,
as in Battle Sheep's building phase, before any stack stands), the seat plays the
game's own heuristic (its `greedy` rollout policy) instead: searching deeper there
would only multiply the ties (hundreds of tiles a ply) to no purpose.

search/reference.py holds the plain-Python twin (the same decisions from the same
stream) and a plain minimax without pruning that the twin's values are tested against
(tests/test_alphabeta.py). The policy `alphabeta:depth=D,nodes=N` (search/__init__.py)
runs it through search/agents.py, in the search kernels of a game that passes it as its
`exact` search.
"""

import numpy as np
from numba import njit

from ..rng import rand_below
# the game's SEARCH tuple (search/wiring.py) as mcts reads it, and mcts's win shares (the same
# rewards: 1 / winners to each winner)
from .mcts import S_O_SIZE, _rewards, heuristic

P_DEPTH, P_NODES = range(2)
MAX_DEPTH = 32
WIN = 1000.0            # a won game's worth: more than any standing (a score is at most the pasture's 96 hexes)
TIE = 1e-9              # values closer than this are the same (they are sums of 1/32s, integers and WIN shares)
INF = 1e300


@njit(inline="always")
def value(outcome, progress, spec, sim, rules, seat, over, orow, prog, share):
    """The searching seat's value of `sim` (module docstring); `over` when the game is.
    `share` is scratch for each seat's share of the win."""
    players = rules[0]
    progress(sim, rules, prog)
    rival = -INF
    for q in range(players):
        if q != seat and prog[q] > rival:
            rival = prog[q]
    v = prog[seat] - rival
    if over:
        _rewards(outcome, progress, spec, sim, rules, players, False, 0.0, orow, prog, share)
        other = 0.0
        for q in range(players):
            if q != seat:
                other = max(other, share[q])
        v += WIN * (share[seat] - other)
    return v


@njit(inline="always")
def _tied(values, n, best):
    """How many of values[:n] tie with the best."""
    ties = 0
    for m in range(n):
        ties += values[m] >= best - TIE
    return ties


@njit(inline="always")
def _order(actor, step, outcome, progress, copy_state, view, size, spec, rules, aux, seat, states, moves,
           k, n, maximise, order, vals, orow, prog, share):
    """order[k, :n]: the children of the node at ply k, best first for its seat by
    their own evaluation (a stable sort, so ties keep the legal order)."""
    for m in range(n):
        copy_state(states[k + 1], states[k], size)
        sim = view(states[k + 1])
        step(sim, rules, aux, moves[k, m], -1)
        v = value(outcome, progress, spec, sim, rules, seat, actor(sim, rules) == -1, orow, prog, share)
        vals[m] = -v if maximise else v
    ranked = np.argsort(vals[:n], kind="mergesort")
    for m in range(n):
        order[k, m] = ranked[m]


@njit(inline="always")
def _subtree(actor, legal, step, outcome, progress, copy_state, view, game, spec, rules, aux, seat, states, moves,
             order, count, nexti, lo, hi, best, maximise, vals, orow, prog, share, plies, alpha, beta, nodes, budget):
    """The value of the position in states[1] (a root action made), searched `plies`
    deep below it, within (alpha, beta): alpha-beta without recursion, one row of the
    arrays per ply. Returns (value, nodes); value is NaN when the budget ran out."""
    size = game.state_size
    k = 1
    lo[1] = alpha
    hi[1] = beta
    entering = True
    result = 0.0
    while True:
        if entering:
            sim = view(states[k])
            who = actor(sim, rules)
            if who < 0 or k > plies:
                result = value(outcome, progress, spec, sim, rules, seat, who == -1, orow, prog, share)
                k -= 1
                if k == 0:
                    return result, nodes
                entering = False
            else:
                n = legal(sim, rules, aux, moves[k])
                count[k] = n
                nexti[k] = 0
                maximise[k] = who == seat
                best[k] = -INF if maximise[k] else INF
                if plies - k >= 1:
                    _order(actor, step, outcome, progress, copy_state, view, size, spec, rules, aux, seat,
                           states, moves, k, n, maximise[k], order, vals, orow, prog, share)
                    nodes += n
                else:
                    for m in range(n):
                        order[k, m] = m
        if not entering:
            # the child of ply k has returned `result`
            if maximise[k]:
                if result > best[k]:
                    best[k] = result
                if best[k] > lo[k]:
                    lo[k] = best[k]
            else:
                if result < best[k]:
                    best[k] = result
                if best[k] < hi[k]:
                    hi[k] = best[k]
            nexti[k] += 1
        entering = False
        if nexti[k] < count[k] and lo[k] < hi[k]:
            if budget > 0 and nodes >= budget:
                return np.nan, nodes
            m = order[k, nexti[k]]
            copy_state(states[k + 1], states[k], size)
            step(view(states[k + 1]), rules, aux, moves[k, m], -1)
            nodes += 1
            lo[k + 1] = lo[k]
            hi[k + 1] = hi[k]
            k += 1
            entering = True
        else:
            result = best[k]
            k -= 1
            if k == 0:
                return result, nodes


@njit(inline="always")
def search(actor, legal, step, outcome, progress, copy_state, prior, view, game, spec, rollout_params, s, rules, aux,
           seat, params, rng, buf, scratch):
    """Search from `s`, `seat` to act; write the chosen action into buf[0] and return
    the number of states made. `prior` plays the game's heuristic where the evaluation
    cannot tell actions apart; it and `copy_state`, `view`, `game`, `spec` and
    `rollout_params` as for mcts.search."""
    width = game.action_size
    size = game.state_size
    depth = min(np.int64(params[P_DEPTH]), MAX_DEPTH)
    budget = np.int64(params[P_NODES])
    top = depth + 2
    states = np.empty((top, size), dtype=np.int32)
    moves = np.empty((top, game.max_actions, width), dtype=np.int32)
    order = np.empty((top, game.max_actions), dtype=np.int64)
    count = np.zeros(top, dtype=np.int64)
    nexti = np.zeros(top, dtype=np.int64)
    lo = np.zeros(top)
    hi = np.zeros(top)
    best = np.zeros(top)
    maximise = np.zeros(top, dtype=np.bool_)
    vals = np.empty(game.max_actions)
    orow = np.zeros(spec[S_O_SIZE], dtype=np.int32)
    prog = np.zeros(game.max_players)
    share = np.zeros(game.max_players)

    copy_state(states[0], s, size)
    n = legal(view(states[0]), rules, aux, moves[0])
    if n == 1:                              # a forced move: nothing to search
        for k in range(width):
            buf[0, k] = moves[0, 0, k]
        return 0
    root = np.arange(n)                     # the root's actions, in search order
    value_of = np.empty(n)                  # this iteration's values, by action
    decided = np.empty(n)                   # the last complete iteration's
    nodes = np.int64(0)
    for d in range(1, depth + 1):
        best_value = -INF
        abandoned = False
        for r in range(n):
            m = root[r]
            copy_state(states[1], states[0], size)
            step(view(states[1]), rules, aux, moves[0, m], -1)
            nodes += 1
            v, nodes = _subtree(actor, legal, step, outcome, progress, copy_state, view, game, spec, rules, aux,
                                seat, states, moves, order, count, nexti, lo, hi, best, maximise, vals, orow, prog,
                                share, d - 1, best_value - TIE, INF, nodes, budget if d > 1 else 0)
            if np.isnan(v):
                abandoned = True
                break
            value_of[m] = v
            if v > best_value:
                best_value = v
        if abandoned:
            break
        for m in range(n):
            decided[m] = value_of[m]
        # the next iteration searches the best first (stable: ties keep this order)
        for r in range(n):
            vals[r] = -value_of[root[r]]
        ranked = np.argsort(vals[:n], kind="mergesort")
        root = root[ranked]
        if d == 1 and n > 1 and _tied(decided, n, best_value) == n:
            # one ply cannot tell the actions apart (Battle Sheep's building, before any
            # stack stands): a deeper search would only multiply the ties. The game's
            # heuristic plays instead.
            action = heuristic(prior, spec, rollout_params, s, rules, aux, seat, rng, buf, scratch)
            for k in range(width):
                buf[0, k] = action[k]
            return nodes
        if budget > 0 and nodes >= budget:
            break

    # the tied best, in the root's order
    best_value = -INF
    for m in range(n):
        best_value = max(best_value, decided[m])
    ties = _tied(decided, n, best_value)
    pick = rand_below(rng, ties) if ties > 1 else 0
    for r in range(n):
        m = root[r]
        if decided[m] >= best_value - TIE:
            if pick == 0:
                for k in range(width):
                    buf[0, k] = moves[0, m, k]
                return nodes
            pick -= 1
    return nodes
