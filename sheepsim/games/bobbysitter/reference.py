"""Bobby Sitter: a readable pure-Python reference engine (the test oracle).

Written independently of the fast kernel, from the rules, the readings in READINGS.md
(this folder) and the specification in the docstring of
``sheepsim.games.bobbysitter.model`` (read it first: where no source settles a question
it holds the rulings). Clarity over speed; standard library only.

Vocabulary (rulebook names):

* **stack** - face-down cards, ``stack[0]`` is the top. One shared stack, or one per
  seat with ``stack_mode="per_player"``.
* **discard** - flipped cards in flip order, oldest first (same shape as the stacks).
* **stock** - the tokens not held by any player.
* **SHEEP counter** (one) and **BOBBY counters** (players - 1, one removed per
  eliminated player).

Randomness. Every chance event goes through a :class:`Chance` object with two
methods: ``shuffle(cards)`` (the cards to shuffle in ascending id order -> the new
stack, top first) and ``react(seat, card, cls, is_flipper)`` (one ACTIVE seat's
reaction ``(grab, time_ms)``; asked for every active seat in ascending seat order,
once per flip). :class:`RandomChance` is the player model of model.py driven by a
``random.Random``; :class:`ScriptedChance` replays given shuffles and reactions (tests
and the differential test).

The :class:`Game` is a plain mutable object: :func:`flip` plays one flip IN PLACE and
returns an event dict describing it.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Protocol

from sheepsim.games.bobbysitter.model import (
    DEFAULT_COUNTS,
    EMPTY,
    GRAB_BOBBY,
    GRAB_SHEEP,
    HIDDEN,
    MAX_CARDS,
    MAX_PLAYERS,
    MAX_SHEEP,
    MIN_PLAYERS,
    NONE,
    PROFILES,
    SHEEP,
    WOLF,
    card_class,
    generated_deck,
)

__all__ = [
    "Chance",
    "Game",
    "RandomChance",
    "Rules",
    "ScriptedChance",
    "flip",
    "is_over",
    "new_game",
    "play",
    "play_random_game",
    "result",
    "start_tokens_of",
    "to_dict",
]

DEFAULT_START = 2   # rules: each player gets 2 tokens

# ---------------------------------------------------------------------------
# Rules (options)
# ---------------------------------------------------------------------------

_CHOICES = {       # the default first (each choice's reading: READINGS.md)
    "stack_mode": ("shared", "per_player"),
    "wolf_with_sheep": ("wolf", "sheep"),
    "max_loss_per_card": ("one", "unlimited"),
    "empty_stock": ("no_gain", "unlimited_tokens"),
    "cap_resolution": ("most_tokens", "draw"),
}


@dataclass(frozen=True)
class Rules:
    """Rule options: defaults are sheepsim's readings, the alternatives the other readings (READINGS.md)."""

    num_players: int                                          # 2..6 (5 BOBBY counters, one fewer than players)
    deck: tuple = tuple(generated_deck(DEFAULT_COUNTS))       # (sheep, wolf, hidden_wolf) by card id, ASSUMED
    tokens: int = 25                                          # tokens in the box
    start_tokens: tuple = ()                                  # per SEAT; () = 2 each
    target_tokens: int = 5                                    # tokens to win
    stack_mode: str = "shared"                                # or "per_player", the rulebook's variant
    wolf_with_sheep: str = "wolf"                             # a visible wolf with sheep calls for BOBBY
    wrong_counter_penalty: int = 1                            # 0 | 1
    max_loss_per_card: str = "one"                            # at most 1 token lost per card
    sheep_race_loser_penalty: int = 0                         # 0 | 1
    last_standing_wins: bool = True                           # one player left wins
    empty_stock: str = "no_gain"                              # an empty stock pays nothing
    flip_cap: int = 2000                                      # a game still running after this many flips is capped
    cap_resolution: str = "most_tokens"                       # a capped game: "most_tokens" | "draw"
    flipper_reaction_bonus_ms: float = 0.0                    # ms off the flipper's reaction time

    def __post_init__(self):
        def need(ok: bool, msg: str) -> None:
            if not ok:
                raise ValueError(msg)

        def whole(v) -> bool:
            return isinstance(v, int) and not isinstance(v, bool)

        need(whole(self.num_players) and MIN_PLAYERS <= self.num_players <= MAX_PLAYERS,
             f"num_players must be {MIN_PLAYERS}..{MAX_PLAYERS}, got {self.num_players!r}")

        # deck: normalised to a tuple of (int, bool, bool)
        need(isinstance(self.deck, (list, tuple)), "deck must be a sequence of (sheep, wolf, hidden_wolf) cards")
        need(0 < len(self.deck) <= MAX_CARDS, f"the deck must have 1..{MAX_CARDS} cards, got {len(self.deck)}")
        cards = []
        for i, c in enumerate(self.deck):
            need(isinstance(c, (list, tuple)) and len(c) == 3,
                 f"deck card {i}: expected (sheep, wolf, hidden_wolf), got {c!r}")
            sheep, wolf, hidden = c
            need(whole(sheep) and 0 <= sheep <= MAX_SHEEP, f"deck card {i}: sheep must be 0..{MAX_SHEEP}, got {sheep!r}")
            need(isinstance(wolf, bool) or wolf in (0, 1), f"deck card {i}: wolf must be true or false")
            need(isinstance(hidden, bool) or hidden in (0, 1), f"deck card {i}: hidden_wolf must be true or false")
            # model "Cards": a visible and a hidden wolf on one card is contradictory
            need(not (wolf and hidden), f"deck card {i}: a card cannot show both a visible and a hidden wolf")
            cards.append((int(sheep), bool(wolf), bool(hidden)))
        object.__setattr__(self, "deck", tuple(cards))

        for name, allowed in _CHOICES.items():
            value = getattr(self, name)
            need(value in allowed, f"{name} must be one of {', '.join(allowed)}; got {value!r}")
        for name in ("wrong_counter_penalty", "sheep_race_loser_penalty"):
            value = getattr(self, name)
            need(whole(value) and value in (0, 1), f"{name} must be 0 or 1, got {value!r}")
        need(isinstance(self.last_standing_wins, bool), "last_standing_wins must be true or false")
        need(whole(self.flip_cap) and self.flip_cap >= 1, f"flip_cap must be >= 1, got {self.flip_cap!r}")
        bonus = self.flipper_reaction_bonus_ms
        need(isinstance(bonus, (int, float)) and not isinstance(bonus, bool) and math.isfinite(bonus) and bonus >= 0,
             f"flipper_reaction_bonus_ms must be a finite number >= 0, got {bonus!r}")

        # tokens, starts, target (model "Tokens and counters")
        need(whole(self.tokens) and self.tokens >= 1, f"tokens must be >= 1, got {self.tokens!r}")
        need(whole(self.target_tokens) and self.target_tokens >= 2,
             f"target_tokens must be >= 2, got {self.target_tokens!r}")
        need(isinstance(self.start_tokens, (list, tuple)), "start_tokens must be a sequence, one value per seat")
        object.__setattr__(self, "start_tokens", tuple(self.start_tokens))
        need(len(self.start_tokens) in (0, self.num_players),
             f"start_tokens needs one value per seat ({self.num_players}) or none, got {len(self.start_tokens)}")
        starts = start_tokens_of(self)
        for seat, s in enumerate(starts):
            need(whole(s) and s >= 1, f"start_tokens of seat {seat} must be >= 1, got {s!r}")
            # a player starting at the target would have won before the first flip
            need(s < self.target_tokens,
                 f"start_tokens of seat {seat} ({s}) must be below target_tokens ({self.target_tokens})")
        need(sum(starts) <= self.tokens,
             f"the start tokens add up to {sum(starts)}, more than the {self.tokens} tokens in the box")
        if self.stack_mode == "per_player":
            need(len(self.deck) >= self.num_players,
                 f"stack_mode per_player needs at least {self.num_players} cards, the deck has {len(self.deck)}")


