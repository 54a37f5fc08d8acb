"""Whether a test run may start now: the one decision every hook and ``runctx run`` share.

Given the test runs a command starts (from :mod:`runctx.shell.commands`, each with
the directory it runs in), one scan per checkout they run in decides:

- another live run of the same checkout and user (not this run): the
  checkout's ``on-same-checkout`` setting says what happens: ``stop`` (the
  default), ``ask``, ``warn``, or ``wait`` (``runctx run`` waits its turn; a
  hook cannot wait, so there it stops and says how to wait);
- a run of another user in this very checkout (foreign, but it shares the
  checkout's files: ``shares_tree``): the checkout's ``on-shared-tree``
  setting says what happens: ``stop`` (the default), ``ask`` or ``warn``.
  runctx never waits for or stops another user's run, so ``runctx run
  --wait`` does not wait for it either;
- only foreign runs: go ahead, with a short note when one of them is busy
  now or the box is under pressure (:mod:`runctx.busy`), so that slowness is
  not read as a regression; idle foreign runs on a quiet box are not worth
  a word, and a note on busy ones only counts the idle ones;
- the box is under pressure, whoever's runs make it so: the checkout's
  ``on-busy-box`` setting says what happens: ``off`` (the default: nothing
  beyond the note on busy foreign runs), ``warn`` (a note), or ``wait``
  (``runctx run`` and the plugin wait for room; a hook cannot wait, so it
  stops and says how to wait);
- a run of this checkout that re-runs its tests on change (a watcher,
  :mod:`runctx.watchers`: a person's ``watch -n 600 pytest`` in a tmux pane,
  ``ptw``, ``jest --watch``): the checkout's ``on-watcher`` setting says what
  happens: ``warn`` (the default: go ahead, with one line naming it), ``stop``,
  ``ask`` or ``wait`` (it never ends by itself, so it is waited for only when
  asked so). A watcher is never called a leftover;
- nothing else live: silent.

A hook knows the agent session it answers (:class:`~runctx.started_by.AgentSession`);
a refusal then says whether the run in the way is that session's own, another
session's, or an orphan (``runctx stop --orphans``).

Runs of unknown identity count as this checkout's (the visible answer; see
:mod:`runctx.identity`). When the checkout a command runs in cannot itself be
identified (a ``cd`` that could not be followed, a directory that does not
exist), every run of the same user would look like ours, so a stop or an ask
is lowered to a warning that says why.

:func:`decision_for` is pure over a :class:`~runctx.report.Report`;
:func:`decide` adds the scans. Every face (each agent's hook, ``runctx run``,
the pytest plugin) translates the :class:`Decision`, none decides on its own.
"""

from __future__ import annotations

import enum
import os
from collections.abc import Callable, Mapping, Sequence

import attrs

from runctx._log import INFO, log_event
from runctx.actions import Action as Action  # noqa: PLC0414 - re-exported for every face
from runctx.busy import BoxPressure, box_pressure
from runctx.checkout import Root, same_directory
from runctx.cpu_window import DEFAULT_WINDOW_SECONDS
from runctx.demand import cpus_wanted
from runctx.environment import Environment, activated, command_environment
from runctx.identity import Verdict
from runctx.modes import (
    DEFAULT_MODE,
    DEFAULT_SHARED_TREE_MODE,
    DEFAULT_WATCHER_MODE,
    BoxMode,
    Mode,
)
from runctx.present.escape import visible
from runctx.present.words import (
    BUSY_FACT,
    MESSAGE_MAX_CHARS,
    NOTE_MAX_CHARS,
    WATCHER_GOES_AHEAD,
    WATCHER_HOLDS,
    WATCHER_WAITED_FOR,
    cap,
    contention_fingerprint,
    environment_change_message,
    foreign_lines,
    live_lines,
    merged_notes,
    same_checkout_lines,
    shared_environment_message,
    shared_tree_message,
    watcher_line,
)
from runctx.record_base import Record
from runctx.report import JudgedRun, Report, Viewpoint
from runctx.said import ONCE_ENV, said_before
from runctx.scanning import FirstPass, scan, viewpoint
from runctx.settings import (
    DEFAULT_BUSY,
    DEFAULTS,
    ENVIRONMENT_LAYER,
    MODE_ENV,
    MODE_KEY,
    USER_LAYER,
    BusyRules,
    Settings,
)
from runctx.shell.commands import NOT_READ_KIND, TestInvocation
from runctx.sources import ProcessSource
from runctx.started_by import AgentSession
from runctx.unknown import Unknown
from runctx.waiting import blocking_runs, sharing_runs
from runctx.watchers import watcher_of


class Cause(enum.StrEnum):
    """Which rule gave a decision its action."""

    NONE = "none"
    """Nothing holds the command (silent, a note or a warning)."""
    SAME_CHECKOUT = "same-checkout"
    """``on-same-checkout``: another run of this checkout."""
    SHARED_TREE = "shared-tree"
    """``on-shared-tree``: another user's run in this very checkout."""
    BUSY_BOX = "busy-box"
    """``on-busy-box``: the box is busy."""
    ENVIRONMENT = "environment"
    """``on-environment-change``: a live run imports from the environment the command changes."""


_SEVERITY = {action: rank for rank, action in enumerate(Action)}


NO_PRESSURE = BoxPressure(())

