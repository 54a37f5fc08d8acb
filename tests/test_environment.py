"""The environment of a run (real processes, both sources) and of a command (real directories)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

import pytest
from envtools import make_venv, venv_python
from proctools import record_of
from runfactory import RUN_TESTS_SCRIPT, SLEEPER, RunFactory, clean_env

from runctx.environment import (
    CONDA,
    NODE_MODULES,
    SYSTEM,
    VENV,
    Environment,
    View,
    command_environment,
    python_environment,
    same_environment,
)
from runctx.sources import make_source
from runctx.unknown import Reason, Unknown

SOURCES = ["procfs", "psutil"]


@pytest.fixture(scope="module")
def base() -> Path:
    """A directory every uid may enter, for the module's environments."""
    path = Path(tempfile.mkdtemp(prefix="runctx-env-")).resolve()
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="module")
def venv(base) -> Path:
    """A venv (its ``python`` a link to the base interpreter)."""
    return make_venv(base / "venv")


@pytest.fixture(scope="module")
def copied(base) -> Path:
    """A venv made with ``--copies``: its ``python`` is a file of its own."""
    path = base / "copied"
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", "--copies", str(path)],
        check=True,
        capture_output=True,
    )
    return path


def directory_id(path: Path) -> tuple[int, int]:
    """The (device, inode) of a directory, as stat gives it."""
    found = path.stat()
    return (found.st_dev, found.st_ino)


def start(runs: RunFactory, argv0: str, scratch: Path, **popen) -> int:
    """A python sleeper started as ``argv0`` (a path, or a name found on ``PATH``): its pid."""
    ready = scratch / f"ready-{uuid.uuid4().hex}"
    executable = popen.pop("executable", None)
    process = runs.child(
        [argv0, "-c", SLEEPER, str(ready)], ready=ready, executable=executable, **popen
    )
    return process.pid


def environment_of(
    source_name: str, pid: int, virtual_env: str | None = None, path: str | None = None
):
    """The environment the named source finds for the process ``pid`` alone.

    ``virtual_env`` and ``path``: its ``$VIRTUAL_ENV`` and ``$PATH`` as the scan would give them.
    """
    source = make_source(source_name)
    record = record_of(source, pid)
    variables = {"VIRTUAL_ENV": virtual_env or "", "PATH": path or ""}
    return source.environment([record], (lambda _identity: variables) if virtual_env else None)


@pytest.mark.parametrize("source", SOURCES)
def test_a_venvs_python_is_its_venv(source, venv, base, runs):
    """A python started by its venv path is that venv, though ``/proc/PID/exe`` is the base's."""
    pid = start(runs, str(venv_python(venv)), base)
    found = environment_of(source, pid)
    assert isinstance(found, Environment), found
    assert (found.kind, found.prefix, found.found_by) == (VENV, str(venv), "argv[0]")
    assert found.directory_id == directory_id(venv)
    assert found.shareable
    assert os.path.realpath(f"/proc/{pid}/exe") != str(venv_python(venv))  # the base's file


@pytest.mark.parametrize("source", SOURCES)
def test_a_relative_argv0_is_resolved_from_the_cwd(source, venv, base, runs):
    """``venv/bin/python`` started in the venv's parent: the venv, shown as an absolute path."""
    pid = start(runs, "venv/bin/python", base, cwd=base, executable=str(venv_python(venv)))
    found = environment_of(source, pid)
    assert isinstance(found, Environment), found
    assert (found.kind, found.prefix) == (VENV, str(venv))
    assert found.directory_id == directory_id(venv)


@pytest.mark.parametrize("source", SOURCES)
def test_a_bare_name_is_its_venv_by_virtual_env_and_else_the_system(source, venv, base, runs):
    """``python`` on ``PATH``: ``$VIRTUAL_ENV`` names the venv; without it, the base prefix."""
    env = clean_env(PATH=f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}")
    pid = start(runs, "python", base, env=env, executable=str(venv_python(venv)))
    found = environment_of(source, pid, virtual_env=str(venv), path=env["PATH"])
    assert isinstance(found, Environment), found
    assert (found.kind, found.prefix, found.found_by) == (VENV, str(venv), "VIRTUAL_ENV")
    plain = environment_of(source, pid)
    assert isinstance(plain, Environment), plain
    assert (plain.kind, plain.found_by) == (SYSTEM, "/proc/PID/exe")
    assert not plain.shareable


