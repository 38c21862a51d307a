"""The search policies in plain Python: the readable twins of mcts.search, pimc.search
and alphabeta.search.

The same algorithm as mcts.py, step by step and draw by draw, with the tree as Python
objects: a dict of children per node instead of the node pool's linked lists. It calls
the game's hooks and the rng's functions from Python, so with the same stream it must
choose the same action as the kernel at every decision (tests/test_search.py checks
so along whole games), and `sheepsim bench` times it beside the kernel.
"""

from __future__ import annotations

import math

import numpy as np

from ..rng import next_u64, rand_below, seed_stream
from . import alphabeta as AB
from . import mcts as M
from . import pimc as P


class _Action:
    """An action node: the actor's statistics, and the outcome nodes by chance outcome."""

    __slots__ = ("key", "hint", "visits", "avail", "wins", "outcomes", "order")

    def __init__(self, key, hint, order):
        self.key, self.hint, self.order = key, hint, order
        self.visits = self.wins = 0.0
        self.avail = 1.0
        self.outcomes: dict[int, list] = {}


def search(hooks, game, spec, rollout_params, hidden, s, rules, aux, seat, params, rng):
    """The action mcts.search chooses (a tuple), with `hooks` the game's Engine record
    (games/kernels.py: its hooks and shape) and its built-in dispatcher: (engine,
    choose); rng is advanced as the kernel's is."""
    E, choose = hooks
    width = game.action_size
    players = int(rules[0])
    iters = int(params[M.P_ITERS])
    c_explore = float(params[M.P_C])
    which = int(params[M.P_ROLLOUT])
    rollout_id = spec[M.S_GREEDY] if which == M.ROLLOUT_GREEDY else spec[M.S_RANDOM]
    rparams = rollout_params[which]
    cutoff = int(params[M.P_CUTOFF])
    cap = 2 * iters + 1
    if params[M.P_NODES] > 0:
        cap = max(3, min(cap, int(params[M.P_NODES])))
    root: list[_Action] = []       # a decision node: its action nodes, newest first
    used = 1
    lbuf = np.zeros((game.max_actions, width), dtype=np.int32)
    buf = np.zeros_like(lbuf)
    scratch = np.zeros_like(lbuf)
    determinize = E.determinize
    for _ in range(iters):
        sim = s.copy()
        if hidden:
            determinize(sim, rules, aux, seat, rng)
        node = root
        path = []
        while True:
            who = E.actor(sim, rules)
            if who < 0:
                break
            n = E.legal(sim, rules, aux, lbuf)
            rows = [tuple(int(x) for x in lbuf[i]) for i in range(n)]
            child_at = [None] * n
            for child in node:
                i = child.hint if child.hint < n and rows[child.hint] == child.key else (
                    rows.index(child.key) if child.key in rows else -1)
                if i >= 0:
                    child_at[i] = child
                    child.hint = i
                    child.avail += 1.0
            untried = [i for i in range(n) if child_at[i] is None]
            if untried and used + 2 <= cap:
                i = -1
                if int(params[M.P_EXPAND]) == M.EXPAND_GREEDY and len(untried) == n:
                    action = choose(spec[M.S_GREEDY], sim, rules, aux, who, rollout_params[M.ROLLOUT_GREEDY], rng,
                                    buf, scratch)
                    action = tuple(int(x) for x in (action if isinstance(action, tuple) else (action,)))
                    i = rows.index(action) if action in rows else -1
                if i < 0:
                    i = untried[rand_below(rng, len(untried))]
                a = _Action(rows[i], i, used)
                used += 2
                node.insert(0, a)
                path.append((a, who))
                # actions as tuples of ints, as every other Python caller passes them: an
                # array row would compile the hooks once more, for that type
                c = E.chance(sim, rules, aux, rows[i], rng)
                E.step(sim, rules, aux, rows[i], c)
                a.outcomes[c] = []
                break
            best, best_value = -1, -1.0
            for i, child in enumerate(child_at):
                if child is not None:
                    value = child.wins / child.visits + c_explore * math.sqrt(math.log(child.avail) / child.visits)
                    if value > best_value:
                        best, best_value = i, value
            if best < 0:
                break
            a = child_at[best]
            path.append((a, who))
            c = E.chance(sim, rules, aux, rows[best], rng)
            E.step(sim, rules, aux, rows[best], c)
            if c not in a.outcomes:
                if used + 1 <= cap:
                    used += 1
                    a.outcomes[c] = []
                break
            node = a.outcomes[c]
        t, cut = 0, False
        while True:
            who = E.actor(sim, rules)
            if who == -1:
                break
            if cutoff > 0 and t >= cutoff:
                cut = True
                break
            if who == M.NATURE:
                action = E.nature(sim, rules, aux, rng)
            else:
                action = choose(rollout_id, sim, rules, aux, who, rparams, rng, buf, scratch)
            action = action if isinstance(action, tuple) else (action,)
            E.step(sim, rules, aux, action, E.chance(sim, rules, aux, action, rng))
            t += 1
        reward = _rewards(E, spec, sim, rules, players, cut, float(params[M.P_TEMP]))
        for a, who in path:
            a.visits += 1.0
            a.wins += reward[who]
    best = None
    for child in root:      # newest first, as the kernel's list
        if best is None or child.visits > best.visits or (child.visits == best.visits and child.wins > best.wins):
            best = child
    return best.key


