"""The layout of each analysis kind's report, one module per kind: the data class its
run returns (analysis/<kind>.py fills it: tables, numbers, the per-game results a figure
draws) and `layout(spec, data, figures, command)`, which turns that data into the
report, its headline, findings, tables and the figures it draws into FIGURES. The
analysis file `spec` gives the title, the description and the words it names; `command`
regenerates the report. A layout reads what it is handed and never imports the analysis:
the wording of a report changes here alone, and a kind's numbers there alone."""
