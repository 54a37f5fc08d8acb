"""``runctx hook AGENT``: what an agent runs before (or after) every shell command.

Usage: ``runctx hook FACE`` with the agent's JSON payload on stdin, where FACE
is one of :data:`FACES` (``claude``, ``claude-session-start``, ``codex``,
``codex-session-start``, ``gemini``, ``gemini-after``,
``gemini-session-start``, ``cursor``, ``copilot``, ``copilot-session-start``).

The path for a command that is not a test run decides from the command string
alone: it reads the payload, asks :mod:`runctx.prefilter`, prints nothing and
exits 0. It imports only ``json``, ``select``, :mod:`runctx.prefilter` and
:mod:`runctx.runners`; the shell parser (:mod:`runctx.shellcmd`) only when the
command names a runner at all, the checkout's ``pyproject.toml`` is parsed only
when it holds a ``[tool.runctx]`` table, and the scan and everything behind it
load only for a test run.

Fail open, always: whatever goes wrong inside runctx (input that is not JSON
or has the wrong shape, more than :data:`~runctx.hooks.payload.MAX_INPUT_BYTES`
of it, a malformed ``[tool.runctx]``, an internal error, no decision within
the deadline), the hook exits 0 with nothing on stdout, which every supported
agent reads as "no objection", and writes one line to stderr:
``runctx: hook failed open: WHAT``. The deadline is :data:`DEFAULT_DEADLINE_SECONDS`
from the hook's start, or ``$RUNCTX_HOOK_DEADLINE`` seconds; it bounds the
reading of stdin and the scan.
"""

from __future__ import annotations

import os
import sys
import time

from runctx.config import MAX_PYPROJECT_BYTES, mentions_runctx_table
from runctx.hooks.payload import PayloadError, json_object, read_input
from runctx.prefilter import is_probably_test_command
from runctx.runners import BUILTIN_PATTERNS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from types import FrameType, ModuleType
    from typing import TypeVar

    from runctx.runners import RunnerPattern
    from runctx.shellcmd import TestInvocation

    T = TypeVar("T")

PRE_TOOL = "pre-tool"
AFTER_TOOL = "after-tool"
SESSION = "session"

FACES = {
    "claude": ("runctx.hooks.claude", PRE_TOOL),
    "claude-session-start": ("runctx.hooks.claude", SESSION),
    "codex": ("runctx.hooks.codex", PRE_TOOL),
    "codex-session-start": ("runctx.hooks.codex", SESSION),
    "gemini": ("runctx.hooks.gemini", PRE_TOOL),
    "gemini-after": ("runctx.hooks.gemini", AFTER_TOOL),
    "gemini-session-start": ("runctx.hooks.gemini", SESSION),
    "cursor": ("runctx.hooks.cursor", PRE_TOOL),
    "copilot": ("runctx.hooks.copilot", PRE_TOOL),
    "copilot-session-start": ("runctx.hooks.copilot", SESSION),
}
"""Hook face -> (adapter module, kind of event)."""

DEADLINE_ENV = "RUNCTX_HOOK_DEADLINE"
DEFAULT_DEADLINE_SECONDS = 5.0
"""Well under the 10 s timeout the ready-made configurations give the hook."""

USAGE = (
    "usage: runctx hook FACE < payload.json\n"
    "FACE: " + ", ".join(FACES) + "\n"
    "Reads an agent's hook payload on stdin and answers in that agent's protocol.\n"
)


class HookError(Exception):
    """Something stopped the hook from deciding; it fails open and says this."""


class _DeadlineError(HookError):
    """No decision within the deadline."""


def main(argv: Sequence[str]) -> int:
    """Run one hook; always exit 0 (see the module docstring)."""
    began = time.monotonic()
    try:
        reply = _answer(list(argv), began)
    except BaseException as error:  # noqa: BLE001 - failing open is the contract
        _fail_open(error)
        return 0
    if reply:
        try:
            sys.stdout.write(reply + "\n")
            sys.stdout.flush()
        except OSError as error:
            _fail_open(error)
    return 0


def _fail_open(error: BaseException) -> None:
    what = str(error) or type(error).__name__
    if not isinstance(error, (HookError, PayloadError)):
        what = f"{type(error).__name__}: {what}"
    line = " ".join(what.split())[:500]
    try:
        sys.stderr.write(f"runctx: hook failed open: {line}\n")
        sys.stderr.flush()
    except OSError:
        pass


