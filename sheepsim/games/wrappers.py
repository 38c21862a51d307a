"""Python-side machinery every game wrapper shares: policy dispatch for user
policies, the chunk call, and the generic result columns.

Built-in policies run in each game's cached `play_blocks` kernel, dispatched by id.
User policies get one small @njit dispatcher by id (`chooser`) and run in kernels
that driver.user_kernels compiles once per process. Either kernel plays a chunk's
blocks on Python threads (`run_blocks`).
"""

from __future__ import annotations

import inspect
import os
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any, Callable

import numpy as np
import pandas as pd

from ..errors import SheepsimError
from ..policies import PolicyDef, PolicySpec
from . import driver
from .kernels import covering, of_kind
from .tally import M_SIZE

_kernels: dict[tuple, Any] = {}
NO_METRICS = np.zeros((0, M_SIZE))     # a block kernel's `metrics` for a run without them

# a user-policy kernel's compile, the game's hooks already in the disk cache (measured on
# 2 cores: 10 s for Battle Sheep, 15 to 20 s for Bye-Bye Black Sheep; cold_start_note
# says so before it starts)
USER_COMPILE_SECONDS = 15
# what a game's search kernels add to its compile (search/mcts.py, measured on 2 cores)
SEARCH_COMPILE_SECONDS = 30


def _dispatcher(source: str, namespace: dict) -> Callable:
    from numba import njit
    # __name__ gives the function a module; without one, pickling it (numba does, for
    # parallel kernels) searches every module for a `choose` and trips numpy's deprecations
    namespace["__name__"] = __name__
    exec(compile(source, "<sheepsim user-policy dispatcher>", "exec"), namespace)
    return njit(namespace["choose"])


def with_user(previous: Callable | None, uid: int, fn: Callable, args: tuple[str, ...]) -> Callable:
    """An @njit dispatcher `choose(policy_id, *args)` that calls `fn(*args)` for policy
    id `uid` and `previous(policy_id, *args)` otherwise (every id, without `previous`).

    The source is written out for the game's argument list rather than taking
    `*args`: numba refuses star-args calls into inlined dispatchers. uid, fn and
    previous are globals of the generated function, which numba freezes as
    compile-time constants, exactly as it does closure variables."""
    arglist = ", ".join(args)
    if previous is None:
        return _dispatcher(f"def choose(policy_id, {arglist}):\n    return fn({arglist})\n", {"fn": fn})
    source = (f"def choose(policy_id, {arglist}):\n"
              f"    if policy_id == uid:\n"
              f"        return fn({arglist})\n"
              f"    return previous(policy_id, {arglist})\n")
    return _dispatcher(source, {"uid": uid, "fn": fn, "previous": previous})


def _check_user_policy(policy: PolicyDef, args: tuple[str, ...]) -> None:
    """One-line errors for the two usual plugin mistakes, before numba's long ones."""
    fn = getattr(policy.fn, "py_func", None)
    if fn is None:
        raise SheepsimError(f"{policy.game} policy {policy.name} must be an @njit function (from numba import njit)")
    n = len(inspect.signature(fn).parameters)
    if n != len(args):
        raise SheepsimError(f"{policy.game} policy {policy.name} takes {n} arguments; {policy.game} policies take "
                            f"{len(args)}: ({', '.join(args)})")


def chooser(play, specs: list[PolicySpec]) -> Callable:
    """A dispatcher over every user policy of `specs`, by id."""
    args = play.USER_ARGS
    choose = None
    users = {p.policy.id: p.policy for p in specs if not p.policy.builtin}
    for uid in sorted(users):
        _check_user_policy(users[uid], args)
        choose = with_user(choose, uid, users[uid].fn, args)
    return choose


def user_policies(specs: list[PolicySpec]) -> bool:
    return any(not p.policy.builtin for p in specs)


def kernel_kind(specs: list[PolicySpec]) -> str:
    """The kernels a run plays in (PolicyDef.kind): "" the game's own, or the kind of
    its built-ins of another (a search agent's: "search", search/wiring.py), so runs
    without one keep the game's kernels."""
    kinds = {p.policy.kind for p in specs if p.policy.builtin and p.policy.kind}
    if len(kinds) <= 1:
        return next(iter(kinds), "")
    kind = covering(kinds)     # a plug-in agent's kernels play the search agents too
    if kind is None:
        names = sorted({p.policy.name for p in specs if p.policy.kind})
        raise SheepsimError(f"policies {', '.join(names)} run in kernels of different kinds "
                            f"({', '.join(sorted(kinds))}) and cannot play in one run")
    return kind


