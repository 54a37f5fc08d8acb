"""The contention plugin on a quiet box: nothing could contend, so the scan is not even imported.

Most sessions start on a box where nothing else could be a test run. There
the whole scan (the runner table, the records, the policy: 80% of the
plugin's cost, nearly all of it importing) would find nothing and say
nothing. A session whose checkout, user and environment set nothing for
runctx, that passes none of its options and does not ask for details
(``-v``), first asks a cheaper question of ``/proc``: could any process
outside this session (its ancestors, itself and what it started) be a test
run at all, by the names of the runner table
(:func:`runctx.fastpath.prefilter.names_found`, the pre-filter the hook asks
first), and is the box under every default threshold of "busy"? While the
answer is no, the session goes ahead as the whole plugin would, with nothing
to say, and each sample asks again; the first time the answer is not a
plain no (a process that may be a run, a command line it may not read, a
threshold reached or not readable), it becomes the whole plugin from then on
(:mod:`runctx.pytest_session`), and the samples taken so far count as quiet
ones.
"""

from __future__ import annotations

import os
import time
from collections.abc import Generator

import pytest

from runctx.config_files import may_add_runners
from runctx.fastpath.prefilter import (
    BUILTIN_NAMES,
    names_a_script,
    names_compose_run,
    names_found,
    names_git_hook,
)
from runctx.handoff import HANDOFF_ENV
from runctx.pytest_options import DEFAULT_SAMPLE_SECONDS
from runctx.pytest_terminal import (
    PREFIX,
    SESSION_PLUGIN,
    distributed,
    error_text,
    report_header,
    untraced,
    verbose,
    write_summary,
    write_urgent,
)
from runctx.roots import checkout_root
from runctx.session_cpu import CpuMark, mark, others_since, with_descendants

TYPE_CHECKING = False
if TYPE_CHECKING:
    from runctx.pytest_session import ContentionSession

PROC = "/proc"
SETTINGS_ENV_PREFIX = "RUNCTX_ON_"
"""Every variable of the settings' environment layer starts so (a test holds them to it)."""
SOURCE_ENV = "RUNCTX_SOURCE"
"""Chooses the scan's process source: a session that sets it is scanned the whole way."""
CONTENTION_OPTIONS = ("runctx", "runctx_timeout", "runctx_poll", "runctx_sample")
"""The options (and ini keys) that change what the contention plugin does or says."""
CPU_PRESSURE_BELOW = 40.0
LOAD_BELOW = 1.5
MEMORY_AVAILABLE_FROM = 10.0
OTHERS_BELOW = 0.5
"""The default thresholds of a busy box (:data:`runctx.settings.DEFAULT_BUSY`, a test holds
them equal): CPU pressure (``some avg10``), the load average over one CPU (the fewest a box
has, so that a box with more is never called quiet wrongly), the available memory in percent,
and the CPUs others keep busy during the session over one CPU."""
MAX_CMDLINE_BYTES = 128 * 1024
"""The bytes of a command line read, as many as a scan reads (a test holds them equal)."""
MAX_WORDS = 256
"""The words of a command line looked at, as many as a scan keeps (a test holds them equal)."""
PF_KTHREAD = 0x00200000
"""The flag of a kernel thread in ``/proc/<pid>/stat`` (as the scan's, a test holds them equal)."""
ENDED_STATES = (b"Z", b"X")
"""The states of a process that has ended (zombie, dead): its command line is empty."""
CMDLINES_BUDGET = 4 * 1024 * 1024
"""The bytes of all others' command lines one check reads before it takes them for a doubt."""


def _read(path: str, limit: int = 4096) -> bytes | None:
    """The first ``limit`` bytes of a ``/proc`` file; None when it is gone."""
    try:
        with open(path, "rb") as file:
            return file.read(limit)
    except (FileNotFoundError, ProcessLookupError):
        return None


def _parents() -> tuple[dict[int, int], set[int]]:
    """Each listed process's parent, and the processes that have no command line to read.

    Those are kernel threads and processes that ended unreaped: any other
    process with an empty command line is between two programs (``execve``
    has let go of the old one's arguments and not yet laid out the new one's),
    and may be becoming a run. A process that is gone meanwhile is left out.
    """
    parents, blank = {}, set()
    for name in os.listdir(PROC):
        if name.isdigit():
            stat = _read(f"{PROC}/{name}/stat")
            if stat:
                fields = stat.rpartition(b")")[2].split()
                parents[int(name)] = int(fields[1])
                if fields[0] in ENDED_STATES or int(fields[6]) & PF_KTHREAD:
                    blank.add(int(name))
    return parents, blank


def _session_processes(parents: dict[int, int], own: int) -> set[int]:
    """The process ``own``, its ancestors, and every process below it (as its CPU mark sees it)."""
    lineage = with_descendants([own], PROC)
    pid = own
    while pid in parents and parents[pid] not in lineage:
        pid = parents[pid]
        lineage.add(pid)
    return lineage


