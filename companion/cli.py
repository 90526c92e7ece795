"""The ``companion`` command: a thin dispatcher over ``companion.commands``.

Every module in ``companion/commands/`` defines ``register(subparsers)``, which adds
one sub-command whose parser has ``func`` set to ``run(args) -> int``.  Whatever goes
wrong reaches the person as one line on stderr and exit status 2: errors they caused
(:class:`CompanionError`, bad arguments) and, as a last resort, anything else; the
traceback is printed only with ``--debug``.
"""
from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
import traceback

from companion import __version__, commands
from companion.errors import CompanionError, UserError

EXIT_ERROR = 2
"""Exit status of every refused or failed command."""


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


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (argparse prints the usage too)."""

    def error(self, message: str):
        self.exit(EXIT_ERROR, f"{self.prog}: {one_line(message)} (see {self.prog} --help)\n")


def one_line(text: str) -> str:
    """``text`` with its whitespace, newlines included, folded to single spaces."""
    return " ".join(str(text).split())


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="companion", description="Dice Companion: reads dice, knows the rules, keeps the score.")
    parser.add_argument("--version", action="version", version=f"companion {__version__}")
    parser.add_argument("--debug", action="store_true", help="print the traceback of an unexpected error")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"companion.commands.{info.name}")
        module.register(sub)
    for command_parser in sub.choices.values():    # --debug also after the command's name
        command_parser.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                                    help="print the traceback of an unexpected error")
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
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except RecursionError:
        print("companion: the input is nested too deeply to read", file=sys.stderr)
    except MemoryError:
        print("companion: out of memory (the input is too large for this machine)", file=sys.stderr)
    except Exception as exc:  # noqa: BLE001 - the last resort: one line, never a traceback
        if args.debug:
            traceback.print_exc()
        detail = one_line(exc) or "no details"
        hint = "" if args.debug else "; run with --debug for the traceback"
        print(f"companion: unexpected error ({type(exc).__name__}: {detail}){hint}", file=sys.stderr)
    return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
