"""One work budget for the task files of one command (``runners/tasks/budget.py``).

A few kilobytes of make variables can stand for gigabytes of recipe text; a
package.json of many long scripts for megabytes of shell text. Past the
budget a task is a run by its name, and otherwise one that *may* start a
run, with the budget's reason: a live run of its checkout is named in a
warning, never in silence. These tests prove it by outcome (what is found,
and the reason kept), never by time: a small budget makes a small project
reach it.
"""

from __future__ import annotations

from tasktools import maybe_runs, package, runs, write

from runctx.fastpath.scripts import MAX_PROJECT_FILE_BYTES
from runctx.runners.tasks import ProjectFiles, task_texts
from runctx.runners.tasks.budget import EXPANDED_CHARS_MAX, WorkBudget
from runctx.runners.tasks.files import MAX_TASKS
from runctx.runners.tasks.scripts import MAX_SCRIPT_CHARS
from runctx.runners.walk import resolve_command
from runctx.shell.commands import MAX_STEPS, MAX_TASK_DEPTH, TEXT_SPENT
from runctx.unknown import Reason, Unknown


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
    assert not isinstance(read, Unknown)
    assert read.cut is None
    assert read.texts[0].startswith("pytest pytest")
    assert roomy.work.unknown() is None

    tight = ProjectFiles()
    tight.work = WorkBudget(expanded_chars=100)
    why = task_texts(_call("make", "ci"), str(tmp_path), tight)
    assert isinstance(why, Unknown)
    assert why == tight.work.unknown()
    assert why.reason is Reason.UNPARSABLE
    assert "100 characters of expansion" in why.detail


def test_a_self_expanding_makefile_costs_no_more_than_the_budget(tmp_path):
    """7 KB of variables that fan out on every line: the default budget stops it, the name decides.

    Nine levels of variables are more than the expansion follows: the lines
    made before the budget ran out name no program, so what ``ci`` runs is not
    known, and ``ci`` is no run by its name: the command *may* start one, with
    the budget's reason. ``make test`` over the same file is still a run.
    """
    text = _fanning_makefile(lines=580)
    assert len(text) < 8 * 1024
    write(tmp_path / "Makefile", text)
    files = ProjectFiles()
    read = task_texts(_call("make", "ci"), str(tmp_path), files)
    assert read is not None
    assert not isinstance(read, Unknown)
    assert read.cut is not None
    assert len(read.texts) < 580
    why = files.work.unknown()
    assert why is not None
    assert f"{EXPANDED_CHARS_MAX} characters of expansion" in why.detail
    assert runs("make ci", tmp_path) == []
    assert maybe_runs("make ci", tmp_path) == [("make ci", why.detail)]
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
    assert not isinstance(read, Unknown)
    assert read.cut is not None
    assert 0 < len(read.texts) < 580
    assert read.texts[0].startswith("pytest pytest")
    assert files.work.unknown() is not None
    assert runs("make ci", tmp_path) == [("make-target", str(tmp_path))]
    assert maybe_runs("make ci", tmp_path) == []

    harmless = _fanning_makefile(lines=580, levels=5).replace("V0 = pytest", "V0 = echo")
    write(tmp_path / "Makefile", harmless)
    assert runs("make ci", tmp_path) == []
    assert [why for _, why in maybe_runs("make ci", tmp_path)] == [
        f"task files past the work budget: more than {EXPANDED_CHARS_MAX} characters of expansion"
    ]
    write(tmp_path / "Makefile", harmless.replace("ci:", "test:"))
    assert runs("make test", tmp_path) == [("make-test", str(tmp_path))]


def test_task_text_past_the_budget_is_not_parsed(tmp_path):
    """Scripts whose text together passes the budget are not handed to the shell parser."""
    package(tmp_path, unit="jest " + "x " * 100)
    files = ProjectFiles()
    files.work = WorkBudget(text_chars=300)
    assert task_texts(_call("npm", "run", "unit"), str(tmp_path), files) is not None
    assert files.work.unknown() is None
    why = task_texts(_call("npm", "run", "unit"), str(tmp_path), files)
    assert isinstance(why, Unknown)
    assert "300 characters of task text" in why.detail
    assert why == files.work.unknown()
    # once spent, no other task of the command is read either
    package(tmp_path / "other", unit="jest")
    assert task_texts(_call("npm", "run", "unit"), str(tmp_path / "other"), files) == why


def test_the_budget_is_one_for_the_whole_command(tmp_path):
    """Each task alone fits; the command's tasks together pass the budget and stop there."""
    package(tmp_path, a="echo " + "y" * 150, b="echo " + "z" * 150)
    files = ProjectFiles()
    files.work = WorkBudget(text_chars=250)
    assert task_texts(_call("npm", "run", "a"), str(tmp_path), files) is not None
    assert isinstance(task_texts(_call("npm", "run", "b"), str(tmp_path), files), Unknown)


