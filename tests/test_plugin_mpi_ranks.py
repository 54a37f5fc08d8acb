"""The ranks of one MPI launch are one run: the plugin in each says nothing of the others.

``mpirun -n 2 python -m pytest`` starts two pytest processes of the same
checkout at once, each in a process group of its own. They are one run (the
launcher is its authoritative process, :data:`runctx.runners.wrappers.WRAPPERS`):
the plugin in one rank must not call the other "another test run of this
checkout", nor count it among the runs of this checkout that started after it
or contended with it. A busy box may still be reported: the suite's own load
is not this test's to control. A real Open MPI launch, orphaned so that it
does not fold into the suite's own run.
"""

from __future__ import annotations

import sys

from proctools import make_checkout, wait_for
from require import require
from runfactory import clean_env

HOLDING_TEST = """
import pathlib, time
def test_holds():
    ready = pathlib.Path(__file__).parent.parent / "ready"
    ready.mkdir(exist_ok=True)
    (ready / str(__import__("os").getpid())).touch()
    deadline = time.monotonic() + 60
    while len(list(ready.iterdir())) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(1)
"""
"""A test each rank runs: it waits until both ranks are in their tests, then holds a moment."""


def test_the_other_rank_is_not_another_run_of_the_checkout(shared_tmp, runs):
    """Both ranks pass, and neither's plugin names the other as a run of the checkout."""
    mpirun = require("mpirun")
    checkout = make_checkout(shared_tmp)
    (checkout / "tests").mkdir()
    (checkout / "tests" / "test_hold.py").write_text(HOLDING_TEST)
    out = checkout / "out"
    command = (
        f"{mpirun} --allow-run-as-root --oversubscribe -n 2 "
        f"{sys.executable} -m pytest -q -p no:cacheprovider -p no:randomly tests"
        f" > {out} 2>&1; echo $? > {checkout / 'status'}"
    )
    runs.orphan(["sh", "-c", command], checkout, env=clean_env(), executable="/bin/sh")
    wait_for((checkout / "status").exists, what="the two ranks to end")
    said = out.read_text()
    assert (checkout / "status").read_text().strip() == "0", said
    assert said.count("1 passed") == 2, said
    assert len(list((checkout / "ready").iterdir())) == 2, said
    # Every line on runs of this checkout says "run(s) of this checkout": the
    # header's live runs, those started after the session, the summary's.
    assert "run of this checkout" not in said, said
    assert "runs of this checkout" not in said, said
    assert "started after this session" not in said, said
