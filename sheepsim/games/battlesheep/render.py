"""ASCII picture of a pasture (pointy-top hexes, r grows downward).

Each hex is 4 characters wide and each row is shifted half a hex to the right of the
row above, so the six neighbours of a hex sit where they do on the table:

      .   A16  .            A16 = seat 0 (A) stack of 16 sheep
        B 3  .   .          .   = empty pasture, blank = no pasture
"""

from __future__ import annotations

import numpy as np

from .engine import H_NHEX, HEIGHT, OWNER, Q, R


def render_board(s: np.ndarray) -> str:
    n = int(s[H_NHEX])
    if n == 0:
        return "  (no pasture yet)"
    cells = {(int(s[Q + i]), int(s[R + i])): i for i in range(n)}
    rmin = min(r for _, r in cells)
    rmax = max(r for _, r in cells)
    # column of hex (q, r) in half-hex units: 2q + r
    cmin = min(2 * q + r for q, r in cells)
    lines = []
    for r in range(rmin, rmax + 1):
        row = [(2 * q + r - cmin, i) for (q, rr), i in cells.items() if rr == r]
        width = 2 * (max((c for c, _ in row), default=0) + 2)
        line = [" "] * width
        for col, i in row:
            h = int(s[HEIGHT + i])
            token = " . " if h == 0 else f"{chr(65 + int(s[OWNER + i]))}{h:>2}"
            line[2 * col:2 * col + 3] = token
        lines.append("  " + "".join(line).rstrip())
    return "\n".join(lines)
