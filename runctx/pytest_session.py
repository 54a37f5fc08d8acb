"""The contention plugin's session: scan at the start, wait or refuse, sample, summarise.

One :class:`ContentionSession` per session, on the controller only (xdist's
workers never scan, report or wait), registered by
:func:`runctx.pytest_plugin.pytest_configure` once a coverage tool measures:
everything it imports (runctx's scan, attrs) is imported then, under
:func:`runctx.pytest_terminal.untraced`. It holds the session's state
(:class:`PluginState`) and implements the hooks that act on it:

- ``pytest_sessionstart`` scans once, decides by the policy
  (:func:`runctx.pytest_contention.session_decision`), waits before xdist's
  workers start, and builds the header from what is true after any wait;
  that first scan is the summary's first sample too;
- ``pytest_runtest_logreport`` samples during the session (at the first
  report under xdist, then every ``--runctx-sample`` seconds), and
  ``pytest_sessionfinish`` once more at the end;
- ``pytest_report_header`` and ``pytest_terminal_summary`` write what was
  seen, one line each unless ``-v`` (:mod:`runctx.pytest_brief`).
"""

from __future__ import annotations

import time
from collections.abc import Generator, Sequence

import pytest

from runctx import pytest_settings
from runctx.busy import BoxPressure
from runctx.child import value_in_child
from runctx.cpu_window import DEFAULT_WINDOW_SECONDS
from runctx.exceptions import PidNamespaceError
from runctx.exits import EXIT_REFUSED
from runctx.handoff import CHECKED, QUIET, take_handoff
from runctx.looking import may_stop_answering
from runctx.policy import Action, Cause, Decision, measures_cpu
from runctx.present.words import describe_ours, same_checkout_message, shared_tree_message
from runctx.pytest_brief import foreign_parts, ours_parts, shared_part, summary_line
from runctx.pytest_contention import (
    Sample,
    checkout_lines,
    cpu_mark,
    header_lines,
    others_now,
    quiet_sample,
    sample_of,
    session_decision,
    started_after,
    summary_lines,
)
from runctx.pytest_options import DEFAULT_SAMPLE_SECONDS
from runctx.pytest_terminal import (
    PREFIX,
    SESSION_PLUGIN,
    collecting,
    distributed,
    error_text,
    report_header,
    untraced,
    verbose,
    visible,
    write,
    write_summary,
    write_urgent,
)
from runctx.report import JudgedRun, Report, Viewpoint
from runctx.scanning import scan, viewpoint
from runctx.session_cpu import CpuMark
from runctx.settings import DEFAULT_BUSY, DEFAULTS, BusyRules, Settings
from runctx.sources import ProcessSource, default_source
from runctx.waiting import (
    DEFAULT_POLL_SECONDS,
    DecidedWait,
    WaitListener,
    WaitOutcome,
    wait_as_decided,
)


class PluginState:
    """The controller's state for one session, held by its :class:`ContentionSession`.

    A plain class, not a dataclass: creating a dataclass compiles its methods
    when the module is imported, some milliseconds of every session.
    """

    mode: str
    """``warn``, ``wait``, ``refuse``, ``stop`` or ``ask`` (the plugin's words)."""
    mode_from: str
    """Where the mode came from, for the header (``--runctx=wait``, the checkout's setting)."""
    timeout: float | None
    poll_seconds: float | None
    """None: as often as ``runctx wait`` (:data:`runctx.waiting.DEFAULT_POLL_SECONDS`)."""
    sample_seconds: float
    shared_mode: str = "warn"
    """The policy's mode for another user's run in this checkout: ``stop``, ``ask`` or ``warn``."""
    shared_from: str = ""
    """Where ``shared_mode`` came from (the checkout's setting), empty for the default."""
    busy: BusyRules | None = None
    """The checkout's thresholds of "busy now" and its ``on-busy-box``."""
    settings: Settings | None = None
    """The checkout's settings, read once when the session is configured."""
    handoff: str = ""
    """What ``runctx run`` handed over: ``checked``, ``quiet`` or nothing."""
    header: list[str]
    samples: list[Sample]
    errors: list[str]
    rootdir: str | None = None
    here: Viewpoint | None = None
    source: ProcessSource | None = None
    start: Report | None = None
    decision: Decision | None = None
    waited: WaitOutcome | None = None
    urgent: list[str]
    """Header lines written under ``-q`` too: runs of this checkout, other users' in it."""
    brief: list[str]
    """The parts of the one header line written unless ``-v`` (:mod:`runctx.pytest_brief`)."""
    brief_urgent: list[str]
    """The parts of that line written under ``-q`` too."""
    last_sample: float = 0.0
    cpu_mark: CpuMark | None = None
    """Where the window of the samples during the session starts: before the workers start."""
    reports_seen: int = 0
    sampling: bool = True
    apart: bool = False
    """Whether each scan runs in a child: a file system here may stop answering."""

    def __init__(  # noqa: PLR0913 - each is a setting of its own
        self,
        mode: str,
        mode_from: str,
        timeout: float | None,
        poll_seconds: float | None,
        sample_seconds: float,
        *,
        shared_mode: str = "warn",
        shared_from: str = "",
        busy: BusyRules | None = None,
        settings: Settings | None = None,
        warnings: Sequence[str] = (),
    ) -> None:
        """The state before the first scan; ``warnings`` on the settings open the header."""
        self.mode = mode
        self.mode_from = mode_from
        self.timeout = timeout
        self.poll_seconds = poll_seconds
        self.sample_seconds = sample_seconds
        self.shared_mode = shared_mode
        self.shared_from = shared_from
        self.busy = busy
        self.settings = settings
        self.header = [f"{PREFIX}{warning}" for warning in warnings]
        self.urgent = [f"{PREFIX}{warning}" for warning in warnings]
        self.brief = list(warnings)
        self.brief_urgent = list(warnings)
        self.samples = []
        self.errors = []


