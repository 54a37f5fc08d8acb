"""GitHub Copilot (CLI and cloud agent): ``preToolUse`` and ``sessionStart``.

Protocol (https://docs.github.com/en/copilot/reference/hooks-configuration;
script contract in github.com/github/awesome-copilot
``instructions/hooks.instructions.md``): JSON on stdin with ``cwd``,
``toolName`` (``bash`` for the shell) and ``toolArgs``, a JSON *string* holding
``{"command": ...}``; newer hosts may send the arguments as an object under
``toolArgs``, ``tool_input`` or ``toolInput``, and the name as ``tool_name``.
All are read.

A non-zero exit *blocks* the tool here, so failing open means exit 0 and no
output, as for every agent, and the installed command ends in ``|| true``.
Output (exit 0):

- stop: ``permissionDecision: "deny"`` with ``permissionDecisionReason``;
- ask: ``permissionDecision: "ask"`` (the CLI prompts the user);
- a note: nothing before the command (``preToolUse`` documents only
  ``permissionDecision``, ``permissionDecisionReason`` and ``modifiedArgs``;
  an empty object is written, which decides nothing); the model gets the note
  from the ``postToolUse`` hook (``runctx hook copilot-after``), whose
  ``additionalContext`` is documented and is appended to the tool's result:
  the contention seen when the command finished, next to the output it explains;
- ``sessionStart``: ``additionalContext``.

Settings: ``.github/hooks/runctx.json`` in the project (a file of runctx's
own), ``~/.copilot/hooks/runctx.json`` (or ``$COPILOT_HOME/hooks/runctx.json``)
for the user.
"""

from __future__ import annotations

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
    PayloadError,
    directory,
    json_object,
    required_text,
    session_id,
    text,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from runctx.hooks.agents.base import JSONObject

NAME = "copilot"
KIND = "copilot"
"""The kind a run started by this agent's shell tool has (:mod:`runctx.started_by`)."""
TITLE = "GitHub Copilot"
SHELL_TOOLS = frozenset({"bash"})


def _arguments(payload: JSONObject) -> JSONObject:
    for name in ("toolArgs", "tool_input", "toolInput"):
        value = payload.get(name)
        if value is None:
            continue
        if isinstance(value, str):
            value = json_object(value, f"field {name!r}")
        if not isinstance(value, dict):
            msg = f"field {name!r} is {type(value).__name__}, expected an object"
            raise PayloadError(msg)
        return value
    msg = "field 'toolArgs' is missing"
    raise PayloadError(msg)


def read_pre_tool(payload: JSONObject) -> tuple[str, str] | None:
    """The shell command and the directory it runs in, or None for another tool."""
    name = text(payload, "toolName") or required_text(payload, "tool_name")
    if name.lower() not in SHELL_TOOLS:
        return None
    command = required_text(_arguments(payload), "command", where="toolArgs")
    return command, directory(required_text(payload, "cwd"))


def read_session(payload: JSONObject) -> str:
    """The directory the session starts in."""
    return directory(required_text(payload, "cwd"))


REPLIES = Replies(
    deny=lambda message, _summary: {
        "permissionDecision": "deny",
        "permissionDecisionReason": message,
    },
    ask=lambda message, _summary: {
        "permissionDecision": "ask",
        "permissionDecisionReason": message,
    },
    note=lambda _message, _summary: {},
    # A note has no documented channel before the command (it travels on postToolUse);
    # a hook that could not check says so in the reason of the documented allow.
    failed_open=lambda message, _summary: {
        "permissionDecision": "allow",
        "permissionDecisionReason": message,
    },
)


def read_session_id(payload: JSONObject) -> str | None:
    """The session the payload comes from, None when it names none."""
    return session_id(payload, "sessionId", "session_id")


PRE_TOOL_FACE = ToolFace(read_pre_tool, REPLIES)
AFTER_TOOL_FACE = AfterToolFace(read_pre_tool, lambda context: {"additionalContext": context})
"""``postToolUse`` carries the same ``toolName``, ``toolArgs`` and ``cwd``."""
SESSION_FACE = SessionFace(read_session, lambda context: {"additionalContext": context})

INSTALL = InstallSpec(
    layout="flat",
    entries=(
        HookEntry("preToolUse", NAME),
        HookEntry("postToolUse", f"{NAME}-after"),
        HookEntry("sessionStart", f"{NAME}-session-start"),
    ),
    command_key="bash",
    timeout_key="timeoutSec",
    timeout=claude.HOOK_TIMEOUT_SECONDS,
    version=1,
    owns_file=True,
    blocks_on_failure=True,
)
FILES = SettingsFiles(
    project=".github/hooks/runctx.json",
    user_dir_env="COPILOT_HOME",
    user_dir=".copilot",
    user_name="hooks/runctx.json",
)
AFTER_INSTALL = (
    "The Copilot CLI reads .github/hooks/ in the current directory; the cloud agent "
    "reads it from the default branch, so commit it there."
)
