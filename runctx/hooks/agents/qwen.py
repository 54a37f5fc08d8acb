"""Qwen Code: ``PreToolUse`` and ``PostToolUse`` on ``run_shell_command``, and ``SessionStart``.

Protocol (github.com/QwenLM/qwen-code ``docs/users/features/hooks.md``, shipped
in the npm package as ``bundled/qc-helper/docs/features/hooks.md``): Claude
Code's payload shape (``hook_event_name``, ``cwd``, ``session_id``,
``tool_name``, ``tool_input.command``, and ``tool_input.directory``, where the
command runs when the model named one) with Gemini CLI's tool name, and Claude
Code's ``hookSpecificOutput`` answer:

- stop: ``permissionDecision: "deny"``, the reason goes to the model as the
  tool's error;
- ask: ``permissionDecision: "ask"``; a headless run cannot ask and reads it as
  a deny;
- a note: ``systemMessage``, for the user. The reference documents a
  ``PreToolUse`` ``additionalContext`` too, but Qwen Code (0.24) only logs it:
  the model never reads it. The model gets the note from the ``PostToolUse``
  hook (``runctx hook qwen-after``), whose ``additionalContext`` is appended
  to the tool's result: what was live when the command finished, next to
  the output it explains (as for Gemini CLI, whose fork it is);
- nothing to say: no output.

Settings: ``.qwen/settings.json`` in the project (read in a trusted folder
only), ``~/.qwen/settings.json`` for the user (``$QWEN_HOME`` moves it).
Hook timeouts were milliseconds in Qwen Code's first hook releases and are
seconds now, where a value of 1000 or more is still read as milliseconds: so
runctx writes milliseconds (20000), which both read as 20 s.
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
from runctx.hooks.payload import expect_event, shell_tool_input, text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from runctx.hooks.agents.base import JSONObject

NAME = "qwen"
KIND = "qwen-code"
"""The kind a run started by this agent's shell tool has (:mod:`runctx.started_by`)."""
TITLE = "Qwen Code"
SHELL_TOOL = "run_shell_command"


DIRECTORY_FIELDS = ("directory", "dir_path")
"""Where the shell tool's input names the directory its command runs in (``directory``
in Qwen Code; ``dir_path``, Gemini CLI's name, read too): absolute, or relative to ``cwd``."""


def read_pre_tool(payload: JSONObject) -> tuple[str, str] | None:
    """The shell command and the directory it runs in, or None for another tool."""
    expect_event(payload, "PreToolUse", NAME)
    return _shell_input(payload)


def read_after_tool(payload: JSONObject) -> tuple[str, str] | None:
    """The shell command that ran and its directory, or None for another tool."""
    expect_event(payload, "PostToolUse", f"{NAME}-after")
    return _shell_input(payload)


def _shell_input(payload: JSONObject) -> tuple[str, str] | None:
    found = shell_tool_input(payload, SHELL_TOOL)
    if found is None:
        return None
    command, cwd, tool_input = found
    for name in DIRECTORY_FIELDS:
        where = text(tool_input, name, where="tool_input")
        if where:
            return command, os.path.normpath(os.path.join(cwd, where))
    return command, cwd


def read_session(payload: JSONObject) -> str:
    """The directory the session starts in."""
    return claude.read_session(payload, f"{NAME}-session-start")


read_session_id = claude.read_session_id


REPLIES = Replies(
    deny=claude.REPLIES.deny,
    ask=claude.REPLIES.ask,
    note=lambda message, _summary: {"systemMessage": message},
)

PRE_TOOL_FACE = ToolFace(read_pre_tool, REPLIES)
AFTER_TOOL_FACE = AfterToolFace(
    read_after_tool,
    lambda context: {
        "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": context}
    },
)
SESSION_FACE = SessionFace(read_session, claude.session_reply)

INSTALL = InstallSpec(
    layout="grouped",
    entries=(
        HookEntry("PreToolUse", NAME, matcher=SHELL_TOOL),
        HookEntry("PostToolUse", f"{NAME}-after", matcher=SHELL_TOOL),
        HookEntry("SessionStart", f"{NAME}-session-start"),
    ),
    timeout=claude.HOOK_TIMEOUT_SECONDS * 1000,  # milliseconds: see the module's docstring
    comments=True,
)
FILES = SettingsFiles(
    project=".qwen/settings.json",
    user_dir_env="QWEN_HOME",
    user_dir=".qwen",
    user_name="settings.json",
)
AFTER_INSTALL = (
    "Qwen Code reads hooks at startup: restart it. Project hooks run only in a trusted "
    "folder (/permissions, or ~/.qwen/trustedFolders.json)."
)
