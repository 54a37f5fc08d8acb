r"""The JSON form of a report: the contract machines read.

Required fields (more are welcome)::

    {"here": {"root": "/abs/checkout" | null, "uid": 1000 | null},
     "runs": [{"pid": 4121, "kind": "pytest", "argv": ["..."], "root": "/abs" | null,
               "uid": 1000 | null, "foreign": false, "reasons": ["..."], "self": false,
               "members": [4121, 4130, 4131], "started": 1764430000.5}],
     "load": {...}, "visibility": {...}}

A value that could not be known is ``null`` and its reason stands beside it in
``unknown`` (``{"root": {"unknown": "denied", "detail": ""}}``).

``started_by`` is ``{"kind", "session", "detail"}`` or ``null`` when who
started the run is not known (its reason in ``unknown``); ``cpu_now`` the
CPUs the run kept busy over the scan's ``cpu_window_seconds`` (``null`` when
not sampled); ``load.memory`` the box's ``MemTotal`` and ``MemAvailable``.

``root`` is the path text as shown (for a run, as its own process names it);
``root_id`` the directory it is (``{"device": ..., "inode": ...}``, ``null``
when only the text is known); ``deleted`` says a run's root was removed (a
deleted worktree); ``shares_tree`` that a foreign run is another user's in
this very checkout. ``environment`` is where a run imports from (``kind``:
``venv``, ``conda``, ``system`` or ``node_modules``; ``prefix`` and its
``prefix_id``; ``found_by``; ``interpreter``), ``null`` when not known;
``shares_environment_with`` the pids of runs of other checkouts that import
from the same one.

Every string is valid UTF-8 (:mod:`runctx.present.escape`). Text read from
``/proc`` or the file system that is valid UTF-8 is given exactly; text that is
not (a directory name, an argument) is given with U+FFFD for each byte that is
not UTF-8, and its exact bytes stand beside it in base64: ``root_bytes``
(a removed root's too), ``cwd_bytes``, ``argv_bytes`` (every argument, when
any is not UTF-8), ``detail_bytes`` beside an unknown's ``detail`` (a
removed cwd's path), and ``session_bytes`` and ``detail_bytes`` in
``started_by`` (an environment variable, a cgroup name). A ``*_bytes`` field
is absent when its text is exact.
"""

from __future__ import annotations

from typing import Any

import attrs

from runctx.busy import box_pressure, busy_now
from runctx.checkout import Root
from runctx.environment import Environment
from runctx.present.escape import base64_bytes, is_exact, json_bytes, json_text
from runctx.present.schema import SCHEMA_VERSION
from runctx.records import argv_truncated
from runctx.report import JudgedRun, Report, Run, StartedBy, Viewpoint
from runctx.settings import BusyRules
from runctx.sources.load import Load
from runctx.sources.visibility import Visibility
from runctx.unknown import Unknown
from runctx.watchers import watcher_of


def _known(value: object) -> object:
    return None if isinstance(value, Unknown) else value


def _unknown(value: Unknown) -> dict[str, str]:
    out = {"unknown": value.reason.value, "detail": json_text(value.detail)}
    raw = json_bytes(value.detail)
    if raw is not None:
        out["detail_bytes"] = raw  # a removed cwd's path, say
    return out


def _unknowns(**fields: object) -> dict[str, dict[str, str]]:
    return {name: _unknown(value) for name, value in fields.items() if isinstance(value, Unknown)}


def _text(value: str | Unknown) -> str | None:
    return None if isinstance(value, Unknown) else json_text(value)


def _add_bytes(out: dict[str, Any], **fields: object) -> None:
    """``NAME_bytes`` beside each field whose text is not exact (see the module docstring)."""
    for name, value in fields.items():
        if isinstance(value, str):
            raw = json_bytes(value)
            if raw is not None:
                out[f"{name}_bytes"] = raw


def root_id_json(root: object) -> dict[str, int] | None:
    """The directory of a root as ``{"device": ..., "inode": ...}``, None when not known."""
    return _directory_json(root.directory_id if isinstance(root, Root) else None)


def _directory_json(directory: tuple[int, int] | None) -> dict[str, int] | None:
    return None if directory is None else {"device": directory[0], "inode": directory[1]}


def environment_json(environment: Environment | Unknown) -> dict[str, Any] | None:
    """Where a run imports from, as JSON; None when it is not known."""
    if isinstance(environment, Unknown):
        return None
    out: dict[str, Any] = {
        "kind": environment.kind,
        "prefix": json_text(environment.prefix),
        "prefix_id": _directory_json(environment.directory_id),
        "found_by": environment.found_by,
        "interpreter": json_text(environment.interpreter),
    }
    _add_bytes(out, prefix=environment.prefix, interpreter=environment.interpreter)
    return out


def viewpoint_json(here: Viewpoint) -> dict[str, Any]:
    """The viewpoint as JSON."""
    out: dict[str, Any] = {
        "root": _text(here.root),
        "root_id": root_id_json(here.root),
        "uid": _known(here.uid),
    }
    _add_bytes(out, root=here.root)
    unknown = _unknowns(root=here.root, uid=here.uid)
    if unknown:
        out["unknown"] = unknown
    return out


