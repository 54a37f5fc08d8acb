"""The ``runctx`` command: one dispatcher, from the console script to each subcommand.

``runctx hook FACE`` goes straight to :mod:`runctx.fastpath` before anything
else is imported: it runs before every shell command an agent issues, and its
path for a command that is not a test run must cost next to nothing. Every
other subcommand lives in its own module of :mod:`runctx.cli` with
``DESCRIPTION``, ``add_arguments(parser)`` and ``run(args) -> int``; only the chosen
one is imported. Each subcommand's one-line summary is defined once, in
:data:`SUBCOMMANDS`, and every exit status once, in :data:`EXIT_STATUSES`.

The global options (``-v``, ``--log-json``) are accepted before and after the
subcommand (``runctx status -v``). Shell completion is argcomplete's, driven by
this very parser (``runctx completion bash|zsh|fish`` prints the shell's part).

Output never ends in a traceback: a reader that went away (``runctx check
--json | head -c1``) ends the command quietly with :data:`EXIT_BROKEN_PIPE`;
an output that cannot be written (a full disk) is one line on stderr and
exit 1; every message is escaped for the terminal
(:mod:`runctx.present.output`). Under ``--json`` an error is JSON on stdout
too (:func:`error_json`), with the same exit status.
"""

from __future__ import annotations

import argparse
import os
import sys
import textwrap

from runctx.exceptions import RunctxError, UsageError
from runctx.exits import (
    EXIT_BROKEN_PIPE,
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    EXIT_REFUSED,
    EXIT_USAGE,
)
from runctx.hooks.agents import all_faces
from runctx.present.escape import json_text
from runctx.present.output import OutputClosedError, OutputError, say, write_json, write_text
from runctx.present.schema import SCHEMA_VERSION

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from types import ModuleType
    from typing import NoReturn


HOOK = "hook"
HOOK_MODULE = "runctx.fastpath.hook"
LOGSETUP_MODULE = "runctx.cli.logsetup"
"""Loaded only when events will be shown (it imports logging and structlog)."""
APART_MODULE = "runctx.cli.apart"
"""How ``status``, ``check`` and ``wait`` keep their ``--timeout`` whatever a read does."""
HOOK_SUMMARY = "answer an agent's hook payload on stdin (what installed hooks run)"

SUBCOMMANDS = {
    "status": ("runctx.cli.status", "show live test runs: this checkout's and foreign ones"),
    "check": (
        "runctx.cli.check",
        (
            "one scan; exit 0 clear, 3 another run of this checkout, 4 only foreign runs "
            "(or a scan cut by --timeout)"
        ),
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
        "add runctx's hooks to an agent's settings or to git (or --uninstall them)",
    ),
    "doctor": (
        "runctx.cli.doctor",
        "tell, per agent and scope, whether the installed hooks will run, and what stops them",
    ),
    "completion": (
        "runctx.cli.completion",
        "print the shell code that completes runctx (bash, zsh, fish)",
    ),
}
"""Subcommand -> (module holding ``add_arguments`` and ``run``, one-line summary), in help order."""

EXIT_STATUSES = (
    ("0", "done; check: clear; wait: ready"),
    ("1", "error: one line on stderr (JSON on stdout under --json)"),
    ("2", "usage error (runctx hook: a misconfigured hook run by hand on a terminal)"),
    ("3", "check: another run of this checkout is live; stop: not a run"),
    (
        "4",
        (
            "check: only foreign runs are live, or a scan cut by --timeout could not tell; "
            "stop: refused"
        ),
    ),
    ("5", "stop: a process outlived SIGKILL"),
    (
        str(EXIT_REFUSED),
        (
            "not started, or gave up waiting: run refused it or its --timeout passed; "
            "wait --timeout passed; the pytest plugin's refuse or wait timeout"
        ),
    ),
    ("126/127", "run: the command is not executable / not found"),
    ("130", "interrupted (Ctrl-C)"),
    (str(EXIT_BROKEN_PIPE), "the reader of stdout went away"),
)
"""Every exit status the command uses, as ``runctx --help`` lists them."""

HOOK_EXIT_NOTE = (
    "runctx hook exits 0 whatever happens inside an agent (it fails open, with one line on stderr)."
)
COMPLETE_ENV = "_ARGCOMPLETE"
"""Set by the shell code of ``runctx completion`` when the shell asks for completions."""


def _module(name: str) -> ModuleType:
    """Import the module ``name`` (``importlib`` would bring ``warnings`` onto the hook's path)."""
    __import__(name)
    return sys.modules[name]


