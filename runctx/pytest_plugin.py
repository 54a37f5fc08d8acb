"""The pytest plugin: say which other test runs are live, and wait for or refuse ours.

Registered under the ``pytest11`` entry point, so it is active wherever runctx
is installed (``-p no:runctx`` turns it off). It is quiet when there is nothing
to say:

- the report header names the other live runs of this checkout (pid, age,
  members, who started them), foreign runs that are busy now (with their CPU
  use) and a busy box; idle foreign runs on a quiet box are only counted.
  Started by ``runctx run``, which said all that already, the header leaves
  it out and the summary speaks only when tests failed; under ``runctx run
  -q`` the plugin says nothing but a refusal (:mod:`runctx.handoff`);
- what happens next to an earlier live run of this checkout is the policy's
  decision (:mod:`runctx.policy`) for the mode the session runs in:
  ``--runctx`` (ini ``runctx``), else the checkout's ``on-same-checkout``
  setting (``[tool.runctx]`` or ``$RUNCTX_ON_SAME_CHECKOUT``), else ``warn``.
  ``warn`` only reports; ``wait`` blocks the session start until no earlier
  run of this checkout is live (``--runctx-timeout`` bounds it); ``refuse``
  (the policy's ``stop``; ``stop`` is accepted too) exits with status 75, and
  so does ``ask``, since a test session has no one to ask. A wait that times
  out exits with 75 too: either way, nothing ran;
- another user's live run in this very checkout (it shares the checkout's
  files) is the policy's decision for the checkout's ``on-shared-tree``
  setting (``[tool.runctx]`` or ``$RUNCTX_ON_SHARED_TREE``), else ``warn``:
  ``stop`` and ``ask`` exit with status 75 (``--runctx=wait`` does not wait
  for another user's run);
- the caller's own run is found through ``NSpid`` (its pid as the ``/proc``
  read numbers it), so a session never waits for itself; where ``/proc`` is
  another pid namespace's, a session that would have to wait exits with 75
  instead of following pids that are not its own;
- the terminal summary says whether contention was seen during the session
  (sampled at the start, at the first test report under xdist, every ``--runctx-sample``
  seconds, and at the end), so a flaky failure can be read against it. The
  session's own processes are never contention: the box's CPU pressure and
  load are taken at the start, before xdist's workers start; while the
  session runs, the box counts as busy only when processes outside the
  session keep half its CPUs busy (:mod:`runctx.session_cpu`);
- the checkout's ``on-busy-box = "wait"`` makes the session start wait
  while the box is over a pressure or memory threshold (``--runctx-timeout``
  bounds it), whoever's runs cause it; ``warn`` puts a line in the header;
- with ``-n auto`` (pytest-xdist) the worker count leaves room for the CPUs
  other runs keep busy now, and for memory: no more workers than the
  memory available above the checkout's ``busy-box-memory-available`` share
  holds, at the controller's own size each (``--runctx-worker-memory``);
- the code under test: at session start the header names each of the
  project's packages that is (or will be) imported from outside this checkout,
  and why (:mod:`runctx.code_origin`), checked again after collection;
  ``--runctx-code=refuse`` exits with status 75 on it;
- stale bytecode (:mod:`runctx.bytecode`): ``--runctx-bytecode=check`` names,
  after the session, every module of the checkout whose code is not what its
  source on disk compiles to (xdist workers hand theirs to the controller),
  and fails a session that passed on it; ``fresh`` compiles the session into
  a cache of its own.

With pytest-xdist only the controller acts: workers never scan, report or
wait, and the run's own processes (controller, workers) are this run, never
contention. A failure inside runctx never breaks a session: it becomes one
line in the header, and the session goes on (``refuse`` refuses only on a
real finding).

Loading the plugin imports pytest and the standard library, nothing else:
every other module (runctx's own, and attrs, structlog, psutil, which could
be the very project under test) is imported inside the hooks, after a
coverage tool such as pytest-cov has started measuring (it starts in its
``tryfirst`` ``pytest_load_initial_conftests``), so that the plugin changes no
coverage figure of a project it uses; and even a broken install cannot stop
pytest from loading this plugin. Every line it writes
(header, summary, progress, the message of a refusal) is escaped for the
terminal (:func:`runctx.present.escape.visible`), so a foreign run's argv or
directory name cannot write on it.

The ``pytest11`` entry point names :mod:`runctx.pytest_entry`, which registers
this module unless it is registered already, so ``-p runctx.pytest_plugin`` or
``pytest_plugins = ["runctx.pytest_plugin"]`` next to the installed entry
point load it once, not twice (pytest would refuse the second).
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import os
import sys
import time
from collections.abc import Callable, Generator

import pytest

from runctx.exits import EXIT_REFUSED

TYPE_CHECKING = False
if TYPE_CHECKING:
    from runctx.busy import BoxPressure
    from runctx.bytecode import StaleModule
    from runctx.code_origin import CodeCheck, Install
    from runctx.policy import Decision
    from runctx.records import ProcIdentity
    from runctx.report import JudgedRun, Report, Viewpoint
    from runctx.settings import BusyRules, Settings
    from runctx.sources import ProcessSource
    from runctx.sources.load import Load
    from runctx.waiting import DecidedWait, WaitOutcome

MODES = ("warn", "wait", "refuse", "stop", "ask")
"""The plugin's words for the policy's modes: ``refuse`` is the policy's ``stop``."""
POLICY_MODES = {"warn": "warn", "wait": "wait", "refuse": "stop", "stop": "stop", "ask": "ask"}
CODE_MODES = ("warn", "refuse")
"""``--runctx-code``: what a session does when the code under test is another checkout's."""
BYTECODE_MODES = ("off", "check", "fresh")
"""``--runctx-bytecode``: nothing, check the bytecode after the session, or a fresh cache."""
DEFAULT_SAMPLE_SECONDS = 30.0
AUTO_WINDOW_SECONDS = 0.3
"""How long the CPU use of other runs is measured for ``-n auto``."""
MIN_WORKER_BYTES = 64 * 1024 * 1024
"""The least memory a worker is taken to need when none is given (64 MiB)."""

PREFIX = "runctx: "
SUMMARY_BUSY_NAMED = 2
"""Busy foreign runs the summary names (the busiest); the others are counted, as in a note."""
SUMMARY_OURS_NAMED = 3
"""Runs of this checkout the summary names; the others are counted, as in a refusal."""


@dataclasses.dataclass(frozen=True)
class Sample:
    """What one scan during the session saw besides this run."""

    label: str
    ours: tuple[JudgedRun, ...]
    foreign: tuple[JudgedRun, ...]
    load: Load
    busy_foreign: tuple[JudgedRun, ...] = ()
    pressure: tuple[str, ...] = ()


@dataclasses.dataclass
class PluginState:
    """The controller's state for one session, kept in ``config.stash``."""

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
    header: list[str] = dataclasses.field(default_factory=list)
    samples: list[Sample] = dataclasses.field(default_factory=list)
    errors: list[str] = dataclasses.field(default_factory=list)
    rootdir: str | None = None
    here: Viewpoint | None = None
    source: ProcessSource | None = None
    start: Report | None = None
    decision: Decision | None = None
    waited: WaitOutcome | None = None
    urgent: list[str] = dataclasses.field(default_factory=list)
    """Header lines written under ``-q`` too: runs of this checkout, other users' in it."""
    brief: list[str] = dataclasses.field(default_factory=list)
    """The parts of the one header line written unless ``-v`` (:mod:`runctx.pytest_brief`)."""
    brief_urgent: list[str] = dataclasses.field(default_factory=list)
    """The parts of that line written under ``-q`` too."""
    last_sample: float = 0.0
    reports_seen: int = 0
    sampling: bool = True


STATE = pytest.StashKey[PluginState]()
AUTO_WORKERS_NOTE = pytest.StashKey[str]()


THIRD_PARTY = ("attr", "attrs")
"""The packages runctx's modules use as they load, which may be the project under test."""


