"""The checkout root of a directory: the top of the working tree that holds it.

A root is a directory, not a string. :class:`Root` is the path text as shown
(it *is* that ``str``) together with the directory it names, by device and
inode: path text lies across mount namespaces (a bind mount shows this
checkout under another path; another directory can hide behind this
checkout's path), the directory does not. :func:`same_directory` compares
roots as directories.

The walk goes up from an open directory with ``..``, never through path text,
so it follows a directory wherever it is seen from: the caller's own
directory (:func:`checkout_root`), or another process's through its
``/proc/PID/cwd``, up to that process's own ``/proc/PID/root``
(:func:`root_of_directory`). In that chain:

- the nearest ancestor holding ``.git`` (a directory that holds ``HEAD``, or a
  file for a worktree or submodule) wins; else the nearest with another
  version-control marker; else the nearest with a project marker; else the
  directory itself;
- a marker counts only when it is owned by a trusted owner: root, or the uid
  the question is asked for (like git's ``safe.directory``, which refuses a
  repository owned by someone else). Another user who can write a shared
  parent directory cannot plant a ``.git`` there that merges the checkouts
  below it;
- a home directory is never a checkout root by its markers (a dotfiles
  ``.git`` in ``$HOME`` would make every project below it one checkout): one
  rule, here, for every face;
- a removed directory (a deleted worktree) cannot be looked into: its root is
  the topmost removed directory, marked ``deleted``, with ``holder`` the
  checkout of the nearest directory still there.
- a process's own tree may hide the checkout: in a bind mount of a
  checkout's *subdirectory* (a container's ``./backend:/app``) the climb
  passes the mount's top into that tree's directories, never the checkout's
  ``.git``. When it finds no ``.git``, the directory climbed through is looked
  for in the caller's own tree (candidates from ``mountinfo``, taken only when
  they are that very directory by device and inode) and the walk goes on
  there (``viewer_paths`` of :func:`root_of_directory`).

Anyone can make a directory thousands of levels deep, plant a FIFO named
``pyproject.toml`` in a shared parent, or send a hook a ``cwd`` of hundreds
of thousands of components. So the walk is bounded and linear: a path longer
than ``PATH_MAX`` is unknown at once; the caller's ``cwd`` is resolved by the
kernel in one open; the climb holds one directory open at a time, asks about
each marker relative to it (``fstatat``), decides every marker group in one
pass, and stops after :data:`MAX_DEPTH` directories. No marker is ever opened:
a marker is a directory or a regular file (a link its owner made counts by
what it names), so a FIFO, a socket or a device is none.

Imported on the hook's path (it finds a checkout's settings): standard
library only. Why a root cannot be known, as an explicit unknown, is
:mod:`runctx.roots`'s.
"""

from __future__ import annotations

import errno
import os
import pwd
import stat

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping
    from typing import Self

    from runctx.climb import ClimbBudget
    from runctx.unknown import Unknown

GIT_MARKER = ".git"
VCS_MARKERS = (".hg", ".jj", ".svn", ".bzr", "_darcs", ".fslckout", "_FOSSIL_", ".pijul")
PROJECT_MARKERS = (
    "pyproject.toml",
    "setup.cfg",
    "setup.py",
    "tox.ini",
    "package.json",
    "Cargo.toml",
    "go.mod",
    "pom.xml",
    "build.gradle",
    "build.gradle.kts",
    "Gemfile",
)
MAX_DEPTH = 512
"""No walk climbs more than this many directories (a path holds at most 2048)."""
PATH_MAX = 4096
"""Linux's limit on a path's length in bytes, its terminating NUL included."""

_OPEN_DIRECTORY = (
    getattr(os, "O_PATH", os.O_RDONLY) | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
)
"""Directories are opened as handles only (``O_PATH``): no read permission is needed."""
_DELETED_SUFFIX = " (deleted)"

DirectoryId = tuple[int, int]
"""A directory as the kernel knows it: (device, inode)."""


