"""Who started a run: an agent session, a CI job, cron, a systemd unit, a terminal.

Pure: :func:`started_by` reads what the run's authoritative process inherited
at exec (:class:`~runctx.records.Inherited`: a few environment variables, its
cgroup, its terminal) and the names of its ancestors, and names the starter,
or gives None when none of it says. Nothing is guessed: a kind is named only
when a variable or a process that only that starter sets is there.

The environment is read only for runs of the user asking (the scan never
reads another user's, not even as root: see :mod:`runctx.scanning`). For
another user's run only the process tree, the cgroup and the terminal are
left, which every user may see (``ps``); its session is never known.

The variables, first match wins (agents before CI, because an agent run in a
CI job is the agent's, and Cursor sets ``CI=1`` in its agent's commands):

- ``claude-code``: ``CLAUDE_CODE_SESSION_ID`` or ``CLAUDECODE``; session
  ``CLAUDE_CODE_SESSION_ID``;
- ``codex``: ``CODEX_THREAD_ID`` or ``CODEX_SANDBOX``; session ``CODEX_THREAD_ID``;
- ``gemini-cli``: ``GEMINI_CLI``; session ``GEMINI_SESSION_ID``;
- ``cursor``: ``CURSOR_AGENT``; no session;
- ``copilot``: ``COPILOT_AGENT_SESSION_ID`` or ``COPILOT_CLI``; session
  ``COPILOT_AGENT_SESSION_ID``;
- ``qwen-code``: ``QWEN_CODE`` or ``QWEN_CODE_SESSION_ID``; session
  ``QWEN_CODE_SESSION_ID``;
- ``github-actions``: ``GITHUB_ACTIONS=true``; session ``GITHUB_RUN_ID``;
- ``gitlab-ci``: ``GITLAB_CI=true``; session ``CI_JOB_ID``;
- ``buildkite``: ``BUILDKITE=true``; session ``BUILDKITE_JOB_ID``;
- ``jenkins``: ``JENKINS_URL`` with ``BUILD_TAG``; session ``BUILD_TAG``;
- ``circleci``: ``CIRCLECI=true``; session ``CIRCLE_WORKFLOW_JOB_ID``;
- ``ci``: ``CI`` (``true``, ``1``, ``yes``); no session;
- ``cron``: an ancestor named ``cron``, ``crond`` or ``anacron``;
- ``systemd``: a cgroup whose last part is a ``.service`` unit (the detail),
  or ``INVOCATION_ID`` (the session);
- ``tmux``: ``TMUX``, or an ancestor named ``tmux...``; session ``TMUX_PANE``;
- ``screen``: ``STY`` (the session);
- ``ssh``: ``SSH_CONNECTION``, ``SSH_CLIENT`` or ``SSH_TTY``, or an ``sshd``
  ancestor;
- ``terminal``: a controlling terminal, or ``TERM_PROGRAM`` (the detail).

Without the environment, the CI agents' own processes say CI too: an
ancestor named ``Runner.Worker`` (GitHub Actions), ``gitlab-runner`` or
``buildkite-agent``.

Sources: Claude Code's env-vars reference (``CLAUDECODE``,
``CLAUDE_CODE_SESSION_ID`` equal to the hooks' ``session_id``); Codex exposes
``CODEX_THREAD_ID`` to its shell tool (openai/codex#19937), the id its
sessions are filed under; Gemini CLI's ``docs/tools/shell.md``
(``GEMINI_CLI=1``); Cursor's agent sets ``CURSOR_AGENT`` (third-party) and
``CI=1`` (cursor.com agent troubleshooting); the Copilot variables are
third-party (dotnet/sdk#54227); Qwen Code's shell tool sets ``QWEN_CODE=1`` and
``QWEN_CODE_SESSION_ID`` (its shell execution service). The CI variables are each provider's
documented defaults (docs.github.com "Variables reference",
docs.gitlab.com "Predefined CI/CD variables", buildkite.com "Environment
variables", jenkins.io "Using environment variables", circleci.com "Project
values and variables"). A value over 256 bytes is treated as not set (a cut
session id would name another session); any other is kept byte for byte: it is
foreign text, which each face escapes its own way (:mod:`runctx.present.escape`),
and a session is compared exactly.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence

import attrs

from runctx.agent_process import AgentProcess, descends_from, hook_agent
from runctx.record_base import Record
from runctx.records import Inherited
from runctx.report import StartedBy
from runctx.unknown import Reason, Unknown

AGENT_KINDS = ("claude-code", "codex", "gemini-cli", "cursor", "copilot", "qwen-code")
"""The kinds that are agent sessions; a hook compares its own session with theirs."""

_TRUE = frozenset({"true", "1", "yes"})


def _set(inherited: Inherited, *names: str) -> bool:
    return any(inherited.variable(name) for name in names)


def _true(inherited: Inherited, name: str) -> bool:
    return (inherited.variable(name) or "").lower() in _TRUE


def _joined(*parts: str | None, separator: str = " ") -> str | None:
    text = separator.join(part for part in parts if part)
    return text or None


# --------------------------------------------------------------------------- agents

_AGENTS: tuple[tuple[str, tuple[str, ...], str | None, frozenset[str]], ...] = (
    # kind, marker variables, session variable, ancestor names
    (
        "claude-code",
        ("CLAUDE_CODE_SESSION_ID", "CLAUDECODE"),
        "CLAUDE_CODE_SESSION_ID",
        frozenset({"claude"}),
    ),
    ("codex", ("CODEX_THREAD_ID", "CODEX_SANDBOX"), "CODEX_THREAD_ID", frozenset({"codex"})),
    ("gemini-cli", ("GEMINI_CLI",), "GEMINI_SESSION_ID", frozenset()),
    ("cursor", ("CURSOR_AGENT",), None, frozenset({"cursor-agent"})),
    (
        "copilot",
        ("COPILOT_AGENT_SESSION_ID", "COPILOT_CLI"),
        "COPILOT_AGENT_SESSION_ID",
        frozenset({"copilot"}),
    ),
    (
        "qwen-code",
        ("QWEN_CODE_SESSION_ID", "QWEN_CODE"),
        "QWEN_CODE_SESSION_ID",
        frozenset({"qwen"}),
    ),
)


def _agent(inherited: Inherited, ancestors: Sequence[str]) -> tuple[str, str | None] | None:
    """The agent whose shell started the run, and its session, from its variables.

    When the variables of several agents are set (one agent running another),
    the one whose process is the nearest ancestor wins; when no ancestor
    says, the first in the table.
    """
    marked = [row for row in _AGENTS if _set(inherited, *row[1])]
    if not marked:
        return None
    chosen = marked[0]
    if len(marked) > 1:
        for name in ancestors:
            found = next((row for row in marked if name in row[3]), None)
            if found is not None:
                chosen = found
                break
    kind, _markers, session_name, _names = chosen
    return kind, inherited.variable(session_name) if session_name else None


# --------------------------------------------------------------------------- CI providers


def _github(inherited: Inherited) -> StartedBy | None:
    if (inherited.variable("GITHUB_ACTIONS") or "") != "true":
        return None
    job = _joined(
        inherited.variable("GITHUB_WORKFLOW"), inherited.variable("GITHUB_JOB"), separator=" / "
    )
    return StartedBy(
        "github-actions",
        inherited.variable("GITHUB_RUN_ID"),
        _joined(inherited.variable("GITHUB_REPOSITORY"), job, separator=": "),
    )


def _gitlab(inherited: Inherited) -> StartedBy | None:
    if (inherited.variable("GITLAB_CI") or "") != "true":
        return None
    return StartedBy(
        "gitlab-ci",
        inherited.variable("CI_JOB_ID"),
        _joined(
            inherited.variable("CI_PROJECT_PATH"), inherited.variable("CI_JOB_NAME"), separator=": "
        ),
    )


def _buildkite(inherited: Inherited) -> StartedBy | None:
    if (inherited.variable("BUILDKITE") or "") != "true":
        return None
    number = inherited.variable("BUILDKITE_BUILD_NUMBER")
    return StartedBy(
        "buildkite",
        inherited.variable("BUILDKITE_JOB_ID"),
        _joined(inherited.variable("BUILDKITE_PIPELINE_SLUG"), f"#{number}" if number else None),
    )


def _jenkins(inherited: Inherited) -> StartedBy | None:
    if not _set(inherited, "JENKINS_URL") or not _set(inherited, "BUILD_TAG", "BUILD_NUMBER"):
        return None
    return StartedBy(
        "jenkins",
        inherited.variable("BUILD_TAG") or inherited.variable("BUILD_NUMBER"),
        inherited.variable("JOB_NAME"),
    )


def _circleci(inherited: Inherited) -> StartedBy | None:
    if (inherited.variable("CIRCLECI") or "") != "true":
        return None
    return StartedBy(
        "circleci",
        inherited.variable("CIRCLE_WORKFLOW_JOB_ID") or inherited.variable("CIRCLE_BUILD_NUM"),
        _joined(
            inherited.variable("CIRCLE_PROJECT_REPONAME"),
            inherited.variable("CIRCLE_JOB"),
            separator=": ",
        ),
    )


def _generic_ci(inherited: Inherited) -> StartedBy | None:
    return StartedBy("ci", None, None) if _true(inherited, "CI") else None


_CI: tuple[Callable[[Inherited], StartedBy | None], ...] = (
    _github,
    _gitlab,
    _buildkite,
    _jenkins,
    _circleci,
    _generic_ci,
)

_CI_ANCESTORS = {
    "Runner.Worker": "github-actions",
    "gitlab-runner": "gitlab-ci",
    "buildkite-agent": "buildkite",
}
"""CI agents' process names (``comm``): the tree says CI even when the environment is not read."""