def could_be_a_run(command: str) -> bool:
    """Whether a command line names a runner of the table at all (the pre-filter's answer)."""
    return (
        names_found(command, BUILTIN_NAMES)
        or names_a_script(command)
        or names_git_hook(command)
        or names_compose_run(command)
    )


def others_may_run(budget: int = CMDLINES_BUDGET) -> bool:
    """Whether a process outside this session could be a test run, or could not be read.

    A kernel thread is none, nor is a process that ended (meanwhile, or
    unreaped); one whose command line this user may not read may be, and so
    may one whose command line is empty (it is starting a program).
    Command lines past ``budget`` bytes in all are a doubt too: what others
    write there (argv of a megabyte, thousands of processes) is the whole
    scan's to bound, not this check's to pay for.
    """
    if os.path.realpath(f"{PROC}/self") != f"{PROC}/{os.getpid()}":
        return True  # another pid namespace's /proc: the whole scan knows what to do
    parents, blank = _parents()
    mine = _session_processes(parents, os.getpid())
    for pid in parents.keys() - mine - blank:
        try:
            raw = _read(f"{PROC}/{pid}/cmdline", MAX_CMDLINE_BYTES)
        except OSError:
            return True
        if raw is None:
            continue
        budget -= len(raw)
        if budget < 0 or not raw or names_a_runner(raw):
            return True
    return False


def names_a_runner(cmdline: bytes) -> bool:
    """Whether a command line, read whole or word by word, names a runner.

    Word by word too: the pre-filter reads the first 64 KiB of a text, and a
    scan reads words past that (``env A=<70 KiB> pytest``).
    """
    words = [
        word.decode("utf-8", "replace")
        for word in cmdline.split(b"\0", MAX_WORDS)[:MAX_WORDS]
        if word
    ]
    return could_be_a_run(" ".join(words)) or any(could_be_a_run(word) for word in words)


def box_may_be_busy(*, during: bool = False) -> bool:
    """Whether the box may be over a default threshold of "busy", or a figure is not readable.

    ``during`` the session, as the whole plugin judges it then, memory alone:
    CPU pressure and load count the session's own processes.
    """
    try:
        figures = [_read(f"{PROC}/{name}") for name in ("pressure/cpu", "loadavg", "meminfo")]
    except OSError:
        return True
    return box_may_be_busy_in(*figures, during=during)


def box_may_be_busy_in(
    pressure: bytes | None, average: bytes | None, memory: bytes | None, *, during: bool = False
) -> bool:
    """:func:`box_may_be_busy` of the texts of ``/proc/pressure/cpu``, ``loadavg``, ``meminfo``."""
    try:
        rows = (line.split() for line in (memory or b"").splitlines())
        figures = {row[0].rstrip(b":"): row[1] for row in rows if len(row) > 1}
        available = 100 * int(figures[b"MemAvailable"]) / int(figures[b"MemTotal"])
        if available < MEMORY_AVAILABLE_FROM:
            return True
        if during:
            return False
        some = pressure.split(b"\n")[0].split()[1] if pressure else b""
        return not (
            some.startswith(b"avg10=")
            and float(some.removeprefix(b"avg10=")) < CPU_PRESSURE_BELOW
            and average
            and float(average.split()[0]) < LOAD_BELOW
        )
    except (ValueError, KeyError, IndexError, ZeroDivisionError):
        return True


def others_kept_busy(since: CpuMark | None) -> bool:
    """Whether processes outside this session may have kept a CPU's share busy since ``since``.

    Over one CPU, as the load: the whole plugin judges it over the usable ones.
    """
    if since is None:
        return False
    others = others_since(since, [os.getpid()])
    return others is not None and others[0] >= OTHERS_BELOW


def may_go_quietly(config: pytest.Config) -> bool:
    """Whether nothing set for runctx could make the session say or do more than go ahead.

    A settings file that may set anything (the user's, the checkout's
    ``[tool.runctx]``, or one that cannot be read) is read by the whole
    plugin (:func:`runctx.config_files.may_add_runners`, bounded, trusted
    files only).
    """
    environ = os.environ
    root = checkout_root(str(config.rootpath))
    return not (
        verbose(config)
        or environ.get(HANDOFF_ENV)
        or environ.get(SOURCE_ENV)
        or any(name.startswith(SETTINGS_ENV_PREFIX) for name in environ)
        or any(
            config.getoption(name) is not None or config.getini(name) for name in CONTENTION_OPTIONS
        )
        or not isinstance(root, str)
        or may_add_runners(root, environ)
    )


def quiet_now(config: pytest.Config) -> bool:
    """Whether the session may go ahead quietly: nothing set for runctx, a quiet box now."""
    return may_go_quietly(config) and not others_may_run() and not box_may_be_busy()


