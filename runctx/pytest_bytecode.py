"""The code plugin's bytecode check: ``--runctx-bytecode=check`` and ``fresh``.

A :class:`BytecodeSession` is registered (by :func:`runctx.pytest_code.pytest_configure`)
only when the session asks for one of them, on the controller and on every
xdist worker: after the session, each process checks the modules it
imported from this checkout against their source on disk
(:func:`runctx.bytecode.check_module`); a worker hands what it found to the
controller, which names the stale modules in the summary and fails a
passing session that ran code not on disk. ``fresh`` has put the session's
own cache in place already (:func:`runctx.pytest_code.pytest_load_initial_conftests`);
it checks the modules imported before that cache was in place.
"""

from __future__ import annotations

import attrs
import pytest

from runctx.bytecode import StaleModule, check_module, checkout_modules
from runctx.present.code_words import stale_reason
from runctx.pytest_code_state import STALE_OUTPUT, CodeState
from runctx.pytest_terminal import (
    PREFIX,
    distributed,
    error_text,
    is_worker,
    untraced,
    verbose,
    write_summary,
)


def bytecode_header(state: CodeState) -> list[str]:
    """The header lines of ``--runctx-bytecode``: the session's own cache, or the check to come."""
    if state.bytecode == "fresh" and state.prefix is None:
        reason = state.cannot or "; ".join(state.errors) or "no cache was made"
        return [
            (
                f"{PREFIX}--runctx-bytecode=fresh: this session cannot have a cache of its own "
                f"({reason}); it runs on the usual cache"
            ),
        ]
    if state.bytecode == "fresh":
        lines = [
            (
                f"{PREFIX}--runctx-bytecode=fresh: this session compiles into a cache of its own "
                f"({state.prefix}), so no earlier cache can serve it"
            ),
        ]
        if state.no_write_before is not None:
            lines.append(
                f"{PREFIX}PYTHONDONTWRITEBYTECODE is set: the session writes its compiled modules "
                "into that cache all the same (and into no other), so that its processes compile "
                "each module once"
            )
        if state.early:
            lines.append(
                f"{PREFIX}not compiled into that cache, since they were imported before it was "
                "in place (when pytest started, by a plugin it loads at startup); checked against "
                "their source after the session instead: " + ", ".join(state.early)
            )
        return lines
    if state.bytecode == "check":
        return [
            (
                f"{PREFIX}--runctx-bytecode=check: every module imported from this checkout is "
                "checked against its source on disk after the session"
            ),
        ]
    return []


def _check_bytecode(config: pytest.Config, state: CodeState) -> None:
    """After the session: the modules of this checkout that did not run the code on disk."""
    if state.bytecode == "off" or state.since_ns is None or state.checkout is None:
        return

    try:
        modules = checkout_modules(state.checkout)
        if state.bytecode == "fresh":
            modules = [(name, module) for name, module in modules if name in state.early]
        state.checked += len(modules)
        for name, module in modules:
            found = check_module(name, module, state.since_ns, config)
            if found is not None:
                state.stale.append(found)
    except Exception as error:  # noqa: BLE001 - runctx never breaks a session
        state.errors.append(error_text(error))
    if is_worker(config):
        output = getattr(config, "workeroutput", None)
        if isinstance(output, dict):
            output[STALE_OUTPUT] = {
                "checked": state.checked,
                "stale": [attrs.asdict(stale) for stale in state.stale],
                "errors": state.errors,
            }


FAILING_STALENESS = ("served", "changed", "sourceless")
"""What turns a passing ``check`` session's exit status to 1: code that is known not on disk."""


def bytecode_summary(state: CodeState) -> list[str]:
    """The terminal summary of ``--runctx-bytecode``."""
    if state.bytecode == "off":
        return []

    lines = [f"runctx could not check the bytecode: {error}" for error in state.errors]
    if not state.stale:
        if state.bytecode == "check" or state.early:
            lines.append(
                f"--runctx-bytecode={state.bytecode}: all {state.checked} module(s) checked "
                "ran the code of their source on disk"
            )
        return lines
    failing = [s for s in state.stale if s.how in FAILING_STALENESS]
    lines.append(
        f"stale bytecode: {len(state.stale)} module(s) imported from this checkout did not "
        "(or may not) run the code of their source on disk:"
    )
    lines.extend(f"  {stale.name} ({stale.source}): {stale_reason(stale)}" for stale in state.stale)
    if failing:
        lines.append(
            "This session's results describe code that is not on disk. Rerun with "
            "--runctx-bytecode=fresh (a cache of the session's own), or remove the stale cache "
            f"(exit status {int(pytest.ExitCode.TESTS_FAILED)} when the session had passed)."
        )
    return lines


def _finish_bytecode(session: pytest.Session, state: CodeState) -> None:
    """Check the bytecode, and fail a passing session that ran code not on disk."""
    config = session.config
    if state.bytecode == "fresh" or not distributed(config):
        _check_bytecode(config, state)
    if is_worker(config):
        return
    if any(s.how in FAILING_STALENESS for s in state.stale) and session.exitstatus == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


class BytecodeSession:
    """The bytecode check's hooks for one session, on the code plugin's state."""

    def __init__(self, config: pytest.Config, state: CodeState) -> None:
        """Check for ``config``'s session into ``state``."""
        self.config = config
        self.state = state

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionstart(self) -> None:
        """The bytecode mode into the header, after the code's origin (controller only)."""
        if not is_worker(self.config):
            lines = bytecode_header(self.state)
            self.state.header.extend(lines)
            self.state.own_lines.extend(lines)

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """Check the bytecode, and fail a passing session that ran code not on disk."""
        with untraced():
            _finish_bytecode(session, self.state)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: object, error: object) -> None:
        """An xdist worker's stale modules, gathered on the controller."""
        del error
        output = getattr(node, "workeroutput", None)
        if not isinstance(output, dict) or STALE_OUTPUT not in output:
            return
        state = self.state
        found = output[STALE_OUTPUT]
        state.checked += int(found.get("checked", 0))
        state.errors.extend(str(error) for error in found.get("errors", ()))
        for item in found.get("stale", ()):
            stale = StaleModule(**item)
            if stale not in state.stale:
                state.stale.append(stale)

    @pytest.hookimpl(trylast=True)
    def pytest_terminal_summary(
        self, terminalreporter: pytest.TerminalReporter, config: pytest.Config
    ) -> None:
        """The bytecode's summary (``--runctx-bytecode`` asked for every line of it)."""
        detailed = verbose(config)
        try:
            lines = [
                line if detailed or line.startswith(" ") else PREFIX + line
                for line in bytecode_summary(self.state)
            ]
        except Exception as error:  # noqa: BLE001 - runctx never breaks a session
            lines = [f"runctx could not summarise the bytecode ({error_text(error)})"]
        write_summary(terminalreporter, config, lines)
