"""Bye-Bye Black Sheep: a readable pure-Python reference engine (the test oracle).

This engine is written independently of the fast kernel, from the published rules and
the readings sheepsim takes where the rulebook is silent or ambiguous (READINGS.md in
this folder, `sheepsim rules blacksheep --readings`). It favours clarity over speed: every rule is one small
function with a comment citing the rule it implements.

Vocabulary (rulebook names):

* **hand** - the cards a player holds (hidden); a vector of counts per card kind.
* **zoo** - the face-up animal cards in front of a player; the JOKER slot is 1 when the
  Joker lies in that zoo, bound to ``joker_species[seat]``.
* **table** (the watering hole) - the cards drawn this turn, in arrival order.
* **draw pile** - face-down cards, ``pile[0]`` is the top.
* **set-aside** - cards the Wolf made a player set aside until the end of the turn.
* **triplet** - a species with at least 3 cards in one zoo (a Joker bound to it counts).

State is immutable from the outside: :func:`apply` returns a NEW :class:`Game` and
never mutates its argument. Decisions are ``(code, a, b)`` integer triples, see
``sheepsim.games.blacksheep.model``.

Chance events are explicit arguments of :func:`apply`: the kind of the card a blind
draw yields, and (only with ``magpie_entry="draw_pile_shuffled"``) the position in the
draw pile where the entering Magpie is inserted (0 = top .. len(pile) = bottom).

What each seat knows of the others' hands is part of the game (``Game.known``), because
a player's choices may use it and a search re-deals only what its seat cannot see
(:func:`determinize`). ``known[o][p][k]``: seat o knows that seat p holds at least this
many cards of kind k. Knowledge comes only from public events: every seat's own Black
Sheep, cards that go face up into a hand (the table taken, the Black Sheep sent back,
the Wolf's set-aside cards returned, the Magpie into the placer's hand), cards that
leave a hand face up (a blind draw, the Eagle's answer, the Mole's take, a placement:
a bound can only drop, and never below 0), and the Mole, which shows the active player
the whole hand it was drawn from. A refill is drawn unseen.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from sheepsim.games.blacksheep.model import (
    ANIMAL,
    BLACK,
    COPIES,
    DRAW,
    DRAW_FROM,
    EAGLE,
    EAGLE_ASK,
    EAGLE_ASK_PHASE,
    EAGLE_SKIP,
    JOKER,
    MAGPIE,
    MAGPIE_NONE,
    MAGPIE_PHASE,
    MAGPIE_TAKE,
    MOLE,
    MOLE_NONE,
    MOLE_PHASE,
    MOLE_TAKE,
    MOTHER,
    MOTHER_PHASE,
    MOTHER_SKIP,
    MOTHER_TAKE,
    NKINDS,
    OVER,
    PLACE,
    PLACE_DONE,
    PLACE_PHASE,
    SETUP,
    STOP,
    WHITE,
    WHITE_NONE,
    WHITE_PHASE,
    WHITE_PLACE,
    WOLF,
    animal,
    species_of,
)

__all__ = [
    "Game",
    "Rules",
    "actor",
    "apply",
    "card_census",
    "chance_outcomes",
    "deal",
    "determinize",
    "draw_probabilities",
    "from_dict",
    "full_deck",
    "is_over",
    "legal_decisions",
    "new_game",
    "phase",
    "play_random_game",
    "random_decision",
    "result",
    "to_dict",
]

# ---------------------------------------------------------------------------
# Rules (options)
# ---------------------------------------------------------------------------

_CHOICES = {
    "zoo_limit_basis": ("table_cards", "blind_draws"),
    "magpie_entry": ("trigger_hand", "draw_pile_shuffled"),
    "refill": ("others", "all"),
    "wolf_return": ("before_refill", "after_refill"),
    "cap_resolution": ("draw", "most_triplets"),
    "optional_card_setup": ("into_animal_deck", "into_draw_pile"),
}


@dataclass(frozen=True)
class Rules:
    """Rule options: defaults are sheepsim's readings, the alternatives the other readings (READINGS.md)."""

    num_players: int                       # 2..5
    zoo_limit_basis: str = "table_cards"   # what N counts ("blind_draws": blind draws only)
    magpie_entry: str = "trigger_hand"     # where the entering Magpie goes
    magpie_can_break_triplet: bool = True  # the Magpie may take a card out of a triplet
    zoo_max_per_species: int = 0           # 0 = no limit, or 3
    refill: str = "others"                 # "others" | "all" (active player last)
    wolf_return: str = "before_refill"     # Wolf set-aside cards return before the refill
    must_draw_first: bool = False          # False: stopping before any draw is allowed
    turn_cap: int = 500                    # a game still running after this many turns is capped
    cap_resolution: str = "draw"           # a capped game: "draw" | "most_triplets"
    wolf: bool = False                     # optional cards, one each, all off by default
    white_sheep: bool = False
    mother_sheep: bool = False
    joker: bool = False
    optional_card_setup: str = "into_animal_deck"   # where enabled optional cards start
    eagle_accepts_joker: bool = False      # the Joker does not answer an Eagle
    mole_can_take_joker: bool = True       # the Mole may take the Joker
    hand_limit: int = 0                    # 0 = by player count (SETUP table)
    triplets_to_win: int = 0               # 0 = by player count

    def __post_init__(self):
        if self.num_players not in SETUP:
            raise ValueError(f"num_players must be 2..5, got {self.num_players!r}")
        for name, allowed in _CHOICES.items():
            if getattr(self, name) not in allowed:
                raise ValueError(f"{name} must be one of {allowed}, got {getattr(self, name)!r}")
        if self.zoo_max_per_species not in (0, 3):
            raise ValueError("zoo_max_per_species must be 0 (no limit) or 3")
        if self.turn_cap < 1:
            raise ValueError("turn_cap must be >= 1")
        if self.hand_limit < 0 or self.triplets_to_win < 0:
            raise ValueError("hand_limit and triplets_to_win must be >= 0 (0 = setup table)")

    # resolved setup values -------------------------------------------------
    @property
    def num_species(self) -> int:
        return SETUP[self.num_players]["species"]

    @property
    def effective_hand_limit(self) -> int:
        return self.hand_limit or SETUP[self.num_players]["hand_limit"]

    @property
    def effective_triplets_to_win(self) -> int:
        return self.triplets_to_win or SETUP[self.num_players]["triplets"]

    def optional_kinds(self) -> list[int]:
        """The enabled optional cards (one of each), in kind order."""
        flags = ((WOLF, self.wolf), (WHITE, self.white_sheep), (MOTHER, self.mother_sheep),
                 (JOKER, self.joker))
        return [kind for kind, on in flags if on]


