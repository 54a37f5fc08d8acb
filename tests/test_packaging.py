"""The package as users install it: built without warnings, complete, and working from a venv.

One build of the sdist and the wheel (``python -m build``, as a release
would), one fresh virtual environment the wheel is installed into (what
``pip install runctx`` and ``pipx install runctx`` do), and the installed
command, hooks and plugin checked from there. ``make dist-check`` runs this
module alone. The pre-commit framework is checked the way a user tries a
hook repository: ``pre-commit try-repo``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import venv
import zipfile
from pathlib import Path

import pytest
from require import require

ROOT = Path(__file__).resolve().parents[1]
AGENTS = ("claude", "codex", "gemini", "cursor", "copilot", "qwen", "droid")


def quiet_env() -> dict[str, str]:
    """The environment for the build and the installed commands: none of the suite's settings."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("RUNCTX_", "PYTEST_", "PYTHONDONTWRITEBYTECODE"))
    }
    env.pop("VIRTUAL_ENV", None)
    return env


def source_copy(target: Path) -> Path:
    """The checkout's files (tracked and new, not ignored) copied to ``target``.

    The build runs there: it writes ``build/`` and ``*.egg-info`` beside the
    sources, which must not touch the checkout or race another worker's build.
    """
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout
    for name in filter(None, listed.decode().split("\0")):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The sdist and the wheel, built from a copy of this checkout, and what the build printed."""
    out = tmp_path_factory.mktemp("dist")
    source = source_copy(tmp_path_factory.mktemp("source"))
    done = subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(out), str(source)],
        capture_output=True,
        text=True,
        env=quiet_env(),
        check=False,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (wheel,) = out.glob("*.whl")
    (sdist,) = out.glob("*.tar.gz")
    return wheel, sdist, done.stdout + done.stderr


@pytest.fixture(scope="module")
def installed(built, tmp_path_factory):
    """A fresh virtual environment with the wheel installed: its bin directory."""
    wheel, _sdist, _log = built
    home = tmp_path_factory.mktemp("venv")
    venv.create(home, with_pip=True)
    bin_dir = home / "bin"
    done = subprocess.run(
        [str(bin_dir / "python"), "-m", "pip", "install", "--quiet", str(wheel)],
        capture_output=True,
        text=True,
        env=quiet_env(),
        check=False,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return bin_dir


def test_the_build_prints_no_warning(built):
    """Building the sdist and the wheel prints no warning (license, metadata, package data)."""
    _wheel, _sdist, log = built
    warning = re.compile(r"warn|deprecat", re.IGNORECASE)
    warnings = [line for line in log.splitlines() if warning.search(line)]
    assert warnings == []


def test_the_metadata_names_license_and_classifiers(built):
    """The wheel's metadata: an SPDX license expression, its LICENSE file, classifiers.

    No project URLs until the project has a public home: a made-up address
    would send users to someone else's page.
    """
    wheel, _sdist, _log = built
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        (metadata_name,) = [name for name in names if name.endswith(".dist-info/METADATA")]
        metadata = archive.read(metadata_name).decode()
        assert any(name.endswith(".dist-info/licenses/LICENSE") for name in names)
    assert "License-Expression: MIT" in metadata
    assert "License-File: LICENSE" in metadata
    assert "\nLicense:" not in metadata  # no deprecated free-text license as well
    assert "Project-URL:" not in metadata
    assert "Classifier: Framework :: Pytest" in metadata
    assert "Classifier: Typing :: Typed" in metadata
    assert not re.search(r"Classifier: License ::", metadata)  # SPDX replaces them


def test_the_wheel_holds_the_hook_files_and_the_schemas(built):
    """Every ready hook file, the pre-push hook (executable) and the schemas are in the wheel."""
    wheel, _sdist, _log = built
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        for name in AGENTS:
            assert any(n.startswith(f"runctx/ready/{name}/") for n in names), name
        assert "runctx/ready/git/pre-push" in names
        mode = archive.getinfo("runctx/ready/git/pre-push").external_attr >> 16
        assert mode & 0o111
        assert {"runctx/schemas/report.schema.json", "runctx/schemas/error.schema.json"} <= names
        assert "runctx/py.typed" in names


def run_installed(
    bin_dir: Path, *argv: str, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """A command of the installed environment."""
    env = quiet_env()
    env["PATH"] = f"{bin_dir}{os.pathsep}/usr/bin:/bin"
    return subprocess.run(
        [str(bin_dir / argv[0]), *argv[1:]],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        check=False,
        timeout=120,
    )


def test_the_installed_command_answers_what_people_type(installed, tmp_path):
    """From the installed wheel: --version, --help, status --json, completion."""
    version = run_installed(installed, "runctx", "--version")
    assert version.returncode == 0
    assert re.fullmatch(r"runctx \d+\.\d+\.\d+\S*\n", version.stdout)
    assert "exit statuses:" in run_installed(installed, "runctx", "--help").stdout
    status = run_installed(installed, "runctx", "status", "--json", cwd=tmp_path)
    assert status.returncode == 0, status.stderr
    assert json.loads(status.stdout)["schema_version"] == 1
    for shell in ("bash", "zsh", "fish"):
        assert run_installed(installed, "runctx", "completion", shell).returncode == 0


def test_the_installed_package_installs_its_hooks(installed, tmp_path):
    """Runctx install git and every agent's install work from the installed wheel alone."""
    checkout = tmp_path / "proj"
    checkout.mkdir()
    subprocess.run(["git", "init", "-q", str(checkout)], check=True)
    done = run_installed(installed, "runctx", "install", "git", cwd=checkout)
    assert done.returncode == 0, done.stderr
    hook = checkout / ".git" / "hooks" / "pre-push"
    assert hook.read_text() == (ROOT / "runctx" / "ready" / "git" / "pre-push").read_text()
    for name in AGENTS:
        added = run_installed(installed, "runctx", "install", name, cwd=checkout)
        assert added.returncode == 0, added.stderr


