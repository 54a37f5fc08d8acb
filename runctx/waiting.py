"""Waiting for this checkout's other runs to end.

Two runs that each wait for the other would deadlock, so waiting follows one
order: a run waits only for runs of its checkout that started before it (by
start time, then pid). The older run goes ahead; the younger waits its turn.

A waiter that is not inside a run of this checkout waits for all of them: one
outside any run (``runctx wait`` from a shell), and one whose run belongs to
another checkout (a pytest started by a test of another project). No run of
this checkout can be waiting for such a waiter, because its run is not one of
this checkout's, so waiting for all cannot close a cycle.

A watcher of this checkout (a run that re-runs the tests on change, such as a
person's ``watch -n 600 pytest``: :mod:`runctx.watchers`) never ends by itself,
so it is not waited for unless asked: ``on-watcher = "wait"``, or
``runctx wait --watchers``.

Each poll is a fresh scan, so a run is followed by its identity (pid plus start
time), never by its pid alone: a pid that is reused by another process never
keeps a waiter waiting, not even when the newcomer is itself a run of this
checkout (it started after the waiter's run, so it waits for the waiter), and
an exited run that is still a zombie no longer counts.

A wait follows pids, so it happens only where the source's ``/proc`` is the
caller's own pid namespace's: elsewhere :func:`wait_for_turn` raises
:class:`~runctx.exceptions.PidNamespaceError` before it waits at all.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import attrs

from runctx._log import INFO, log_event
from runctx.actions import Action
from runctx.busy import BoxPressure, box_pressure
from runctx.exceptions import PidNamespaceError
from runctx.modes import Mode
from runctx.record_base import Record
from runctx.records import ProcIdentity
from runctx.report import JudgedRun, Report, Viewpoint, was_cut
from runctx.scanning import scan
from runctx.settings import DEFAULTS, BusyRules, Settings
from runctx.sources import ProcessSource, default_source
from runctx.sources.pidns import other_namespace_reason
from runctx.watchers import watcher_of

if TYPE_CHECKING:
    from runctx.policy import Decision

DEFAULT_POLL_SECONDS = 0.5
MIN_SCAN_SECONDS = 2.0
"""The least wall time a wait's scans get, however short its timeout (``--timeout 0``)."""
_UNITS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}


def parse_duration(text: str) -> float:
    """Seconds from ``90``, ``2.5``, ``500ms``, ``90s``, ``10m`` or ``1h``; ValueError otherwise.

    Negative, infinite and not-a-number values are refused.
    """
    msg = f"not a duration (seconds, or a number with ms, s, m or h): {text!r}"
    body = text.strip().lower()
    unit = next((unit for unit in _UNITS if body.endswith(unit)), "")
    try:
        seconds = float(body[: len(body) - len(unit)]) * _UNITS.get(unit, 1.0)
    except ValueError:
        raise ValueError(msg) from None
    if not 0 <= seconds < float("inf"):
        raise ValueError(msg)
    return seconds


@attrs.frozen(repr=False, eq=False)
class WaitOutcome(Record):
    """How a wait ended: ready (no earlier run of ours live) or timed out.

    ``report`` is the last scan; ``blocking`` the runs still in the way when the
    wait timed out (empty when ready); ``waited_for`` every run that blocked at
    some point of the wait, in the order they were first seen.
    """

    ready: bool
    waited_seconds: float
    report: Report
    blocking: tuple[JudgedRun, ...]
    waited_for: tuple[JudgedRun, ...] = ()


def _order(identity: ProcIdentity) -> tuple[int, int]:
    return (identity.start, identity.pid)


def _earlier(report: Report, runs: tuple[JudgedRun, ...]) -> tuple[JudgedRun, ...]:
    """``runs`` without those that started after the caller's run, when that run is ours."""
    self_run = report.self_run
    if self_run is None or self_run.foreign:
        return runs
    mine = _order(self_run.run.identity)
    return tuple(judged for judged in runs if _order(judged.run.identity) < mine)


def blocking_runs(
    report: Report, *, watchers: Sequence[str] = (), with_watchers: bool = False
) -> tuple[JudgedRun, ...]:
    """Runs of this checkout the caller must wait for.

    A watcher (:func:`runctx.watchers.watcher_of`, ``watchers`` the programs the
    settings declare) is one only ``with_watchers``: it never ends by itself.

    Every other run *known* to be this checkout's and user's, except those that
    started after the caller's own run when that run is one of this
    checkout's: those wait for the caller, not the other way round. A run of
    unknown identity is reported (it counts as ours there) but never waited
    for or refused for: a leftover whose cwd was deleted inside this checkout,
    or one whose cwd could not be read, would otherwise hold every run of its
    user.
    """
    runs = _earlier(report, report.ours_known)
    if with_watchers:
        return runs
    return tuple(judged for judged in runs if watcher_of(judged.run, watchers) is None)


