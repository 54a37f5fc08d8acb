"""What a report means for someone about to start a test run, in plain words.

Shared by every face that speaks to a person or an agent (hooks, ``runctx run``,
``runctx check``, ``runctx wait``, the pytest plugin), so they all say the same
thing the same way.

Runs counted as *ours* are the report's ``ours``: known to be this checkout's
and user's, or of unknown identity (the visible answer). Only ``Report.ours_known``
is safe to act on (stop); waiting for or refusing next to an unknown one only
costs time.

Every piece of foreign text in these sentences (a kind, a reason, a path, a
user name) is escaped by :func:`runctx.present.escape.visible` as it is put
in, so a sentence's only line breaks are its own.
"""

from __future__ import annotations

import pwd

from runctx.identity import Verdict
from runctx.present.escape import visible
from runctx.report import JudgedRun, Report
from runctx.sources.load import Load
from runctx.unknown import Unknown

TYPE_CHECKING = False
if TYPE_CHECKING:
    from runctx.bytecode import StaleModule
    from runctx.code_origin import CodeCheck, Origin
    from runctx.environment import Environment

_SECONDS_PER_MINUTE = 60
_SECONDS_PER_HOUR = 3600
_SECONDS_PER_DAY = 86400


def human_age(seconds: float) -> str:
    """``42s``, ``3m12s``, ``2h05m``, ``3d04h``."""
    whole = int(seconds)
    if whole < _SECONDS_PER_MINUTE:
        return f"{whole}s"
    if whole < _SECONDS_PER_HOUR:
        return f"{whole // 60}m{whole % 60:02d}s"
    if whole < _SECONDS_PER_DAY:
        return f"{whole // 3600}h{whole % 3600 // 60:02d}m"
    return f"{whole // 86400}d{whole % 86400 // 3600:02d}h"


def owner_name(uid: int | Unknown) -> str:
    """The user name of a uid, the number when it has none, ``?`` when unknown."""
    if isinstance(uid, Unknown):
        return "?"
    try:
        return visible(pwd.getpwuid(uid).pw_name)
    except KeyError:
        return str(uid)


def describe_run(judged: JudgedRun) -> str:
    """``pid 4121 (pytest, running 3m12s, 5 processes)``."""
    run = judged.run
    count = len(run.members)
    noun = "process" if count == 1 else "processes"
    orphaned = ", orphaned worker" if run.orphaned else ""
    age = human_age(run.age_seconds)
    return f"pid {run.pid} ({visible(run.kind)}, running {age}, {count} {noun}{orphaned})"


def describe_ours(judged: JudgedRun) -> str:
    """A run of this checkout, with a note when its identity was not fully known."""
    text = describe_run(judged)
    if judged.judgement.verdict is Verdict.UNKNOWN:
        reasons = "; ".join(visible(reason) for reason in judged.judgement.reasons)
        text += f" [identity not fully known: {reasons}]"
    return text


def describe_foreign(judged: JudgedRun) -> str:
    """A foreign run with its owner and why it is foreign."""
    run = judged.run
    why = "; ".join(visible(reason) for reason in judged.judgement.reasons if "==" not in reason)
    return f"{describe_run(judged)} owned by {owner_name(run.uid)}: {why}"


def describe_load(load: Load) -> str:
    """``2 usable CPUs, load 3.10 (1.55 per CPU), CPU pressure 41.0% (avg10)``."""
    parts = []
    if not isinstance(load.usable_cpus, Unknown):
        parts.append(f"{load.usable_cpus} usable CPUs")
    if not isinstance(load.load_average, Unknown):
        per_cpu = load.load_per_cpu
        per = "" if isinstance(per_cpu, Unknown) else f" ({per_cpu:.2f} per CPU)"
        parts.append(f"load {load.load_average[0]:.2f}{per}")
    if not isinstance(load.cpu_pressure, Unknown):
        parts.append(f"CPU pressure {load.cpu_pressure.avg10:.1f}% (avg10)")
    return ", ".join(parts) if parts else "load unknown"


def same_checkout_message(report: Report) -> str:
    """Why a new test run should not start now, and what to do."""
    ours = report.ours
    runs = "; ".join(describe_ours(judged) for judged in ours)
    advice = (
        "Two runs of one checkout share caches, build dirs and lock files and can fail "
        "each other. Wait for it (`runctx wait`, or start the command as "
        "`runctx run --wait -- COMMAND`), or, if it is a leftover, stop it "
        "(`runctx stop PID`)."
    )
    return f"{len(ours)} other test run(s) of this checkout are live: {runs}.\n{advice}"


