"""``runctx install AGENT``: merging into real settings files that already hold user content."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hooktools import RUNCTX, hook_env
from proctools import OTHER_UID, make_checkout, run_as

from runctx.cli.main import main
from runctx.hooks import settings_file
from runctx.hooks.agents import AGENT_NAMES, agent

ROOT = Path(__file__).resolve().parents[1]
READY_FILES = {
    name: f"hooks/{name}/{os.path.basename(agent(name).FILES.project)}" for name in AGENT_NAMES
}
"""The ready file of each agent: what an install writes into a new project file."""

USER_CONTENT = """{
    "model": "opus",
    "permissions": {
        "allow": ["Bash(npm run lint)", "Read(~/.zshrc)"],
        "deny": ["Bash(curl:*)"]
    },
    "env": {"GREETING": "grüß dich ✓", "BIG": 12345678901234567890, "RATIO": 0.25},
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [{"type": "command", "command": "./audit.sh", "timeout": 5}]
            },
            {
                "matcher": "Edit|Write",
                "hooks": [{"type": "command", "command": "npx prettier --write"}]
            }
        ],
        "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]
    },
    "statusLine": null
}
"""


def install_process(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``runctx install ARGV`` as a separate process."""
    return subprocess.run(
        [*RUNCTX, "install", *argv],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=hook_env(),
        check=False,
        timeout=60,
    )


@pytest.fixture
def install(capsys, monkeypatch):
    """``runctx install ARGV`` through ``main``, in ``cwd``, with ``env`` set for the call."""

    def call(*argv: str, cwd: Path, env: dict[str, str] | None = None):
        with monkeypatch.context() as patch:
            patch.chdir(cwd)
            for key, value in (env or {}).items():
                patch.setenv(key, value)
            for key in ("CLAUDE_CONFIG_DIR", "CODEX_HOME"):
                if key not in (env or {}):
                    patch.delenv(key, raising=False)
            capsys.readouterr()
            status = main(["install", *argv])
            out, err = capsys.readouterr()
        return subprocess.CompletedProcess(["runctx", "install", *argv], status, out, err)

    return call


def without_runctx(document: object) -> object:
    """``document`` with every runctx handler, and what held only those, taken out."""
    copy = json.loads(json.dumps(document))
    for name in AGENT_NAMES:
        settings_file.uninstall(agent(name).INSTALL, copy, "test")
    return copy


@pytest.fixture
def checkout(tmp_path):
    """A real git checkout to install into."""
    return make_checkout(tmp_path, "proj")


def test_install_into_a_new_project_file_writes_the_ready_file(checkout, install):
    """With no settings yet, the file written is exactly the ready file in hooks/."""
    done = install("claude", cwd=checkout)
    assert done.returncode == 0, done.stderr
    written = (checkout / ".claude" / "settings.json").read_text()
    assert written == (ROOT / READY_FILES["claude"]).read_text()
    assert "PreToolUse (runctx hook claude)" in done.stdout


def test_install_keeps_every_existing_key_and_hook(checkout, install):
    """User keys, hooks, numbers and non-ASCII text survive; only runctx's entries are added."""
    path = checkout / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(USER_CONTENT)
    done = install("claude", cwd=checkout)
    assert done.returncode == 0, done.stderr
    after = path.read_text()
    document = json.loads(after)
    assert without_runctx(document) == json.loads(USER_CONTENT)
    assert list(document) == list(json.loads(USER_CONTENT))
    commands = [h["command"] for g in document["hooks"]["PreToolUse"] for h in g["hooks"]]
    assert commands == ["./audit.sh", "npx prettier --write", "runctx hook claude"]
    assert "grüß dich ✓" in after
    assert '\n    "model"' in after  # the original four-space indentation is kept


