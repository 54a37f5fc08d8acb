"""Every documented example of runctx's words is what runctx prints on a real scene.

Each example block of the docs that shows runctx's answer is rendered here from
real processes (the hook as a process, or the policy over a real scan) and
compared with the block, after pids, ages, CPU figures and user names are
normalised: the words themselves must match, so the docs cannot drift.
"""

from __future__ import annotations

import json
import os
import re
import uuid
from pathlib import Path

import attrs
from hooktools import claude_pre_tool_use, hook_env, run_hook, runctx
from proctools import PYTHON, make_checkout, wait_for
from runfactory import RUN_TESTS_SCRIPT, clean_env, ready_dir

from runctx import policy
from runctx.hooks.agents import agent
from runctx.hooks.answer import reply_for
from runctx.modes import Mode
from runctx.scanning import scan, viewpoint
from runctx.settings import BusyRules
from runctx.started_by import WANTED

DOCS = Path(__file__).resolve().parent.parent / "docs"


def blocks(name: str, marker: str) -> list[str]:
    """The fenced blocks of ``docs/NAME`` (``../README.md``) that hold ``marker``, as text."""
    text = (DOCS / name).read_text()
    found = re.findall(r"^```[a-z]*\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL)
    return [block.strip() for block in found if marker in block]


def normalised(text: str) -> str:
    """``text`` with what changes from run to run (pids, ages, CPU figures, names) replaced."""
    text = re.sub(r"\bpid \d+", "pid PID", text)
    text = re.sub(r"\b\d+(?:m\d\ds|h\d\dm|s)\b", "AGE", text)
    text = re.sub(r"\b\d+\.\d CPUs busy now", "N CPUs busy now", text)
    text = re.sub(r"\([a-z-]+, (?!running )[^)]+\): ", "(KIND, OWNER): ", text)
    return re.sub(r"\+\d+ idle foreign test runs?\. ", "", text)


def person_env() -> dict[str, str]:
    """A terminal's environment: no agent, CI or multiplexer variable."""
    env = {k: v for k, v in clean_env().items() if k not in WANTED}
    for name in ("TERM_PROGRAM", "TMUX", "TMUX_PANE", "STY", "SSH_CONNECTION", "SSH_CLIENT"):
        env.pop(name, None)
    for name in ("SSH_TTY", "INVOCATION_ID", "CI"):
        env.pop(name, None)
    return env


def run_in_a_terminal(checkout: Path, runs) -> tuple[int, int]:
    """``python3 run_tests.py`` on a terminal of its own (a person's), orphaned, held until reaped.

    Orphaned (a double fork) so that it does not fold into this suite's run; the
    terminal's master end is returned, to be closed by the caller.
    """
    (checkout / "run_tests.py").write_text(RUN_TESTS_SCRIPT)
    ready = ready_dir(checkout) / f"terminal-{uuid.uuid4().hex}"
    env = person_env()
    master, slave = os.openpty()
    terminal = os.ttyname(slave)
    read_end, write_end = os.pipe()
    middle = os.fork()
    if middle == 0:  # pragma: no cover - the forked middle process
        try:
            grandchild = os.fork()
            if grandchild == 0:
                os.setsid()
                tty = os.open(terminal, os.O_RDWR)  # a session leader's first tty: its own
                for fd in (0, 1, 2):
                    os.dup2(tty, fd)
                os.chdir(checkout)
                os.execve(PYTHON, [PYTHON, "run_tests.py", str(ready)], env)
            os.write(write_end, str(grandchild).encode())
        finally:
            os._exit(0)
    os.close(write_end)
    os.waitpid(middle, 0)
    with os.fdopen(read_end, "rb") as pipe:
        pid = int(pipe.read())
    os.close(slave)
    runs.adopt(pid)
    wait_for(ready.exists, what="the run in a terminal to start")
    return pid, master


def runctx_done(*args: str, cwd: Path, env: dict[str, str] | None = None):
    """``runctx ARGS`` run in ``cwd`` as a person types it; it must succeed."""
    return runctx(*args, cwd=cwd, env=env, check=True, timeout=120)


def test_the_quick_start_deny_is_what_the_hook_answers(shared_tmp, runs):
    """docs/hooks.md: the deny for a second run next to a person's run in a terminal."""
    (shown,) = blocks("hooks.md", '"permissionDecision": "deny", "permissionDecisionReason"')
    checkout = make_checkout(shared_tmp)
    pid, master = run_in_a_terminal(checkout, runs)
    try:
        payload = claude_pre_tool_use("python3 run_tests.py", checkout)
        done = run_hook("claude", payload, env=hook_env())
    finally:
        os.close(master)
    assert done.returncode == 0, done.stderr
    answer = done.stdout.strip()
    assert f"pid {pid} " in answer
    assert normalised(answer) == normalised(shown)


def test_the_quick_start_note_is_what_the_policy_says_of_a_busy_foreign_run(shared_tmp, runs):
    """docs/hooks.md: the note on a busy foreign run, rendered as the hook renders it."""
    (shown,) = blocks("hooks.md", '"additionalContext": "runctx: Busy foreign')
    theirs = make_checkout(shared_tmp / "a")
    spinner = runs.spinner(theirs)
    mine = make_checkout(shared_tmp / "b")
    report = scan(viewpoint(cwd=str(mine)), cpu_window=0.3, cpu_of=policy.measures_cpu)
    report = attrs.evolve(
        report, runs=tuple(j for j in report.runs if j.run.is_self or j.run.pid == spinner.pid)
    )
    quiet_box = BusyRules(run_cpu=0.01, cpu_pressure=None, load_per_cpu=None, memory_available=None)
    decision = policy.decision_for(report, Mode.STOP, busy=quiet_box)
    claude = agent("claude")
    answer = reply_for(decision, claude.PRE_TOOL_FACE.replies, claude.TITLE)
    assert answer is not None
    assert f"pid {spinner.pid} " in answer
    assert normalised(answer) == normalised(shown)
    # identity.md shows the same note as an agent reads it, with idle runs counted
    (told,) = blocks("identity.md", "runctx: Busy foreign test run (not this checkout's)")
    assert normalised(json.loads(answer)["hookSpecificOutput"]["additionalContext"]) == (
        normalised(told)
    )


def test_the_own_session_refusal_in_identity_md_is_what_the_hook_answers(shared_tmp, runs):
    """docs/identity.md: the refusal for a run this very session started."""
    (shown,) = blocks("identity.md", "is your own run, started")
    checkout = make_checkout(shared_tmp)
    env = person_env()
    env.update(CLAUDECODE="1", CLAUDE_CODE_SESSION_ID="sess-doc")
    run = runs.run_tests_script(checkout, env=env)
    payload = claude_pre_tool_use("pytest -x", checkout)
    payload["session_id"] = "sess-doc"
    done = run_hook("claude", payload, env=hook_env())
    output = json.loads(done.stdout)["hookSpecificOutput"]
    reason = output["permissionDecisionReason"]
    assert f"pid {run.pid} " in reason
    kinds = r"\((?:pytest|run-tests-script), running AGE, \d+ process(?:es)?\)"
    assert re.sub(kinds, "(RUN)", normalised(reason)) == re.sub(kinds, "(RUN)", normalised(shown))


def shape(text: str) -> list[str]:
    """The lines of a ``runctx status`` table as kinds: headings by their words, rows as ROW."""
    kinds = []
    for line in text.splitlines():
        if line.startswith("$ ") or not line.strip():
            continue
        if re.match(r"\s+(\d+|… and [\d,]+ more )", line):  # a run, or runs counted in one line
            kinds.append("ROW")
        elif line.startswith("  "):
            kinds.append(" ".join(line.split()))
        else:
            kinds.append(re.split(r"[(:]", line, maxsplit=1)[0].strip())
    return kinds


def test_the_status_example_has_the_shape_runctx_status_prints(shared_tmp, runs):
    """docs/status.md: the same sections, columns and lines as a real ``runctx status``."""
    (shown,) = blocks("status.md", "$ runctx status\n")
    mine = make_checkout(shared_tmp / "a")
    ours = runs.run_tests_script(mine)
    theirs = runs.run_tests_script(make_checkout(shared_tmp / "b"))
    done = runctx_done("status", cwd=mine, env={**hook_env(), "COLUMNS": "400"})
    assert f"  {ours.pid}  " in done.stdout
    every = runctx_done("status", "--all", cwd=mine, env={**hook_env(), "COLUMNS": "400"})
    assert f"  {theirs.pid}  " in every.stdout  # listed, or counted past the busiest: --all
    # the status process is a child of this suite, so it shows "This run" (the suite) first:
    # a section the example, taken from a shell, has not
    printed = shape(re.sub(r"^This run.*?\n\n", "", done.stdout, flags=re.MULTILINE | re.DOTALL))
    documented = shape(shown)
    # the scene may have more runs than the example (other suites on the box): compare
    # each section's lines with the rows folded
    assert folded(printed) == folded(documented)


def folded(kinds: list[str]) -> list[str]:
    """``kinds`` with each run of ROWs as one."""
    return [kind for n, kind in enumerate(kinds) if kind != "ROW" or kinds[n - 1] != "ROW"]


def test_the_readme_shows_the_pages_examples_word_for_word():
    """README.md's examples are the pages' (each rendered from a real scene above), not drifting."""
    for marker, page in (
        ("$ runctx status\n", "status.md"),
        ('"permissionDecision": "deny", "permissionDecisionReason"', "hooks.md"),
        ("id: runctx-check", "hooks.md"),
    ):
        (readme,) = blocks("../README.md", marker)
        (shown,) = blocks(page, marker)
        assert readme == shown, marker


def test_the_teammate_guard_is_the_command_runctx_install_writes(shared_tmp):
    """docs/hooks.md: the guarded command, as ``runctx install claude`` writes it."""
    (shown,) = blocks("hooks.md", "if command -v runctx")
    checkout = make_checkout(shared_tmp)
    done = runctx_done("install", "claude", "--dry-run", cwd=checkout)
    written = [
        json.loads(line.split(": ", 1)[1].rstrip(","))
        for line in done.stdout.splitlines()
        if '"command": ' in line
    ]
    assert shown in written


def test_a_hook_that_fails_open_says_what_the_docs_show():
    """docs/hooks.md: the stderr line and the note to the agent when the payload is malformed."""
    (shown,) = blocks("hooks.md", "runctx: hook failed open:")
    payload = {
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "cwd": "/",
        "tool_input": {"command": 5},
    }
    done = run_hook("claude", payload, env=hook_env())
    assert done.returncode == 0
    assert done.stderr.splitlines()[0] == shown
    note = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert note.startswith("runctx could not check for other test runs (")
    assert note.endswith(
        "); this command was let through unchecked, so a second run of this checkout may "
        "collide with one already live."
    )


def keys(value: object, at: str = "") -> set[str]:
    """Every key path in a JSON value (``runs[].pid``)."""
    found: set[str] = set()
    if isinstance(value, dict):
        for key, inner in value.items():
            found.add(f"{at}{key}")
            found |= keys(inner, f"{at}{key}.")
    elif isinstance(value, list):
        for inner in value:
            found |= keys(inner, f"{at}[].")
    return found


def test_every_field_of_the_json_example_is_in_what_status_prints(shared_tmp, runs):
    """docs/status.md: the JSON contract's example names no field ``runctx status --json`` lacks."""
    (shown,) = blocks("status.md", '{"schema_version": 1,')
    mine = make_checkout(shared_tmp)
    venv = mine / ".venv" / "bin"
    venv.mkdir(parents=True)
    os.symlink(PYTHON, venv / "python")
    (mine / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (mine / "run_tests.py").write_text(RUN_TESTS_SCRIPT)
    ready = ready_dir(mine) / "venv-run"
    run = runs.orphan(
        [str(venv / "python"), "run_tests.py", str(ready)], mine, env=clean_env(), ready=ready
    )
    done = runctx_done("status", "--json", cwd=mine)
    printed = json.loads(done.stdout)
    (judged,) = [r for r in printed["runs"] if r["pid"] == run.pid]
    printed["runs"] = [judged]
    assert judged["environment"] is not None, judged
    assert keys(json.loads(shown)) <= keys(printed)


def metric_lines(text: str) -> list[str]:
    """OpenMetrics lines with their hashes, counts and uids replaced."""
    text = re.sub(r'root="[0-9a-f]{12}"', 'root="HASH"', text)
    text = re.sub(r'uid="\d+"', 'uid="UID"', text)
    text = re.sub(r'kind="[a-z-]+"', 'kind="KIND"', text)
    text = re.sub(r"\} \d+$", "} N", text, flags=re.MULTILINE)
    return re.sub(r"^(runctx_usable_cpus) \d+$", r"\1 N", text, flags=re.MULTILINE).splitlines()


def test_the_openmetrics_example_is_what_runctx_writes(shared_tmp, runs):
    """docs/metrics.md: each line of the example, in its order, in what a real scan writes."""
    (shown,) = blocks("metrics.md", "$ runctx status --format openmetrics\n")
    mine = make_checkout(shared_tmp / "a")
    theirs = runs.run_tests_script(make_checkout(shared_tmp / "b"))
    done = runctx_done("status", "--format", "openmetrics", cwd=mine)
    assert theirs.pid  # its run is one of the foreign runs counted
    written = metric_lines(done.stdout)
    documented = [line for line in metric_lines(shown) if line != "..."][1:]
    at = 0
    for line in documented:
        assert line in written[at:], line
        at = written.index(line, at) + 1
    families = set(re.findall(r"^# TYPE (runctx_[a-z_]+) gauge$", done.stdout, re.MULTILINE))
    named = set(re.findall(r"`(runctx_[a-z_]+)`", (DOCS / "metrics.md").read_text()))
    assert named == families  # the table names every family written, and no other
    (queries,) = blocks("metrics.md", "sum by (verdict)")
    assert set(re.findall(r"\b(runctx_[a-z_]+)", queries)) <= families


def test_a_broken_setting_is_named_with_where_to_fix_it(shared_tmp):
    """A hook tells the agent which file, or which variable, is broken: never a file for both."""
    checkout = make_checkout(shared_tmp)
    payload = claude_pre_tool_use("pytest", checkout)
    told = {}
    for where, env in (
        ("variable", hook_env(RUNCTX_ON_SAME_CHECKOUT="sometimes")),
        ("file", hook_env()),
    ):
        if where == "file":
            with (checkout / "pyproject.toml").open("a") as file:
                file.write('\n[tool.runctx]\non-same-checkout = "sometimes"\n')
        done = run_hook("claude", payload, env=env)
        assert done.returncode == 0, done.stderr
        told[where] = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "($RUNCTX_ON_SAME_CHECKOUT must be one of" in told["variable"]
    assert told["variable"].endswith("judged with the defaults instead. Fix that variable.")
    assert f"({checkout / 'pyproject.toml'}:" in told["file"]
    assert told["file"].endswith("judged with the defaults instead. Fix that file.")


def test_two_runs_in_the_way_are_named_as_pids(shared_tmp, runs):
    """The advice after two runs of this checkout names them as ``pids A, B``, in one list."""
    checkout = make_checkout(shared_tmp)
    first = runs.run_tests_script(checkout)
    second = runs.run_tests_script(checkout)
    done = run_hook("claude", claude_pre_tool_use("pytest", checkout), env=hook_env())
    reason = json.loads(done.stdout)["hookSpecificOutput"]["permissionDecisionReason"]
    named = re.search(r"\(pids (\d+), (\d+)\)\.$", reason)
    assert named is not None, reason
    assert {int(pid) for pid in named.groups()} == {first.pid, second.pid}


def test_the_code_origin_example_is_what_a_session_in_another_worktree_says(tmp_path, runs):
    """docs/api.md: worktree b's session (``-v``), on a venv where a is installed editable."""
    from envtools import shared_worktrees, venv_python
    from test_code_origin import header, run_session

    (shown,) = blocks("api.md", "runctx: the code under test is not this checkout's")
    shared = shared_worktrees(tmp_path)
    status, output = run_session(runs, venv_python(shared.venv), shared.b, "-v", "tests")
    assert status == 0, output
    said = [line for line in header(output) if "code under test" in line or "imported" in line]

    def plain(text: str, a: str, b: str, package: str, dist: str) -> str:
        text = text.replace(f"{a}/src/{package}", "A/src/PACKAGE").replace(a, "A").replace(b, "B")
        return text.replace(f"{package} will be", "PACKAGE will be").replace(dist, "DIST")

    printed = plain("\n".join(said), str(shared.a), str(shared.b), "pkg", "pkg_project 0.1")
    assert printed == plain(shown, "/src/proj-a", "/src/proj-b", "proj", "proj 0.3")


def cells(table_line: str, header: str) -> dict[str, str]:
    """A table row's cells by column, cut where the header's columns start."""
    starts = [0] + [m.start() + 2 for m in re.finditer(r"  (?=\S)", header)]
    names = [header[a:b].strip() for a, b in zip(starts, [*starts[1:], None], strict=True)]
    return {
        name: table_line[a:b].strip()
        for name, a, b in zip(names, starts, [*starts[1:], None], strict=True)
    }


def test_the_status_examples_started_by_env_and_root_are_what_runctx_shows(shared_tmp, runs):
    """docs/status.md: a run an agent session started on the checkout's venv, seen from home."""
    (shown,) = blocks("status.md", "$ runctx status\n")
    lines = shown.splitlines()
    documented = cells(lines[5], lines[4])
    home = shared_tmp / "home" / "ana"
    mine = make_checkout(home / "src")
    venv = mine / ".venv" / "bin"
    venv.mkdir(parents=True)
    os.symlink(PYTHON, venv / "python")
    (mine / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (mine / "run_tests.py").write_text(RUN_TESTS_SCRIPT)
    ready = ready_dir(mine) / "agent-run"
    env = person_env()
    env.update(CLAUDECODE="1", CLAUDE_CODE_SESSION_ID="5f3a2b1c-0d4e-4f5a-8b6c-7d8e9f0a1b2c")
    run = runs.orphan(
        [str(venv / "python"), "run_tests.py", str(ready)], mine, env=env, ready=ready
    )
    done = runctx_done("status", cwd=mine, env={**hook_env(), "COLUMNS": "400", "HOME": str(home)})
    printed = done.stdout.splitlines()
    at = next(n for n, line in enumerate(printed) if re.match(rf"\s+{run.pid}\s", line))
    header = next(line for line in reversed(printed[:at]) if line.strip().startswith("PID"))
    row = cells(printed[at], header)
    for column in ("STARTED BY", "ENV", "ROOT"):
        assert row[column] == documented[column], (column, printed[at])
    assert row["COMMAND"] == ".venv/bin/python run_tests.py " + str(ready).replace(
        str(mine) + "/", ""
    ), printed[at]
