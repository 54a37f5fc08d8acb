"""``require(tool)``: a tool counts when it can do what the tests need; else skip, or fail in CI."""

from __future__ import annotations

import os

import pytest
import require as required
from require import require


@pytest.fixture
def fresh(monkeypatch, tmp_path):
    """No probe remembered, before and after; a ``bin`` directory first on PATH; CI unset."""
    required._usable.cache_clear()
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.delenv("CI", raising=False)
    yield bin_dir
    required._usable.cache_clear()


def _tool(bin_dir, name, script):
    path = bin_dir / name
    path.write_text(f"#!/bin/sh\n{script}\n")
    path.chmod(0o755)
    return str(path)


def test_a_tool_that_answers_its_probe_is_present(fresh):
    """A program whose ``--version`` works is found, by its full path."""
    path = _tool(fresh, "runctx-probe-fine", 'echo "fine 1.0"')
    assert require("runctx-probe-fine") == path


@pytest.mark.usefixtures("fresh")
def test_a_missing_tool_skips_locally_and_says_so():
    """No such program: the test skips with the reason."""
    with pytest.raises(pytest.skip.Exception, match="runctx-probe-none is not installed"):
        require("runctx-probe-none")


def test_a_tool_that_fails_its_probe_fails_in_ci(fresh, monkeypatch):
    """A program that is here but broken: in CI the test fails, naming the tool and why."""
    _tool(fresh, "runctx-probe-broken", 'echo "no toolchain installed" >&2; exit 1')
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="no toolchain installed") as failed:
        require("runctx-probe-broken")
    assert "runctx-probe-broken is here" in str(failed.value)


def test_a_compiler_that_answers_its_version_but_cannot_compile_is_absent(fresh):
    """``gcc --version`` works, compiling a one-line program does not: absent, with the reason."""
    _tool(
        fresh,
        "gcc",
        'if [ "$1" = --version ]; then echo "gcc 99"; else echo "no cc1" >&2; exit 1; fi',
    )
    with pytest.raises(pytest.skip.Exception, match="no cc1") as skipped:
        require("gcc")
    assert "main.c" in str(skipped.value)


@pytest.mark.usefixtures("fresh")
def test_cargo_from_rustup_with_no_toolchain_counts_as_absent(monkeypatch, tmp_path):
    """Rustup's ``cargo`` under a HOME with no toolchain answers nothing: it counts as absent."""
    rustup = require("rustup")
    monkeypatch.setenv("PATH", f"{os.path.dirname(rustup)}{os.pathsep}{os.environ['PATH']}")
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in ("RUSTUP_HOME", "CARGO_HOME", "RUSTUP_TOOLCHAIN"):
        monkeypatch.delenv(name, raising=False)
    required._usable.cache_clear()
    with pytest.raises(pytest.skip.Exception, match="cargo is here"):
        require("cargo")


def test_a_module_that_cannot_be_imported_skips_locally_and_fails_in_ci(monkeypatch):
    """A package of the test extra that is missing: a skip naming it here, a failure in CI."""
    monkeypatch.delenv("CI", raising=False)
    assert required.require_module("json").dumps(1) == "1"
    with pytest.raises(pytest.skip.Exception, match="runctx_no_such_module cannot be imported"):
        required.require_module("runctx_no_such_module")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI must run this test"):
        required.require_module("runctx_no_such_module")
