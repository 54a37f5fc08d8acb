"""Stopping a run of this checkout: only a run *known* to be ours, by pid and identity.

Reporting fails toward the visible answer (an unknown uid or root counts as
ours); stopping fails safe, the other way round. A run is stopped only when
its verdict is :attr:`~runctx.identity.Verdict.OURS` (its uid and its checkout
root were both read and both match), and never when it is the run the caller
belongs to. Anything else is refused with the reasons.

A run is stopped by the processes a fresh scan saw in it (the authoritative
process first, then its members, each by its identity), never by name. Right
before each signal the pid's identity (pid plus start time) is read again and
compared with the one the scan saw, so a pid that was reused by another
process is never hit; on Linux the signal goes through a pidfd opened before
that check, which pins the process, so not even a reuse between the check and
the signal can misdirect it. ``SIGTERM`` first, ``SIGKILL`` to whatever is
left after the grace period.

Pids are acted on only in the caller's own pid namespace: when the process
source reads a ``/proc`` of another pid namespace (``unshare -pf`` without
``--mount-proc``), its pids may name unrelated processes of the caller's
namespace, so every stop is refused and nothing is signalled.

``stop --orphans`` (:func:`stop_orphans`) stops, the same way, every run of
this checkout that is orphaned (:attr:`~runctx.report.Run.orphaned`: the
kernel's ``PPid`` names init or a known subreaper, so the process that
started it is gone; an xdist worker whose controller died is one; a run whose
living starter merely moved to a session of its own is not), and nothing
else: a foreign orphan is not this checkout's, and an orphan of unknown
identity is refused.

A checkout root is never a home directory by its markers
(:mod:`runctx.checkout`): the rule that keeps a dotfiles ``.git`` from merging
every project below it is the same for the report, the hooks and this stop.
"""

from __future__ import annotations

import enum
import os
import signal
import time
from collections.abc import Callable, Iterable, Sequence

import attrs

from runctx._log import INFO, log_event
from runctx.identity import Verdict
from runctx.present.words import describe_run
from runctx.record_base import Record
from runctx.records import ProcIdentity
from runctx.report import JudgedRun, Report, Viewpoint
from runctx.scanning import scan, viewpoint
from runctx.settings import DEFAULTS, Settings
from runctx.sources import ProcessSource, default_source
from runctx.sources.pidns import other_namespace_reason
from runctx.unknown import Unknown

DEFAULT_GRACE_SECONDS = 5.0
KILL_WAIT_SECONDS = 2.0
POLL_SECONDS = 0.05


class StopStatus(enum.Enum):
    """What became of one pid given to :func:`stop_runs`."""

    STOPPED = "stopped"
    """Every process of the run is gone."""
    NOT_A_RUN = "not-a-run"
    """No live test run has this pid: nothing was done."""
    REFUSED = "refused"
    """The run is not known to be this checkout's and user's, or it is this run."""
    SURVIVED = "survived"
    """The run was signalled, but some of its processes outlived ``SIGKILL``."""


@attrs.frozen(repr=False, eq=False)
class StopResult(Record):
    """What :func:`stop_runs` did for one pid, and why.

    ``signalled`` lists ``(pid, signal name)`` in the order sent; ``skipped``
    the ``(pid, why)`` of processes not signalled (gone, pid reused, not
    permitted); ``survivors`` the pids still live at the end.
    """

    pid: int
    status: StopStatus
    reasons: tuple[str, ...]
    run: JudgedRun | None = None
    signalled: tuple[tuple[int, str], ...] = ()
    skipped: tuple[tuple[int, str], ...] = ()
    survivors: tuple[int, ...] = ()
    seconds: float = 0.0


@attrs.frozen(repr=False, eq=False)
class StopPlan(Record):
    """What a scan allows for one pid: the processes to stop, or why not."""

    pid: int
    run: JudgedRun | None
    targets: tuple[ProcIdentity, ...]
    refusal: StopStatus | None
    reasons: tuple[str, ...]


