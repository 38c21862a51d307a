"""Bye-Bye Black Sheep: the game model shared by the kernel and the reference engine.

This module holds only names and numbers (card kinds, phases, decision codes, the
setup table); each engine implements the rules on its own, so the differential tests
compare two independent readings of the rules and of READINGS.md.

Card kinds (a hand is a vector of counts per kind):

    BLACK 0   Black Sheep (each player always owns exactly one)
    EAGLE 1   MOLE 2   MAGPIE 3                      base specials
    WOLF 4    WHITE 5  MOTHER 6  JOKER 7             optional cards (off by default)
    species s = 1..16 is kind ANIMAL + s - 1 (ANIMAL = 8)

Phases (who decides is `actor`):

    DRAW    the active player stops or draws blindly from an opponent
    EAGLE   after drawing an Eagle: skip, or ask one opponent for one species
    MOLE    after drawing a Mole: take one animal card (kind) from the hand it came
            from, which the active player now sees, or take nothing
    MAGPIE  after drawing the Magpie: take one card from an opponent's zoo, or nothing
    WHITE   after drawing the White Sheep: the player it was drawn from (the actor, not
            the active player) may move one animal card from hand to their own zoo
    MOTHER  after drawing the Mother Sheep: take the top card of the draw pile to the
            table, or not
    PLACE   after a voluntary stop or a failed Eagle: place animal cards one at a time
            (at most `limit` this turn), then PLACE_DONE
    OVER    the game has ended

Decisions are (code, a, b) integer triples:

    STOP          (0, 0, 0)
    DRAW          (1, opponent, 0)
    EAGLE_SKIP    (2, 0, 0)
    EAGLE_ASK     (3, opponent, species)       species 1..S
    MOLE_NONE     (4, 0, 0)
    MOLE_TAKE     (5, kind, 0)                 an animal kind (or JOKER) in that hand
    MAGPIE_NONE   (6, 0, 0)
    MAGPIE_TAKE   (7, opponent, kind)          a kind in that opponent's zoo
    WHITE_NONE    (8, 0, 0)
    WHITE_PLACE   (9, kind, species)           species = kind's species, or the
                                               species a Joker is bound to
    MOTHER_SKIP   (10, 0, 0)
    MOTHER_TAKE   (11, 0, 0)                   only when the draw pile is not empty
    PLACE_DONE    (12, 0, 0)
    PLACE         (13, kind, species)          as WHITE_PLACE

Chance events: the shuffled deck at setup, the card a blind draw yields (uniform over
the cards in the opponent's hand), and, with option magpie_entry=draw_pile_shuffled,
the Magpie's position in the draw pile (uniform over the len(pile) + 1 gaps, 0 = top).
"""

# card kinds
BLACK, EAGLE, MOLE, MAGPIE, WOLF, WHITE, MOTHER, JOKER = range(8)
ANIMAL = 8
MAX_SPECIES = 16
NKINDS = ANIMAL + MAX_SPECIES
KIND_NAMES = ("Black Sheep", "Eagle", "Mole", "Magpie", "Wolf", "White Sheep", "Mother Sheep", "Joker") + tuple(
    f"animal {s}" for s in range(1, MAX_SPECIES + 1))

# phases
DRAW, EAGLE_ASK_PHASE, MOLE_PHASE, MAGPIE_PHASE, WHITE_PHASE, MOTHER_PHASE, PLACE_PHASE, OVER = range(8)
PHASE_NAMES = ("draw", "eagle", "mole", "magpie", "white", "mother", "place", "over")

# decision codes
(STOP, DRAW_FROM, EAGLE_SKIP, EAGLE_ASK, MOLE_NONE, MOLE_TAKE, MAGPIE_NONE, MAGPIE_TAKE,
 WHITE_NONE, WHITE_PLACE, MOTHER_SKIP, MOTHER_TAKE, PLACE_DONE, PLACE) = range(14)
DECISION_NAMES = ("stop", "draw", "eagle_skip", "eagle_ask", "mole_none", "mole_take", "magpie_none",
                  "magpie_take", "white_none", "white_place", "mother_skip", "mother_take", "place_done",
                  "place")

# setup by player count (the published setup table): species used, animals dealt,
# Eagles, Moles, hand limit (= starting hand), triplets to win
SETUP = {
    2: dict(species=12, dealt=6, eagles=1, moles=1, hand_limit=8, triplets=5),
    3: dict(species=12, dealt=5, eagles=2, moles=1, hand_limit=7, triplets=4),
    4: dict(species=14, dealt=5, eagles=2, moles=2, hand_limit=7, triplets=3),
    5: dict(species=16, dealt=5, eagles=3, moles=2, hand_limit=7, triplets=3),
}
COPIES = 4      # cards per species


def species_of(kind: int) -> int:
    """Species 1..16 of an animal kind (0 for specials)."""
    return kind - ANIMAL + 1 if kind >= ANIMAL else 0


def animal(species: int) -> int:
    return ANIMAL + species - 1
