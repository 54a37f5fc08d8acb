"""The runner table (``runners/table.py``) on real processes: real tools, read back from /proc.

Each test starts the real tool where it exists on this machine (node, npm,
cargo, make...) through the run factory, orphaned so that it does not fold
into the suite's own run, and checks what a scan and the hook make of it: the
hook's reading of a command and the scan's reading of ``/proc`` share the
table. Where a tool cannot be had the test skips (fails in CI); python runners are
installed once from the registry (``livetools.python_tools``).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from hooktools import claude_pre_tool_use, reply, run_hook
from livetools import (
    link_node_modules,
    python_tools,
    sandboxed_npm_test,
    start_npm_test,
    start_tool,
    write_node_tests,
    write_package_json,
)
from nstools import hook_in_own_pid_namespace
from proctools import is_live, make_checkout, name_every_foreign_run, wait_for
from require import require

from runctx.runners import BUILTIN_PATTERNS, RunnerMatch, detect_runner
from runctx.runners.comms import argv_filter
from runctx.scanning import scan, viewpoint
from runctx.sources.proctext import parse_cmdline


def _runs_with(report, pids):
    """The judged runs that hold any of ``pids`` as a member."""
    return [judged for judged in report.runs if set(judged.run.members) & set(pids)]


def test_npm_test_running_node_test_is_one_run_with_its_node_children(shared_tmp, runs):
    """A live ``npm test`` running ``node --test``: one run, npm on top, node as members."""
    checkout = make_checkout(shared_tmp)
    run = start_npm_test(runs, checkout)
    group = run.members()
    report = scan(viewpoint(cwd=str(checkout)))
    seen = _runs_with(report, group)
    assert len(seen) == 1, [(j.run.pid, j.run.kind, j.run.argv) for j in seen]
    found = seen[0].run
    assert found.pid == run.pid
    assert found.kind == "npm-test"
    assert set(found.members) == group
    assert len(group) >= 4  # npm, sh -c, node --test, one node per test file
    comm = Path(f"/proc/{run.pid}/comm").read_text().strip()
    assert comm == "npm test"  # the title npm gives itself is its comm too
    assert argv_filter(BUILTIN_PATTERNS)(comm)
    assert not seen[0].foreign
    assert found.root == str(checkout)


@pytest.mark.needs_root  # a pid namespace with its own /proc: no other run decides the note
def test_a_second_npm_test_is_denied_here_and_noted_as_foreign_elsewhere(shared_tmp, runs):
    """The hook denies ``npm test`` beside a live one of the checkout; elsewhere it notes it."""
    busy = make_checkout(shared_tmp / "a")
    idle = name_every_foreign_run(make_checkout(shared_tmp / "b"))
    here = hook_in_own_pid_namespace(
        runs, [sandboxed_npm_test(busy)], claude_pre_tool_use("npm test", busy), cwd=busy
    )
    (pid,) = here["pids"]
    output = _claude_output(here)
    assert output["permissionDecision"] == "deny"
    assert f"pid {pid} (npm-test" in output["permissionDecisionReason"]
    there = hook_in_own_pid_namespace(
        runs, [sandboxed_npm_test(busy)], claude_pre_tool_use("npm test", idle), cwd=idle
    )
    (pid,) = there["pids"]
    output = _claude_output(there)
    assert "permissionDecision" not in output
    assert f"pid {pid} (npm-test" in output["additionalContext"]
    assert "not this checkout's" in output["additionalContext"]


def _claude_output(found):
    """The hookSpecificOutput of the one answer a sandbox recorded."""
    (answer,) = found["replies"]
    assert answer["code"] == 0, answer
    return json.loads(answer["stdout"])["hookSpecificOutput"]


MOCHA_HOLDING_SPEC = """\
const fs = require('fs');
const path = require('path');
it('holds', async function () {
  this.timeout(0);
  fs.writeFileSync(path.join(process.env.RUNCTX_READY_DIR, 'up-' + process.pid), 'up');
  await new Promise(() => setInterval(() => {}, 1000));
});
"""

JEST_WORKER_PARENT = """\
const { Worker } = require('jest-worker');
const options = { numWorkers: 2, enableWorkerThreads: false };
const worker = new Worker(require.resolve('./hold.js'), options);
worker.hold('a');
worker.hold('b');
setInterval(() => {}, 1000);
"""

JEST_WORKER_TASK = """\
const fs = require('fs');
const path = require('path');
exports.hold = async () => {
  fs.writeFileSync(path.join(process.env.RUNCTX_READY_DIR, 'up-' + process.pid), 'up');
  await new Promise(() => setInterval(() => {}, 1000));
};
"""


def test_npx_mocha_in_parallel_is_one_run_under_npm_exec(shared_tmp, runs):
    """``npx mocha --parallel``: npm exec (a title) is the run; sh, mocha, workers are members."""
    checkout = make_checkout(shared_tmp)
    modules = link_node_modules(checkout)
    (checkout / "test").mkdir()
    for name in ("a", "b"):
        (checkout / "test" / f"{name}.spec.js").write_text(MOCHA_HOLDING_SPEC)
    run = start_tool(
        runs, checkout, ["npx", "mocha", "--parallel", "-j", "2", "test/*.spec.js"], holders=2
    )
    group = run.members()
    report = scan(viewpoint(cwd=str(checkout)))
    seen = _runs_with(report, group)
    assert len(seen) == 1, [(j.run.pid, j.run.kind, j.run.argv) for j in seen]
    found = seen[0].run
    assert (found.pid, found.kind) == (run.pid, "mocha")
    assert set(found.members) == group
    workers = [
        pid
        for pid in group
        if (modules / "mocha/lib/nodejs/worker.js").as_posix().encode()
        in Path(f"/proc/{pid}/cmdline").read_bytes()
    ]
    assert len(workers) == 2


def test_jest_30_workers_whose_parent_died_are_runs_of_their_own(shared_tmp, runs):
    """jest-worker's processChild.js outlives its parent: each worker is then a run."""
    checkout = make_checkout(shared_tmp)
    link_node_modules(checkout)
    (checkout / "parent.js").write_text(JEST_WORKER_PARENT)
    (checkout / "hold.js").write_text(JEST_WORKER_TASK)
    run = start_tool(runs, checkout, ["node", "parent.js"], holders=2)
    workers = run.members() - {run.pid}
    assert len(workers) == 2
    os.kill(run.pid, signal.SIGKILL)
    wait_for(lambda: not is_live(run.pid), what="the parent to die")
    report = scan(viewpoint(cwd=str(checkout)))
    for pid in workers:
        judged = [j for j in report.runs if j.run.pid == pid]
        assert [(j.run.kind, j.run.root) for j in judged] == [("jest-worker", str(checkout))]
        argv = judged[0].run.argv
        assert argv[-1].endswith("/jest-worker/build/processChild.js")


