"""The kernels' experience metrics: a running tally of one game, in the driver's loop.

stats/experience.py is the readable definition (it keeps a game's whole trajectory
and reads the metrics off it); this is the same, computed on the fly in O(players) per
sample with nothing kept per sample but one bit mask, so a kernel with metrics on costs
little more than one without (`sheepsim bench`, metrics rows). The driver samples
(driver.play_game) where the reference does: before the first seat's first decision, at
the start of every round (the seat to decide is below the one that decided before it)
and at the end. tests/test_experience.py checks the two game by game.

How each metric is kept (the reference's definitions):

    lead_changes   the last sole leader seen; a different sole leader adds one
    decided_at     the start of the current run of equal leaders (a tie, -1, is a
                   leader value too): at the end it is the first sample of the sole
                   winner's final run of sole leads, or n when the winner is not the
                   sole leader at the end
    comeback       the seats strictly behind the top, one bit each, kept per sample;
                   read at sample n // 2 once n is known. A game of more than
                   MAX_ROUNDS rounds has no comeback value (NaN)
    drama          every seat's deficit to the top, summed over the samples; the
                   winners' mean at the end

A game's metrics row, float64[M_SIZE]: rounds (n, the samples less one), lead changes,
decided_at (NaN without a sole winner), comeback (1.0 or 0.0, NaN without a sole winner)
and drama (0 without a winner).
"""

import numpy as np
from numba import njit

M_ROUNDS, M_LEAD_CHANGES, M_DECIDED_AT, M_COMEBACK, M_DRAMA = range(5)
M_SIZE = 5
METRICS = ("rounds", "lead_changes", "decided_at", "comeback", "drama")   # by column
MAX_ROUNDS = 1 << 16        # samples whose trailing seats are kept (the comeback's half-time)
# the running state, int64[T_SIZE]: samples taken, the current sample's sole leader
# (-1 on a tie), the first sample of its run, the last sole leader, lead changes
T_SAMPLES, T_LEAD, T_RUN, T_LAST, T_CHANGES = range(5)
T_SIZE = 5


@njit(inline="always")
def buffers(on, max_players):
    """A block's tally: (on, progress out, deficits, trailing masks, running state, the
    game's metrics row); with `on` false the arrays are token-sized and nothing is kept."""
    rounds = MAX_ROUNDS if on else 1
    return (on, np.zeros(max_players, dtype=np.float64), np.zeros(max_players, dtype=np.float64),
            np.zeros(rounds, dtype=np.int32), np.zeros(T_SIZE, dtype=np.int64), np.zeros(M_SIZE, dtype=np.float64))


@njit(inline="always")
def begin(tally, players):
    """Clear the tally for a new game."""
    _, _, deficit, _, st, _ = tally
    for q in range(players):
        deficit[q] = 0.0
    st[T_SAMPLES] = 0
    st[T_LEAD] = -2             # no sample yet: the first sample starts a run
    st[T_RUN] = 0
    st[T_LAST] = -1
    st[T_CHANGES] = 0


@njit(inline="always")
def sample(progress, s, rules, players, tally):
    """Take one sample of every seat's standing (the contract's progress hook)."""
    _, prog, deficit, trail, st, _ = tally
    progress(s, rules, prog)
    top = prog[0]
    for q in range(1, players):
        top = max(top, prog[q])
    lead, at_top, behind = -1, 0, 0
    for q in range(players):
        gap = top - prog[q]
        deficit[q] += gap
        if gap == 0.0:
            at_top += 1
            lead = q
        else:
            behind |= 1 << q
    if at_top != 1:
        lead = -1
    t = st[T_SAMPLES]
    if t < trail.shape[0]:
        trail[t] = behind
    if lead != st[T_LEAD]:
        st[T_RUN] = t
        st[T_LEAD] = lead
    if lead >= 0:
        if st[T_LAST] >= 0 and lead != st[T_LAST]:
            st[T_CHANGES] += 1
        st[T_LAST] = lead
    st[T_SAMPLES] = t + 1


@njit(inline="always")
def end(progress, s, rules, players, winners, tally):
    """The end sample, then the game's metrics row from the outcome's cowinner mask."""
    _, _, deficit, trail, st, row = tally
    sample(progress, s, rules, players, tally)
    n = st[T_SAMPLES] - 1
    row[M_ROUNDS] = n
    row[M_LEAD_CHANGES] = st[T_CHANGES]
    won, w, drama = 0, -1, 0.0
    for q in range(players):
        if winners >> q & 1:
            won += 1
            w = q
            drama += deficit[q]
    row[M_DRAMA] = drama / won if won > 0 else 0.0
    row[M_DECIDED_AT] = np.nan
    row[M_COMEBACK] = np.nan
    if won == 1:
        row[M_DECIDED_AT] = st[T_RUN] if st[T_LEAD] == w else n
        half = n // 2
        if half < trail.shape[0]:
            row[M_COMEBACK] = trail[half] >> w & 1


def metric_columns(metrics: np.ndarray) -> dict[str, np.ndarray]:
    """A chunk's metrics rows as results columns (the runner's --metrics): rounds and
    lead_changes as integers; decided_at, decided_share (decided_at / rounds), comeback
    and drama as floats, NaN where the module docstring says."""
    m = np.asarray(metrics, dtype=np.float64)
    rounds = m[:, M_ROUNDS]
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(rounds > 0, m[:, M_DECIDED_AT] / np.maximum(rounds, 1), np.nan)
    return {"rounds": rounds.astype(np.int32), "lead_changes": m[:, M_LEAD_CHANGES].astype(np.int32),
            "decided_at": m[:, M_DECIDED_AT], "decided_share": share, "comeback": m[:, M_COMEBACK],
            "drama": m[:, M_DRAMA]}
