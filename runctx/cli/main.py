"""Entry point of the ``runctx`` command: parse, dispatch, map errors to exit codes.

Each subcommand lives in its own module with ``add_parser(subparsers)`` and
``run(args) -> int``. The hook subcommand is dispatched before any parser is
built: it runs before every shell command an agent issues, and its path for a
command that is not a test run must cost next to nothing.
"""

from __future__ import annotations

import importlib
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from typing import NoReturn

EXIT_USAGE = 2
EXIT_ERROR = 1
EXIT_INTERRUPTED = 130

SUBCOMMANDS = {
    "status": "runctx.cli.status",
}
"""Subcommand name -> module holding ``add_parser`` and ``run``, in help order."""

FAST_SUBCOMMANDS = {

}
"""Subcommands whose module parses its own arguments (``main(argv) -> int``)."""


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand in :data:`SUBCOMMANDS`."""
    import argparse  # noqa: PLC0415 - see the module docstring

    class Parser(argparse.ArgumentParser):
        """An argument parser whose usage errors are one line and exit 2."""

        def error(self, message: str) -> NoReturn:
            sys.stderr.write(f"{self.prog}: error: {message}\n")
            raise SystemExit(EXIT_USAGE)

    parser = Parser(
        prog="runctx",
        description="Which test runs are live here, which are ours, which are foreign.",
    )
    parser.add_argument(
        "-v", "--verbose", action="count", default=0, help="say why (repeat for more)"
    )
    parser.add_argument("--log-json", action="store_true", help="write log events as JSON")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for module in SUBCOMMANDS.values():
        importlib.import_module(module).add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list and args_list[0] in FAST_SUBCOMMANDS:
        fast_main = importlib.import_module(FAST_SUBCOMMANDS[args_list[0]]).main
        status: int = fast_main(args_list[1:])
        return status

    from runctx.cli.logsetup import configure_logging  # noqa: PLC0415
    from runctx.exceptions import RunctxError  # noqa: PLC0415

    parser = build_parser()
    args = parser.parse_args(args_list)
    configure_logging(args.verbose, json_lines=args.log_json)
    if args.command is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        result: int = importlib.import_module(SUBCOMMANDS[args.command]).run(args)
    except RunctxError as error:
        sys.stderr.write(f"runctx: error: {error}\n")
        return EXIT_ERROR
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    return result
