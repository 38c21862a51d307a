"""Figures (plots, matplotlib Agg), Markdown reports (markdown), and the layout of each
analysis kind's report (layouts/)."""
