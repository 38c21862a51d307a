"""Search agents for every turn-based game, through the engine contract (agents.py).

`register(game, title, hidden, greedy, luck)` registers `mcts`, `ismcts`, `pimc` and
`alphabeta` for a game (`pimc` fits every game): the ones that fit it are playable, the others are refused with a one-line
error (a search that saw hidden cards would cheat; a perfect-information game has
nothing to determinize; alpha-beta searches neither hidden cards nor luck).
"""

from __future__ import annotations

from ..policies import register_policy
from . import agents as A
from . import alphabeta as AB
from . import wiring  # noqa: F401  (registers the kernels of kind "search")

MAX_ITERS = 1_000_000       # the node pool of one decision: 2 x iters + 1 nodes, under 150 MB

PARAMS = {
    "iters": (1000.0, "iterations per decision (the strength knob)", 1.0, float(MAX_ITERS)),
    "c": (0.7, "UCB1 exploration constant (rewards are win shares in 0..1)", 0.0, 100.0),
    "rollout": (0.0, "the policy that plays out each iteration's game: random, or greedy (the game's heuristic)"),
    "cutoff": (0.0, "stop each rollout after this many decisions and score it by the game's progress (0: play "
                    "to the end)", 0.0, 1e9),
    "nodes": (0.0, "the node pool's size (0: 2 x iters + 1, which never fills; otherwise at least 3); a full "
                   "pool stops the tree growing", 0.0, 1e9),
    "temp": (0.0, "a cut-off's score: 0, the leaders by progress share the win; above 0, soft shares "
                  "exp(progress / temp), so a wide lead counts more than a narrow one", 0.0, 1e6),
    "expand": (0.0, "which untried action a node expands first: random, or greedy (the game's heuristic's choice, "
                    "then random)"),
}
INTEGERS = ("iters", "cutoff", "nodes")
CHOICES = {"rollout": ("random", "greedy"), "expand": ("random", "greedy")}
MIN_NODES = 3               # a root, one action and its outcome: the kernel's smallest pool


def check(values: dict[str, float]) -> str:
    """`nodes` is 0 or at least MIN_NODES (the kernel would raise 1 and 2 silently)."""
    nodes = values["nodes"]
    if 0 < nodes < MIN_NODES:
        return f"nodes={nodes:g} is too small; allowed: 0 (2 x iters + 1) or an integer from {MIN_NODES}"
    return ""


PIMC_PARAMS = {
    "worlds": (200.0, "worlds sampled a decision, each a re-deal of the unseen cards and one stream of luck, "
                      "every legal action played out in each (the strength knob)", 1.0, float(MAX_ITERS)),
    "rollout": (1.0, "the policy that plays each world out: random, or greedy (the game's heuristic)"),
    "cutoff": PARAMS["cutoff"],
    "temp": PARAMS["temp"],
    "z": (2.0, "how sure a departure from the heuristic must be: another action replaces the heuristic's choice "
               "only when its advantage, paired world by world, is above z standard errors (0: whenever it scores "
               "higher)", 0.0, 10.0),
}

AB_PARAMS = {
    "depth": (3.0, "plies searched, deepening one at a time (the strength knob)", 1.0, float(AB.MAX_DEPTH)),
    "nodes": (0.0, "stop deepening once this many states were made (0: no cap); the deepest complete "
                   "search decides", 0.0, 1e12),
}


def register(game: str, title: str, hidden: bool, greedy: str, luck: bool = False) -> None:
    """Register the search agents for `game`; `greedy` says what rollout=greedy (and
    alphabeta's tie-break) plays; `luck` whether chance meets the game's decisions."""
    common = dict(params=PARAMS, integers=INTEGERS, choices=CHOICES, check=check, kind="search")
    what = (f"every iteration plays on with the rollout policy (random, or greedy: {greedy}) to the end, or to "
            f"the cut-off scored by the game's progress, max-n "
            f"backups (each seat maximises its own win share), chance outcomes as chance nodes; "
            f"plays the most visited action")
    register_policy(game, "mcts", policy_id=A.MCTS, **common,
                    doc=f"Monte Carlo tree search (UCT) over the real state: {what}",
                    refuse=(f"{title} hides cards: mcts would see them; use ismcts (information-set search over "
                            f"what the seat may know)" if hidden else ""))(A.decide)
    register_policy(game, "ismcts", policy_id=A.ISMCTS, **common,
                    doc=f"information-set MCTS (single observer): each iteration re-deals what the seat cannot "
                        f"see (determinize), one tree over its information set; {what}",
                    refuse="" if hidden else (f"{title} has no hidden information (no determinize hook): "
                                              f"ismcts is for hidden-information games; use mcts"))(A.decide)
    register_policy(game, "pimc", policy_id=A.PIMC, kind="search", params=PIMC_PARAMS, integers=("worlds", "cutoff"),
                    choices={"rollout": CHOICES["rollout"]},
                    doc=f"determinized flat Monte Carlo on common random numbers: in each of `worlds` worlds "
                        f"(the cards the seat cannot see re-dealt, one stream of luck) every legal action is played "
                        f"out by the rollout policy (random, or greedy: {greedy}; to the end, or to the cut-off "
                        f"scored by the game's progress), all on the same deal, draws and rollout stream; keeps "
                        f"the choice of {greedy} unless the action with the highest win share beats it surely (its "
                        f"advantage, paired world by world, above z standard errors)"
                        + ("" if hidden else " (nothing is hidden: one real state, a world is a stream of luck)"))(
        A.decide)
    register_policy(game, "alphabeta", policy_id=A.ALPHABETA, kind="search", params=AB_PARAMS, integers=("depth", "nodes"),
                    doc=f"alpha-beta search on the game's position evaluation (its progress hook): iterative "
                        f"deepening to `depth` plies with move ordering, paranoid with 3 or 4 players (every "
                        f"other seat plays against the searcher), ties at the root drawn at random; where one "
                        f"ply cannot tell the actions apart it plays {greedy}",
                    refuse=(f"{title} hides cards: alphabeta would see them; use ismcts" if hidden else
                            f"{title} has luck in its decisions: alphabeta searches without chance; use mcts"
                            if luck else ""))(A.decide)
