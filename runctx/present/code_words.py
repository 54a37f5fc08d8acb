"""How the plugins word the code under test: where its packages come from, its bytecode.

Apart from :mod:`runctx.present.words`, which words runs and the box and
imports the report and the scan to do so: the code plugin
(:mod:`runctx.pytest_code`) runs in every process of a session, xdist's
workers too, which never scan, and this is all the wording it needs.
Every piece of foreign text (a package, a path, a version) is escaped by
:func:`runctx.present.escape.visible` as it is put in.
"""

from __future__ import annotations

from runctx.present.escape import visible

TYPE_CHECKING = False
if TYPE_CHECKING:
    from runctx.bytecode import StaleModule
    from runctx.code_origin import CodeCheck, Origin


def origin_reason(origin: Origin) -> str:
    """Why a package of the project comes from outside the checkout, in words."""
    install = origin.install
    if install is not None and install.editable:
        return (
            f"the editable install of {visible(install.name)} {visible(install.version)} in "
            f"this environment points at {visible(install.source)}"
        )
    if install is not None and origin.differs:
        return (
            f"it is the copy a non-editable install of {visible(install.name)} "
            f"{visible(install.version)} made from this checkout ({visible(install.source)}), "
            f"and it differs from the source on disk now: {visible(', '.join(origin.differs))}"
        )
    if install is not None:
        return (
            f"it is the copy a non-editable install of {visible(install.name)} "
            f"{visible(install.version)} made from {visible(install.source)}"
        )
    if origin.entry is not None:
        return f"{visible(origin.entry or '.')} comes before this checkout on sys.path"
    return "the import system finds it there first"


def code_elsewhere_lines(check: CodeCheck) -> list[str]:
    """What a session should say when the project's packages come from another checkout."""
    if not check.elsewhere:
        return []
    count = len(check.elsewhere)
    lines = [
        (
            f"the code under test is not this checkout's ({visible(check.checkout)}): "
            f"{count} of its packages {'comes' if count == 1 else 'come'} from elsewhere"
        )
    ]
    for origin in check.elsewhere:
        verb = "is imported" if origin.imported else "will be imported"
        lines.append(
            f"  {visible(origin.package)} {verb} from {visible(origin.path)}: "
            f"{origin_reason(origin)}"
        )
    if all(origin.differs for origin in check.elsewhere):
        lines.append(
            "  Tests here would pass or fail on the installed copy, not on the source as it is "
            "now. Install this checkout editable (pip install -e .), so that its source is what "
            "runs, or reinstall it before each run."
        )
        return lines
    lines.append(
        "  Tests here would pass or fail on that code, not this checkout's. Give each checkout "
        "its own environment, or install this checkout into it (which repoints it for every "
        "run that uses it)."
    )
    return lines


def stale_reason(stale: StaleModule) -> str:
    """How a module's code differs from its source on disk, in words."""
    cache = visible(stale.cache)
    if stale.how == "served":
        return (
            f"its bytecode cache {cache} holds the code of an earlier version with the same "
            "size and modification second, and was served to this session"
        )
    if stale.how == "changed":
        return (
            "its source changed on disk after it was imported: the session ran an earlier version"
        )
    if stale.how == "unsure":
        detail = f" ({visible(stale.detail)})" if stale.detail else ""
        return (
            "its source changed on disk during the session; which version ran cannot be "
            f"told{detail}"
        )
    if stale.how == "sourceless":
        return (
            f"it ran the bytecode file {cache}, which has no source on disk (the source was "
            "removed, and Python imports a NAME.pyc left beside it): remove that file"
        )
    return f"not checked: {visible(stale.detail)}"
