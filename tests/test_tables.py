"""Analysis tables on a small hand-built run whose counts are known exactly."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from sheepsim.stats.intervals import wilson_interval
from sheepsim.stats.tables import (
    game_margins,
    length_table,
    margin_table,
    policies,
    policy_table,
    seat0_edge,
    seat_table,
    tiebreak_rate,
)

A, B = "greedy", "random"


@pytest.fixture
def run() -> pd.DataFrame:
    """Six 3-player games, policies rotated so A sits in seat (rotation).

    game winner cowinners scores      note
      0     0   0b001   10  5  3
      1     1   0b010    4  9  9     top tied, tie-break won by seat 1
      2     0   0b001   12  2  7
      3    -1   0b011    8  8  1     seats 0 and 1 share
      4     2   0b100    3  4 11
      5    -1   0b110    2  6  6     seats 1 and 2 share
    """
    rotation = np.array([0, 1, 2, 0, 1, 2])
    df = pd.DataFrame(
        {
            "game": np.arange(6),
            "rotation": rotation,
            "num_players": 3,
            "winner": [0, 1, 0, -1, 2, -1],
            "cowinners": [0b001, 0b010, 0b001, 0b011, 0b100, 0b110],
            "turns": [10, 20, 30, 40, 50, 60],
            "capped": [False] * 5 + [True],
            "tiebreak": [False, True, False, True, False, True],
        }
    )
    scores = [(10, 5, 3), (4, 9, 9), (12, 2, 7), (8, 8, 1), (3, 4, 11), (2, 6, 6)]
    for seat in range(3):
        df[f"score_{seat}"] = [s[seat] for s in scores]
        df[f"policy_{seat}"] = np.where(rotation == seat, A, B)
    return df


def test_seat_table_exact_counts(run: pd.DataFrame) -> None:
    table = seat_table(run)
    assert table["seat"].tolist() == [0, 1, 2]
    assert table["games"].tolist() == [6, 6, 6]
    assert table["decided"].tolist() == [4, 4, 4]
    assert table["wins"].tolist() == [2, 1, 1]
    # Draws are not sole wins, but each seat in a shared result is counted.
    assert table["shared"].tolist() == [1, 2, 1]
    assert table["win_rate"].tolist() == [0.5, 0.25, 0.25]
    lo, hi = wilson_interval(2, 4)
    assert (table.loc[0, "win_rate_lo"], table.loc[0, "win_rate_hi"]) == (lo, hi)
    assert table["fair_rate"].tolist() == pytest.approx([1 / 3] * 3)


def test_seat_table_run_level_attrs(run: pd.DataFrame) -> None:
    attrs = seat_table(run).attrs
    assert attrs["games"] == 6 and attrs["draws"] == 2
    assert attrs["draw_rate"] == pytest.approx(1 / 3)
    assert (attrs["draw_rate_lo"], attrs["draw_rate_hi"]) == wilson_interval(2, 6)
    # wins 2,1,1 vs expected 4/3 each: statistic 0.5, p = exp(-0.25) with 2 df.
    assert attrs["chi2"] == pytest.approx(0.5)
    assert attrs["chi2_p"] == pytest.approx(math.exp(-0.25))
    assert attrs["policies"] == [A, B]


def test_seat0_edge_shifts_interval(run: pd.DataFrame) -> None:
    lo, hi = wilson_interval(2, 4)
    edge = seat0_edge(run)
    assert edge["edge"] == pytest.approx(0.5 - 1 / 3)
    assert edge["edge_lo"] == pytest.approx(lo - 1 / 3)
    assert edge["edge_hi"] == pytest.approx(hi - 1 / 3)
    assert edge["decided"] == 4


def test_policy_table_counts_seat_appearances(run: pd.DataFrame) -> None:
    table = policy_table(run).set_index("policy")
    assert table.loc[A, ["games", "decided", "wins", "shared"]].tolist() == [6, 4, 2, 2]
    assert table.loc[B, ["games", "decided", "wins", "shared"]].tolist() == [12, 8, 2, 2]
    assert table.loc[A, "win_rate"] == 0.5
    assert table.loc[B, "win_rate"] == 0.25


def test_policy_by_seat(run: pd.DataFrame) -> None:
    table = policy_table(run, by_seat=True).set_index(["policy", "seat"])
    assert len(table) == 6
    # A in seat 0: games 0 (won) and 3 (shared with seat 1).
    assert table.loc[(A, 0), ["games", "decided", "wins", "shared"]].tolist() == [2, 1, 1, 1]
    # B in seat 0: games 1, 2 (won), 4, 5.
    assert table.loc[(B, 0), ["games", "decided", "wins", "shared"]].tolist() == [4, 3, 1, 0]


def test_policies_lists_specs(run: pd.DataFrame) -> None:
    assert policies(run) == [A, B]


def test_mixed_player_counts_rejected(run: pd.DataFrame) -> None:
    run.loc[0, "num_players"] = 4
    with pytest.raises(ValueError, match="num_players"):
        seat_table(run)


def test_length_table(run: pd.DataFrame) -> None:
    row = length_table(run).iloc[0]
    assert row["games"] == 6
    assert row["mean"] == 35.0 and row["median"] == 35.0
    assert row["q25"] == 22.5 and row["q75"] == 47.5 and row["iqr"] == 25.0
    assert row["p90"] == 55.0 and row["p99"] == pytest.approx(59.5)
    assert row["median_lo"] <= 35.0 <= row["median_hi"]
    assert row["capped"] == 1 and row["capped_rate"] == pytest.approx(1 / 6)
    assert (row["capped_rate_lo"], row["capped_rate_hi"]) == wilson_interval(1, 6)


def test_length_table_reproducible() -> None:
    turns = np.random.default_rng(0).poisson(40, size=5000)
    df = pd.DataFrame({"turns": turns, "capped": turns > 55, "num_players": 2})
    pd.testing.assert_frame_equal(length_table(df), length_table(df))


def test_margins_decided_only(run: pd.DataFrame) -> None:
    margins = game_margins(run)
    assert margins.index.tolist() == [0, 1, 2, 4]
    assert margins.tolist() == [5.0, 0.0, 5.0, 7.0]


def test_margin_table(run: pd.DataFrame) -> None:
    table = margin_table(run).set_index("winner")
    assert table.index.tolist() == ["0", "1", "2", "all"]
    assert table["games"].tolist() == [2, 1, 1, 4]
    assert table.loc["all", "median"] == 5.0
    assert table.loc["all", "mean"] == pytest.approx(17 / 4)
    assert table.loc["1", "zero_margin"] == 1 and table.loc["all", "zero_margin_rate"] == 0.25
    assert table.loc["0", "median"] == 5.0 and table.loc["0", "median_lo"] == 5.0


def test_tiebreak_rate(run: pd.DataFrame) -> None:
    row = tiebreak_rate(run).iloc[0]
    # Three tied tops: game 1 decided by the tie-break, games 3 and 5 stayed shared.
    assert row["tiebreak"] == 1 and row["tiebreak_rate"] == pytest.approx(1 / 6)
    assert (row["tiebreak_rate_lo"], row["tiebreak_rate_hi"]) == wilson_interval(1, 6)
    assert row["shared"] == 2 and row["shared_rate"] == pytest.approx(1 / 3)


def test_tiebreak_rate_needs_column(run: pd.DataFrame) -> None:
    with pytest.raises(KeyError, match="tiebreak"):
        tiebreak_rate(run.drop(columns="tiebreak"))
