"""The summary `sheepsim simulate` prints: seats, policies, game length, with intervals.

Per-game rows and aggregate-only runs print the same tables; from counts the length
quantiles are exact (from the histogram) and carry no bootstrap interval.
"""

from __future__ import annotations

from ..analysis import tables as T
from ..report.markdown import format_interval, table_to_markdown
from ..results import aggregate as A

SEAT_COLUMNS = ["seat", "games", "decided", "wins", "shared", "win_rate", "win_rate_lo", "win_rate_hi", "fair_rate"]
POLICY_COLUMNS = ["policy", "games", "decided", "wins", "shared", "win_rate", "win_rate_lo", "win_rate_hi"]


def _header(game, run) -> list[str]:
    m = run.manifest
    played = m.get("played", m["games"])
    return [
        f"{game.title}: {played:,} games, {m['rules']['num_players']} players, policies "
        f"{' / '.join(m['policies'])}{' (rotated over seats)' if m['rotate'] else ''}, seed {m['seed']}, "
        f"{run.seconds:.2f}s ({played / max(run.seconds, 1e-9):,.0f} games/s)",
        "",
    ]


def _seats(seats) -> list[str]:
    a = seats.attrs
    return [
        "Win rate by seat (decided games; 95% Wilson intervals):",
        table_to_markdown(seats[[c for c in SEAT_COLUMNS if c in seats]]),
        f"draws / shared results: {format_interval(a['draw_rate'], a['draw_rate_lo'], a['draw_rate_hi'], percent=True)}"
        f" ({a['draws']:,} games); chi-square vs equal seats p {_p_text(a['chi2_p'])}",
    ]


def _policies(pol) -> list[str]:
    return ["", "Win rate by policy (all seats):", table_to_markdown(pol[[c for c in POLICY_COLUMNS if c in pol]])]


def _stop(m) -> list[str]:
    """Where --ci-halfwidth stopped the run, or that the game limit came first."""
    stop = m.get("stopped")
    if not stop:
        return []
    widest = max(stop["halfwidths"]) if stop["halfwidths"] else float("nan")
    if stop["reached"]:
        return ["", f"stopped after {stop['games']:,} games ({stop['chunks']} chunks of {m['chunk_size']:,}): "
                    f"every seat's 95% half-width <= {m['ci_halfwidth']:g} (widest {widest:.4g})"]
    return ["", f"game limit {m['games']:,} reached before every seat's 95% half-width was <= "
                f"{m['ci_halfwidth']:g} (widest {widest:.4g})"]


def summary_text(game, run) -> str:
    if run.aggregate is not None:
        return _aggregate_text(game, run)
    df = run.results
    m = run.manifest
    lines = _header(game, run) + _seats(T.seat_table(df))
    if len(set(m["policies"])) > 1:
        lines += _policies(T.policy_table(df))
    length = T.length_table(df).iloc[0]
    lines += ["", f"Game length ({game.turn_unit}): mean {length['mean']:.2f}, median {length['median']:g} "
                  f"[{length['median_lo']:g}, {length['median_hi']:g}], IQR {length['q25']:g}-{length['q75']:g}, "
                  f"p90 {length['p90']:g}, p99 {length['p99']:g}"]
    if "tiebreak" in df:
        tb = T.tiebreak_rate(df).iloc[0]
        lines.append("decided by the tie-break: " + format_interval(tb["tiebreak_rate"], tb["tiebreak_rate_lo"],
                                                                     tb["tiebreak_rate_hi"], percent=True))
    return "\n".join(lines + _stop(m))


def _aggregate_text(game, run) -> str:
    agg, m = run.aggregate, run.manifest
    lines = _header(game, run) + _seats(A.seat_table(agg))
    if len(set(m["policies"])) > 1:
        lines += _policies(A.policy_table(agg))
    length = A.length_summary(agg)
    lines += ["", f"Game length ({game.turn_unit}): mean {length['mean']:.2f} [{length['mean_lo']:.2f}, "
                  f"{length['mean_hi']:.2f}], median {length['median']:g}, IQR {length['q25']:g}-{length['q75']:g}, "
                  f"p90 {length['p90']:g}, p99 {length['p99']:g} (exact, from the length histogram)"]
    if m.get("peak_rss_mb"):
        lines.append(f"peak memory (RSS) of this process: {m['peak_rss_mb']:,.0f} MB")
    if "tiebreak" in agg.decided_true:
        from ..analysis.stats import wilson_interval
        k = agg.decided_true["tiebreak"]
        lo, hi = wilson_interval(k, agg.games)
        lines.append("decided by the tie-break: " + format_interval(k / agg.games, lo, hi, percent=True))
    return "\n".join(lines + _stop(m))


def _p_text(p: float) -> str:
    """'= 0.0123', or '< 1e-300' for a p-value that underflows (never '= 0')."""
    return f"= {p:.3g}" if p > 1e-300 else "< 1e-300"
