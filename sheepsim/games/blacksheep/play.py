"""Bye-Bye Black Sheep's engine as the driver plays it: its Engine record
(games/kernels.py), from which the one template of every turn game writes its cached
kernels (KERNELS). The sizes and random streams are the engine's (engine.SHAPE)."""

import sys

from .. import fast
from ..kernels import Engine, load
from . import distill, engine as E, policies as P

ENGINE = Engine(
    E.start, E.actor, E.legal, E.nature, E.chance, E.step, E.outcome, E.progress, P.choose,
    no_user_policies=P.no_user_policies, last_builtin=P.LAST_BUILTIN, view=fast.pointer, shape=E.SHAPE,
    o_size=E.O_SIZE, census=E.census,
    # the search's rollouts: random, and "greedy" = the strongest fast policy, `distilled`
    # at its shipped weights (turn_optimal's stop decisions at threshold's speed); hidden
    # cards, re-dealt by determinize
    rollout_random=P.RANDOM, rollout_greedy=P.DISTILLED, rollout_params=((), tuple(distill.read()["weights"])),
    choose_rollout=P.choose_rollout,
    determinize=E.determinize,
    stop=(P.stop_cell, P.stop_amount, P.stop_act, P.LEARNED),
)

# the cached kernels, written from ENGINE by the one template of every turn game
KERNELS = load(sys.modules[__name__])
