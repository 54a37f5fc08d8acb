"""``runctx hook FACE`` on a command that is not a test run, and the console entry.

An agent runs ``runctx hook FACE`` before every shell command, so the path of
a command that runs no test costs almost nothing and says nothing: it reads
the payload (:mod:`runctx.hooks.payload`, with :mod:`runctx.fastpath.jsonscan`),
the agent's adapter reads the command and its directory, the checkout walk
finds the root (:func:`runctx.checkout.find_root`), the settings give the
runner names (the builtin table's, held as a literal, unless a settings file
may add rows:
:func:`runctx.config_files.may_add_runners`; only then is it parsed, by
:mod:`runctx.settings`), and the pre-filter (:mod:`runctx.fastpath.prefilter`)
finds none of them in the command: nothing is printed, exit 0. So is a command
that only runs package.json scripts whose texts name none
(:mod:`runctx.fastpath.scripts`: ``npm run build``). Behind the
pre-filter, with ordinary top-level imports, :mod:`runctx.hooks.commands`
reads what the command runs (the shell parser, the runner table, a task
runner's files), and only a test run or a change of an environment goes on to
:mod:`runctx.hooks.answer` (the scan, the policy, the words).

Its imports are deferred (``noqa: PLC0415``, here and in the rest of
:mod:`runctx.fastpath` only): what lies behind the pre-filter, the words of a
failure, and the command line (:func:`dispatch` imports the hook's path or
:mod:`runctx.cli.main`, never both).

Run by hand on a terminal (stdin is a terminal, so no agent is sending a
payload), a hook that cannot work says so and exits 2 (:data:`EXIT_BY_HAND`):
a mistyped face (``runctx hook claud``) is seen the moment someone tries it,
instead of protecting nothing in silence. Inside an agent the same mistake
fails open like everything else, with one line on stderr that names it.

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

import gc
import os
import signal
import sys
import time

from runctx.checkout import find_root
from runctx.config_files import may_add_runners
from runctx.exits import EXIT_BROKEN_PIPE
from runctx.fastpath.git_hooks import may_run_hooks
from runctx.fastpath.prefilter import (
    BUILTIN_NAMES,
    may_change_environment,
    names_a_script,
    names_compose_run,
    names_found,
    names_git_hook,
    past_the_window,
)
from runctx.fastpath.scripts import starts_nothing
from runctx.hooks.agents import AGENT_NAMES, all_faces, face_of
from runctx.hooks.agents.base import AFTER_TOOL, SESSION
from runctx.hooks.agents.hosts import answering
from runctx.hooks.payload import MAX_INPUT_BYTES, PayloadError, json_object

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from types import FrameType
    from typing import NoReturn, TextIO, TypeVar

    from runctx.checkout import Root
    from runctx.hooks.agents.base import Agent, JSONObject
    from runctx.looking import Watch
    from runctx.settings import Settings

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
OPTIONAL_SHARE = 0.1
"""A refusal's optional second pass ends this share of the deadline after the hook's start
(1 s of the default 10 s), or at its reserve (:data:`runctx.hooks.answer.OPTIONAL_RESERVE_SECONDS`),
whichever comes first.

On a quiet box it takes a few milliseconds; on a saturated one it could take
seconds that an agent waits for on every refused command. So it is given a
small, fixed share and dropped past it: the hook refuses in about the
interpreter's start plus that share, however busy the box is. It takes the
runs the first pass found and reads a few files of each, so a first pass
that ends past the share still leaves it
:data:`runctx.hooks.answer.HOLD_GRACE_SECONDS`: on a saturated box a refusal
still says who started the run in the way."""
GO_AHEAD_SHARE = 0.3
"""The share of the deadline after which the optional pass of a command that goes ahead ends
(3 s of the default 10 s), or at its reserve, whichever comes first.

