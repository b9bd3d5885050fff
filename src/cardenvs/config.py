"""Settings, read one way for the CLI, the trainers and the library: YAML files, ``key=value`` overrides,
game configs (a game and its options or variant) and trainer configs.

* :func:`read_yaml`: a YAML file's content; :func:`parse_assignment`: ``key=value`` with the value read as
  YAML (``true``, ``3``, ``rarity``); :func:`assign`: a dotted key into nested mappings.
* :func:`game_options`: a game config (``configs/<game>.yaml``: ``{game: ..., options: {...}}`` or a plain
  mapping of env options), then ``key=value`` options over it (``-o variant=NAME`` picks a variant).
* :func:`add_training_flags` and :func:`read_trainer_config`: the flags every trainer takes (``--config``,
  ``--set``, ``--steps``, ``--minutes``, ``--out``, ``--seed``) and a run's settings from a YAML file, then
  ``--set`` overrides, then the trainer's own flags, checked against its settings dataclass.

A mistake (a missing file, bad YAML, a malformed override, a config for another game) is a
:class:`ConfigError`, a ``ValueError`` whose one-line message names the file, flag or key.
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import yaml

from .core.userfiles import MAX_DEPTH, read_text, too_deep
from .registry import resolve_id, short_name

__all__ = [
    "ConfigError",
    "add_training_flags",
    "assign",
    "at_least",
    "game_config",
    "game_options",
    "parse_assignment",
    "positive",
    "read_trainer_config",
    "read_yaml",
]

#: the keys of a game config (configs/<game>.yaml): ``env`` is an old spelling of ``game``
GAME_CONFIG_KEYS = ("game", "env", "options")
#: the largest config file read (a training config is a few kB)
MAX_CONFIG_BYTES = 1024 * 1024
#: what ``--steps`` means: each trainer's own count
STEPS_HELP = (
    "stop after N steps as the trainer counts them: ppo timesteps (the learner's moves; rounded up to whole "
    "rollouts of n_steps x n_envs), dmc frames (moves trained on; rounded up to whole batches), rllib env steps "
    "sampled (at the first iteration that reaches N); a run that trains another count prints it"
)


class ConfigError(ValueError):
    """A mistake in a config file, an override or a flag: one line naming it."""


def _yaml_problem(exc: yaml.YAMLError) -> str:
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    mark = getattr(exc, "problem_mark", None)
    return f"{problem} at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else problem


def parse_assignment(text: str, flag: str = "--option", example: str = "players=4") -> tuple[str, Any]:
    """``key=value`` with the value read as YAML (``true``, ``3``, ``rarity``); ``flag`` and ``example``
    name where it came from in the error."""
    if "=" not in text:
        raise ConfigError(f"{flag} {text!r} must look like key=value (e.g. {flag} {example})")
    key, _, value = text.partition("=")
    key = key.strip()
    if not key:
        raise ConfigError(f"{flag} {text!r} has no key; it must look like key=value (e.g. {flag} {example})")
    try:
        return key, yaml.safe_load(value)
    except (yaml.YAMLError, RecursionError) as exc:
        problem = _yaml_problem(exc) if isinstance(exc, yaml.YAMLError) else "nested too deeply"
        raise ConfigError(
            f"{flag} {text!r}: the value {value!r} is not valid YAML ({problem}); quote it if it is text"
        ) from None


def assign(values: dict[str, Any], key: str, value: Any, what: str = "--set") -> None:
    """``values[key] = value`` where a dotted key (``ppo.learning_rate``) names nested mappings."""
    target = values
    *parents, leaf = key.split(".")
    for depth, parent in enumerate(parents):
        target = target.setdefault(parent, {})
        if not isinstance(target, dict):
            raise ConfigError(f"{what} {key}: {'.'.join(parents[: depth + 1])} is not a mapping")
    target[leaf] = value


def read_yaml(path: str | Path, what: str = "config file") -> Any:
    """A YAML file's content; a missing file, a folder, a pipe or device, a file over :data:`MAX_CONFIG_BYTES`,
    an unreadable file, bad YAML, YAML nested too deeply or an empty file (a config that sets nothing) is a
    :class:`ConfigError` (the file read as :mod:`cardenvs.core.userfiles` reads what a user names)."""
    try:
        text = read_text(path, what, MAX_CONFIG_BYTES)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    if too_deep(text):
        raise ConfigError(f"{what} {path} nests lists or mappings more than {MAX_DEPTH} deep")
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"{what} {path} is not valid YAML: {_yaml_problem(exc)}") from None
    except RecursionError:
        raise ConfigError(f"{what} {path} nests lists or mappings too deeply") from None
    if data is None:  # an empty file (or comments only) is a mistake: a config that sets nothing
        raise ConfigError(f"{what} {path} is empty: it sets nothing (leave out --config to use the defaults)")
    return data


def game_config(path: str | None, env_id: str) -> dict[str, Any]:
    """The env options of a game config for ``env_id``: either ``{game: ..., options: {...}}`` or a plain
    mapping of env options (with ``game`` allowed). A config for another game, keys other than ``game`` and
    ``options`` beside ``options``, or ``options`` that is not a mapping are a :class:`ConfigError`."""
    if not path:
        return {}
    data = read_yaml(path)
    if not isinstance(data, dict):
        raise ConfigError(
            f"config file {path} must hold a mapping (game: ..., options: ...), got {type(data).__name__}"
        )
    if "game" in data and "env" in data:
        raise ConfigError(f"config file {path} has both game and env (the old spelling); keep game")
    game = data.get("game", data.get("env"))
    if game is not None:
        try:
            config_id = resolve_id(str(game))
        except ValueError as exc:
            raise ConfigError(f"config file {path}: {exc}") from None
        if config_id != env_id:
            raise ConfigError(
                f"config file {path} is for {config_id}, but the command plays {env_id}; name "
                f"{short_name(config_id)} on the command line or use a config for {env_id}"
            )
    if "options" not in data:
        return {k: v for k, v in data.items() if k not in ("game", "env")}
    unknown = [k for k in data if k not in GAME_CONFIG_KEYS]
    if unknown:
        hint = (
            " (this looks like a training config: use it with cardenvs train)"
            if {"exp", "total_timesteps", "iterations", "ppo"} & set(data)
            else ""
        )
        raise ConfigError(
            f"config file {path}: unknown key {unknown[0]!r}; a game config holds game and options "
            f"(the env options); arena settings such as --seed go on the command line{hint}"
        )
    options = data["options"]
    if not isinstance(options, dict):
        raise ConfigError(
            f"config file {path}: options must be a mapping of {env_id} options (key: value lines, or "
            f"{{}} for none), got {'null' if options is None else type(options).__name__}"
        )
    return dict(options)


def game_options(env_id: str, config: str | None = None, assignments: Iterable[str] = ()) -> dict[str, Any]:
    """The env options of ``env_id``: the game config's (:func:`game_config`), then each ``key=value`` of
    ``assignments`` (``-o`` options, which override the config; each key once)."""
    options = game_config(config, env_id)
    given: set[str] = set()
    for text in assignments:
        key, value = parse_assignment(text)
        if key in given:
            raise ConfigError(f"--option {key} is given twice; give each option once")
        given.add(key)
        options[key] = value
    return options


# ------------------------------------------------------------------ argparse: flags and trainer configs
def at_least(low: int):
    """An argparse type: an integer >= ``low`` (argparse names the flag in its error)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer >= {low}, got {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"expected an integer >= {low}, got {value}")
        return value

    return parse


