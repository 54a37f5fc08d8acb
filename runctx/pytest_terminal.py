"""What runctx's two pytest plugins share: their terminal, their verbosity, their options.

Both plugins (:mod:`runctx.pytest_plugin`, other test runs; :mod:`runctx.pytest_code`,
the code under test) write through these helpers, so that every line they
write is escaped for the terminal (:func:`runctx.present.escape.terminal_text`),
a foreign run's argv or directory name cannot write on it, and both follow
the session's verbosity the same way.

Loaded when pytest loads the plugins, before a coverage tool measures: it
imports pytest and the standard library only (and runctx's escaping, which
is standard library too). :func:`untraced` is how the plugins keep their own
work out of a coverage tool's figures once it measures.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import sys
from collections.abc import Generator, Sequence

import pytest

from runctx.handoff import QUIET
from runctx.present.escape import terminal_text
from runctx.pytest_code_state import CODE

PREFIX = "runctx: "
SESSION_PLUGIN = "runctx-session"
"""The name the contention plugin's session object is registered under (quiet or whole)."""
MORE = "pytest -v says more"
"""What the one header line says when ``-v`` would show more lines."""
THIRD_PARTY = ("attr", "attrs")
"""The packages runctx's modules use as they load, which may be the project under test."""
AUTO_WORKERS_NOTE = pytest.StashKey[str]()
"""Why ``-n auto`` starts fewer workers than xdist would (or why it was left to xdist)."""
SEPARATOR_WRITTEN = pytest.StashKey[bool]()
"""Set once the terminal summary's ``runctx`` separator (under ``-v``) is written."""


@contextlib.contextmanager
def untraced() -> Generator[None, None, None]:
    """Keep runctx's own work unseen by a coverage tool measuring the session.

    The packages runctx uses (:data:`THIRD_PARTY`) are imported first, while
    coverage measures, so that their module-level lines count as the suite's
    own import of them would; then coverage (``coverage.Coverage.current()``,
    as pytest-cov runs it) stops while runctx imports its modules, defines its
    records and scans, so that runctx's use of them covers no line of a
    project that is one of them. Coverage figures are then those of the suite
    alone.

    The cyclic garbage collector is paused too (where it runs): what runctx
    makes as it imports and scans is nearly all kept or freed by reference
    counts, and each collection it would trigger walks the session's whole
    heap (pytest's, the suite's), which cost more than runctx's own work.
    A wait (:func:`collecting`) lets it run again.
    """
    for name in THIRD_PARTY:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    coverage = sys.modules.get("coverage")
    current = getattr(getattr(coverage, "Coverage", None), "current", None)
    measuring = current() if callable(current) else None
    stopped = False
    paused = gc.isenabled()
    gc.disable()
    _PAUSED.append(paused)
    if measuring is not None:
        with contextlib.suppress(Exception):
            measuring.stop()
            stopped = True
    try:
        yield
    finally:
        _PAUSED.pop()
        if paused:
            gc.enable()
        if stopped and measuring is not None:
            measuring.start()


_PAUSED: list[bool] = []
"""For each :func:`untraced` now open, whether it paused the garbage collector."""


@contextlib.contextmanager
def collecting() -> Generator[None, None, None]:
    """The garbage collector as the session had it, inside :func:`untraced`: for a long wait."""
    resume = any(_PAUSED) and not gc.isenabled()
    if resume:
        gc.enable()
    try:
        yield
    finally:
        if resume:
            gc.disable()


def is_worker(config: pytest.Config) -> bool:
    """Whether this process is a pytest-xdist worker."""
    return hasattr(config, "workerinput")


def distributed(config: pytest.Config) -> bool:
    """Whether this is the controller of an xdist session (its workers collect and run)."""
    return not is_worker(config) and config.pluginmanager.has_plugin("dsession")


def error_text(error: BaseException) -> str:
    """An exception as one escaped line: its type and message."""
    return visible(f"{type(error).__name__}: {error}")


def visible(text: str) -> str:
    """``text`` escaped for the terminal, line by line, in what its encoding can hold.

    pytest's terminal writer escapes a whole line again (backslashes too)
    when one character does not fit the terminal's encoding (``…`` on an
    ASCII terminal); written as its escape here, nothing is escaped twice.
    """
    return terminal_text(text, getattr(sys.__stdout__, "encoding", None))


