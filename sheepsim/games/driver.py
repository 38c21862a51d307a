"""The engine contract, and the one driver that plays every game through it.

The contract. Each game's engine module (games/<game>/engine.py) exports the same
@njit hooks with the same arities; the driver, trace replays, tests and every generic
tool (search agents, per-turn metrics, the tuner) use only these:

    start(s, rules, aux, rng)               set up game: deal from `rng` (stream 0), or
                                            copy the start position held in `aux`
    actor(s, rules) -> int                  the seat to decide; NATURE when the rules
                                            themselves decide (Battle Sheep's
                                            board=random build); -1 once the game is over
    legal(s, rules, aux, buf) -> n          the legal actions of the actor as the first n
                                            rows of buf, in the game's sorted order
    nature(s, rules, aux, rng) -> action    the rules' own decision when actor is NATURE
    chance(s, rules, aux, action, rng) -> c the luck of an action, drawn from the actor's
                                            luck stream (the kind a blind draw yields, a
                                            die face), -1 when it has none
    step(s, rules, aux, action, c)          apply a legal action with its chance outcome
    outcome(s, rules, row)                  the finished game's result row
    progress(s, rules, out)                 each seat's standing on the game's own scale
                                            (float64 out[seat]: pastures expected,
                                            triplets and zoo cards, captured cards,
                                            tokens, banked points), for search cut-offs
                                            and the experience metrics (tally.py)
    determinize(s, rules, aux, seat, rng)   hidden-information games (Bye-Bye Black
                                            Sheep, Hiboufou): re-deal, in place, every
                                            card `seat` cannot see, uniformly among the
                                            deals consistent with what it knows
    census(s, rules, aux) -> array          (Python) every card, sheep or token counted
                                            wherever it is: constant over a game, which
                                            the conformance suite checks after every event

and the module constants STATE_SIZE, MAX_ACTIONS, ACTION_SIZE (buf is
int32[MAX_ACTIONS, ACTION_SIZE]), O_SIZE and O_ROTATION (the result row). Luck is
drawn apart from its application (chance, then step) so that every engine, reference
or search agent replays the same luck.

Types. `s`: the int32[STATE_SIZE] state, as the game's `view` gives it (fast.py: a raw
pointer or an array without reference count; in checked mode the array itself).
`rules`: the packed rules (rules.to_array), rules[0] the player count, viewed the
same way; `aux`: the game's fixed data, the deck (Hiboufou, Bobby Sitter) or the start
position (Battle Sheep, Pig; Bye-Bye Black Sheep deals and leaves it unused), viewed
the same way except in `start`, which gets the array (it may read its length). `rng`:
one uint64[4] stream (rng.py), viewed. An action is a tuple of ACTION_SIZE integers (a
row of buf); a policy may return a plain integer when ACTION_SIZE is 1.

Policies. Built-in policies are dispatched by id through the game's
`choose(policy_id, s, rules, aux, seat, params, rng, buf, scratch)`, in the cached
kernel: `buf` is the decision buffer (the legal list goes there), `scratch`, of the
same shape, a built-in's own working space (Hiboufou's capture search), so no policy
works in the tail of the decision buffer.
Every user policy, of every game, has ONE signature:

    policy(s, rules, aux, seat, params, rng, buf) -> action

with plain arrays (the state, the packed rules, aux, the seat's policy stream and a
scratch int32[MAX_ACTIONS, ACTION_SIZE]). The driver checks each action a user policy
returns against the legal set and stops the run with a fault if it is not there
(built-ins are trusted, and fast; in the checked mode of fast.py they are checked
too, and a seat to act without a legal action is a fault). Bobby Sitter, a game of
simultaneous reactions rather than turns, keeps its per-flip loop (bobbysitter/play.py)
behind the same block machinery: streams, rotation, blocks and faults are the same.

Streams of game g (rng.py): stream 0 is the game's own chance (the deal, a random
board); LUCK + q is the luck of seat q's decisions; POLICY + q is seat q's policy. They
are tied to seats, not to policies, so rotating policies keeps common random numbers
aligned (the randomness contract, ARCHITECTURE.md). Games without decision luck set
LUCK = POLICY.

Seats and slots: in game g with rotation on, seat q is played by slot (q + g % P) % P,
so every policy slot plays every seat equally often; the row's O_ROTATION column
records g % P.

Faults. A user policy's illegal action, a decision point without a legal action, or a
game longer than MAX_STEPS decisions stops its block: `faults[block]` holds (code, game,
seat, decision, action...) of the first fault, and the Python side raises a one-line
error naming the policy (wrappers.py). The rules' own turn caps stay in the engines
(they are rules, with a result); MAX_STEPS is only a safety net.
"""

