"""What a report means for someone about to start a test run, in plain, short words.

Shared by every face that speaks to a person or an agent (hooks, ``runctx run``,
``runctx check``, ``runctx wait``, the pytest plugin), so they all say the same
thing the same way. What goes into an agent's context costs it on every test
command, so it is short: one line per fact, a note at most
:data:`NOTE_MAX_CHARS` characters, everything else behind ``runctx status``.

Runs counted as *ours* are the report's ``ours``: known to be this checkout's
and user's, or of unknown identity (the visible answer). Only ``Report.ours_known``
is safe to act on (stop); waiting for or refusing next to an unknown one only
costs time. Foreign runs are named only when they are busy now, or when the
box is under pressure (:mod:`runctx.busy`); idle ones are counted in a few
words.

Every piece of foreign text in these sentences (a kind, a reason, a path, a
user name, who started a run: its session id, CI job or unit) is escaped by
:func:`runctx.present.escape.visible` as it is put in, so a sentence's only
line breaks are its own.
"""

from __future__ import annotations

import functools
import pwd
from collections.abc import Sequence

from runctx.busy import BoxPressure, box_pressure, split_by_cpu
from runctx.demand import hurts
from runctx.identity import Verdict
from runctx.modes import BoxMode
from runctx.present.escape import visible
from runctx.report import JudgedRun, Report, StartedBy
from runctx.settings import BusyRules
from runctx.started_by import AgentSession, Relation, relation
from runctx.unknown import Unknown
from runctx.watchers import watcher_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from runctx.environment import Environment

_SECONDS_PER_MINUTE = 60
_SECONDS_PER_HOUR = 3600
_SECONDS_PER_DAY = 86400

NOTE_MAX_CHARS = 300
"""The most a note (contention that lets the command through) may cost an agent's context."""
MESSAGE_MAX_CHARS = 900
"""The most a refusal, a question or a warning may cost (it also says what to do)."""
_NAMED_MAX = 2
"""Foreign runs named in a note; the others are counted."""
_OURS_NAMED_MAX = 3
"""Runs of this checkout named in a refusal; the others are counted."""
_SESSION_SHOWN = 8
"""Characters of a session id shown in words (the JSON has all of it)."""
MORE = " … (cut; `runctx status` shows all runs)"


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


def plural(count: int, one: str, many: str) -> str:
    """``1 run``, ``2 runs``: the count and the noun (or phrase) that goes with it."""
    return f"{count} {one if count == 1 else many}"


def owner_name(uid: int | Unknown) -> str:
    """The user name of a uid, the number when it has none, ``?`` when unknown."""
    if isinstance(uid, Unknown):
        return "?"
    return _user_name(uid)


@functools.lru_cache(maxsize=1024)
def _user_name(uid: int) -> str:
    """The escaped user name of ``uid``, looked up once per process.

    A table of a storm of one user's runs names that user on every row; each
    lookup in the user database reads it anew (a tenth of a millisecond).
    """
    try:
        return visible(pwd.getpwuid(uid).pw_name)
    except KeyError:
        return str(uid)


def cap(text: str, limit: int) -> str:
    """``text``, cut to at most ``limit`` characters with a pointer to ``runctx status``."""
    if len(text) <= limit:
        return text
    return text[: limit - len(MORE)].rstrip() + MORE


def short_session(session: str) -> str:
    """The first characters of a session id, enough to tell sessions apart, escaped."""
    if len(session) <= _SESSION_SHOWN + 1:
        return visible(session)
    return visible(session[:_SESSION_SHOWN]) + "…"


def describe_starter(started: StartedBy | Unknown, *, detail: bool = True) -> str | None:
    """``claude-code session 5f3a2b1c…``, ``github-actions run 42 (org/app: CI / test)``; None.

    What a run inherited is foreign text: the session and the detail are
    escaped (:func:`~runctx.present.escape.visible`). ``detail`` False leaves
    the detail out.
    """
    if isinstance(started, Unknown):
        return None
    text = visible(started.kind)
    if started.session is not None:
        noun = {"github-actions": "run", "systemd": "invocation", "tmux": "pane"}.get(
            started.kind, "session"
        )
        if started.kind in {"gitlab-ci", "buildkite", "jenkins", "circleci"}:
            noun = "job"
        text += f" {noun} {short_session(started.session)}"
    if detail and started.detail is not None:
        text += f" ({visible(started.detail)})"
    return text