_ACTION_OF_MODE = {
    Mode.STOP: Action.STOP,
    Mode.WAIT: Action.WAIT,
    Mode.ASK: Action.ASK,
    Mode.WARN: Action.WARN,
}


@attrs.frozen(repr=False, eq=False)
class Decision(Record):
    """What to do with a command: the action, the words to say, and the runs behind them.

    ``action`` says exactly what to do (:class:`Action`), ``cause`` which rule
    asked for it; a face translates the two and works nothing out again.
    With :attr:`Action.WAIT`, ``same_action`` and ``box_action`` say what to
    wait for (each :attr:`Action.WAIT` or not): this checkout's earlier runs,
    room on the box, or both (:func:`runctx.waiting.wait_as_decided`).

    ``shared`` are other users' runs in this very checkout, and
    ``shared_action`` what the ``on-shared-tree`` rule alone asks for them
    (``SILENT`` when there are none); ``same_action`` what ``on-same-checkout``
    alone asks for this checkout's runs; ``box`` the box's pressure and
    ``box_action`` what ``on-busy-box`` alone asks for it. ``action`` is the
    firmest of the three, except that a wait next to another user's run that
    stops or asks is a stop: runctx never waits for another user's run.
    ``foreign`` are every foreign run, named in the message or not.
    """

    action: Action
    message: str = ""
    mode: Mode = DEFAULT_MODE
    ours: tuple[JudgedRun, ...] = ()
    foreign: tuple[JudgedRun, ...] = ()
    reports: tuple[Report, ...] = ()
    shared: tuple[JudgedRun, ...] = ()
    shared_action: Action = Action.SILENT
    environment: tuple[JudgedRun, ...] = ()
    """Live runs that import from the environment the command uses (of other checkouts)
    or changes (any), see :func:`shared_environment_decision` and
    :func:`environment_change_decision`."""
    same_action: Action = Action.SILENT
    box: BoxPressure = NO_PRESSURE
    box_action: Action = Action.SILENT
    cause: Cause = Cause.NONE
    watchers: tuple[JudgedRun, ...] = ()
    """Runs of this checkout that re-run its tests on change, named in the message."""

    @property
    def summary(self) -> str:
        """The first line of the message, for a short notice to a person."""
        return self.message.partition("\n")[0]


SILENT = Decision(Action.SILENT)


def _uncertain(report: Report, *, cwd_known: bool, maybe: TestInvocation | None) -> str | None:
    """Why the command is not known well enough to stop it, if it is not.

    Its checkout is a guess, or (``maybe``) whether it starts a test run.
    """
    if maybe is not None and maybe.unread is not None:
        what = f"`{_shown(maybe.argv)}`"
        if maybe.kind == NOT_READ_KIND:  # the part of the command past a bound
            what = f"the rest of this command ({what})"
        return (
            f"runctx could not tell whether {what} starts a test run: "
            f"{visible(maybe.unread.detail)}"
        )
    if not cwd_known:
        return (
            "runctx could not follow a `cd` in this command, or the container it runs in "
            "to a directory of this machine, so its checkout is a guess"
        )
    root = report.here.root
    if isinstance(root, Unknown):
        return f"runctx could not identify the checkout this command runs in ({visible(str(root))})"
    return None


QUOTED_COMMAND_CHARS = 80
"""Characters of a command a message quotes, at most (its end cut)."""


def _shown(argv: Sequence[str]) -> str:
    """``argv`` as words, cut to :data:`QUOTED_COMMAND_CHARS`, safe to print."""
    words = " ".join(argv)
    if len(words) > QUOTED_COMMAND_CHARS:
        words = words[: QUOTED_COMMAND_CHARS - 3] + "..."
    return visible(words)


_OPENINGS = {
    Action.STOP: "runctx: refused to start this test run",
    Action.ASK: "runctx: asking before this test run starts",
}


def _head(action: Action, uncertain: str | None, warn_why: str, held_by: str = "") -> str:
    """The first line of a message; ``held_by`` names what holds the run (after a colon)."""
    if action is Action.WAIT and not held_by:
        return (
            "runctx: refused to start this test run. This checkout is set to wait for its "
            "turn, and a hook cannot wait: start the command as "
            "`runctx run --wait -- COMMAND` instead."
        )
    if action in _OPENINGS:
        return f"{_OPENINGS[action]}{held_by}."
    return f"runctx: warning only, starting anyway ({uncertain or warn_why})."


_SHARED_HELD_BY = ": another user's run is live in this checkout"
_SHARED_WARN_WHY = "this checkout is set to only warn about other users' runs in it"


def _firmest(*actions: Action) -> Action:
    return max(actions, key=lambda action: _SEVERITY[action])


def _same_checkout_action(
    mode: Mode, ours: tuple[JudgedRun, ...], uncertain: str | None
) -> tuple[Action, str | None]:
    """What the ``on-same-checkout`` rule asks for, and why it was lowered to a warning."""
    action = _ACTION_OF_MODE[mode] if ours else Action.WARN
    if not ours and uncertain is None:
        uncertain = "the other run's identity is not fully known, so it is not refused for"
    if uncertain is not None and action in {Action.STOP, Action.ASK, Action.WAIT}:
        action = Action.WARN
    return action, uncertain