@contextlib.contextmanager
def _untraced() -> Generator[None, None, None]:
    """Keep runctx's own work unseen by a coverage tool measuring the session.

    The packages runctx uses (:data:`THIRD_PARTY`) are imported first, while
    coverage measures, so that their module-level lines count as the suite's
    own import of them would; then coverage (``coverage.Coverage.current()``,
    as pytest-cov runs it) stops while runctx defines its records and scans,
    so that runctx's use of them covers no line of a project that is one of
    them. Coverage figures are then those of the suite alone.
    """
    import importlib  # noqa: PLC0415

    for name in THIRD_PARTY:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    coverage = sys.modules.get("coverage")
    current = getattr(getattr(coverage, "Coverage", None), "current", None)
    measuring = current() if callable(current) else None
    stopped = False
    if measuring is not None:
        with contextlib.suppress(Exception):
            measuring.stop()
            stopped = True
    try:
        yield
    finally:
        if stopped and measuring is not None:
            measuring.start()


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def _error_text(error: BaseException) -> str:
    return _visible(f"{type(error).__name__}: {error}")


def _visible(text: str) -> str:
    """``text`` escaped for the terminal, line by line, in what its encoding can hold.

    pytest's terminal writer escapes a whole line again (backslashes too)
    when one character does not fit the terminal's encoding (``…`` on an
    ASCII terminal); written as its escape here, nothing is escaped twice.
    """
    from runctx.present.escape import terminal_text  # noqa: PLC0415 - see the module docstring

    return terminal_text(text, getattr(sys.__stdout__, "encoding", None))


# -- options ------------------------------------------------------------------------


def pytest_addoption(parser: pytest.Parser) -> None:
    """Declare the ``--runctx`` options and their ini settings."""
    group = parser.getgroup("runctx", "runctx: other test runs live on this machine")
    group.addoption(
        "--runctx",
        dest="runctx",
        choices=MODES,
        default=None,
        help=(
            "what to do when another run of this checkout is live: warn (report it), wait "
            "(until it ends) or refuse (exit 75; stop and ask do the same). Default: the "
            "checkout's on-same-checkout setting, else warn. ini: runctx"
        ),
    )
    group.addoption(
        "--runctx-timeout",
        dest="runctx_timeout",
        default=None,
        metavar="DURATION",
        help="with --runctx=wait, give up after DURATION (90, 90s, 10m) and exit 75. "
        "Default: wait for ever. ini: runctx_timeout",
    )
    group.addoption(
        "--runctx-poll",
        dest="runctx_poll",
        default=None,
        metavar="DURATION",
        help="with --runctx=wait, scan every DURATION (default: as often as runctx wait). "
        "ini: runctx_poll",
    )
    group.addoption(
        "--runctx-sample",
        dest="runctx_sample",
        default=None,
        metavar="DURATION",
        help="sample contention during the session at most every DURATION "
        f"(default {DEFAULT_SAMPLE_SECONDS:g}s). ini: runctx_sample",
    )
    group.addoption(
        "--runctx-worker-memory",
        dest="runctx_worker_memory",
        default=None,
        metavar="MIB",
        help="with -n auto, the memory one worker is taken to need, in MiB (default: the "
        "controller's own resident size). ini: runctx_worker_memory",
    )
    group.addoption(
        "--runctx-share-cpus",
        dest="runctx_share_cpus",
        choices=("yes", "no"),
        default=None,
        help="with -n auto, leave room for the CPUs other runs keep busy (default yes). "
        "ini: runctx_share_cpus",
    )
    group.addoption(
        "--runctx-code",
        dest="runctx_code",
        choices=CODE_MODES,
        default=None,
        help=(
            "when the project's packages are imported from outside this checkout (an editable "
            "install pointing at another worktree): warn (say so in the header) or refuse "
            "(exit 75). Default warn. ini: runctx_code"
        ),
    )
    group.addoption(
        "--runctx-bytecode",
        dest="runctx_bytecode",
        choices=BYTECODE_MODES,
        default=None,
        help=(
            "stale bytecode: check (after the session, name every module of this checkout "
            "whose code is not what its source on disk compiles to) or fresh (compile into a "
            "cache of the session's own, so no earlier cache can serve it). Default off. "
            "ini: runctx_bytecode"
        ),
    )
    parser.addini("runctx_code", "runctx: warn or refuse when the code is another's", default="")
    parser.addini("runctx_bytecode", "runctx: off, check or fresh", default="")
    parser.addini("runctx", "runctx mode: warn, wait or refuse", default="")
    parser.addini("runctx_timeout", "runctx: longest wait with --runctx=wait", default="")
    parser.addini("runctx_poll", "runctx: scan interval while waiting", default="")
    parser.addini("runctx_sample", "runctx: contention sampling interval", default="")
    parser.addini(
        "runctx_share_cpus", "runctx: -n auto leaves room for other runs", type="bool", default=True
    )
    parser.addini("runctx_worker_memory", "runctx: MiB one worker needs, for -n auto", default="")


def _setting(config: pytest.Config, name: str) -> str:
    """The command-line value of a setting, else its ini value."""
    value = config.getoption(name)
    if value is None:
        value = config.getini(name)
    return str(value).strip()


def _duration(config: pytest.Config, name: str, default: float | None) -> float | None:
    text = _setting(config, name)
    if not text:
        return default
    from runctx.waiting import parse_duration  # noqa: PLC0415 - see the module docstring

    try:
        return parse_duration(text)
    except ValueError as error:
        msg = f"--{name.replace('_', '-')} / {name}: {error}"
        raise pytest.UsageError(msg) from None


def _share_cpus(config: pytest.Config) -> bool:
    value = config.getoption("runctx_share_cpus")
    if value is None:
        return bool(config.getini("runctx_share_cpus"))
    return bool(value == "yes")


def _checkout_settings(config: pytest.Config) -> tuple[Settings, tuple[str, ...]]:
    """The settings of the checkout the session's rootdir is in, and what is wrong with them.

    A typo in ``[tool.runctx]`` (or the user's file, or ``$RUNCTX_ON_...``), or
    a settings file that cannot be read at all (a FIFO another user put in a
    shared directory, a file past the bound), never stops the session: the
    plugin warns, naming the file, the line and what is wrong, and that
    layer's keys have their defaults (:func:`runctx.settings.settings_and_problems`).
    """
    from runctx.checkout import checkout_root  # noqa: PLC0415 - see the module docstring
    from runctx.settings import settings_and_problems  # noqa: PLC0415

    settings, problems = settings_and_problems(checkout_root(str(config.rootpath)))
    return settings, tuple(
        problem if _IGNORED_KEY in problem else f"{problem}; its defaults are used instead"
        for problem in problems
    )


_IGNORED_KEY = "not a runctx setting, ignored"
"""How a problem that leaves out only one misspelt key says so (:mod:`runctx.settings`)."""


def _mode(config: pytest.Config, settings: Settings) -> tuple[str, str]:
    """The session's mode and where it came from: option, ini, the checkout, or the default."""
    option = config.getoption("runctx")
    if option:
        return str(option), f"--runctx={option}"
    ini = str(config.getini("runctx")).strip()
    if ini:
        if ini not in MODES:
            msg = f"runctx = {ini!r}: choose one of {', '.join(MODES)}"
            raise pytest.UsageError(msg)
        return ini, f"--runctx={ini}"
    from runctx.settings import ENVIRONMENT_LAYER, MODE_ENV, MODE_KEY  # noqa: PLC0415

    chosen = settings.on_same_checkout
    if chosen is None:
        return "warn", "--runctx=warn"
    if settings.source_of(MODE_KEY) == ENVIRONMENT_LAYER:
        return chosen.value, f"${MODE_ENV}={chosen.value}"
    return chosen.value, f'{MODE_KEY} = "{chosen.value}"'


def _shared_mode(settings: Settings) -> tuple[str, str]:
    """The mode for another user's run in this checkout, and where it came from.

    The checkout's ``on-shared-tree`` (or ``$RUNCTX_ON_SHARED_TREE``), else the
    plugin's default, ``warn``: like ``on-same-checkout``, a checkout that sets
    nothing keeps the plugin to reporting.
    """
    from runctx.settings import (  # noqa: PLC0415
        ENVIRONMENT_LAYER,
        SHARED_TREE_ENV,
        SHARED_TREE_KEY,
    )

    chosen = settings.on_shared_tree
    if chosen is None:
        return "warn", ""
    if settings.source_of(SHARED_TREE_KEY) == ENVIRONMENT_LAYER:
        return chosen.value, f"${SHARED_TREE_ENV}={chosen.value}"
    return chosen.value, f'{SHARED_TREE_KEY} = "{chosen.value}"'