import functools
from typing import NamedTuple

import numpy as np
from numba import njit, types
from numba.extending import overload

from ..rng import seed_stream
from . import tally as TL
from .fast import CHECKED, array as _arr, pointer as _ptr

NATURE = -2
# the one user-policy signature of every turn game (above); Bobby Sitter's player
# models have their own (its play.py USER_ARGS)
USER_ARGS = ("s", "rules", "aux", "seat", "params", "rng", "buf")
MAX_STEPS = 10_000_000      # decisions in one game before it is a fault, not a result
FAULT_ILLEGAL, FAULT_NO_LEGAL, FAULT_TOO_LONG = 1, 2, 3
FAULT_SIZE = 8              # code, game, seat, decision, then up to 4 action values
BLOCKS = 64                 # a chunk is shared out in at most this many blocks


class Shape(NamedTuple):
    """A turn game's sizes, streams and result columns: the driver's `game` argument
    (a named tuple of integers, which numba passes by value and reads by name)."""
    state_size: int     # the state `s` is int32[state_size]
    max_actions: int    # the decision buffer is int32[max_actions, action_size]
    action_size: int    # integers in an action
    luck: int           # stream of seat q's decision luck: luck + q
    policy: int         # stream of seat q's policy: policy + q (luck == policy: no decision luck)
    streams: int        # streams a game uses, stream 0 the game's own chance
    rotation: int       # the result row's column recording g % players (seat rotation)
    max_players: int
    cowinners: int      # the result row's column of the winners' bit mask


# a fault row: code, game, seat, decision, then the action from F_ACTION on
F_CODE, F_GAME, F_SEAT, F_DECISION, F_ACTION = range(5)


def as_action(x):
    """An action as a tuple of int64: a policy's tuple, or its plain integer."""


@overload(as_action, inline="always")
def _as_action(x):
    if isinstance(x, types.Integer):
        return lambda x: (np.int64(x),)
    if isinstance(x, types.BaseTuple) and all(isinstance(t, types.Integer) for t in x.types):
        items = ", ".join(f"np.int64(x[{i}])" for i in range(len(x)))
        namespace = {"np": np}
        exec(f"def impl(x):\n    return ({items},)\n", namespace)
        return namespace["impl"]
    return None     # numba then reports the policy's wrong return type (wrappers.py)


def record(log, t, who, action, c):
    """Log decision t as (actor, action..., chance) if it fits; nothing when log is None."""


@overload(record, inline="always")
def _record(log, t, who, action, c):
    if isinstance(log, types.NoneType):
        return lambda log, t, who, action, c: None

    def impl(log, t, who, action, c):
        if t < log.shape[0]:
            log[t, 0] = who
            for k in range(len(action)):
                log[t, 1 + k] = action[k]
            log[t, 1 + len(action)] = c
    return impl


@njit(inline="always")
def _is_legal(action, buf, n):
    for i in range(n):
        same = True
        for k in range(len(action)):
            same &= buf[i, k] == action[k]
        if same:
            return True
    return False


@njit(inline="always")
def _fault(fault, code, game, seat, t, action):
    fault[F_CODE] = code
    fault[F_GAME] = game
    fault[F_SEAT] = seat
    fault[F_DECISION] = t
    for k in range(min(len(action), FAULT_SIZE - F_ACTION)):
        fault[F_ACTION + k] = action[k]


@njit(inline="always")
def _buffers(game):
    """A block's state, its policies' decision buffer and scratch, and the driver's own
    legal-set buffer."""
    state = np.empty(game.state_size, dtype=np.int32)
    buf = np.empty((game.max_actions, game.action_size), dtype=np.int32)
    scratch = np.empty((game.max_actions, game.action_size), dtype=np.int32)
    legal_buf = np.empty((game.max_actions, game.action_size), dtype=np.int32)
    return state, (buf, scratch, legal_buf)


