"""One game's trajectory, replayed through its engine's hooks from Python: the samples
the experience metrics are read off (stats/experience.py defines the samples and the
metrics; this is the part that runs a game's kernels, so it lives with the games).
"""

from __future__ import annotations

import numpy as np

from . import wrappers as W


def trajectory(play, rules_arr: np.ndarray, aux: np.ndarray, specs, rotate: bool, seed: int, game: int) -> np.ndarray:
    """The samples of game `game` of a run (stats/experience.py's docstring):
    float[rounds + 1, players].
    The game is replayed as the runner plays it (wrappers.replay: its log of decisions
    and chance outcomes), then its decisions are applied again, one by one, through the
    engine's own hooks called from Python, with progress read at every new round. `aux`
    is what the run's kernels read (start.kernel_aux); `play` a driver game's play
    module (Bobby Sitter's per-flip loop has no decision log)."""
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
