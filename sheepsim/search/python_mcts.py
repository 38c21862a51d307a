"""UCT in plain Python over a game's pure-Python reference engine: what a designer who
wrote the search in Python, over a Python engine, would get. `sheepsim bench` times it
beside the kernel agent at the same budget (search/bench.py).

The algorithm is the kernel's (mcts.py) for a perfect-information game: from the root,
descend by UCT (win rate + c sqrt(ln parent visits / visits)) while every legal action
has a child; expand one untried action, chosen uniformly; a chance outcome (a die face)
leads to its own child, as the kernel's chance nodes; play a uniformly random rollout
to the end; back up each seat's win share (max-n: each node is valued from the view of
the seat that chose it). The action returned is the most visited root child. The tree
is Python objects without a size cap (the kernel's node pool has one), and its random
choices come from `random.Random`, so it does not choose draw for draw as the kernel
does: search/reference.py is the twin that does.

A hidden-information game's Engine gives a `determinize` (the unseen cards re-dealt
from what the searching seat may know): each iteration then starts from a fresh
re-deal, and a node's children are the actions legal in the iterations that reached
it; UCT reads the node's own visits, not the availability counts the kernel's
information-set search keeps (mcts.py), which changes the counting but not the work.

A game offers it through GameSpec.reference_search, an `Engine` over its reference
module: Battle Sheep and Pig; Hiboufou, whose hidden cards are the other hands and the
pile, with nothing of them ever seen; and Bye-Bye Black Sheep, whose reference records
what each seat knows of the others' hands (the cards seen going in and out, the Mole's
look) and re-deals the rest (reference.determinize).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any, Callable


@dataclass(frozen=True)
class Engine:
    """A reference engine seen by the search: plain functions of a reference game."""

    actor: Callable[[Any], int]                       # the seat to decide; -1 when over
    legal: Callable[[Any], list]                      # the legal actions, hashable
    apply: Callable[[Any, Any, random.Random], tuple]  # (game after, chance outcome or None)
    shares: Callable[[Any], list]                     # each seat's win share of a finished game
    # hidden information: (game, seat, rng) -> the game with what `seat` cannot see re-dealt
    determinize: Callable[[Any, int, random.Random], Any] | None = None


class _Decision:
    __slots__ = ("visits", "actions")

    def __init__(self):
        self.visits = 0.0
        self.actions: dict = {}       # action -> _Action


class _Action:
    __slots__ = ("visits", "wins", "outcomes")

    def __init__(self):
        self.visits = self.wins = 0.0
        self.outcomes: dict = {}      # chance outcome (None without chance) -> _Decision


def search(engine: Engine, game, iters: int, c: float, rng: random.Random):
    """The action UCT chooses at `game` after `iters` iterations (exploration `c`)."""
    root = _Decision()
    me = engine.actor(game)             # the searching seat: what it sees is kept at a re-deal
    for _ in range(iters):
        g = engine.determinize(game, me, rng) if engine.determinize else game
        node, path, passed = root, [], [root]
        while True:
            seat = engine.actor(g)
            if seat < 0:
                break
            actions = engine.legal(g)
            untried = [a for a in actions if a not in node.actions]
            if untried:
                a = untried[rng.randrange(len(untried))]
                g, outcome = engine.apply(g, a, rng)
                node.actions[a] = child = _Action()
                child.outcomes[outcome] = _Decision()
                path.append((child, seat))
                break
            log_n = math.log(node.visits)
            a = max(actions, key=lambda a: _ucb(node.actions[a], log_n, c))
            child = node.actions[a]
            path.append((child, seat))
            g, outcome = engine.apply(g, a, rng)
            node = child.outcomes.get(outcome)
            if node is None:             # a new chance outcome: a new leaf, as expansion
                child.outcomes[outcome] = _Decision()
                break
            passed.append(node)
        while engine.actor(g) >= 0:
            actions = engine.legal(g)
            g, _ = engine.apply(g, actions[rng.randrange(len(actions))], rng)
        shares = engine.shares(g)
        for node in passed:
            node.visits += 1.0
        for child, seat in path:
            child.visits += 1.0
            child.wins += shares[seat]
    return max(root.actions, key=lambda a: root.actions[a].visits)


def _ucb(child: _Action, log_n: float, c: float) -> float:
    return child.wins / child.visits + c * math.sqrt(log_n / child.visits)