def _ci(inherited: Inherited, ancestors: Sequence[str]) -> StartedBy | None:
    for rule in _CI:
        found = rule(inherited)
        if found is not None:
            return found
    for name in ancestors:
        if name in _CI_ANCESTORS:
            return StartedBy(_CI_ANCESTORS[name], None, None)
    return None


# --------------------------------------------------------------------------- the rest

_CRON_NAMES = frozenset({"cron", "crond", "anacron"})
_SSH_NAMES = frozenset({"sshd"})
_SYSTEMD_MANAGER = "user@"


def systemd_unit(cgroup: str) -> str | None:
    """The ``.service`` unit a cgroup path ends in; None for a scope, a slice or a manager."""
    leaf = cgroup.rstrip("/").rpartition("/")[2]
    if not leaf.endswith(".service") or leaf.startswith(_SYSTEMD_MANAGER):
        return None
    return leaf


def _rest(inherited: Inherited, ancestors: Sequence[str]) -> StartedBy | None:  # noqa: PLR0911 - one rule per return
    if any(name in _CRON_NAMES for name in ancestors):
        return StartedBy("cron", None, None)
    cgroup = inherited.cgroup if isinstance(inherited.cgroup, str) else ""
    unit = systemd_unit(cgroup) if cgroup else None
    invocation = inherited.variable("INVOCATION_ID")
    if unit is not None or invocation:
        return StartedBy("systemd", invocation, unit)
    if _set(inherited, "TMUX") or any(name.startswith("tmux") for name in ancestors):
        return StartedBy("tmux", inherited.variable("TMUX_PANE"), None)
    if _set(inherited, "STY"):
        return StartedBy("screen", inherited.variable("STY"), None)
    if _set(inherited, "SSH_CONNECTION", "SSH_CLIENT", "SSH_TTY") or any(
        name in _SSH_NAMES for name in ancestors
    ):
        return StartedBy("ssh", None, None)
    if inherited.tty is True or _set(inherited, "TERM_PROGRAM"):
        return StartedBy("terminal", None, inherited.variable("TERM_PROGRAM"))
    return None


