"""Ours or foreign: verdicts on real runs, from real viewpoints.

Roots are compared as directories: runs in their own mount namespaces
(``unshare --mount`` plus a bind mount only they see) are real, as are runs
whose worktree was removed and runs of another user in this very checkout.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess

import attrs
import pytest
from hooktools import RUNCTX, claude_pre_tool_use, hook_env, run_hook, runctx
from nstools import mount_namespace, require_tools, start_run_in_mount_namespace
from proctools import OTHER_UID, VIEWER_UID, make_checkout, make_worktree, run_as

from runctx.identity import Verdict, foreign_reasons, is_foreign, judge
from runctx.scanning import scan, viewpoint
from runctx.sources.psutil import PsutilSource
from runctx.unknown import Reason, Unknown


def the_run(report, pid):
    """The judged run led by ``pid``; fails when there is none."""
    matches = [judged for judged in report.runs if judged.run.pid == pid]
    assert matches, f"no run led by pid {pid}"
    return matches[0]


def test_same_directory_name_under_another_parent_is_foreign_by_root(foreign_run):
    """Two checkouts named proj: a run in one is foreign to the other, by root."""
    mine, theirs, run = foreign_run.mine, foreign_run.theirs, foreign_run.foreign
    report = scan(viewpoint(cwd=str(mine)))
    judged = the_run(report, run.pid)
    assert judged.foreign
    assert judged.run.root == str(theirs)
    assert f"root {theirs} != {mine}" in judged.judgement.reasons
    assert judged in report.foreign
    assert judged not in report.ours


def test_the_same_real_record_flips_with_the_viewpoint(foreign_run):
    """One real run: ours from its own checkout, foreign from a same-named other one."""
    mine, theirs, run = foreign_run.mine, foreign_run.theirs, foreign_run.foreign
    record = the_run(scan(viewpoint(cwd=str(mine))), run.pid).run
    assert is_foreign(record, str(mine), os.getuid())
    assert not is_foreign(record, str(theirs), os.getuid())
    assert judge(record, str(theirs), os.getuid()).verdict is Verdict.OURS
    assert is_foreign(record, str(theirs), os.getuid() + 1)
    assert foreign_reasons(record, str(theirs), os.getuid() + 1) == (
        f"uid {os.getuid()} != {os.getuid() + 1}",
        f"root {theirs} == {theirs}",
        "another user's run in this very checkout: it shares its files",
    )


def test_a_git_worktree_is_foreign_by_root(shared_tmp, runs):
    """A worktree of this checkout is another working tree: foreign by root."""
    mine = make_checkout(shared_tmp, "proj")
    subprocess.run(["git", "-C", str(mine), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(mine), "commit", "-qm", "init"], check=True)
    worktree = shared_tmp / "proj-wt"
    subprocess.run(["git", "-C", str(mine), "worktree", "add", "-q", str(worktree)], check=True)
    assert (worktree / ".git").is_file()
    run = runs.run_tests_script(worktree)
    judged = the_run(scan(viewpoint(cwd=str(mine))), run.pid)
    assert judged.run.root == str(worktree)
    assert judged.foreign
    assert f"root {worktree} != {mine}" in judged.judgement.reasons


def test_a_run_in_a_subdirectory_of_this_checkout_is_ours(shared_tmp, runs):
    """A run whose cwd is deep inside this checkout has this checkout's root."""
    mine = make_checkout(shared_tmp, "proj")
    deep = mine / "pkg" / "sub"
    deep.mkdir(parents=True)
    (deep / "pyproject.toml").write_text("")
    run = runs.run_tests_script(deep)
    judged = the_run(scan(viewpoint(cwd=str(mine))), run.pid)
    assert judged.run.root == str(mine)
    assert judged.judgement.verdict is Verdict.OURS
    assert not judged.foreign


@pytest.mark.needs_root
def test_another_users_run_is_foreign_by_uid_with_its_root_unknown(shared_tmp, runs):
    """Run as one uid, viewed as another: foreign by uid; the cwd is denied, and said so."""
    checkout = make_checkout(shared_tmp, "proj")
    run = runs.run_tests_script(checkout, uid=OTHER_UID)
    here = viewpoint(cwd=str(checkout), uid=VIEWER_UID)
    report = run_as(VIEWER_UID, scan, here)
    judged = the_run(report, run.pid)
    assert judged.run.uid == OTHER_UID
    assert isinstance(judged.run.root, Unknown)
    assert judged.run.root.reason is Reason.DENIED
    assert judged.foreign
    assert f"uid {OTHER_UID} != {VIEWER_UID}" in judged.judgement.reasons
    assert "root unknown: cwd unreadable (denied)" in judged.judgement.reasons
    assert judged in report.foreign
    assert report.visibility.run_fields_unreadable["cwd"] >= 1


