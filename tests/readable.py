"""What a child dropped to another uid runs, copied where every uid may read it.

A test that drops to another uid (:func:`proctools.run_as`, or
:func:`proctools.spawn_orphan` with ``uid``) must not depend on the modes of the
directories the suite happens to live in: a clone in a ``mktemp -d`` directory
(mode 0700), an interpreter under a private home (pyenv under a 0700 ``~``).
So the child runs from a mirror: the interpreter, its standard library and
every directory on ``sys.path`` (the venv, the checkout, the tests) appear under
one fresh directory of mode 0755, in a place every uid may enter, each at its
own path below it (``/a/b`` is mirrored at ``MIRROR/a/b``). A file every uid may
already read is a hard link (cheap, the same bytes); any other file, or one on
another filesystem, is a copy; directories are made 0755; the few files that
name paths (``pyvenv.cfg``, ``*.pth``, absolute symbolic links) name the mirror.

A forked child points its imports at the mirror (``sys.path``, each package's
``__path__``, each module's file) before it drops, so whatever it imports after
the drop is read from there; an executed child runs the mirror's interpreter.
The mirror is built once per process, when a test first drops, and removed
when the process exits.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import stat
import sys
import sysconfig
import tempfile
from pathlib import Path

_PRUNED = {".git", ".hg", ".mypy_cache", ".ruff_cache", ".pytest_cache", ".hypothesis"}
"""Directories no child imports from, never mirrored."""

_OTHERS_MAY_ENTER = stat.S_IXOTH | stat.S_IROTH


def every_uid_may_enter(path: str) -> bool:
    """Whether a uid that is neither the owner nor in the group may reach and list ``path``."""
    real = os.path.realpath(path)
    try:
        modes = [os.stat(real).st_mode]
        modes += [os.stat(parent).st_mode for parent in Path(real).parents]
    except OSError:
        return False
    return modes[0] & _OTHERS_MAY_ENTER == _OTHERS_MAY_ENTER and all(
        mode & stat.S_IXOTH for mode in modes[1:]
    )


def shared_base() -> str:
    """A temporary directory every uid may enter: the system's, else ``/tmp`` or ``/var/tmp``."""
    for candidate in (tempfile.gettempdir(), "/tmp", "/var/tmp", "/dev/shm"):
        if os.path.isdir(candidate) and every_uid_may_enter(candidate):
            return os.path.realpath(candidate)
    msg = "no temporary directory here may be entered by every uid (tried $TMPDIR, /tmp, /var/tmp)"
    raise AssertionError(msg)


def shared_tempdir(prefix: str) -> Path:
    """A fresh directory (mode 0755) under :func:`shared_base`: every uid may enter it."""
    path = Path(tempfile.mkdtemp(prefix=prefix, dir=shared_base()))
    path.chmod(0o755)
    return path