@pytest.mark.parametrize("source", SOURCES)
def test_virtual_env_is_believed_only_for_the_file_that_runs(source, venv, copied, base, runs):
    """A ``$VIRTUAL_ENV`` whose python is another file than the one running is not believed."""
    env = clean_env(PATH=f"{copied / 'bin'}{os.pathsep}{os.environ['PATH']}")
    pid = start(runs, "python", base, env=env, executable=str(venv_python(copied)))
    found = environment_of(source, pid, virtual_env=str(venv), path=env["PATH"])
    assert isinstance(found, Environment), found
    assert (found.kind, found.prefix, found.found_by) == (VENV, str(copied), "/proc/PID/exe")


def _base_interpreter(venv: Path) -> Path:
    """The interpreter a venv's ``python`` links to (what ``/proc/PID/exe`` shows)."""
    return Path(os.path.realpath(venv_python(venv)))


@pytest.mark.parametrize("source", SOURCES)
def test_a_stale_virtual_env_with_a_path_elsewhere_is_not_believed(source, venv, base, runs):
    """A bare ``python`` whose ``$PATH`` finds the base interpreter: not the venv it names.

    ``$VIRTUAL_ENV`` is left over, the venv's ``python`` is the very file that
    runs (a link to it), but ``$PATH`` leads elsewhere: it imports from the
    base. With the venv's ``bin`` first on ``$PATH``, it is the venv.
    """
    interpreter = _base_interpreter(venv)
    stale = clean_env(PATH=f"{interpreter.parent}{os.pathsep}/usr/bin", VIRTUAL_ENV=str(venv))
    pid = start(runs, interpreter.name, base, env=stale, executable=str(interpreter))
    found = environment_of(source, pid, virtual_env=str(venv), path=stale["PATH"])
    assert isinstance(found, Environment), found
    assert found.kind != VENV
    assert found.found_by == "/proc/PID/exe"
    (venv / "bin" / interpreter.name).unlink(missing_ok=True)
    (venv / "bin" / interpreter.name).symlink_to(interpreter)
    through = f"{venv / 'bin'}{os.pathsep}{stale['PATH']}"
    found = environment_of(source, pid, virtual_env=str(venv), path=through)
    assert isinstance(found, Environment), found
    assert (found.kind, found.found_by) == (VENV, "VIRTUAL_ENV")


@pytest.mark.parametrize("source", SOURCES)
def test_a_process_that_is_neither_python_nor_node_has_none(source, base, runs):
    """``sleep`` shows no environment: an explicit unknown, never a guess."""
    ready = base / f"ready-{uuid.uuid4().hex}"
    process = runs.child(["sh", "-c", f'touch "{ready}"; exec sleep 300'], ready=ready)
    found = environment_of(source, process.pid)
    assert isinstance(found, Unknown)
    assert found.reason is Reason.ABSENT


@pytest.mark.parametrize("source", SOURCES)
def test_a_node_modules_path_in_the_command_is_its_environment(source, base, runs):
    """``sh .../node_modules/.bin/tool``: the ``node_modules`` directory it runs from."""
    modules = base / f"pkg-{uuid.uuid4().hex}" / "node_modules"
    (modules / ".bin").mkdir(parents=True)
    tool = modules / ".bin" / "holder"
    tool.write_text('touch "$1"\nsleep 300\n')
    ready = base / f"ready-{uuid.uuid4().hex}"
    process = runs.child(["sh", str(tool), str(ready)], ready=ready)
    found = environment_of(source, process.pid)
    assert isinstance(found, Environment), found
    assert (found.kind, found.prefix) == (NODE_MODULES, str(modules))
    assert found.directory_id == directory_id(modules)


def test_a_conda_prefix_is_told_from_a_system_one(tmp_path):
    """``conda-meta`` above the interpreter makes a conda env; a bare prefix is the system's."""
    (tmp_path / "conda" / "bin").mkdir(parents=True)
    (tmp_path / "conda" / "conda-meta").mkdir()
    (tmp_path / "usr" / "bin").mkdir(parents=True)
    conda = python_environment(View(), str(tmp_path / "conda" / "bin" / "python"), "test")
    system = python_environment(View(), str(tmp_path / "usr" / "bin" / "python3"), "test")
    assert conda is not None
    assert system is not None
    assert (conda.kind, system.kind) == (CONDA, SYSTEM)
    assert conda.shareable
    assert not system.shareable


def test_environments_are_compared_as_directories(venv, base):
    """A symlink to a venv is that venv; another venv, or an unknown, is not."""
    link = base / f"link-{uuid.uuid4().hex}"
    link.symlink_to(venv)
    one = python_environment(View(), str(venv / "bin" / "python"), "test")
    two = python_environment(View(), str(link / "bin" / "python"), "test")
    assert one is not None
    assert two is not None
    assert one.prefix != two.prefix
    assert same_environment(one, two)
    assert not same_environment(one, Unknown(Reason.DENIED))


# --------------------------------------------------------------------------- commands


