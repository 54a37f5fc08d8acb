"""``runctx run -- COMMAND`` and the git pre-push hook built on it, against real runs."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from hooktools import RUNCTX, hook_env, runctx
from proctools import argv_of, make_checkout
from runfactory import RUN_TESTS_SCRIPT

from runctx.hooks import ready

ROOT = Path(__file__).resolve().parents[1]
PRE_PUSH = Path(ready.PRE_PUSH)
EXIT_REFUSED = 75

# A test script (its name makes it a run-tests-script run) that leaves a mark and exits 7.
MARKING_SCRIPT = (
    "import pathlib, sys\npathlib.Path(sys.argv[1]).touch()\nprint('ran')\nsys.exit(7)\n"
)
# A test script that leaves a mark and exits 0.
QUIET_MARKING_SCRIPT = "import pathlib, sys\npathlib.Path(sys.argv[1]).touch()\n"


def marking(checkout: Path) -> tuple[list[str], Path]:
    """The argv of a test command in ``checkout`` that marks a file, and that file."""
    script = checkout / "runtests.py"
    script.write_text(MARKING_SCRIPT)
    mark = checkout / "marked"
    mark.unlink(missing_ok=True)
    return [sys.executable, "runtests.py", str(mark)], mark


def test_a_second_run_of_the_same_checkout_is_refused_with_the_first_ones_pid(world):
    """In the busy checkout the command is not started: exit 75, the reason names the run."""
    argv, mark = marking(world.busy)
    done = runctx("run", "--", *argv, cwd=world.busy)
    assert done.returncode == EXIT_REFUSED, done.stderr
    assert f"pid {world.run.pid} (run-tests-script, running" in done.stderr
    assert "refused to start" in done.stderr
    assert not mark.exists()
    assert done.stdout == ""


def test_only_foreign_runs_let_it_run_with_a_note(world):
    """In the idle checkout the command runs, its status passed through, after a note."""
    argv, mark = marking(world.idle)
    done = runctx("run", "--", *argv, cwd=world.idle)
    assert done.returncode == 7
    assert mark.exists()
    assert done.stdout == "ran\n"
    assert "foreign test run" in done.stderr


def test_warn_mode_runs_it_after_the_warning(world):
    """--mode warn says which run is live and starts the command anyway."""
    argv, mark = marking(world.busy)
    done = runctx("run", "--mode", "warn", "--", *argv, cwd=world.busy)
    assert done.returncode == 7
    assert mark.exists()
    assert "warning only" in done.stderr
    assert f"pid {world.run.pid}" in done.stderr


def test_ask_mode_without_a_terminal_refuses(world):
    """--mode ask with no terminal to ask on behaves as stop."""
    argv, mark = marking(world.busy)
    done = runctx("run", "--mode", "ask", "--", *argv, cwd=world.busy)
    assert done.returncode == EXIT_REFUSED
    assert "no terminal to ask on" in done.stderr
    assert not mark.exists()


def test_the_checkout_setting_applies_and_a_malformed_one_is_an_error(world):
    """``on-same-checkout = "warn"`` lets it run; a bad value exits 1 and runs nothing."""
    argv, mark = marking(world.busy)
    pyproject = world.busy / "pyproject.toml"
    original = pyproject.read_text()
    try:
        pyproject.write_text(original + '\n[tool.runctx]\non-same-checkout = "warn"\n')
        warned = runctx("run", "--", *argv, cwd=world.busy)
        assert warned.returncode == 7
        assert mark.exists()
        mark.unlink()
        pyproject.write_text(original + '\n[tool.runctx]\non-same-checkout = "often"\n')
        broken = runctx("run", "--", *argv, cwd=world.busy)
    finally:
        pyproject.write_text(original)
    assert broken.returncode == 1
    assert "on-same-checkout must be one of" in broken.stderr
    assert not mark.exists()


def test_wait_mode_waits_for_the_other_run_then_runs(shared_tmp, runs):
    """--wait blocks while the other run lives, says whom it waits for, then runs."""
    checkout = make_checkout(shared_tmp / "w", "proj")
    other = runs.run_tests_script(checkout)
    argv, mark = marking(checkout)
    waiting = runs.child(
        [*RUNCTX, "run", "--wait", "--", *argv],
        cwd=checkout,
        env=hook_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        errors="backslashreplace",
    )
    assert waiting.stderr is not None
    line = waiting.stderr.readline()
    assert f"waiting for 1 run of this checkout: pid {other.pid}" in line
    assert not mark.exists()
    runs.kill(other)
    stdout, stderr = waiting.communicate()
    assert waiting.returncode == 7
    assert mark.exists()
    assert stdout == "ran\n"
    assert "starting now" in stderr


def test_wait_mode_gives_up_after_the_timeout(world):
    """--wait --timeout gives up with exit 75 and names the run still live."""
    argv, mark = marking(world.busy)
    done = runctx("run", "--wait", "--timeout", "0.3", "--", *argv, cwd=world.busy)
    assert done.returncode == EXIT_REFUSED
    assert "timed out" in done.stderr
    assert f"pid {world.run.pid}" in done.stderr
    assert not mark.exists()


def test_the_command_replaces_runctx_and_receives_its_signals(world, runs):
    """After exec the command has runctx's pid; a signal sent to that pid is the command's."""
    (world.idle / "run-tests.py").write_text(RUN_TESTS_SCRIPT)
    ready = world.idle / "held"
    ready.unlink(missing_ok=True)
    process = runs.child(
        [*RUNCTX, "run", "--quiet", "--", sys.executable, "run-tests.py", str(ready)],
        ready=ready,
        cwd=world.idle,
        env=hook_env(),
    )
    assert argv_of(process.pid)[1] == "run-tests.py"
    process.send_signal(signal.SIGTERM)
    assert process.wait() == -signal.SIGTERM


def test_a_command_that_is_not_a_test_run_is_not_checked(world):
    """A non-test command runs at once: even a broken process source is never touched."""
    env = hook_env(RUNCTX_SOURCE="no-such-source")
    done = runctx("run", "--", "echo", "hello", cwd=world.busy, env=env)
    assert (done.returncode, done.stdout, done.stderr) == (0, "hello\n", "")


def test_an_internal_error_still_runs_the_command(world):
    """When the check itself fails, one line says so and the command runs anyway."""
    argv, mark = marking(world.busy)
    code = (
        "import sys\n"
        "from runctx import policy\n"
        "def boom(*args, **kwargs):\n"
        "    raise RuntimeError('scan exploded')\n"
        "policy.decide = boom\n"
        "from runctx.cli.main import main\n"
        "raise SystemExit(main(sys.argv[1:]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, "run", "--", *argv],
        capture_output=True,
        text=True,
        errors="backslashreplace",
        cwd=world.busy,
        env=hook_env(),
        check=False,
        timeout=60,
    )
    assert done.returncode == 7
    assert mark.exists()
    assert done.stderr.splitlines() == [
        "runctx: could not check for other runs (RuntimeError: scan exploded); running it anyway"
    ]


def test_the_command_inherits_no_ignored_sigpipe(world):
    """Python ignores SIGPIPE; runctx restores it, so ``cmd | head`` behaves as without runctx."""
    done = runctx("run", "--", "cat", "/proc/self/status", cwd=world.idle)
    ignored = next(line for line in done.stdout.splitlines() if line.startswith("SigIgn:"))
    mask = int(ignored.split()[1], 16)
    assert not mask & (1 << (signal.SIGPIPE - 1))


def test_missing_and_unrunnable_commands(world):
    """127 for a command not found, 126 for a file that cannot be executed, 2 for none."""
    missing = runctx("run", "--", "no-such-command-here", cwd=world.idle)
    assert missing.returncode == 127
    assert "command not found" in missing.stderr
    plain = world.idle / "plain.txt"
    plain.write_text("not a program\n")
    unrunnable = runctx("run", "--", str(plain), cwd=world.idle)
    assert unrunnable.returncode == 126
    nothing = runctx("run", cwd=world.idle)
    assert nothing.returncode == 2


# --------------------------------------------------------------------------- git pre-push


def pre_push(checkout: Path, **config: str) -> subprocess.CompletedProcess[str]:
    """Run the ready pre-push hook in ``checkout`` as git would, with ``runctx.*`` config."""
    for key, value in config.items():
        subprocess.run(["git", "-C", str(checkout), "config", f"runctx.{key}", value], check=True)
    env = hook_env(GIT_DIR=str(checkout / ".git"))
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    assert shutil.which("runctx", path=env["PATH"]), "runctx must be installed in the venv"
    return subprocess.run(
        [str(PRE_PUSH), "origin", "https://example.invalid/repo.git"],
        input="refs/heads/main 1111 refs/heads/main 0000\n",
        capture_output=True,
        text=True,
        errors="backslashreplace",
        cwd=checkout,
        env=env,
        check=False,
        timeout=60,
    )


def test_pre_push_needs_a_test_command(shared_tmp):
    """Without runctx.prePushCommand the push is refused with how to set it."""
    done = pre_push(make_checkout(shared_tmp / "p", "proj"))
    assert done.returncode == 1
    assert "git config runctx.prePushCommand" in done.stderr


def test_pre_push_runs_the_tests_without_gits_environment(world):
    """The configured command runs through runctx run, without GIT_DIR, stdin closed."""
    _, mark = marking(world.idle)
    command = f'echo "${{GIT_DIR-unset}}" > gitdir; {sys.executable} runtests.py {mark}'
    done = pre_push(world.idle, prePushCommand=command)
    assert done.returncode == 7
    assert mark.exists()
    assert (world.idle / "gitdir").read_text() == "unset\n"


def test_pre_push_without_runctx_still_runs_the_tests(world):
    """A missing runctx never blocks the push by itself: the tests run, with a word on stderr."""
    _, mark = marking(world.idle)
    command = f"{sys.executable} runtests.py {mark}"
    done = pre_push(world.idle, prePushCommand=command, path="/nonexistent/runctx")
    assert done.returncode == 7  # the tests' own status
    assert mark.exists()
    assert "not found; running the tests without checking" in done.stderr


def test_pre_push_refuses_while_the_checkout_is_busy_in_stop_mode(world):
    """With runctx.prePushMode=stop and a live run of the checkout, the push is refused."""
    argv, mark = marking(world.busy)
    done = pre_push(world.busy, prePushCommand=" ".join(argv), prePushMode="stop")
    assert done.returncode == EXIT_REFUSED
    assert f"pid {world.run.pid}" in done.stderr
    assert not mark.exists()


def test_pre_commit_hook_definition():
    """The pre-commit hook runs runctx run --wait at pre-push, installing runctx itself."""
    text = (ROOT / ".pre-commit-hooks.yaml").read_text()
    for line in (
        "- id: runctx-run",
        "entry: runctx run --wait --",
        "language: python",
        "pass_filenames: false",
        "always_run: true",
        "stages: [pre-push]",
    ):
        assert line in text


@pytest.mark.parametrize("path", [PRE_PUSH])
def test_the_git_hook_is_executable(path):
    """The ready pre-push file can be copied into .git/hooks as it is."""
    assert os.access(path, os.X_OK)


@pytest.mark.needs_root
def test_runctx_run_refuses_and_does_not_wait_for_another_users_run(shared_tree):
    """The run command exits 75 by default, even with --wait; warn runs the command."""
    checkout, run = shared_tree
    (checkout / "runtests.py").write_text(QUIET_MARKING_SCRIPT)
    mark = checkout / "marked"
    command = ["--", sys.executable, "runtests.py", str(mark)]
    for options in ((), ("--wait", "--timeout", "60")):
        done = runctx("run", *options, *command, cwd=checkout)
        assert done.returncode == EXIT_REFUSED, done.stderr
        assert "another user's run is live in this checkout" in done.stderr
        assert f"pid {run.pid}" in done.stderr
        assert not mark.exists()
    done = runctx("run", *command, cwd=checkout, env=hook_env(RUNCTX_ON_SHARED_TREE="warn"))
    assert done.returncode == 0, done.stderr
    assert mark.exists()
    assert "warning only" in done.stderr


# -- on-busy-box ----------------------------------------------------------------------

ALWAYS_BUSY_BOX = (
    "\n[tool.runctx]\n"
    "busy-box-memory-available = 100\n"  # less than all of it is always available
    "busy-box-cpu-pressure = false\n"
    "busy-box-load-per-cpu = false\n"
)
QUIET_BOX = (
    "\n[tool.runctx]\n"
    "busy-box-cpu-pressure = false\n"
    "busy-box-load-per-cpu = false\n"
    "busy-box-memory-available = false\n"
)


def test_runctx_run_waits_for_room_and_gives_up_after_the_timeout(shared_tmp):
    """on-busy-box = "wait" on a box that stays busy: it says so, exits 75, nothing runs."""
    here = make_checkout(shared_tmp)
    with (here / "pyproject.toml").open("a") as pyproject:
        pyproject.write(ALWAYS_BUSY_BOX + 'on-busy-box = "wait"\n')
    (here / "run_tests.py").write_text(QUIET_MARKING_SCRIPT)
    done = runctx("run", "--timeout", "1", "--", sys.executable, "run_tests.py", "ran", cwd=here)
    assert done.returncode == EXIT_REFUSED, done.stderr
    assert "runctx: waiting for room: memory available " in done.stderr
    assert "timed out after" in done.stderr
    assert "the box is still busy: memory available" in done.stderr
    assert not (here / "ran").exists()


def test_runctx_run_starts_at_once_when_the_box_is_not_busy(shared_tmp):
    """on-busy-box = "wait" with every box threshold off: the command runs, nothing waits."""
    here = make_checkout(shared_tmp)
    with (here / "pyproject.toml").open("a") as pyproject:
        pyproject.write(QUIET_BOX + 'on-busy-box = "wait"\n')
    (here / "run_tests.py").write_text(QUIET_MARKING_SCRIPT)
    done = runctx("run", "--timeout", "1", "--", sys.executable, "run_tests.py", "ran", cwd=here)
    assert done.returncode == 0, done.stderr
    assert "waiting for room" not in done.stderr
    assert (here / "ran").exists()


def test_runctx_run_hands_the_command_what_it_said(shared_tmp):
    """The command gets RUNCTX_RUN=checked after a check, quiet under -q; none if not checked."""
    here = make_checkout(shared_tmp)
    probe = here / "run_tests.py"
    probe.write_text("import os, sys\nsys.stdout.write(os.environ.get('RUNCTX_RUN', 'none'))\n")
    assert runctx("run", "--", sys.executable, "run_tests.py", cwd=here).stdout == "checked"
    assert runctx("run", "-q", "--", sys.executable, "run_tests.py", cwd=here).stdout == "quiet"
    show = "import os; print(os.environ.get('RUNCTX_RUN', 'none'))"
    assert runctx("run", "--", sys.executable, "-c", show, cwd=here).stdout == "none\n"  # unchecked