def start_tokens_of(rules: Rules) -> list[int]:
    """Start tokens per seat (default 2 each)."""
    return list(rules.start_tokens) if rules.start_tokens else [DEFAULT_START] * rules.num_players


def _class_of(rules: Rules, card: int) -> int:
    sheep, wolf, hidden = rules.deck[card]
    return card_class(sheep, wolf, hidden, rules.wolf_with_sheep)


# ---------------------------------------------------------------------------
# Chance: shuffles and reactions
# ---------------------------------------------------------------------------


class Chance(Protocol):
    def shuffle(self, cards: list[int]) -> list[int]:
        """`cards` in ascending id order -> the new stack, top first (a permutation)."""

    def react(self, seat: int, card: int, cls: int, is_flipper: bool) -> tuple[int, float]:
        """(grab, time_ms) of one active seat to the flipped card."""


class RandomChance(Chance):
    """The player model of model.py ("Player models"), driven by a ``random.Random``.

    ``profiles``: one (median_ms, spread, p_false_empty, p_false_hidden,
    p_wrong_counter) per seat. ``rules`` supplies the deck (to know whether a no-react
    card shows sheep) and ``flipper_reaction_bonus_ms``; it may be omitted, in which
    case :func:`new_game` binds the game's rules to this object.

    Random numbers, per active seat and flip, always all three and in this order:
    ``u_react = rng.random()``, ``u_wrong = rng.random()``, ``z = rng.gauss(0, 1)``.
    A shuffle is ``rng.shuffle`` of a copy of the cards.
    """

    def __init__(self, rng: random.Random, profiles: list[tuple], rules: Rules | None = None):
        for i, p in enumerate(profiles):
            if len(p) != 5:
                raise ValueError(f"profile {i}: expected 5 parameters, got {p!r}")
            median, spread, pe, ph, pw = p
            if not (median > 0 and spread >= 0 and all(0 <= q <= 1 for q in (pe, ph, pw))):
                raise ValueError(f"profile {i}: need median_ms > 0, spread >= 0, probabilities in [0, 1]; got {p!r}")
        self.rng = rng
        self.profiles = [tuple(float(x) for x in p) for p in profiles]
        self.rules = rules
        if rules is not None:
            self._check_seats(rules)

    def _check_seats(self, rules: Rules) -> None:
        if len(self.profiles) < rules.num_players:
            raise ValueError(f"{rules.num_players} players need {rules.num_players} profiles, got {len(self.profiles)}")

    def bind(self, rules: Rules) -> None:
        """Use `rules` (called by new_game when no rules were given)."""
        self._check_seats(rules)
        self.rules = rules

    def shuffle(self, cards: list[int]) -> list[int]:
        stack = list(cards)
        self.rng.shuffle(stack)
        return stack

    def react(self, seat: int, card: int, cls: int, is_flipper: bool) -> tuple[int, float]:
        assert self.rules is not None, "RandomChance needs the rules (pass them or call new_game first)"
        median, spread, p_empty, p_hidden, p_wrong = self.profiles[seat]
        u_react = self.rng.random()
        u_wrong = self.rng.random()
        z = self.rng.gauss(0, 1)
        if cls == WOLF:
            grab = GRAB_SHEEP if u_wrong < p_wrong else GRAB_BOBBY
        elif cls == SHEEP:
            grab = GRAB_BOBBY if u_wrong < p_wrong else GRAB_SHEEP
        else:
            p = p_empty if cls == EMPTY else p_hidden
            if u_react < p:
                # the hand goes for SHEEP when sheep are shown, else BOBBY (no effect: any reaction costs 1)
                grab = GRAB_SHEEP if self.rules.deck[card][0] > 0 else GRAB_BOBBY
            else:
                grab = NONE
        time_ms = median * math.exp(spread * z)
        if is_flipper:
            time_ms -= self.rules.flipper_reaction_bonus_ms      # an option, 0 by default
        return grab, max(0.0, time_ms)