def describe_cpu(judged: JudgedRun) -> str:
    """``1.9 CPUs busy now``, ``idle now``, or ``CPU use now not known``."""
    cpu = judged.run.cpu_now
    if isinstance(cpu, Unknown):
        return "CPU use now not known"
    if cpu < 0.05:  # noqa: PLR2004 - below what a 0.1 s window resolves
        return "idle now"
    return f"{cpu:.1f} CPUs busy now"


def describe_run(judged: JudgedRun) -> str:
    """``pid 4121 (pytest, running 3m12s, 5 processes)``."""
    run = judged.run
    count = len(run.members)
    noun = "process" if count == 1 else "processes"
    orphaned = ", orphaned" if run.orphaned else ""
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
    """A foreign run with its owner, who started it, its CPU use now, and why it is foreign."""
    run = judged.run
    why = "; ".join(visible(reason) for reason in judged.judgement.reasons if "==" not in reason)
    starter = describe_starter(run.started_by)
    by = f", started by {starter}" if starter else ""
    return (
        f"{describe_run(judged)} owned by {owner_name(run.uid)}{by}, {describe_cpu(judged)}: {why}"
    )


def box_line(pressure: BoxPressure) -> str:
    """The box's pressure in one line: ``Box busy: CPU pressure 62% >= 40%.``."""
    return "Box busy: " + ", ".join(pressure.reasons) + "."


# --------------------------------------------------------------------------- foreign runs


def _foreign_brief(judged: JudgedRun) -> str:
    """``pid 41210 (pytest, ana, by github-actions run 42): 1.9 CPUs busy now``."""
    run = judged.run
    parts = [visible(run.kind), owner_name(run.uid)]
    starter = describe_starter(run.started_by, detail=False)
    if starter is not None:
        parts.append(f"by {starter}")
    return f"pid {run.pid} ({', '.join(parts)}): {describe_cpu(judged)}"


def pid_list(pids: Sequence[int]) -> str:
    """``pid 41210`` for one, ``pids 41210, 41388`` for more."""
    return ("pid " if len(pids) == 1 else "pids ") + ", ".join(str(pid) for pid in pids)


def idle_count(count: int) -> str:
    """``1 idle foreign test run``, ``3 idle foreign test runs``."""
    return f"{count} idle foreign test run{'' if count == 1 else 's'}"


def foreign_lines(  # noqa: PLR0913 - each choice is one face's
    report: Report,
    rules: BusyRules,
    pressure: BoxPressure,
    *,
    box_note: bool = False,
    show_box: bool = True,
    wanted: float | None = None,
) -> list[str]:
    """The lines a note on contention has, or none when nothing is worth a note.

    Busy foreign runs are named (the busiest first, at most two); idle ones
    are counted. With ``box_note`` a busy box is worth a line even with no
    foreign run at all (``on-busy-box``); ``show_box`` False leaves the line on
    the box's pressure out (a refusal that says it already). ``wanted``, the
    CPUs the run about to start will use (:func:`runctx.demand.cpus_wanted`),
    keeps the note for foreign load likely to hurt it
    (:func:`foreign_load_hurts`).
    """
    busy, idle = split_by_cpu(report.foreign, rules)
    if wanted is not None and not box_note and not foreign_load_hurts(report, busy, wanted):
        return []
    if not busy and not pressure.busy:
        return []
    if not busy and not idle and not box_note:
        return []
    lines = []
    if busy:
        named = "; ".join(_foreign_brief(judged) for judged in busy[:_NAMED_MAX])
        more = len(busy) - _NAMED_MAX
        extra = f"; {more} more busy" if more > 0 else ""
        noun = "run" if len(busy) == 1 else "runs"
        lines.append(f"Busy foreign test {noun} (not this checkout's): {named}{extra}.")
    if pressure.busy and show_box:
        lines.append(box_line(pressure))
    tail = []
    if idle:
        tail.append(f"+{idle_count(len(idle))}.")
    tail.append("Slowness may come from this load, not a regression.")
    lines.append(" ".join(tail))
    return lines


def foreign_load_hurts(report: Report, busy: Sequence[JudgedRun], wanted: float) -> bool:
    """Whether the busy foreign runs leave fewer CPUs free than a run that wants ``wanted``.

    A run whose CPU use now is not known counts as one CPU (the visible answer);
    a box whose CPUs are not known is assumed hurt when any foreign run is busy.
    """
    if not busy:
        return False
    usable = report.load.usable_cpus
    if isinstance(usable, Unknown):
        return True
    total = sum(
        1.0 if isinstance(judged.run.cpu_now, Unknown) else judged.run.cpu_now for judged in busy
    )
    return hurts(total, wanted, usable)