def watching_runs(report: Report, watchers: Sequence[str] = ()) -> tuple[JudgedRun, ...]:
    """The watchers among the runs of this checkout a caller would otherwise wait for."""
    runs = _earlier(report, report.ours_known)
    return tuple(judged for judged in runs if watcher_of(judged.run, watchers) is not None)


def sharing_runs(report: Report) -> tuple[JudgedRun, ...]:
    """Other users' runs in this very checkout that a run starting now comes after.

    The same order as :func:`blocking_runs`: a run of another user that
    started after the caller's own run is that run's concern, not the caller's.
    """
    return _earlier(report, report.shared_tree)


def refuse_other_namespace(source: ProcessSource, act: str) -> None:
    """Raise :class:`PidNamespaceError` when ``source`` reads another pid namespace's pids."""
    if source.own_pid_namespace():
        return
    msg = f"cannot {act}: {other_namespace_reason(source.name, source.caller_pid())}"
    raise PidNamespaceError(msg)


def wait_for_turn(  # noqa: PLR0913 - each knob is independent
    here: Viewpoint,
    *,
    timeout: float | None,
    poll_seconds: float = DEFAULT_POLL_SECONDS,
    on_change: Callable[[tuple[JudgedRun, ...]], None] | None = None,
    source: ProcessSource | None = None,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
    on_poll: Callable[[tuple[JudgedRun, ...], float], None] | None = None,
    settings: Settings = DEFAULTS,
    with_watchers: bool | None = None,
    began: float | None = None,
) -> WaitOutcome:
    """Block until no earlier run of this checkout is live, or ``timeout`` passes.

    Watchers of this checkout are waited for only ``with_watchers`` (None: when
    the settings' ``on-watcher`` is ``wait``), see :func:`blocking_runs`.

    ``on_change`` is called with the blocking runs whenever that set of
    identities changes (first call included), so a caller can show who it waits
    for; ``on_poll`` after every scan with the blocking runs and the seconds
    waited so far (for a live progress line). ``timeout=None`` waits for ever;
    ``timeout=0`` takes one scan. ``timeout`` is wall time, scans included: a
    scan still running when it passes (or :data:`MIN_SCAN_SECONDS` after the
    start, if that is later) is cut, and a cut scan that shows no run in the
    way ends the wait as timed out, never as ready. So no scan is started that
    could not end in time (one takes as long as the last did): the rest of the
    timeout is waited out on what the last scan found. Raises
    :class:`~runctx.exceptions.PidNamespaceError` when the source's pids are
    not the caller's pid namespace's. ``settings`` gives the runner table
    each scan reads with. ``began``: the ``clock`` instant the wait counts
    from (default: now; ``runctx wait``, its command's start, as every
    ``--timeout`` counts).
    """
    source = source if source is not None else default_source()
    refuse_other_namespace(source, "wait")
    began = clock() if began is None else began
    if with_watchers is None:
        with_watchers = settings.watcher_mode is Mode.WAIT
    shown: frozenset[ProcIdentity] | None = None
    waited_for: dict[ProcIdentity, JudgedRun] = {}
    # --timeout is wall time: a scan is cut when it passes (and then says so), but
    # each wait gets its one scan, in at least MIN_SCAN_SECONDS.
    already = clock() - began  # runctx wait's imports, on a busy box seconds of them
    ends = None if timeout is None else time.monotonic() - already + max(timeout, MIN_SCAN_SECONDS)
    while True:
        scan_began = clock()
        report = scan(here, source=source, settings=settings, deadline=ends)
        took = clock() - scan_began
        blocking = blocking_runs(report, watchers=settings.watchers, with_watchers=with_watchers)
        identities = frozenset(judged.run.identity for judged in blocking)
        for judged in blocking:
            waited_for.setdefault(judged.run.identity, judged)
        if identities != shown:
            log_event(
                "runctx.wait_blocking",
                level=INFO,
                pids=[judged.run.pid for judged in blocking],
            )
            if on_change is not None:
                on_change(blocking)
        shown = identities
        waited = clock() - began
        if on_poll is not None:
            on_poll(blocking, waited)
        pause = max(poll_seconds if timeout is None else min(poll_seconds, timeout - waited), 0.0)
        # a scan that could not end before the timeout would be cut, and a cut scan tells
        # nothing (never ready): the wait is sat out on what this one found
        futile = timeout is not None and waited + pause + took > timeout
        if not blocking or futile or (timeout is not None and waited >= timeout):
            if blocking and timeout is not None and waited < timeout:
                sleep(timeout - waited)
                waited = clock() - began
            return WaitOutcome(  # a cut scan that shows no run in the way is not ready
                ready=not blocking and not was_cut(report),
                waited_seconds=waited,
                report=report,
                blocking=blocking,
                waited_for=tuple(waited_for.values()),
            )
        sleep(pause)