class ScriptedChance(Chance):
    """Replays `shuffles` (one new stack per shuffle, top first) and `reactions` (one
    {seat: (grab, time_ms)} per flip, a key for exactly the active seats), in order.

    Raises AssertionError when the script does not fit the game: a shuffle that is not
    a permutation of the cards asked for, a missing seat, a flip's seats that differ
    from the script's keys, or running out of script.
    """

    def __init__(self, shuffles: list[list[int]], reactions: list[dict[int, tuple[int, float]]]):
        self.shuffles = [list(s) for s in shuffles]
        self.reactions = [dict(r) for r in reactions]
        self.shuffles_used = 0
        self.flips_used = 0            # reaction dicts started
        self._asked: list[int] = []    # seats asked in the current flip

    def shuffle(self, cards: list[int]) -> list[int]:
        assert self.shuffles_used < len(self.shuffles), f"no scripted shuffle left for cards {cards}"
        stack = self.shuffles[self.shuffles_used]
        self.shuffles_used += 1
        assert sorted(stack) == sorted(cards), f"scripted shuffle {stack} is not a permutation of {cards}"
        return list(stack)

    def _close_flip(self) -> None:
        if self.flips_used:
            script = self.reactions[self.flips_used - 1]
            assert sorted(script) == self._asked, \
                f"flip {self.flips_used}: reactions scripted for seats {sorted(script)}, asked {self._asked}"

    def react(self, seat: int, card: int, cls: int, is_flipper: bool) -> tuple[int, float]:
        if not self._asked or seat <= self._asked[-1]:
            # seats are asked in ascending order within a flip, so this starts a new flip
            self._close_flip()
            assert self.flips_used < len(self.reactions), "no scripted reactions left"
            self.flips_used += 1
            self._asked = []
        self._asked.append(seat)
        script = self.reactions[self.flips_used - 1]
        assert seat in script, f"flip {self.flips_used}: no scripted reaction for seat {seat}"
        grab, time_ms = script[seat]
        return int(grab), float(time_ms)

    def assert_done(self) -> None:
        """Every scripted shuffle and reaction was used (and the last flip fully)."""
        self._close_flip()
        assert self.shuffles_used == len(self.shuffles), \
            f"{len(self.shuffles) - self.shuffles_used} scripted shuffles unused"
        assert self.flips_used == len(self.reactions), \
            f"{len(self.reactions) - self.flips_used} scripted flips unused"