def full_deck(rules: Rules) -> list[int]:
    """Count per kind of every card in play for this setup (SETUP, by player count), incl. the Magpie."""
    setup = SETUP[rules.num_players]
    counts = [0] * NKINDS
    counts[BLACK] = rules.num_players
    counts[EAGLE] = setup["eagles"]
    counts[MOLE] = setup["moles"]
    counts[MAGPIE] = 1
    for kind in rules.optional_kinds():
        counts[kind] = 1
    for s in range(1, rules.num_species + 1):
        counts[animal(s)] = COPIES
    return counts


# ---------------------------------------------------------------------------
# Game state
# ---------------------------------------------------------------------------


@dataclass
class Game:
    """One game state. Treat as immutable: use :func:`apply` to get successors."""

    rules: Rules
    hands: list            # [seat][kind] counts
    zoos: list             # [seat][kind] counts (JOKER slot = 1 if the Joker is there)
    joker_species: list    # [seat] species the zoo's Joker is bound to, else 0
    table: list            # kinds at the watering hole, in arrival order
    pile: list             # draw pile, top first
    set_aside: list        # [seat][kind] counts set aside by the Wolf
    magpie_in_play: bool = False
    phase: int = DRAW
    actor: int = 0
    active: int = 0
    turn: int = 0
    draws: int = 0         # blind draws this turn
    limit: int = 0         # zoo placement limit this turn (0 outside PLACE)
    placed: int = 0        # cards placed this turn (PLACE phase)
    source: int = -1       # seat the special being resolved was drawn from
    winner: int = -1
    capped: bool = False
    known: list = field(default_factory=list)   # [observer][seat][kind] lower bounds (module docstring)
    _legal_cache: list | None = field(default=None, repr=False, compare=False)

    @property
    def num_players(self) -> int:
        return self.rules.num_players

    def copy(self) -> Game:
        return Game(
            rules=self.rules,
            hands=[list(h) for h in self.hands],
            zoos=[list(z) for z in self.zoos],
            joker_species=list(self.joker_species),
            table=list(self.table),
            pile=list(self.pile),
            set_aside=[list(s) for s in self.set_aside],
            magpie_in_play=self.magpie_in_play,
            phase=self.phase, actor=self.actor, active=self.active, turn=self.turn,
            draws=self.draws, limit=self.limit, placed=self.placed, source=self.source,
            winner=self.winner, capped=self.capped,
            known=[[list(row) for row in rows] for rows in self.known],
        )


