"""Hiboufou: a readable pure-Python reference engine (the test oracle).

This engine is written independently of the fast kernel, from the rules, the readings
in READINGS.md (this folder) and the decision model spelled out in
``sheepsim.games.hiboufou.model`` (read its docstring first: it is the specification,
including the rulings where no source settles a question). It favours clarity over speed:
every rule is one small function with a comment citing the rule it implements.
Standard library only.

Vocabulary:

* **hand** - the cards a player holds (hidden), a sorted list of card ids.
* **row** - the 3 playing spaces LEFT, CENTRE, RIGHT; each holds a pile of card ids,
  top last; an empty list is an empty space.
* **draw pile** - face-down cards, ``pile[0]`` is the top.
* **captured** - the cards a seat has won, face down in front of it.

State is immutable from the outside: :func:`apply` returns a NEW :class:`Game` and
never mutates its argument. Decisions are ``(code, a, b)`` integer triples:
``(PLAY, card, space)``, ``(END, 0, 0)``, ``(DRAW, 0, 0)``.

The only chance event is the shuffled deal (:func:`deal`, or :func:`new_game` with an
explicit order): after it, every draw takes the top card of the pile, so :func:`apply`
needs no chance argument.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass

from sheepsim.games.hiboufou.model import (
    CAPTURE_CONDITIONS,
    CENTRE,
    DEFAULT_COLOURS,
    DEFAULT_COLOURS_PER_CARD,
    DEFAULT_COPIES,
    DEFAULT_TURN_CAP,
    DRAW,
    EMPTY_SLOT_PRIORITIES,
    END,
    HAND_SIZE,
    INITIAL_SLOTS,
    LEFT,
    MAX_COLOURS,
    MAX_COPIES,
    MAX_PER_TURN,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NEIGHBOURS,
    NSPACES,
    PLAY,
    TIEBREAKS,
    check_deck_for_players,
)

__all__ = [
    "Game",
    "Rules",
    "actor",
    "apply",
    "build_deck",
    "deal",
    "from_dict",
    "is_over",
    "legal_decisions",
    "legal_plays",
    "new_game",
    "observation",
    "play_random_game",
    "random_decision",
    "result",
    "to_dict",
]

# ---------------------------------------------------------------------------
# Rules (options)
# ---------------------------------------------------------------------------

_CHOICES = {
    "initial_slot": INITIAL_SLOTS,
    "empty_slot_priority": EMPTY_SLOT_PRIORITIES,
    "capture_condition": CAPTURE_CONDITIONS,
    "tiebreak": TIEBREAKS,
}


@dataclass(frozen=True)
class Rules:
    """Rule options: defaults are sheepsim's readings, the alternatives the other readings (READINGS.md)."""

    num_players: int                                # 2..5
    colours: int = DEFAULT_COLOURS                  # ASSUMPTION (no data found): generated deck ...
    colours_per_card: int = DEFAULT_COLOURS_PER_CARD
    copies: int = DEFAULT_COPIES                    # ... 15 pairs x 4 = 60 cards by default
    deck: tuple | None = None                       # explicit masks; overrides the three above
    initial_slot: str = "centre"                    # "centre" | "left"
    empty_slot_priority: str = "fill_if_possible"   # | "strict" | "free"
    mandatory_play: bool = True                     # the first card is compulsory if one fits
    capture_condition: str = "played3_and_empty"    # | "hand_emptied"
    match_covered_card: bool = False                # a card need not match the card it covers
    play_after_forced_draw: bool = False            # the turn ends after a forced draw
    tiebreak: str = "shared"                        # | "fewest_cards_in_hand" | "last_capture"
    turn_cap: int = DEFAULT_TURN_CAP

    def __post_init__(self):
        def need(ok: bool, msg: str) -> None:
            if not ok:
                raise ValueError(msg)

        def whole(v) -> bool:
            return isinstance(v, int) and not isinstance(v, bool)

        need(whole(self.num_players) and MIN_PLAYERS <= self.num_players <= MAX_PLAYERS,
             f"num_players must be {MIN_PLAYERS}..{MAX_PLAYERS}, got {self.num_players!r}")
        need(whole(self.colours) and 2 <= self.colours <= MAX_COLOURS,
             f"colours must be 2..{MAX_COLOURS}, got {self.colours!r}")
        need(whole(self.colours_per_card) and 1 <= self.colours_per_card <= self.colours,
             f"colours_per_card must be 1..colours ({self.colours}), got {self.colours_per_card!r}")
        need(whole(self.copies) and 1 <= self.copies <= MAX_COPIES,
             f"copies must be 1..{MAX_COPIES}, got {self.copies!r}")
        for name, allowed in _CHOICES.items():
            value = getattr(self, name)
            need(value in allowed, f"{name} must be one of {', '.join(allowed)}; got {value!r}")
        for name in ("mandatory_play", "match_covered_card", "play_after_forced_draw"):
            need(isinstance(getattr(self, name), bool), f"{name} must be true or false")
        need(whole(self.turn_cap) and self.turn_cap >= 1, f"turn_cap must be >= 1, got {self.turn_cap!r}")
        if self.deck is not None:
            need(isinstance(self.deck, (list, tuple)), "deck must be a sequence of colour masks")
            object.__setattr__(self, "deck", tuple(self.deck))
            need(len(self.deck) > 0, "the deck is empty")
            for i, m in enumerate(self.deck):
                need(whole(m) and 1 <= m < 1 << MAX_COLOURS,
                     f"deck card {i}: a colour mask must be 1..{(1 << MAX_COLOURS) - 1}, got {m!r}")
        check_deck_for_players(build_deck(self), self.num_players)