VITEST_HOLDING_TEST = """\
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'vitest';
test('holds', async () => {
  fs.writeFileSync(path.join(process.env.RUNCTX_READY_DIR, 'up-' + process.pid), 'up');
  await new Promise(() => setInterval(() => {}, 1000));
}, 0);
"""


def test_vitest_3_run_directly_is_one_run_though_it_writes_titles(shared_tmp, runs):
    """A direct vitest 3 titles itself ``node (vitest)``, workers ``node (vitest N)``: one run."""
    checkout = make_checkout(shared_tmp)
    modules = link_node_modules(checkout)
    write_package_json(checkout, {})
    (checkout / "test").mkdir()
    for name in ("a", "b"):
        (checkout / "test" / f"{name}.test.mjs").write_text(VITEST_HOLDING_TEST)
    vitest = str(modules / ".bin" / "vitest")
    run = start_tool(runs, checkout, [vitest, "run", "--pool=forks"], holders=1)
    group = run.members()
    titles = {pid: _cmdline(pid) for pid in group}
    assert titles[run.pid].startswith("node (vitest)\0")
    workers = [pid for pid, title in titles.items() if title.startswith("node (vitest ")]
    assert workers
    seen = _runs_with(scan(viewpoint(cwd=str(checkout))), group)
    assert [(j.run.pid, j.run.kind) for j in seen] == [(run.pid, "vitest")]
    assert set(seen[0].run.members) == group
    for pid in workers:
        argv = parse_cmdline(Path(f"/proc/{pid}/cmdline").read_bytes())
        assert detect_runner(argv) == RunnerMatch("vitest-worker", "worker")


CARGO_HOLDING_TEST = """\
#[test]
fn holds() {
    let dir = std::env::var("RUNCTX_READY_DIR").unwrap();
    std::fs::write(format!("{}/up-cargo", dir), "up").unwrap();
    std::thread::sleep(std::time::Duration::from_secs(300));
}
"""


