"""Python-side machinery every game wrapper shares: policy dispatch for user
policies, the chunk call, and the generic result columns (DESIGN 5 and 8).

Built-in policies run in each game's cached `play_games` kernel, dispatched by id.
User policies are chained in front of the game's built-in `choose` (one small @njit
dispatcher per user policy, with the game's policy arguments) and run in a kernel that
`make_play_games` compiles once per process.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable

import numpy as np
import pandas as pd

from ..errors import SheepsimError
from ..policies import PolicyDef, PolicySpec

_kernels: dict[tuple, Any] = {}


def policy_args(builtin: Callable) -> tuple[str, ...]:
    """A game's policy arguments, read from its built-in dispatcher
    `choose(policy_id, *policy arguments)`: e.g. (s, rules, seat, params, rng, buf), or
    (s, rules, deck, seat, params, rng, buf) for Hiboufou. The dispatcher is the one
    place that spells the signature, so user policies follow it without a per-game list."""
    fn = getattr(builtin, "py_func", builtin)
    names = tuple(inspect.signature(fn).parameters)
    assert names and names[0] == "policy_id", f"{fn.__qualname__} must take policy_id first"
    return names[1:]


def with_user(previous: Callable, uid: int, fn: Callable, args: tuple[str, ...]) -> Callable:
    """An @njit dispatcher `choose(policy_id, *args)` that calls `fn(*args)` for policy
    id `uid` and `previous(policy_id, *args)` otherwise.

    The source is written out for the game's argument list rather than taking
    `*args`: numba refuses star-args calls into the built-in dispatchers (they are
    inline="always"). uid, fn and previous are globals of the generated function, which
    numba freezes as compile-time constants, exactly as it does closure variables."""
    from numba import njit

    arglist = ", ".join(args)
    source = (f"def choose(policy_id, {arglist}):\n"
              f"    if policy_id == uid:\n"
              f"        return fn({arglist})\n"
              f"    return previous(policy_id, {arglist})\n")
    # __name__ gives the function a module; without one, pickling it (numba does, for
    # parallel kernels) searches every module for a `choose` and trips numpy's deprecations
    namespace = {"__name__": __name__, "uid": uid, "fn": fn, "previous": previous}
    exec(compile(source, f"<sheepsim dispatcher for user policy {uid}>", "exec"), namespace)
    return njit(namespace["choose"])


def _check_user_policy(policy: PolicyDef, args: tuple[str, ...]) -> None:
    """One-line errors for the two usual plugin mistakes, before numba's long ones."""
    fn = getattr(policy.fn, "py_func", None)
    if fn is None:
        raise SheepsimError(f"{policy.game} policy {policy.name} must be an @njit function (from numba import njit)")
    n = len(inspect.signature(fn).parameters)
    if n != len(args):
        raise SheepsimError(f"{policy.game} policy {policy.name} takes {n} arguments; {policy.game} policies take "
                            f"{len(args)}: ({', '.join(args)})")


def chooser(builtin: Callable, specs: list[PolicySpec]) -> Callable:
    """The game's built-in dispatcher with every user policy of `specs` in front."""
    args = policy_args(builtin)
    choose = builtin
    users = {p.policy.id: p.policy for p in specs if not p.policy.builtin}
    for uid in sorted(users):
        _check_user_policy(users[uid], args)
        choose = with_user(choose, uid, users[uid].fn, args)
    return choose


def user_policies(specs: list[PolicySpec]) -> bool:
    return any(not p.policy.builtin for p in specs)


def policy_arrays(specs: list[PolicySpec]) -> tuple[np.ndarray, np.ndarray]:
    """Policy ids and parameter vectors of the slots, as the kernels take them."""
    return (np.array([p.policy.id for p in specs], dtype=np.int64),
            np.array([p.vector() for p in specs]))


def seat_slots(game: int, players: int, rotate: bool, size: int) -> np.ndarray:
    """Which slot plays each seat in game `game` (the kernels' rotation, seat s is
    played by slot (s + g mod P) mod P), padded to `size` entries."""
    rot = game % players if rotate else 0
    return np.array([(seat + rot) % players for seat in range(size)], dtype=np.int64)


def play_chunk(play, builtin: Callable, row_size: int, rules_arr: np.ndarray, init: np.ndarray,
               specs: list[PolicySpec], rotate: bool, seed: int, first: int, n: int) -> np.ndarray:
    """Rows of games first .. first + n - 1; `play` is the game's play module
    (with `play_games` and `make_play_games`), `builtin` its `choose`."""
    out = np.zeros((n, row_size), dtype=np.int32)
    ids, params = policy_arrays(specs)
    if user_policies(specs):
        key = (play.__name__, tuple(sorted({p.policy.id for p in specs if not p.policy.builtin})))
        if key not in _kernels:
            _kernels[key] = play.make_play_games(chooser(builtin, specs))
        kernel = _kernels[key]
    else:
        kernel = play.play_games
    kernel(rules_arr, init, ids, params, rotate, np.uint64(seed), first, out)
    return out


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


def games_per_second(n_games: int, play_one: Callable[[], Any]) -> float:
    """Time `n_games` calls of `play_one` (a reference engine's whole game)."""
    import time
    start = time.perf_counter()
    for _ in range(n_games):
        play_one()
    return n_games / (time.perf_counter() - start)