def build_deck(rules: Rules) -> list[int]:
    """Colour masks by card id (model docstring, "Cards").

    Explicit deck: as given. Otherwise every combination of colours_per_card colours in
    lexicographic order, each repeated `copies` times consecutively.
    """
    if rules.deck is not None:
        return list(rules.deck)
    deck = []
    for combo in itertools.combinations(range(rules.colours), rules.colours_per_card):
        mask = sum(1 << c for c in combo)
        deck.extend([mask] * rules.copies)
    return deck


# ---------------------------------------------------------------------------
# Game state
# ---------------------------------------------------------------------------


@dataclass
class Game:
    rules: Rules
    deck: tuple            # colour mask by card id
    hands: list            # per seat, sorted card ids
    row: list              # 3 piles (LEFT, CENTRE, RIGHT), top last
    pile: list             # draw pile, top first
    captured: list         # per seat, card ids in capture order
    last_capture: list     # per seat, turn of the latest capture (-1: none)
    actor: int             # seat to act, -1 when over
    turn: int = 0          # completed turns
    laid: int = 0          # cards laid this turn
    drew: bool = False     # forced draw made this turn
    over: bool = False
    capped: bool = False   # ended by the turn cap


def _copy(g: Game) -> Game:
    return Game(
        rules=g.rules, deck=g.deck,
        hands=[list(h) for h in g.hands],
        row=[list(p) for p in g.row],
        pile=list(g.pile),
        captured=[list(c) for c in g.captured],
        last_capture=list(g.last_capture),
        actor=g.actor, turn=g.turn, laid=g.laid, drew=g.drew, over=g.over, capped=g.capped,
    )


def new_game(rules: Rules, order: list[int]) -> Game:
    """Set up from `order`, the shuffled card ids, first dealt first."""
    deck = tuple(build_deck(rules))
    order = [int(c) for c in order]
    if sorted(order) != list(range(len(deck))):
        raise ValueError(f"order must be a permutation of the {len(deck)} card ids")
    n = rules.num_players
    hands = [[] for _ in range(n)]
    # deal 3 each, one card at a time, clockwise from seat 0
    for k in range(HAND_SIZE * n):
        hands[k % n].append(order[k])
    row = [[] for _ in range(NSPACES)]
    first_space = CENTRE if rules.initial_slot == "centre" else LEFT
    row[first_space].append(order[HAND_SIZE * n])
    g = Game(
        rules=rules, deck=deck,
        hands=[sorted(h) for h in hands],
        row=row,
        pile=order[HAND_SIZE * n + 1:],
        captured=[[] for _ in range(n)],
        last_capture=[-1] * n,
        actor=0,
    )
    _check_end(g)   # ruling: the end test also runs right after setup
    return g


def deal(rules: Rules, rng: random.Random) -> Game:
    """Shuffle the deck with `rng` and set up."""
    order = list(range(len(build_deck(rules))))
    rng.shuffle(order)
    return new_game(rules, order)


# ---------------------------------------------------------------------------
# Placement rules
# ---------------------------------------------------------------------------


def _top(row: list, space: int):
    """Card id on top of a space, or None for an empty space."""
    return row[space][-1] if row[space] else None


def _fits(rules: Rules, deck, row: list, card: int, space: int) -> bool:
    """Base legality of laying `card` on `space` (model "Placement")."""
    occupied_neighbours = [n for n in NEIGHBOURS[space] if row[n]]
    row_empty = not any(row)
    # an empty space is filled next to existing cards, unless the whole row is empty;
    # a pile may always be covered (with no occupied neighbour, by any card)
    if not row[space] and not occupied_neighbours and not row_empty:
        return False
    # adjacency: share a colour with the top card of every occupied neighbour
    for n in occupied_neighbours:
        if deck[card] & deck[_top(row, n)] == 0:
            return False
    # option match_covered_card: also share a colour with the covered card
    return not (rules.match_covered_card and row[space] and deck[card] & deck[_top(row, space)] == 0)


