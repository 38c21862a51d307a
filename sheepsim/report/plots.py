"""Report figures: small, labelled, with intervals and n in the legend or labels.

Figures are built on matplotlib's object API with an explicit Agg canvas: no pyplot
global state, no display needed, safe on a headless worker. Each function takes
{label: data} (e.g. {"2p random": ...}), writes the file atomically and returns the
path; the caller's title should name the policies.

What every figure keeps to: no colour twice in one legend (`colours`); interval
whiskers drawn over small markers so that they stay visible; diverging colour scales
centred on the fair value and never narrower than the data's own intervals, so that
noise is not painted as signal; cell text black or white by the cell's luminance.
"""

from __future__ import annotations

import io
import math
import os
import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib import colormaps
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import Normalize, TwoSlopeNorm
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle
from matplotlib.ticker import FuncFormatter, MaxNLocator, PercentFormatter

from sheepsim.stats.tables import game_margins, num_players
from sheepsim.report import saved
from sheepsim.report.markdown import decimals, unsigned_zero, write_atomic

WIDTH = 6.4  # inches: fits a Markdown page column at dpi 120
DPI = 120
TITLE_CHARS = 72  # a title wraps here so it is never clipped at WIDTH
MARKER = dict(fmt="o", markersize=3.5, capsize=3, elinewidth=1.4)  # whiskers wider than the dot


def _figure(height: float, ncols: int = 1) -> tuple[Figure, list[Axes]]:
    fig = Figure(figsize=(WIDTH, height), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, ncols, sharey=True, squeeze=False)[0]
    return fig, list(axes)


def _save(fig: Figure, path: str | os.PathLike[str], spec: dict | None = None) -> Path:
    """Write the image; with `spec` (the plotted numbers) also its data spec beside it,
    same stem, .json (report/saved.py), which names the image's hash so that a spec
    left from another image is never taken for this one's."""
    target = Path(path)
    buffer = io.BytesIO()
    fig.savefig(buffer, format=target.suffix.lstrip(".") or "png", dpi=DPI)
    image = buffer.getvalue()
    if spec is not None:
        write_atomic(saved.figure_spec_path(target), saved.dumps(
            {"format": saved.FIGURE_FORMAT, "version": saved.VERSION, **spec, "image": target.name,
             "image_sha256": saved.sha256(image)}))
    return write_atomic(target, image)


def remove(path: str | os.PathLike[str]) -> None:
    """Remove a figure (image and data spec) that this run does not draw: one left from
    an earlier run would sit in the report's folder, unlinked and out of date."""
    target = Path(path)
    target.unlink(missing_ok=True)
    saved.figure_spec_path(target).unlink(missing_ok=True)


def _column(values) -> list:
    """A sequence of numbers (or labels) as a JSON-ready list."""
    return saved.jsonable(np.asarray(values).tolist() if isinstance(values, (np.ndarray, pd.Series)) else
                          list(values))


def _title(text: str) -> str:
    return "\n".join(textwrap.wrap(text, TITLE_CHARS))


def colours(n: int) -> list:
    """n colours, none repeated: tab10 up to 10, tab20 up to 20, then a sampled viridis
    (matplotlib's default cycle repeats after 10, so the 11th line looked like the 1st)."""
    if n <= 10:
        return [colormaps["tab10"](i) for i in range(n)]
    if n <= 20:
        return [colormaps["tab20"](i) for i in range(n)]
    return [colormaps["viridis"](x) for x in np.linspace(0, 1, n)]