@njit(inline="always")
def play_game(start, actor, legal, nature, chance, step, outcome, progress, choose, user, last_builtin, view,
              game, state, rules_arr, aux_arr, s, rules, aux, slot_ids, slot_params, seat_slot, rngs, buffers, g,
              row, log, fault, tally):
    """Play game g from `start` to its end; write its row; return the decisions taken,
    or -1 after a fault. `state`, `rules_arr`, `aux_arr` are the arrays and `s`, `rules`,
    `aux` their views (made once a block); `buffers` the block's (buf, scratch,
    legal_buf). `log` is None (the chunk kernels: logging is compiled out, a test per
    decision saved) or int32 rows: decision t is logged as (actor, action..., chance)
    while it fits. `tally` is the block's experience tally (tally.py): when it is on,
    progress is sampled at each round's start and at the end, and the game's metrics
    are left in its row. (One tuple for the buffers: CPython passes more than 30
    positional arguments as *args, which numba's inliner refuses.)"""
    buf, scratch, legal_buf = buffers
    luck_base, policy_base = game.luck, game.policy
    players = rules_arr[0]
    tally = unmanaged_tally(tally)
    tallying = tally[0]
    # The driver's own arrays without reference counts (fast.py): a row view of a
    # managed array (a seat's streams and parameters, at each change of actor) and
    # every call passing one cost atomic counts, measured at up to a fifth of a game
    # (Pig, Hiboufou). User policies still get `buf` and the state as arrays.
    bufv = _arr(buf)
    scratch = _arr(scratch)
    rngs = _arr(rngs)
    slot_params = _arr(slot_params)
    slot_ids = _ptr(slot_ids)
    seat_slot = _ptr(seat_slot)
    start(s, rules, aux_arr, view(rngs[0]))
    if tallying:
        TL.begin(tally, players)
    t = 0
    seat = -3
    decided = players          # the seat that decided last (players: none yet)
    pid = 0
    params = slot_params[0]
    policy_rng = luck = rngs[0]
    while True:
        who = actor(s, rules)
        if who == -1:
            break
        if who != seat:
            # a new actor (a new turn, or a White Sheep's owner): its policy, parameters
            # and streams are looked up once, not at every decision
            seat = who
            if who >= 0:
                slot = seat_slot[who]
                pid = slot_ids[slot]
                params = slot_params[slot]
                policy_rng = rngs[policy_base + who]
                luck = rngs[luck_base + who]
                if tallying and who < decided:
                    # the turn has gone round the table: a round starts (tally.py)
                    TL.sample(progress, s, rules, players, tally)
                decided = who
            else:
                luck = rngs[0]
        if who == NATURE:
            action = as_action(nature(s, rules, aux, view(rngs[0])))
        elif pid <= last_builtin:
            if CHECKED:
                # built-ins are trusted for speed; the checked mode verifies them too
                n = legal(s, rules, aux, legal_buf)
                if n == 0:
                    _fault(fault, FAULT_NO_LEGAL, g, who, t, (np.int64(0),))
                    return -1
            action = as_action(choose(pid, s, rules, aux, who, params, view(policy_rng), bufv, scratch))
            if CHECKED and not _is_legal(action, legal_buf, n):
                _fault(fault, FAULT_ILLEGAL, g, who, t, action)
                return -1
        else:
            n = legal(s, rules, aux, legal_buf)
            if n == 0:
                _fault(fault, FAULT_NO_LEGAL, g, who, t, (np.int64(0),))
                return -1
            action = as_action(user(pid, state, rules_arr, aux_arr, who, params, policy_rng, buf))
            if not _is_legal(action, legal_buf, n):
                _fault(fault, FAULT_ILLEGAL, g, who, t, action)
                return -1
        c = chance(s, rules, aux, action, view(luck))
        record(log, t, who, action, c)
        t += 1
        if t > MAX_STEPS:
            _fault(fault, FAULT_TOO_LONG, g, who, t, action)
            return -1
        step(s, rules, aux, action, c)
    outcome(s, rules, row)
    if tallying:
        TL.end(progress, s, rules, players, row[game.cowinners], tally)
    return t


@njit(inline="always")
def unmanaged_tally(tally):
    """The tally's arrays without reference counts (fast.py): each sample passes them
    to the progress hook, and the counts cost as much as the tally itself (Bobby
    Sitter, measured)."""
    on, prog, deficit, trail, st, row = tally
    return on, _arr(prog), _arr(deficit), _arr(trail), _arr(st), _arr(row)