def configure(config: pytest.Config) -> None:
    """Register the session's plugin object: the quiet one on a quiet box, else the whole one."""
    try:
        quiet = quiet_now(config)
    except Exception:  # noqa: BLE001 - the whole plugin says what is wrong
        quiet = False
    if quiet:
        config.pluginmanager.register(QuietSession(config), SESSION_PLUGIN)
        return
    from runctx.pytest_session import configure as whole  # noqa: PLC0415 - off a quiet box only

    whole(config)


class QuietSession:
    """The contention plugin while the box is quiet; the whole plugin from the first doubt on."""

    def __init__(self, config: pytest.Config) -> None:
        """Act for ``config``'s session (:func:`may_go_quietly` said it may)."""
        self.config = config
        self.whole: ContentionSession | None = None
        self.quiet_labels: list[str] = []
        self.cpu_mark: CpuMark | None = None
        self.last_sample = 0.0
        self.reports_seen = 0
        self.error: str | None = None
        """Why the whole plugin could not be had (a broken install), once it was needed."""

    def _quiet(self) -> bool:
        """Whether nothing may contend now; a failure to tell is a doubt.

        Once the session went ahead (its CPU mark taken), the box is judged as
        the whole plugin judges it during a session: by memory, and by the CPU
        processes outside the session kept busy since the mark.
        """
        during = self.cpu_mark is not None
        try:
            return not (
                others_may_run()
                or box_may_be_busy(during=during)
                or others_kept_busy(self.cpu_mark)
            )
        except Exception:  # noqa: BLE001 - the whole plugin says what went wrong
            return False

    def _become_whole(self) -> ContentionSession | None:
        """The whole plugin's session object, from now on; None where it cannot be had."""
        try:
            from runctx.pytest_session import session_for  # noqa: PLC0415 - off a quiet box only

            self.whole = session_for(self.config)
        except Exception as error:  # noqa: BLE001 - even a broken install never breaks a session
            self.error = error_text(error)
        return self.whole

    @pytest.hookimpl(wrapper=True)
    def pytest_sessionstart(self) -> Generator[None, None, None]:
        """Go ahead quietly, or as the whole plugin when the box is not quiet."""
        with untraced():
            whole = None if self._quiet() else self._become_whole()
            if whole is None:
                self.quiet_labels.append("start")
                write_urgent(self.config, [], [])
                self.cpu_mark = mark([os.getpid()])
                self.last_sample = time.monotonic()
        if whole is not None:
            return (yield from whole.pytest_sessionstart())
        return (yield)

    def _sample(self, label: str) -> None:
        """Sample quietly; or become the whole plugin, with the quiet samples so far."""
        with untraced():
            self.last_sample = time.monotonic()
            if self.error is not None or self._quiet():
                self.quiet_labels.append(label)
                return
            whole = self._become_whole()
            if whole is None:
                return
            from runctx.pytest_session import start_late  # noqa: PLC0415 - off a quiet box only

            start_late(whole.state, self.quiet_labels, self.cpu_mark, label)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Sample as the whole plugin would (:meth:`ContentionSession.pytest_runtest_logreport`)."""
        if self.whole is not None:
            self.whole.pytest_runtest_logreport(report)
            return
        self.reports_seen += 1
        first = self.reports_seen == 1 and distributed(self.config)
        if first or time.monotonic() - self.last_sample >= DEFAULT_SAMPLE_SECONDS:
            self._sample("first test" if first else "during")

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self) -> None:
        """Sample once more at the end."""
        if self.whole is not None:
            self.whole.pytest_sessionfinish()
            return
        self._sample("end")

    def pytest_report_header(self, config: pytest.Config) -> list[str]:
        """The code plugin's lines (and ``-n auto``'s note): a quiet box adds none of its own."""
        if self.whole is not None:
            return self.whole.pytest_report_header(config)
        broken = [] if self.error is None else [f"could not check for other runs ({self.error})"]
        return report_header(config, [PREFIX + line for line in broken], broken)

    def pytest_terminal_summary(
        self, terminalreporter: pytest.TerminalReporter, exitstatus: int, config: pytest.Config
    ) -> None:
        """Nothing was seen: said only when tests failed, as the whole plugin says it."""
        if self.whole is not None:
            self.whole.pytest_terminal_summary(terminalreporter, exitstatus, config)
            return
        if self.error is not None:
            line = f"runctx could not check for other runs: {self.error}"
            write_summary(terminalreporter, config, [line])
            return
        if exitstatus != pytest.ExitCode.TESTS_FAILED:
            return  # passed: nothing to say (the whole plugin's summary, under -qq too)
        with untraced():
            from runctx.pytest_session import quiet_summary  # noqa: PLC0415 - tests failed

            quiet_summary(terminalreporter, config, self.quiet_labels)
