"""The report as a readable table for a terminal (``runctx status``, ``--watch``).

Every piece of foreign text (an argument, a path, a kind, a reason, a user
name) goes through :func:`runctx.present.escape.visible` before it reaches a
cell or a line, so nothing in it can move the cursor or forge a line; the
lines are :mod:`runctx.present.style` spans, coloured only when written to a
terminal that wants colour.

Each run takes one line, read like ``htop``: foreign runs come busiest first
(CPU NOW, then CPU time), the :data:`FOREIGN_SHOWN` busiest of them (and every
one in this very checkout) unless all are asked for (``--all``): a box of
thousands of another user's idle runs would bury this checkout's under them,
so the rest are one line, counted by owner and checkout. Why a run is
foreign, the tree and the environment it shares are details, shown under
``details`` (``-v``, ``--wide``, the ``d`` key of ``--watch``). The table
fits a width (:class:`TextOptions`): the fixed columns keep their width
(STARTED BY at most :data:`MAX_STARTER` there), and the checkout root and
the command share what is left, the root cut at its start (``…/src/proj``)
and the command in its middle, so that both the program and the test
arguments at its end stay. ``wide`` shows whole commands. Paths
are shown relative to the home directory (``~/src``) or, in a command, to
the run's checkout (``.venv/bin/pytest``) where that is shorter; the JSON
keeps them exact.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping, Sequence

import attrs

from runctx.busy import box_pressure
from runctx.climb import was_not_climbed
from runctx.environment import Environment
from runctx.identity import Verdict
from runctx.present.escape import visible
from runctx.present.style import Line, Span, line, plain_text
from runctx.present.words import describe_starter, human_age, owner_name, plural
from runctx.record_base import Record
from runctx.records import ProcIdentity
from runctx.report import JudgedRun, Report, Run, was_cut
from runctx.settings import DEFAULT_BUSY, BusyRules
from runctx.sources.load import Load
from runctx.unknown import Reason, Unknown
from runctx.watchers import watcher_of

_GIB = 1024**3

ELLIPSIS = "…"
MIN_COMMAND = 12
"""The fewest characters the command keeps, however narrow the terminal."""
MIN_ROOT = 12
MAX_STARTER = 24
"""The widest STARTED BY cell: one long agent session name takes no room from every row."""
FOREIGN_SHOWN = 20
"""The foreign runs a table lists by default, busiest first; the rest are counted in one line."""
INDENT = "  "
GAP = "  "


@attrs.frozen(repr=False, eq=False)
class TextOptions(Record):
    """How the table is laid out.

    ``width``: the characters a line may have (None: no limit). ``wide``:
    whole commands, however long. ``home``: the directory shown as ``~``.
    ``marks``: a mark before a run's pid (``+`` for a run that appeared, in
    ``--watch``), by identity; None for no mark column at all. ``cpu_now``:
    the CPUs each run kept busy since the last refresh (``--watch``), by
    identity, shown where the scan did not measure a run's CPU NOW itself;
    ``cpu_now_seconds`` the time since that refresh. ``details``: the lines
    under a run that say why it is foreign and what it shares (``wide``
    shows them too). ``foreign_shown``: the foreign runs listed, busiest
    first, besides those in this very checkout (None: every one); the rest
    are counted, and ``all_hint`` says how to list them.
    """

    width: int | None = None
    wide: bool = False
    details: bool = False
    details_hint: str = "runctx status -v"
    """Where the details the one-line table leaves out are shown."""
    home: str | None = None
    marks: Mapping[ProcIdentity, str] | None = None
    cpu_now: Mapping[ProcIdentity, float] | None = None
    cpu_now_seconds: float | None = None
    foreign_shown: int | None = FOREIGN_SHOWN
    all_hint: str = "runctx status --all"
    """How the foreign runs a table leaves out are listed."""


def home_directory() -> str | None:
    """The user's home directory, as ``~`` stands for it (None when unknown or ``/``)."""
    home = os.environ.get("HOME") or os.path.expanduser("~")
    return home.rstrip("/") if home and home not in ("/", "~") else None


