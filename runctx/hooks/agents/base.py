"""What every agent module provides: readers, reply tables, install specs.

An agent is a module of :mod:`runctx.hooks.agents` that holds everything
runctx knows about one agent (the :class:`Agent` protocol): how to read its
payloads, its reply table, what ``runctx install`` writes into its settings
file and where that file is, and what to tell the user after an install.

Imported on the hook's fast path (:mod:`runctx.fastpath`):
:class:`~runctx.fastpath.record.LightRecord` records and the standard library only. A
decision becomes a reply in :mod:`runctx.hooks.answer`.
"""

from __future__ import annotations

from runctx.fastpath.record import LightRecord

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Protocol

    JSONObject = dict[str, object]
    Builder = Callable[[str, str], JSONObject]

PRE_TOOL = "pre-tool"
"""Before the agent's shell tool runs a command: the face that can stop it."""
AFTER_TOOL = "after-tool"
"""After the command ran: context appended to its result."""
SESSION = "session"
"""When a session starts: context for the model."""

FACE_SUFFIXES = {PRE_TOOL: "", AFTER_TOOL: "-after", SESSION: "-session-start"}
"""A face is the agent's name plus the suffix of its kind: ``claude``,
``gemini-after``, ``codex-session-start``."""


class HookEntry(LightRecord):
    """One hook ``runctx install`` adds: the event, the face it runs, how it is matched."""

    event: str
    face: str
    matcher: str | None = None
    name: str | None = None


class InstallSpec(LightRecord):
    """How one agent's settings file holds hooks, and which ones runctx adds.

    ``layout``: ``grouped`` is ``hooks.EVENT = [{matcher, hooks: [handler]}]``
    (Claude Code, Codex, Gemini); ``flat`` is ``hooks.EVENT = [handler]`` with a
    top-level ``version`` (Cursor, Copilot). ``owns_file``: the file holds
    runctx's hooks only, so an uninstall that leaves nothing else removes it.
    ``blocks_on_failure``: the agent blocks the tool when a hook exits
    non-zero, so the command gets ``|| true`` and a runctx that cannot even
    start lets work through. ``comments``, ``trailing_commas``: the agent reads
    its settings file with comments (``//``, ``/* */``) or trailing commas, so
    ``runctx install`` accepts and keeps them there (and refuses them in the
    files of every other agent, which would not read them).
    """

    layout: str
    entries: tuple[HookEntry, ...]
    command_key: str = "command"
    timeout_key: str | None = "timeout"
    timeout: int | None = None
    handler_type: bool = True
    version: int | None = None
    owns_file: bool = False
    blocks_on_failure: bool = False
    comments: bool = False
    trailing_commas: bool = False

    @property
    def faces(self) -> frozenset[str]:
        """The faces this agent's entries run."""
        return frozenset(entry.face for entry in self.entries)


class SettingsFiles(LightRecord):
    """Where an agent keeps hooks: per project, per user, and (Claude Code) locally.

    ``project`` is relative to the checkout root. The user file is
    ``$USER_DIR_ENV/USER_NAME`` when that variable is set, else
    ``HOME/USER_DIR/USER_NAME``, where HOME is ``$HOME_ENV`` when the agent has
    such a variable and it is set (Gemini CLI's ``GEMINI_CLI_HOME``), else the
    user's home. ``local`` is ``""`` for agents without one.
    """

    project: str
    user_dir: str
    user_name: str
    user_dir_env: str = ""
    local: str = ""
    home_env: str = ""


class Replies(LightRecord):
    """How an agent says each action before its shell tool runs.

    Each builder takes the message and its first line (the summary) and gives
    the JSON object to print. ``ask`` is None for an agent that cannot ask:
    an ask is then a deny whose message says the checkout asks first.
    ``failed_open`` says that the hook could not check and lets the command
    run (the note's builder, unless the agent reads notes on another channel).
    """

    deny: Builder
    ask: Builder | None
    note: Builder
    failed_open: Builder

    def __init__(
        self,
        *,
        deny: Builder,
        ask: Builder | None,
        note: Builder,
        failed_open: Builder | None = None,
    ) -> None:
        """Hold the builders; ``failed_open`` is ``note`` unless given."""
        super().__init__(deny=deny, ask=ask, note=note, failed_open=failed_open or note)


class ToolFace(LightRecord):
    """The face before the shell tool runs: read the payload, answer a decision.

    ``read`` gives the command and its directory, or None for another tool.
    """

    read: Callable[[JSONObject], tuple[str, str] | None]
    replies: Replies


class AfterToolFace(LightRecord):
    """The face after the shell tool ran: read the payload, append context to the result.

    ``read`` gives the command that ran and its directory; ``reply`` wraps context.
    """

    read: Callable[[JSONObject], tuple[str, str] | None]
    reply: Callable[[str], JSONObject]


class SessionFace(LightRecord):
    """The face at session start: read the directory, give the model context.

    ``read`` gives the session's directory; ``reply`` wraps context.
    """

    read: Callable[[JSONObject], str]
    reply: Callable[[str], JSONObject]


if TYPE_CHECKING:

    class Agent(Protocol):
        """One agent: a module of :mod:`runctx.hooks.agents`.

        ``PRE_TOOL_FACE`` answers before the shell tool runs (every agent has
        it); ``AFTER_TOOL_FACE`` and ``SESSION_FACE`` are None for an agent
        without those hooks. ``KIND`` is the kind runctx gives a run this
        agent's shell tool started (:mod:`runctx.started_by`), and
        ``read_session_id`` the session a payload comes from.
        """

        NAME: str
        KIND: str
        TITLE: str
        PRE_TOOL_FACE: ToolFace
        AFTER_TOOL_FACE: AfterToolFace | None
        SESSION_FACE: SessionFace | None
        INSTALL: InstallSpec
        FILES: SettingsFiles
        AFTER_INSTALL: str

        def read_session_id(self, payload: JSONObject) -> str | None:
            """The session the payload comes from, None when it names none."""
