"""Text pieces every game's trace shares, written once rather than per game."""

from __future__ import annotations

import textwrap
from typing import Iterable

from ..options import Option, Rules


def _value(v) -> str:
    return ",".join(str(x) for x in v) if isinstance(v, tuple) else str(v)


def rules_lines(rules: Rules, options: Iterable[Option], omit: Iterable[str] = (),
                resolved: dict[str, str] | None = None) -> list[str]:
    """The rules in force as a designer reads them: the options changed from their
    defaults first, then the others, as NAME=VALUE, wrapped. `omit` names options that
    do not apply to this game (e.g. the generated-deck counts when a deck file is dealt);
    `resolved` gives, after an option's value, what a value like 0 = "by player count"
    comes to in this game, so the line agrees with the header's numbers."""
    omit, resolved = set(omit), resolved or {}
    changed, kept = [], []
    for o in options:
        if o.name in omit:
            continue
        note = f" ({resolved[o.name]})" if o.name in resolved else ""
        (changed if rules[o.name] != o.default else kept).append(f"{o.name}={_value(rules[o.name])}{note}")
    if changed:
        text = f"rules: {', '.join(changed)} (changed from the defaults); the others at their defaults: "
    else:
        text = "rules: every option at its default: "
    # the pointer to the option help stays on one line (non-breaking spaces while wrapping)
    text += ", ".join(kept) + f" (see `sheepsim rules {rules.game}`)".replace(" ", "\xa0")
    return [line.replace("\xa0", " ") for line in
            textwrap.wrap(text, width=100, subsequent_indent="    ", break_long_words=False, break_on_hyphens=False)]


def seats(seat_ids: Iterable[int], between: str = " and ") -> str:
    """`seat 0`, `seats 0 and 2`, `seats 0, 1 and 3`."""
    ids = [str(q) for q in seat_ids]
    if len(ids) == 1:
        return f"seat {ids[0]}"
    return f"seats {', '.join(ids[:-1])}{between}{ids[-1]}"


def ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def plural(n: int, word: str, words: str | None = None) -> str:
    return f"{n} {word if n == 1 else (words or word + 's')}"


def per_seat(counts: Iterable[int], word: str, words: str | None = None) -> str:
    """One count per seat in words: `seat 0 has 2 triplets, seat 1 has 1, seat 2 has 4`."""
    return ", ".join(f"seat {q} has {plural(n, word, words) if q == 0 else n}" for q, n in enumerate(counts))
