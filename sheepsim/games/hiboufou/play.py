"""Hiboufou's engine as the driver plays it (games/kernels.py writes its kernels).

Streams of game g: stream 0 deals the cards (the shuffle fixes the draw pile order, so
decisions need no luck of their own: LUCK = POLICY); POLICY + s = 1 + s is seat s's
policy. Rotating policies or changing a parameter keeps the deal identical. `aux` is
the deck: int32 colour masks by card id (rules.deck_array).
"""

import sys

from .. import fast
from ..driver import Shape
from ..kernels import Engine, load
from . import engine as E
from . import policies as P

TITLE = "Hiboufou"
POLICY = LUCK = 1

ENGINE = Engine(
    E.start, E.actor, E.legal, E.nature, E.chance, E.step, E.outcome, E.progress, P.choose,
    no_user_policies=P.no_user_policies, last_builtin=P.LAST_BUILTIN, view=fast.pointer,
    shape=Shape(E.STATE_SIZE, E.MAX_DECISIONS, E.ACTION_SIZE, LUCK, POLICY, POLICY + E.MAX_PLAYERS, E.O_ROTATION,
                E.MAX_PLAYERS, E.O_COWINNERS),
    o_size=E.O_SIZE, census=E.census,
    # the search's rollouts: random, and "greedy" = the greedy policy; hidden cards,
    # re-dealt by determinize; a state is copied by its live slots (sized for 720 cards)
    rollout_random=P.RANDOM, rollout_greedy=P.GREEDY, choose_rollout=P.choose_rollout,
    determinize=E.determinize, copy_state=E.copy_state,
)

# the cached kernels, written from ENGINE by the one template of every turn game
KERNELS = load(sys.modules[__name__])
