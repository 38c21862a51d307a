"""Hiboufou: the game model shared by the kernel and the reference engine.

This module holds names, numbers and two small input helpers (``parse_deck`` and
``check_deck_for_players``); each engine implements the rules on its own, so the
differential tests compare two independent readings of the rules and of READINGS.md
(this folder). Everything below is the specification both engines follow; "ruling"
marks a decision taken where no source settles the question.

Cards
-----
A deck is a sequence of cards; card id = index 0..N-1; a card is a colour bitmask
(bit c set = the card shows colour c, colours 0..C-1, named by ``COLOUR_NAMES``).

ASSUMPTION (no component data was found; READINGS.md, "The deck and the number of
players"): the default deck is a SYNTHETIC fixture, not the published game: 6 colours,
every card shows 2 different colours, each of the 15 colour pairs appears 4 times = 60
cards.

Deck generation from options ``colours`` (2..8), ``colours_per_card`` (1..colours) and
``copies`` (1..10): every combination of ``colours_per_card`` colours out of
``colours``, in lexicographic combination order (itertools.combinations of
range(colours)), each combination repeated ``copies`` times CONSECUTIVELY:
card id = combination_index * copies + copy. Default: ids 0-3 red+orange, 4-7
red+yellow, ..., 56-59 blue+purple.

An explicit deck (option ``deck``) is a sequence of masks and overrides the three
options; ``parse_deck`` turns a list of colour-name lists (e.g. a JSON deck file) into
masks. Every deck needs at least 3 * players + 1 cards (``check_deck_for_players``).

State
-----
* hands      per seat, a sorted list of card ids (hidden from the other seats)
* row        3 spaces LEFT=0, CENTRE=1, RIGHT=2, each a pile (list of card ids, top
             last; an empty list is an empty space). All faces are public.
* pile       the draw pile, card ids, TOP FIRST (pile[0] is drawn next)
* captured   per seat, the captured card ids in capture order (each pile bottom->top)
* last_capture  per seat, the turn number of that seat's latest capture, -1 if none
             (at most one capture happens per turn, so this orders the captures)
* actor      the seat to act (-1 once the game is over)
* laid       cards laid this turn (0..2 at a decision point)
* drew       whether the actor has made its forced draw this turn
* turn       number of completed turns (0 at the start)

Setup
-----
``order`` is the shuffled list of card ids (first dealt first). Card order[k] for
k < 3 * players goes to seat k % players (3 each, one at a time, clockwise from seat
0); order[3 * players] is turned face up into the initial space (option
``initial_slot``: CENTRE by default, or LEFT); the rest is the draw pile, top
first. Seat 0 starts. Ruling: the end-of-game test below also runs right after setup.

Placement (base legality of laying card c on space s)
-----------------------------------------------------
1. Adjacency: c shares at least one colour with the TOP card of every OCCUPIED
   neighbouring space (LEFT-CENTRE and CENTRE-RIGHT are neighbours; LEFT and RIGHT are
   not). A CENTRE card must match both sides, possibly through different colours.
2. An EMPTY space may receive a card only if at least one of its neighbours is
   occupied, or if the whole row is empty (rules: new cards are laid next to existing
   ones). A pile may always be covered, subject to rule 1: a lone pile (the first card
   alone in the centre, or LEFT/RIGHT after the centre pile was captured) has no
   occupied neighbour, so any card may cover it (READINGS.md, "Laying next to existing
   cards").
3. Option ``match_covered_card`` (default False): if True, a card laid on an
   occupied space must also share a colour with the card it covers.

Legal plays = the base-legal (card, space) pairs of the actor's hand, filtered by
option ``empty_slot_priority``, evaluated afresh before every single card:

* fill_if_possible (default): if some base-legal pair targets an empty space, only the
  pairs that target empty spaces are legal; otherwise all base-legal pairs are.
* strict: while any space is empty, only pairs that target an empty space are legal
  (laying on piles is illegal even if nothing fits an empty space).
* free: every base-legal pair. (A prototype found this setting degenerate: READINGS.md,
  "Empty spaces first".)

Decisions
---------
(code, a, b) integer triples; the legal list is sorted ascending (so PLAYs come first,
ordered by card id, then space):

    PLAY  (0, card_id, space)   lay a card from the hand on a space
    END   (1, 0, 0)             stop laying cards this turn
    DRAW  (2, 0, 0)             forced draw (a pass when the draw pile is empty)

At a decision point (game not over), with P = the legal plays:

* laid >= 1:            P + [END]                    (only [END] when P is empty, e.g.
                                                      an emptied hand without capture)
* laid == 0, P nonempty: P, plus END if option ``mandatory_play`` is False;
                         with mandatory_play=True the first card is compulsory.
* laid == 0, P empty:    [DRAW]. (DRAW is only ever "cannot play".) After a forced
                         draw this case never reaches a decision point (see DRAW).

Transitions
-----------
PLAY (card, space): the card leaves the hand and goes on top of that space's pile;
laid += 1. Then the capture test (option ``capture_condition``):

* played3_and_empty (default): laid == 3 and the hand is now empty;
* hand_emptied: the hand is now empty (any laid >= 1).

On a capture the actor takes the WHOLE pile of the space the card was laid on
(appended bottom to top to its captured list; the space becomes empty; last_capture
= turn) and the turn ends with a refill. Otherwise, if laid == 3 the turn ends with a
refill; otherwise the actor decides again.

END: the turn ends with a refill.

DRAW: the actor takes the top card of the draw pile into its hand (nothing if the pile
is empty); drew = True. With option ``play_after_forced_draw`` False (default)
the turn ends WITHOUT refill. With True the actor continues as at the start of a turn
(laid == 0, so END is legal only if mandatory_play is False), but cannot DRAW again:
if P is empty now the turn ends at once without refill.

Turn end: with refill, the actor draws from the top of the pile until it holds 3
cards (fewer if the pile runs out). (Note: while the pile is not empty every hand holds
at least 3 cards at a turn start, so refilling after a forced draw would change
nothing.) Then turn += 1, laid = 0, drew = False, actor = (actor + 1) % players, and
the end test runs:

* natural end: the draw pile is empty and no seat has a legal PLAY (P computed from
  that seat's hand, the current row and the options) -> over;
* else, if turn >= ``turn_cap`` (default 1000) -> over, capped. A capped game is scored
  normally. A natural end reached at the cap is not "capped".

Result
------
Score = number of captured cards. The unique top scorer wins. Among tied top scorers,
option ``tiebreak``:

* shared (default): winner = -1, cowinners = the tied seats;
* fewest_cards_in_hand: the tied seats holding the fewest cards at the end; still
  tied -> shared among those;
* last_capture: the tied seat whose latest capture is the most recent; if none of the
  tied seats ever captured (a tie at 0) -> shared.

cowinners is always the list of winning seats ([winner] when there is one winner).

Random policy
-------------
Uniform over the legal decisions at every decision point (every element of the sorted
legal list with probability 1 / len(list)); the reference draws the index with
``rng.randrange(len(legal))``.

Chance: only the shuffled deal. The draw pile is fixed by it (cards come off the top),
so transitions need no chance argument.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

# ---------------------------------------------------------------------------
# colours and cards
# ---------------------------------------------------------------------------

COLOUR_NAMES = ("red", "orange", "yellow", "green", "blue", "purple", "pink", "brown")
MAX_COLOURS = len(COLOUR_NAMES)   # masks fit in 8 bits
MAX_COPIES = 10

# ASSUMPTION (no component data was found): synthetic default deck, not the published game
DEFAULT_COLOURS = 6
DEFAULT_COLOURS_PER_CARD = 2
DEFAULT_COPIES = 4                # 15 pairs x 4 = 60 cards

# ---------------------------------------------------------------------------
# table
# ---------------------------------------------------------------------------

MIN_PLAYERS, MAX_PLAYERS = 2, 5
HAND_SIZE = 3                     # dealt, and the refill target
MAX_PER_TURN = 3                  # cards laid per turn
NSPACES = 3
LEFT, CENTRE, RIGHT = range(NSPACES)
SPACE_NAMES = ("left", "centre", "right")
NEIGHBOURS = ((CENTRE,), (LEFT, RIGHT), (CENTRE,))

# ---------------------------------------------------------------------------
# decisions
# ---------------------------------------------------------------------------

PLAY, END, DRAW = range(3)
DECISION_NAMES = ("play", "end", "draw")

# ---------------------------------------------------------------------------
# options: allowed values (the integer code of a value is its index)
# ---------------------------------------------------------------------------

INITIAL_SLOTS = ("centre", "left")
INITIAL_SPACE = {"centre": CENTRE, "left": LEFT}
EMPTY_SLOT_PRIORITIES = ("fill_if_possible", "strict", "free")
FILL_IF_POSSIBLE, STRICT, FREE = range(3)
CAPTURE_CONDITIONS = ("played3_and_empty", "hand_emptied")
PLAYED3_AND_EMPTY, HAND_EMPTIED = range(2)
TIEBREAKS = ("shared", "fewest_cards_in_hand", "last_capture")
TB_SHARED, TB_FEWEST_CARDS, TB_LAST_CAPTURE = range(3)
DEFAULT_TURN_CAP = 1000


# ---------------------------------------------------------------------------
# tiny helpers
# ---------------------------------------------------------------------------

def mask_of(colours: Iterable[int]) -> int:
    """Colour mask of colour ids, e.g. mask_of([0, 3]) == 0b1001 (red + green)."""
    m = 0
    for c in colours:
        m |= 1 << c
    return m


def colours_of(mask: int) -> list[int]:
    """Colour ids of a mask, ascending."""
    return [c for c in range(MAX_COLOURS) if mask >> c & 1]


def card_name(mask: int, colour_names: Sequence[str] = COLOUR_NAMES) -> str:
    """Readable name of a card, e.g. 'red+green'."""
    return "+".join(colour_names[c] for c in colours_of(mask))


def min_cards(players: int) -> int:
    """Fewest cards a deck needs: 3 per seat plus the first face-up card."""
    return HAND_SIZE * players + 1


def check_deck_for_players(deck: Sequence, players: int) -> None:
    """ValueError unless the deck can deal 3 cards per seat plus the first row card."""
    need = min_cards(players)
    if len(deck) < need:
        raise ValueError(f"deck has {len(deck)} cards; {players} players need at least {need} "
                         f"(3 per player plus the first face-up card)")


def parse_deck(obj, colour_names: Sequence[str] = COLOUR_NAMES, first: int = 0) -> tuple[int, ...]:
    """Masks of an explicit deck given as a list of colour-name lists.

    Bit c of a mask is colour_names[c]. Names are matched case-insensitively. Raises
    ValueError for: not a list, an empty deck, a card that is not a list of names, a
    card with no colour, an unknown colour name, a colour repeated on one card. Messages
    number the cards from `first`: 0 as card ids, 1 for a deck file a person wrote.
    """
    names = [str(n).strip().lower() for n in colour_names]
    if len(names) > MAX_COLOURS:
        raise ValueError(f"at most {MAX_COLOURS} colours are supported, got {len(names)}")
    if not isinstance(obj, (list, tuple)):
        raise ValueError(f"a deck must be a list of cards (lists of colour names), got {type(obj).__name__}")
    if not obj:
        raise ValueError("the deck is empty")
    masks = []
    for i, card in enumerate(obj, start=first):
        if isinstance(card, str) or not isinstance(card, (list, tuple)):
            raise ValueError(f"card {i}: expected a list of colour names, got {card!r}")
        if not card:
            raise ValueError(f"card {i} has no colour")
        m = 0
        for name in card:
            key = str(name).strip().lower()
            if key not in names:
                raise ValueError(f"card {i}: unknown colour {name!r}; known colours: {', '.join(names)}")
            bit = 1 << names.index(key)
            if m & bit:
                raise ValueError(f"card {i}: colour {name!r} appears twice on the card")
            m |= bit
        masks.append(m)
    return tuple(masks)
