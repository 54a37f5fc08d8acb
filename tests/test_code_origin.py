"""The code under test is this checkout's: real worktrees, one venv, a real editable install.

Two worktrees of one repository, ``a`` and ``b``, share one venv into which
``a`` was installed with ``pip install -e``. A pytest session in ``b`` then
imports ``a``'s code: each test prints the file its package came from, so
every claim of the header is checked against what really ran.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from envtools import (
    SharedWorktrees,
    make_project,
    make_venv,
    pip_install,
    shared_worktrees,
    venv_python,
)
from proctools import make_checkout
from runfactory import RunFactory, clean_env

from runctx import code_origin

EXIT_REFUSED = 75


@pytest.fixture(scope="module")
def shared(tmp_path_factory) -> SharedWorktrees:
    """A src-layout project: worktrees ``a`` and ``b``, ``a`` installed editable in one venv."""
    return shared_worktrees(tmp_path_factory.mktemp("code-origin"))


def run_session(
    runs: RunFactory, python: Path, checkout: Path, *args: str, console: bool = True
) -> tuple[int, str]:
    """A real pytest session of ``checkout``'s tests with ``python``: (exit status, output).

    ``console``: as the ``pytest`` console script starts it (``-P``: the
    current directory is not put on ``sys.path``), else as ``python -m pytest``.
    """
    logs = checkout.parent / f"{checkout.name}-logs"
    logs.mkdir(exist_ok=True)
    out = logs / f"out-{len(list(logs.iterdir()))}"
    env = clean_env()
    for name in ("PYTHONPATH", "PYTHONPYCACHEPREFIX", "RUNCTX_FRESH_PYCACHE", "VIRTUAL_ENV"):
        env.pop(name, None)
    flags = ["-P"] if console else []
    with out.open("wb") as stdout:
        process = runs.child(
            [str(python), *flags, "-m", "pytest", "-p", "no:cacheprovider", "-s", *args],
            cwd=checkout,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=stdout,
            stderr=subprocess.STDOUT,
        )
        status = process.wait()
    return status, out.read_text(errors="backslashreplace")


def header(output: str) -> list[str]:
    """The runctx lines before collection."""
    lines = []
    for line in output.splitlines():
        if line.startswith("collect"):
            break
        if line.startswith("runctx:"):
            lines.append(line)
    return lines


def imported_from(output: str) -> str:
    """Where the test's package came from, as the test printed it."""
    return next(line for line in output.splitlines() if "IMPORTED-FROM" in line).split()[-1]


def test_a_session_in_b_says_it_imports_as_code_and_why(shared, runs):
    """The header of a session in ``b`` names ``a``'s package and the editable install's target."""
    status, output = run_session(runs, venv_python(shared.venv), shared.b, "tests")
    assert status == 0, output
    ran = imported_from(output)
    assert ran == str(shared.a / "src" / "pkg" / "__init__.py")  # the trap is real
    lines = header(output)
    assert f"runctx: the code under test is not this checkout's ({shared.b})" in lines[0] or any(
        f"not this checkout's ({shared.b})" in line for line in lines
    ), output
    line = next(line for line in lines if "pkg will be imported from" in line)
    assert str(shared.a / "src" / "pkg") in line
    assert f"the editable install of pkg_project 0.1 in this environment points at {shared.a}" in (
        line
    )


def test_a_session_in_a_says_nothing_about_its_code(shared, runs):
    """In the checkout the install points at, nothing is said: the code is this checkout's."""
    status, output = run_session(runs, venv_python(shared.venv), shared.a, "tests")
    assert status == 0, output
    assert imported_from(output) == str(shared.a / "src" / "pkg" / "__init__.py")
    assert "code under test" not in output


