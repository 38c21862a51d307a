"""Bobby Sitter rule options (defaults and alternatives: READINGS.md in this folder; model.py).

`to_array()` packs them for the kernels in the order of the R_* constants (choices as
the index of the choice), then the starting tokens of each PLAYER (slot) at R_START.
The deck is not an option value: `deck_array()` builds it, from the counts-by-kind
options or from an explicit deck (a deck file), as the int32 card codes every kernel
takes (code = class + 4 * sheep, model.py "Cards").
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ...errors import SheepsimError
from ...options import Option, Rules, make_rules, pack, per_player_values
from .model import (DEFAULT_COUNTS, MAX_CARDS, MAX_PLAYERS, MAX_SHEEP, MIN_PLAYERS, card_class,
                    generated_deck)

GAME = "bobbysitter"
PLAYERS = (MIN_PLAYERS, MAX_PLAYERS)
NO_YES = ("no", "yes")

_COUNT_HELP = {
    "wolf_cards": "cards with a visible wolf and no sheep",
    "wolf_sheep_cards": "cards with a visible wolf and 1 sheep (WOLF unless wolf_with_sheep=sheep)",
    "sheep_cards": "sheep-only cards (1, 2, 3 sheep in turn)",
    "hidden_wolf_cards": "cards with 1 sheep and a hidden wolf (nobody may react)",
    "empty_cards": "empty cards: no sheep, no wolf (nobody may react)",
}

OPTIONS: tuple[Option, ...] = tuple(
    Option(name, default, f"{_COUNT_HELP[name]} in the generated deck (ASSUMED: no card list was found; an "
                          "explicit --deck refuses it)", low=0, high=MAX_CARDS)
    for name, default in DEFAULT_COUNTS.items()
) + (
    Option("tokens", 25, "tokens in the box: the stock is what the players do not hold", low=1, high=10_000),
    Option("start_tokens", 2, "starting tokens (rulebook: 2); a comma list gives each player its own, in --policy "
                              "order, e.g. 3,2,2 for a child handicap (it follows the player through seat "
                              "rotation)", low=1, high=10_000, per_player=True),
    Option("target_tokens", 5, "tokens that win the game at once (rulebook: 5)", low=2, high=10_000),
    Option("stack_mode", "shared", "one shared stack, or the deck dealt into per-player stacks (the rulebook's "
           "variant)", choices=("shared", "per_player")),
    Option("wolf_with_sheep", "wolf", "a card with a visible wolf and sheep calls for BOBBY (wolf) or for the SHEEP "
           "(the rules do not say; their wolf rule comes first)", choices=("wolf", "sheep")),
    Option("wrong_counter_penalty", 1, "tokens lost for grabbing the wrong counter (the rules do not say)",
           low=0, high=1),
    Option("max_loss_per_card", "one", "at most one token lost per card, or no limit (the rules do not say)",
           choices=("one", "unlimited")),
    Option("sheep_race_loser_penalty", 0, "tokens lost by a correct SHEEP grabber who was not first (the rules "
           "do not say)", low=0, high=1),
    Option("last_standing_wins", "yes", "the last player left wins; with no, they play on alone to the target "
           "(the rules do not say)", choices=NO_YES),
    Option("empty_stock", "no_gain", "a SHEEP winner facing an empty stock gains nothing, or gains a token anyway "
           "(the rules do not say; it cannot happen at the standard target and starts)",
           choices=("no_gain", "unlimited_tokens")),
    Option("flip_cap", 2000, "flips before the game is stopped (not a rule: the reshuffled stack can make a game "
           "endless)", low=1, high=1_000_000),
    Option("cap_resolution", "most_tokens", "at the cap: most tokens wins (a tie is a draw), or a draw (not a rule)",
           choices=("most_tokens", "draw")),
    Option("flipper_reaction_bonus_ms", 0, "milliseconds taken off the flipper's reaction time (not in the rules; "
           "a model choice)", low=0, high=10_000),
)

(R_PLAYERS, R_WOLF_CARDS, R_WOLF_SHEEP_CARDS, R_SHEEP_CARDS, R_HIDDEN_CARDS, R_EMPTY_CARDS, R_TOKENS,
 R_START_PLACEHOLDER, R_TARGET, R_STACK_MODE, R_WOLF_WITH_SHEEP, R_WRONG_PENALTY, R_MAX_LOSS, R_RACE_PENALTY,
 R_LAST_STANDING, R_EMPTY_STOCK, R_FLIP_CAP, R_CAP_RESOLUTION, R_FLIPPER_BONUS) = range(19)
R_START = 19                        # R_START + slot: starting tokens of the player in that slot
RULES_SIZE = R_START + MAX_PLAYERS
SHARED, PER_PLAYER = 0, 1
ONE, UNLIMITED = 0, 1
NO_GAIN, UNLIMITED_TOKENS = 0, 1
MOST_TOKENS, CAP_DRAW = 0, 1


def _check(rules: Rules) -> None:
    starts = rules["start_tokens"]
    if isinstance(starts, tuple) and len(starts) != rules.num_players:
        raise SheepsimError(f"start_tokens lists {len(starts)} values for {rules.num_players} players; give one "
                            f"value for everyone or one per player")
    starts = per_player_values(rules, "start_tokens")
    if max(starts) >= rules["target_tokens"]:
        raise SheepsimError(f"start_tokens {max(starts)} is not below target_tokens={rules['target_tokens']}: "
                            f"that player would have won before the first flip")
    if sum(starts) > rules["tokens"]:
        raise SheepsimError(f"the players start with {sum(starts)} tokens but the box holds tokens="
                            f"{rules['tokens']}; lower start_tokens or raise tokens")
    n = sum(rules[name] for name in DEFAULT_COUNTS)
    if not 1 <= n <= MAX_CARDS:
        raise SheepsimError(f"the generated deck has {n} cards; it needs 1..{MAX_CARDS}")
    _check_stack(rules, n)


def _check_stack(rules: Rules, n: int) -> None:
    if rules["stack_mode"] == "per_player" and n < rules.num_players:
        raise SheepsimError(f"stack_mode=per_player deals the deck to {rules.num_players} players but it has "
                            f"only {n} card(s)")


def make(num_players: int, overrides: dict[str, Any] | None = None) -> Rules:
    return make_rules(GAME, OPTIONS, PLAYERS, num_players, overrides, _check)


def to_array(rules: Rules) -> np.ndarray:
    arr = np.zeros(RULES_SIZE, dtype=np.int64)
    packed = pack(rules, OPTIONS)
    arr[:len(packed)] = packed
    arr[R_START:R_START + rules.num_players] = per_player_values(rules, "start_tokens")
    return arr


def parse_card(card: Any, where: str) -> tuple[int, bool, bool]:
    """One deck-file card {sheep, wolf, hidden_wolf} as (sheep, wolf, hidden_wolf)."""
    if not isinstance(card, dict):
        raise SheepsimError(f"{where}: a card is a table {{sheep = N, wolf = true|false, hidden_wolf = true|false}}")
    unknown = sorted(set(card) - {"sheep", "wolf", "hidden_wolf"})
    if unknown:
        raise SheepsimError(f"{where}: unknown card field {unknown[0]!r}; valid fields: sheep, wolf, hidden_wolf")
    sheep, wolf, hidden = card.get("sheep", 0), card.get("wolf", False), card.get("hidden_wolf", False)
    if isinstance(sheep, bool) or not isinstance(sheep, int) or not 0 <= sheep <= MAX_SHEEP:
        raise SheepsimError(f"{where}: sheep must be an integer 0..{MAX_SHEEP}, got {sheep!r}")
    if not isinstance(wolf, bool) or not isinstance(hidden, bool):
        raise SheepsimError(f"{where}: wolf and hidden_wolf must be true or false")
    if wolf and hidden:
        raise SheepsimError(f"{where}: a card cannot show a visible and a hidden wolf")
    return sheep, wolf, hidden


def read_deck(path) -> list[dict]:
    """A deck file: cards {sheep, wolf, hidden_wolf}, each with an optional `count`
    (repeat it), e.g. TOML `cards = [{sheep = 2, count = 8}, {wolf = true, count = 10}]`."""
    from ..deckfile import read_cards
    deck = []
    for i, card in enumerate(read_cards(path)):
        where = f"deck file {path}, card {i + 1}"
        if not isinstance(card, dict):
            raise SheepsimError(f"{where}: a card is a table {{sheep = N, wolf = true|false, hidden_wolf = "
                                f"true|false, count = N}}")
        card = dict(card)
        count = card.pop("count", 1)
        if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_CARDS:
            raise SheepsimError(f"{where}: count must be an integer 1..{MAX_CARDS}, got {count!r}")
        sheep, wolf, hidden = parse_card(card, where)
        deck += [{"sheep": sheep, "wolf": wolf, "hidden_wolf": hidden}] * count
    if not deck:
        raise SheepsimError(f"deck file {path} has no cards; a deck needs 1..{MAX_CARDS}")
    if len(deck) > MAX_CARDS:
        raise SheepsimError(f"deck file {path} has {len(deck)} cards; a deck needs 1..{MAX_CARDS}")
    return deck


def deck_cards(rules: Rules, deck: Sequence | None = None) -> list[tuple[int, bool, bool]]:
    """(sheep, wolf, hidden_wolf) by card id: the explicit deck, or the generated one."""
    if deck is None:
        return generated_deck({name: rules[name] for name in DEFAULT_COUNTS})
    cards = [parse_card(c, f"deck card {i}") if isinstance(c, dict) else tuple(c) for i, c in enumerate(deck)]
    if not 1 <= len(cards) <= MAX_CARDS:
        raise SheepsimError(f"the deck has {len(cards)} cards; it needs 1..{MAX_CARDS}")
    _check_stack(rules, len(cards))
    return cards


def deck_array(rules: Rules, deck: Sequence | None = None) -> np.ndarray:
    """int32 card codes by card id: class + 4 * sheep (model.py)."""
    codes = [card_class(sheep, wolf, hidden, rules["wolf_with_sheep"]) + 4 * sheep
             for sheep, wolf, hidden in deck_cards(rules, deck)]
    return np.array(codes, dtype=np.int32)


def reference_rules(rules: Rules, seat_starts: Sequence[int] | None = None, deck: Sequence | None = None):
    """The same rules for the reference engine; `seat_starts` = starting tokens by SEAT
    (default: by player slot, i.e. no rotation)."""
    from .reference import Rules as RefRules
    d = rules.as_dict()
    starts = tuple(seat_starts) if seat_starts is not None else per_player_values(rules, "start_tokens")
    for name in DEFAULT_COUNTS:
        d.pop(name)
    d["start_tokens"] = tuple(int(x) for x in starts)
    d["last_standing_wins"] = d["last_standing_wins"] == "yes"
    d["flipper_reaction_bonus_ms"] = float(d["flipper_reaction_bonus_ms"])
    d["deck"] = tuple(deck_cards(rules, deck))
    return RefRules(**d)