class Root(str):  # noqa: SLOT000 - a str subclass cannot have slots that hold values
    """A checkout root: the path text as shown, and the directory it names.

    ``directory_id`` is (device, inode), or None when only the text is known
    (a root given as a plain string, or a removed directory the source could
    not open). ``deleted``: the directory was removed; ``holder`` is then the
    root of the nearest directory above it that is still there.

    ``==`` and ``hash`` are those of the text (a ``Root`` is used wherever a
    path is); whether two roots are one checkout is :func:`same_directory`.
    """

    directory_id: DirectoryId | None
    deleted: bool
    holder: Root | None

    def __new__(
        cls,
        text: str,
        directory_id: DirectoryId | None = None,
        deleted: bool = False,  # noqa: FBT001, FBT002 - positional for pickling
        holder: Root | None = None,
    ) -> Self:
        """Hold the text, the directory, and for a removed one the checkout that held it."""
        made = super().__new__(cls, text)
        object.__setattr__(made, "directory_id", directory_id)
        object.__setattr__(made, "deleted", deleted)
        object.__setattr__(made, "holder", holder)
        return made

    def __setattr__(self, name: str, value: object) -> None:
        """Refuse assignment: a root is immutable."""
        msg = f"Root is immutable (cannot set {name!r})"
        raise AttributeError(msg)

    def __reduce__(self) -> tuple[type[Root], tuple[str, DirectoryId | None, bool, Root | None]]:
        """Pickle with everything a root holds."""
        return (Root, (str(self), self.directory_id, self.deleted, self.holder))

    def __repr__(self) -> str:
        """``Root('/src/proj', (2049, 1234))``."""
        extra = ", deleted=True" if self.deleted else ""
        return f"Root({str(self)!r}, {self.directory_id!r}{extra})"

    @property
    def shown(self) -> str:
        """The text for a report: the path, ``(deleted)`` after a removed one."""
        return f"{self}{_DELETED_SUFFIX}" if self.deleted else str(self)


def same_directory(one: str, other: str) -> bool | None:
    """Whether two roots are one directory; None when either has no directory to compare."""
    first = getattr(one, "directory_id", None)
    second = getattr(other, "directory_id", None)
    if first is None or second is None:
        return None
    return bool(first == second)


def within(path: str, root: str) -> bool:
    """Whether the path text ``path`` is ``root`` or below it (text only)."""
    base = root.rstrip("/")
    return path == root or path.startswith(f"{base}/")


# --------------------------------------------------------------------------- the rules


class RootRules:
    """Who may mark a checkout, and which directories are homes: the rules of one question.

    ``owners``: the uids whose markers count (root, the uid asking, and for
    a root caller started by ``sudo`` the invoking user, as git does).
    ``homes``: home directories, by (device, inode), never a checkout root.
    """

    __slots__ = ("homes", "owners")

    owners: frozenset[int]
    homes: frozenset[DirectoryId]

    def __init__(self, owners: Iterable[int], homes: Iterable[DirectoryId]) -> None:
        """Hold the rules."""
        object.__setattr__(self, "owners", frozenset(owners))
        object.__setattr__(self, "homes", frozenset(homes))

    def __setattr__(self, name: str, value: object) -> None:
        """Refuse assignment: the rules are immutable."""
        msg = f"RootRules is immutable (cannot set {name!r})"
        raise AttributeError(msg)

    def __repr__(self) -> str:
        """``RootRules(owners=..., homes=...)``."""
        return f"RootRules(owners={sorted(self.owners)!r}, homes={sorted(self.homes)!r})"


_HOME_CACHE: dict[int, str | None] = {}


def _home_of(uid: int) -> str | None:
    """The home directory of ``uid`` in the user database, cached per process."""
    if uid not in _HOME_CACHE:
        try:
            _HOME_CACHE[uid] = pwd.getpwuid(uid).pw_dir
        except KeyError:
            _HOME_CACHE[uid] = None
    return _HOME_CACHE[uid]


def home_directories(uids: Iterable[int], environ: Mapping[str, str] | None = None) -> set[str]:
    """The home directories no checkout root may be: ``$HOME`` and each uid's home."""
    environ = os.environ if environ is None else environ
    homes = set()
    if environ.get("HOME"):
        homes.add(environ["HOME"])
    for uid in uids:
        home = _home_of(uid)
        if home:
            homes.add(home)
    return {os.path.realpath(home) for home in homes if home != "/"}