def _state_from(config: pytest.Config) -> PluginState:
    settings, warnings = _checkout_settings(config)
    mode, mode_from = _mode(config, settings)
    shared_mode, shared_from = _shared_mode(settings)
    poll = _duration(config, "runctx_poll", None) or None
    sample = _duration(config, "runctx_sample", DEFAULT_SAMPLE_SECONDS)
    return PluginState(
        mode=mode,
        mode_from=mode_from,
        timeout=_duration(config, "runctx_timeout", None),
        poll_seconds=poll,
        sample_seconds=DEFAULT_SAMPLE_SECONDS if sample is None else sample,
        shared_mode=shared_mode,
        shared_from=shared_from,
        busy=settings.busy,
        settings=settings,
        header=[f"{PREFIX}{warning}" for warning in warnings],
        urgent=[f"{PREFIX}{warning}" for warning in warnings],
        brief=list(warnings),
        brief_urgent=list(warnings),
    )


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    """Set up the controller's state; workers get none and never act."""
    with _untraced():
        _configure(config)


def _configure(config: pytest.Config) -> None:
    _configure_code(config)
    if _is_worker(config):
        return
    from runctx.handoff import take_handoff  # noqa: PLC0415 - see the module docstring

    handoff = take_handoff()
    try:
        state = _state_from(config)
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
    config.stash[STATE] = state
    config.pluginmanager.register(Sampler(state, config), "runctx-sampler")


# -- what a report says -------------------------------------------------------------


def session_decision(
    report: Report, mode: str, shared_mode: str = "warn", busy: BusyRules | None = None
) -> Decision:
    """The policy's decision for this session about to start, in the plugin's ``mode``.

    ``shared_mode`` is the policy's mode for another user's run in this
    checkout; ``busy`` the checkout's thresholds and ``on-busy-box``.
    """
    from runctx import policy  # noqa: PLC0415 - see the module docstring
    from runctx.modes import Mode  # noqa: PLC0415
    from runctx.settings import DEFAULT_BUSY  # noqa: PLC0415

    return policy.decision_for(
        report,
        Mode(POLICY_MODES[mode]),
        own_run=True,
        shared_mode=Mode(POLICY_MODES[shared_mode]),
        busy=busy if busy is not None else DEFAULT_BUSY,
    )


def started_after(report: Report) -> tuple[JudgedRun, ...]:
    """The runs of this checkout that started after this session's own run.

    They come after it: each waits for this session, or runs beside it, as its
    own mode says; this session is never told to stop them.
    """
    self_run = report.self_run
    if self_run is None or self_run.foreign:
        return ()
    mine = (self_run.run.identity.start, self_run.run.identity.pid)
    return tuple(
        judged
        for judged in report.ours
        if (judged.run.identity.start, judged.run.identity.pid) > mine
    )


def checkout_lines(report: Report) -> list[str]:
    """The lines on runs of this checkout and on other users' runs in it (no prefix).

    These are the lines that matter whatever the verbosity: they are written
    under ``-q`` too. A run of this checkout that started after this session
    is named as such, with no advice to stop it.
    """
    from runctx.present.words import (  # noqa: PLC0415 - see the module docstring
        describe_ours,
        same_checkout_lines,
        shared_tree_message,
    )

    lines: list[str] = []
    later = started_after(report)
    earlier = tuple(judged for judged in report.ours if judged not in later)
    if earlier:
        lines.extend(same_checkout_lines(earlier))
    if later:
        runs = "run of this checkout" if len(later) == 1 else "runs of this checkout"
        lines.append(
            f"{len(later)} {runs} started after this session: "
            + "; ".join(describe_ours(judged) for judged in later)
            + " (each waits for this session or runs beside it, as its own mode says)."
        )
    if report.shared_tree:
        lines.append(shared_tree_message(report.shared_tree, held=False))
    return lines


def contention_lines(report: Report, busy: BusyRules | None) -> list[str]:
    """What the scan at session start saw besides this run, briefly (no prefix).

    Runs of this checkout and other users' runs in it are named; foreign runs
    only when busy now or when the box is under pressure, else counted
    (:func:`runctx.present.words.live_lines`).
    """
    from runctx.present.words import COUNTED_FOREIGN, live_lines  # noqa: PLC0415
    from runctx.settings import DEFAULT_BUSY  # noqa: PLC0415

    rules = busy if busy is not None else DEFAULT_BUSY
    return live_lines(report, rules, foreign=COUNTED_FOREIGN, checkout=checkout_lines(report))


def header_lines(  # noqa: PLR0913 - each piece of the header is its own fact
    report: Report,
    decision: Decision,
    mode_from: str,
    timeout: float | None,
    shared_from: str = "",
    *,
    busy: BusyRules | None = None,
    said: bool = False,
) -> list[str]:
    """The header lines for the scan at session start (none when nothing is live).

    ``said``: ``runctx run`` said what the scan found already, so only what
    the plugin decides is added.
    """
    from runctx.modes import Mode  # noqa: PLC0415
    from runctx.policy import Action, Cause  # noqa: PLC0415
    from runctx.waiting import blocking_runs  # noqa: PLC0415

    lines: list[str] = [] if said else [PREFIX + line for line in contention_lines(report, busy)]
    if decision.cause is Cause.SHARED_TREE:
        lines.append(
            f"{PREFIX}{shared_from or 'on-shared-tree'}: not starting next to another user's "
            f"run in this checkout (exit {EXIT_REFUSED})"
        )
        return lines
    if decision.box_action is Action.WAIT:
        until = "no timeout" if timeout is None else f"timeout {timeout:g}s"
        lines.append(
            f'{PREFIX}on-busy-box = "wait": waiting until the box is less busy '
            f"({', '.join(decision.box.reasons)}; {until})"
        )
    if decision.mode is Mode.WARN:
        return lines
    count = len(blocking_runs(report))
    runs = "run" if count == 1 else "runs"
    if decision.same_action not in {Action.STOP, Action.ASK, Action.WAIT}:
        limits = report.visibility.notes
        seen = f" (not seen: {'; '.join(limits)})" if limits else ""
        lines.append(
            f"{PREFIX}{mode_from}: no earlier run of this checkout is live{seen}; going ahead"
        )
    elif decision.same_action is Action.WAIT:
        until = "no timeout" if timeout is None else f"timeout {timeout:g}s"
        lines.append(
            f"{PREFIX}{mode_from}: waiting for {count} earlier {runs} of this checkout "
            f"to end ({until})"
        )
    else:
        lines.append(
            f"{PREFIX}{mode_from}: not starting next to {count} earlier {runs} of this "
            f"checkout (exit {EXIT_REFUSED})"
        )
    return lines


OTHERS_BUSY_SHARE = 0.5
"""During a session, the box is busy when processes outside it keep this share of its CPUs busy."""


def _sample_of(
    label: str,
    report: Report,
    busy: BusyRules | None = None,
    *,
    during: bool = False,
    others: tuple[float, float] | None = None,
) -> Sample:
    """What one scan saw besides this run.

    A scan taken before the session's workers start sees the box's figures
    (CPU pressure, load average, memory) as others left it. One taken
    ``during`` the session sees averages that count the session's own
    processes: CPU pressure and load are left out, and the box is busy only
    when processes outside the session kept :data:`OTHERS_BUSY_SHARE` of its
    CPUs busy (``others``: the CPUs they and the session kept busy,
    :func:`runctx.session_cpu.others_busy_cpus`; None where that cannot be
    measured).
    """
    from runctx.busy import box_pressure, split_by_cpu  # noqa: PLC0415
    from runctx.settings import DEFAULT_BUSY, BusyRules  # noqa: PLC0415
    from runctx.unknown import Unknown  # noqa: PLC0415

    rules = busy if busy is not None else DEFAULT_BUSY
    busy_runs, _idle = split_by_cpu(report.foreign, rules)
    if isinstance(report.cpu_window, Unknown):
        # A scan that measured no CPU use (the wait's last one) tells no busy run
        # from an idle one: it names none as busy; the other samples do.
        busy_runs = ()
    if not during:
        pressure = box_pressure(report.load, rules).reasons
    else:
        memory_only = BusyRules(
            run_cpu=rules.run_cpu,
            cpu_pressure=None,
            load_per_cpu=None,
            memory_available=rules.memory_available,
            on_busy_box=rules.on_busy_box,
        )
        pressure = box_pressure(report.load, memory_only).reasons
        usable = report.load.usable_cpus
        if others is not None and not isinstance(usable, Unknown) and usable > 0:
            theirs, mine = others
            if theirs >= OTHERS_BUSY_SHARE * usable:
                outside = (
                    f"processes outside this session kept {theirs:.1f} of {usable} usable CPUs "
                    f"busy (this session {mine:.1f})"
                )
                pressure = (outside, *pressure)
    return Sample(
        label=label,
        ours=report.ours,
        foreign=report.foreign,
        load=report.load,
        busy_foreign=busy_runs,
        pressure=pressure,
    )