def text_colour(rgba: Sequence[float]) -> str:
    """Black or white, whichever contrasts more with a cell of this colour (WCAG
    relative luminance; the two contrasts are equal at a luminance of about 0.179)."""
    def linear(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (linear(float(c)) for c in rgba[:3])
    return "black" if 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.179 else "white"


def _points(x: float, digits: int) -> str:
    return unsigned_zero(f"{100 * x:+.{digits}f}")


def forest_plot(
    seat_tables: Mapping[str, pd.DataFrame], path: str | os.PathLike[str], title: str
) -> Path:
    """Each seat's win rate minus its fair 1/P, in percentage points, with Wilson whiskers.

    On the edge scale every cell shares one axis centred on 0, so a 0.2-point interval
    is visible beside a 2-point edge (on the raw win rate, 50% and 17% cells stretch the
    axis until the whiskers vanish inside the markers).

    Spec (kind "forest"): xlabel, series [{label, n (decided games), seat, win_rate,
    lo, hi, fair}] (lists by seat; rates as shares)."""
    rows = sum(len(t) for t in seat_tables.values()) + len(seat_tables)
    series = []
    fig, (ax,) = _figure(1.2 + 0.28 * rows)
    ticks: list[float] = []
    names: list[str] = []
    top = 0.0
    for colour, (label, table) in zip(colours(len(seat_tables)), seat_tables.items()):
        y = top + np.arange(len(table))
        fair = table["fair_rate"].to_numpy()
        edge = table["win_rate"].to_numpy() - fair
        err = np.vstack([table["win_rate"] - table["win_rate_lo"], table["win_rate_hi"] - table["win_rate"]])
        decided = int(table["decided"].iloc[0])
        ax.errorbar(edge, y, xerr=err, color=colour, **MARKER)
        series.append({"label": label, "n": decided, "seat": _column(table["seat"]),
                       "win_rate": _column(table["win_rate"]), "lo": _column(table["win_rate_lo"]),
                       "hi": _column(table["win_rate_hi"]), "fair": _column(fair)})
        ticks.extend(y)
        names.extend([f"{label} (n={decided:,}): seat {table['seat'].iloc[0]}"] +
                     [f"seat {seat}" for seat in table["seat"].iloc[1:]])
        top += len(table) + 1
    ax.axvline(0, color="grey", linestyle="--", linewidth=0.8)
    ax.set_yticks(ticks, names, fontsize="small")
    ax.invert_yaxis()
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: _points(x, 1)))
    xlabel = "win rate minus the fair 1/P (points; decided games, 95% Wilson)"
    ax.set_xlabel(xlabel, fontsize="small")
    ax.set_title(_title(title))
    return _save(fig, path, {"kind": "forest", "title": title, "xlabel": xlabel, "series": series})


def _columns(labels: list[str]) -> int:
    """Columns of a legend below the axes that fit WIDTH: three of x-small labels up to
    30 characters, two up to 48 (three columns of 35-character labels overflowed both
    edges of the figure)."""
    longest = max(map(len, labels), default=0)
    return 3 if longest <= 30 else 2 if longest <= 48 else 1


def _legend(fig: Figure, ax: Axes, labels: list[str]) -> None:
    """Inside the axes for a few entries; below them, in columns, for many (a dozen
    entries inside covered the lines)."""
    if len(labels) <= 6:
        ax.legend(fontsize="small")
    else:
        fig.legend(loc="outside lower center", ncols=_columns(labels), fontsize="x-small")


def _tall(labels: list[str]) -> float:
    """Figure height for a plot whose legend of these entries goes below it."""
    n = len(labels)
    return 3.6 if n <= 6 else 3.6 + 0.16 * math.ceil(n / _columns(labels))


def _cut(df: pd.DataFrame) -> float:
    """The 99th percentile of a series' finished games: with 4% of games at a cap of
    500 turns the 99th percentile of all games would be the cap itself. It is a length
    some game had (method "higher"): an interpolated 64.01 turns reads as a misprint."""
    turns, capped = df["turns"].to_numpy(), df["capped"].to_numpy(bool)
    finished = turns[~capped] if (~capped).any() else turns
    return float(np.quantile(finished, 0.99, method="higher")) if finished.size else 1.0


def length_plot(dfs: Mapping[str, pd.DataFrame], path: str | os.PathLike[str], title: str,
                unit: str = "turns") -> Path:
    """ECDF of game length per label, cut where every series has reached the 99th
    percentile of its finished games: the body of the distribution is what a designer
    reads, and a turn cap far out (500 turns) would squash it into the left edge. A
    cut over all series pooled ended the curves of the longest ones early (4-player
    search games at 57-90%). The cut, the largest share of a series beyond it and the
    share stopped by the cap are named on the axis.

    Spec (kind "length"): xlabel, unit, cut, low, series [{label, n, x (each length
    seen), share (of the games at most that long)}]."""
    labels = [f"{label} (n={len(df):,})" for label, df in dfs.items()]
    fig, (ax,) = _figure(_tall(labels))
    everything = np.concatenate([df["turns"].to_numpy() for df in dfs.values()])
    capped = np.concatenate([df["capped"].to_numpy(bool) for df in dfs.values()])
    cut = max((_cut(df) for df in dfs.values()), default=1.0)
    series = []
    for colour, name, (label, df) in zip(colours(len(dfs)), labels, dfs.items()):
        turns, counts = np.unique(df["turns"].to_numpy(), return_counts=True)
        share = np.cumsum(counts) / counts.sum()
        ax.step(turns, share, where="post", color=colour, label=name)
        series.append({"label": label, "n": len(df), "x": _column(turns), "share": _column(share)})
    beyond = max((float((df["turns"].to_numpy() > cut).mean()) for df in dfs.values() if len(df)), default=0.0)
    low = float(everything.min()) if everything.size else 0.0
    ax.set_xlim(low - 0.5, cut + 0.5)
    at_cap = f", {capped.mean():.1%} stopped by the turn cap" if capped.any() else ""
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    # wrapped: with a capped share the label outgrows the axis
    if len(dfs) == 1:
        xlabel = f"{unit} (cut at {cut:g}, the 99th percentile of finished games; {beyond:.1%} of games are longer"
    else:
        xlabel = (f"{unit} (cut at {cut:g}, where every series has reached the 99th percentile of its finished "
                  f"games; at most {beyond:.1%} of a series' games are longer")
    xlabel += f"{at_cap})"
    ax.set_xlabel("\n".join(textwrap.wrap(xlabel, 95)), fontsize="small")
    ax.set_ylabel("share of games at most this long")
    ax.set_title(_title(title))
    _legend(fig, ax, labels)
    return _save(fig, path, {"kind": "length", "title": title, "xlabel": xlabel, "unit": unit, "cut": cut,
                             "low": low, "series": series})