def test_cargo_test_is_one_run_with_its_test_binary(shared_tmp, runs):
    """A live ``cargo test``: cargo is the run, the compiled test binary a member."""
    checkout = make_checkout(shared_tmp)
    (checkout / "Cargo.toml").write_text(
        '[package]\nname = "holds"\nversion = "0.1.0"\nedition = "2021"\n'
    )
    (checkout / "src").mkdir()
    (checkout / "src" / "lib.rs").write_text(CARGO_HOLDING_TEST)
    run = start_tool(runs, checkout, ["cargo", "test", "--offline", "-q"], holders=1)
    group = run.members()
    report = scan(viewpoint(cwd=str(checkout)))
    seen = _runs_with(report, group)
    assert [(j.run.pid, j.run.kind) for j in seen] == [(run.pid, "cargo-test")]
    assert set(seen[0].run.members) == group
    binaries = [pid for pid in group if "/target/debug/deps/holds-" in _cmdline(pid)]
    assert len(binaries) == 1


def _cmdline(pid: int) -> str:
    """The raw cmdline of ``pid``, or "" once it has exited."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return ""


def test_node_test_alone_is_a_run_with_its_file_processes(shared_tmp, runs):
    """``node --test``: node's own runner is the run, a node per test file its member."""
    checkout = make_checkout(shared_tmp)
    write_node_tests(checkout, 1)
    run = start_tool(runs, checkout, ["node", "--test"], holders=1)
    group = run.members()
    seen = _runs_with(scan(viewpoint(cwd=str(checkout))), group)
    assert [(j.run.pid, j.run.kind) for j in seen] == [(run.pid, "node-test")]
    assert set(seen[0].run.members) == group
    assert len(group) >= 2


@pytest.mark.parametrize(
    "argv",
    [["npx", "-c", "node --test"], ["npm", "exec", "--call", "node --test"]],
    ids=["npx-c", "npm-exec-call"],
)
def test_an_npm_exec_titled_over_its_command_is_the_top_of_the_run_below_it(shared_tmp, runs, argv):
    """A titled ``npm exec`` (``npx -c 'node --test'``) tops the run: sh and node are members."""
    checkout = make_checkout(shared_tmp)
    write_node_tests(checkout, 1)
    write_package_json(checkout, {})
    run = start_tool(runs, checkout, argv, holders=1)
    assert _cmdline(run.pid).rstrip("\0") == "npm exec"
    group = run.members()
    seen = _runs_with(scan(viewpoint(cwd=str(checkout))), group)
    assert [(j.run.pid, j.run.kind) for j in seen] == [(run.pid, "node-test")]
    assert set(seen[0].run.members) == group
    assert len(group) >= 4  # npm exec, sh -c, node --test, one node per test file


NODE_HOLDING_SCRIPT = """\
const fs = require("fs"), path = require("path");
fs.writeFileSync(path.join(process.env.RUNCTX_READY_DIR, "up-plain"), "");
setTimeout(() => {}, 300000);
"""


@pytest.mark.parametrize(
    "argv",
    [["npx", "-c", "node hold.js"], ["npx", "-c", "node hold.js; true"]],
    ids=["exec", "shell"],
)
def test_an_npm_exec_running_no_test_is_no_run(shared_tmp, runs, argv):
    """A titled ``npm exec`` whose command runs no test makes no run of it or of its children."""
    checkout = make_checkout(shared_tmp)
    write_package_json(checkout, {})
    (checkout / "hold.js").write_text(NODE_HOLDING_SCRIPT)
    run = start_tool(runs, checkout, argv, holders=1)
    assert _cmdline(run.pid).rstrip("\0") == "npm exec"
    group = run.members()
    assert len(group) >= 2
    assert _runs_with(scan(viewpoint(cwd=str(checkout))), group) == []


CMAKE_PROJECT = """\
cmake_minimum_required(VERSION 3.10)
project(holds NONE)
enable_testing()
add_test(NAME holds COMMAND ${PYTHON} ${CMAKE_SOURCE_DIR}/holds.py)
"""

CMAKE_HOLDING_TEST = """\
import os, pathlib, time
pathlib.Path(os.environ["RUNCTX_READY_DIR"], "up-ctest").touch()
time.sleep(300)
"""