def _others_now(report: Report) -> tuple[float, float] | None:
    """The CPUs processes outside this session, and this session, keep busy now."""
    from runctx.session_cpu import others_busy_cpus  # noqa: PLC0415 - see the module docstring

    self_run = report.self_run
    own = [os.getpid()] if self_run is None else [p.pid for p in self_run.run.processes]
    return others_busy_cpus(own)


def summary_lines(samples: list[Sample], errors: list[str], *, always: bool) -> list[str]:
    """The terminal summary: what the samples saw; empty when nothing and not ``always``.

    Runs of this checkout (at most :data:`SUMMARY_OURS_NAMED`) and foreign
    runs that were busy in a sample (the busiest :data:`SUMMARY_BUSY_NAMED`)
    are named, the others counted; foreign runs only ever seen idle, on a box
    never under pressure, are counted. The summary stays short however many
    runs the box holds: ``runctx status`` shows them all.
    """
    labels = _labels(samples)
    count = len(samples)
    taken = f"{count} sample{'s' if count != 1 else ''}: {labels}"
    lines = [f"runctx could not check for other runs: {error}" for error in errors]
    ours: dict[ProcIdentity, tuple[JudgedRun, list[str]]] = {}
    busy: dict[ProcIdentity, tuple[JudgedRun, list[str]]] = {}
    for sample in samples:
        for bucket, runs in ((ours, sample.ours), (busy, sample.busy_foreign)):
            for judged in runs:
                _, seen_in = bucket.get(judged.run.identity, (judged, []))
                seen_in.append(sample.label)
                bucket[judged.run.identity] = (judged, seen_in)  # described as last seen
    from runctx.busy import ended_in_window  # noqa: PLC0415

    seen = (j.run for sample in samples for j in sample.foreign)
    idle = {run.identity for run in seen if not ended_in_window(run)} - set(busy)
    pressed = [sample for sample in samples if sample.pressure]
    if not ours and not busy and not pressed:
        if samples and (always or errors):
            if idle:
                lines.append(
                    f"no busy test run was seen during this session ({taken}; "
                    f"{_idle_runs(len(idle))})"
                )
            else:
                lines.append(f"no other test run was seen during this session ({taken})")
        return lines
    from runctx.present.words import describe_foreign, describe_ours  # noqa: PLC0415

    lines.append(f"contention was seen during this session ({taken}):")
    lines.extend(
        _named_then_counted(
            list(ours.values()),
            SUMMARY_OURS_NAMED,
            lambda judged: f"other run of this checkout: {describe_ours(judged)}",
            ("run of this checkout", "runs of this checkout"),
        )
    )
    lines.extend(
        _named_then_counted(
            sorted(busy.values(), key=lambda item: _cpu_now(item[0]), reverse=True),
            SUMMARY_BUSY_NAMED,
            lambda judged: f"busy foreign run: {describe_foreign(judged)}",
            ("busy foreign test run", "busy foreign test runs"),
        )
    )
    if idle:
        lines.append(f"  +{_idle_runs(len(idle))}")
    if pressed:
        lines.append(f"  box busy ({pressed[0].label}): {', '.join(pressed[0].pressure)}")
    lines.append(
        "Slowness, timeouts and flaky failures in this session may come from that "
        "contention rather than from a regression."
    )
    return lines


def _labels(samples: list[Sample]) -> str:
    """The samples' labels, a run of one label counted: ``start, 12 during, end``."""
    from itertools import groupby  # noqa: PLC0415 - see the module docstring

    said = []
    for label, group in groupby(sample.label for sample in samples):
        count = sum(1 for _ in group)
        said.append(label if count == 1 else f"{count} {label}")
    return ", ".join(said)


def _named_then_counted(
    seen: list[tuple[JudgedRun, list[str]]],
    limit: int,
    describe: Callable[[JudgedRun], str],
    noun: tuple[str, str],
) -> list[str]:
    """A summary line for each of the first ``limit`` runs, then one that counts the others."""
    lines = [
        f"  {describe(judged)} [seen at {', '.join(labels)}]" for judged, labels in seen[:limit]
    ]
    more = len(seen) - limit
    if more > 0:
        lines.append(f"  +{more} more {noun[0] if more == 1 else noun[1]}")
    return lines


def _cpu_now(judged: JudgedRun) -> float:
    """The CPUs a run kept busy when last seen; unmeasured first, as ``split_by_cpu`` puts them."""
    from runctx.unknown import Unknown  # noqa: PLC0415 - see the module docstring

    now = judged.run.cpu_now
    return float("inf") if isinstance(now, Unknown) else now


# -- writing ------------------------------------------------------------------------


def _write(config: pytest.Config, text: str) -> None:
    """A line on the terminal now, whatever the verbosity (stderr without a terminal)."""
    text = _visible(text)
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None:
        sys.stderr.write(text + "\n")
        sys.stderr.flush()
        return
    reporter.write_line(text)
    reporter.flush()


# -- the session --------------------------------------------------------------------


def _broken(state: PluginState, error: Exception) -> None:
    """Record a failure inside runctx: one header line, no more scans."""
    state.errors.append(_error_text(error))
    state.sampling = False
    state.header.append(f"{PREFIX}could not check for other runs ({_error_text(error)})")
    state.brief.append(f"could not check for other runs ({_error_text(error)})")


def _scan_measuring_foreign(state: PluginState, window: float) -> Report:
    """A scan from the session's checkout, with the CPU use now of the foreign runs."""
    from runctx.policy import measures_cpu  # noqa: PLC0415 - see the module docstring
    from runctx.scanning import scan  # noqa: PLC0415
    from runctx.settings import DEFAULTS  # noqa: PLC0415

    settings = state.settings if state.settings is not None else DEFAULTS
    return scan(
        state.here, source=state.source, cpu_window=window, cpu_of=measures_cpu, settings=settings
    )


def _first_scan(state: PluginState) -> None:
    if not state.sampling:
        return
    try:
        from runctx.cpu_window import DEFAULT_WINDOW_SECONDS  # noqa: PLC0415
        from runctx.scanning import viewpoint  # noqa: PLC0415
        from runctx.sources import default_source  # noqa: PLC0415

        # Chosen once: a test that changes RUNCTX_SOURCE must not change ours.
        state.source = default_source()
        # The session's checkout is its rootdir's, wherever it was started from.
        state.here = viewpoint(cwd=state.rootdir)
        report = _scan_measuring_foreign(state, DEFAULT_WINDOW_SECONDS)
        state.start = report
        state.decision = session_decision(report, state.mode, state.shared_mode, state.busy)
        state.samples.append(_sample_of("start", report, state.busy))
    except Exception as error:  # noqa: BLE001 - runctx never breaks a session
        _broken(state, error)
    state.last_sample = time.monotonic()


def _waited(state: PluginState) -> bool:
    """Whether the session waited (for a run of this checkout, or for room) before going ahead."""
    from runctx.policy import Action  # noqa: PLC0415 - see the module docstring

    decision = state.decision
    if decision is None or state.start is None:
        return False
    if state.waited is not None:
        return True
    return decision.action is Action.WAIT and not _refuses(state)


