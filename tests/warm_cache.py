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

# the slow compiles first, so that the two processes finish together; a policy names
# the game's search kernels (search/wiring.py), compiled apart
TASKS = [("blacksheep", None), ("hiboufou", None), ("blacksheep", "ismcts:iters=2"),
         ("hiboufou", "ismcts:iters=2"), ("battlesheep", None), ("battlesheep", "mcts:iters=2"),
         ("bobbysitter", None), ("pig", None), ("pig", "mcts:iters=2")]


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
        done = list(pool.map(warm, TASKS))
    print("warm_cache: " + ", ".join(f"{name} {s:.0f}s" for name, s in done)
          + f" ({time.perf_counter() - start:.0f}s)", file=sys.stderr)