def _check_kind(rules: Rules, kind: int, where: str) -> None:
    """Reject card kinds that do not exist in this setup."""
    if not (0 <= kind < NKINDS):
        raise ValueError(f"{where}: unknown card kind {kind}")
    if kind >= ANIMAL and species_of(kind) > rules.num_species:
        raise ValueError(f"{where}: species {species_of(kind)} is not used with "
                         f"{rules.num_players} players")
    if kind in (WOLF, WHITE, MOTHER, JOKER) and kind not in rules.optional_kinds():
        raise ValueError(f"{where}: optional card {kind} is not enabled")


def _check_counts(rules: Rules, rows, what: str) -> list:
    if len(rows) != rules.num_players:
        raise ValueError(f"{what}: need one row per seat ({rules.num_players})")
    out = []
    for seat, row in enumerate(rows):
        row = [int(c) for c in row]
        if len(row) != NKINDS or min(row) < 0:
            raise ValueError(f"{what}[{seat}]: need {NKINDS} non-negative counts")
        for kind, c in enumerate(row):
            if c:
                _check_kind(rules, kind, f"{what}[{seat}]")
        out.append(row)
    return out


def new_game(rules: Rules, hands, pile, *, zoos=None, joker_species=None,
             magpie_in_play: bool | None = None, active: int = 0, turn: int = 0, known=None) -> Game:
    """A game at the start of a turn (phase DRAW) from hand-built hands and draw pile.

    ``hands`` are counts per kind per seat, ``pile`` kinds top first. Keyword extras
    (not needed for a fresh game) let tests start from a position with zoos:
    ``zoos`` counts per kind per seat, ``joker_species`` per seat, the active seat and
    the turn number. ``magpie_in_play`` defaults to True exactly when a Magpie lies in
    a hand, zoo or the pile (otherwise it waits beside the pile). ``known`` (``Game.known``)
    defaults to what a fresh deal makes public: every seat holds its own Black Sheep.
    """
    n = rules.num_players
    hands = _check_counts(rules, hands, "hands")
    zoos = _check_counts(rules, zoos if zoos is not None else [[0] * NKINDS] * n, "zoos")
    pile = [int(k) for k in pile]
    for k in pile:
        _check_kind(rules, k, "pile")
    if joker_species is None:
        joker_species = [0] * n
    joker_species = [int(s) for s in joker_species]
    for seat in range(n):
        if zoos[seat][MAGPIE] or zoos[seat][BLACK] or any(zoos[seat][k] for k in range(1, JOKER)):
            raise ValueError("zoos hold only animal cards and the Joker")
        if zoos[seat][JOKER] and not 1 <= joker_species[seat] <= rules.num_species:
            raise ValueError(f"the Joker in zoo {seat} must be bound to a species")
        if not zoos[seat][JOKER] and joker_species[seat]:
            raise ValueError(f"joker_species[{seat}] set but zoo {seat} holds no Joker")
    if magpie_in_play is None:
        magpie_in_play = MAGPIE in pile or any(h[MAGPIE] for h in hands)
    if not 0 <= active < n:
        raise ValueError("active must be a seat")
    if known is None:
        known = [[[0] * NKINDS for _ in range(n)] for _ in range(n)]
        for rows in known:
            for seat in range(n):
                rows[seat][BLACK] = min(1, hands[seat][BLACK])
    else:
        known = [_check_counts(rules, rows, f"known[{o}]") for o, rows in enumerate(known)]
        if len(known) != n:
            raise ValueError(f"known: need one row per seat ({n})")
        for o in range(n):
            for seat in range(n):
                if any(known[o][seat][k] > hands[seat][k] for k in range(NKINDS)):
                    raise ValueError(f"known[{o}][{seat}]: more than seat {seat} holds")
    return Game(rules=rules, hands=hands, zoos=zoos, joker_species=joker_species, table=[],
                pile=pile, set_aside=[[0] * NKINDS for _ in range(n)],
                magpie_in_play=bool(magpie_in_play), phase=DRAW, actor=active, active=active,
                turn=turn, known=known)