def _make_header(state: PluginState) -> None:
    """The header, from what is true once any wait is over: a scan after the wait, else the first.

    A header written from the first scan after a wait would name the run
    waited for as live, and advise stopping it, though it has ended.
    """
    from runctx.handoff import CHECKED, QUIET  # noqa: PLC0415 - see the module docstring

    report, decision = state.start, state.decision
    if report is None or decision is None:
        return  # no scan: a failure inside runctx, already in the header
    if _waited(state):
        try:
            from runctx.cpu_window import DEFAULT_WINDOW_SECONDS  # noqa: PLC0415

            report = _scan_measuring_foreign(state, DEFAULT_WINDOW_SECONDS)
            decision = session_decision(report, state.mode, state.shared_mode, state.busy)
        except Exception as error:  # noqa: BLE001 - runctx never breaks a session
            _broken(state, error)
            return
    state.urgent.extend(PREFIX + line for line in checkout_lines(report))
    brief_checkout = _brief_checkout(report)
    state.brief_urgent.extend(brief_checkout)
    if state.handoff not in {QUIET, CHECKED}:
        from runctx.pytest_brief import foreign_parts  # noqa: PLC0415
        from runctx.settings import DEFAULT_BUSY  # noqa: PLC0415

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
    from runctx.pytest_brief import ours_parts, shared_part  # noqa: PLC0415

    later = started_after(report)
    earlier = tuple(judged for judged in report.ours if judged not in later)
    return [*ours_parts(earlier, later), *shared_part(report.shared_tree)]


def _verbose(config: pytest.Config) -> bool:
    """Whether the session asked for details (``-v``): every line, not one."""
    return config.get_verbosity() > 0


def _header_shown(config: pytest.Config) -> bool:
    """Whether pytest writes the report header (not under ``-q``, ``-qq`` or ``--no-header``)."""
    return config.get_verbosity() >= 0 and not config.getoption("no_header", default=False)


def _write_urgent(config: pytest.Config, state: PluginState | None, code: CodeState | None) -> None:
    """Where pytest writes no header, the lines that matter whatever the verbosity.

    Runs of this checkout, other users' runs in it and code under test that is
    not this checkout's are written at once; everything else follows the
    verbosity (the header is not shown, the summary speaks under ``-v``).
    """
    if _header_shown(config):
        return
    from runctx.handoff import CHECKED, QUIET  # noqa: PLC0415 - see the module docstring

    lines: list[str] = []
    parts: list[str] = []
    if state is not None and state.handoff not in {CHECKED, QUIET}:  # runctx run said them
        lines.extend(state.urgent)
        parts.extend(state.brief_urgent)
    if code is not None:
        lines.extend(code.urgent)
        parts.extend(code.brief_urgent)
    if not _verbose(config):
        from runctx.pytest_brief import joined  # noqa: PLC0415

        lines = [PREFIX + joined(parts)] if parts else []
    for line in lines:
        _write(config, line)


def _refuses(state: PluginState) -> bool:
    """Whether the session's decision refuses it: a stop, or an ask (a session cannot ask)."""
    decision = state.decision
    if decision is None:
        return False  # no scan: a failure inside runctx, already in the header
    from runctx.policy import Action  # noqa: PLC0415

    if decision.action in {Action.STOP, Action.ASK}:
        return True
    return decision.action is Action.WAIT and Action.ASK in {
        decision.same_action,
        decision.shared_action,
    }


@pytest.hookimpl(wrapper=True)
def pytest_sessionstart(session: pytest.Session) -> Generator[None, None, None]:
    """Scan and wait before anything else starts; refuse once the header is out.

    xdist starts its workers in its own ``pytest_sessionstart``, which runs
    inside this wrapper: waiting before ``yield`` keeps them, and their
    collection in the checkout, from starting next to the run waited for (or
    on a busy box). A refusal comes after, so that the header says why first.
    """
    config = session.config
    state = config.stash.get(STATE, None)
    code = config.stash.get(CODE, None)
    with _untraced():
        if state is not None:
            _first_scan(state)
            if code is not None:
                _start_code(config, code, said=bool(state.errors))
            if not _refuses(state):
                _act(config, state)
            _make_header(state)
        _write_urgent(config, state, code)
    yield
    with _untraced():
        if state is not None and _refuses(state):
            _act(config, state)
        if code is not None and state is not None:
            _refuse_code_now(code)


def _act(config: pytest.Config, state: PluginState) -> None:
    """Carry out the session's decision: refuse, or wait (a warning is in the header)."""
    decision, report = state.decision, state.start
    if decision is None or report is None:
        return  # no scan: a failure inside runctx, already in the header
    from runctx.policy import Action, Cause  # noqa: PLC0415
    from runctx.present.words import same_checkout_message, shared_tree_message  # noqa: PLC0415

    if _refuses(state) and decision.cause is Cause.SHARED_TREE:
        setting = state.shared_from or "on-shared-tree"
        msg = (
            f"{shared_tree_message(decision.shared)}\nrunctx refused to start this session "
            f"({setting}, exit status {EXIT_REFUSED})."
        )
        pytest.exit(_visible(msg), returncode=EXIT_REFUSED)
    if _refuses(state):
        asks = " (it asks first, and a test session cannot ask)" if state.mode == "ask" else ""
        msg = (
            f"{same_checkout_message(report)}\nrunctx refused to start this session "
            f"({state.mode_from}{asks}, exit status {EXIT_REFUSED}); --runctx=wait waits "
            "for it instead."
        )
        pytest.exit(_visible(msg), returncode=EXIT_REFUSED)
    if decision.action is Action.WAIT:
        _wait(config, state, decision)


def _say(config: pytest.Config, state: PluginState, text: str) -> None:
    """A progress line, unless ``runctx run -q`` asked for silence."""
    from runctx.handoff import QUIET  # noqa: PLC0415

    if state.handoff != QUIET:
        _write(config, text)


def _wait(config: pytest.Config, state: PluginState, decision: Decision) -> None:
    """Wait as the decision asks (:func:`runctx.waiting.wait_as_decided`), or exit 75."""
    from runctx.exceptions import PidNamespaceError  # noqa: PLC0415
    from runctx.present.words import describe_ours  # noqa: PLC0415
    from runctx.settings import DEFAULTS  # noqa: PLC0415
    from runctx.waiting import DEFAULT_POLL_SECONDS, WaitListener, wait_as_decided  # noqa: PLC0415

    class Shown(WaitListener):
        def turn_changed(self, blocking: tuple[JudgedRun, ...]) -> None:
            if blocking:
                runs = "; ".join(describe_ours(judged) for judged in blocking)
                _say(config, state, f"{PREFIX}waiting for {runs}")

        def room_changed(self, pressure: BoxPressure) -> None:
            if pressure.busy:
                _say(config, state, f"{PREFIX}waiting for room: {', '.join(pressure.reasons)}")

    try:
        outcome = wait_as_decided(
            decision,
            timeout=state.timeout,
            settings=state.settings if state.settings is not None else DEFAULTS,
            listener=Shown(),
            poll_seconds=state.poll_seconds or DEFAULT_POLL_SECONDS,
            source=state.source,
        )
    except PidNamespaceError as error:
        msg = f"runctx: {error}; not starting this session (exit status {EXIT_REFUSED})."
        pytest.exit(msg, returncode=EXIT_REFUSED)
    except Exception as error:  # noqa: BLE001 - runctx never breaks a session
        state.errors.append(_error_text(error))
        _write(config, f"{PREFIX}could not wait ({_error_text(error)}); going ahead")
        return
    _after_wait(config, state, outcome)


def _after_wait(config: pytest.Config, state: PluginState, outcome: DecidedWait) -> None:
    """Say how the wait ended, or exit 75 when it timed out."""
    from runctx.present.words import describe_ours  # noqa: PLC0415

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
            pytest.exit(_visible(msg), returncode=EXIT_REFUSED)
        state.samples.append(_sample_of("after wait", turn.report, state.busy))
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
            pytest.exit(_visible(msg), returncode=EXIT_REFUSED)
        _say(config, state, f"{PREFIX}waited {room.waited_seconds:.1f}s for room; going ahead")


def _sample(state: PluginState, label: str) -> None:
    if not state.sampling or state.here is None:
        return
    try:
        from runctx.cpu_window import DEFAULT_WINDOW_SECONDS  # noqa: PLC0415

        report = _scan_measuring_foreign(state, DEFAULT_WINDOW_SECONDS)
        others = _others_now(report)
        state.samples.append(_sample_of(label, report, state.busy, during=True, others=others))
    except Exception as error:  # noqa: BLE001 - runctx never breaks a session
        state.errors.append(_error_text(error))
        state.sampling = False
    state.last_sample = time.monotonic()


