"""Compile every game's cached kernels into the test session's numba cache, two games
at a time, before pytest starts its workers (`make test` runs this first).

Without it, both pytest workers start on files that need the same cold kernels and
compile them at the same time, each for itself (minutes of one core each). A warm
cache changes no result: the tests compile whatever is still missing, as before.
Run: python tests/warm_cache.py (from the repository; its folder is on sys.path).
"""

from __future__ import annotations

import contextlib
import io
import sys
import time
from concurrent.futures import ProcessPoolExecutor



def tasks() -> list[tuple[str, str | None]]:
    """Every registered game's kernels, and its search kernels where search agents
    play it (a policy names them: search/wiring.py compiles them apart), the slow
    compiles first (GameSpec.compile_seconds), so that the two processes finish together."""
    import conftest  # noqa: F401  (the test session's cache folder and plug-in game)
    from sheepsim.games import all_games
    from sheepsim.games.wrappers import SEARCH_COMPILE_SECONDS
    from sheepsim.policies import policies_for
    out = []
    for name, game in all_games().items():
        out.append((game.compile_seconds, name, None))
        names = {p.name for p in policies_for(name) if p.kind == "search" and not p.refuse}
        agent = "mcts" if "mcts" in names else "ismcts" if "ismcts" in names else None
        if agent:
            out.append((game.compile_seconds + SEARCH_COMPILE_SECONDS, name, f"{agent}:iters=2"))
    return [(name, policy) for _, name, policy in sorted(out, key=lambda t: -t[0])]


def warm(task: tuple[str, str | None]) -> tuple[str, float]:
    """The game's chunk kernel (simulate) and replay kernel (trace), as the tests use them."""
    import conftest  # noqa: F401  (selects the test session's cache folder)
    from sheepsim.cli import cli

    name, policy = task
    more = ["--policy", policy] if policy else []
    t = time.perf_counter()
    for args in (["simulate", name, "-n", "8", "-q", *more], ["trace", name, "--game", "0", *more]):
        with contextlib.redirect_stdout(io.StringIO()):
            try:
                cli.main(args, standalone_mode=False)
            except SystemExit as exc:       # a failure here is the tests' to report
                if exc.code:
                    print(f"warm_cache: sheepsim {' '.join(args)} exited {exc.code}", file=sys.stderr)
    return name + (f" {policy}" if policy else ""), time.perf_counter() - t


if __name__ == "__main__":
    start = time.perf_counter()
    with ProcessPoolExecutor(2) as pool:
        done = list(pool.map(warm, tasks()))
    print("warm_cache: " + ", ".join(f"{name} {s:.0f}s" for name, s in done)
          + f" ({time.perf_counter() - start:.0f}s)", file=sys.stderr)
