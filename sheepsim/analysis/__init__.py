"""The analysis kinds, one module each (definition.MODULES); the statistics they read
are in sheepsim/stats/."""
