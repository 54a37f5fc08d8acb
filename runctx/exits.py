"""The exit statuses more than one face uses, each defined once.

Standard library only, and nothing else: the pytest plugin imports this module
when pytest loads it, where a broken install must not stop pytest.
Statuses that belong to one subcommand (``check``'s 3 and 4, ``stop``'s 3 to 5)
live in that subcommand's module; ``runctx --help`` lists them all
(:data:`runctx.cli.main.EXIT_STATUSES`).
"""

EXIT_ERROR = 1
"""runctx failed on purpose, with a one-line message (a malformed setting, an unreadable file)."""
EXIT_USAGE = 2
"""The command line was wrong."""
EXIT_REFUSED = 75
"""EX_TEMPFAIL, "try again later": a test run was not started because another run of
its checkout is live, or a wait for such runs gave up. ``runctx run`` (refused, or its
``--timeout`` passed), ``runctx wait --timeout``, the pytest plugin (``refuse``, or
``wait`` past ``--runctx-timeout``) and the pre-push hook all exit with it: one status
for "not now" wherever runctx waits or refuses."""
EXIT_INTERRUPTED = 130
"""Ctrl-C."""
EXIT_BROKEN_PIPE = 141
"""128 + SIGPIPE: the reader of stdout went away (``runctx check --json | head -c1``).
The command ends quietly, with the status a shell gives a process that SIGPIPE ended."""