def _head_and_cause(  # noqa: PLR0913 - each input is one rule's
    action: Action,
    same: tuple[Action, str | None],
    shared: tuple[Action, str | None],
    box: tuple[Action, BoxPressure],
    *,
    held_by_shared: bool,
    warn_why: str,
) -> tuple[list[str], Cause]:
    """The first line of the message, and which rule gave the action (the firmest alone)."""
    (same_action, same_uncertain), (shared_action, uncertain) = same, shared
    box_action, pressure = box
    if (
        _SEVERITY[box_action] > max(_SEVERITY[same_action], _SEVERITY[shared_action])
        and not held_by_shared
    ):
        parts, cause = [_box_head(pressure)], Cause.BUSY_BOX
    elif _SEVERITY[shared_action] > _SEVERITY[same_action] or held_by_shared:
        head = _head(action, uncertain, _SHARED_WARN_WHY, _SHARED_HELD_BY)
        parts, cause = [head], Cause.SHARED_TREE
    else:
        parts, cause = [_head(action, same_uncertain, warn_why)], Cause.SAME_CHECKOUT
        if shared_action is action:  # as firm: waiting for this checkout would not help
            cause = Cause.SHARED_TREE
    if action not in {Action.STOP, Action.ASK, Action.WAIT}:
        cause = Cause.NONE
    return parts, cause


def _box_action(busy: BusyRules, pressure: BoxPressure) -> Action:
    """What ``on-busy-box`` alone asks for: wait (a stop in a hook), a note, or nothing."""
    asked = {BoxMode.WAIT: Action.WAIT, BoxMode.WARN: Action.NOTE}.get(busy.on_busy_box)
    return asked if asked is not None and pressure.busy else Action.SILENT


def _box_line(pressure: BoxPressure) -> str:
    return (
        "The box is busy ("
        + ", ".join(pressure.reasons)
        + ') and this checkout waits for room (on-busy-box = "wait"). A hook cannot '
        "wait: start it as `runctx run --wait -- COMMAND`."
    )


def _box_head(pressure: BoxPressure) -> str:
    return "runctx: refused to start this test run. " + _box_line(pressure)


def _contention_only(
    pressure: BoxPressure, contention: list[str], *, waits_for_room: bool
) -> tuple[Action, str]:
    """The action and words when no run of this checkout (nor in it) is in the way."""
    if waits_for_room:
        return Action.WAIT, cap(_box_head(pressure), MESSAGE_MAX_CHARS)
    if not contention:
        return Action.SILENT, ""
    return Action.NOTE, cap("runctx: " + "\n".join(contention), NOTE_MAX_CHARS)