def _policy_of(df: pd.DataFrame) -> str:
    """The policy a cell's games were played by (' / ' between several), read off its
    policy columns: the same policy gets the same colour in every panel."""
    seats = [c for c in df.columns if c.startswith("policy_")]
    return " / ".join(sorted({str(x) for c in seats for x in pd.unique(df[c])}))


def score_plot(dfs: Mapping[str, pd.DataFrame], path: str | os.PathLike[str], title: str) -> Path:
    """Final score per seat: one panel per player count, one box per policy and seat
    (box: quartiles; whiskers: 5-95%; dot: mean), a colour per policy shared by the
    panels. One panel per label was unreadable beyond 4 labels."""
    by_players: dict[int, dict[str, pd.DataFrame]] = {}
    for label, df in dfs.items():
        by_players.setdefault(num_players(df), {})[label] = df
    policies = list(dict.fromkeys(_policy_of(df) for df in dfs.values()))
    colour = dict(zip(policies, colours(len(policies))))
    ncols = min(len(by_players), 2)
    nrows = math.ceil(len(by_players) / ncols)
    fig = Figure(figsize=(WIDTH, 1.0 + 2.3 * nrows), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(nrows, ncols, squeeze=False, sharey=True).ravel()
    width = 0.8 / len(policies)
    for ax, (players, cells) in zip(axes, sorted(by_players.items())):
        for label, df in cells.items():
            k = policies.index(_policy_of(df))
            seats = np.arange(players)
            data = [df[f"score_{seat}"].to_numpy() for seat in seats]
            at = seats + (k - (len(policies) - 1) / 2) * width
            c = colour[_policy_of(df)]
            ax.boxplot(data, positions=at, widths=width * 0.85, whis=(5, 95), showfliers=False,
                       patch_artist=True, boxprops=dict(facecolor=(*c[:3], 0.35), edgecolor=c),
                       whiskerprops=dict(color=c), capprops=dict(color=c), medianprops=dict(color=c))
            ax.plot(at, [d.mean() for d in data], "o", color=c, markersize=3)
        ax.set_xticks(range(players), [f"seat {seat}" for seat in range(players)], fontsize="small")
        n = min(len(df) for df in cells.values())
        ax.set_title(f"{players} players (n ≥ {n:,} per policy)", fontsize="small")
    for ax in axes[len(by_players):]:
        ax.set_visible(False)
    for ax in axes[::ncols]:
        ax.set_ylabel("final score")
    handles = [Line2D([], [], color=colour[p], marker="s", linestyle="", label=p) for p in policies]
    fig.legend(handles=handles, loc="outside lower center", ncols=len(policies), fontsize="small")
    fig.suptitle(_title(title))
    return _save(fig, path)


def margin_plot(dfs: Mapping[str, pd.DataFrame], path: str | os.PathLike[str], title: str) -> Path:
    """Histogram of the winner's margin over the best other seat, decided games only."""
    margins = {label: game_margins(df).to_numpy() for label, df in dfs.items()}
    labels = [f"{label} (n={m.size:,} decided)" for label, m in margins.items() if m.size]
    fig, (ax,) = _figure(_tall(labels))
    for colour, name, m in zip(colours(len(labels)), labels, (m for m in margins.values() if m.size)):
        edges = np.arange(np.floor(m.min()), np.ceil(m.max()) + 2) - 0.5
        ax.hist(m, bins=edges, weights=np.full(m.size, 1.0 / m.size), histtype="step", color=colour, label=name)
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_xlabel("winner's margin over the best other seat (points; 0 = tie-break)")
    ax.set_ylabel("share of decided games")
    ax.set_title(_title(title))
    _legend(fig, ax, labels)
    return _save(fig, path)


def _label(v) -> str:
    return f"{v:g}" if isinstance(v, (int, float)) else str(v)


def heatmap(values: np.ndarray, rows: list, cols: list, path: str | os.PathLike[str], title: str,
            xlabel: str, ylabel: str, centre: float | np.ndarray | None = None,
            lo: np.ndarray | None = None, hi: np.ndarray | None = None, percent: bool = True,
            outline: np.ndarray | None = None, outline_label: str = "",
            marks: np.ndarray | None = None, marks_label: str = "", value_label: str = "",
            n: np.ndarray | int | None = None) -> Path:
    """A matrix (rows x cols) as a colour map with its value written in each cell; the
    cells and the colour bar always show the same quantity.

    With `centre` (the fair share, or 0 for an edge) the scale diverges around it: a
    single centre keeps the values themselves; a centre given per cell (a matrix: the
    fair 1/P by player count) shows value minus centre, in percentage points, in the
    cells and on the bar alike, and the title says so. With lo/hi (the 95% interval per cell) the cell text has the
    decimals of the interval and, with a centre, a cell whose interval holds the centre
    is drawn neutral and the scale reaches at least the largest half-width, so noise is
    never painted as a strong colour. `outline` boxes cells
    (e.g. every best response), `marks` puts a star on cells (e.g. a confirmed
    equilibrium); their labels go into a legend. `n` (the games behind each cell, one
    number for all or a matrix) is not drawn: it goes into the data spec.

    Spec (kind "heatmap"), every matrix rows x cols: rows, cols (tick labels), xlabel,
    ylabel, value_label (the colour bar's), quantity (what the values are), value, lo,
    hi, n (null where not given), centre (a number, a matrix or null), shown (what a
    cell says: value, or value minus centre when the centre differs by cell), text (the
    cell's text in the image), shade (what its colour encodes), zmin, zmid, zmax,
    colours (the colour map's name: "RdBu_r" diverging, "viridis"), percent, points
    (cells in percentage points), relative, digits (the cells' decimals), outline,
    outline_label, marks, marks_label."""
    values = np.asarray(values, dtype=float)
    quantity = value_label or title
    fig, (ax,) = _figure(0.45 * len(rows) + 1.9)
    shown, bar_format, digits_hw = values, (PercentFormatter(1.0) if percent else None), None
    if lo is not None and hi is not None:
        digits_hw = (np.asarray(hi, float) - np.asarray(lo, float)) / 2
    # a centre per cell (the fair 1/P of each cell, even when all are equal): the cells show
    # value minus centre, so that every such map reads alike whether P varies or not
    relative = centre is not None and np.ndim(centre) > 0
    # an edge (centre 0) and a rate minus a fair share read in percentage points
    in_points = percent and (relative or (centre is not None and float(np.nanmax(np.abs(centre))) == 0))
    if relative:
        shown = values - np.asarray(centre, float)
        value_label = "minus the fair share (points)"
        title = f"{title} minus the fair share" + (" (points)" if in_points else "")   # titled by what it shows
    if centre is not None:
        c = 0.0 if relative else float(np.nanmean(centre))
        shade = shown.copy()
        if digits_hw is not None:
            below, above = np.asarray(lo, float), np.asarray(hi, float)
            if relative:
                below, above = below - np.asarray(centre, float), above - np.asarray(centre, float)
            shade = np.where((below <= c) & (above >= c), c, shade)     # noise: neutral
        span = np.nanmax(np.abs(shade - c)) if np.isfinite(shade).any() else 0.0
        if digits_hw is not None and np.isfinite(digits_hw).any():
            span = max(span, float(np.nanmax(digits_hw)))      # never narrower than the noise
        span = max(float(span), 1e-9)
        norm, cmap = TwoSlopeNorm(vcenter=c, vmin=c - span, vmax=c + span), colormaps["RdBu_r"]
        if in_points:      # ticks with the decimals the span needs: +-1.5 points is not "+1, +1, 0"
            tick_digits = min(2, max(0, 1 - math.floor(math.log10(100 * span))))
            bar_format = FuncFormatter(lambda x, _: _points(x, tick_digits))
    else:
        shade = shown
        finite = shade[np.isfinite(shade)]
        low, high = (finite.min(), finite.max()) if finite.size else (0.0, 1.0)
        norm, cmap = Normalize(low, high if high > low else low + 1), colormaps["viridis"]
    image = ax.imshow(shade, cmap=cmap, norm=norm, aspect="auto")
    labels = [_label(c) for c in cols]
    ax.set_xticks(range(len(cols)), labels)
    if max(map(len, labels)) * len(labels) > 40:        # long names (policy SPECs) would overlap
        ax.tick_params(axis="x", labelrotation=25)
        for text in ax.get_xticklabels():
            text.set_horizontalalignment("right")
    ax.set_yticks(range(len(rows)), [_label(r) for r in rows])
    if percent:
        hw = digits_hw[np.isfinite(digits_hw) & (digits_hw > 0)] if digits_hw is not None else np.array([])
        digits = min(2, max(0, -math.floor(math.log10(100 * float(np.median(hw)))))) if hw.size else 0
        text_of = (lambda v: _points(v, digits)) if in_points else (lambda v: f"{100 * v:.{digits}f}%")
    else:
        digits = decimals(values, digits_hw)
        text_of = lambda v: unsigned_zero(f"{v:.{digits}f}")    # noqa: E731
    texts = [["" for _ in cols] for _ in rows]
    for i in range(len(rows)):
        for j in range(len(cols)):
            if np.isnan(values[i, j]):
                continue
            ink = text_colour(cmap(norm(shade[i, j])))
            texts[i][j] = text_of(shown[i, j])
            ax.text(j, i, texts[i][j], ha="center", va="center", fontsize="x-small", color=ink)
            if outline is not None and outline[i, j]:
                ax.add_patch(Rectangle((j - 0.46, i - 0.46), 0.92, 0.92, fill=False, edgecolor=ink, linewidth=1.4))
            if marks is not None and marks[i, j]:
                ax.plot(j + 0.3, i - 0.25, marker="*", color=ink, markersize=8)
    handles = []
    if outline is not None and outline.any() and outline_label:
        handles.append(Rectangle((0, 0), 1, 1, fill=False, edgecolor="black", label=outline_label))
    if marks is not None and marks.any() and marks_label:
        handles.append(Line2D([], [], marker="*", color="black", linestyle="", markersize=8, label=marks_label))
    if handles:
        fig.legend(handles=handles, loc="outside lower center", ncols=len(handles), fontsize="small")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(_title(title), fontsize="small")
    bar = fig.colorbar(image, ax=ax, format=bar_format)
    if centre is not None and percent and not in_points:     # a share lies in [0, 1]: no "-40%" on its bar
        bar.ax.set_ylim(max(norm.vmin, 0.0), min(norm.vmax, 1.0))
    if value_label:
        bar.set_label("\n".join(textwrap.wrap(value_label, 40)), fontsize="small")
    def matrix(m):
        return None if m is None else _column(np.broadcast_to(np.asarray(m), values.shape))
    spec = {"kind": "heatmap", "title": title, "xlabel": xlabel, "ylabel": ylabel, "value_label": value_label,
            "quantity": quantity,
            "rows": [_label(r) for r in rows], "cols": labels, "value": matrix(values), "lo": matrix(lo),
            "hi": matrix(hi), "n": matrix(n), "centre": None if centre is None else
            (float(centre) if np.ndim(centre) == 0 else matrix(np.asarray(centre, float))),
            "shown": matrix(shown), "text": texts, "shade": matrix(shade), "zmin": float(norm.vmin),
            "zmid": float(norm.vcenter) if isinstance(norm, TwoSlopeNorm) else None, "zmax": float(norm.vmax),
            "colours": cmap.name, "percent": percent, "points": bool(in_points), "relative": bool(relative),
            "digits": digits, "outline": matrix(outline), "outline_label": outline_label,
            "marks": matrix(marks), "marks_label": marks_label}
    return _save(fig, path, spec)


def lines_plot(lines: Mapping[str, tuple], path: str | os.PathLike[str], title: str, xlabel: str,
               n: Mapping[str, Sequence[int] | int] | None = None, edge: str = "") -> Path:
    """{label: (x, rate, lo, hi, fair)}: one line with interval whiskers and ribbon per
    label; the fair share dashed in the same colour, or once in grey when every label
    has the same one. `n` ({label: games per point, or one number}) goes into the spec.
    With `edge` (the y axis's label) the values are edges (a rate minus its fair share,
    fair 0), drawn in signed percentage points with the dashed line at no edge.

    Spec (kind "lines"): xlabel, ylabel, percent, points (edges in points), series
    [{label, x, y, lo, hi, n, fair}] (x numbers, or labels for named settings)."""
    series = []
    fig, (ax,) = _figure(3.6)
    fairs = {round(float(v[4]), 12) for v in lines.values()}
    for colour, (label, (x, rate, lo, hi, fair)) in zip(colours(len(lines)), lines.items()):
        count = None if n is None or n.get(label) is None else np.broadcast_to(np.asarray(n[label]), (len(x),))
        series.append({"label": label, "x": _column(x), "y": _column(rate), "lo": _column(lo), "hi": _column(hi),
                       "n": None if count is None else _column(count), "fair": float(fair)})
        if not all(isinstance(v, (int, float)) for v in x):      # named settings: even spacing
            names = [str(v) for v in x]
            ax.set_xticks(range(len(x)), names)
            if sum(map(len, names)) > 40:                        # long names (policy SPECs) would overlap
                ax.tick_params(axis="x", labelrotation=20, labelsize="small")
                for text in ax.get_xticklabels():
                    text.set_horizontalalignment("right")
            x = list(range(len(x)))
        elif all(float(v).is_integer() for v in x):              # counts: a tick per setting
            ax.set_xticks(x)
        rate, lo, hi = (np.asarray(a, float) for a in (rate, lo, hi))
        ax.errorbar(x, rate, yerr=[rate - lo, hi - rate], color=colour, label=label, linestyle="-", **MARKER)
        ax.fill_between(x, lo, hi, alpha=0.2, color=colour)
        if len(fairs) > 1:
            ax.axhline(fair, color=colour, linestyle="--", linewidth=0.8)
    if len(fairs) == 1:
        ax.axhline(fairs.pop(), color="grey", linestyle="--", linewidth=0.8,
                   label="no edge" if edge else "fair share")
    if edge:        # whole points unless the axis spans only a few ("+40.0" was noise)
        # ticks 1, 2 or 5 (x 10^k) apart: a tick at 2.5 points would read "+3" in whole points
        ax.yaxis.set_major_locator(MaxNLocator(steps=[1, 2, 5, 10]))
        digits = 0 if np.ptp(ax.get_ylim()) >= 0.05 else 1
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: _points(v, digits)))
    else:
        ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_xlabel(xlabel)
    ax.set_ylabel(edge or "win rate", fontsize="small" if edge else None)
    ax.set_title(_title(title), fontsize="small")
    ax.legend(fontsize="small")
    return _save(fig, path, {"kind": "lines", "title": title, "xlabel": xlabel, "ylabel": edge or "win rate",
                             "percent": True, "points": bool(edge), "series": series})


