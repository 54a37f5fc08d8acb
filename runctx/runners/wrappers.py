"""How to see through the commands in front of the program: wrappers and interpreters.

Data only. A :class:`Wrapper` row says how one wrapper command (``env``,
``timeout``, ``uv run``, ``npx``...) is read: which of its options take a
value, which mean that nothing runs, which move to another directory, which
hand over a python module or a shell string, and which subcommand words must
follow. The interpreter tables say the same for ``python``, shells, ``node``,
``ruby`` and ``java``. :mod:`runctx.runners.walk` reads them.
"""

from __future__ import annotations

import attrs

from runctx.record_base import Record
from runctx.runners.programs import (
    HATCH_VALUE_OPTIONS,
    NPM_CHDIR_OPTIONS,
    NPM_PROGRAMS,
    PNPM_CHDIR_OPTIONS,
    PNPM_OWN_COMMANDS,
    PNPM_PROGRAMS,
    YARN_OWN_COMMANDS,
    YARN_PROGRAMS,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable


@attrs.frozen(init=False, repr=False, eq=False)
class Wrapper(Record):
    """How to see through one wrapper command to the command it runs.

    ``value``: options taking the next word; ``stop``: options meaning "no
    command runs"; ``chdir``: options whose value is the command's new cwd;
    ``code``: options whose value is a shell string; ``module``: options whose
    value is a python module to run; ``split``: options whose value is split
    into more words (``env -S``); ``subcommands``: word sequences that must
    follow (``uv run``); ``positionals``: words to skip before the command
    (``timeout DURATION``); ``own_commands``: the tool's own subcommands, for
    tools that also run any other word as a program (``yarn jest``);
    ``assignments``: ``VAR=x`` words allowed; ``start_after``: words after
    which the command starts (``gdb --args``, ``find -exec``), and with
    ``requires_start`` nothing runs without one of them, whatever comes
    before it (``find . -name x``); ``code_flags``: flags that make the
    command a shell string (``entr -s``); ``shell_join``: the command's words
    are joined and run by a shell (``watch``, ``watchexec``);
    ``stop_commands``: first words that are the tool's own and run nothing
    (``nyc report``); ``arg_separators``: words after which come the
    arguments, not the command (GNU parallel's ``:::``, ``::::``): the
    command is the words before the first of them, and ``command_lists``
    are those after which, when no command comes before, each word is a
    command line of its own (``parallel ::: "pytest a" "pytest b"``);
    ``pairs``: options taking the next two words (bubblewrap's ``--bind SRC
    DEST``); ``each_line``: each word after the options is a command line of
    its own (``concurrently "npm:lint" "jest"``), with ``shorthands`` (a
    prefix and what it stands for: ``npm:NAME`` is ``npm run NAME``);
    ``dash_option``: a lone ``-`` is an option, not a word (``su - postgres``);
    ``positionals_first``: the positionals come before the options when the
    first word is none (``setarch "$ARCH" -R CMD``); ``name_first``: a first
    word that names no program the table knows, with a command after it, is
    a name the tool takes (``appraisal rails-7 rspec``).
    """

    arg_separators: frozenset[str]
    assignments: bool
    chdir: frozenset[str]
    code: frozenset[str]
    code_flags: frozenset[str]
    command_lists: frozenset[str]
    dash_option: bool
    each_line: bool
    module: frozenset[str]
    own_commands: frozenset[str] | None
    pairs: frozenset[str]
    positionals: int
    positionals_first: bool
    name_first: bool
    requires_start: bool
    shell_join: bool
    shorthands: tuple[tuple[str, str], ...]
    split: frozenset[str]
    start_after: frozenset[str]
    stop: frozenset[str]
    stop_commands: frozenset[str]
    subcommands: tuple[tuple[str, ...], ...]
    value: frozenset[str]

    def __init__(  # noqa: PLR0913 - a table row is built by keyword, one argument per column
        self,
        *,
        value: Iterable[str] = (),
        stop: Iterable[str] = (),
        chdir: Iterable[str] = (),
        code: Iterable[str] = (),
        module: Iterable[str] = (),
        split: Iterable[str] = (),
        subcommands: Iterable[tuple[str, ...]] = (),
        positionals: int = 0,
        own_commands: Iterable[str] | None = None,
        assignments: bool = False,
        start_after: Iterable[str] = (),
        requires_start: bool = False,
        code_flags: Iterable[str] = (),
        shell_join: bool = False,
        stop_commands: Iterable[str] = (),
        arg_separators: Iterable[str] = (),
        command_lists: Iterable[str] = (),
        pairs: Iterable[str] = (),
        each_line: bool = False,
        shorthands: Iterable[tuple[str, str]] = (),
        dash_option: bool = False,
        positionals_first: bool = False,
        name_first: bool = False,
    ) -> None:
        """Hold one row; every option that takes a value is in ``value``."""
        chdirs, codes, modules, splits = map(frozenset, (chdir, code, module, split))
        self.__attrs_init__(
            arg_separators=frozenset(arg_separators) | frozenset(command_lists),
            assignments=assignments,
            chdir=chdirs,
            code=codes,
            code_flags=frozenset(code_flags),
            command_lists=frozenset(command_lists),
            dash_option=dash_option,
            each_line=each_line,
            module=modules,
            own_commands=None if own_commands is None else frozenset(own_commands),
            pairs=frozenset(pairs),
            positionals=positionals,
            positionals_first=positionals_first,
            name_first=name_first,
            requires_start=requires_start,
            shell_join=shell_join,
            shorthands=tuple(shorthands),
            split=splits,
            start_after=frozenset(start_after),
            stop=frozenset(stop),
            stop_commands=frozenset(stop_commands),
            subcommands=tuple(subcommands),
            value=frozenset(value) | chdirs | codes | modules | splits | frozenset(pairs),
        )


_UV_VALUES = (
    "--with",
    "-w",
    "--with-editable",
    "--with-requirements",
    "--python",
    "-p",
    "--extra",
    "--group",
    "--only-group",
    "--no-group",
    "--package",
    "--project",
    "--env-file",
    "--index",
    "--default-index",
    "--index-url",
    "-i",
    "--extra-index-url",
    "--find-links",
    "-f",
    "--config-file",
    "--cache-dir",
    "--from",
    "--color",
    "--exclude-newer",
    "--index-strategy",
    "--keyring-provider",
    "--link-mode",
    "--resolution",
    "--prerelease",
    "--python-preference",
    "--python-platform",
    "--config-setting",
    "-C",
    "--refresh-package",
    "--reinstall-package",
    "--upgrade-package",
    "-P",
    "--allow-insecure-host",
)

_SUDO_VALUES = (
    "-u",
    "--user",
    "-g",
    "--group",
    "-C",
    "--close-from",
    "-h",
    "--host",
    "-p",
    "--prompt",
    "-r",
    "--role",
    "-t",
    "--type",
    "-T",
    "-U",
)


WRAPPERS: dict[str, Wrapper] = {
    "env": Wrapper(
        value=("-u", "--unset", "-P"),
        chdir=("-C", "--chdir"),
        split=("-S", "--split-string"),
        assignments=True,
    ),
    "timeout": Wrapper(value=("-k", "--kill-after", "-s", "--signal"), positionals=1),
    "nice": Wrapper(value=("-n", "--adjustment")),
    "ionice": Wrapper(
        value=("-c", "--class", "-n", "--classdata"),
        stop=("-p", "--pid", "-P", "--pgid", "-u", "--uid"),
    ),
    "time": Wrapper(value=("-f", "--format", "-o", "--output")),
    "nohup": Wrapper(),
    "setsid": Wrapper(),
    "unbuffer": Wrapper(),
    "catchsegv": Wrapper(),
    "busybox": Wrapper(),
    "stdbuf": Wrapper(value=("-i", "-o", "-e", "--input", "--output", "--error")),
    "taskset": Wrapper(positionals=1, stop=("-p", "--pid")),
    "chrt": Wrapper(positionals=1, stop=("-p", "--pid", "-m", "--max")),
    "xvfb-run": Wrapper(
        value=("-n", "--server-num", "-s", "--server-args", "-f", "--auth-file", "-e", "-p", "-w"),
    ),
    "sudo": Wrapper(
        value=_SUDO_VALUES,
        chdir=("-D", "--chdir"),
        stop=("-l", "--list", "-v", "--validate", "-K", "-V", "--version", "-e", "--edit"),
    ),
    "doas": Wrapper(value=("-u", "-C")),
    "xargs": Wrapper(
        value=("-n", "-P", "-I", "-L", "-d", "-E", "-s", "-a", "--arg-file", "--delimiter"),
    ),
    "exec": Wrapper(value=("-a",)),
    "command": Wrapper(stop=("-v", "-V")),
    "source": Wrapper(),
    ".": Wrapper(),
    "uv": Wrapper(
        value=_UV_VALUES,
        chdir=("--directory",),
        module=("-m", "--module"),
        subcommands=[("run",), ("tool", "run")],
    ),
    "uvx": Wrapper(value=_UV_VALUES, chdir=("--directory",)),
    "pipx": Wrapper(
        value=("--spec", "--python", "--index-url", "--pip-args"), subcommands=[("run",)]
    ),
    "poetry": Wrapper(
        value=("-P", "--project"), chdir=("-C", "--directory"), subcommands=[("run",)]
    ),
    "pipenv": Wrapper(value=("--python",), subcommands=[("run",)]),
    "hatch": Wrapper(value=HATCH_VALUE_OPTIONS, subcommands=[("run",), ("env", "run")]),
    "pdm": Wrapper(value=("-p", "--project"), subcommands=[("run",)]),
    # ``runctx run -- CMD``: while it checks or waits it is about to become CMD,
    # so it already counts as CMD's run (two waiters then see each other).
    "runctx": Wrapper(value=("--mode", "--timeout"), subcommands=[("run",)]),
    "rye": Wrapper(value=("--pyproject",), subcommands=[("run",)]),
    "pixi": Wrapper(
        value=("-e", "--environment", "--manifest-path"), subcommands=[("run",), ("exec",)]
    ),
    # ``coverage run --help``: every option that takes a value (``--debug config``)
    "coverage": Wrapper(
        value=(
            *("--source", "--include", "--omit", "--rcfile", "--context", "--data-file"),
            *("--concurrency", "--debug", "--save-signal"),
        ),
        module=("-m", "--module"),
        subcommands=[("run",)],
    ),
    "direnv": Wrapper(subcommands=[("exec",)], positionals=1),
    # Haskell's build tools run a command in the project's environment: ``stack exec -- CMD``
    "stack": Wrapper(
        value=("--stack-yaml", "--resolver", "--snapshot", "--work-dir", "--package"),
        chdir=("--cwd",),
        subcommands=[("exec",)],
    ),
    "cabal": Wrapper(
        value=("--project-file", "--builddir", "-w", "--with-compiler"),
        subcommands=[("exec",), ("v2-exec",)],
    ),
    "npx": Wrapper(value=("-p", "--package", "--cache"), code=("-c", "--call")),
    "pnpx": Wrapper(value=("-p", "--package"), code=("-c", "--call")),
    "bunx": Wrapper(value=("-p", "--package")),
    "bundle": Wrapper(value=("--gemfile",), subcommands=[("exec",)]),
    # Ruby's appraisal: ``appraisal [NAME] CMD`` runs CMD in one (or every) gemfile of Appraisals
    "appraisal": Wrapper(
        name_first=True,
        stop_commands=("install", "update", "generate", "clean", "list", "version", "help"),
    ),
    # Rails' preloader runs a command in a warm process: ``spring rspec``, ``spring rails test``
    "spring": Wrapper(stop=("--version",), stop_commands=("stop", "status", "binstub", "server")),
}
for _name in ("conda", "mamba", "micromamba"):
    WRAPPERS[_name] = Wrapper(
        value=("-n", "--name", "-p", "--prefix"), chdir=("--cwd",), subcommands=[("run",)]
    )
for _name in NPM_PROGRAMS:
    WRAPPERS[_name] = Wrapper(
        value=("-p", "--package", "-w", "--workspace"),
        chdir=NPM_CHDIR_OPTIONS,
        code=("-c", "--call"),
        subcommands=[("exec",), ("x",)],
    )
for _name in PNPM_PROGRAMS:
    WRAPPERS[_name] = Wrapper(
        value=("--filter", "-F"),
        chdir=PNPM_CHDIR_OPTIONS,
        code=("-c", "--shell-mode"),
        subcommands=[("exec",), ("dlx",)],
        own_commands=PNPM_OWN_COMMANDS,
    )
for _name in YARN_PROGRAMS:
    WRAPPERS[_name] = Wrapper(
        chdir=("--cwd",), subcommands=[("exec",), ("dlx",)], own_commands=YARN_OWN_COMMANDS
    )
WRAPPERS["bun"] = Wrapper(chdir=("--cwd",), subcommands=[("x",)])
# melos runs a command in each package of a Dart workspace, its words joined
# for a shell: ``melos exec -c 6 --fail-fast -- "flutter test"``
WRAPPERS["melos"] = Wrapper(
    value=(
        *("-c", "--concurrency", "--scope", "--category", "--ignore", "--diff", "--since"),
        *("--dir-exists", "--file-exists", "--depends-on", "--no-depends-on", "--sdk-path"),
    ),
    subcommands=[("exec",)],
    shell_join=True,
)

# Containers: the command after the image (``run``) or the container or service
# (``exec``, ``compose run|exec``) is what runs, inside the container.
_CONTAINER_VALUES = (
    *("-v", "--volume", "-e", "--env", "--env-file", "-w", "--workdir", "--name", "-p"),
    *("--publish", "-u", "--user", "--network", "--net", "--entrypoint", "--mount"),
    *("--platform", "-l", "--label", "--cpus", "-m", "--memory", "--shm-size", "--add-host"),
    *("--device", "--cap-add", "--cap-drop", "--security-opt", "--ulimit", "--tmpfs", "-h"),
    *("--hostname", "--gpus", "--pull", "--restart", "--ipc", "--pid", "--runtime", "--dns"),
    *("--link", "--volumes-from", "--cidfile", "--log-driver", "--log-opt", "--group-add"),
    *("--expose", "--index", "-f", "--file", "--project-name", "--profile", "--context"),
    *("--project-directory", "-H", "--host", "--config", "--log-level", "--cpuset-cpus"),
)
for _name in ("docker", "podman", "nerdctl"):
    WRAPPERS[_name] = Wrapper(
        value=_CONTAINER_VALUES,
        subcommands=[
            *(("run",), ("exec",), ("container", "run"), ("container", "exec")),
            *(("compose", "run"), ("compose", "exec")),
        ],
        positionals=1,
    )
for _name in ("docker-compose", "podman-compose"):
    WRAPPERS[_name] = Wrapper(
        value=_CONTAINER_VALUES, subcommands=[("run",), ("exec",)], positionals=1
    )
WRAPPERS.update(
    {
        "lima": Wrapper(),  # ``lima CMD``: CMD in the default instance
        "linux32": Wrapper(),  # personality wrappers: the command runs as it is
        "linux64": Wrapper(),
        # ``setarch [ARCH] [options] CMD`` (util-linux): the architecture first
        "setarch": Wrapper(positionals=1, positionals_first=True),
        # Intel's emulator: ``sde -- CMD`` (or ``sde64``)
        "sde": Wrapper(start_after=("--",), requires_start=True),
        "sde64": Wrapper(start_after=("--",), requires_start=True),
        # ``meson devenv -C build meson test``: the command in the build's environment
        "meson": Wrapper(
            value=("-w", "--workdir", "--dump", "--dump-format"),
            chdir=("-C",),
            subcommands=[("devenv",)],
        ),
        # ``python -m gevent.monkey -m pytest``: the module runs patched
        "gevent.monkey": Wrapper(module=("-m", "--module")),
        # ``cmake -E chdir DIR CMD``: the command in another directory
        "cmake": Wrapper(subcommands=[("chdir",)], positionals=1),
        # the Windows launcher: ``py -3.12 -m pytest``
        "py": Wrapper(module=("-m",)),
    }
)

# Coverage, watchers, debuggers, tracers, session and service managers, locks:
# each runs the command it is given, so the run is the command's.
WRAPPERS.update(
    {
        "nyc": Wrapper(
            value=(
                *("-r", "--reporter", "-n", "--include", "-x", "--exclude", "-e"),
                *("--extension", "-i", "--require", "-t", "--temp-dir", "--report-dir"),
                *("--nycrc-path", "--branches", "--lines", "--functions", "--statements"),
            ),
            chdir=("--cwd",),
            stop_commands=("report", "check-coverage", "instrument", "merge"),
        ),
        "c8": Wrapper(
            value=(
                *("-r", "--reporter", "-x", "--exclude", "-n", "--include", "-e"),
                *("--extension", "--temp-directory", "-o", "--reports-dir", "--report-dir"),
                *("--src", "-c", "--config", "--lines", "--functions", "--branches"),
                "--statements",
            ),
            stop_commands=("report", "check-coverage"),
        ),
        "git": Wrapper(
            value=("-c", "--git-dir", "--work-tree", "--namespace", "--config-env"),
            chdir=("-C",),
            subcommands=[("bisect", "run")],
        ),
        "entr": Wrapper(code_flags=("-s",)),
        "watchexec": Wrapper(
            value=(
                *("-w", "--watch", "-W", "--watch-non-recursive", "-F", "--watch-file"),
                *("-e", "--exts", "-f", "--filter", "--filter-file", "-i", "--ignore"),
                *("--ignore-file", "-d", "--debounce", "--delay-run", "-s", "--signal"),
                *("--stop-signal", "--stop-timeout", "--shell", "-E", "--env", "--poll"),
                *("--project-origin", "--on-busy-update", "--emit-events-to", "--color"),
                *("--log-file", "--wrap-process", "-o"),
            ),
            chdir=("--workdir",),
            shell_join=True,
        ),
        "nodemon": Wrapper(
            value=(
                *("-w", "--watch", "-e", "--ext", "-i", "--ignore", "-d", "--delay"),
                *("--signal", "--config", "-V"),
            ),
            code=("-x", "--exec"),
        ),
        "script": Wrapper(
            value=("-E", "--echo", "-O", "--log-out", "-I", "--log-in", "-B", "--log-io"),
            code=("-c", "--command"),
        ),
        "watch": Wrapper(
            value=("-n", "--interval", "-q", "--equexit", "--differences"),
            shell_join=True,
        ),
        # hyperfine runs each command it is given, many times: ``hyperfine -w 3 'pytest -q'``
        # (what its --prepare, --setup, --cleanup and --conclude run is passed over)
        "hyperfine": Wrapper(
            value=(
                *("-w", "--warmup", "-m", "--min-runs", "-M", "--max-runs", "-r", "--runs"),
                *("-S", "--shell", "-n", "--command-name", "-u", "--time-unit", "--style"),
                *("--sort", "--output", "--input", "-D", "--parameter-step-size"),
                *("--export-asciidoc", "--export-csv", "--export-json", "--export-markdown"),
                *("--export-orgmode", "-P", "--parameter-scan", "-L", "--parameter-list"),
                *("-p", "--prepare", "-s", "--setup", "-c", "--cleanup", "--conclude"),
            ),
            stop=("-h", "--help", "-V", "--version"),
            shell_join=True,
        ),
        "screen": Wrapper(
            value=(
                *("-S", "-dmS", "-mdS", "-DmS", "-dmLS", "-c", "-t", "-h", "-e", "-p"),
                *("-Logfile", "-T"),
            ),
            stop=("-r", "-R", "-x", "-X", "-ls", "-list", "-wipe", "-v", "-Q", "-D"),
        ),
        "tmux": Wrapper(
            value=(
                *("-L", "-S", "-f", "-s", "-n", "-t", "-x", "-y", "-F", "-e", "-l"),
                *("-T",),
            ),
            chdir=("-c",),
            subcommands=[
                *(("new",), ("new-session",), ("new-window",), ("neww",)),
                *(("split-window",), ("splitw",), ("respawn-pane",), ("respawnp",)),
            ],
            shell_join=True,
        ),
        "strace": Wrapper(
            value=(
                *("-o", "--output", "-e", "-s", "--string-limit", "-a", "-b", "-E", "-I"),
                *("-O", "-S", "-U", "-P", "--trace-path", "-u", "--user", "-X"),
            ),
            stop=("-p", "--attach"),
        ),
        "ltrace": Wrapper(value=("-o", "--output", "-e", "-s", "-a", "-u", "-n"), stop=("-p",)),
        "valgrind": Wrapper(value=("--log-file", "--xml-file")),
        "valgrind.bin": Wrapper(value=("--log-file", "--xml-file")),  # Debian's launcher
        # The Erlang VM runs an escript (``mix``) after ``-extra``: ``beam.smp ... -extra
        # /usr/bin/mix test``.
        "beam.smp": Wrapper(start_after=("-extra",), requires_start=True),
        "erl": Wrapper(start_after=("-extra",), requires_start=True),
        "perf": Wrapper(
            value=("-o", "--output", "-e", "--event", "-F", "--freq", "-c", "--count"),
            stop=("-p", "--pid", "-a", "--all-cpus"),
            subcommands=[("record",), ("stat",), ("trace",)],
        ),
        "gdb": Wrapper(start_after=("--args",), requires_start=True),
        "lldb": Wrapper(start_after=("--",), requires_start=True),
        "rr": Wrapper(subcommands=[("record",)], value=("-o", "--output-trace-dir")),
        "py-spy": Wrapper(
            value=("-o", "--output", "-r", "--rate", "-d", "--duration", "-f", "--format"),
            stop=("-p", "--pid"),
            subcommands=[("record",), ("top",)],
        ),
        "memray": Wrapper(
            value=("-o", "--output", "--trace-python-allocators"),
            module=("-m",),
            subcommands=[("run",)],
        ),
        "systemd-run": Wrapper(
            value=(
                *("-u", "--unit", "-p", "--property", "--description", "--slice", "-E"),
                *("--setenv", "-M", "--machine", "-H", "--host", "--uid", "--gid", "--nice"),
                *("--on-active", "--on-boot", "--on-startup", "--on-unit-active"),
                *("--on-unit-inactive", "--on-calendar", "--timer-property", "--path-property"),
                *("--socket-property", "--service-type", "--slice-inherit"),
            ),
            chdir=("--working-directory",),
        ),
        "flock": Wrapper(
            value=("-w", "--timeout", "--wait", "-E", "--conflict-exit-code"),
            code=("-c", "--command"),
            positionals=1,
        ),
        "find": Wrapper(start_after=("-exec", "-execdir", "-ok", "-okdir"), requires_start=True),
        # GNU parallel: ``parallel -j4 pytest {} ::: tests/*`` runs the command
        # before ``:::`` once per argument; ``parallel ::: "pytest a" "pytest b"``
        # runs each argument as a command line.
        "parallel": Wrapper(
            value=(
                *("-j", "--jobs", "-P", "--max-procs", "--joblog", "-S", "--sshlogin"),
                *("--tmpdir", "--tempdir", "-a", "--arg-file", "--colsep", "-C", "-d"),
                *("--delimiter", "-E", "--eof", "-I", "-n", "--max-args", "-N", "-L"),
                *("--max-lines", "-s", "--max-chars", "--results", "--res", "--timeout"),
                *("--delay", "--retries", "--halt", "--halt-on-error", "--memfree", "--load"),
                *("--nice", "--basefile", "--bf", "--return", "--transferfile", "--tf"),
                *("--sshloginfile", "--slf", "--tagstring", "--tag-string", "--env"),
                *("--block", "--block-size", "--recstart", "--recend", "--header"),
                *("--limit", "--arg-sep", "--arg-file-sep", "--termseq", "--rpl"),
                *("--ctagstring", "--sshdelay", "--ssh", "--semaphorename", "--id"),
                *("--profile", "-J", "--seqreplace", "--shellquote-replace", "--cleanup-on"),
            ),
            chdir=("--workdir", "--wd"),
            stop=(
                *("--dry-run", "--dryrun", "--version", "--help", "-h", "--citation"),
                *("--bibtex", "--number-of-cpus", "--number-of-cores", "--number-of-sockets"),
                *("--number-of-threads", "--record-env", "--embed", "--minversion"),
                *("--max-line-length-allowed", "--shell-completion"),
            ),
            shell_join=True,
            arg_separators=("::::", "::::+"),
            command_lists=(":::", ":::+"),
        ),
        "nix": Wrapper(
            value=("-I", "--profile", "--expr", "-f", "--file"),
            start_after=("-c", "--command"),
            requires_start=True,
        ),
        "nix-shell": Wrapper(
            value=("-p", "--packages", "-I", "-A", "--attr", "--arg", "--argstr"),
            code=("--run", "--command"),
            stop=("--help",),
        ),
        "su": Wrapper(
            value=("-s", "--shell", "-g", "--group", "-G", "--supp-group", "-w"),
            code=("-c", "--command", "--session-command"),
            positionals=1,
            dash_option=True,  # ``su - postgres``: a login shell, as ``-l``
        ),
        "runuser": Wrapper(
            value=("-u", "--user", "-s", "--shell", "-g", "--group", "-G", "--supp-group", "-w"),
            code=("-c", "--command", "--session-command"),
        ),
        "sg": Wrapper(code=("-c",), positionals=1),
        # Tcl's shell runs the script file it is given: ``tclsh tests/test_helper.tcl``
        "tclsh": Wrapper(value=("-encoding",)),
        "tclsh8.6": Wrapper(value=("-encoding",)),
        "tclsh9.0": Wrapper(value=("-encoding",)),
        # dotenv-cli (``dotenv -e .env -- CMD``) and python-dotenv (``dotenv -f .env run CMD``)
        "dotenv": Wrapper(
            value=("-e", "-c", "-v", "-p", "-f", "--file", "-q", "--quote", "--export"),
            subcommands=[("run",)],
            own_commands=("run", "list", "get", "set", "unset"),
        ),
        "cross-env": Wrapper(assignments=True),
        "cross-env-shell": Wrapper(assignments=True, shell_join=True),
        "env-cmd": Wrapper(value=("-f", "--file", "-e", "--environments", "-r", "--rc-file")),
        "mise": Wrapper(
            value=("-E", "--env", "-j", "--jobs"),
            chdir=("-C", "--cd"),
            subcommands=[("exec",), ("x",)],
        ),
        "asdf": Wrapper(subcommands=[("exec",)]),
        # Flox: ``flox activate -- CMD`` execs CMD in the environment, ``-c`` runs a shell string
        "flox": Wrapper(
            value=("-d", "--dir", "-r", "--reference", "-m", "--mode", "-g", "--generation"),
            code=("-c", "--command"),
            stop=("--print-script",),
            subcommands=[("activate",)],
        ),
        "fvm": Wrapper(),  # ``fvm flutter test``: the word after it is the program
        # node version managers: ``corepack pnpm test`` (a pinned ``pnpm@9`` too),
        # ``volta run --node 20 npm test``, ``fnm exec --using 20 npm test``
        "corepack": Wrapper(),
        "volta": Wrapper(
            value=("--node", "--npm", "--yarn", "--pnpm", "--env"), subcommands=[("run",)]
        ),
        "fnm": Wrapper(
            value=("--using", "--log-level", "--arch", "--fnm-dir", "--node-dist-mirror"),
            subcommands=[("exec",)],
        ),
        "numactl": Wrapper(
            value=(
                *("-N", "--cpunodebind", "-m", "--membind", "-C", "--physcpubind"),
                *("-i", "--interleave", "-p", "--preferred", "-P", "--preferred-many"),
                *("-w", "--weighted-interleave"),
            ),
            stop=("-s", "--show", "-H", "--hardware"),
        ),
        # ``opam exec -- dune runtest``: a command in the opam switch's environment
        "opam": Wrapper(value=("--switch",), subcommands=[("exec",)]),
        # ``elixir -S mix test``: the script after -S is found on the PATH and run
        "elixir": Wrapper(start_after=("-S",), requires_start=True),
        # ``go run PKG``: the package path's last part is the program
        # (``go run github.com/onsi/ginkgo/v2/ginkgo -r``); ``go tool NAME`` runs a
        # tool the module depends on (``go tool gotestsum``); ``-n`` only prints
        # the commands; ``go test`` is a row.
        "go": Wrapper(
            value=(
                *("-tags", "-ldflags", "-gcflags", "-asmflags", "-mod", "-modfile", "-o", "-p"),
                *("-pkgdir", "-toolexec", "-exec", "-overlay", "-pgo", "-covermode", "-coverpkg"),
            ),
            chdir=("-C",),
            stop=("-n",),
            subcommands=[("run",), ("tool",)],
        ),
        "istanbul": Wrapper(
            value=("--root", "--dir", "--report", "-x", "--config", "--include"),
            subcommands=[("cover",), ("test",)],
        ),
        "devbox": Wrapper(value=("-c", "--config", "-e", "--env"), subcommands=[("run",)]),
        "lerna": Wrapper(
            value=("--scope", "--ignore", "--concurrency", "--since"),
            subcommands=[("exec",)],
        ),
        "reflex": Wrapper(value=("-r", "--regex", "-R", "-g", "--glob", "-G", "-c", "-d")),
        "eatmydata": Wrapper(),
        "chronic": Wrapper(),
        "faketime": Wrapper(value=("-m", "-f"), positionals=1),
        "dbus-run-session": Wrapper(value=("--config-file", "--dbus-daemon")),
        "unshare": Wrapper(value=("-S", "--setuid", "-G", "--setgid", "--map-user", "--wd")),
        "prlimit": Wrapper(stop=("-p", "--pid")),
        "cgexec": Wrapper(value=("-g",)),
        "firejail": Wrapper(),
        "with-contenv": Wrapper(),
    }
)

# macOS's coreutils from Homebrew are the GNU tools with a ``g`` in front.
WRAPPERS.update({f"g{name}": WRAPPERS[name] for name in ("timeout", "nice", "stdbuf", "env")})
WRAPPERS["gnohup"] = WRAPPERS["nohup"]
WRAPPERS["rtx"] = WRAPPERS["mise"]  # mise's former name

# Secret and environment injectors: each runs the command after its options
# (and its ``--``) with the secrets in its environment.
WRAPPERS.update(
    {
        # ``doppler run -p PROJECT -c CONFIG -- CMD``; ``--command STRING`` runs a shell string
        "doppler": Wrapper(
            value=(
                *("-p", "--project", "-c", "--config", "--token", "--scope", "--api-host"),
                *("--dashboard-host", "--configuration", "--mount", "--mount-format"),
                *("--mount-template", "--mount-max-reads", "--name-transformer", "--fallback"),
                *("--passphrase", "--fallback-passphrase", "--preserve-env"),
            ),
            code=("--command",),
            subcommands=[("run",)],
        ),
        # 1Password: ``op run --env-file .env -- CMD``
        "op": Wrapper(
            value=("--env-file", "--account", "--config", "--session", "--cache", "--format"),
            subcommands=[("run",)],
        ),
        # ``aws-vault exec PROFILE -- CMD`` (and its forks' ``aws-okta exec PROFILE -- CMD``)
        "aws-vault": Wrapper(
            value=(
                *("-d", "--duration", "-t", "--mfa-token", "--region", "--prompt"),
                *("--backend", "--keychain", "--pass-dir", "--pass-cmd", "--pass-prefix"),
            ),
            stop=("-j", "--json", "--stdout", "-s", "--server", "--ec2-server", "--ecs-server"),
            subcommands=[("exec",)],
            positionals=1,
        ),
        "aws-okta": Wrapper(
            value=("-t", "--assume-role-ttl", "-a", "--session-ttl", "-r", "--mfa-duo-device"),
            subcommands=[("exec",)],
            positionals=1,
        ),
        "saml2aws": Wrapper(
            value=("-a", "--idp-account", "-p", "--profile", "--exec-profile", "--region"),
            subcommands=[("exec",)],
        ),
        # ``infisical run --env=dev --path=/api -- CMD``; ``--command STRING``
        "infisical": Wrapper(
            value=(
                *("--env", "--path", "--projectId", "--token", "--tags", "--domain"),
                *("--watch-interval",),
            ),
            code=("--command",),
            subcommands=[("run",)],
        ),
        # ``dotenvx run -f .env.test -- CMD``
        "dotenvx": Wrapper(
            value=("-f", "--env-file", "-fv", "--env-vault-file", "-e", "--env", "--convention"),
            subcommands=[("run",)],
        ),
        # ``chamber exec SERVICE... -- CMD``: the services run until ``--``
        "chamber": Wrapper(start_after=("--",), requires_start=True, stop=("read", "list")),
        # ``teller run --reset --shell -- CMD``
        "teller": Wrapper(
            value=("-c", "--config"), code_flags=("--shell",), subcommands=[("run",)]
        ),
        # ``berglas exec -- CMD``, ``varlock run -- CMD``
        "berglas": Wrapper(subcommands=[("exec",)]),
        "varlock": Wrapper(value=("--path", "-p"), subcommands=[("run",)]),
        # ``summon -p PROVIDER -f secrets.yml CMD``
        "summon": Wrapper(value=("-p", "--provider", "-f", "-D", "--yaml", "-e", "--environment")),
        # ``envchain NAMESPACE CMD``
        "envchain": Wrapper(stop=("--set", "-s", "--list", "-l"), positionals=1),
        # ``sops exec-env FILE 'CMD'``, ``sops exec-file FILE 'CMD {}'``: a shell string
        "sops": Wrapper(
            value=("--user", "--filename", "--input-type", "--output-type"),
            subcommands=[("exec-env",), ("exec-file",)],
            positionals=1,
            shell_join=True,
        ),
        # ``railway run -s SERVICE CMD``
        "railway": Wrapper(
            value=("-s", "--service", "-e", "--environment"), subcommands=[("run",)]
        ),
    }
)

# Tools that run the command after their options on the same machine and in
# the same tree: resource limits, sandboxes that keep the tree, users and
# groups, container init programs, profilers, retries and terminal sessions.
WRAPPERS.update(
    {
        # macOS: ``caffeinate -i CMD`` keeps the machine awake while CMD runs
        "caffeinate": Wrapper(value=("-t", "-w")),
        "cpulimit": Wrapper(
            value=("-l", "--limit", "-c", "--cpu", "-s", "--signal"),
            stop=("-p", "--pid", "-e", "--exe", "-P", "--path"),
        ),
        "trickle": Wrapper(value=("-d", "-u", "-w", "-t", "-l", "-n")),
        "timelimit": Wrapper(value=("-S", "-s", "-T", "-t")),
        "systemd-inhibit": Wrapper(value=("--what", "--who", "--why", "--mode"), stop=("--list",)),
        "setpriv": Wrapper(
            value=(
                *("--reuid", "--regid", "--ruid", "--rgid", "--euid", "--egid", "--groups"),
                *("--inh-caps", "--ambient-caps", "--bounding-set", "--securebits"),
                *("--pdeathsig", "--selinux-label", "--apparmor-profile", "--landlock-access"),
                *("--landlock-rule",),
            ),
            stop=("-d", "--dump", "--list-caps"),
        ),
        # ``gosu USER CMD``, ``su-exec USER CMD``, ``s6-setuidgid USER CMD``
        "gosu": Wrapper(positionals=1),
        "su-exec": Wrapper(positionals=1),
        "s6-setuidgid": Wrapper(positionals=1),
        "chpst": Wrapper(
            value=(
                *("-u", "-U", "-b", "-e", "-/", "-n", "-l", "-L", "-m", "-d", "-o", "-p"),
                *("-f", "-c", "-r", "-t"),
            ),
        ),
        # container init programs as a command: ``tini -- CMD``, ``dumb-init CMD``
        "tini": Wrapper(value=("-p", "-e")),
        "dumb-init": Wrapper(value=("-r", "--rewrite")),
        "fakeroot": Wrapper(value=("-l", "--lib", "--faked", "-i", "-s", "-b")),
        "torsocks": Wrapper(value=("-u", "-p", "-a", "-P", "--user", "--pass", "--address")),
        "proxychains": Wrapper(value=("-f",)),
        "proxychains4": Wrapper(value=("-f",)),
        "tsocks": Wrapper(),
        # ``ip netns exec NAME CMD``: the command in a network namespace, same tree
        "ip": Wrapper(
            value=("-n", "-netns", "-b", "-batch", "-f", "-family", "-rc", "-rcvbuf"),
            subcommands=[("netns", "exec")],
            positionals=1,
        ),
        # bubblewrap keeps the tree it binds: ``bwrap --bind / / --dev /dev -- CMD``
        "bwrap": Wrapper(
            value=(
                *("--dev", "--proc", "--tmpfs", "--dir", "--mqueue", "--unsetenv", "--uid"),
                *("--gid", "--hostname", "--lock-file", "--sync-fd", "--info-fd", "--seccomp"),
                *("--add-seccomp-fd", "--block-fd", "--userns-block-fd", "--json-status-fd"),
                *("--userns", "--userns2", "--pidns", "--remount-ro", "--exec-label"),
                *("--file-label", "--cap-add", "--cap-drop", "--perms", "--size", "--argv0"),
                *("--overlay-src", "--tmp-overlay", "--ro-overlay", "--args"),
            ),
            pairs=(
                *("--bind", "--ro-bind", "--dev-bind", "--bind-try", "--ro-bind-try"),
                *("--dev-bind-try", "--symlink", "--setenv", "--file", "--bind-data"),
                *("--ro-bind-data", "--chmod", "--bind-fd", "--ro-bind-fd", "--overlay"),
            ),
            chdir=("--chdir",),
        ),
        # terminal sessions that start a command: ``zellij run -- CMD``,
        # ``dtach -n SOCKET CMD``, ``abduco -c NAME CMD``
        "zellij": Wrapper(
            value=(
                *("-s", "--session", "-l", "--layout", "-c", "--config", "--config-dir"),
                *("--data-dir", "-d", "--direction", "-n", "--name", "--height", "--width"),
                *("-x", "--x", "-y", "--y"),
            ),
            chdir=("--cwd",),
            subcommands=[("run",), ("r",), ("action", "new-pane")],
        ),
        "dtach": Wrapper(value=("-n", "-c", "-A", "-N", "-e", "-r"), stop=("-a", "-p")),
        "abduco": Wrapper(value=("-c", "-n", "-A", "-e"), stop=("-a", "-l")),
        # retries: ``retry -t 3 -- CMD`` (and ``retry -t 3 'CMD'``, a shell string)
        "retry": Wrapper(
            value=(
                *("-t", "--times", "--tries", "-d", "--delay", "-s", "--sleep", "-u", "--until"),
                *("-w", "--while", "-m", "--message", "-attempts", "-sleep", "-max-time"),
                *("-task-time", "--jitter", "--backoff", "--max-time"),
            ),
            shell_join=True,
        ),
        # profilers of a command: ``austin -i 1ms python -m pytest``,
        # ``heaptrack python -m pytest``; ``ddtrace-run pytest``
        "austin": Wrapper(
            value=("-i", "--interval", "-t", "--timeout", "-x", "--exposure", "-o", "--output"),
            stop=("-p", "--pid", "-w", "--where"),
        ),
        "heaptrack": Wrapper(value=("-o", "--output"), stop=("-p", "--pid", "-a", "--analyze")),
        "ddtrace-run": Wrapper(),
        # concurrently runs each argument as a command line, ``npm:NAME`` as ``npm run NAME``
        "concurrently": Wrapper(
            value=(
                *("-n", "--names", "--name-separator", "-c", "--prefix-colors", "-p"),
                *("--prefix", "-l", "--prefix-length", "-t", "--timestamp-format", "-s"),
                *("--success", "-m", "--max-processes", "--restart-tries", "--restart-after"),
                *("--kill-signal", "--default-input-target", "--teardown"),
            ),
            stop=("-h", "--help", "-v", "-V", "--version"),
            each_line=True,
            shorthands=(
                *(("npm:", "npm run "), ("yarn:", "yarn run "), ("pnpm:", "pnpm run ")),
                ("bun:", "bun run "),
            ),
        ),
        # Bear records the compiler calls of a build: ``bear -- make check``
        "bear": Wrapper(value=("--output", "-o", "--config", "--library", "-l")),
        # profilers that run a python module or script: ``pyinstrument -m pytest``,
        # ``viztracer -m pytest``, ``python -m cProfile -o out -m pytest``,
        # ``python -m pdb -m pytest``
        "pyinstrument": Wrapper(
            value=("-o", "--outfile", "-r", "--renderer", "-p", "--render-option", "-i"),
            module=("-m",),
            stop=("--load", "--load-prev"),
        ),
        "viztracer": Wrapper(
            value=(
                *("-o", "--output_file", "--output_dir", "--tracer_entries"),
                *("--max_stack_depth", "--include_files", "--exclude_files", "--min_duration"),
                *("--log_func_args", "--plugins", "--rcfile", "--dump_raw"),
            ),
            module=("-m",),
            stop=("--combine", "--align_combine", "--attach", "--attach_installed"),
        ),
        "cProfile": Wrapper(value=("-o", "--outfile", "-s", "--sort"), module=("-m",)),
        "profile": Wrapper(value=("-o", "--outfile", "-s", "--sort"), module=("-m",)),
        "pdb": Wrapper(value=("-c", "--command"), module=("-m",)),
        # mpi4py runs a script or module so that an error in one rank ends them all:
        # ``mpirun -n 2 python -m mpi4py -m pytest`` (its ``-c CODE`` is not read)
        "mpi4py": Wrapper(
            value=("--rc",), module=("-m",), stop=("-c", "-h", "--help", "--version")
        ),
    }
)

# MPI launchers start the program as ranks, on this machine unless told other
# hosts: ``mpirun -n 4 python -m pytest``, ``mpiexec -np 2 ./unit_tests``.
# Options of Open MPI's mpirun (``orterun``, ``prterun``, ``oshrun``: one
# program under several names), MPICH's and Intel MPI's Hydra ``mpiexec``; a
# program after a ``:`` (another rank's program) is not read.
_MPI_LAUNCHER = Wrapper(
    value=(
        # how many ranks, where, and how they are placed
        *("-n", "-np", "--np", "--n", "-c", "-N", "-npernode", "--npernode", "-npersocket"),
        *("--npersocket", "-H", "-host", "--host", "-hosts", "-hostfile", "--hostfile", "-f"),
        *("-machinefile", "--machinefile", "-machine", "--default-hostfile", "-ppn", "-perhost"),
        *("--map-by", "-map-by", "--rank-by", "-rank-by", "--bind-to", "-bind-to", "-binding"),
        *("--cpus-per-proc", "--cpus-per-rank", "-cpus-per-proc", "--cpu-set", "--cpu-list"),
        *("-rf", "--rankfile", "--slot-list", "--pset", "-usize"),
        # the environment, output and the runtime
        *("-x", "-envlist", "-genvlist", "--output-filename", "-output-filename", "--output"),
        *("-outfile-pattern", "-errfile-pattern", "-prepend-pattern", "--stdin", "--xterm"),
        *("--timeout", "-timeout", "--path", "--prefix", "--preload-files", "--tmpdir"),
        *("--launch-agent", "--personality", "--display", "--runtime-options", "-am", "-tune"),
        "--tune",
        *("--stream-buffering", "-launcher", "-launcher-exec", "-bootstrap", "-bootstrap-exec"),
        *("-rmk", "-demux", "-iface", "-topolib", "-nameserver", "--debugger", "-configfile"),
        *("--ompi-server", "--report-pid", "--report-uri", "--app"),
    ),
    pairs=(
        *("--mca", "-mca", "--gmca", "-gmca", "--prtemca", "--pmixmca", "--omca"),
        *("-env", "-genv"),
    ),
    chdir=("-wdir", "--wdir", "-wd", "--wd"),
    stop=("-h", "--help", "-help", "-V", "--version", "-version", "-info", "--info"),
)
WRAPPERS.update(
    dict.fromkeys(
        (
            *("mpirun", "mpiexec", "orterun", "prterun", "oshrun", "shmemrun", "mpiexec.hydra"),
            *("mpirun.openmpi", "mpiexec.openmpi", "mpirun.mpich", "mpiexec.mpich"),
        ),
        _MPI_LAUNCHER,
    )
)

# A workload manager's launchers run the command as a job step, in the
# caller's directory on the job's nodes (a checkout on shared storage is
# this checkout there): ``srun -n 1 pytest``, ``salloc -N 1 ctest`` (salloc
# without a command starts a shell, ``--no-shell`` none), ``sbatch
# run_tests.sh`` or ``sbatch --wrap="make check"`` (the job runs when the
# scheduler starts it). Options taking a value are Slurm's own list
# (``src/common/slurm_opt.c``): the three commands share most of them.
_SLURM_VALUES = (
    *("-A", "-B", "-C", "-F", "-G", "-J", "-L", "-M", "-N", "-S", "-b", "-c", "-d", "-m"),
    *("-n", "-p", "-q", "-t", "-w", "-x", "--account", "--acctg-freq", "--autocomplete"),
    *("--bb", "--bbf", "--begin", "--cluster", "--cluster-constraint", "--clusters"),
    *("--comment", "--constraint", "--container", "--container-id", "--context"),
    *("--core-spec", "--cores-per-socket", "--cpu-freq", "--cpus-per-gpu", "--cpus-per-task"),
    *("--deadline", "--delay-boot", "--dependency", "--distribution", "--exclude", "--extra"),
    *("--extra-node-info", "--gpu-bind", "--gpu-freq", "--gpus", "--gpus-per-node"),
    *("--gpus-per-socket", "--gpus-per-task", "--gres", "--gres-flags", "--hint", "--job-name"),
    *("--licenses", "--mail-type", "--mail-user", "--mcs-label", "--mem", "--mem-bind"),
    *("--mem-per-cpu", "--mem-per-gpu", "--mem-update", "--mincpus", "--network", "--nodefile"),
    *("--nodelist", "--nodes", "--ntasks", "--ntasks-per-core", "--ntasks-per-gpu"),
    *("--ntasks-per-node", "--ntasks-per-socket", "--ntasks-per-tres", "--partition"),
    *("--prefer", "--priority", "--profile", "--qos", "--reservation", "--resources"),
    *("--runtime", "--segment", "--signal", "--sockets-per-node", "--switches"),
    *("--tasks-per-node", "--thread-spec", "--threads-per-core", "--time", "--time-min"),
    *("--tmp", "--tres-bind", "--tres-per-task", "--wckey"),
)
_SLURM_IO_VALUES = ("-e", "-i", "-o", "--error", "--input", "--output", "--open-mode", "--export")
_SLURM_CHDIR = ("-D", "--chdir")
_SLURM_STOP = ("-h", "--help", "--usage", "-V", "--version", "--test-only")
WRAPPERS.update(
    {
        "srun": Wrapper(
            value=(
                *_SLURM_VALUES,
                *_SLURM_IO_VALUES,
                *("-T", "-W", "-r", "--accel-bind", "--bcast-exclude", "--cpu-bind"),
                *("--cpu_bind", "--epilog", "--het-group", "--pack-group", "--ignore-signals"),
                *("--jobid", "--mpi", "--msg-timeout", "--prolog", "--relative"),
                *("--slurmd-debug", "--task-epilog", "--task-prolog", "--threads"),
                *("--treewidth", "--wait"),
            ),
            chdir=_SLURM_CHDIR,
            # ``--multi-prog``: the operand is a file of programs, one per task
            stop=(*_SLURM_STOP, "--multi-prog"),
        ),
        "salloc": Wrapper(
            value=(*_SLURM_VALUES, "--wait-all-nodes"),
            chdir=_SLURM_CHDIR,
            stop=(*_SLURM_STOP, "--no-shell"),
        ),
        "sbatch": Wrapper(
            value=(
                *_SLURM_VALUES,
                *_SLURM_IO_VALUES,
                *("-a", "--array", "--batch", "--export-file", "--gid", "--uid"),
                *("--kill-on-invalid-dep", "--wait-all-nodes"),
            ),
            chdir=_SLURM_CHDIR,
            code=("--wrap",),
            stop=_SLURM_STOP,
        ),
    }
)

# The other workload managers' launchers, from each one's source or manual:
# Flux (``flux run``, ``submit``, ``alloc`` with a command, ``batch`` with a
# script or ``--wrap``; flux-core's ``cli/base.py``), IBM's ``jsrun`` (its
# ``-h`` is ``--chdir``) and LLNL's ``lrun`` over it, LSF's ``bsub COMMAND``,
# PBS's ``qsub SCRIPT`` or ``qsub -- COMMAND`` (its ``-h`` holds the job), Cray's
# ``aprun`` and TACC's ``ibrun``.
_FLUX_VALUES = (
    *("-B", "--bank", "-q", "--queue", "-t", "--time-limit", "--urgency", "--job-name"),
    *("-o", "--setopt", "-S", "--setattr", "--add-file", "--dependency", "--requires"),
    *("--require", "--begin-time", "--env", "--env-remove", "--env-file", "--rlimit"),
    *("--input", "--output", "--error", "--cwd", "--flags", "--signal", "--resources-shape"),
    *("--resources-json", "--taskmap", "-N", "--nodes", "-n", "--ntasks", "-c"),
    *("--cores-per-task", "-g", "--gpus-per-task", "--cores", "--tasks-per-node"),
    *("--tasks-per-core", "--gpus-per-node", "--wait-event", "--cc", "--bcc", "--log"),
    *("--log-stderr", "--add-brokers", "--conf", "--broker-opts", "--broker-opt", "--nslots"),
    *("--cores-per-slot", "--gpus-per-slot", "--dump"),
)
_JSRUN_VALUES = (
    *("-a", "--tasks_per_rs", "-p", "--np", "-c", "--cpu_per_rs", "-d"),
    *("--launch_distribution", "-g", "--gpu_per_rs", "-K", "--rs_per_socket", "-l"),
    *("--latency_priority", "-m", "--memory_per_rs", "-n", "--nrs", "-r", "--rs_per_host"),
    *("-e", "--stdio_mode", "-f", "--appfile", "-I", "--stdin_rank", "-k", "--stdio_stderr"),
    *("-o", "--stdio_stdout", "-t", "--stdio_input", "-A", "--allocate_only", "--erf_input"),
    *("--erf_output", "--erf_output_pidx", "-H", "--launch_node_task", "-J"),
    *("--use_reservation", "-L", "--use_spindle", "-M", "--smpiargs", "-P"),
    *("--pre_post_exec", "-S", "--save_resources", "-U", "--use_resources", "-x"),
    *("--exclude_hosts", "-X", "--exit_on_error", "-Z", "--progress", "--print_placement"),
    *("-b", "--bind", "-D", "--env_no_propagate", "-E", "--env", "-F", "--env_eval"),
)
_JSRUN_STOP = ("-?", "--help", "--usage", "-V", "--version")
WRAPPERS.update(
    {
        "flux": Wrapper(
            value=_FLUX_VALUES,
            subcommands=[("run",), ("submit",), ("alloc",), ("batch",)],
            stop=("--help", "--dry-run", "--dry", "--list-plugins"),
        ),
        "jsrun": Wrapper(value=_JSRUN_VALUES, chdir=("-h", "--chdir"), stop=_JSRUN_STOP),
        "lrun": Wrapper(
            value=(
                *_JSRUN_VALUES,
                *("-T", "-N", "--threads", "--smt", "--mpibind", "-W", "--gpubind", "--core"),
                *("--core_delay", "--core_cpu", "--core_gpu", "--core_kill"),
            ),
            chdir=("-h", "--chdir"),
            stop=_JSRUN_STOP,
        ),
        "bsub": Wrapper(
            value=(
                *("-a", "-alloc_flags", "-app", "-b", "-C", "-c", "-clusters", "-cn_cu"),
                *("-cn_mem", "-core_isolation", "-csm", "-D", "-data", "-datagrp", "-E", "-Ep"),
                *("-e", "-eo", "-env", "-eptl", "-ext", "-extsched", "-F", "-f", "-freq", "-G"),
                *("-g", "-gpu", "-hostfile", "-i", "-is", "-J", "-Jd", "-jobaff", "-jsdl"),
                *("-jsdl_strict", "-jsm", "-json", "-k", "-L", "-Lp", "-ln_mem", "-ln_slots"),
                *("-M", "-m", "-mig", "-n", "-network", "-nnodes", "-notify", "-o", "-oo"),
                *("-outdir", "-P", "-p", "-pack", "-ptl", "-Q", "-q", "-R", "-rnc", "-S", "-s"),
                *("-sla", "-smt", "-sp", "-stage", "-step_cgroup", "-T", "-t", "-U", "-u", "-v"),
                *("-W", "-We", "-w", "-wa", "-wt", "-yaml"),
            ),
            chdir=("-cwd",),
            stop=("-h", "-help", "-V"),
        ),
        "qsub": Wrapper(
            value=(
                *("-a", "-A", "-b", "-c", "-C", "-D", "-e", "-F", "-i", "-j", "-J", "-k", "-K"),
                *("-l", "-L", "-m", "-M", "-N", "-o", "-p", "-P", "-q", "-r", "-R", "-S", "-t"),
                *("-T", "-u", "-v", "-w", "-W"),
            ),
            chdir=("-d",),
            stop=("--version", "--about"),
        ),
        "aprun": Wrapper(
            value=(
                *("-a", "--architecture", "-cc", "--cc", "--cpu-binding", "-cp", "--cp"),
                *("--cpu-binding-file", "-d", "--cpus-per-pe", "-D", "--debug", "-e"),
                *("--environment-override", "-E", "--exclude-node-list"),
                *("--exclude-node-list-file", "-F", "--access-mode", "-j", "--cpus-per-cu"),
                *("-L", "--node-list", "-l", "--node-list-file", "-m", "--memory-per-pe"),
                *("--mpmd-env", "-n", "--pes", "-N", "--pes-per-node", "-p"),
                *("--protection-domain", "-P", "--pipes", "--p-governor", "--p-state", "-r"),
                *("--specialized-cpus", "-R", "--relaunch", "-S", "--pes-per-numa-node", "-sl"),
                *("--numa-node-list", "-sn", "--numa-nodes-per-node", "-t", "--cpu-time-limit"),
                *("-Z", "--zone-sort-secs"),
            ),
            chdir=("--wdir",),
            stop=("--help", "--version"),
        ),
        "ibrun": Wrapper(value=("-n", "-np", "-o"), stop=("--help",)),
    }
)

# Launchers of distributed training start the program once per process they
# are asked for, on this machine unless told other nodes: ``torchrun
# --nproc-per-node 2 -m pytest tests`` (a script is run by python, ``-m``
# makes it a module, ``--no-python`` a program), ``accelerate launch``,
# ``deepspeed`` and ``horovodrun`` the same way.
_TORCHRUN_VALUES = (
    *("--nnodes", "--nproc-per-node", "--nproc_per_node", "--rdzv-backend", "--rdzv_backend"),
    *("--rdzv-endpoint", "--rdzv_endpoint", "--rdzv-id", "--rdzv_id", "--rdzv-conf"),
    *("--rdzv_conf", "--max-restarts", "--max_restarts", "--monitor-interval"),
    *("--monitor_interval", "--start-method", "--start_method", "--role", "--log-dir"),
    *("--log_dir", "-r", "--redirects", "-t", "--tee", "--local-ranks-filter"),
    *("--local_ranks_filter", "--node-rank", "--node_rank", "--master-addr", "--master_addr"),
    *("--master-port", "--master_port", "--local-addr", "--local_addr", "--logs-specs"),
    *("--logs_specs", "--rdzv-timeout", "--event-log-handler", "--numa-binding"),
)
_TORCHRUN = Wrapper(value=_TORCHRUN_VALUES, module=("-m", "--module"), stop=("-h", "--help"))
WRAPPERS.update(
    {
        "torchrun": _TORCHRUN,
        "torch.distributed.run": _TORCHRUN,
        # the older launcher: ``python -m torch.distributed.launch --use-env script.py``
        "torch.distributed.launch": Wrapper(
            value=(*_TORCHRUN_VALUES, "--local-rank", "--local_rank"),
            module=("-m", "--module"),
            stop=("-h", "--help"),
        ),
        "accelerate": Wrapper(
            value=(
                *("--config_file", "--config-file", "--num_processes", "--num-processes"),
                *("--num_machines", "--num-machines", "--mixed_precision", "--mixed-precision"),
                *("--gpu_ids", "--gpu-ids", "--machine_rank", "--machine-rank"),
                *("--main_process_ip", "--main-process-ip", "--main_process_port"),
                *("--main-process-port", "--dynamo_backend", "--dynamo-backend"),
                *("--num_cpu_threads_per_process", "--num-cpu-threads-per-process"),
                *("--deepspeed_config_file", "--zero_stage", "--rdzv_backend", "--max_restarts"),
                *("--monitor_interval", "--tee", "--log_dir", "--role", "--main_training_function"),
            ),
            module=("-m", "--module"),
            stop=("-h", "--help"),
            subcommands=[("launch",)],
        ),
        "deepspeed": Wrapper(
            value=(
                *("--num_gpus", "--num-gpus", "--num_nodes", "--num-nodes", "-H", "--hostfile"),
                *("-i", "--include", "-e", "--exclude", "--master_port", "--master_addr"),
                *("--launcher", "--launcher_args", "--node_rank", "--min_elastic_nodes"),
                *("--max_elastic_nodes", "--autotuning", "--bind_core_list", "--ssh_port"),
            ),
            module=("--module",),
            stop=("-h", "--help"),
        ),
        "horovodrun": Wrapper(
            value=(
                *("-np", "--num-proc", "-p", "--ssh-port", "-i", "--ssh-identity-file"),
                *("-H", "--hosts", "-hostfile", "--hostfile", "--start-timeout"),
                *("--network-interfaces", "--network-interface", "--output-filename"),
                *("--config-file", "--min-np", "--max-np", "--slots-per-host", "--slots"),
                *("--host-discovery-script", "--mpi-args", "--log-level", "--gloo-timeout-seconds"),
                *("--fusion-threshold-mb", "--cycle-time-ms", "--cache-capacity"),
                *("--timeline-filename", "--autotune-log-file", "--elastic-timeout"),
                *("--reset-limit", "--binding-args", "--num-nccl-streams", "--thread-affinity"),
            ),
            pairs=("--blacklist-cooldown-range",),
            stop=("-h", "--help", "-v", "--version", "-cb", "--check-build"),
        ),
    }
)

TOOL_COMMS = (
    # valgrind runs the program inside its tool, a binary named for the tool
    # and the platform (``memcheck-amd64-linux``), with its own argv kept
    *("memcheck-*", "cachegrind-*", "callgrind-*", "helgrind-*", "drd-*", "massif-*"),
    *("dhat-*", "none-*", "exp-*", "lackey-*"),
)
"""Globs on ``comm`` of processes that run a wrapper's argv under another name."""

SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "fish"})
NODES = frozenset({"node", "nodejs", "tsx", "ts-node", "ts-node-esm"})
PHPS = frozenset({"php"})
CODE_FROM_STDIN = frozenset({"R", "julia"})
"""Interpreters that read their code from stdin when given none (``echo CODE | R``)."""
RUBIES = frozenset({"ruby"})
LUAS = frozenset({"lua", "lua5.1", "lua5.2", "lua5.3", "lua5.4", "luajit", "resty"})
PERLS = frozenset({"perl"})
JAVAS = frozenset({"java"})
PYTHON_PREFIXES = ("python", "pypy")
PYTHON_SUFFIXES = frozenset({"", "t", "d", "m", "u", "w", "-dbg"})