def _chosen(args: Sequence[str]) -> str | None:
    """The subcommand named in ``args`` (the first word that is one, ``hook`` too), if any."""
    return next((arg for arg in args if arg in SUBCOMMANDS or arg == HOOK), None)


def _epilog() -> str:
    width = max(len(code) for code, _ in EXIT_STATUSES)
    indent = " " * (width + 4)
    lines = ["exit statuses:"]
    for code, meaning in EXIT_STATUSES:
        lines.extend(
            textwrap.wrap(
                meaning, 78, initial_indent=f"  {code.ljust(width)}  ", subsequent_indent=indent
            )
        )
    lines.extend(textwrap.wrap(HOOK_EXIT_NOTE, 78))
    return "\n".join(lines)


def version_text() -> str:
    """``runctx 0.1.0``: the installed distribution's version."""
    metadata = _module("importlib.metadata")  # email, zipfile: only for --version
    try:
        return f"runctx {metadata.version('runctx')}"
    except metadata.PackageNotFoundError:
        return "runctx (version unknown: not installed as a distribution)"


def add_global_options(parser: argparse.ArgumentParser, *, after: bool) -> None:
    """``-v`` and ``--log-json``; ``after``: the copies a subcommand accepts after its name.

    The copies after the subcommand count into their own destinations, which
    :func:`main` adds up, so ``runctx -v status -v`` is ``-vv``.
    """
    group = parser.add_argument_group("global options") if after else parser
    group.add_argument(
        "-v",
        "--verbose",
        dest="verbose_after" if after else "verbose",
        action="count",
        default=0 if not after else argparse.SUPPRESS,
        help="say why each run got its verdict on stderr (repeat for more)",
    )
    group.add_argument(
        "--log-json",
        dest="log_json_after" if after else "log_json",
        action="store_true",
        default=False if not after else argparse.SUPPRESS,
        help="write log events as JSON lines on stderr",
    )


def _parser_classes(
    *, json_errors: bool
) -> tuple[type[argparse.ArgumentParser], type[argparse.ArgumentParser]]:
    """The ``runctx`` parser's class and its subcommands'.

    Usage errors are one line (JSON under ``--json``) and exit 2.
    """

    class Parser(argparse.ArgumentParser):
        """An argument parser whose usage errors are one line and exit 2."""

        def error(self, message: str) -> NoReturn:
            report_error(f"{self.prog}: error: {message}", EXIT_USAGE, json_errors=json_errors)
            raise SystemExit(EXIT_USAGE)

    class TopParser(Parser):
        """The ``runctx`` parser: its epilog (the exit statuses) is laid out when help is."""

        def format_help(self) -> str:
            if self.epilog is None:
                self.epilog = _epilog()
            return super().format_help()

    return TopParser, Parser


def build_parser(only: str | None = None, *, json_errors: bool = False) -> argparse.ArgumentParser:
    """The argument parser; with ``only``, just that subcommand's options are built.

    ``json_errors``: a usage error is written as JSON on stdout (``--json`` was given).
    """
    top_parser, parser_class = _parser_classes(json_errors=json_errors)
    parser = top_parser(
        prog="runctx",
        description="Which test runs are live here, which are ours, which are foreign.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )

    class Version(argparse.Action):
        """``--version``: the version is looked up only when asked for (metadata is slow)."""

        def __call__(self, parser: argparse.ArgumentParser, *_args: object) -> NoReturn:
            try:
                write_text(version_text() + "\n")
            except OutputClosedError:
                parser.exit(EXIT_BROKEN_PIPE)
            parser.exit()

    parser.add_argument(
        "--version", action=Version, nargs=0, help="print runctx's version and exit"
    )
    add_global_options(parser, after=False)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=parser_class)
    for name, (module, summary) in SUBCOMMANDS.items():
        sub = subparsers.add_parser(name, help=summary)
        if only is None or name == only:
            chosen = _module(module)
            sub.description = chosen.DESCRIPTION
            chosen.add_arguments(sub)
    for sub in subparsers.choices.values():
        add_global_options(sub, after=True)
    hook = subparsers.add_parser(HOOK, help=HOOK_SUMMARY, add_help=False)
    # Never parsed (``main`` hands ``hook ...`` to the hook before any parser):
    # the faces are here for shell completion (a parser of every subcommand) and
    # for ``runctx -v hook FACE``, and only there: naming them imports every
    # agent's module.
    faces: tuple[str, ...] | None = None
    if only in (None, HOOK):
        faces = all_faces()
    hook.add_argument("face", nargs="?", choices=faces)
    return parser


def error_json(message: str, status: int) -> dict[str, object]:
    """An error as JSON: ``{"schema_version": ..., "error": {...}}``."""
    kind = "usage" if status == EXIT_USAGE else "error"
    return {
        "schema_version": SCHEMA_VERSION,
        "error": {"kind": kind, "message": message, "exit_status": status},
    }