def write(config: pytest.Config, text: str) -> None:
    """A line on the terminal now, whatever the verbosity (stderr without a terminal)."""
    text = visible(text)
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None:
        sys.stderr.write(text + "\n")
        sys.stderr.flush()
        return
    reporter.write_line(text)
    reporter.flush()


def verbose(config: pytest.Config) -> bool:
    """Whether the session asked for details (``-v``): every line, not one."""
    return config.get_verbosity() > 0


def header_shown(config: pytest.Config) -> bool:
    """Whether pytest writes the report header (not under ``-q``, ``-qq`` or ``--no-header``)."""
    return config.get_verbosity() >= 0 and not config.getoption("no_header", default=False)


def summary_section(reporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    """Under ``-v``, the ``runctx`` separator before the summary's lines, once per session."""
    if verbose(config) and not config.stash.get(SEPARATOR_WRITTEN, False):
        reporter.write_sep("-", "runctx")
        config.stash[SEPARATOR_WRITTEN] = True


def write_summary(
    reporter: pytest.TerminalReporter, config: pytest.Config, lines: list[str]
) -> None:
    """The summary's ``lines``, each escaped, after :func:`summary_section`; nothing without any."""
    if not lines:
        return
    summary_section(reporter, config)
    for line in lines:
        reporter.write_line(visible(line))


def setting(config: pytest.Config, name: str) -> str:
    """The command-line value of a setting, else its ini value."""
    value = config.getoption(name)
    if value is None:
        value = config.getini(name)
    return str(value).strip()


def choice(config: pytest.Config, name: str, choices: tuple[str, ...], default: str) -> str:
    """An option's value, else its ini value, else ``default``; a bad ini value is an error."""
    value = getattr(config.known_args_namespace, name, None) or config.getoption(name, None)
    if value:
        return str(value)
    ini = str(config.getini(name)).strip()
    if not ini:
        return default
    if ini not in choices:
        msg = f"{name} = {ini!r}: choose one of {', '.join(choices)}"
        raise pytest.UsageError(msg)
    return ini


def joined(parts: Sequence[str]) -> str:
    """The parts of one line, joined."""
    return "; ".join(part.rstrip(".") for part in parts if part)


def one_line(lines: Sequence[str]) -> str:
    """A message of a head line and the lines under it as one line: ``head: one; two``."""
    said = [line.strip() for line in lines if line.strip()]
    if len(said) < 2:  # noqa: PLR2004 - a head and what is under it
        return "".join(said)
    return f"{said[0].rstrip(':')}: " + "; ".join(line.rstrip(".") for line in said[1:])


def report_header(
    config: pytest.Config, lines: list[str], parts: list[str], handoff: str = ""
) -> list[str]:
    """The header: the contention plugin's ``lines``, then the code plugin's and ``-n auto``'s.

    Unless ``-v``, one line of the ``parts`` of each (and the code's own
    lines, which are the warning itself).
    """
    lines, parts = list(lines), list(parts)
    code = config.stash.get(CODE, None)
    if code is not None:
        lines.extend(code.header)
        parts.extend(code.brief)
    note = config.stash.get(AUTO_WORKERS_NOTE, None)
    if note is not None and handoff != QUIET:
        lines.append(PREFIX + note)
        parts.append(note)
    if not verbose(config):
        own = code.own_lines if code is not None else []
        more = f" ({MORE})" if len(lines) > 1 + len(own) else ""
        lines = [PREFIX + joined(parts) + more] if parts else []
        lines.extend(own)
    return [visible(line) for line in lines]


def write_urgent(config: pytest.Config, lines: list[str], parts: list[str]) -> None:
    """Where pytest writes no header, the lines that matter whatever the verbosity.

    The contention plugin's urgent ``lines`` (runs of this checkout, other
    users' runs in it) and the code plugin's (code under test that is not
    this checkout's) are written at once; everything else follows the
    verbosity (the header is not shown, the summary speaks under ``-v``).
    """
    if header_shown(config):
        return
    lines, parts = list(lines), list(parts)
    code = config.stash.get(CODE, None)
    if code is not None:
        lines.extend(code.urgent)
        parts.extend(code.brief_urgent)
    if not verbose(config):
        lines = [PREFIX + joined(parts)] if parts else []
    for line in lines:
        write(config, line)
