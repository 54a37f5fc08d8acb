"""The plugin is registered once, however it is named: entry point, ``-p``, ``pytest_plugins``."""

from __future__ import annotations

import subprocess

import pytest
from proctools import PYTHON, make_checkout
from runfactory import clean_env

SEPARATOR = "- runctx -"
"""The terminal summary's separator line: written once per registration of the plugin."""


@pytest.fixture
def checkout(tmp_path):
    """A checkout with one passing test."""
    root = make_checkout(tmp_path)
    (root / "test_one.py").write_text("def test_one():\n    pass\n")
    return root


def _pytest(checkout, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [PYTHON, "-m", "pytest", "-v", "-p", "no:cacheprovider", *args, "test_one.py"],
        cwd=checkout,
        capture_output=True,
        text=True,
        env={**clean_env(), **env},
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["-p", "runctx.pytest_plugin"],
        ["-p", "runctx"],
    ],
)
def test_naming_the_plugin_next_to_the_entry_point_loads_it_once(checkout, args):
    """``-p runctx.pytest_plugin`` no longer makes pytest exit 3: the plugin runs once."""
    done = _pytest(checkout, *args)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "already registered" not in done.stdout + done.stderr
    assert done.stdout.count(SEPARATOR) == 1, done.stdout


def test_pytest_plugins_in_a_conftest_loads_it_once(checkout):
    """A conftest's ``pytest_plugins = ["runctx.pytest_plugin"]`` is one registration too."""
    (checkout / "conftest.py").write_text('pytest_plugins = ["runctx.pytest_plugin"]\n')
    done = _pytest(checkout)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count(SEPARATOR) == 1, done.stdout


def test_no_runctx_turns_it_off(checkout):
    """``-p no:runctx`` keeps the plugin out."""
    done = _pytest(checkout, "-p", "no:runctx")
    assert done.returncode == 0, done.stdout + done.stderr
    assert SEPARATOR not in done.stdout


def test_naming_it_without_autoload_loads_it(checkout):
    """With entry points off, ``-p runctx.pytest_plugin`` alone loads it."""
    done = _pytest(checkout, "-p", "runctx.pytest_plugin", PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count(SEPARATOR) == 1, done.stdout
