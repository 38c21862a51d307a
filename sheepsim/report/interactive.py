"""Interactive figures for the report site: a figure's data spec (report/saved.py,
written beside its PNG by plots.py) as a plotly figure.

The figure is built with plotly's graph objects (which check every property name) and
handed to the page as plain JSON {data, layout}; the page draws it with the site's own
copy of plotly.min.js, so nothing is fetched. Every point and cell says on hover what
the PNG can only draw: its value with the 95% interval in the report's own format
("51.2% [50.3, 52.1]", "+2.6 [+2.5, +2.7] points") and its n ("n = 20,000 games").
The colours are sampled from the same matplotlib colour maps as the PNG, and the
heat maps keep its scale (centred on the fair value, never narrower than the noise).

`figure(spec)` returns None for a kind it does not know: the page then shows the PNG.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go
from matplotlib import colormaps

from .markdown import decimals, format_interval
from .plots import colours as _mpl_colours
from .plots import text_colour

SANS = "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif"
TEMPLATE = go.layout.Template(layout=dict(
    font=dict(family=SANS, size=12, color="#222"), paper_bgcolor="white", plot_bgcolor="white",
    hoverlabel=dict(align="left", font=dict(family=SANS, size=12)),
    xaxis=dict(showgrid=True, gridcolor="#e8e8e8", zeroline=False, linecolor="#888", ticks="outside", automargin=True),
    yaxis=dict(showgrid=True, gridcolor="#e8e8e8", zeroline=False, linecolor="#888", ticks="outside", automargin=True),
    legend=dict(font=dict(size=11)), margin=dict(l=60, r=30, t=60, b=60),
))
CONFIG = {"displaylogo": False, "responsive": True, "scrollZoom": False,
          "modeBarButtonsToRemove": ["select2d", "lasso2d", "autoScale2d"]}


def _rgb(rgba: Sequence[float], alpha: float | None = None) -> str:
    r, g, b = (round(255 * float(c)) for c in rgba[:3])
    return f"rgb({r},{g},{b})" if alpha is None else f"rgba({r},{g},{b},{alpha})"


def colours(n: int, alpha: float | None = None) -> list[str]:
    """The PNG's colours (plots.colours), as CSS."""
    return [_rgb(c, alpha) for c in _mpl_colours(n)]


def colourscale(name: str, steps: int = 11) -> list[list]:
    cmap = colormaps[name]
    return [[i / (steps - 1), _rgb(cmap(i / (steps - 1)))] for i in range(steps)]


def _missing(v: Any) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def share(v: float, lo: float | None, hi: float | None, digits: int = 1) -> str:
    """'51.2% [50.3, 52.1]'."""
    return format_interval(v, _nan(lo), _nan(hi), percent=True, percent_digits=digits)


def points(v: float, lo: float | None, hi: float | None, digits: int = 1) -> str:
    """'+2.6 [+2.5, +2.7] points' for a difference of shares."""
    return format_interval(v, _nan(lo), _nan(hi), percent=True, percent_digits=digits, signed=True) + " points"


def number(v: float, lo: float | None = None, hi: float | None = None, digits: int | None = None) -> str:
    """A plain number with its interval, the decimals the interval needs."""
    if digits is None:
        half = [] if _missing(lo) or _missing(hi) else [(hi - lo) / 2]
        digits = decimals([v], half)
    return format_interval(v, _nan(lo), _nan(hi), floatfmt=f".{digits}f")


def count(n: Any, what: str = "games") -> str:
    return "" if _missing(n) else f"n = {int(n):,} {what}"


def _nan(v: Any) -> float:
    return math.nan if _missing(v) else float(v)


def _lines(*parts: str) -> str:
    return "<br>".join(p for p in parts if p)


def _at(matrix: Sequence[Sequence[Any]] | None, i: int, j: int) -> Any:
    return None if matrix is None else matrix[i][j]


