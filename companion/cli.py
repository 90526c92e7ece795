"""The ``companion`` command: a thin dispatcher over ``companion.commands``.

Every module in ``companion/commands/`` defines ``register(subparsers)``, which adds
one sub-command whose parser has ``func`` set to ``run(args) -> int``.  Errors that a
person caused are printed to stderr as one line and give a non-zero exit status.
"""
from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

from companion import __version__, commands
from companion.errors import CompanionError, UserError


def parse_options(text: str | None) -> dict[str, str]:
    """Parse ``"k=v,k2=v2"`` from ``--options``; the game checks names and values."""
    options: dict[str, str] = {}
    for item in (text or "").split(","):
        if not item.strip():
            continue
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise UserError(f"option {item.strip()!r}: write name=value")
        options[key.strip()] = value.strip()
    return options


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="companion", description="Dice Companion: reads dice, knows the rules, keeps the score.")
    parser.add_argument("--version", action="version", version=f"companion {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"companion.commands.{info.name}")
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        return int(args.func(args) or 0)
    except CompanionError as exc:
        print(f"companion: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