@njit(inline="always")
def seed_game(seed, g, players, luck_base, policy_base, rngs):
    """Seed the streams game g of `players` uses (see the module docstring)."""
    seed_stream(seed, g, 0, rngs[0])
    for q in range(players):
        seed_stream(seed, g, luck_base + q, rngs[luck_base + q])
        seed_stream(seed, g, policy_base + q, rngs[policy_base + q])


@njit(inline="always")
def seat_slots(g, players, rotate, seat_slot):
    """Which policy slot plays each seat of game g; returns the rotation."""
    rot = g % players if rotate else 0
    for q in range(players):
        slot = q + rot
        seat_slot[q] = slot - players if slot >= players else slot      # (q + rot) % players
    return rot


@njit(inline="always")
def play_blocks(start, actor, legal, nature, chance, step, outcome, progress, choose, user, last_builtin, view,
                game, rules_arr, aux_arr, slot_ids, slot_params, rotate, seed, first, out, faults, metrics, b_lo,
                b_hi):
    """Games first .. first + len(out) - 1 of a run, one row of `out` each, in
    min(len(out), BLOCKS) blocks, of which this plays blocks b_lo .. b_hi - 1 in turn.
    Game g's row depends only on (rules, aux, policies, seed, g): blocks only share out
    the work (wrappers.run_blocks gives contiguous runs of them to Python threads), so
    any thread count gives the same rows.

    `metrics` is float64[len(out), tally.M_SIZE] for each game's experience metrics
    (tally.py), or with no rows to play without them (the tally is then skipped at
    each test; `sheepsim bench` measures both).

    `game` is the engine's constants (STATE_SIZE, MAX_ACTIONS, ACTION_SIZE, LUCK, POLICY,
    N_STREAMS, O_ROTATION, MAX_PLAYERS, O_COWINNERS); the hooks are the engine's, `choose` the
    built-in dispatcher, `user` the user-policy dispatcher, `view` fast.pointer or
    fast.array. Call it from a module-level @njit(cache=True, nogil=True) kernel: the
    kernel releases the GIL, so the threads run at once. numba's parallel lowering
    (prange) would share the blocks too, but it made the kernels' cold compile about
    half again as long (Hiboufou 113 s against 76 s, Bye-Bye Black Sheep 89 s against
    54 s, measured)."""
    for b in range(b_lo, min(b_hi, min(out.shape[0], BLOCKS))):
        lo, hi = block_games(out.shape[0], b)
        play_block(start, actor, legal, nature, chance, step, outcome, progress, choose, user, last_builtin, view,
                   game, rules_arr, aux_arr, slot_ids, slot_params, rotate, seed, first, out, faults[b], metrics, lo,
                   hi)


@njit(inline="always")
def block_games(n, b):
    """Games lo .. hi - 1 (of a chunk's n) in block b of min(n, BLOCKS) blocks."""
    nblocks = min(n, BLOCKS)
    return b * n // nblocks, (b + 1) * n // nblocks


@njit(inline="always")
def play_block(start, actor, legal, nature, chance, step, outcome, progress, choose, user, last_builtin, view,
               game, rules_arr, aux_arr, slot_ids, slot_params, rotate, seed, first, out, fault, metrics, lo, hi):
    state, buffers = _buffers(game)
    tally = TL.buffers(metrics.shape[0] > 0, game.max_players)
    rngs = np.empty((game.streams, 4), dtype=np.uint64)         # uint64[4] a stream (rng.py)
    seat_slot = np.zeros(game.max_players, dtype=np.int64)
    players = rules_arr[0]
    s, rules, aux = view(state), view(rules_arr), view(aux_arr)
    for i in range(lo, hi):
        g = first + i
        seed_game(seed, g, players, game.luck, game.policy, rngs)
        rot = seat_slots(g, players, rotate, seat_slot)
        if play_game(start, actor, legal, nature, chance, step, outcome, progress, choose, user, last_builtin, view,
                     game, state, rules_arr, aux_arr, s, rules, aux, slot_ids, slot_params, seat_slot, rngs, buffers,
                     g, out[i], None, fault, tally) < 0:
            return
        out[i, game.rotation] = rot
        if tally[0]:
            # element by element: a slice assignment compiles numba's shape-mismatch
            # error (string formatting), about 1.7 s of every process's first kernel
            row = tally[-1]
            for k in range(row.shape[0]):
                metrics[i, k] = row[k]


