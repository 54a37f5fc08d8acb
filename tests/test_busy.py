"""Busy now, not just present: CPU use over a window, the box's pressure and memory, and notes.

The parsers are fed text; CPU use is measured on real processes (a spinning
one and a sleeping one); the notes an agent gets are proved end to end in a
pid namespace of the test's own (``unshare --pid --mount-proc``), where the
only test runs are the ones the test starts, so that other runs on a shared
box never decide what a note names. The box's own pressure is whatever it is
while the suite runs, so every test that depends on it sets the thresholds
that make it irrelevant (``false`` turns a box threshold off, ``0`` makes it
always crossed).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import attrs
import pytest
from hooktools import reply, run_hook
from nstools import require_tools
from proctools import PYTHON, Orphan, make_checkout, spawn_orphan, wait_for
from runfixtures import clean_env, ready_dir, start_run_tests_script

from runctx import policy
from runctx.busy import box_pressure, busy_now, split_by_cpu
from runctx.cpu_window import cpu_now, read_cpu, second_reading
from runctx.exceptions import ConfigError
from runctx.present.words import NOTE_MAX_CHARS, foreign_note
from runctx.records import ProcIdentity
from runctx.scanning import scan, viewpoint
from runctx.settings import DEFAULT_BUSY, BoxMode, BusyRules, settings_for
from runctx.sources.load import Load, MemInfo, Pressure
from runctx.sources.procfs import ProcfsSource, cgroup_cpu_quota
from runctx.sources.proctext import (
    parse_cfs_quota,
    parse_cgroup,
    parse_meminfo,
    parse_stat_tty,
    systemd_path,
)
from runctx.unknown import Reason, Unknown
from runctx.waiting import wait_for_room

SPIN_SCRIPT = """
import pathlib, sys
pathlib.Path(sys.argv[1]).touch()
while True:
    pass
"""

QUIET_BOX = (
    "\n[tool.runctx]\n"
    "busy-box-cpu-pressure = false\n"
    "busy-box-load-per-cpu = false\n"
    "busy-box-memory-available = false\n"
)
"""Settings under which the box never counts as busy, whatever else runs on it."""


def with_settings(checkout: Path, text: str) -> None:
    """Append ``text`` (a ``[tool.runctx]`` table) to the checkout's pyproject.toml."""
    with (checkout / "pyproject.toml").open("a") as pyproject:
        pyproject.write(text)


def start_spinner(checkout: Path) -> Orphan:
    """An orphaned ``run_tests.py`` that keeps one CPU busy until killed."""
    (checkout / "run_tests.py").write_text(SPIN_SCRIPT)
    ready = ready_dir(checkout) / "spinning"
    run = spawn_orphan([PYTHON, "run_tests.py", str(ready)], checkout, env=clean_env())
    wait_for(ready.exists, what="the spinner to start")
    return run


# --------------------------------------------------------------------------- the parsers


def test_meminfo_gives_total_and_available_in_bytes():
    """MemTotal and MemAvailable are read in kB and given in bytes."""
    text = b"MemTotal:       16000 kB\nMemFree:  100 kB\nMemAvailable:    4000 kB\n"
    assert parse_meminfo(text) == MemInfo(total_bytes=16000 * 1024, available_bytes=4000 * 1024)


def test_meminfo_without_available_is_absent_and_garbage_unparsable():
    """A kernel without MemAvailable gives an absent unknown; a bad number an unparsable one."""
    old = parse_meminfo(b"MemTotal: 16000 kB\nMemFree: 100 kB\n")
    assert isinstance(old, Unknown)
    assert old.reason is Reason.ABSENT
    bad = parse_meminfo(b"MemTotal: lots kB\nMemAvailable: 1 kB\n")
    assert isinstance(bad, Unknown)
    assert bad.reason is Reason.UNPARSABLE