def decision_for(  # noqa: PLR0913 - each knob is independent
    report: Report,
    mode: Mode,
    *,
    own_run: bool = False,
    cwd_known: bool = True,
    shared_mode: Mode = DEFAULT_SHARED_TREE_MODE,
    busy: BusyRules = DEFAULT_BUSY,
    session: AgentSession | None = None,
    watcher_mode: Mode = DEFAULT_WATCHER_MODE,
    watchers: Sequence[str] = (),
    wanted: float | None = None,
    said: Callable[[str], bool] | None = None,
    warn_why: str = "this checkout is set to only warn",
    maybe: TestInvocation | None = None,
) -> Decision:
    """The decision for a test run about to start from ``report``'s viewpoint.

    ``own_run``: the caller is itself the run about to start (``runctx run``);
    then only runs of the checkout that started before it count, the order
    that keeps two waiting runs from waiting for each other. Otherwise (a hook)
    every other live run of the checkout counts. Only runs *known* to be ours
    stop or ask; runs of unknown identity are named in a warning. ``cwd_known``
    False says the command's directory is a guess. ``shared_mode`` (the
    checkout's ``on-shared-tree``: stop, ask or warn) says what another user's
    run in this very checkout does, in the same order. ``busy`` holds the
    thresholds of "busy now" and ``on-busy-box``; ``session`` the agent
    session asking, so that a refusal can say whose run is in the way.
    A run of this checkout that re-runs on change (:mod:`runctx.watchers`,
    ``watchers`` the programs the settings declare) follows ``watcher_mode``
    (``on-watcher``) instead of ``mode``, and is never called a leftover.
    ``wanted`` (the CPUs the run will use, :mod:`runctx.demand`) keeps a note
    on foreign load for load likely to hurt it; ``said`` answers whether the
    listener was told the same already (:func:`runctx.said.said_before`, given
    the note's :func:`~runctx.present.words.contention_fingerprint`): then the
    note is not said again. ``maybe``: the command only may start a test run
    (a task runctx could not read all of,
    :attr:`~runctx.shell.commands.TestInvocation.unread`): then nothing holds
    it; a live run of the checkout is named in a warning that says runctx
    could not tell (:func:`decide` says nothing of foreign load or a busy box
    then).
    """
    known = blocking_runs(report, with_watchers=True) if own_run else report.ours_known
    labels, watching, ours, unsure = _split_watchers(report, known, watchers)
    shared = sharing_runs(report) if own_run else report.shared_tree
    pressure = box_pressure(report.load, busy)
    box_action = _box_action(busy, pressure)
    waits_for_room = box_action is Action.WAIT
    contention = foreign_lines(
        report,
        busy,
        pressure,
        box_note=box_action is not Action.SILENT,
        show_box=not waits_for_room,  # the refusal says it already
        wanted=wanted,
    )

    told = _Told(said, lambda: contention_fingerprint(report, busy, pressure))

    def decided(action: Action, message: str, **more: object) -> Decision:
        return Decision(
            action,
            message=message,
            mode=mode,
            foreign=report.foreign,
            reports=(report,),
            box=pressure,
            box_action=box_action,
            **more,  # type: ignore[arg-type]
        )

    uncertain = _uncertain(report, cwd_known=cwd_known, maybe=maybe) if watching else None
    watcher_action = _watcher_action(watcher_mode, watching, uncertain)

    watcher_lines = _WatcherLines(watching, labels)

    if not ours and not unsure and not shared and watcher_action in {Action.SILENT, Action.NOTE}:
        contention = contention if waits_for_room else told.fresh(contention)
        action, message = _contention_only(pressure, contention, waits_for_room=waits_for_room)
        cause = Cause.BUSY_BOX if waits_for_room else Cause.NONE
        if watching:
            action, message = _beside_watchers(action, message, watcher_lines, contention)
        return decided(action, message, cause=cause, watchers=watching)
    uncertain = _uncertain(report, cwd_known=cwd_known, maybe=maybe)
    same_action, same_uncertain = (
        _same_checkout_action(mode, ours, uncertain) if ours or unsure else (Action.SILENT, None)
    )
    same_action, same_uncertain = _with_watcher_action(
        (same_action, same_uncertain), watcher_action, uncertain
    )
    shared_action = _ACTION_OF_MODE[shared_mode] if shared else Action.SILENT
    if uncertain is not None and shared_action in {Action.STOP, Action.ASK}:
        shared_action = Action.WARN
    action = _firmest(same_action, shared_action, box_action)
    held_by_shared = action is Action.WAIT and shared_action in {Action.STOP, Action.ASK}
    if held_by_shared:
        action = Action.STOP  # runctx never waits for another user's run
    parts, cause = _head_and_cause(
        action,
        (same_action, same_uncertain),
        (shared_action, uncertain),
        (box_action, pressure),
        held_by_shared=held_by_shared,
        warn_why=warn_why,
    )
    box_first = cause is Cause.BUSY_BOX
    if ours or unsure:
        parts.extend(same_checkout_lines(ours + unsure, session))
    parts.extend(watcher_lines(_watcher_outcome(action, watcher_action)))  # none: no line
    if shared:
        held = action in {Action.STOP, Action.ASK, Action.WAIT}
        parts.append(shared_tree_message(shared, held=held))
    if waits_for_room and not box_first:
        parts.append(_box_line(pressure))
    if action not in {Action.STOP, Action.ASK, Action.WAIT}:
        parts.extend(told.fresh(contention))  # slowness matters only to a command that starts
    return decided(
        action,
        cap("\n".join(parts), MESSAGE_MAX_CHARS),
        ours=ours + unsure + (watching if watcher_action is not Action.NOTE else ()),
        shared=shared,
        shared_action=shared_action,
        same_action=same_action,
        cause=cause,
        watchers=watching,
    )


@attrs.frozen(repr=False, eq=False)
class _Told(Record):
    """Whether a note's lines were said already to the listener (:mod:`runctx.said`)."""

    said: Callable[[str], bool] | None
    fingerprint: Callable[[], str]

    def fresh(self, lines: list[str]) -> list[str]:
        """``lines``, unless the listener was told the same already (asked only when said)."""
        if lines and self.said is not None and self.said(self.fingerprint()):
            return []
        return lines


@attrs.frozen(repr=False, eq=False)
class _WatcherLines(Record):
    """One line for each watcher of this checkout, saying what it means for the command."""

    watching: tuple[JudgedRun, ...]
    labels: Mapping[object, str]

    def __call__(self, outcome: str | None) -> list[str]:
        """The lines, with ``outcome`` (:func:`runctx.present.words.watcher_line`)."""
        return [watcher_line(j, self.labels[j.run.identity], outcome) for j in self.watching]


def _with_watcher_action(
    same: tuple[Action, str | None], watcher_action: Action, uncertain: str | None
) -> tuple[Action, str | None]:
    """``on-same-checkout``'s action and why it was lowered, with ``on-watcher``'s hold in it."""
    action, why = same
    if watcher_action is Action.NOTE or _SEVERITY[watcher_action] <= _SEVERITY[action]:
        return same
    return watcher_action, why or uncertain


def _beside_watchers(
    action: Action,
    message: str,
    watcher_lines: Callable[[str | None], list[str]],
    contention: list[str],
) -> tuple[Action, str]:
    """The action and words when only watchers of this checkout (and foreign runs) are live.

    The run goes ahead with one line for each watcher, unless it waits for room on the box.
    """
    if action is Action.WAIT:
        return action, cap("\n".join([message, *watcher_lines(None)]), MESSAGE_MAX_CHARS)
    lines = [*watcher_lines(WATCHER_GOES_AHEAD), *contention]
    return Action.NOTE, cap("runctx: " + "\n".join(lines), MESSAGE_MAX_CHARS)


