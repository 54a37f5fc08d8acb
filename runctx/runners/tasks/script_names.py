"""package.json scripts named for tests that run none: ``npm run test:server``, ``test:…:report``.

A script named ``test`` or ``test:NAME`` is a test run by its name, without
its text being read. Some such names say otherwise in their last part: they
serve a suite, write or show its report, generate fixtures, build, lint or
type-check (``test:server``, ``test:websocket:autobahn:report``,
``test:types``). For those names only (:data:`LOOK_ALIKE_PARTS`), the hook
reads the script's text, and the command is no run when the text starts no
runner. A script that cannot be read stays a run, as its name says.

Also here: whether a package.json has no script of a name, for ``yarn run
jest``, ``pnpm vitest``, ``bun run mocha``: with no such script, those run the
package's binary of that name.
"""

from __future__ import annotations

import os

from runctx.runners.tasks.package_json import PACKAGE_JSON, scripts_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from runctx.runners.tasks.files import ProjectFiles

LOOK_ALIKE_PARTS = frozenset(
    {
        *("report", "reports", "serve", "server", "generate", "gen", "setup", "teardown"),
        *("clean", "build", "lint", "types", "typecheck", "tsc", "prepare", "install"),
        *("fixtures", "download", "open", "show", "view", "merge", "upload", "compile"),
        *("format", "fmt", "prettier", "style", "stylelint", "eslint", "spell", "spelling"),
        *("size", "circular", "deps", "license", "licenses", "audit", "exports", "bundle"),
        *("pack", "publish", "codegen", "preprocess"),
    }
)
"""Words of the last part of a test-named script (``test:…:PART``, ``test:PART-WORD``) that
run no test by their name: the script's text decides."""


def look_alike_script(argv: Sequence[str]) -> str | None:
    """The test-named script ``argv`` runs when its name's last part is a look-alike's."""
    for word in argv[1:]:
        if not word.startswith("test:"):
            continue
        # any word of the last part: ``test:preprocess-gql``, ``test:e2e-report``
        words = word.rsplit(":", 1)[1].split("-")
        return word if not LOOK_ALIKE_PARTS.isdisjoint(words) and "and" not in words else None
    return None


def script_text(name: str, directory: str, files: ProjectFiles) -> str | None:
    """The text of the package.json script ``name`` in ``directory``, or None."""
    scripts = files.parsed(os.path.join(directory, PACKAGE_JSON), scripts_of)
    if not isinstance(scripts, dict):
        return None
    text = scripts.get(name)
    return text if isinstance(text, str) else None


def has_no_script(name: str, directory: str, files: ProjectFiles) -> bool:
    """Whether the package.json of ``directory`` is read and has no script ``name``."""
    scripts = files.parsed(os.path.join(directory, PACKAGE_JSON), scripts_of)
    return isinstance(scripts, dict) and name not in scripts
