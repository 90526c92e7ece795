"""Colour, tray and exposure calibration, stored as a human-readable profile."""