def report_error(message: str, status: int, *, json_errors: bool) -> None:
    """Say an error: one line on stderr, or JSON on stdout under ``--json``."""
    if json_errors:
        try:
            write_json(error_json(json_text(message), status))
        except OutputError:
            pass
        else:
            return
    say(message)


def _wants_json(args: Sequence[str]) -> bool:
    """Whether ``--json`` (or ``--format json``) is among the options (before any ``--``)."""
    for index, arg in enumerate(args):
        if arg == "--":
            return False
        if arg in ("--json", "--format=json") or (arg, args[index + 1 : index + 2]) == (
            "--format",
            ["json"],
        ):
            return True
    return False


def _complete() -> None:
    """Answer the shell's completion request (argcomplete exits the process)."""
    try:
        argcomplete = _module("argcomplete")  # only when a shell asks for completions
    except ImportError:  # nothing to offer: end quietly rather than run a command
        raise SystemExit(0) from None
    argcomplete.autocomplete(build_parser())


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list[:1] == [HOOK]:
        status: int = _module(HOOK_MODULE).main(args_list[1:])
        return status

    if argv is None and COMPLETE_ENV in os.environ:
        _complete()

    json_errors = _wants_json(args_list)
    parser = build_parser(only=_chosen(args_list), json_errors=json_errors)
    args = parser.parse_args(args_list)
    args.verbose += getattr(args, "verbose_after", 0)  # what every subcommand reads
    json_lines = args.log_json or getattr(args, "log_json_after", False)
    if args.verbose > 0 or json_lines:  # else quiet: warnings only, through the stdlib default
        _module(LOGSETUP_MODULE).configure_logging(args.verbose, json_lines=json_lines)
    if args.command is None:
        say(parser.format_help().rstrip("\n"))
        return EXIT_USAGE
    if args.command == HOOK:  # after a global option (``runctx -v hook claude``)
        hooked: int = _module(HOOK_MODULE).main([] if args.face is None else [args.face])
        return hooked
    return _run_subcommand(args, json_errors=json_errors)


def _run_subcommand(args: argparse.Namespace, *, json_errors: bool) -> int:
    """The subcommand's exit status; runctx's own errors said on stderr (or as JSON).

    ``status`` (but ``--watch``), ``check``, ``wait`` and ``stop`` with
    ``--timeout``, or beside a file system that may stop answering, run in
    a child that is waited for while a look at a file system does not hold
    it, and not past ``--timeout`` (:mod:`runctx.cli.apart`); what they
    import is imported here first.
    """
    try:
        module = _module(SUBCOMMANDS[args.command][0])
        face = getattr(module, "face_module", None)  # a subcommand with faces of its own
        if face is not None:
            module = _module(face(args))
    except (UsageError, RunctxError) as error:
        return _error_status(args, error, json_errors=json_errors)
    apart = _module(APART_MODULE)
    timeout = getattr(args, "timeout", None)
    if not apart.runs_apart(args.command, watch=getattr(args, "watch", False), timeout=timeout):
        return _run_here(module, args, json_errors=json_errors)

    def gave_up(why: str) -> None:
        report_error(f"runctx: error: {why}", EXIT_ERROR, json_errors=json_errors)

    try:
        held: int = apart.bounded(
            timeout,
            lambda: _run_here(module, args, json_errors=json_errors),
            gave_up,
            least=getattr(module, "LEAST_SECONDS", 0.0),  # a subcommand's floor on --timeout
        )
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    return held


def _run_here(module: ModuleType, args: argparse.Namespace, *, json_errors: bool) -> int:
    """The exit status of the subcommand ``module`` runs, run in this process."""
    try:
        result: int = module.run(args)
    except OutputClosedError:
        _drop_stdout()
        return EXIT_BROKEN_PIPE
    except (UsageError, RunctxError) as error:
        return _error_status(args, error, json_errors=json_errors)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    return result


def _error_status(args: argparse.Namespace, error: RunctxError, *, json_errors: bool) -> int:
    """Say runctx's own error on stderr (or as JSON); the exit status it stands for."""
    if isinstance(error, UsageError):
        report_error(f"runctx {args.command}: error: {error}", EXIT_USAGE, json_errors=json_errors)
        return EXIT_USAGE
    report_error(f"runctx: error: {error}", EXIT_ERROR, json_errors=json_errors)
    return EXIT_ERROR


def _drop_stdout() -> None:
    """Point stdout at ``/dev/null``, so that the exit's flush has nowhere to fail."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.close(devnull)
    except OSError:
        pass