def started_by_json(started: StartedBy | Unknown) -> dict[str, str | None] | None:
    """Who started a run as ``{"kind", "session", "detail"}``, None when not known.

    ``session`` and ``detail`` come from what the run inherited (its
    environment, its cgroup): exact when valid UTF-8, else with U+FFFD and
    their exact bytes in ``session_bytes`` and ``detail_bytes``.
    """
    if isinstance(started, Unknown):
        return None
    out: dict[str, str | None] = {
        "kind": json_text(started.kind),
        "session": None if started.session is None else json_text(started.session),
        "detail": None if started.detail is None else json_text(started.detail),
    }
    _add_bytes(out, session=started.session, detail=started.detail)
    return out


def _watcher(run: Run) -> str | None:
    label = watcher_of(run)
    return None if label is None else json_text(label)


def run_json(judged: JudgedRun) -> dict[str, Any]:
    """One judged run as JSON."""
    run = judged.run
    argv = None if isinstance(run.argv, Unknown) else [json_text(arg) for arg in run.argv]
    out: dict[str, Any] = {
        "pid": run.pid,
        "start": run.start,
        "kind": json_text(run.kind),
        "argv": argv,
        "root": _text(run.root),
        "root_id": root_id_json(run.root),
        "deleted": isinstance(run.root, Root) and run.root.deleted,
        "cwd": _text(run.cwd),
        "uid": _known(run.uid),
        "foreign": judged.foreign,
        "shares_tree": judged.shares_tree,
        "verdict": judged.judgement.verdict.value,
        "reasons": [json_text(reason) for reason in judged.judgement.reasons],
        "self": run.is_self,
        "orphaned": run.orphaned,
        "watcher": _watcher(run),
        "members": list(run.members),
        "started": round(run.started, 3),
        "age_seconds": round(run.age_seconds, 3),
        "cpu_seconds": None if isinstance(run.cpu_seconds, Unknown) else round(run.cpu_seconds, 3),
        "rss_bytes": _known(run.rss_bytes),
        "environment": environment_json(run.environment),
        "shares_environment_with": list(run.shares_environment_with),
        "cpu_now": None if isinstance(run.cpu_now, Unknown) else round(run.cpu_now, 3),
        "started_by": started_by_json(run.started_by),
    }
    _add_bytes(out, root=run.root, cwd=run.cwd)
    if not isinstance(run.argv, Unknown) and not all(is_exact(arg) for arg in run.argv):
        out["argv_bytes"] = [base64_bytes(arg) for arg in run.argv]
    if argv_truncated(run.argv):
        out["argv_truncated"] = True
    unknown = _unknowns(
        argv=run.argv,
        uid=run.uid,
        cwd=run.cwd,
        root=run.root,
        cpu_seconds=run.cpu_seconds,
        rss_bytes=run.rss_bytes,
        environment=run.environment,
        cpu_now=run.cpu_now,
        started_by=run.started_by,
    )
    if unknown:
        out["unknown"] = unknown
    return out


def load_json(load: Load) -> dict[str, Any]:
    """The box's load as JSON."""
    pressure = load.cpu_pressure
    out: dict[str, Any] = {
        "usable_cpus": _known(load.usable_cpus),
        "load_average": None if isinstance(load.load_average, Unknown) else list(load.load_average),
        "load_per_cpu": None
        if isinstance(load.load_per_cpu, Unknown)
        else round(load.load_per_cpu, 3),
        "cpu_pressure": None if isinstance(pressure, Unknown) else attrs.asdict(pressure),
        "memory": None
        if isinstance(load.memory, Unknown)
        else {
            "total_bytes": load.memory.total_bytes,
            "available_bytes": load.memory.available_bytes,
            "available_percent": round(
                load.memory.available_bytes * 100 / load.memory.total_bytes, 2
            )
            if load.memory.total_bytes > 0
            else None,
        },
    }
    unknown = _unknowns(
        usable_cpus=load.usable_cpus,
        load_average=load.load_average,
        cpu_pressure=pressure,
        memory=load.memory,
    )
    if unknown:
        out["unknown"] = unknown
    return out


def visibility_json(visibility: Visibility) -> dict[str, Any]:
    """What the scan could not see, as JSON."""
    out = attrs.asdict(visibility)
    out["hidepid"] = json_text(visibility.hidepid)
    out["notes"] = [json_text(note) for note in visibility.notes]
    return out


def report_json(report: Report, busy: BusyRules | None = None) -> dict[str, Any]:
    """A whole report as JSON (``runctx/schemas/report.schema.json`` describes it).

    With ``busy`` (the checkout's thresholds) it also says whether each run
    is busy now (``runs[].busy_now``, ``null`` when not measured) and whether
    the box is (``box``: ``{"busy", "reasons"}``).
    """
    runs = [run_json(judged) for judged in report.runs]
    out: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "here": viewpoint_json(report.here),
        "runs": runs,
        "load": load_json(report.load),
        "visibility": visibility_json(report.visibility),
        "self_pid": _known(report.self_pid),
        "taken_at": round(report.taken_at, 3),
        "scan_seconds": round(report.duration_seconds, 6),
        "cpu_window_seconds": None
        if isinstance(report.cpu_window, Unknown)
        else round(report.cpu_window, 3),
    }
    if busy is not None:
        for judged, shown in zip(report.runs, runs, strict=True):
            measured = not isinstance(judged.run.cpu_now, Unknown)
            shown["busy_now"] = busy_now(judged.run, busy) if measured else None
        pressure = box_pressure(report.load, busy)
        out["box"] = {
            "busy": True if pressure.busy else (False if pressure.known_calm else None),
            "reasons": list(pressure.reasons),
            "unknown": [json_text(fact) for fact in pressure.unknown],
        }
    return out
