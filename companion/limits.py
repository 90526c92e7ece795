"""Limits checked before any work: input a person can type or hand over never costs the
machine more than a Raspberry Pi with 2 GB can give, and each refusal names its limit.

Each limit is a named number here, with the reason for its size, so the commands, the
session store and the tests share one figure.
"""
from __future__ import annotations

import json
import math
import os
import stat
from pathlib import Path
from typing import Any

from companion.errors import UserError

MAX_PLAYER_COUNT_DIGITS = 3
"""A player count is at most this many digits (no game seats more than 4; checked before ``int``)."""
MAX_DICE_PER_ROLL = 64
"""Dice in one typed roll; the biggest game rolls 21."""
MAX_DIE_TOKEN_LENGTH = 32
"""Characters in one typed die such as ``purple:5``."""
MAX_GAMES_PER_SIMULATION = 100_000
"""Games one ``companion simulate`` plays (about an hour of the slowest game on a Pi)."""
MAX_STATE_FILE_BYTES = 4_000_000
"""Size of a state or manifest file read whole into memory (a real state is a few kB)."""
MAX_JSON_NESTING = 64
"""Brackets open at once in a JSON file (a real state nests 6 deep)."""
MAX_JSON_INTEGER_DIGITS = 18
"""Digits of one whole number in a JSON file (fits 64 bits)."""
MAX_IMAGE_PIXELS = 50_000_000
"""Pixels of a photo, read from its header before decoding (a 48-megapixel phone photo fits;
decoded whole it takes 150 MB)."""
READ_FULL_PIXELS = 16_000_000
"""Photos up to this many pixels are decoded whole; bigger ones at 1/2, 1/4 or 1/8 of the size."""


def player_count(game, text: str) -> int:
    """A typed player count, refused before conversion when it cannot be a count for ``game``."""
    text = text.strip()
    if len(text) > MAX_PLAYER_COUNT_DIGITS:
        shown = text if len(text) <= 12 else f"{text[:12]}..."
        raise UserError(f"{game.title} is for {game.min_players}-{game.max_players} players, not {shown}")
    return check_player_count(game, int(text))


def check_player_count(game, count: int) -> int:
    """``count`` when ``game`` seats that many players; otherwise a one-line UserError."""
    if not game.min_players <= count <= game.max_players:
        shown = str(count) if abs(count) < 10 ** 12 else f"{str(count)[:12]}..."
        raise UserError(f"{game.title} is for {game.min_players}-{game.max_players} players, not {shown}")
    return count


def regular_file(path: Path, what: str) -> os.stat_result:
    """The file's status when ``path`` is a regular file (a pipe or device could block or never end)."""
    try:
        status = os.stat(path)
    except OSError as exc:
        raise UserError(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(status.st_mode):
        kind = "a folder" if stat.S_ISDIR(status.st_mode) else "not a regular file"
        raise UserError(f"cannot read {what} {path}: it is {kind}")
    return status


def read_json_file(path: Path, what: str, max_bytes: int = MAX_STATE_FILE_BYTES) -> Any:
    """A small JSON file's contents: a regular UTF-8 file of at most ``max_bytes``, nested at most
    :data:`MAX_JSON_NESTING` deep, with finite numbers; UserError in one line otherwise."""
    path = Path(path)
    if regular_file(path, what).st_size > max_bytes:
        raise UserError(f"{what} {path} is over {max_bytes // 1_000_000} MB: not a file the companion wrote")
    try:
        text = path.read_bytes().decode("utf-8")
    except OSError as exc:
        raise UserError(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise UserError(f"{what} {path} is not UTF-8 text") from None
    return parse_json(text, f"{what} {path}")


def parse_json(text: str, what: str) -> Any:
    """JSON text within the nesting and number limits; UserError naming ``what`` otherwise."""
    if json_nesting(text) > MAX_JSON_NESTING:
        raise UserError(f"{what} nests deeper than {MAX_JSON_NESTING} levels")
    try:
        return json.loads(text, parse_int=_bounded_int, parse_float=_finite_float, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise UserError(f"{what} is not JSON (line {exc.lineno})") from None
    except ValueError as exc:
        raise UserError(f"{what}: {exc}") from None


def json_nesting(text: str) -> int:
    """The deepest bracket nesting of JSON text, brackets inside strings not counted
    (0 when there are too few brackets to go over the limit)."""
    if text.count("[") + text.count("{") <= MAX_JSON_NESTING:
        return 0
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_JSON_INTEGER_DIGITS:
        raise ValueError(f"a whole number has over {MAX_JSON_INTEGER_DIGITS} digits")
    return int(text)


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:20]} is too big")
    return value


def _no_constant(name: str):
    raise ValueError(f"{name} is not a number the companion writes")