def rules_for(uids: Iterable[int | Unknown], environ: Mapping[str, str] | None = None) -> RootRules:
    """The rules for a question asked for ``uids`` (the viewer's, a run owner's).

    Markers of root and of each known uid count; when root asks and ``sudo``
    started it, those of ``$SUDO_UID`` too. ``$HOME`` and the home of each uid
    are homes.
    """
    environ = os.environ if environ is None else environ
    known = {uid for uid in uids if isinstance(uid, int)}
    key = (frozenset(known), environ.get("HOME", ""), environ.get("SUDO_UID", ""))
    cached = _RULES_CACHE.get(key)
    if cached is None:
        cached = _RULES_CACHE[key] = _rules(known, environ)
    return cached


_RULES_CACHE: dict[tuple[frozenset[int], str, str], RootRules] = {}
"""The rules per (uids, $HOME, $SUDO_UID), made once per process: a scan asks once per run."""


def _rules(known: set[int], environ: Mapping[str, str]) -> RootRules:
    owners = {0, *known}
    sudo = environ.get("SUDO_UID", "")
    if 0 in known and sudo.isdigit():
        owners.add(int(sudo))
    homes = set()
    for home in home_directories(known, environ):
        try:
            info = os.stat(home)
        except OSError:
            continue
        homes.add((info.st_dev, info.st_ino))
    return RootRules(owners, homes)


# --------------------------------------------------------------------------- the walk


def too_long(path: str) -> bool:
    """Whether ``path`` is too long for the kernel to resolve (``ENAMETOOLONG``)."""
    if len(path) >= PATH_MAX:
        return True
    try:
        return len(os.fsencode(path)) >= PATH_MAX
    except UnicodeEncodeError:  # a lone surrogate has no bytes: the open refuses it
        return False


def _identity(info: os.stat_result) -> DirectoryId:
    return (info.st_dev, info.st_ino)


def _holds(directory: int, relative: str) -> bool:
    """Whether ``relative`` exists below the open ``directory`` (links not followed)."""
    try:
        os.stat(relative, dir_fd=directory, follow_symlinks=False)
    except (OSError, ValueError):
        return False
    return True


def _trusted_mode(directory: int, name: str, owners: frozenset[int] | None) -> int | None:
    """The mode of ``name`` in the open ``directory`` when one of ``owners`` made it, else None.

    The one owner rule of every walk up the tree: looked at (``fstatat``),
    never opened; a link its owner made counts by what it names (followed by
    ``stat`` only); ``owners`` None trusts anyone.
    """
    try:
        info = os.stat(name, dir_fd=directory, follow_symlinks=False)
        if owners is not None and info.st_uid not in owners:
            return None
        if stat.S_ISLNK(info.st_mode):
            info = os.stat(name, dir_fd=directory)
    except (OSError, ValueError):
        return None
    return info.st_mode


_ACCESS_AT = os.access in os.supports_dir_fd and os.access in os.supports_follow_symlinks
"""Whether ``faccessat`` takes a directory and leaves a link unfollowed here."""


def _exists(directory: int, name: str) -> bool:
    """Whether anything is named ``name`` in the open ``directory`` (a link itself counts).

    One ``faccessat``, which answers without raising: a walk asks it of
    about twenty names at each directory it climbs, and most are not there.
    True where it cannot be asked (:func:`_is_marker` then looks).
    """
    if not _ACCESS_AT:
        return True
    return os.access(name, os.F_OK, dir_fd=directory, follow_symlinks=False)


def _is_marker(directory: int, name: str, rules: RootRules) -> bool:
    """Whether ``name`` in the open ``directory`` is a marker a trusted owner made.

    A FIFO, a socket or a device is no marker, whatever its name.
    """
    mode = _trusted_mode(directory, name, rules.owners)
    if mode is None:
        return False
    if name == GIT_MARKER and stat.S_ISDIR(mode):
        # An empty .git is no repository (git walks on past it too).
        return _holds(directory, f"{GIT_MARKER}/HEAD")
    if name in PROJECT_MARKERS:
        return stat.S_ISREG(mode)
    return stat.S_ISDIR(mode) or stat.S_ISREG(mode)


def _ancestor_text(text: str, levels_up: int) -> str:
    """The text of the directory ``levels_up`` levels above the directory named ``text``."""
    if levels_up == 0:
        return text
    parts = text.rstrip("/").split("/")
    return "/".join(parts[: max(len(parts) - levels_up, 1)]) or "/"