def test_the_pytest_plugin_is_registered(installed):
    """The wheel declares the pytest11 entry point that makes the plugin active where installed."""
    done = run_installed(
        installed,
        "python",
        "-c",
        "from importlib.metadata import entry_points;"
        "print([e.value for e in entry_points(group='pytest11') if e.name == 'runctx'])",
    )
    assert done.stdout.strip() == "['runctx.pytest_entry']"


def test_pipx_install_gives_the_command_and_its_hooks(built, tmp_path):
    """``pipx install`` of the wheel: runctx on the PATH pipx made, with hooks and completion."""
    wheel, _sdist, _log = built
    pipx = require("pipx")
    env = {
        **quiet_env(),
        "PIPX_HOME": str(tmp_path / "pipx"),
        "PIPX_BIN_DIR": str(tmp_path / "bin"),
        "PIPX_MAN_DIR": str(tmp_path / "man"),
    }
    done = subprocess.run(
        [str(pipx), "install", str(wheel)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    bin_dir = tmp_path / "bin"
    assert run_installed(bin_dir, "runctx", "--version").stdout.startswith("runctx ")
    assert run_installed(bin_dir, "runctx", "completion", "fish").returncode == 0
    checkout = tmp_path / "proj"
    checkout.mkdir()
    subprocess.run(["git", "init", "-q", str(checkout)], check=True)
    hooked = run_installed(bin_dir, "runctx", "install", "git", cwd=checkout)
    assert hooked.returncode == 0, hooked.stderr
    assert (checkout / ".git" / "hooks" / "pre-push").exists()


SHIPPED = (
    "Makefile",
    ".pre-commit-hooks.yaml",
    "tests/",
    "docs/",
    "hooks/",
    "fuzz/",
    "benchmarks/",
)
"""What the sdist carries beside the package, so that its own tests and ``make`` run from it."""

FROM_THE_SDIST = (
    "tests/test_corpus.py",
    "tests/test_runners_catalog.py",
    "tests/test_require.py",
    "tests/test_conftest.py::test_the_factory_reaps_every_process_of_every_group_it_started",
)
"""A part of the suite that needs the conftest, the helpers, the corpus and the docs."""


def unpacked(sdist: Path, into: Path) -> Path:
    """The sdist unpacked into ``into``, as ``pip download`` leaves it: its top directory."""
    with tarfile.open(sdist) as archive:
        if hasattr(tarfile, "data_filter"):  # Python 3.11.4 and later
            archive.extractall(into, filter="data")
        else:
            archive.extractall(into)  # noqa: S202 - the sdist the fixture just built
    (top,) = into.iterdir()
    return top


def test_the_sdist_holds_every_file_its_tests_and_make_need(built, tmp_path):
    """Every file of the checkout under tests/, docs/, fuzz/... and the Makefile is in the sdist."""
    _wheel, sdist, _log = built
    top = unpacked(sdist, tmp_path)
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", *SHIPPED],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    wanted = {name for name in listed.split("\0") if name and (ROOT / name).is_file()}
    assert {"tests/conftest.py", "tests/proctools.py", "Makefile"} <= wanted
    assert any(name.startswith("tests/corpus/") for name in wanted)
    missing = sorted(name for name in wanted if not (top / name).is_file())
    assert missing == []


def test_the_unpacked_sdist_runs_a_part_of_its_suite(built, tmp_path):
    """From the unpacked sdist, with its own runctx first on the path: make parses, tests pass."""
    _wheel, sdist, _log = built
    top = unpacked(sdist, tmp_path)
    dry = subprocess.run(
        ["make", "-n", "test"], cwd=top, capture_output=True, text=True, check=False
    )
    assert dry.returncode == 0, dry.stderr
    assert "-m pytest" in dry.stdout
    env = {**quiet_env(), "PYTHONPATH": str(top)}
    origin = subprocess.run(
        [sys.executable, "-c", "import runctx; print(runctx.__file__)"],
        cwd=top,
        capture_output=True,
        text=True,
        env=env,
        check=True,
    ).stdout.strip()
    assert Path(origin).is_relative_to(top)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *FROM_THE_SDIST],
        cwd=top,
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert re.search(r"\d+ passed", done.stdout)


def test_make_run_installs_no_test_or_lint_tool():
    """``make run`` (dry run) installs runctx alone: no test or lint extra, no ruff or mypy."""
    done = subprocess.run(
        ["make", "-n", "-B", "run", "VENV=/nonexistent-venv"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    installs = [line for line in done.stdout.splitlines() if "pip install" in line]
    assert installs
    for line in installs:
        assert not re.search(r"\[|ruff|mypy|pytest", line), line
    lint = subprocess.run(
        ["make", "-n", "-B", "lint", "VENV=/nonexistent-venv"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert "lint]" in lint.stdout


def test_pre_commit_try_repo_runs_the_check_with_no_arguments(tmp_path):
    """``pre-commit try-repo`` of this repository runs runctx-check, which needs no args."""
    pre_commit = require("pre-commit")
    repo = tmp_path / "project"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "a.txt").write_text("a\n")
    subprocess.run(["git", "-C", str(repo), "add", "a.txt"], check=True)
    env = {**quiet_env(), "PRE_COMMIT_HOME": str(tmp_path / "cache")}
    done = subprocess.run(
        [str(pre_commit), "try-repo", str(ROOT), "--all-files"],
        cwd=repo,
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"no other test run of this checkout is live \(runctx\)\.+Passed", done.stdout)
    assert "- hook id: runctx-check" not in done.stdout  # quiet while all is well