def shorter_path(path: str, *, home: str | None, checkout: str | None = None) -> str:
    """``path`` relative to ``checkout`` or as ``~/...``, whichever is shortest (or as it is)."""
    candidates = [path]
    if checkout and checkout != "/":
        if path == checkout:
            candidates.append(".")
        elif path.startswith(checkout.rstrip("/") + "/"):
            candidates.append(path[len(checkout.rstrip("/")) + 1 :])
    if home:
        if path == home:
            candidates.append("~")
        elif path.startswith(home + "/"):
            candidates.append("~" + path[len(home) :])
    return min(candidates, key=len)


def command_line(judged: JudgedRun, options: TextOptions | None = None) -> str:
    """The argv of a run for a table cell: escaped, with shorter paths (not yet cut)."""
    options = options or TextOptions()
    argv = judged.run.argv
    if isinstance(argv, Unknown):
        return visible(str(argv))
    if is_title(argv):
        return visible(argv[0].strip())
    root = judged.run.root
    checkout = None if isinstance(root, Unknown) or getattr(root, "deleted", False) else root
    words = [
        shorter_path(arg, home=options.home, checkout=checkout) if arg.startswith("/") else arg
        for arg in argv
    ]
    return " ".join(_quoted(visible(word)) for word in words)


def is_title(argv: Sequence[str]) -> bool:
    """Whether ``argv`` is a title a process wrote over its command line, NUL-padded.

    ``npm test`` followed by empty strings: the title is shown as its text,
    not as one quoted word and a row of empty ones (the JSON keeps the argv).
    """
    return len(argv) > 1 and " " in argv[0] and not any(argv[1:])


def _quoted(word: str) -> str:
    """A word as a shell would need it, a leading ``~/`` left bare (it means home)."""
    if word.startswith("~/"):
        return "~/" + shlex.quote(word[2:]) if word[2:] else "~/"
    return shlex.quote(word)


def root_text(judged: JudgedRun, options: TextOptions) -> str:
    """The checkout root of a run for a table cell.

    A root a scan's budget left unwalked (another user's) is ``not looked
    for``: the note under the table says why, once.
    """
    root = judged.run.root
    if was_not_climbed(root):
        return "not looked for"
    if isinstance(root, Unknown):
        return visible(str(root))
    shown = root.shown
    return visible(shorter_path(shown, home=options.home) if not root.deleted else shown)


def cut_end(text: str, width: int) -> str:
    """``text`` in at most ``width`` characters, cut at its end with an ellipsis."""
    return text if len(text) <= width else text[: max(width - 1, 0)] + ELLIPSIS


def cut_middle(text: str, width: int) -> str:
    """``text`` in at most ``width`` characters, cut in its middle with an ellipsis.

    The start (the program) keeps a third of the room, the end (the test
    arguments, where runs of one checkout differ) the rest.
    """
    if len(text) <= width:
        return text
    room = max(width - 1, 0)
    head = room // 3
    tail = room - head
    return text[:head] + ELLIPSIS + (text[len(text) - tail :] if tail else "")


def cut_start(text: str, width: int) -> str:
    """``text`` in at most ``width`` characters, cut at its start with an ellipsis."""
    return text if len(text) <= width else ELLIPSIS + text[len(text) - max(width - 1, 0) :]


def _cpus_busy(judged: JudgedRun, options: TextOptions) -> float | None:
    """The CPUs the run kept busy: measured by the scan, else since the last refresh; or None."""
    run = judged.run
    if not isinstance(run.cpu_now, Unknown):
        return run.cpu_now
    if options.cpu_now is not None and run.identity in options.cpu_now:
        return options.cpu_now[run.identity]
    return None