def state_from(config: pytest.Config) -> PluginState:
    """The session's state from its options and the checkout's settings, read once."""
    settings, warnings = pytest_settings.checkout_settings(config)
    mode, mode_from = pytest_settings.mode(config, settings)
    shared_mode, shared_from = pytest_settings.shared_mode(settings)
    poll = pytest_settings.duration(config, "runctx_poll", None) or None
    sample = pytest_settings.duration(config, "runctx_sample", DEFAULT_SAMPLE_SECONDS)
    return PluginState(
        mode=mode,
        mode_from=mode_from,
        timeout=pytest_settings.duration(config, "runctx_timeout", None),
        poll_seconds=poll,
        sample_seconds=DEFAULT_SAMPLE_SECONDS if sample is None else sample,
        shared_mode=shared_mode,
        shared_from=shared_from,
        busy=settings.busy,
        settings=settings,
        warnings=warnings,
    )


def _broken(state: PluginState, error: Exception) -> None:
    """Record a failure inside runctx: one header line, no more scans."""
    state.errors.append(error_text(error))
    state.sampling = False
    state.header.append(f"{PREFIX}could not check for other runs ({error_text(error)})")
    state.brief.append(f"could not check for other runs ({error_text(error)})")


def _scan_measuring_foreign(state: PluginState, window: float) -> Report:
    """A scan from the session's checkout, with the CPU use now of the foreign runs.

    In a child (:func:`runctx.child.value_in_child`) where a file system may
    stop answering: a scan held by one raises, and the session goes on.
    """
    settings = state.settings if state.settings is not None else DEFAULTS

    def scanned() -> Report:
        return scan(
            state.here,
            source=state.source,
            cpu_window=window,
            cpu_of=measures_cpu,
            settings=settings,
        )

    return value_in_child(scanned) if state.apart else scanned()


def _first_scan(state: PluginState) -> None:
    if not state.sampling:
        return
    try:
        # Chosen once: a test that changes RUNCTX_SOURCE must not change ours.
        state.source = default_source()
        state.apart = may_stop_answering()
        # The session's checkout is its rootdir's, wherever it was started from.
        state.here = viewpoint(cwd=state.rootdir)
        report = _scan_measuring_foreign(state, DEFAULT_WINDOW_SECONDS)
        state.start = report
        state.decision = session_decision(report, state.mode, state.shared_mode, state.busy)
        state.samples.append(sample_of("start", report, state.busy))
    except Exception as error:  # noqa: BLE001 - runctx never breaks a session
        _broken(state, error)
    state.last_sample = time.monotonic()


def _waited(state: PluginState) -> bool:
    """Whether the session waited (for a run of this checkout, or for room) before going ahead."""
    decision = state.decision
    if decision is None or state.start is None:
        return False
    if state.waited is not None:
        return True
    return decision.action is Action.WAIT and not _refuses(state)


