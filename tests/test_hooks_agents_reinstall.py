"""A re-install brings an agent's older runctx hooks up to date, and leaves current ones alone.

The scene is ``tests/test_cli_install.py``'s: the ``checkout`` and ``install`` fixtures.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hooktools import guarded


def claude_file(checkout: Path, pre_tool_use: list[object]) -> Path:
    """A project settings file of Claude Code holding ``pre_tool_use`` and runctx's SessionStart."""
    path = checkout / ".claude" / "settings.json"
    path.parent.mkdir()
    session = {
        "hooks": [{"type": "command", "command": guarded("claude-session-start"), "timeout": 20}]
    }
    document = {"hooks": {"PreToolUse": pre_tool_use, "SessionStart": [session]}}
    path.write_text(json.dumps(document, indent=2) + "\n")
    return path


def runctx_handler() -> dict[str, object]:
    """The PreToolUse handler of runctx, as an install from before Monitor wrote it."""
    return {"type": "command", "command": guarded("claude"), "timeout": 20}


def test_an_install_matching_bash_alone_is_widened_to_monitor(checkout: Path, install) -> None:
    """A matcher of Bash (an older install) becomes Bash|Monitor; the handler's text is kept."""
    path = claude_file(checkout, [{"matcher": "Bash", "hooks": [runctx_handler()]}])
    done = install("claude", cwd=checkout)
    assert done.returncode == 0, done.stderr
    assert "updated" in done.stdout
    groups = json.loads(path.read_text())["hooks"]["PreToolUse"]
    assert groups == [{"matcher": "Bash|Monitor", "hooks": [runctx_handler()]}]
    before = path.read_text()
    again = install("claude", cwd=checkout)
    assert "already in" in again.stdout
    assert path.read_text() == before, "an up-to-date install is not rewritten"


def test_a_users_handler_next_to_runctx_keeps_its_matcher(checkout: Path, install) -> None:
    """The runctx handler leaves a shared Bash group for a Bash|Monitor one; the user's stays."""
    audit = {"type": "command", "command": "./audit.sh"}
    path = claude_file(checkout, [{"matcher": "Bash", "hooks": [audit, runctx_handler()]}])
    assert install("claude", cwd=checkout).returncode == 0
    groups = json.loads(path.read_text())["hooks"]["PreToolUse"]
    assert groups == [
        {"matcher": "Bash", "hooks": [audit]},
        {"matcher": "Bash|Monitor", "hooks": [runctx_handler()]},
    ]


@pytest.mark.parametrize(
    ("matcher", "after"),
    [
        ("Bash|PowerShell", "Bash|PowerShell|Monitor"),  # the user's name is kept
        ("Bash|Monitor", "Bash|Monitor"),
        ("Monitor|Bash", "Monitor|Bash"),  # every name there: not rewritten
        ("", ""),  # every tool already
        (".*", ".*"),  # a pattern of the user's: left alone
    ],
)
def test_a_matcher_gets_only_the_names_it_lacks(
    checkout: Path, install, matcher: str, after: str
) -> None:
    """Only a plain list of tool names is widened, and only by what it lacks."""
    path = claude_file(checkout, [{"matcher": matcher, "hooks": [runctx_handler()]}])
    before = path.read_text()
    assert install("claude", cwd=checkout).returncode == 0
    assert json.loads(path.read_text())["hooks"]["PreToolUse"][0]["matcher"] == after
    if matcher == after:
        assert path.read_text() == before


def test_an_unchanged_hook_keeps_its_text_so_codex_keeps_trusting_it(
    checkout: Path, install
) -> None:
    """Codex trusts a hook by its hash: a re-install must not touch an unchanged one."""
    assert install("codex", cwd=checkout).returncode == 0
    path = checkout / ".codex" / "hooks.json"
    before = path.read_bytes()
    again = install("codex", cwd=checkout)
    assert again.returncode == 0, again.stderr
    assert path.read_bytes() == before


def test_cursor_hooks_get_a_timeout_and_an_older_install_gets_one_too(
    checkout: Path, install
) -> None:
    """Cursor's default (5 s) is too short on a busy box: 20 s, added to an older install too."""
    assert install("cursor", cwd=checkout).returncode == 0
    path = checkout / ".cursor" / "hooks.json"
    handlers = json.loads(path.read_text())["hooks"]["beforeShellExecution"]
    assert handlers == [{"command": guarded("cursor"), "timeout": 20}]
    older = {"version": 1, "hooks": {"beforeShellExecution": [{"command": guarded("cursor")}]}}
    path.write_text(json.dumps(older))
    done = install("cursor", cwd=checkout)
    assert "updated" in done.stdout
    handlers = json.loads(path.read_text())["hooks"]["beforeShellExecution"]
    assert handlers == [{"command": guarded("cursor"), "timeout": 20}]
    # A timeout the user chose is theirs.
    chosen = {"version": 1, "hooks": {"beforeShellExecution": [dict(handlers[0], timeout=7)]}}
    path.write_text(json.dumps(chosen))
    assert "already in" in install("cursor", cwd=checkout).stdout
    assert json.loads(path.read_text()) == chosen
