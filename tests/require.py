"""One way for a test to need something the machine may lack: a tool, a package, root.

``require(tool)`` gives the path of a program that can really do what the tests
ask of it: it is found (in this interpreter's ``bin`` first, where the test
extra installs pre-commit and pipx, then on ``PATH``) and a probe of what the
tests use it for succeeds (``--version`` at least; a toolchain compiles a
one-line program; a tracer traces ``true``). A ``cargo`` from rustup with no
toolchain installed answers nothing, so it counts as absent.

What cannot be had is :func:`unavailable`: locally the test skips and says
why in one line; in CI (``CI`` set) it fails, because there the suite must
prove everything and a skip would hide a missing install.
"""

from __future__ import annotations

import functools
import importlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType
from typing import NoReturn

import pytest

PROBE_SECONDS = 300.0
"""A bound on one probe: a first ``cargo build`` on a loaded box is slow, a hang is a failure."""

_ONE_LINE = {
    "c": ("main.c", "int main(void) { return 0; }\n"),
    "rust": ("main.rs", "fn main() {}\n"),
    "go": ("main.go", "package main\nfunc main() {}\n"),
}


def unavailable(reason: str) -> NoReturn:
    """Skip the test with ``reason``; fail it instead in CI (``CI`` set)."""
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI must run this test)", pytrace=False)
    pytest.skip(reason)


def require(tool: str) -> str:
    """The path of ``tool`` when it can do what the tests need of it; else :func:`unavailable`."""
    path, problem = _usable(tool)
    if problem:
        unavailable(problem)
    return path


def require_module(name: str) -> ModuleType:
    """The module ``name`` when it imports here (a package of the test extra); else unavailable."""
    try:
        return importlib.import_module(name)
    except ImportError as error:
        unavailable(f"the Python module {name} cannot be imported here: {error}")


def find(tool: str) -> str | None:
    """``tool`` in this interpreter's ``bin`` (the test extra's programs), else on ``PATH``."""
    return shutil.which(tool, path=os.path.dirname(sys.executable)) or shutil.which(tool)


@functools.cache
def _usable(tool: str) -> tuple[str, str]:
    """(path, "") when ``tool`` passes its probe, else ("", why not); probed once per process."""
    path = find(tool)
    if path is None:
        return "", f"{tool} is not installed on this machine"
    with tempfile.TemporaryDirectory(prefix="runctx-probe-") as scratch:
        for argv in _probes(tool, path, Path(scratch)):
            try:
                done = subprocess.run(
                    argv,
                    cwd=scratch,
                    stdin=subprocess.DEVNULL,
                    capture_output=True,
                    timeout=PROBE_SECONDS,
                    check=False,
                )
            except (OSError, subprocess.TimeoutExpired) as error:
                return "", f"{tool} is here ({path}) but cannot run `{_shown(argv)}`: {error}"
            if done.returncode != 0:
                said = (done.stderr or done.stdout).decode(errors="replace").strip()
                last = said.splitlines()[-1] if said else f"exit status {done.returncode}"
                return "", f"{tool} is here ({path}) but `{_shown(argv)}` fails: {last}"
    return path, ""


def _cargo(path: str, scratch: Path) -> list[list[str]]:
    (scratch / "Cargo.toml").write_text(
        '[package]\nname = "probe"\nversion = "0.1.0"\nedition = "2021"\n'
    )
    (scratch / "src").mkdir()
    (scratch / "src" / "main.rs").write_text(_ONE_LINE["rust"][1])
    return [[path, "--version"], [path, "build", "--offline", "--quiet"]]


def _compiler(language: str, *after: str):
    def probes(path: str, scratch: Path) -> list[list[str]]:
        return [[path, "--version"], [path, _written(scratch, language), *after]]

    return probes


def _running(*argv: str):
    def probes(path: str, _scratch: Path) -> list[list[str]]:
        return [[path, "--version"], [path, *argv]]

    return probes


_PROBES = {
    "cargo": _cargo,
    "rustc": _compiler("rust", "-o", "probe"),
    "cc": _compiler("c", "-o", "probe"),
    "gcc": _compiler("c", "-o", "probe"),
    "clang": _compiler("c", "-o", "probe"),
    "go": lambda path, scratch: [[path, "version"], [path, "build", _written(scratch, "go")]],
    "node": _running("-e", "0"),
    "perl": _running("-e", "1"),
    "strace": lambda path, _scratch: [[path, "-V"], [path, "-f", "-o", os.devnull, "true"]],
    "perf": _running("stat", "-o", os.devnull, "true"),
    "gdb": _running("-q", "-batch", "-ex", "run", "--args", "true"),
}
"""Beyond ``--version``: a toolchain compiles a one-line program, a tracer traces ``true``."""


def _probes(tool: str, path: str, scratch: Path) -> list[list[str]]:
    """What shows that ``tool`` can do what the tests ask of it, run in ``scratch``."""
    probe = _PROBES.get(os.path.basename(tool))
    return probe(path, scratch) if probe else [[path, "--version"]]


def _written(scratch: Path, language: str) -> str:
    """The one-line program of ``language``, written into ``scratch``: its file name."""
    name, text = _ONE_LINE[language]
    (scratch / name).write_text(text)
    return name


def _shown(argv: list[str]) -> str:
    return " ".join([os.path.basename(argv[0]), *argv[1:]])
