"""Exact and Monte Carlo studies. A module with ``COMMAND``, ``HELP``, ``add_arguments(parser)`` and
``run(args)`` is a ``cardenvs analyze COMMAND`` subcommand; a game's own studies live in its folder and are
named by its spec's ``studies`` (:class:`cardenvs.core.spec.GameSpec`)."""