def test_cgroup_lines_name_their_hierarchy_and_systemd_path():
    """Lines of /proc/PID/cgroup (v1, v2); systemd files a process under name=systemd or v2."""
    hybrid = b"12:cpu,cpuacct:/docker/ab\n1:name=systemd:/system.slice/x.service\n0::/\n"
    assert parse_cgroup(hybrid) == (
        (("cpu", "cpuacct"), "/docker/ab"),
        (("name=systemd",), "/system.slice/x.service"),
        ((), "/"),
    )
    assert systemd_path(parse_cgroup(hybrid)) == "/system.slice/x.service"
    assert systemd_path(parse_cgroup(b"0::/user.slice/a.scope\n")) == "/user.slice/a.scope"
    assert parse_cgroup(b"garbage\n0:cpu\n") == ()


def test_cfs_quota_and_tty_fields():
    """A v1 quota is quota over period (-1: none); tty_nr is the field after the session."""
    assert parse_cfs_quota(b"150000\n", b"100000\n") == 1.5
    assert parse_cfs_quota(b"-1\n", b"100000\n") is None
    assert parse_stat_tty(b"42 (a b) S 1 42 42 34816 42 4194304 0") == 34816
    assert isinstance(parse_stat_tty(b"42 (x) S 1"), Unknown)


def test_the_smallest_quota_of_every_cgroup_above_counts(tmp_path):
    """cpu.max at each level from the process's cgroup to the top: the smallest one caps it."""
    for level, quota in (("", b"max 100000"), ("/a", b"300000 100000"), ("/a/b", b"max 100000")):
        path = tmp_path / level.lstrip("/")
        path.mkdir(parents=True, exist_ok=True)
        (path / "cpu.max").write_bytes(quota)
    assert cgroup_cpu_quota(b"0::/a/b\n", str(tmp_path)) == 3.0
    (tmp_path / "cpu.max").write_bytes(b"150000 100000")
    assert cgroup_cpu_quota(b"0::/a/b\n", str(tmp_path)) == 1.5
    assert cgroup_cpu_quota(b"0::/elsewhere\n", str(tmp_path / "a" / "b")) is None


# --------------------------------------------------------------------------- the box


def test_the_box_is_read_with_memory_and_usable_cpus():
    """A real read of the box: memory known, usable CPUs no more than the affinity allows."""
    load = ProcfsSource().load()
    assert isinstance(load.memory, MemInfo)
    assert 0 < load.memory.available_bytes <= load.memory.total_bytes
    assert isinstance(load.usable_cpus, int)
    assert 1 <= load.usable_cpus <= len(os.sched_getaffinity(0))


def load_of(*, psi: float, per_cpu: float, available: float) -> Load:
    """A Load with the given CPU pressure, load per CPU (over 2 CPUs) and percent available."""
    return Load(
        usable_cpus=2,
        load_average=(per_cpu * 2, 0.0, 0.0),
        cpu_pressure=Pressure(avg10=psi, avg60=0.0, avg300=0.0),
        memory=MemInfo(total_bytes=1000, available_bytes=int(available * 10)),
    )


def test_each_threshold_makes_the_box_busy_and_false_turns_one_off():
    """CPU pressure, load per CPU and memory each cross on their own; false ignores one."""
    rules = BusyRules(cpu_pressure=40, load_per_cpu=1.5, memory_available=10)
    assert not box_pressure(load_of(psi=10, per_cpu=0.5, available=50), rules).busy
    assert box_pressure(load_of(psi=41, per_cpu=0.5, available=50), rules).reasons == (
        "CPU pressure 41% >= 40%",
    )
    assert box_pressure(load_of(psi=0, per_cpu=2, available=50), rules).reasons == (
        "load 2.00 per CPU >= 1.5",
    )
    assert box_pressure(load_of(psi=0, per_cpu=0, available=5), rules).reasons == (
        "memory available 5% < 10%",
    )
    off = BusyRules(cpu_pressure=None, load_per_cpu=None, memory_available=None)
    assert not box_pressure(load_of(psi=100, per_cpu=9, available=0), off).busy