def test_a_second_install_changes_nothing_byte_for_byte(checkout, install):
    """Installing twice leaves the file as the first install wrote it, not even rewritten."""
    path = checkout / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(USER_CONTENT)
    assert install("claude", cwd=checkout).returncode == 0
    first = path.read_bytes()
    inode = path.stat().st_ino
    again = install("claude", cwd=checkout)
    assert again.returncode == 0
    assert "already in" in again.stdout
    assert path.read_bytes() == first
    assert path.stat().st_ino == inode


def test_uninstall_removes_only_what_install_added(checkout, install):
    """Install then uninstall gives back the user's settings, in meaning and in key order."""
    path = checkout / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(USER_CONTENT)
    assert install("claude", cwd=checkout).returncode == 0
    done = install("claude", "--uninstall", cwd=checkout)
    assert done.returncode == 0, done.stderr
    assert "removed 2 runctx hook(s)" in done.stdout
    restored = json.loads(path.read_text())
    assert restored == json.loads(USER_CONTENT)
    assert list(restored["hooks"]) == ["PreToolUse", "Stop"]
    again = install("claude", "--uninstall", cwd=checkout)
    assert "nothing changed" in again.stdout


def test_uninstall_finds_hooks_installed_with_another_command(checkout, install):
    """Entries installed with --command /path/to/runctx are recognised as runctx's."""
    assert install("claude", "--command", "/opt/tools/bin/runctx", cwd=checkout).returncode == 0
    assert install("claude", cwd=checkout).stdout.count("already in") == 1
    path = checkout / ".claude" / "settings.json"
    assert "/opt/tools/bin/runctx hook claude" in path.read_text()
    done = install("claude", "--uninstall", cwd=checkout)
    assert "the file held nothing else and was removed" in done.stdout
    assert not path.exists()


@pytest.mark.parametrize(
    ("content", "what"),
    [
        ('{"model": "opus",}', "is not valid JSON"),
        ('{\n  // my settings\n  "model": "opus"\n}', "comments included"),
        ('{"hooks": {}, "hooks": {}}', "duplicate key 'hooks'"),
        ('["not", "an", "object"]', "holds a JSON list"),
        ('{"hooks": []}', "'hooks' is a JSON list"),
        ('{"hooks": {"PreToolUse": {"matcher": "Bash"}}}', "'hooks.PreToolUse' is a JSON dict"),
        ('{"x": 1e400}', "does not fit a float"),
        ('{"x": NaN}', "NaN is not JSON"),
        ('{"x": -Infinity}', "-Infinity is not JSON"),
    ],
)
def test_a_malformed_file_is_an_error_and_is_not_touched(checkout, content, what, install):
    """A file runctx cannot merge safely stays byte for byte as it was: exit 1, a clear error."""
    path = checkout / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(content)
    before = path.stat()
    done = install("claude", cwd=checkout)
    assert done.returncode == 1
    assert what in done.stderr
    assert done.stderr.startswith("runctx: error: ")
    assert path.read_text() == content
    assert path.stat().st_mtime_ns == before.st_mtime_ns
    assert sorted(p.name for p in path.parent.iterdir()) == ["settings.json"]


def test_a_users_compound_command_is_never_taken_for_runctx(checkout, install):
    """A user's hook that merely contains `runctx hook claude` is theirs: kept on uninstall."""
    path = checkout / ".claude" / "settings.json"
    path.parent.mkdir()
    theirs = {
        "matcher": "Bash",
        "hooks": [{"type": "command", "command": "~/bin/audit.sh && runctx hook claude"}],
    }
    path.write_text(json.dumps({"hooks": {"PreToolUse": [theirs]}}))
    assert install("claude", cwd=checkout).returncode == 0
    installed = json.loads(path.read_text())["hooks"]["PreToolUse"]
    assert installed[0] == theirs
    assert len(installed) == 2
    assert install("claude", "--uninstall", cwd=checkout).returncode == 0
    assert json.loads(path.read_text()) == {"hooks": {"PreToolUse": [theirs]}}


def test_dry_run_prints_the_diff_and_writes_nothing(checkout, install):
    """--dry-run shows the lines that would be added; no file or directory appears."""
    done = install("claude", "--dry-run", cwd=checkout)
    assert done.returncode == 0
    assert '+            "command": "runctx hook claude",' in done.stdout
    assert not (checkout / ".claude").exists()


