"""``runctx hook FACE``: what an agent runs before (or after) every shell command.

Usage: ``runctx hook FACE`` with the agent's JSON payload on stdin, where FACE
is an agent's name (``claude``, ``codex``, ``gemini``, ``cursor``,
``copilot``), optionally with the suffix of another hook of that agent
(``claude-session-start``, ``gemini-after``): see :mod:`runctx.hooks.agents`.

Run by hand on a terminal (stdin is a terminal, so no agent is sending a
payload), a hook that cannot work says so and exits 2 (:data:`EXIT_BY_HAND`):
a mistyped face (``runctx hook claud``) is seen the moment someone tries it,
instead of protecting nothing in silence. Inside an agent the same mistake
fails open like everything else, with one line on stderr that names it.

The path for a command that is not a test run decides from the command string
alone: it reads the payload, asks :mod:`runctx.shell.prefilter`, prints
nothing and exits 0. It imports the agent's module, :mod:`runctx.checkout`,
:mod:`runctx.settings` and the prefilter, and no module of the standard
library that the interpreter has not loaded at startup: not ``json`` (the
payload goes through ``json``'s C scanner, :func:`~runctx.hooks.payload.loads`),
not ``re``, ``enum``, ``select`` or ``signal``. The shell parser
(:mod:`runctx.shell.commands`) loads only when the command names a runner, a
tool that changes an environment (``pip``, ``uv``, ``npm``...) or a task
runner whose task may run one (``make``, ``just``...); the checkout's
``pyproject.toml`` is parsed only when it holds a ``[tool.runctx]`` table; the
scan and everything behind it load only for a test run.

Fail open, always: whatever goes wrong inside runctx (input that is not JSON
or has the wrong shape, more than :data:`~runctx.hooks.payload.MAX_INPUT_BYTES`
of it, a malformed ``[tool.runctx]``, an internal error, no decision within
the deadline), the hook exits 0 with nothing on stdout, which every supported
agent reads as "no objection", and writes one line to stderr:
``runctx: hook failed open: WHAT``. The deadline is :data:`DEFAULT_DEADLINE_SECONDS`
from the hook's start, or ``$RUNCTX_HOOK_DEADLINE`` seconds; it bounds
everything the hook does: reading stdin, finding the checkout (the walk up
from ``cwd``), reading its settings, the scan. The exit status is 0 even when
stdout is closed or its reader is gone: the reply is written straight to the
descriptor, and a failure to write it is one line on stderr.
"""

from __future__ import annotations

import os
import time

