"""The search policies in plain Python: the readable twin of mcts.search.

The same algorithm as mcts.py, step by step and draw by draw, with the tree as Python
objects: a dict of children per node instead of the node pool's linked lists. It calls
the game's hooks and the rng's functions from Python, so with the same stream it must
choose the same action as the kernel at every decision (tests/test_search.py checks
so along whole games), and `sheepsim bench` times it beside the kernel.
"""

from __future__ import annotations

import math

import numpy as np

from ..rng import rand_below
from . import mcts as M


class _Action:
    """An action node: the actor's statistics, and the outcome nodes by chance outcome."""

    __slots__ = ("key", "hint", "visits", "avail", "wins", "outcomes", "order")

    def __init__(self, key, hint, order):
        self.key, self.hint, self.order = key, hint, order
        self.visits = self.wins = 0.0
        self.avail = 1.0
        self.outcomes: dict[int, list] = {}


def search(hooks, game, spec, rollout_params, hidden, s, rules, aux, seat, params, rng):
    """The action mcts.search chooses (a tuple), with `hooks` the engine module and the
    game's built-in dispatcher: (engine, choose); rng is advanced as the kernel's is."""
    E, choose = hooks
    width = game[2]
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
    lbuf = np.zeros((game[1], width), dtype=np.int32)
    buf = np.zeros_like(lbuf)
    scratch = np.zeros_like(lbuf)
    determinize = getattr(E, "determinize", None)
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
        reward = _rewards(E, spec, sim, rules, players, cut)
        for a, who in path:
            a.visits += 1.0
            a.wins += reward[who]
    best = None
    for child in root:      # newest first, as the kernel's list
        if best is None or child.visits > best.visits or (child.visits == best.visits and child.wins > best.wins):
            best = child
    return best.key


def _rewards(E, spec, sim, rules, players, cut):
    if cut:
        prog = np.zeros(E.MAX_PLAYERS)
        E.progress(sim, rules, prog)
        top = max(prog[:players])
        mask = sum(1 << q for q in range(players) if prog[q] == top)
    else:
        row = np.zeros(spec[M.S_O_SIZE], dtype=np.int32)
        E.outcome(sim, rules, row)
        mask = int(row[spec[M.S_O_COWINNERS]])
    winners = bin(mask).count("1")
    return [1.0 / players if winners == 0 else (1.0 / winners if mask >> q & 1 else 0.0) for q in range(players)]
