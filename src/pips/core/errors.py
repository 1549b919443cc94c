"""The errors the rules core raises. All are ``ValueError``: bad input, never a crash."""

from __future__ import annotations


class RuleError(ValueError):
    """Input the rules forbid; ``rule`` is the SPEC id (``F-13``) of the rule broken."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{rule}: {message}")
        self.rule = rule
        self.detail = message


class IllegalMoveError(RuleError):
    """A move the rules forbid in this position."""


class OptionError(RuleError):
    """A game option outside what the rules allow (FIDO with two players, double-7 ...).
    ``option``: the option at fault, where one alone is."""

    option: str | None = None


class DealError(RuleError):
    """A deal that does not fit the set or the table (duplicate tiles, wrong sizes)."""