def builtin_kernel(play, specs: list[PolicySpec], replay: bool = False):
    """The block kernel (or with `replay` the replay kernel) of a run without user policies."""
    kernels = of_kind(play, kernel_kind(specs))
    return kernels.replay if replay else kernels.play_blocks


def policy_arrays(specs: list[PolicySpec]) -> tuple[np.ndarray, np.ndarray]:
    """Policy ids and parameter vectors of the slots, as the kernels take them."""
    return (np.array([p.policy.id for p in specs], dtype=np.int64),
            np.array([p.vector() for p in specs]))


def seat_slots(game: int, players: int, rotate: bool, size: int) -> np.ndarray:
    """Which slot plays each seat in game `game` (the kernels' rotation, seat s is
    played by slot (s + g mod P) mod P), padded to `size` entries."""
    rot = game % players if rotate else 0
    return np.array([(seat + rot) % players for seat in range(size)], dtype=np.int64)


def user_kernels(play, specs: list[PolicySpec]):
    """(block kernel, replay kernel) of `play`'s game with the user policies of `specs`
    (driver.user_kernels; run_blocks runs the block kernel on threads).

    Closures are not found in numba's disk cache, so these compile once per process
    (the documented slower start of user policies); games run at full speed."""
    key = _user_key(play, specs)
    if key not in _kernels:
        kind = kernel_kind(specs)
        _kernels[key] = play.user_kernels(chooser(play, specs), of_kind(play, kind) if kind else None)
    return _kernels[key]


def _user_key(play, specs: list[PolicySpec]) -> tuple:
    # keyed by the functions themselves, not only their ids: an id is reused once a
    # policy is unregistered (a plugin reloaded, a test's registry restored)
    return (play.__name__, kernel_kind(specs),
            tuple(sorted({(p.policy.id, p.policy.fn) for p in specs if not p.policy.builtin},
                         key=lambda pair: pair[0])))


def _on_disk(kernel) -> bool:
    """Whether numba's disk cache holds a compiled `kernel` (its index lists one)."""
    try:
        return bool(kernel._cache._cache_file._load_index())
    except Exception:       # numba's private cache API moved: better no note than a false one
        return True


def cold_start_note(game, specs: list[PolicySpec]) -> str | None:
    """The line to show before a run whose kernel must first be compiled (minutes on a
    first run: the user waits with nothing else on screen), or None when the kernel is
    compiled already, in this process or in numba's disk cache."""
    play = game.play
    if user_policies(specs):
        for p in specs:             # a wrong argument count fails now, alone, not after the note
            if not p.policy.builtin:
                _check_user_policy(p.policy, play.USER_ARGS)
        kernels = _kernels.get(_user_key(play, specs))
        if kernels is not None and kernels[0].signatures:
            return None
        names = ", ".join(sorted({p.policy.name for p in specs if not p.policy.builtin}))
        return (f"compiling the kernels for {game.title} with user policy {names} (once per process, about "
                f"{USER_COMPILE_SECONDS} s; the first time also the game's own hooks, about "
                f"{game.compile_seconds} s; {_measured_on()})")
    kernel = builtin_kernel(play, specs)
    if kernel.signatures or _on_disk(kernel):
        return None
    kind = kernel_kind(specs)
    if kind:
        return (f"compiling the {kind} kernels for {game.title}, first run only, about "
                f"{game.compile_seconds + SEARCH_COMPILE_SECONDS} s ({_measured_on()})")
    return f"compiling the kernels for {game.title}, first run only, about {game.compile_seconds} s ({_measured_on()})"


def _measured_on() -> str:
    """Where the compile estimates were measured, and the load now when it is higher: a
    compile runs on one core, so other work on the machine stretches it (2-3x seen)."""
    text = "measured on an idle 2-core machine"
    try:
        load, cores = os.getloadavg()[0], os.cpu_count() or 1
    except (AttributeError, OSError):        # no load average (Windows)
        return text
    return text + (f"; longer now, the load is {load:.1f} on {cores} cores" if load >= cores else "")


