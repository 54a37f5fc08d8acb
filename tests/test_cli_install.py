"""``runctx install AGENT``: merging into real settings files that already hold user content."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hooktools import RUNCTX, guarded, hook_env, runctx
from proctools import OTHER_UID, make_checkout, run_as

from runctx.hooks import settings_file
from runctx.hooks.agents import AGENT_NAMES, agent
from runctx.hooks.ready import READY_DIR
from runctx.hooks.settings_file import TEMP_MARK

ROOT = Path(__file__).resolve().parents[1]
READY_FILES = {
    name: os.path.join(READY_DIR, name, os.path.basename(agent(name).FILES.project))
    for name in AGENT_NAMES
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


def without_runctx(document: object) -> object:
    """``document`` with every runctx handler, and what held only those, taken out."""
    copy = json.loads(json.dumps(document))
    for name in AGENT_NAMES:
        settings_file.uninstall(agent(name).INSTALL, copy, "test")
    return copy


def test_install_into_a_new_project_file_writes_the_ready_file(checkout, install):
    """With no settings yet, the file written is exactly the ready file shipped in runctx/ready/."""
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
    assert commands == ["./audit.sh", "npx prettier --write", guarded("claude")]
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
    assert "removed 2 runctx hooks" in done.stdout
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
        ('{\n  // my settings\n  "model": "opus"\n}', "no comments"),
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
    assert f'+            "command": {json.dumps(guarded("claude"))},' in done.stdout
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
    assert document["hooks"]["beforeShellExecution"] == [
        {"command": guarded("cursor"), "timeout": 20}
    ]
    assert document["hooks"]["afterFileEdit"] == [{"command": "./fmt.sh"}]
    assert install("cursor", "--uninstall", cwd=checkout).returncode == 0
    assert json.loads(cursor.read_text()) == {
        "version": 1,
        "hooks": {"afterFileEdit": [{"command": "./fmt.sh"}]},
    }
    cursor.unlink()
    assert install("cursor", cwd=checkout).returncode == 0
    done = install("cursor", "--uninstall", cwd=checkout)
    assert "was removed" in done.stdout
    assert not cursor.exists(), "a file runctx created is removed whole, no version left"
    copilot = checkout / ".github" / "hooks" / "runctx.json"
    assert install("copilot", cwd=checkout).returncode == 0
    assert (
        json.loads(copilot.read_text())["hooks"]["preToolUse"][0]["bash"]
        == guarded("copilot")  # it ends in || true: Copilot blocks the tool on a non-zero exit
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
    assert document["hooks"]["BeforeTool"][0]["hooks"][0]["timeout"] == 20000
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
            done = runctx("install", name, "--uninstall", "--file", str(path), cwd=checkout)
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


# -- install loses nothing: planted, read-only and linked files, kills, untouched values --

PRETTY = """{
  "x": 2.50,
  "y": 1e5,
  "z": {"a":1,"b":[1,2]},
  "name": "\\u00e9t\\u00e9",
  "odd": "\\ud800"
}
"""


@pytest.fixture
def claude_project(tmp_path):
    """A checkout with an empty ``.claude`` directory."""
    root = make_checkout(tmp_path)
    (root / ".claude").mkdir()
    return root


def install_claude(project: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    """``runctx install claude ARGV`` as a process in ``project``."""
    return runctx("install", "claude", "--command", "runctx", *argv, cwd=project)


def claude_settings(project: Path) -> Path:
    """The project's Claude Code settings file."""
    return project / ".claude" / "settings.json"


def test_a_fifo_settings_file_is_refused_at_once(claude_project):
    """A FIFO in place of the settings file is never opened: exit 1, and it says so."""
    os.mkfifo(claude_settings(claude_project))
    done = install_claude(claude_project)
    assert done.returncode == 1
    assert "is a FIFO, not a regular file" in done.stderr
    assert len(done.stderr.splitlines()) == 1


def test_values_not_touched_are_written_back_as_they_were(claude_project):
    """Number spellings, a compact object and escapes stay byte for byte; hooks are added."""
    claude_settings(claude_project).write_text(PRETTY)
    done = install_claude(claude_project)
    assert done.returncode == 0, done.stderr
    text = claude_settings(claude_project).read_text()
    for kept in ('"x": 2.50,', '"y": 1e5,', '"z": {"a":1,"b":[1,2]},', '"\\u00e9t\\u00e9"'):
        assert kept in text
    assert '"odd": "\\ud800"' in text
    document = json.loads(text)
    assert document["x"] == 2.5
    assert document["hooks"]["PreToolUse"][0]["hooks"][0]["command"] == guarded("claude")


