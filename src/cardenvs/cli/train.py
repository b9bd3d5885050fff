"""``cardenvs train``: self-play training by a trainer installed beside this package (entry-point group
:data:`TRAIN_GROUP`), with the flags every trainer shares."""

from __future__ import annotations

import argparse
import importlib.util
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..config import add_training_flags, read_yaml
from ..registry import resolve_id, short_name
from .common import CLIError, add_game, plugins, user_input

#: entry-point group of the trainers (``training/`` registers this project's in pyproject.toml): a trainer is
#: ``main(argv) -> exit status``
TRAIN_GROUP = "cardenvs.train"

# ------------------------------------------------------------------ train
#: what the budget flag counts in each of this project's trainers (``--steps``)
#: the extras that install what this project's trainers import, with the modules each brings: a missing one is
#: named in one line before anything runs (a trainer registered by another package is run as it is)
TRAINER_EXTRAS: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = {
    "sb3": (("train", ("torch", "stable_baselines3", "sb3_contrib", "tensorboard")),),
    "dmc": (("train", ("torch",)),),
    "rllib": (("scale", ("ray",)), ("train", ("torch",))),
}


def _missing_extra(algo: str, backend: str) -> CLIError | None:
    """The one-line error for the first extra ``backend`` needs that is not installed, or None."""
    for extra, modules in TRAINER_EXTRAS.get(backend, ()):
        missing = [m for m in modules if importlib.util.find_spec(m) is None]
        if missing:
            return CLIError(
                f"cardenvs train --algo {algo} needs the {extra} extra: pip install 'cardenvs[{extra}]' "
                f"({', '.join(missing)} not installed)"
            )
    return None


def cmd_train(args: argparse.Namespace, extra: Sequence[str], argv: Sequence[str] = ()) -> int:
    """Run the trainer on the named game with the shared flags (:func:`add_training_flags`) and the trainer's
    own ones; a config (or ``--set game=``) for another game is an error, and a config without ``game`` trains
    the named game (the trainer gets ``--set game=<env id>``)."""
    with user_input():
        env_id = resolve_id(args.game)
    short = short_name(env_id)
    trainers = plugins(TRAIN_GROUP)
    algo = args.backend
    backend = "sb3" if algo == "ppo" else algo  # --algo ppo: MaskablePPO is the sb3 trainer
    if backend not in trainers:
        known = (
            ", ".join(sorted(trainers))
            or f"none: install cardenvs with its training/ (entry-point group {TRAIN_GROUP})"
        )
        flag = "--backend" if any(a == "--backend" or a.startswith("--backend=") for a in argv) else "--algo"
        raise CLIError(f"{flag} {algo!r} is not an installed trainer; known: ppo (= sb3), {known}")
    missing = _missing_extra(algo, backend)
    if missing:
        raise missing
    # configs/<game>_ppo.yaml for the sb3 trainer (MaskablePPO), configs/<game>_<backend>.yaml for the others
    default = f"configs/{short}_{'ppo' if backend == 'sb3' else backend}.yaml"
    config = args.config or default
    if not args.config and not Path(config).is_file():
        raise CLIError(f"no training config for {env_id}: {default} does not exist; pass --config")
    data = read_yaml(config, "training config")
    if not isinstance(data, dict):
        raise CLIError(f"training config {config} must hold a mapping of settings, got {type(data).__name__}")
    sources = [(f"training config {config}", data.get("game"))]
    sources += [(f"--set {text}", text.partition("=")[2].strip()) for text in args.set if _is_game_set(text)]
    for where, game in sources:
        if game is None:
            continue
        with user_input(f"{where}: "):
            other = resolve_id(str(game))
        if other != env_id:
            raise CLIError(
                f"{where} trains {other}, but the command names {env_id}; name {short_name(other)} "
                f"or use a config for {env_id}"
            )
    try:
        trainer = trainers[backend].load()
    except ModuleNotFoundError as exc:  # an extra's module missing although found above: still one line
        needed = {m: e for pairs in TRAINER_EXTRAS.values() for e, modules in pairs for m in modules}
        top = (exc.name or "").partition(".")[0]
        if top not in needed:
            raise  # not a missing extra: a bug in the trainer keeps its traceback
        raise CLIError(
            f"cardenvs train --algo {algo} needs the {needed[top]} extra: pip install 'cardenvs[{needed[top]}]' "
            f"({exc.name} does not import)"
        ) from None
    passed = ["--config", config, "--set", f"game={env_id}"]
    for text in args.set:
        passed += ["--set", text]
    for flag, value in (
        ("--steps", args.steps),
        ("--minutes", args.minutes),
        ("--out", args.out),
        ("--seed", args.seed),
    ):
        if value is not None:
            passed += [flag, str(value)]
    return trainer([*passed, *extra])


def _is_game_set(text: str) -> bool:
    key, sep, _ = text.partition("=")
    return bool(sep) and key.strip() == "game"


def add_parser(sub: Any) -> None:
    """The parser of ``train`` (its trainer's own flags are passed through: see ``cardenvs.cli.main``)."""
    trainers = plugins(TRAIN_GROUP)
    p = sub.add_parser(
        "train",
        help="self-play training (needs the train extra; rllib the scale extra)",
        description="Self-play training of a game with one of the installed trainers. Every trainer takes the "
        "flags below; any other flag goes to the trainer itself.",
        epilog="each trainer's own flags: "
        + "; ".join(
            f"{'ppo' if name == 'sb3' else name}: python -m {ep.module} --help" for name, ep in sorted(trainers.items())
        ),
    )
    add_game(p)
    p.add_argument(
        "--algo",
        "--backend",
        dest="backend",
        default="ppo",
        metavar="ALGO",
        help="the trainer: ppo (MaskablePPO, the default; also called sb3), dmc (Deep Monte Carlo) or rllib "
        f"(PPO on Ray RLlib); trainers are registered by installed packages (entry-point group {TRAIN_GROUP}); "
        "--backend is the old spelling",
    )
    add_training_flags(p, config_help="training YAML (default configs/<game>_ppo.yaml, configs/<game>_dmc.yaml, ...)")
    p.set_defaults(func=None)
