"""The summary `sheepsim simulate` prints: seats, policies, game length, with intervals."""

from __future__ import annotations

from ..analysis import tables as T
from ..report.markdown import format_interval, table_to_markdown

SEAT_COLUMNS = ["seat", "games", "decided", "wins", "shared", "win_rate", "win_rate_lo", "win_rate_hi", "fair_rate"]
POLICY_COLUMNS = ["policy", "games", "decided", "wins", "shared", "win_rate", "win_rate_lo", "win_rate_hi"]


def summary_text(game, run) -> str:
    df = run.results
    m = run.manifest
    seats = T.seat_table(df)
    lines = [
        f"{game.title}: {m['games']:,} games, {m['rules']['num_players']} players, policies "
        f"{' / '.join(m['policies'])}{' (rotated over seats)' if m['rotate'] else ''}, seed {m['seed']}, "
        f"{run.seconds:.2f}s ({m['games'] / max(run.seconds, 1e-9):,.0f} games/s)",
        "",
        "Win rate by seat (decided games; 95% Wilson intervals):",
        table_to_markdown(seats[[c for c in SEAT_COLUMNS if c in seats]]),
        f"draws / shared results: {format_interval(seats.attrs['draw_rate'], seats.attrs['draw_rate_lo'], seats.attrs['draw_rate_hi'], percent=True)}"
        f" ({seats.attrs['draws']:,} games); chi-square vs equal seats p = {seats.attrs['chi2_p']:.3g}",
    ]
    if len(set(m["policies"])) > 1:
        pol = T.policy_table(df)
        lines += ["", "Win rate by policy (all seats):", table_to_markdown(pol[[c for c in POLICY_COLUMNS if c in pol]])]
    length = T.length_table(df).iloc[0]
    lines += ["", f"Game length ({game.turn_unit}): mean {length['mean']:.2f}, median {length['median']:g} "
                  f"[{length['median_lo']:g}, {length['median_hi']:g}], IQR {length['q25']:g}-{length['q75']:g}, "
                  f"p90 {length['p90']:g}, p99 {length['p99']:g}"]
    if "tiebreak" in df:
        tb = T.tiebreak_rate(df).iloc[0]
        lines.append("decided by the tie-break: " + format_interval(tb["tiebreak_rate"], tb["tiebreak_rate_lo"],
                                                                     tb["tiebreak_rate_hi"], percent=True))
    return "\n".join(lines)