def shared_tree_message(runs: tuple[JudgedRun, ...]) -> str:
    """Why another user's run in this very checkout matters, and what to do."""
    described = "; ".join(
        f"{describe_run(judged)} owned by {owner_name(judged.run.uid)}" for judged in runs
    )
    return (
        f"{len(runs)} test run(s) of another user are live in this very checkout: {described}. "
        "They are not this user's runs (never counted as ours), but they write this "
        "checkout's caches, coverage files and build dirs, and the files they leave belong "
        "to their owner. Wait for them to end or ask their owner; to start beside them, "
        'set on-shared-tree = "warn" in [tool.runctx] (or RUNCTX_ON_SHARED_TREE=warn).'
    )


def foreign_message(report: Report) -> str:
    """A plain note on foreign contention: who, why foreign, how loaded the box is."""
    foreign = report.foreign
    return (
        f"{len(foreign)} foreign test run(s) share this machine (not this checkout's, "
        "never counted as ours): "
        + "; ".join(describe_foreign(judged) for judged in foreign)
        + f". Box: {describe_load(report.load)}. Slowness and timeouts in this run may "
        "come from that load rather than from a regression."
    )


# --------------------------------------------------------------------------- the code under test


def origin_reason(origin: Origin) -> str:
    """Why a package of the project comes from outside the checkout, in words."""
    install = origin.install
    if install is not None and install.editable:
        return (
            f"the editable install of {visible(install.name)} {visible(install.version)} in "
            f"this environment points at {visible(install.source)}"
        )
    if install is not None:
        return (
            f"it is the copy a non-editable install of {visible(install.name)} "
            f"{visible(install.version)} made from {visible(install.source)}"
        )
    if origin.entry is not None:
        return f"{visible(origin.entry or '.')} comes before this checkout on sys.path"
    return "the import system finds it there first"


def code_elsewhere_lines(check: CodeCheck, *, after_collection: bool = False) -> list[str]:
    """What a session should say when the project's packages come from another checkout."""
    if not check.elsewhere:
        return []
    lines = [
        (
            f"the code under test is not this checkout's ({visible(check.checkout)}): "
            f"{len(check.elsewhere)} of its packages come from elsewhere"
        ),
    ]
    for origin in check.elsewhere:
        verb = "is imported" if origin.imported or after_collection else "will be imported"
        lines.append(
            f"  {visible(origin.package)} {verb} from {visible(origin.path)}: "
            f"{origin_reason(origin)}"
        )
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
    return f"not checked: {visible(stale.detail)}"


# --------------------------------------------------------------------------- shared environments


def describe_environment(environment: Environment) -> str:
    """``/srv/venv (a venv)``."""
    kinds = {
        "venv": "a venv",
        "conda": "a conda env",
        "system": "a system Python",
        "node_modules": "node_modules",
    }
    return (
        f"{visible(environment.prefix)} ({kinds.get(environment.kind, visible(environment.kind))})"
    )


def _in_checkout(judged: JudgedRun) -> str:
    root = judged.run.root
    where = visible(str(root)) if not isinstance(root, Unknown) else "an unknown checkout"
    return f"{describe_run(judged)} in {where}, owned by {owner_name(judged.run.uid)}"


def shared_environment_message(environment: Environment, runs: tuple[JudgedRun, ...]) -> str:
    """Why a test run about to start shares its environment with runs of other checkouts."""
    described = "; ".join(_in_checkout(judged) for judged in runs)
    return (
        f"this test run imports from {describe_environment(environment)}, as {len(runs)} live "
        f"test run(s) of other checkouts do: {described}. Checkouts that share one environment "
        "share what is installed in it: an install by either (`pip install -e .`, `uv sync`) "
        "changes the code the other imports, in the middle of its run. Give each checkout an "
        "environment of its own to keep their results apart."
    )


def environment_change_message(
    command: str, environment: Environment, runs: tuple[JudgedRun, ...]
) -> str:
    """Why a command that changes an environment matters to the live runs that import from it."""
    described = "; ".join(_in_checkout(judged) for judged in runs)
    return (
        f"`{visible(command)}` changes {describe_environment(environment)}, which "
        f"{len(runs)} live test run(s) import from: {described}. Their remaining imports would "
        "find what this command installs (an editable install repoints them at this "
        "checkout's code), so their results would mix two versions. Wait for them to end, or "
        "give each checkout an environment of its own; on-environment-change in [tool.runctx] "
        '(or RUNCTX_ON_ENVIRONMENT_CHANGE) sets "warn", "ask" or "stop".'
    )