For a command that goes ahead the optional pass is the answer: CPU use now
is what tells a busy foreign run from an idle one, and the note on it is
what an agent on a busy box needs. There the first pass alone can take a
second of wall time: a tenth of the deadline would drop the note on
exactly the boxes it is for. A test run that goes ahead runs far longer
than the few seconds this adds on a saturated box."""

USAGE = (
    "usage: runctx hook FACE < payload.json\n"
    "FACE: an agent (" + ", ".join(AGENT_NAMES) + "), or one of its other hooks\n"
    "Reads an agent's hook payload on stdin and answers in that agent's protocol.\n"
    "Exit status: 0 in an agent, whatever happens (it fails open, with one line on stderr);\n"
    "2 when run by hand on a terminal with a face that does not exist or no payload.\n"
)
EXIT_BY_HAND = 2
"""A hook run by hand on a terminal that cannot work (a usage error): exit 2, not 0."""
_CHUNK = 64 * 1024
YOUNG_OBJECTS_PER_COLLECTION = 50_000
"""How many new objects the command line lets pass before the cycle collector runs (Python: 700).

A scan makes a few records per process and a report a few dicts per run,
none in a cycle: reference counting frees them all. At Python's default a
``status`` beside 4,000 processes ran the collector over them 216 times (about
45 ms, 5% of its CPU); at this threshold, a few times. The collector still runs, so
a command that lives long (``status --watch``, ``wait``) frees what cycles it
makes. A hook lives for one answer, within its deadline: there the collector
does not run at all (:func:`dispatch`). Only runctx's own process is tuned,
never a process it is imported into."""
EXIT_FLUSH_FAILED = 120
"""The exit status when what is left in ``sys.stdout`` cannot be written at the end (Python's),
unless its reader went away (:data:`runctx.exits.EXIT_BROKEN_PIPE`)."""


def console() -> NoReturn:
    """The ``runctx`` command: :func:`dispatch`, then the process ends at once.

    Ending it skips the interpreter's teardown, which would free every module,
    class and record one by one and run the cycle collector over them all:
    about a tenth of a refusing hook's instructions beside a storm of
    processes, on the path every agent waits on. Nothing of runctx's needs that
    teardown: its replies and reports are written straight to their
    descriptors, it starts no thread and registers nothing to run at exit.
    What ``sys.stdout`` and ``sys.stderr`` still buffer is flushed first. An
    exit asked for on the way (``sys.exit``: argparse's ``--help``) ends it the
    same way, with the status Python would give it; any other exception
    propagates, and Python reports it as usual. A hook exits 0 whatever its
    streams do (the module's docstring); the command line ends
    :data:`~runctx.exits.EXIT_BROKEN_PIPE` when the reader of what stdout
    still held went away, else :data:`EXIT_FLUSH_FAILED` when it cannot be
    written.
    """
    hook = sys.argv[1:2] == ["hook"]
    try:
        status = dispatch()
    except SystemExit as asked:
        status = _exit_status(asked.code)
    unwritten = _flush(sys.stdout)
    if unwritten is not None and not hook:
        status = unwritten
    _flush(sys.stderr)
    os._exit(status)


def _flush(stream: TextIO | None) -> int | None:
    """Flush ``stream`` (None: that descriptor was closed at the start); the status if it failed."""
    if stream is None:
        return None
    try:
        stream.flush()
    except BrokenPipeError:
        return EXIT_BROKEN_PIPE
    except (OSError, ValueError):
        return EXIT_FLUSH_FAILED
    return None


def _exit_status(code: object) -> int:
    """The status Python exits with for ``sys.exit(code)``: a text is written to stderr first."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    try:  # noqa: SIM105 - contextlib is not loaded on the hook's path
        sys.stderr.write(f"{code}\n")
    except (OSError, ValueError):
        pass
    return 1


def dispatch() -> int:
    """``runctx hook FACE`` goes to the hook, anything else to the CLI: the exit status.

    The hook runs before every shell command an agent issues, so the console
    script imports the hook's fast path (this module) or the command line
    (:mod:`runctx.cli.main`: argparse, every subcommand's parser), never both.
    """
    if sys.argv[1:2] == ["hook"]:
        gc.disable()
        return main(sys.argv[2:])
    gc.set_threshold(YOUNG_OBJECTS_PER_COLLECTION, *gc.get_threshold()[1:])
    from runctx.cli.main import main as command_line  # noqa: PLC0415 - never on the hook's path

    return command_line()


class HookError(Exception):
    """Something stopped the hook from deciding; it fails open and says this."""


class DeadlineError(HookError):
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


def what_failed(error: BaseException) -> str:
    """What went wrong, in words: the message of runctx's own errors, else the type too."""
    what = str(error) or type(error).__name__
    if not isinstance(error, (HookError, PayloadError)):
        what = f"{type(error).__name__}: {what}"
    return " ".join(what.split())


def _fail_open(error: BaseException) -> None:
    from runctx.present.escape import visible  # noqa: PLC0415 - only when something is said

    line = visible(what_failed(error)[:500])
    try:  # noqa: SIM105 - contextlib is not loaded on the hook's path
        _emit(2, f"runctx: hook failed open: {line}\n")
    except (OSError, ValueError):
        pass


def _tell_the_agent(argv: list[str], error: BaseException) -> None:
    """After failing open, say so in the reply the agent reads, not only on stderr.

    A note in the agent's own protocol (it lets the command run), for the
    face ``argv`` names; nothing when no face is named (there is no protocol
    to answer in) or when writing fails (stderr said it already).
    """
    found = face_of(argv[0]) if len(argv) == 1 else None
    if found is None:
        return
    try:
        from runctx.hooks import answer  # noqa: PLC0415 - only on failure

        _emit(1, answer.failed_open_reply(*found, what_failed(error)) + "\n")
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
    ends = (began + seconds * OPTIONAL_SHARE, began + seconds * GO_AHEAD_SHARE)
    return _within(
        deadline, lambda: _reply(agent, kind, _payload(_read_stdin()), (deadline, *ends))
    )


def _read_stdin() -> bytes:
    """The payload's bytes; under the deadline's timer, which cuts a writer that never ends."""
    try:
        return read_input()
    except DeadlineError:
        msg = "the input did not end before the deadline"
        raise PayloadError(msg) from None


def _reply(
    agent: Agent,
    kind: str,
    payload: JSONObject,
    deadlines: tuple[float, float, float] = (float("inf"), float("inf"), float("inf")),
) -> str | None:
    """The reply of ``agent``'s hook of ``kind`` to ``payload``; runs under the deadline.

    A command in which the pre-filter finds no runner, no project script and
    no tool that changes an environment is answered here, with nothing; the
    rest by :mod:`runctx.hooks.answer`. ``deadlines``: the hook's deadline
    and the ends of its optional pass after a hold and after a go-ahead
    (monotonic seconds).
    """
    if kind == SESSION:
        from runctx.hooks import answer  # noqa: PLC0415 - the scan's imports

        return apart(deadlines[0], lambda: answer.session_start(agent, payload))
    read = _command(agent, kind, payload)
    if read is None:
        return None
    agent, command, cwd = read
    try:
        root: Root | None = find_root(cwd)
    except (OSError, ValueError):  # why is said behind the pre-filter, if it matters
        root = None
    settings = _configured(root, cwd)
    names = BUILTIN_NAMES if settings is None else settings.names
    changes = kind != AFTER_TOOL and may_change_environment(command)
    named = (
        names_found(command, names)
        or names_a_script(command)
        or past_the_window(command)
        or (names_git_hook(command) and may_run_hooks(command, root))
        or names_compose_run(command)
    )
    if not (named or changes) or (
        settings is None and starts_nothing(command, cwd)  # ``npm run build``
    ):
        return None
    from runctx.hooks import commands  # noqa: PLC0415 - behind the pre-filter: the parser

    invocations = commands.test_runs(command, cwd, settings)
    changed = commands.environment_changes(command, cwd) if changes else ()
    if not invocations and not changed:
        return None
    from runctx.hooks import answer  # noqa: PLC0415 - a test run or a change: the scan

    if kind == AFTER_TOOL:
        return apart(
            deadlines[0], lambda: answer.after_tool(agent, cwd, root, settings, invocations)
        )
    return apart(
        deadlines[0],
        lambda: answer.pre_tool(
            agent, payload, cwd, root, settings, invocations, changed, deadlines
        ),
    )


def _command(agent: Agent, kind: str, payload: JSONObject) -> tuple[Agent, str, str] | None:
    """The agent that answers, the command and its directory; None when there is none to answer.

    Before the tool runs, another agent may be running Claude Code's hook
    (:func:`~runctx.hooks.agents.hosts.answering`): it answers in its own
    words, or not at all when its own runctx hook does.
    """
    if kind == AFTER_TOOL:
        face = agent.AFTER_TOOL_FACE
        read = face.read(payload) if face is not None else None
    else:
        hosted = answering(agent, payload, os.environ)
        if hosted is None:  # that agent's own runctx hook answers it: said once
            return None
        agent = hosted
        read = agent.PRE_TOOL_FACE.read(payload)
    return None if read is None else (agent, *read)


def _configured(root: Root | None, cwd: str) -> Settings | None:
    """The settings of ``cwd``'s checkout (at ``root``) when a file may add runner rows, else None.

    None stands for settings that add no runner: the builtin table's names
    decide, and the settings are read behind the pre-filter, if at all.
    """
    if not may_add_runners(root, os.environ):
        return None
    from runctx.roots import checkout_root  # noqa: PLC0415 - a file configures runctx
    from runctx.settings import settings_for  # noqa: PLC0415 - a file configures runctx

    return settings_for(root if root is not None else checkout_root(cwd), degrade=True)


def read_input(*, fd: int = 0, limit: int = MAX_INPUT_BYTES) -> bytes:
    """All of ``fd`` up to EOF, or :class:`PayloadError` past ``limit`` bytes.

    Input past the limit is read and dropped (so that the writer does not get
    a broken pipe); memory stays bounded by the limit. A writer that never
    closes ``fd`` is the caller's to cut: the hook reads under its deadline
    timer, which interrupts the read (and a drain it interrupts still ends in
    the size error, which is what went wrong). A non-blocking ``fd`` (handed
    down by whatever started the hook) is waited on, not refused.
    """
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = _read_chunk(fd)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > limit:
            chunks.clear()
            try:
                while _read_chunk(fd):
                    pass
            except Exception:  # noqa: BLE001, S110 - the deadline, mostly: the size is the error
                pass
            msg = f"input is larger than {limit} bytes"
            raise PayloadError(msg)
        chunks.append(chunk)


def _read_chunk(fd: int) -> bytes:
    """One read of ``fd``; on a non-blocking one with nothing yet, wait until it has some."""
    while True:
        try:
            return os.read(fd, _CHUNK)
        except BlockingIOError:
            # Only when whatever started the hook handed down a non-blocking
            # stdin: the flag belongs to the shared open file, so it is not
            # changed; the wait, like the read, is cut by the caller's timer.
            import select  # noqa: PLC0415 - a shared library the usual path never loads

            select.select([fd], [], [])


def _payload(raw: bytes) -> dict[str, object]:
    if not raw.strip():
        msg = "no input on stdin"
        raise PayloadError(msg)
    return json_object(raw, "input")


REPLY, NO_REPLY, FAILED = b"R", b"N", b"E"
"""How the answering child's message to the hook begins: a reply, none, a failure."""


def apart(deadline: float, work: Callable[[], str | None]) -> str | None:
    """``work()`` (the scan and its words), in a child where a read may never end.

    The hook's timer (:func:`_within`) cuts whatever runs when it fires, but a
    signal cannot cut a read the kernel waits on uninterruptibly: looking at a
    process whose cwd is on a file system that stopped answering (a hung NFS
    or sshfs mount, a stuck FUSE server) holds the reader until it answers,
    and an agent whose own timeout then cuts the hook runs the command
    without a word. So where a file system of this box may stop answering
    (a network one, FUSE: :func:`runctx.looking.may_stop_answering`, the rule
    every face of runctx follows) the work is done in a child
    (:func:`in_child`). Elsewhere every read ends, the timer cuts the work in
    this process, and no call pays the fork (about 6 ms of CPU a refusal).
    """
    from runctx import looking  # noqa: PLC0415 - behind the pre-filter: what holds the scan

    if not looking.may_stop_answering():
        return work()
    return in_child(deadline, work)


def in_child(deadline: float, work: Callable[[], str | None]) -> str | None:
    """``work()`` done by a child process, waited for until ``deadline``.

    The child sends its reply (or why it failed, raised here as
    :class:`HookError`) down a pipe; its stderr goes down another, which
    this process writes on. Past ``deadline`` this process fails open and
    says why (what holds the scan, when a look does: :mod:`runctx.looking`);
    a child stuck in a read is left behind, holding none of the agent's
    descriptors, and ends when the read does.
    """
    from runctx import looking  # noqa: PLC0415 - behind the pre-filter: what holds the scan

    hook_parent = os.getppid()
    replies, reply_end = os.pipe()
    said, said_end = os.pipe()
    watch = looking.shared()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child ends in os._exit; its work is the tests'
        os.close(replies)
        os.close(said)
        _answer_as_child(deadline, work, reply_end, said_end, hook_parent)
    os.close(reply_end)
    os.close(said_end)
    try:
        message, words = _read_both(replies, said, deadline)
    except DeadlineError:  # this process's own timer, or the wait's end: the same deadline
        raise DeadlineError(_held(child, watch)) from None
    finally:
        os.close(replies)
        os.close(said)
    os.waitpid(child, 0)
    try:
        while words:  # the child's stderr, as it wrote it
            words = words[os.write(2, words) :]
    except OSError:
        pass
    if message[:1] == REPLY:
        return message[1:].decode("utf-8", "surrogatepass")
    if message[:1] == NO_REPLY:
        return None
    if message[:1] == FAILED:
        raise HookError(message[1:].decode("utf-8", "backslashreplace"))
    msg = "the scan ended without a reply"
    raise HookError(msg)


def _answer_as_child(  # pragma: no cover - runs in the child
    deadline: float,
    work: Callable[[], str | None],
    reply_end: int,
    said_end: int,
    hook_parent: int,
) -> None:
    """Do ``work`` under the deadline, send what came of it, and end this process."""
    try:
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 0)
        os.dup2(null, 1)
        os.dup2(said_end, 2)
        os.close(null)
        os.close(said_end)
        from runctx import agent_process  # noqa: PLC0415 - the scan's, imported already

        agent_process.answering_for(hook_parent)
        try:
            reply = _within(deadline, work) if deadline < float("inf") else work()
            message = NO_REPLY if reply is None else REPLY + reply.encode("utf-8", "surrogatepass")
        except BaseException as error:  # noqa: BLE001 - the hook fails open with it
            message = FAILED + what_failed(error).encode("utf-8", "backslashreplace")
        while message:
            message = message[os.write(reply_end, message) :]
    finally:
        os._exit(0)


def _read_both(replies: int, said: int, deadline: float) -> tuple[bytes, bytes]:
    """All the child sends on ``replies`` and ``said``, until it closes them or ``deadline``."""
    from runctx.pipes import ChildPipes  # noqa: PLC0415 - behind the pre-filter

    pipes = ChildPipes(kept=[replies, said])
    while not pipes.ended:
        left = deadline - time.monotonic()
        if left <= 0 or not pipes.read_for(None if left == float("inf") else left):
            msg = "no decision within the deadline"
            raise DeadlineError(msg)
    return pipes.text(replies), pipes.text(said)


def _held(child: int, watch: Watch) -> str:
    """Why no decision came: a scan held looking at a file system, or in a read, or time alone.

    The child tells what it looks at (:mod:`runctx.looking`): a look under
    way for :data:`~runctx.looking.NAMED_AFTER_SECONDS` while it sleeps names
    the process and the path that hold it (:func:`~runctx.looking.why_not_done`).
    """
    from runctx import looking  # noqa: PLC0415 - the words of a failure
    from runctx.present.escape import visible  # noqa: PLC0415 - the words of a failure

    why = looking.why_not_done(watch, child)
    return "no decision within the deadline" + ("" if why is None else f": {visible(why)}")


def _within(deadline: float, work: Callable[[], T]) -> T:
    """``work()``, or :class:`DeadlineError` once ``deadline`` passes.

    An interval timer raises in the middle of whatever runs then (reading
    stdin, a walk up a deep tree, a read, a scan). ``SIGALRM`` is unblocked
    for it, in case whatever started the hook blocked it (a signal mask is
    inherited across ``exec``), and the mask is put back after. Off the main
    thread, where no signal can be handled, the work runs unbounded but for
    its own bounded reads: reading stdin is then bounded only by its writer.
    """
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        msg = "no decision within the deadline"
        raise DeadlineError(msg)

    def expire(_signum: int, _frame: FrameType | None) -> None:
        msg = f"no decision within the deadline ({remaining:.3g}s were left)"
        raise DeadlineError(msg)

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