def sweep_plot(x: list[float], rate: np.ndarray, lo: np.ndarray, hi: np.ndarray, best: np.ndarray,
               path: str | os.PathLike[str], title: str, xlabel: str, fair: float | None = None,
               n: Sequence[int] | int | None = None) -> Path:
    """Win rate against one field as a line with its interval ribbon; the settings that
    cannot be told apart from the best are marked (optima are sets). `n` (games per
    setting, or one number) goes into the spec.

    Spec (kind "sweep"): xlabel, ylabel, percent, fair, series [{label, x, y, lo, hi, n,
    best}]."""
    fig, (ax,) = _figure(3.4)
    ax.fill_between(x, lo, hi, alpha=0.25, label="95% Wilson interval")
    ax.plot(x, rate, marker="o", markersize=4, label="win rate")
    xs = np.asarray(x)
    ax.scatter(xs[best], np.asarray(rate)[best], s=90, facecolors="none", edgecolors="red", zorder=3,
               label="best set")
    if fair is not None:
        ax.axhline(fair, color="grey", linestyle="--", label="fair share")
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_xlabel(xlabel)
    ax.set_ylabel("win rate")
    ax.set_title(_title(title), fontsize="small")
    ax.legend(fontsize="small")
    count = None if n is None else _column(np.broadcast_to(np.asarray(n), (len(x),)))
    return _save(fig, path, {"kind": "sweep", "title": title, "xlabel": xlabel, "ylabel": "win rate",
                             "percent": True, "fair": fair,
                             "series": [{"label": "win rate", "x": _column(x), "y": _column(rate), "lo": _column(lo),
                                         "hi": _column(hi), "n": count, "best": _column(best)}]})