def raise_fault(play, fault: np.ndarray, specs: list[PolicySpec], players: int, rotate: bool) -> None:
    code, game, seat, decision = (int(x) for x in fault[:driver.F_ACTION])
    label = specs[int(seat_slots(game, players, rotate, players)[seat])].label if 0 <= seat < players else "nature"
    action = tuple(int(x) for x in fault[driver.F_ACTION:driver.F_ACTION + play.GAME.action_size])
    where = f"game {game}, seat {seat} ({label}), decision {decision}"
    if code == driver.FAULT_ILLEGAL:
        raise SheepsimError(f"policy {label} returned the illegal action {action} in {where}: "
                            f"a policy must return one of the legal actions (engine.legal)")
    if code == driver.FAULT_NO_LEGAL:
        raise SheepsimError(f"no legal action where the rules require one, in {where}: "
                            f"the position cannot be played (a rules or engine defect)")
    raise SheepsimError(f"{where}: the game did not end within {driver.MAX_STEPS:,} decisions")


@contextmanager
def _typing_errors(play, specs: list[PolicySpec]):
    """numba's typing error for a user policy (say, one that returns a float) as one line."""
    from numba.core.errors import TypingError
    try:
        yield
    except TypingError as exc:
        names = ", ".join(sorted({p.policy.name for p in specs if not p.policy.builtin}))
        first = next((line.strip() for line in str(exc).splitlines() if line.strip()), "")
        raise SheepsimError(f"user policy {names} could not be compiled: a policy must take "
                            f"({', '.join(play.USER_ARGS)}) and return {play.RETURNS} "
                            f"(numba: {first[:200]})") from None


@contextmanager
def _user_errors(specs: list[PolicySpec]):
    """An exception a user policy raised (numba passes it out of compiled code: the
    policy's own `raise`, or an IndexError when run with NUMBA_BOUNDSCHECK=1) as one
    line naming the policies; the run stops there."""
    try:
        yield
    except SheepsimError:
        raise
    except Exception as exc:
        names = ", ".join(sorted({p.policy.name for p in specs if not p.policy.builtin}))
        said = " ".join(str(exc).split())[:300]
        raise SheepsimError(f"user policy {names} raised {type(exc).__name__}{': ' + said if said else ''}") from None


def play_chunk(play, rules_arr: np.ndarray, aux: np.ndarray, specs: list[PolicySpec], rotate: bool, seed: int,
               first: int, n: int, metrics: np.ndarray | None = None) -> np.ndarray:
    """Rows of games first .. first + n - 1; `play` is the game's play module (with
    `play_blocks`, `user_kernels` and GAME). With `metrics`, float64[n, tally.M_SIZE],
    the kernels also tally each game's experience metrics into it (games/tally.py). A
    fault (a user policy's illegal action) raises a one-line SheepsimError naming the
    policy, game, seat and action."""
    out = np.zeros((n, play.O_SIZE), dtype=np.int32)
    faults = np.zeros((driver.BLOCKS, driver.FAULT_SIZE), dtype=np.int64)
    if metrics is None:
        metrics = NO_METRICS
    elif metrics.shape != (n, M_SIZE) or metrics.dtype != np.float64:
        raise ValueError(f"metrics must be float64[{n}, {M_SIZE}], not {metrics.dtype}{list(metrics.shape)}")
    ids, params = policy_arrays(specs)
    args = (rules_arr, aux, ids, params, rotate, np.uint64(seed), first, out, faults, metrics)
    kernel = builtin_kernel(play, specs)
    if user_policies(specs):
        kernel = user_kernels(play, specs)[0]
        with _typing_errors(play, specs):
            kernel(*args, 0, 0)          # compiles, on this thread, or says why not
        with _user_errors(specs):
            run_blocks(kernel, args)
    else:
        run_blocks(kernel, args)
    hit = faults[faults[:, driver.F_CODE] != 0]
    if len(hit):
        raise_fault(play, hit[np.argmin(hit[:, driver.F_GAME])], specs, int(rules_arr[0]), rotate)
    return out