def deal(rules: Rules, rng: random.Random) -> Game:
    """Shuffle and deal a new game (READINGS.md, "Where the optional cards start").

    1. The animal deck is species 1..S x 4; enabled optional cards go into it first
       ("into_animal_deck") - then it is shuffled.
    2. Deal one card at a time clockwise from seat 0, ``dealt`` rounds; the rest is the
       draw pile (top first). With "into_draw_pile" the optional cards are added to the
       pile and the pile is shuffled after the deal.
    3. Each seat gets its own Black Sheep.
    4. The Eagles and Moles are shuffled and one is dealt to each seat (seat 0 first).
    5. The Magpie waits beside the draw pile (not in play).
    """
    setup = SETUP[rules.num_players]
    n = rules.num_players
    deck = [animal(s) for s in range(1, rules.num_species + 1) for _ in range(COPIES)]
    if rules.optional_card_setup == "into_animal_deck":
        deck += rules.optional_kinds()
    rng.shuffle(deck)
    hands = [[0] * NKINDS for _ in range(n)]
    pos = 0
    for _round in range(setup["dealt"]):
        for seat in range(n):
            hands[seat][deck[pos]] += 1
            pos += 1
    pile = deck[pos:]
    if rules.optional_card_setup == "into_draw_pile" and rules.optional_kinds():
        pile += rules.optional_kinds()
        rng.shuffle(pile)
    for seat in range(n):
        hands[seat][BLACK] += 1
    specials = [EAGLE] * setup["eagles"] + [MOLE] * setup["moles"]
    rng.shuffle(specials)
    for seat in range(n):
        hands[seat][specials[seat]] += 1
    return new_game(rules, hands, pile, magpie_in_play=False)


# ---------------------------------------------------------------------------
# Queries
# ---------------------------------------------------------------------------


def phase(game: Game) -> int:
    return game.phase


def actor(game: Game) -> int:
    """Seat that decides now (-1 when the game is over)."""
    return game.actor


def is_over(game: Game) -> bool:
    return game.phase == OVER


def _opponents(game: Game, seat: int) -> list[int]:
    return [p for p in range(game.num_players) if p != seat]


def _species_count(game: Game, seat: int, s: int) -> int:
    """Cards of species s in a zoo, a Joker bound to s included."""
    zoo = game.zoos[seat]
    return zoo[animal(s)] + (1 if zoo[JOKER] and game.joker_species[seat] == s else 0)


def triplets(game: Game, seat: int) -> int:
    """Number of species with >= 3 cards in the zoo (a 4th card makes no second triplet)."""
    return sum(1 for s in range(1, game.rules.num_species + 1) if _species_count(game, seat, s) >= 3)


def _zoo_allows(game: Game, seat: int, s: int) -> bool:
    """zoo_max_per_species=3 (an option; by default a 4th card may go in) forbids a species that already has 3 cards."""
    return game.rules.zoo_max_per_species == 0 or _species_count(game, seat, s) < game.rules.zoo_max_per_species


def _placements(game: Game, seat: int, code: int) -> list[tuple]:
    """(code, kind, species) for every card of `seat`'s hand that may go to the zoo.

    Only animal cards (and the Joker, bound to any species s) may enter a zoo;
    special cards never do.
    """
    hand = game.hands[seat]
    out = []
    if hand[JOKER]:
        out += [(code, JOKER, s) for s in range(1, game.rules.num_species + 1) if _zoo_allows(game, seat, s)]
    for s in range(1, game.rules.num_species + 1):
        if hand[animal(s)] and _zoo_allows(game, seat, s):
            out.append((code, animal(s), s))
    return out


def legal_decisions(game: Game) -> list[tuple[int, int, int]]:
    """All legal (code, a, b) decisions for the actor, sorted ascending ([] when over)."""
    if game._legal_cache is None:
        game._legal_cache = sorted(_legal(game))
    return list(game._legal_cache)


