"""Bye-Bye Black Sheep: the public wrapper (validate and convert in Python, compute in kernels)."""

from __future__ import annotations

from pathlib import Path

import random
from typing import Any

import numpy as np
import pandas as pd

from ... import search
from ...search import python_mcts
from ...errors import SheepsimError
from ...policies import PolicySpec, register_policy
from .. import stoptable, wrappers as W
from ..base import GameSpec, StopMeasure
from . import distill
from . import engine as E
from . import play as P
from . import policies as POL
from . import rules as R
from . import turnsolve as TS
from . import view as V
from .decided import decided_by_black_sheep
from .trace import trace

register_policy("blacksheep", "random", policy_id=POL.RANDOM,
                doc="uniform over the legal decisions at every decision point (draw from each opponent or "
                    "stop; every Eagle request or skip; every Mole/Magpie take or none; every placement or "
                    "done)")(POL.random_policy)
register_policy("blacksheep", "threshold", policy_id=POL.THRESHOLD,
                params={"k": (3.0, "stop once k cards lie on the table", 0.0, 40.0)}, integers=("k",),
                doc="draws from the opponent with the largest hand until k cards lie on the table, then "
                    "stops; effects and placement as described in `play_special` (Eagle: ask for the most "
                    "wanted species an opponent is known to hold; Mole: take the most wanted card; Magpie: "
                    "take the most valuable zoo card; place the species closest to a triplet)")(POL.threshold)
register_policy("blacksheep", "risk", policy_id=POL.RISK,
                params={"p": (0.25, "stop when the next draw is a Black Sheep with probability above p", 0.0, 1.0),
                        "w": (0.0, "if > 0, also stop when (1 - q) < q * w * placements a stop allows now",
                              0.0, 100.0)},
                doc="draws from the largest hand (Black Sheep chance q = 1 / its size) and stops when q > p "
                    "or, with w > 0, when drawing has negative value; effects and placement as `threshold`"
                )(POL.risk)
# turn_optimal's default objective is the one distilled's terms measure (POL.T_VALUE, T_WIN)
register_policy("blacksheep", "turn_optimal", policy_id=POL.TURN_OPTIMAL,
                params={"depth": (1.0, "draws looked ahead: the solver is exact for every policy that draws at "
                                       "most this many more cards this turn (draws onto a table of under 2 "
                                       "cards are free), and stops at that horizon",
                                  1.0, float(TS.MAX_DEPTH)),
                        "triplet": (POL.T_VALUE[3], "the objective's value of a triplet in the zoo", 0.0, 1000.0),
                        "pair": (POL.T_VALUE[2], "of a pair (two cards of a species) in the zoo, at most triplet",
                                 0.0, 1000.0),
                        "single": (POL.T_VALUE[1], "of a single card of a species in the zoo, at most pair",
                                   0.0, 1000.0),
                        "win": (POL.T_WIN, "of a zoo that holds the triplets to win, at least triplet", 0.0, 1000.0)},
                integers=("depth",),
                doc="stops or draws, and chooses the opponent, to maximise the expected value of its zoo at "
                    "the end of the turn (win, or triplet/pair/single per species), by exact expectimax over "
                    "what blind draws yield given what the seat knows, to `depth` draws ahead (turnsolve.py); "
                    "effects and placement as `threshold`; base game's cards only")(POL.turn_optimal)
# the weights fitted to turn_optimal's decisions (distill.py remakes the table)
_DISTILLED = dict(zip(POL.STOP_TERMS, distill.read()["weights"]))
_TERM_HELP = {"bias": "the rule's constant",
              "stake": "weight of q x stake (q: the chance that the draw is a Black Sheep; stake: what a stop now "
                       "adds to the zoo's value, single 0.2, pair 0.5, triplet 1, a winning zoo 10)",
              "placement": "weight of (1 - q) x what one more placement would add",
              "next_card": "weight of (1 - q) x what one more placement would add once the drawn card joins "
                           "the hand",
              "risk": "weight of q", "table": "weight of the cards on the table"}
