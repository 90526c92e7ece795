"""A small TOML writer for calibration profiles (``tomllib`` reads them back).

It writes what profiles hold: strings, booleans, integers, floats, arrays of those or of
arrays, tables and arrays of tables.  Floats are written with ``repr`` so that every value
reads back bit for bit.
"""
from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def _key(name: str) -> str:
    return name if _BARE_KEY.match(name) else json.dumps(name, ensure_ascii=False)


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {type(value).__name__} to TOML")


def _is_table(value: Any) -> bool:
    return isinstance(value, Mapping)


def _is_table_array(value: Any) -> bool:
    return isinstance(value, (list, tuple)) and bool(value) and all(isinstance(v, Mapping) for v in value)


def _write_table(lines: list[str], table: Mapping[str, Any], path: tuple[str, ...]) -> None:
    for name, value in table.items():
        if value is None or _is_table(value) or _is_table_array(value):
            continue
        lines.append(f"{_key(name)} = {_value(value)}")
    for name, value in table.items():
        if _is_table(value):
            lines.append("")
            lines.append("[" + ".".join(_key(p) for p in (*path, name)) + "]")
            _write_table(lines, value, (*path, name))
        elif _is_table_array(value):
            for item in value:
                lines.append("")
                lines.append("[[" + ".".join(_key(p) for p in (*path, name)) + "]]")
                _write_table(lines, item, (*path, name))


def dumps(document: Mapping[str, Any], header: str = "") -> str:
    """``document`` as TOML text; keys whose value is None are left out; ``header`` becomes comments."""
    lines = [f"# {line}".rstrip() for line in header.splitlines()]
    _write_table(lines, document, ())
    return "\n".join(lines).lstrip("\n") + "\n"
