"""Shared pieces of the hook tests: real payloads, the hook as a process, what it must answer.

The runs the hooks judge come from the ``world`` fixture (``conftest.py``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from runctx.hooks import settings_file
from runctx.hooks.agents import agent

RUNCTX = [sys.executable, "-m", "runctx"]


NO_DEADLINE = "3600"
"""The hook's deadline in the tests that are not about it: what is tested is the decision,
which must not turn into a fail-open because a loaded box took longer than 5 s."""


def hook_env(**extra: str) -> dict[str, str]:
    """The environment for a hook process: the suite's, without its RUNCTX_ settings.

    The hook's deadline is set out of reach unless ``extra`` sets it. The
    terminal size pytest-xdist's workers carry (``COLUMNS=80``) is dropped:
    a table printed to a pipe has no width unless a test gives one.
    """
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("RUNCTX_") and k not in ("COLUMNS", "LINES")
    }
    env["RUNCTX_HOOK_DEADLINE"] = NO_DEADLINE
    env["RUNCTX_NOTE_ONCE"] = "0"  # each call says its note: the tests compare single answers
    env.update(extra)
    return env


def runctx(
    *argv: str,
    cwd: Path | str | bytes | None = None,
    env: dict[str, str] | None = None,
    text: bool = True,
    **more: Any,
) -> subprocess.CompletedProcess[Any]:
    """``runctx ARGV`` as a separate process, in :func:`hook_env` unless ``env`` is given.

    Its output is captured (unless ``more`` routes stdout elsewhere) as text,
    any byte UTF-8 does not read escaped, or as bytes when ``text`` is False.
    ``more`` goes to :func:`subprocess.run` (``input``, ``check``, ``timeout``...).
    """
    options: dict[str, Any] = {"timeout": 60, **more}
    check = options.pop("check", False)
    if "stdout" not in more:
        options["capture_output"] = True
    if text:
        options.update(encoding="utf-8", errors="backslashreplace")
    env = hook_env() if env is None else env
    return subprocess.run([*RUNCTX, *argv], cwd=cwd, env=env, check=check, **options)


def run_hook(
    face: str,
    payload: object,
    *,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    python_args: tuple[str, ...] = (),
) -> subprocess.CompletedProcess[str]:
    """Run ``runctx hook FACE`` as a process with ``payload`` (an object, str or bytes)."""
    if isinstance(payload, bytes):
        data = payload
    elif isinstance(payload, str):
        data = payload.encode()
    else:
        data = json.dumps(payload).encode()
    done = subprocess.run(
        [sys.executable, *python_args, "-m", "runctx", "hook", face],
        input=data,
        capture_output=True,
        cwd=cwd,
        env=env if env is not None else hook_env(),
        check=False,
        timeout=60,
    )
    return subprocess.CompletedProcess(
        done.args, done.returncode, done.stdout.decode(), done.stderr.decode()
    )


def claude_pre_tool_use(command: str, cwd: Path | str) -> dict[str, object]:
    """The PreToolUse payload Claude Code sends for a Bash command (shape from its docs)."""
    return {
        "session_id": "abc123",
        "transcript_path": "/home/user/.claude/projects/proj/transcript.jsonl",
        "cwd": str(cwd),
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {
            "command": command,
            "description": "Run the test suite",
            "timeout": 120000,
            "run_in_background": False,
        },
        "tool_use_id": "toolu_01ABC123",
    }


def claude_session_start(cwd: Path | str) -> dict[str, object]:
    """The SessionStart payload Claude Code sends."""
    return {
        "session_id": "abc123",
        "transcript_path": "/home/user/.claude/projects/proj/transcript.jsonl",
        "cwd": str(cwd),
        "hook_event_name": "SessionStart",
        "source": "startup",
        "model": "claude-sonnet-4-5",
    }


def codex_pre_tool_use(command: str, cwd: Path | str) -> dict[str, object]:
    """The PreToolUse payload Codex sends (the fields its input schema requires)."""
    return {
        "session_id": "0199a5b1-2c3d-7e8f-9a0b-1c2d3e4f5a6b",
        "turn_id": "turn-1",
        "transcript_path": None,
        "cwd": str(cwd),
        "hook_event_name": "PreToolUse",
        "model": "gpt-5-codex",
        "permission_mode": "default",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": "call_abc123",
    }


def codex_session_start(cwd: Path | str) -> dict[str, object]:
    """The SessionStart payload Codex sends."""
    return {
        "session_id": "0199a5b1-2c3d-7e8f-9a0b-1c2d3e4f5a6b",
        "transcript_path": None,
        "cwd": str(cwd),
        "hook_event_name": "SessionStart",
        "model": "gpt-5-codex",
        "source": "startup",
    }


def gemini_tool(
    event: str, command: str, cwd: Path | str, dir_path: str | None = None
) -> dict[str, object]:
    """A BeforeTool/AfterTool payload Gemini CLI sends for run_shell_command."""
    tool_input: dict[str, object] = {"command": command, "description": "Run the tests"}
    if dir_path is not None:
        tool_input["dir_path"] = dir_path
    payload: dict[str, object] = {
        "session_id": "gemini-session-1",
        "transcript_path": "/home/user/.gemini/tmp/chats/session.json",
        "cwd": str(cwd),
        "hook_event_name": event,
        "timestamp": "2026-01-15T10:30:00Z",
        "tool_name": "run_shell_command",
        "tool_input": tool_input,
    }
    if event == "AfterTool":
        payload["tool_response"] = {"llmContent": "1 passed", "returnDisplay": "1 passed"}
    return payload


def gemini_session_start(cwd: Path | str) -> dict[str, object]:
    """The SessionStart payload Gemini CLI sends."""
    return {
        "session_id": "gemini-session-1",
        "transcript_path": "/home/user/.gemini/tmp/chats/session.json",
        "cwd": str(cwd),
        "hook_event_name": "SessionStart",
        "timestamp": "2026-01-15T10:30:00Z",
        "source": "startup",
    }


def cursor_before_shell(command: str, cwd: Path | str) -> dict[str, object]:
    """The beforeShellExecution payload Cursor sends."""
    return {
        "conversation_id": "conv-123",
        "generation_id": "gen-456",
        "model": "gpt-5",
        "hook_event_name": "beforeShellExecution",
        "cursor_version": "1.7.2",
        "workspace_roots": [str(cwd)],
        "user_email": None,
        "command": command,
        "cwd": str(cwd),
    }


def copilot_pre_tool_use(command: str, cwd: Path | str) -> dict[str, object]:
    """The preToolUse payload Copilot sends: toolArgs is a JSON string."""
    return {
        "timestamp": 1704614600000,
        "cwd": str(cwd),
        "toolName": "bash",
        "toolArgs": json.dumps({"command": command, "description": "Run the tests"}),
    }


def copilot_session_start(cwd: Path | str) -> dict[str, object]:
    """The sessionStart payload Copilot sends."""
    return {"timestamp": 1704614400000, "cwd": str(cwd), "source": "new", "initialPrompt": "Hi"}


def reply(done: subprocess.CompletedProcess[str]) -> dict[str, object]:
    """The hook's JSON answer, after checking it exited 0 with nothing odd on stderr."""
    assert done.returncode == 0, done.stderr
    assert "failed open" not in done.stderr, done.stderr
    answer = json.loads(done.stdout)
    assert isinstance(answer, dict)
    return answer


