"""The code plugin's session: where the code under test comes from.

One :class:`CodeSession` per process of the session (the controller and
every xdist worker), registered by :func:`runctx.pytest_code.pytest_configure`
once a coverage tool measures. Its hooks: the code's origin into the header
at session start (:func:`runctx.code_origin.check_code`), again after
collection, and a refusal for ``--runctx-code=refuse``. The bytecode check is
:mod:`runctx.pytest_bytecode`'s, registered only when asked for.
"""

from __future__ import annotations

from collections.abc import Generator

import attrs
import pytest

from runctx.code_origin import check_code, checkout_installs, pytest_import_dirs
from runctx.exits import EXIT_REFUSED
from runctx.present.code_words import code_elsewhere_lines
from runctx.pycache import filesystem_now
from runctx.pytest_code_state import CODE, CODE_PLUGIN, FRESH, CodeState, checkout_of
from runctx.pytest_options import BYTECODE_MODES, CODE_MODES
from runctx.pytest_terminal import (
    PREFIX,
    SESSION_PLUGIN,
    choice,
    distributed,
    error_text,
    header_shown,
    is_worker,
    joined,
    one_line,
    untraced,
    verbose,
    visible,
    write,
)


def _code_state(config: pytest.Config) -> CodeState:
    """The session's code state: options read, the fresh cache (if any) taken over."""
    code_mode = choice(config, "runctx_code", CODE_MODES, "warn")
    mode = choice(config, "runctx_bytecode", BYTECODE_MODES, "off")
    state = config.stash.get(FRESH, None) or CodeState(code_mode=code_mode, bytecode=mode)
    state.code_mode, state.bytecode = code_mode, mode
    if mode == "check" and state.since_ns is None:
        state.since_ns = filesystem_now()
    if state.checkout is None:
        state.checkout = checkout_of(config)
    return state


def _prediction_paths(config: pytest.Config) -> tuple[list[str], list[str]]:
    """The directories pytest will put before and after ``sys.path`` to import the tests."""
    mode = str(config.getoption("importmode", "prepend"))
    if mode == "importlib":
        return [], []
    patterns = [str(p) for p in config.getini("python_files")]
    found = pytest_import_dirs([str(arg) for arg in config.args], patterns)
    return (found, []) if mode == "prepend" else ([], found)


def _check_code_at_start(config: pytest.Config, state: CodeState) -> None:
    """Where the project's packages come from, into the header (controller only)."""
    assert state.checkout is not None  # noqa: S101 - set by _code_state
    front, back = _prediction_paths(config)

    state.installs = checkout_installs()
    state.check = check_code(
        state.checkout, str(config.rootpath), front=front, back=back, installs=state.installs
    )
    lines = code_elsewhere_lines(state.check)
    state.header.extend(PREFIX + line for line in lines)
    state.urgent.extend(PREFIX + line for line in lines)
    if lines:
        state.brief.append(one_line(lines))
        state.brief_urgent.append(one_line(lines))
    # Collecting here tells what was really imported; xdist's controller never collects.
    in_process = not distributed(config)
    state.refuse_after_collection = state.code_mode == "refuse" and in_process
    if lines and state.code_mode == "refuse":
        verdict = "after collection, if they still do" if in_process else "now"
        refusal = f"--runctx-code=refuse: not running these tests ({verdict}; exit {EXIT_REFUSED})"
        state.header.append(PREFIX + refusal)
        state.brief.append(refusal)


def _after_collection(session: pytest.Session) -> None:
    config = session.config
    state = config.stash.get(CODE, None)
    if state is None or state.check is None or is_worker(config):
        return
    try:
        assert state.checkout is not None  # noqa: S101 - set with the check
        now = check_code(state.checkout, str(config.rootpath), installs=state.installs)
    except Exception as error:  # noqa: BLE001 - runctx never breaks a session
        state.errors.append(error_text(error))
        return
    before = {origin.package for origin in state.check.elsewhere}
    imported = {o.package for o in now.elsewhere if o.imported}
    cleared = sorted(before - {o.package for o in now.elsewhere})
    if cleared:
        write(
            config,
            f"{PREFIX}after collection, imported from this checkout after all: "
            + ", ".join(cleared),
        )
    new = [o for o in now.elsewhere if o.imported and o.package not in before]
    if new:
        lines = code_elsewhere_lines(attrs.evolve(now, elsewhere=tuple(new)))
        if not verbose(config):
            lines = [one_line(lines)]
        for line in lines:
            write(config, PREFIX + line)
    # Refused: a package imported from elsewhere, or one the header named that an import
    # would still find elsewhere (a test that imports it in its body, or in a subprocess).
    still = {o.package for o in now.elsewhere if not o.imported} & before
    if state.refuse_after_collection and (imported or still):
        refused = attrs.evolve(
            now, elsewhere=tuple(o for o in now.elsewhere if o.imported or o.package in still)
        )
        msg = (
            "\n".join(code_elsewhere_lines(refused))
            + f"\nrunctx refused to run these tests (--runctx-code=refuse, exit status "
            f"{EXIT_REFUSED})."
        )
        pytest.exit(visible("runctx: " + msg), returncode=EXIT_REFUSED)


