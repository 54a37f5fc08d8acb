"""Ours or foreign: verdicts on real runs, from real viewpoints."""

from __future__ import annotations

import os
import subprocess

import attrs
import pytest
from proctools import OTHER_UID, VIEWER_UID, make_checkout, run_as

from runctx.identity import Verdict, foreign_reasons, is_foreign, judge
from runctx.scanning import scan, viewpoint
from runctx.unknown import Reason, Unknown


def the_run(report, pid):
    """The judged run led by ``pid``; fails when there is none."""
    matches = [judged for judged in report.runs if judged.run.pid == pid]
    assert matches, f"no run led by pid {pid}"
    return matches[0]


def test_same_directory_name_under_another_parent_is_foreign_by_root(shared_tmp, runs):
    """Two checkouts named proj: a run in one is foreign to the other, by root."""
    mine = make_checkout(shared_tmp / "a", "proj")
    theirs = make_checkout(shared_tmp / "b", "proj")
    run = runs.run_tests_script(theirs)
    report = scan(viewpoint(cwd=str(mine)))
    judged = the_run(report, run.pid)
    assert judged.foreign
    assert judged.run.root == str(theirs)
    assert f"root {theirs} != {mine}" in judged.judgement.reasons
    assert judged in report.foreign
    assert judged not in report.ours


def test_the_same_real_record_flips_with_the_viewpoint(shared_tmp, runs):
    """One real run: ours from its own checkout, foreign from a same-named other one."""
    mine = make_checkout(shared_tmp / "a", "proj")
    theirs = make_checkout(shared_tmp / "b", "proj")
    run = runs.run_tests_script(theirs)
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
    """Same checkout, other owner: root cannot be read across users, uid decides."""
    checkout = make_checkout(shared_tmp, "proj")
    run = runs.run_tests_script(checkout, uid=OTHER_UID)
    as_root = the_run(scan(viewpoint(cwd=str(checkout))), run.pid)
    assert as_root.run.root == str(checkout)
    assert as_root.foreign
    assert as_root.judgement.reasons == (
        f"uid {OTHER_UID} != 0",
        f"root {checkout} == {checkout}",
        "another user's run in this very checkout: it shares its files",
    )
    assert as_root.shares_tree


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
