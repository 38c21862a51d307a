"""Bye-Bye Black Sheep rule options (defaults and alternatives: READINGS.md in this folder).

`sheepsim rules blacksheep` lists them; `to_array()` packs them for the kernels in the
order of the R_* constants (choice options as the index of the choice).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import SheepsimError
from ...options import Option, Rules, make_rules, pack

GAME = "blacksheep"
PLAYERS = (2, 5)
ON_OFF = ("off", "on")
NO_YES = ("no", "yes")

OPTIONS: tuple[Option, ...] = (
    Option("zoo_limit_basis", "table_cards",
           "what N counts in 'place up to N - 2 cards' (the rules are ambiguous): the cards taken from the "
           "table into hand at the stop (specials and effect cards included), or only the blind draws",
           choices=("table_cards", "blind_draws")),
    Option("magpie_entry", "trigger_hand",
           "where the Magpie goes when it enters play (the rules do not say): into the hand of the player "
           "whose placement triggered it, or shuffled into the draw pile",
           choices=("trigger_hand", "draw_pile_shuffled")),
    Option("magpie_can_break_triplet", "yes",
           "may the Magpie take a card out of a completed triplet (the rules set no limit)", choices=NO_YES),
    Option("zoo_max_per_species", "none",
           "a 4th card of a species may go to a zoo (none: the rules do not forbid it), or at most 3",
           choices=("none", "3")),
    Option("refill", "others",
           "who refills at the end of a turn: the other players (BGA), or all (a review); a prototype found the "
           "active player never ends below the hand limit while the pile lasts, so `all` behaves like `others`",
           choices=("others", "all")),
    Option("wolf_return", "before_refill",
           "Wolf set-aside cards return to their owner before or after refilling (the rules do not say; "
           "before lets the owner refill to their real hand size)", choices=("before_refill", "after_refill")),
    Option("must_draw_first", "no",
           "must the active player draw at least one card before stopping (the online rules allow stopping "
           "at once)", choices=NO_YES),
    Option("turn_cap", 500, "turns before a stalemated game is stopped (not a published rule: stalemates happen "
           "and no source covers them)", low=10, high=100_000),
    Option("cap_resolution", "draw", "a capped game is a draw, or won by most triplets then most zoo cards "
           "(neither is a published rule)", choices=("draw", "most_triplets")),
    Option("wolf", "off", "optional Wolf card", choices=ON_OFF),
    Option("white_sheep", "off", "optional White Sheep card", choices=ON_OFF),
    Option("mother_sheep", "off", "optional Mother Sheep card", choices=ON_OFF),
    Option("joker", "off", "optional Joker (a table option online, not in the printed component list)",
           choices=ON_OFF),
    Option("optional_card_setup", "into_animal_deck",
           "enabled optional cards are shuffled into the animal deck before the deal, or into the draw pile "
           "after it (the rules say where only for the Joker: into the animal deck)",
           choices=("into_animal_deck", "into_draw_pile")),
    Option("eagle_accepts_joker", "no",
           "does a Joker answer an Eagle's request when no real card does (the rules do not say)", choices=NO_YES),
    Option("mole_can_take_joker", "yes", "may the Mole take the Joker (the rules do not say; it is an animal card)",
           choices=NO_YES),
    Option("hand_limit", 0, "refill limit: players draw up to this many cards at the end of a turn; 0 = by "
                            "player count (8 for 2 players, else 7). It does not change the starting hand, "
                            "always 8 cards for 2 players, else 7, so it is at least that",
           low=0, high=12),
    Option("triplets_to_win", 0, "triplets needed to win; 0 = by player count (5/4/3/3)", low=0, high=16),
)

(R_PLAYERS, R_ZOO_BASIS, R_MAGPIE_ENTRY, R_MAGPIE_BREAK, R_ZOO_MAX, R_REFILL, R_WOLF_RETURN, R_MUST_DRAW,
 R_TURN_CAP, R_CAP_RESOLUTION, R_WOLF, R_WHITE, R_MOTHER, R_JOKER, R_OPTIONAL_SETUP, R_EAGLE_JOKER,
 R_MOLE_JOKER, R_HAND_LIMIT, R_TRIPLETS) = range(19)


def _check(rules: Rules) -> None:
    from .model import SETUP
    setup = SETUP[rules.num_players]
    limit = rules["hand_limit"] or setup["hand_limit"]
    if limit < setup["dealt"] + 2:
        raise SheepsimError(f"hand_limit={limit} is below the starting hand of {setup['dealt'] + 2} cards "
                            f"for {rules.num_players} players; allowed: 0 (by player count) or "
                            f"{setup['dealt'] + 2}..12")
    if rules["triplets_to_win"] > setup["species"]:
        raise SheepsimError(f"triplets_to_win={rules['triplets_to_win']} exceeds the {setup['species']} species "
                            f"in play with {rules.num_players} players; allowed: 0..{setup['species']}")


def make(num_players: int, overrides: dict[str, Any] | None = None) -> Rules:
    return make_rules(GAME, OPTIONS, PLAYERS, num_players, overrides, _check)


def to_array(rules: Rules) -> np.ndarray:
    return pack(rules, OPTIONS)
