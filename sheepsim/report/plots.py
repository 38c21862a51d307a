"""Report figures: small, labelled, with intervals and n in the legend or labels.

Figures are built on matplotlib's object API with an explicit Agg canvas: no pyplot
global state, no display needed, safe on a headless worker. Each function takes
{label: data} (e.g. {"2p random": ...}), writes the file atomically and returns the
path; the caller's title should name the policies (guide rule 1).
"""

from __future__ import annotations

import io
import os
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import PercentFormatter

from sheepsim.analysis.tables import game_margins, num_players
from sheepsim.report.markdown import write_atomic

WIDTH = 6.4  # inches: fits a Markdown page column at dpi 120
DPI = 120


def _figure(height: float, ncols: int = 1) -> tuple[Figure, list[Axes]]:
    fig = Figure(figsize=(WIDTH, height), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, ncols, sharey=True, squeeze=False)[0]
    return fig, list(axes)


def _save(fig: Figure, path: str | os.PathLike[str]) -> Path:
    target = Path(path)
    buffer = io.BytesIO()
    fig.savefig(buffer, format=target.suffix.lstrip(".") or "png", dpi=DPI)
    return write_atomic(target, buffer.getvalue())


def forest_plot(
    seat_tables: Mapping[str, pd.DataFrame], path: str | os.PathLike[str], title: str
) -> Path:
    """Win rate per seat with Wilson error bars, one group per label, each with its 1/P line."""
    rows = sum(len(t) for t in seat_tables.values()) + len(seat_tables)
    fig, (ax,) = _figure(1.2 + 0.28 * rows)
    ticks: list[float] = []
    names: list[str] = []
    top = 0.0
    for label, table in seat_tables.items():
        y = top + np.arange(len(table))
        rate = table["win_rate"].to_numpy()
        err = np.vstack([rate - table["win_rate_lo"], table["win_rate_hi"] - rate])
        decided = int(table["decided"].iloc[0])
        ax.errorbar(rate, y, xerr=err, fmt="o", capsize=3, label=f"{label} (n={decided:,} decided)")
        fair = table["fair_rate"].iloc[0]
        ax.vlines(fair, y[0] - 0.4, y[-1] + 0.4, colors="grey", linestyles="--")
        ticks.extend(y)
        names.extend(f"{label}: seat {seat}" for seat in table["seat"])
        top += len(table) + 1
    ax.set_yticks(ticks, names)
    ax.invert_yaxis()
    ax.xaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_xlabel("win rate of decided games (95% Wilson CI; dashed: fair 1/P)")
    ax.set_title(title)
    ax.legend(fontsize="small")
    return _save(fig, path)


def length_plot(dfs: Mapping[str, pd.DataFrame], path: str | os.PathLike[str], title: str) -> Path:
    """ECDF of game length per label: quantiles and the tail read straight off it."""
    fig, (ax,) = _figure(3.6)
    for label, df in dfs.items():
        turns, counts = np.unique(df["turns"].to_numpy(), return_counts=True)
        share = np.cumsum(counts) / counts.sum()
        ax.step(turns, share, where="post", label=f"{label} (n={len(df):,})")
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_xlabel("turns")
    ax.set_ylabel("share of games at most this long")
    ax.set_title(title)
    ax.legend(fontsize="small")
    return _save(fig, path)


def score_plot(dfs: Mapping[str, pd.DataFrame], path: str | os.PathLike[str], title: str) -> Path:
    """Final score per seat as box plots (whiskers 5-95%), one panel per label."""
    fig, axes = _figure(3.6, ncols=len(dfs))
    for ax, (label, df) in zip(axes, dfs.items()):
        seats = range(num_players(df))
        data = [df[f"score_{seat}"].to_numpy() for seat in seats]
        ax.boxplot(data, whis=(5, 95), showfliers=False)
        ax.set_xticks([seat + 1 for seat in seats], [f"seat {seat}" for seat in seats])
        ax.set_title(f"{label} (n={len(df):,})", fontsize="medium")
    axes[0].set_ylabel("final score")
    fig.suptitle(title)
    return _save(fig, path)


def margin_plot(dfs: Mapping[str, pd.DataFrame], path: str | os.PathLike[str], title: str) -> Path:
    """Histogram of the winner's margin over the best other seat, decided games only."""
    fig, (ax,) = _figure(3.6)
    for label, df in dfs.items():
        margins = game_margins(df).to_numpy()
        if margins.size == 0:
            continue
        edges = np.arange(np.floor(margins.min()), np.ceil(margins.max()) + 2) - 0.5
        weights = np.full(margins.size, 1.0 / margins.size)
        name = f"{label} (n={margins.size:,} decided)"
        ax.hist(margins, bins=edges, weights=weights, histtype="step", label=name)
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_xlabel("winner's margin over the best other seat (points; 0 = tie-break)")
    ax.set_ylabel("share of decided games")
    ax.set_title(title)
    ax.legend(fontsize="small")
    return _save(fig, path)