@attrs.frozen(repr=False, eq=False)
class RoomOutcome(Record):
    """How a wait for room ended: the box is no longer busy, or the wait timed out.

    ``pressure`` is what the last look at the box found (no reasons when ready).
    """

    ready: bool
    waited_seconds: float
    pressure: BoxPressure


def wait_for_room(  # noqa: PLR0913 - each knob is independent
    rules: BusyRules,
    *,
    timeout: float | None,
    poll_seconds: float = DEFAULT_POLL_SECONDS,
    on_change: Callable[[BoxPressure], None] | None = None,
    source: ProcessSource | None = None,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> RoomOutcome:
    """Block until the box is under every threshold of ``rules``, or ``timeout`` passes.

    Whoever's runs make the box busy, this waits (``on-busy-box = "wait"``):
    each poll reads the box's load and memory again (no process scan).
    ``on_change`` is called whenever the crossed thresholds change (first
    call included). ``timeout=None`` waits for ever; ``timeout=0`` looks once.
    """
    source = source if source is not None else default_source()
    began = clock()
    shown: tuple[str, ...] | None = None
    while True:
        pressure = box_pressure(source.load(), rules)
        crossed = tuple(reason.partition(" ")[0] for reason in pressure.reasons)
        if crossed != shown:
            log_event("runctx.wait_room", level=INFO, reasons=list(pressure.reasons))
            if on_change is not None:
                on_change(pressure)
        shown = crossed
        waited = clock() - began
        if not pressure.busy:
            return RoomOutcome(ready=True, waited_seconds=waited, pressure=pressure)
        if timeout is not None and waited >= timeout:
            return RoomOutcome(ready=False, waited_seconds=waited, pressure=pressure)
        pause = poll_seconds if timeout is None else min(poll_seconds, timeout - waited)
        sleep(max(pause, 0.0))


@attrs.frozen(repr=False, eq=False)
class DecidedWait(Record):
    """How a wait a decision asked for ended (:func:`wait_as_decided`).

    ``ready``: the command may start. Otherwise ``turn`` or ``room`` is the
    wait that timed out (the other None or ready). ``waited_seconds`` counts
    both.
    """

    ready: bool
    waited_seconds: float
    turn: WaitOutcome | None = None
    room: RoomOutcome | None = None


class WaitListener:
    """What a face shows while :func:`wait_as_decided` waits; each call is optional."""

    def turn_changed(self, blocking: tuple[JudgedRun, ...]) -> None:
        """The runs in the way changed (first call included)."""

    def turn_polled(self, blocking: tuple[JudgedRun, ...], waited: float) -> None:
        """A scan was taken while waiting for this checkout's runs."""

    def room_changed(self, pressure: BoxPressure) -> None:
        """The thresholds the box is over changed (first call included)."""


def wait_as_decided(  # noqa: PLR0913 - each knob is independent
    decision: Decision,
    *,
    timeout: float | None,
    settings: Settings = DEFAULTS,
    listener: WaitListener | None = None,
    poll_seconds: float = DEFAULT_POLL_SECONDS,
    source: ProcessSource | None = None,
) -> DecidedWait:
    """Carry out a decision whose action is :attr:`~runctx.policy.Action.WAIT`: the one executor.

    First this checkout's earlier runs, report by report (when
    ``decision.same_action`` waits), then room on the box (when
    ``decision.box_action`` does), within ``timeout`` seconds in all.
    ``runctx run`` and the pytest plugin both wait through this; each only
    words the outcome. Raises :class:`~runctx.exceptions.PidNamespaceError`
    as :func:`wait_for_turn` does.
    """
    shown = listener if listener is not None else WaitListener()
    waited = 0.0

    def left() -> float | None:
        return None if timeout is None else max(timeout - waited, 0.0)

    if decision.same_action is Action.WAIT:
        for report in decision.reports:
            turn = wait_for_turn(
                report.here,
                timeout=left(),
                poll_seconds=poll_seconds,
                on_change=shown.turn_changed,
                on_poll=shown.turn_polled,
                source=source,
                settings=settings,
            )
            waited += turn.waited_seconds
            if not turn.ready:
                return DecidedWait(ready=False, waited_seconds=waited, turn=turn)
    else:
        turn = None
    room = None
    if decision.box_action is Action.WAIT:
        room = wait_for_room(
            settings.busy,
            timeout=left(),
            poll_seconds=poll_seconds,
            on_change=shown.room_changed,
            source=source,
        )
        waited += room.waited_seconds
        if not room.ready:
            return DecidedWait(ready=False, waited_seconds=waited, turn=turn, room=room)
    return DecidedWait(ready=True, waited_seconds=waited, turn=turn, room=room)