# ---------------------------------------------------------------------------
# Game state
# ---------------------------------------------------------------------------


@dataclass
class Game:
    rules: Rules
    tokens: list                 # per seat
    stock: int
    active: list                 # per seat, False once eliminated
    bobby_counters: int
    stacks: list                 # 1 list (shared) or 1 per seat (per_player), top first
    discards: list               # same shape, flip order, oldest first
    flipper: int = 0             # seat to flip next, -1 once over
    flips: int = 0
    reshuffles: int = 0          # the initial shuffle does not count
    minted: int = 0              # tokens created when the stock was empty (unlimited_tokens)
    winner: int = -1             # -1: none yet / draw
    over: bool = False
    capped: bool = False         # ended by the flip cap
    penalties: list = field(default_factory=list)     # lost for reacting to EMPTY/HIDDEN cards
    wolf_losses: list = field(default_factory=list)   # lost on WOLF cards
    sheep_gains: list = field(default_factory=list)   # gained on SHEEP cards


def new_game(rules: Rules, chance: Chance) -> Game:
    """Shuffle and set up (model "Stack")."""
    if isinstance(chance, RandomChance) and chance.rules is None:
        chance.bind(rules)
    n = rules.num_players
    ids = list(range(len(rules.deck)))
    order = list(chance.shuffle(list(ids)))
    if sorted(order) != ids:
        raise ValueError("the initial shuffle is not a permutation of the card ids")
    if rules.stack_mode == "shared":
        stacks = [order]
        discards = [[]]
    else:
        # per_player: dealt round-robin, card k to seat k % players, each stack in dealing order
        stacks = [order[s::n] for s in range(n)]
        discards = [[] for _ in range(n)]
    starts = start_tokens_of(rules)
    return Game(
        rules=rules,
        tokens=list(starts),
        stock=rules.tokens - sum(starts),
        active=[True] * n,
        bobby_counters=n - 1,
        stacks=stacks,
        discards=discards,
        penalties=[0] * n,
        wolf_losses=[0] * n,
        sheep_gains=[0] * n,
    )


