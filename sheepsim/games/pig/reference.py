"""Readable pure-Python reference engine for Pig.

This module is a *test oracle*: it is written for clarity, not speed, and is meant
to be compared decision by decision against the fast engine. It uses only the
standard library and shares no code with the kernels.

Rules (Neller & Presser, "Optimal Play of the Dice Game Pig", 2004):

* two players; seat 0 starts;
* on a turn the player repeatedly chooses to **roll** one six-sided die or to
  **hold**;
* a roll of 1 (a **bust**) ends the turn and the **turn total** is lost; any other
  face is added to the turn total;
* a hold banks the turn total into the player's **score** and ends the turn;
* the first player to hold with score + turn total >= goal wins at once.

sheepsim's choices: holding is legal only with a turn total > 0 (holding on 0 would
bank nothing); rolling stays legal past the goal; after ``turn_cap`` completed turns
a game still running is a draw.

Public API: ``Rules``, ``Game``, ``new_game``, ``legal_actions``, ``step``,
``is_over``, ``result``, ``random_policy``, ``hold_policy``, ``play_game``,
``play_random_game``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Callable, Optional

VERSION = 1

ROLL = "roll"
HOLD = "hold"

Die = Callable[[], int]                 # returns a face 1..6
Policy = Callable[["Game", "Rules"], str]


@dataclass(frozen=True)
class Rules:
    """The rule options of one Pig game: ``goal`` (100) and ``turn_cap`` (10000)."""

    goal: int = 100
    turn_cap: int = 10_000

    def __post_init__(self) -> None:
        if not 10 <= self.goal <= 1000:
            raise ValueError(f"goal must be 10..1000, got {self.goal}")
        if not 1 <= self.turn_cap <= 1_000_000:
            raise ValueError(f"turn_cap must be 1..1000000, got {self.turn_cap}")


@dataclass(frozen=True)
class Game:
    """One game state. Treated as immutable: ``step`` always builds a new Game.

    ``to_act`` is None once the game is over; ``turns`` counts completed turns and
    ``rolls`` the dice rolled by both players.
    """

    scores: tuple[int, int] = (0, 0)
    turn_total: int = 0
    to_act: Optional[int] = 0
    turns: int = 0
    rolls: int = 0


def new_game(rules: Rules) -> Game:
    """Both scores 0; seat 0 is about to start its first turn."""
    return Game()


def is_over(game: Game) -> bool:
    return game.to_act is None


def legal_actions(game: Game) -> list[str]:
    """Roll is always legal; hold only once something has been rolled this turn."""
    if is_over(game):
        return []
    if game.turn_total > 0:
        return [ROLL, HOLD]
    return [ROLL]


def _next_turn(game: Game, rules: Rules, scores: tuple[int, int]) -> Game:
    """The turn is over: the other player starts one, unless the turn cap is reached."""
    turns = game.turns + 1
    next_player = None if turns >= rules.turn_cap else 1 - game.to_act
    return replace(game, scores=scores, turn_total=0, to_act=next_player, turns=turns)


def step(game: Game, rules: Rules, action: str, face: Optional[int] = None) -> Game:
    """The game after ``action``; a roll needs the die ``face`` (1..6)."""
    if action not in legal_actions(game):
        raise ValueError(f"{action!r} is not legal here; legal: {legal_actions(game)}")
    player = game.to_act
    if action == HOLD:
        scores = list(game.scores)
        scores[player] += game.turn_total
        if scores[player] >= rules.goal:
            # the player reached the goal: the game ends with this turn
            return replace(game, scores=tuple(scores), turn_total=0, to_act=None, turns=game.turns + 1)
        return _next_turn(game, rules, tuple(scores))
    if face not in (1, 2, 3, 4, 5, 6):
        raise ValueError(f"a roll needs a die face 1..6, got {face!r}")
    game = replace(game, rolls=game.rolls + 1)
    if face == 1:
        # bust: the turn total is lost
        return _next_turn(game, rules, game.scores)
    return replace(game, turn_total=game.turn_total + face)


def result(game: Game, rules: Rules) -> dict:
    """winner (-1 if the turn cap ended the game), scores, turns, rolls, capped."""
    if not is_over(game):
        raise ValueError("the game is not over")
    winners = [p for p in (0, 1) if game.scores[p] >= rules.goal]
    return {"winner": winners[0] if winners else -1, "scores": list(game.scores), "turns": game.turns,
            "rolls": game.rolls, "capped": not winners}


def random_policy(coin: Callable[[int], int]) -> Policy:
    """Uniform over the legal actions; ``coin(n)`` returns an integer in [0, n).

    When rolling is the only legal action no coin is tossed.
    """
    def policy(game: Game, rules: Rules) -> str:
        actions = legal_actions(game)
        return actions[0] if len(actions) == 1 else actions[coin(len(actions))]
    return policy


def hold_policy(t: float = 20) -> Policy:
    """Hold at t: roll until the turn total reaches ``t`` or holding would reach the goal."""
    def policy(game: Game, rules: Rules) -> str:
        total = game.turn_total
        if total == 0:
            return ROLL
        if total >= t or game.scores[game.to_act] + total >= rules.goal:
            return HOLD
        return ROLL
    return policy


def play_game(rules: Rules, policies: tuple[Policy, Policy], dice: tuple[Die, Die]) -> Game:
    """Play to the end: seat p decides with ``policies[p]`` and rolls ``dice[p]``."""
    game = new_game(rules)
    while not is_over(game):
        player = game.to_act
        action = policies[player](game, rules)
        face = dice[player]() if action == ROLL else None
        game = step(game, rules, action, face)
    return game


def play_random_game(rules: Rules, rng: random.Random) -> Game:
    """Both seats play the random policy, with dice and coins from ``rng``."""
    policy = random_policy(rng.randrange)
    die = lambda: rng.randint(1, 6)     # noqa: E731
    return play_game(rules, (policy, policy), (die, die))