def run_blocks(kernel, args: tuple) -> None:
    """Every block of a chunk through a block kernel (a game's cached play_blocks or a
    user-policy one) taking `args` (rules, aux, slot_ids, slot_params, rotate, seed,
    first, out, faults, metrics) and a block range: contiguous runs of the min(len(out),
    BLOCKS) blocks go to numba's thread count (numba.set_num_threads) of Python
    threads, which run at once because the kernels release the GIL. Each block writes
    only its own rows and fault row, so the rows are the same for any thread count."""
    import numba
    nblocks = min(len(args[7]), driver.BLOCKS)
    k = max(1, min(numba.get_num_threads(), nblocks))
    runs = [(i * nblocks // k, (i + 1) * nblocks // k) for i in range(k)]
    # the calling thread plays the first run itself; the others go to pooled threads,
    # kept for the process: starting threads per call cost a fifth of a small chunk
    futures = [_helpers(k - 1).submit(kernel, *args, *run) for run in runs[1:]]
    try:
        kernel(*args, *runs[0])
    finally:
        for future in futures:
            future.result()


_pools: dict[tuple[int, int], ThreadPoolExecutor] = {}


def _helpers(n: int) -> ThreadPoolExecutor:
    """A pool of n threads for run_blocks, per process (a forked child, such as a
    Dask or multiprocessing worker, gets its own: the parent's threads are not there)."""
    key = (os.getpid(), n)
    if key not in _pools:
        _pools[key] = ThreadPoolExecutor(n, thread_name_prefix="sheepsim-blocks")
    return _pools[key]


def replay(play, rules_arr: np.ndarray, aux: np.ndarray, specs: list[PolicySpec], rotate: bool, seed: int,
           game: int, log_rows: int = 4096) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(log, row, seat slots, streams) of game `game` exactly as the runner plays it;
    log row t is decision t as (actor, action..., chance)."""
    from ..rng import streams
    players = int(rules_arr[0])
    slots = seat_slots(game, players, rotate, play.GAME.max_players)
    ids, params = policy_arrays(specs)
    kernel = user_kernels(play, specs)[1] if user_policies(specs) else builtin_kernel(play, specs, replay=True)
    while True:
        rngs = streams(seed, game, play.GAME.streams)
        log = np.zeros((log_rows, play.GAME.action_size + 2), dtype=np.int32)   # actor, action, chance
        row = np.zeros(play.O_SIZE, dtype=np.int32)
        fault = np.zeros(driver.FAULT_SIZE, dtype=np.int64)
        with _typing_errors(play, specs), _user_errors(specs):
            t = kernel(rules_arr, aux, ids, params, slots, rngs, game, row, log, fault)
        if fault[driver.F_CODE] != 0:
            raise_fault(play, fault, specs, players, rotate)
        if t <= log_rows:
            return log[:t], row, slots, streams(seed, game, play.GAME.streams)
        log_rows = int(t)       # a long game: replay it with a log that fits


def frame(rows: np.ndarray, specs: list[PolicySpec], seed: int, first: int, players: int, rotation_col: int,
          columns: dict[str, tuple[int, Any]], per_seat: dict[str, tuple[int, Any]]) -> pd.DataFrame:
    """Per-game results with the generic columns (game, seed, rotation, num_players,
    policy_s) plus `columns` {name: (row column, dtype)} and `per_seat`
    {prefix: (first row column, dtype)} giving prefix_0 .. prefix_{P-1}."""
    n = len(rows)
    rotation = rows[:, rotation_col].astype(np.int8)
    df = pd.DataFrame({"game": np.arange(first, first + n, dtype=np.int64),
                       "seed": np.full(n, seed, dtype=np.uint64), "rotation": rotation,
                       "num_players": np.full(n, players, dtype=np.int8)})
    for name, (col, dtype) in columns.items():
        df[name] = rows[:, col].astype(dtype)
    for prefix, (col, dtype) in per_seat.items():
        for seat in range(players):
            df[f"{prefix}_{seat}"] = rows[:, col + seat].astype(dtype)
    labels = np.array([s.label for s in specs])
    for seat in range(players):
        df[f"policy_{seat}"] = pd.Categorical(labels[(seat + rotation) % players], categories=sorted(set(labels)))
    return df


def end_at_cap(df: pd.DataFrame, rules) -> np.ndarray:
    """A GameSpec.end_condition for games with one end besides their cap: code 0, the
    game's own end (its goal, its triplets, its empty pile), or 1 where the cap stopped
    it (the `capped` column)."""
    return df["capped"].to_numpy().astype(np.int8)


def games_per_second(n_games: int, play_one: Callable[[], Any]) -> float:
    """Time `n_games` calls of `play_one` (a reference engine's whole game)."""
    import time
    start = time.perf_counter()
    for _ in range(n_games):
        play_one()
    return n_games / (time.perf_counter() - start)