def is_over(game: Game) -> bool:
    return game.over


def _pile_index(game: Game, seat: int) -> int:
    return 0 if game.rules.stack_mode == "shared" else seat


def _next_active(game: Game, seat: int) -> int:
    """The next ACTIVE seat clockwise after `seat` (seat + 1, seat + 2, ... mod players)."""
    n = game.rules.num_players
    for k in range(1, n + 1):
        s = (seat + k) % n
        if game.active[s]:
            return s
    return -1


def _reaction_order(game: Game, reactions: dict, flipper: int) -> list[int]:
    """Seats that reacted, by ascending time; a tie goes to the seat closer clockwise
    to the flipper, the flipper itself first."""
    n = game.rules.num_players
    reacted = [s for s, (grab, _) in reactions.items() if grab != NONE]
    return sorted(reacted, key=lambda s: (reactions[s][1], (s - flipper) % n))


def flip(game: Game, chance: Chance) -> dict:
    """Play one flip in place and return what happened (see the module docstring)."""
    if game.over:
        raise ValueError("the game is over")
    rules = game.rules
    n = rules.num_players
    flipper = game.flipper
    pile = _pile_index(game, flipper)

    # an empty stack is rebuilt from its discard before the flip
    reshuffled = False
    if not game.stacks[pile]:
        cards = sorted(game.discards[pile])
        stack = list(chance.shuffle(list(cards)))
        if sorted(stack) != cards:
            raise ValueError("a reshuffle is not a permutation of the discarded cards")
        game.stacks[pile] = stack
        game.discards[pile] = []
        game.reshuffles += 1
        reshuffled = True

    card = game.stacks[pile].pop(0)
    game.discards[pile].append(card)
    cls = _class_of(rules, card)

    # every active seat reacts, asked in ascending seat order
    reactions = {}
    for s in range(n):
        if game.active[s]:
            grab, time_ms = chance.react(s, card, cls, s == flipper)
            if grab not in (NONE, GRAB_SHEEP, GRAB_BOBBY):
                raise ValueError(f"seat {s}: grab must be 0, 1 or 2, got {grab!r}")
            reactions[s] = (int(grab), float(time_ms))
    order = _reaction_order(game, reactions, flipper)

    loss = [0] * n
    gain = [0] * n
    bobby_taken: list[int] = []
    sheep_winner = -1

    if cls == WOLF:
        counters = game.bobby_counters
        for s in order:
            if reactions[s][0] == GRAB_BOBBY and counters > 0:
                bobby_taken.append(s)
                counters -= 1
        for s in reactions:
            grab = reactions[s][0]
            if grab == GRAB_SHEEP:
                # wrong counter, and holding no BOBBY
                loss[s] = rules.wrong_counter_penalty + 1
            elif s not in bobby_taken:
                # the BOBBY grabber left without one, or a seat that did not react
                loss[s] = 1
    elif cls == SHEEP:
        sheep_grabbers = [s for s in order if reactions[s][0] == GRAB_SHEEP]
        if sheep_grabbers:
            sheep_winner = sheep_grabbers[0]
            # the token comes from the stock as it is before this card's losses
            if game.stock > 0 or rules.empty_stock == "unlimited_tokens":
                gain[sheep_winner] = 1
            for s in sheep_grabbers[1:]:
                loss[s] = rules.sheep_race_loser_penalty                # losing the race: free by default
        for s in order:
            if reactions[s][0] == GRAB_BOBBY:
                loss[s] = rules.wrong_counter_penalty                   # wrong counter
    else:
        # EMPTY or HIDDEN: nobody may react; every reaction costs 1
        for s in order:
            loss[s] = 1

    # at most 1 per card (option); never more than held. Lost tokens go to the stock.
    for s in range(n):
        if rules.max_loss_per_card == "one":
            loss[s] = min(loss[s], 1)
        loss[s] = min(loss[s], game.tokens[s])
        game.tokens[s] -= loss[s]
    for s in range(n):
        if gain[s]:
            if game.stock > 0:
                game.stock -= 1
            else:
                game.minted += 1        # unlimited_tokens with an empty stock
            game.tokens[s] += 1
    game.stock += sum(loss)
    for s in range(n):
        if cls == WOLF:
            game.wolf_losses[s] += loss[s]
        elif cls in (EMPTY, HIDDEN):
            game.penalties[s] += loss[s]
        game.sheep_gains[s] += gain[s]

    # elimination, one BOBBY counter removed each (rules)
    eliminated = [s for s in range(n) if game.active[s] and game.tokens[s] == 0]
    for s in eliminated:
        game.active[s] = False
        game.bobby_counters = max(0, game.bobby_counters - 1)

    game.flips += 1
    _check_end(game)
    game.flipper = -1 if game.over else _next_active(game, flipper)

    return {
        "flipper": flipper,
        "card": card,
        "class": cls,
        "reshuffled": reshuffled,
        "reactions": {s: [g, t] for s, (g, t) in reactions.items()},
        "bobby_taken": bobby_taken,
        "sheep_winner": sheep_winner,
        "losses": loss,
        "gains": gain,
        "eliminated": eliminated,
    }


