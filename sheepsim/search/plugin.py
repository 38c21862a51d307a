"""Search agents from outside the package: a plug-in file registers one with
`register_agent`, as a user policy registers with `register_policy`.

An agent is ONE @njit function over the engine contract, the same for every game:

    decide(actor, legal, nature, chance, step, outcome, progress, determinize,
           copy_state, choose, prior, view, game, spec, rollout_params, hidden,
           s, rules, aux, seat, params, rng, buf, scratch)

It writes its action into buf[0] (any return value is ignored). The hooks are the
game's (games/driver.py; `determinize` re-deals what `seat` cannot see where `hidden`
is true, and is never to be called otherwise); `choose(policy_id, s, rules, aux, seat,
params, rng, buf, scratch)` is the game's rollout dispatcher and `prior` its built-ins'
dispatcher; `view` how the hooks see an array (games/fast.py); `game` the
driver.Shape; `spec` (result row size, winners column, the ids of the rollout
policies `random` and `greedy`) and `rollout_params` (their parameter vectors) as
search/mcts.py reads them. `s` is the state to decide in, read only: search on a copy
(copy_state(dst, s, game.state_size)). `rng` is the seat's own policy stream: an agent
that draws only from it keeps results a function of (config, seed, game index).

Registered for the games it names, the agent gets a policy id below the user
policies' and runs in kernels of a kind of its own, written like the built-in agents'
(search/wiring.py) and cached on disk: it starts as fast as a built-in. The hooks it
receives are their compiled twins (driver.called), called rather than inlined, so a
new agent compiles in seconds even for a card game. Its kernels
also play the built-in agents, so a run may seat it against mcts or alphabeta; two
plug-in agents need two runs.
"""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path
from typing import Callable

from numba import njit

from ..errors import SheepsimError
from ..games import kernels
from ..policies import USER_ID_BASE, ParamDecl, policies_for, register_policy
from . import agents, wiring

# plug-in agents' ids: above the built-in agents', below the user policies'
FIRST_PLUGIN_ID, LAST_PLUGIN_ID = agents.LAST_ID + 1, USER_ID_BASE - 1

_AGENTS: dict[str, tuple[int, Callable]] = {}     # name -> (policy id, decide)

# The plug-in agent's `search` (its id) beside the built-in agents' (the "search"
# kernels' own, called), then the same dispatcher and kernels as theirs
_TEMPLATE = wiring.CONTEXT + '''
from sheepsim.search import plugin

# the plug-in agent @NAME@ (@FILE@), policy id @ID@
DECIDE = plugin.decide_of(@NAME_REPR@, @MODULE_REPR@, @FILE_REPR@)
AGENT_ID = @ID@
BUILT_IN = kernels.of_kind(_SELF, "search").search
FIRST_ID, LAST_ID = agents.FIRST_ID, AGENT_ID
# the hooks it gets are called, not inlined (driver.called, their compiled twins in the
# disk cache): the agent compiles in seconds where inlining every hook into it took
# minutes for a card game; the built-in agents inline them
R_DETERMINIZE, R_COPY_STATE, R_ROLLOUT = map(driver.called, (DETERMINIZE, COPY_STATE, ROLLOUT))


@njit(cache=True, nogil=True)
def search(policy_id, s, rules, aux, seat, params, rng, buf, scratch):
    if policy_id == AGENT_ID:
        DECIDE(R_ACTOR, R_LEGAL, R_NATURE, R_CHANCE, R_STEP, R_OUTCOME, R_PROGRESS, R_DETERMINIZE, R_COPY_STATE,
               R_ROLLOUT, R_CHOOSE, VIEW, GAME, SEARCH, ROLLOUT_PARAMS, HIDDEN, s, rules, aux, seat, params, rng, buf,
               scratch)
    else:
        BUILT_IN(policy_id, s, rules, aux, seat, params, rng, buf, scratch)
''' + wiring.DISPATCH


def decide_of(name: str, module: str, file: str | None = None) -> Callable:
    """The decide function of plug-in agent `name` (its kernel file reads it; a process
    that has not loaded the agent loads it: from `file`, or imports `module`)."""
    if name not in _AGENTS:
        if file is not None:
            from ..policies import load_plugin
            load_plugin(file)
        else:
            importlib.import_module(module)
    if name not in _AGENTS:
        raise SheepsimError(f"no plug-in agent {name!r} is loaded (load its file with --plugin)")
    # inlined into the kernel, as the built-in agents are: a kernel that calls it,
    # passing the hooks as arguments, is not one numba can keep in its disk cache
    return njit(inline="always")(_AGENTS[name][1].py_func)


def register_agent(name: str, decide: Callable, games: tuple[str, ...] | list[str],
                   params: dict[str, ParamDecl] | None = None, doc: str | None = None,
                   integers: tuple[str, ...] = (), choices: dict[str, tuple[str, ...]] | None = None,
                   check: Callable[[dict[str, float]], str] | None = None) -> Callable:
    """Register the @njit agent `decide` (the signature above) as policy `name` of every
    game in `games` (built-in or plug-in, registered before it), with `params`,
    `integers`, `choices` and `check` as for policies.register_policy; returns `decide`."""
    if not re.fullmatch(r"[a-z][a-z0-9_]*", name):
        raise SheepsimError(f"agent name {name!r}: use lower-case letters, digits and _, starting with a letter")
    if getattr(decide, "py_func", None) is None:
        raise SheepsimError(f"agent {name} must be an @njit function (from numba import njit)")
    if not games:
        raise SheepsimError(f"agent {name}: name the games it plays (games=...)")
    taken = [g for g in games for p in policies_for(g) if p.name == name and p.kind != _kind(name)]
    if taken:
        raise SheepsimError(f"{taken[0]} already has a policy {name!r}; give the agent another name")
    if name in _AGENTS:
        pid = _AGENTS[name][0]          # its file loaded again: the same id
    else:
        pid = FIRST_PLUGIN_ID + len(_AGENTS)
        if pid > LAST_PLUGIN_ID:
            raise SheepsimError(f"at most {LAST_PLUGIN_ID - FIRST_PLUGIN_ID + 1} plug-in agents can be loaded at once")
    file = _file_of(decide)
    _AGENTS[name] = (pid, decide)
    # @...@ placeholders, not str.format: the template's "{action}" is load()'s to fill
    fills = {"@NAME_REPR@": repr(name), "@MODULE_REPR@": repr(decide.py_func.__module__), "@FILE_REPR@": repr(file),
             "@NAME@": name, "@FILE@": file or "importable by name", "@ID@": str(pid)}
    text = _TEMPLATE
    for mark, value in fills.items():
        text = text.replace(mark, value)
    kernels.register_kind(_kind(name), text, __name__, covers=("search",), sources=(file,) if file else ())
    for game in games:
        register_policy(game, name, params=params, doc=doc, policy_id=pid, integers=integers, choices=choices,
                        check=check, kind=_kind(name))(decide)
    return decide


def _kind(name: str) -> str:
    return f"agent_{name}"


def _file_of(decide: Callable) -> str | None:
    """The file that defines `decide`, if it is outside the package (its kernels then
    depend on it, and a new process loads it from there)."""
    module = sys.modules.get(getattr(decide.py_func, "__module__", ""))
    path = getattr(module, "__file__", None)
    if path is None or kernels.PACKAGE in Path(path).resolve().parents:
        return None
    return str(Path(path).resolve())
