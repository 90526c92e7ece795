"""Writing the files a person names without ever losing one.

Every write goes to a temporary file in the target's directory, which is then renamed over
the target in one step (``os.replace``): a crash or a full disk leaves the old file or the
new one, never half of either.  :func:`check_output_path` refuses an output that is one of
the command's inputs (or the session database), a directory or a device, and an existing
file unless the person asked to replace it; :func:`write_new_file` never replaces anything.
"""
from __future__ import annotations

import os
import secrets
import stat
from collections.abc import Mapping
from pathlib import Path

from companion.errors import UserError


def same_file(a: str | os.PathLike, b: str | os.PathLike) -> bool:
    """True when ``a`` and ``b`` name one file (through links too), or would once created."""
    a, b = Path(a), Path(b)
    try:
        if a.exists() and b.exists():
            return os.path.samefile(a, b)
        return a.resolve() == b.resolve()
    except (OSError, RuntimeError):  # an unreadable path or a symlink loop is nothing we write onto anyway
        return False


def check_output_path(path: str | os.PathLike, inputs: Mapping[str | os.PathLike, str] | None = None,
                      force: bool = False) -> Path:
    """``path`` if a command may write it; else UserError.

    ``inputs`` maps each file the command reads to what it is ("the session database"):
    those are never written onto, not even with ``force``.  An existing regular file is
    replaced only with ``force``; a directory or any other kind of file never.
    """
    path = Path(path)
    for source, what in (inputs or {}).items():
        if same_file(path, source):
            raise UserError(f"will not write over {path}: it is {what}")
    if path.is_dir():
        raise UserError(f"{path} is a directory: name a file to write")
    if path.exists() and not stat.S_ISREG(path.stat().st_mode):
        raise UserError(f"will not write over {path}: it is not a regular file")
    if (path.exists() or path.is_symlink()) and not force:
        raise UserError(f"{path} already exists: give --force to replace it")
    return path


def _temporary_beside(path: Path) -> tuple[Path, int]:
    """A new, empty temporary file in ``path``'s directory, and an open descriptor on it."""
    while True:
        temporary = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
        try:
            return temporary, os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            continue


def write_atomically(path: str | os.PathLike, data: bytes | str) -> Path:
    """Write ``data`` (text as UTF-8) to ``path`` through a temporary file renamed over it."""
    path = Path(path)
    if isinstance(data, str):
        data = data.encode("utf-8")
    temporary = None
    try:
        temporary, handle = _temporary_beside(path)
        with open(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except OSError as exc:
        if temporary is not None:
            temporary.unlink(missing_ok=True)
        raise UserError(f"cannot write {path}: {exc.strerror or exc}") from None
    return path


def write_new_file(directory: str | os.PathLike, stem: str, suffix: str, data: bytes | str) -> Path:
    """Write ``data`` to a file in ``directory`` that did not exist before, and return its path.

    The name is ``stem + suffix``, or ``stem-2 + suffix``, ``stem-3 + suffix``, ... when that is
    taken: the name is claimed before anything is written, so no existing file is ever replaced.
    """
    directory = Path(directory)
    number = 0
    while True:
        number += 1
        candidate = directory / (f"{stem}{suffix}" if number == 1 else f"{stem}-{number}{suffix}")
        try:
            os.close(os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
        except FileExistsError:
            continue
        except OSError as exc:
            raise UserError(f"cannot write {candidate}: {exc.strerror or exc}") from None
        try:
            return write_atomically(candidate, data)
        except UserError:
            candidate.unlink(missing_ok=True)
            raise