class _Chain:
    """The directories from a start directory up toward the top of its view.

    Climbed lazily, one ``..`` at a time, up to ``top`` (a process's root
    directory), the top of the mount tree, or :data:`MAX_DEPTH` directories:
    a ``.git`` found near the start spares the rest. Only the directory the
    climb stands in is held open (one descriptor, whatever the depth), and
    every step is one lookup relative to it, so the walk is linear in the
    depth. ``ids`` and ``live`` hold each directory passed (by index, the
    start at 0); the text of each is the start's text with one component
    fewer per step (:meth:`text_at`).
    """

    def __init__(
        self, start: int, text: str, top: DirectoryId | None, budget: ClimbBudget | None = None
    ) -> None:
        self.top = top
        self.text = text
        self.budget = budget
        self.ids: list[DirectoryId] = []
        self.live: list[bool] = []
        self.ended = False
        self.handle = -1
        info = os.fstat(start)
        self._add(info)
        self.handle = os.dup(start)

    def _add(self, info: os.stat_result) -> None:
        if self.budget is not None:
            self.budget.climb()
        self.ids.append(_identity(info))
        self.live.append(info.st_nlink > 0)
        if self.ids[-1] == self.top or len(self.ids) >= MAX_DEPTH:
            self.ended = True

    @property
    def index(self) -> int:
        """The index of the directory the climb stands in (``handle``)."""
        return len(self.ids) - 1

    def reaches(self, index: int) -> bool:
        """Whether the chain has a directory at ``index`` (not below the current one).

        Climbs to it if need be; ``handle`` is then that directory.
        """
        while self.index < index and not self.ended:
            parent = os.open("..", _OPEN_DIRECTORY, dir_fd=self.handle)
            info = os.fstat(parent)
            if _identity(info) == self.ids[-1]:
                os.close(parent)
                self.ended = True
                break
            os.close(self.handle)
            self.handle = parent
            self._add(info)
        return index <= self.index

    def text_at(self, index: int) -> str:
        """The path text of the directory at ``index``."""
        return _ancestor_text(self.text, index)

    def close(self) -> None:
        if self.handle >= 0:
            os.close(self.handle)
            self.handle = -1


MARKER_GROUPS = ((GIT_MARKER,), VCS_MARKERS, PROJECT_MARKERS)
"""The markers in the order they win: ``.git``, then another VCS, then a project file."""


def _look_for_markers(
    chain: _Chain, first: int, rules: RootRules, nearest: list[int | None], offset: int = 0
) -> None:
    """Climb ``chain`` from ``first`` and note in ``nearest`` where each marker group is nearest.

    One pass up: at each directory only the groups not yet decided by a
    nearer directory or an earlier group are looked for, and the pass stops
    at the first ``.git``. ``nearest`` holds an index per group (``offset``
    is added to this chain's own indices), or None where none was found.
    """
    index = first
    while nearest[0] is None and chain.reaches(index):
        if chain.ids[index] not in rules.homes:  # a home is never a root by its markers
            for group, markers in enumerate(MARKER_GROUPS):
                if any(found is not None for found in nearest[: group + 1]):
                    continue
                if any(
                    _exists(chain.handle, name) and _is_marker(chain.handle, name, rules)
                    for name in markers
                ):
                    nearest[group] = index + offset
        index += 1


def _winner(nearest: list[int | None], default: int) -> int:
    """The index of the root: the nearest directory of the first group found, else ``default``."""
    return next((found for found in nearest if found is not None), default)


def _walk_on_in_viewer_view(
    chain: _Chain,
    first: int,
    rules: RootRules,
    nearest: list[int | None],
    candidates: Iterable[str],
) -> Root | None:
    """The root found by walking on from a directory of ``chain`` as the viewer sees it.

    ``chain`` climbed a process's own view and found no ``.git``. Each of
    ``candidates`` is a path in the caller's view that may be one of the
    directories of ``chain`` (the top of a bind mount there, as mountinfo
    says); the first that is, by device and inode, and that the kernel can
    name, is where the walk goes on: above it, up the caller's own tree. The
    markers found in ``chain`` up to that directory keep their places. None
    when no candidate is one of them.
    """
    top = _identity(os.stat("/"))
    for text in candidates:
        if too_long(text):
            continue
        try:
            handle = os.open(text, _OPEN_DIRECTORY)
        except (OSError, ValueError):  # ValueError: a NUL in the text
            continue
        try:
            at = _index_in(chain, _identity(os.fstat(handle)), first)
            named = _name_of(handle) if at is not None else None
            if at is None or named is None:
                continue
            above = _Chain(handle, named, top, chain.budget)
            try:
                return _root_above(chain, (first, at), above, rules, nearest)
            finally:
                above.close()
        finally:
            os.close(handle)
    return None