def _legal(game: Game) -> list[tuple]:
    rules, A, ph = game.rules, game.active, game.phase
    S = rules.num_species
    if ph == OVER:
        return []
    if ph == DRAW:
        # Draw loop: draw blindly from any opponent, or stop.
        draws = [(DRAW_FROM, o, 0) for o in _opponents(game, A) if sum(game.hands[o])]
        # stopping before any draw is allowed unless must_draw_first
        # (still allowed if, in a hand-built position, nobody can be drawn from).
        may_stop = not (rules.must_draw_first and game.draws == 0 and draws)
        return ([(STOP, 0, 0)] if may_stop else []) + draws
    if ph == EAGLE_ASK_PHASE:
        # Eagle: optional; name any opponent and one species in play.
        return [(EAGLE_SKIP, 0, 0)] + [(EAGLE_ASK, o, s) for o in _opponents(game, A) for s in range(1, S + 1)]
    if ph == MOLE_PHASE:
        # Mole: take one animal card (the Joker too, unless mole_can_take_joker is off) from the hand it came from.
        hand = game.hands[game.source]
        out = [(MOLE_NONE, 0, 0)]
        if hand[JOKER] and rules.mole_can_take_joker:
            out.append((MOLE_TAKE, JOKER, 0))
        out += [(MOLE_TAKE, animal(s), 0) for s in range(1, S + 1) if hand[animal(s)]]
        return out
    if ph == MAGPIE_PHASE:
        # Magpie: take one card from any opponent's zoo (with magpie_can_break_triplet off, not from a triplet).
        out = [(MAGPIE_NONE, 0, 0)]
        for o in _opponents(game, A):
            zoo = game.zoos[o]
            for kind in range(NKINDS):
                if not zoo[kind]:
                    continue
                s = game.joker_species[o] if kind == JOKER else species_of(kind)
                if not rules.magpie_can_break_triplet and _species_count(game, o, s) >= 3:
                    continue
                out.append((MAGPIE_TAKE, o, kind))
        return out
    if ph == WHITE_PHASE:
        # White Sheep: the player it was drawn from may move one card to their zoo.
        return [(WHITE_NONE, 0, 0)] + _placements(game, game.source, WHITE_PLACE)
    if ph == MOTHER_PHASE:
        # Mother Sheep: take the top card of the draw pile, if any.
        return [(MOTHER_SKIP, 0, 0)] + ([(MOTHER_TAKE, 0, 0)] if game.pile else [])
    if ph == PLACE_PHASE:
        # Zoo placement: up to `limit` cards from the whole hand, one at a time.
        out = [(PLACE_DONE, 0, 0)]
        if game.placed < game.limit:
            out += _placements(game, A, PLACE)
        return out
    raise AssertionError(f"unknown phase {ph}")


def draw_probabilities(game: Game, opponent: int) -> dict[int, float]:
    """kind -> probability that a blind draw from `opponent` yields that kind.

    A blind draw takes a card uniformly at random, so this is
    count / hand size for every kind the opponent holds.
    """
    hand = game.hands[opponent]
    size = sum(hand)
    return {kind: c / size for kind, c in enumerate(hand) if c} if size else {}


def _magpie_enters(game: Game, placer: int, kind: int, s: int) -> bool:
    """Magpie entry check, evaluated for a placement before it is made.

    Only while the Magpie is still beside the pile; a Joker never triggers it (it is not
    a species for condition (i), and we apply the same to (ii)). A placement of species
    s triggers it if (i) s was not yet in the placer's zoo and the placer then has >= 3
    distinct species of real cards, or (ii) s is in another player's zoo (real cards).
    """
    if game.magpie_in_play or kind == JOKER:
        return False
    zoo = game.zoos[placer]
    if zoo[animal(s)] == 0:
        distinct_after = 1 + sum(1 for t in range(1, game.rules.num_species + 1) if zoo[animal(t)])
        if distinct_after >= 3:
            return True
    return any(game.zoos[o][animal(s)] for o in _opponents(game, placer))


def chance_outcomes(game: Game, decision) -> dict[int, float] | None:
    """The chance event a (legal) decision triggers: {outcome: probability}, else None.

    DRAW_FROM: the kind drawn (see :func:`draw_probabilities`). A placement that makes
    the Magpie enter with magpie_entry="draw_pile_shuffled": its position in the pile,
    uniform over the len(pile) + 1 gaps (0 = top).
    """
    code, a, b = decision
    if code == DRAW_FROM:
        return draw_probabilities(game, a)
    if code in (PLACE, WHITE_PLACE) and game.rules.magpie_entry == "draw_pile_shuffled":
        placer = game.active if code == PLACE else game.source
        if _magpie_enters(game, placer, a, b):
            gaps = len(game.pile) + 1
            return {pos: 1 / gaps for pos in range(gaps)}
    return None


# ---------------------------------------------------------------------------
# Transitions
# ---------------------------------------------------------------------------


