"""Bye-Bye Black Sheep's engine as the driver plays it (games/kernels.py writes its kernels).

Streams of game g: stream 0 deals the cards; LUCK + s = 1 + s is the luck of seat
s's decisions (which card its blind draws yield, where a Magpie it lets in lands);
POLICY + s = 1 + MAX_PLAYERS + s is seat s's policy. Luck is tied to seats, not to
policies, so rotating policies or changing a threshold keeps the deal identical and
the draws aligned for as long as decisions agree (common random numbers).
"""

import sys

from .. import fast
from ..driver import Shape
from ..kernels import Engine, load
from . import engine as E
from . import policies as P

TITLE = "Bye-Bye Black Sheep"
LUCK = 1
POLICY = LUCK + E.MAX_PLAYERS

ENGINE = Engine(
    E.start, E.actor, E.legal, E.nature, E.chance, E.step, E.outcome, E.progress, P.choose,
    no_user_policies=P.no_user_policies, last_builtin=P.LAST_BUILTIN, view=fast.pointer,
    shape=Shape(E.STATE_SIZE, E.MAX_DECISIONS, E.ACTION_SIZE, LUCK, POLICY, POLICY + E.MAX_PLAYERS, E.O_ROTATION,
                E.MAX_PLAYERS, E.O_COWINNERS),
    o_size=E.O_SIZE, census=E.census,
    # the search's rollouts: random, and "greedy" = the risk policy at its defaults
    # (p 0.25, w 0); hidden cards, re-dealt by determinize
    rollout_random=P.RANDOM, rollout_greedy=P.RISK, rollout_params=((), (0.25, 0.0)), choose_rollout=P.choose_rollout,
    determinize=E.determinize,
    stop=(P.stop_cell, P.stop_amount, P.stop_act, P.LEARNED),
)

# the cached kernels, written from ENGINE by the one template of every turn game
KERNELS = load(sys.modules[__name__])