def _split_watchers(
    report: Report, known: tuple[JudgedRun, ...], watchers: Sequence[str]
) -> tuple[dict[object, str], tuple[JudgedRun, ...], tuple[JudgedRun, ...], tuple[JudgedRun, ...]]:
    """The watchers' labels by identity, the watchers, the other known runs, the unsure ones.

    Runs of unknown identity that are watchers are neither unsure nor in the way.
    """
    labels: dict[object, str] = {
        judged.run.identity: label
        for judged in (*known, *report.ours)
        if (label := watcher_of(judged.run, watchers)) is not None
    }
    watching = tuple(judged for judged in known if judged.run.identity in labels)
    ours = tuple(judged for judged in known if judged.run.identity not in labels)
    unsure = tuple(
        judged
        for judged in report.ours
        if judged.judgement.verdict is Verdict.UNKNOWN and judged.run.identity not in labels
    )
    return labels, watching, ours, unsure


def _watcher_outcome(action: Action, watcher_action: Action) -> str | None:
    """What a watcher's line says it means for the command: it holds it, is waited for, or not."""
    if watcher_action is action and action in {Action.STOP, Action.ASK}:
        return WATCHER_HOLDS
    if watcher_action is action is Action.WAIT:
        return WATCHER_WAITED_FOR
    return None if action in {Action.STOP, Action.ASK, Action.WAIT} else WATCHER_GOES_AHEAD


def _watcher_action(mode: Mode, watching: tuple[JudgedRun, ...], uncertain: str | None) -> Action:
    """What ``on-watcher`` alone asks for: a note (``warn``, going ahead), or a hold."""
    if not watching:
        return Action.SILENT
    action = _ACTION_OF_MODE[mode]
    if action is Action.WARN:
        return Action.NOTE
    if uncertain is not None:
        return Action.WARN
    return action


def delegated(invocation: TestInvocation) -> bool:
    """Whether the invocation goes through ``runctx run``, which applies the policy itself."""
    words = invocation.argv
    for index, word in enumerate(words):
        if word.rpartition("/")[2] == "runctx":
            operands = [w for w in words[index + 1 :] if not w.startswith("-")]
            return bool(operands) and operands[0] == "run"
    return False


def _unique(runs: Sequence[JudgedRun]) -> tuple[JudgedRun, ...]:
    seen: dict[object, JudgedRun] = {}
    for judged in runs:
        seen.setdefault(judged.run.identity, judged)
    return tuple(seen.values())


def combine(decisions: Sequence[Decision]) -> Decision:
    """One decision for a command whose test runs start in several checkouts: the firmest."""
    if not decisions:
        return SILENT
    firmest = max(decisions, key=lambda decision: _SEVERITY[decision.action])
    if len(decisions) == 1:
        return firmest
    # The firmest first; among equals, what concerns the code the runs import (a shared or
    # changed environment) before what only slows them, so that a cut for room spares it.
    ordered = sorted(
        decisions,
        key=lambda decision: (-_SEVERITY[decision.action], not decision.environment),
    )
    messages = list(dict.fromkeys(d.message for d in ordered if d.message))
    if firmest.action is Action.NOTE:
        message = merged_notes(messages, NOTE_MAX_CHARS)
    else:
        message = cap("\n\n".join(messages), MESSAGE_MAX_CHARS)
    return Decision(
        firmest.action,
        message=message,
        mode=firmest.mode,
        ours=_unique([j for d in decisions for j in d.ours]),
        foreign=_unique([j for d in decisions for j in d.foreign]),
        reports=tuple(r for d in decisions for r in d.reports),
        shared=_unique([j for d in decisions for j in d.shared]),
        shared_action=_firmest(*(d.shared_action for d in decisions)),
        environment=_unique([j for d in decisions for j in d.environment]),
        same_action=_firmest(*(d.same_action for d in decisions)),
        box=max((d.box for d in decisions), key=lambda box: len(box.reasons)),
        box_action=_firmest(*(d.box_action for d in decisions)),
        cause=firmest.cause,
    )


def viewpoints(
    invocations: Sequence[TestInvocation],
    uid: int | None = None,
    known: Mapping[str, Viewpoint] | None = None,
) -> list[tuple[Viewpoint, bool]]:
    """The distinct viewpoints the invocations start from, and whether each cwd was followed.

    ``known`` holds viewpoints a face found already, by directory: no walk
    is taken twice for one directory.
    """
    return [(here, cwd_known) for here, cwd_known, _ in _starts(invocations, uid, known)]


def _starts(
    invocations: Sequence[TestInvocation],
    uid: int | None = None,
    known: Mapping[str, Viewpoint] | None = None,
) -> list[tuple[Viewpoint, bool, TestInvocation | None]]:
    """As :func:`viewpoints`, and the invocation that only *may* start a run from each.

    That invocation is one whose task could not all be read
    (:attr:`~runctx.shell.commands.TestInvocation.unread`), when no other
    invocation from the same viewpoint surely starts one; None otherwise.
    """
    found: dict[Viewpoint, tuple[bool, TestInvocation | None]] = {}
    for invocation in invocations:
        if delegated(invocation):
            continue
        here = (known or {}).get(invocation.cwd) or viewpoint(cwd=invocation.cwd, uid=uid)
        maybe = invocation if invocation.unread is not None else None
        if here in found:
            cwd_known, earlier = found[here]
            cwd_known = cwd_known and invocation.cwd_known
            maybe = earlier if maybe is not None and earlier is not None else None
        else:
            cwd_known = invocation.cwd_known
        found[here] = (cwd_known, maybe)
    return [(here, cwd_known, maybe) for here, (cwd_known, maybe) in found.items()]