def test_install_then_uninstall_gives_the_file_back_byte_for_byte(claude_project):
    """What install adds, uninstall takes out with its separators: the original text returns."""
    claude_settings(claude_project).write_text(PRETTY)
    assert install_claude(claude_project).returncode == 0
    assert claude_settings(claude_project).read_text() != PRETTY
    assert install_claude(claude_project, "--uninstall").returncode == 0
    assert claude_settings(claude_project).read_text() == PRETTY


def test_a_one_line_file_stays_one_line(claude_project):
    """A compact file gets its hooks on the same line, not a reformatted document."""
    claude_settings(claude_project).write_text('{"x": 2.50, "y": 1e5}\n')
    assert install_claude(claude_project).returncode == 0
    text = claude_settings(claude_project).read_text()
    assert text.startswith('{"x": 2.50, "y": 1e5, "hooks": {')
    assert text.count("\n") == 1


def test_a_lone_surrogate_in_the_file_is_no_traceback(claude_project):
    r"""Valid JSON holding "\ud800" is installed into, the escape kept as written."""
    claude_settings(claude_project).write_text('{"a": "\\ud800"}')
    done = install_claude(claude_project)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert claude_settings(claude_project).read_text().startswith('{"a": "\\ud800", "hooks"')


def test_a_read_only_file_is_refused_and_left_as_it_was(claude_project):
    """A file the user made read-only (0444) is not replaced: exit 1, the same bytes and mode."""
    path = claude_settings(claude_project)
    path.write_text(PRETTY)
    path.chmod(0o444)
    done = install_claude(claude_project)
    assert done.returncode == 1
    assert "read-only (mode 0444)" in done.stderr
    assert path.read_text() == PRETTY
    assert oct(path.stat().st_mode & 0o777) == oct(0o444)


def test_a_hard_linked_file_is_refused_and_the_links_kept(claude_project):
    """Replacing a hard-linked file would break the link: refused, both names the same inode."""
    path = claude_settings(claude_project)
    path.write_text(PRETTY)
    other = claude_project / "shared-settings.json"
    os.link(path, other)
    done = install_claude(claude_project)
    assert done.returncode == 1
    assert "2 hard links" in done.stderr
    assert path.stat().st_ino == other.stat().st_ino
    assert other.read_text() == PRETTY


def test_a_symlinked_file_is_updated_where_it_points(claude_project, tmp_path):
    """A symlink is followed on purpose: the target gets the hooks, the link stays a link."""
    target = tmp_path / "dotfiles" / "claude.json"
    target.parent.mkdir()
    target.write_text(PRETTY)
    claude_settings(claude_project).symlink_to(target)
    done = install_claude(claude_project)
    assert done.returncode == 0, done.stderr
    assert claude_settings(claude_project).is_symlink()
    assert "runctx hook claude" in target.read_text()


def test_a_symlink_to_nothing_is_refused(claude_project, tmp_path):
    """A dangling symlink is not followed into creating a file somewhere else."""
    claude_settings(claude_project).symlink_to(tmp_path / "nowhere" / "settings.json")
    done = install_claude(claude_project)
    assert done.returncode == 1
    assert "which does not exist" in done.stderr
    assert not (tmp_path / "nowhere").exists()


def test_a_normal_install_leaves_no_temporary_file(claude_project):
    """Install and uninstall leave nothing in the directory but the settings file."""
    claude_settings(claude_project).write_text(PRETTY)
    assert install_claude(claude_project).returncode == 0
    assert install_claude(claude_project, "--uninstall").returncode == 0
    assert sorted(os.listdir(claude_project / ".claude")) == ["settings.json"]


HELD_MID_WRITE = """
import os, pathlib, sys, time

def held(fd):
    pathlib.Path(sys.argv[1]).touch()
    time.sleep(600)

os.fsync = held  # the temporary file is written, not yet renamed: held here until killed
from runctx.cli.main import main
sys.exit(main(["install", "claude", "--command", "runctx"]))
"""


