"""Experience metrics of single games, in plain Python: the readable definitions.

What a designer asks of a game beyond who wins: does the lead change hands, from when
is the winner's win never in doubt, do comebacks happen, how far behind was the winner.
Every metric here is read off one game's trajectory: each seat's standing on the game's
own scale (the engine contract's `progress` hook: pastures expected, triplets and zoo
cards, captured cards, tokens, banked points), sampled before the first seat's first
decision, at the start of every round and at the end. A round starts where the seat to
decide is below the one that decided before it in seat order (the turn has gone round
the table; seats that are blocked or out are skipped and do not matter); the rules' own
decisions (Battle Sheep's random board build) are not sampled. Rounds, not turns:
after each turn the seat that has just moved is a move ahead, so a lead sampled per turn
swings with the turn order. (On Battle Sheep's pastures every seat is level at each
round start until one is blocked, so its leads form late in the game.) A White Sheep's
owner placing out of turn (Bye-Bye Black Sheep) can add a sample mid-round.

Per game, from samples p[0..n] (n rounds, the last maybe cut short by the end) and the
winners W (the outcome's cowinners):

    lead_changes   how often the sole leader (a seat strictly ahead of every other)
                   changes to another seat; a tie is no one's lead, and taking the
                   first sole lead is not a change. (Ludii's LeadChange counts every
                   change of the leader set, ties included, per move: on a progress
                   scale of small integers that counts every tie.)
    decided_at     the first sample t from which a sole winner is the sole leader at
                   every sample to the end; n when it is not the sole leader at the
                   end (a tie broken by the rules' tie-break), NaN without a sole winner
    decided_share  decided_at / n: how much of the game was still open
    comeback       a sole winner trailed at half-time: at sample n // 2 some seat was
                   strictly ahead of it (1.0 or 0.0; NaN without a sole winner, so a
                   comeback rate counts the games that have one, as decided_at does)
    drama          Ludii's Drama, summed over the game: at every sample the winners'
                   mean deficit to the leading standing, max_q p[t, q] - p[t, w]

This is the reference for the kernels' per-game metrics, which are to be checked against
it game by game; tests/test_experience.py checks it on hand-made trajectories and
against Pig's decision log read independently.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class GameMetrics:
    rounds: int
    lead_changes: int
    decided_at: float
    decided_share: float
    comeback: float
    drama: float


def sole_leader(p: np.ndarray) -> int:
    """The seat strictly ahead of every other at one sample, -1 on a tie for the lead."""
    top = p.max()
    leaders = np.flatnonzero(p == top)
    return int(leaders[0]) if len(leaders) == 1 else -1


def metrics(samples: np.ndarray, winners: int) -> GameMetrics:
    """The metrics of one game: samples float[n + 1, players] (module docstring),
    winners the outcome's cowinner bit mask (0: no winner)."""
    samples = np.asarray(samples, dtype=np.float64)
    n = len(samples) - 1
    players = samples.shape[1]
    won = [q for q in range(players) if winners >> q & 1]
    leaders = [sole_leader(p) for p in samples]
    changes, last = 0, -1
    for lead in leaders:
        if lead >= 0:
            changes += last >= 0 and lead != last
            last = lead
    drama = 0.0
    if won:
        for p in samples:
            drama += float(np.mean([p.max() - p[w] for w in won]))
    decided_at, comeback = np.nan, np.nan
    if len(won) == 1:
        w = won[0]
        decided_at = n
        for t in range(n, -1, -1):
            if leaders[t] != w:
                break
            decided_at = t
        half = samples[n // 2]
        comeback = float(np.delete(half, w).max() > half[w])
    share = decided_at / n if n > 0 else np.nan
    return GameMetrics(n, changes, float(decided_at), float(share), comeback, drama)


def trajectory(play, rules_arr: np.ndarray, aux: np.ndarray, specs, rotate: bool, seed: int, game: int) -> np.ndarray:
    """The samples of game `game` of a run (module docstring): float[rounds + 1, players].
    The game is replayed as the runner plays it (wrappers.replay: its log of decisions
    and chance outcomes), then its decisions are applied again, one by one, through the
    engine's own hooks called from Python, with progress read at every new round. `aux`
    is what the run's kernels read (start.kernel_aux); `play` a driver game's play
    module (Bobby Sitter's per-flip loop has no decision log)."""
    from ..games import driver
    from ..games import wrappers as W
    log, _, _, rngs = W.replay(play, rules_arr, aux, specs, rotate, seed, game)
    players = int(rules_arr[0])
    width = play.GAME.action_size
    s = np.zeros(play.GAME.state_size, dtype=np.int32)
    play.R_START(s, rules_arr, aux, rngs[0])
    prog = np.zeros(play.GAME.max_players)
    samples, seat = [], -3
    for t, entry in enumerate(log):
        who = int(entry[0])
        assert who == play.R_ACTOR(s, rules_arr), f"the replay left the log at decision {t}"
        if who >= 0:
            if seat < 0 or who < seat:
                play.PROGRESS(s, rules_arr, prog)
                samples.append(prog[:players].copy())
            seat = who
        action = tuple(int(x) for x in entry[1:1 + width])
        play.R_STEP(s, rules_arr, aux, action, int(entry[1 + width]))
    assert play.R_ACTOR(s, rules_arr) == -1, "the replayed game did not end with its log"
    play.PROGRESS(s, rules_arr, prog)
    samples.append(prog[:players].copy())
    return np.array(samples)
