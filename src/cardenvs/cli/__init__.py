"""The ``cardenvs`` command: list, arena, play, analyze, bench, serve, train, cache.

Every subcommand has ``--help``. A mistake in what the user asked for (an unknown game, option, agent or
config key, a config for another game, bad YAML, a path that cannot be written, a negative seed) is found
before anything runs and printed as one line, ``cardenvs: error: ...``, with exit status 2. A ``ValueError``
raised once the checked work is running is a bug and keeps its traceback: only the checking steps run
inside :func:`.common.user_input`, which turns their ``ValueError`` into a :class:`.common.CLIError`.
(``analyze`` runs each study inside it, since the studies check their own arguments.) The commands live in
:mod:`.games` (list, arena, play, analyze), :mod:`.tools` (bench, serve, cache) and :mod:`.train`.
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from collections.abc import Sequence

from .. import __version__
from ..config import ConfigError
from . import games, llmdata, tools, train
from .common import CLIError


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole command line's parser; ``command``: the command to be run (its first word), where it is known,
    so that the parsers of studies are built only for ``analyze`` (they import every game)."""
    parser = argparse.ArgumentParser(
        prog="cardenvs",
        description="Card-game environments for RL: tournaments, terminal play, studies, benchmarks and training.",
    )
    parser.add_argument("--version", action="version", version=f"cardenvs {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    games.add_parsers(sub, studies=command in (None, "analyze") or str(command).startswith("-"))
    tools.add_parsers(sub)
    llmdata.add_parsers(sub)
    train.add_parser(sub)
    return parser


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    if issubclass(category, UserWarning) and not issubclass(category, DeprecationWarning):
        print(f"cardenvs: warning: {message}", file=file or sys.stderr)
    else:
        print(warnings.formatwarning(message, category, filename, lineno, line), end="", file=file or sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    with warnings.catch_warnings():
        warnings.showwarning = _show_warning
        return _main(argv)


def _main(argv: Sequence[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(argv[0] if argv else None)
    try:
        if argv[:1] == ["train"]:
            args, extra = parser.parse_known_args(argv)
            return train.cmd_train(args, extra, argv)
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            parser.print_help()
            return 2
        code = int(args.func(args) or 0)
        sys.stdout.flush()  # a closed pipe shows here, inside the handler below, not at interpreter exit
        return code
    except (CLIError, ConfigError) as exc:  # another ValueError outside user_input() is a bug: it keeps its traceback
        print(f"cardenvs: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # the reader went away (`cardenvs list | head`): exit quietly, as Unix tools do
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