def variant_plot(table: pd.DataFrame, path: str | os.PathLike[str], title: str, unit: str = "turns") -> Path:
    """Two panels per variant row: paired change in mean length, and the seat-0 edge in
    percentage points, each with its interval (a tornado-style comparison against the
    baseline); one colour per player count.

    Spec (kind "variants"): unit, xlabels (the two panels'), rows [{label, players,
    turns_change, turns_change_lo, turns_change_hi, edge, edge_lo, edge_hi, n}] (edges
    as shares; n the games per variant, null without a games column)."""
    fig = Figure(figsize=(WIDTH, 0.32 * len(table) + 1.4), layout="constrained")
    FigureCanvasAgg(fig)
    left, right = fig.subplots(1, 2, sharey=True)
    labels = [f"{p}p {v}" for p, v in zip(table["players"], table["variant"])]
    y = np.arange(len(table))
    counts = list(dict.fromkeys(table["players"]))
    colour = dict(zip(counts, colours(len(counts))))
    for n in counts:
        at = (table["players"] == n).to_numpy()
        t = table[at]
        change = t["turns_change"].to_numpy()
        left.errorbar(change, y[at], xerr=[change - t["turns_change_lo"], t["turns_change_hi"] - change],
                      color=colour[n], **MARKER)
        edge = t["edge"].to_numpy()
        right.errorbar(edge, y[at], xerr=[edge - t["edge_lo"], t["edge_hi"] - edge], color=colour[n], **MARKER)
    left.axvline(0, color="grey", linestyle="--")
    left.set_yticks(y, labels, fontsize="small")
    left.invert_yaxis()
    left.set_xlabel(f"change in mean {unit} vs baseline")
    right.axvline(0, color="grey", linestyle="--")
    right.xaxis.set_major_formatter(FuncFormatter(lambda x, _: _points(x, 1)))
    right.set_xlabel("seat-0 edge over 1/P (points)")
    fig.suptitle(_title(title))
    keys = ("turns_change", "turns_change_lo", "turns_change_hi", "edge", "edge_lo", "edge_hi")
    rows = [{"label": label, "players": row["players"], **{k: row[k] for k in keys},
             "n": row["games"] if "games" in table else None}
            for label, (_, row) in zip(labels, table.iterrows())]
    return _save(fig, path, {"kind": "variants", "title": title, "unit": unit,
                             "xlabels": [f"change in mean {unit} vs baseline", "seat-0 edge over 1/P (points)"],
                             "rows": rows})