def legal_plays(rules: Rules, deck, row: list, hand: list) -> list[tuple[int, int]]:
    """Legal (card, space) pairs for `hand` on `row`, after the empty-space priority."""
    base = [(c, s) for c in sorted(hand) for s in range(NSPACES) if _fits(rules, deck, row, c, s)]
    into_empty = [(c, s) for c, s in base if not row[s]]
    prio = rules.empty_slot_priority
    if prio == "free":
        return base
    if prio == "fill_if_possible":
        # only empty spaces while some empty space can take some card of the hand
        return into_empty if into_empty else base
    # strict: while any space is empty, only cards that fit an empty space
    if any(not p for p in row):
        return into_empty
    return base


def _plays_of(g: Game, seat: int) -> list[tuple[int, int]]:
    return legal_plays(g.rules, g.deck, g.row, g.hands[seat])


# ---------------------------------------------------------------------------
# Decisions
# ---------------------------------------------------------------------------


def actor(game: Game) -> int:
    return game.actor


def is_over(game: Game) -> bool:
    return game.over


def legal_decisions(game: Game) -> list[tuple[int, int, int]]:
    """Sorted legal decisions of the actor (model "Decisions"); [] when over."""
    if game.over:
        return []
    plays = [(PLAY, c, s) for c, s in _plays_of(game, game.actor)]
    if game.laid > 0:
        # after the first card the seat may always stop
        return sorted(plays + [(END, 0, 0)])
    if plays:
        # with mandatory_play the first card is compulsory
        return sorted(plays + ([] if game.rules.mandatory_play else [(END, 0, 0)]))
    # cannot play: draw (a pass when the pile is empty). A seat that already made its
    # forced draw never reaches this point (its turn ended at once).
    assert not game.drew
    return [(DRAW, 0, 0)]


def apply(game: Game, decision) -> Game:
    """The state after `decision` (a NEW Game); ValueError if it is not legal."""
    try:
        decision = tuple(int(x) for x in decision)
    except (TypeError, ValueError):
        raise ValueError(f"a decision is a (code, a, b) triple of integers, got {decision!r}") from None
    if game.over:
        raise ValueError("the game is over")
    if decision not in legal_decisions(game):
        raise ValueError(f"illegal decision {decision} for seat {game.actor}; "
                         f"legal: {legal_decisions(game)}")
    g = _copy(game)
    code, a, b = decision
    if code == PLAY:
        _lay(g, a, b)
    elif code == END:
        _end_turn(g, refill=True)
    else:
        _forced_draw(g)
    return g


def _lay(g: Game, card: int, space: int) -> None:
    """Lay one card, then the capture test (option capture_condition) and the 3-card limit."""
    seat = g.actor
    g.hands[seat].remove(card)
    g.row[space].append(card)
    g.laid += 1
    hand_empty = not g.hands[seat]
    if g.rules.capture_condition == "played3_and_empty":
        capture = g.laid == MAX_PER_TURN and hand_empty
    else:   # hand_emptied
        capture = hand_empty
    if capture:
        # win the whole pile the last card was laid on; the space becomes empty
        g.captured[seat].extend(g.row[space])
        g.row[space] = []
        g.last_capture[seat] = g.turn
        _end_turn(g, refill=True)
    elif g.laid == MAX_PER_TURN:
        _end_turn(g, refill=True)


def _forced_draw(g: Game) -> None:
    """Cannot play: draw 1 card (nothing if the pile is empty); then the turn ends,
    unless play_after_forced_draw."""
    if g.pile:
        g.hands[g.actor].append(g.pile.pop(0))
        g.hands[g.actor].sort()
    g.drew = True
    if g.rules.play_after_forced_draw and _plays_of(g, g.actor):
        return          # continue as at the start of a turn (no second DRAW)
    _end_turn(g, refill=False)


def _end_turn(g: Game, refill: bool) -> None:
    """Refill (after laying cards / END), pass to the next seat, test the end."""
    hand = g.hands[g.actor]
    if refill:
        while len(hand) < HAND_SIZE and g.pile:
            hand.append(g.pile.pop(0))
        hand.sort()
    g.turn += 1
    g.laid = 0
    g.drew = False
    g.actor = (g.actor + 1) % g.rules.num_players
    _check_end(g)


