"""The refusal stands whatever shape a neighbour's processes or a checkout's files take.

Each shape once made a scan or the hook pay without bound (``make stress``
measures what each costs now): a deep chain of processes titled ``npm
exec``, runner processes with huge command lines, many mounts in another
mount namespace, a makefile whose variables expand into each other, a huge
``pyproject.toml``. Here each is kept alive, small, next to a live run of the
same checkout, and the test proves by outcome (never by time) that a second
test command there is still refused, and that what was read past a bound is
marked so. A bound made small makes a small case reach it.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import pytest
from fusehang import file_system_that_stops_answering
from hooktools import claude_pre_tool_use, copilot_pre_tool_use, hook_env, reply, run_hook
from nstools import require_tools
from proctools import (
    OTHER_UID,
    PYTHON,
    VIEWER_UID,
    interpreter_for,
    make_checkout,
    record_of,
    wait_for,
)
from runfactory import RUN_TESTS_SCRIPT, clean_env, ready_dir

from runctx import climb
from runctx.climb import CLIMBED_MAX, was_not_climbed
from runctx.exits import EXIT_ERROR, EXIT_INTERRUPTED
from runctx.fastpath.hook import DEADLINE_ENV
from runctx.fastpath.prefilter import SCANNED_CHARS
from runctx.fastpath.scripts import MAX_PROJECT_FILE_BYTES
from runctx.hooks.answer import OTHERS_ARGV_AT_MOST
from runctx.looking import HELD_AFTER_SECONDS
from runctx.records import ARGV_WORDS_MAX, CMDLINE_READ_MAX, argv_truncated
from runctx.scanning import FirstPass, scan, viewpoint
from runctx.shell.commands import MAX_STEPS
from runctx.sources import base as sources_base
from runctx.sources import procfs
from runctx.sources.procfs import ProcfsSource
from runctx.sources.psutil import PsutilSource
from runctx.unknown import NOT_READ

TEST_COMMAND = "python -m pytest -q"

CHAIN_SCRIPT = r"""
import ctypes, os, sys

depth, ready = int(sys.argv[1]), sys.argv[2]
libc = ctypes.CDLL(None)


def title(text):
    # as node's process.title does: the argv area rewritten, the name set
    stat = open("/proc/self/stat", "rb").read()
    fields = stat[stat.rfind(b")") + 2 :].split()
    start, end = int(fields[45]), int(fields[46])  # arg_start, arg_end
    with open("/proc/self/mem", "r+b", buffering=0) as mem:
        mem.seek(start)
        mem.write(text.encode().ljust(end - start, b"\0"))
    libc.prctl(15, text.encode(), 0, 0, 0)  # PR_SET_NAME


for _ in range(depth):
    child = os.fork()
    if child:
        title("npm exec")
        os.waitpid(child, 0)
        os._exit(0)
os.execv(sys.executable, [sys.executable, "run_tests.py", ready])
"""


def _refused(checkout: Path, command: str = TEST_COMMAND) -> str:
    """The reason the hook gives for refusing ``command`` in ``checkout`` (it must refuse)."""
    done = run_hook("claude", claude_pre_tool_use(command, checkout))
    output = reply(done)["hookSpecificOutput"]
    assert isinstance(output, dict)
    assert output["permissionDecision"] == "deny", output
    return str(output["permissionDecisionReason"])


def _live_run(runs, checkout: Path):
    """A live ``python run_tests.py`` of ``checkout``, orphaned: the run a second one meets."""
    return runs.run_tests_script(checkout)


def _cmdline(pid: int) -> bytes:
    with open(f"/proc/{pid}/cmdline", "rb") as stream:
        return stream.read()


# ----------------------------------------------------------------------------- a deep chain


def test_a_deep_chain_of_titled_wrappers_is_one_run_and_the_refusal_stands(shared_tmp, runs):
    """40 processes titled ``npm exec``, each the parent of the next, over one runner.

    Folding decides the wrappers from the bottom up: the whole chain is one
    run, led by its top, of the runner's kind; and the hook still refuses a
    second run of this checkout next to it.
    """
    checkout = make_checkout(shared_tmp, "proj")
    live = _live_run(runs, checkout)
    other = make_checkout(shared_tmp, "other")
    (other / "run_tests.py").write_text(RUN_TESTS_SCRIPT)
    ready = shared_tmp / "chain-ready"
    depth = 40
    chain = runs.orphan(
        [PYTHON, "-c", CHAIN_SCRIPT, str(depth), str(ready)], other, env=clean_env(), ready=ready
    )
    group = chain.members()
    assert len(group) == depth + 1

    def titled() -> int:
        return sum(_cmdline(pid).rstrip(b"\0") == b"npm exec" for pid in group)

    wait_for(lambda: titled() == depth, what=f"{depth} processes titled npm exec")
    report = scan(viewpoint(cwd=str(other)))
    seen = [judged.run for judged in report.runs if set(judged.run.members) & group]
    assert [(run.pid, run.kind) for run in seen] == [(chain.pid, "run-tests-script")]
    assert set(seen[0].members) == group
    assert live.pid in {judged.run.pid for judged in report.runs}
    assert f"pid {live.pid}" in _refused(checkout)


DEEP_CHAIN_SCRIPT = r"""
import os, sys

depth, ready, titled = int(sys.argv[1]), sys.argv[2], sys.argv[3]
# Each level forks the next, then becomes a cat titled "npm exec" (the title node's
# process.title gives npx) reading a pipe whose write end it holds itself: it waits,
# at the cost of a few pages, however deep the chain.
read_end, write_end = os.pipe()
os.dup2(read_end, 0)
os.set_inheritable(write_end, True)
for _ in range(depth):
    if os.fork():
        os.execv(titled, ["npm exec"])