def _said(session: AgentSession | None, listener: str | None) -> Callable[[str], bool] | None:
    """Whether the listener (the agent session, else ``listener``) was told a note already."""
    who = f"{session.kind}:{session.id}" if session is not None and session.id else listener
    if who is None or os.environ.get(ONCE_ENV, "") == "0":
        return None
    return lambda fingerprint: said_before(who, fingerprint)


def _said_already(_fingerprint: str) -> bool:
    """Every note counts as said: for a command not known to start a run, load is no news."""
    return True


def _names_unmeasured_runs(fingerprint: str) -> bool:
    """For a pass that measures no CPU: a note that names busy foreign runs counts as said.

    Their CPU use now was not read, so they only look busy; a note on the box
    alone (``on-busy-box = "warn"``) is said.
    """
    return any(fact.startswith(BUSY_FACT) for fact in fingerprint.split("\n"))


def _wanted(invocations: Sequence[TestInvocation], report: Report) -> float | None:
    """The most CPUs one of the invocations will use (None when the box's CPUs are unknown)."""
    usable = report.load.usable_cpus
    if isinstance(usable, Unknown) or not invocations:
        return None
    return max(cpus_wanted(i.kind, i.argv, usable) for i in invocations)


def _warn_why(mode: Mode | None, settings: Settings) -> str:
    """Why a run of this checkout is only warned about: who set ``on-same-checkout``."""
    if mode is not None:
        return f"runctx run was asked to only warn: --mode {mode.value}"

    layer = settings.source_of(MODE_KEY)
    if layer == ENVIRONMENT_LAYER:
        return f"${MODE_ENV} is warn"
    if layer == USER_LAYER:
        return f"{MODE_KEY} = warn in your runctx configuration"
    return "this checkout is set to only warn"


def measures_cpu(judged: JudgedRun) -> bool:
    """Whether a run's CPU use now matters to the words: only a foreign run's does."""
    return judged.foreign


def decide(  # noqa: PLR0913 - each knob is independent
    invocations: Sequence[TestInvocation],
    *,
    changes: Sequence[TestInvocation] = (),
    environments: bool = False,
    own_run: bool = False,
    mode: Mode | None = None,
    source: ProcessSource | None = None,
    uid: int | None = None,
    self_pid: int | None = None,
    session: AgentSession | None = None,
    cpu_window: float | None = DEFAULT_WINDOW_SECONDS,
    settings: Settings = DEFAULTS,
    checkouts: Mapping[Viewpoint, Settings] | None = None,
    essentials_only: bool = False,
    listener: str | None = None,
    others_argv_at_most: int | None = None,
    first_pass: FirstPass | None = None,
) -> Decision:
    """Scan once per checkout the invocations run in, and decide (see :func:`decision_for`).

    A note on foreign load is given only for load likely to hurt the run
    (weighed against the CPUs the invocations will use, :mod:`runctx.demand`),
    and once per listener until what it says changes (:mod:`runctx.said`): the
    listener is the agent ``session``, else ``listener`` (a terminal), else none
    (every note is said).

    ``essentials_only``: decide whether to refuse, and nothing more (a hook's
    first pass): each scan reads no environment, no one who started a run and
    no CPU use now, and ``changes``, ``environments`` and a note naming busy
    foreign runs wait for the second (a pass that measured no CPU would call
    every foreign run busy, on every command, when the second pass is dropped).
    ``others_argv_at_most`` bounds what other users' processes cost each scan,
    and ``first_pass`` keeps what a first pass found for a pass after a hold
    (:func:`runctx.scanning.scan`).

    ``settings`` is the value the face built for its call
    (:func:`runctx.settings.settings_for`; the defaults when none is given),
    and ``checkouts`` the values it built for the checkouts the invocations
    run in (:func:`viewpoints`), where they differ: nothing here reads
    settings. ``mode`` overrides their ``on-same-checkout``
    (:attr:`runctx.settings.Settings.mode`); ``on-shared-tree``, the
    thresholds of "busy now" and ``on-busy-box`` are always the settings'.
    Each scan samples the CPU use of the foreign runs over ``cpu_window``
    seconds, only when one is live: a refusal for a run of this checkout
    does not wait for it. With ``cpu_window`` None no CPU use now is read (a
    hook's pass after a hold, whose words never name a foreign run), and a
    note naming busy foreign runs counts as said, as in a first pass.
    Invocations that go through ``runctx run`` are left to it. ``changes``
    are the commands that change an environment
    (:mod:`runctx.runners.installers`), each judged by
    :func:`environment_change_decision` (with the checkout's
    ``on-environment-change``); with ``environments`` (the hooks), a test
    invocation whose environment a run of another checkout uses gets
    :func:`shared_environment_decision` besides.
    """
    decisions = []
    reports: dict[Viewpoint, Report] = {}
    given = checkouts if checkouts is not None else {}
    # A pass that reads no CPU use now (a first pass, a pass after a hold): every foreign run
    # would look busy, and a note naming them, said from it, would be said on every command.
    measured = not essentials_only and cpu_window is not None
    said = _said(session, listener) if measured else _names_unmeasured_runs
    problems: dict[str, None] = {}
    for here, cwd_known, maybe in _starts(invocations, uid):
        settings_here = given.get(here, settings)
        if settings_here.problem:
            problems[settings_here.problem] = None
        report = scan(
            here,
            source=source,
            self_pid=self_pid,
            cpu_window=cpu_window,
            cpu_of=measures_cpu,
            settings=settings_here,
            essentials_only=essentials_only,
            others_argv_at_most=others_argv_at_most,
            first_pass=first_pass,
        )
        reports[here] = report
        chosen = mode if mode is not None else settings_here.mode
        busy = settings_here.busy
        if maybe is not None:  # not known to be a test run: no word on load, no wait for room
            busy = attrs.evolve(busy, on_busy_box=BoxMode.OFF)
        decisions.append(
            decision_for(
                report,
                chosen,
                own_run=own_run,
                cwd_known=cwd_known,
                shared_mode=settings_here.shared_tree_mode,
                busy=busy,
                session=session,
                watcher_mode=settings_here.watcher_mode,
                watchers=settings_here.watchers,
                wanted=None
                if settings_here.foreign_note == "busy"
                else _wanted(invocations, report),
                said=said if maybe is None else _said_already,
                warn_why=_warn_why(mode, settings_here),
                maybe=maybe,
            )
        )
    environment_decisions = _environment_decisions(
        invocations if environments and not essentials_only else (),
        () if essentials_only else changes,
        reports,
        lambda here: scan(
            here, source=source, self_pid=self_pid, settings=given.get(here, settings)
        ),
        uid,
        lambda here: given.get(here, settings).environment_change_mode,
    )
    decision = with_hooks_explained(combine([*decisions, *environment_decisions]), invocations)
    if settings.problem:
        problems[settings.problem] = None
    if problems:
        decision = with_broken_configuration(decision, "; ".join(problems))
    log_event(
        "runctx.policy_decided",
        level=INFO,
        action=decision.action.value,
        mode=decision.mode.value,
        ours=[j.run.pid for j in decision.ours],
        foreign=[j.run.pid for j in decision.foreign],
        box=list(decision.box.reasons),
    )
    return decision