def _layout(spec: Mapping[str, Any], height: int, **extra: Any) -> dict[str, Any]:
    return dict(template=TEMPLATE, height=height, title=dict(text=spec.get("title", ""), font=dict(size=14),
                                                             x=0.01, xanchor="left"), **extra)


def _percent_axis(title: str) -> dict[str, Any]:
    return dict(title=title, ticksuffix="%")


def heatmap(spec: Mapping[str, Any]) -> go.Figure:
    rows, cols = spec["rows"], spec["cols"]
    value, lo, hi, n = spec["value"], spec.get("lo"), spec.get("hi"), spec.get("n")
    centre = spec.get("centre")
    quantity = spec.get("quantity") or spec.get("value_label") or ""
    digits = max(1, int(spec.get("digits") or 0))
    where = [spec.get("ylabel") or "", spec.get("xlabel") or ""]
    hover = []
    for i, r in enumerate(rows):
        line = []
        for j, c in enumerate(cols):
            v = value[i][j]
            head = ", ".join(f"{name} {label}" if name and name != "-" else str(label)
                             for name, label in zip(where, (r, c)))
            if _missing(v):
                line.append(_lines(f"<b>{head}</b>", "not played"))
                continue
            a, b = _at(lo, i, j), _at(hi, i, j)
            fair = centre[i][j] if isinstance(centre, list) else centre
            if spec.get("percent") and spec.get("relative"):
                text = _lines(f"{quantity}: {share(v, a, b, digits)}",
                              f"against the fair {fair:.1%}: {points(v - fair, _minus(a, fair), _minus(b, fair))}")
            elif spec.get("percent") and spec.get("points"):
                text = f"{quantity}: {points(v, a, b)}"
            elif spec.get("percent"):
                text = f"{quantity}: {share(v, a, b, digits)}"
            else:
                text = f"{quantity}: {number(v, a, b, spec.get('digits'))}"
            notes = [spec.get("outline_label") if _at(spec.get("outline"), i, j) else "",
                     spec.get("marks_label") if _at(spec.get("marks"), i, j) else ""]
            line.append(_lines(f"<b>{head}</b>", text, count(_at(n, i, j)), *notes))
        hover.append(line)
    trace = go.Heatmap(
        z=spec["shade"], x=list(range(len(cols))), y=list(range(len(rows))), zmin=spec["zmin"], zmax=spec["zmax"],
        colorscale=colourscale(spec.get("colours") or "viridis"), text=spec.get("text"), texttemplate="%{text}",
        textfont=dict(size=11), hovertext=hover, hovertemplate="%{hovertext}<extra></extra>", xgap=1, ygap=1,
        colorbar=dict(title=dict(text=spec.get("value_label") or "", side="right"), thickness=14,
                      **({"ticksuffix": "%", "tickformat": ".0f"} if spec.get("percent") and not spec.get("points")
                         else {})))
    if spec.get("percent"):              # the colour scale in percent (or points), as on the PNG's bar
        trace.z = [[None if _missing(x) else 100 * x for x in row] for row in spec["shade"]]
        trace.zmin, trace.zmax = 100 * spec["zmin"], 100 * spec["zmax"]
    cmap = colormaps[spec.get("colours") or "viridis"]
    span = (spec["zmax"] - spec["zmin"]) or 1.0

    def ink(i: int, j: int) -> str:
        """Black or white on the cell's colour, as the PNG draws its boxes and stars."""
        v = spec["shade"][i][j]
        return "black" if _missing(v) else text_colour(cmap((v - spec["zmin"]) / span))
    shapes = [dict(type="rect", x0=j - 0.46, x1=j + 0.46, y0=i - 0.46, y1=i + 0.46, line=dict(color=ink(i, j), width=2))
              for i in range(len(rows)) for j in range(len(cols)) if _at(spec.get("outline"), i, j)]
    data = [trace]
    if shapes and spec.get("outline_label"):          # the boxes' legend entry (a shape has none)
        data.append(go.Scatter(x=[None], y=[None], mode="markers", name=spec["outline_label"], hoverinfo="skip",
                               marker=dict(symbol="square-open", size=12, color="black", line=dict(width=2))))
    stars = [(i, j) for i in range(len(rows)) for j in range(len(cols)) if _at(spec.get("marks"), i, j)]
    if stars:
        data.append(go.Scatter(x=[j + 0.3 for _, j in stars], y=[i - 0.25 for i, _ in stars], mode="markers",
                               marker=dict(symbol="star", size=12, color=[ink(i, j) for i, j in stars]),
                               hoverinfo="skip",
                               name=spec.get("marks_label") or "marked", showlegend=bool(spec.get("marks_label"))))
    fig = go.Figure(data=data, layout=_layout(
        spec, max(320, 150 + 40 * len(rows)), shapes=shapes,
        xaxis=dict(title=spec.get("xlabel"), tickvals=list(range(len(cols))), ticktext=cols, showgrid=False),
        yaxis=dict(title=spec.get("ylabel"), tickvals=list(range(len(rows))), ticktext=rows, showgrid=False,
                   autorange="reversed"),
        legend=dict(orientation="h", y=-0.2)))
    return fig