def _make_header(state: PluginState) -> None:
    """The header, from what is true once any wait is over: a scan after the wait, else the first.

    A header written from the first scan after a wait would name the run
    waited for as live, and advise stopping it, though it has ended; a
    summary that kept that scan as a sample would say the session ran next
    to it. The scan after the wait is the summary's first sample.
    """
    report, decision = state.start, state.decision
    if report is None or decision is None:
        return  # no scan: a failure inside runctx, already in the header
    if _waited(state):
        # What the scans before the wait saw is over before any test runs: the summary's
        # samples start with this scan, as the header does.
        state.samples.clear()
        try:
            report = _scan_measuring_foreign(state, DEFAULT_WINDOW_SECONDS)
            decision = session_decision(report, state.mode, state.shared_mode, state.busy)
        except Exception as error:  # noqa: BLE001 - runctx never breaks a session
            _broken(state, error)
            return
        state.samples.append(sample_of("after wait", report, state.busy))
    state.urgent.extend(PREFIX + line for line in checkout_lines(report))
    brief_checkout = _brief_checkout(report)
    state.brief_urgent.extend(brief_checkout)
    if state.handoff not in {QUIET, CHECKED}:
        rules = state.busy if state.busy is not None else DEFAULT_BUSY
        state.brief.extend([*brief_checkout, *foreign_parts(report, rules)])
    if state.handoff != QUIET:
        decided = header_lines(
            report, decision, state.mode_from, state.timeout, state.shared_from, said=True
        )
        state.brief.extend(line.removeprefix(PREFIX) for line in decided)
    if state.handoff != QUIET:
        state.header.extend(
            header_lines(
                report,
                decision,
                state.mode_from,
                state.timeout,
                state.shared_from,
                busy=state.busy,
                said=state.handoff == CHECKED,
            )
        )


def _brief_checkout(report: Report) -> list[str]:
    """The parts of the one header line on runs of this checkout and other users' in it."""
    later = started_after(report)
    earlier = tuple(judged for judged in report.ours if judged not in later)
    return [*ours_parts(earlier, later), *shared_part(report.shared_tree)]


def _write_urgent(config: pytest.Config, state: PluginState) -> None:
    """Where pytest writes no header, the lines that matter (:func:`write_urgent`)."""
    said = state.handoff in {CHECKED, QUIET}  # runctx run said them
    write_urgent(config, [] if said else state.urgent, [] if said else state.brief_urgent)


def _refuses(state: PluginState) -> bool:
    """Whether the session's decision refuses it: a stop, or an ask (a session cannot ask)."""
    decision = state.decision
    if decision is None:
        return False  # no scan: a failure inside runctx, already in the header

    if decision.action in {Action.STOP, Action.ASK}:
        return True
    return decision.action is Action.WAIT and Action.ASK in {
        decision.same_action,
        decision.shared_action,
    }


def _act(config: pytest.Config, state: PluginState) -> None:
    """Carry out the session's decision: refuse, or wait (a warning is in the header)."""
    decision, report = state.decision, state.start
    if decision is None or report is None:
        return  # no scan: a failure inside runctx, already in the header

    if _refuses(state) and decision.cause is Cause.SHARED_TREE:
        setting = state.shared_from or "on-shared-tree"
        msg = (
            f"{shared_tree_message(decision.shared)}\nrunctx refused to start this session "
            f"({setting}, exit status {EXIT_REFUSED})."
        )
        pytest.exit(visible(msg), returncode=EXIT_REFUSED)
    if _refuses(state):
        asks = " (it asks first, and a test session cannot ask)" if state.mode == "ask" else ""
        msg = (
            f"{same_checkout_message(report)}\nrunctx refused to start this session "
            f"({state.mode_from}{asks}, exit status {EXIT_REFUSED}); --runctx=wait waits "
            "for it instead."
        )
        pytest.exit(visible(msg), returncode=EXIT_REFUSED)
    if decision.action is Action.WAIT:
        _wait(config, state, decision)


def _say(config: pytest.Config, state: PluginState, text: str) -> None:
    """A progress line, unless ``runctx run -q`` asked for silence."""
    if state.handoff != QUIET:
        write(config, text)


