"""The analysis kinds, one module each (definition.MODULES); the statistics they read
are in sheepsim/stats/, and the layout of each one's report in sheepsim/report/layouts/."""
