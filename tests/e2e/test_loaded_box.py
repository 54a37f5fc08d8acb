"""On a saturated, hostile box, a real agent still acts on runctx's refusal.

The busy, shared box is where runctx is needed, and where its hook once ran
out of time and let a duplicate test run start. Here the box is loaded while
the agent works:

- CPU burners of another user, four per CPU (the runnable tasks are sampled
  while the agent runs, and the check fails if they were fewer);
- a storm of 2,000 idle ``npm test`` processes of another user in 40
  checkouts, orphaned (each its own foreign run);
- adversarial shapes of the suite's own user in another checkout, which the
  hook cannot set aside by their owner: a 1,000-deep chain of processes
  titled ``npm exec`` over one ``pytest``, and runner processes with
  command lines of a megabyte.

Next to a live pytest of the checkout, the agent (Claude Code, Codex) is
asked for a second pytest there: the model must receive runctx's reason
naming the live run, the duplicate must never start (the file its test would
write is missing), and the hook must not have failed open (no "could not
check" in what the agent passed on, no "hook failed open" in its output).

Starting processes as another user needs root: without it this check skips,
and in CI (``CI`` set, run as root) it fails. The processes are made by
``benchmarks/chain.c`` (a few pages each), built with the C compiler; no
compiler is a skip, and a failure in CI. Every process is started in a
process group of its own and killed by that group at the end.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from agents import AGENTS, REPO, Agent, unavailable
from drive import drive
from proctools import OTHER_UID, make_checkout, wait_for
from readable import shared_tempdir
from runfactory import RunFactory
from test_agents import Scene, refused

LOADED_AGENTS = ("claude", "codex")
BURNERS_PER_CPU = 4
STORM = 2000
STORM_CHECKOUTS = 40
CHAIN_DEPTH = 1000
LONG_ARGVS = 8
LONG_ARGV_BYTES = 1 << 20
SETUP_SECONDS = 180.0
"""How long the load may take to start on a saturated box before the check fails."""


@dataclass(frozen=True)
class LoadedBox:
    """The load kept alive for the module, and where its own-user shapes live."""

    burners: int
    elsewhere: Path
    """The other checkout of the suite's own user, holding the chain and the long argvs."""


def _runnable() -> int:
    """The tasks runnable now (``procs_running`` of ``/proc/stat``), this sampler included."""
    for line in Path("/proc/stat").read_text().splitlines():
        if line.startswith("procs_running "):
            return int(line.split()[1])
    msg = "/proc/stat has no procs_running line"
    raise AssertionError(msg)


class LoadSampler:
    """Samples the runnable tasks every half second while the agent works."""

    def __init__(self) -> None:
        """Start sampling in a thread."""
        self.samples: list[int] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def _sample(self) -> None:
        while not self._stop.wait(0.5):
            self.samples.append(_runnable())

    def stop(self) -> list[int]:
        """Stop; the samples taken."""
        self._stop.set()
        self._thread.join()
        return self.samples


def _build_chain(into: Path) -> Path:
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        unavailable("no C compiler (cc or gcc) to build benchmarks/chain.c")
    binary = into / "chain"
    subprocess.run(
        [compiler, "-O2", "-o", str(binary), str(REPO / "benchmarks" / "chain.c")], check=True
    )
    binary.chmod(0o755)
    return binary


def _wait_long(predicate: Callable[[], bool], what: str) -> None:
    wait_for(predicate, timeout=SETUP_SECONDS, what=what)


