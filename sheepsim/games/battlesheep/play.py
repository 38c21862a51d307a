"""Battle Sheep's engine as the driver plays it (games/kernels.py writes its kernels).

Streams of game g (rng.py): stream 0 is the board (option board=random, the engine's
`nature`); POLICY + s = 1 + s is seat s's policy (Battle Sheep has no other luck:
LUCK = POLICY). Streams are tied to seats, not to policies, so rotating policies
over seats keeps common random numbers aligned. `aux` is the start state
(game.initial_state).
"""

import sys

from .. import fast
from ..driver import Shape
from ..kernels import Engine, load
from . import engine as E
from . import policies as P

TITLE = "Battle Sheep"
POLICY = LUCK = 1

ENGINE = Engine(
    E.start, E.actor, E.legal, E.nature, E.chance, E.step, E.outcome, E.progress, P.choose,
    no_user_policies=P.no_user_policies, last_builtin=P.LAST_BUILTIN, view=fast.pointer,
    shape=Shape(E.STATE_SIZE, E.MAX_ACTIONS, E.ACTION_SIZE, LUCK, POLICY, POLICY + E.MAX_PLAYERS, E.O_ROTATION,
                E.MAX_PLAYERS, E.O_COWINNERS),
    o_size=E.O_SIZE, census=E.census,
    # the search's rollouts: random, and "greedy" = the greedy policy at its defaults
    # (epsilon 0, opponent 1); perfect information without luck: alpha-beta plays
    rollout_random=P.RANDOM, rollout_greedy=P.GREEDY, rollout_params=((), (0.0, 1.0)), exact=True,
)

# the cached kernels, written from ENGINE by the one template of every turn game
KERNELS = load(sys.modules[__name__])