def _index_in(chain: _Chain, directory: DirectoryId, first: int) -> int | None:
    """The index of ``directory`` in ``chain`` (from ``first`` up), or None when it is not there."""
    for index in range(first, len(chain.ids)):
        if chain.ids[index] == directory:
            return index
    return None


def _root_above(
    chain: _Chain,
    span: tuple[int, int],
    above: _Chain,
    rules: RootRules,
    nearest: list[int | None],
) -> Root:
    """The root of ``chain`` over ``span`` (first, at), then of ``above`` (which starts at ``at``).

    The markers ``chain`` has past ``at`` are of the process's own tree above
    the mount, not of the directory's real parents: they are dropped.
    """
    first, at = span
    kept = [found if found is not None and found <= at else None for found in nearest]
    _look_for_markers(above, 1, rules, kept, offset=at)
    found = _winner(kept, first)
    if found <= at:
        return Root(chain.text_at(found), chain.ids[found])
    return Root(above.text_at(found - at), above.ids[found - at])


def root_of_directory(  # noqa: PLR0913 - each keyword is its own bound
    directory: int,
    text: str,
    *,
    top: DirectoryId | None,
    rules: RootRules,
    viewer_paths: Callable[[], Iterable[str]] | None = None,
    budget: ClimbBudget | None = None,
) -> Root:
    """The checkout root of the open ``directory`` whose path text is ``text``.

    The walk climbs with ``..`` from the directory itself, so it sees what the
    directory's own mount tree holds, up to ``top`` (a process's root
    directory), or the top of that tree. ``text`` may end in ``" (deleted)"``
    (the kernel's mark on a removed cwd); it is shown without it.

    A bind mount of a *subdirectory* of a checkout (a container's
    ``./backend:/app``) hides the checkout's ``.git`` from that tree: above the
    mount's top lie the process's own directories, not the checkout's. So when
    the walk finds no ``.git`` and ``viewer_paths`` is given, it is asked (only
    then) for paths in the caller's own mount tree that may be one of the
    directories climbed (see :mod:`runctx.sources.mounts`); the first that is
    that very directory, by device and inode, is where the walk goes on, up
    the caller's tree, and the root found is a directory the caller can name.
    When none is, the root is what the process's own tree shows. OSErrors go
    up to the caller, which says why the root is not known. Each directory
    looked at is charged to ``budget`` when one is given: once it is spent,
    :class:`~runctx.climb.ClimbSpentError` goes up instead of a root.
    """
    if text.endswith(_DELETED_SUFFIX) and os.fstat(directory).st_nlink == 0:
        text = text[: -len(_DELETED_SUFFIX)]
    chain = _Chain(directory, text, top, budget)
    try:
        first_live = 0
        while chain.reaches(first_live) and not chain.live[first_live]:
            first_live += 1
        if first_live > chain.index:  # everything up to the top was removed
            return Root(chain.text_at(chain.index), chain.ids[-1], True, None)  # noqa: FBT003
        nearest: list[int | None] = [None] * len(MARKER_GROUPS)
        _look_for_markers(chain, first_live, rules, nearest)
        found = _winner(nearest, first_live)
        root = Root(chain.text_at(found), chain.ids[found])
        if nearest[0] is None and viewer_paths is not None:
            try:
                above = _walk_on_in_viewer_view(chain, first_live, rules, nearest, viewer_paths())
            except OSError:  # our own tree could not be climbed: the process's answer stands
                above = None
            root = above or root
        if first_live == 0:
            return root
        removed = first_live - 1
        return Root(chain.text_at(removed), chain.ids[removed], True, root)  # noqa: FBT003
    finally:
        chain.close()


def _name_of(handle: int) -> str | None:
    """The kernel's name for the open directory ``handle``; None when it gives none."""
    try:
        named = os.readlink(f"/proc/self/fd/{handle}")
    except OSError:
        return None
    return named if named.startswith("/") else None


_KINDS: dict[str, Callable[[int], bool]] = {
    "file": stat.S_ISREG,
    "directory": stat.S_ISDIR,
}