BUSY_FACT = "busy "
"""How a fingerprint's line naming a busy foreign run starts (``busy 41210``)."""


def contention_fingerprint(report: Report, rules: BusyRules, pressure: BoxPressure) -> str:
    """What a note on contention says, without its passing numbers: one fact a line.

    The checkout, each busy foreign run, each crossed threshold: a note whose
    facts were all told already says nothing new (:mod:`runctx.said`).
    """
    busy, _ = split_by_cpu(report.foreign, rules)
    facts = [f"here {report.here.root}"]
    facts += sorted(f"{BUSY_FACT}{judged.run.pid}" for judged in busy)
    facts += sorted(f"over {reason.partition(' ')[0]}" for reason in pressure.reasons)
    return "\n".join(facts)


def foreign_count(report: Report) -> str | None:
    """A few words on foreign runs not worth a note: ``2 idle foreign test runs``."""
    count = len(report.foreign)
    return idle_count(count) if count else None


# --------------------------------------------------------------------------- this checkout


PERSON_KINDS = frozenset({"terminal", "tmux", "screen", "ssh"})
"""Who starts a person's run: a terminal, a terminal multiplexer, a remote shell."""

_ADVICE = (
    "Runs of one checkout share caches and lock files. Wait: `runctx wait`, or start it as "
    "`runctx run --wait -- COMMAND`"
)


WATCHER_GOES_AHEAD = "goes-ahead"
"""A watcher next to a test run that starts anyway (``on-watcher = "warn"``, the default)."""
WATCHER_HOLDS = "holds"
"""A watcher next to a test run that does not start (``on-watcher``: ``stop`` or ``ask``)."""
WATCHER_WAITED_FOR = "waited-for"
"""A watcher a test run waits for (``on-watcher = "wait"``)."""


def watcher_line(judged: JudgedRun, label: str, outcome: str | None = None) -> str:
    """One line naming a watcher of this checkout: never a leftover, never a run to stop.

    ``outcome`` says what it means for the test run about to start
    (:data:`WATCHER_GOES_AHEAD`, :data:`WATCHER_HOLDS`, :data:`WATCHER_WAITED_FOR`);
    None says only what it is.
    """
    run = judged.run
    starter = describe_starter(run.started_by)
    if isinstance(run.started_by, StartedBy) and run.started_by.kind in PERSON_KINDS:
        whose = f", a person's, started from {starter}"
    elif starter is not None:
        whose = f", started by {starter}"
    else:
        whose = ""
    text = (
        f"pid {run.pid} re-runs this checkout's tests on change (`{visible(label)}`{whose}, "
        f"running {human_age(run.age_seconds)}): a watcher, not a leftover"
    )
    if outcome == WATCHER_GOES_AHEAD:
        return text + "; this test run goes ahead (the two may overlap when it re-runs)."
    if outcome == WATCHER_HOLDS:
        return (
            text + "; this checkout starts no test run next to one (on-watcher): ask whoever "
            'started it, or set on-watcher = "warn" in [tool.runctx].'
        )
    if outcome == WATCHER_WAITED_FOR:
        return text + '; this checkout waits for it to end (on-watcher = "wait").'
    return text + "."


def _ours_line(judged: JudgedRun, session: AgentSession | None) -> tuple[str, bool]:
    """One line on a run of this checkout, and whether the generic advice applies to it."""
    run = judged.run
    text = describe_ours(judged)
    starter = describe_starter(run.started_by)
    age = human_age(run.age_seconds)
    label = watcher_of(run)
    if label is not None:
        return watcher_line(judged, label), False
    if isinstance(run.started_by, StartedBy) and run.started_by.kind in PERSON_KINDS:
        return (
            f"{text}, started from {starter}: a person's run, not a leftover. Wait for it "
            "with `runctx wait`, or ask whoever started it."
        ), False
    if run.orphaned:
        return (
            f"{text} lost the process that started it (an orphan): wait with `runctx wait`, "
            "or if it is a leftover, end it with `runctx stop --orphans`."
        ), False
    related = relation(run.started_by, session, run.pid)
    if related is Relation.OWN:
        return (
            f"{text} is your own run, started {age} ago in this session: wait for it with "
            "`runctx wait` (or `runctx run --wait -- COMMAND`)."
        ), False
    if related is Relation.OTHER_SESSION:
        assert isinstance(run.started_by, StartedBy)  # noqa: S101 - relation says so
        who = describe_starter(run.started_by) or run.started_by.kind
        return (
            f"{text} was started by another session ({who}): leave it to that session; "
            "wait with `runctx wait`."
        ), False
    by = f", started by {starter}" if starter else ""
    return f"{text}{by}.", True