def _load(factory: RunFactory, base: Path) -> LoadedBox:
    """Start the shapes, the storm and the burners (each group reaped by ``factory``).

    The burners come last: a chain is built one fork after another, and on a
    saturated box each of them waits its turn for a CPU.
    """
    binary = _build_chain(base)
    orphan = {"RUNCTX_CHAIN_ORPHAN": "1"}  # its parent exits on purpose: not tied to it
    elsewhere = make_checkout(base / "elsewhere", "chained")
    chained = base / "chained"
    factory.orphan(
        ["npm exec", "pytest", "-q", "deep"],
        elsewhere,
        executable=str(binary),
        env={
            **orphan,
            "RUNCTX_CHAIN_DEPTH": str(CHAIN_DEPTH),
            "RUNCTX_CHAIN_TITLE": "npm exec",
            "RUNCTX_CHAIN_READY": str(chained),
        },
    )
    word = "x" * (64 << 10)
    long_argv = ["pytest", *[word] * (LONG_ARGV_BYTES // len(word))]
    for _ in range(LONG_ARGVS):
        idle = {**orphan, "RUNCTX_CHAIN_MODE": "idle"}
        factory.orphan(long_argv, elsewhere, executable=str(binary), env=idle)
    _wait_long(chained.exists, f"a {CHAIN_DEPTH}-deep npm exec chain")
    storm_dirs = []
    for number in range(STORM_CHECKOUTS):
        where = base / f"storm{number}"
        (where / ".git").mkdir(parents=True)
        for path in (where, where / ".git"):
            os.chown(path, OTHER_UID, OTHER_UID)
        storm_dirs.append(str(where))
    burners = BURNERS_PER_CPU * (os.cpu_count() or 1)
    loaded = base / "loaded"
    numbers = [str(STORM), str(burners), str(OTHER_UID)]
    factory.orphan(
        ["storm", *numbers, "npm test", str(loaded), *storm_dirs],
        base,
        executable=str(binary),
        env={**orphan, "RUNCTX_CHAIN_MODE": "storm"},
    )
    _wait_long(loaded.exists, f"{STORM} processes and {burners} burners of another user")
    return LoadedBox(burners=burners, elsewhere=elsewhere)


@pytest.fixture(scope="module")
def loaded_box() -> Iterator[LoadedBox]:
    """The box loaded for the module's checks; every group started is killed at the end."""
    if os.geteuid() != 0:
        unavailable("needs root to start processes as another user (CI runs as root)")
    base = shared_tempdir("runctx-loaded-")
    factory = RunFactory()
    try:
        yield _load(factory, base)
    finally:
        factory.reap()
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def scene(tmp_path: Path) -> Scene:
    """A fresh HOME, a checkout with a marker test (the agents' checks' own scene)."""
    return Scene(tmp_path)


@pytest.mark.parametrize("name", LOADED_AGENTS)
def test_a_real_agent_acts_on_the_refusal_on_a_loaded_box(
    name: str, loaded_box: LoadedBox, scene: Scene, runs: RunFactory
) -> None:
    """Burners, a storm and hostile shapes alive: the agent's duplicate pytest never starts."""
    chosen: Agent = AGENTS[name]
    program = chosen.program()
    live = scene.hold(runs)
    sampler = LoadSampler()
    began = time.monotonic()
    try:
        transcript = drive(
            runs, chosen, program, scene.home, scene.checkout, scene.test_command(), scope="user"
        )
    finally:
        samples = sampler.stop()
    took = time.monotonic() - began
    cpus = os.cpu_count() or 1
    load = (
        f"runnable tasks while the agent ran: median {statistics.median(samples or [0])}, "
        f"min {min(samples or [0])} ({len(samples)} samples, {took:.0f} s; "
        f"{loaded_box.burners} burners on {cpus} CPUs); load average {os.getloadavg()[0]:.1f}"
    )
    sys.stderr.write(load + "\n")
    assert samples, load
    assert statistics.median(samples) >= BURNERS_PER_CPU * cpus, "the box was not loaded: " + load
    assert transcript.tool_calls >= 1, transcript.explain()
    refused(transcript, live)
    assert not scene.marker.exists(), "the refused pytest started\n" + transcript.explain()
    said = "\n".join([*transcript.tool_results, transcript.stdout, transcript.stderr])
    assert "could not check" not in said, "the hook failed open\n" + transcript.explain()
    assert "hook failed open" not in said, "the hook failed open\n" + transcript.explain()
