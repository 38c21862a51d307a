"""Bobby Sitter: the public wrapper (validate and convert in Python, compute in kernels).

No card distribution was found: the default deck and the built-in player profiles
are ASSUMPTIONS (READINGS.md, "The deck" and "Who is fastest"), exposed as options and
parameters so a designer can change them.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pandas as pd

from ...options import per_player_values
from ...errors import SheepsimError
from ...policies import PolicySpec, register_policy
from .. import wrappers as W
from ..base import GameSpec
from . import engine as E
from . import play as P
from . import policies as POL
from . import rules as R
from . import view as V
from .model import DEFAULT_COUNTS, PROFILE_PARAMS, PROFILES
from .trace import trace

_PARAM_HELP = {
    "median_ms": ("median reaction time in ms", 1.0, 60_000.0),
    "spread": ("sigma of the log reaction time (log-normal spread)", 0.0, 5.0),
    "p_false_empty": ("probability of reacting to an empty card", 0.0, 1.0),
    "p_false_hidden": ("probability of reacting to a hidden-wolf card", 0.0, 1.0),
    "p_wrong_counter": ("probability of grabbing the wrong counter on a wolf or sheep card", 0.0, 1.0),
}


def _params(defaults: tuple[float, ...]) -> dict:
    return {k: (d, *_PARAM_HELP[k]) for k, d in zip(PROFILE_PARAMS, defaults)}


for _name, _id in (("adult", POL.ADULT), ("child", POL.CHILD), ("young_child", POL.YOUNG_CHILD)):
    register_policy("bobbysitter", _name, policy_id=_id, params=_params(PROFILES[_name]),
                    doc=f"ASSUMED {_name.replace('_', ' ')} reaction profile (no data was found): "
                        f"median {PROFILES[_name][0]:g} ms, log-normal sigma {PROFILES[_name][1]:g}, reacts to "
                        f"{PROFILES[_name][2]:.0%} of empty and {PROFILES[_name][3]:.0%} of hidden-wolf cards, "
                        f"grabs the wrong counter {PROFILES[_name][4]:.0%} of the time")(POL.profile)
register_policy("bobbysitter", "profile", policy_id=POL.PROFILE, params=_params(PROFILES["adult"]),
                doc="a reaction profile with every parameter given (defaults: adult), e.g. "
                    "profile:median_ms=600,spread=0.3,p_false_empty=0.1,p_false_hidden=0.2,p_wrong_counter=0.05"
                )(POL.profile)


def initial_state(rules, start: dict | None = None) -> np.ndarray:
    """The deck as card codes (from the counts options, or start["deck"])."""
    if start is not None:
        # the count options would be silently ignored, and the manifest would show them
        changed = [name for name, default in DEFAULT_COUNTS.items() if rules[name] != default]
        if changed:
            raise SheepsimError(f"an explicit deck replaces the generated one: drop the option(s) "
                                f"{', '.join(changed)}")
    return R.deck_array(rules, None if start is None else start.get("deck"))


def play_chunk(rules_arr, deck, specs: list[PolicySpec], rotate: bool, seed: int, first: int, n: int,
               metrics: np.ndarray | None = None) -> np.ndarray:
    return W.play_chunk(P, rules_arr, deck, specs, rotate, seed, first, n, metrics)


def frame(rows: np.ndarray, rules, specs: list[PolicySpec], seed: int, first: int) -> pd.DataFrame:
    """Per-game results: generic columns (turns = flips, score_s = tokens at the end),
    reshuffles, and per seat: starting tokens, eliminated, penalties (tokens lost
    reacting to no-react cards), wolf_losses and sheep_gains."""
    p = rules.num_players
    df = W.frame(rows, specs, seed, first, p, E.O_ROTATION,
                 {"winner": (E.O_WINNER, np.int8), "cowinners": (E.O_COWINNERS, np.int8),
                  "turns": (E.O_TURNS, np.int32), "capped": (E.O_CAPPED, bool),
                  "reshuffles": (E.O_RESHUFFLES, np.int32)},
                 {"score": (E.O_TOKENS, np.int16), "eliminated": (E.O_ELIMINATED, np.int8),
                  "penalties": (E.O_PENALTIES, np.int16), "wolf_losses": (E.O_WOLF_LOSSES, np.int16),
                  "sheep_gains": (E.O_SHEEP_GAINS, np.int16)})
    starts = np.array(per_player_values(rules, "start_tokens"), dtype=np.int16)
    rotation = df["rotation"].to_numpy()
    for seat in range(p):
        df[f"start_{seat}"] = starts[(seat + rotation) % p]
    return df


def reference_bench(rules, n_games: int, seed: int, policy: str = "adult") -> float:
    """Games/s of the pure-Python reference engine, every seat the given built-in profile."""
    from . import reference
    ref_rules = R.reference_rules(rules)
    profile = PROFILES.get(policy, PROFILES["adult"])
    rng = random.Random(seed)
    return W.games_per_second(n_games, lambda: reference.play(ref_rules, [profile] * rules.num_players, rng))



END_CONDITIONS = ("target reached", "last standing", "everyone out", "flip cap")


def end_condition(df: pd.DataFrame, rules) -> np.ndarray:
    """engine._end_or_next's order: a seat at the target, the last seat left (with
    last_standing_wins), every seat out at once (a draw), the flip cap."""
    winner = df["winner"].to_numpy()
    scores = np.stack([df[f"score_{q}"].to_numpy() for q in range(rules.num_players)], axis=1)
    top = scores[np.arange(len(df)), np.maximum(winner, 0)]
    code = np.where(winner < 0, 2, np.where(top >= rules["target_tokens"], 0, 1))
    return np.where(df["capped"].to_numpy(), 3, code).astype(np.int8)

GAME = GameSpec(
    name="bobbysitter", title="Bobby Sitter", version=E.VERSION, players=R.PLAYERS, options=R.OPTIONS,
    turn_unit="flips", make_rules=R.make, to_array=R.to_array, initial_state=initial_state,
    play_chunk=play_chunk, frame=frame, trace=trace, reference_bench=reference_bench,
    bench_players=4, bench_policy="adult", read_deck=R.read_deck, policy_help=POL.__doc__.split("\n\n", 1)[1],
    bench_workload="every seat the assumed adult profile, complete games (deck: the assumed default)",
    play=P, compile_seconds=35, end_conditions=END_CONDITIONS, end_condition=end_condition,
    skill_policies=("adult", "child"),
    simultaneous=True, luck=True,
    readings=Path(__file__).with_name("READINGS.md"),
    replay_view=V.view, replay_text=V.TEXT_SHAPE,
)
