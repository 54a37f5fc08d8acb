"""Every agent, driven for real, runs the hooks ``runctx install AGENT`` wrote.

Each check installs the hooks (user scope in a fresh HOME, or project scope in
the checkout), scripts the model to ask for one shell command, and reads what
the agent sent back to the model as the tool's result:

- a live run of the same checkout: the agent's ``pytest`` is refused, never
  starts (the file its test would write is missing), and the model receives
  runctx's reason, which names the live run;
- no live run: the same ``pytest`` runs (its file is written, it passes) and
  is not refused (on a busy box the hook may add a note on the contention);
- a command that is not a test run, next to a live run: it runs, untouched;
- ``cd CHECKOUT && pytest`` from another directory, next to a live run there:
  refused, because the hook follows the ``cd``; and the same through the
  shell tool's own working-directory field, where it has one (Codex
  ``workdir``, Gemini CLI ``dir_path``, Qwen Code ``directory``);
- the agent's own background run: a pytest the agent started in the
  background through its shell tool is live when it asks for the same
  pytest again: refused, and the reason names the run as the session's own,
  never as a leftover to stop.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import shlex
import subprocess
from pathlib import Path

import pytest
from agents import AGENTS, Agent, install_missing
from drive import Transcript, drive, pytest_command, runctx_bin
from proctools import PYTHON, Orphan, make_checkout, make_worktree, wait_for
from runfactory import RunFactory, clean_env, ready_dir

from runctx.fastpath.prefilter import SCANNED_CHARS
from runctx.fastpath.scripts import MAX_PROJECT_FILE_BYTES

SCOPES = ("user", "project")

HOLD_TEST = """
import os, pathlib, time

def test_hold():
    pathlib.Path(os.environ["RUNCTX_READY_DIR"], "holding").touch()
    time.sleep(600)
"""

BACKGROUND_TEST = """
import os, pathlib, time

def parent_of(pid):
    with open(f"/proc/{pid}/stat") as stat:
        return int(stat.read().rpartition(")")[2].split()[1])

def test_hold_in_the_background():
    chain = [os.getpid()]
    while len(chain) < 4 and chain[-1] > 1:
        chain.append(parent_of(chain[-1]))
    said = " ".join(map(str, chain))
    pathlib.Path(os.environ["RUNCTX_READY_DIR"], "background").write_text(said)
    time.sleep(90)
