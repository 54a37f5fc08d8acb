"""One work budget for the task files of one command (``runners/tasks/budget.py``).

A few kilobytes of make variables can stand for gigabytes of recipe text; a
package.json of many long scripts for megabytes of shell text. Past the
budget the task is decided by its name, and the budget says why. These
tests prove it by outcome (what is found, and the reason kept), never by
time: a small budget makes a small project reach it.
"""

from __future__ import annotations

from tasktools import package, runs, write

from runctx.runners.tasks import ProjectFiles, task_texts
from runctx.runners.tasks.budget import EXPANDED_CHARS_MAX, WorkBudget
from runctx.runners.walk import resolve_command
from runctx.unknown import Reason


def _call(*argv):
    call = resolve_command(list(argv)).task
    assert call is not None, argv
    return call


def _fanning_makefile(lines: int, fan: int = 12, levels: int = 8) -> str:
    """Variables of ``fan`` references each, ``levels`` deep, on every recipe line of ``ci``."""
    text = ["V0 = pytest"]
    text += [f"V{n} = " + " ".join([f"$(V{n - 1})"] * fan) for n in range(1, levels + 1)]
    text.append("ci:")
    text += [f"\t$(V{levels}) {n}" for n in range(lines)]
    return "\n".join(text) + "\n"


def test_expansion_past_the_budget_gives_up_with_a_reason(tmp_path):
    """A makefile whose lines expand into each other stops at the budget: unknown, with why."""
    write(tmp_path / "Makefile", _fanning_makefile(lines=3, fan=2, levels=3))
    roomy = ProjectFiles()
    read = task_texts(_call("make", "ci"), str(tmp_path), roomy)
    assert read is not None
    assert read.whole
    assert read.texts[0].startswith("pytest pytest")
    assert roomy.work.unknown() is None

    tight = ProjectFiles()
    tight.work = WorkBudget(expanded_chars=100)
    assert task_texts(_call("make", "ci"), str(tmp_path), tight) is None
    why = tight.work.unknown()
    assert why is not None
    assert why.reason is Reason.UNPARSABLE
    assert "100 characters of expansion" in why.detail


def test_a_self_expanding_makefile_costs_no_more_than_the_budget(tmp_path):
    """7 KB of variables that fan out on every line: the default budget stops it, the name decides.

    Nine levels of variables are more than the expansion follows: the lines
    made before the budget ran out name no program, so what ``ci`` runs is not
    known, and ``ci`` is no run by its name: the command is let through as one
    whose text is not known. ``make test`` over the same file is still a run.
    """
    text = _fanning_makefile(lines=580)
    assert len(text) < 8 * 1024
    write(tmp_path / "Makefile", text)
    files = ProjectFiles()
    read = task_texts(_call("make", "ci"), str(tmp_path), files)
    assert read is not None
    assert not read.whole
    assert len(read.texts) < 580
    why = files.work.unknown()
    assert why is not None
    assert f"{EXPANDED_CHARS_MAX} characters of expansion" in why.detail
    assert runs("make ci", tmp_path) == []
    write(tmp_path / "Makefile", text.replace("ci:", "test:"))
    assert runs("make test", tmp_path) == [("make-test", str(tmp_path))]


def test_the_lines_made_before_the_budget_ran_out_still_decide(tmp_path):
    """A recipe whose first lines run pytest is a run though the rest was past the budget.

    Six levels of variables fanning out on 580 lines: the first lines are made
    whole, then the budget runs out. A runner among them makes ``make ci`` a
    run; lines that run none leave the rest unknown, and the name decides.
    """
    write(tmp_path / "Makefile", _fanning_makefile(lines=580, levels=5))
    files = ProjectFiles()
    read = task_texts(_call("make", "ci"), str(tmp_path), files)
    assert read is not None
    assert not read.whole
    assert 0 < len(read.texts) < 580
    assert read.texts[0].startswith("pytest pytest")
    assert files.work.unknown() is not None
    assert runs("make ci", tmp_path) == [("make-target", str(tmp_path))]

    harmless = _fanning_makefile(lines=580, levels=5).replace("V0 = pytest", "V0 = echo")
    write(tmp_path / "Makefile", harmless)
    assert runs("make ci", tmp_path) == []
    write(tmp_path / "Makefile", harmless.replace("ci:", "test:"))
    assert runs("make test", tmp_path) == [("make-test", str(tmp_path))]


def test_task_text_past_the_budget_is_not_parsed(tmp_path):
    """Scripts whose text together passes the budget are not handed to the shell parser."""
    package(tmp_path, unit="jest " + "x " * 100)
    files = ProjectFiles()
    files.work = WorkBudget(text_chars=300)
    assert task_texts(_call("npm", "run", "unit"), str(tmp_path), files) is not None
    assert files.work.unknown() is None
    assert task_texts(_call("npm", "run", "unit"), str(tmp_path), files) is None
    why = files.work.unknown()
    assert why is not None
    assert "300 characters of task text" in why.detail
    # once spent, no other task of the command is read either
    package(tmp_path / "other", unit="jest")
    assert task_texts(_call("npm", "run", "unit"), str(tmp_path / "other"), files) is None


def test_the_budget_is_one_for_the_whole_command(tmp_path):
    """Each task alone fits; the command's tasks together pass the budget and stop there."""
    package(tmp_path, a="echo " + "y" * 150, b="echo " + "z" * 150)
    files = ProjectFiles()
    files.work = WorkBudget(text_chars=250)
    assert task_texts(_call("npm", "run", "a"), str(tmp_path), files) is not None
    assert task_texts(_call("npm", "run", "b"), str(tmp_path), files) is None