def _minus(x: Any, c: float) -> float:
    return math.nan if _missing(x) else x - c


def forest(spec: Mapping[str, Any]) -> go.Figure:
    data, names = [], []
    for colour, s in zip(colours(len(spec["series"])), spec["series"]):
        ys = [f"{s['label']}: seat {seat}" for seat in s["seat"]]
        names += ys
        edge = [100 * (w - f) for w, f in zip(s["win_rate"], s["fair"])]
        hover = [_lines(f"<b>{s['label']}, seat {seat}</b>", f"win rate {share(w, a, b)} (fair {f:.1%})",
                        f"edge {points(w - f, a - f, b - f)}", count(s.get("n"), "decided games"))
                 for seat, w, a, b, f in zip(s["seat"], s["win_rate"], s["lo"], s["hi"], s["fair"])]
        data.append(go.Scatter(
            x=edge, y=ys, mode="markers", name=s["label"], marker=dict(color=colour, size=7),
            error_x=dict(type="data", symmetric=False, array=[100 * (b - w) for w, b in zip(s["win_rate"], s["hi"])],
                         arrayminus=[100 * (w - a) for w, a in zip(s["win_rate"], s["lo"])], color=colour,
                         thickness=1.6, width=4),
            hovertext=hover, hovertemplate="%{hovertext}<extra></extra>"))
    return go.Figure(data=data, layout=_layout(
        spec, max(300, 130 + 24 * len(names)), showlegend=False,
        shapes=[dict(type="line", x0=0, x1=0, xref="x", y0=0, y1=1, yref="paper",
                     line=dict(color="grey", dash="dash"))],
        xaxis=dict(title=spec.get("xlabel"), ticksuffix="", zeroline=False),
        yaxis=dict(categoryorder="array", categoryarray=names, autorange="reversed")))


def _ribbon(x: list, lo: list, hi: list, colour: str, fill: str) -> list[go.Scatter]:
    up = go.Scatter(x=x, y=[_pct(v) for v in hi], mode="lines", line=dict(width=0, color=colour), hoverinfo="skip",
                    showlegend=False)
    down = go.Scatter(x=x, y=[_pct(v) for v in lo], mode="lines", line=dict(width=0, color=colour), fill="tonexty",
                      fillcolor=fill, hoverinfo="skip", showlegend=False)
    return [up, down]


def _pct(v: Any) -> float | None:
    return None if _missing(v) else 100 * v


def _fair_line(fair: float, colour: str = "grey") -> dict[str, Any]:
    return dict(type="line", xref="paper", x0=0, x1=1, y0=100 * fair, y1=100 * fair,
                line=dict(color=colour, dash="dash", width=1))