@njit(inline="always")
def replay(start, actor, legal, nature, chance, step, outcome, progress, choose, user, last_builtin, view, game,
           rules_arr, aux_arr, slot_ids, slot_params, seat_slot, rngs, g, row, log, fault):
    """One game as the chunk kernel plays it, keeping its log (trace, tests); returns
    the decisions taken (more than log's rows: replay with a longer log), -1 on a fault."""
    state, buffers = _buffers(game)
    s, rules, aux = view(state), view(rules_arr), view(aux_arr)
    return play_game(start, actor, legal, nature, chance, step, outcome, progress, choose, user, last_builtin, view,
                     game, state, rules_arr, aux_arr, s, rules, aux, slot_ids, slot_params, seat_slot, rngs,
                     buffers, g, row, log, fault, TL.buffers(False, game.max_players))


_USER_KERNELS = """
def play_blocks_user(rules, aux, slot_ids, slot_params, rotate, seed, first, out, faults, metrics, b_lo, b_hi):
    play_blocks(H_START, H_ACTOR, H_LEGAL, H_NATURE, H_CHANCE, H_STEP, H_OUTCOME, H_PROGRESS, H_CHOOSE, H_USER,
                H_LAST, H_VIEW, H_GAME, rules, aux, slot_ids, slot_params, rotate, seed, first, out, faults, metrics,
                b_lo, b_hi)


def replay_user(rules, aux, slot_ids, slot_params, seat_slot, rngs, g, row, log, fault):
    return replay(H_START, H_ACTOR, H_LEGAL, H_NATURE, H_CHANCE, H_STEP, H_OUTCOME, H_PROGRESS, H_CHOOSE, H_USER,
                  H_LAST, H_VIEW, H_GAME, rules, aux, slot_ids, slot_params, seat_slot, rngs, g, row, log, fault)
"""


@functools.cache
def called(hook):
    """`hook` itself, or, if it is inline="always", a twin of it that is called rather
    than inlined. A user-policy kernel is typed afresh in every process; with every
    hook inlined it re-typed the whole engine and every built-in policy (Bye-Bye Black
    Sheep: over two minutes). A called twin compiles once, into numba's disk cache
    (its standalone code is the inlined hook's own), and the kernel around it takes
    seconds. The cached built-in kernels keep their inlining, for speed."""
    if hook.targetoptions.get("inline") != "always":
        return hook
    return njit(cache=True)(hook.py_func)


def returns(action_size: int) -> str:
    """What a user policy of a game with actions of `action_size` integers returns."""
    return "an integer or a 1-tuple of integers" if action_size == 1 else f"a tuple of {action_size} integers"


def user_kernels(play, user, kind=None):
    """(block kernel, replay kernel) of `play`'s game with the user-policy dispatcher
    `user`, and with the policies of the kernels `kind` (games/kernels.py: the search
    agents' choose_called in place of the built-ins' dispatcher) if given: the block
    kernel takes play.play_blocks' arguments and, like it, runs on Python threads
    (wrappers.run_blocks); the replay kernel takes play.replay's. They compile once per
    process: numba's disk cache does not find generated functions.

    The hooks are globals of generated source, not closure variables: numba's inliner
    confused the free variables of a closure with the inlined driver's own names."""
    names = ("H_START", "H_ACTOR", "H_LEGAL", "H_NATURE", "H_CHANCE", "H_STEP", "H_OUTCOME", "H_PROGRESS", "H_CHOOSE")
    hooks = play.HOOKS[:-1] + (kind.choose_called,) if kind is not None else play.HOOKS
    namespace = dict(zip(names, (called(hook) for hook in hooks)))
    last = kind.LAST_ID if kind is not None else play.LAST_BUILTIN
    namespace.update(H_USER=user, H_LAST=last, H_VIEW=play.VIEW, H_GAME=play.GAME,
                     play_blocks=play_blocks, replay=replay, __name__=__name__)
    exec(compile(_USER_KERNELS, f"<sheepsim user-policy kernels of {play.__name__}>", "exec"), namespace)
    return njit(nogil=True)(namespace["play_blocks_user"]), njit(namespace["replay_user"])