HELP_OR_VERSION = frozenset({"--version", "--help"})
"""Long options after which python or a shell prints and exits."""
PYTHON_LONG_VALUES = frozenset({"--check-hash-based-pycs"})
SHELL_VALUES = frozenset({"-o", "+o", "-O", "+O", "--rcfile", "--init-file"})
NODE_STOPS = frozenset(
    {"-e", "--eval", "-p", "--print", "-v", "--version", "-h", "--help", "-", "-c", "--check"}
)
RUBY_VALUES = frozenset({"-I", "-r", "-C", "-E", "-F", "--encoding"})
# -c checks the syntax and -y traces the parser: the script is not run
RUBY_STOPS = frozenset({"-e", "--version", "-h", "--help", "-", "-c", "-y", "--yydebug"})
# lua runs its script after -e CODE, -v and -i (the lua manual); luajit -b saves bytecode
LUA_VALUES = frozenset({"-l", "-e", "-j"})
LUA_STOPS = frozenset({"-", "-b"})
PERL_VALUES = frozenset({"-I", "-M", "-m", "-x"})
PERL_STOPS = frozenset({"-e", "-E", "-v", "-V", "-h", "-c", "-"})
JAVA_VALUES = frozenset(
    {"-cp", "-classpath", "--class-path", "-p", "--module-path", "--upgrade-module-path"}
    | {"--add-modules", "--add-opens", "--add-exports", "--add-reads", "--patch-module"}
    | {"--limit-modules", "--source"}
)
JAVA_STOPS = frozenset({"-version", "--version", "-h", "-help", "--help", "-?", "-X"})
PHP_VALUES = frozenset({"-d", "-c", "-z"})
PHP_STOPS = frozenset(
    {"-r", "-v", "--version", "-h", "--help", "-i", "--info", "-m", "--modules", "-l"}
    | {"--syntax-check", "-a", "--interactive", "-S", "-s", "-w", "--ini", "-B", "-R", "-F"}
    | {"-E", "-"}
)