def test_refuse_exits_75_before_any_test_runs(shared, runs):
    """``--runctx-code=refuse`` in ``b``: exit 75, no test ran, and the reason is said."""
    status, output = run_session(
        runs, venv_python(shared.venv), shared.b, "tests", "--runctx-code=refuse"
    )
    assert status == EXIT_REFUSED, output
    assert "IMPORTED-FROM" not in output
    assert "--runctx-code=refuse" in output
    assert f"points at {shared.a}" in output


def test_refuse_holds_for_a_package_a_test_imports_in_its_body(shared, runs):
    """A test that imports ``a``'s package only when it runs is refused too: no test runs."""
    lazy = shared.b / "lazy"
    lazy.mkdir()
    (lazy / "test_lazy.py").write_text(
        "def test_where():\n    import pkg\n\n    print('IMPORTED-FROM', pkg.where())\n"
    )
    try:
        status, output = run_session(
            runs, venv_python(shared.venv), shared.b, "lazy", "--runctx-code=refuse"
        )
    finally:
        shutil.rmtree(lazy)  # with the __pycache__ the session may write (PYTHONDONTWRITEBYTECODE)
    assert status == EXIT_REFUSED, output
    assert "IMPORTED-FROM" not in output
    assert f"pkg will be imported from {shared.a}" in output
    assert "runctx refused to run these tests" in output


def test_refuse_under_xdist_exits_75_at_the_start(shared, runs):
    """Under xdist the controller refuses at once: no worker runs a test."""
    status, output = run_session(
        runs, venv_python(shared.venv), shared.b, "tests", "-n", "2", "--runctx-code=refuse"
    )
    assert status == EXIT_REFUSED, output
    assert "passed" not in output


def test_refuse_in_the_checkout_installed_runs_the_tests(shared, runs):
    """``refuse`` refuses only on a finding: in ``a`` the tests run."""
    status, output = run_session(
        runs, venv_python(shared.venv), shared.a, "tests", "--runctx-code=refuse"
    )
    assert status == 0, output
    assert "1 passed" in output


def test_a_pythonpath_to_this_checkout_clears_it(shared, runs):
    """With ``pythonpath = src`` the session in ``b`` imports ``b``'s code, and says nothing."""
    (shared.b / "pytest.ini").write_text("[pytest]\npythonpath = src\n")
    try:
        status, output = run_session(runs, venv_python(shared.venv), shared.b, "tests")
    finally:
        (shared.b / "pytest.ini").unlink()
    assert status == 0, output
    assert imported_from(output) == str(shared.b / "src" / "pkg" / "__init__.py")
    assert "code under test" not in output


def test_a_tests_package_in_a_flat_layout_is_foreseen(tmp_path, runs):
    """Flat layout, ``tests/__init__.py``: pytest puts ``b`` first, so nothing is said.

    And without ``tests/__init__.py`` pytest puts only ``tests/`` first: ``a``'s
    code runs, and the header says so. The prediction follows pytest's rule.
    """
    flat = shared_worktrees(tmp_path, layout="flat")
    python = venv_python(flat.venv)
    status, output = run_session(runs, python, flat.b, "tests")
    assert status == 0, output
    assert imported_from(output) == str(flat.b / "pkg" / "__init__.py")
    assert "code under test" not in output
    (flat.b / "tests" / "__init__.py").unlink()
    status, output = run_session(runs, python, flat.b, "tests")
    assert status == 0, output
    assert imported_from(output) == str(flat.a / "pkg" / "__init__.py")
    assert any("pkg will be imported from" in line for line in header(output)), output


def test_a_copy_installed_from_a_is_named_as_such(tmp_path, runs):
    """A non-editable install from ``a``: the session in ``b`` runs the copy, and says whose."""
    copied = shared_worktrees(tmp_path, editable=False)
    status, output = run_session(runs, venv_python(copied.venv), copied.b, "tests")
    assert status == 0, output
    ran = imported_from(output)
    assert "site-packages" in ran
    line = next(line for line in header(output) if "pkg will be imported from" in line)
    assert f"non-editable install of pkg_project 0.1 made from {copied.a}" in line


