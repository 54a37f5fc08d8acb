"""Entry point of the ``runctx`` command: parse, dispatch, map errors to exit codes.

Each subcommand lives in its own module with ``add_parser(subparsers)`` and
``run(args) -> int``. The hook subcommand is dispatched before any parser is
built: it runs before every shell command an agent issues, and its path for a
command that is not a test run must cost next to nothing.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from types import ModuleType
    from typing import NoReturn

EXIT_USAGE = 2
EXIT_ERROR = 1
EXIT_INTERRUPTED = 130

SUBCOMMANDS = {
    "status": "runctx.cli.status",
    "check": "runctx.cli.check",
    "wait": "runctx.cli.wait",
    "stop": "runctx.cli.stop",
    "run": "runctx.cli.run",
    "install": "runctx.cli.install",
}
"""Subcommand name -> module holding ``add_parser`` and ``run``, in help order.

Only the chosen subcommand's module is imported: the others appear in the
help by name alone, so ``runctx status`` does not pay for ``runctx install``.
"""

SUMMARIES = {
    "status": "show live test runs: this checkout's and foreign ones",
    "check": "one scan, an exit status a script can branch on",
    "wait": "wait until no other run of this checkout is live",
    "stop": "stop a run of this checkout (never one not known to be ours)",
    "run": "check, then run a test command (wait, refuse or warn per policy)",
    "install": "install the runctx hook into an agent's settings",
}
"""One line of help per subcommand, shown without importing its module."""

FAST_SUBCOMMANDS = {
    "hook": "runctx.hooks.cli",
}
"""Subcommands whose module parses its own arguments (``main(argv) -> int``)."""


def _module(name: str) -> ModuleType:
    """Import the module ``name`` (``importlib`` would bring ``warnings`` onto the hook's path)."""
    __import__(name)
    return sys.modules[name]


def _chosen(args: Sequence[str]) -> str | None:
    """The subcommand named in ``args`` (the first word that is one), if any."""
    return next((arg for arg in args if arg in SUBCOMMANDS), None)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser; with ``only``, just that subcommand's options are built."""
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
    for name, module in SUBCOMMANDS.items():
        if only is None or name == only:
            _module(module).add_parser(subparsers)
        else:
            subparsers.add_parser(name, help=SUMMARIES.get(name))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list and args_list[0] in FAST_SUBCOMMANDS:
        fast_main = _module(FAST_SUBCOMMANDS[args_list[0]]).main
        status: int = fast_main(args_list[1:])
        return status

    from runctx.cli.logsetup import configure_logging  # noqa: PLC0415
    from runctx.exceptions import RunctxError  # noqa: PLC0415

    parser = build_parser(only=_chosen(args_list))
    args = parser.parse_args(args_list)
    configure_logging(args.verbose, json_lines=args.log_json)
    if args.command is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        result: int = _module(SUBCOMMANDS[args.command]).run(args)
    except RunctxError as error:
        sys.stderr.write(f"runctx: error: {error}\n")
        return EXIT_ERROR
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    return result
