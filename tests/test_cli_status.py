"""``runctx status`` as a user types it: table, JSON contract, errors, logging."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
from envtools import live_run, make_venv, shared_worktrees
from hooktools import RUNCTX, hook_env, runctx
from nstools import without_proc
from proctools import make_checkout
from runfactory import clean_env

from runctx.cli.main import main
from runctx.cli.status import ROOT_LABELS
from runctx.present.openmetrics import RootLabel
from runctx.started_by import WANTED


def test_json_follows_the_contract(foreign_run):
    """--json has here, runs (with the required fields), load and visibility."""
    mine, theirs, run = foreign_run.mine, foreign_run.theirs, foreign_run.foreign
    result = runctx("status", "--json", cwd=mine)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert (report["here"]["root"], report["here"]["uid"]) == (str(mine), os.getuid())
    assert set(report) >= {"here", "runs", "load", "visibility"}
    runs = {entry["pid"]: entry for entry in report["runs"]}
    entry = runs[run.pid]
    required = {
        "pid",
        "kind",
        "argv",
        "root",
        "uid",
        "foreign",
        "reasons",
        "self",
        "members",
        "started",
    }
    assert required <= set(entry)
    assert entry["kind"] == "run-tests-script"
    assert entry["argv"][1] == "run_tests.py"
    assert entry["root"] == str(theirs)
    assert entry["uid"] == os.getuid()
    assert entry["foreign"] is True
    assert f"root {theirs} != {mine}" in entry["reasons"]
    assert entry["self"] is False
    assert entry["members"][0] == run.pid
    assert isinstance(entry["started"], float)
    assert report["load"]["usable_cpus"] >= 1
    assert "hidepid" in report["visibility"]


def test_status_shows_the_suite_as_this_run():
    """Started from inside the suite, status marks the suite's run as self."""
    result = runctx("status", "--json")
    report = json.loads(result.stdout)
    selves = [entry for entry in report["runs"] if entry["self"]]
    assert len(selves) == 1
    assert os.getpid() in selves[0]["members"]
    assert selves[0]["foreign"] is False


def test_the_table_groups_ours_and_foreign_with_reasons(foreign_run):
    """The text report lists the foreign run with its reason, the load and the limits."""
    mine, theirs, run = foreign_run.mine, foreign_run.theirs, foreign_run.foreign
    result = runctx("status", "-v", cwd=mine)
    assert result.returncode == 0, result.stderr
    text = result.stdout
    foreign_part = text[text.index("Foreign runs") :]
    assert str(run.pid) in foreign_part
    assert f"why: uid {os.getuid()} == {os.getuid()}; root {theirs} != {mine}" in foreign_part
    assert "usable CPUs" in text
    assert "Not seen:" in text
    assert "This run (the calling process" in text


def test_status_says_which_claude_code_session_started_a_run(shared_tmp, runs):
    """A run started from Claude Code's shell tool: its session in --json, short in the table."""
    checkout = make_checkout(shared_tmp)
    env = {k: v for k, v in clean_env().items() if k not in WANTED}
    env.update(CLAUDECODE="1", CLAUDE_CODE_SESSION_ID="a1b2c3d4-session")
    run = runs.run_tests_script(checkout, env=env)
    report = json.loads(runctx("status", "--json", cwd=checkout).stdout)
    entry = next(e for e in report["runs"] if e["pid"] == run.pid)
    assert entry["started_by"] == {
        "kind": "claude-code",
        "session": "a1b2c3d4-session",
        "detail": None,
    }
    assert "session_bytes" not in entry["started_by"]  # the text is exact
    table = runctx("status", cwd=checkout).stdout
    assert "STARTED BY" in table
    (row,) = (line for line in table.splitlines() if line.startswith(f"  {run.pid} "))
    assert "claude-code session a1b2c3d4…" in row


def test_status_json_says_how_busy_each_run_and_the_box_are(foreign_run):
    """--json: each run's CPU use now over the window, busy_now, the box's memory and verdict."""
    mine, run = foreign_run.mine, foreign_run.foreign
    report = json.loads(runctx("status", "--json", cwd=mine).stdout)
    assert isinstance(report["cpu_window_seconds"], float)
    entry = next(e for e in report["runs"] if e["pid"] == run.pid)
    assert entry["cpu_now"] == 0.0
    assert entry["busy_now"] is False
    memory = report["load"]["memory"]
    assert 0 < memory["available_bytes"] <= memory["total_bytes"]
    assert set(report["box"]) == {"busy", "reasons", "unknown"}
    box = report["box"]
    assert box["busy"] is (True if box["reasons"] else (None if box["unknown"] else False))


