"""Statistics (stats) and per-game results -> analysis tables (tables)."""
