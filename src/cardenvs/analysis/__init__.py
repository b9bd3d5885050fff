"""Exact and Monte Carlo studies. A module with ``COMMAND``, ``HELP``, ``add_arguments(parser)`` and
``run(args)`` is a ``cardenvs analyze COMMAND`` subcommand."""