def test_root_and_uid_options_set_the_viewpoint(foreign_run):
    """--root and --uid move the viewpoint: the foreign run becomes ours."""
    theirs, run = foreign_run.theirs, foreign_run.foreign
    (theirs / "tests").mkdir(exist_ok=True)
    result = runctx("status", "--json", "--root", str(theirs / "tests"), "--uid", str(os.getuid()))
    report = json.loads(result.stdout)
    assert (report["here"]["root"], report["here"]["uid"]) == (str(theirs), os.getuid())
    entry = next(e for e in report["runs"] if e["pid"] == run.pid)
    assert entry["foreign"] is False
    assert entry["verdict"] == "ours"


@pytest.mark.parametrize(
    "args",
    [
        ["status", "--root", "/no/such/dir"],
        ["status", "--uid", "-3"],
        ["status", "--uid", "abc"],
        ["status", "--bogus"],
        ["nonsense"],
    ],
)
def test_usage_errors_exit_2_with_one_line(args):
    """Bad options exit 2 and say so in a single line on stderr."""
    result = runctx(*args)
    assert result.returncode == 2
    assert result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1
    assert result.stderr.startswith("runctx")


def test_verbose_says_why_each_run_got_its_verdict(foreign_run):
    """-v logs one verdict event per run, with its reasons, on stderr only."""
    mine, theirs, run = foreign_run.mine, foreign_run.theirs, foreign_run.foreign
    result = runctx("-v", "status", "--json", cwd=mine)
    assert result.returncode == 0
    json.loads(result.stdout)
    verdicts = [line for line in result.stderr.splitlines() if "runctx.verdict" in line]
    assert any(str(run.pid) in line and "foreign" in line for line in verdicts)
    assert any(f"root {theirs} != {mine}" in line for line in verdicts)


def test_log_json_writes_json_lines(foreign_run):
    """--log-json makes every stderr line a JSON event."""
    mine, run = foreign_run.mine, foreign_run.foreign
    result = runctx("-v", "--log-json", "status", "--json", cwd=mine)
    assert result.returncode == 0
    events = [json.loads(line) for line in result.stderr.splitlines()]
    assert {"runctx.verdict", "runctx.scan_finished"} <= {event["event"] for event in events}
    verdict = next(e for e in events if e["event"] == "runctx.verdict" and e["pid"] == run.pid)
    assert verdict["verdict"] == "foreign"


def test_log_json_alone_writes_the_verdicts(foreign_run):
    """--log-json without -v writes what -v shows, as JSON lines (not nothing)."""
    mine, run = foreign_run.mine, foreign_run.foreign
    result = runctx("--log-json", "status", "--json", cwd=mine)
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stderr.splitlines()]
    assert any(e["event"] == "runctx.verdict" and e["pid"] == run.pid for e in events)


def test_quiet_by_default(foreign_run):
    """Without -v nothing is logged."""
    mine = foreign_run.mine
    assert runctx("status", cwd=mine).stderr == ""