def _deadline_seconds() -> float:
    text = os.environ.get(DEADLINE_ENV, "")
    if not text:
        return DEFAULT_DEADLINE_SECONDS
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not 0 < seconds < float("inf"):
        msg = f"${DEADLINE_ENV} must be a positive number of seconds, got {text!r}"
        raise HookError(msg)
    return seconds


def _answer(argv: list[str], began: float) -> str | None:
    """The hook's stdout (None for none); raises on anything that must fail open."""
    if argv in (["-h"], ["--help"]):
        sys.stdout.write(USAGE)
        return None
    if len(argv) != 1 or argv[0] not in FACES:
        given = " ".join(argv) or "nothing"
        msg = f"unknown hook {given!r}; known: {', '.join(FACES)}"
        raise HookError(msg)
    module_name, kind = FACES[argv[0]]
    deadline = began + _deadline_seconds()
    payload = _payload(read_input(deadline))
    __import__(module_name)
    adapter = sys.modules[module_name]
    if kind == SESSION:
        return _session(adapter, payload, deadline)
    found = (adapter.pre_tool_input if kind == PRE_TOOL else adapter.after_tool_input)(payload)
    if found is None:
        return None
    invocations = _test_runs(*found)
    if not invocations:
        return None
    from runctx.hooks import policy  # noqa: PLC0415 - a test run only: the scan's imports

    if kind == PRE_TOOL:
        decision = _within(deadline, lambda: policy.decide(invocations))
        reply: str | None = adapter.pre_tool_reply(decision)
        return reply
    context = _within(deadline, lambda: policy.after_context(invocations))
    return adapter.after_tool_reply(context) if context else None


def _test_runs(command: str, cwd: str) -> tuple[TestInvocation, ...]:
    """The test runs ``command`` starts in ``cwd``; the shell parser only if one may."""
    patterns = _patterns(cwd)
    if not is_probably_test_command(command, patterns):
        return ()
    from runctx.shellcmd import test_invocations  # noqa: PLC0415 - a runner is named

    return test_invocations(command, cwd, patterns)


def _session(adapter: ModuleType, payload: dict[str, object], deadline: float) -> str | None:
    cwd = adapter.session_input(payload)
    from runctx.hooks import policy  # noqa: PLC0415 - the scan's imports

    context = _within(deadline, lambda: policy.session_context(cwd))
    return adapter.session_reply(context) if context else None


def _payload(raw: bytes) -> dict[str, object]:
    if not raw.strip():
        msg = "no input on stdin"
        raise PayloadError(msg)
    return json_object(raw, "input")


def _within(deadline: float, work: Callable[[], T]) -> T:
    """``work()``, or :class:`_DeadlineError` once ``deadline`` passes."""
    import signal  # noqa: PLC0415 - a test run only

    remaining = deadline - time.monotonic()
    if remaining <= 0:
        msg = "no decision within the deadline"
        raise _DeadlineError(msg)

    def expire(_signum: int, _frame: FrameType | None) -> None:
        msg = f"no decision within the deadline ({remaining:.3g}s were left)"
        raise _DeadlineError(msg)

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, remaining)
    try:
        return work()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _patterns(cwd: str) -> Sequence[RunnerPattern]:
    """The runner table for a command in ``cwd``: the builtin one, plus the checkout's.

    The checkout's ``pyproject.toml`` is parsed only when some ``pyproject.toml``
    from ``cwd`` up to the top of its working tree mentions ``tool.runctx``, so
    that a checkout without runctx settings pays a few ``stat`` calls.
    """
    directory = os.path.realpath(cwd)
    while True:
        if _mentions_runctx(os.path.join(directory, "pyproject.toml")):
            return _configured_patterns(cwd)
        if os.path.lexists(os.path.join(directory, ".git")):
            return BUILTIN_PATTERNS
        parent = os.path.dirname(directory)
        if parent == directory:
            return BUILTIN_PATTERNS
        directory = parent


def _mentions_runctx(path: str) -> bool:
    try:
        with open(path, "rb") as stream:
            return mentions_runctx_table(stream.read(MAX_PYPROJECT_BYTES))
    except OSError:
        return False


def _configured_patterns(cwd: str) -> tuple[RunnerPattern, ...]:
    """The builtin table plus ``[tool.runctx] runners`` of the checkout of ``cwd``."""
    from runctx.checkout import checkout_root  # noqa: PLC0415 - configured checkouts only
    from runctx.runners import load_runner_config  # noqa: PLC0415

    root = checkout_root(cwd)
    if not isinstance(root, str):
        return BUILTIN_PATTERNS
    extra = load_runner_config(os.path.join(root, "pyproject.toml"))
    return (*extra, *BUILTIN_PATTERNS)