def positive(text: str) -> float:
    """An argparse type: a finite number > 0 (argparse names the flag in its error)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number > 0, got {text!r}") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a finite number > 0, got {text}")
    return value


def add_training_flags(
    parser: argparse.ArgumentParser,
    *,
    config_help: str = "training YAML",
    steps_dest: str = "steps",
    steps_help: str = STEPS_HELP,
    minutes_dest: str = "minutes",
    aliases: dict[str, Sequence[str]] | None = None,
) -> None:
    """The flags every trainer takes, with one spelling and meaning: ``cardenvs train`` lists them and passes
    them on, and each trainer's own parser adds the same ones, storing the budget in its config keys
    (``steps_dest``, ``minutes_dest``; list them in :func:`read_trainer_config`'s ``flags``). ``aliases``:
    older spellings a trainer keeps, by flag (``{"steps": ["--total-timesteps"]}``). Every default is None:
    a flag not given leaves the config's value."""
    aliases = aliases or {}
    parser.add_argument("--config", metavar="FILE", help=config_help)
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a config key, dotted for nested ones (ppo.learning_rate=1e-4); repeatable",
    )
    parser.add_argument(
        "--steps", *aliases.get("steps", ()), dest=steps_dest, type=at_least(1), metavar="N", help=steps_help
    )
    parser.add_argument(
        "--minutes",
        *aliases.get("minutes", ()),
        dest=minutes_dest,
        type=positive,
        metavar="M",
        help="stop after M minutes of wall time (the run ends at whichever of its budgets ends first)",
    )
    parser.add_argument(
        "--out", metavar="DIR", help="output folder: the run goes to DIR/<game>__<exp>__<seed> (default runs)"
    )
    parser.add_argument("--seed", type=at_least(0), metavar="S", help="the run's seed, an integer >= 0")


def read_trainer_config(
    parser: argparse.ArgumentParser, ns: argparse.Namespace, args_class: type, flags: Sequence[str]
) -> dict[str, Any]:
    """The settings of a run: ``ns.config`` (YAML), ``ns.set`` overrides, then each of ``flags`` that was given
    on the command line (an attribute of ``ns`` of the same name, not None); unknown keys are an error naming
    the known ones (the fields of ``args_class``). Errors go to ``parser.error``."""
    values: dict[str, Any] = {}
    try:
        if ns.config:
            values = read_yaml(ns.config)
            if not isinstance(values, dict):
                raise ConfigError(
                    f"config file {ns.config} must hold a mapping of settings, got {type(values).__name__}"
                )
        for text in ns.set:
            key, value = parse_assignment(text, "--set", "learning_rate=1e-4")
            assign(values, key, value)
    except ConfigError as exc:
        parser.error(str(exc))
    for flag in flags:
        if getattr(ns, flag, None) is not None:
            values[flag] = getattr(ns, flag)
    known = {f.name for f in dataclasses.fields(args_class)}
    unknown = set(values) - known
    if unknown:
        parser.error(f"unknown config keys {sorted(unknown)}; known: {sorted(known)}")
    return values
