"""The project's own scripts: what ``scripts/test``, ``bash ci/run.sh`` or ``./ci.sh`` run.

A command whose program is a file of the checkout (a path: ``./ci.sh``,
``scripts/test``, ``.ci/test.sh``) or a shell given such a file
(``bash scripts/test.sh``, ``sh -e ci/run``) runs that file's text. A shell
script (a ``.sh``/``.bash`` name, or a shell ``#!`` line) is read, and the
shell parser reads its text in turn: the script is a test run when its text
starts one, however it is named (``./ci.sh`` running ``pytest``), and no run
when its text starts none (``ci/print-test-failures.sh``).

A Python, JavaScript or Ruby script is read for the commands its code starts
(:mod:`runctx.runners.spawned`: ``subprocess.run([sys.executable, "-m", "pytest"])``,
``execSync("npx jest")``, ``system("bundle exec rspec")``, ``pytest.main()``):
one that starts a run makes the script a run, whatever its name.

When the file cannot be read (it is not there, it is in none of these
languages, it belongs to another user, it is too large), its name decides
(:func:`named_for_tests`): ``test``, ``tests``, ``test.sh``, ``run-tests.sh``,
``run_tests.py``, ``test-unit.sh``, ``unit_test.py``, ``tests/test.php``, a
file that ``node --test`` takes for a test file by its name (``x.test.js``,
``x-test.mjs``, ``test-x.cjs``, ``test.js``) run by node itself, and, in a directory of
scripts (``scripts/``, ``ci/``, ``tools/``, ``bin/``...), any script whose name
holds ``test`` but does not start with a verb that prepares, reports or builds
(``install-test-deps.sh``, ``print-test-failures.sh``), and a numbered
test script of a ``t/`` directory (``t/t1234-name.sh``, as git's).

A project's own program that ``cargo run`` builds (``cargo run -p xtask --
test``, ``cargo run --bin test-runner``) is judged the same way, by its name
and the action it is given (:func:`project_program`).

A script that picks what to do from its arguments (``case "$1"``,
``getopts``) and is given some runs what they name: a run when one of them is
named for tests (``./build.sh -a test``, ``./build.cmd unit-tests``, ``./x.py
test``; :func:`names_a_test`), whether the script can be read or not. A script
that runs its arguments as a command (``"$@"``, ``eval``) and is given one
that starts a run is a run (``bin/ci with_build_env 'make std_spec'``).

Only files of the checkout are read: a relative path under the directory the
command runs in, with no ``..`` in it, owned by the caller or by root (a file
another user could have planted is not opened), through the same bounded,
non-blocking reader as every project file (:mod:`.files`), at most
:data:`MAX_SCRIPT_CHARS` of it, within the command's budget of files.
"""

from __future__ import annotations

import os
import re

from runctx.fastpath.prefilter import TEST_DIRECTORIES, TEST_ENTRY_STEMS
from runctx.planted import usable_path
from runctx.regex import on_first_use
from runctx.runners.index import says_it_runs_no_test
from runctx.runners.spawned import Spawned, language, spawned
from runctx.runners.tasks.dispatch import assignments
from runctx.unknown import Reason, Unknown

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from runctx.runners.tasks.files import ProjectFiles

MAX_SCRIPT_CHARS = 32 * 1024
"""Only this much of a script's text is read: what a test script needs, bounded."""

SCRIPT_DIRECTORIES = frozenset(
    {"scripts", "script", "ci", ".ci", "tools", "tool", "bin", "dev", "hack", "build", "t"}
)
"""Directories of a project's scripts: a script in one whose name holds ``test`` is a run."""