WANTED = frozenset(
    {
        *(name for row in _AGENTS for name in row[1]),
        *(row[2] for row in _AGENTS if row[2]),
        "GITHUB_ACTIONS",
        "GITHUB_RUN_ID",
        "GITHUB_REPOSITORY",
        "GITHUB_WORKFLOW",
        "GITHUB_JOB",
        "GITLAB_CI",
        "CI_JOB_ID",
        "CI_PROJECT_PATH",
        "CI_JOB_NAME",
        "BUILDKITE",
        "BUILDKITE_JOB_ID",
        "BUILDKITE_PIPELINE_SLUG",
        "BUILDKITE_BUILD_NUMBER",
        "JENKINS_URL",
        "BUILD_TAG",
        "BUILD_NUMBER",
        "JOB_NAME",
        "CIRCLECI",
        "CIRCLE_WORKFLOW_JOB_ID",
        "CIRCLE_BUILD_NUM",
        "CIRCLE_PROJECT_REPONAME",
        "CIRCLE_JOB",
        "CI",
        "INVOCATION_ID",
        "TMUX",
        "TMUX_PANE",
        "STY",
        "SSH_CONNECTION",
        "SSH_CLIENT",
        "SSH_TTY",
        "TERM_PROGRAM",
    }
)
"""Every variable :func:`started_by` looks at: the only ones a source reads."""