"""
"""The agent's own background pytest: says its pid and its parents' once in its test (the
run's authority may be the shell the agent wrapped it in), and ends on its own."""

DIRECTORY_FIELDS = {"codex": "workdir", "gemini": "dir_path", "qwen": "directory"}
"""The shell tools that name the directory a command runs in, and their field."""

MARKER_TEST = """
import pathlib

def test_marker():
    pathlib.Path({marker!r}).write_text("the agent's pytest ran")
"""


@pytest.fixture(scope="session", autouse=True)
def _agents_installed() -> None:
    """Every agent missing from the cache installed at once, before the first check."""
    install_missing(list(AGENTS.values()))


@pytest.fixture(params=sorted(AGENTS))
def agent(request: pytest.FixtureRequest) -> tuple[Agent, Path]:
    """An agent and its program, installed from the registry at its pinned version."""
    chosen = AGENTS[request.param]
    return chosen, chosen.program()


class Scene:
    """A fresh HOME, a checkout with a marker test, and another checkout next to it."""

    def __init__(self, base: Path) -> None:
        """Make the directories."""
        self.home = base / "home"
        self.home.mkdir()
        self.checkout = make_checkout(base / "work", "proj")
        self.other = make_checkout(base / "elsewhere", "other")
        self.marker = base / "marker"
        tests = self.checkout / "tests"
        tests.mkdir()
        (tests / "test_hold.py").write_text(HOLD_TEST)
        (tests / "test_marker.py").write_text(MARKER_TEST.format(marker=str(self.marker)))
        (tests / "test_background.py").write_text(BACKGROUND_TEST)

    def test_command(self) -> str:
        """The agent's test command: pytest on the marker test, in the checkout."""
        return pytest_command(PYTHON, "tests/test_marker.py")

    def hold(self, runs: RunFactory) -> Orphan:
        """A live, orphaned pytest of the checkout, holding in its one test."""
        return self.hold_in(runs, self.checkout)

    def hold_in(self, runs: RunFactory, checkout: Path) -> Orphan:
        """A live, orphaned pytest of ``checkout``, holding in its one test."""
        ready = ready_dir(checkout)
        argv = [PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:runctx"]
        run = runs.orphan(
            [*argv, "tests/test_hold.py"],
            checkout,
            env=clean_env(RUNCTX_READY_DIR=str(ready)),
        )
        wait_for((ready / "holding").exists, what="the live pytest to reach its test")
        return run


@pytest.fixture
def scene(tmp_path: Path) -> Scene:
    """The directories of one check."""
    return Scene(tmp_path)


def refused(transcript: Transcript, live: Orphan) -> str:
    """The tool result that carries runctx's refusal naming ``live``; fails when there is none."""
    for result in transcript.tool_results:
        if "runctx" in result and str(live.pid) in result:
            return result
    msg = f"the model never received runctx's reason naming pid {live.pid}\n"
    raise AssertionError(msg + transcript.explain())


@pytest.mark.parametrize("scope", SCOPES)
def test_live_run_refuses_the_agents_pytest(
    agent: tuple[Agent, Path], scope: str, scene: Scene, runs: RunFactory
) -> None:
    """A live pytest of the checkout: the agent's pytest is refused and never starts."""
    chosen, program = agent
    live = scene.hold(runs)
    transcript = drive(
        runs, chosen, program, scene.home, scene.checkout, scene.test_command(), scope=scope
    )
    assert transcript.tool_calls >= 1, transcript.explain()
    refused(transcript, live)
    assert not scene.marker.exists(), "the refused pytest started\n" + transcript.explain()
    # What runctx doctor said before the run agrees with what the agent did: the hook ran.
    # Codex ran it only because the check bypasses hook trust, which the doctor names.
    problems = "\n".join(transcript.doctor.get("problems") or [])  # type: ignore[arg-type]
    assert transcript.doctor.get("installed") is True, transcript.doctor
    if chosen.name == "codex":
        assert "Codex has not trusted this hook" in problems, transcript.doctor
    else:
        assert transcript.doctor.get("will_run") is True, transcript.doctor


@pytest.mark.parametrize("scope", SCOPES)
def test_no_live_run_lets_pytest_run(
    agent: tuple[Agent, Path], scope: str, scene: Scene, runs: RunFactory
) -> None:
    """No live run: the agent's pytest runs and passes, not refused."""
    chosen, program = agent
    transcript = drive(
        runs, chosen, program, scene.home, scene.checkout, scene.test_command(), scope=scope
    )
    assert scene.marker.exists(), "the agent's pytest did not run\n" + transcript.explain()
    results = "\n".join(transcript.tool_results)
    assert "1 passed" in results, transcript.explain()
    # On a busy box the hook may add a note on the contention; it never refuses here.
    assert "refused" not in results, transcript.explain()


@pytest.mark.parametrize("scope", SCOPES)
def test_other_command_is_untouched_next_to_a_live_run(
    agent: tuple[Agent, Path], scope: str, scene: Scene, runs: RunFactory
) -> None:
    """A command that is not a test run runs untouched next to a live run."""
    chosen, program = agent
    live = scene.hold(runs)
    command = f"echo untouched > {shlex.quote(str(scene.marker))}"
    transcript = drive(runs, chosen, program, scene.home, scene.checkout, command, scope=scope)
    assert scene.marker.exists(), "the command did not run\n" + transcript.explain()
    assert scene.marker.read_text() == "untouched\n"
    results = "\n".join(transcript.tool_results)
    assert str(live.pid) not in results, transcript.explain()


@pytest.mark.parametrize("scope", SCOPES)
def test_cd_into_a_busy_checkout_is_followed(
    agent: tuple[Agent, Path], scope: str, scene: Scene, runs: RunFactory
) -> None:
    """From another directory, `cd CHECKOUT && pytest` is judged in the checkout: refused."""
    chosen, program = agent
    live = scene.hold(runs)
    command = f"cd {shlex.quote(str(scene.checkout))} && {scene.test_command()}"
    transcript = drive(runs, chosen, program, scene.home, scene.other, command, scope=scope)
    assert transcript.tool_calls >= 1, transcript.explain()
    refused(transcript, live)
    assert not scene.marker.exists(), "the refused pytest started\n" + transcript.explain()


@pytest.mark.parametrize("scope", SCOPES)
@pytest.mark.parametrize("name", sorted(DIRECTORY_FIELDS))
def test_the_shell_tools_directory_field_is_followed(
    name: str, scope: str, scene: Scene, runs: RunFactory
) -> None:
    """A pytest the model sends to the checkout through the tool's directory field: refused."""
    chosen = AGENTS[name]
    live = scene.hold(runs)
    session_dir = scene.checkout.parent  # the workspace holds the checkout; it is none itself
    transcript = drive(
        runs,
        chosen,
        chosen.program(),
        scene.home,
        session_dir,
        scene.test_command(),
        scope=scope,
        calls=[{"command": scene.test_command(), "directory": str(scene.checkout)}],
    )
    made = [request["call"] for request in transcript.requests if request.get("called")]
    assert made, transcript.explain()
    assert made[0].get(DIRECTORY_FIELDS[name]) == str(scene.checkout), made  # type: ignore[union-attr]
    refused(transcript, live)
    assert not scene.marker.exists(), "the refused pytest started\n" + transcript.explain()


def test_a_task_runctx_could_not_read_runs_and_the_model_is_told_why(
    agent: tuple[Agent, Path], scene: Scene, runs: RunFactory
) -> None:
    """``make ci`` over a Makefile past runctx's read bound, next to a live run.

    runctx cannot tell whether it starts a test run: the command runs (its
    file is written), and the model receives runctx's warning naming the
    live run and why it could not tell: before the command where the agent
    reads notes then (Claude Code, Codex), after it where it reads them
    only then (Gemini CLI, Copilot).
    """
    chosen, program = agent
    padding = "".join(f"t{n}:\n\t@true\n" for n in range(MAX_PROJECT_FILE_BYTES // 8))
    ci = f"ci:\n\t@echo ran > {shlex.quote(str(scene.marker))}\n"
    (scene.checkout / "Makefile").write_text(ci + padding)
    live = scene.hold(runs)
    transcript = drive(runs, chosen, program, scene.home, scene.checkout, "make ci", scope="user")
    assert scene.marker.exists(), "make ci did not run\n" + transcript.explain()
    told = [json.dumps(request.get("body")) for request in transcript.requests]
    said = [text for text in told if "could not tell whether `make ci`" in text]
    assert said, "the model never heard runctx's warning\n" + transcript.explain()
    assert any(f"pid {live.pid}" in text for text in said), transcript.explain()


def test_a_pytest_after_a_large_here_document_is_refused(
    agent: tuple[Agent, Path], scene: Scene, runs: RunFactory
) -> None:
    """A file written through a large here-document, then pytest, in one command: refused.

    Next to a live run, the agent's pytest never starts. An agent writes
    files that way; the pre-filter searches only the first
    :data:`~runctx.fastpath.prefilter.SCANNED_CHARS` characters, and the
    parser, which skips the body by one search, finds the run after it.
    """
    chosen, program = agent
    lines = SCANNED_CHARS // 25 + 100  # about 36 characters a line
    body = "".join(f"value_{n} = {n}  # a generated line\n" for n in range(lines))
    written = scene.checkout / "generated.py"
    command = f"cat > {shlex.quote(str(written))} <<'EOF'\n{body}EOF\n{scene.test_command()}"
    assert len(command) > SCANNED_CHARS
    live = scene.hold(runs)
    transcript = drive(runs, chosen, program, scene.home, scene.checkout, command, scope="user")
    assert transcript.tool_calls >= 1, transcript.explain()
    refused(transcript, live)
    assert not scene.marker.exists(), "the refused pytest started\n" + transcript.explain()


def until_there(path: Path) -> str:
    """A command that is no test run: it waits (a bounded minute) until ``path`` exists.

    No ``$``: Gemini CLI refuses a command holding a substitution.
    """
    wait = shlex.quote(f"until [ -e {shlex.quote(str(path))} ]; do sleep 0.2; done")
    return f"timeout 60 sh -c {wait}"


@pytest.mark.parametrize("scope", SCOPES)
def test_the_agents_own_background_run_is_named_its_own(
    agent: tuple[Agent, Path], scope: str, scene: Scene, runs: RunFactory
) -> None:
    """The agent's background pytest is live: the next one is refused, named the session's own.

    Between the two, the model waits (a command that is no test run) until the
    background pytest has reached its test: an agent's background mode may
    answer before the command has even started (Claude Code's does).
    """
    chosen, program = agent
    ready = ready_dir(scene.checkout)
    background = f"RUNCTX_READY_DIR={shlex.quote(str(ready))} " + pytest_command(
        PYTHON, "tests/test_background.py"
    )
    transcript = drive(
        runs,
        chosen,
        program,
        scene.home,
        scene.checkout,
        background,
        scope=scope,
        calls=[
            {"command": background, "background": True},
            {"command": until_there(ready / "background")},
            {"command": scene.test_command()},
        ],
    )
    said = ready / "background"
    assert said.exists(), "the background pytest never reached its test\n" + transcript.explain()
    pid, *parents = (int(word) for word in said.read_text().split())
    with contextlib.suppress(ProcessLookupError):
        runs.adopt(pid)  # reaped with the rest, by its own pid, if it still runs
    named = [f"pid {one} " for one in (pid, *parents)]
    reason = next(
        (r for r in transcript.tool_results if "refused" in r and any(n in r for n in named)),
        None,
    )
    assert reason is not None, f"no refusal named pid {pid} or a parent\n" + transcript.explain()
    assert "your own run" in reason, reason
    assert "leftover" not in reason, reason
    assert "runctx stop" not in reason, reason
    assert not scene.marker.exists(), "the refused pytest started\n" + transcript.explain()


def test_copilot_runs_claude_codes_project_hooks_and_reads_the_refusal(
    scene: Scene, runs: RunFactory
) -> None:
    """Copilot CLI runs .claude/settings.json hooks in Claude's shape: refused through them."""
    chosen = AGENTS["copilot"]
    live = scene.hold(runs)
    transcript = drive(
        runs,
        chosen,
        chosen.program(),
        scene.home,
        scene.checkout,
        scene.test_command(),
        scope="project",
        hooks_of="claude",
    )
    refused(transcript, live)
    assert not scene.marker.exists(), "the refused pytest started\n" + transcript.explain()


def test_an_untrusted_codex_hook_is_skipped_in_silence_as_doctor_says(
    scene: Scene, runs: RunFactory
) -> None:
    """Without hook trust Codex runs the pytest anyway, without a word: doctor said it would."""
    bypass = "--dangerously-bypass-hook-trust"
    codex = AGENTS["codex"]
    untrusted = dataclasses.replace(
        codex, argv=lambda prompt: [arg for arg in codex.argv(prompt) if arg != bypass]
    )
    live = scene.hold(runs)
    transcript = drive(
        runs,
        untrusted,
        codex.program(),
        scene.home,
        scene.checkout,
        scene.test_command(),
        scope="user",
    )
    assert "Codex has not trusted this hook" in "\n".join(transcript.doctor["problems"])  # type: ignore[arg-type]
    assert scene.marker.exists(), "an untrusted hook ran after all\n" + transcript.explain()
    assert str(live.pid) not in "\n".join(transcript.tool_results), transcript.explain()


def test_copilot_skips_project_hooks_in_an_untrusted_folder_as_doctor_says(
    scene: Scene, runs: RunFactory
) -> None:
    """In a folder Copilot CLI does not trust, its project hooks never run: doctor said so."""
    copilot = AGENTS["copilot"]
    untrusted = dataclasses.replace(copilot, prepare=lambda _home: None)
    live = scene.hold(runs)
    transcript = drive(
        runs,
        untrusted,
        copilot.program(),
        scene.home,
        scene.checkout,
        scene.test_command(),
        scope="project",
    )
    problems = "\n".join(transcript.doctor["problems"])  # type: ignore[arg-type]
    assert "does not trust" in problems, transcript.doctor
    assert str(live.pid) not in "\n".join(transcript.tool_results), transcript.explain()
    assert scene.marker.exists(), "the hook ran in an untrusted folder\n" + transcript.explain()


def test_codex_in_a_linked_worktree_reads_the_main_worktrees_hooks(
    scene: Scene, runs: RunFactory
) -> None:
    """Installed where install says (the main worktree, .codex/ here), it guards the linked one."""
    codex = AGENTS["codex"]
    linked = make_worktree(scene.checkout, scene.checkout.parent / "linked")
    refused_here = subprocess.run(
        [str(runctx_bin() / "runctx"), "install", "codex"],
        cwd=linked,
        capture_output=True,
        text=True,
        check=False,
    )
    assert refused_here.returncode == 1
    assert str(scene.checkout / ".codex" / "hooks.json") in refused_here.stderr
    (linked / ".codex").mkdir()  # as the refusal says: Codex needs it to read the main's file
    live = scene.hold_in(runs, linked)
    transcript = drive(
        runs,
        codex,
        codex.program(),
        scene.home,
        linked,
        scene.test_command(),
        scope="project",
        install_in=scene.checkout,
    )
    refused(transcript, live)
    assert not scene.marker.exists(), "the refused pytest started\n" + transcript.explain()