_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "ash"})
_INTERPRETERS = frozenset({"py", "pwsh"})
"""Interpreters whose first operand is taken for their script here. Those whose options the
runner walk reads (python, node, ruby, php, lua, perl: :mod:`runctx.runners.walk`) give it
their script as the command they run; a script is judged by its name, not read."""
_SHELL_SUFFIXES = (".sh", ".bash")
_SCRIPT_SUFFIXES = (
    *(*_SHELL_SUFFIXES, ".py", ".rb", ".pl", ".cmd", ".bat", ".ps1"),
    *(".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".php", ".lua", ".tcl", ".dart"),
    ".go",  # ``go run build.go test``: judged by its arguments, never read
)
_TEST_STEMS = frozenset(
    {"test", "tests", "runtests", "run-tests", "run_tests", "unittest", "unittests", "testrunner"}
)
_TEST_PREFIXES = (
    *("test-", "test_", "tests-", "tests_", "run-test", "run_test", "runtest"),
    *("tst-", "tst_"),  # C projects' test programs: ``tst_nonblocking``, ``tst-malloc``
)
_TEST_SUFFIXES = ("-test", "_test", "-tests", "_tests", ".test")
"""Ends of a test script's stem: ``unit-test.sh``, ``api_test.py``, node's ``x.test.js``."""
_NOT_A_RUN = (
    *("install", "setup", "prepare", "print", "report", "upload", "download", "make", "build"),
    *("generate", "gen", "publish", "deploy", "clean", "lint", "format", "fetch", "collect"),
    *("list", "show", "check-", "update", "bump", "release", "create", "render", "summar"),
)
"""Leading words of a script name that prepare, report or build rather than run tests."""


def script_path(argv: Sequence[str], *, operand: bool = False) -> str | None:
    """The project script ``argv`` runs, as written (a relative or ``./`` path), or None.

    Its program when that is a path (``./ci.sh``, ``scripts/test``), or the
    first operand of a shell or an interpreter (``bash -e scripts/test.sh``,
    ``python tools/test.py``); never an absolute
    path or one that climbs out with ``..``. ``operand``: ``argv`` is what an
    interpreter runs (``runtests.py`` of ``python -u runtests.py``), whose
    first word is a file of the directory even without a ``/``.
    """
    if not argv:
        return None
    first = argv[0]
    candidate: str | None = None
    if (dart := _dart_script(argv)) is not None:
        candidate = dart
    elif "/" in first or (operand and first.endswith(_SCRIPT_SUFFIXES)):
        candidate = first
    elif first in _SHELLS or first in _INTERPRETERS:
        candidate = _first_operand(argv, "cs" if first in _SHELLS else "cemp")
    if candidate is None or candidate.startswith(("/", "~", "$")):
        return None
    parts = candidate.split("/")
    if ".." in parts or not parts[-1]:
        return None
    return candidate


def _first_operand(argv: Sequence[str], code_flags: str) -> str | None:
    """The script a shell or an interpreter is given: its first operand, unless it runs code."""
    for arg in argv[1:]:
        if arg == "--":
            continue
        if arg[:1] in {"-", "+"}:
            if any(flag in arg[1:] for flag in code_flags) or arg.startswith("--"):
                return None  # code, stdin, a module, or a long option: no script
            continue
        return arg
    return None


def _dart_script(argv: Sequence[str]) -> str | None:
    """The script of ``dart FILE.dart`` or ``dart run FILE.dart``, or None.

    The Dart VM runs a file given as its first operand, past its options
    (``dart --enable-asserts dev/bots/test.dart``; each of its options is a
    flag or carries its value, ``--packages=FILE``); ``dart run pkg`` runs a
    package, not a file.
    """
    if argv[0].rpartition("/")[2] != "dart":
        return None
    rest = argv[2:] if argv[1:2] == ["run"] else argv[1:]
    operand = next((arg for arg in rest if not arg.startswith("-")), "")
    return operand if operand.endswith(".dart") else None


_CARGO_RUN_VALUES = frozenset(
    {"-p", "--package", "--bin", "--example", "-F", "--features", "--target", "--target-dir"}
    | {"--manifest-path", "--profile", "-j", "--jobs", "--color", "--config", "-Z"}
    | {"--message-format", "--lockfile-path"}
)
"""``cargo run``'s options that take a value (``cargo run --help``)."""
_CARGO_RUN_NAMES = frozenset({"-p", "--package", "--bin", "--example"})


_CABAL_RUNS = frozenset({"run", "v2-run", "new-run"})
_CABAL_RUN_VALUES = frozenset({"--project-file", "--builddir", "-w", "--with-compiler", "-f"})


def project_program(argv: Sequence[str]) -> tuple[str, list[str]] | None:
    """The project's program ``cargo run`` (or ``cabal run``) builds and runs, and its arguments.

    ``cargo run -p xtask -- test`` runs the workspace's ``xtask`` with
    ``test``; ``cargo run --bin test-runner``, the binary ``test-runner``. The
    name is that of ``--bin``, ``--example`` or ``-p`` (``""`` for the
    package's own binary). ``cabal run spec -- --match x`` runs the
    component ``spec`` (``test:spec`` a test suite). None for any other
    command.
    """
    if len(argv) < 2:  # noqa: PLR2004
        return None
    tool = argv[0].rpartition("/")[2]
    if tool == "cabal" and argv[1] in _CABAL_RUNS:
        return _cabal_target(argv[2:])
    if tool != "cargo" or argv[1] != "run":
        return None
    name = ""
    i = 2
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            return name, list(argv[i + 1 :])
        if not arg.startswith("-"):
            return name, list(argv[i:])
        option, eq, value = arg.partition("=")
        if option in _CARGO_RUN_VALUES and not eq:
            value = argv[i + 1] if i + 1 < len(argv) else ""
            i += 1
        if option in _CARGO_RUN_NAMES:
            name = value
        i += 1
    return name, []


def _cabal_target(words: Sequence[str]) -> tuple[str, list[str]]:
    """The component ``cabal run`` is given, and the arguments after ``--``.

    The component's last part is its name (``exe:app`` is ``app``); a test
    suite's kind stands for its name (``test:spec`` is ``test``).
    """
    i = 0
    while i < len(words) and words[i].startswith("-") and words[i] != "--":
        i += 2 if words[i] in _CABAL_RUN_VALUES else 1
    if i >= len(words) or words[i] == "--":
        return "", list(words[i + 1 :])
    parts = words[i].split(":")
    name = "test" if "test" in parts[:-1] else parts[-1]
    rest = list(words[i + 1 :])
    return name, rest[1:] if rest[:1] == ["--"] else rest


def test_module(argv: Sequence[str]) -> str | None:
    """The module a python command runs when its name says it runs tests, or None.

    ``python -m gevent.tests``, ``python -mtests``, ``python3 -m mypkg.test_all``:
    a project's test package or module run as the program, named as a test
    script is (:func:`named_for_tests`).
    """
    if not argv or not argv[0].rpartition("/")[2].startswith("python"):
        return None
    for i, arg in enumerate(argv[1:], 1):
        if not arg.startswith("-"):
            return None  # a script, not a module
        if arg.startswith("-m"):
            module = arg[2:] or (argv[i + 1] if i + 1 < len(argv) else "")
            last = module.rpartition(".")[2]
            return module if last and named_for_tests(f"{last}.py") else None
        if arg.startswith("--") or "c" in arg[1:]:
            return None
    return None


def named_for_tests(path: str) -> bool:
    """Whether the script at ``path`` says by its name that it runs tests."""
    parts = [p for p in path.split("/") if p not in {"", "."}]
    if not parts:
        return False
    name = parts[-1].lower()
    stem = name
    for suffix in _SCRIPT_SUFFIXES:
        if stem.endswith(suffix):
            stem = stem[: -len(suffix)]
            break
    both = "and" in stem.replace("_", "-").split("-")  # ``build-and-test.sh`` does both
    if (stem.startswith(_NOT_A_RUN) and not both) or says_it_runs_no_test(stem):
        return False
    if stem in _TEST_STEMS or stem.startswith(_TEST_PREFIXES) or stem.endswith(_TEST_SUFFIXES):
        return True
    directory = parts[-2].lower() if len(parts) > 1 else ""
    if directory == "t" and _numbered_test(stem):
        return True
    if directory in TEST_DIRECTORIES and stem in TEST_ENTRY_STEMS:
        return True  # the entry of a suite: ``test/main.py``, ``tests/runner.py``
    return directory in SCRIPT_DIRECTORIES and "test" in stem


def is_test_script(path: str) -> bool:
    """Whether ``path`` is a script file (by its suffix) whose name says it runs tests."""
    return path.endswith(_SCRIPT_SUFFIXES) and named_for_tests(path)


def _numbered_test(stem: str) -> bool:
    """Whether ``stem`` names a numbered test script of a ``t/`` directory (``t1234-name``)."""
    return stem[:1] == "t" and stem[1:5].isdigit() and stem[5:6] in {"-", "_"}


def owned(path: str) -> bool:
    """Whether the file at ``path`` belongs to the caller or to root (never a planted one)."""
    if not usable_path(path):  # a NUL or a lone surrogate from the command's words
        return False
    try:
        owner = os.stat(path).st_uid
    except (OSError, ValueError):
        return False
    return owner in (0, os.getuid())


def _is_shell_text(path: str, text: str) -> bool:
    """Whether ``text`` (the file at ``path``) is a shell script."""
    first = text.split("\n", 1)[0]
    if first.startswith("#!"):
        words = first[2:].replace("/", " ").split()
        return any(word in _SHELLS for word in words[-2:])
    return path.endswith(_SHELL_SUFFIXES)


def script_text(path: str, directory: str, files: ProjectFiles) -> str | None:
    """The text of the shell script at ``path`` (relative to ``directory``), or None.

    None when it is not there, not a regular file, not owned by the caller or
    root, too large, not a shell script, or past the command's budget of files.
    A file too large, past the budget, or cut at :data:`MAX_SCRIPT_CHARS` adds
    why to ``files.unread``: what the script runs is then not all known.
    """
    full = os.path.join(directory, path)
    if not owned(full):
        return None
    read = files.parsed(full, _decoded)
    if not isinstance(read, str) or not _is_shell_text(path, read):
        return None
    if len(read) > MAX_SCRIPT_CHARS:  # the rest is not known: ``files`` says so
        name = os.path.basename(path)
        files.unread.append(
            Unknown(Reason.NOT_READ, f"{name} is longer than {MAX_SCRIPT_CHARS} characters")
        )
    return read[:MAX_SCRIPT_CHARS]


def code_script(path: str, directory: str, files: ProjectFiles) -> Spawned | None:
    """What the Python, JavaScript or Ruby script at ``path`` starts, or None.

    None when it is not there, not a regular file, not owned by the caller or
    root, too large, in none of these languages, or past the command's budget
    of files. Its first :data:`MAX_SCRIPT_CHARS` are read (:mod:`runctx.runners.spawned`):
    what it starts there adds to what its name says, and a longer script is
    judged on that part, with its name.
    """
    full = os.path.join(directory, path)
    if not owned(full):
        return None
    read = files.parsed(full, _decoded)
    if not isinstance(read, str):
        return None
    lang = language(path, read)
    if lang is None:
        return None
    text = read[:MAX_SCRIPT_CHARS]
    if lang == "ruby":  # ``require_relative "../config/ci.rb"``: Rails' bin/ci runs that file
        text += "".join(_required(text, path, directory, files))
    return spawned(lang, text)


def _required(text: str, path: str, directory: str, files: ProjectFiles) -> list[str]:
    """The texts of the project's Ruby files ``text`` loads with ``require_relative``.

    One level, at most :data:`REQUIRED_MAX` of them, each a file of the
    checkout read as a script is (owned, bounded).
    """
    found: list[str] = []
    for match in _REQUIRE_RELATIVE().finditer(text):
        if len(found) >= REQUIRED_MAX:
            break
        name = match.group(1)
        name = name if name.endswith(".rb") else f"{name}.rb"
        required = os.path.normpath(os.path.join(os.path.dirname(path), name))
        if required.startswith(("..", "/")) or not owned(os.path.join(directory, required)):
            continue
        read = files.parsed(os.path.join(directory, required), _decoded)
        if isinstance(read, str):
            found.append("\n" + read[:MAX_SCRIPT_CHARS])
    return found


_REQUIRE_RELATIVE = on_first_use(r"(?m)^\s*require_relative\s*\(?\s*[\"']([^\"'\n]{1,256})[\"']")
REQUIRED_MAX = 4
"""Project files one Ruby script loads (``require_relative``) that are read with it."""


def _decoded(data: bytes) -> str:
    """A script's bytes as text (undecodable bytes replaced)."""
    return data.decode("utf-8", errors="replace")


__all__ = [
    "code_script",
    "dispatches",
    "is_test_script",
    "named_for_tests",
    "names_a_test",
    "owned",
    "passes_arguments",
    "script_path",
    "script_text",
    "test_module",
    "with_arguments",
]


_DISPATCH_MARKS = ("getopts", 'case "$1"', "case $1", 'case "${1', "case ${1", '"$1" =', "$1 =")
_PASSES_ARGUMENTS = ('"$@"', "$@", '"$*"', "$*", "eval ")
_TEST_ARGUMENTS = frozenset(
    {"test", "tests", "unit", "unittest", "unittests", "spec", "specs", "e2e"}
    | {"runtests", "run-tests", "run_tests", "runtest", "run-test"}
)
_TEST_FLAGS = frozenset(
    {"test", "tests", "runtests", "run-tests", "run_tests", "unittests", "unit-tests"}
)
"""Flags that name the test action itself: a build script given one runs the tests."""


_SELF = r"""(?:"?\$(?:0|\{0\}|\{BASH_SOURCE(?:\[0\])?\}|BASH_SOURCE)"?)"""
_RESOLVED_SELF = on_first_use(
    r"\$\(\s*(?:realpath|readlink\s+-[fem])\s+(?:--\s+)?" + _SELF + r"\s*\)"
)
_DIRNAME_OF_SELF = on_first_use(
    r"\$\(\s*dirname\s+(?:--\s+)?\"?" + _SELF + r"\"?\s*\)"
    r"|`\s*dirname\s+(?:--\s+)?\"?" + _SELF + r"\"?\s*`"
    r"|\$\{(?:0|BASH_SOURCE(?:\[0\])?)%/\*\}"
)
DIRECTORY_NAMES_MAX = 8
"""Variables holding a script's own directory that are put in: a script has one or two."""


def in_own_directory(text: str, path: str) -> str:
    """A shell script's ``text`` with its own directory written out where it names it.

    ``"$(dirname "$0")/unit.sh"``, ``DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" &&
    pwd)"`` then ``"$DIR/unit.sh"``, ``${0%/*}``: the directory of ``path``, the
    script as the command gives it (``scripts``, or ``.``), so that the
    scripts it calls beside it are found and read. Each form is one search
    over the text.
    """
    if "$0" not in text and "BASH_SOURCE" not in text and "${0" not in text:
        return text
    directory = os.path.dirname(path) or "."
    text = _RESOLVED_SELF().sub("$0", text)
    text = _DIRNAME_OF_SELF().sub(lambda _: directory, text)
    here = re.escape(directory)
    around = (
        r"\$\(\s*cd\s+(?:-[PLe]+\s+)*(?:--\s+)?\"?"
        + here
        + r"\"?[^()\n]*?(?:&&|;)\s*pwd(?:\s+-[PL])?\s*\)"
        r"|\$\(\s*(?:realpath|readlink\s+-[fem])\s+\"?" + here + r"\"?\s*\)"
    )
    text = re.sub(around, lambda _: directory, text)
    names = [name for name, value in assignments(text) if value.strip("\"'") == directory]
    for name in names[:DIRECTORY_NAMES_MAX]:
        text = re.sub(r"\$(?:\{" + name + r"\}|" + name + r"(?!\w))", lambda _: directory, text)
    return text


def dispatches(text: str) -> bool:
    """Whether a script's text picks what it does from its arguments."""
    return any(mark in text for mark in _DISPATCH_MARKS)


def passes_arguments(text: str) -> bool:
    """Whether a script's text runs its arguments as a command (``"$@"``, ``eval``)."""
    return any(mark in text for mark in _PASSES_ARGUMENTS)


_POSITIONAL = on_first_use(
    r'"\$(?:\{([1-9@*])\}|([1-9@*]))"|\$(?:\{([1-9@*])\}|([1-9@*]))(?![0-9])'
)
"""A use of the script's arguments: ``$1``, ``${2}``, ``"$@"``, ``$*``, quoted whole or not."""
_PLAIN_WORD = on_first_use(r"[\w./:=,+@%-]+")
"""An argument that reads the same bare and inside double quotes (``--target=Test``)."""


def with_arguments(text: str, arguments: Sequence[str]) -> str | None:
    """``text`` with the script's ``arguments`` written where it uses them, or None if it does not.

    ``./build.sh --target=Test`` of a script running ``dotnet cake "$@"`` runs
    ``dotnet cake --target=Test``: each argument stays one word (quoted unless
    it reads the same bare and in double quotes, ``"--target=$1"``), but
    ``"$*"``, which is one word of them all (``bash -c "$*"``); an argument
    not given is the empty word.
    """

    def word(argument: str) -> str:
        if _PLAIN_WORD().fullmatch(argument):
            return argument
        return "'" + argument.replace("'", "'\"'\"'") + "'"  # as shlex.quote writes it

    def written(found: re.Match[str]) -> str:
        which = next(group for group in found.groups() if group)
        if which == "*" and (found.group(1) or found.group(2)):  # ``"$*"``: one word of them all
            return word(" ".join(arguments))
        if which in {"@", "*"}:
            return " ".join(word(argument) for argument in arguments)
        index = int(which) - 1
        return word(arguments[index]) if index < len(arguments) else "''"

    given, count = _POSITIONAL().subn(written, text)
    return given if count else None


def given_a_test_action(arguments: Sequence[str]) -> bool:
    """Whether a program not read is given the test action: its first word, or a flag.

    Only the first word that is no flag is its action (``./x.py test``,
    ``python dev.py --no-build test``, ``./build.sh --target RunTests``; a
    later word may be a file); an option's value given with it counts
    (``--target=Test``), and a flag naming the action wherever it is given
    (``./build.sh --restore --build --test``).
    """
    flags = [a for a in arguments if a.startswith("-")]
    first = next((a for a in arguments if not a.startswith("-")), None)
    return (first is not None and names_a_test([first])) or names_a_test(flags)


_SPEC_ENDS = ("_spec", ".spec", "Test", "Tests")
"""Ends of a file of tests, beside a test script's (:data:`_TEST_SUFFIXES`), that are no
script's: ``home_spec.rb``, ``x.spec.ts``, ``ParserTest.java``."""


def picks_a_test(arguments: Sequence[str]) -> bool:
    """Whether the arguments a script picks its work by name a test action or a file of tests.

    ``bin/test spec/home_spec.rb``: a script whose arguments select what it
    runs, given a file of tests, runs them (:func:`names_a_test` for the rest).
    """
    return names_a_test(arguments) or any(_names_a_test_file(a) for a in arguments)


def _names_a_test_file(argument: str) -> bool:
    """Whether ``argument`` is the path of a file of tests (``spec/x_spec.rb``, ``a.test.js``)."""
    name = argument.rpartition("/")[2].partition("::")[0]
    stem, dot, suffix = name.rpartition(".")
    if not dot or not stem or not suffix.isalnum() or argument.startswith("-"):
        return False
    return stem.endswith((*_TEST_SUFFIXES, *_SPEC_ENDS)) or stem.lower().startswith(_TEST_PREFIXES)


def names_a_test(arguments: Sequence[str]) -> bool:
    """Whether one of ``arguments`` (or an option's value) names a test action.

    A long flag does only when its name is the action's (``--test``,
    ``--run-tests``: .NET Arcade's ``./build.sh --test``), not when it says
    something of tests (``--list-tests``, ``--test-data``), nor a one-dash
    flag (Go's ``-test``: analyse the test files too).
    """
    for argument in arguments:
        if argument.startswith("-") and "=" not in argument:
            if argument.startswith("--") and argument[2:].lower() in _TEST_FLAGS:
                return True
            continue  # a flag (``--list-tests``), not an action
        word = argument.rpartition("=")[2].lower()
        if word in _TEST_ARGUMENTS or word.startswith(("test-", "test_", "test:")):
            return True
        if word.endswith(("-test", "_test", "-tests", "_tests", ":test")):
            return True
    return False
