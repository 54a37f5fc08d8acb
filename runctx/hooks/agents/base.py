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

    __slots__ = ("event", "face", "matcher", "name")

    event: str
    face: str
    matcher: str | None
    name: str | None

    def __init__(
        self, event: str, face: str, *, matcher: str | None = None, name: str | None = None
    ) -> None:
        """Hold one entry."""
        self._hold(event=event, face=face, matcher=matcher, name=name)


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

    __slots__ = (
        "blocks_on_failure",
        "command_key",
        "comments",
        "entries",
        "handler_type",
        "layout",
        "owns_file",
        "timeout",
        "timeout_key",
        "trailing_commas",
        "version",
    )

    layout: str
    entries: tuple[HookEntry, ...]
    command_key: str
    timeout_key: str | None
    timeout: int | None
    handler_type: bool
    version: int | None
    owns_file: bool
    blocks_on_failure: bool
    comments: bool
    trailing_commas: bool

    def __init__(  # noqa: PLR0913 - one argument per column
        self,
        *,
        layout: str,
        entries: tuple[HookEntry, ...],
        command_key: str = "command",
        timeout_key: str | None = "timeout",
        timeout: int | None = None,
        handler_type: bool = True,
        version: int | None = None,
        owns_file: bool = False,
        blocks_on_failure: bool = False,
        comments: bool = False,
        trailing_commas: bool = False,
    ) -> None:
        """Hold one agent's install spec."""
        self._hold(
            layout=layout,
            entries=entries,
            command_key=command_key,
            timeout_key=timeout_key,
            timeout=timeout,
            handler_type=handler_type,
            version=version,
            owns_file=owns_file,
            blocks_on_failure=blocks_on_failure,
            comments=comments,
            trailing_commas=trailing_commas,
        )

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

    __slots__ = ("home_env", "local", "project", "user_dir", "user_dir_env", "user_name")

    project: str
    local: str
    user_dir_env: str
    user_dir: str
    user_name: str
    home_env: str

    def __init__(  # noqa: PLR0913 - one argument per path part
        self,
        *,
        project: str,
        user_dir: str,
        user_name: str,
        user_dir_env: str = "",
        local: str = "",
        home_env: str = "",
    ) -> None:
        """Hold the paths."""
        self._hold(
            project=project,
            local=local,
            user_dir_env=user_dir_env,
            user_dir=user_dir,
            user_name=user_name,
            home_env=home_env,
        )


class Replies(LightRecord):
    """How an agent says each action before its shell tool runs.

    Each builder takes the message and its first line (the summary) and gives
    the JSON object to print. ``ask`` is None for an agent that cannot ask:
    an ask is then a deny whose message says the checkout asks first.
    ``failed_open`` says that the hook could not check and lets the command
    run (the note's builder, unless the agent reads notes on another channel).
    """

    __slots__ = ("ask", "deny", "failed_open", "note")

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
        """Hold the builders."""
        self._hold(deny=deny, ask=ask, note=note, failed_open=failed_open or note)


class ToolFace(LightRecord):
    """The face before the shell tool runs: read the payload, answer a decision."""

    __slots__ = ("read", "replies")

    read: Callable[[JSONObject], tuple[str, str] | None]
    replies: Replies

    def __init__(
        self, read: Callable[[JSONObject], tuple[str, str] | None], replies: Replies
    ) -> None:
        """``read`` gives the command and its directory, or None for another tool."""
        self._hold(read=read, replies=replies)


class AfterToolFace(LightRecord):
    """The face after the shell tool ran: read the payload, append context to the result."""

    __slots__ = ("read", "reply")

    read: Callable[[JSONObject], tuple[str, str] | None]
    reply: Callable[[str], JSONObject]

    def __init__(
        self,
        read: Callable[[JSONObject], tuple[str, str] | None],
        reply: Callable[[str], JSONObject],
    ) -> None:
        """``read`` gives the command that ran and its directory; ``reply`` wraps context."""
        self._hold(read=read, reply=reply)


class SessionFace(LightRecord):
    """The face at session start: read the directory, give the model context."""

    __slots__ = ("read", "reply")

    read: Callable[[JSONObject], str]
    reply: Callable[[str], JSONObject]

    def __init__(
        self, read: Callable[[JSONObject], str], reply: Callable[[str], JSONObject]
    ) -> None:
        """``read`` gives the session's directory; ``reply`` wraps context."""
        self._hold(read=read, reply=reply)


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
