"""The runner table (``runners/table.py``): its forms across ecosystems.

The walk (:mod:`runctx.runners.walk`) fed argvs as ``/proc/PID/cmdline`` shows
them, over the builtin rows: runners behind their wrappers, workers,
look-alikes that run no tests, task runners' tasks, directory options. The
forms are data in ``runnercases.py``; the same rows on real processes are in
``test_runners_table_live.py``, command strings in ``test_corpus.py``.
"""

from __future__ import annotations

import pytest
from runnercases import FORMS, NOT_RUNS, TASK_FORMS, WORKER_FORMS, ids

from runctx.runners import RunnerMatch, detect_runner, resolve_command
from runctx.runners.pattern import TASK_ROLE


@pytest.mark.parametrize(("argv", "kind"), WORKER_FORMS, ids=ids(WORKER_FORMS))
def test_a_worker_form_is_a_worker(argv, kind):
    """Workers are detected with role worker: they fold into a runner above them, if any."""
    assert detect_runner(argv) == RunnerMatch(kind, "worker")


@pytest.mark.parametrize(("argv", "kind"), FORMS, ids=ids(FORMS))
def test_a_form_names_its_runner(argv, kind):
    """Each runner form, behind its wrappers, is detected as its kind."""
    match = detect_runner(argv)
    assert match is not None
    assert match.kind == kind
    assert match.role in {"runner", "worker"}


@pytest.mark.parametrize("argv", NOT_RUNS, ids=[" ".join(a) for a in NOT_RUNS])
def test_a_look_alike_is_no_run(argv):
    """Installers, listings, dry runs, skip flags and excluded test tasks are no runs."""
    match = detect_runner(argv)
    assert match is None or match.role == TASK_ROLE


@pytest.mark.parametrize(("argv", "kind", "names"), TASK_FORMS, ids=ids(TASK_FORMS))
def test_a_task_runner_names_its_tasks(argv, kind, names):
    """A task runner's task that is no run by name is a task, with the names it asks for."""
    assert detect_runner(argv) == RunnerMatch(kind, TASK_ROLE)
    resolution = resolve_command(argv)
    assert resolution.match is None
    assert resolution.task is not None
    assert (resolution.task.kind, resolution.task.names) == (kind, names)


@pytest.mark.parametrize(
    "argv",
    [
        ["npm", "run"],  # lists the scripts
        ["npm", "install"],
        ["yarn"],
        ["yarn", "add", "jest"],
        ["pnpm", "install"],
        ["hatch", "env", "create"],
        ["make", "-n"],
        ["just", "--list"],
        ["git", "commit", "--no-verify", "-m", "x"],
        ["git", "commit", "-nm", "x"],
        ["git", "push", "--dry-run"],
        ["git", "status"],
    ],
)
def test_a_task_runner_doing_its_own_work_is_no_task(argv):
    """Installing, listing and other own subcommands of a task runner are not tasks."""
    assert detect_runner(argv) is None


@pytest.mark.parametrize(
    ("argv", "chdir"),
    [
        (["make", "-C", "../b/proj", "test"], "../b/proj"),
        (["make", "--directory=../b/proj", "test"], "../b/proj"),
        (["make", "--directory", "sub", "-C", "deeper", "check"], "sub/deeper"),
        (["pnpm", "-C", "web", "test"], "web"),
        (["pnpm", "--dir=web", "exec", "vitest"], "web"),
        (["go", "-C", "svc", "test", "./..."], "svc"),
        (["yarn", "--cwd", "web", "test"], "web"),
        (["yarn", "--cwd", "web", "jest"], "web"),
        (["npm", "--prefix", "web", "test"], "web"),
        (["npm", "-C", "web", "run", "test:unit"], "web"),
        (["bun", "--cwd", "web", "test"], "web"),
        (["ninja", "-C", "build", "test"], "build"),
        (["meson", "test", "-C", "builddir"], "builddir"),
        (["ctest", "--test-dir", "build", "-j4"], "build"),
        (["./gradlew", "-p", "android", "test"], "android"),
        (["mvn", "-f", "backend/pom.xml", "verify"], "backend"),
        (["mvn", "-f", "backend", "test"], "backend"),
        (["cargo", "test", "--manifest-path", "crates/core/Cargo.toml"], "crates/core"),
        (["tox", "-c", "py/tox.ini"], "py"),
        (["rake", "-C", "gem", "spec"], "gem"),
        (["git", "-C", "other", "bisect", "run", "pytest"], "other"),
        (["env", "-C", "a", "make", "-C", "b", "test"], "a/b"),
        (["systemd-run", "--user", "--working-directory=/srv/app", "pytest"], "/srv/app"),
        (["make", "-C", "/abs/proj", "test"], "/abs/proj"),
    ],
)
def test_directory_options_move_the_run(argv, chdir):
    """A runner's or wrapper's directory option says where the run works, like ``cd DIR &&``."""
    resolution = resolve_command(argv)
    assert resolution.match is not None or resolution.task is not None
    assert resolution.chdir == chdir