def lines(spec: Mapping[str, Any]) -> go.Figure:
    series = spec["series"]
    data, shapes, xaxis = [], [], dict(title=spec.get("xlabel"))
    fairs = {round(s["fair"], 12) for s in series if s.get("fair") is not None}
    for colour, fill, s in zip(colours(len(series)), colours(len(series), 0.2), series):
        x = [str(v) if not isinstance(v, (int, float)) else v for v in s["x"]]
        shown = [f"{v:g}" if isinstance(v, (int, float)) else v for v in x]
        named = not all(isinstance(v, (int, float)) for v in s["x"])
        ns = s.get("n") or [None] * len(x)
        text = points if spec.get("points") else share         # an edge in points, as on the PNG
        hover = [_lines(f"<b>{s['label']}</b>", f"{spec.get('xlabel', 'x')} = {xv}",
                        f"{spec.get('ylabel', 'win rate')} {text(y, a, b)}", count(k))
                 for xv, y, a, b, k in zip(shown, s["y"], s["lo"], s["hi"], ns)]
        data += _ribbon(x, s["lo"], s["hi"], colour, fill)
        data.append(go.Scatter(
            x=x, y=[_pct(v) for v in s["y"]], mode="lines+markers", name=s["label"], line=dict(color=colour),
            marker=dict(size=6),
            error_y=dict(type="data", symmetric=False, array=[100 * (b - y) for y, b in zip(s["y"], s["hi"])],
                         arrayminus=[100 * (y - a) for y, a in zip(s["y"], s["lo"])], color=colour, width=4),
            hovertext=hover, hovertemplate="%{hovertext}<extra></extra>"))
        if len(fairs) > 1:
            shapes.append(_fair_line(s["fair"], colour))
        for key in ("best",):
            if s.get(key) and any(s[key]):
                at = [k for k, b in enumerate(s[key]) if b]
                data.append(go.Scatter(x=[x[k] for k in at], y=[_pct(s["y"][k]) for k in at], mode="markers",
                                       name="best set", hoverinfo="skip",
                                       marker=dict(size=16, color="rgba(0,0,0,0)", line=dict(color="red", width=2))))
        if named:
            xaxis.update(type="category")
        elif all(float(v).is_integer() for v in s["x"]):           # counts: a tick per setting, as on the PNG
            xaxis.update(tickvals=s["x"])
    annotations = []
    fair = spec.get("fair") if spec.get("fair") is not None else (fairs.pop() if len(fairs) == 1 else None)
    if fair is not None:
        shapes.append(_fair_line(fair))
        annotations.append(dict(xref="paper", x=1, y=100 * fair,
                                text="no edge" if spec.get("points") else f"fair {fair:.1%}", showarrow=False,
                                xanchor="right", yanchor="bottom", font=dict(size=11, color="grey")))
    yaxis = (dict(title=spec.get("ylabel"), tickformat="+") if spec.get("points") else
             _percent_axis(spec.get("ylabel", "win rate")))
    return go.Figure(data=data, layout=_layout(spec, 440, shapes=shapes, annotations=annotations, xaxis=xaxis,
                                               yaxis=yaxis,
                                               legend=dict(orientation="h", y=-0.22, traceorder="normal")))


