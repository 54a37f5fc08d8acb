"""The 3x3 table of ``judge()``: each ground same, different or unknown, on one real run.

The record is a real run's, taken from a real scan; the nine cells are the
viewpoints it is judged from (the viewpoint is a parameter of the predicate).
"""

from __future__ import annotations

import os

from scenes import two_checkouts

from runctx.identity import Verdict, foreign_reasons, is_foreign, judge
from runctx.scanning import scan, viewpoint
from runctx.unknown import Reason, Unknown

OURS, FOREIGN, UNKNOWN = Verdict.OURS, Verdict.FOREIGN, Verdict.UNKNOWN

TABLE = {
    # (uid ground, root ground): (verdict, shares_tree)
    ("same", "same"): (OURS, False),
    ("same", "different"): (FOREIGN, False),
    ("same", "unknown"): (UNKNOWN, False),
    ("different", "same"): (FOREIGN, True),
    ("different", "different"): (FOREIGN, False),
    ("different", "unknown"): (FOREIGN, False),
    ("unknown", "same"): (UNKNOWN, False),
    ("unknown", "different"): (FOREIGN, False),
    ("unknown", "unknown"): (UNKNOWN, False),
}
"""A different ground makes a run foreign; both the same, ours; else unknown, never foreign.
Another uid in this very checkout shares its tree (the run's uid can write it)."""


def test_the_table_has_every_cell_once():
    """Nine cells: every pair of grounds, each once."""
    grounds = ("same", "different", "unknown")
    assert sorted(TABLE) == sorted((uid, root) for uid in grounds for root in grounds)


def test_judge_follows_the_table_on_a_real_run(shared_tmp, runs):
    """One real run judged from nine viewpoints gives the verdict of each cell, with reasons."""
    theirs, other = two_checkouts(shared_tmp)
    started = runs.run_tests_script(theirs)
    report = scan(viewpoint(cwd=str(theirs)))
    (record,) = [judged.run for judged in report.runs if judged.run.pid == started.pid]
    me = os.getuid()
    assert record.uid == me
    uids = {"same": me, "different": me + 1, "unknown": Unknown(Reason.DENIED)}
    roots = {
        "same": viewpoint(cwd=str(theirs)).root,
        "different": viewpoint(cwd=str(other)).root,
        "unknown": Unknown(Reason.DENIED),
    }
    for (uid_ground, root_ground), (verdict, shares) in TABLE.items():
        here, here_uid = roots[root_ground], uids[uid_ground]
        cell = f"uid {uid_ground}, root {root_ground}"
        judgement = judge(record, here, here_uid)
        assert judgement.verdict is verdict, cell
        assert judgement.shares_tree is shares, cell
        assert is_foreign(record, here, here_uid) is (verdict is FOREIGN), cell
        reasons = foreign_reasons(record, here, here_uid)
        assert reasons == judgement.reasons, cell
        uid_reason = {
            "same": f"uid {me} == {me}",
            "different": f"uid {me} != {me + 1}",
            "unknown": "uid unknown for the viewpoint: unreadable (denied)",
        }[uid_ground]
        root_reason = {
            "same": f"root {theirs} == {theirs}",
            "different": f"root {theirs} != {other}",
            "unknown": "root unknown for the viewpoint: ",
        }[root_ground]
        assert reasons[0] == uid_reason, cell
        assert reasons[1].startswith(root_reason), cell
        counted = "nothing was known: counted as ours" in reasons
        assert counted is ((uid_ground, root_ground) == ("unknown", "unknown")), cell