def _trusted_entry(directory: int, name: str, owners: frozenset[int] | None, kind: str) -> bool:
    """Whether ``name`` in the open ``directory`` is of ``kind`` and made by one of ``owners``."""
    mode = _trusted_mode(directory, name, owners)
    return mode is not None and _KINDS[kind](mode)


def _open_nearest_existing(path: str) -> int:
    """A handle on ``path``, else on the nearest directory above it that exists; -1 if none.

    A command's directory may not exist yet (``mkdir sub && cd sub && ...``).
    """
    for _ in range(MAX_DEPTH):
        try:
            return os.open(path, _OPEN_DIRECTORY)
        except (FileNotFoundError, NotADirectoryError):
            parent = os.path.dirname(path)
            if parent == path:
                return -1
            path = parent
        except (OSError, ValueError):  # ValueError: a NUL or a lone surrogate in the text
            return -1
    return -1


def nearest_holding(  # noqa: PLR0913 - each keyword is its own choice
    start: str,
    names: Iterable[str],
    rules: RootRules | None = None,
    *,
    kind: str = "file",
    trust_start: bool = False,
    levels: int = MAX_DEPTH,
) -> str | None:
    """The path of the nearest of ``names`` in ``start`` or above it that a trusted owner made.

    The one walk up the tree: the climb of :func:`checkout_root` (``..`` from
    an open directory, one held at a time, at most ``levels`` directories) with
    the markers' owner rule (``rules``, default those of the caller's real
    uid: root, the caller, ``SUDO_UID`` for root under ``sudo``). ``kind``:
    ``"file"`` (a regular file) or ``"directory"``. ``trust_start``: in
    ``start`` itself any owner's file counts (the directory the command runs
    in, which the tool itself reads whoever made it). None when none is found,
    or ``start`` cannot be opened (missing, a NUL or a lone surrogate in it).
    """
    wanted = tuple(names)
    if not isinstance(start, str) or too_long(start):
        return None
    handle = _open_nearest_existing(os.path.abspath(start))
    if handle < 0:
        return None
    chosen = rules if rules is not None else rules_for([os.getuid()])
    try:
        text = _name_of(handle) or os.path.abspath(start)
        chain = _Chain(handle, text, _identity(os.stat("/")))
    except OSError:
        os.close(handle)
        return None
    os.close(handle)
    try:
        index = 0
        while index < levels and chain.reaches(index):
            owners = None if trust_start and index == 0 else chosen.owners
            for name in wanted:
                if _trusted_entry(chain.handle, name, owners, kind):
                    return os.path.join(chain.text_at(index), name)
            index += 1
    except OSError:
        return None
    finally:
        chain.close()
    return None


def find_root(cwd: str, rules: RootRules | None = None, budget: ClimbBudget | None = None) -> Root:
    """The checkout root of the directory ``cwd``; OSError or ValueError when it cannot be known.

    ``rules`` default to those of the calling process's real uid
    (:func:`rules_for`). A path longer than ``PATH_MAX`` is refused at once
    (``ENAMETOOLONG``). The kernel resolves ``cwd`` once (an open) and names
    what it opened, symbolic links resolved; :func:`os.path.realpath` (one
    lookup per component) only when it cannot. ValueError: a NUL or a lone
    surrogate in the text. :func:`runctx.roots.checkout_root` says why as an
    explicit unknown. The walk is charged to ``budget`` (:func:`root_of_directory`).
    """
    if too_long(cwd):
        raise OSError(errno.ENAMETOOLONG, "longer than PATH_MAX", cwd)
    handle = os.open(cwd, _OPEN_DIRECTORY)
    try:
        real = _name_of(handle) or os.path.realpath(cwd)
        top = _identity(os.stat("/"))
        chosen = rules if rules is not None else rules_for([os.getuid()])
        return root_of_directory(handle, real, top=top, rules=chosen, budget=budget)
    except OSError as error:
        raise WalkError(error.errno, error.strerror or str(error)) from error
    finally:
        os.close(handle)


class WalkError(OSError):
    """The directory was opened, but the walk up from it failed."""


def root_of_path(path: str) -> Root:
    """The directory ``path`` names (links resolved) as a root; OSError when it cannot be seen."""
    real = os.path.realpath(path)
    return Root(real, _identity(os.stat(real)))
