"""sheepsim: Monte Carlo strategy analysis for four small tabletop games."""

__version__ = "0.1.0"
