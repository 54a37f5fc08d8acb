"""Real environments for the tests: a venv, worktrees of one repository, real ``pip install``.

Everything offline and fast: a venv made ``--without-pip`` that sees the
suite's own packages (pytest, runctx) through a ``.pth`` file, and a project
whose ``pyproject.toml`` names an in-tree build backend (:data:`BACKEND`), so
that ``pip install -e`` (pip from the suite's environment, run with the venv's
interpreter) makes a real editable install, ``direct_url.json`` and all,
without fetching setuptools or wheel.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import uuid
from pathlib import Path

from proctools import Orphan, make_checkout, make_worktree
from runfactory import HOLD_TESTS, RunFactory, clean_env, ready_dir

import runctx

BACKEND = '''\
"""A build backend just big enough for pip install (-e): a wheel of src/, or a .pth to it."""
import base64, hashlib, os, tomllib, zipfile

def _project():
    with open("pyproject.toml", "rb") as f:
        project = tomllib.load(f)["project"]
    return project["name"].replace("-", "_"), project["version"]

def _wheel(directory, files):
    name, version = _project()
    dist = f"{name}-{version}"
    files[f"{dist}.dist-info/METADATA"] = (
        f"Metadata-Version: 2.1\\nName: {name}\\nVersion: {version}\\n".encode()
    )
    files[f"{dist}.dist-info/WHEEL"] = (
        b"Wheel-Version: 1.0\\nGenerator: tests\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n"
    )
    record = []
    for path, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(data)}")
    record.append(f"{dist}.dist-info/RECORD,,")
    files[f"{dist}.dist-info/RECORD"] = ("\\n".join(record) + "\\n").encode()
    wheel = f"{dist}-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(directory, wheel), "w") as out:
        for path, data in files.items():
            out.writestr(path, data)
    return wheel

def _top():
    return "src" if os.path.isdir("src") else "."

def get_requires_for_build_wheel(config_settings=None):
    return []

def get_requires_for_build_editable(config_settings=None):
    return []

def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    files = {}
    top = _top()
    for base, dirs, names in os.walk(top):
        dirs[:] = [d for d in dirs if d not in ("tests", "_backend") and not d.startswith(".")]
        for name in names:
            if name.endswith(".py") and (base != top or top == "src"):
                path = os.path.join(base, name)
                with open(path, "rb") as f:
                    files[os.path.relpath(path, top)] = f.read()
    return _wheel(wheel_directory, files)

def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    name, _ = _project()
    pth = (os.path.abspath(_top()) + "\\n").encode()
    return _wheel(wheel_directory, {f"__editable__.{name}.pth": pth})
'''

PYPROJECT = """\
[build-system]
requires = []
build-backend = "backend"
backend-path = ["_backend"]

[project]
name = "{name}"
version = "0.1"
"""


def make_project(
    parent: Path, name: str = "proj", package: str = "pkg", *, layout: str = "src"
) -> Path:
    """A git checkout of a project with its package and a test that names where it comes from.

    ``layout`` is ``src`` (``src/PACKAGE``) or ``flat`` (``PACKAGE`` at the
    top, and ``tests/`` a package). ``PACKAGE.where()`` gives the file it was
    imported from.
    """
    checkout = make_checkout(parent, name)
    (checkout / "_backend").mkdir()
    (checkout / "_backend" / "backend.py").write_text(BACKEND)
    (checkout / "pyproject.toml").write_text(PYPROJECT.format(name=f"{package}-project"))
    source = checkout / "src" / package if layout == "src" else checkout / package
    source.mkdir(parents=True)
    (source / "__init__.py").write_text("def where():\n    return __file__\n")
    tests = checkout / "tests"
    tests.mkdir()
    if layout == "flat":
        (tests / "__init__.py").write_text("")
    (tests / "test_where.py").write_text(
        f"import {package}\n\n\ndef test_where():\n    print('IMPORTED-FROM', {package}.where())\n"
    )
    return checkout


def git(checkout: Path, *args: str) -> None:
    """``git ARGS`` in ``checkout``, failing loudly."""
    subprocess.run(["git", *args], cwd=checkout, check=True, capture_output=True)


def worktree_of(checkout: Path, path: Path) -> Path:
    """A second worktree of ``checkout``'s repository at ``path`` (the first commit made here)."""
    return make_worktree(checkout, path)


def make_venv(path: Path, python: str = sys.executable) -> Path:
    """A venv at ``path`` that sees the suite's pytest, pip and runctx, with a ``bin/pip``."""
    subprocess.run(
        [python, "-m", "venv", "--without-pip", str(path)], check=True, capture_output=True
    )
    python = venv_python(path)
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    suite = sysconfig.get_paths()["purelib"]
    source = str(Path(runctx.__file__).resolve().parent.parent)
    Path(purelib, "runctx-suite.pth").write_text(f"{suite}\n{source}\n")
    pip = path / "bin" / "pip"
    pip.write_text(
        f"#!{python}\nimport sys\nfrom pip._internal.cli.main import main\nsys.exit(main())\n"
    )
    pip.chmod(0o755)
    return path


def venv_python(venv: Path) -> Path:
    """The venv's interpreter, as its ``bin/`` names it."""
    return venv / "bin" / "python"


def pip_install(venv: Path, *args: str, cwd: Path | None = None) -> None:
    """``pip install ARGS`` into ``venv``, offline, with pip from the suite's environment."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "PYTHON"))}
    subprocess.run(
        [
            str(venv_python(venv)),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-build-isolation",
            "--no-deps",
            "--no-index",
            *args,
        ],
        cwd=cwd,
        env=env,
        check=True,
        capture_output=True,
    )


class SharedWorktrees:
    """Worktrees ``a`` and ``b`` of one repository, one venv, ``a`` installed into it editable."""

    def __init__(self, base: Path, a: Path, b: Path, venv: Path) -> None:
        """Hold the paths."""
        self.base = base
        self.a = a
        self.b = b
        self.venv = venv


def shared_worktrees(base: Path, *, layout: str = "src", editable: bool = True) -> SharedWorktrees:
    """Two worktrees of one project and one venv, ``a`` installed into it (``pip install``)."""
    a = make_project(base, "a", layout=layout)
    b = worktree_of(a, base / "b")
    venv = make_venv(base / "venv")
    pip_install(venv, *(["-e"] if editable else []), str(a))
    return SharedWorktrees(base, a, b, venv)


def live_run(runs: RunFactory, checkout: Path, venv: Path) -> Orphan:
    """An orphaned pytest of ``checkout`` on ``venv``'s python, held in its test until killed."""
    hold = checkout / "hold"
    hold.mkdir(exist_ok=True)
    (hold / "test_hold.py").write_text(HOLD_TESTS)
    ready = ready_dir(checkout) / uuid.uuid4().hex
    ready.mkdir()
    ready.chmod(0o777)
    argv = [
        str(venv_python(venv)),
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:runctx",
        "-k",
        "test_a",
        str(hold),
    ]
    env = clean_env(RUNCTX_READY_DIR=str(ready))
    env.pop("VIRTUAL_ENV", None)
    return runs.orphan(argv, checkout, env=env, ready=ready / "a-main")