def test_an_unknown_fact_adds_no_pressure():
    """Without PSI (or memory), only the facts that are known can make the box busy."""
    load = Load(
        usable_cpus=2,
        load_average=(0.1, 0.1, 0.1),
        cpu_pressure=Unknown(Reason.ABSENT),
        memory=Unknown(Reason.ABSENT),
    )
    assert not box_pressure(load, BusyRules(cpu_pressure=0, memory_available=100)).busy


# --------------------------------------------------------------------------- settings


def test_the_thresholds_and_on_busy_box_are_read_from_the_checkout(shared_tmp):
    """[tool.runctx] sets each threshold and on-busy-box; false turns a box threshold off."""
    checkout = make_checkout(shared_tmp)
    with_settings(
        checkout,
        "\n[tool.runctx]\nbusy-run-cpu = 0.25\nbusy-box-cpu-pressure = 60\n"
        'busy-box-load-per-cpu = false\nbusy-box-memory-available = 5\non-busy-box = "warn"\n',
    )
    busy = settings_for(str(checkout), environ={}).busy
    assert (busy.run_cpu, busy.cpu_pressure, busy.load_per_cpu, busy.memory_available) == (
        0.25,
        60.0,
        None,
        5.0,
    )
    assert busy.on_busy_box is BoxMode.WARN
    overridden = settings_for(str(checkout), environ={"RUNCTX_ON_BUSY_BOX": "wait"}).busy
    assert overridden.on_busy_box is BoxMode.WAIT
    assert overridden.cpu_pressure == 60.0


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("busy-run-cpu = -1", "busy-run-cpu must be a number from 0"),
        ("busy-run-cpu = false", "busy-run-cpu must be a number from 0"),
        ('busy-box-cpu-pressure = "high"', "busy-box-cpu-pressure must be a number"),
        ("busy-box-memory-available = 101", "busy-box-memory-available must be a number"),
        ('on-busy-box = "sometimes"', 'on-busy-box must be one of "off", "warn", "wait"'),
    ],
)
def test_a_bad_threshold_is_an_error_naming_the_key(shared_tmp, line, words):
    """A threshold out of range, or an unknown on-busy-box, names the file and the key."""
    checkout = make_checkout(shared_tmp)
    with_settings(checkout, f"\n[tool.runctx]\n{line}\n")
    with pytest.raises(ConfigError, match=words) as raised:
        settings_for(str(checkout), environ={})
    assert str(checkout / "pyproject.toml") in str(raised.value)


# --------------------------------------------------------------------------- CPU use now


def test_cpu_times_grow_for_a_spinning_process_and_not_for_a_sleeping_one(shared_tmp):
    """Two readings of real processes: a spinner's CPU time grows, a sleeper's stays."""
    checkout = make_checkout(shared_tmp)
    sleeper = start_run_tests_script(make_checkout(shared_tmp, "other"))
    spinner = start_spinner(checkout)
    try:
        source = ProcfsSource()
        identities = [source.current_identity(pid) for pid in (spinner.pid, sleeper.pid)]
        assert all(isinstance(identity, ProcIdentity) for identity in identities)
        first = source.cpu_times(identities)
        wait_for(
            lambda: source.cpu_times(identities)[identities[0]] > first[identities[0]],
            what="the spinner to use CPU",
        )
        assert source.cpu_times(identities)[identities[1]] == first[identities[1]]
    finally:
        spinner.kill()
        sleeper.kill()


def test_a_gone_or_reused_pid_gives_no_cpu_time(shared_tmp):
    """A process that exited, or an identity whose start does not match, reads as unknown."""
    run = start_run_tests_script(make_checkout(shared_tmp))
    source = ProcfsSource()
    identity = source.current_identity(run.pid)
    assert isinstance(identity, ProcIdentity)
    wrong = ProcIdentity(run.pid, identity.start + 1)
    found = source.cpu_times([identity, wrong])
    assert isinstance(found[identity], float)
    assert isinstance(found[wrong], Unknown)
    run.kill()
    gone = source.cpu_times([identity])[identity]
    assert isinstance(gone, Unknown)
    assert gone.reason in (Reason.GONE, Reason.ZOMBIE)


