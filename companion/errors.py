"""Errors a player or a caller can cause, each with a one-line message."""
from __future__ import annotations

MAX_MESSAGE_LENGTH = 300
"""Characters of an error message; a long input quoted in it is cut short."""


class CompanionError(Exception):
    """Base of every error the companion reports to a person in one line."""

    def __str__(self) -> str:  # one line of readable length, whatever the input quoted in it
        text = " ".join(super().__str__().split())
        return text if len(text) <= MAX_MESSAGE_LENGTH else text[: MAX_MESSAGE_LENGTH - 3] + "..."


class UserError(CompanionError):
    """Bad input from the command line or the UI (unknown game, bad dice text, ...)."""


class RuleError(CompanionError):
    """A move or roll that breaks a rule; ``rule`` names the rule broken.

    Raising it never changes the state it was raised from.
    """

    def __init__(self, rule: str, message: str):
        super().__init__(f"{message} (rule: {rule})")
        self.rule = rule
        self.detail = message
