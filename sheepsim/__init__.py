"""sheepsim: Monte Carlo strategy analysis for four small tabletop games."""

import os

# sheepsim's parallelism is numba's threads. OpenBLAS (numpy's and scipy's) keeps its
# own pool of threads that spin after any linear algebra; on a small machine they take
# cores from the simulation (2-5% of a 2-thread run's samples, measured). Set before
# numpy is imported; a user's own setting wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

# numba's cache in a folder keyed by a hash of the package's sources (see cache.py):
# before anything imports numba, which reads NUMBA_CACHE_DIR at import.
from . import cache as _cache  # noqa: E402

_cache.configure()

__version__ = "0.1.0"