register_policy("blacksheep", "distilled", policy_id=POL.DISTILLED,
                params={term: (_DISTILLED[term], _TERM_HELP[term], -1000.0, 1000.0) for term in POL.STOP_TERMS},
                doc="turn_optimal's stop decision distilled into a linear rule (98% of its choices, "
                    "at threshold's speed): draws from the largest hand while the weighted sum of six terms of "
                    "the position is positive, the weights fitted to turn_optimal's decisions (distill.py); "
                    "effects and placement as `threshold`")(POL.distilled)
register_policy("blacksheep", "learned", policy_id=POL.LEARNED,
                files={"table": "stop table file (JSON, from a `learn_stop` analysis); default: the one sheepsim "
                                 "ships for the player count (default rules)"},
                doc="draws from the largest hand until the cards on the table reach its cell's threshold in a "
                    "stop table learned by simulation (cells: own and leading opponent's triplets, the largest "
                    "opponent hand, own zoo pairs); effects and placement as `threshold`")(POL.learned)
search.register("blacksheep", "Bye-Bye Black Sheep", hidden=True, greedy="distilled, at its shipped weights")

# printed by `sheepsim policies blacksheep`; the codes are model.py's
POLICY_HELP = """\
A policy is an @njit function (the README's "Writing a policy"):

    policy(s, rules, aux, seat, params, rng, buf) -> (code, a, b)

It returns one legal decision for `seat`, the actor; `aux` is unused.
`n = engine.legal(s, rules, aux, buf)` lists the n legal decisions in buf
(int32[MAX_DECISIONS, 3]), one a row. Decision codes (model.py):

    0 STOP (0, 0, 0)                    1 DRAW (1, opponent, 0): a blind draw
    2 EAGLE_SKIP (2, 0, 0)              3 EAGLE_ASK (3, opponent, species)
    4 MOLE_NONE (4, 0, 0)               5 MOLE_TAKE (5, kind, 0)
    6 MAGPIE_NONE (6, 0, 0)             7 MAGPIE_TAKE (7, opponent, kind)
    8 WHITE_NONE (8, 0, 0)              9 WHITE_PLACE (9, kind, species)
   10 MOTHER_SKIP (10, 0, 0)           11 MOTHER_TAKE (11, 0, 0)
   12 PLACE_DONE (12, 0, 0)            13 PLACE (13, kind, species): hand to zoo

A card kind is 0 Black Sheep, 1 Eagle, 2 Mole, 3 Magpie, 4 Wolf, 5 White Sheep,
6 Mother Sheep, 7 Joker, 8 + s - 1 an animal of species s (1..16). Read only what
your seat may know: its own hand, the zoos, the table, hand sizes, the pile size and
its own KNOWN rows (state layout: the top of sheepsim/games/blacksheep/engine.py).
Constants: `from sheepsim.games.blacksheep.model import STOP, DRAW_FROM, PLACE, ...`."""


def initial_state(rules, position: dict | None = None) -> np.ndarray:
    """Every game is dealt from its own stream; the kernel needs no start state."""
    return np.zeros(1, dtype=np.int32)


def stop_features(rules) -> stoptable.Features:
    """The learned policy's feature set (policies.stop_cell)."""
    w = rules["triplets_to_win"] or E.SETUP[rules.num_players]["triplets"]
    return stoptable.Features(
        "blacksheep-zoo-hand-v1", (("own triplets", w), ("leading opponent's triplets", w),
                                   ("largest opponent hand, 2-card bands", POL.HAND_BANDS),
                                   ("own zoo pairs", POL.PAIR_BANDS)), "cards on the table",
        initial=POL.EQUILIBRIUM_K[rules.num_players], window=2,
        fixed=f"threshold:k={POL.EQUILIBRIUM_K[rules.num_players]}", floor=3,     # a stop on 2 cards places none
        doc=f"own and leading opponent's triplets (0..{w - 1}), the largest opponent hand (0-1, 2-3, ..., 8-9, "
            f"10+ cards: a draw from it is a Black Sheep with chance 1/size), own zoo pairs (0, 1, 2+)",
        ticks=(tuple(map(str, range(w))), tuple(map(str, range(w))),
               tuple(f"{2 * b}-{2 * b + 1}" for b in range(POL.HAND_BANDS - 1)) + (f"{POL.HAND_TOP}+",),
               tuple(map(str, range(POL.PAIR_BANDS - 1))) + (f"{POL.PAIR_BANDS - 1}+",)))