def test_cmake_build_target_test_is_one_run_down_to_the_test(shared_tmp, runs):
    """``cmake --build build --target test``: cmake is the run; make, ctest, the test members."""
    checkout = make_checkout(shared_tmp)
    cmake = require("cmake")
    require("ctest")
    (checkout / "CMakeLists.txt").write_text(CMAKE_PROJECT)
    (checkout / "holds.py").write_text(CMAKE_HOLDING_TEST)
    subprocess.run(
        [cmake, "-S", ".", "-B", "build", f"-DPYTHON={sys.executable}"],
        cwd=checkout,
        check=True,
        capture_output=True,
    )
    run = start_tool(runs, checkout, ["cmake", "--build", "build", "--target", "test"], holders=1)
    group = run.members()
    seen = _runs_with(scan(viewpoint(cwd=str(checkout))), group)
    assert [(j.run.pid, j.run.kind) for j in seen] == [(run.pid, "ctest")]
    assert set(seen[0].run.members) == group
    assert any("ctest" in _cmdline(pid) for pid in group)


def test_npm_run_of_a_script_that_runs_node_test_is_one_run_under_npm(shared_tmp, runs):
    """``npm run unit`` running ``node --test``: npm's task is the run, live and for the hook."""
    checkout = make_checkout(shared_tmp)
    write_node_tests(checkout, 1)
    write_package_json(checkout, {"unit": "node --test", "build": "node -e 0"})
    run = start_tool(runs, checkout, ["npm", "run", "unit"], holders=1)
    group = run.members()
    seen = _runs_with(scan(viewpoint(cwd=str(checkout))), group)
    assert [(j.run.pid, j.run.kind) for j in seen] == [(run.pid, "npm-script")]
    assert set(seen[0].run.members) == group
    answer = reply(run_hook("claude", claude_pre_tool_use("npm run unit", checkout)))
    assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"
    build = run_hook("claude", claude_pre_tool_use("npm run build", checkout))
    assert (build.returncode, build.stdout) == (0, "")  # its script runs no tests


def test_make_of_a_target_whose_recipe_runs_a_runner_is_one_run_under_make(shared_tmp, runs):
    """``make ci`` whose recipe runs pytest: make's task is the run, pytest a member."""
    checkout = make_checkout(shared_tmp)
    (checkout / "holder.py").write_text(
        "import os, pathlib, time\n"
        "pathlib.Path(os.environ['RUNCTX_READY_DIR'], 'up-make').touch()\n"
        "time.sleep(300)\n"
    )
    (checkout / "pytest").write_text(
        f"#!{sys.executable}\nimport runpy\nrunpy.run_path('holder.py')\n"
    )
    (checkout / "pytest").chmod(0o755)
    (checkout / "Makefile").write_text("ci: lint\n\t./pytest -x\n\nlint:\n\ttrue\n")
    run = start_tool(runs, checkout, ["make", "ci"], holders=1)
    group = run.members()
    seen = _runs_with(scan(viewpoint(cwd=str(checkout))), group)
    assert [(j.run.pid, j.run.kind) for j in seen] == [(run.pid, "make-target")]
    assert set(seen[0].run.members) == group
    answer = reply(run_hook("claude", claude_pre_tool_use("make ci", checkout)))
    assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"


PERL_HOLDING_TEST = """\
open(my $ready, '>', "$ENV{RUNCTX_READY_DIR}/up-prove") or die;
close($ready);
sleep 300;
print "ok 1\\n";
"""


def test_prove_is_a_run_with_its_perl_test_as_member(shared_tmp, runs):
    """``prove t/`` (perl's runner): prove is the run, the perl test file its member."""
    checkout = make_checkout(shared_tmp)
    (checkout / "t").mkdir()
    (checkout / "t" / "hold.t").write_text(PERL_HOLDING_TEST)
    run = start_tool(runs, checkout, ["prove", "t/"], holders=1)
    group = run.members()
    seen = _runs_with(scan(viewpoint(cwd=str(checkout))), group)
    assert [(j.run.pid, j.run.kind) for j in seen] == [(run.pid, "perl-test")]
    assert set(seen[0].run.members) == group


def test_perl_running_a_test_file_is_a_run(shared_tmp, runs):
    """``perl -Ilib t/hold.t``, a test file run without prove: perl is the run."""
    checkout = make_checkout(shared_tmp)
    (checkout / "t").mkdir()
    (checkout / "lib").mkdir()
    (checkout / "t" / "hold.t").write_text(PERL_HOLDING_TEST)
    run = start_tool(runs, checkout, ["perl", "-Ilib", "t/hold.t"], holders=1)
    seen = _runs_with(scan(viewpoint(cwd=str(checkout))), run.members())
    assert [(j.run.pid, j.run.kind) for j in seen] == [(run.pid, "perl-test")]


BATS_HOLDING_TEST = """\
@test "holds" {
  touch "$RUNCTX_READY_DIR/up-bats"
  sleep 300
}
"""