def test_main_can_be_called_in_process(capsys, foreign_run):
    """main() returns the exit status and prints the JSON report."""
    mine, run = foreign_run.mine, foreign_run.foreign
    assert main(["status", "--json", "--root", str(mine)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert run.pid in [entry["pid"] for entry in report["runs"]]


def test_status_answers_next_to_a_planted_fifo(planted_fifo):
    """In a directory under a planted FIFO pyproject.toml, status prints its report."""
    done = subprocess.run(
        [*RUNCTX, "status"],
        cwd=planted_fifo,
        capture_output=True,
        text=True,
        timeout=60,
        env=hook_env(),
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"Viewpoint: {planted_fifo} as ")


@pytest.mark.needs_root
@pytest.mark.parametrize("source", [[], ["--source", "procfs"], ["--source", "psutil"]])
def test_status_without_procfs_says_so_in_one_line(source):
    """With no /proc, status exits 1 with one line from either source; no traceback."""
    done = without_proc(sys.executable, "-m", "runctx", "status", *source)
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.startswith("runctx: error: no procfs is mounted at /proc"), done.stderr
    assert len(done.stderr.splitlines()) == 1, done.stderr


# -- environments ------------------------------------------------------------------------


@pytest.fixture
def two_worktrees_on_one_venv(tmp_path, runs):
    """Live runs in worktrees ``a`` and ``b`` on one venv, and one in ``c`` on its own venv."""
    tmp_path.chmod(0o755)
    shared = shared_worktrees(tmp_path)
    own = make_venv(tmp_path / "own")
    third = make_checkout(tmp_path, "c")
    return (
        shared,
        own,
        live_run(runs, shared.a, shared.venv),
        live_run(runs, shared.b, shared.venv),
        live_run(runs, third, own),
    )


@pytest.mark.parametrize("source", ["procfs", "psutil"])
def test_status_json_names_each_runs_environment_and_who_shares_it(
    two_worktrees_on_one_venv, source, monkeypatch
):
    """``environment`` of each Python run; runs of two checkouts on one venv name each other."""
    shared, own, in_a, in_b, in_c = two_worktrees_on_one_venv
    monkeypatch.setenv("RUNCTX_SOURCE", source)
    result = runctx("status", "--json", cwd=shared.b)
    assert result.returncode == 0, result.stderr
    runs = {entry["pid"]: entry for entry in json.loads(result.stdout)["runs"]}
    for run, venv in ((in_a, shared.venv), (in_b, shared.venv), (in_c, own)):
        environment = runs[run.pid]["environment"]
        assert environment["kind"] == "venv"
        assert environment["prefix"] == str(venv)
        found = venv.stat()
        assert environment["prefix_id"] == {"device": found.st_dev, "inode": found.st_ino}
        assert environment["found_by"] == "argv[0]"
    assert runs[in_a.pid]["shares_environment_with"] == [in_b.pid]
    assert runs[in_b.pid]["shares_environment_with"] == [in_a.pid]
    assert runs[in_c.pid]["shares_environment_with"] == []


def test_status_shows_the_environment_and_flags_the_sharing(two_worktrees_on_one_venv):
    """The table has an ENV column, and (-v) a line under each run that shares its environment."""
    shared, own, in_a, in_b, in_c = two_worktrees_on_one_venv
    result = runctx("status", "-v", cwd=shared.b)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert any(line.split()[:1] == ["PID"] and "ENV" in line.split() for line in lines)
    row_a = next(line for line in lines if line.strip().startswith(f"{in_a.pid} "))
    assert str(shared.venv) in row_a
    row_c = next(line for line in lines if line.strip().startswith(f"{in_c.pid} "))
    assert str(own) in row_c
    assert (
        f"      shares its environment {shared.venv} with pid {in_b.pid} of another checkout"
        in result.stdout
    )
    assert f"with pid {in_c.pid}" not in result.stdout


def test_a_run_without_python_or_node_has_no_environment(shared_tmp, runs):
    """``make test`` whose recipe runs no Python: ``environment`` null, and the reason beside it."""
    checkout = make_checkout(shared_tmp)
    ready = shared_tmp / "made"
    (checkout / "Makefile").write_text(f"test:\n\ttouch {ready}; sleep 300\n")
    make = shutil.which("make")
    assert make is not None, "make is needed for this test"
    run = runs.orphan(["make", "test"], checkout, executable=make, ready=ready)
    result = runctx("status", "--json", cwd=checkout)
    entry = next(e for e in json.loads(result.stdout)["runs"] if e["pid"] == run.pid)
    assert entry["environment"] is None
    assert entry["unknown"]["environment"]["unknown"] == "absent"
    assert entry["shares_environment_with"] == []


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (("--watch", "--json"), "takes no --format, --json or --output"),
        (("--count", "2"), "--count goes with --watch"),
        (("--interval", "2s"), "--interval goes with --watch"),
        (("--json", "--format", "openmetrics"), "ask for two formats"),
    ],
)
def test_options_that_do_not_go_together_are_a_usage_error(shared_tmp, options, said):
    """Exit 2 (a usage error, as argparse's own), one line naming the options; --json says so."""
    done = runctx("status", *options, cwd=shared_tmp)
    assert done.returncode == 2
    assert said in done.stderr or said in done.stdout
    if "--json" in options:
        error = json.loads(done.stdout)["error"]
        assert (error["kind"], error["exit_status"]) == ("usage", 2)
    else:
        assert done.stderr.startswith("runctx status: error: ")
        assert len(done.stderr.splitlines()) == 1


FACE_PROBE = """
import sys
from runctx.cli.main import main
status = main(sys.argv[1:])
sys.stderr.write("\\nMODULES " + " ".join(sorted(sys.modules)))
sys.exit(status)
"""


@pytest.mark.parametrize(
    ("argv", "imported", "left_out"),
    [
        (["--json"], "runctx.present.json", "runctx.present.openmetrics"),
        (["--format", "text"], "runctx.present.text", "runctx.present.openmetrics"),
        (["--format", "openmetrics"], "runctx.present.openmetrics", "runctx.present.text"),
    ],
)
def test_each_status_face_imports_its_own_renderer_alone(argv, imported, left_out):
    """The metrics renderer (it brings importlib.metadata) is imported for openmetrics alone.

    What ``status`` imports is paid before ``--timeout`` can be kept: on a
    saturated box the imports alone take seconds of wall time.
    """
    done = subprocess.run(
        [sys.executable, "-c", FACE_PROBE, "status", *argv, "--timeout", "0.1"],
        capture_output=True,
        text=True,
        env=clean_env(),
        check=False,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    modules = set(done.stderr.rpartition("\nMODULES ")[2].split())
    assert imported in modules
    assert left_out not in modules
    if left_out == "runctx.present.openmetrics":
        assert "importlib.metadata" not in modules


def test_status_names_every_root_label_the_metrics_know():
    """``--root-label``'s choices, named in the status module, are the metrics' labels."""
    assert tuple(label.value for label in RootLabel) == ROOT_LABELS
    assert RootLabel.HASH.value == ROOT_LABELS[0]  # the default
