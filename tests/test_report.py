"""Markdown rendering, atomic writes and figure files."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from matplotlib.image import imread

from sheepsim.stats.intervals import wilson_interval
from sheepsim.stats.tables import seat_table
from sheepsim.report import markdown, saved
from sheepsim.report.markdown import Report, format_interval, table_to_markdown
from sheepsim.report.plots import DPI, WIDTH, forest_plot, length_plot, margin_plot, score_plot

PROVENANCE = {
    "game": "battlesheep",
    "game_version": 3,
    "rules": '{"players": 2, "stack": 16}',
    "policies": ["random", "greedy"],
    "seed": 12345,
    "games": 1000,
    "packages": {"sheepsim": "0.1.0", "numpy": "2.0"},
}


def make_run(players: int, games: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    scores = rng.integers(0, 20, size=(games, players))
    top = scores.max(axis=1, keepdims=True)
    tied = (scores == top).sum(axis=1) > 1
    bits = ((scores == top) * (1 << np.arange(players))).sum(axis=1)
    df = pd.DataFrame(
        {
            "game": np.arange(games),
            "rotation": np.arange(games) % players,
            "num_players": players,
            "winner": np.where(tied, -1, scores.argmax(axis=1)),
            "cowinners": bits,
            "turns": rng.poisson(30, size=games),
            "capped": rng.random(games) < 0.02,
        }
    )
    for seat in range(players):
        df[f"score_{seat}"] = scores[:, seat]
        df[f"policy_{seat}"] = "random"
    return df


def no_temp_files(folder: Path) -> bool:
    return not [p for p in folder.iterdir() if p.name.endswith(".tmp")]


def test_table_header_and_interval_cells() -> None:
    lo, hi = wilson_interval(2, 4)
    df = pd.DataFrame(
        {"seat": [0], "wins": [2], "win_rate": [0.5], "win_rate_lo": [lo], "win_rate_hi": [hi],
         "fair_rate": [0.5], "mean": [3.14159]}
    )
    lines = table_to_markdown(df).splitlines()
    assert lines[0] == "| seat | wins | win_rate | fair_rate | mean |"
    assert lines[1] == "|---:|---:|---:|---:|---:|"
    # Wilson (2 of 4) is [15.0%, 85.0%] to one decimal; other floats to 3 significant digits
    assert lines[2] == "| 0 | 2 | 50.0% [15.0, 85.0] | 50.0% | 3.14 |"


def test_a_pipe_in_a_header_or_cell_is_escaped_not_a_new_column() -> None:
    text = table_to_markdown(pd.DataFrame({"d": [0.5], "x": ["a|b"]}), headers={"d": "change in |edge|"})
    head, rule, row = text.splitlines()
    assert head == "| change in \\|edge\\| | x |" and row.endswith("| a\\|b |")
    assert rule.count("|") - 1 == 2


def test_table_non_rate_interval_strings_and_missing() -> None:
    df = pd.DataFrame(
        {"policy": ["a|b"], "median": [35.0], "median_lo": [30.0], "median_hi": [41.5],
         "edge": [0.0123], "edge_lo": [float("nan")], "edge_hi": [0.02]}
    )
    line = table_to_markdown(df, percent=["edge"]).splitlines()
    assert line[0] == "| policy | median | edge |"
    assert line[1] == "|---|---:|---:|"
    assert line[2] == "| a\\|b | 35.0 [30.0, 41.5] | 1.2% |"


def test_format_interval() -> None:
    assert format_interval(0.512, 0.503, 0.521, percent=True) == "51.2% [50.3, 52.1]"
    assert format_interval(12.0, 11.0, 13.25) == "12 [11, 13.25]"
    assert format_interval(float("nan"), float("nan"), float("nan")) == "n/a"


def test_seat_table_renders() -> None:
    text = table_to_markdown(seat_table(make_run(2, 200, 0)))
    header = "| seat | games | decided | wins | shared | win_rate | fair_rate |"
    assert text.splitlines()[0] == header
    assert text.count("\n") == 4


def test_report_writes_atomically_with_provenance(tmp_path: Path) -> None:
    out = tmp_path / "reports" / "seats.md"
    figure = tmp_path / "reports" / "fig" / "forest.png"
    report = (
        Report("Seat advantage", PROVENANCE)
        .heading("Seats")
        .paragraph("Seat 0 moves first.")
        .table(pd.DataFrame({"seat": [0, 1], "wins": [5, 4]}), caption="Sole wins")
        .figure(figure, "Forest plot")
        .figure("fig/length.png", "Length")
    )
    assert report.write(out) == out
    text = out.read_text()
    assert text.startswith("# Seat advantage\n")
    assert "## Seats\n" in text and "| seat | wins |\n" in text and "*Sole wins*" in text
    assert "![Forest plot](fig/forest.png)" in text
    assert "![Length](fig/length.png)" in text
    assert "- **game_version**: 3\n" in text
    assert "- **policies**: `random`, `greedy`\n" in text
    assert '"stack": 16' in text and '"numpy": "2.0"' in text
    assert no_temp_files(out.parent)
    assert os.stat(out).st_mode & 0o777 == 0o644


def test_failed_write_keeps_old_file_and_leaves_no_temp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "r.md"
    out.write_text("old")

    def broken_replace(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(markdown.os, "replace", broken_replace)
    with pytest.raises(OSError, match="disk full"):
        Report("R", PROVENANCE).write(out)
    assert out.read_text() == "old"
    assert no_temp_files(tmp_path)


def test_report_requires_provenance() -> None:
    partial = {k: v for k, v in PROVENANCE.items() if k not in ("seed", "rules")}
    with pytest.raises(ValueError, match="'rules', 'seed'"):
        Report("R", partial)


@pytest.fixture
def runs() -> dict[str, pd.DataFrame]:
    return {"2p random": make_run(2, 400, 1), "3p random": make_run(3, 400, 2)}


def assert_png(path: Path, height_in: float | None = None) -> None:
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    image = imread(path)
    assert image.shape[1] == round(WIDTH * DPI)
    if height_in is not None:
        assert image.shape[0] == round(height_in * DPI)
    assert image.std() > 0  # something was drawn
    assert no_temp_files(path.parent)


def test_forest_plot(tmp_path: Path, runs: dict[str, pd.DataFrame]) -> None:
    tables = {label: seat_table(df) for label, df in runs.items()}
    path = forest_plot(tables, tmp_path / "forest.png", "Seat win rate, random vs random")
    assert path == tmp_path / "forest.png"
    # 5 seat rows + 2 group gaps at 0.28 in each, plus 1.2 in of margins.
    assert_png(path, height_in=1.2 + 0.28 * 7)


def test_length_score_margin_plots(tmp_path: Path, runs: dict[str, pd.DataFrame]) -> None:
    for plot, name in ((length_plot, "length"), (margin_plot, "margin")):
        path = plot(runs, tmp_path / "sub" / f"{name}.png", f"{name}, random, n=400")
        assert_png(path, height_in=3.6)
    # one panel per player count, two to a row: 12 cells in 4 player counts take 2 rows
    many = {f"{p}p {policy}": make_run(p, 100, p) for policy in ("a", "b", "c") for p in (2, 3, 4, 5)}
    assert_png(score_plot(runs, tmp_path / "score.png", "score"), height_in=1.0 + 2.3)
    assert_png(score_plot(many, tmp_path / "score12.png", "score"), height_in=1.0 + 2.3 * 2)


def test_a_long_legend_below_the_axes_stays_inside_the_figure() -> None:
    from sheepsim.report import plots
    for label in ("2p random (n=978,618)", "4p mcts:iters=256 (n=4,249 decided)", "x" * 60):
        labels = [f"{i} {label}" for i in range(15)]
        fig, (ax,) = plots._figure(plots._tall(labels))
        for name in labels:
            ax.plot([0, 1], [0, 1], label=name)
        plots._legend(fig, ax, labels)
        fig.canvas.draw()
        box, edge = fig.legends[0].get_window_extent(), fig.bbox
        assert edge.x0 <= box.x0 and box.x1 <= edge.x1 and edge.y0 <= box.y0, label


def test_the_length_cut_lets_every_series_reach_its_99th_percentile(tmp_path: Path) -> None:
    import json
    short, long = make_run(2, 2000, 1), make_run(4, 500, 2)
    long["turns"] = long["turns"] * 3          # a quarter of the games, three times as long
    length_plot({"short": short, "long": long}, tmp_path / "length.png", "Length")
    spec = json.loads((tmp_path / "length.json").read_text())
    for series in spec["series"]:
        x, share = np.asarray(series["x"]), np.asarray(series["share"])
        assert share[x <= spec["cut"]][-1] >= 0.99, series["label"]
    finished = long["turns"][~long["capped"]]
    assert spec["cut"] == float(np.quantile(finished, 0.99, method="higher"))
    # the cut is a length some game had, never an interpolated 64.01
    assert spec["cut"] in set(finished.tolist()) and f"cut at {spec['cut']:.0f}," in spec["xlabel"]
    assert "every series has reached the 99th percentile" in spec["xlabel"]


@pytest.mark.parametrize("fair", [[[0.25, 0.25], [0.25, 0.25]], [[0.5, 0.5], [0.25, 0.25]]])
def test_a_heatmap_of_rates_against_a_fair_share_per_cell_is_titled_by_what_it_shows(tmp_path: Path, fair) -> None:
    # a fair share per cell, equal (one player count) or not: the cells show points
    # against it, and the title says so (it said "win rate" over cells of "-35.5")
    import json
    from sheepsim.report.plots import heatmap
    rate = np.array([[0.10, 0.30], [0.40, 0.20]])
    lo, hi = rate - 0.02, rate + 0.02
    heatmap(rate, [2, 3], [1, 2], tmp_path / "h.png", "Game: the child's win rate", "start", "players",
            centre=np.array(fair), lo=lo, hi=hi, value_label="the child's win rate")
    spec = json.loads((tmp_path / "h.json").read_text())
    assert spec["title"] == "Game: the child's win rate minus the fair share (points)"
    assert spec["points"] and spec["relative"]
    assert np.allclose(spec["shown"], rate - np.array(fair))
    assert spec["text"][0][0] == f"{100 * (0.10 - fair[0][0]):+.0f}"
    # one fair share for all (a scalar centre) keeps the rates themselves
    heatmap(rate, [2, 3], [1, 2], tmp_path / "s.png", "Game: win rate", "y", "x", centre=0.25, lo=lo, hi=hi)
    spec = json.loads((tmp_path / "s.json").read_text())
    assert spec["title"] == "Game: win rate" and not spec["points"] and spec["text"][0][0] == "10%"


def test_the_pareto_figure_spans_the_useful_settings_and_draws_the_others_at_its_edge(tmp_path: Path) -> None:
    # hiboufou-tune-deck: a deck of balance 0 with a perfect length score sat on the front
    # and squeezed the useful decks (balance 0.9-1) into the right-hand edge
    import json
    from sheepsim.report.plots import pareto_plot
    balance = np.array([0.0, 0.34, 0.90, 0.94, 0.96, 0.99, 0.998, 0.991])
    score = np.array([1.0, 1.0, 0.65, 0.97, 1.0, 0.98, 0.12, 0.0])
    front = np.array([True, False, False, False, True, True, True, False])
    confirmed = [(0.943, 0.934, 0.950, 0.999, 0.998, 0.999, "best deck (best)"),
                 (0.323, 0.317, 0.329, 1.0, 1.0, 1.0, "a lopsided deck")]
    pareto_plot(balance, score, front, confirmed, tmp_path / "p.png", "Decks", "balance, higher is better",
                "score, higher is better", better=("higher", "higher"), best=0)
    spec = json.loads((tmp_path / "p.json").read_text())
    (x0, x1), (y0, y1) = spec["view"]["x"], spec["view"]["y"]
    assert spec["beyond"] == [True, True, False, False, False, False, True, True]
    inside = ~np.array(spec["beyond"])
    assert ((x0 < balance) & (balance < x1) & (y0 < score) & (score < y1))[inside].all()
    assert x0 > 0.8 and y0 > 0.6 and x0 < 0.943 < x1            # the useful decks fill the axes; the best in view
    # lower is better: the half kept is the low one
    gap = [(1 - c[0], 1 - c[2], 1 - c[1], *c[3:]) for c in confirmed]
    pareto_plot(1 - balance, score, front, gap, tmp_path / "q.png", "Decks", "gap, lower is better",
                "score, higher is better", better=("lower", "higher"))
    assert json.loads((tmp_path / "q.json").read_text())["beyond"] == spec["beyond"]


def test_svg_output(tmp_path: Path, runs: dict[str, pd.DataFrame]) -> None:
    path = length_plot(runs, tmp_path / "length.svg", "Length")
    assert path.read_text().lstrip().startswith("<?xml")


def test_one_number_format_per_column_and_no_negative_zero() -> None:
    df = pd.DataFrame({"cell": ["a", "b"], "turns": [10.48, 5.0], "turns_lo": [10.46, 5.0],
                       "turns_hi": [10.50, 5.0], "edge": [-0.0004, -0.031], "edge_lo": [-0.004, -0.036],
                       "edge_hi": [0.003, -0.025], "games": [1000000, 20000]})
    lines = table_to_markdown(df, points=["edge"], headers={"turns": "mean turns"}).splitlines()
    assert lines[0] == "| cell | mean turns | edge | games |"
    # both rows with the interval's decimals; the edge in signed points, never "-0.0"
    assert lines[2] == "| a | 10.48 [10.46, 10.50] | 0.0 [-0.4, +0.3] | 1,000,000 |"
    assert lines[3] == "| b | 5.00 [5.00, 5.00] | -3.1 [-3.6, -2.5] | 20,000 |"
    # a value that rounds to zero is "0.0"; its bounds, not zero, keep their sign and a digit
    assert format_interval(-0.0001, -0.0004, 0.0002, percent=True, signed=True) == "0.0 [-0.04, +0.02]"
    assert markdown.unsigned_zero("-0.00") == "0.00" and markdown.unsigned_zero("-0.01") == "-0.01"


def test_every_number_of_a_signed_interval_keeps_its_sign() -> None:
    # the cells of battlesheep-strong-play as a seat_advantage table: "-0.7 [-1.3, 0.0]" beside "at a disadvantage" and
    # "+0.2 [0.0, +0.4]" beside "no detectable edge" read as if the words were wrong
    assert format_interval(-0.007, -0.013, -0.0004, percent=True, signed=True) == "-0.7 [-1.3, -0.04]"
    assert format_interval(0.002, -0.0003, 0.004, percent=True, signed=True) == "+0.2 [-0.03, +0.4]"
    assert format_interval(0.00004, -0.00002, 0.0001, percent=True, signed=True) == "0.0 [-0.002, +0.01]"
    # an exact zero value or bound is "0.0", unsigned
    assert format_interval(0.0, -0.059, 0.071, percent=True, signed=True) == "0.0 [-5.9, +7.1]"
    assert format_interval(0.0, 0.0, 0.00019, percent=True) == "0.0% [0.0, 0.02]"
    assert format_interval(0.5, 0.0, 1.0, percent=True) == "50.0% [0.0, 100.0]"
    # any other interval reaching below zero is a difference: signed, not "[-0.021, 0.019]"
    assert format_interval(-0.001, -0.021, 0.019, floatfmt=".3f") == "-0.001 [-0.021, +0.019]"
    assert format_interval(1.5, 0.0004, 3.0, floatfmt=".2f") == "1.50 [0.0004, 3.00]"
    assert format_interval(12.0, 11.0, 13.25) == "12 [11, 13.25]"


def test_a_column_with_a_negative_interval_is_signed_in_every_row() -> None:
    df = pd.DataFrame({"change": [0.053, -0.620], "change_lo": [0.041, -0.630], "change_hi": [0.065, -0.610],
                       "balance": [0.9, 0.3], "balance_lo": [0.8, 0.2], "balance_hi": [0.95, 0.4]})
    layout = markdown.table_layout(df)
    assert [row[0] for row in layout.cells] == ["+0.053 [+0.041, +0.065]", "-0.620 [-0.630, -0.610]"]
    assert [row[1] for row in layout.cells] == ["0.900 [0.800, 0.950]", "0.300 [0.200, 0.400]"]


def test_decimals_follow_the_interval() -> None:
    assert markdown.decimals([17.0, 25.0], [0.0, 0.0]) == 0           # whole numbers stay whole
    assert markdown.decimals([79.9, 10.5]) == 1                        # 3 significant digits
    assert markdown.decimals([0.0606, 0.1668], [0.0007, 0.0009]) == 4  # enough to show the interval


def test_findings_come_first_and_provenance_once(tmp_path: Path) -> None:
    report = Report("R", {**PROVENANCE, "command": "sheepsim run analyses/r.toml --scale 0.1"},
                    description="What was run.")
    report.heading("Details").paragraph("body")
    report.findings(["seat 0 wins 3.1 [2.5, 3.7] points less often than the fair 50.0%"])
    text = report.render()
    assert text.index("What was run.") < text.index("## Findings") < text.index("## Details")
    assert text.count("## Provenance") == 1 and text.count("--scale 0.1") == 1


def test_the_headline_comes_first_and_is_kept_in_the_sidecar(tmp_path: Path) -> None:
    report = Report("R", PROVENANCE, description="What was run.")
    report.findings(["**2p**: a bullet."]).headline("Seat 0 is favoured at every player count.")
    text = report.render()
    assert text.index("## Findings") < text.index("Seat 0 is favoured") < text.index("- **2p**")
    path = report.write(tmp_path / "r.md")
    data = saved.read_sidecar(path)
    assert data["headline"] == "Seat 0 is favoured at every player count."
    assert data["findings"] == ["**2p**: a bullet."]
    assert saved.read_sidecar(Report("S", PROVENANCE).write(tmp_path / "s.md"))["headline"] is None