def policy_data(rules, specs: list[PolicySpec]) -> np.ndarray:
    """The learned seats' stop table (stoptable.py), else nothing; refuses a
    turn_optimal seat on rules or objectives it cannot solve."""
    for spec in specs:
        if spec.policy.builtin and spec.policy.id == POL.TURN_OPTIMAL:
            why = TS.refuse(rules.as_dict(), dict(zip(spec.policy.params, spec.values)))
            if why:
                raise SheepsimError(why)
    learned = stoptable.for_run(GAME, rules, specs, POL.LEARNED)
    return np.zeros(0, dtype=np.int32) if learned is None else stoptable.block(learned)


def check_aux(aux, rules_arr, specs: list[PolicySpec]) -> None:
    """The kernels' guard: a learned seat's table is in aux, at slot LEARNED_AT."""
    if any(s.policy.builtin and s.policy.id == POL.LEARNED for s in specs):
        w = int(rules_arr[R.R_TRIPLETS]) or int(E.SETUP_ARR[int(rules_arr[0]), 5])
        stoptable.check_block(aux, w * w * POL.HAND_BANDS * POL.PAIR_BANDS, at=POL.LEARNED_AT)


def play_chunk(rules_arr, init, specs: list[PolicySpec], rotate: bool, seed: int, first: int, n: int,
               metrics: np.ndarray | None = None) -> np.ndarray:
    check_aux(init, rules_arr, specs)
    return W.play_chunk(P.KERNELS, rules_arr, init, specs, rotate, seed, first, n, metrics)


def frame(rows: np.ndarray, rules, specs: list[PolicySpec], seed: int, first: int) -> pd.DataFrame:
    """Per-game results: the generic columns (score_s = triplets) plus draws,
    decisions and zoo sizes."""
    return W.frame(rows, specs, seed, first, rules.num_players, E.O_ROTATION,
                   {"winner": (E.O_WINNER, np.int8), "cowinners": (E.O_COWINNERS, np.int8),
                    "turns": (E.O_TURNS, np.int32), "capped": (E.O_CAPPED, bool), "draws": (E.O_DRAWS, np.int32),
                    "decisions": (E.O_DECISIONS, np.int32)},
                   {"score": (E.O_TRIPLETS, np.int8), "zoo": (E.O_ZOO, np.int8)})


def reference_bench(rules, n_games: int, seed: int, policy: str = "threshold:k=6") -> float:
    """Games/s of the reference engine with every seat on the threshold stop rule.

    The reference has no port of `play_special`: it stops and draws like `threshold`
    and places the species closest to a triplet, but declines the Eagle, Mole and
    Magpie (a comparable workload, stated in the bench output)."""
    from . import reference as ref
    from .model import DRAW, DRAW_FROM, MOTHER_TAKE, PLACE, PLACE_PHASE, STOP
    k = float(policy.partition("k=")[2] or 3)
    ref_rules = ref.Rules(**_reference_options(rules.as_dict()))
    rng = random.Random(seed)

    def decide(g):
        legal = ref.legal_decisions(g)
        d = ref.to_dict(g)
        if d["phase"] == DRAW:
            if len(d["table"]) >= k and legal[0][0] == STOP:
                return legal[0]
            sizes = [(sum(h), rng.random(), o) for o, h in enumerate(d["hands"]) if o != d["active"]]
            return (DRAW_FROM, max(sizes)[2], 0)
        if d["phase"] == PLACE_PHASE:
            places = [x for x in legal if x[0] == PLACE and x[1] >= 8]
            if places:
                zoo = d["zoos"][d["active"]]
                return max(places, key=lambda x: (zoo[x[1]] if zoo[x[1]] < 3 else -1, rng.random()))
        take = [x for x in legal if x[0] == MOTHER_TAKE]
        return take[0] if take else legal[0]

    def play_one():
        g = ref.deal(ref_rules, rng)
        while not ref.is_over(g):
            decision = decide(g)
            g = ref.apply(g, decision, ref.random_chance(g, decision, rng))

    return W.games_per_second(n_games, play_one)


