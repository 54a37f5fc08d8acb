"""The plugin is registered once, however it is named: entry point, ``-p``, ``pytest_plugins``."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from proctools import PYTHON, make_checkout
from require import require_module
from runfactory import clean_env

SEPARATOR = "- runctx -"
"""The terminal summary's separator line: written once per registration of the plugin."""


@pytest.fixture
def checkout(checkout):
    """The real git checkout of ``conftest.py``, with one passing test."""
    (checkout / "test_one.py").write_text("def test_one():\n    pass\n")
    return checkout


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


# -- loading imports nothing of the user's world ---------------------------------------

USERS_WORLD = ("attr", "attrs", "psutil", "structlog", "argcomplete")
"""Packages runctx uses that could be the very project under test."""

PROBE = """
import json, os, sys
import pytest

@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config):
    # Where pytest-cov starts measuring: every plugin is loaded, no conftest yet.
    seen = {
        "world": sorted(n for n in WORLD if n in sys.modules),
        "runctx": sorted(n for n in sys.modules if n == "runctx" or n.startswith("runctx.")),
        "coverage": "coverage" in sys.modules,
    }
    with open(os.environ["PROBE_OUT"], "w") as out:
        json.dump(seen, out)
""".replace("WORLD", repr(USERS_WORLD))


def _probe(checkout, tmp_path, *args: str) -> dict:
    import json

    (checkout / "runctx_probe.py").write_text(PROBE)
    out = tmp_path / f"probe-{len(list(tmp_path.glob('probe-*')))}.json"
    env = {"PYTHONPATH": str(checkout), "PROBE_OUT": str(out)}
    done = _pytest(checkout, "-p", "runctx_probe", *args, **env)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(out.read_text())


def test_loading_the_plugin_imports_none_of_the_packages_it_uses(checkout, tmp_path):
    """When pytest-cov starts, the plugin is loaded and none of attrs, psutil, structlog is in."""
    on = _probe(checkout, tmp_path)
    off = _probe(checkout, tmp_path, "-p", "no:runctx")
    assert "runctx.pytest_plugin" in on["runctx"]  # the plugin really was loaded by then
    assert "runctx.pytest_code" in on["runctx"]  # and the second one, the code under test
    assert "runctx.pytest_plugin" not in off["runctx"]
    assert "runctx.pytest_code" not in off["runctx"]  # -p no:runctx turns off both
    assert on["world"] == off["world"] == []
    assert set(on["runctx"]) <= {
        "runctx",
        "runctx.handoff",
        "runctx.present",
        "runctx.present.escape",
        "runctx.pycache",
        "runctx.pytest_code",
        "runctx.pytest_code_entry",
        "runctx.pytest_code_state",
        "runctx.pytest_entry",
        "runctx.pytest_options",
        "runctx.pytest_plugin",
        "runctx.pytest_terminal",
    }


SESSION_PROBE = """
import json, os, sys

def pytest_sessionfinish(session):
    name = os.environ.get("PYTEST_XDIST_WORKER", "controller")
    runctx = sorted(n for n in sys.modules if n == "runctx" or n.startswith("runctx."))
    with open(os.path.join(os.environ["PROBE_DIR"], name + ".json"), "w") as out:
        json.dump(runctx, out)
"""

SCAN_MODULES = {"runctx.scanning", "runctx.report", "runctx.runners.table", "runctx.policy"}
"""What a scan imports: the controller's, never a worker's, which never scans."""