def same_checkout_lines(
    runs: Sequence[JudgedRun], session: AgentSession | None = None
) -> list[str]:
    """Why a new test run should not start now: each run of this checkout, and what to do."""
    count = len(runs)
    lines = [
        plural(
            count,
            "other test run of this checkout is live:",
            "other test runs of this checkout are live:",
        )
    ]
    generic: list[JudgedRun] = []
    for judged in runs[:_OURS_NAMED_MAX]:
        line, advice = _ours_line(judged, session)
        lines.append(line)
        if advice:
            generic.append(judged)
    if count == 1:  # one run: one line says it
        lines[:2] = [f"{lines[0]} {lines[1]}"]
    if count > _OURS_NAMED_MAX:
        lines.append(f"{count - _OURS_NAMED_MAX} more (runctx status).")
    if generic:
        pids = pid_list([judged.run.pid for judged in generic])
        # Nothing says these runs are left over (an orphan is, and says so above): the
        # advice is to wait, never to stop a run whose starter may be alive.
        lines.append(f"{_ADVICE} ({pids}).")
    return lines


def same_checkout_message(report: Report, session: AgentSession | None = None) -> str:
    """Why a new test run should not start now, and what to do (every run counted as ours)."""
    return "\n".join(same_checkout_lines(report.ours, session))


def shared_tree_message(runs: tuple[JudgedRun, ...], *, held: bool = True) -> str:
    """Why another user's run in this very checkout matters, and what to do.

    ``held``: whether this run is held back (stopped, asked, waiting); one that
    goes ahead anyway is told why it matters, not how to start.
    """
    described = "; ".join(
        f"{describe_run(judged)} owned by {owner_name(judged.run.uid)}" for judged in runs
    )
    live = plural(
        len(runs),
        "test run of another user is live in this very checkout",
        "test runs of another user are live in this very checkout",
    )
    why = (
        f"{live}: {described}. "
        "They write its caches and build dirs and leave files you may not own."
    )
    if not held:
        return why
    return (
        f"{why} Wait for them or ask their owner; to start anyway set "
        'on-shared-tree = "warn" in [tool.runctx].'
    )


# --------------------------------------------------------------------------- the code under test


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


_ENVIRONMENT_RUNS_NAMED = 3
"""Runs named in a word on an environment; the others are counted."""


def _in_checkout(judged: JudgedRun) -> str:
    """``pid 4121 (pytest, ana, in /src/proj-a)``."""
    run = judged.run
    where = visible(str(run.root)) if not isinstance(run.root, Unknown) else "an unknown checkout"
    return f"pid {run.pid} ({visible(run.kind)}, {owner_name(run.uid)}, in {where})"


def _named_runs(runs: tuple[JudgedRun, ...]) -> str:
    named = "; ".join(_in_checkout(judged) for judged in runs[:_ENVIRONMENT_RUNS_NAMED])
    more = len(runs) - _ENVIRONMENT_RUNS_NAMED
    return f"{named}; {more} more" if more > 0 else named


def shared_environment_message(environment: Environment, runs: tuple[JudgedRun, ...]) -> str:
    """Why a test run about to start shares its environment with runs of other checkouts.

    One line, short enough for a note: the runs by pid first (``runctx
    status`` shows their checkouts), so that a note cut for room next to
    others keeps them.
    """
    who = (
        "the live test run of another checkout"
        if len(runs) == 1
        else "live test runs of other checkouts"
    )
    pids = pid_list([judged.run.pid for judged in runs[:_ENVIRONMENT_RUNS_NAMED]])
    more = len(runs) - _ENVIRONMENT_RUNS_NAMED
    if more > 0:
        pids += f" and {more} more"
    verb = "imports" if len(runs) == 1 else "import"
    return (
        f"{who} ({pids}) {verb} from this command's environment too, "
        f"{describe_environment(environment)}: an install by either changes what the other "
        "imports."
    )


def _shared_room(heads: Sequence[str], limit: int) -> list[str]:
    """``heads`` cut so that together (one per line) they fit ``limit``: short ones whole.

    The room is shared out like water: a line shorter than its share keeps its
    length and leaves the rest to the longer ones, which are cut to equal shares.
    """
    room = limit - (len(heads) - 1)
    shares: dict[int, int] = {}
    left = sorted(range(len(heads)), key=lambda index: len(heads[index]))
    while left:
        share = room // len(left)
        index = left[0]
        if len(heads[index]) <= share:
            shares[index] = len(heads[index])
            room -= len(heads[index])
            left.pop(0)
            continue
        for index in left:
            shares[index] = max(share, len(MORE) + 8)
        break
    return [cap(head, shares[index]) for index, head in enumerate(heads)]