def test_a_task_file_past_the_read_bound_may_start_a_run(tmp_path):
    """A Makefile or package.json larger than runctx reads: its tasks may run anything.

    A task that is a run by its name stays one; another is given as one that
    *may* start a run, with the file named; a missing file holds nothing.
    """
    big = "x" * (MAX_PROJECT_FILE_BYTES + 1)
    write(tmp_path / "Makefile", f"ci:\n\t@echo {big}\n")
    assert runs("make ci", tmp_path) == []
    why = f"Makefile is larger than {MAX_PROJECT_FILE_BYTES} bytes"
    assert maybe_runs("make ci", tmp_path) == [("make ci", why)]
    assert runs("make test", tmp_path) == [("make-test", str(tmp_path))]
    assert maybe_runs("make test", tmp_path) == []
    # a run known among the command's words decides for the command; the task stays a maybe
    assert runs("make ci && pytest", tmp_path) == [("pytest", str(tmp_path))]
    package(tmp_path / "node", unit="jest", pad=big)
    found = maybe_runs("npm run unit", tmp_path / "node")
    assert found == [
        ("npm run unit", f"package.json is larger than {MAX_PROJECT_FILE_BYTES} bytes")
    ]
    (tmp_path / "empty").mkdir()
    assert maybe_runs("make ci", tmp_path / "empty") == []
    assert maybe_runs("npm run unit", tmp_path / "empty") == []


def test_tasks_nested_past_the_depth_may_start_a_run(tmp_path):
    """``make a`` -> ``make b`` -> ...: past the depth runctx follows, what runs is not known."""
    depth = MAX_TASK_DEPTH + 1
    lines = [f"t{n}:\n\t$(MAKE) t{n + 1}\n" for n in range(depth)]
    write(tmp_path / "Makefile", "".join(lines) + f"t{depth}:\n\tpytest\n")
    assert runs("make t0", tmp_path) == []
    assert maybe_runs("make t0", tmp_path) == [
        ("make t0", f"tasks inside tasks, more than {MAX_TASK_DEPTH} deep")
    ]
    assert runs(f"make t{depth - MAX_TASK_DEPTH + 1}", tmp_path) == [("make-target", str(tmp_path))]


def test_a_task_that_runs_a_task_not_known_may_start_a_run(tmp_path):
    """What a task's lines start decides it: a run beats a task not read; that beats nothing."""
    big = "x" * (MAX_PROJECT_FILE_BYTES + 1)
    package(tmp_path, unit="jest", pad=big)
    write(tmp_path / "Makefile", "ci:\n\tnpm run unit\nboth:\n\tnpm run unit\n\tpytest\n")
    assert runs("make ci", tmp_path) == []
    assert [words for words, _ in maybe_runs("make ci", tmp_path)] == ["make ci"]
    assert runs("make both", tmp_path) == [("make-target", str(tmp_path))]
    assert maybe_runs("make both", tmp_path) == []
    write(tmp_path / "ci.sh", "#!/bin/sh\nnpm run unit\n")
    assert runs("sh ci.sh", tmp_path) == []
    assert [why for _, why in maybe_runs("sh ci.sh", tmp_path)] == [
        f"package.json is larger than {MAX_PROJECT_FILE_BYTES} bytes"
    ]


def test_more_tasks_than_runctx_expands_may_start_a_run(tmp_path):
    """A target whose prerequisites pass the tasks expanded: the rest is not known."""
    many = MAX_TASKS + 8
    targets = " ".join(f"t{n}" for n in range(many))
    rules = "".join(f"t{n}:\n\techo {n}\n" for n in range(many))
    write(tmp_path / "Makefile", f"ci: {targets}\n\techo done\n{rules}t{many - 1}:\n\tpytest\n")
    assert runs("make ci", tmp_path) == []
    assert maybe_runs("make ci", tmp_path) == [("make ci", f"more than {MAX_TASKS} tasks")]
    few = " ".join(f"t{n}" for n in range(MAX_TASKS // 2))
    write(tmp_path / "Makefile", f"ci: {few}\n\techo done\n{rules}")
    assert maybe_runs("make ci", tmp_path) == []


def test_a_project_script_past_what_runctx_reads_may_start_a_run(tmp_path):
    """``./ci.sh`` longer than runctx reads, with nothing run in what was: it may run tests."""
    script = tmp_path / "ci.sh"
    padding = "# " + "x" * 78 + "\n"
    script.write_text("#!/bin/sh\n" + padding * (MAX_SCRIPT_CHARS // 80 + 1) + "pytest\n")
    script.chmod(0o755)
    assert runs("./ci.sh", tmp_path) == []
    assert maybe_runs("./ci.sh", tmp_path) == [
        ("./ci.sh", f"ci.sh is longer than {MAX_SCRIPT_CHARS} characters")
    ]
    script.write_text("#!/bin/sh\npytest\n" + padding * (MAX_SCRIPT_CHARS // 80 + 1))
    assert runs("./ci.sh", tmp_path) == [("project-script", str(tmp_path))]
    assert maybe_runs("./ci.sh", tmp_path) == []
    script.write_text("#!/bin/sh\n" + padding * (MAX_PROJECT_FILE_BYTES // 80 + 1))
    assert maybe_runs("./ci.sh", tmp_path) == [
        ("./ci.sh", f"ci.sh is larger than {MAX_PROJECT_FILE_BYTES} bytes")
    ]
    script.write_text("#!/bin/sh\necho fine\n")
    assert maybe_runs("./ci.sh", tmp_path) == []
    assert runs("./ci.sh", tmp_path) == []


def test_a_recipe_longer_than_the_parser_reads_may_start_a_run(tmp_path):
    """A recipe past the parser's step budget, pytest on its last line: it may run tests."""
    lines = "".join(f"\techo step {n} of the build\n" for n in range(MAX_STEPS // 12 + 20))
    write(tmp_path / "Makefile", f"ci:\n{lines}\tpytest\n")
    assert runs("make ci", tmp_path) == []
    assert maybe_runs("make ci", tmp_path) == [("make ci", TEXT_SPENT.detail)]
    write(tmp_path / "Makefile", f"ci:\n\tpytest\n{lines}")
    assert runs("make ci", tmp_path) == [("make-target", str(tmp_path))]