def apply(game: Game, decision, chance: int | None = None) -> Game:
    """Return the state after `decision` (and its chance outcome); never mutates `game`.

    Raises ValueError if the decision is illegal, or if `chance` is missing, given when
    no chance event happens, or impossible.
    """
    try:
        decision = tuple(int(x) for x in decision)
    except (TypeError, ValueError):
        raise ValueError(f"malformed decision {decision!r}") from None
    if len(decision) != 3 or decision not in legal_decisions(game):
        raise ValueError(f"illegal decision {decision} in phase {game.phase}")
    outcomes = chance_outcomes(game, decision)
    if outcomes is None:
        if chance is not None:
            raise ValueError(f"decision {decision} has no chance event, got chance={chance!r}")
    else:
        if chance is None or isinstance(chance, bool) or not isinstance(chance, int) or chance not in outcomes:
            raise ValueError(f"decision {decision} needs a chance outcome in {sorted(outcomes)}, got {chance!r}")

    g = game.copy()
    code, a, b = decision
    A = g.active
    if code == STOP:
        _stop(g)
    elif code == DRAW_FROM:
        _blind_draw(g, a, chance)
    elif code == EAGLE_SKIP:
        _back_to_draw(g)        # the Eagle just stays on the table
    elif code == EAGLE_ASK:
        _eagle_ask(g, a, b)
    elif code == MOLE_NONE:
        _back_to_draw(g)
    elif code == MOLE_TAKE:
        _lose(g, g.source, a)
        g.table.append(a)
        _back_to_draw(g)
    elif code == MAGPIE_NONE:
        _back_to_draw(g)
    elif code == MAGPIE_TAKE:
        g.zoos[a][b] -= 1
        if b == JOKER:
            g.joker_species[a] = 0          # a Joker leaving a zoo becomes unbound
        g.table.append(b)
        _back_to_draw(g)
    elif code == WHITE_NONE:
        _back_to_draw(g)
    elif code == WHITE_PLACE:
        if not _place(g, g.source, a, b, chance):   # White Sheep: no limit applies
            _back_to_draw(g)
    elif code == MOTHER_SKIP:
        _back_to_draw(g)
    elif code == MOTHER_TAKE:
        # Mother Sheep: the top card goes face up on the table; no effect fires.
        g.table.append(g.pile.pop(0))
        _back_to_draw(g)
    elif code == PLACE:
        g.placed += 1                       # counted before the win check
        _place(g, A, a, b, chance)
    elif code == PLACE_DONE:
        _end_turn(g)
    else:  # pragma: no cover - legal_decisions only yields known codes
        raise AssertionError(code)
    return g


def _receive_public(g: Game, seat: int, kind: int) -> None:
    """A card goes face up into `seat`'s hand: every seat now knows it is there."""
    g.hands[seat][kind] += 1
    for rows in g.known:
        rows[seat][kind] += 1


def _lose(g: Game, seat: int, kind: int) -> None:
    """A card leaves `seat`'s hand face up: what anyone knew of that kind there drops
    by one (a lower bound, so never below 0)."""
    g.hands[seat][kind] -= 1
    for rows in g.known:
        rows[seat][kind] = max(0, rows[seat][kind] - 1)


def _back_to_draw(g: Game) -> None:
    """The special is resolved: the active player continues the draw loop."""
    g.phase, g.actor, g.source = DRAW, g.active, -1


def _blind_draw(g: Game, opponent: int, kind: int) -> None:
    """Blind draw from `opponent`: the card goes to the table, resolve it."""
    A = g.active
    _lose(g, opponent, kind)        # the card drawn is seen by all
    g.table.append(kind)
    g.draws += 1
    if kind >= ANIMAL or kind == JOKER:
        # Animal (or Joker): stays on the table, A continues.
        return
    if kind == BLACK:
        # Black Sheep: back at once to the player it came from; every other table card
        # goes to A's hand; no zoo placement; the turn ends.
        g.table.pop()
        _receive_public(g, opponent, BLACK)
        _table_to_hand(g, A)
        _end_turn(g)
        return
    if kind == WOLF:
        # Wolf: the player it was drawn from sets aside every other table card until the
        # end of the turn; the Wolf stays on the table; A continues (no decision).
        for k in g.table[:-1]:
            g.set_aside[opponent][k] += 1
        g.table = [WOLF]
        return
    special_phase = {EAGLE: EAGLE_ASK_PHASE, MOLE: MOLE_PHASE, MAGPIE: MAGPIE_PHASE,
                     WHITE: WHITE_PHASE, MOTHER: MOTHER_PHASE}[kind]
    g.phase, g.source = special_phase, opponent
    # The White Sheep is resolved by the player it was drawn from; the others by A.
    g.actor = opponent if kind == WHITE else A
    if kind == MOLE:
        # the Mole shows A the whole hand it came from
        g.known[A][opponent] = list(g.hands[opponent])


def _eagle_ask(g: Game, opponent: int, s: int) -> None:
    """Eagle: ask `opponent` for species s. Success: the card goes to the table and A
    continues; with eagle_accepts_joker a Joker may answer. Failure: like a stop."""
    hand = g.hands[opponent]
    if hand[animal(s)]:
        _lose(g, opponent, animal(s))
        g.table.append(animal(s))
        _back_to_draw(g)
    elif g.rules.eagle_accepts_joker and hand[JOKER]:
        _lose(g, opponent, JOKER)
        g.table.append(JOKER)
        _back_to_draw(g)
    else:
        _stop(g)


