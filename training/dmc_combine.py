"""One DMC model from the networks of several, role by role. Usage::

    python -m cardenvs.training.dmc_combine OUT/model.pt BASE/model.pt ROLE=RUN/model.pt [ROLE=RUN/model.pt ...]

Runs with ``train_roles`` train some networks of a game and save the others as they came (``init_from``):
a landlord trained against rule farmers in one run and the farmers against the rule landlord in another,
at the same time on two cores. This writes a ``model.pt`` with every network of ``BASE`` except the ones
named, which come from their runs (Dou Dizhu's roles: ``landlord``, ``farmer_after_landlord``,
``farmer_before_landlord``, ``bidder``). The models must be of the same game, input features and network
sizes; the result records where each network came from (``parts``); its ``frames`` are the sum of all the
models' (a run started with ``init_from`` counts only its own).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import torch

from .dmc_model import load_checkpoint, role_names, trained_features

USAGE = "python -m cardenvs.training.dmc_combine OUT/model.pt BASE/model.pt ROLE=RUN/model.pt [ROLE=RUN/model.pt ...]"
SHAPE_KEYS = ("hidden", "move_hidden", "head_hidden", "history_channels", "history_kernel")


def _shape(model: dict) -> dict:
    """The settings two models' networks must share: their sizes and input features."""
    return {"features": trained_features(model), **{key: model["args"].get(key) for key in SHAPE_KEYS}}


def combine(base: str | Path, parts: Mapping[str, str | Path], out: str | Path) -> dict:
    """Write ``out``: the model ``base`` with the network of each role in ``parts`` taken from that role's
    model. Returns the written checkpoint."""
    model = load_checkpoint(base)
    game = model["game"]
    names = role_names(game)
    shape = _shape(model)
    nets = dict(model["nets"])
    frames = int(model["frames"])
    for role, path in parts.items():
        if role not in names:
            raise ValueError(f"unknown role {role!r} of {game} (its roles: {', '.join(names)})")
        part = load_checkpoint(path)
        if part["game"] != game:
            raise ValueError(f"{path} was trained on {part['game']}, not {game}")
        other = _shape(part)
        if other != shape:
            raise ValueError(f"{path} has other network settings than {base}: {other} against {shape}")
        prefix = f"{names.index(role)}."
        for key, value in part["nets"].items():
            if key.startswith(prefix):
                nets[key] = value
        frames += int(part["frames"])
    combined = {
        **model,
        "nets": nets,
        "frames": frames,
        "parts": {role: str(parts.get(role, base)) for role in names},
    }
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save(combined, out)
    return combined


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) < 3 or any("=" not in a for a in args[2:]):
        print(f"usage: {USAGE}", file=sys.stderr)
        print("error: give OUT, BASE and at least one ROLE=PATH", file=sys.stderr)
        return 2
    out, base = args[0], args[1]
    parts = dict(a.split("=", 1) for a in args[2:])
    try:
        combine(base, parts, out)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    taken = ", ".join(f"{role} from {path}" for role, path in parts.items())
    print(f"wrote {out}: {taken}, the rest from {base}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