def test_a_scan_with_a_window_measures_each_other_run_now(shared_tmp):
    """scan(cpu_window=...) gives a spinning run CPU now above zero, a sleeping one zero."""
    checkout = make_checkout(shared_tmp)
    idle_checkout = make_checkout(shared_tmp, "idle")
    sleeper = start_run_tests_script(idle_checkout)
    spinner = start_spinner(checkout)
    try:
        here = viewpoint(cwd=str(shared_tmp))

        def spinner_seen_busy() -> bool:
            report = scan(here, cpu_window=0.1)
            cpu = next(j.run.cpu_now for j in report.runs if j.run.pid == spinner.pid)
            return isinstance(cpu, float) and cpu > 0

        wait_for(spinner_seen_busy, what="a window in which the spinner ran")
        report = scan(here, cpu_window=0.1)
        assert isinstance(report.cpu_window, float)
        assert report.cpu_window >= 0.1
        idle = next(j for j in report.runs if j.run.pid == sleeper.pid)
        assert idle.run.cpu_now == 0.0
        assert all(j.run.cpu_now == Unknown(Reason.NOT_READ) for j in scan(here).runs), (
            "a scan without a window measures nothing"
        )
    finally:
        spinner.kill()
        sleeper.kill()


def test_cpu_now_leaves_out_processes_not_read_twice(shared_tmp):
    """A run none of whose processes lived through the window is gone, not idle, not busy."""
    run = start_run_tests_script(make_checkout(shared_tmp))
    here = viewpoint(cwd=str(shared_tmp))
    judged = next(j for j in scan(here).runs if j.run.pid == run.pid)
    source = ProcfsSource()
    first = read_cpu(source, [judged.run])
    run.kill()
    second = second_reading(source, first, 0.01)
    now = cpu_now(judged.run, first, second)
    assert isinstance(now, Unknown)
    assert now.reason is Reason.GONE
    assert not busy_now(attrs.evolve(judged.run, cpu_now=now), DEFAULT_BUSY)


def test_busy_now_is_a_threshold_and_unmeasured_counts_as_busy(shared_tmp):
    """At or over busy-run-cpu is busy; under is idle; not measured counts as busy."""
    run = start_run_tests_script(make_checkout(shared_tmp))
    try:
        judged = next(j for j in scan(viewpoint(cwd=str(shared_tmp))).runs if j.run.pid == run.pid)
        rules = BusyRules(run_cpu=0.5)
        measured = [
            attrs.evolve(judged, run=attrs.evolve(judged.run, cpu_now=cpu)) for cpu in (0.5, 0.49)
        ]
        assert [busy_now(j.run, rules) for j in measured] == [True, False]
        assert busy_now(judged.run, rules)  # never measured: the visible answer
        busy, idle = split_by_cpu(tuple(measured), rules)
        assert (busy, idle) == ((measured[0],), (measured[1],))
    finally:
        run.kill()


# --------------------------------------------------------------------------- notes


def test_a_note_is_short_and_counts_idle_runs_in_a_few_words(shared_tmp):
    """Twelve idle foreign runs on a busy box: one short note that only counts them."""
    checkout = make_checkout(shared_tmp)
    runs = [start_run_tests_script(make_checkout(shared_tmp / "o", f"p{n}")) for n in range(12)]
    try:
        report = scan(viewpoint(cwd=str(checkout)), cpu_window=0.1)
        mine = tuple(j for j in report.runs if j.run.pid in {run.pid for run in runs})
        assert len(mine) == 12
        alone = attrs.evolve(report, runs=mine)
        always_busy = BusyRules(cpu_pressure=0)
        note = foreign_note(alone, always_busy, box_pressure(alone.load, always_busy))
        assert note is not None
        assert len(note) <= NOTE_MAX_CHARS
        assert "+12 idle foreign test runs" in note
        assert not any(f"pid {run.pid}" in note for run in runs)
        quiet = BusyRules(cpu_pressure=None, load_per_cpu=None, memory_available=None)
        assert (
            policy.decision_for(alone, policy.Mode.STOP, busy=quiet).action is policy.Action.SILENT
        )
    finally:
        for run in runs:
            run.kill()