FAILED_OPEN_WORDS = "runctx could not check for other test runs ("
"""How the note an agent reads after the hook failed open begins."""


def assert_told_the_agent(stdout: str, what: str = "") -> None:
    """The hook's reply is one JSON note saying it could not check, why, and the risk."""
    answer = json.loads(stdout)
    assert isinstance(answer, dict), stdout
    text = json.dumps(answer)
    assert FAILED_OPEN_WORDS in text, stdout
    assert "a second run of this checkout may collide" in text, stdout
    assert "deny" not in text, stdout
    assert json.dumps(what)[1:-1] in text, (what, stdout)


def assert_failed_open(done: subprocess.CompletedProcess[str], what: str = "") -> None:
    """Exit 0, one stderr line saying the hook failed open, and a note saying so to the agent."""
    assert done.returncode == 0
    assert_told_the_agent(done.stdout, what)
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("runctx: hook failed open: "), lines[0]
    assert what in lines[0], lines[0]


def assert_silent(done: subprocess.CompletedProcess[str]) -> None:
    """Exit 0, nothing on stdout or stderr."""
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def guarded(face: str, prefix: str = "runctx") -> str:
    """The command runctx writes for ``face``: ``PREFIX hook FACE``, guarded."""
    name = face.split("-", maxsplit=1)[0]
    return settings_file.hook_command(agent(name).INSTALL, face, prefix)