def _rewards(E, spec, sim, rules, players, cut, temp=0.0):
    if cut:
        prog = np.zeros(E.shape.max_players)
        E.progress(sim, rules, prog)
        top = max(prog[:players])
        if temp > 0:
            soft = [math.exp((prog[q] - top) / temp) for q in range(players)]
            return [x / sum(soft) for x in soft]
        mask = sum(1 << q for q in range(players) if prog[q] == top)
    else:
        row = np.zeros(spec[M.S_O_SIZE], dtype=np.int32)
        E.outcome(sim, rules, row)
        mask = int(row[spec[M.S_O_COWINNERS]])
    winners = bin(mask).count("1")
    return [1.0 / players if winners == 0 else (1.0 / winners if mask >> q & 1 else 0.0) for q in range(players)]


# --- pimc (search/pimc.py) ---------------------------------------------------------------

def pimc(hooks, game, spec, rollout_params, hidden, s, rules, aux, seat, params, rng):
    """The action pimc.search chooses (a tuple): the heuristic's choice asked first, then
    every world re-dealt from `rng` and every action of it played out from a copy of the
    world's own stream; the best action replaces the heuristic's only when the paired
    test is sure. rng advanced as the kernel's is."""
    E, choose = hooks
    buf = np.zeros((game.max_actions, game.action_size), dtype=np.int32)
    scratch = np.zeros_like(buf)
    n = E.legal(s.copy(), rules, aux, buf)
    actions = [tuple(int(x) for x in buf[i]) for i in range(n)]
    if n == 1:
        return actions[0]
    h = choose(spec[M.S_GREEDY], s.copy(), rules, aux, seat, rollout_params[M.ROLLOUT_GREEDY], rng, buf, scratch)
    h = tuple(int(x) for x in np.atleast_1d(h))
    favourite = actions.index(h) if h in actions else -1
    which = int(params[P.P_ROLLOUT])
    rollout_id = spec[M.S_GREEDY] if which == M.ROLLOUT_GREEDY else spec[M.S_RANDOM]
    cutoff = int(params[P.P_CUTOFF])
    worlds = int(params[P.P_WORLDS])
    got = np.zeros((worlds, n))             # each world's reward of each action
    for w in range(worlds):
        world = s.copy()
        if hidden:
            E.determinize(world, rules, aux, seat, rng)
        stream0 = np.empty(4, dtype=np.uint64)
        seed_stream(np.uint64(next_u64(rng)), np.int64(w), np.int64(0), stream0)
        for i, action in enumerate(actions):
            sim, stream = world.copy(), stream0.copy()
            E.step(sim, rules, aux, action, E.chance(sim, rules, aux, action, stream))
            t, cut = 0, False
            while (who := E.actor(sim, rules)) != -1:
                if cutoff > 0 and t >= cutoff:
                    cut = True
                    break
                a = E.nature(sim, rules, aux, stream) if who == M.NATURE else \
                    choose(rollout_id, sim, rules, aux, who, rollout_params[which], stream, buf, scratch)
                a = a if isinstance(a, tuple) else (a,)
                E.step(sim, rules, aux, a, E.chance(sim, rules, aux, a, stream))
                t += 1
            got[w, i] = _rewards(E, spec, sim, rules, int(rules[0]), cut, float(params[P.P_TEMP]))[seat]
    totals = [0.0] * n                      # summed in the kernel's order, so equal to the bit
    for w in range(worlds):
        for i in range(n):
            totals[i] += got[w, i]
    best = max(range(n), key=lambda i: (totals[i], -i))
    if favourite < 0 or best == favourite:
        return actions[best]
    gain = gain2 = 0.0                      # the paired advantage, world by world
    for w in range(worlds):
        d = got[w, best] - got[w, favourite]
        gain += d
        gain2 += d * d
    mean = gain / worlds
    z = float(params[P.P_Z])
    if z == 0:
        sure = mean > 0
    else:
        sure = worlds >= 2 and mean > z * math.sqrt(max(0.0, (gain2 - worlds * mean * mean) / (worlds - 1)) / worlds)
    return actions[best] if sure else actions[favourite]


# --- alphabeta (search/alphabeta.py) -------------------------------------------------

class _OutOfNodes(Exception):
    """The node budget ran out inside an iteration: the last complete one decides."""


