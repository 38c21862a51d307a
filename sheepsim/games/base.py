"""The contract every game module fulfils, as one record (sheepsim/ARCHITECTURE.md: the GameSpec).

The runner, CLI, analyses and benchmarks only talk to a `GameSpec`; everything
game-specific stays inside the game's package.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

from ..options import Option, Rules
from .view import GameView, TextShape


@dataclass(frozen=True)
class Baseline:
    """A plain-C program of a game's rules and policy that `sheepsim bench` times beside the
    game's kernel at 1 thread, run for run (bench.c_baseline)."""
    # the program: one C file, built with `cc -O3 -march=native -fopenmp`; run as
    # `PROGRAM GAMES THREADS PLAYERS START` it plays GAMES games and prints games_per_s=X
    source: Path
    players: int                   # the players of every workload
    policy: str                    # the policy SPEC of every seat: the one the program plays
    # rules -> the workloads, each (label, the kernels' start state, the program's START
    # argument: a start file, or "-" for its own start)
    workloads: Callable[[Rules], tuple[tuple[str, np.ndarray, str], ...]]


@dataclass(frozen=True)
class StopOptimum:
    """The exactly solved optimal stop of a push-your-luck game (Pig's optimal.py) under
    one set of rules, which learn_stop holds its learned stop table against: the optimum
    drawn beside the table and the learned table calibrated on it. Its words name what
    the report's sentences compare; its functions compute only when called."""
    setting: str                   # the rules it is solved for, in words ("goal 100")
    states: str                    # the states the tables are compared over ("(own, opponent) scores")
    threshold: str                 # what a table cell holds ("hold threshold")
    panel: str                     # the title of the optimum's panel beside the learned table
    # () -> the optimum's thresholds in the learned table's layout (feature cells), for that panel
    cells: Callable[[], np.ndarray]
    # () -> the first seat's exact win rate, every seat playing the optimum
    first: Callable[[], float]
    # (a table's thresholds, its cells' visits) -> (|table - optimum| over the states the table
    # reaches, the first seat's exact win rate with every seat playing the table)
    compare: Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, float]]
    # (one threshold in every cell) -> the first seat's exact win rate on that constant table
    constant: Callable[[int], float]


@dataclass(frozen=True)
class StopMeasure:
    """A yes or no of every self-play game that learn_stop counts beside the first seat's
    win rate, for the learned table and for the fixed rule on the same deals (Bye-Bye
    Black Sheep: the games a Black Sheep decided)."""
    column: str                    # the table's column ("black_sheep"), its interval columns _lo, _hi
    header: str                    # the column's header ("decided by a Black Sheep")
    meaning: str                   # what it counts, in the caption after the header and a colon
    finding: str                   # the finding's subject, before "N of the games" ("a Black Sheep decides")
    # (play module, rules array, aux, seat specs, rotate, seed, game indices) -> bool per game
    games: Callable[..., np.ndarray]