def stop_map(panels: Mapping[str, np.ndarray], rows: Sequence, cols: Sequence, path: str | os.PathLike[str],
             title: str, xlabel: str, ylabel: str, value_label: str, unseen: Mapping[str, np.ndarray] | None = None,
             ncols: int | None = None) -> Path:
    """Stop thresholds as small multiples (Neller's roll/hold picture): one panel per
    entry of `panels`, rows x cols each, one colour scale for all, the threshold written
    in cells when they are few; `unseen` (True where the policy never decides) greys
    a cell out (the caller's caption says so)."""
    names = list(panels)
    ncols = ncols or (2 if len(names) == 4 else min(len(names), 3))
    nrows = math.ceil(len(names) / ncols)
    small = len(rows) * len(cols) <= 120
    cell = 0.22 if small else 0.13
    fig = Figure(figsize=(WIDTH, max(2.6, nrows * (len(rows) * cell + 0.7) + 0.8)), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(nrows, ncols, squeeze=False, sharex=True, sharey=True)
    values = [np.asarray(panels[n], float) for n in names]
    low = min(float(np.nanmin(v)) for v in values)
    high = max(float(np.nanmax(v)) for v in values)
    norm, cmap = Normalize(low, high if high > low else low + 1), colormaps["viridis"]
    image = None
    for k, ax in enumerate(axes.ravel()):
        if k >= len(names):
            ax.set_visible(False)
            continue
        shown = values[k].copy()
        if unseen is not None and names[k] in unseen:
            shown = np.where(unseen[names[k]], np.nan, shown)
        image = ax.imshow(np.ma.masked_invalid(shown), cmap=cmap, norm=norm, aspect="auto", origin="lower")
        ax.set_facecolor("#d9d9d9")
        ax.set_title(names[k], fontsize="x-small")
        step = max(1, len(cols) // 6)
        ax.set_xticks(range(0, len(cols), step), [_label(c) for c in cols][::step], fontsize="x-small")
        step = 1 if len(rows) <= 16 else max(1, len(rows) // 6)
        ax.set_yticks(range(0, len(rows), step), [_label(r) for r in rows][::step], fontsize="x-small")
        if small:
            for i in range(len(rows)):
                for j in range(len(cols)):
                    if np.isfinite(shown[i, j]):
                        ax.text(j, i, f"{shown[i, j]:.0f}", ha="center", va="center", fontsize="xx-small",
                                color=text_colour(cmap(norm(shown[i, j]))))
    fig.supxlabel(xlabel, fontsize="small")
    fig.supylabel(ylabel, fontsize="small")
    fig.suptitle(_title(title), fontsize="small")
    bar = fig.colorbar(image, ax=axes.ravel().tolist(), shrink=0.8)
    bar.set_label(value_label, fontsize="small")
    return _save(fig, path)


def history_plot(trial: np.ndarray, value: np.ndarray, games: np.ndarray, best: tuple[float, float, float],
                 path: str | os.PathLike[str], title: str, ylabel: str, better: str) -> Path:
    """The tuner's settings in the order tried: each setting's objective from the games it
    raced (one marker per rung reached), and the best setting's confirmed value with its
    95% interval (line and band).

    Spec (kind "history"): xlabel, ylabel, better, trial, value, games (lists, one
    entry per setting), best {value, lo, hi}."""
    fig, (ax,) = _figure(3.6)
    rungs = sorted(set(games.tolist()))
    for g, c, m in zip(rungs, colours(len(rungs)), "v^os*Dph"):
        at = games == g
        ax.plot(trial[at], value[at], m, color=c, markersize=4.5, linestyle="none", label=f"{g:,} games")
    v, lo, hi = best
    ax.axhline(v, color="black", linewidth=1, label="best, confirmed")
    ax.axhspan(lo, hi, color="black", alpha=0.12, linewidth=0)
    ax.set_xlabel("setting (in the order tried)")
    ax.set_ylabel(f"{ylabel} ({better} is better)")
    ax.set_title(_title(title), fontsize=10)
    ax.legend(fontsize=8, title="raced for", title_fontsize=8)
    ax.grid(alpha=0.3)
    return _save(fig, path, {"kind": "history", "title": title, "xlabel": "setting (in the order tried)",
                             "ylabel": f"{ylabel} ({better} is better)", "better": better, "trial": _column(trial),
                             "value": _column(value), "games": _column(games),
                             "best": {"value": v, "lo": lo, "hi": hi}})


def _view(values: np.ndarray, keep: np.ndarray) -> tuple[float, float]:
    """An axis's limits around the values `keep` marks, padded by 8% of their span."""
    inside = values[keep]
    lo, hi = float(inside.min()), float(inside.max())
    pad = 0.08 * (hi - lo) if hi > lo else 0.05 * max(abs(hi), 1e-9)
    return lo - pad, hi + pad


def pareto_plot(x: np.ndarray, y: np.ndarray, front: np.ndarray, confirmed: Sequence[tuple],
                path: str | os.PathLike[str], title: str, xlabel: str, ylabel: str,
                better: tuple[str, str] = ("higher", "higher"), best: int = 0) -> Path:
    """Two objectives: every setting raced to the end (grey), the Pareto front (`front`,
    joined in order of x) and the confirmed settings (x, x_lo, x_hi, y, y_lo, y_hi, label)
    with their 95% intervals; the labels say which way is better (`better`: "higher" or
    "lower" per axis).

    The axes span the useful settings: those in the better half of the raced settings'
    range on both objectives, and the confirmed `best`. A setting beyond them (a deck
    with a balance of 0 that scores 1 on length sits on the front, yet no one would
    choose it) is drawn hollow at the axes' edge, so the rest are not squeezed into a
    corner; the legend says how many.

    Spec (kind "pareto"): xlabel, ylabel, x, y, front (lists, one entry per setting
    raced to the end), confirmed [{label, x, x_lo, x_hi, y, y_lo, y_hi}], view {x, y}
    (the axes' limits), beyond (per setting raced to the end: drawn at the edge)."""
    fig, (ax,) = _figure(4.4)
    cx = np.array([c[0] for c in confirmed], float)
    cy = np.array([c[3] for c in confirmed], float)
    every_x, every_y = np.concatenate([x, cx]), np.concatenate([y, cy])
    useful = np.ones(len(every_x), bool)
    if len(x) >= 3:             # the better half of the raced settings' range on each objective
        for v, every, way in ((x, every_x, better[0]), (y, every_y, better[1])):
            mid = (v.min() + v.max()) / 2
            useful &= (every >= mid) if way == "higher" else (every <= mid)
    if len(confirmed):
        useful[len(x) + best] = True              # the best setting is always in view
    if useful.sum() < 2:
        useful[:] = True
    xlim, ylim = _view(every_x, useful), _view(every_y, useful)
    beyond = ~((every_x >= xlim[0]) & (every_x <= xlim[1]) & (every_y >= ylim[0]) & (every_y <= ylim[1]))
    # beyond the axes: drawn on the frame, where the setting lies off it
    px, py = np.clip(every_x, *xlim), np.clip(every_y, *ylim)
    rx, ry, rb = px[:len(x)], py[:len(x)], beyond[:len(x)]
    grey = ~front & ~rb
    ax.plot(rx[grey], ry[grey], "o", color="0.7", markersize=4, linestyle="none", label="raced to the end")
    on = front & ~rb                 # the front's line joins the settings in view only
    order = np.argsort(x[on])
    ax.plot(rx[on][order], ry[on][order], color="0.3", linewidth=1)
    ax.plot(rx[on], ry[on], "o", color="0.3", markersize=4, linestyle="none", label="Pareto front")
    if rb.any():
        ax.plot(rx[rb], ry[rb], "o", markerfacecolor="none", color="0.3", markersize=5, linestyle="none",
                clip_on=False, label=f"beyond the axes, drawn at their edge ({int(rb.sum())})")
    for k, ((cxv, xlo, xhi, cyv, ylo, yhi, label), c) in enumerate(zip(confirmed, colours(len(confirmed)))):
        if beyond[len(x) + k]:
            ax.plot([px[len(x) + k]], [py[len(x) + k]], "o", markerfacecolor="none", color=c, markersize=6,
                    clip_on=False, label=f"{label}, beyond the axes")
        else:
            ax.errorbar([cxv], [cyv], xerr=[[cxv - xlo], [xhi - cxv]], yerr=[[cyv - ylo], [yhi - cyv]], color=c,
                        label=label, **MARKER)
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(_title(title), fontsize=10)
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    keys = ("x", "x_lo", "x_hi", "y", "y_lo", "y_hi", "label")
    return _save(fig, path, {"kind": "pareto", "title": title, "xlabel": xlabel, "ylabel": ylabel, "x": _column(x),
                             "y": _column(y), "front": _column(front),
                             "confirmed": [dict(zip(keys, c)) for c in confirmed],
                             "view": {"x": list(xlim), "y": list(ylim)}, "beyond": _column(beyond[:len(x)])})