def _cpu_now(judged: JudgedRun, options: TextOptions) -> str:
    """The CPU NOW cell: :func:`_cpus_busy`, or - where it is not known."""
    busy = _cpus_busy(judged, options)
    return "-" if busy is None else f"{busy:.2f}"


DROPPED_FIRST = ("ENV", "STARTED BY", "MEMBERS", "CPU", "AGE", "OWNER")
"""The columns a narrow terminal loses, first to last, before the command is cut too short."""


def _room(rows: list[list[str]]) -> int:
    """What is left for the root and the command (the last two columns) beside the others."""
    natural = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return -len(INDENT) - len(GAP) * (len(natural) - 1) - sum(natural[:-2])


def _fit(rows: list[list[str]], width: int | None, *, wide: bool) -> list[list[str]]:
    """``rows`` fitted to ``width``.

    The root (next to last) and the command (last) are cut; on a terminal too
    narrow for both, the least useful columns are left out first.
    """
    if width is None or wide:
        return rows
    for name in DROPPED_FIRST:
        if width + _room(rows) >= MIN_ROOT + MIN_COMMAND or name not in rows[0]:
            continue
        index = rows[0].index(name)
        rows = [row[:index] + row[index + 1 :] for row in rows]
    room = max(width + _room(rows), len("ROOT") + MIN_COMMAND)
    natural_root = max(len(row[-2]) for row in rows)
    root_width = min(natural_root, max(MIN_ROOT, room * 2 // 5))
    command_width = max(MIN_COMMAND, room - root_width)
    if root_width + command_width > room:
        root_width = max(len("ROOT"), room - command_width)
    for row in rows[1:]:
        row[-2] = cut_start(row[-2], root_width)
        row[-1] = cut_middle(row[-1], command_width)
    return rows


def _table(rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        INDENT
        + GAP.join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]


def environment_cell(environment: Environment | Unknown, home: str | None = None) -> str:
    """A run's environment for a table cell: its prefix, ``-`` for none, ``?`` when unreadable.

    The prefix is shown from ``home`` (``~/src/proj/.venv``) where that is shorter.
    """
    if isinstance(environment, Environment):
        return visible(shorter_path(environment.prefix, home=home))
    return "-" if environment.reason in (Reason.ABSENT, Reason.NOT_READ) else "?"


def sharing_line(judged: JudgedRun) -> str | None:
    """The line under a run that shares its environment with runs of other checkouts."""
    run = judged.run
    if not run.shares_environment_with or not isinstance(run.environment, Environment):
        return None
    others = run.shares_environment_with
    pids = ", ".join(str(pid) for pid in others)
    whose = (
        f"pid {pids} of another checkout" if len(others) == 1 else f"pids {pids} of other checkouts"
    )
    return (
        f"      shares its environment {visible(run.environment.prefix)} with {whose}: "
        "an install into it by either changes what the other imports"
    )


def busiest_first(runs: Sequence[JudgedRun], options: TextOptions) -> tuple[JudgedRun, ...]:
    """``runs`` sorted like ``htop``: CPU NOW, then CPU time, highest first; unknowns last."""

    def key(judged: JudgedRun) -> tuple[float, float, int]:
        run = judged.run
        now = _cpus_busy(judged, options)
        total = -1.0 if isinstance(run.cpu_seconds, Unknown) else run.cpu_seconds
        return (-1.0 if now is None else -now, -total, run.pid)

    return tuple(sorted(runs, key=key))


def listed_foreign(
    foreign: Sequence[JudgedRun], options: TextOptions
) -> tuple[tuple[JudgedRun, ...], tuple[JudgedRun, ...]]:
    """The foreign runs a table lists (busiest first) and those it only counts.

    Listed: the ``options.foreign_shown`` busiest, and every run in this very
    checkout (another user's, sharing its files), whatever its rank.
    """
    ranked = busiest_first(foreign, options)
    shown = options.foreign_shown
    if shown is None or len(ranked) <= shown:
        return ranked, ()
    listed = tuple(
        judged for index, judged in enumerate(ranked) if index < shown or judged.shares_tree
    )
    kept = {judged.run.identity for judged in listed}
    return listed, tuple(judged for judged in ranked if judged.run.identity not in kept)


OWNERS_NAMED = 3
"""The owners the line of unlisted foreign runs names; the others are counted together."""


def unlisted_line(unlisted: Sequence[JudgedRun], options: TextOptions) -> str:
    """The line in place of ``unlisted``: how many, their CPU now, their owners and checkouts.

    ``… and 3,981 more (0.00 CPUs busy now): 3,980 of nobody, 1 of root; in 41
    checkouts; every one: runctx status --all``.
    """
    owners: dict[str, int] = {}
    roots: set[str] = set()
    busy = 0.0
    for judged in unlisted:
        name = owner_name(judged.run.uid)
        owners[name] = owners.get(name, 0) + 1
        if isinstance(judged.run.root, str):
            roots.add(judged.run.root)
        busy += _cpus_busy(judged, options) or 0.0
    ranked = sorted(owners.items(), key=lambda pair: (-pair[1], pair[0]))
    parts = [f"{count:,} of {name}" for name, count in ranked[:OWNERS_NAMED]]
    others = sum(count for _name, count in ranked[OWNERS_NAMED:])
    if others:
        users = plural(len(ranked) - OWNERS_NAMED, "other user", "other users")
        parts.append(f"{others:,} of {users}")
    where = f" in {plural(len(roots), 'checkout', 'checkouts')};" if roots else ""
    return (
        f"{INDENT}{ELLIPSIS} and {len(unlisted):,} more ({busy:.2f} CPUs busy now): "
        f"{', '.join(parts)};{where} every one: {options.all_hint}"
    )


def kind_cell(run: Run) -> str:
    """The run's kind, ``pytest (watch)`` for a run that re-runs on change."""
    kind = visible(run.kind)
    return f"{kind} (watch)" if watcher_of(run) is not None else kind


def _details(options: TextOptions) -> bool:
    return options.details or options.wide


def _run_rows(
    runs: tuple[JudgedRun, ...], options: TextOptions, role: str, *, with_reason: bool
) -> list[Line]:
    header = ["PID", "KIND", "AGE", "MEMBERS", "CPU", "CPU NOW", "OWNER", "STARTED BY", "ENV"]
    header.extend(["ROOT", "COMMAND"])
    marks = options.marks
    marked = marks is not None
    rows = [header]
    for judged in runs:
        run = judged.run
        orphaned = " (orphaned)" if run.orphaned else ""
        row = [
            f"{run.pid}{orphaned}",
            kind_cell(run),
            human_age(run.age_seconds),
            str(len(run.members)),
            "?" if isinstance(run.cpu_seconds, Unknown) else f"{run.cpu_seconds:.1f}s",
            _cpu_now(judged, options),
            owner_name(run.uid),
            _starter_cell(judged, options),
            environment_cell(run.environment, options.home),
            root_text(judged, options),
            command_line(judged, options),
        ]
        rows.append(row)
    mark_width = 2 if marked else 0
    width = None if options.width is None else options.width - mark_width
    rows = _fit(rows, width, wide=options.wide)
    texts = _table(rows)
    lines: list[Line] = [line(Span(" " * mark_width + texts[0], "heading"))]
    for text, judged in zip(texts[1:], runs, strict=True):
        mark = marks.get(judged.run.identity, "") if marks is not None else ""
        spans: list[Span] = []
        if marked:
            spans.append(Span((mark or " ") + " ", "new" if mark else ""))
        spans.append(Span(text, role))
        lines.append(tuple(spans))
        if not _details(options):
            continue
        if with_reason:
            lines.append(line(Span(" " * mark_width + "      why: " + _reasons(judged), "dim")))
            if judged.shares_tree:
                lines.append(
                    line(
                        Span(
                            " "
                            * mark_width
                            + f"      shares this tree: {owner_name(judged.run.uid)}'s run in "
                            "this very checkout writes its caches, coverage files and build dirs "
                            "too",
                            "dim",
                        )
                    )
                )
        sharing = sharing_line(judged)
        if sharing is not None:
            lines.append(line(Span(" " * mark_width + sharing, "dim")))
    return lines


def _starter_cell(judged: JudgedRun, options: TextOptions) -> str:
    starter = describe_starter(judged.run.started_by) or "?"
    fitted = options.width is not None and not options.wide
    return cut_end(starter, MAX_STARTER) if fitted else starter


def _hidden_details(report: Report) -> bool:
    """Whether any run has a detail line that the one-line table leaves out."""
    return bool(report.foreign) or any(sharing_line(judged) is not None for judged in report.runs)


def _reasons(judged: JudgedRun) -> str:
    return "; ".join(visible(reason) for reason in judged.judgement.reasons)


def _memory_part(load: Load) -> str:
    memory = load.memory
    if isinstance(memory, Unknown):
        return f"memory {memory}"
    share = load.memory_available_percent
    percent = "" if isinstance(share, Unknown) else f" ({share:.0f}%)"
    return (
        f"memory {memory.available_bytes / _GIB:.1f} GiB available{percent} "
        f"of {memory.total_bytes / _GIB:.1f} GiB"
    )


def load_line(load: Load) -> str:
    """The box's load in one line: usable CPUs, load average, CPU pressure, memory."""
    parts = []
    cpus = load.usable_cpus
    parts.append(f"{cpus} usable CPUs" if not isinstance(cpus, Unknown) else f"usable CPUs {cpus}")
    average = load.load_average
    if isinstance(average, Unknown):
        parts.append(f"load average {average}")
    else:
        per_cpu = load.load_per_cpu
        per = "" if isinstance(per_cpu, Unknown) else f" ({per_cpu:.2f} per CPU)"
        parts.append("load " + " ".join(f"{value:.2f}" for value in average) + per)
    pressure = load.cpu_pressure
    if isinstance(pressure, Unknown):
        parts.append(f"CPU pressure {pressure}")
    else:
        parts.append(
            f"CPU pressure {pressure.avg10:.1f}% / {pressure.avg60:.1f}% / "
            f"{pressure.avg300:.1f}% (10s/60s/300s)"
        )
    parts.append(_memory_part(load))
    return "Box: " + ", ".join(parts)


def report_lines(
    report: Report, options: TextOptions | None = None, busy: BusyRules = DEFAULT_BUSY
) -> list[Line]:
    """The whole report as styled lines; ``busy`` says when the box counts as busy."""
    options = options or TextOptions()
    here = report.here
    root = visible(str(here.root))
    if isinstance(here.root, str):
        root = visible(shorter_path(str(here.root), home=options.home))
    lines: list[Line] = [line(f"Viewpoint: {root} as {owner_name(here.uid)} (uid {here.uid})")]
    self_run = report.self_run
    ours = report.ours
    foreign = report.foreign
    lines.append(line())
    if self_run is not None:
        caller = report.self_pid
        lines.append(
            line(Span(f"This run (the calling process {caller} belongs to it):", "heading")),
        )
        lines.extend(_run_rows((self_run,), options, "self", with_reason=False))
        lines.append(line())
    if ours:
        lines.append(
            line(Span(f"Other runs of this checkout ({_count(len(ours), report)}):", "heading"))
        )
        lines.extend(_run_rows(ours, options, "ours", with_reason=False))
        lines.extend(
            line(
                Span(
                    f"  {judged.run.pid}: identity not fully known, counted as ours: "
                    + _reasons(judged),
                    "dim",
                )
            )
            for judged in ours
            if judged.judgement.verdict is Verdict.UNKNOWN
        )
    else:
        lines.append(line(Span(f"Other runs of this checkout: {_none(report)}", "heading")))
    lines.append(line())
    if foreign:
        lines.append(
            line(
                Span(
                    f"Foreign runs ({_count(len(foreign), report)}; they share the CPUs, "
                    "never counted as ours):",
                    "heading",
                )
            )
        )
        listed, unlisted = listed_foreign(foreign, options)
        lines.extend(_run_rows(listed, options, "foreign", with_reason=True))
        if unlisted:
            lines.append(line(Span(unlisted_line(unlisted, options), "dim")))
        shared = report.shared_tree
        if shared:
            pids = ", ".join(str(judged.run.pid) for judged in shared)
            runs = plural(len(shared), "foreign run", "foreign runs")
            verb = "works" if len(shared) == 1 else "work"
            lines.append(
                line(
                    f"Shared tree: {runs} of other users {verb} in this very checkout "
                    f"(pid {pids}): not ours, but they share its files."
                )
            )
    else:
        lines.append(line(Span(f"Foreign runs: {_none(report)}", "heading")))
    if not _details(options) and _hidden_details(report):
        lines.append(
            line(Span(f"  (details, such as why each is foreign: {options.details_hint})", "dim"))
        )
    lines.append(line())
    lines.extend(_box_lines(report, busy, options))
    return lines


def _count(found: int, report: Report) -> str:
    """A section's count: of a cut scan, what it found before the cut (there may be more)."""
    return f"{found:,} found before --timeout cut the scan" if was_cut(report) else str(found)


def _none(report: Report) -> str:
    """What an empty section says: none live, or, of a cut scan, none found before it was cut."""
    if was_cut(report):
        return "none found before --timeout cut the scan (see Not seen)."
    return "none live."


def _thresholds(busy: BusyRules) -> list[float]:
    """The busy-box thresholds set (a figure without one is not asked about)."""
    limits = (busy.cpu_pressure, busy.load_per_cpu, busy.memory_available)
    return [limit for limit in limits if limit is not None]


def _box_lines(report: Report, busy: BusyRules, options: TextOptions) -> list[Line]:
    lines = [line(load_line(report.load))]
    pressure = box_pressure(report.load, busy)
    unread = ", ".join(pressure.unknown)
    if pressure.busy:
        lines.append(line(Span("Busy now: " + ", ".join(pressure.reasons), "warning")))
    elif pressure.known_calm:
        lines.append(line("Busy now: no (under every busy-box threshold)"))
    elif len(pressure.unknown) == len(_thresholds(busy)):
        lines.append(line(f"Busy now: unknown (cannot be read: {unread})"))
    else:
        lines.append(
            line(f"Busy now: not by the figures that could be read (cannot be read: {unread})")
        )
    window = report.cpu_window
    if not isinstance(window, Unknown):
        lines.append(line(f"CPU NOW: CPUs each run kept busy over the last {window:.2f}s"))
    elif options.cpu_now_seconds is not None:
        since = options.cpu_now_seconds
        lines.append(
            line(f"CPU NOW: CPUs each run kept busy since the last refresh, {since:.1f}s ago")
        )
    visibility = report.visibility
    seen = f"Seen: {visibility.processes_listed} processes via {visibility.source}"
    if visibility.hidepid != "unknown":
        seen += f", /proc hidepid={visible(visibility.hidepid)}"
    lines.append(line(seen))
    if visibility.notes:
        lines.extend(
            line(Span(f"Not seen: {visible(note)}", "warning")) for note in visibility.notes
        )
    else:
        lines.append(line("Not seen: nothing hidden from this scan."))
    return lines


def report_text(
    report: Report, busy: BusyRules = DEFAULT_BUSY, options: TextOptions | None = None
) -> str:
    """The whole report as plain text (no colour), lines joined."""
    return plain_text(report_lines(report, options, busy))