class Sampler:
    """Samples contention during the session, on the controller only.

    Test reports reach the controller from every xdist worker, so sampling on
    them follows the whole run: under xdist at the first report (the run at
    full width: the workers started after the first sample), then at most
    once per sample interval. A session without workers was sampled just
    before its first test: its next sample waits for the interval (or the
    end), so a short session scans twice, not three times.
    """

    def __init__(self, state: PluginState, config: pytest.Config) -> None:
        """Sample into ``state``."""
        self.state = state
        self.config = config

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Sample at the first test report under xdist, then at most every sample interval."""
        del report
        state = self.state
        state.reports_seen += 1
        first = state.reports_seen == 1 and _distributed(self.config)
        if first or time.monotonic() - state.last_sample >= state.sample_seconds:
            with _untraced():
                _sample(state, "first test" if first else "during")


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    """Sample once more at the end, before the summary is written; check the bytecode."""
    with _untraced():
        _finish_code(session)
        state = session.config.stash.get(STATE, None)
        if state is not None and state.start is not None:
            _sample(state, "end")


def pytest_report_header(config: pytest.Config) -> list[str]:
    """What the scan at session start saw, and what the plugin decided."""
    with _untraced():
        return _report_header(config)


def _report_header(config: pytest.Config) -> list[str]:
    state = config.stash.get(STATE, None)
    if state is None:
        return []
    from runctx.handoff import QUIET  # noqa: PLC0415 - see the module docstring

    lines = list(state.header)
    parts = list(state.brief)
    code = config.stash.get(CODE, None)
    if code is not None:
        lines.extend(code.header)
        parts.extend(code.brief)
    note = config.stash.get(AUTO_WORKERS_NOTE, None)
    if note is not None and state.handoff != QUIET:
        lines.append(PREFIX + note)
        parts.append(note)
    if not _verbose(config):
        from runctx.pytest_brief import MORE, joined  # noqa: PLC0415

        own = code.own_lines if code is not None else []
        more = f" ({MORE})" if len(lines) > 1 + len(own) else ""
        lines = [PREFIX + joined(parts) + more] if parts else []
        lines.extend(own)
    return [_visible(line) for line in lines]


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, exitstatus: int, config: pytest.Config
) -> None:
    """Whether contention was seen during the session."""
    with _untraced():
        _terminal_summary(terminalreporter, exitstatus, config)


def _terminal_summary(
    terminalreporter: pytest.TerminalReporter, exitstatus: int, config: pytest.Config
) -> None:
    state = config.stash.get(STATE, None)
    if state is None:
        return
    from runctx.handoff import CHECKED, QUIET  # noqa: PLC0415 - see the module docstring

    failed = exitstatus == pytest.ExitCode.TESTS_FAILED
    verbose = _verbose(config)
    always = failed or verbose
    # Under runctx run, which said what it saw, the summary speaks only when tests failed;
    # under -qq too.
    said = state.handoff == QUIET or (
        not failed and (state.handoff == CHECKED or config.get_verbosity() < -1)
    )
    samples = [] if said else state.samples
    code = config.stash.get(CODE, None)
    try:
        if verbose:
            lines = summary_lines(samples, state.errors, always=always)
        else:
            from runctx.pytest_brief import summary_line  # noqa: PLC0415

            line = summary_line(samples, state.errors, always=always)
            lines = [PREFIX + line] if line else []
        if code is not None:  # --runctx-bytecode asked for every line of it
            lines.extend(
                line if verbose or line.startswith(" ") else PREFIX + line
                for line in bytecode_summary(code)
            )
    except Exception as error:  # noqa: BLE001 - runctx never breaks a session
        lines = [f"runctx could not summarise ({_error_text(error)})"]
    if not lines:
        return
    if verbose:
        terminalreporter.write_sep("-", "runctx")
    for line in lines:
        terminalreporter.write_line(_visible(line))


# -- -n auto ------------------------------------------------------------------------


def busy_cpus(report: Report) -> tuple[float, int]:
    """CPUs kept busy now by other runs (not this one), and how many runs did so.

    Each run's ``cpu_now`` is what its processes used over the report's CPU
    window; a run whose use was not measured counts for none.
    """
    from runctx.unknown import Unknown  # noqa: PLC0415

    busy = 0.0
    runs = 0
    for judged in report.runs:
        now = judged.run.cpu_now
        if judged.run.is_self or isinstance(now, Unknown) or now <= 0:
            continue
        busy += now
        runs += 1
    return busy, runs


def shared_worker_count(base: int, usable_cpus: int, busy: float) -> int:
    """``base`` workers scaled to the share of the CPUs other runs leave free (at least 1)."""
    free = max(0.0, usable_cpus - busy) / usable_cpus
    return max(1, min(base, math.floor(base * free + 0.5)))


def memory_worker_count(
    base: int, available_bytes: int, total_bytes: int, reserve_percent: float, worker_bytes: int
) -> int:
    """At most ``base`` workers, as many as fit in the memory above the reserve (at least 1).

    The reserve is the checkout's ``busy-box-memory-available`` share of the
    total: the workers leave the box at least that much, so that they do not
    make it the busy box other runs wait for.
    """
    room = available_bytes - total_bytes * reserve_percent / 100
    if worker_bytes <= 0:
        return base
    return max(1, min(base, int(room // worker_bytes)))


@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """With ``-n auto``, leave room for the CPUs other live runs keep busy, and for memory."""
    if _is_worker(config) or os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    try:
        if not _share_cpus(config):
            return None
        return _auto_workers(config)
    except Exception as error:  # noqa: BLE001 - runctx never breaks a session
        config.stash[AUTO_WORKERS_NOTE] = f"-n auto left to xdist ({_error_text(error)})"
        return None


def _worker_bytes(config: pytest.Config) -> int:
    """The memory one worker is taken to need: the option, else the controller's own RSS."""
    text = _setting(config, "runctx_worker_memory")
    if text:
        try:
            mib = float(text)
        except ValueError:
            mib = -1.0
        if not 0 < mib < float("inf"):
            msg = f"--runctx-worker-memory / runctx_worker_memory: not a number of MiB: {text!r}"
            raise pytest.UsageError(msg)
        return int(mib * 1024 * 1024)
    import resource  # noqa: PLC0415 - only for -n auto

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux
    return max(MIN_WORKER_BYTES, peak)


def _auto_workers(config: pytest.Config) -> int | None:
    import importlib  # noqa: PLC0415

    from runctx.scanning import scan  # noqa: PLC0415
    from runctx.unknown import Unknown  # noqa: PLC0415

    xdist_count = importlib.import_module("xdist.plugin").pytest_xdist_auto_num_workers
    base = int(xdist_count(config))
    settings, _warnings = _checkout_settings(config)
    report = scan(cpu_window=AUTO_WINDOW_SECONDS, settings=settings)
    usable = report.load.usable_cpus
    if isinstance(usable, Unknown) or usable < 1:
        return None
    busy, runs = busy_cpus(report)
    workers = shared_worker_count(base, usable, busy)
    reasons = []
    if workers < base:
        reasons.append(f"other runs ({runs}) keep ~{busy:.1f} of {usable} usable CPUs busy")
    memory = report.load.memory
    if not isinstance(memory, Unknown):
        rules = settings.busy
        per_worker = _worker_bytes(config)
        fits = memory_worker_count(
            base,
            memory.available_bytes,
            memory.total_bytes,
            rules.memory_available or 0.0,
            per_worker,
        )
        if fits < base:
            workers = min(workers, fits)
            reasons.append(
                f"{memory.available_bytes / 2**30:.1f} GiB available holds {fits} at "
                f"{per_worker / 2**20:.0f} MiB each"
            )
    if workers >= base:
        return None
    config.stash[AUTO_WORKERS_NOTE] = (
        f"-n auto: {workers} worker{'s' if workers != 1 else ''} instead of {base}: "
        + "; ".join(reasons)
    )
    return workers


def _idle_runs(count: int) -> str:
    """``1 idle foreign test run``, ``3 idle foreign test runs``."""
    return f"{count} idle foreign test run" + ("" if count == 1 else "s")


# -- the code under test, and its bytecode --------------------------------------------

FRESH_ENV = "RUNCTX_FRESH_PYCACHE"
"""Set by a ``fresh`` session for the processes it starts (xdist workers): its cache prefix."""
STALE_OUTPUT = "runctx_stale"
"""The key under which an xdist worker hands its stale modules to the controller."""