def _refusal(judged: JudgedRun) -> tuple[str, ...] | None:
    run = judged.run
    if run.is_self:
        return (f"pid {run.pid} is the run this command belongs to; a run never stops itself",)
    if judged.judgement.verdict is Verdict.OURS:
        return None
    kind = "a foreign run" if judged.foreign else "a run whose identity is not fully known"
    return (
        f"pid {run.pid} is {kind}, not known to be this checkout's and user's",
        *judged.judgement.reasons,
    )


def plan_stop(report: Report, pids: Iterable[int]) -> tuple[StopPlan, ...]:
    """Decide, for each pid, whether the scan allows stopping its run (pure).

    A pid must be a run's authoritative pid; a member pid is refused with the
    run to name instead. A scan whose pids are not the caller's pid namespace's
    allows nothing.
    """
    if not report.visibility.own_pid_namespace:
        why = other_namespace_reason(report.visibility.source, report.self_pid)
        return tuple(
            StopPlan(pid, None, (), StopStatus.REFUSED, (why,)) for pid in dict.fromkeys(pids)
        )
    by_pid = {judged.run.pid: judged for judged in report.runs}
    plans: list[StopPlan] = []
    for pid in dict.fromkeys(pids):
        judged = by_pid.get(pid)
        if judged is None:
            owner = next((j for j in report.runs if pid in j.run.members), None)
            if owner is None:
                reason = f"no live test run has pid {pid}; runctx stops only test runs it sees"
                plans.append(StopPlan(pid, None, (), StopStatus.NOT_A_RUN, (reason,)))
            else:
                reason = (
                    f"pid {pid} is a member of run {owner.run.pid}, not a run's own pid: "
                    f"name the run (runctx stop {owner.run.pid})"
                )
                plans.append(StopPlan(pid, owner, (), StopStatus.REFUSED, (reason,)))
            continue
        refused = _refusal(judged)
        if refused is not None:
            plans.append(StopPlan(pid, judged, (), StopStatus.REFUSED, refused))
            continue
        plans.append(StopPlan(pid, judged, judged.run.processes, None, ()))
    return tuple(plans)


def plan_orphans(report: Report) -> tuple[StopPlan, ...]:
    """A plan for each orphaned run counted as this checkout's (pure).

    Foreign orphans get no plan at all (they are not this checkout's); an
    orphan of unknown identity gets a refusal, as ``stop PID`` would give it.
    """
    pids = [judged.run.pid for judged in report.ours if judged.run.orphaned]
    return plan_stop(report, pids)


def _send(identity: ProcIdentity, signum: signal.Signals, source: ProcessSource) -> str | None:
    """Send ``signum`` to the process if the pid still names it; else say why not."""
    pidfd: int | None = None
    if hasattr(os, "pidfd_open"):
        try:
            pidfd = os.pidfd_open(identity.pid)
        except ProcessLookupError:
            return "gone"
        except OSError:
            pidfd = None  # an old kernel: fall back to kill() right after the check
    try:
        now = source.current_identity(identity.pid)
        if isinstance(now, Unknown):
            return "gone"
        if now != identity:
            return "pid reused by another process"
        if pidfd is not None:
            signal.pidfd_send_signal(pidfd, signum)
        else:
            os.kill(identity.pid, signum)
    except ProcessLookupError:
        return "gone"
    except PermissionError:
        return "not permitted"
    finally:
        if pidfd is not None:
            os.close(pidfd)
    return None


def _live(targets: Iterable[ProcIdentity], source: ProcessSource) -> tuple[ProcIdentity, ...]:
    return tuple(t for t in targets if source.current_identity(t.pid) == t)


def _wait_gone(
    targets: tuple[ProcIdentity, ...],
    seconds: float,
    source: ProcessSource,
    clock: Callable[[], float],
    sleep: Callable[[float], None],
) -> tuple[ProcIdentity, ...]:
    deadline = clock() + seconds
    live = _live(targets, source)
    while live and clock() < deadline:
        sleep(POLL_SECONDS)
        live = _live(live, source)
    return live