def test_a_busy_foreign_run_is_named_with_its_cpu_use_now(shared_tmp):
    """A foreign run over busy-run-cpu is named in the note with the CPUs it keeps busy."""
    checkout = make_checkout(shared_tmp)
    spinner = start_spinner(make_checkout(shared_tmp, "theirs"))
    try:
        rules = BusyRules(run_cpu=0.01, cpu_pressure=None, load_per_cpu=None, memory_available=None)
        here = viewpoint(cwd=str(checkout))
        found: list[str] = []

        def named() -> bool:
            report = scan(here, cpu_window=0.1)
            alone = attrs.evolve(
                report, runs=tuple(j for j in report.runs if j.run.pid == spinner.pid)
            )
            decision = policy.decision_for(alone, policy.Mode.STOP, busy=rules)
            found[:] = [decision.message]
            return decision.action is policy.Action.NOTE

        wait_for(named, what="a note on the spinning run")
        assert f"pid {spinner.pid} (run-tests-script" in found[0]
        assert " CPUs busy now" in found[0]
        assert len(found[0]) <= NOTE_MAX_CHARS
    finally:
        spinner.kill()


# --------------------------------------------------------------------------- the hook, end to end

SANDBOX = r"""
import json, os, pathlib, signal, subprocess, sys, time
spec = json.loads(sys.argv[1])
children = []
try:
    for argv, cwd, ready in spec["runs"]:
        children.append(subprocess.Popen(
            argv, cwd=cwd, start_new_session=True, stdin=subprocess.DEVNULL, env=spec["env"]))
    deadline = time.monotonic() + 60
    while not all(pathlib.Path(ready).exists() for _, _, ready in spec["runs"]):
        if time.monotonic() > deadline:
            raise SystemExit("the runs did not start")
        time.sleep(0.02)
    until = spec["until"].format(*(child.pid for child in children)) if spec["until"] else ""
    replies = []
    for _ in range(spec["tries"]):
        done = subprocess.run(spec["hook"], input=spec["payload"].encode(), capture_output=True,
                              env=spec["env"], cwd=spec["cwd"], timeout=60)
        replies.append({"code": done.returncode, "stdout": done.stdout.decode(),
                        "stderr": done.stderr.decode()})
        if not until or until in done.stdout.decode():
            break
    print(json.dumps({"pids": [child.pid for child in children], "replies": replies}))
finally:
    for child in children:
        os.killpg(child.pid, signal.SIGKILL)
"""


