"""Dice Companion: rules engines, game sessions and the ``companion`` command."""

__version__ = "0.1.0"