def heatmap(values: np.ndarray, rows: list, cols: list, path: str | os.PathLike[str], title: str,
            xlabel: str, ylabel: str, fair: float | np.ndarray | None = None, percent: bool = True) -> Path:
    """A matrix (rows x cols) as a colour map with its value written in each cell.

    With `fair` (a number, or one per cell), colours show the value minus the fair
    share, diverging around 0, so above/below fair reads at once even when the fair
    share differs by row; the cells still print the value itself."""
    fig, (ax,) = _figure(0.45 * len(rows) + 1.6)
    from matplotlib.colors import TwoSlopeNorm
    shade = values
    if fair is not None:
        shade = values - fair
        span = max(float(np.nanmax(np.abs(shade))), 1e-9) if np.isfinite(shade).any() else 1.0
        norm = TwoSlopeNorm(vcenter=0.0, vmin=-span, vmax=span)
    else:
        norm = None
    image = ax.imshow(shade, cmap="RdBu_r" if fair is not None else "viridis", aspect="auto", norm=norm)
    ax.set_xticks(range(len(cols)), [f"{c:g}" if isinstance(c, (int, float)) else str(c) for c in cols])
    ax.set_yticks(range(len(rows)), [f"{r:g}" if isinstance(r, (int, float)) else str(r) for r in rows])
    for i in range(len(rows)):
        for j in range(len(cols)):
            if np.isnan(values[i, j]):
                continue
            text = f"{values[i, j]:.0%}" if percent else f"{values[i, j]:.3g}"
            ax.text(j, i, text, ha="center", va="center", fontsize="x-small")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize="small")
    bar = fig.colorbar(image, ax=ax, format=PercentFormatter(1.0) if percent else None)
    if fair is not None:
        bar.set_label("minus the fair share")
    return _save(fig, path)


def lines_plot(lines: Mapping[str, tuple], path: str | os.PathLike[str], title: str, xlabel: str) -> Path:
    """{label: (x, rate, lo, hi, fair)}: one line with its interval ribbon per label,
    its fair share dashed in the same colour."""
    fig, (ax,) = _figure(3.6)
    for label, (x, rate, lo, hi, fair) in lines.items():
        if not all(isinstance(v, (int, float)) for v in x):      # named settings: even spacing
            ax.set_xticks(range(len(x)), [str(v) for v in x])
            x = list(range(len(x)))
        elif all(float(v).is_integer() for v in x):              # counts: a tick per setting
            ax.set_xticks(x)
        (line,) = ax.plot(x, rate, marker="o", label=label)
        ax.fill_between(x, lo, hi, alpha=0.2, color=line.get_color())
        ax.axhline(fair, color=line.get_color(), linestyle="--", linewidth=0.8)
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_xlabel(xlabel)
    ax.set_ylabel("win rate")
    ax.set_title(title, fontsize="small")
    ax.legend(fontsize="small")
    return _save(fig, path)


def sweep_plot(x: list[float], rate: np.ndarray, lo: np.ndarray, hi: np.ndarray, best: np.ndarray,
               path: str | os.PathLike[str], title: str, xlabel: str, fair: float | None = None) -> Path:
    """Win rate against one field as a line with its interval ribbon; the settings that
    cannot be told apart from the best are marked (optima are sets)."""
    fig, (ax,) = _figure(3.4)
    ax.fill_between(x, lo, hi, alpha=0.25, label="95% Wilson interval")
    ax.plot(x, rate, marker="o", label="win rate")
    xs = np.asarray(x)
    ax.scatter(xs[best], np.asarray(rate)[best], s=90, facecolors="none", edgecolors="red", zorder=3,
               label="best set")
    if fair is not None:
        ax.axhline(fair, color="grey", linestyle="--", label="fair share")
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_xlabel(xlabel)
    ax.set_ylabel("win rate")
    ax.set_title(title, fontsize="small")
    ax.legend(fontsize="small")
    return _save(fig, path)


def variant_plot(table: pd.DataFrame, path: str | os.PathLike[str], title: str) -> Path:
    """Two panels per variant row: paired change in mean length, and the seat-0 edge,
    each with its interval (a tornado-style comparison against the baseline)."""
    fig = Figure(figsize=(WIDTH, 0.32 * len(table) + 1.4), layout="constrained")
    FigureCanvasAgg(fig)
    left, right = fig.subplots(1, 2, sharey=True)
    labels = [f"{p}p {v}" for p, v in zip(table["players"], table["variant"])]
    y = np.arange(len(table))
    change = table["turns_change"].to_numpy()
    left.errorbar(change, y, xerr=[change - table["turns_change_lo"], table["turns_change_hi"] - change],
                  fmt="o", capsize=3)
    left.axvline(0, color="grey", linestyle="--")
    left.set_yticks(y, labels)
    left.invert_yaxis()
    left.set_xlabel("change in mean turns vs baseline")
    edge = table["edge"].to_numpy()
    right.errorbar(edge, y, xerr=[edge - table["edge_lo"], table["edge_hi"] - edge], fmt="o", capsize=3)
    right.axvline(0, color="grey", linestyle="--")
    right.xaxis.set_major_formatter(PercentFormatter(1.0))
    right.set_xlabel("seat-0 edge over 1/P")
    fig.suptitle(title)
    return _save(fig, path)