def _check_end(game: Game) -> None:
    """The end conditions 1-4 of model.py, in order."""
    rules = game.rules
    alive = [s for s in range(rules.num_players) if game.active[s]]
    at_target = [s for s in alive if game.tokens[s] >= rules.target_tokens]
    assert len(at_target) <= 1, "only the sheep gainer can reach the target"
    if at_target:                                           # 1. target reached
        game.winner, game.over = at_target[0], True
    elif not alive:                                         # 2. all eliminated together: draw
        game.winner, game.over = -1, True
    elif len(alive) == 1 and rules.last_standing_wins:      # 3. last standing
        game.winner, game.over = alive[0], True
    elif game.flips >= rules.flip_cap:                      # 4. flip cap
        game.over = game.capped = True
        game.winner = -1
        if rules.cap_resolution == "most_tokens":
            best = max(game.tokens[s] for s in alive)
            leaders = [s for s in alive if game.tokens[s] == best]
            if len(leaders) == 1:
                game.winner = leaders[0]


# ---------------------------------------------------------------------------
# Views, whole games
# ---------------------------------------------------------------------------


def to_dict(game: Game) -> dict:
    """The full state as plain data (JSON-ready)."""
    return {
        "tokens": list(game.tokens),
        "stock": game.stock,
        "minted": game.minted,
        "active": list(game.active),
        "bobby_counters": game.bobby_counters,
        "stacks": [list(s) for s in game.stacks],
        "discards": [list(d) for d in game.discards],
        "flipper": game.flipper,
        "flips": game.flips,
        "reshuffles": game.reshuffles,
        "winner": game.winner,
        "over": game.over,
        "capped": game.capped,
        "penalties": list(game.penalties),
        "wolf_losses": list(game.wolf_losses),
        "sheep_gains": list(game.sheep_gains),
    }


def result(game: Game) -> dict:
    """The model's "Results" of a finished game."""
    if not game.over:
        raise ValueError("the game is not over")
    return {
        "winner": game.winner,
        "flips": game.flips,
        "reshuffles": game.reshuffles,
        "capped": game.capped,
        "tokens": list(game.tokens),
        "eliminated": [0 if a else 1 for a in game.active],
        "penalties": list(game.penalties),
        "wolf_losses": list(game.wolf_losses),
        "sheep_gains": list(game.sheep_gains),
    }


def play(rules: Rules, profiles: list[tuple], rng: random.Random) -> Game:
    """A whole game, every seat modelled by its profile (RandomChance on `rng`)."""
    chance = RandomChance(rng, profiles, rules)
    game = new_game(rules, chance)
    while not game.over:
        flip(game, chance)
    return game


def play_random_game(rules: Rules, rng: random.Random) -> Game:
    """A whole game with every seat the "adult" profile (benchmarking)."""
    return play(rules, [PROFILES["adult"]] * rules.num_players, rng)
