"""``runctx doctor`` and what ``runctx install`` says remains: each silent failure, on purpose.

Every check runs the real command in a fresh HOME and a real git checkout,
with the files each agent reads written as the agent writes them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hooktools import runctx

RUNCTX_BIN = str(Path(sys.executable).parent)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A fresh home directory."""
    path = tmp_path / "home"
    path.mkdir()
    return path


def environment(home: Path, **extra: str) -> dict[str, str]:
    """HOME, a PATH where runctx is, and git's identity; nothing else of the suite's."""
    env = {
        "HOME": str(home),
        "PATH": os.pathsep.join([RUNCTX_BIN, "/usr/bin", "/bin"]),
        "LANG": "C.UTF-8",
    }
    env.update({name: value for name, value in os.environ.items() if name.startswith("GIT_")})
    env.update(extra)
    return env


def doctor(agent: str, cwd: Path, env: dict[str, str]) -> dict[str, dict[str, object]]:
    """``runctx doctor AGENT --json``, by scope."""
    done = runctx("doctor", agent, "--json", cwd=cwd, env=env)
    assert done.returncode in (0, 1), done.stderr
    return {finding["scope"]: finding for finding in json.loads(done.stdout)}


def problems(finding: dict[str, object]) -> str:
    """Every problem of a finding, in one text."""
    found = finding["problems"]
    assert isinstance(found, list)
    return "\n".join(found)