class Mirror:
    """The interpreter, the standard library and ``sys.path``, readable by every uid."""

    def __init__(self, root: str) -> None:
        """Mirror what this process imports from under ``root`` (made 0755 by the caller)."""
        self.root = root
        base = os.path.realpath(getattr(sys, "_base_executable", sys.executable))
        self._libdir = ""
        files = [base]
        if sysconfig.get_config_var("Py_ENABLE_SHARED"):
            library = _loaded_libpython()
            if library:
                files.append(library)
                self._libdir = self.root + os.path.dirname(library)
        self._trees: list[str] = []
        self._tops: list[str] = []
        self._pruned: list[str] = []
        self._files = files
        self.update()
        for path in self._files:
            self._mirror_file(path)
        self.interpreter = self.root + base
        """The copy of the suite's base interpreter (no venv): what an executed child runs."""

    def update(self) -> None:
        """Mirror what is on ``sys.path`` now and was not yet (a test may have added to it)."""
        trees = {os.path.realpath(sys.prefix)}
        trees |= {os.path.realpath(entry) for entry in sys.path if entry and os.path.isdir(entry)}
        trees |= {os.path.realpath(path) for path in _package_paths() if os.path.isdir(path)}
        new = sorted(tree for tree in trees if not self.covers(tree))
        if not new:
            return
        self._trees = sorted({*self._trees, *new})
        tops = [tree for tree in new if not _inside_any(tree, new)]
        self._tops += tops
        self._pruned = [path for path in self._pruned if not _inside_any(path, tops, itself=True)]
        self._files = [path for path in self._files if not _inside_any(path, self._tops)]
        for top in tops:
            self._mirror_tree(top)

    # -- paths ----------------------------------------------------------------------

    def covers(self, path: str) -> bool:
        """Whether the mirror holds ``path`` (after ``realpath``)."""
        real = os.path.realpath(path)
        return (
            real in self._files or _inside_any(real, self._tops, itself=True)
        ) and not _inside_any(real, self._pruned, itself=True)

    def path(self, original: str) -> str:
        """Where the mirror holds ``original``; ``original`` itself when it is not mirrored."""
        if not original or not os.path.isabs(original) or original.startswith(self.root + "/"):
            return original
        if not self.covers(original):
            return original
        return self.root + os.path.realpath(original)

    def environment(self, env: dict[str, str], executable: str) -> dict[str, str]:
        """``env`` for running ``executable``: the mirror's shared libpython found first."""
        if not self._libdir or not os.path.realpath(executable).startswith(self.root + "/"):
            return env
        found = env.get("LD_LIBRARY_PATH")
        return {**env, "LD_LIBRARY_PATH": f"{self._libdir}:{found}" if found else self._libdir}

    # -- a forked child -------------------------------------------------------------

    def enter(self) -> None:
        """Point this process's imports at the mirror (in a forked child, before it drops)."""
        sys.path[:] = [self.path(entry) for entry in sys.path]
        sys.path_importer_cache.clear()
        for module in list(sys.modules.values()):
            with contextlib.suppress(Exception):
                self._move_module(module)
        for name in ("executable", "prefix", "exec_prefix", "base_prefix", "base_exec_prefix"):
            setattr(sys, name, self.path(getattr(sys, name)))
        os.environ.update(self.environment(dict(os.environ), sys.executable))

    def settle(self) -> None:
        """After the drop: leave a working directory this uid may not enter for its copy."""
        here = os.getcwd()
        if not os.access(here, os.X_OK):
            mirrored = self.path(here)
            os.chdir(mirrored if mirrored != here and os.path.isdir(mirrored) else "/")

    def _move_module(self, module: object) -> None:
        path = getattr(module, "__path__", None)
        if isinstance(path, list):
            path[:] = [self.path(entry) for entry in path]
        for name in ("__file__", "__cached__"):
            value = getattr(module, name, None)
            if isinstance(value, str):
                setattr(module, name, self.path(value))
        spec = getattr(module, "__spec__", None)
        if spec is None:
            return
        if spec.has_location and isinstance(spec.origin, str):
            spec.origin = self.path(spec.origin)
        loader = spec.loader
        if isinstance(getattr(loader, "path", None), str):
            loader.path = self.path(loader.path)  # type: ignore[union-attr]

    # -- building -------------------------------------------------------------------

    def _mirror_tree(self, top: str) -> None:
        for directory, dirs, files in os.walk(top):
            target = self.root + directory
            os.makedirs(target, mode=0o755, exist_ok=True)
            os.chmod(target, 0o755)  # noqa: S103 - every uid may read the mirror: its point
            kept = []
            for name in dirs:
                path = os.path.join(directory, name)
                if os.path.islink(path):
                    self._mirror_link(path)
                elif name in _PRUNED or (_is_site(name) and path not in self._trees):
                    self._pruned.append(path)
                else:
                    kept.append(name)
            dirs[:] = kept
            for name in files:
                self._mirror_file(os.path.join(directory, name))

    def _mirror_file(self, path: str) -> None:
        target = self.root + path
        if os.path.lexists(target):
            return  # mirrored already (a tree that holds one mirrored before): never written over
        os.makedirs(os.path.dirname(target), mode=0o755, exist_ok=True)
        if os.path.islink(path):
            self._mirror_link(path)
            return
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            return  # a socket or a FIFO left in a tree: nothing to import
        if os.path.basename(path) == "pyvenv.cfg" or path.endswith(".pth"):
            self._rewritten(path, target)
            return
        if info.st_mode & stat.S_IROTH:
            with contextlib.suppress(OSError):
                os.link(path, target)
                return
        shutil.copyfile(path, target)
        executable = 0o111 if info.st_mode & stat.S_IXUSR else 0
        os.chmod(target, 0o644 | executable)

    def _mirror_link(self, path: str) -> None:
        if os.path.lexists(self.root + path):
            return
        pointed = os.readlink(path)
        if os.path.isabs(pointed) and self.covers(pointed):
            pointed = self.root + os.path.realpath(pointed)
        os.symlink(pointed, self.root + path)

    def _rewritten(self, path: str, target: str) -> None:
        """A ``pyvenv.cfg`` or ``.pth`` whose paths name the mirror."""
        lines = []
        with open(path, encoding="utf-8", errors="surrogateescape") as text:
            for line in text.read().splitlines():
                key, equals, value = line.partition("=")
                if equals and key.strip() in {"home", "executable"}:
                    lines.append(f"{key.strip()} = {self._moved(value.strip())}")
                elif os.path.isabs(line.strip()):
                    lines.append(self._moved(line.strip()))
                else:
                    lines.append(line)
        with open(target, "w", encoding="utf-8", errors="surrogateescape") as text:
            text.write("\n".join(lines) + "\n")
        os.chmod(target, 0o644)

    def _moved(self, path: str) -> str:
        """``path`` in the mirror, for a tree or file mirrored (or about to be)."""
        real = os.path.realpath(path)
        inside = real in self._files or _inside_any(real, self._tops, itself=True)
        return self.root + real if inside else path