def test_a_killed_install_leaves_a_temporary_file_the_next_one_removes(
    claude_project, tmp_path, runs
):
    """A kill -9 during the write leaves one temporary file; the next install cleans it up."""
    path = claude_settings(claude_project)
    path.write_text(PRETTY)
    ready = tmp_path / "writing"
    process = runs.child(
        [sys.executable, "-c", HELD_MID_WRITE, str(ready)],
        ready=ready,
        cwd=claude_project,
        env=hook_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    runs.kill(process)
    left = [name for name in os.listdir(claude_project / ".claude") if TEMP_MARK in name]
    assert len(left) == 1
    assert path.read_text() == PRETTY  # the file itself is intact
    assert install_claude(claude_project).returncode == 0
    assert sorted(os.listdir(claude_project / ".claude")) == ["settings.json"]


# -- install that fits a team: a teammate without runctx, updates, JSONC, home, uninstall --


def handler_commands(name: str, document: object) -> list[tuple[str, str]]:
    """Every runctx handler's (face, command) in an agent's settings document."""
    spec = agent(name).INSTALL
    found = []
    assert isinstance(document, dict)
    for items in document["hooks"].values():
        for item in items if isinstance(items, list) else ():
            if not isinstance(item, dict):
                continue  # Gemini's "disabled": a list of names
            handlers = [item] if spec.layout == "flat" else item.get("hooks", [])
            for entry in handlers:
                face = settings_file.face_of(entry.get(spec.command_key))
                if face is not None:
                    found.append((face, entry[spec.command_key]))
    return found


@pytest.mark.parametrize("name", AGENT_NAMES)
@pytest.mark.parametrize("sh", ["sh", "bash"])
def test_a_teammate_without_runctx_gets_one_line_and_exit_0(checkout, install, name, sh):
    """Each installed command, run by a shell where runctx is missing, exits 0 with one line."""
    assert install(name, cwd=checkout).returncode == 0
    document = json.loads((checkout / agent(name).FILES.project).read_text())
    commands = handler_commands(name, document)
    assert len(commands) == len(agent(name).INSTALL.entries)
    for face, command in commands:
        done = subprocess.run(
            [sh, "-c", command],
            input="{}",
            capture_output=True,
            text=True,
            env={"PATH": "/usr/bin:/bin", "HOME": str(checkout)},
            cwd=checkout,
            check=False,
            timeout=60,
        )
        assert (done.returncode, done.stdout) == (0, "")
        assert done.stderr == settings_file.missing_message(face) + "\n"


@pytest.mark.parametrize("name", AGENT_NAMES)
def test_where_runctx_is_found_the_guard_runs_the_hook(checkout, install, name):
    """With runctx on PATH the guarded command runs ``runctx hook FACE`` itself."""
    assert install(name, cwd=checkout).returncode == 0
    document = json.loads((checkout / agent(name).FILES.project).read_text())
    for _face, command in handler_commands(name, document):
        done = subprocess.run(
            ["sh", "-c", command],
            input="this is not json",
            capture_output=True,
            text=True,
            env={**hook_env(), "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin"},
            cwd=checkout,
            check=False,
            timeout=60,
        )
        assert done.returncode == 0
        assert done.stderr.startswith("runctx: hook failed open: input is not JSON")


def test_command_on_an_existing_install_updates_it(checkout, install):
    """--command after a plain install rewrites runctx's commands; a plain install keeps it."""
    assert install("claude", cwd=checkout).returncode == 0
    path = checkout / ".claude" / "settings.json"
    done = install("claude", "--command", "/opt/tools/bin/runctx", cwd=checkout)
    assert done.returncode == 0, done.stderr
    assert "updated the Claude Code hooks" in done.stdout
    commands = dict(handler_commands("claude", json.loads(path.read_text())))
    assert commands == {
        "claude": guarded("claude", "/opt/tools/bin/runctx"),
        "claude-session-start": guarded("claude-session-start", "/opt/tools/bin/runctx"),
    }
    again = install("claude", cwd=checkout)
    assert "already in" in again.stdout
    assert dict(handler_commands("claude", json.loads(path.read_text()))) == commands
    back = install("claude", "--command", "runctx", cwd=checkout)
    assert "updated" in back.stdout
    assert path.read_text() == (ROOT / READY_FILES["claude"]).read_text()


def test_an_unguarded_entry_is_brought_up_to_date_and_nothing_else_changes(checkout, install):
    """A hand-written ``runctx hook claude`` gets the guard; every other byte stays."""
    path = checkout / ".claude" / "settings.json"
    path.parent.mkdir()
    old = USER_CONTENT.replace(
        '"command": "./audit.sh", "timeout": 5}',
        '"command": "./audit.sh", "timeout": 5}, {"type": "command", '
        '"command": "~/venv/bin/runctx hook claude"}',
    )
    path.write_text(old)
    done = install("claude", cwd=checkout)
    assert done.returncode == 0, done.stderr
    assert "updated the Claude Code hooks in" in done.stdout
    new_command = guarded("claude", "~/venv/bin/runctx")
    after = path.read_text()
    # the SessionStart entry is added; runctx's handler gets the guard and the timeout,
    # in a group of its own matching Monitor too (the user's audit.sh keeps its Bash)
    session = json.loads(after)["hooks"].pop("SessionStart")
    assert len(session) == 1
    expected = json.loads(USER_CONTENT)["hooks"]["PreToolUse"]
    expected.append(
        {
            "matcher": "Bash|Monitor",
            "hooks": [{"type": "command", "command": new_command, "timeout": 20}],
        }
    )
    assert json.loads(after)["hooks"]["PreToolUse"] == expected
    assert after.startswith(USER_CONTENT.split('"command": "./audit.sh"', maxsplit=1)[0])


GEMINI_JSONC = """{
  // my Gemini settings
  "model": {"name": "gemini-2.5-pro"}, /* the model I use */
  "hooks": {
    // keep the scanner off for now
    "disabled": ["secret-scanner"]
  }
}
"""


def test_gemini_settings_with_comments_are_kept(checkout, install):
    """Gemini CLI reads comments: install keeps every one, uninstall gives the file back."""
    path = checkout / ".gemini" / "settings.json"
    path.parent.mkdir()
    path.write_text(GEMINI_JSONC)
    done = install("gemini", cwd=checkout)
    assert done.returncode == 0, done.stderr
    after = path.read_text()
    for comment in ("// my Gemini settings", "/* the model I use */", "// keep the scanner"):
        assert comment in after
    document = settings_file.parse(after, str(path), agent("gemini").INSTALL)
    assert {face for face, _ in handler_commands("gemini", document)} == {
        "gemini",
        "gemini-after",
        "gemini-session-start",
    }
    assert install("gemini", cwd=checkout).stdout.count("already in") == 1
    assert install("gemini", "--uninstall", cwd=checkout).returncode == 0
    assert path.read_text() == GEMINI_JSONC


@pytest.mark.parametrize(
    "content",
    [
        '{\n  "model": "x", // mine\n  "hooks": {}\n}\n',
        '{\n  "model": "x",\n  "hooks": {\n    // my hooks go here\n    "BeforeTool": []\n  }\n}\n',
        '{\n  "hooks": {\n    "BeforeTool": [] /* none yet */\n  }\n}\n',
    ],
)
def test_uninstall_keeps_the_comments_around_hooks_that_were_there(checkout, install, content):
    """A comment in or next to a ``hooks`` the user had stays; runctx's handlers go."""
    path = checkout / ".gemini" / "settings.json"
    path.parent.mkdir()
    path.write_text(content)
    assert install("gemini", cwd=checkout).returncode == 0
    done = install("gemini", "--uninstall", cwd=checkout)
    assert done.returncode == 0, done.stderr
    after = path.read_text()
    for comment in ("// mine", "// my hooks go here", "/* none yet */"):
        assert (comment in after) == (comment in content)
    document = settings_file.parse(after, str(path), agent("gemini").INSTALL)
    assert list(handler_commands("gemini", document)) == []
    assert document["model" if "model" in content else "hooks"] is not None


@pytest.mark.parametrize(
    ("name", "content", "what"),
    [
        ("gemini", '{\n  "model": "x",\n}', "no trailing commas"),
        ("claude", '{\n  // mine\n  "model": "x"\n}', "no comments"),
        ("codex", '{"hooks": {} /* mine */}', "no comments"),
    ],
)
def test_what_an_agent_does_not_read_is_refused(checkout, install, name, content, what):
    """Comments or trailing commas the agent itself would not read: exit 1, file untouched."""
    path = checkout / agent(name).FILES.project
    path.parent.mkdir(parents=True)
    path.write_text(content)
    done = install(name, cwd=checkout)
    assert done.returncode == 1
    assert what in done.stderr
    assert path.read_text() == content


@pytest.mark.parametrize("dotfiles", [False, True])
def test_project_scope_in_a_home_directory_is_refused_with_the_reason(tmp_path, install, dotfiles):
    """In $HOME (a dotfiles repository or not) the project scope is refused; user scope works."""
    home = tmp_path / "home"
    home.mkdir()
    if dotfiles:
        subprocess.run(["git", "init", "-q", str(home)], check=True)
    env = {"HOME": str(home)}
    for name in ("claude", "gemini"):
        done = install(name, cwd=home, env=env)
        assert done.returncode == 1
        assert "home directory" in done.stderr
        assert "--scope user" in done.stderr
    assert sorted(p.name for p in home.iterdir()) == ([".git"] if dotfiles else [])
    assert install("claude", "--scope", "user", cwd=home, env=env).returncode == 0
    assert (home / ".claude" / "settings.json").exists()


@pytest.mark.parametrize("name", AGENT_NAMES)
def test_uninstall_removes_what_install_created(checkout, install, name):
    """Install into a bare checkout, then uninstall: no file and no directory is left behind."""
    before = sorted(p.relative_to(checkout) for p in checkout.rglob("*") if ".git" not in p.parts)
    assert install(name, cwd=checkout).returncode == 0
    assert (checkout / agent(name).FILES.project).exists()
    done = install(name, "--uninstall", cwd=checkout)
    assert done.returncode == 0, done.stderr
    after = sorted(p.relative_to(checkout) for p in checkout.rglob("*") if ".git" not in p.parts)
    assert after == before


def test_uninstall_keeps_a_directory_that_holds_something_else(checkout, install):
    """The agent's directory stays when the user keeps other files in it."""
    (checkout / ".claude").mkdir()
    (checkout / ".claude" / "commands.md").write_text("mine\n")
    assert install("claude", cwd=checkout).returncode == 0
    assert install("claude", "--uninstall", cwd=checkout).returncode == 0
    assert sorted(p.name for p in (checkout / ".claude").iterdir()) == ["commands.md"]


def test_an_uninstall_with_nothing_installed_creates_nothing(checkout, install):
    """Uninstalling where runctx never was leaves no empty directory behind."""
    done = install("copilot", "--uninstall", cwd=checkout)
    assert "nothing changed" in done.stdout
    assert not (checkout / ".github").exists()


@pytest.mark.parametrize("name", AGENT_NAMES)
def test_a_command_path_with_a_space_is_one_program(tmp_path, install, name):
    """``--command "/opt/my tools/runctx"`` is quoted: the guard finds it and runs the hook."""
    checkout = make_checkout(tmp_path, "proj")
    tools = tmp_path / "my tools"
    tools.mkdir()
    program = tools / "runctx"
    program.symlink_to(Path(sys.executable).parent / "runctx")
    done = install(name, "--command", str(program), cwd=checkout)
    assert done.returncode == 0, done.stderr
    assert "is not on this PATH" not in done.stderr
    document = json.loads((checkout / agent(name).FILES.project).read_text())
    for _face, command in handler_commands(name, document):
        ran = subprocess.run(
            ["sh", "-c", command],
            input="this is not json",
            capture_output=True,
            text=True,
            env={**hook_env(), "PATH": "/usr/bin:/bin"},
            cwd=checkout,
            check=False,
            timeout=60,
        )
        assert ran.returncode == 0
        assert ran.stderr.startswith("runctx: hook failed open: input is not JSON"), ran.stderr


def test_a_pre_push_hook_path_with_a_space_is_one_program(tmp_path, install):
    """``runctx install git --command "/opt/my tools/runctx"`` takes the path as one program."""
    checkout = make_checkout(tmp_path, "proj")
    program = tmp_path / "my tools" / "runctx"
    program.parent.mkdir()
    program.symlink_to(Path(sys.executable).parent / "runctx")
    done = install("git", "--command", str(program), cwd=checkout)
    assert done.returncode == 0, done.stderr
    assert "is not on this PATH" not in done.stderr
    assert (
        f"runctx=$(git config --get runctx.path) || runctx='{program}'"
        in (checkout / ".git" / "hooks" / "pre-push").read_text()
    )


def test_a_user_scope_install_gets_no_project_advice(checkout, tmp_path, install):
    """``install copilot --scope user``: not told to commit .github/hooks/, told where it counts."""
    home = tmp_path / "home"
    home.mkdir()
    done = install("copilot", "--scope", "user", cwd=checkout, env={"HOME": str(home)})
    assert done.returncode == 0
    assert agent("copilot").AFTER_INSTALL not in done.stderr
    assert "for every project you open" in done.stderr
    project = install("copilot", cwd=checkout, env={"HOME": str(home)})
    assert agent("copilot").AFTER_INSTALL in project.stderr
