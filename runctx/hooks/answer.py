"""The hook's answer behind the pre-filter: a test run, a change of an environment, a failure.

:mod:`runctx.fastpath` reads the payload, finds the checkout and its
settings, and asks the pre-filter; only a command that may start a test run or
change an environment comes here (and a session's start, and the words of a
hook that failed open), where the scan and the policy decide. So this module
imports what it needs at the top: nothing here is on the path of a command
that is not a test run.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable, Sequence

import attrs

from runctx import policy
from runctx._log import log_event
from runctx.checkout import Root
from runctx.cpu_window import DEFAULT_WINDOW_SECONDS
from runctx.hooks.agents.base import AFTER_TOOL, SESSION
from runctx.policy import Action, Decision
from runctx.present.escape import hook_json, visible
from runctx.report import Viewpoint
from runctx.roots import checkout_root
from runctx.scanning import FirstPass
from runctx.settings import Settings, settings_for
from runctx.shell.commands import TestInvocation
from runctx.sources import default_source
from runctx.started_by import AgentSession, hook_session
from runctx.unknown import Unknown

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import FrameType
    from typing import TypeVar

    from runctx.hooks.agents.base import (
        AfterToolFace,
        Agent,
        JSONObject,
        Replies,
        SessionFace,
    )

    T = TypeVar("T")

OPTIONAL_RESERVE_SECONDS = 1.0
"""What the optional second pass leaves of the deadline: it ends (and is dropped)
this long before it, so that the first pass's answer is always given in time."""

OTHERS_ARGV_AT_MOST = 100
"""The command lines of other users' processes the optional pass reads at most.

Its words name at most two busy foreign runs and count the idle ones: beside
a storm of thousands of another user's runners, reading them all took the
whole of its time, every call, and was then dropped. Past this many, another
user's process is not read (a run of another user in this very checkout,
which that user can write, is still looked into, whatever ``on-shared-tree``
says: ``warn`` names it). When the first pass holds the
command, none is: a hold's words never name foreign runs (nor, then, a run
of another user elsewhere that shares this checkout's environment)."""

HOLD_GRACE_SECONDS = 0.5
"""What a hold's optional pass is given after a first pass that ended past its share.

That pass takes the runs the first pass found and reads a few files of each
(:class:`runctx.scanning.FirstPass`): on a loaded box, where the first pass
alone can end seconds after the hook's start, it still has time to tell who
started the runs in the way (the agent's own run, another session's, a
person's), which is what the refusal's advice turns on."""

HELD = (Action.STOP, Action.ASK, Action.WAIT)
"""The actions that hold a command: the hook refuses it (and says how to ask or wait)."""

OUT_OF_TIME = (
    "runctx: out of time on a busy box: whether this command changes an environment a "
    "live test run imports from was not checked."
)


def pre_tool(  # noqa: PLR0913, PLR0917 - what the fast path found, handed over once
    agent: Agent,
    payload: JSONObject,
    cwd: str,
    root: Root | None,
    settings: Settings | None,
    invocations: tuple[TestInvocation, ...],
    changes: tuple[TestInvocation, ...],
    deadlines: tuple[float, float, float],
) -> str | None:
    """The reply of ``agent``'s pre-tool hook to a command that starts test runs or changes.

    ``invocations`` and ``changes`` as :mod:`runctx.hooks.commands` read them;
    ``root`` and ``settings`` those of ``cwd``'s checkout, found by the fast
    path (``root`` None: the walk failed, and why is found here; ``settings``
    None: no file adds a runner, and they are read here); ``deadlines`` the
    hook's deadline and the ends of its optional pass (:func:`optional_end`).
    """
    known, settings = _known(root, settings, cwd)
    session = agent_session(agent, payload)
    checkouts = _checkouts(invocations, cwd, known, settings)
    source = default_source()
    found = FirstPass()
    # Decide first: is a run of this checkout, known to be ours, in the way? With
    # the whole budget, and nothing optional read.
    first = policy.decide(
        invocations,
        source=source,
        session=session,
        settings=settings,
        checkouts=checkouts,
        essentials_only=True,
        first_pass=found,
    )
    # Then, in the time left, what is optional: CPU use now, environments, who
    # started each run, and the words they allow. Dropped when the time is out.
    alone = not changes and not any(
        report.not_examined or any(not judged.run.is_self for judged in report.runs)
        for report in first.reports
    )
    if alone:  # nothing else is live: nothing optional to add
        return reply_for(first, agent.PRE_TOOL_FACE.replies, agent.TITLE)
    # A hold never speaks of foreign load: its optional pass (who started the runs in
    # the way, the environments) reads no other user's process but those working here,
    # and no CPU use now (a window of sleep and a second reading of each foreign run).
    # That is what the first pass read: it takes the runs the first pass found (``found``)
    # and does not list /proc again. A go-ahead's reads more of other users' processes;
    # each one the first pass read (every process of this user, and those of others that
    # work here) it takes from that pass's table, not from /proc.
    held = first.action in HELD
    if not held:
        source.reuse_last_table()
    full = optional(
        lambda: policy.decide(
            invocations,
            source=source,
            changes=changes,
            environments=True,
            session=session,
            settings=settings,
            checkouts=checkouts,
            others_argv_at_most=0 if held else OTHERS_ARGV_AT_MOST,
            cpu_window=None if held else DEFAULT_WINDOW_SECONDS,
            first_pass=found,
        ),
        deadlines[0],
        optional_end(first, deadlines, time.monotonic()),
    )
    decision = decided(first, full, dropped=bool(changes))
    return reply_for(decision, agent.PRE_TOOL_FACE.replies, agent.TITLE)


