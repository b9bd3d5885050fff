"""What the ``cardenvs`` subcommands share: the user-error type and its checking context, the game argument and
options, and the entry points of code installed beside this package."""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from .. import config as cfg
from ..registry import env_ids


def plugins(group: str) -> dict[str, EntryPoint]:
    """The entry points installed packages register in ``group``, by name."""
    return {ep.name: ep for ep in entry_points(group=group)}


class CLIError(Exception):
    """A user error: printed as 'cardenvs: error: ...' with exit status 2."""


@contextlib.contextmanager
def user_input(prefix: str = "") -> Iterator[None]:
    """Checking what the user asked for: a ``ValueError`` here is the user's mistake (a :class:`CLIError`)."""
    try:
        yield
    except ValueError as exc:
        raise CLIError(f"{prefix}{exc}") from None


# ------------------------------------------------------------------ options and configs (cardenvs.config)
def game_options(args: argparse.Namespace, env_id: str) -> dict[str, Any]:
    """The env options of a command: its ``--config``, then each ``-o key=value`` (which overrides the config)."""
    return cfg.game_options(env_id, getattr(args, "config", None), getattr(args, "option", None) or [])


def game_and_agents(args: argparse.Namespace) -> tuple[str, dict[str, Any], list[str]]:
    """A command's env id (``game``), its options (:func:`game_options`) and its ``--agents`` names, each
    checked: an unknown game or an empty agent name is a :class:`CLIError`."""
    from ..agent import split_agent_names
    from ..registry import resolve_id

    with user_input():
        env_id = resolve_id(args.game)
    options = game_options(args, env_id)
    agents = split_agent_names(args.agents)
    if not all(agents):
        raise CLIError(f"--agents {args.agents!r} has an empty name; separate agent names by single commas")
    return env_id, options, agents


def add_game(p: argparse.ArgumentParser) -> None:
    """The positional ``game`` argument."""
    p.add_argument("game", help=f"env id or short name: {', '.join(env_ids())}")


def add_game_args(p: argparse.ArgumentParser) -> None:
    """``game``, ``--option`` and ``--config``: what :func:`game_options` reads."""
    add_game(p)
    p.add_argument(
        "--option",
        "-o",
        action="append",
        metavar="KEY=VALUE",
        help="env option, the value read as YAML (repeatable; overrides the config); -o variant=NAME "
        "applies a named variant (cardenvs list), options beside it override the variant's",
    )
    p.add_argument("--config", help="game config: YAML with game and options (configs/<game>.yaml)")