@dataclasses.dataclass
class CodeState:
    """What the session knows about its code under test and its bytecode (``config.stash``)."""

    code_mode: str
    bytecode: str
    checkout: str | None = None
    header: list[str] = dataclasses.field(default_factory=list)
    urgent: list[str] = dataclasses.field(default_factory=list)
    """Header lines written under ``-q`` too: code under test that is not this checkout's."""
    brief: list[str] = dataclasses.field(default_factory=list)
    """The parts of the one header line written unless ``-v`` (:mod:`runctx.pytest_brief`)."""
    brief_urgent: list[str] = dataclasses.field(default_factory=list)
    """The parts of that line written under ``-q`` too."""
    own_lines: list[str] = dataclasses.field(default_factory=list)
    """Header lines of their own at any verbosity: ``--runctx-bytecode``, which asked for them."""
    check: CodeCheck | None = None
    installs: tuple[Install, ...] | None = None
    """The installs found at session start, for the check after collection."""
    refuse_after_collection: bool = False
    prefix: str | None = None
    owns_prefix: bool = False
    env_before: str | None = None
    prefix_before: str | None = None
    since_ns: int | None = None
    early: tuple[str, ...] = ()
    """Modules of the checkout imported before the fresh cache was in place."""
    no_write_before: str | None = None
    """What ``PYTHONDONTWRITEBYTECODE`` was before a fresh session wrote its cache anyway."""
    cannot: str = ""
    """Why a fresh session could not have a cache of its own (empty when it has one)."""
    stale: list[StaleModule] = dataclasses.field(default_factory=list)
    checked: int = 0
    errors: list[str] = dataclasses.field(default_factory=list)


CODE = pytest.StashKey[CodeState]()
FRESH = pytest.StashKey[CodeState]()


def _choice(config: pytest.Config, name: str, choices: tuple[str, ...], default: str) -> str:
    """An option's value, else its ini value, else ``default``; a bad ini value is an error."""
    value = getattr(config.known_args_namespace, name, None) or config.getoption(name, None)
    if value:
        return str(value)
    ini = str(config.getini(name)).strip()
    if not ini:
        return default
    if ini not in choices:
        msg = f"{name} = {ini!r}: choose one of {', '.join(choices)}"
        raise pytest.UsageError(msg)
    return ini


def _checkout_of(config: pytest.Config) -> str:
    """The checkout root of the session's rootdir (the rootdir itself when none is found)."""
    from runctx.checkout import checkout_root  # noqa: PLC0415 - see the module docstring

    root = checkout_root(str(config.rootpath))
    return str(root) if isinstance(root, str) else str(config.rootpath)


def pytest_load_initial_conftests(early_config: pytest.Config) -> None:
    """``--runctx-bytecode=fresh``: a cache of the session's own, before any conftest loads.

    Not ``tryfirst``: a coverage tool starts measuring in its own ``tryfirst``
    implementation of this hook, and whatever the cache is put in place with
    (the checkout's root, the modules imported already) is imported after it.
    The cache is in place first, with :mod:`runctx.pycache` alone (the
    standard library), so that nothing runctx imports next runs an old cache.
    """
    if _choice(early_config, "runctx_bytecode", BYTECODE_MODES, "off") != "fresh":
        return
    from runctx import pycache  # noqa: PLC0415 - see the module docstring

    state = CodeState(code_mode="warn", bytecode="fresh")
    before: dict[str, object] = {}
    try:
        inherited = os.environ.get(FRESH_ENV)
        state.prefix_before = sys.pycache_prefix
        if inherited and sys.pycache_prefix == inherited:
            state.prefix = inherited  # a worker of a fresh session: its cache is the session's
        else:
            before = dict(sys.modules)
            state.prefix = pycache.fresh_prefix()
            state.owns_prefix = True
            state.env_before = pycache.use_prefix(state.prefix)
            os.environ[FRESH_ENV] = state.prefix
        state.no_write_before = pycache.write_anyway()
        state.since_ns = pycache.filesystem_now()
    except Exception as error:  # noqa: BLE001 - runctx never breaks a session
        state.errors.append(_error_text(error))
        state.cannot = _error_text(error)
    try:
        state.checkout = _checkout_of(early_config)
        if before:
            from runctx import bytecode  # noqa: PLC0415

            state.early = tuple(
                name for name, _ in bytecode.checkout_modules(state.checkout, before)
            )
    except Exception as error:  # noqa: BLE001 - runctx never breaks a session
        state.errors.append(_error_text(error))
    early_config.stash[FRESH] = state


def _code_state(config: pytest.Config) -> CodeState:
    """The session's code state: options read, the fresh cache (if any) taken over."""
    code_mode = _choice(config, "runctx_code", CODE_MODES, "warn")
    mode = _choice(config, "runctx_bytecode", BYTECODE_MODES, "off")
    state = config.stash.get(FRESH, None) or CodeState(code_mode=code_mode, bytecode=mode)
    state.code_mode, state.bytecode = code_mode, mode
    if mode == "check" and state.since_ns is None:
        from runctx.pycache import filesystem_now  # noqa: PLC0415 - see the module docstring

        state.since_ns = filesystem_now()
    if state.checkout is None:
        state.checkout = _checkout_of(config)
    return state


def _bytecode_header(state: CodeState) -> list[str]:
    if state.bytecode == "fresh" and state.prefix is None:
        reason = state.cannot or "; ".join(state.errors) or "no cache was made"
        return [
            (
                f"{PREFIX}--runctx-bytecode=fresh: this session cannot have a cache of its own "
                f"({reason}); it runs on the usual cache"
            ),
        ]
    if state.bytecode == "fresh":
        lines = [
            (
                f"{PREFIX}--runctx-bytecode=fresh: this session compiles into a cache of its own "
                f"({state.prefix}), so no earlier cache can serve it"
            ),
        ]
        if state.no_write_before is not None:
            lines.append(
                f"{PREFIX}PYTHONDONTWRITEBYTECODE is set: the session writes its compiled modules "
                "into that cache all the same (and into no other), so that its processes compile "
                "each module once"
            )
        if state.early:
            lines.append(
                f"{PREFIX}not compiled into that cache, since they were imported before it was "
                "in place (when pytest started, by a plugin it loads at startup); checked against "
                "their source after the session instead: " + ", ".join(state.early)
            )
        return lines
    if state.bytecode == "check":
        return [
            (
                f"{PREFIX}--runctx-bytecode=check: every module imported from this checkout is "
                "checked against its source on disk after the session"
            ),
        ]
    return []


def _prediction_paths(config: pytest.Config) -> tuple[list[str], list[str]]:
    """The directories pytest will put before and after ``sys.path`` to import the tests."""
    from runctx.code_origin import pytest_import_dirs  # noqa: PLC0415 - see the module docstring

    mode = str(config.getoption("importmode", "prepend"))
    if mode == "importlib":
        return [], []
    patterns = [str(p) for p in config.getini("python_files")]
    found = pytest_import_dirs([str(arg) for arg in config.args], patterns)
    return (found, []) if mode == "prepend" else ([], found)


def _check_code_at_start(config: pytest.Config, state: CodeState) -> None:
    """Where the project's packages come from, into the header (controller only)."""
    from runctx.code_origin import check_code  # noqa: PLC0415 - see the module docstring
    from runctx.present.words import code_elsewhere_lines  # noqa: PLC0415

    assert state.checkout is not None  # noqa: S101 - set by _code_state
    front, back = _prediction_paths(config)
    from runctx.code_origin import checkout_installs  # noqa: PLC0415

    state.installs = checkout_installs()
    state.check = check_code(
        state.checkout, str(config.rootpath), front=front, back=back, installs=state.installs
    )
    lines = code_elsewhere_lines(state.check)
    state.header.extend(PREFIX + line for line in lines)
    state.urgent.extend(PREFIX + line for line in lines)
    if lines:
        from runctx.pytest_brief import one_line  # noqa: PLC0415

        state.brief.append(one_line(lines))
        state.brief_urgent.append(one_line(lines))
    # Collecting here tells what was really imported; xdist's controller never collects.
    in_process = not _distributed(config)
    state.refuse_after_collection = state.code_mode == "refuse" and in_process
    if lines and state.code_mode == "refuse":
        verdict = "after collection, if they still do" if in_process else "now"
        refusal = f"--runctx-code=refuse: not running these tests ({verdict}; exit {EXIT_REFUSED})"
        state.header.append(PREFIX + refusal)
        state.brief.append(refusal)


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    """After collection: what was really imported, said when it differs from the header."""
    with _untraced():
        _after_collection(session)