def _refuse_code_now(state: CodeState) -> None:
    """``--runctx-code=refuse`` where no collection happens here (xdist's controller)."""
    if state.code_mode != "refuse" or state.refuse_after_collection or state.check is None:
        return
    if not state.check.elsewhere:
        return

    msg = (
        "\n".join(code_elsewhere_lines(state.check))
        + f"\nrunctx refused to run these tests (--runctx-code=refuse, exit status {EXIT_REFUSED})."
    )
    pytest.exit(visible("runctx: " + msg), returncode=EXIT_REFUSED)


def _start_code(config: pytest.Config, state: CodeState) -> None:
    """At session start: where the code under test comes from, into the header."""
    try:
        _check_code_at_start(config, state)
    except Exception as error:  # noqa: BLE001 - runctx never breaks a session
        state.errors.append(error_text(error))
        state.header.append(f"{PREFIX}could not check the code under test ({error_text(error)})")
        state.brief.append(f"could not check the code under test ({error_text(error)})")


class CodeSession:
    """The code plugin's hooks for one session, on its state (``config.stash[CODE]``)."""

    def __init__(self, config: pytest.Config, state: CodeState) -> None:
        """Act for ``config``'s session with ``state``."""
        self.config = config
        self.state = state

    def _alone(self) -> bool:
        """Whether the contention plugin is off: then this plugin writes its own header."""
        return not self.config.pluginmanager.has_plugin(SESSION_PLUGIN)

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_sessionstart(self) -> Generator[None, None, None]:
        """The code under test into the header, before the contention plugin writes it.

        ``tryfirst``: the contention plugin's wrapper runs inside this one, so
        its header (and the lines written under ``-q``) hold these lines; a
        refusal comes after the header, and after the contention plugin's.
        """
        config, state = self.config, self.state
        if not is_worker(config):
            with untraced():
                _start_code(config, state)
                if self._alone():
                    _write_urgent(config, state)
        yield
        if not is_worker(config):
            with untraced():
                _refuse_code_now(state)

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """After collection: what was really imported, said when it differs from the header."""
        with untraced():
            _after_collection(session)

    def pytest_report_header(self, config: pytest.Config) -> list[str]:
        """The header lines of this plugin, where the contention plugin does not write them."""
        if not self._alone():
            return []
        state = self.state
        lines = list(state.header)
        if not verbose(config):
            lines = [PREFIX + joined(state.brief)] if state.brief else []
            lines.extend(state.own_lines)
        return [visible(line) for line in lines]


def _write_urgent(config: pytest.Config, state: CodeState) -> None:
    """Where pytest writes no header, the lines on code under test that is not this checkout's."""
    if header_shown(config):
        return
    lines = list(state.urgent)
    if not verbose(config):
        lines = [PREFIX + joined(state.brief_urgent)] if state.brief_urgent else []
    for line in lines:
        write(config, line)


def configure(config: pytest.Config) -> None:
    """Register the session's plugin object, for the controller and every worker."""
    try:
        state = _code_state(config)
    except pytest.UsageError:
        raise
    except Exception as error:  # noqa: BLE001 - runctx never breaks a session
        state = CodeState(code_mode="warn", bytecode="off")
        state.errors.append(error_text(error))
        state.header.append(f"{PREFIX}could not check the code under test ({error_text(error)})")
        state.brief.append(f"could not check the code under test ({error_text(error)})")
    config.stash[CODE] = state
    config.pluginmanager.register(CodeSession(config, state), CODE_PLUGIN)