def hook_in_own_pid_namespace(runs, payload, *, cwd: Path, until: str = "", tries: int = 1):
    """Start ``runs`` and ask ``runctx hook claude`` in a pid namespace of their own.

    ``runs`` are (argv, cwd, ready file); the namespace (``unshare --pid
    --fork --mount-proc``) holds nothing but them, the sandbox that starts
    them and the hook, and everything in it dies with the sandbox. The hook
    is asked up to ``tries`` times, until its answer holds ``until``
    (formatted with the runs' pids). Returns the pids and the answers.
    """
    tools = require_tools("unshare")
    env = clean_env()
    env = {k: v for k, v in env.items() if not k.startswith("RUNCTX_")}
    spec = {
        "runs": [[list(argv), str(where), str(ready)] for argv, where, ready in runs],
        "hook": [sys.executable, "-m", "runctx", "hook", "claude"],
        "payload": json.dumps(payload),
        "cwd": str(cwd),
        "env": env,
        "until": until,
        "tries": tries,
    }
    done = subprocess.run(
        [
            tools["unshare"],
            "--pid",
            "--fork",
            "--mount-proc",
            PYTHON,
            "-c",
            SANDBOX,
            json.dumps(spec),
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def claude_test_command(cwd: Path) -> dict[str, object]:
    """A PreToolUse payload for ``pytest -x`` in ``cwd``."""
    return {
        "session_id": "s-1",
        "cwd": str(cwd),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "pytest -x"},
    }


def sleeper(checkout: Path) -> tuple[list[str], Path, Path]:
    """A run_tests.py in ``checkout`` that sleeps once up, and its ready file."""
    (checkout / "run_tests.py").write_text(
        "import pathlib, sys, time\npathlib.Path(sys.argv[1]).touch()\ntime.sleep(300)\n"
    )
    ready = ready_dir(checkout) / "sleeping"
    return [PYTHON, "run_tests.py", str(ready)], checkout, ready


def spinner(checkout: Path) -> tuple[list[str], Path, Path]:
    """A run_tests.py in ``checkout`` that keeps a CPU busy once up, and its ready file."""
    (checkout / "run_tests.py").write_text(SPIN_SCRIPT)
    ready = ready_dir(checkout) / "spinning"
    return [PYTHON, "run_tests.py", str(ready)], checkout, ready


def test_an_idle_foreign_run_costs_an_agent_no_words_on_a_quiet_box(shared_tmp):
    """The hook's answer to a test command next to an idle foreign run is silence."""
    here = make_checkout(shared_tmp, "mine")
    with_settings(here, QUIET_BOX)
    theirs = make_checkout(shared_tmp / "other", "mine")
    found = hook_in_own_pid_namespace([sleeper(theirs)], claude_test_command(here), cwd=here)
    (answer,) = found["replies"]
    assert (answer["code"], answer["stdout"], answer["stderr"]) == (0, "", "")


def test_idle_foreign_runs_on_a_busy_box_are_only_counted(shared_tmp):
    """On a busy box the note says so, counts the idle foreign runs, and names none of them."""
    here = make_checkout(shared_tmp, "mine")
    with_settings(
        here,
        "\n[tool.runctx]\nbusy-box-memory-available = 100\n"
        "busy-box-cpu-pressure = false\nbusy-box-load-per-cpu = false\n",
    )
    runs = [sleeper(make_checkout(shared_tmp / f"o{n}", "mine")) for n in range(3)]
    found = hook_in_own_pid_namespace(runs, claude_test_command(here), cwd=here)
    (answer,) = found["replies"]
    context = json.loads(answer["stdout"])["hookSpecificOutput"]["additionalContext"]
    assert len(context) <= NOTE_MAX_CHARS
    assert "Box busy: memory available" in context
    assert "+3 idle foreign test runs." in context
    assert not any(f"pid {pid}" in context for pid in found["pids"])


def test_a_cpu_busy_foreign_run_is_named_with_its_cpu_use_now(shared_tmp):
    """Next to a spinning foreign run, the hook's note names it and the CPUs it keeps busy."""
    here = make_checkout(shared_tmp, "mine")
    with_settings(here, QUIET_BOX + "busy-run-cpu = 0.01\n")
    theirs = make_checkout(shared_tmp / "other", "mine")
    found = hook_in_own_pid_namespace(
        [spinner(theirs)], claude_test_command(here), cwd=here, until="pid {0} (", tries=50
    )
    (pid,) = found["pids"]
    context = json.loads(found["replies"][-1]["stdout"])["hookSpecificOutput"]["additionalContext"]
    assert f"pid {pid} (run-tests-script, " in context
    assert re.search(rf"pid {pid} \([^)]*\): \d+\.\d CPUs busy now", context), context
    assert "not this checkout's" in context
    assert len(context) <= NOTE_MAX_CHARS


# --------------------------------------------------------------------------- on-busy-box

ALWAYS_BUSY_BOX = (
    "\n[tool.runctx]\n"
    "busy-box-memory-available = 100\n"  # less than all of it is always available
    "busy-box-cpu-pressure = false\n"
    "busy-box-load-per-cpu = false\n"
)


def test_a_busy_box_that_waits_makes_the_hook_refuse_and_say_how_to_wait(shared_tmp):
    """on-busy-box = "wait" on a busy box: the hook denies and points at runctx run --wait."""
    here = make_checkout(shared_tmp)
    with_settings(here, ALWAYS_BUSY_BOX + 'on-busy-box = "wait"\n')
    done = run_hook("claude", claude_test_command(here))
    output = reply(done)["hookSpecificOutput"]
    assert output["permissionDecision"] == "deny"
    reason = output["permissionDecisionReason"]
    assert reason.startswith("runctx: refused to start this test run. The box is busy (memory")
    assert "`runctx run --wait -- COMMAND`" in reason


def test_a_busy_box_warns_only_when_set_to_and_is_silent_by_default(shared_tmp):
    """With no other run, a busy box is a note under on-busy-box = "warn", and nothing when off."""
    warned = make_checkout(shared_tmp, "warned")
    with_settings(warned, ALWAYS_BUSY_BOX + 'on-busy-box = "warn"\n')
    found = hook_in_own_pid_namespace([], claude_test_command(warned), cwd=warned)
    context = json.loads(found["replies"][0]["stdout"])["hookSpecificOutput"]["additionalContext"]
    assert context.startswith("runctx: Box busy: memory available ")
    assert len(context) <= NOTE_MAX_CHARS
    off = make_checkout(shared_tmp, "off")
    with_settings(off, ALWAYS_BUSY_BOX)
    found = hook_in_own_pid_namespace([], claude_test_command(off), cwd=off)
    assert found["replies"][0]["stdout"] == ""


def runctx_run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``runctx run`` as a process, without the suite's runctx settings."""
    env = {k: v for k, v in clean_env().items() if not k.startswith("RUNCTX_")}
    return subprocess.run(
        [sys.executable, "-m", "runctx", "run", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def test_runctx_run_waits_for_room_and_gives_up_after_the_timeout(shared_tmp):
    """on-busy-box = "wait" on a box that stays busy: exit 75 after --timeout, nothing run."""
    here = make_checkout(shared_tmp)
    with_settings(here, ALWAYS_BUSY_BOX + 'on-busy-box = "wait"\n')
    (here / "run_tests.py").write_text("import pathlib\npathlib.Path('ran').touch()\n")
    began = time.monotonic()
    done = runctx_run("--timeout", "1", "--", PYTHON, "run_tests.py", cwd=here)
    assert time.monotonic() - began >= 1
    assert done.returncode == 75, done.stderr
    assert "runctx: waiting for room: memory available " in done.stderr
    assert "timed out after" in done.stderr
    assert "the box is still busy: memory available" in done.stderr
    assert not (here / "ran").exists()


def test_runctx_run_starts_at_once_when_the_box_is_not_busy(shared_tmp):
    """on-busy-box = "wait" with every box threshold off: the command runs, nothing waits."""
    here = make_checkout(shared_tmp)
    with_settings(here, QUIET_BOX + 'on-busy-box = "wait"\n')
    (here / "run_tests.py").write_text("import pathlib\npathlib.Path('ran').touch()\n")
    done = runctx_run("--timeout", "1", "--", PYTHON, "run_tests.py", cwd=here)
    assert done.returncode == 0, done.stderr
    assert "waiting for room" not in done.stderr
    assert (here / "ran").exists()


def fake_proc(path: Path, available_kib: int) -> None:
    """A directory with the box files a procfs source reads for the load (text only)."""
    (path / "pressure").mkdir(parents=True, exist_ok=True)
    (path / "loadavg").write_text("0.10 0.10 0.10 1/100 4242\n")
    (path / "pressure" / "cpu").write_text("some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n")
    (path / "meminfo").write_text(
        f"MemTotal:       1000000 kB\nMemAvailable:   {available_kib} kB\n"
    )


def test_a_wait_for_room_ends_once_the_box_is_under_its_thresholds(tmp_path):
    """The wait reads the box again at each poll and returns once memory is free again."""
    fake_proc(tmp_path, 50_000)
    freed = threading.Timer(0.5, fake_proc, (tmp_path, 600_000))
    freed.start()
    seen = []
    try:
        outcome = wait_for_room(
            BusyRules(memory_available=10, cpu_pressure=None, load_per_cpu=None),
            timeout=30,
            poll_seconds=0.05,
            on_change=seen.append,
            source=ProcfsSource(proc=str(tmp_path)),
        )
    finally:
        freed.join()
    assert outcome.ready
    assert outcome.waited_seconds >= 0.4
    assert [pressure.reasons for pressure in seen] == [("memory available 5% < 10%",), ()]


def test_a_pytest_session_waits_for_room_and_exits_75_when_it_does_not_come(shared_tmp):
    """The plugin under on-busy-box = "wait" says what it waits for; the timeout exits 75."""
    here = make_checkout(shared_tmp)
    with_settings(here, ALWAYS_BUSY_BOX + 'on-busy-box = "wait"\n')
    (here / "test_one.py").write_text(
        "import pathlib\ndef test_one():\n    (pathlib.Path(__file__).parent / 'ran').touch()\n"
    )
    env = {k: v for k, v in clean_env().items() if not k.startswith("RUNCTX_")}
    done = subprocess.run(
        [PYTHON, "-m", "pytest", "-p", "no:cacheprovider", "--runctx-timeout=1"],
        cwd=here,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert done.returncode == 75, done.stdout + done.stderr
    assert "runctx: waiting for room: memory available " in done.stdout
    assert "waiting for the box to be less busy (memory available" in done.stdout + done.stderr
    assert not (here / "ran").exists()


def test_a_refusal_leaves_contention_out_and_a_warning_keeps_it(shared_tmp):
    """Next to a run of this checkout, the deny says nothing of foreign load; a warning does."""
    mine = make_checkout(shared_tmp, "mine")
    ours = start_run_tests_script(mine)
    theirs = start_run_tests_script(make_checkout(shared_tmp, "theirs"))
    try:
        report = scan(viewpoint(cwd=str(mine)), cpu_window=0.1)
        alone = attrs.evolve(
            report, runs=tuple(j for j in report.runs if j.run.pid in {ours.pid, theirs.pid})
        )
        every_run_busy = BusyRules(run_cpu=0)
        refused = policy.decision_for(alone, policy.Mode.STOP, busy=every_run_busy)
        assert refused.action is policy.Action.STOP
        assert f"pid {ours.pid}" in refused.message
        assert "foreign test run" not in refused.message
        warned = policy.decision_for(alone, policy.Mode.WARN, busy=every_run_busy)
        assert warned.action is policy.Action.WARN
        assert f"pid {theirs.pid} (run-tests-script" in warned.message
    finally:
        ours.kill()
        theirs.kill()


def test_a_v1_cpu_quota_counts_too(tmp_path):
    """A v1 cpu hierarchy: cfs_quota_us over cfs_period_us, at each level up to the top."""
    level = tmp_path / "cpu,cpuacct" / "docker" / "ab"
    level.mkdir(parents=True)
    (level / "cpu.cfs_quota_us").write_bytes(b"50000\n")
    (level / "cpu.cfs_period_us").write_bytes(b"100000\n")
    (tmp_path / "cpu,cpuacct" / "cpu.cfs_quota_us").write_bytes(b"-1\n")
    (tmp_path / "cpu,cpuacct" / "cpu.cfs_period_us").write_bytes(b"100000\n")
    assert cgroup_cpu_quota(b"4:cpu,cpuacct:/docker/ab\n", str(tmp_path)) == 0.5


def test_the_psutil_source_reads_cpu_times_and_memory_like_procfs(shared_tmp):
    """Psutil gives the same CPU times (by identity) and the box's memory, through its own calls."""
    from runctx.sources.psutil import PsutilSource

    run = start_run_tests_script(make_checkout(shared_tmp))
    try:
        source = PsutilSource()
        identity = source.current_identity(run.pid)
        assert isinstance(identity, ProcIdentity)
        wrong = ProcIdentity(run.pid, identity.start + 1)
        found = source.cpu_times([identity, wrong])
        procfs = ProcfsSource().cpu_times([ProcfsSource().current_identity(run.pid)])
        assert found[identity] == next(iter(procfs.values()))
        assert isinstance(found[wrong], Unknown)
        memory = source.load().memory
        assert isinstance(memory, MemInfo)
        assert 0 < memory.available_bytes <= memory.total_bytes
    finally:
        run.kill()