def merged_notes(notes: Sequence[str], limit: int) -> str:
    """Several notes in one, within ``limit`` characters, every fact kept.

    Each note's first line states its fact; those come first, each cut to an
    equal share of the room when they do not all fit, and the notes' further
    lines follow only as far as the room allows (``runctx status`` has all).
    """
    heads = [note.partition("\n")[0] for note in notes]
    rests = [line for note in notes for line in note.split("\n")[1:] if line]
    if len("\n".join(heads)) > limit:
        return cap("\n".join(_shared_room(heads, limit)), limit)
    lines = list(heads)
    for line in rests:
        if len("\n".join([*lines, line])) > limit:
            break
        lines.append(line)
    return "\n".join(lines)


def environment_change_message(
    command: str, environment: Environment, runs: tuple[JudgedRun, ...]
) -> str:
    """Why a command that changes an environment matters to the live runs that import from it."""
    noun = "run imports" if len(runs) == 1 else "runs import"
    shown = command if len(command) <= 80 else command[:79] + "…"  # noqa: PLR2004 - a glance
    return (
        f"`{visible(shown)}` changes {describe_environment(environment)}, which the live test "
        f"{noun} from: {_named_runs(runs)}. Their next imports would get what this installs "
        "(an editable install repoints them at this checkout's code). Wait for them to end, "
        "or give each checkout its own environment (on-environment-change: warn, ask or stop)."
    )


# --------------------------------------------------------------------------- what is live

EVERY_FOREIGN = "every"
"""Foreign runs each named (``runctx check``: asked for)."""
BUSY_FOREIGN = "busy"
"""Foreign runs named only when busy now or on a busy box (a note to an agent)."""
COUNTED_FOREIGN = "counted"
"""Like :data:`BUSY_FOREIGN`, and counted when none is worth a note (a session's header)."""


def live_lines(  # noqa: PLR0913 - each choice is one face's
    report: Report,
    rules: BusyRules,
    *,
    session: AgentSession | None = None,
    foreign: str = BUSY_FOREIGN,
    finished: bool = False,
    pressure: BoxPressure | None = None,
    checkout: Sequence[str] | None = None,
    wanted: float | None = None,
) -> list[str]:
    """What is live from ``report``'s viewpoint besides this run: the one wording of every face.

    Runs of this checkout are named (with whose they are, for ``session``),
    or, once a command has ``finished``, said to have been live beside it;
    other users' runs in this very checkout are named (not once finished);
    ``checkout`` stands for both where a face words them itself (a test session
    names the runs that started after it as such);
    foreign runs as ``foreign`` says (:data:`EVERY_FOREIGN`,
    :data:`BUSY_FOREIGN`, :data:`COUNTED_FOREIGN`), with the box's pressure
    under ``rules``; ``wanted`` (the CPUs the command uses) keeps a note on
    foreign load for load that hurts it (:func:`foreign_lines`).
    """
    lines: list[str] = []
    if checkout is not None:
        lines.extend(checkout)
    elif report.ours and finished:
        pids = ", ".join(f"pid {j.run.pid} ({visible(j.run.kind)})" for j in report.ours)
        live = plural(
            len(report.ours),
            "other test run of this checkout was live",
            "other test runs of this checkout were live",
        )
        lines.append(
            f"{live} when this command finished: {pids}. Runs of one checkout share "
            "caches and lock files, so they may have disturbed each other."
        )
    elif report.ours:
        lines.extend(same_checkout_lines(report.ours, session))
    if report.shared_tree and not finished and checkout is None:
        lines.append(shared_tree_message(report.shared_tree, held=False))
    pressure = pressure if pressure is not None else box_pressure(report.load, rules)
    if foreign == EVERY_FOREIGN:
        if report.foreign:
            share = plural(
                len(report.foreign), "foreign test run shares", "foreign test runs share"
            )
            lines.append(f"{share} this machine (not this checkout's):")
            lines.extend(f"  {describe_foreign(judged)}" for judged in report.foreign)
        if pressure.busy and lines:
            lines.append(box_line(pressure))
        return lines
    noted = foreign_lines(
        report, rules, pressure, box_note=rules.on_busy_box is not BoxMode.OFF, wanted=wanted
    )
    lines.extend(noted)
    counted = foreign_count(report)
    if foreign == COUNTED_FOREIGN and not noted and counted is not None:
        lines.append(f"{counted} on this box.")
    return lines
