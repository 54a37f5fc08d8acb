"""Gemini CLI: ``BeforeTool``, ``AfterTool`` and ``SessionStart``.

Protocol (github.com/google-gemini/gemini-cli ``docs/hooks/reference.md``):
JSON on stdin with ``cwd``, ``tool_name`` (``run_shell_command`` for the shell)
and ``tool_input`` (``command``, and ``dir_path``: the directory the command
runs in, absolute or relative to the workspace root, which is ``cwd``). Exit 0
with one JSON object on stdout.

- ``BeforeTool``, stop: ``decision: "deny"`` with ``reason`` (sent to the
  agent as the tool's error) and a one-line ``systemMessage`` for the user.
- ``BeforeTool``, ask: the reference documents only allow and deny for this
  event, so an ask is answered as a deny that says the checkout asks first.
- ``BeforeTool``, a note: ``BeforeTool`` has no documented channel to the
  agent, so the note goes to the user as ``systemMessage``. The agent gets it
  from the ``AfterTool`` hook (``runctx hook gemini-after``), whose
  ``hookSpecificOutput.additionalContext`` is appended to the tool result: the
  contention seen when the command finished, next to the output it explains.
- ``SessionStart``: ``hookSpecificOutput.additionalContext``.

``decision: "allow"`` is never written. Settings: ``.gemini/settings.json`` in
the project, ``~/.gemini/settings.json`` for the user (``$GEMINI_CLI_HOME``
stands in for the home directory); hook timeouts are
milliseconds. Gemini CLI reads its settings files through
``strip-json-comments`` before ``JSON.parse`` (``packages/cli/src/config/settings.ts``),
so they may hold comments, which ``runctx install`` keeps; that package leaves
trailing commas alone by default, and ``JSON.parse`` refuses them, so a file
with one is malformed for Gemini CLI too, and is refused.
"""

from __future__ import annotations

import os

from runctx.hooks.agents import claude
from runctx.hooks.agents.base import (
    AfterToolFace,
    HookEntry,
    InstallSpec,
    Replies,
    SessionFace,
    SettingsFiles,
    ToolFace,
)
from runctx.hooks.payload import (
    directory,
    expect_event,
    required_text,
    shell_tool_input,
    text,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from runctx.hooks.agents.base import JSONObject

NAME = "gemini"
KIND = "gemini-cli"
"""The kind a run started by this agent's shell tool has (:mod:`runctx.started_by`)."""
TITLE = "Gemini CLI"
SHELL_TOOL = "run_shell_command"


def _shell_input(payload: JSONObject) -> tuple[str, str] | None:
    found = shell_tool_input(payload, SHELL_TOOL)
    if found is None:
        return None
    command, cwd, tool_input = found
    where = text(tool_input, "dir_path", where="tool_input")
    if where:
        cwd = os.path.normpath(os.path.join(cwd, where))
    return command, cwd


def read_pre_tool(payload: JSONObject) -> tuple[str, str] | None:
    """The shell command and the directory it runs in, or None for another tool."""
    expect_event(payload, "BeforeTool", NAME)
    return _shell_input(payload)


def read_after_tool(payload: JSONObject) -> tuple[str, str] | None:
    """The shell command that ran and its directory, or None for another tool."""
    expect_event(payload, "AfterTool", f"{NAME}-after")
    return _shell_input(payload)


def read_session(payload: JSONObject) -> str:
    """The directory the session starts in."""
    expect_event(payload, "SessionStart", f"{NAME}-session-start")
    return directory(required_text(payload, "cwd"))


REPLIES = Replies(
    deny=lambda message, summary: {
        "decision": "deny",
        "reason": message,
        "systemMessage": summary,
    },
    ask=None,
    note=lambda message, _summary: {"systemMessage": message},
)


read_session_id = claude.read_session_id


PRE_TOOL_FACE = ToolFace(read_pre_tool, REPLIES)
AFTER_TOOL_FACE = AfterToolFace(
    read_after_tool,
    lambda context: {
        "hookSpecificOutput": {"hookEventName": "AfterTool", "additionalContext": context}
    },
)
SESSION_FACE = SessionFace(read_session, claude.session_reply)

INSTALL = InstallSpec(
    layout="grouped",
    entries=(
        HookEntry("BeforeTool", NAME, matcher=SHELL_TOOL, name="runctx"),
        HookEntry("AfterTool", f"{NAME}-after", matcher=SHELL_TOOL, name="runctx-after"),
        HookEntry("SessionStart", f"{NAME}-session-start", name="runctx-session-start"),
    ),
    timeout=claude.HOOK_TIMEOUT_SECONDS * 1000,  # Gemini CLI counts milliseconds
    comments=True,
)
FILES = SettingsFiles(
    project=".gemini/settings.json",
    user_dir=".gemini",
    user_name="settings.json",
    home_env="GEMINI_CLI_HOME",
)
AFTER_INSTALL = (
    "Restart Gemini CLI. Hooks are on unless `hooksConfig.enabled` is false in its "
    "settings; project hooks run only in a trusted folder (/permissions, or "
    "~/.gemini/trustedFolders.json)."
)