from runctx.checkout import checkout_root
from runctx.hooks.agents import AGENT_NAMES, all_faces, face_of
from runctx.hooks.agents.base import AFTER_TOOL, SESSION, context_reply
from runctx.hooks.agents.hosts import answering
from runctx.hooks.payload import PayloadError, json_object, read_input
from runctx.settings import settings_for
from runctx.shell.prefilter import (
    may_change_environment,
    names_a_script,
    names_found,
    names_task_runner,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from types import FrameType
    from typing import TypeVar

    from runctx.checkout import Root
    from runctx.hooks.agents.base import Agent, JSONObject
    from runctx.settings import Settings
    from runctx.shell.commands import TestInvocation
    from runctx.unknown import Unknown

    T = TypeVar("T")

DEADLINE_ENV = "RUNCTX_HOOK_DEADLINE"
DEFAULT_DEADLINE_SECONDS = 10.0
"""The hook's own bound, from its start (after the interpreter's).

Chosen from what a saturated box needs: at a load of 10 on 2 CPUs a process
gets about a fifth of a CPU, so the ~0.2 s of CPU a decision costs there
takes about 1 s of wall time; 10 s leaves a tenfold margin before failing
open. The timeout ``runctx install`` writes into each agent's settings
(:data:`runctx.hooks.agents.claude.HOOK_TIMEOUT_SECONDS`, 20 s) leaves as
much again for the interpreter to start and the reply to be read, so the
agent never kills a hook that is still deciding."""
OPTIONAL_RESERVE_SECONDS = 1.0
"""What the optional second pass leaves of the deadline: it ends (and is dropped)
this long before it, so that the first pass's answer is always given in time."""
OPTIONAL_SHARE = 0.1
"""The optional second pass ends this share of the deadline after the hook's start
(1 s of the default 10 s), or at the reserve, whichever comes first.

On a quiet box it takes a few tens of milliseconds; on a saturated one it
would take seconds that an agent waits for on every test command, for words
(CPU use now, who started what) that the refusal does not need. So it is
given a small, fixed share and dropped past it: the hook answers in about
the interpreter's start plus that share, however busy the box is."""

USAGE = (
    "usage: runctx hook FACE < payload.json\n"
    "FACE: an agent (" + ", ".join(AGENT_NAMES) + "), or one of its other hooks\n"
    "Reads an agent's hook payload on stdin and answers in that agent's protocol.\n"
    "Exit status: 0 in an agent, whatever happens (it fails open, with one line on stderr);\n"
    "2 when run by hand on a terminal with a face that does not exist or no payload.\n"
)
EXIT_BY_HAND = 2
"""A hook run by hand on a terminal that cannot work (a usage error): exit 2, not 0."""


class HookError(Exception):
    """Something stopped the hook from deciding; it fails open and says this."""


class _DeadlineError(HookError):
    """No decision within the deadline."""


def main(argv: Sequence[str]) -> int:
    """Run one hook; exit 0, or 2 when a person ran it on a terminal (module docstring)."""
    began = time.monotonic()
    if list(argv) not in (["-h"], ["--help"]) and _on_a_terminal():
        return _by_hand(list(argv))
    try:
        reply = _answer(list(argv), began)
    except BaseException as error:  # noqa: BLE001 - failing open is the contract
        _fail_open(error)
        _tell_the_agent(list(argv), error)
        return 0
    if reply:
        try:
            _emit(1, reply + "\n")
        except (OSError, ValueError) as error:
            _fail_open(HookError(f"cannot write the reply to stdout: {_why(error)}"))
    return 0


def _on_a_terminal() -> bool:
    """Whether stdin is a terminal: a person typed the command, no agent is piping a payload."""
    try:
        return os.isatty(0)
    except OSError:
        return False


def _by_hand(argv: list[str]) -> int:
    """What a person who runs ``runctx hook ...`` on a terminal is told; exit 2."""
    found = face_of(argv[0]) if len(argv) == 1 else None
    if found is None:
        problem = _unknown_face(argv)
    else:
        problem = (
            f"runctx hook {argv[0]} reads the JSON payload an agent sends on stdin, and "
            "stdin is a terminal. Pipe a payload in to try it (see docs/hooks.md)"
        )
    from runctx.present.escape import visible  # noqa: PLC0415 - only when something is said

    try:  # noqa: SIM105 - contextlib is not loaded on the hook's path
        _emit(2, f"runctx hook: error: {visible(problem)}\n{USAGE}")
    except (OSError, ValueError):
        pass
    return EXIT_BY_HAND


def _unknown_face(argv: list[str]) -> str:
    given = " ".join(argv) or "nothing"
    return (
        f"unknown hook {given!r}: this hook is misconfigured and checks nothing "
        f"(known: {', '.join(all_faces())})"
    )


def _why(error: BaseException) -> str:
    return (error.strerror if isinstance(error, OSError) else None) or str(error)


def _emit(fd: int, text: str) -> None:
    """Write ``text`` (ASCII: a reply is) straight to ``fd``, past Python's buffers.

    Nothing is left in a buffer for the interpreter to fail on at exit, which
    would change the exit status.
    """
    data = text.encode("ascii", "backslashreplace")
    while data:
        written = os.write(fd, data)
        data = data[written:]


def _fail_open(error: BaseException) -> None:
    what = str(error) or type(error).__name__
    if not isinstance(error, (HookError, PayloadError)):
        what = f"{type(error).__name__}: {what}"
    from runctx.present.escape import visible  # noqa: PLC0415 - only when something is said

    line = visible(" ".join(what.split())[:500])
    try:  # noqa: SIM105 - contextlib is not loaded on the hook's path
        _emit(2, f"runctx: hook failed open: {line}\n")
    except (OSError, ValueError):
        pass


def failed_open_words(error: BaseException) -> str:
    """The one line an agent reads when the hook failed open: what, why, and the risk."""
    what = str(error) or type(error).__name__
    if not isinstance(error, (HookError, PayloadError)):
        what = f"{type(error).__name__}: {what}"
    from runctx.present.escape import visible  # noqa: PLC0415 - only when something is said

    why = visible(" ".join(what.split())[:300])
    return (
        f"runctx could not check for other test runs ({why}); this command was let "
        "through unchecked, so a second run of this checkout may collide with one already live."
    )


def _tell_the_agent(argv: list[str], error: BaseException) -> None:
    """After failing open, say so in the reply the agent reads, not only on stderr.

    A note in the agent's own protocol (it lets the command run), for the
    face ``argv`` names; nothing when no face is named (there is no protocol
    to answer in) or when writing fails (stderr said it already).
    """
    found = face_of(argv[0]) if len(argv) == 1 else None
    if found is None:
        return
    agent, kind = found
    words = failed_open_words(error)
    try:
        if kind == SESSION and agent.SESSION_FACE is not None:
            text = context_reply(agent.SESSION_FACE, words)
        elif kind == AFTER_TOOL and agent.AFTER_TOOL_FACE is not None:
            text = context_reply(agent.AFTER_TOOL_FACE, words)
        else:
            from runctx.present.escape import hook_json  # noqa: PLC0415 - only on failure

            text = hook_json(agent.PRE_TOOL_FACE.replies.failed_open(words, words))
        _emit(1, text + "\n")
    except Exception:  # noqa: BLE001, S110 - stderr has said it; the agent runs the command
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
        return USAGE.rstrip("\n")
    found = face_of(argv[0]) if len(argv) == 1 else None
    if found is None:
        raise HookError(_unknown_face(argv))
    agent, kind = found
    seconds = _deadline_seconds()
    deadline = began + seconds
    _DEADLINE[:] = [deadline]
    _OPTIONAL_END[:] = [began + seconds * OPTIONAL_SHARE]
    return _within(deadline, lambda: _reply(agent, kind, _payload(_read_stdin())))


_DEADLINE: list[float] = []
"""The hook's deadline (monotonic seconds), once :func:`_answer` set it."""
_OPTIONAL_END: list[float] = []
"""When the optional pass must have ended (monotonic seconds), once :func:`_answer` set it."""


class _OptionalDropped(BaseException):
    """The optional pass ran out of its time: dropped (a BaseException: nothing swallows it)."""


def _read_stdin() -> bytes:
    """The payload's bytes; under the deadline's timer, which cuts a writer that never ends."""
    try:
        return read_input()
    except _DeadlineError:
        msg = "the input did not end before the deadline"
        raise PayloadError(msg) from None


def _reply(agent: Agent, kind: str, payload: JSONObject) -> str | None:
    """The reply of ``agent``'s hook of ``kind`` to ``payload``; runs under the deadline.

    A command the pre-filter finds no test run and no change of an environment
    in is answered here, with nothing; the rest by :mod:`runctx.hooks.answer`.
    """
    if kind == SESSION:
        return _session(agent, payload)
    if kind == AFTER_TOOL:
        return _after_tool(agent, payload)
    hosted = answering(agent, payload, os.environ)  # another agent running Claude Code's hook
    if hosted is None:  # that agent's own runctx hook answers it: said once
        return None
    agent = hosted
    read = agent.PRE_TOOL_FACE.read(payload)
    if read is None:
        return None
    command, cwd = read
    root, settings, invocations = _runs_of(command, cwd)
    changes = _environment_changes(command, cwd)
    if not invocations and not changes:
        return None
    from runctx.hooks import answer  # noqa: PLC0415 - behind the pre-filter: the scan's imports

    return answer.pre_tool(
        agent, payload, cwd, root, settings, invocations, changes, _optional, checkout_settings
    )


def _optional(work: Callable[[], T]) -> T | None:
    """``work()`` in the time the deadline leaves after its reserve; None when it is dropped.

    Optional work is never waited for: an interval timer cuts it at its share
    of the deadline (:data:`OPTIONAL_SHARE`) or :data:`OPTIONAL_RESERVE_SECONDS`
    before the deadline, whichever comes first, and the hook's own timer is
    set again for what is left.
    """
    if not _DEADLINE:
        return work()
    deadline = _DEADLINE[0]
    end = deadline - OPTIONAL_RESERVE_SECONDS
    if _OPTIONAL_END:
        end = min(end, _OPTIONAL_END[0])
    remaining = end - time.monotonic()
    if remaining <= 0:
        return None
    import signal  # noqa: PLC0415 - a test run only

    def drop(_signum: int, _frame: FrameType | None) -> None:
        raise _OptionalDropped

    try:
        previous = signal.signal(signal.SIGALRM, drop)
    except ValueError:  # not the main thread: no timer
        return work()
    signal.setitimer(signal.ITIMER_REAL, remaining)
    try:
        return work()
    except _OptionalDropped:
        from runctx._log import log_event  # noqa: PLC0415

        log_event("runctx.hook_optional_dropped", seconds=round(remaining, 3))
        return None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if callable(previous):  # the hook's own deadline (:func:`_within`): set it again
            signal.setitimer(signal.ITIMER_REAL, max(deadline - time.monotonic(), 0.001))


def _after_tool(agent: Agent, payload: JSONObject) -> str | None:
    face = agent.AFTER_TOOL_FACE
    assert face is not None  # noqa: S101 - face_of names only faces the agent has
    read = face.read(payload)
    if read is None:
        return None
    command, cwd = read
    root, settings, invocations = _runs_of(command, cwd)
    if not invocations:
        return None
    from runctx.hooks import answer  # noqa: PLC0415 - behind the pre-filter: the scan's imports

    return answer.after_tool(agent, cwd, root, settings, invocations, checkout_settings)


def test_runs(
    command: str,
    cwd: str,
    settings: Settings | None = None,  # noqa: PT028 - not a test
) -> tuple[TestInvocation, ...]:
    """The test runs ``command`` starts in ``cwd``, as every hook face reads them.

    ``settings`` (the face's, else those of ``cwd``'s checkout, with the
    user's) give the table's names; only when one occurs does the table get
    built and the parser read the command (and, for a task runner, the
    project's files).
    """
    if settings is None:
        settings = _settings(cwd)
    if not (names_found(command, settings.names) or names_a_script(command)):
        return ()
    from runctx.shell.commands import test_invocations  # noqa: PLC0415 - a runner is named

    return test_invocations(command, cwd, settings.patterns)


test_runs.__test__ = False  # type: ignore[attr-defined]  # not a pytest test function


def _runs_of(command: str, cwd: str) -> tuple[Root | Unknown, Settings, tuple[TestInvocation, ...]]:
    """The checkout of ``cwd``, its settings (read once) and the test runs ``command`` starts.

    A settings file that cannot be read (a file past the bound: a 60 MiB
    ``pyproject.toml``, a FIFO) or is malformed is left out, and the decision
    says which and why (:attr:`Settings.problem`): a file runctx cannot read
    never turns a refusal into a go-ahead.
    """
    root = checkout_root(cwd)
    settings = settings_for(root, degrade=True)
    return root, settings, test_runs(command, cwd, settings)


def _settings(cwd: str) -> Settings:
    """The settings of the checkout ``cwd`` is in (the one rule), with the user's own."""
    return checkout_settings(checkout_root(cwd))


def checkout_settings(root: str | Unknown) -> Settings:
    """The settings of the checkout at ``root``, with the user's own: read once per checkout."""
    return settings_for(root, degrade=True)


def _environment_changes(command: str, cwd: str) -> tuple[TestInvocation, ...]:
    """The commands in ``command`` that change an environment (``pip install -e .``, ``uv sync``).

    Plain substring tests first (:func:`may_change_environment`): a command
    that names no such tool and no task runner imports and reads nothing
    more. A command that names a task runner (``make install``, ``npm run
    setup``) is read through its tasks' texts in the project's files, the way
    a test run's task is: a task whose text runs an installer is a change in
    the directory the task runs in.
    """
    if not may_change_environment(command):
        return ()
    from runctx.runners.installers import (  # noqa: PLC0415 - a tool is named
        INSTALLER_PATTERNS,
        through_task_runners,
    )
    from runctx.shell.commands import commands_run  # noqa: PLC0415

    if names_task_runner(command):
        return commands_run(command, cwd, through_task_runners())
    return commands_run(command, cwd, INSTALLER_PATTERNS)


def _session(agent: Agent, payload: JSONObject) -> str | None:
    face = agent.SESSION_FACE
    assert face is not None  # noqa: S101 - face_of names only faces the agent has
    cwd = face.read(payload)
    from runctx.hooks import answer  # noqa: PLC0415 - the scan's imports

    return answer.session_start(agent, payload, cwd, _settings(cwd))


def _payload(raw: bytes) -> dict[str, object]:
    if not raw.strip():
        msg = "no input on stdin"
        raise PayloadError(msg)
    return json_object(raw, "input")


def _within(deadline: float, work: Callable[[], T]) -> T:
    """``work()``, or :class:`_DeadlineError` once ``deadline`` passes.

    An interval timer raises in the middle of whatever runs then (reading
    stdin, a walk up a deep tree, a read, a scan). ``SIGALRM`` is unblocked
    for it, in case whatever started the hook blocked it (a signal mask is
    inherited across ``exec``), and the mask is put back after. Off the main
    thread, where no signal can be handled, the work runs unbounded but for
    its own bounded reads: reading stdin is then bounded only by its writer.
    """
    if TYPE_CHECKING:
        import signal  # noqa: PLC0415
    else:
        # The C module under signal: the same calls, without the enums the
        # signal module builds on import (half a millisecond of every hook).
        try:
            import _signal as signal  # noqa: PLC0415
        except ImportError:  # an interpreter without it
            import signal  # noqa: PLC0415

    remaining = deadline - time.monotonic()
    if remaining <= 0:
        msg = "no decision within the deadline"
        raise _DeadlineError(msg)

    def expire(_signum: int, _frame: FrameType | None) -> None:
        msg = f"no decision within the deadline ({remaining:.3g}s were left)"
        raise _DeadlineError(msg)

    try:
        previous = signal.signal(signal.SIGALRM, expire)
    except ValueError:  # not the main thread
        return work()
    mask = signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGALRM})
    signal.setitimer(signal.ITIMER_REAL, remaining)
    try:
        return work()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        signal.signal(signal.SIGALRM, previous)
