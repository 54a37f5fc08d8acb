"""Regular expressions compiled on their first use: none is compiled by importing runctx."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from runctx.regex import on_first_use

COMPILED_AT_IMPORT = textwrap.dedent(
    """
    import json, re, sys
    compile = re.compile
    callers = []
    def spied(pattern, flags=0):
        caller = sys._getframe(1).f_globals.get("__name__", "")
        if caller.startswith("runctx"):
            callers.append(caller)
        return compile(pattern, flags)
    re.compile = spied
    import runctx.hooks.commands, runctx.hooks.answer, runctx.policy, runctx.cli.main
    print(json.dumps(sorted(set(callers))))
    """
)


def test_a_pattern_is_compiled_at_its_first_call_and_kept():
    """Nothing is compiled before the first call; every call gives the one pattern."""
    pattern = on_first_use(r"(a+)b", 0)
    assert pattern.cache_info().currsize == 0
    first = pattern()
    assert first.fullmatch("aab")[1] == "aa"
    assert pattern() is first
    assert on_first_use(rb"x", 0)().pattern == b"x"


def test_importing_what_a_refusal_and_the_command_line_import_compiles_no_runctx_pattern():
    """The hook imports every task and script reader, and most commands use none of them."""
    done = subprocess.run(
        [sys.executable, "-c", COMPILED_AT_IMPORT], capture_output=True, text=True, check=True
    )
    assert json.loads(done.stdout) == []