@pytest.fixture
def project(base, venv) -> Path:
    """A project whose ``.venv`` is a link to the shared venv, and a PATH to that venv."""
    path = base / f"proj-{uuid.uuid4().hex}"
    path.mkdir()
    (path / "pyproject.toml").write_text('[project]\nname = "p"\nversion = "0"\n')
    (path / ".venv").symlink_to(venv)
    return path


def test_a_path_to_an_environments_program_decides(project, venv):
    """``.venv/bin/python -m pip``, ``/abs/venv/bin/pytest``: that venv, whatever ``PATH`` says."""
    for argv in (
        [".venv/bin/python", "-m", "pip", "install", "-e", "."],
        ["env", "A=1", str(venv / "bin" / "pytest"), "-x"],
    ):
        found = command_environment("pip:install", argv, str(project), {"PATH": "/usr/bin"})
        assert found is not None, argv
        assert found.found_by == "the command's path"
        assert found.directory_id == directory_id(venv)


def test_a_bare_program_is_found_on_path(venv, base):
    """``pip install`` and ``pytest``: the venv whose ``bin`` holds the program ``PATH`` finds."""
    program = venv / "bin" / "pip"
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    environ = {"PATH": f"/nonexistent{os.pathsep}{venv / 'bin'}{os.pathsep}/usr/bin"}
    found = command_environment("pip:install", ["pip", "install", "-e", "."], str(base), environ)
    assert found is not None
    assert (found.kind, found.found_by, found.directory_id) == (
        VENV,
        "$PATH",
        directory_id(venv),
    )
    assert command_environment("pip:install", ["pip", "install"], str(base), {"PATH": ""}) is None


def test_uv_uses_the_projects_venv_and_uv_pip_the_active_one(project, venv, base):
    """``uv sync``/``uv run``: the project's ``.venv``; ``uv pip``: ``$VIRTUAL_ENV`` first."""
    other = make_venv(base / f"other-{uuid.uuid4().hex}")
    for argv in (["uv", "sync"], ["uv", "run", "pytest"], ["uv", "run", "pip", "install", "x"]):
        found = command_environment("uv:sync", argv, str(project / "sub"), {})
        assert found is not None, argv
        assert found.directory_id == directory_id(venv), argv
    active = command_environment(
        "uv:pip", ["uv", "pip", "install", "x"], str(project), {"VIRTUAL_ENV": str(other)}
    )
    assert active is not None
    assert active.directory_id == directory_id(other)
    nearest = command_environment("uv:pip", ["uv", "pip", "install", "x"], str(project), {})
    assert nearest is not None
    assert nearest.directory_id == directory_id(venv)
    python = command_environment(
        "uv:pip", ["uv", "pip", "install", "--python", str(other / "bin" / "python"), "x"], "/", {}
    )
    assert python is not None
    assert python.directory_id == directory_id(other)


def test_pdm_poetry_and_hatch_follow_their_own_rules(project, venv, base):
    """pdm: ``.pdm-python``; poetry: ``$VIRTUAL_ENV``, else ``.venv``; hatch: its ``path``."""
    other = make_venv(base / f"other-{uuid.uuid4().hex}")
    (project / ".pdm-python").write_text(str(other / "bin" / "python") + "\n")
    pdm = command_environment("pdm:install", ["pdm", "install"], str(project), {})
    assert pdm is not None
    assert pdm.directory_id == directory_id(other)
    poetry = command_environment("poetry:install", ["poetry", "install"], str(project), {})
    assert poetry is not None
    assert poetry.directory_id == directory_id(venv)
    active = command_environment(
        "poetry:install", ["poetry", "install"], str(project), {"VIRTUAL_ENV": str(other)}
    )
    assert active is not None
    assert active.directory_id == directory_id(other)
    assert command_environment("hatch:env-create", ["hatch", "env", "create"], str(project)) is None
    (project / "pyproject.toml").write_text(
        f'[project]\nname = "p"\nversion = "0"\n[tool.hatch.envs.default]\npath = "{other}"\n'
    )
    hatch = command_environment("hatch:env-create", ["hatch", "env", "create"], str(project))
    assert hatch is not None
    assert hatch.directory_id == directory_id(other)


def test_npm_changes_the_packages_node_modules(base):
    """``npm ci`` in a package (or a directory below it): its ``node_modules``, a link followed."""
    shared = base / f"shared-{uuid.uuid4().hex}" / "node_modules"
    shared.mkdir(parents=True)
    package = base / f"pkg-{uuid.uuid4().hex}"
    (package / "lib").mkdir(parents=True)
    (package / "package.json").write_text("{}")
    (package / "node_modules").symlink_to(shared)
    for argv, cwd in ((["npm", "ci"], package / "lib"), (["npx", "jest"], package)):
        found = command_environment("npm:install", argv, str(cwd), {})
        assert found is not None, argv
        assert (found.kind, found.directory_id) == (NODE_MODULES, directory_id(shared))
    jest = command_environment("jest", ["jest"], str(package), {})
    assert jest is not None
    assert jest.directory_id == directory_id(shared)


