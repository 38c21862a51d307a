"""Results on disk: the run folder and its manifest (store.py), and the aggregate-mode
counts (aggregate.py)."""