def _wait(config: pytest.Config, state: PluginState, decision: Decision) -> None:
    """Wait as the decision asks (:func:`runctx.waiting.wait_as_decided`), or exit 75."""

    class Shown(WaitListener):
        def turn_changed(self, blocking: tuple[JudgedRun, ...]) -> None:
            if blocking:
                runs = "; ".join(describe_ours(judged) for judged in blocking)
                _say(config, state, f"{PREFIX}waiting for {runs}")

        def room_changed(self, pressure: BoxPressure) -> None:
            if pressure.busy:
                _say(config, state, f"{PREFIX}waiting for room: {', '.join(pressure.reasons)}")

    def waited() -> DecidedWait | PidNamespaceError:
        try:
            return wait_as_decided(
                decision,
                timeout=state.timeout,
                settings=state.settings if state.settings is not None else DEFAULTS,
                listener=Shown(),
                poll_seconds=state.poll_seconds or DEFAULT_POLL_SECONDS,
                source=state.source,
            )
        except PidNamespaceError as error:  # said by the session, wherever the wait ran
            return error

    try:
        with collecting():
            # In a child where a file system may stop answering: a held wait goes ahead.
            outcome = value_in_child(waited, writes=True) if state.apart else waited()
    except Exception as error:  # noqa: BLE001 - runctx never breaks a session
        state.errors.append(error_text(error))
        write(config, f"{PREFIX}could not wait ({error_text(error)}); going ahead")
        return
    if isinstance(outcome, PidNamespaceError):
        msg = f"runctx: {outcome}; not starting this session (exit status {EXIT_REFUSED})."
        pytest.exit(msg, returncode=EXIT_REFUSED)
    _after_wait(config, state, outcome)


def _after_wait(config: pytest.Config, state: PluginState, outcome: DecidedWait) -> None:
    """Say how the wait ended, or exit 75 when it timed out."""
    turn, room = outcome.turn, outcome.room
    if turn is not None:
        state.waited = turn
        seconds = f"{turn.waited_seconds:.1f}s"
        if not turn.ready:
            runs = "; ".join(describe_ours(judged) for judged in turn.blocking)
            msg = (
                f"runctx: timed out after {seconds} waiting for another run of this checkout "
                f"to end: {runs} (--runctx-timeout; exit status {EXIT_REFUSED})."
            )
            pytest.exit(visible(msg), returncode=EXIT_REFUSED)
        pids = ", ".join(str(judged.run.pid) for judged in turn.waited_for)
        if pids:
            _say(config, state, f"{PREFIX}waited {seconds} for pid {pids}; going ahead")
    if room is not None:
        seconds = f"{outcome.waited_seconds:.1f}s"
        if not room.ready:
            msg = (
                f"runctx: timed out after {seconds} waiting for the box to be less busy "
                f"({', '.join(room.pressure.reasons)}; --runctx-timeout; exit status "
                f"{EXIT_REFUSED})."
            )
            pytest.exit(visible(msg), returncode=EXIT_REFUSED)
        _say(config, state, f"{PREFIX}waited {room.waited_seconds:.1f}s for room; going ahead")


def _sample(state: PluginState, label: str) -> Report | None:
    """Scan once more, and keep what it saw as the sample ``label``; None when it could not."""
    if not state.sampling or state.here is None:
        return None
    report = None
    try:
        report = _scan_measuring_foreign(state, DEFAULT_WINDOW_SECONDS)
        others = others_now(report, state.cpu_mark)
        if others is not None:  # the next sample's window starts here (a short one grows on)
            state.cpu_mark = cpu_mark(report)
        state.samples.append(sample_of(label, report, state.busy, during=True, others=others))
    except Exception as error:  # noqa: BLE001 - runctx never breaks a session
        state.errors.append(error_text(error))
        state.sampling = False
    state.last_sample = time.monotonic()
    return report


def _mark_cpu(state: PluginState) -> None:
    """Start the window the samples during the session measure others' CPU use over.

    Taken once the session goes ahead, before xdist's workers start; each later
    sample measures since the previous one (or since this mark), so no sample
    waits for a window of its own.
    """
    if not state.sampling or state.start is None:
        return
    try:
        state.cpu_mark = cpu_mark(state.start)
    except Exception as error:  # noqa: BLE001 - runctx never breaks a session
        state.errors.append(error_text(error))