def reference_search(rules, s: np.ndarray):
    """The reference engine as the plain-Python search sees it (search/python_mcts.py):
    each iteration re-deals what the searching seat cannot see (reference.determinize),
    a blind draw's card and the Magpie's place in the pile are chance; and `s` as a
    reference game, with what each seat knows."""
    from . import reference as ref
    from .trace import known, to_dict
    ref_rules = ref.Rules(**_reference_options(rules.as_dict()))
    players = ref_rules.num_players

    def apply(game, decision, rng):
        chance = ref.random_chance(game, decision, rng)
        return ref.apply(game, decision, chance), chance

    def shares(game):
        # a capped game without a winner is a draw: an equal share each (search/mcts.py)
        winner = game.winner
        return [1.0 / players] * players if winner < 0 else [float(q == winner) for q in range(players)]

    engine = python_mcts.Engine(actor=ref.actor, legal=ref.legal_decisions, apply=apply, shares=shares,
                                determinize=ref.determinize)
    return engine, ref.from_dict(ref_rules, to_dict(s), known=known(s))


def _reference_options(opts: dict[str, Any]) -> dict[str, Any]:
    yes = {"yes": True, "no": False, "on": True, "off": False}
    out = {}
    for k, v in opts.items():
        if k == "zoo_max_per_species":
            out[k] = 0 if v == "none" else 3
        elif isinstance(v, str) and v in yes:
            out[k] = yes[v]
        else:
            out[k] = v
    return out



END_CONDITIONS = ("triplets to win", "turn cap")

# what learn_stop counts in self-play beside the first player's win rate (decided.py)
STOP_MEASURE = StopMeasure(
    "black_sheep", "decided by a Black Sheep",
    "a seat that did not win drew a Black Sheep when stopping instead would have won the game at once "
    "(games/blacksheep/decided.py)", "a Black Sheep decides", decided_by_black_sheep)

GAME = GameSpec(
    name="blacksheep", title="Bye-Bye Black Sheep", version=E.VERSION, players=R.PLAYERS, options=R.OPTIONS,
    turn_unit="turns", make_rules=R.make, to_array=R.to_array, initial_state=initial_state,
    play_chunk=play_chunk, frame=frame, trace=trace, reference_bench=reference_bench,
    reference_search=reference_search, bench_players=3, bench_policy="threshold:k=6", policy_help=POLICY_HELP,
    bench_workload="complete games (reference: same stop rule and placement, Eagle/Mole/Magpie declined)",
    bench_more=(("learned", "the shipped 3-player stop table (learned), complete games"),
                ("turn_optimal", "the within-turn solver at depth 1, complete games"),
                ("distilled", "turn_optimal's stop distilled into a linear rule, complete games")),
    decisions_column=E.O_DECISIONS,
    play=P.KERNELS, compile_seconds=55, policy_data=policy_data, stop_features=stop_features,
    stop_measure=STOP_MEASURE,
    end_conditions=END_CONDITIONS, end_condition=W.end_at_cap,
    skill_policies=("threshold:k=7", "random"),
    hidden=True, luck=True,
    readings=Path(__file__).with_name("READINGS.md"),
    replay_view=V.view, replay_text=V.TEXT_SHAPE,
)
