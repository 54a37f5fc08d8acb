"""Names and option lists that the runner table and the wrapper table share: data only.

:mod:`runctx.runners.table` and :mod:`runctx.runners.wrappers` both read these:
the programs of one tool family (``npm`` and the ``npm-cli.js`` node runs),
the options that take a value, and the subcommands a tool calls its own (so
that ``yarn jest`` runs jest while ``yarn install`` runs nothing of ours).
"""

from __future__ import annotations

NPM_PROGRAMS = ("npm", "npm-cli.js")
PNPM_PROGRAMS = ("pnpm", "pnpm.cjs", "pnpm.js")
YARN_PROGRAMS = ("yarn", "yarn.js", "yarn.cjs")
MAKE_PROGRAMS = ("make", "gmake", "bmake", "mingw32-make")
HATCH_VALUE_OPTIONS = ("-e", "--env", "-p", "--project", "--data-dir", "--cache-dir", "--config")
"""hatch's global options that take a value (``hatch -e py311 test``)."""

NPM_VALUE_OPTIONS = ("-w", "--workspace", "--userconfig", "--cache", "--loglevel", "--registry")
NPM_CHDIR_OPTIONS = ("--prefix", "-C")
"""npm runs a package's scripts in the ``--prefix`` directory (``-C`` is its short form)."""
YARN_VALUE_OPTIONS = (
    "--modules-folder",
    "--cache-folder",
    "--mutex",
    "--network-timeout",
    "--registry",
    "-j",
    "--jobs",
    "--include",
    "--exclude",
    "--from",
)
PNPM_VALUE_OPTIONS = ("--filter", "-F", "--filter-prod", "--reporter", "--workspace-concurrency")
PNPM_CHDIR_OPTIONS = ("-C", "--dir")
MAKE_VALUE_OPTIONS = (
    "-I",
    "--include-dir",
    "-o",
    "--old-file",
    "--assume-old",
    "-W",
    "--what-if",
    "--new-file",
    "--assume-new",
    "-O",
    "--output-sync",
)
MAKE_NUMBER_OPTIONS = ("-j", "--jobs", "-l", "--load-average", "--max-load")
"""make's options whose value is optional and a number: ``make -j 4 test``, ``make -j test``."""
MAKE_CHDIR_OPTIONS = ("-C", "--directory")
MAKE_FILE_OPTIONS = ("-f", "--file", "--makefile")
MAKE_NOT_WITH = (
    "--help",
    "--version",
    "-h",
    "-v",
    "-n",
    "--dry-run",
    "--just-print",
    "--recon",
    "-q",
    "--question",
    "-p",
    "--print-data-base",
)
"""make prints and exits, or runs no recipe (``-n`` only prints the commands)."""

YARN_OWN_COMMANDS = (
    "add",
    "audit",
    "autoclean",
    "bin",
    "cache",
    "check",
    "config",
    "constraints",
    "create",
    "dedupe",
    "dlx",
    "exec",
    "explain",
    "generate-lock-entry",
    "global",
    "help",
    "import",
    "info",
    "init",
    "install",
    "licenses",
    "link",
    "list",
    "login",
    "logout",
    "node",
    "npm",
    "outdated",
    "owner",
    "pack",
    "patch",
    "patch-commit",
    "plugin",
    "policies",
    "publish",
    "rebuild",
    "remove",
    "run",
    "search",
    "set",
    "stage",
    "tag",
    "team",
    "test",
    "unlink",
    "unplug",
    "up",
    "upgrade",
    "upgrade-interactive",
    "version",
    "versions",
    "why",
    "workspace",
    "workspaces",
)

PNPM_OWN_COMMANDS = (
    "add",
    "i",
    "install",
    "update",
    "up",
    "upgrade",
    "remove",
    "rm",
    "uninstall",
    "un",
    "link",
    "ln",
    "unlink",
    "import",
    "rebuild",
    "rb",
    "prune",
    "fetch",
    "patch",
    "patch-commit",
    "audit",
    "list",
    "ls",
    "ll",
    "outdated",
    "why",
    "licenses",
    "run",
    "test",
    "t",
    "tst",
    "exec",
    "dlx",
    "create",
    "start",
    "publish",
    "pack",
    "recursive",
    "server",
    "store",
    "root",
    "bin",
    "setup",
    "init",
    "doctor",
    "config",
    "c",
    "env",
    "deploy",
    "help",
    "install-test",
    "it",
    "cache",
    "self-update",
    "approve-builds",
)

NODE_VALUES = frozenset(
    {"-r", "--require", "--import", "--loader", "--experimental-loader", "-C", "--conditions"}
    | {"--inspect-port", "--debug-port", "--title", "--input-type", "--env-file"}
    | {"--disable-warning", "--openssl-config", "--watch-path"}
    | {"--test-reporter", "--test-reporter-destination", "--test-name-pattern"}
    | {"--test-skip-pattern", "--test-concurrency", "--test-shard", "--test-timeout"}
    | {"--test-coverage-include", "--test-coverage-exclude"}
)
"""node's options that take the next word as their value (``node -r ts-node/register x.js``)."""
