"""Where the companion keeps its files: sessions in the user's data directory,
calibration profiles and settings in the user's config directory.

``COMPANION_DATA_DIR`` and ``COMPANION_CONFIG_DIR`` override both (tests use them).
"""
from __future__ import annotations

import os
from pathlib import Path

APP = "dice-companion"


def _xdg(env: str, fallback: str) -> Path:
    base = os.environ.get(env)
    return Path(base) if base else Path.home() / fallback


def data_dir() -> Path:
    """The directory for session databases, created on first use."""
    path = Path(os.environ["COMPANION_DATA_DIR"]) if os.environ.get("COMPANION_DATA_DIR") \
        else _xdg("XDG_DATA_HOME", ".local/share") / APP
    path.mkdir(parents=True, exist_ok=True)
    return path


def config_dir() -> Path:
    """The directory for calibration profiles and settings, created on first use."""
    path = Path(os.environ["COMPANION_CONFIG_DIR"]) if os.environ.get("COMPANION_CONFIG_DIR") \
        else _xdg("XDG_CONFIG_HOME", ".config") / APP
    path.mkdir(parents=True, exist_ok=True)
    return path