def carry_out(
    plan: StopPlan,
    *,
    grace: float = DEFAULT_GRACE_SECONDS,
    source: ProcessSource | None = None,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> StopResult:
    """Stop the processes of an allowed plan: TERM, the grace period, then KILL."""
    if plan.refusal is not None:
        return StopResult(plan.pid, plan.refusal, plan.reasons, run=plan.run)
    source = source if source is not None else default_source()
    began = clock()
    signalled: list[tuple[int, str]] = []
    skipped: dict[int, str] = {}

    def send_all(targets: Iterable[ProcIdentity], signum: signal.Signals) -> None:
        for target in targets:
            why = _send(target, signum, source)
            if why is None:
                signalled.append((target.pid, signum.name))
            elif why != "gone":
                skipped[target.pid] = why
            log_event(
                "runctx.signal",
                level=INFO,
                pid=target.pid,
                signal=signum.name,
                sent=why is None,
                why=why or "",
            )

    send_all(plan.targets, signal.SIGTERM)
    hit = tuple(t for t in plan.targets if t.pid not in skipped)
    left = _wait_gone(hit, grace, source, clock, sleep)
    if left:
        send_all(left, signal.SIGKILL)
        left = _wait_gone(left, KILL_WAIT_SECONDS, source, clock, sleep)
    killed = {pid for pid, name in signalled if name == signal.SIGKILL.name}
    refused_by_os = _live(
        (t for t in plan.targets if skipped.get(t.pid) == "not permitted"), source
    )
    survivors = tuple(t.pid for t in (*left, *refused_by_os))
    status = StopStatus.SURVIVED if survivors else StopStatus.STOPPED
    reasons = tuple(
        f"{what}: {', '.join(str(t.pid) for t in found)}"
        for what, found in (
            ("still live after SIGKILL", [t for t in left if t.pid in killed]),
            ("still live; no SIGKILL could reach it", [t for t in left if t.pid not in killed]),
            ("not permitted to signal", refused_by_os),
        )
        if found
    )
    return StopResult(
        plan.pid,
        status,
        reasons,
        run=plan.run,
        signalled=tuple(signalled),
        skipped=tuple(skipped.items()),
        survivors=survivors,
        seconds=clock() - began,
    )


def stop_runs(
    pids: Sequence[int],
    here: Viewpoint | None = None,
    *,
    grace: float = DEFAULT_GRACE_SECONDS,
    source: ProcessSource | None = None,
    settings: Settings = DEFAULTS,
) -> tuple[StopResult, ...]:
    """Stop the runs with these authoritative pids, if each is known to be ours.

    ``here`` defaults to :func:`~runctx.scanning.viewpoint` of the calling process.
    One fresh scan (with the runner table of ``settings``, the face's) decides
    for every pid; each allowed run gets ``SIGTERM``, ``grace`` seconds, then
    ``SIGKILL`` for what is left.
    """
    source = source if source is not None else default_source()
    report = scan(here if here is not None else viewpoint(), source=source, settings=settings)
    return _carry_out_all(plan_stop(report, pids), grace, source)


def stop_orphans(
    here: Viewpoint | None = None,
    *,
    grace: float = DEFAULT_GRACE_SECONDS,
    source: ProcessSource | None = None,
    settings: Settings = DEFAULTS,
) -> tuple[StopResult, ...]:
    """Stop every orphaned run of this checkout known to be ours, exactly as :func:`stop_runs`.

    One fresh scan finds them; an empty result means there was none.
    """
    source = source if source is not None else default_source()
    report = scan(here if here is not None else viewpoint(), source=source, settings=settings)
    return _carry_out_all(plan_orphans(report), grace, source)


def _carry_out_all(
    plans: Iterable[StopPlan], grace: float, source: ProcessSource
) -> tuple[StopResult, ...]:
    results = []
    for plan in plans:
        result = carry_out(plan, grace=grace, source=source)
        log_event(
            "runctx.stop",
            level=INFO,
            pid=result.pid,
            status=result.status.value,
            reasons=list(result.reasons),
            run=describe_run(result.run) if result.run is not None else "",
        )
        results.append(result)
    return tuple(results)
