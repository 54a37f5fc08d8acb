"""The hook's answer for a command that is not a test run reads no project file.

Only the command string and the checkout's runctx settings decide it: no
package.json, makefile, justfile or Taskfile is opened, and the runner table
is not even built. A command that names a task runner reads the one file it
needs. Checked with an audit hook in a real hook process.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hooktools import claude_pre_tool_use, hook_env
from proctools import make_checkout

PROBE = """
import json, sys
opened = []
sys.addaudithook(lambda event, args: opened.append(str(args[0])) if event == "open" else None)
from runctx.hooks.main import main
main(["claude"])
sys.stderr.write("\\nAUDIT " + json.dumps({"opened": opened, "modules": sorted(sys.modules)}))
"""
PROJECT_FILES = ("package.json", "Makefile", "justfile", "Taskfile.yml", "hatch.toml")


def _audited(command, cwd):
    payload = json.dumps(claude_pre_tool_use(command, cwd)).encode()
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        input=payload,
        capture_output=True,
        env=hook_env(),
        check=True,
    )
    report = json.loads(done.stderr.decode().rpartition("\nAUDIT ")[2])
    return done.stdout.decode(), report["opened"], report["modules"]


@pytest.fixture
def project(shared_tmp):
    """A checkout holding every kind of task runner's file, each naming a runner."""
    checkout = make_checkout(shared_tmp)
    (checkout / "package.json").write_text('{"scripts": {"unit": "jest"}}')
    (checkout / "Makefile").write_text("ci:\n\tpytest\n")
    (checkout / "justfile").write_text("ci:\n    pytest\n")
    (checkout / "Taskfile.yml").write_text("tasks:\n  ci:\n    cmds:\n      - pytest\n")
    (checkout / "hatch.toml").write_text('[envs.default.scripts]\nci = "pytest"\n')
    return checkout


@pytest.mark.parametrize(
    "command", ["git status && ls -la", "cat package.json", "grep -rn ci Makefile"]
)
def test_a_command_that_is_no_test_run_opens_no_project_file(project, command):
    """Not a test run: nothing printed, no project file opened, no runner table built."""
    out, opened, modules = _audited(command, project)
    assert out == ""
    touched = [path for path in opened if path.rpartition("/")[2] in PROJECT_FILES]
    assert touched == []
    assert "runctx.runners.table" not in modules
    assert "runctx.shell.commands" not in modules


def test_a_task_runner_opens_only_the_file_it_needs(project):
    """``npm run unit`` reads package.json, and no other task runner's file."""
    _out, opened, modules = _audited("npm run unit", project)
    touched = {path.rpartition("/")[2] for path in opened} & set(PROJECT_FILES)
    assert touched == {"package.json"}
    assert "runctx.runners.tasks.package_json" in modules