def optional_end(first: Decision, deadlines: tuple[float, float, float], now: float) -> float:
    """When the optional pass ends: early after a hold, later after a go-ahead.

    ``deadlines``: the hook's deadline, the end after a hold and the end
    after a go-ahead (:data:`runctx.fastpath.hook.GO_AHEAD_SHARE`); ``now``:
    when the first pass ended. After a hold that is :data:`HOLD_GRACE_SECONDS`
    after ``now`` when that comes later than its share.
    """
    if first.action in HELD:
        return max(deadlines[1], now + HOLD_GRACE_SECONDS)
    return deadlines[2]


def _known(
    root: Root | None, settings: Settings | None, cwd: str
) -> tuple[Root | Unknown, Settings]:
    """The root of ``cwd`` (or why it is unknown) and its settings, from the fast path's."""
    known = root if root is not None else checkout_root(cwd)
    return known, settings if settings is not None else settings_for(known, degrade=True)


def optional(work: Callable[[], T], deadline: float, end: float) -> T | None:
    """``work()`` in the time the deadline leaves after its reserve; None when it is dropped.

    Optional work is never waited for: an interval timer cuts it at ``end``
    (its share of the deadline) or :data:`OPTIONAL_RESERVE_SECONDS` before
    ``deadline``, whichever comes first, and the hook's own timer is set
    again for what is left.
    """
    end = min(end, deadline - OPTIONAL_RESERVE_SECONDS)
    remaining = end - time.monotonic()
    if remaining <= 0:
        return None
    if remaining == float("inf"):  # no deadline (called outside a hook): no timer
        return work()

    def drop(_signum: int, _frame: FrameType | None) -> None:
        raise _OptionalDroppedError

    try:
        previous = signal.signal(signal.SIGALRM, drop)
    except ValueError:  # not the main thread: no timer
        return work()
    signal.setitimer(signal.ITIMER_REAL, remaining)
    try:
        return work()
    except _OptionalDroppedError:
        log_event("runctx.hook_optional_dropped", seconds=round(remaining, 3))
        return None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if callable(previous):  # the hook's own deadline (:func:`runctx.fastpath.hook._within`)
            signal.setitimer(signal.ITIMER_REAL, max(deadline - time.monotonic(), 0.001))


class _OptionalDroppedError(BaseException):
    """The optional pass ran out of its time: dropped (a BaseException: nothing swallows it)."""


def decided(first: Decision, full: Decision | None, *, dropped: bool) -> Decision:
    """The answer of the two passes: the second's, unless it came too late or would lift a hold.

    The time running out never turns the first pass's refusal into a go-ahead.
    When the second pass was dropped and it had a command that changes an
    environment to judge (``dropped``), the answer says it was not judged.
    """
    if full is not None:
        order = list(Action)
        firmer = order.index(full.action) >= order.index(first.action)
        return full if firmer or first.action not in HELD else first
    if not dropped:
        return first
    return _with_line(first, OUT_OF_TIME)


def _with_line(decision: Decision, line: str) -> Decision:
    """``decision`` with ``line`` added to its words (a silent one becomes a note of it)."""
    if decision.action is Action.SILENT:
        return Decision(Action.NOTE, message=line, reports=decision.reports)
    return attrs.evolve(decision, message=f"{decision.message}\n{line}")