@pytest.mark.needs_root
def test_another_users_run_in_this_very_checkout_is_still_foreign(shared_tmp, runs):
    """Same checkout, other owner: foreign by uid; it shares the tree only if it can write it.

    A root-owned 0755 checkout that user cannot write: foreign, sharing
    nothing (no refusal rests on it). Made writable for that user: it shares.
    """
    checkout = make_checkout(shared_tmp, "proj")
    run = runs.run_tests_script(checkout, uid=OTHER_UID)
    as_root = the_run(scan(viewpoint(cwd=str(checkout))), run.pid)
    assert as_root.run.root == str(checkout)
    assert as_root.foreign
    assert as_root.judgement.reasons == (
        f"uid {OTHER_UID} != 0",
        f"root {checkout} == {checkout}",
        f"uid {OTHER_UID} cannot write this checkout: it shares nothing",
    )
    assert not as_root.shares_tree
    (checkout / "pyproject.toml").write_text('[tool.runctx]\non-shared-tree = "stop"\n')
    payload = claude_pre_tool_use("python3 run_tests.py", str(checkout))
    reply = json.loads(run_hook("claude", payload, cwd=checkout).stdout or "{}")
    assert reply.get("hookSpecificOutput", {}).get("permissionDecision") != "deny"
    checkout.chmod(0o777)
    as_root = the_run(scan(viewpoint(cwd=str(checkout))), run.pid)
    assert as_root.shares_tree
    assert as_root.judgement.reasons[-1] == (
        "another user's run in this very checkout: it shares its files"
    )
    reply = json.loads(run_hook("claude", payload, cwd=checkout).stdout or "{}")
    assert reply["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_a_record_with_nothing_known_is_ours_and_says_why(shared_tmp, runs):
    """Neither uid nor root known: never foreign, and the reasons say nothing was known."""
    checkout = make_checkout(shared_tmp, "proj")
    run = runs.run_tests_script(checkout)
    real = the_run(scan(viewpoint(cwd=str(checkout))), run.pid).run
    blind = attrs.evolve(real, uid=Unknown(Reason.DENIED), root=Unknown(Reason.DENIED))
    assert not is_foreign(blind, "/elsewhere", 12345)
    judgement = judge(blind, "/elsewhere", 12345)
    assert judgement.verdict is Verdict.UNKNOWN
    assert "nothing was known: counted as ours" in judgement.reasons
    assert not is_foreign(real, Unknown(Reason.DELETED), Unknown(Reason.ABSENT))


def test_one_known_differing_ground_is_enough_for_foreign(shared_tmp, runs):
    """A known uid mismatch makes a run foreign even when its root is unknown."""
    checkout = make_checkout(shared_tmp, "proj")
    run = runs.run_tests_script(checkout)
    real = the_run(scan(viewpoint(cwd=str(checkout))), run.pid).run
    no_root = attrs.evolve(real, root=Unknown(Reason.DENIED))
    assert is_foreign(no_root, str(checkout), os.getuid() + 7)
    assert not is_foreign(no_root, str(checkout), os.getuid())
    assert judge(no_root, str(checkout), os.getuid()).verdict is Verdict.UNKNOWN


@pytest.mark.needs_root
def test_this_checkout_bind_mounted_elsewhere_is_ours(shared_tmp, runs):
    """A run in its own mount namespace, in this checkout mounted at another path, is ours."""
    mine = make_checkout(shared_tmp, "proj")
    twin = shared_tmp / "elsewhere" / "bind"
    twin.mkdir(parents=True)
    run = start_run_in_mount_namespace(runs, mine, twin, shared_tmp / "ready")
    assert mount_namespace(run.pid) != mount_namespace(os.getpid())
    judged = the_run(scan(viewpoint(cwd=str(mine))), run.pid)
    assert judged.judgement.verdict is Verdict.OURS
    assert judged.run.root == str(twin)  # shown as the run names it
    assert judged.run.root.directory_id == viewpoint(cwd=str(mine)).root.directory_id
    assert f"root {twin} == {mine} (the same directory)" in judged.judgement.reasons
    seen_from_the_twin_path = the_run(scan(viewpoint(cwd=str(twin))), run.pid)
    assert seen_from_the_twin_path.foreign  # here, that path is an empty directory


@pytest.mark.needs_root
def test_another_directory_behind_this_checkouts_path_is_foreign(shared_tmp, runs):
    """An impostor: another checkout mounted over this checkout's path, in another namespace."""
    mine = make_checkout(shared_tmp, "proj")
    other = make_checkout(shared_tmp / "other", "proj")
    run = start_run_in_mount_namespace(runs, other, mine, shared_tmp / "ready")
    judged = the_run(scan(viewpoint(cwd=str(mine))), run.pid)
    assert judged.run.root == str(mine)  # the same path text...
    assert judged.foreign  # ...and another directory
    assert judged.judgement.verdict is Verdict.FOREIGN
    assert (
        f"root {mine} != {mine} (another directory behind the same path)"
        in judged.judgement.reasons
    )
    assert the_run(scan(viewpoint(cwd=str(other))), run.pid).judgement.verdict is Verdict.OURS


@pytest.mark.needs_root
def test_one_scan_judges_two_directories_behind_one_path_apart(shared_tmp, runs):
    """The checkout's own run and an impostor behind its path, in one scan: ours and foreign.

    A scan judges each owner and root once; the same text must not carry one
    directory's verdict over to the other.
    """
    mine = make_checkout(shared_tmp, "proj")
    other = make_checkout(shared_tmp / "other", "proj")
    impostor = start_run_in_mount_namespace(runs, other, mine, shared_tmp / "ready")
    own = runs.run_tests_script(mine)
    report = scan(viewpoint(cwd=str(mine)))
    ours, theirs = the_run(report, own.pid), the_run(report, impostor.pid)
    assert str(ours.run.root) == str(theirs.run.root) == str(mine)
    assert ours.judgement.verdict is Verdict.OURS
    assert theirs.judgement.verdict is Verdict.FOREIGN


@pytest.mark.needs_root
def test_a_run_in_a_bind_mounted_subdirectory_of_this_checkout_is_ours(shared_tmp, runs):
    """A run in a subdirectory of this checkout mounted elsewhere (./backend:/app) is ours."""
    mine = make_checkout(shared_tmp, "proj")
    other = make_checkout(shared_tmp / "other", "proj")
    backend = mine / "backend"
    backend.mkdir()
    (backend / "pyproject.toml").write_text("")  # a marker of its own: the .git above wins
    app = shared_tmp / "app"
    app.mkdir()
    run = start_run_in_mount_namespace(runs, backend, app, shared_tmp / "ready")
    assert mount_namespace(run.pid) != mount_namespace(os.getpid())
    judged = the_run(scan(viewpoint(cwd=str(mine))), run.pid)
    assert judged.judgement.verdict is Verdict.OURS, judged.judgement.reasons
    assert judged.run.root == str(mine)  # a directory above the mount: named as we see it
    assert judged.run.root.directory_id == viewpoint(cwd=str(mine)).root.directory_id
    from_other = the_run(scan(viewpoint(cwd=str(other))), run.pid)
    assert from_other.judgement.verdict is Verdict.FOREIGN
    assert f"root {mine} != {other}" in from_other.judgement.reasons


@pytest.mark.needs_root
def test_a_bind_mounted_subdirectory_of_another_checkout_stays_foreign(shared_tmp, runs):
    """A run in a subdirectory of another checkout, mounted elsewhere, is that checkout's."""
    mine = make_checkout(shared_tmp, "proj")
    other = make_checkout(shared_tmp / "other", "proj")
    (other / "src").mkdir()
    app = shared_tmp / "app"
    app.mkdir()
    run = start_run_in_mount_namespace(runs, other / "src", app, shared_tmp / "ready")
    judged = the_run(scan(viewpoint(cwd=str(mine))), run.pid)
    assert judged.judgement.verdict is Verdict.FOREIGN
    assert judged.run.root == str(other)
    assert f"root {other} != {mine}" in judged.judgement.reasons
    assert the_run(scan(viewpoint(cwd=str(other))), run.pid).judgement.verdict is Verdict.OURS


@pytest.mark.needs_root
def test_a_subdirectory_bind_mounted_in_the_viewers_own_namespace_is_ours(shared_tmp, runs):
    """Asked from inside the run's mount namespace, where the bind mount is seen too: ours."""
    mine = make_checkout(shared_tmp, "proj")
    (mine / "src").mkdir()
    app = shared_tmp / "app"
    app.mkdir()
    run = start_run_in_mount_namespace(runs, mine / "src", app, shared_tmp / "ready")
    nsenter = require_tools("nsenter")["nsenter"]
    inside = f"cd {shlex.quote(str(mine))} && exec {shlex.join([*RUNCTX, 'status', '--json'])}"
    status = subprocess.run(
        [nsenter, f"--target={run.pid}", "--mount", "--", "sh", "-c", inside],
        capture_output=True,
        check=True,
        env=hook_env(),
        timeout=120,
    )
    runs_seen = json.loads(status.stdout.decode(errors="replace"))["runs"]
    entry = next(seen for seen in runs_seen if seen["pid"] == run.pid)
    assert entry["verdict"] == "ours", entry["reasons"]
    assert entry["root"] == str(mine)


def test_a_run_in_a_removed_worktree_is_foreign_to_every_checkout(shared_tmp, runs):
    """A leftover run whose worktree was removed is foreign to the main and every other checkout."""
    main = make_checkout(shared_tmp, "proj")
    other = make_checkout(shared_tmp / "elsewhere", "proj")
    worktree = make_worktree(main, shared_tmp / "proj-wt")
    (worktree / "sub").mkdir()
    run = runs.run_tests_script(worktree / "sub")
    subprocess.run(
        ["git", "-C", str(main), "worktree", "remove", "--force", str(worktree)], check=True
    )
    assert not worktree.exists()
    for here in (main, other):
        for source in (None, PsutilSource()):
            judged = the_run(scan(viewpoint(cwd=str(here)), source=source), run.pid)
            assert judged.judgement.verdict is Verdict.FOREIGN, judged.judgement.reasons
            assert judged.run.root == str(worktree)  # the removed directory on its path
            assert judged.run.root.deleted
            assert (
                f"root {worktree} (deleted) != {here}: removed, and not inside {here}"
                in judged.judgement.reasons
            )
    status = subprocess.run(
        [*RUNCTX, "status", "--json"], cwd=main, capture_output=True, check=True
    )
    entry = next(
        e for e in json.loads(status.stdout.decode(errors="replace"))["runs"] if e["pid"] == run.pid
    )
    assert entry["deleted"] is True
    assert entry["foreign"] is True
    assert entry["root"] == str(worktree)
    text = subprocess.run([*RUNCTX, "status"], cwd=main, capture_output=True, check=True)
    assert f"{worktree} (deleted)" in text.stdout.decode(errors="replace")


def test_a_directory_removed_inside_this_checkout_stays_unknown(shared_tmp, runs):
    """A run whose cwd was removed from inside this checkout may have been ours: unknown."""
    main = make_checkout(shared_tmp, "proj")
    nested = main / ".worktrees" / "wt" / "sub"
    nested.mkdir(parents=True)
    run = runs.run_tests_script(nested)
    shutil.rmtree(main / ".worktrees")
    judged = the_run(scan(viewpoint(cwd=str(main))), run.pid)
    assert judged.judgement.verdict is Verdict.UNKNOWN
    assert judged.run.root == str(main / ".worktrees")
    assert any("was removed from inside" in r for r in judged.judgement.reasons)
    elsewhere = make_checkout(shared_tmp / "elsewhere", "proj")
    assert the_run(scan(viewpoint(cwd=str(elsewhere))), run.pid).foreign


@pytest.mark.needs_root
def test_another_users_run_here_is_foreign_and_shares_the_tree(shared_tree):
    """Foreign (the uid differs), and the judgement and JSON say it shares this checkout."""
    checkout, run = shared_tree
    judged = the_run(scan(viewpoint(cwd=str(checkout))), run.pid)
    assert judged.judgement.verdict is Verdict.FOREIGN
    assert judged.shares_tree
    status = runctx("status", "--json", cwd=checkout)
    entry = next(e for e in json.loads(status.stdout)["runs"] if e["pid"] == run.pid)
    assert entry["foreign"] is True
    assert entry["shares_tree"] is True
    assert entry["root"] == str(checkout)
    assert entry["root_id"] == json.loads(status.stdout)["here"]["root_id"]
    text = runctx("status", "-v", cwd=checkout).stdout
    assert "shares this tree" in text
    assert (
        f"Shared tree: 1 foreign run of other users works in this very checkout (pid {run.pid})"
        in text
    )


@pytest.mark.needs_root
def test_another_users_run_in_another_checkout_does_not_share_it(shared_tree, shared_tmp):
    """The same run seen from another checkout is foreign and shares nothing."""
    _checkout, run = shared_tree
    elsewhere = make_checkout(shared_tmp / "elsewhere", "proj")
    judged = the_run(scan(viewpoint(cwd=str(elsewhere))), run.pid)
    assert judged.foreign
    assert not judged.shares_tree


@pytest.mark.needs_root
def test_a_viewer_who_cannot_read_the_cwd_does_not_claim_a_shared_tree(shared_tree):
    """A third user cannot read the run's cwd: foreign by uid, and no shares_tree on a guess."""
    checkout, run = shared_tree
    here = viewpoint(cwd=str(checkout), uid=VIEWER_UID)
    judged = the_run(run_as(VIEWER_UID, scan, here), run.pid)
    assert judged.foreign
    assert not judged.shares_tree
    assert "root unknown: cwd unreadable (denied)" in judged.judgement.reasons
