"""Deal files: the deals of a table written down, so that two people (or two programs) play the same deals.

``cardenvs arena ... --save-deals FILE`` writes the deals a tournament plays and plays them from the file;
``--deals FILE`` plays the deals of a file (the ``aec`` engine plays them: vector envs deal from seeds). The
tournament's ``--seed`` still seeds the agents, so the same file and seed give the same results, byte for byte.

The format (JSON, ``FORMAT`` version ``VERSION``)::

    {"format": "cardenvs-deals", "version": 1, "game": "doudizhu_v0", "options": {...},
     "deals": [{"decks": ["3S 9H ... RJ"], "deal_seed": 1234, "reset": {}}, ...]}

* ``game`` and ``options``: the env the deals are for (every option, defaults included); a table with other
  options refuses the file.
* each deal: ``decks``, the deck of each deal of the episode, top card first, in the game's card codes (as the
  env's ``deck`` reset option takes them; a match may stack fewer decks than it deals); ``deal_seed``
  (optional), the seed of whatever the env draws beyond the stacked decks (later decks, a first bidder), as
  its ``deal_seed`` reset option; ``reset`` (optional), other reset options of the env for that deal.

A game may read and write other formats of deal files (its spec's ``deal_formats``: Dou Dizhu reads and writes
DouZero's pickled evaluation data), named ``FORMAT:FILE`` (``douzero:eval_data.pkl``). A bad file is one
``ValueError`` naming the file, the deal and the field; a file is read as :mod:`cardenvs.core.userfiles` reads
what a user names (a regular file of at most :data:`MAX_DEAL_BYTES`, JSON nested at most 64 deep).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..core.seeds import deal_seed_of
from ..core.spec import load
from ..core.userfiles import check_writable, load_json
from ..registry import make, spec_of
from ..replay import dealt_decks
from .records import game_seed

FORMAT = "cardenvs-deals"
VERSION = 1
#: the largest deal file read (a Dou Dizhu deal takes about 200 bytes: some 300,000 deals)
MAX_DEAL_BYTES = 64 * 1024 * 1024


def _split(path: str, env_id: str) -> tuple[Any, str]:
    """``FORMAT:FILE`` -> (the game's deal-format module, FILE); a plain path -> (None, path)."""
    kind, sep, rest = path.partition(":")
    formats = spec_of(env_id).deal_formats
    if sep and kind in formats:
        return load(formats[kind]), rest
    if sep and kind.isidentifier() and not Path(path).exists() and len(kind) > 1:
        known = ", ".join(f"{k}:FILE" for k in formats) or "none"
        raise ValueError(f"{path}: no deal format {kind!r} for {env_id} (formats: this package's JSON, or {known})")
    return None, path


def make_deals(env_id: str, options: dict, seed: int, games: int) -> dict[str, Any]:
    """The deals ``0 .. games-1`` that a tournament seeded ``seed`` plays, as a deal file's content."""
    base = make(env_id, **options).unwrapped
    count = base.decks_per_episode() or 1
    deals = []
    for d in range(games):
        seed_d = deal_seed_of(game_seed(seed, d))
        deals.append({"decks": dealt_decks(base, seed_d, count), "deal_seed": seed_d, "reset": {}})
    return {"format": FORMAT, "version": VERSION, "game": env_id, "options": dict(base.config), "deals": deals}


def save_deals(path: str, data: dict[str, Any]) -> None:
    """Write a deal file (``FORMAT:FILE`` in a format of the game's)."""
    module, file = _split(path, data["game"])
    check_writable(file, "deal file")
    if module is not None:
        module.write(data["deals"], file)
        return
    Path(file).write_text(json.dumps(data, indent=1) + "\n")


def load_deals(path: str, env_id: str, options: dict) -> list[dict[str, Any]]:
    """The deals of a file for a table of ``env_id`` with ``options``, each as the reset options that play it;
    every deal checked by the env (its decks are permutations of the game's deck, its reset options known)."""
    module, file = _split(path, env_id)
    base = make(env_id, **options).unwrapped
    if module is not None:
        deals = module.read(file)
    else:
        data = load_json(file, "deal file", MAX_DEAL_BYTES)
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError(f"{file} is not a deal file: its 'format' is not {FORMAT!r}")
        if data.get("version") != VERSION:
            raise ValueError(f"{file}: deal file version {data.get('version')!r}; this package reads {VERSION}")
        if data.get("game") != env_id:
            raise ValueError(f"{file}: the deals are for {data.get('game')!r}, not {env_id}")
        if data.get("options") != dict(base.config):
            raise ValueError(
                f"{file}: the deals are for options {data.get('options')}, the table has {dict(base.config)}; "
                "give the file's options (-o KEY=VALUE)"
            )
        deals = data.get("deals")
        if not isinstance(deals, list) or not deals:
            raise ValueError(f"{file}: 'deals' must be a non-empty list")
    return [_reset_options(base, file, k, deal) for k, deal in enumerate(deals)]


def _reset_options(base: Any, file: str, k: int, deal: Any) -> dict[str, Any]:
    where = f"{file}: deal {k}"
    if not isinstance(deal, dict):
        raise ValueError(f"{where}: expected an object with 'decks', got {type(deal).__name__}")
    unknown = [key for key in deal if key not in ("decks", "deal_seed", "reset")]
    if unknown:
        raise ValueError(f"{where}: unknown field {unknown[0]!r} (a deal has decks, deal_seed, reset)")
    decks, reset = deal.get("decks"), deal.get("reset") or {}
    if not isinstance(decks, list) or not decks or not all(isinstance(d, str) for d in decks):
        raise ValueError(f"{where}: 'decks' must be a non-empty list of decks, each a string of card codes")
    if not isinstance(reset, dict) or "deck" in reset or "deal_seed" in reset:
        raise ValueError(f"{where}: 'reset' must be an object of other reset options (not deck or deal_seed)")
    options = {**reset, "deck": decks}
    if deal.get("deal_seed") is not None:
        options["deal_seed"] = deal["deal_seed"]
    try:
        base.reset(seed=0, options=options)  # the env checks every field as it would in the game
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from None
    return options
