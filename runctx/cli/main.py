"""The ``runctx`` command: one dispatcher, from the console script to each subcommand.

``runctx hook FACE`` goes straight to :mod:`runctx.hooks.main` before anything
else is imported: it runs before every shell command an agent issues, and its
path for a command that is not a test run must cost next to nothing. Every
other subcommand lives in its own module of :mod:`runctx.cli` with
``add_parser(subparsers, summary)`` and ``run(args) -> int``; only the chosen
one is imported. Each subcommand's one-line summary is defined once, in
:data:`SUBCOMMANDS`.

Output never ends in a traceback: a reader that went away (``runctx check
--json | head -c1``) ends the command quietly with :data:`EXIT_BROKEN_PIPE`;
an output that cannot be written (a full disk) is one line on stderr and
exit 1; every message is escaped for the terminal
(:mod:`runctx.present.output`).
"""

from __future__ import annotations

import sys

from runctx.exits import EXIT_BROKEN_PIPE, EXIT_ERROR, EXIT_INTERRUPTED, EXIT_USAGE

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from types import ModuleType
    from typing import NoReturn


HOOK = "hook"
HOOK_MODULE = "runctx.hooks.main"
HOOK_SUMMARY = "answer an agent's hook payload on stdin (what installed hooks run)"

SUBCOMMANDS = {
    "status": ("runctx.cli.status", "show live test runs: this checkout's and foreign ones"),
    "check": (
        "runctx.cli.check",
        "one scan; exit 0 clear, 3 another run of this checkout, 4 only foreign runs",
    ),
    "wait": ("runctx.cli.wait", "block until no other test run of this checkout is live"),
    "stop": (
        "runctx.cli.stop",
        "stop runs of this checkout (only runs known to be ours; TERM, then KILL)",
    ),
    "run": (
        "runctx.cli.run",
        "run a command once no other test run of this checkout is in the way",
    ),
    "install": (
        "runctx.cli.install",
        "merge runctx's hooks into an agent's settings file (or --uninstall them)",
    ),
}
"""Subcommand -> (module holding ``add_parser`` and ``run``, one-line summary), in help order."""


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
            from runctx.present.output import say  # noqa: PLC0415

            say(f"{self.prog}: error: {message}")
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
    for name, (module, summary) in SUBCOMMANDS.items():
        if only is None or name == only:
            _module(module).add_parser(subparsers, summary)
        else:
            subparsers.add_parser(name, help=summary)
    subparsers.add_parser(HOOK, help=HOOK_SUMMARY, add_help=False)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list[:1] == [HOOK]:
        status: int = _module(HOOK_MODULE).main(args_list[1:])
        return status

    from runctx.cli.logsetup import configure_logging  # noqa: PLC0415
    from runctx.exceptions import RunctxError  # noqa: PLC0415
    from runctx.present.output import OutputClosedError, say  # noqa: PLC0415

    parser = build_parser(only=_chosen(args_list))
    args = parser.parse_args(args_list)
    configure_logging(args.verbose, json_lines=args.log_json)
    if args.command is None:
        say(parser.format_help().rstrip("\n"))
        return EXIT_USAGE
    try:
        result: int = _module(SUBCOMMANDS[args.command][0]).run(args)
    except OutputClosedError:
        _drop_stdout()
        return EXIT_BROKEN_PIPE
    except RunctxError as error:
        say(f"runctx: error: {error}")
        return EXIT_ERROR
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    return result


def _drop_stdout() -> None:
    """Point stdout at ``/dev/null``, so that the exit's flush has nowhere to fail."""
    import os  # noqa: PLC0415

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.close(devnull)
    except OSError:
        pass