def test_nothing_installed_is_said_and_exits_0(home: Path, checkout: Path) -> None:
    """With nothing installed, every agent and scope says so, and the exit is 0."""
    env = environment(home)
    done = runctx("doctor", cwd=checkout, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "claude (project)" in done.stdout
    assert "not installed" in done.stdout


def test_an_untrusted_codex_hook_is_named_until_it_is_trusted(home: Path, checkout: Path) -> None:
    """Codex skips an untrusted hook in silence: said until a hash is recorded."""
    env = environment(home)
    installed = runctx("install", "codex", "--scope", "user", cwd=checkout, env=env)
    assert installed.returncode == 0, installed.stderr
    assert "still to do: Codex has not trusted this hook" in installed.stderr
    finding = doctor("codex", checkout, env)["user"]
    assert finding["installed"] is True
    assert finding["will_run"] is False
    assert "Codex has not trusted this hook" in problems(finding)
    hooks = home / ".codex" / "hooks.json"
    (home / ".codex" / "config.toml").write_text(
        f'[hooks.state.{json.dumps(f"{hooks}:pre_tool_use:0:0")}]\ntrusted_hash = "sha256:0123"\n'
    )
    finding = doctor("codex", checkout, env)["user"]
    assert finding["will_run"] is True, finding


def test_codex_project_hooks_need_the_project_trusted(home: Path, checkout: Path) -> None:
    """A project's .codex/ is read only when Codex trusts the project."""
    env = environment(home)
    assert runctx("install", "codex", cwd=checkout, env=env).returncode == 0
    hooks = checkout / ".codex" / "hooks.json"
    (home / ".codex").mkdir()
    config = home / ".codex" / "config.toml"
    config.write_text(
        f'[hooks.state.{json.dumps(f"{hooks}:pre_tool_use:0:0")}]\ntrusted_hash = "sha256:0123"\n'
    )
    assert "only when the project is trusted" in problems(doctor("codex", checkout, env)["project"])
    config.write_text(
        config.read_text() + f'[projects.{json.dumps(str(checkout))}]\ntrust_level = "trusted"\n'
    )
    assert doctor("codex", checkout, env)["project"]["will_run"] is True


def test_codex_in_a_linked_worktree_is_refused_with_where_codex_reads(
    home: Path, checkout: Path, tmp_path: Path
) -> None:
    """In a linked worktree install refuses, naming the main worktree's file Codex reads."""
    env = environment(home)
    subprocess.run(
        ["git", "-C", str(checkout), "commit", "-q", "--allow-empty", "-m", "init"],
        check=True,
        env=env,
    )
    linked = tmp_path / "linked"
    subprocess.run(
        ["git", "-C", str(checkout), "worktree", "add", "-q", str(linked)], check=True, env=env
    )
    done = runctx("install", "codex", cwd=linked, env=env)
    assert done.returncode == 1
    assert "linked git worktree" in done.stderr
    assert str(checkout / ".codex" / "hooks.json") in done.stderr
    assert not (linked / ".codex").exists()
    # The doctor looks where Codex reads: the main worktree's file, with .codex/ here.
    assert runctx("install", "codex", cwd=checkout, env=env).returncode == 0
    finding = doctor("codex", linked, env)["project"]
    assert finding["path"] == str(checkout / ".codex" / "hooks.json")
    assert finding["installed"] is True
    assert "without a .codex directory" in problems(finding)
    (linked / ".codex").mkdir()
    assert "without a .codex directory" not in problems(doctor("codex", linked, env)["project"])


def test_copilot_project_hooks_in_an_untrusted_folder(home: Path, checkout: Path) -> None:
    """Copilot skips project hooks in an untrusted folder: named until the folder is trusted."""
    env = environment(home)
    installed = runctx("install", "copilot", cwd=checkout, env=env)
    assert "still to do: Copilot CLI skips project hooks" in installed.stderr
    assert "does not trust" in problems(doctor("copilot", checkout, env)["project"])
    (home / ".copilot").mkdir(exist_ok=True)
    (home / ".copilot" / "config.json").write_text(json.dumps({"trustedFolders": [str(checkout)]}))
    assert doctor("copilot", checkout, env)["project"]["will_run"] is True


def test_copilot_home_is_where_the_user_scope_goes(home: Path, checkout: Path) -> None:
    """COPILOT_HOME moves the user scope; a file left in ~/.copilot is named as never read."""
    elsewhere = home / "copilot-elsewhere"
    env = environment(home, COPILOT_HOME=str(elsewhere))
    assert runctx("install", "copilot", "--scope", "user", cwd=checkout, env=env).returncode == 0
    assert (elsewhere / "hooks" / "runctx.json").is_file()
    assert not (home / ".copilot").exists()
    # One installed before COPILOT_HOME was set is never read: the doctor says so.
    before = environment(home)
    assert runctx("install", "copilot", "--scope", "user", cwd=checkout, env=before).returncode == 0
    assert "COPILOT_HOME is set" in problems(doctor("copilot", checkout, env)["user"])
    assert "COPILOT_HOME" not in problems(doctor("copilot", checkout, before)["user"])


def test_copilot_and_claude_hooks_together_are_doubled(home: Path, checkout: Path) -> None:
    """Copilot also runs .claude/settings.json: both installed means every command judged twice."""
    env = environment(home)
    (home / ".copilot").mkdir()
    (home / ".copilot" / "config.json").write_text(json.dumps({"trustedFolders": [str(checkout)]}))
    assert runctx("install", "copilot", cwd=checkout, env=env).returncode == 0
    assert "doubled" not in problems(doctor("copilot", checkout, env)["project"])
    assert runctx("install", "claude", cwd=checkout, env=env).returncode == 0
    finding = doctor("copilot", checkout, env)["project"]
    assert "doubled" in problems(finding)
    assert str(checkout / ".claude" / "settings.json") in problems(finding)


def test_gemini_folder_trust_and_gemini_cli_home(home: Path, checkout: Path) -> None:
    """GEMINI_CLI_HOME moves the user scope; project hooks need the folder trusted there."""
    moved = home / "gemini-home"
    env = environment(home, GEMINI_CLI_HOME=str(moved))
    assert runctx("install", "gemini", "--scope", "user", cwd=checkout, env=env).returncode == 0
    assert (moved / ".gemini" / "settings.json").is_file()
    assert runctx("install", "gemini", cwd=checkout, env=env).returncode == 0
    assert "not trusted" in problems(doctor("gemini", checkout, env)["project"])
    (moved / ".gemini" / "trustedFolders.json").write_text(
        json.dumps({str(checkout): "TRUST_FOLDER"})
    )
    assert doctor("gemini", checkout, env)["project"]["will_run"] is True


def test_an_install_missing_one_of_runctxs_hooks_says_which_and_how_to_add_it(
    home: Path, checkout: Path
) -> None:
    """An older runctx's file: what is missing is named, and a reinstall adds it.

    A missing after-tool hook is a note; a missing command hook a problem
    (test runs are not checked).
    """
    env = environment(home)
    assert runctx("install", "qwen", "--scope", "user", cwd=checkout, env=env).returncode == 0
    path = home / ".qwen" / "settings.json"
    installed = json.loads(path.read_text())
    without_after = dict(installed, hooks=dict(installed["hooks"]))
    del without_after["hooks"]["PostToolUse"]
    path.write_text(json.dumps(without_after))
    finding = doctor("qwen", checkout, env)["user"]
    assert finding["will_run"] is True
    assert "runctx hook qwen-after" in "\n".join(finding["notes"])  # type: ignore[arg-type]
    assert "runctx install qwen --scope user" in "\n".join(finding["notes"])  # type: ignore[arg-type]
    del without_after["hooks"]["PreToolUse"]
    path.write_text(json.dumps(without_after))
    finding = doctor("qwen", checkout, env)["user"]
    assert finding["will_run"] is False
    assert "command hook (runctx hook qwen) is missing" in problems(finding)
    assert runctx("install", "qwen", "--scope", "user", cwd=checkout, env=env).returncode == 0
    finding = doctor("qwen", checkout, env)["user"]
    assert finding["will_run"] is True
    assert not finding["notes"]


def test_a_program_missing_from_the_path_is_named(home: Path, checkout: Path) -> None:
    """A hook whose program is not on the PATH cannot start: named, exit 1."""
    env = environment(home)
    assert runctx("install", "claude", cwd=checkout, env=env).returncode == 0
    assert doctor("claude", checkout, env)["project"]["will_run"] is True
    bare = dict(env, PATH="/usr/bin:/bin")
    done = runctx("doctor", "claude", cwd=checkout, env=bare)
    assert done.returncode == 1
    assert "is not on this PATH" in done.stdout


def test_a_reinstall_keeps_an_unchanged_hooks_text(home: Path, checkout: Path) -> None:
    """A re-install leaves an unchanged hook byte for byte (Codex would un-trust a changed one)."""
    env = environment(home)
    for name, relative in (
        ("codex", ".codex/hooks.json"),
        ("copilot", ".github/hooks/runctx.json"),
    ):
        assert runctx("install", name, cwd=checkout, env=env).returncode == 0
        before = (checkout / relative).read_bytes()
        again = runctx("install", name, cwd=checkout, env=env)
        assert again.returncode == 0
        assert "nothing changed" in again.stdout
        assert (checkout / relative).read_bytes() == before
