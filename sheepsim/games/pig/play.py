"""Pig's engine as the driver plays it (games/kernels.py writes its kernels).

Streams of game g (rng.py), tied to seats and to sources of chance, never to policies
(so that seat rotation keeps common random numbers aligned): stream 0 is unused;
LUCK + s = 1 + s is seat s's die (the k-th roll of seat s is its k-th draw);
POLICY + s = 3 + s is seat s's policy (the random policy's coin). Dice and policy
coins are separate streams so that a randomised policy does not shift the dice: two
threshold policies in the same seat see the same dice for the rolls they both make.
"""

import sys

from .. import fast
from ..driver import Shape
from ..kernels import Engine, load
from . import engine as E
from . import policies as P

TITLE = "Pig"
LUCK = 1
POLICY = LUCK + E.MAX_PLAYERS

ENGINE = Engine(
    E.start, E.actor, E.legal, E.nature, E.chance, E.step, E.outcome, E.progress, P.choose,
    no_user_policies=P.no_user_policies, last_builtin=P.LAST_BUILTIN, view=fast.array,
    shape=Shape(E.STATE_SIZE, E.MAX_ACTIONS, E.ACTION_SIZE, LUCK, POLICY, POLICY + E.MAX_PLAYERS, E.O_ROTATION,
                E.MAX_PLAYERS, E.O_COWINNERS),
    o_size=E.O_SIZE, census=E.census,
    # the search's rollouts: random, and "greedy" = hold at 20 (hold's t = 20); the die
    # is luck, so no alpha-beta
    rollout_random=P.RANDOM, rollout_greedy=P.HOLD, rollout_params=((), (20.0,)), choose_rollout=P.choose_rollout,
    stop=(P.stop_cell, P.stop_amount, P.stop_act, P.LEARNED),
)

# the cached kernels, written from ENGINE by the one template of every turn game
KERNELS = load(sys.modules[__name__])