def _check_end(g: Game) -> None:
    """Rules: draw pile empty and nobody can play; else the turn cap."""
    if not g.pile and not any(_plays_of(g, s) for s in range(g.rules.num_players)):
        g.over = True
        g.actor = -1
    elif g.turn >= g.rules.turn_cap:
        g.over = True
        g.capped = True
        g.actor = -1


# ---------------------------------------------------------------------------
# Result, views, policy
# ---------------------------------------------------------------------------


def result(game: Game) -> dict:
    """Most captured cards wins; ties by option `tiebreak`."""
    if not game.over:
        raise ValueError("the game is not over")
    counts = [len(c) for c in game.captured]
    best = max(counts)
    tied = [s for s, n in enumerate(counts) if n == best]
    if len(tied) > 1 and game.rules.tiebreak == "fewest_cards_in_hand":
        fewest = min(len(game.hands[s]) for s in tied)
        tied = [s for s in tied if len(game.hands[s]) == fewest]
    elif len(tied) > 1 and game.rules.tiebreak == "last_capture":
        latest = max(game.last_capture[s] for s in tied)
        if latest >= 0:    # one capture per turn: the latest capturer is unique
            tied = [s for s in tied if game.last_capture[s] == latest]
    return {
        "winner": tied[0] if len(tied) == 1 else -1,
        "cowinners": tied,
        "captured": counts,
        "turns": game.turn,
        "capped": game.capped,
    }


def to_dict(game: Game) -> dict:
    """The full state as plain data (JSON-ready)."""
    return {
        "hands": [list(h) for h in game.hands],
        "row": [list(p) for p in game.row],
        "pile": list(game.pile),
        "captured": [list(c) for c in game.captured],
        "last_capture": list(game.last_capture),
        "actor": game.actor,
        "turn": game.turn,
        "laid": game.laid,
        "drew": game.drew,
        "over": game.over,
    }


def from_dict(rules: Rules, d: dict, capped: bool = False) -> Game:
    """A Game from `to_dict` data (for hand-built positions); checks every card is in one place."""
    deck = tuple(build_deck(rules))
    n = rules.num_players
    hands = [sorted(int(c) for c in h) for h in d["hands"]]
    row = [[int(c) for c in p] for p in d["row"]]
    pile = [int(c) for c in d["pile"]]
    captured = [[int(c) for c in cs] for cs in d["captured"]]
    if len(hands) != n or len(captured) != n or len(row) != NSPACES:
        raise ValueError(f"need {n} hands, {n} captured lists and {NSPACES} row spaces")
    every = [c for h in hands for c in h] + [c for p in row for c in p] + pile + [c for cs in captured for c in cs]
    if sorted(every) != list(range(len(deck))):
        raise ValueError("every card id must be in exactly one place (hands, row, pile, captured)")
    over = bool(d.get("over", False))
    g = Game(
        rules=rules, deck=deck, hands=hands, row=row, pile=pile, captured=captured,
        last_capture=[int(t) for t in d.get("last_capture", [-1] * n)],
        actor=int(d["actor"]) if not over else -1,
        turn=int(d.get("turn", 0)), laid=int(d.get("laid", 0)), drew=bool(d.get("drew", False)),
        over=over, capped=capped,
    )
    if not over:
        if not 0 <= g.actor < n:
            raise ValueError(f"actor must be a seat 0..{n - 1}")
        if not 0 <= g.laid < MAX_PER_TURN:
            raise ValueError(f"laid must be 0..{MAX_PER_TURN - 1} at a decision point")
        if g.drew and g.laid == 0 and not _plays_of(g, g.actor):
            raise ValueError("after a forced draw with nothing to play the turn has already ended")
    return g


def observation(game: Game, seat: int) -> dict:
    """What `seat` may know: its own hand, the public row and counts, the turn state."""
    return {
        "seat": seat,
        "hand": list(game.hands[seat]),
        "row": [list(p) for p in game.row],          # faces are public
        "pile_size": len(game.pile),
        "hand_sizes": [len(h) for h in game.hands],
        "captured": [len(c) for c in game.captured],  # captured cards lie face down
        "last_capture": list(game.last_capture),
        "actor": game.actor,
        "turn": game.turn,
        "laid": game.laid,
        "drew": game.drew,
        "over": game.over,
    }


def random_decision(game: Game, rng: random.Random) -> tuple[int, int, int]:
    """Uniform over the sorted legal decisions."""
    legal = legal_decisions(game)
    return legal[rng.randrange(len(legal))]


def play_random_game(rules: Rules, rng: random.Random) -> Game:
    """Deal with `rng`, then play uniform random decisions to the end."""
    g = deal(rules, rng)
    while not g.over:
        g = apply(g, random_decision(g, rng))
    return g