HOOK_RUNS = {
    "git-commit": "`git commit` runs this checkout's commit hooks, and they start its tests.",
    "git-push": "`git push` runs this checkout's pre-push hook, and it starts its tests.",
}
"""Why a command that names no runner is a test run: the git hooks it runs start one
(:mod:`runctx.runners.tasks.git_hooks`)."""


def with_hooks_explained(decision: Decision, invocations: Sequence[TestInvocation]) -> Decision:
    """``decision``, saying after its first line why a ``git commit`` is a test run, if it is one.

    Only when it holds the command or warns of it: a silent go-ahead says nothing.
    """
    why = [
        HOOK_RUNS[kind] for kind in dict.fromkeys(i.kind for i in invocations) if kind in HOOK_RUNS
    ]
    if not why or decision.action in {Action.SILENT, Action.NOTE}:
        return decision
    head, newline, rest = decision.message.partition("\n")
    message = "\n".join([head, *why, *([rest] if newline else [])])
    return attrs.evolve(decision, message=cap(message, MESSAGE_MAX_CHARS))


def broken_configuration_line(problem: str) -> str:
    """What an agent is told when a runctx configuration file could not be used."""
    where = "variable" if problem.startswith("$") else "file"
    return (
        f"runctx: the runctx configuration is broken ({visible(problem)}); this command was "
        f"judged with the defaults instead. Fix that {where}."
    )


def with_broken_configuration(decision: Decision, problem: str) -> Decision:
    """``decision``, telling the agent the configuration is broken (a note if it was silent)."""
    line = broken_configuration_line(problem)
    if decision.action is Action.SILENT:
        return attrs.evolve(decision, action=Action.NOTE, message=cap(line, MESSAGE_MAX_CHARS))
    message = cap(f"{decision.message}\n{line}", MESSAGE_MAX_CHARS)
    return attrs.evolve(decision, message=message)


def _other_checkout_than(judged: JudgedRun, here: Root | Unknown) -> bool:
    """Whether a run's root is known to be another directory than ``here``."""
    root = judged.run.root
    if not isinstance(root, Root) or not isinstance(here, Root):
        return False
    return same_directory(root, here) is False


def shared_environment_decision(report: Report, environment: Environment | None) -> Decision:
    """A test run about to start in ``environment``: a note when runs of other checkouts use it.

    Sharing an environment is no ground of identity (the runs are foreign,
    and stay so): the run goes ahead, and a note names the others. A note,
    like the one on foreign contention, it is held to :data:`NOTE_MAX_CHARS`
    together with whatever else the agent is told.
    """
    if environment is None or not environment.shareable:
        return SILENT
    here = report.here.root
    runs = tuple(j for j in report.using(environment) if _other_checkout_than(j, here))
    if not runs:
        return SILENT
    message = cap("runctx: " + shared_environment_message(environment, runs), NOTE_MAX_CHARS)
    return Decision(Action.NOTE, message=message, environment=runs, reports=(report,))


_CHANGE_HEADS = {
    Action.STOP: "runctx: refused to run this command: it changes an environment a live test "
    "run imports from.",
    Action.ASK: "runctx: asking before this command runs: it changes an environment a live "
    "test run imports from.",
}
_CHANGE_WARNING = (
    "runctx: warning only, running anyway: this command changes an environment a live test "
    "run imports from."
)