def test_a_package_taken_from_elsewhere_while_collecting_is_said_after_collection(shared, runs):
    """A test module that puts ``b``'s source first while it is collected: said once collected.

    At the start, the session in ``a`` imports ``a``'s code; what collection
    really imported is checked again, and ``--runctx-code=refuse`` refuses on it.
    """
    late = shared.a / "tests" / "test_0_late.py"
    late.write_text(
        f"import sys\nsys.path.insert(0, {str(shared.b / 'src')!r})\nimport pkg  # noqa\n"
    )
    try:
        status, output = run_session(runs, venv_python(shared.venv), shared.a, "tests")
        refused, refusal = run_session(
            runs, venv_python(shared.venv), shared.a, "tests", "--runctx-code=refuse"
        )
    finally:
        late.unlink()
    assert status == 0, output
    assert imported_from(output) == str(shared.b / "src" / "pkg" / "__init__.py")
    assert not any("pkg" in line for line in header(output)), output
    assert any(f"pkg is imported from {shared.b}" in line for line in output.splitlines()), output
    assert refused == EXIT_REFUSED, refusal
    assert "IMPORTED-FROM" not in refusal


# --------------------------------------------------------------------------- pieces, real files


def test_worktrees_share_a_repository_and_a_clone_does_not(shared, tmp_path):
    """``repository_of`` is one git common directory for two worktrees, another for a clone."""
    assert code_origin.repository_of(str(shared.a)) == code_origin.repository_of(str(shared.b))
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(shared.a), str(clone)], check=True)
    assert code_origin.repository_of(str(clone)) != code_origin.repository_of(str(shared.a))


def test_the_install_is_this_projects_from_b_and_not_from_an_unrelated_checkout(shared, tmp_path):
    """From ``b`` the editable install of ``a`` is this project's; from another project, not."""
    purelib = next((shared.venv / "lib").glob("python*/site-packages"))
    installs = code_origin.checkout_installs([str(purelib)])
    assert [(i.name, i.source, i.editable) for i in installs] == [
        ("pkg_project", str(shared.a), True)
    ]
    ours = code_origin.project_installs(str(shared.b), installs)
    assert [why for _, why in ours] == ["installed from another checkout of this repository"]
    other = make_checkout(tmp_path, "unrelated")
    assert code_origin.project_installs(str(other), installs) == ()
    assert code_origin.project_installs(str(other), installs, "pkg-project")[0][1] == (
        "installed under this project's name"
    )


def test_a_planted_fifo_for_direct_url_is_not_read(tmp_path):
    """A FIFO named ``direct_url.json`` in a ``.dist-info`` is skipped at once, never opened."""
    metadata = tmp_path / "evil-1.0.dist-info"
    metadata.mkdir()
    os.mkfifo(metadata / "direct_url.json")
    assert code_origin.checkout_installs([str(tmp_path)]) == ()


def test_packages_are_found_in_the_checkout_and_its_src(tmp_path):
    """Packages at the top and in ``src/``, modules in ``src/`` only; no plain directories."""
    (tmp_path / "top").mkdir()
    (tmp_path / "top" / "__init__.py").write_text("")
    (tmp_path / "docs").mkdir()
    (tmp_path / "setup.py").write_text("")
    (tmp_path / "src" / "inner").mkdir(parents=True)
    (tmp_path / "src" / "inner" / "__init__.py").write_text("")
    (tmp_path / "src" / "single.py").write_text("")
    assert sorted(code_origin.packages_in(str(tmp_path))) == ["inner", "single", "top"]