def test_the_file_mode_and_a_symlink_are_kept(checkout, tmp_path, install):
    """A 0600 file stays 0600; a symlinked settings file stays a symlink, its target updated."""
    target = tmp_path / "dotfiles" / "claude-settings.json"
    target.parent.mkdir()
    target.write_text('{"model": "opus"}\n')
    target.chmod(0o600)
    link = checkout / ".claude" / "settings.json"
    link.parent.mkdir()
    link.symlink_to(target)
    assert install("claude", cwd=checkout).returncode == 0
    assert link.is_symlink()
    assert "runctx hook claude" in target.read_text()
    assert target.stat().st_mode & 0o777 == 0o600


def test_scopes_write_where_each_agent_looks(checkout, tmp_path, install):
    """project, local and user (under $HOME) go to the documented files; local is Claude's only."""
    home = tmp_path / "home"
    home.mkdir()
    env = {"HOME": str(home)}
    sub = checkout / "src" / "pkg"
    sub.mkdir(parents=True)
    assert install("claude", "--scope", "local", cwd=sub, env=env).returncode == 0
    assert (checkout / ".claude" / "settings.local.json").exists()
    assert install("claude", "--scope", "user", cwd=sub, env=env).returncode == 0
    assert (home / ".claude" / "settings.json").exists()
    assert install("codex", "--scope", "user", cwd=sub, env=env).returncode == 0
    assert (home / ".codex" / "hooks.json").exists()
    for name in AGENT_NAMES:
        relative = agent(name).FILES.project
        assert install(name, cwd=sub, env=env).returncode == 0
        assert (checkout / relative).exists()
    refused = install("codex", "--scope", "local", cwd=sub, env=env)
    assert refused.returncode == 1
    assert "Claude Code only" in refused.stderr


def test_cursor_and_copilot_files(checkout, install):
    """Cursor keeps its version and user hooks; Copilot's own file goes away on uninstall."""
    cursor = checkout / ".cursor" / "hooks.json"
    cursor.parent.mkdir()
    cursor.write_text('{"version": 1, "hooks": {"afterFileEdit": [{"command": "./fmt.sh"}]}}')
    assert install("cursor", cwd=checkout).returncode == 0
    document = json.loads(cursor.read_text())
    assert document["hooks"]["beforeShellExecution"] == [{"command": "runctx hook cursor"}]
    assert document["hooks"]["afterFileEdit"] == [{"command": "./fmt.sh"}]
    assert install("cursor", "--uninstall", cwd=checkout).returncode == 0
    assert json.loads(cursor.read_text()) == {
        "version": 1,
        "hooks": {"afterFileEdit": [{"command": "./fmt.sh"}]},
    }
    copilot = checkout / ".github" / "hooks" / "runctx.json"
    assert install("copilot", cwd=checkout).returncode == 0
    assert (
        json.loads(copilot.read_text())["hooks"]["preToolUse"][0]["bash"]
        == "runctx hook copilot || true"  # Copilot blocks the tool when a hook exits non-zero
    )
    done = install("copilot", "--uninstall", cwd=checkout)
    assert "was removed" in done.stdout
    assert not copilot.exists()


def test_gemini_keeps_its_hooks_settings(checkout, install):
    """Gemini's non-event keys under hooks (``disabled``) are left alone."""
    path = checkout / ".gemini" / "settings.json"
    path.parent.mkdir()
    path.write_text('{"hooks": {"disabled": ["secret-scanner"]}, "tools": {"enableHooks": true}}')
    assert install("gemini", cwd=checkout).returncode == 0
    document = json.loads(path.read_text())
    assert document["hooks"]["disabled"] == ["secret-scanner"]
    assert document["hooks"]["BeforeTool"][0]["hooks"][0]["timeout"] == 10000
    assert install("gemini", "--uninstall", cwd=checkout).returncode == 0
    assert json.loads(path.read_text()) == {
        "hooks": {"disabled": ["secret-scanner"]},
        "tools": {"enableHooks": True},
    }