os.execv(sys.executable, [sys.executable, "run_tests.py", ready])
"""

DEEP = 1500
"""A chain as deep as this makes anything quadratic in its depth cost seconds."""


def _own_chain_beside_a_live_run(shared_tmp: Path, runs, depth: int):
    """A live run of ``proj``, and this user's ``depth``-deep ``npm exec`` chain in ``other``.

    Returns the checkout, its live run, the other checkout and the chain.
    """
    checkout = make_checkout(shared_tmp, "proj")
    live = _live_run(runs, checkout)
    other = make_checkout(shared_tmp, "other")
    (other / "run_tests.py").write_text(RUN_TESTS_SCRIPT)
    cat = shutil.which("cat")
    assert cat, "the chain needs cat(1)"
    titled = other / "npm"
    titled.symlink_to(cat)
    ready = shared_tmp / f"chain-{depth}-ready"
    chain = runs.orphan(
        [PYTHON, "-c", DEEP_CHAIN_SCRIPT, str(depth), str(ready), str(titled)],
        other,
        env=clean_env(),
        ready=ready,
    )
    return checkout, live, other, chain


def test_a_chain_thousands_deep_is_one_run_and_the_refusal_stands(shared_tmp, runs):
    """1,500 processes titled ``npm exec``, each the parent of the next, over one runner.

    Of this user, so the first pass reads every one of them and folds them:
    the chain is one run of the runner's kind, led by its top, and the hook
    still refuses a second run of the checkout next to it (it never fails
    open for the chain's depth).
    """
    checkout, live, other, chain = _own_chain_beside_a_live_run(shared_tmp, runs, DEEP)
    group = chain.members()
    assert len(group) == DEEP + 1

    report = scan(viewpoint(cwd=str(other)))
    seen = [judged.run for judged in report.runs if set(judged.run.members) & group]
    assert [(run.pid, run.kind) for run in seen] == [(chain.pid, "run-tests-script")]
    assert set(seen[0].members) == group
    assert f"pid {live.pid}" in _refused(checkout)


class _ReadCountingSource(ProcfsSource):
    """The procfs source, counting its reads of ``status`` (a real uid) and of ``stat``."""

    def __init__(self) -> None:
        super().__init__()
        self.uid_reads = 0
        self.stat_read: set[int] = set()

    def read_uid(self, pid):
        self.uid_reads += 1
        return super().read_uid(pid)

    def _read(self, pid, now, argv_wanted=None):
        self.stat_read.add(pid)
        return super()._read(pid, now, argv_wanted)


@pytest.mark.needs_root
def test_a_first_pass_passes_the_viewers_own_processes_in_another_checkout(shared_tmp, runs):
    """Root's own 300-deep ``npm exec`` chain in another checkout: not read, not folded.

    No process of the viewer's own that works in another checkout is a run of
    this one: the first pass (the one that decides the refusal) tells their
    directory by three links and reads nothing else of them (no ``stat``, no
    command line, no ``status``), counts them as not examined, and still
    finds this checkout's live run. The full scan, made afterwards, folds the
    chain into one foreign run: it was the first pass's choice not to look.
    """
    depth = 300
    checkout, live, _other, chain = _own_chain_beside_a_live_run(shared_tmp, runs, depth)
    group = chain.members()
    assert len(group) == depth + 1

    source = _ReadCountingSource()
    first = scan(viewpoint(cwd=str(checkout)), source=source, essentials_only=True)
    assert not source.stat_read & group
    assert source.uid_reads <= 2 * len(first.runs) + 2 < depth
    assert not [judged for judged in first.runs if set(judged.run.members) & group]
    assert first.not_examined >= len(group)
    assert [judged.run.pid for judged in first.ours_known] == [live.pid]

    full = scan(viewpoint(cwd=str(checkout)))
    seen = [judged for judged in full.runs if set(judged.run.members) & group]
    assert [judged.run.pid for judged in seen] == [chain.pid]
    assert seen[0].foreign


@pytest.mark.needs_root
def test_past_its_directories_the_first_pass_reads_the_viewers_processes(
    shared_tmp, runs, monkeypatch
):
    """A first pass walks up from a bounded number of directories; past it, it reads.

    A user's processes each in a directory of its own would make each walk
    cost what reading the process does: past ``_VIEWS_WALKED_MAX``
    directories (here none), the viewer's processes are read and folded as
    a full scan reads them, and the chain elsewhere is one foreign run.
    """
    from runctx import scanning

    monkeypatch.setattr(scanning, "_VIEWS_WALKED_MAX", 0)
    checkout, live, _other, chain = _own_chain_beside_a_live_run(shared_tmp, runs, 30)
    group = chain.members()
    source = _ReadCountingSource()
    first = scan(viewpoint(cwd=str(checkout)), source=source, essentials_only=True)
    assert group <= source.stat_read
    seen = [judged for judged in first.runs if set(judged.run.members) & group]
    assert [judged.run.pid for judged in seen] == [chain.pid]
    assert seen[0].foreign
    assert [judged.run.pid for judged in first.ours_known] == [live.pid]


class _MovingSource(_ReadCountingSource):
    """Procfs, but the first process asked about seems to move between its two keys.

    Stands for a process that changes directory while the first pass walks
    up from its old one: the pass cannot tell where it works.
    """

    def __init__(self, moving: int) -> None:
        super().__init__()
        self.moving = moving
        self.asked = 0

    def view_key(self, pid):
        key = super().view_key(pid)
        if pid == self.moving and key is not None:
            self.asked += 1
            return (*key[:2], f"{key[2]}/moved-{self.asked}")
        return key


def test_a_process_that_moves_while_walked_is_read_and_nothing_is_kept(shared_tmp, runs):
    """A directory that changed under the walk says nothing: the process is read.

    The root found is not kept for its directory either, so the viewer's
    other processes there are judged by their own walk.
    """
    checkout = make_checkout(shared_tmp, "proj")
    elsewhere = make_checkout(shared_tmp, "elsewhere")
    moving = runs.run_tests_script(elsewhere)
    source = _MovingSource(moving.pid)
    first = scan(viewpoint(cwd=str(checkout)), source=source, essentials_only=True)
    assert moving.pid in source.stat_read
    assert source.asked == 2  # its key, and again after the walk
    assert [judged.run.pid for judged in first.runs if judged.run.pid == moving.pid] == [moving.pid]


MOVES_AWAY = """
import os, pathlib, sys, time
ready, elsewhere = sys.argv[1], sys.argv[2]
if os.fork() == 0:
    os.chdir(elsewhere)
    pathlib.Path(ready).touch()
    time.sleep(300)
    os._exit(0)
time.sleep(300)
"""
"""A runner whose child works in another directory (a worker that moved, a ``cd`` in a script)."""

STARTS_ONE_THERE = """
import os, sys, time
inner, ready, there = sys.argv[1], sys.argv[2], sys.argv[3]
if os.fork() == 0:
    os.chdir(there)
    os.execv(inner, [inner, ready])
time.sleep(300)
"""
"""A runner that starts another runner in another checkout: that one folds into it."""


def _named_pytest(directory: Path, script: str) -> Path:
    """``script`` as an executable named ``pytest`` in ``directory/bin``: a runner by its name."""
    path = directory / "bin" / "pytest"
    path.parent.mkdir(exist_ok=True)
    path.write_text(f"#!{sys.executable}\n{script}")
    path.chmod(0o755)
    return path


def _runs_holding(report, pids):
    return {
        judged.run.pid: (set(judged.run.members), judged.foreign)
        for judged in report.runs
        if set(judged.run.members) & pids
    }


def _two_processes(runs, argv, cwd: Path, ready: Path):
    """``argv`` started orphaned in ``cwd``, once it made ``ready``: it and its one child."""
    started = runs.orphan(argv, cwd, env=clean_env(), ready=ready)
    group = started.members()
    assert len(group) == 2
    return started, group


def _first_pass_and_full_scan(checkout: Path, group: set[int]):
    """A first pass from ``checkout``, and the runs holding ``group`` in it and in a full scan."""
    here = viewpoint(cwd=str(checkout))
    first = scan(here, essentials_only=True)
    return first, _runs_holding(first, group), _runs_holding(scan(here), group)


@pytest.mark.parametrize(
    "passed_read_per_walked",
    [pytest.param(0, id="walked-down"), pytest.param(10**9, id="parents-read")],
)
def test_a_run_here_keeps_its_member_that_works_in_another_checkout(
    shared_tmp, runs, monkeypatch, passed_read_per_walked
):
    """A member of this checkout's run may work elsewhere: the first pass still counts it.

    The first pass passes the viewer's processes in other checkouts unread,
    then reads every descendant of a run it found: the run has the members
    a full scan gives it. Found both ways: going down from the run's
    processes, and reading the parent of each passed process.
    """
    monkeypatch.setattr(sources_base, "PASSED_READ_PER_WALKED", passed_read_per_walked)
    checkout = make_checkout(shared_tmp, "proj")
    elsewhere = make_checkout(shared_tmp, "elsewhere")
    ready = shared_tmp / "moved-ready"
    argv = [str(_named_pytest(checkout, MOVES_AWAY)), str(ready), str(elsewhere)]
    runner, group = _two_processes(runs, argv, checkout, ready)
    first, seen_first, seen_full = _first_pass_and_full_scan(checkout, group)
    assert seen_first == seen_full == {runner.pid: (group, False)}
    assert [judged.run.pid for judged in first.ours_known] == [runner.pid]


def test_a_runner_here_started_by_a_run_elsewhere_folds_into_that_run(shared_tmp, runs):
    """A runner working here, started by a runner of another checkout, is that run's: foreign.

    Its parent works elsewhere and is passed unread by the first pass; read
    as the ancestor of a process the pass did read, it makes the runner
    here a member of its run, as in a full scan: nothing here is refused.
    """
    checkout = make_checkout(shared_tmp, "proj")
    elsewhere = make_checkout(shared_tmp, "elsewhere")
    inner = _named_pytest(checkout, RUN_TESTS_SCRIPT)
    ready = shared_tmp / "started-ready"
    argv = [str(_named_pytest(elsewhere, STARTS_ONE_THERE)), str(inner), str(ready), str(checkout)]
    outer, group = _two_processes(runs, argv, elsewhere, ready)
    first, seen_first, seen_full = _first_pass_and_full_scan(checkout, group)
    assert seen_first == seen_full == {outer.pid: (group, True)}
    assert not first.ours_known


LISTED = "listed "
"""How the audit notes a directory listed (``listed /proc``) among the files opened."""

AUDITED_HOOK = """
import json, os, sys, tempfile
# One line a file, written as it is opened: the hook's scan runs in a child it forks.
log = tempfile.TemporaryFile()
note = lambda text: os.write(log.fileno(), (text + "\\n").encode("utf-8", "surrogateescape"))
sys.addaudithook(
    lambda event, args: note(str(args[0]))
    if event == "open" and str(args[0]).startswith("/proc/")
    else note("listed " + str(args[0]))
    if event in ("os.listdir", "os.scandir") and str(args[0]).startswith("/proc")
    else None
)
from runctx.fastpath.hook import main
main(["claude"])
log.seek(0)
opened = log.read().decode("utf-8", "surrogateescape").splitlines()
sys.stderr.write("\\nAUDIT " + json.dumps(opened))
"""


def _audited_hook(checkout: Path, command: str = TEST_COMMAND) -> tuple[dict, list[str]]:
    """The hook's reply to ``command`` in ``checkout`` ({} if none) and the /proc files it opened.

    And the directories of ``/proc`` it listed, each as :data:`LISTED` and its path.

    Counted by an audit hook in the real hook process; the hook's deadline
    is made long, so that its optional pass is not dropped on a loaded box.
    """
    payload = json.dumps(claude_pre_tool_use(command, checkout)).encode()
    done = subprocess.run(
        [sys.executable, "-c", AUDITED_HOOK],
        input=payload,
        capture_output=True,
        env=hook_env(**{DEADLINE_ENV: "120"}),
        check=True,
        timeout=120,
    )
    opened = json.loads(done.stderr.decode().rpartition("\nAUDIT ")[2])
    reply = json.loads(done.stdout.decode()) if done.stdout.strip() else {}  # silent: no reply
    return reply.get("hookSpecificOutput", {}), opened


def _opened(opened: list[str], pids: set[int], name: str) -> Counter[int]:
    """How many times ``/proc/PID/name`` was opened, for each of ``pids``."""
    return Counter(
        int(path.split("/")[2])
        for path in opened
        if path.endswith(f"/{name}")
        and path.split("/")[2].isdigit()
        and int(path.split("/")[2]) in pids
    )


def test_a_refusal_reads_nothing_of_this_users_processes_in_another_checkout(shared_tmp, runs):
    """Beside this user's 300-deep chain in another checkout, a refusal reads none of it.

    The first pass (it decides the refusal) tells the directory of each of
    the viewer's processes by its links and passes those of other
    checkouts unread; the optional pass after a hold takes the runs the
    first pass found. Here the hook refuses, its optional pass ran (it read
    the live run's cgroup, which only that pass reads), and no process of
    the chain had its command line or its ``stat`` read. When the first
    pass read every process of the viewer's uid, each was read once; when
    the optional pass read them again, each command line twice and each
    ``stat`` three times.
    """
    depth = 300
    checkout, live, _other, chain = _own_chain_beside_a_live_run(shared_tmp, runs, depth)
    group = chain.members()
    assert len(group) == depth + 1

    output, opened = _audited_hook(checkout)
    assert output["permissionDecision"] == "deny", output
    assert f"pid {live.pid}" in output["permissionDecisionReason"]
    assert f"/proc/{live.pid}/cgroup" in opened  # the optional pass ran
    assert f"/proc/{live.pid}/cmdline" in opened  # the audit sees what is read
    assert not _opened(opened, group, "cmdline")
    assert not _opened(opened, group, "stat")


class _ListingSource(ProcfsSource):
    """The procfs source, counting the times it lists ``/proc``."""

    def __init__(self) -> None:
        super().__init__()
        self.listed = 0

    def _pids(self) -> list[int]:
        self.listed += 1
        return super()._pids()


def test_only_a_pass_reading_what_the_first_read_takes_its_runs(shared_tmp, runs):
    """``first_pass``: the runs a whole first pass found, taken by a pass that reads the same.

    A pass that reads of other users' processes what the first pass read
    (``others_argv_at_most=0``) lists no process and finds the same runs,
    each with its optional facts read (who started it) and the count of
    processes passed over; a pass that reads more of them (a go-ahead's)
    lists ``/proc`` itself; a first pass cut by its deadline keeps nothing.
    """
    checkout = make_checkout(shared_tmp, "proj")
    live = _live_run(runs, checkout)
    here = viewpoint(cwd=str(checkout))
    source, found = _ListingSource(), FirstPass()
    first = scan(here, source=source, essentials_only=True, first_pass=found)
    assert source.listed == 1
    after_hold = scan(here, source=source, others_argv_at_most=0, first_pass=found)
    assert source.listed == 1
    assert [judged.run.pid for judged in after_hold.runs] == [
        judged.run.pid for judged in first.runs
    ]
    assert after_hold.not_examined == first.not_examined
    (before,) = [judged.run for judged in first.runs if judged.run.pid == live.pid]
    (after,) = [judged.run for judged in after_hold.runs if judged.run.pid == live.pid]
    assert before.started_by == NOT_READ
    assert after.started_by != NOT_READ
    scan(here, source=source, others_argv_at_most=OTHERS_ARGV_AT_MOST, first_pass=found)
    assert source.listed == 2
    cut = FirstPass()
    scan(here, source=source, essentials_only=True, first_pass=cut, deadline=time.monotonic())
    assert cut.taken(here) is None
    assert found.taken(here) is not None


def test_a_holds_optional_pass_takes_the_runs_the_first_pass_found(shared_tmp, runs):
    """After a hold, ``/proc`` is listed once per hook call: the optional pass takes the runs.

    A hold's optional pass reads of other users' processes what the first
    pass read, so it finds the same runs: it takes them (and the table they
    were folded from) from the first pass, and reads again only what is
    optional of each run (its owner, with its cgroup, which only that pass
    reads). Here beside this user's 300-deep chain in another checkout and a
    live run of this one: ``/proc`` listed once, the live run read, and
    nothing of the chain. When that pass listed ``/proc`` and went over every process
    again, ``/proc`` was listed twice.
    """
    checkout, live, _other, chain = _own_chain_beside_a_live_run(shared_tmp, runs, 300)
    output, opened = _audited_hook(checkout)
    assert output["permissionDecision"] == "deny", output
    assert f"/proc/{live.pid}/cgroup" in opened  # the optional pass ran
    assert opened.count(LISTED + "/proc") == 1, [p for p in opened if p.startswith(LISTED)]
    assert _opened(opened, {live.pid}, "stat")
    assert not _opened(opened, chain.members(), "stat")
    assert f"/proc/{chain.pid}/cgroup" not in opened


# ---------------------------------------------------------------------------- another user's shapes


def _others_chain(runs, checkout: Path, depth: int):
    """A chain of ``depth`` processes titled ``npm exec`` over ``run_tests.py``, as ``OTHER_UID``.

    It works in ``checkout`` itself: the hostile shape, in the very tree the
    shared-tree question is about. Returns the chain and its live pids.
    """
    (checkout / "run_tests.py").write_text(RUN_TESTS_SCRIPT)
    (checkout / "run_tests.py").chmod(0o644)
    ready = ready_dir(checkout) / f"chain-{depth}"
    chain = runs.orphan(
        [PYTHON, "-c", CHAIN_SCRIPT, str(depth), str(ready)],
        checkout,
        uid=OTHER_UID,
        env=clean_env(),
        ready=ready,
    )
    group = chain.members()
    assert len(group) == depth + 1
    wait_for(
        lambda: sum(_cmdline(pid).rstrip(b"\0") == b"npm exec" for pid in group) == depth,
        what=f"{depth} processes titled npm exec",
    )
    return chain, group


@pytest.mark.needs_root
def test_another_users_hostile_chain_is_not_looked_into_before_the_refusal(shared_tmp, runs):
    """Another uid's chain of titled wrappers in this very checkout, which it cannot write.

    A process of another uid is never ours: the first pass (the one that
    decides the refusal) neither reads its command line nor folds it, since
    its user cannot write this root-owned 0755 checkout (so it shares
    nothing). The refusal of a duplicate run stands, and names our run; the
    full scan, made afterwards, does see the chain, as a foreign run sharing
    nothing: it was the first pass's choice not to look, not a blind spot.
    """
    checkout = make_checkout(shared_tmp, "proj")
    live = _live_run(runs, checkout)
    chain, group = _others_chain(runs, checkout, 30)
    here = viewpoint(cwd=str(checkout))

    first = scan(here, essentials_only=True)
    assert not [judged for judged in first.runs if set(judged.run.members) & group]
    assert first.not_examined >= len(group)  # each passed by its uid alone, not read
    assert [judged.run.pid for judged in first.ours_known] == [live.pid]

    full = scan(here)
    seen = [judged for judged in full.runs if set(judged.run.members) & group]
    assert [judged.run.pid for judged in seen] == [chain.pid]
    assert seen[0].foreign
    assert not seen[0].shares_tree
    assert f"uid {OTHER_UID} cannot write this checkout: it shares nothing" in (
        seen[0].judgement.reasons
    )
    assert full.not_examined == 0

    assert f"pid {live.pid}" in _refused(checkout)


class _ChildrenListingSource(ProcfsSource):
    """The procfs source, noting each process whose children it listed."""

    def __init__(self) -> None:
        super().__init__()
        self.children_listed: set[int] = set()

    def _children(self, pid):
        self.children_listed.add(pid)
        return super()._children(pid)


@pytest.mark.needs_root
def test_another_users_run_in_a_tree_it_can_write_is_the_one_thing_looked_into(shared_tmp, runs):
    """The shared-tree question is the one the first pass asks of another uid's processes.

    The checkout is made writable for that uid: its chain there is looked
    into, folded into one run that shares the tree, and the duplicate is
    refused for it (``on-shared-tree`` stops by default), while the same
    shape of that uid in another checkout is passed unread. Its run's
    children are not listed: only the viewer's own processes are gone down
    from to find the viewer's processes that the pass set aside elsewhere.
    """
    checkout = make_checkout(shared_tmp, "proj")
    checkout.chmod(0o777)
    elsewhere = make_checkout(shared_tmp, "elsewhere")
    chain, group = _others_chain(runs, checkout, 12)
    _far, far_group = _others_chain(runs, elsewhere, 12)
    runs.run_tests_script(elsewhere)  # the viewer's own elsewhere, set aside by the pass
    live = _live_run(runs, checkout)  # the viewer's own here: the pass goes down from it

    source = _ChildrenListingSource()
    first = scan(viewpoint(cwd=str(checkout)), source=source, essentials_only=True)
    assert not source.children_listed & group
    sharing = [judged for judged in first.runs if set(judged.run.members) & group]
    assert [judged.run.pid for judged in sharing] == [chain.pid]
    assert sharing[0].shares_tree
    assert set(sharing[0].run.members) == group
    assert not [judged for judged in first.runs if set(judged.run.members) & far_group]
    assert first.not_examined >= len(far_group)
    assert [judged.run.pid for judged in first.ours] == [live.pid]
    assert live.pid in source.children_listed

    reason = _refused(checkout)
    assert f"pid {chain.pid}" in reason


class _CountingSource(ProcfsSource):
    """The procfs source, noting each process whose command line it read."""

    def __init__(self) -> None:
        super().__init__()
        self.argv_read: list[int] = []

    def _read(self, pid, now, argv_wanted=None):
        record = super()._read(pid, now, argv_wanted)
        if getattr(record, "argv", None).__class__ is tuple:
            self.argv_read.append(pid)
        return record


@pytest.mark.needs_root
def test_a_bounded_pass_reads_a_fixed_share_of_other_users_processes(shared_tmp, runs):
    """``others_argv_at_most``: past that many of other users' command lines, none is read.

    A hook's optional pass names at most a few busy foreign runs: beside a
    storm of another user's runners it reads a fixed share of them, not all.
    Here 5 runners of another uid elsewhere: a pass bounded to 2 reads at
    most 2 of their command lines, finds at most 2 of them, and counts the
    rest as not examined, while this checkout's own live run is read and
    judged as ever; unbounded, every one is read and is a foreign run.
    """
    checkout = make_checkout(shared_tmp, "proj")
    live = _live_run(runs, checkout)
    elsewhere = make_checkout(shared_tmp, "elsewhere")
    theirs = {runs.run_tests_script(elsewhere, uid=OTHER_UID).pid for _ in range(5)}
    here = viewpoint(cwd=str(checkout))

    bounded = _CountingSource()
    report = scan(here, source=bounded, others_argv_at_most=2)
    assert len(set(bounded.argv_read) & theirs) <= 2
    assert len({judged.run.pid for judged in report.runs} & theirs) <= 2
    assert report.not_examined >= 3
    assert [judged.run.pid for judged in report.ours_known] == [live.pid]

    unbounded = _CountingSource()
    report = scan(here, source=unbounded)
    assert theirs <= set(unbounded.argv_read)
    seen = [judged for judged in report.runs if judged.run.pid in theirs]
    assert len(seen) == len(theirs)
    assert all(judged.foreign for judged in seen)
    assert report.not_examined == 0


MANY_SCRIPT = r"""
import os, signal, sys

count, ready, titled = int(sys.argv[1]), sys.argv[2], sys.argv[3]
# Each child becomes a cat named pytest reading a pipe whose write end it holds itself.
read_end, write_end = os.pipe()
os.dup2(read_end, 0)
os.set_inheritable(write_end, True)
for _ in range(count):
    if not os.fork():
        os.execv(titled, ["pytest"])
open(ready, "w").close()
signal.pause()
"""


def _other_users_command_lines(opened: list[str]) -> int:
    """How many of the command lines opened are of a live process of another uid than this one.

    Counted over every process of the box, not only the test's: another
    user's processes elsewhere on the box share the same bound.
    """
    named = (path.split("/") for path in opened if path.endswith("/cmdline"))
    pids = {int(parts[2]) for parts in named if len(parts) == 4 and parts[2].isdigit()}
    others = 0
    for pid in pids:
        try:
            others += os.stat(f"/proc/{pid}").st_uid != os.getuid()
        except FileNotFoundError:  # ended since: its owner is not known now
            continue
    return others


def _many_of_another_user(runs, elsewhere: Path) -> set[int]:
    """30 more than the bound of processes named ``pytest`` of another uid in ``elsewhere``."""
    cat = shutil.which("cat")
    assert cat, "the processes need cat(1)"
    titled = elsewhere / "pytest"
    titled.symlink_to(cat)
    count = OTHERS_ARGV_AT_MOST + 30
    ready = ready_dir(elsewhere) / "many"
    many = runs.orphan(
        [PYTHON, "-c", MANY_SCRIPT, str(count), str(ready), str(titled)],
        elsewhere,
        uid=OTHER_UID,
        env=clean_env(),
        ready=ready,
    )
    theirs = many.members() - {many.pid}
    assert len(theirs) == count

    def named() -> int:
        return sum(_cmdline(pid) == b"pytest\0" for pid in theirs)

    wait_for(lambda: named() == count, what=f"{count} processes named pytest")
    return theirs


@pytest.mark.needs_root
def test_the_hooks_optional_pass_reads_at_most_its_bound_of_other_users_processes(shared_tmp, runs):
    """The hook passes its bound (``OTHERS_ARGV_AT_MOST``) into its optional pass's scan.

    Beside 30 more than that many processes named ``pytest`` of another uid
    in another checkout, a test command in a checkout with no live run: the
    hook lets it through with its optional pass (the first reads none of
    their command lines), which read some of other users' command lines,
    and at most the bound of those idle ones (a process running now is read
    past the bound: none of these is). Counted by an audit hook in the real
    hook process.
    """
    calm = make_checkout(shared_tmp, "calm")
    idle = _many_of_another_user(runs, make_checkout(shared_tmp, "elsewhere"))
    output, opened = _audited_hook(calm)
    assert output.get("permissionDecision") != "deny", output
    assert _other_users_command_lines(opened) > 0
    assert sum(_opened(opened, idle, "cmdline").values()) <= OTHERS_ARGV_AT_MOST


@pytest.mark.needs_root
def test_a_warning_names_another_users_run_here_past_the_bound_of_their_processes(shared_tmp, runs):
    """``on-shared-tree = "warn"``: the go-ahead names that user's run here, however many they run.

    The optional pass reads at most its bound of other users' command lines
    (:data:`OTHERS_ARGV_AT_MOST`): here that user has 30 more than that many
    processes named ``pytest`` elsewhere, started first. Their run in this
    very checkout, which they can write, is asked about apart from the bound,
    as a first pass asks when the mode holds: else the warning the mode is
    for was lost to a storm of that user's processes.
    """
    _many_of_another_user(runs, make_checkout(shared_tmp, "elsewhere"))
    checkout = make_checkout(shared_tmp, "proj")
    checkout.chmod(0o777)
    (checkout / "pyproject.toml").write_text('[tool.runctx]\non-shared-tree = "warn"\n')
    theirs = runs.run_tests_script(checkout, uid=OTHER_UID)
    output, _opened = _audited_hook(checkout)
    assert "permissionDecision" not in output, output
    context = output["additionalContext"]
    assert "another user" in context, context
    assert f"pid {theirs.pid} (run-tests-script" in context


SLEEPING_RUNNER = """
import os, pathlib, signal, sys
if os.fork() == 0:
    pathlib.Path(sys.argv[1]).touch()
    while True:
        pass
signal.pause()
"""
"""A ``run_tests.py`` that waits while its one worker (a fork) keeps a CPU busy."""


PID_WRAP_TRIES = 3
"""Scenes made until the busy run's pids come after the idle ones' (the kernel reuses pids)."""


def _busy_run_of_another_user(runs, checkout: Path):
    """That user's run whose runner waits while its worker spins: the run and the worker's pid."""
    (checkout / "run_tests.py").write_text(SLEEPING_RUNNER)
    ready = ready_dir(checkout) / "worker"
    job = runs.orphan(
        [interpreter_for(OTHER_UID), "run_tests.py", str(ready)],
        checkout,
        uid=OTHER_UID,
        env=clean_env(),
        ready=ready,
    )
    (worker,) = job.members() - {job.pid}
    return job, worker


@pytest.mark.needs_root
@pytest.mark.parametrize("source_class", [ProcfsSource, PsutilSource], ids=["procfs", "psutil"])
def test_a_bounded_pass_reads_another_users_busy_run_behind_their_idle_ones(
    shared_tmp, runs, source_class
):
    """Past its bound of other users' command lines, a pass still reads what runs now.

    That user started 30 more than the bound of idle processes named
    ``pytest`` first, then a run whose runner waits while its worker spins:
    both are listed after the idle ones. The go-ahead's pass (bound
    :data:`OTHERS_ARGV_AT_MOST`) reads the running worker, and the runner
    above it that it had passed, so the busy run is named by its runner with
    its worker in it; the idle ones past the bound are not examined.
    """
    for attempt in range(PID_WRAP_TRIES):  # pids may wrap between the two (pid_max 32768)
        idle = _many_of_another_user(runs, make_checkout(shared_tmp / str(attempt), "elsewhere"))
        job, worker = _busy_run_of_another_user(
            runs, make_checkout(shared_tmp / str(attempt), "ci")
        )
        if min(job.pid, worker) > max(idle):
            break
    else:
        pytest.fail(f"pids wrapped in each of {PID_WRAP_TRIES} tries: the run is not listed last")
    calm = make_checkout(shared_tmp, "calm")
    report = scan(
        viewpoint(cwd=str(calm)),
        source=source_class(),
        others_argv_at_most=OTHERS_ARGV_AT_MOST,
    )
    found = {judged.run.pid: judged.run for judged in report.foreign}
    assert job.pid in found, sorted(found)
    assert worker in found[job.pid].members
    assert worker not in found  # folded into its runner, not a run of its own
    assert report.not_examined >= len(idle) - OTHERS_ARGV_AT_MOST


@pytest.mark.needs_root
def test_a_refusal_reads_no_other_users_process(shared_tmp, runs):
    """A hold never names foreign runs: its optional pass reads none of another user's.

    The same processes of another uid, and a busy run of theirs, and a live
    run of this checkout: the hook refuses, its optional pass ran (it read
    the live run's cgroup, which only that pass reads), and read none of
    their command lines, nor the state of their running worker.
    """
    checkout = make_checkout(shared_tmp, "proj")
    live = _live_run(runs, checkout)
    _many_of_another_user(runs, make_checkout(shared_tmp, "elsewhere"))
    _job, worker = _busy_run_of_another_user(runs, make_checkout(shared_tmp, "ci"))
    output, opened = _audited_hook(checkout)
    assert output["permissionDecision"] == "deny", output
    assert f"pid {live.pid}" in output["permissionDecisionReason"]
    assert f"/proc/{live.pid}/cgroup" in opened  # the optional pass ran
    assert _other_users_command_lines(opened) == 0
    assert f"/proc/{worker}/stat" not in opened


# ----------------------------------------------------------------------------- huge command lines


def _status(checkout: Path, *options: str) -> str:
    """What ``runctx status OPTIONS`` prints in ``checkout`` (it must succeed)."""
    return subprocess.run(
        [sys.executable, "-m", "runctx", "status", *options],
        capture_output=True,
        cwd=checkout,
        env=clean_env(),
        text=True,
        check=True,
    ).stdout


def _runner_with_long_argv(runs, checkout: Path, words: int, size: int):
    """A live ``python run_tests.py`` of ``checkout`` whose argv goes on for ``words`` words."""
    (checkout / "run_tests.py").write_text(RUN_TESTS_SCRIPT)
    ready = checkout.parent / f"{checkout.name}-ready"
    extra = [f"{n:06d}" + "x" * (size - 6) for n in range(words)]
    argv = [PYTHON, "run_tests.py", str(ready), *extra]
    return runs.orphan(argv, checkout, env=clean_env(), ready=ready), argv


def test_a_command_line_past_the_bounds_is_read_to_them_and_marked_truncated(shared_tmp, runs):
    """300 words of 1 KB: each source keeps the first 256 words, 128 KiB at most, marked cut."""
    other = make_checkout(shared_tmp, "other")
    runner, argv = _runner_with_long_argv(runs, other, words=300, size=1000)
    assert len(_cmdline(runner.pid)) > CMDLINE_READ_MAX
    for source in (ProcfsSource(), PsutilSource()):
        read = record_of(source, runner.pid).argv
        assert argv_truncated(read), source.name
        assert len(read) <= ARGV_WORDS_MAX
        assert sum(len(word) + 1 for word in read) <= CMDLINE_READ_MAX + 1
        assert list(read[:-1]) == argv[: len(read) - 1]
        assert argv[len(read) - 1].startswith(read[-1])
    short = record_of(ProcfsSource(), os.getpid())
    assert not argv_truncated(short.argv)


def test_many_words_alone_are_cut_at_the_word_bound(shared_tmp, runs):
    """300 short words (far under the byte bound): 256 kept, marked truncated; the run is seen."""
    other = make_checkout(shared_tmp, "other")
    runner, argv = _runner_with_long_argv(runs, other, words=300, size=8)
    record = record_of(ProcfsSource(), runner.pid)
    assert argv_truncated(record.argv)
    assert list(record.argv) == argv[:ARGV_WORDS_MAX]
    report = scan(viewpoint(cwd=str(other)))
    assert [judged.run.kind for judged in report.runs if judged.run.pid == runner.pid] == [
        "run-tests-script"
    ]


def test_a_bounded_read_of_a_command_line_says_it_went_on(runs, tmp_path):
    """``read_cmdline`` with a small bound gives that many bytes and says there was more."""
    proc = runs.sleeper(tmp_path / "ready", "a" * 100)
    whole = _cmdline(proc.pid)
    cut = procfs.read_cmdline(f"/proc/{proc.pid}/cmdline", limit=10)
    assert cut == (whole[:10], True)
    assert procfs.read_cmdline(f"/proc/{proc.pid}/cmdline", limit=len(whole)) == (whole, False)


def test_huge_command_lines_beside_a_live_run_still_refuse_and_report_truncated(shared_tmp, runs):
    """Runner processes with command lines past the bounds: status marks them, the hook refuses."""
    checkout = make_checkout(shared_tmp, "proj")
    live = _live_run(runs, checkout)
    long_runs = [
        _runner_with_long_argv(runs, make_checkout(shared_tmp, f"other{n}"), 200, 1000)[0]
        for n in range(3)
    ]
    shown = {run["pid"]: run for run in json.loads(_status(checkout, "--json"))["runs"]}
    for runner in long_runs:
        assert shown[runner.pid]["argv_truncated"] is True
        assert sum(len(word) for word in shown[runner.pid]["argv"]) <= CMDLINE_READ_MAX
    assert "argv_truncated" not in shown[live.pid]
    assert f"pid {live.pid}" in _refused(checkout)


# ----------------------------------------------------------------------------- deep directories


def _deep(parent: Path, name: str, levels: int) -> Path:
    """``parent/name/d/d/...``, ``levels`` below ``name``: a directory every uid may enter."""
    path = parent / name
    for _ in range(levels):
        path /= "d"
    path.mkdir(parents=True)
    for made in (path, *path.parents):
        if made == parent:
            break
        made.chmod(0o755)
    return path


DEEP_LEVELS = 300
"""How deep each of another user's directories is: a walk from one climbs more than that."""


@pytest.mark.needs_root
def test_other_users_runs_in_deep_directories_cost_a_scan_a_bounded_climb(shared_tmp, runs):
    """Another user's runs, each in its own directory hundreds of levels deep: a bounded climb.

    Anyone may make such directories (in ``/tmp``), and finding the checkout
    of each run climbed every level of its directory, looking for markers at
    each: a thousand of them took ``status`` 24 s of CPU. A scan climbs at
    most :data:`CLIMBED_MAX` directories for other users' processes in all:
    past it their checkouts are not looked for. ``status`` still shows each
    of their runs, foreign by its owner, marks the checkouts not looked for
    (in the table and the JSON) and says how many; this checkout's own live
    run is found and refused as ever.
    """
    checkout = make_checkout(shared_tmp, "proj")
    live = _live_run(runs, checkout)
    count = CLIMBED_MAX // DEEP_LEVELS + 3
    theirs = {
        runs.run_tests_script(_deep(shared_tmp, f"deep{n}", DEEP_LEVELS), uid=OTHER_UID).pid
        for n in range(count)
    }
    report = json.loads(_status(checkout, "--json"))
    shown = {run["pid"]: run for run in report["runs"]}
    assert theirs <= set(shown)
    assert all(shown[pid]["foreign"] for pid in theirs)
    unwalked = {pid for pid in theirs if shown[pid]["root"] is None}
    assert len(theirs - unwalked) <= CLIMBED_MAX // DEEP_LEVELS
    assert all(
        any("checkout not looked for" in reason for reason in shown[pid]["reasons"])
        for pid in unwalked
    )
    notes = report["visibility"]["notes"]
    assert any("other users' runs were not looked for" in note for note in notes), notes
    assert shown[live.pid]["root"] == str(checkout)
    assert not shown[live.pid]["foreign"]

    rows = [row.split() for row in _status(checkout, "--wide").splitlines()]
    not_looked_for = {int(row[0]) for row in rows if row and row[0].isdigit() and "looked" in row}
    assert not_looked_for & theirs
    assert f"pid {live.pid}" in _refused(checkout)


@pytest.mark.needs_root
@pytest.mark.parametrize("source_class", [ProcfsSource, PsutilSource], ids=["procfs", "psutil"])
def test_the_climb_budget_spares_the_viewers_runs_and_a_writer_of_this_checkout(
    shared_tmp, runs, source_class, monkeypatch
):
    """Past the budget, the checkouts that decide something are still looked for.

    The budget made small (40 directories): another user's runs elsewhere,
    each 30 levels deep, spend it. The viewer's own run 30 levels deep in
    this checkout is still found in it (whether a run is ours depends on its
    checkout), and so is a third user's run there, since they may write this
    checkout (the shared-tree policy asks whether they work in it).
    """
    monkeypatch.setattr(climb, "CLIMBED_MAX", 40)
    checkout = make_checkout(shared_tmp, "proj")
    os.chown(checkout, VIEWER_UID, -1)  # theirs to write, not the other user's
    elsewhere = [
        runs.run_tests_script(_deep(shared_tmp, f"deep{n}", 30), uid=OTHER_UID).pid
        for n in range(4)
    ]
    writer = runs.run_tests_script(_deep(checkout, "theirs", 30), uid=VIEWER_UID)
    mine = runs.run_tests_script(_deep(checkout, "mine", 30))
    report = scan(viewpoint(cwd=str(checkout)), source=source_class())
    judged = {each.run.pid: each for each in report.runs}
    assert sum(was_not_climbed(judged[pid].run.root) for pid in elsewhere) >= len(elsewhere) - 1
    assert all(judged[pid].foreign for pid in elsewhere)
    assert [each.run.pid for each in report.ours_known] == [mine.pid]
    assert judged[mine.pid].run.root == str(checkout)
    assert judged[writer.pid].shares_tree
    assert judged[writer.pid].run.root == str(checkout)


@pytest.mark.needs_root
@pytest.mark.parametrize("source_class", [ProcfsSource, PsutilSource])
def test_one_directory_of_many_runs_is_climbed_once_a_scan(
    shared_tmp, runs, source_class, monkeypatch
):
    """Another user's five runs in one directory 30 levels deep cost one climb, not five.

    The budget made small (40 directories: one climb from there to the top
    fits, two do not): each run's checkout is still looked for, in both
    sources, since a walk is made once per directory in a scan.
    """
    monkeypatch.setattr(climb, "CLIMBED_MAX", 40)
    checkout = make_checkout(shared_tmp, "proj")
    deep = _deep(shared_tmp, "deep", 30)  # no checkout above it: each walk climbs to the top
    theirs = [runs.run_tests_script(deep, uid=OTHER_UID).pid for _ in range(5)]
    report = scan(viewpoint(cwd=str(checkout)), source=source_class())
    judged = {each.run.pid: each for each in report.runs}
    assert not any(was_not_climbed(judged[pid].run.root) for pid in theirs)
    assert [judged[pid].run.root for pid in theirs] == [str(deep)] * len(theirs)
    assert all(judged[pid].foreign for pid in theirs)


NAMESPACE_SCRIPT = r"""
import ctypes, os, sys

base, mounts, uid = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
python, script, ready = sys.argv[4], sys.argv[5], sys.argv[6]
libc = ctypes.CDLL(None, use_errno=True)
for n in range(mounts):
    path = os.path.join(base, str(n))
    os.mkdir(path)
    if libc.mount(b"none", path.encode(), b"tmpfs", 0, b"size=64k,mode=0755") != 0:
        sys.exit(f"mount {path}: errno {ctypes.get_errno()}")
work = os.path.join(base, "0")
with open(os.path.join(work, "run_tests.py"), "w") as stream:
    stream.write(script)
if os.fork() == 0:
    os.chdir(work)
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)
    os.execv(python, [python, "run_tests.py", ready])
os.wait()
"""
"""In a new mount namespace: MOUNTS tmpfs mounts, and a run of UID in the first of them."""


@pytest.mark.needs_root
def test_another_users_mount_namespaces_are_read_within_the_climb_budget(
    shared_tmp, runs, monkeypatch
):
    """Another user's runs in six mount namespaces of 300 mounts each: a bounded read.

    Each run works in a tmpfs, where a climb finds no ``.git``: its checkout
    is then looked for through its namespace's ``mountinfo``, which is read
    once per namespace, and many namespaces are cheap to make. Those reads
    are charged to the scan's climb budget by their size: with the budget
    made small (40 directories), a scan reads at most four of the six, and
    the runs past it are foreign, their checkouts not looked for.
    """
    unshare = require_tools("unshare")["unshare"]
    monkeypatch.setattr(climb, "CLIMBED_MAX", 40)
    ready = ready_dir(shared_tmp)
    pids = []
    for n in range(6):
        base = shared_tmp / f"ns{n}"
        base.mkdir(mode=0o755)
        argv = [unshare, "--mount", "--propagation", "private", PYTHON, "-c", NAMESPACE_SCRIPT]
        argv += [str(base), "300", str(OTHER_UID), interpreter_for(OTHER_UID)]
        argv += [RUN_TESTS_SCRIPT, str(ready / f"ns{n}")]
        leader = runs.orphan(argv, shared_tmp, env=clean_env(), ready=ready / f"ns{n}")
        (run,) = (
            pid for pid in leader.members() if _cmdline(pid).split(b"\0")[1:2] == [b"run_tests.py"]
        )
        pids.append(run)
    read: list[str] = []
    real = procfs._read_mountinfo_text

    def counted(path: str) -> bytes | None:
        read.append(path)
        return real(path)

    monkeypatch.setattr(procfs, "_read_mountinfo_text", counted)
    report = scan(viewpoint(cwd=str(make_checkout(shared_tmp, "proj"))), source=ProcfsSource())
    theirs = [path for path in read if path in {f"/proc/{pid}/mountinfo" for pid in pids}]
    assert 1 <= len(theirs) <= 4, theirs
    judged = {each.run.pid: each for each in report.runs}
    assert all(judged[pid].foreign for pid in pids)
    assert sum(was_not_climbed(judged[pid].run.root) for pid in pids) >= 2


@pytest.mark.needs_root
def test_a_scan_held_by_a_file_system_that_stops_answering_fails_open_and_says_so(shared_tmp, runs):
    """A look the kernel never finishes: the hook still answers by its deadline, and says why.

    The viewer's own process works in a file system that then stops
    answering (a hung NFS or sshfs mount): looking at its cwd waits in the
    kernel, where no timer's signal reaches, so the hook's own timer cannot
    cut it. The scan runs in a child of the hook: at the deadline the hook
    itself fails open and tells the agent, in its reply, what holds the
    scan: the cwd of that process, by pid and path (the child tells what it
    looks at). The child is left waiting until the file system answers
    (here, until its server is killed).
    """
    checkout = make_checkout(shared_tmp, "proj")
    _live_run(runs, checkout)
    payload = json.dumps(claude_pre_tool_use(TEST_COMMAND, checkout)).encode()
    with file_system_that_stops_answering(shared_tmp) as mount:
        ready = shared_tmp / "sleeper-ready"
        sleeping = "import pathlib, sys, time; pathlib.Path(sys.argv[1]).touch(); time.sleep(600)"
        # -P: no import looks in its cwd (this file system lists no directory)
        there = runs.orphan(
            [PYTHON, "-P", "-c", sleeping, str(ready)], mount.mountpoint, ready=ready
        )
        mount.stop_answering()
        hook = subprocess.Popen(
            [sys.executable, "-m", "runctx", "hook", "claude"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=hook_env(**{DEADLINE_ENV: "5"}),  # room for a slow start: the look is named
        )
        try:
            out, err = hook.communicate(payload, timeout=60)
        except subprocess.TimeoutExpired:
            out = err = b""
    # The server is gone: a hook its mount held goes on, and is ended here.
    if hook.poll() is None:
        hook.kill()
    hook.wait()
    assert out, "the hook never answered: the held read kept it past its deadline"
    assert hook.returncode == 0
    context = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert "runctx could not check" in context
    assert f"held looking at the cwd of pid {there.pid} ({mount.mountpoint})" in context, context
    assert b"hook failed open" in err


class _Held(NamedTuple):
    """A command whose scan a file system holds: the command, and the run whose cwd is there."""

    ran: subprocess.Popen[bytes]
    pid: int
    mountpoint: Path


@contextlib.contextmanager
def _held_command(
    shared_tmp: Path, runs, *argv: str, module: str = "runctx", mount: str = "mnt"
) -> Iterator[_Held]:
    """``runctx ARGV`` in a checkout while a run's cwd is in a file system that stopped answering.

    Or ``python -m MODULE ARGV``; the file system is mounted at ``mount`` (a
    name). Its output read through pipes, as a
    pre-commit hook reads it. Once the file system is taken down (which lets
    whatever it held go on), the command is ended if it has not ended.
    """
    checkout = make_checkout(shared_tmp, "proj")
    (checkout / "test_one.py").write_text("def test_one():\n    assert True\n")
    ran = None
    try:
        with file_system_that_stops_answering(shared_tmp, mount) as held_mount:
            # a run (named pytest) there: every face looks for the checkout of a run
            # started whole before the mount stops answering: only the command is held
            ready = shared_tmp / "held-run-ready"
            sleeping = (
                "import pathlib, sys, time; pathlib.Path(sys.argv[1]).touch(); time.sleep(600)"
            )
            there = runs.orphan(
                ["pytest", "-c", sleeping, str(ready)],
                held_mount.mountpoint,
                executable=PYTHON,
                ready=ready,
            )
            held_mount.stop_answering()
            ran = subprocess.Popen(
                [sys.executable, "-m", module, *argv],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=checkout,
                env=clean_env(),
            )
            wait_for(lambda: bool(held_mount.held()), what="the scan to be held by the mount")
            yield _Held(ran, there.pid, held_mount.mountpoint)
    finally:
        if ran is not None:
            if ran.poll() is None:
                ran.kill()
            ran.wait()


def _ended(ran: subprocess.Popen[bytes]) -> bytes | None:
    """What ``ran`` wrote on stderr once it ended; None when it did not end within a minute."""
    try:
        return ran.communicate(timeout=60)[1]
    except subprocess.TimeoutExpired:
        return None


def _names_the_look(err: bytes, held: _Held) -> bool:
    """Whether ``err`` says the scan is held looking at the cwd of the held run, by pid and path."""
    return f"held looking at the cwd of pid {held.pid} ({held.mountpoint})".encode() in err


@pytest.mark.needs_root
@pytest.mark.parametrize(
    "argv",
    [("status",), ("check",), ("wait",), ("status", "--watch", "--count", "3")],
    ids=" ".join,
)
def test_a_timeout_bounds_a_command_held_by_a_file_system_that_stops_answering(
    shared_tmp, runs, argv
):
    """``--timeout`` is wall time, whatever a read does: the command gives up and says why.

    Beside the viewer's own run in a file system that then stops answering,
    ``status``, ``check``, ``wait`` and a ``status --watch`` frame with
    ``--timeout 4`` (under the 5 s that holds a scan without one, and room
    for a slow start) end with an error that names the run whose cwd holds
    the scan, and the path; the child that ran the scan is left waiting
    until the file system answers.
    """
    with _held_command(shared_tmp, runs, *argv, "--timeout", "4") as held:
        err = _ended(held.ran)
    assert err is not None, f"runctx {shlex.join(argv)} --timeout 4 never ended: the read kept it"
    assert held.ran.returncode == EXIT_ERROR
    assert _names_the_look(err, held), err
    assert b"gave up after --timeout 4s" in err, err


@pytest.mark.needs_root
@pytest.mark.parametrize(
    "argv",
    [
        ("check",),
        ("wait",),
        ("status", "--json"),
        ("status",),
        ("status", "--watch", "--count", "3"),
        ("stop", "--orphans"),
    ],
    ids=" ".join,
)
def test_a_command_held_by_a_file_system_that_stops_answering_ends_without_a_timeout(
    shared_tmp, runs, argv
):
    """Without ``--timeout``, check, wait, stop and status end once a look holds their scan.

    ``status --watch`` too, at the frame whose scan is held.

    Beside a file system that may stop answering (FUSE here; NFS, sshfs),
    they scan in a child (``runctx check --ignore-foreign && pytest`` is what
    a pre-commit hook waits on). A look at a process's file system that has
    not returned after :data:`~runctx.looking.HELD_AFTER_SECONDS` holds the
    scan, and the command ends with an error that names the run and the path.
    """
    began = time.monotonic()
    with _held_command(shared_tmp, runs, *argv) as held:
        try:
            said = b"".join(held.ran.communicate(timeout=60))  # --json: the error is JSON
        except subprocess.TimeoutExpired:
            pytest.fail(f"runctx {shlex.join(argv)} never ended: the held read kept it")
    assert held.ran.returncode == EXIT_ERROR
    assert _names_the_look(said, held), said
    assert b"--timeout" not in said, said
    assert time.monotonic() - began >= HELD_AFTER_SECONDS


HOSTILE_MOUNT = "mnt\x1b[2J\u202eht"
"""A mount's name that clears a terminal and turns the text after it around, if written raw."""


@pytest.mark.needs_root
def test_a_held_scan_names_its_path_exactly_in_json(shared_tmp, runs):
    """The error of a held ``status --json`` holds the path as read: JSON's exact string."""
    with _held_command(shared_tmp, runs, "status", "--json", mount=HOSTILE_MOUNT) as held:
        out = _ended_out(held.ran)
    assert held.ran.returncode == EXIT_ERROR
    message = json.loads(out)["error"]["message"]
    assert f"held looking at the cwd of pid {held.pid} ({held.mountpoint})" in message, message


@pytest.mark.needs_root
def test_a_held_scan_names_its_path_escaped_on_a_terminal(shared_tmp, runs):
    """On stderr the same path is escaped: no control or format character of it is written."""
    with _held_command(shared_tmp, runs, "check", mount=HOSTILE_MOUNT) as held:
        err = _ended(held.ran)
    assert err is not None, "runctx check never ended: the held read kept it"
    assert held.ran.returncode == EXIT_ERROR
    shown = str(held.mountpoint).replace("\x1b", "\\x1b").replace("\u202e", "\\u202e")
    assert f"held looking at the cwd of pid {held.pid} ({shown})".encode() in err, err
    assert b"\x1b" not in err
    assert "\u202e".encode() not in err


def _ended_out(ran: subprocess.Popen[bytes]) -> bytes:
    """What ``ran`` wrote on stdout once it ended; a failure when it did not end within a minute."""
    try:
        return ran.communicate(timeout=60)[0]
    except subprocess.TimeoutExpired:
        pytest.fail("the command never ended: the held read kept it")


@pytest.mark.needs_root
def test_run_held_by_a_file_system_that_stops_answering_runs_the_command_and_says_why(
    shared_tmp, runs, tmp_path
):
    """``runctx run -- pytest`` (the pre-push hook's face) goes ahead when the scan is held.

    runctx failing never stops the user's work: once a look holds its check,
    it says it could not check, names the run and the path, and runs the
    command (here a ``pytest`` that only says it ran).
    """
    tools = tmp_path / "bin"
    tools.mkdir()
    (tools / "pytest").write_text("#!/bin/sh\necho the suite ran\n")
    (tools / "pytest").chmod(0o755)
    tools.chmod(0o755)
    command = f"PATH={tools}:{clean_env()['PATH']} pytest"
    with _held_command(shared_tmp, runs, "run", "--", "sh", "-c", command) as held:
        try:
            out, err = held.ran.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            out = err = b""
    assert out == b"the suite ran\n", (out, err)
    assert held.ran.returncode == 0
    assert b"could not check for other runs" in err, err
    assert _names_the_look(err, held), err
    assert b"running it anyway" in err


@pytest.mark.needs_root
def test_a_pytest_session_whose_scan_is_held_goes_on_and_says_why(shared_tmp, runs):
    """The plugin's scan held by a file system that stops answering: the session runs anyway.

    A FUSE file system is mounted on this box, so the plugin scans in a
    child; once a look holds it, the session's header says it could not
    check for other runs and names the run and the path, and the tests run.
    """
    with _held_command(shared_tmp, runs, "-p", "no:cacheprovider", "-v", module="pytest") as held:
        try:
            out, err = held.ran.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            out = err = b""
    assert held.ran.returncode == 0, (out, err)
    assert b"test_one.py::test_one PASSED" in out, out
    assert b"could not check for other runs" in out, out
    assert _names_the_look(out, held), out


@pytest.mark.needs_root
def test_ctrl_c_ends_a_command_held_by_a_file_system_that_stops_answering(shared_tmp, runs):
    """Before a long ``--timeout`` ends, Ctrl-C ends a command whose scan is held (exit 130).

    The scan waits in a child; the command itself only waits for it, so an
    interrupt ends it whatever the child does (a read the kernel waits on
    uninterruptibly is not ended even by SIGKILL).
    """
    with _held_command(shared_tmp, runs, "status", "--timeout", "600") as held:
        held.ran.send_signal(signal.SIGINT)
        err = _ended(held.ran)
    assert err is not None, "Ctrl-C did not end runctx status: the held read kept it"
    assert held.ran.returncode == EXIT_INTERRUPTED


# ----------------------------------------------------------------------------- many mounts


@pytest.mark.needs_root
def test_runs_in_a_namespace_of_many_mounts_are_ours_and_its_mountinfo_is_read_once(
    shared_tmp, runs, monkeypatch
):
    """Three runs of this checkout behind a bind mount in one namespace of 200 more mounts.

    Their climbs find no ``.git`` (the mount hides it): each is placed through
    that namespace's ``mountinfo``, read and parsed once for all three; they
    are this checkout's, and the hook refuses a second run.
    """
    tools = require_tools("unshare", "mount")
    checkout = make_checkout(shared_tmp, "proj")
    (checkout / "sub").mkdir()
    (checkout / "sub" / "run_tests.py").write_text(RUN_TESTS_SCRIPT)
    target = shared_tmp / "app"
    target.mkdir()
    mounts = shared_tmp / "mounts"
    mounts.mkdir()
    ready = [shared_tmp / f"ready-{n}" for n in range(3)]
    mount = shlex.quote(tools["mount"])
    steps = [
        (
            f"for n in $(seq 200); do mkdir {shlex.quote(str(mounts))}/$n && "
            f"{mount} -t tmpfs none {shlex.quote(str(mounts))}/$n || exit 1; done"
        ),
        f"{mount} --bind {shlex.quote(str(checkout / 'sub'))} {shlex.quote(str(target))}",
        f"cd {shlex.quote(str(target))}",
        # orphaned (a subshell that exits): three runs, not one with members
        *(f"({shlex.quote(PYTHON)} run_tests.py {shlex.quote(str(r))} &)" for r in ready),
        "exec sleep 300",
    ]
    leader = runs.orphan(
        ["unshare", "--mount", "--propagation", "private", "sh", "-c", " && ".join(steps)],
        shared_tmp,
        env=clean_env(),
        executable=tools["unshare"],
    )
    wait_for(lambda: all(r.exists() for r in ready), what="three runs in the namespace")
    pids = [
        pid
        for pid in leader.members()
        if b"run_tests.py" in _cmdline(pid) and _cmdline(pid).startswith(PYTHON.encode())
    ]
    assert len(pids) == 3
    read: list[str] = []
    real = procfs.read_bounded

    def counted(path: str, limit: int) -> object:
        read.append(path)
        return real(path, limit)

    monkeypatch.setattr(procfs, "read_bounded", counted)
    report = scan(viewpoint(cwd=str(checkout)), source=ProcfsSource())
    verdicts = {judged.run.pid: judged.judgement.verdict.value for judged in report.runs}
    assert [verdicts.get(pid) for pid in pids] == ["ours"] * 3
    theirs = [path for path in read if path in {f"/proc/{pid}/mountinfo" for pid in pids}]
    assert len(theirs) == 1, theirs
    monkeypatch.undo()
    assert "3 other test runs of this checkout" in _refused(checkout)


# ----------------------------------------------------------------------------- planted files


def _fanning_makefile(lines: int, levels: int = 8) -> str:
    text = ["V0 = pytest"]
    text += [f"V{n} = " + " ".join([f"$(V{n - 1})"] * 12) for n in range(1, levels + 1)]
    text.append("ci:")
    text += [f"\t$(V{levels}) {n}" for n in range(lines)]
    return "\n".join(text) + "\n"


def _warned(checkout: Path, command: str) -> str:
    """The warning the hook gives as it lets ``command`` in ``checkout`` through (it must warn)."""
    done = run_hook("claude", claude_pre_tool_use(command, checkout))
    assert done.returncode == 0
    assert "failed open" not in done.stderr
    output = reply(done)["hookSpecificOutput"]
    assert isinstance(output, dict)
    assert "permissionDecision" not in output, output
    return str(output["additionalContext"])


def test_a_self_expanding_makefile_in_the_checkout_does_not_stop_the_refusal(shared_tmp, runs):
    """``make ci && pytest`` over 7 KB of variables that expand into each other: still refused.

    Reading ``ci`` stops at the command's work budget; ``pytest`` after it is
    a run, and next to a live run of the checkout it is refused. ``make ci``
    alone is not known to be a run (``ci`` is none by its name, and the lines
    made before the budget ran out run no runner): it goes ahead, never in
    silence, with a warning naming the live run and why runctx could not tell.
    """
    checkout = make_checkout(shared_tmp, "proj")
    (checkout / "Makefile").write_text(_fanning_makefile(580))
    live = _live_run(runs, checkout)
    assert f"pid {live.pid}" in _refused(checkout, f"make ci && {TEST_COMMAND}")
    warning = _warned(checkout, "make ci")
    assert "could not tell whether `make ci` starts a test run" in warning
    assert "work budget" in warning
    assert f"pid {live.pid}" in warning
    # six levels: the recipe's first lines are made whole before the budget runs out,
    # and they run pytest: ``make ci`` alone is a run, refused
    (checkout / "Makefile").write_text(_fanning_makefile(580, levels=5))
    assert f"pid {live.pid}" in _refused(checkout, "make ci")


def test_a_makefile_past_the_read_bound_is_a_warning_beside_a_live_run(shared_tmp, runs):
    """A Makefile larger than runctx reads: ``make ci`` may run the tests, and the agent is told.

    Beside a live run of the checkout it goes ahead with a warning that names
    the run and the file; ``make test`` is a run by its name and is refused;
    in a checkout with no live run nothing is said.
    """
    size = MAX_PROJECT_FILE_BYTES + 1
    body = "ci:\n\t@echo ci\n" + "".join(f"t{n}:\n\techo {n}\n" for n in range(size // 8))
    checkout = make_checkout(shared_tmp, "proj")
    (checkout / "Makefile").write_text(body)
    quiet = make_checkout(shared_tmp, "quiet")
    (quiet / "Makefile").write_text(body)
    live = _live_run(runs, checkout)
    warning = _warned(checkout, "make ci")
    assert f"Makefile is larger than {MAX_PROJECT_FILE_BYTES} bytes" in warning
    assert f"pid {live.pid}" in warning
    assert f"pid {live.pid}" in _refused(checkout, "make test")
    done = run_hook("claude", claude_pre_tool_use("make ci", quiet))
    assert (done.returncode, done.stdout) == (0, "")
    # an agent told only after the command (Copilot's postToolUse) hears it then
    after = reply(run_hook("copilot-after", copilot_pre_tool_use("make ci", checkout)))
    told = str(after["additionalContext"])
    assert f"pid {live.pid} (run-tests-script)" in told
    assert "could not tell whether `make ci` starts a test run" in told
    done = run_hook("copilot-after", copilot_pre_tool_use("make ci", quiet))
    assert (done.returncode, done.stdout) == (0, "")


def test_a_long_command_never_lets_a_run_through_in_silence(shared_tmp, runs):
    """What an agent writes before its test run does not hide the run.

    A file written through a here-document larger than the pre-filter's
    window, then ``pytest``: refused. A script past the parser's step budget
    whose end runs ``pytest``: not read to its end, so it goes ahead with a
    warning naming the live run and why. The same commands ending in ``ls``
    are let through without a word.
    """
    checkout = make_checkout(shared_tmp, "proj")
    live = _live_run(runs, checkout)
    body = "x = 1  # a line of a generated file that names no runner\n" * (SCANNED_CHARS // 40)
    written = f"cat > gen.py <<'EOF'\n{body}EOF\n"
    assert f"pid {live.pid}" in _refused(checkout, written + TEST_COMMAND)
    # twelve steps a line (six words, six blanks): the budget runs out 20 lines from the end
    script = "".join(f"echo step {n} of the setup\n" for n in range(MAX_STEPS // 12 + 20))
    warning = _warned(checkout, script + TEST_COMMAND)
    assert "could not tell whether the rest of this command" in warning
    assert f"({MAX_STEPS} words and operators)" in warning
    assert f"pid {live.pid}" in warning
    for quiet in (written + "ls", script + "ls"):
        done = run_hook("claude", claude_pre_tool_use(quiet, checkout))
        assert (done.returncode, done.stdout) == (0, ""), done.stderr


def test_a_huge_pyproject_is_refused_by_its_size_and_other_commands_pass(shared_tmp, runs):
    """A pyproject.toml past the search bound: not read at all.

    A command naming no runner goes through without a word; a test command
    next to a live run of the checkout is still refused, decided with the
    defaults, and the reason says the checkout's settings could not be read.
    It never fails open, by a missed deadline or otherwise.
    """
    checkout = make_checkout(shared_tmp, "proj")
    live = _live_run(runs, checkout)
    path = checkout / "pyproject.toml"
    with path.open("wb") as stream:
        stream.write(b'[project]\nname = "p"\n')
        stream.truncate(9 << 20)  # sparse: past MAX_SCANNED_BYTES (8 MiB)
    done = run_hook("claude", claude_pre_tool_use("ls -la", checkout))
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    reason = _refused(checkout)
    assert f"pid {live.pid}" in reason
    assert "configuration is broken" in reason
    assert "larger than 8 MiB" in reason
