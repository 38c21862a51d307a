"""Bobby Sitter: the game model shared by the kernel and the reference engine.

Names, numbers and the specification both engines follow; each engine implements the
rules on its own, so the differential tests compare two independent readings of the
rules and of READINGS.md (this folder). "Ruling" marks a decision taken where no
source settles the question.

Cards
-----
A card shows ``sheep`` (0..9 sheep), ``wolf`` (a visible wolf) and ``hidden_wolf``
(a wolf hidden in the picture). Card id = index in the deck. Its CLASS decides the
reaction it calls for (READINGS.md, "A visible wolf with sheep"):

    WOLF    a visible wolf (with or without sheep; option ``wolf_with_sheep=sheep``
            makes a visible wolf WITH sheep a SHEEP card instead)     -> grab a BOBBY
    SHEEP   sheep > 0, no wolf of either kind                         -> grab the SHEEP
    EMPTY   no sheep, no wolf                                          -> nobody reacts
    HIDDEN  a hidden wolf (with or without sheep), no visible wolf    -> nobody reacts

A card with both a visible and a hidden wolf is rejected (contradictory).

ASSUMPTION (no card distribution was found; READINGS.md, "The deck"): the default
deck is 56 cards, generated from the counts-by-kind options, in this order of card ids:
``wolf_cards`` (10) visible wolf alone, ``wolf_sheep_cards`` (4) visible wolf with
1 sheep, ``sheep_cards`` (24) sheep only with 1, 2, 3, 1, 2, 3, ... sheep (8 of each by
default), ``hidden_wolf_cards`` (10) 1 sheep + hidden wolf, ``empty_cards`` (8).
A deck file (``--deck FILE``) is a list of cards {sheep, wolf, hidden_wolf}.

Tokens and counters
-------------------
``tokens`` (25) tokens in the box. Each player starts with ``start_tokens`` (2; one
value for everyone or a comma list, one per PLAYER in --policy order: a handicap
follows its player through seat rotation); the rest is the STOCK. Rejected: a start
of 0, a start at or above ``target_tokens`` (5), starts that add up to more than
``tokens``. Conservation: stock + sum(tokens) == ``tokens`` at every moment (with
``empty_stock=unlimited_tokens`` plus the tokens minted when the stock was empty).
BOBBY counters start at players - 1; one is removed per eliminated player (never below 0).

Stack
-----
``stack_mode=shared`` (default): every card id is shuffled into one STACK (top first);
flipped cards go to a discard pile; before a flip with an empty stack, the whole deck
(the discard) is shuffled into a new stack (a "reshuffle").
``stack_mode=per_player`` (the rulebook's variant): the shuffled deck is dealt
round-robin, card k of the order to seat k % players (each personal stack top first, in
dealing order); a player flips from their own stack, their flipped cards go to their
own discard, and before a flip with an empty own stack that discard is shuffled into a
new own stack.
An eliminated player's cards leave play. per_player needs a deck of at least
``players`` cards.

Every shuffle is a permutation of the cards being shuffled, given in ascending card
id order to the random source (the reference's ``Chance.shuffle(cards)`` returns the
new stack, top first).

A flip
------
The FLIPPER (seat 0 first, then the next ACTIVE seat clockwise, i.e. seat + 1,
seat + 2, ... mod players skipping eliminated seats) flips the top card of the stack
(their own stack in per_player mode). Every ACTIVE seat then produces a REACTION
(grab, time_ms) from its player model (below): grab NONE=0, SHEEP=1 (the SHEEP
counter), BOBBY=2 (a BOBBY counter). Reaction order = ascending time; ties go to the
seat closer clockwise to the flipper (the flipper itself first).

Resolution, with loss[s] the tokens seat s loses and all of it simultaneous:

* WOLF card: the seats that grabbed BOBBY take the BOBBY counters in reaction order
  while counters last; a BOBBY grabber left without one loses 1. A seat that grabbed
  SHEEP (wrong counter) loses ``wrong_counter_penalty`` (1) and, holding no
  BOBBY, also 1 for that. A seat that did not react (possible only with user models)
  loses 1 (it holds no BOBBY).
* SHEEP card: the first seat in reaction order that grabbed SHEEP gains 1 token from
  the stock (``empty_stock=no_gain``: nothing if the stock is empty;
  ``unlimited_tokens``: it gains anyway). Other SHEEP grabbers lose
  ``sheep_race_loser_penalty`` (0). BOBBY grabbers lose ``wrong_counter_penalty``.
* EMPTY or HIDDEN card: every seat that reacted (any grab) loses 1.
* ``max_loss_per_card`` (``one`` default, or ``unlimited``) caps loss[s] at 1; nobody
  loses more tokens than they hold. Lost tokens go to the stock. Ruling: the SHEEP
  winner's gain is taken from the stock as it was BEFORE this card's losses are paid
  in (so with an empty stock and ``no_gain`` a loser's token does not pay the winner).

Then: every active seat left with 0 tokens is ELIMINATED (one BOBBY counter removed
each). Then, in order:
1. a seat with tokens >= ``target_tokens`` wins (only the sheep gainer can be one);
2. no active seat left (all remaining players eliminated together): a draw;
3. one active seat left and ``last_standing_wins=yes``: it wins (with ``no``
   it flips alone until it reaches the target or the cap);
4. ``flip_cap`` (2000) flips made: ``cap_resolution=most_tokens``: the active
   seat with the most tokens wins, a tie for most is a draw; ``draw``: a draw.
Otherwise the next flipper flips.

Player models (this game's policies)
------------------------------------
A profile has five parameters: ``median_ms`` (median reaction time), ``spread``
(sigma of log time), ``p_false_empty`` (P(react) to an EMPTY card), ``p_false_hidden``
(P(react) to a HIDDEN card), ``p_wrong_counter`` (P(grab the wrong counter) when it
reacts to a WOLF or SHEEP card). Per active seat and flip the model draws, always in
this order and all of them whatever the card (common random numbers): u_react,
u_wrong (uniform [0,1)), z (standard normal). Then:

* WOLF/SHEEP card: it reacts; wrong counter if u_wrong < p_wrong_counter.
* EMPTY/HIDDEN card: it reacts if u_react < p (p_false_empty / p_false_hidden); the
  counter it reaches for is SHEEP if the card shows sheep, else BOBBY (no effect on
  the outcome: any reaction costs 1).
* time_ms = median_ms * exp(spread * z), minus ``flipper_reaction_bonus_ms`` (0) for
  the flipper, never below 0.

ASSUMPTIONS (no data was found; READINGS.md, "Who is fastest"): adult 450 ms, 0.25,
0.05, 0.15, 0.03; child 500 ms, 0.30, 0.07, 0.20, 0.04; young_child 650 ms, 0.35, 0.10,
0.30, 0.06.

Results
-------
winner (seat, -1 for a draw), flips, reshuffles, capped, per seat: tokens at the
end, eliminated (0/1), penalties (tokens lost for reacting to a no-react card),
wolf_losses (tokens lost on WOLF cards), sheep_gains.
"""