def environment_change_decision(
    report: Report, change: TestInvocation, environment: Environment | None, mode: Mode
) -> Decision:
    """A command that changes ``environment``: ``mode`` (warn, ask or stop) when a live run uses it.

    Every live run that imports from it counts, of this checkout or another,
    of this user or another: the change reaches each of them. The action is
    the checkout's ``on-environment-change`` (``warn`` by default); the
    environment is compared as a directory, so a command whose environment
    cannot be told says nothing.
    """
    if environment is None or not environment.shareable:
        return SILENT
    runs = report.using(environment)
    if not runs:
        return SILENT
    action = _ACTION_OF_MODE[mode]
    body = environment_change_message(" ".join(change.argv), environment, runs)
    return Decision(
        action,
        message=cap(f"{_CHANGE_HEADS.get(action, _CHANGE_WARNING)}\n{body}", MESSAGE_MAX_CHARS),
        mode=mode,
        environment=runs,
        reports=(report,),
        cause=Cause.ENVIRONMENT if action in {Action.STOP, Action.ASK} else Cause.NONE,
    )


def _environment_decisions(  # noqa: PLR0913, PLR0917 - each input is independent
    invocations: Sequence[TestInvocation],
    changes: Sequence[TestInvocation],
    reports: dict[Viewpoint, Report],
    take_scan: Callable[[Viewpoint], Report],
    uid: int | None,
    change_mode: Callable[[Viewpoint], Mode],
) -> list[Decision]:
    """The environment warnings of a command: for its test runs, and for its changes."""

    def report_for(cwd: str) -> tuple[Viewpoint, Report]:
        here = viewpoint(cwd=cwd, uid=uid)
        if here not in reports:
            reports[here] = take_scan(here)
        return here, reports[here]

    found = []
    for invocation in invocations:
        if delegated(invocation) or invocation.unread is not None:  # not known to be a run
            continue
        environment = command_environment(
            invocation.kind, invocation.argv, invocation.cwd, activated(invocation.venv)
        )
        if environment is not None and environment.shareable:
            found.append(shared_environment_decision(report_for(invocation.cwd)[1], environment))
    for change in changes:
        environment = command_environment(
            change.kind, change.argv, change.cwd, activated(change.venv)
        )
        if environment is None or not environment.shareable:
            continue
        here, report = report_for(change.cwd)
        found.append(environment_change_decision(report, change, environment, change_mode(here)))
    return found


def _context(
    report: Report,
    busy: BusyRules,
    session: AgentSession | None,
    *,
    finished: bool,
    wanted: float | None = None,
) -> str | None:
    """What an agent should know about the runs live from ``report``'s viewpoint, briefly."""
    parts = live_lines(report, busy, session=session, finished=finished, wanted=wanted)
    named = (report.ours and not finished) or (report.shared_tree and not finished)
    limit = MESSAGE_MAX_CHARS if named else NOTE_MAX_CHARS
    return cap("runctx: " + "\n".join(parts), limit) if parts else None


def _maybe_after(maybe: TestInvocation, report: Report, busy: BusyRules) -> str | None:
    """What was live beside a command that may have started a run: its checkout's runs alone."""
    why = _uncertain(report, cwd_known=True, maybe=maybe)
    if not report.ours or why is None:
        return None
    finished = live_lines(report, busy, finished=True)[0]  # the checkout's comes first
    return cap(f"runctx: {finished}\n{why}.", MESSAGE_MAX_CHARS)


def session_context(  # noqa: PLR0913 - each knob is independent
    cwd: str,
    *,
    source: ProcessSource | None = None,
    uid: int | None = None,
    session: AgentSession | None = None,
    cpu_window: float = DEFAULT_WINDOW_SECONDS,
    settings: Settings = DEFAULTS,
) -> str | None:
    """The live runs an agent starting a session in ``cwd`` should know about, or None.

    Runs of this checkout are named, each with whose it is (``session``'s
    own, another session's, an orphan); foreign runs only when busy now or
    when the box is under pressure.
    """
    here = viewpoint(cwd=cwd, uid=uid)
    report = scan(
        here, source=source, cpu_window=cpu_window, cpu_of=measures_cpu, settings=settings
    )
    return _context(report, settings.busy, session, finished=False)


def after_context(  # noqa: PLR0913 - each knob is independent
    invocations: Sequence[TestInvocation],
    *,
    source: ProcessSource | None = None,
    uid: int | None = None,
    cpu_window: float = DEFAULT_WINDOW_SECONDS,
    settings: Settings = DEFAULTS,
    checkouts: Mapping[Viewpoint, Settings] | None = None,
) -> str | None:
    """What was live when a test command finished (for hooks that run after the tool).

    For a command that only may have started a run (a task runctx could not
    read all of), only runs of its checkout are said, with why runctx could
    not tell: foreign load is no news to a command not known to be a run.
    """
    texts = []
    for here, _, maybe in _starts(invocations, uid):
        settings_here = (checkouts or {}).get(here, settings)
        report = scan(
            here,
            source=source,
            cpu_window=cpu_window if maybe is None else None,
            cpu_of=measures_cpu,
            settings=settings_here,
        )
        if maybe is not None:
            text = _maybe_after(maybe, report, settings_here.busy)
        else:
            wanted = None if settings_here.foreign_note == "busy" else _wanted(invocations, report)
            text = _context(report, settings_here.busy, None, finished=True, wanted=wanted)
        if text is not None:
            texts.append(text)
    return cap("\n".join(dict.fromkeys(texts)), MESSAGE_MAX_CHARS) if texts else None