def history(spec: Mapping[str, Any]) -> go.Figure:
    games = spec["games"]
    rungs = sorted(set(games))
    best = spec["best"]
    digits = decimals(spec["value"] + [best["value"]], [(best["hi"] - best["lo"]) / 2]
                      if not (_missing(best["lo"]) or _missing(best["hi"])) else None)
    data = []
    for colour, symbol, g in zip(colours(len(rungs)), ("triangle-down", "triangle-up", "circle", "square", "star",
                                                       "diamond", "pentagon", "hexagon"), rungs):
        at = [k for k, x in enumerate(games) if x == g]
        data.append(go.Scatter(
            x=[spec["trial"][k] for k in at], y=[spec["value"][k] for k in at], mode="markers", name=f"{g:,} games",
            marker=dict(color=colour, symbol=symbol, size=8),
            hovertext=[_lines(f"<b>setting {spec['trial'][k]}</b>",
                              f"{spec.get('ylabel', 'objective')}: {number(spec['value'][k], digits=digits)}",
                              f"raced for {g:,} games") for k in at],
            hovertemplate="%{hovertext}<extra></extra>"))
    v, lo, hi = best["value"], best["lo"], best["hi"]
    shapes = [dict(type="line", xref="paper", x0=0, x1=1, y0=v, y1=v, line=dict(color="black", width=1.5))]
    if not (_missing(lo) or _missing(hi)):
        shapes.append(dict(type="rect", xref="paper", x0=0, x1=1, y0=lo, y1=hi, fillcolor="rgba(0,0,0,0.12)",
                           line=dict(width=0), layer="below"))
    annotations = [dict(xref="paper", x=1, y=v, showarrow=False, xanchor="right", yanchor="bottom",
                        text=f"best, confirmed: {number(v, lo, hi, digits)}", font=dict(size=11))]
    return go.Figure(data=data, layout=_layout(
        spec, 440, shapes=shapes, annotations=annotations, xaxis=dict(title=spec.get("xlabel")),
        yaxis=dict(title=spec.get("ylabel")), legend=dict(title=dict(text="raced for"))))


def pareto(spec: Mapping[str, Any]) -> go.Figure:
    x, y, front = spec["x"], spec["y"], spec["front"]
    xd = decimals(x) if x else 2
    yd = decimals(y) if y else 2

    def point(k: int) -> str:
        return _lines(f"{spec.get('xlabel')}: {number(x[k], digits=xd)}",
                      f"{spec.get('ylabel')}: {number(y[k], digits=yd)}")
    rest = [k for k in range(len(x)) if not front[k]]
    on = sorted((k for k in range(len(x)) if front[k]), key=lambda k: x[k])
    data = [go.Scatter(x=[x[k] for k in rest], y=[y[k] for k in rest], mode="markers", name="raced to the end",
                       marker=dict(color="rgb(179,179,179)", size=7), hovertext=[point(k) for k in rest],
                       hovertemplate="%{hovertext}<extra></extra>"),
            go.Scatter(x=[x[k] for k in on], y=[y[k] for k in on], mode="lines+markers", name="Pareto front",
                       marker=dict(color="rgb(77,77,77)", size=7), line=dict(color="rgb(77,77,77)", width=1),
                       hovertext=[_lines("<b>on the Pareto front</b>", point(k)) for k in on],
                       hovertemplate="%{hovertext}<extra></extra>")]
    for colour, c in zip(colours(len(spec["confirmed"])), spec["confirmed"]):
        data.append(go.Scatter(
            x=[c["x"]], y=[c["y"]], mode="markers", name=c["label"], marker=dict(color=colour, size=9),
            error_x=dict(type="data", symmetric=False, array=[c["x_hi"] - c["x"]], arrayminus=[c["x"] - c["x_lo"]],
                         color=colour),
            error_y=dict(type="data", symmetric=False, array=[c["y_hi"] - c["y"]], arrayminus=[c["y"] - c["y_lo"]],
                         color=colour),
            hovertext=[_lines(f"<b>{c['label']}</b>", "confirmed on fresh games",
                              f"{spec.get('xlabel')}: {number(c['x'], c['x_lo'], c['x_hi'])}",
                              f"{spec.get('ylabel')}: {number(c['y'], c['y_lo'], c['y_hi'])}")],
            hovertemplate="%{hovertext}<extra></extra>"))
    view = spec.get("view") or {}        # the image's axes (the useful settings); zoom out for the rest
    return go.Figure(data=data, layout=_layout(spec, 500, xaxis=dict(title=spec.get("xlabel"), range=view.get("x")),
                                               yaxis=dict(title=spec.get("ylabel"), range=view.get("y")),
                                               legend=dict(orientation="h", y=-0.25)))