@dataclass(frozen=True)
class GameSpec:
    name: str                      # CLI name, e.g. "battlesheep"
    title: str                     # rulebook title, e.g. "Battle Sheep"
    version: int                   # bumped when behaviour changes; stored with results
    players: tuple[int, int]
    options: tuple[Option, ...]
    turn_unit: str                 # what the `turns` column counts
    make_rules: Callable[[int, dict[str, Any] | None], Rules]
    to_array: Callable[[Rules], np.ndarray]
    # (rules, start or None) -> what the kernels start every game from. The start is the
    # JSON-able object the runner records in the manifest (`start_position`): a position
    # (Battle Sheep, --from-position), {"deck": <read_deck's data>} (--deck), or None.
    initial_state: Callable[[Rules, dict | None], np.ndarray]
    # (rules_arr, init, specs, rotate, seed, first, n, metrics=None) -> int32 rows; with
    # metrics, float64[n, tally.M_SIZE], also each game's experience metrics (games/tally.py)
    play_chunk: Callable[..., np.ndarray]
    # (rows, rules, specs, seed, first) -> per-game DataFrame with the generic columns
    frame: Callable[..., Any]
    # (rules, specs, seed, game, rotate, init, as_json, deck_file=None) -> text; deck_file is the
    # --deck file the start was read from (the trace names it), None without one
    trace: Callable[..., str]
    # (rules, n_games, rng seed, policy SPEC) -> games/s of the pure-Python reference engine
    reference_bench: Callable[[Rules, int, int, str], float]
    # what `sheepsim bench` plays: players (None = the minimum), one policy SPEC for
    # every seat, and a description of the workload
    bench_players: int | None = None
    bench_policy: str = "random"
    bench_workload: str = "uniform random policy, complete games"
    # further rows of `sheepsim bench`, (policy SPEC, workload) each, with the same
    # players: kernel speed only (the reference and start-up columns are the first row's)
    bench_more: tuple[tuple[str, str], ...] = ()
    # the result row's column counting a game's decisions, if it has one (bench: decisions/s)
    decisions_column: int | None = None
    # a plain-C program `sheepsim bench` also times, side by side with the kernel (Battle
    # Sheep's baselines/bsfull.c), or None
    baseline: Baseline | None = None
    # games with a position format (Battle Sheep) also give:
    # (position file) -> the position as a JSON-able dict, every field checked (SheepsimError
    # naming the file): what `--from-position FILE` reads (start.resolve)
    read_position: Callable[[Path], dict] | None = None
    # (position dict, option overrides) -> rules implied by a position file
    rules_for_position: Callable[[dict, dict[str, Any]], Rules] | None = None
    # (position dict, rules) -> legal moves as a JSON-able list
    legal: Callable[[dict, Rules], list] | None = None
    # card games that take a designer's deck (`--deck FILE`, TOML or JSON, see
    # games/deckfile.py) also give: (deck file) -> the deck as JSON-able data, every card
    # checked (SheepsimError naming the file). The start object is then {"deck": data}:
    # initial_state builds the kernels' deck from it and checks it against the players.
    read_deck: Callable[[Path], list] | None = None
    # games whose built-in policies read fixed data (Pig's optimal: its decision table) also
    # give: (rules, specs) -> what a run of these policies appends to the start state in the
    # kernels' aux (same dtype; empty when none of them reads any), raising SheepsimError
    # when they cannot play these rules. start.kernel_aux calls it: runs whose policies read
    # nothing keep the start state alone as aux, so their results do not change
    policy_data: Callable[[Rules, list], np.ndarray] | None = None
    # perfect-information games also give: (rules, a kernel state) -> (search.python_mcts
    # Engine over the reference engine, that position as a reference game), for the
    # plain-Python search `sheepsim bench` times beside the kernel agent
    reference_search: Callable[[Rules, np.ndarray], tuple] | None = None
    # push-your-luck games with a `learned` stop policy also give: rules -> its feature set
    # (stoptable.Features); play then has probe_blocks, policies.py LEARNED and the
    # stop_cell, stop_amount and stop_act hooks (games/stoptable.py)
    stop_features: Callable[[Rules], Any] | None = None
    # push-your-luck games whose optimal stop is solved exactly (Pig) also give: (rules, the
    # stop_features of those rules) -> StopOptimum, drawn beside the learned table and
    # calibrating it (analysis/learn_stop.py)
    stop_optimum: Callable[[Rules, Any], StopOptimum] | None = None
    # a yes or no of every self-play game that learn_stop counts for the learned table and the
    # fixed rule (Bye-Bye Black Sheep: decided by a Black Sheep), or None
    stop_measure: StopMeasure | None = None
    # the ways a game ends, by code, and (per-game frame, rules) -> those codes, read off
    # the result columns: the `end` column of a run with --metrics (stats.tables.end_table)
    end_conditions: tuple[str, ...] = ()
    end_condition: Callable[[Any, Rules], np.ndarray] | None = None
    # the designer's check (analysis/check.py): a stronger and a weaker policy SPEC whose
    # gap measures how much skill matters; the stronger also plays the self-play games
    skill_policies: tuple[str, str] = ("greedy", "random")
    # how to write a policy for this game (signature, return value, what it may read),
    # printed by `sheepsim policies GAME`
    policy_help: str | None = None
    # the game's play module (its cached kernels: play_blocks, replay, user_kernels), and
    # how long compiling its chunk kernel takes on a first run (seconds, measured on one
    # core of the 2-core reference machine), for the note printed before it
    play: Any = None
    compile_seconds: int = 60
    # the game's declared traits, which tests and tools read (never a list of names):
    # a game of simultaneous reactions plays in a loop of its own, not the turn
    # driver's (Bobby Sitter), and has no decision hooks
    simultaneous: bool = False
    # seats hold cards the others cannot see: search re-deals them (determinize) and
    # the re-deal tests prove that every policy decides only from what its seat knows
    hidden: bool = False
    # chance meets the seats' decisions (dice, blind draws): alpha-beta cannot search it
    luck: bool = False
    # the game's rules readings (Markdown, in its folder): every place the rulebook is
    # silent or ambiguous, the reading taken and the option that selects another
    # (`sheepsim rules GAME --readings`)
    readings: Path | None = None
    # the HTML replay (report/replay.py; games/view.py's data classes): the game's own view,
    # (rules, kernels' start state, JSON trace events) -> GameView, and the TextShape that cuts
    # its text trace into one piece per event; None for either: the generic one (the
    # position as its trace draws it; games/turngame.py's trace)
    replay_view: Callable[[Rules, np.ndarray, list[dict]], GameView] | None = None
    replay_text: TextShape | None = None
