"""Factory Droid: ``PreToolUse`` on ``Execute``.

Protocol (https://docs.factory.ai/reference/hooks-reference and
https://docs.factory.ai/harness/hooks): Claude Code's hook contract under
Factory's names. JSON on stdin with ``hook_event_name``, ``session_id``,
``cwd``, ``tool_name`` and ``tool_input.command``; the shell tool is
``Execute`` (the matcher runctx writes; the name is the one Droid's
integrations match, e.g. rtk-ai/rtk#2267). The answer is Claude Code's:
exit 0 and ``hookSpecificOutput`` with ``permissionDecision: "deny"`` and the
reason for a stop, ``"ask"`` to ask, ``additionalContext`` alone for a note.

Settings: ``.factory/hooks.json`` in the project, ``~/.factory/hooks.json``
for the user (Droid also reads the ``hooks`` key of the matching
``settings.json`` when ``hooks.json`` is absent; runctx writes ``hooks.json``,
the file Droid saves to). Handler timeouts are seconds.

Not driven end to end here: Droid needs Factory's service to start a
session, so this face is proved on payloads built from the reference.
"""

from __future__ import annotations

from runctx.hooks.agents import claude
from runctx.hooks.agents.base import HookEntry, InstallSpec, SettingsFiles, ToolFace
from runctx.hooks.payload import expect_event, shell_tool_input

TYPE_CHECKING = False
if TYPE_CHECKING:
    from runctx.hooks.agents.base import JSONObject

NAME = "droid"
KIND = "factory-droid"
"""The kind a run started by this agent's shell tool has (:mod:`runctx.started_by`)."""
TITLE = "Factory Droid"
SHELL_TOOL = "Execute"


def read_pre_tool(payload: JSONObject) -> tuple[str, str] | None:
    """The shell command and the directory it runs in, or None for another tool."""
    expect_event(payload, "PreToolUse", NAME)
    found = shell_tool_input(payload, SHELL_TOOL)
    return None if found is None else found[:2]


read_session_id = claude.read_session_id


PRE_TOOL_FACE = ToolFace(read_pre_tool, claude.REPLIES)
AFTER_TOOL_FACE = None
SESSION_FACE = None

INSTALL = InstallSpec(
    layout="grouped",
    entries=(HookEntry("PreToolUse", NAME, matcher=SHELL_TOOL),),
    timeout=claude.HOOK_TIMEOUT_SECONDS,
)
FILES = SettingsFiles(project=".factory/hooks.json", user_dir=".factory", user_name="hooks.json")
AFTER_INSTALL = "Droid reads hooks at startup: restart the session (or review them in /hooks)."