def length(spec: Mapping[str, Any]) -> go.Figure:
    unit = spec.get("unit", "turns")
    data = []
    for colour, s in zip(colours(len(spec["series"])), spec["series"]):
        hover = [_lines(f"<b>{s['label']}</b>", f"at most {x:g} {unit}: {q:.1%} of games", count(s.get("n")))
                 for x, q in zip(s["x"], s["share"])]
        data.append(go.Scatter(x=s["x"], y=[100 * q for q in s["share"]], mode="lines", line_shape="hv",
                               name=f"{s['label']} (n={s['n']:,})", line=dict(color=colour), hovertext=hover,
                               hovertemplate="%{hovertext}<extra></extra>"))
    return go.Figure(data=data, layout=_layout(
        spec, 440, xaxis=dict(title=spec.get("xlabel"), range=[spec.get("low", 0) - 0.5, spec["cut"] + 0.5]),
        yaxis=_percent_axis("share of games at most this long"), legend=dict(orientation="h", y=-0.25)))


def variants(spec: Mapping[str, Any]) -> go.Figure:
    """Two panels sharing the rows: the paired change in length, the seat-0 edge."""
    from plotly.subplots import make_subplots
    rows = spec["rows"]
    counts = list(dict.fromkeys(r["players"] for r in rows))
    colour = dict(zip(counts, colours(len(counts))))
    unit = spec.get("unit", "turns")
    fig = make_subplots(rows=1, cols=2, shared_yaxes=True, horizontal_spacing=0.04)
    for players in counts:
        at = [r for r in rows if r["players"] == players]
        hover = [_lines(f"<b>{r['label']}</b>", f"change in mean {unit}: "
                        f"{number(r['turns_change'], r['turns_change_lo'], r['turns_change_hi'])}",
                        f"seat-0 edge {points(r['edge'], r['edge_lo'], r['edge_hi'])}", count(r.get("n")))
                 for r in at]
        for col, key, k in ((1, "turns_change", 1), (2, "edge", 100)):
            fig.add_trace(go.Scatter(
                x=[k * r[key] for r in at], y=[r["label"] for r in at], mode="markers", name=f"{players} players",
                marker=dict(color=colour[players], size=7), showlegend=col == 1, legendgroup=str(players),
                error_x=dict(type="data", symmetric=False, array=[k * (r[f"{key}_hi"] - r[key]) for r in at],
                             arrayminus=[k * (r[key] - r[f"{key}_lo"]) for r in at], color=colour[players]),
                hovertext=hover, hovertemplate="%{hovertext}<extra></extra>"), row=1, col=col)
    for col in (1, 2):
        fig.add_vline(x=0, line=dict(color="grey", dash="dash", width=1), row=1, col=col)
        fig.update_xaxes(title_text=spec["xlabels"][col - 1], row=1, col=col)
    fig.update_yaxes(categoryorder="array", categoryarray=[r["label"] for r in rows], autorange="reversed")
    fig.update_layout(_layout(spec, max(320, 150 + 26 * len(rows)), legend=dict(orientation="h", y=-0.2)))
    return fig


BUILDERS: dict[str, Callable[[Mapping[str, Any]], go.Figure]] = {
    "heatmap": heatmap, "forest": forest, "lines": lines, "sweep": lines, "history": history, "pareto": pareto,
    "length": length, "variants": variants,
}


def figure(spec: Mapping[str, Any]) -> dict[str, Any] | None:
    """{data, layout, config} for plotly.newPlot, or None for a kind without a builder
    (or a spec it cannot read: the PNG is shown instead)."""
    build = BUILDERS.get(spec.get("kind", ""))
    if build is None:
        return None
    try:
        fig = build(spec)
    except (KeyError, TypeError, ValueError, IndexError):
        return None
    plain = fig.to_plotly_json()
    return {"data": plain["data"], "layout": plain["layout"], "config": CONFIG}


def hover_texts(fig: Mapping[str, Any]) -> list[str]:
    """Every hover text of a built figure, flattened (for tests and checks)."""
    out: list[str] = []
    for trace in fig["data"]:
        texts = trace.get("hovertext")
        if texts is None:
            continue
        for t in np.asarray(texts, dtype=object).ravel():
            out.append(str(t))
    return out
