"""Hiboufou: the public wrapper (validate and convert in Python, compute in kernels).

No component list of the real game was found: the default deck (6 colours, every pair
of colours 4 times, 60 cards) is an ASSUMPTION (READINGS.md, "The deck and the number
of players"), and the deck options and deck files (`--deck FILE`, a list of colour
sets) exist so designers can explore others. A deck file travels as the start object
{"deck": [[colour names], ...]}, so the runner records it in every manifest.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pandas as pd

from ...errors import SheepsimError
from ... import search
from ...search import python_mcts
from ...policies import PolicySpec, register_policy
from .. import wrappers as W
from ..base import GameSpec
from ..deckfile import read_cards
from . import engine as E
from . import play as P
from . import policies as POL
from . import reference
from . import rules as R
from . import view as V
from .model import COLOUR_NAMES, colours_of, parse_deck
from .trace import trace

register_policy("hiboufou", "random", policy_id=POL.RANDOM,
                doc="uniform over the legal decisions (lay a card on a space, end the turn, or draw when "
                    "nothing can be laid) at every decision point")(POL.random_policy)
register_policy("hiboufou", "greedy", policy_id=POL.GREEDY,
                doc="searches the laying sequences that empty the hand this turn and captures the biggest "
                    "pile it can; otherwise keeps laying on the lowest pile while holding more than 3 cards, "
                    "else ends the turn")(POL.greedy)
register_policy("hiboufou", "defensive", policy_id=POL.DEFENSIVE,
                doc="captures like greedy when it can; otherwise picks the move that leaves the smallest "
                    "biggest pile for the next player (ties: end the turn, then the first legal play)"
                )(POL.defensive)
search.register("hiboufou", "Hiboufou", hidden=True, greedy="the greedy policy")


POLICY_HELP = (
    "A policy is an @njit function policy(s, rules, aux, seat, params, rng, buf), aux the deck, returning one legal "
    "decision (code, a, b): (0, card, space) lays a card, (1, 0, 0) ends the turn, (2, 0, 0) is the forced "
    "draw. engine.legal(s, rules, aux, buf) lists them in buf. aux[card] is a card's colour mask; "
    "read only your own hand, the row and public counts (sheepsim/games/hiboufou/policies.py).")

DECK_OPTIONS = ("colours", "colours_per_card", "copies")


def read_deck(path: Path) -> list[list[str]]:
    """A deck file as JSON-able data: every card's colour names, in colour order (so
    the same deck written differently gives the same manifest)."""
    cards = read_cards(path)
    try:
        masks = parse_deck(cards, first=1)
    except ValueError as exc:
        raise SheepsimError(f"deck file {path}: {exc}")
    return [[COLOUR_NAMES[c] for c in colours_of(m)] for m in masks]


def initial_state(rules, start: dict | None = None) -> np.ndarray:
    """The deck (colour masks by card id) every game is dealt from: generated from the
    deck options, or start["deck"] (colour-name lists, as read_deck returns)."""
    if start is None:
        return R.deck_array(rules)
    if not isinstance(start, dict) or set(start) != {"deck"}:
        raise SheepsimError('a hiboufou start must be {"deck": [["red", "orange"], ...]}, not ' + repr(start)[:60])
    # the options would be silently ignored, and the manifest would show them
    changed = [o.name for o in R.OPTIONS if o.name in DECK_OPTIONS and rules[o.name] != o.default]
    if changed:
        raise SheepsimError(f"an explicit deck replaces the generated one: drop the option(s) {', '.join(changed)}")
    try:
        masks = parse_deck(start["deck"])
    except ValueError as exc:
        raise SheepsimError(f"deck: {exc}")
    return R.deck_array(rules, masks)


def play_chunk(rules_arr, deck, specs: list[PolicySpec], rotate: bool, seed: int, first: int, n: int,
               metrics: np.ndarray | None = None) -> np.ndarray:
    return W.play_chunk(P.KERNELS, rules_arr, deck, specs, rotate, seed, first, n, metrics)


def frame(rows: np.ndarray, rules, specs: list[PolicySpec], seed: int, first: int) -> pd.DataFrame:
    """Per-game results: the generic columns (score_s = captured cards) plus forced
    draws (`stuck`) and decisions."""
    return W.frame(rows, specs, seed, first, rules.num_players, E.O_ROTATION,
                   {"winner": (E.O_WINNER, np.int8), "cowinners": (E.O_COWINNERS, np.int8),
                    "turns": (E.O_TURNS, np.int32), "capped": (E.O_CAPPED, bool), "stuck": (E.O_STUCK, np.int32),
                    "decisions": (E.O_DECISIONS, np.int32)},
                   {"score": (E.O_CAPTURES, np.int16)})


def reference_bench(rules, n_games: int, seed: int, policy: str = "random") -> float:
    """Games/s of the reference engine, every seat on the uniform random policy."""
    ref_rules = R.reference_rules(rules)
    rng = random.Random(seed)
    return W.games_per_second(n_games, lambda: reference.play_random_game(ref_rules, rng))


def _determinize(game, seat: int, rng: random.Random):
    """`game` with what `seat` cannot see re-dealt: the other hands and the draw pile
    shuffled together and dealt back in their sizes (the seat's hand, the row and the
    captured cards, which were face up on the row, stay), as engine.determinize does."""
    g = reference._copy(game)
    others = [q for q in range(len(g.hands)) if q != seat]
    # in card-id order before the shuffle, so that the re-deal depends on what the seat
    # knows and on rng only, not on where the unseen cards really are
    pool = sorted([c for q in others for c in g.hands[q]] + g.pile)
    rng.shuffle(pool)
    at = 0
    for q in others:
        k = len(g.hands[q])
        g.hands[q] = sorted(pool[at:at + k])
        at += k
    g.pile = pool[at:]
    return g


def reference_search(rules, s: np.ndarray):
    """The reference engine as the plain-Python search sees it, re-dealing the unseen
    cards at each iteration, and `s` as a reference game."""
    ref_rules = R.reference_rules(rules)

    def shares(game):
        top = reference.result(game)["cowinners"]
        return [1.0 / len(top) if q in top else 0.0 for q in range(rules.num_players)]

    engine = python_mcts.Engine(actor=lambda game: -1 if game.over else game.actor,
                                legal=reference.legal_decisions,
                                apply=lambda game, action, rng: (reference.apply(game, action), None),
                                shares=shares, determinize=_determinize)
    return engine, reference.from_dict(ref_rules, E.to_dict(s))



END_CONDITIONS = ("pile empty, no one can play", "turn cap")     # the rules' end, or the cap

GAME = GameSpec(
    name="hiboufou", title="Hiboufou", version=E.VERSION, players=R.PLAYERS, options=R.OPTIONS,
    turn_unit="turns", make_rules=R.make, to_array=R.to_array, initial_state=initial_state,
    play_chunk=play_chunk, frame=frame, trace=trace, reference_bench=reference_bench,
    reference_search=reference_search, bench_players=3,
    bench_workload="uniform random policy, complete games (deck: the assumed default)",
    read_deck=read_deck, policy_help=POLICY_HELP,
    play=P.KERNELS, compile_seconds=75, end_conditions=END_CONDITIONS, end_condition=W.end_at_cap,
    skill_policies=("greedy", "random"),
    hidden=True,
    readings=Path(__file__).with_name("READINGS.md"),
    replay_view=V.view, replay_text=V.TEXT_SHAPE,
)