def test_bats_is_one_run_down_to_its_test(shared_tmp, runs):
    """``bats test/`` (bash's runner, a bash script): bats is the run, its test shells members."""
    checkout = make_checkout(shared_tmp)
    modules = link_node_modules(checkout)
    (checkout / "test").mkdir()
    (checkout / "test" / "hold.bats").write_text(BATS_HOLDING_TEST)
    bats = str(modules / "bats" / "bin" / "bats")  # the package names it in ``directories``
    run = start_tool(runs, checkout, [bats, "test/"], holders=1)
    # the test touches its ready file before it starts ``sleep``: wait for the sleep
    wait_for(
        lambda: any(_cmdline(pid).startswith("sleep\x00300") for pid in run.members()),
        what="the bats test to start its sleep",
    )
    group = run.members()
    seen = _runs_with(scan(viewpoint(cwd=str(checkout))), group)
    assert [(j.run.pid, j.run.kind) for j in seen] == [(run.pid, "bats")]
    assert set(seen[0].run.members) == group
    assert any(_cmdline(pid).startswith("sleep\x00300") for pid in group)


# -- python runners, installed once from the registry ------------------------------------

UNITTEST_HOLDER = """\
import os, pathlib, time, unittest

class Holds(unittest.TestCase):
    def test_holds(self):
        pathlib.Path(os.environ["RUNCTX_READY_DIR"], "up-unittest").touch()
        time.sleep(300)
"""

BEHAVE_FEATURE = """\
Feature: holding
  Scenario: it holds
    Given the run holds
"""

BEHAVE_STEPS = """\
import os, pathlib, time
from behave import given

@given("the run holds")
def step_impl(context):
    pathlib.Path(os.environ["RUNCTX_READY_DIR"], "up-behave").touch()
    time.sleep(300)
"""

ROBOT_SUITE = """\
*** Settings ***
Library    OperatingSystem

*** Test Cases ***
Holds
    Create File    %{RUNCTX_READY_DIR}/up-robot    up
    Sleep    300s
"""

WARD_HOLDER = """\
import os, pathlib, time
from ward import test

@test("holds")
def _():
    pathlib.Path(os.environ["RUNCTX_READY_DIR"], "up-ward").touch()
    time.sleep(300)
"""


def _unittest_project(checkout):
    (checkout / "tests").mkdir()
    (checkout / "tests" / "__init__.py").write_text("")
    (checkout / "tests" / "test_hold.py").write_text(UNITTEST_HOLDER)


def _behave_project(checkout):
    (checkout / "features" / "steps").mkdir(parents=True)
    (checkout / "features" / "hold.feature").write_text(BEHAVE_FEATURE)
    (checkout / "features" / "steps" / "steps.py").write_text(BEHAVE_STEPS)


def _robot_project(checkout):
    (checkout / "hold.robot").write_text(ROBOT_SUITE)


def _ward_project(checkout):
    (checkout / "tests").mkdir()
    (checkout / "tests" / "test_hold.py").write_text(WARD_HOLDER)


CASES = [
    ("green", ["green", "-s", "1", "tests"], _unittest_project),
    ("nose2", ["nose2", "-s", "."], _unittest_project),
    (
        "unittest",
        ["python", "-m", "xmlrunner", "discover", "-s", "tests", "-o", "out"],
        _unittest_project,
    ),
    ("behave", ["behave"], _behave_project),
    ("robot", ["robot", "--outputdir", "out", "hold.robot"], _robot_project),
    ("ward", ["ward", "--path", "tests"], _ward_project),
]


@pytest.mark.parametrize(("kind", "argv", "project"), CASES, ids=[c[0] for c in CASES])
def test_a_python_runner_is_one_run_of_its_kind(shared_tmp, runs, kind, argv, project):
    """The installed runner, started for real, is one run of its kind with its test inside."""
    tools = python_tools()
    checkout = make_checkout(shared_tmp)
    project(checkout)
    argv = [str(tools / argv[0]), *argv[1:]]
    run = start_tool(runs, checkout, argv, holders=1, env={"PATH": f"{tools}:/usr/bin:/bin"})
    group = run.members()
    found = _runs_with(scan(viewpoint(cwd=str(checkout))), group)
    assert [(j.run.pid, j.run.kind) for j in found] == [(run.pid, kind)], [
        (j.run.pid, j.run.kind, j.run.argv) for j in found
    ]
    assert set(found[0].run.members) == group
