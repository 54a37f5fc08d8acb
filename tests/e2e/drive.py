"""One agent run against the scripted model server: start both, wait, read what was said.

Every process is started through the run factory (``runs``), each in its own
process group, so the test's teardown reaps the server, the agent and
whatever the agent started in its group, by group, never by name. The agent
is started orphaned (double fork, its own session), as a user's agent is:
a child of this suite's pytest would make every run the agent starts a
member of the suite's own run, which a hook never counts.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import uuid
from dataclasses import dataclass
from pathlib import Path

from agents import Agent, Home
from proctools import is_live, wait_for
from runfactory import RunFactory

SERVER = Path(__file__).with_name("model_server.py")
AGENT_TIMEOUT = 240
"""Seconds one headless agent run may take before the check fails."""
PROMPT = "Run the command you were asked to run, then stop."


@dataclass(frozen=True)
class Transcript:
    """What one agent run showed: the requests the model server got, the agent's output."""

    requests: list[dict[str, object]]
    stdout: str
    stderr: str
    returncode: int
    doctor: dict[str, object]
    """What ``runctx doctor AGENT --json`` said of the scope installed, before the run."""

    @property
    def tool_calls(self) -> int:
        """How many times the server asked for the shell tool."""
        return sum(1 for request in self.requests if request.get("called"))

    @property
    def tool_results(self) -> list[str]:
        """Every tool result the agent sent back to the model, in order, without repeats."""
        seen: list[str] = []
        for request in self.requests:
            for result in request.get("tool_results") or []:  # type: ignore[attr-defined]
                if result not in seen:
                    seen.append(result)
        return seen

    def explain(self) -> str:
        """Everything, for an assertion's message."""
        paths = [f"{r.get('method')} {r.get('path')} tool={r.get('tool')}" for r in self.requests]
        hooks = [line[:1500] for line in self.stdout.splitlines() if "hook" in line.lower()]
        return (
            f"exit {self.returncode}\nrequests: {paths}\ntool results: {self.tool_results}\n"
            f"hook lines in the agent's output: {hooks}\n"
            f"stdout (tail): {self.stdout[-3000:]}\nstderr (tail): {self.stderr[-3000:]}"
        )


def runctx_bin() -> Path:
    """The directory holding the ``runctx`` this suite tests (the agents find it on PATH)."""
    return Path(sys.executable).parent


def base_environment(home: Home) -> dict[str, str]:
    """A clean environment: only what an agent on a fresh machine has, and runctx on PATH."""
    node = shutil.which("node")
    path = [str(runctx_bin())]
    if node:
        path.append(str(Path(node).parent))
    path += ["/usr/local/bin", "/usr/bin", "/bin"]
    env = {
        "PATH": os.pathsep.join(dict.fromkeys(path)),
        "HOME": str(home.home),
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "NO_COLOR": "1",
        "TMPDIR": str(home.home / "tmp"),
        # The hook's own deadline: runctx's default (10 s, under the 20 s the installed
        # hooks get) unless RUNCTX_E2E_HOOK_DEADLINE sets another.
        "RUNCTX_HOOK_DEADLINE": os.environ.get("RUNCTX_E2E_HOOK_DEADLINE", "10"),
    }
    for name in (
        "GIT_CONFIG_NOSYSTEM",
        "GIT_AUTHOR_NAME",
        "GIT_AUTHOR_EMAIL",
        "GIT_COMMITTER_NAME",
        "GIT_COMMITTER_EMAIL",
        "CI",
    ):
        if name in os.environ:
            env[name] = os.environ[name]
    return env


def install_hooks(agent: str, scope: str, cwd: Path, env: dict[str, str]) -> str:
    """``runctx install AGENT --scope SCOPE`` as a user would run it; its output."""
    done = subprocess.run(
        [str(runctx_bin() / "runctx"), "install", agent, "--scope", scope],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 0, f"runctx install {agent} failed: {done.stdout}{done.stderr}"
    return done.stdout + done.stderr


def drive(  # noqa: PLR0913, PLR0917 - the run's parts, each its own
    runs: RunFactory,
    agent: Agent,
    program: Path,
    home: Path,
    cwd: Path,
    command: str,
    *,
    scope: str,
    hooks_of: str = "",
    install_in: Path | None = None,
    calls: list[dict[str, object]] | None = None,
) -> Transcript:
    """Install the hooks at ``scope``, run ``agent`` in ``cwd`` asked for ``command``.

    ``hooks_of`` installs another agent's hooks instead (Copilot CLI runs Claude Code's);
    ``install_in`` installs from another directory (a linked worktree's main one);
    ``calls`` asks for several calls in turn instead of ``command`` alone, each a
    ``command`` with ``background`` or a ``directory`` to run it in (see model_server.py).
    """
    work = home.parent / f"server-{uuid.uuid4().hex[:8]}"
    work.mkdir()
    spec = {
        "command": command,
        "calls": calls or [{"command": command}],
        "log_file": str(work / "requests.jsonl"),
        "port_file": str(work / "port"),
        "max_requests": 200,
        "lifetime": AGENT_TIMEOUT + 60,
    }
    (work / "spec.json").write_text(json.dumps(spec))
    runs.child(
        [sys.executable, str(SERVER), str(work / "spec.json")],
        ready=work / "port",
        cwd=work,
    )
    port = int((work / "port").read_text())
    where = Home(home=home, cwd=cwd, base_url=f"http://127.0.0.1:{port}")
    (home / "tmp").mkdir(exist_ok=True)
    env = base_environment(where)
    env.update(agent.environment(where))
    installed = hooks_of or agent.name
    install_hooks(installed, scope, install_in or (cwd if scope == "project" else home), env)
    agent.prepare(where)
    findings = doctor(installed, cwd, env)
    stdout, stderr, status = work / "stdout", work / "stderr", work / "status"
    # Orphaned, as a user's agent is: started under this suite's pytest, every run the
    # agent starts would fold into the suite's own run, which a hook never counts.
    script = (
        f'"$0" "$@" >{shlex.quote(str(stdout))} 2>{shlex.quote(str(stderr))} </dev/null; '
        f"echo $? >{shlex.quote(str(status))}"
    )
    agent_process = runs.orphan(
        [
            "/bin/sh",
            "-c",
            script,
            str(program),
            *agent.argv(PROMPT),
        ],
        cwd,
        env=env,
    )
    try:
        wait_for(
            lambda: not is_live(agent_process.pid),
            timeout=AGENT_TIMEOUT,
            what=f"{agent.name} to end",
        )
    except AssertionError:
        runs.kill(agent_process)
    log = work / "requests.jsonl"
    requests = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return Transcript(
        requests=requests,
        stdout=stdout.read_text(errors="replace"),
        stderr=stderr.read_text(errors="replace"),
        returncode=int(status.read_text()) if status.exists() else -1,
        doctor=next((f for f in findings if f["scope"] == scope), {}),
    )


def doctor(agent: str, cwd: Path, env: dict[str, str]) -> list[dict[str, object]]:
    """``runctx doctor AGENT --json`` in the agent's environment and directory."""
    done = subprocess.run(
        [str(runctx_bin() / "runctx"), "doctor", agent, "--json"],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert done.returncode in (0, 1), done.stderr
    found: list[dict[str, object]] = json.loads(done.stdout)
    return found


def pytest_command(python: str, test_file: str) -> str:
    """The test command the model asks for: this suite's python running pytest on one file."""
    return (
        f"{shlex.quote(python)} -m pytest -q -p no:cacheprovider -p no:runctx "
        f"{shlex.quote(test_file)}"
    )