from __future__ import annotations

MIN_PLAYERS, MAX_PLAYERS = 2, 6

# card classes
WOLF, SHEEP, EMPTY, HIDDEN = 0, 1, 2, 3
CLASS_NAMES = ("wolf", "sheep", "empty", "hidden wolf")
# grabs
NONE, GRAB_SHEEP, GRAB_BOBBY = 0, 1, 2
GRAB_NAMES = ("nothing", "SHEEP", "BOBBY")

DEFAULT_COUNTS = {"wolf_cards": 10, "wolf_sheep_cards": 4, "sheep_cards": 24, "hidden_wolf_cards": 10,
                  "empty_cards": 8}
MAX_CARDS = 1000
MAX_SHEEP = 3          # sheep on one card: the rulebook's cards show 1 to 3 (0 on wolf and empty cards)

# name: (median_ms, spread, p_false_empty, p_false_hidden, p_wrong_counter) -- ASSUMPTIONS (no data was found)
PROFILE_PARAMS = ("median_ms", "spread", "p_false_empty", "p_false_hidden", "p_wrong_counter")
PROFILES = {
    "adult": (450.0, 0.25, 0.05, 0.15, 0.03),
    "child": (500.0, 0.30, 0.07, 0.20, 0.04),
    "young_child": (650.0, 0.35, 0.10, 0.30, 0.06),
}


def card_class(sheep: int, wolf: bool, hidden_wolf: bool, wolf_with_sheep: str = "wolf") -> int:
    """The reaction class of a card (the table in the module docstring)."""
    if wolf:
        return SHEEP if (wolf_with_sheep == "sheep" and sheep > 0) else WOLF
    if hidden_wolf:
        return HIDDEN
    return SHEEP if sheep > 0 else EMPTY


def generated_deck(counts: dict[str, int]) -> list[tuple[int, bool, bool]]:
    """(sheep, wolf, hidden_wolf) per card id, from the counts-by-kind options."""
    deck = [(0, True, False)] * counts["wolf_cards"] + [(1, True, False)] * counts["wolf_sheep_cards"]
    deck += [(1 + i % 3, False, False) for i in range(counts["sheep_cards"])]
    deck += [(1, False, True)] * counts["hidden_wolf_cards"] + [(0, False, False)] * counts["empty_cards"]
    return deck


def card_name(card: tuple[int, bool, bool]) -> str:
    sheep, wolf, hidden = card
    parts = (["wolf"] if wolf else []) + ([f"{sheep} sheep"] if sheep else []) + (["hidden wolf"] if hidden else [])
    return " + ".join(parts) or "empty"
