"""Hiboufou rule options (defaults and alternatives: READINGS.md in this folder; model.py).

`to_array()` packs them for the kernels in the order of the R_* constants (choice
options as the index of the choice; yes/no options as 0/1). The deck is not an option
value: `deck_array()` builds it (generated from colours / colours_per_card / copies,
or an explicit list of colour masks) as the int32 mask array every kernel takes next
to the rules vector (card id = index, model.py "Cards").
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np

from ...errors import SheepsimError
from ...options import Option, Rules, make_rules, pack
from .model import (CAPTURE_CONDITIONS, DEFAULT_COLOURS, DEFAULT_COLOURS_PER_CARD, DEFAULT_COPIES,
                    DEFAULT_TURN_CAP, EMPTY_SLOT_PRIORITIES, INITIAL_SLOTS, MAX_COLOURS, MAX_COPIES,
                    MAX_PLAYERS, MIN_PLAYERS, TIEBREAKS, min_cards)

GAME = "hiboufou"
PLAYERS = (MIN_PLAYERS, MAX_PLAYERS)
NO_YES = ("no", "yes")
# largest generated deck: C(8, 4) colour sets x 10 copies = 700 cards; explicit decks up to this too
MAX_CARDS = 720

OPTIONS: tuple[Option, ...] = (
    Option("colours", DEFAULT_COLOURS,
           "colours in the generated deck (ASSUMED: no component list was found, so the default deck is synthetic)",
           low=2, high=MAX_COLOURS),
    Option("colours_per_card", DEFAULT_COLOURS_PER_CARD,
           "colours on every generated card; the deck holds every such colour set (ASSUMED, as the whole deck)",
           low=1, high=MAX_COLOURS),
    Option("copies", DEFAULT_COPIES, "copies of every colour set in the generated deck (ASSUMED)", low=1,
           high=MAX_COPIES),
    Option("initial_slot", "centre", "space of the first face-up card (the rules: 'in the middle of the table')",
           choices=INITIAL_SLOTS),
    Option("empty_slot_priority", "fill_if_possible",
           "must cards go to empty spaces first: when some card fits one (fill_if_possible), always while a "
           "space is empty (strict), or never (free, degenerate); the rules say empty spaces must be filled, "
           "not how strictly", choices=EMPTY_SLOT_PRIORITIES),
    Option("mandatory_play", "yes", "must a seat that can lay a card lay at least one (the rules mention drawing "
           "only for a seat that cannot)", choices=NO_YES),
    Option("capture_condition", "played3_and_empty",
           "a capture needs 3 cards laid this turn and an empty hand (the rules: 'lay down all three of your "
           "cards in the same turn'), or only an emptied hand",
           choices=CAPTURE_CONDITIONS),
    Option("match_covered_card", "no", "must a card laid on a pile also share a colour with the card it "
           "covers (the rules mention only the neighbours)", choices=NO_YES),
    Option("play_after_forced_draw", "no", "may a seat lay cards after its forced draw (the rules do not say)",
           choices=NO_YES),
    Option("tiebreak", "shared", "who wins a tie for most captured cards (the rules do not say)",
           choices=TIEBREAKS),
    Option("turn_cap", DEFAULT_TURN_CAP, "turns before a stalemated game is stopped and scored", low=1,
           high=100_000),
)

(R_PLAYERS, R_COLOURS, R_PER_CARD, R_COPIES, R_INITIAL_SLOT, R_PRIORITY, R_MANDATORY, R_CAPTURE,
 R_MATCH_COVERED, R_PLAY_AFTER_DRAW, R_TIEBREAK, R_TURN_CAP) = range(12)


def _check(rules: Rules) -> None:
    if rules["colours_per_card"] > rules["colours"]:
        raise SheepsimError(f"colours_per_card={rules['colours_per_card']} exceeds colours={rules['colours']}; "
                            f"allowed: 1..{rules['colours']}")
    n = len(list(itertools.combinations(range(rules["colours"]), rules["colours_per_card"]))) * rules["copies"]
    if n < min_cards(rules.num_players):
        raise SheepsimError(f"the generated deck has {n} cards; {rules.num_players} players need at least "
                            f"{min_cards(rules.num_players)}: raise colours or copies")


def make(num_players: int, overrides: dict[str, Any] | None = None) -> Rules:
    return make_rules(GAME, OPTIONS, PLAYERS, num_players, overrides, _check)


def to_array(rules: Rules) -> np.ndarray:
    return pack(rules, OPTIONS)


def deck_array(rules: Rules, deck: Sequence[int] | None = None) -> np.ndarray:
    """int32 colour masks by card id (model.py "Cards").

    `deck`: explicit masks (e.g. from model.parse_deck), overriding the generated deck.
    Otherwise every combination of colours_per_card colours out of colours, in
    lexicographic order, each repeated `copies` times consecutively."""
    if deck is None:
        masks = []
        for combo in itertools.combinations(range(rules["colours"]), rules["colours_per_card"]):
            masks.extend([sum(1 << c for c in combo)] * rules["copies"])
    else:
        masks = [int(m) for m in deck]
        for i, m in enumerate(masks):
            if not 1 <= m < 1 << MAX_COLOURS:
                raise SheepsimError(f"deck card {i}: a colour mask must be 1..{(1 << MAX_COLOURS) - 1}, got {m}")
    need = min_cards(rules.num_players)
    if not need <= len(masks) <= MAX_CARDS:
        raise SheepsimError(f"the deck has {len(masks)} cards; {rules.num_players} players need "
                            f"{need}..{MAX_CARDS} (3 per player plus the first face-up card)")
    return np.array(masks, dtype=np.int32)


def reference_rules(rules: Rules, deck: Sequence[int] | None = None):
    """The same rules for the reference engine (tests, trace)."""
    from .reference import Rules as RefRules
    d = rules.as_dict()
    for name in ("mandatory_play", "match_covered_card", "play_after_forced_draw"):
        d[name] = d[name] == "yes"
    if deck is not None:
        d["deck"] = tuple(int(m) for m in deck)
    return RefRules(**d)
