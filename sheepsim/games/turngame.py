"""A turn game's GameSpec from its Engine: the generic parts every new game may take.

A built-in game writes its own wrapper (validation, a deck or position format, a
rich trace); a game that needs none of that, a plug-in from outside the package
above all, gives `turn_game` its Engine declaration and a few words and gets the
rest: rules from its options, runs, results with its columns, a text and JSON trace
of every decision, an HTML replay (a generic view: the board as text).

    GAME = turn_game(declaration=sys.modules[__name__], name="tictactoe", title="Tic-tac-toe",
                     players=(2, 2), columns={"winner": (O_WINNER, np.int8), ...},
                     state_text=board, action_text=lambda a: f"cell {a[0]}")

The declaration module holds ENGINE (games/kernels.py) and KERNELS (its kernels:
kernels.load). Every result row has `winner` and `cowinners` columns and a `turns`
count (the runner's summaries read them), named in `columns`, and a `capped` column
if a cap can stop a game (else every game is recorded as ended by its rules).
"""

from __future__ import annotations

import json
import random
from typing import Any, Callable

import numpy as np

from ..errors import SheepsimError
from ..options import Option, Rules, make_rules, pack
from ..rng import streams
from . import driver, wrappers as W
from .base import GameSpec
from .tracetext import rules_lines

REQUIRED = ("winner", "cowinners", "turns")


def turn_game(*, declaration, name: str, title: str, players: tuple[int, int], columns: dict[str, tuple[int, Any]],
              seat_columns: dict[str, tuple[int, Any]] | None = None, options: tuple[Option, ...] = (),
              version: int = 1, turn_unit: str = "moves", state_text: Callable[[np.ndarray, Rules], str] | None = None,
              action_text: Callable[[tuple], str] | None = None, policy_help: str | None = None,
              skill_policies: tuple[str, str] = ("greedy", "random"), bench_policy: str = "random",
              **more: Any) -> GameSpec:
    """The GameSpec of a turn game declared in module `declaration` (ENGINE, KERNELS);
    `more` passes further GameSpec fields (games/base.py)."""
    missing = [c for c in REQUIRED if c not in columns]
    if missing:
        raise SheepsimError(f"game {name}: its result columns must include {', '.join(missing)}")
    engine, kernels = declaration.ENGINE, declaration.KERNELS
    seat_columns = dict(seat_columns or {})
    state_text = state_text or (lambda s, rules: " ".join(str(int(x)) for x in s))
    action_text = action_text or (lambda a: " ".join(str(x) for x in a))

    def rules_of(num_players: int, overrides: dict[str, Any] | None = None) -> Rules:
        return make_rules(name, options, players, num_players, overrides)

    def to_array(rules: Rules) -> np.ndarray:
        return pack(rules, options)

    def initial_state(rules: Rules, start: dict | None) -> np.ndarray:
        if start is not None:
            raise SheepsimError(f"{title} starts from its own deal: it takes no --deck or --from-position file")
        return np.zeros(1, dtype=np.int32)

    def play_chunk(rules_arr, init, specs, rotate, seed, first, n, metrics=None):
        return W.play_chunk(kernels, rules_arr, init, specs, rotate, seed, first, n, metrics)

    def frame(rows, rules, specs, seed, first):
        df = W.frame(rows, specs, seed, first, rules.num_players, engine.shape.rotation, columns, seat_columns)
        if "capped" not in df:          # a game without a turn cap: every game ended by its rules
            df["capped"] = np.zeros(len(df), dtype=bool)
        return df

    def trace(rules, specs, seed, game, rotate, init, as_json, deck_file=None) -> str:
        events, lines = _trace(kernels, engine, rules, options, to_array(rules), specs, seed, game, rotate, init,
                               title, columns, state_text, action_text)
        return json.dumps(events) if as_json else "\n".join(lines)

    def reference_bench(rules, n_games, seed, policy="random") -> float:
        """Games/s of the engine's own hooks played from Python, uniform random: the
        plain-Python speed the kernels are measured against (a plug-in game has no
        separate reference engine)."""
        arr, rng = to_array(rules), random.Random(seed)
        buf = np.zeros((engine.shape.max_actions, engine.shape.action_size), dtype=np.int32)
        start, actor, legal, step = (getattr(h, "py_func", h) for h in (engine.start, engine.actor, engine.legal,
                                                                         engine.step))
        aux = np.zeros(1, dtype=np.int32)
        deal = streams(seed, 0, engine.shape.streams)[0]

        def one():
            s = np.zeros(engine.shape.state_size, dtype=np.int32)
            start(s, arr, aux, deal)
            while actor(s, arr) >= 0:
                n = legal(s, arr, aux, buf)
                step(s, arr, aux, tuple(int(x) for x in buf[rng.randrange(n)]), -1)
        return W.games_per_second(n_games, one)

    return GameSpec(name=name, title=title, version=version, players=players, options=options,
                    turn_unit=turn_unit, make_rules=rules_of, to_array=to_array, initial_state=initial_state,
                    play_chunk=play_chunk, frame=frame, trace=trace, reference_bench=reference_bench,
                    bench_policy=bench_policy, policy_help=policy_help, skill_policies=skill_policies,
                    play=kernels, **more)


def _trace(kernels, engine, rules, options, arr, specs, seed, game, rotate, init, title, columns, state_text,
           action_text):
    """(JSON events, text lines) of one game: its decisions replayed from its log. The
    events are the start, one per decision and the end (report/replay.py's generic
    view draws each one's `state`, as the text draws it)."""
    log, row, slots, rngs = W.replay(kernels, arr, init, specs, rotate, seed, game, engine.max_log)
    p = rules.num_players
    width = engine.shape.action_size
    policy = [specs[int(slots[q])].label for q in range(p)]
    s = np.zeros(engine.shape.state_size, dtype=np.int32)
    kernels.R_START(s, arr, init, rngs[0])          # the game's streams afresh (W.replay)
    lines = [f"{title}, {p} players, seed {seed}, game {game}",
             *(rules_lines(rules, options) if options else ["rules: as the rules (this game has no options)"]),
             "  " + ", ".join(f"seat {q}: {policy[q]}" for q in range(p)),
             *("  " + x for x in state_text(s, rules).splitlines())]
    events: list[dict] = [{"event": "start", "state": state_text(s, rules)}]
    for t, entry in enumerate(log):
        who, action, c = int(entry[0]), tuple(int(x) for x in entry[1:1 + width]), int(entry[1 + width])
        kernels.R_STEP(s, arr, init, action, c)
        by = "the rules" if who == driver.NATURE else f"seat {who} ({policy[who]})"
        lines.append(f"{t + 1}. {by} plays {action_text(action)}" + (f", chance {c}" if c >= 0 else ""))
        lines += ["   " + x for x in state_text(s, rules).splitlines()]
        events.append({"event": "move", "seat": who if who >= 0 else None, "action": list(action),
                       "chance": c if c >= 0 else None, "state": state_text(s, rules)})
    mask = int(row[columns["cowinners"][0]])
    winners = [q for q in range(p) if mask >> q & 1]
    lines.append("result: " + (" and ".join(f"seat {q}" for q in winners) + " won" if winners else
                               "no winner (a draw)"))
    events.append({"event": "end", "state": state_text(s, rules),
                   "result": {"winner": int(row[columns["winner"][0]]), "cowinners": winners}})
    return events, lines