def _after_collection(session: pytest.Session) -> None:
    config = session.config
    state = config.stash.get(CODE, None)
    if state is None or state.check is None or _is_worker(config):
        return
    try:
        from attrs import evolve  # noqa: PLC0415 - see the module docstring

        from runctx.code_origin import check_code  # noqa: PLC0415
        from runctx.present.words import code_elsewhere_lines  # noqa: PLC0415

        assert state.checkout is not None  # noqa: S101 - set with the check
        now = check_code(state.checkout, str(config.rootpath), installs=state.installs)
    except Exception as error:  # noqa: BLE001 - runctx never breaks a session
        state.errors.append(_error_text(error))
        return
    before = {origin.package for origin in state.check.elsewhere}
    imported = {o.package for o in now.elsewhere if o.imported}
    cleared = sorted(before - {o.package for o in now.elsewhere})
    if cleared:
        _write(
            config,
            f"{PREFIX}after collection, imported from this checkout after all: "
            + ", ".join(cleared),
        )
    new = [o for o in now.elsewhere if o.imported and o.package not in before]
    if new:
        lines = code_elsewhere_lines(evolve(now, elsewhere=tuple(new)))
        if not _verbose(config):
            from runctx.pytest_brief import one_line  # noqa: PLC0415

            lines = [one_line(lines)]
        for line in lines:
            _write(config, PREFIX + line)
    # Refused: a package imported from elsewhere, or one the header named that an import
    # would still find elsewhere (a test that imports it in its body, or in a subprocess).
    still = {o.package for o in now.elsewhere if not o.imported} & before
    if state.refuse_after_collection and (imported or still):
        refused = evolve(
            now, elsewhere=tuple(o for o in now.elsewhere if o.imported or o.package in still)
        )
        msg = (
            "\n".join(code_elsewhere_lines(refused))
            + f"\nrunctx refused to run these tests (--runctx-code=refuse, exit status "
            f"{EXIT_REFUSED})."
        )
        pytest.exit(_visible("runctx: " + msg), returncode=EXIT_REFUSED)


def _refuse_code_now(state: CodeState) -> None:
    """``--runctx-code=refuse`` where no collection happens here (xdist's controller)."""
    if state.code_mode != "refuse" or state.refuse_after_collection or state.check is None:
        return
    if not state.check.elsewhere:
        return
    from runctx.present.words import code_elsewhere_lines  # noqa: PLC0415

    msg = (
        "\n".join(code_elsewhere_lines(state.check))
        + f"\nrunctx refused to run these tests (--runctx-code=refuse, exit status {EXIT_REFUSED})."
    )
    pytest.exit(_visible("runctx: " + msg), returncode=EXIT_REFUSED)


def _check_bytecode(config: pytest.Config, state: CodeState) -> None:
    """After the session: the modules of this checkout that did not run the code on disk."""
    if state.bytecode == "off" or state.since_ns is None or state.checkout is None:
        return
    from attrs import asdict  # noqa: PLC0415 - see the module docstring

    try:
        from runctx import bytecode  # noqa: PLC0415

        modules = bytecode.checkout_modules(state.checkout)
        if state.bytecode == "fresh":
            modules = [(name, module) for name, module in modules if name in state.early]
        state.checked += len(modules)
        for name, module in modules:
            found = bytecode.check_module(name, module, state.since_ns, config)
            if found is not None:
                state.stale.append(found)
    except Exception as error:  # noqa: BLE001 - runctx never breaks a session
        state.errors.append(_error_text(error))
    if _is_worker(config):
        output = getattr(config, "workeroutput", None)
        if isinstance(output, dict):
            output[STALE_OUTPUT] = {
                "checked": state.checked,
                "stale": [asdict(stale) for stale in state.stale],
                "errors": state.errors,
            }


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: object, error: object) -> None:
    """An xdist worker's stale modules, gathered on the controller."""
    del error
    config = getattr(node, "config", None)
    output = getattr(node, "workeroutput", None)
    if config is None or not isinstance(output, dict) or STALE_OUTPUT not in output:
        return
    state = config.stash.get(CODE, None)
    if state is None:
        return
    from runctx.bytecode import StaleModule  # noqa: PLC0415 - see the module docstring

    found = output[STALE_OUTPUT]
    state.checked += int(found.get("checked", 0))
    state.errors.extend(str(error) for error in found.get("errors", ()))
    for item in found.get("stale", ()):
        stale = StaleModule(**item)
        if stale not in state.stale:
            state.stale.append(stale)


FAILING_STALENESS = ("served", "changed", "sourceless")
"""What turns a passing ``check`` session's exit status to 1: code that is known not on disk."""


def bytecode_summary(state: CodeState) -> list[str]:
    """The terminal summary of ``--runctx-bytecode``."""
    if state.bytecode == "off":
        return []
    from runctx.present.words import stale_reason  # noqa: PLC0415 - see the module docstring

    lines = [f"runctx could not check the bytecode: {error}" for error in state.errors]
    if not state.stale:
        if state.bytecode == "check" or state.early:
            lines.append(
                f"--runctx-bytecode={state.bytecode}: all {state.checked} module(s) checked "
                "ran the code of their source on disk"
            )
        return lines
    failing = [s for s in state.stale if s.how in FAILING_STALENESS]
    lines.append(
        f"stale bytecode: {len(state.stale)} module(s) imported from this checkout did not "
        "(or may not) run the code of their source on disk:"
    )
    lines.extend(f"  {stale.name} ({stale.source}): {stale_reason(stale)}" for stale in state.stale)
    if failing:
        lines.append(
            "This session's results describe code that is not on disk. Rerun with "
            "--runctx-bytecode=fresh (a cache of the session's own), or remove the stale cache "
            f"(exit status {int(pytest.ExitCode.TESTS_FAILED)} when the session had passed)."
        )
    return lines


def _distributed(config: pytest.Config) -> bool:
    """Whether this is the controller of an xdist session (its workers collect and run)."""
    return not _is_worker(config) and config.pluginmanager.has_plugin("dsession")


def _configure_code(config: pytest.Config) -> None:
    """The code state, for the controller and every worker (each checks its own imports)."""
    try:
        config.stash[CODE] = _code_state(config)
    except pytest.UsageError:
        raise
    except Exception as error:  # noqa: BLE001 - runctx never breaks a session
        state = CodeState(code_mode="warn", bytecode="off")
        state.errors.append(_error_text(error))
        state.header.append(f"{PREFIX}could not check the code under test ({_error_text(error)})")
        state.brief.append(f"could not check the code under test ({_error_text(error)})")
        config.stash[CODE] = state


def _start_code(config: pytest.Config, state: CodeState, *, said: bool) -> None:
    """At session start: the code under test, and the bytecode mode, into the header.

    ``said``: a failure inside runctx is in the header already; one line is enough.
    """
    try:
        _check_code_at_start(config, state)
    except Exception as error:  # noqa: BLE001 - runctx never breaks a session
        state.errors.append(_error_text(error))
        if not said:
            state.header.append(
                f"{PREFIX}could not check the code under test ({_error_text(error)})"
            )
            state.brief.append(f"could not check the code under test ({_error_text(error)})")
    bytecode = _bytecode_header(state)
    state.header.extend(bytecode)
    state.own_lines.extend(bytecode)


def _finish_code(session: pytest.Session) -> None:
    """Check the bytecode, and fail a passing session that ran code not on disk."""
    config = session.config
    state = config.stash.get(CODE, None)
    if state is None:
        return
    if state.bytecode == "fresh" or not _distributed(config):
        _check_bytecode(config, state)
    if _is_worker(config):
        return
    if any(s.how in FAILING_STALENESS for s in state.stale) and session.exitstatus == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_unconfigure(config: pytest.Config) -> None:
    """Put the cache prefix back, and remove the session's own cache."""
    state = config.stash.get(CODE, None) or config.stash.get(FRESH, None)
    if state is None:
        return
    from runctx import pycache  # noqa: PLC0415 - see the module docstring

    pycache.restore_writing(state.no_write_before)
    state.no_write_before = None
    if not state.owns_prefix or state.prefix is None:
        return
    pycache.drop_prefix(state.prefix, state.env_before, state.prefix_before)
    if os.environ.get(FRESH_ENV) == state.prefix:
        del os.environ[FRESH_ENV]