def started_by(inherited: Inherited, ancestors: Sequence[str]) -> StartedBy | None:
    """Who started the run, or None when nothing it inherited says.

    ``ancestors`` are the process names (``comm``) of the run's live
    ancestors, the nearest first. An agent run inside a CI job keeps the
    agent's kind, with the CI job as its detail.
    """
    agent = _agent(inherited, ancestors)
    ci = _ci(inherited, ancestors)
    if agent is not None:
        kind, session = agent
        detail = None
        if ci is not None and ci.kind != "ci":  # a plain CI=1 is no job (Cursor sets it)
            detail = _joined(ci.kind, f"job {ci.session}" if ci.session else None)
        return StartedBy(kind, session, detail)
    if ci is not None:
        return ci
    return _rest(inherited, ancestors)


# --------------------------------------------------------------------------- this session's runs


_NO_PROCESS = Unknown(Reason.NOT_READ, "the agent process was not looked for")


@attrs.frozen(repr=False, eq=False)
class AgentSession(Record):
    """The agent session a hook answers: its kind (``claude-code``) and id, None when not sent.

    ``process`` is the agent process that runs the hook
    (:func:`runctx.agent_process.hook_agent`), or why it is not known: a run
    that descends from it was started by this session even when its shell
    tool does not hand commands the session id (Gemini CLI).
    """

    kind: str
    id: str | None
    process: AgentProcess | Unknown = _NO_PROCESS


def hook_session(kind: str, session_id: str | None) -> AgentSession:
    """The session of the agent that runs this hook, with the agent's process found."""
    return AgentSession(kind, session_id, hook_agent())


class Relation(enum.Enum):
    """How a run stands to the session that asks about it."""

    OWN = "own"
    """This very session started it: same agent, same session id."""
    OTHER_SESSION = "other-session"
    """Another agent session started it (another id, or another agent)."""
    UNKNOWN = "unknown"
    """Not known: no session asks, or the run's starter or session is not known."""


def relation(
    started: StartedBy | Unknown, session: AgentSession | None, pid: int | None = None
) -> Relation:
    """How a run started by ``started`` stands to ``session``; never a guess.

    Own when both ids are known and equal for the same agent, or, where the
    run names no session of its own, when the run (its authoritative ``pid``)
    descends from the very agent process that asks (:mod:`runctx.agent_process`):
    what the agent's shell gives its commands differs from agent to agent and
    version to version, the process tree does not. Another session when the
    run is another agent's, or the same agent's with another known id.
    Anything less known is unknown.
    """
    if session is None:
        return Relation.UNKNOWN
    if isinstance(started, StartedBy) and started.kind in AGENT_KINDS:
        if started.kind != session.kind:
            return Relation.OTHER_SESSION
        if started.session is not None and session.id is not None:
            return Relation.OWN if started.session == session.id else Relation.OTHER_SESSION
    if (
        pid is not None
        and isinstance(session.process, AgentProcess)
        and descends_from(pid, session.process)
    ):
        return Relation.OWN
    return Relation.UNKNOWN