def test_pytests_import_dirs_follow_its_rule(tmp_path):
    """A test dir that is a package puts the dir above it first; one that is not, itself."""
    (tmp_path / "pkgtests").mkdir()
    (tmp_path / "pkgtests" / "__init__.py").write_text("")
    (tmp_path / "pkgtests" / "test_a.py").write_text("")
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "test_b.py").write_text("")
    found = code_origin.pytest_import_dirs([str(tmp_path)], ["test_*.py"])
    assert sorted(found) == sorted([str(tmp_path), str(tmp_path / "plain")])


def test_the_session_environment_is_kept_clean(shared):
    """The venv's ``.pth`` makes the suite's packages visible, nothing more (a sanity check)."""
    done = subprocess.run(
        [str(venv_python(shared.venv)), "-c", "import runctx, pytest, pkg; print(pkg.where())"],
        capture_output=True,
        text=True,
        check=True,
        env=clean_env(),
    )
    assert done.stdout.strip() == str(shared.a / "src" / "pkg" / "__init__.py")


# -- a non-editable install of this very checkout ----------------------------------------


@pytest.fixture(scope="module")
def installed_here(tmp_path_factory):
    """A project installed into its own venv with a real ``pip install .`` (what nox does)."""
    base = tmp_path_factory.mktemp("installed-here")
    checkout = make_project(base, "proj")
    venv = make_venv(base / "venv")
    pip_install(venv, str(checkout))
    return checkout, venv


def test_a_copy_installed_from_this_checkout_is_this_checkouts_code(installed_here, runs):
    """``pip install .`` then pytest: the copy is run, it is this checkout's, nothing is said."""
    checkout, venv = installed_here
    status, output = run_session(runs, venv_python(venv), checkout, "tests", "--runctx-code=refuse")
    assert status == 0, output
    assert "site-packages" in imported_from(output)  # the copy really is what ran
    assert "code under test" not in output
    assert "refused" not in output


def test_a_copy_that_differs_from_the_source_on_disk_is_named_with_the_cure(installed_here, runs):
    """Edited after ``pip install .``: the copy is not the code on disk; the advice is ``-e``."""
    checkout, venv = installed_here
    source = checkout / "src" / "pkg" / "__init__.py"
    before = source.read_text()
    source.write_text(before + "\nEDITED = True\n")
    try:
        status, output = run_session(runs, venv_python(venv), checkout, "tests")
    finally:
        source.write_text(before)
    assert status == 0, output
    lines = header(output)
    line = next(line for line in lines if "pkg will be imported from" in line)
    assert f"made from this checkout ({checkout})" in line
    assert "differs from the source on disk now: pkg/__init__.py" in line
    assert any("pip install -e ." in line for line in lines), lines


def test_a_wheel_built_in_the_checkout_and_installed_as_tox_does_is_no_alarm(tmp_path, runs):
    """A wheel tox builds inside the checkout (``.tox/``), installed from that file: no alarm."""
    checkout = make_project(tmp_path, "proj")
    venv = make_venv(tmp_path / "venv")
    dist = checkout / ".tox" / ".pkg" / "dist"
    subprocess.run(
        [
            str(venv_python(venv)),
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-build-isolation",
            "--no-deps",
            "--no-index",
            "-w",
            str(dist),
            str(checkout),
        ],
        check=True,
        capture_output=True,
    )
    (wheel,) = dist.glob("*.whl")
    pip_install(venv, str(wheel))
    status, output = run_session(runs, venv_python(venv), checkout, "tests")
    assert status == 0, output
    assert "site-packages" in imported_from(output)
    assert "code under test" not in output


@pytest.mark.parametrize("quiet", ["-q", "-qq"])
def test_the_code_origin_warning_is_said_under_quiet(shared, runs, quiet):
    """``-q`` hides pytest's header, never the warning that the code is another checkout's."""
    status, output = run_session(runs, venv_python(shared.venv), shared.b, "tests", quiet)
    assert status == 0, output
    assert f"runctx: the code under test is not this checkout's ({shared.b})" in output
    assert f"points at {shared.a}" in output
    assert "platform " not in output  # pytest's header really is hidden
