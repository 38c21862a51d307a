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
against Pig's decision log read independently. A game's samples are replayed through
its hooks by games/trajectory.py (it runs the game's kernels, so it lives with the
games; this module imports nothing of sheepsim).
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
