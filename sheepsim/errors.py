"""The one error type users see.

Anything raised as `SheepsimError` is bad input: the CLI prints its message on one
line and exits with status 2, and nothing is left half-written.
"""


class SheepsimError(Exception):
    """Bad input: the message names the problem and the valid choices."""
