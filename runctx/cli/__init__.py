"""The ``runctx`` command line: one module per subcommand."""
