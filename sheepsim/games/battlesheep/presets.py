"""Named preset pastures (option `board=preset:NAME`).

Each preset is a list of tiles in placement order; a tile is 4 axial (q, r) hexes.
They are built from the first rhombus orientation {(0,0),(1,0),(0,1),(1,1)} laid on a
grid of anchors (2i, 2j), so every tile shares edges with its neighbours:

    parallelogram: a x b tiles, a solid 2a x 2b hex parallelogram
    ring:          the same with the middle tiles left out, so the pasture has an
                   enclosed hole whose rim is NOT outer perimeter (rules: holes are
                   not an edge for starting stacks)
"""

from __future__ import annotations

Tile = tuple[tuple[int, int], ...]


def _tile(i: int, j: int) -> Tile:
    q, r = 2 * i, 2 * j
    return ((q, r), (q + 1, r), (q, r + 1), (q + 1, r + 1))


def _grid(a: int, b: int, hole: tuple[range, range] | None = None) -> list[Tile]:
    tiles = []
    for j in range(b):
        for i in range(a):
            if hole and i in hole[0] and j in hole[1]:
                continue
            tiles.append(_tile(i, j))
    return tiles


PRESETS: dict[str, list[Tile]] = {
    "parallelogram-2p": _grid(4, 2),
    "parallelogram-3p": _grid(4, 3),
    "parallelogram-4p": _grid(4, 4),
    "ring-2p": _grid(3, 3, (range(1, 2), range(1, 2))),
    "ring-4p": _grid(5, 5, (range(1, 4), range(1, 4))),
}