def _table_to_hand(g: Game, seat: int) -> int:
    """All table cards go into `seat`'s hand; returns how many."""
    n = len(g.table)
    for k in g.table:
        _receive_public(g, seat, k)
    g.table = []
    return n


def _stop(g: Game) -> None:
    """Voluntary stop or failed Eagle: take the table, then place up to N - 2 animal cards
    from the whole hand into the zoo (N: by default the cards just taken from the table)."""
    taken = _table_to_hand(g, g.active)
    n = taken if g.rules.zoo_limit_basis == "table_cards" else g.draws
    g.limit = max(0, n - 2)
    g.placed = 0
    g.phase, g.actor, g.source = PLACE_PHASE, g.active, -1


def _place(g: Game, placer: int, kind: int, s: int, chance: int | None) -> bool:
    """Move one card from `placer`'s hand to their zoo, then the Magpie entry check,
    then the win check. Returns True if the placer has won."""
    enters = _magpie_enters(g, placer, kind, s)
    _lose(g, placer, kind)
    g.zoos[placer][kind] += 1
    if kind == JOKER:
        g.joker_species[placer] = s      # the Joker is bound to one species when placed
    if enters:
        g.magpie_in_play = True
        if g.rules.magpie_entry == "trigger_hand":
            _receive_public(g, placer, MAGPIE)    # into the placer's hand, face up
        else:
            g.pile.insert(chance, MAGPIE)         # option: shuffled into the draw pile
    if triplets(g, placer) >= g.rules.effective_triplets_to_win:
        g.winner = placer
        g.phase, g.actor, g.source, g.limit = OVER, -1, -1, 0
        return True
    return False


def _refill(g: Game, seat: int) -> None:
    """Draw from the top of the pile up to the hand limit (or until the pile is empty)."""
    want = g.rules.effective_hand_limit - sum(g.hands[seat])
    while want > 0 and g.pile:
        g.hands[seat][g.pile.pop(0)] += 1
        want -= 1


def _end_turn(g: Game) -> None:
    """End of turn: Wolf set-aside cards return (before or after the refill, by option wolf_return),
    refill clockwise from the next player, then the turn cap or the next seat."""
    n, A = g.num_players, g.active

    def wolf_return():
        for seat in range(n):
            for k in range(NKINDS):
                for _ in range(g.set_aside[seat][k]):
                    _receive_public(g, seat, k)     # they lay face up on the table
            g.set_aside[seat] = [0] * NKINDS

    def refill():
        order = [(A + i) % n for i in range(1, n)]
        if g.rules.refill == "all":
            order.append(A)                   # the active player refills last
        for seat in order:
            _refill(g, seat)

    if g.rules.wolf_return == "before_refill":
        wolf_return()
        refill()
    else:
        refill()
        wolf_return()
    g.turn += 1
    g.draws = g.limit = g.placed = 0
    g.source = -1
    if g.turn >= g.rules.turn_cap:
        g.capped = True
        g.winner = _cap_winner(g)
        g.phase, g.actor = OVER, -1
        return
    g.active = (A + 1) % n
    g.phase, g.actor = DRAW, g.active


def _cap_winner(g: Game) -> int:
    """The turn cap: a draw, or the single player with most triplets, then most zoo
    cards among those tied; still tied: draw."""
    if g.rules.cap_resolution == "draw":
        return -1
    seats = list(range(g.num_players))
    best = max(triplets(g, p) for p in seats)
    tied = [p for p in seats if triplets(g, p) == best]
    if len(tied) == 1:
        return tied[0]
    most = max(sum(g.zoos[p]) for p in tied)
    tied = [p for p in tied if sum(g.zoos[p]) == most]
    return tied[0] if len(tied) == 1 else -1


