"""The hook's answer to a command the pre-filter let through: a test run, or a change.

:mod:`runctx.hooks.main` reads the payload, finds the checkout and its
settings, and asks the pre-filter; only a command that may start a test run or
change an environment comes here, where the scan and the policy decide. So this
module imports what it needs at the top: nothing here is on the path of a
command that is not a test run.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

import attrs

from runctx import policy
from runctx.checkout import Root
from runctx.hooks.agents.base import context_reply, reply_for
from runctx.policy import Action, Decision
from runctx.report import Viewpoint
from runctx.settings import Settings
from runctx.shell.commands import TestInvocation
from runctx.started_by import AgentSession, hook_session
from runctx.unknown import Unknown

TYPE_CHECKING = False
if TYPE_CHECKING:
    from runctx.hooks.agents.base import Agent, JSONObject

SettingsOf = Callable[[str | Unknown], Settings]
"""Reads the settings of another checkout: the hook's entry does (``settings_for``)."""


OUT_OF_TIME = (
    "runctx: out of time on a busy box: whether this command changes an environment a "
    "live test run imports from was not checked."
)


def pre_tool(  # noqa: PLR0913, PLR0917 - what the fast path found, handed over once
    agent: Agent,
    payload: JSONObject,
    cwd: str,
    root: Root | Unknown,
    settings: Settings,
    invocations: tuple[TestInvocation, ...],
    changes: tuple[TestInvocation, ...],
    optional: Callable[[Callable[[], Decision]], Decision | None],
    settings_of: SettingsOf,
) -> str | None:
    """The reply of ``agent``'s pre-tool hook to a test run or an environment change.

    ``optional`` runs the second pass in the time the hook's deadline leaves
    (None when it is dropped: :func:`runctx.hooks.main._optional`);
    ``settings_of`` reads another checkout's settings.
    """
    session = agent_session(agent, payload)
    checkouts = _checkouts(invocations, cwd, root, settings, settings_of)
    # Decide first: is a run of this checkout, known to be ours, in the way? With
    # the whole budget, and nothing optional read.
    first = policy.decide(
        invocations,
        session=session,
        settings=settings,
        checkouts=checkouts,
        essentials_only=True,
    )
    # Then, in the time left, what is optional: CPU use now, environments, who
    # started each run, and the words they allow. Dropped when the time is out.
    alone = not changes and not any(
        report.not_examined or any(not judged.run.is_self for judged in report.runs)
        for report in first.reports
    )
    if alone:  # nothing else is live: nothing optional to add
        return reply_for(first, agent.PRE_TOOL_FACE.replies, agent.TITLE)
    full = optional(
        lambda: policy.decide(
            invocations,
            changes=changes,
            environments=True,
            session=session,
            settings=settings,
            checkouts=checkouts,
        )
    )
    decision = decided(first, full, dropped=bool(changes))
    return reply_for(decision, agent.PRE_TOOL_FACE.replies, agent.TITLE)


def decided(first: Decision, full: Decision | None, *, dropped: bool) -> Decision:
    """The answer of the two passes: the second's, unless it came too late or would lift a hold.

    The time running out never turns the first pass's refusal into a go-ahead.
    When the second pass was dropped and it had a command that changes an
    environment to judge (``dropped``), the answer says it was not judged.
    """
    held = (Action.STOP, Action.ASK, Action.WAIT)
    if full is not None:
        order = list(Action)
        firmer = order.index(full.action) >= order.index(first.action)
        return full if firmer or first.action not in held else first
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
    settings_of: SettingsOf,
) -> dict[Viewpoint, Settings]:
    """The settings of each checkout the invocations run in: the hook's own, read once.

    The checkout of ``cwd`` was found already (``root``): it is not walked to
    again, and its settings are ``settings``; another checkout's are read by
    ``settings_of``, the hook entry's reader.
    """
    here = Viewpoint(root=root, uid=os.getuid())
    found = {}
    for view, _ in policy.viewpoints(invocations, known={cwd: here}):
        found[view] = settings if view == here else settings_of(view.root)
    return found


def agent_session(agent: Agent, payload: JSONObject) -> AgentSession:
    """The agent session the payload comes from (its id None when the payload names none)."""
    return hook_session(agent.KIND, agent.read_session_id(payload))


def after_tool(  # noqa: PLR0913, PLR0917 - what the fast path found, handed over once
    agent: Agent,
    cwd: str,
    root: Root | Unknown,
    settings: Settings,
    invocations: tuple[TestInvocation, ...],
    settings_of: SettingsOf,
) -> str | None:
    """The reply of ``agent``'s after-tool hook to a command that ran a test run."""
    face = agent.AFTER_TOOL_FACE
    assert face is not None  # noqa: S101 - face_of names only faces the agent has
    checkouts = _checkouts(invocations, cwd, root, settings, settings_of)
    context = policy.after_context(invocations, settings=settings, checkouts=checkouts)
    return context_reply(face, context) if context else None


def session_start(agent: Agent, payload: JSONObject, cwd: str, settings: Settings) -> str | None:
    """The reply of ``agent``'s session-start hook: what is live in the checkout of ``cwd``."""
    face = agent.SESSION_FACE
    assert face is not None  # noqa: S101 - face_of names only faces the agent has
    context = policy.session_context(cwd, session=agent_session(agent, payload), settings=settings)
    return context_reply(face, context) if context else None