class ContentionSession:
    """The contention plugin's state for one session and the hooks that act on it."""

    def __init__(self, config: pytest.Config, state: PluginState) -> None:
        """Act for ``config``'s session with ``state`` (:func:`state_from`)."""
        self.config = config
        self.state = state

    @pytest.hookimpl(wrapper=True)
    def pytest_sessionstart(self) -> Generator[None, None, None]:
        """Scan and wait before anything else starts; refuse once the header is out.

        xdist starts its workers in its own ``pytest_sessionstart``, which runs
        inside this wrapper: waiting before ``yield`` keeps them, and their
        collection in the checkout, from starting next to the run waited for (or
        on a busy box). A refusal comes after, so that the header says why first.
        """
        config, state = self.config, self.state
        with untraced():
            _first_scan(state)
            if not _refuses(state):
                _act(config, state)
            _make_header(state)
            _write_urgent(config, state)
            _mark_cpu(state)
        yield
        if _refuses(state):
            with untraced():
                _act(config, state)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Sample at the first test report under xdist, then at most every sample interval.

        Test reports reach the controller from every xdist worker, so sampling on
        them follows the whole run: under xdist at the first report (the run at
        full width: the workers started after the first sample), then at most
        once per sample interval. A session without workers was sampled just
        before its first test: its next sample waits for the interval (or the
        end), so a short session scans twice, not three times.
        """
        del report
        state = self.state
        state.reports_seen += 1
        first = state.reports_seen == 1 and distributed(self.config)
        if first or time.monotonic() - state.last_sample >= state.sample_seconds:
            with untraced():
                _sample(state, "first test" if first else "during")

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self) -> None:
        """Sample once more at the end, before the summary is written."""
        if self.state.start is not None:
            with untraced():
                _sample(self.state, "end")

    def pytest_report_header(self, config: pytest.Config) -> list[str]:
        """What the scan at session start saw, what the plugin decided, and the code's lines."""
        state = self.state
        return report_header(config, state.header, state.brief, state.handoff)

    def pytest_terminal_summary(
        self, terminalreporter: pytest.TerminalReporter, exitstatus: int, config: pytest.Config
    ) -> None:
        """Whether contention was seen during the session."""
        state = self.state
        failed = exitstatus == pytest.ExitCode.TESTS_FAILED
        detailed = verbose(config)
        always = failed or detailed
        # Under runctx run, which said what it saw, the summary speaks only when tests failed;
        # under -qq too.
        said = state.handoff == QUIET or (
            not failed and (state.handoff == CHECKED or config.get_verbosity() < -1)
        )
        samples = [] if said else state.samples
        try:
            if detailed:
                lines = summary_lines(samples, state.errors, always=always)
            else:
                line = summary_line(samples, state.errors, always=always)
                lines = [PREFIX + line] if line else []
        except Exception as error:  # noqa: BLE001 - runctx never breaks a session
            lines = [f"runctx could not summarise ({error_text(error)})"]
        write_summary(terminalreporter, config, lines)


def configure(config: pytest.Config) -> None:
    """Register the session's plugin object (the controller's; workers get none)."""
    config.pluginmanager.register(session_for(config), SESSION_PLUGIN)


def session_for(config: pytest.Config) -> ContentionSession:
    """The session's plugin object, its settings read once (a failure is its first line)."""
    handoff = take_handoff()
    try:
        state = state_from(config)
    except pytest.UsageError:
        raise
    except Exception as error:  # noqa: BLE001 - runctx never breaks a session
        state = PluginState(
            mode="warn",
            mode_from="--runctx=warn",
            timeout=None,
            poll_seconds=None,
            sample_seconds=DEFAULT_SAMPLE_SECONDS,
        )
        _broken(state, error)
    state.handoff = handoff
    state.rootdir = str(config.rootpath)
    return ContentionSession(config, state)


def start_late(state: PluginState, quiet: Sequence[str], since: CpuMark | None, label: str) -> None:
    """Scan for the first time during the session: the box was quiet until now.

    The samples taken so far (``quiet``, their labels) saw nothing; others'
    CPU use is measured since ``since``, the mark taken as the session went
    ahead. The session has started: nothing is decided, only reported.
    """
    with untraced():
        state.samples.extend(quiet_sample(label) for label in quiet)
        state.cpu_mark = since
        try:
            state.source = default_source()
            state.apart = may_stop_answering()
            state.here = viewpoint(cwd=state.rootdir)
        except Exception as error:  # noqa: BLE001 - runctx never breaks a session
            _broken(state, error)
            return
        state.start = _sample(state, label)


def quiet_summary(
    reporter: pytest.TerminalReporter, config: pytest.Config, quiet: Sequence[str]
) -> None:
    """The summary of a session that failed on a quiet box: its samples saw nothing."""
    samples = [quiet_sample(label) for label in quiet]
    line = summary_line(samples, [], always=True)
    write_summary(reporter, config, [PREFIX + line] if line else [])