def test_an_xdist_worker_imports_none_of_the_scan(checkout, tmp_path):
    """Workers run only the code plugin: they pay for its check, not for the scan's modules."""
    import json

    require_module("xdist")
    (checkout / "conftest.py").write_text(SESSION_PROBE)
    done = _pytest(checkout, "-n", "2", PROBE_DIR=str(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    seen = {path.stem: set(json.loads(path.read_text())) for path in tmp_path.glob("*.json")}
    assert set(seen) == {"controller", "gw0", "gw1"}, seen
    assert seen["controller"] >= SCAN_MODULES  # the probe sees what the controller scanned with
    for worker in ("gw0", "gw1"):
        assert "runctx.pytest_code_session" in seen[worker]  # the code plugin ran there
        assert not SCAN_MODULES & seen[worker], sorted(seen[worker])


def test_the_fresh_cache_is_put_in_place_after_coverage_starts(checkout, tmp_path):
    """``--runctx-bytecode=fresh`` imports nothing of the user's world before pytest-cov either."""
    on = _probe(checkout, tmp_path, "--runctx-bytecode=fresh")
    assert on["world"] == []


COVERED_SUITE = """
import attr
import attrs


@attrs.frozen
class Point:
    x: int = attrs.field(validator=attrs.validators.instance_of(int))
    y: int = 0


def test_points():
    assert attrs.evolve(Point(1), y=2) == Point(1, 2)
    assert attr.asdict(Point(3)) == {"x": 3, "y": 0}
"""


def _coverage(project, *args: str) -> dict[str, tuple[int, frozenset[int]]]:
    """pytest-cov's figures for attr and attrs: statements and missed lines per file."""
    import json

    report = project / "coverage.json"
    report.unlink(missing_ok=True)
    done = subprocess.run(
        [
            PYTHON,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--cov=attr",
            "--cov=attrs",
            f"--cov-report=json:{report}",
            *args,
            "tests",
        ],
        cwd=project,
        capture_output=True,
        text=True,
        env={**clean_env(), "PYTHONPATH": str(project / "src")},
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    files = json.loads(report.read_text())["files"]
    return {
        name.split("src/", 1)[1]: (
            data["summary"]["num_statements"],
            frozenset(data["missing_lines"]),
        )
        for name, data in files.items()
    }


def test_pytest_cov_measures_a_package_runctx_uses_as_without_runctx(tmp_path):
    """A project that is attrs (a copy of it, first on the path): its coverage is not lowered.

    runctx uses attrs; were the plugin to import it when pytest loads it, every
    module-level line of attrs would run before pytest-cov measured it (the
    project's coverage fell from 99% to 87%). Every line the suite covers
    without runctx is covered with it: no file misses a line it did not miss
    without the plugin. (runctx's own use of attrs after coverage starts can
    only cover more, unless coverage is paused for it, as it is.)
    """
    import shutil

    import attr

    require_module("pytest_cov")
    project = make_checkout(tmp_path)
    src = project / "src"
    installed = Path(attr.__file__).parent.parent
    for package in ("attr", "attrs"):
        shutil.copytree(
            installed / package, src / package, ignore=shutil.ignore_patterns("__pycache__")
        )
    (project / "tests").mkdir()
    (project / "tests" / "test_points.py").write_text(COVERED_SUITE)
    with_runctx = _coverage(project)
    without = _coverage(project, "-p", "no:runctx")
    assert with_runctx.keys() == without.keys()
    assert "attr/__init__.py" in with_runctx
    for name, (statements, missed) in without.items():
        assert with_runctx[name][0] == statements, name
        assert with_runctx[name][1] == missed, (name, sorted(with_runctx[name][1] ^ missed))
    # The module-level lines of the package's __init__ run when it is imported: all measured.
    assert with_runctx["attr/__init__.py"][1] == without["attr/__init__.py"][1]
    assert with_runctx["attrs/__init__.py"][1] == without["attrs/__init__.py"][1]


# -- what the plugin leaves of the session as it found it ---------------------------------

AS_FOUND = """
import gc
import json
import os
import sys


def test_as_found():
    loaders = {
        name: type(module.__loader__).__name__
        for name, module in sys.modules.items()
        if name.startswith("runctx.") and getattr(module, "__loader__", None) is not None
    }
    with open(os.environ["AS_FOUND_OUT"], "w") as out:
        json.dump({"gc": gc.isenabled(), "loaders": loaders}, out)
"""


def test_runctx_loads_without_assertion_rewriting_and_leaves_the_collector_on(checkout, tmp_path):
    """No assertion rewriting of runctx's modules (library code), and gc on during the tests.

    pytest marks a package with a ``pytest11`` entry point for assertion
    rewriting; runctx takes itself off that list as its entry point loads, so
    the modules it imports later (its session objects, the scan) come through
    the ordinary importer. The garbage collector, paused while the plugin
    imports and scans, runs again when the tests do.
    """
    import json

    (checkout / "test_one.py").write_text(AS_FOUND)
    out = tmp_path / "as-found.json"
    done = _pytest(checkout, AS_FOUND_OUT=str(out))
    assert done.returncode == 0, done.stdout + done.stderr
    seen = json.loads(out.read_text())
    assert seen["gc"] is True
    assert "runctx.pytest_session" in seen["loaders"]  # the session's modules were loaded
    assert "runctx.scanning" in seen["loaders"]
    rewritten = sorted(n for n, loader in seen["loaders"].items() if "Rewrit" in loader)
    # The entry point's own module is imported by pytest before it can say anything.
    assert set(rewritten) <= {"runctx.pytest_entry"}, rewritten
