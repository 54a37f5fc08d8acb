"""Real runner processes for the live tests: npm, node, cargo and friends, started orphaned.

Each helper writes a small project into a checkout whose tests hold until they
are killed, starts the real tool orphaned through the run factory (so that it
does not fold into the suite's own run, and is reaped by process group) and
waits until the tests say they are up: each holding test writes a file, the
handshake. A tool that cannot be had here, or cannot do what the test needs,
skips the test locally and fails it in CI (:func:`require.require`).
"""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path

from proctools import Orphan, wait_for
from require import require, unavailable
from runfactory import RunFactory, clean_env, ready_dir

# A node:test file that says it is up, then holds until killed.
NODE_HOLDING_TEST = """\
const test = require('node:test');
const fs = require('node:fs');
const path = require('node:path');
test('holds', async () => {
  fs.writeFileSync(path.join(process.env.RUNCTX_READY_DIR, %s), 'up');
  await new Promise(() => setInterval(() => {}, 1000));
});
"""


# The same, writing the file it is given by its path.
NODE_HOLDING_FILE = """\
const test = require('node:test');
require('node:fs').writeFileSync(%s, 'up');
test('holds', async () => {
  await new Promise(() => setInterval(() => {}, 1000));
});
"""


def write_node_tests(checkout: Path, count: int = 2) -> None:
    """``count`` holding node:test files under ``test/``."""
    tests = checkout / "test"
    tests.mkdir(exist_ok=True)
    for n in range(count):
        name = json.dumps(f"up-node-{n}")
        (tests / f"hold{n}.test.js").write_text(NODE_HOLDING_TEST % name)


def write_package_json(checkout: Path, scripts: dict[str, str]) -> None:
    """A package.json with these ``scripts``."""
    package = {"name": checkout.name, "version": "1.0.0", "private": True, "scripts": scripts}
    (checkout / "package.json").write_text(json.dumps(package, indent=2))


def start_tool(
    runs: RunFactory,
    checkout: Path,
    argv: list[str],
    *,
    holders: int = 2,
    env: dict[str, str] | None = None,
) -> Orphan:
    """Start ``argv`` (a tool on PATH, or a path, first) orphaned in ``checkout``; wait for it.

    Each holding test writes a file named ``up-*`` into the ready directory;
    this returns once ``holders`` of them did. ``env`` adds to the environment.
    """
    executable = argv[0] if os.path.isabs(argv[0]) else require(argv[0])
    ready = ready_dir(checkout)
    environment = clean_env(RUNCTX_READY_DIR=str(ready), **(env or {}))
    run = runs.orphan(argv, checkout, env=environment, executable=executable)
    wait_for(
        lambda: len(list(ready.glob("up-*"))) >= holders,
        what=f"{' '.join(argv)} to start its tests",
    )
    return run


def start_npm_test(
    runs: RunFactory, checkout: Path, script: str = "node --test", *, holders: int = 1
) -> Orphan:
    """An orphaned ``npm test`` whose script is ``script`` (by default ``node --test``).

    ``node --test`` runs one file per spare CPU at a time, so on a small box only
    one holding file is sure to start.
    """
    write_node_tests(checkout, holders)
    write_package_json(checkout, {"test": script})
    return start_tool(runs, checkout, ["npm", "test"], holders=holders)


def sandboxed_npm_test(checkout: Path) -> tuple[list[str], Path, Path]:
    """An ``npm test`` running ``node --test`` for ``nstools.in_own_pid_namespace``.

    (argv, cwd, ready file): its one holding test writes the ready file, named
    in the test itself (the sandbox's environment carries no ``RUNCTX_*``).
    """
    require("npm")
    ready = ready_dir(checkout) / f"up-npm-{uuid.uuid4().hex}"
    tests = checkout / "test"
    tests.mkdir(exist_ok=True)
    (tests / "hold.test.js").write_text(NODE_HOLDING_FILE % json.dumps(str(ready)))
    write_package_json(checkout, {"test": "node --test"})
    return ["npm", "test"], checkout, ready


FAILED_INSTALLS: dict[str, str] = {}
"""Why an install from a registry failed in this session, by cache directory: tried once
per session, so that a registry out of reach (no network, a proxy's certificate the user
has not configured) costs one attempt, not one per test."""

NODE_PACKAGES = ("jest-worker@30", "mocha@11", "vitest@3", "bats@1")
"""Small npm packages the live tests install once, from the registry, into a cache."""


def node_modules() -> Path:
    """A ``node_modules`` holding :data:`NODE_PACKAGES`, installed once per machine.

    Installed with npm from its registry into ``$XDG_CACHE_HOME/runctx-tests``
    (``~/.cache`` by default) under a file lock, so that parallel test workers
    install it once. When npm is missing or the registry cannot be reached the
    tool cannot be had here (:func:`require.unavailable`).
    """
    import fcntl
    import hashlib
    import subprocess

    npm = require("npm")
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "runctx-tests"
    key = hashlib.sha256(" ".join(NODE_PACKAGES).encode()).hexdigest()[:12]
    home = cache / f"node-{key}"
    if str(home) in FAILED_INSTALLS:
        unavailable(FAILED_INSTALLS[str(home)])
    home.mkdir(parents=True, exist_ok=True)
    done = home / "installed"
    with (home / "lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            (home / "package.json").write_text('{"name": "runctx-live-tests", "private": true}')
            installed = subprocess.run(
                [npm, "install", "--no-audit", "--no-fund", "--prefix", str(home), *NODE_PACKAGES],
                capture_output=True,
                text=True,
                timeout=600,
                check=False,
            )
            if installed.returncode != 0:
                why = f"npm could not install {NODE_PACKAGES}: {installed.stderr[-300:]}"
                FAILED_INSTALLS[str(home)] = why
                unavailable(why)
            done.touch()
    return home / "node_modules"


def link_node_modules(checkout: Path) -> Path:
    """``checkout/node_modules`` pointing at the installed packages; their real directory."""
    modules = node_modules()
    (checkout / "node_modules").symlink_to(modules, target_is_directory=True)
    return modules


PYTHON_TOOLS = ("behave", "green", "robotframework", "nose2", "unittest-xml-reporting", "ward")
"""Small python test runners the live tests install once, from the registry, into a cache."""


def python_tools() -> Path:
    """The ``bin`` directory of a venv holding :data:`PYTHON_TOOLS`, installed once per machine.

    Made with this interpreter's ``venv`` and pip under a file lock in
    ``$XDG_CACHE_HOME/runctx-tests``; when the registry cannot be reached they
    cannot be had here (:func:`require.unavailable`).
    """
    import fcntl
    import hashlib
    import subprocess
    import sys

    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "runctx-tests"
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    key = hashlib.sha256(" ".join((version, *PYTHON_TOOLS)).encode()).hexdigest()[:12]
    home = cache / f"python-{key}"
    if str(home) in FAILED_INSTALLS:
        unavailable(FAILED_INSTALLS[str(home)])
    cache.mkdir(parents=True, exist_ok=True)
    with (cache / f"python-{key}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (home / "installed").exists():
            subprocess.run([sys.executable, "-m", "venv", "--clear", str(home)], check=True)
            installed = subprocess.run(
                [str(home / "bin" / "pip"), "install", "--quiet", *PYTHON_TOOLS],
                capture_output=True,
                text=True,
                timeout=600,
                check=False,
            )
            if installed.returncode != 0:
                why = f"pip could not install {PYTHON_TOOLS}: {installed.stderr[-300:]}"
                FAILED_INSTALLS[str(home)] = why
                unavailable(why)
            (home / "installed").touch()
    return home / "bin"
