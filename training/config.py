"""The one config loader of the training scripts (selfplay, dmc, rllib_selfplay): a YAML file, then
``--set key=value`` overrides (dotted keys for nested mappings), then the script's own flags; unknown keys are
an error naming the known ones.

Every script takes the same budget and output flags, spelled and checked as ``cardenvs train`` lists them
(:func:`cardenvs.cli.add_training_flags`): ``--config``, ``--set``, ``--steps`` (in the script's own count:
PPO timesteps, DMC frames, RLlib env steps), ``--minutes``, ``--out`` and ``--seed``."""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from cardenvs.cli import add_training_flags


def add_config_arguments(
    parser: argparse.ArgumentParser,
    example: str,
    steps_key: str,
    steps_help: str,
    minutes_key: str = "minutes",
    aliases: dict[str, Sequence[str]] | None = None,
) -> None:
    """The flags every training script shares (see the module doc): ``--steps`` and ``--minutes`` set the
    config keys ``steps_key`` and ``minutes_key`` (list them in :func:`read_config`'s ``flags``); ``aliases``
    keeps a script's older spellings (``{"steps": ["--total-frames"]}``)."""
    add_training_flags(
        parser,
        config_help=f"YAML config ({example})",
        steps_dest=steps_key,
        steps_help=steps_help,
        minutes_dest=minutes_key,
        aliases=aliases,
    )


def read_config(
    parser: argparse.ArgumentParser, ns: argparse.Namespace, args_class: type, flags: Sequence[str]
) -> dict[str, Any]:
    """The settings of a run: ``ns.config`` (YAML), ``ns.set`` overrides, then each of ``flags`` that was given
    on the command line (an attribute of ``ns`` of the same name, not None). Errors go to ``parser.error``."""
    values: dict[str, Any] = {}
    if ns.config:
        path = Path(ns.config)
        if not path.is_file():
            parser.error(f"config file {ns.config} " + ("is a folder" if path.is_dir() else "does not exist"))
        try:
            values = yaml.safe_load(path.read_text())
        except yaml.YAMLError as exc:
            parser.error(f"config file {ns.config} is not valid YAML: {str(exc).splitlines()[0]}")
        if values is None:
            parser.error(f"config file {ns.config} is empty: it sets nothing (leave out --config for the defaults)")
        if not isinstance(values, dict):
            parser.error(f"config file {ns.config} must hold a mapping of settings, got {type(values).__name__}")
    for text in ns.set:
        key, sep, value = text.partition("=")
        if not sep or not key.strip():
            parser.error(f"--set {text!r} must look like key=value")
        try:
            parsed = yaml.safe_load(value)
        except yaml.YAMLError as exc:
            parser.error(f"--set {text!r}: the value is not valid YAML: {str(exc).splitlines()[0]}")
        target = values
        *parents, leaf = key.strip().split(".")
        for depth, parent in enumerate(parents):
            target = target.setdefault(parent, {})
            if not isinstance(target, dict):
                parser.error(f"--set {text!r}: {'.'.join(parents[: depth + 1])} is not a mapping")
        target[leaf] = parsed
    for flag in flags:
        if getattr(ns, flag, None) is not None:
            values[flag] = getattr(ns, flag)
    known = {f.name for f in dataclasses.fields(args_class)}
    unknown = set(values) - known
    if unknown:
        parser.error(f"unknown config keys {sorted(unknown)}; known: {sorted(known)}")
    return values