def test_a_command_prefix_must_name_runctx(checkout, install):
    """--command that does not end in runctx is refused, since uninstall could not find it."""
    done = install("claude", "--command", "python3 my_wrapper.py", cwd=checkout)
    assert done.returncode == 1
    assert "does not end in runctx" in done.stderr
    assert not (checkout / ".claude").exists()


def test_two_installs_racing_keep_both(checkout):
    """Two processes installing into one file at once: both sets of hooks end up in it."""
    path = checkout / "shared-settings.json"
    path.write_text(USER_CONTENT)
    for _ in range(2):
        processes = [
            subprocess.Popen(
                [*RUNCTX, "install", agent, "--file", str(path)],
                cwd=checkout,
                env=hook_env(),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
            )
            for agent in ("claude", "codex")
        ]
        for process in processes:
            assert process.wait(timeout=60) == 0
        text = path.read_text()
        assert "runctx hook claude" in text
        assert "runctx hook codex" in text
        assert without_runctx(json.loads(text)) == json.loads(USER_CONTENT)
        for name in ("claude", "codex"):
            done = install_process(name, "--uninstall", "--file", str(path), cwd=checkout)
            assert done.returncode == 0
        assert json.loads(path.read_text()) == json.loads(USER_CONTENT)


def test_runctx_install_help_lists_the_agents():
    """The subcommand is wired into the runctx command line."""
    done = subprocess.run(
        [sys.executable, "-m", "runctx", "install", "--help"],
        capture_output=True,
        text=True,
        check=False,
        env=hook_env(),
    )
    assert done.returncode == 0
    for name in AGENT_NAMES:
        assert name in done.stdout
    assert os.path.exists(ROOT / READY_FILES["claude"])


def test_a_file_that_cannot_be_written_is_a_clear_error(tmp_path, install):
    """A settings file runctx cannot create or replace gives one error line, exit 1."""
    done = install("claude", "--file", "/proc/runctx-settings.json", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.startswith("runctx: error: cannot update /proc/runctx-settings.json")
    assert done.stderr.count("\n") == 1


@pytest.fixture
def planted_link(shared_tmp):
    """A checkout whose .claude/settings.json is a symlink another uid made to a file of ours.

    Making a file as another uid needs root: every test using it is ``needs_root``.
    """
    checkout = make_checkout(shared_tmp, "proj")
    claude = checkout / ".claude"
    claude.mkdir()
    claude.chmod(0o777)
    precious = shared_tmp / "precious.json"
    precious.write_text('{"keep": true}\n')
    run_as(OTHER_UID, os.symlink, str(precious), str(claude / "settings.json"))
    return checkout, precious


@pytest.mark.needs_root
def test_install_refuses_a_symlink_another_user_planted(planted_link):
    """The write never follows a link made by someone else; the file it points to is untouched."""
    checkout, precious = planted_link
    done = subprocess.run(
        [*RUNCTX, "install", "claude"], cwd=checkout, capture_output=True, text=True, check=False
    )
    assert done.returncode == 1
    assert "symbolic link made by uid" in done.stderr
    assert precious.read_text() == '{"keep": true}\n'


def test_install_follows_a_symlink_of_the_users_own(shared_tmp):
    """A settings file the user linked into a dotfiles directory is updated where it points."""
    checkout = make_checkout(shared_tmp, "proj")
    dotfiles = shared_tmp / "dotfiles"
    dotfiles.mkdir()
    (dotfiles / "claude.json").write_text("{}\n")
    (checkout / ".claude").mkdir()
    (checkout / ".claude" / "settings.json").symlink_to(dotfiles / "claude.json")
    done = subprocess.run(
        [*RUNCTX, "install", "claude"], cwd=checkout, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "runctx hook claude" in (dotfiles / "claude.json").read_text()
    assert (checkout / ".claude" / "settings.json").is_symlink()