def determinize(game: Game, seat: int, rng: random.Random) -> Game:
    """`game` with everything `seat` cannot see dealt again at random (engine.determinize's
    rule, written independently): what a search for `seat` may sample.

    Unseen: each other seat's hand beyond what `seat` knows of it, and the draw pile.
    Those cards are shuffled together and dealt back, every other seat keeping the
    cards `seat` knows it holds and its hand size, the rest making a pile of the same
    size. Everything else stays: `seat`'s hand and knowledge, the public cards, each
    seat's knowledge of its own hand (moved by public events only, so public) and of
    `seat`'s. What the other seats saw of third hands falls back to that public bound,
    except that during a Mole decision the active player sees the hand it looks at.
    The result depends on what `seat` knows and on `rng` only.
    """
    g = game.copy()
    mine = g.known[seat]
    others = [q for q in range(g.num_players) if q != seat]
    # sorted, so that where the unseen cards really are does not show through
    pool = sorted(g.pile + [k for q in others for k in range(NKINDS) for _ in range(g.hands[q][k] - mine[q][k])])
    rng.shuffle(pool)
    for q in others:
        unseen = sum(g.hands[q]) - sum(mine[q])
        g.hands[q] = list(mine[q])
        for k in pool[:unseen]:
            g.hands[q][k] += 1
        pool = pool[unseen:]
    g.pile = pool
    for o in others:
        for q in others:
            if q != o:
                g.known[o][q] = list(g.known[q][q])
    if g.phase == MOLE_PHASE and g.actor != seat and g.source != seat:
        g.known[g.actor][g.source] = list(g.hands[g.source])
    return g


# ---------------------------------------------------------------------------
# Canonical form, result, random play
# ---------------------------------------------------------------------------


def to_dict(game: Game) -> dict:
    """Canonical state (lists, ints, bools only) shared with the kernel's tests."""
    return {
        "phase": game.phase,
        "actor": game.actor,
        "active": game.active,
        "turn": game.turn,
        "hands": [list(h) for h in game.hands],
        "zoos": [list(z) for z in game.zoos],
        "joker_species": list(game.joker_species),
        "table": list(game.table),
        "pile": list(game.pile),
        "set_aside": [list(s) for s in game.set_aside],
        "magpie_in_play": bool(game.magpie_in_play),
        "draws": game.draws,
        "limit": game.limit,
        "placed": game.placed,
        "source": game.source,
        "winner": game.winner,
        "capped": bool(game.capped),
    }


def from_dict(rules: Rules, d: dict, known=None) -> Game:
    """Inverse of :func:`to_dict` (any reachable state, e.g. one produced by the kernel),
    with what each seat knows (``Game.known``; the default: :func:`new_game`'s)."""
    g = new_game(rules, d["hands"], d["pile"], zoos=d["zoos"], joker_species=d["joker_species"],
                 magpie_in_play=d["magpie_in_play"], active=d["active"], turn=d["turn"], known=known)
    g.table = [int(k) for k in d["table"]]
    g.set_aside = _check_counts(rules, d["set_aside"], "set_aside")
    for name in ("phase", "actor", "draws", "limit", "placed", "source", "winner"):
        setattr(g, name, int(d[name]))
    g.capped = bool(d["capped"])
    return g


def card_census(game: Game) -> list[int]:
    """Count per kind over hands, zoos, table, pile, set-aside and the Magpie beside the
    pile; equals :func:`full_deck` in every state reached from :func:`deal`."""
    counts = [0] * NKINDS
    for rows in (game.hands, game.zoos, game.set_aside):
        for row in rows:
            for k, c in enumerate(row):
                counts[k] += c
    for k in game.table + game.pile:
        counts[k] += 1
    if not game.magpie_in_play:
        counts[MAGPIE] += 1
    return counts


def result(game: Game) -> dict:
    """Outcome summary. `turns` is the number of turns played: the completed ones
    (`to_dict()["turn"]`), and the winning turn, which ends the game inside it."""
    n = game.num_players
    return {
        "winner": game.winner,
        "capped": bool(game.capped),
        "triplets": [triplets(game, p) for p in range(n)],
        "zoo_cards": [sum(game.zoos[p]) for p in range(n)],
        "turns": game.turn + (0 if game.capped or game.winner is None or game.winner < 0 else 1),
    }


def random_decision(game: Game, rng: random.Random) -> tuple:
    """The `random` policy: uniform over legal_decisions."""
    return rng.choice(legal_decisions(game))


def random_chance(game: Game, decision, rng: random.Random) -> int | None:
    """Sample the chance event of `decision`: a uniform card of the hand drawn from, or
    a uniform Magpie position in the pile; None when there is no chance event."""
    code, a, _b = decision
    if code == DRAW_FROM:
        cards = [k for k, c in enumerate(game.hands[a]) for _ in range(c)]
        return rng.choice(cards)
    if chance_outcomes(game, decision) is not None:
        return rng.randrange(len(game.pile) + 1)
    return None


def play_random_game(rules: Rules, rng: random.Random) -> Game:
    """Deal, then play random decisions and random chance until the game is over."""
    game = deal(rules, rng)
    while not is_over(game):
        d = random_decision(game, rng)
        game = apply(game, d, random_chance(game, d, rng))
    return game
