"""The fast path: what ``runctx hook FACE`` does for a command that runs no test.

An agent runs the hook before every shell command, so that path costs almost
nothing: :mod:`runctx.fastpath.hook` (the entry, the deadline, the decision to
say nothing), :mod:`runctx.fastpath.prefilter` (does the command name a runner
at all?), :mod:`runctx.fastpath.scripts` (``npm run build`` whose scripts name
none) and :mod:`runctx.fastpath.jsonscan` (the payload parsed without
importing ``json``). The pytest plugin's session on a quiet box,
:mod:`runctx.fastpath.quiet_session`, is the same kind of path: it imports
none of the scan until something may contend. This package is the one
place in runctx where an import is deferred (``noqa: PLC0415``) or a
private module of CPython is used; the suite holds it so
(``tests/test_import_graph.py``). Nothing is imported here: the light
modules below import this package's parts, never its entry.
"""