def _checkouts(
    invocations: Sequence[TestInvocation],
    cwd: str,
    root: Root | Unknown,
    settings: Settings,
) -> dict[Viewpoint, Settings]:
    """The settings of each checkout the invocations run in: the hook's own, read once.

    The checkout of ``cwd`` was found already (``root``): it is not walked to
    again, and its settings are ``settings``; another checkout's are read here.
    """
    here = Viewpoint(root=root, uid=os.getuid())
    found = {}
    for view, _ in policy.viewpoints(invocations, known={cwd: here}):
        found[view] = settings if view == here else settings_for(view.root, degrade=True)
    return found


def agent_session(agent: Agent, payload: JSONObject) -> AgentSession:
    """The agent session the payload comes from (its id None when the payload names none)."""
    return hook_session(agent.KIND, agent.read_session_id(payload))


def after_tool(
    agent: Agent,
    cwd: str,
    root: Root | None,
    settings: Settings | None,
    invocations: tuple[TestInvocation, ...],
) -> str | None:
    """The reply of ``agent``'s after-tool hook to a command that ran a test run."""
    face = agent.AFTER_TOOL_FACE
    assert face is not None  # noqa: S101 - face_of names only faces the agent has
    known, settings = _known(root, settings, cwd)
    checkouts = _checkouts(invocations, cwd, known, settings)
    context = policy.after_context(invocations, settings=settings, checkouts=checkouts)
    return context_reply(face, context) if context else None


def session_start(agent: Agent, payload: JSONObject) -> str | None:
    """The reply of ``agent``'s session-start hook: what is live in the checkout of its cwd."""
    face = agent.SESSION_FACE
    assert face is not None  # noqa: S101 - face_of names only faces the agent has
    cwd = face.read(payload)
    settings = settings_for(checkout_root(cwd), degrade=True)
    context = policy.session_context(cwd, session=agent_session(agent, payload), settings=settings)
    return context_reply(face, context) if context else None


def failed_open_words(what: str) -> str:
    """The one line an agent reads when the hook failed open (``what`` failed): the risk."""
    return (
        f"runctx could not check for other test runs ({visible(what[:300])}); this command "
        "was let through unchecked, so a second run of this checkout may collide with one "
        "already live."
    )


def failed_open_reply(agent: Agent, kind: str, what: str) -> str:
    """The reply of ``agent``'s hook of ``kind`` after it failed open: a note, the command runs."""
    words = failed_open_words(what)
    if kind == SESSION and agent.SESSION_FACE is not None:
        return context_reply(agent.SESSION_FACE, words)
    if kind == AFTER_TOOL and agent.AFTER_TOOL_FACE is not None:
        return context_reply(agent.AFTER_TOOL_FACE, words)
    return hook_json(agent.PRE_TOOL_FACE.replies.failed_open(words, words))


def cannot_ask(title: str) -> str:
    """What a deny says when the checkout asks first and ``title`` has no way to ask."""
    return (
        f"(This checkout is set to ask before a second run starts; {title} cannot ask "
        "here, so runctx refused. Run it again once the other run has ended, or start it "
        "as `runctx run --wait -- COMMAND`.)"
    )


def reply_for(decision: Decision, replies: Replies, title: str) -> str | None:
    """The hook's stdout for ``decision`` in the agent's words, or None to stay silent.

    runctx never answers "allow": that would skip the user's own permission prompt.
    """
    action = decision.action
    message = decision.message
    if action in {"stop", "wait"}:  # a hook cannot wait: the message says how to
        output = replies.deny(message, decision.summary)
    elif action == "ask" and replies.ask is not None:
        output = replies.ask(message, decision.summary)
    elif action == "ask":
        output = replies.deny(f"{message}\n{cannot_ask(title)}", decision.summary)
    elif action in {"note", "warn"}:
        output = replies.note(message, decision.summary)
    else:
        return None
    return hook_json(output)


def context_reply(face: AfterToolFace | SessionFace, context: str) -> str:
    """The hook's stdout that gives ``context`` to the model through ``face``.

    Like :func:`reply_for`, the one place a reply becomes JSON: through
    :func:`runctx.present.escape.hook_json`, ASCII with every string escaped
    for display, so every strict JSON parser accepts it.
    """
    return hook_json(face.reply(context))