# --------------------------------------------------------------------------- through a scan


def _scanned_environment(checkout: Path, pid: int):
    """The environment a real scan from ``checkout`` gives the run led by ``pid``."""
    from runctx.scanning import scan, viewpoint

    report = scan(viewpoint(cwd=str(checkout)))
    (judged,) = [j for j in report.runs if j.run.pid == pid]
    return judged.run


def test_a_scan_does_not_believe_a_stale_virtual_env(venv, base, runs):
    """A run started as a bare ``python3.X`` with a stale ``$VIRTUAL_ENV`` and ``$PATH`` elsewhere.

    The scan reads both from the run's own environment: the run is not the
    venv's (``on-environment-change`` cannot refuse on it).
    """
    from proctools import make_checkout

    checkout = make_checkout(base, f"stale-{uuid.uuid4().hex}")
    (checkout / "run_tests.py").write_text(RUN_TESTS_SCRIPT)
    interpreter = _base_interpreter(venv)
    ready = base / f"ready-{uuid.uuid4().hex}"
    env = clean_env(PATH=f"{interpreter.parent}{os.pathsep}/usr/bin", VIRTUAL_ENV=str(venv))
    run = runs.orphan(
        [interpreter.name, "run_tests.py", str(ready)],
        checkout,
        env=env,
        executable=str(interpreter),
        ready=ready,
    )
    found = _scanned_environment(checkout, run.pid).environment
    assert isinstance(found, Environment), found
    assert found.kind != VENV
    assert found.directory_id != directory_id(venv)


MAKEFILE = """\
test:
\t{python} -c "import os, sys; os.setgroups([]); os.setgid({uid}); os.setuid({uid}); \\
os.execve(sys.argv[1], ['python', sys.argv[2], sys.argv[3]], \\
{{'VIRTUAL_ENV': sys.argv[4], 'PATH': sys.argv[5], **{libraries}}})" \\
{python} {holder} {ready} {venv} {path}
"""


@pytest.mark.needs_root
@pytest.mark.parametrize("source", SOURCES)
def test_another_users_member_of_roots_run_has_its_environment_unread(source, shared_tmp, runs):
    """Root's ``make test`` runs another user's ``python`` with a private ``$VIRTUAL_ENV``.

    The check is per process, at the read: that member's environment is
    never read (the source says so), and its private venv never shows.
    """
    from proctools import OTHER_UID, interpreter_for, make_checkout
    from readable import mirror

    from runctx.scanning import scan, viewpoint

    python = interpreter_for(OTHER_UID)
    private = make_venv(shared_tmp / "private-venv", python)
    checkout = make_checkout(shared_tmp, "proj")
    checkout.chmod(0o755)
    holder = shared_tmp / "holder.py"
    holder.write_text(RUN_TESTS_SCRIPT)
    ready = shared_tmp / "ready"
    shared_tmp.chmod(0o777)
    path = f"{private / 'bin'}{os.pathsep}/usr/bin"
    (checkout / "Makefile").write_text(
        MAKEFILE.format(
            python=python,
            uid=OTHER_UID,
            holder=holder,
            ready=ready,
            venv=private,
            path=path,
            # the shared libpython the interpreter needs, where that uid may read it
            libraries=repr(mirror().environment({}, python)),
        )
    )
    make = runs.orphan(
        ["make", "test"], checkout, env=clean_env(), executable=shutil.which("make"), ready=ready
    )
    report = scan(viewpoint(cwd=str(checkout)), source=make_source(source))
    (judged,) = [j for j in report.runs if j.run.pid == make.pid]
    members = [pid for pid in judged.run.members if pid != make.pid]
    assert members, judged.run
    assert str(private) not in repr(judged.run.environment)
    assert str(private) not in repr(judged.run.started_by)
    import psutil

    theirs = [pid for pid in members if psutil.Process(pid).uids().real == OTHER_UID]
    assert theirs, members
    reader = make_source(source)
    records = reader.table().records
    for pid in theirs:
        environ = reader.inherited(records[pid].identity, frozenset({"VIRTUAL_ENV"})).environ
        assert isinstance(environ, Unknown)
        assert "never read" in environ.detail
    mine = records[make.pid]
    assert not isinstance(reader.inherited(mine.identity, frozenset({"PATH"})).environ, Unknown)