def _is_site(name: str) -> bool:
    return name in {"site-packages", "dist-packages"}


def _inside_any(path: str, trees: list[str], *, itself: bool = False) -> bool:
    return any(
        (itself and path == tree) or path.startswith(tree.rstrip("/") + "/") for tree in trees
    )


def _loaded_libpython() -> str:
    """The shared libpython this process really loaded, else where sysconfig says it is.

    The loaded one first: a Python copied or moved after it was built (a relocated
    pyenv) keeps naming its build's ``LIBDIR``, which may not exist here.
    """
    with contextlib.suppress(OSError), open("/proc/self/maps", encoding="utf-8") as maps:
        for line in maps:
            path = line.rstrip("\n").partition("/")[2]
            if path and os.path.basename(path).startswith("libpython"):
                return os.path.realpath("/" + path)
    libdir = os.path.realpath(sysconfig.get_config_var("LIBDIR") or "")
    library = os.path.join(libdir, sysconfig.get_config_var("INSTSONAME") or "")
    return library if os.path.isfile(library) else ""


def _package_paths() -> list[str]:
    """The directories loaded packages import from (an editable finder's, a namespace's)."""
    found = []
    for module in list(sys.modules.values()):
        path = getattr(module, "__path__", None)
        with contextlib.suppress(TypeError):
            found += [entry for entry in path or () if isinstance(entry, str)]
    return found


_MIRROR: list[Mirror] = []


def mirror() -> Mirror:
    """The mirror of this process, built on first use and removed when the process exits."""
    if not _MIRROR:
        root = shared_tempdir("runctx-readable-")
        atexit.register(shutil.rmtree, root, ignore_errors=True)
        _MIRROR.append(Mirror(str(root)))
    else:
        _MIRROR[0].update()
    return _MIRROR[0]
