"""Statistics, below every layer that reads them (sheepsim/ARCHITECTURE.md, "Layers"):
intervals and tests (intervals), per-game results -> tables (tables), per-game
measures and their errors (measures), the experience metrics' readable definitions
(experience) and Pareto fronts of several objectives (pareto). Pure functions of arrays
and DataFrames: this package imports numpy, pandas, scipy and itself, nothing else of
sheepsim's."""