def alphabeta(hooks, game, spec, rollout_params, s, rules, aux, seat, params, rng):
    """The action alphabeta.search chooses (a tuple), recursively and with plain lists:
    the same iterations, orders, node counts and draws as the kernel."""
    E, choose = hooks
    root_actions, decided, root, _, flat = alphabeta_root(E, game, spec, s, rules, aux, seat, params)
    top = max(decided)
    tied = [m for m in root if decided[m] >= top - AB.TIE]
    if flat:
        buf = np.zeros((game.max_actions, game.action_size), dtype=np.int32)
        action = choose(spec[M.S_GREEDY], s.copy(), rules, aux, seat, rollout_params[1], rng, buf, buf.copy())
        return tuple(int(x) for x in np.atleast_1d(action))
    return root_actions[tied[rand_below(rng, len(tied)) if len(tied) > 1 else 0]]


def alphabeta_root(E, game, spec, s, rules, aux, seat, params):
    """(the root's actions, each one's value from the last complete iteration, the
    root's order after it, states made, whether one ply tied them all): values exact
    for the best and every action tied with it, upper bounds for the others (fail-soft
    alpha-beta)."""
    depth = min(int(params[AB.P_DEPTH]), AB.MAX_DEPTH)
    budget = int(params[AB.P_NODES])
    buf = np.zeros((game.max_actions, game.action_size), dtype=np.int32)
    nodes = 0

    def legal(state):
        n = E.legal(state, rules, aux, buf)
        return [tuple(int(x) for x in buf[i]) for i in range(n)]

    def child(state, action):
        nonlocal nodes
        nodes += 1
        out = state.copy()
        E.step(out, rules, aux, action, -1)
        return out

    def sub(state, plies_left, alpha, beta, check):
        who = E.actor(state, rules)
        if who < 0 or plies_left == 0:
            return ab_value(E, spec, state, rules, seat)
        actions = legal(state)
        maximise = who == seat
        if plies_left >= 2:
            keys = []
            for a in actions:
                v = ab_value(E, spec, child(state, a), rules, seat)
                keys.append(-v if maximise else v)
            order = list(np.argsort(np.array(keys), kind="mergesort"))
        else:
            order = range(len(actions))
        best = -math.inf if maximise else math.inf
        for m in order:
            if not alpha < beta:
                break
            if check and budget > 0 and nodes >= budget:
                raise _OutOfNodes
            r = sub(child(state, actions[m]), plies_left - 1, alpha, beta, check)
            if maximise:
                best = max(best, r)
                alpha = max(alpha, best)
            else:
                best = min(best, r)
                beta = min(beta, best)
        return best

    root_actions = legal(s)
    n = len(root_actions)
    if n == 1:
        return root_actions, [0.0], [0], 0, False
    root = list(range(n))
    decided = None
    for d in range(1, depth + 1):
        values = [0.0] * n
        best_value = -math.inf
        try:
            for m in root:
                v = sub(child(s, root_actions[m]), d - 1, best_value - AB.TIE, math.inf, d > 1)
                values[m] = v
                best_value = max(best_value, v)
        except _OutOfNodes:
            break
        decided = values
        root = [root[i] for i in np.argsort(np.array([-values[m] for m in root]), kind="mergesort")]
        if d == 1 and n > 1 and all(v >= best_value - AB.TIE for v in values):
            return root_actions, decided, root, nodes, True
        if budget > 0 and nodes >= budget:
            break
    return root_actions, decided, root, nodes, False


def ab_value(E, spec, state, rules, seat):
    """alphabeta.value: the searching seat's standing less the best other's, and WIN x
    the difference of win shares once the game is over."""
    players = int(rules[0])
    prog = np.zeros(E.shape.max_players)
    E.progress(state, rules, prog)
    v = prog[seat] - max(prog[q] for q in range(players) if q != seat)
    if E.actor(state, rules) == -1:
        share = _rewards(E, spec, state, rules, players, False)
        v += AB.WIN * (share[seat] - max(share[q] for q in range(players) if q != seat))
    return v


def minimax(E, spec, state, rules, aux, seat, plies, buf):
    """Each root action's value searched `plies` deep (the root's ply included) with
    no pruning and no order: the paranoid minimax alphabeta must agree with."""
    def sub(st, left):
        who = E.actor(st, rules)
        if who < 0 or left == 0:
            return ab_value(E, spec, st, rules, seat)
        n = E.legal(st, rules, aux, buf)
        results = []
        for a in [tuple(int(x) for x in buf[i]) for i in range(n)]:
            c = st.copy()
            E.step(c, rules, aux, a, -1)
            results.append(sub(c, left - 1))
        return max(results) if who == seat else min(results)
    n = E.legal(state, rules, aux, buf)
    out = {}
    for a in [tuple(int(x) for x in buf[i]) for i in range(n)]:
        c = state.copy()
        E.step(c, rules, aux, a, -1)
        out[a] = sub(c, plies - 1)
    return out
