"""Figures (plots, matplotlib Agg) and Markdown reports (markdown)."""
