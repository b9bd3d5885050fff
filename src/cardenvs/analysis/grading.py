"""A graded ladder per game: fixed anchor agents rated once, and any agent placed on their scale
(``cardenvs ladder GAME AGENT``).

* **Anchors**: each game's agents from weak to strong (its spec's quick skill ladder, else its skill ladder:
  random, the heuristics, search, the shipped model), rated once by a committed reference run
  (``cardenvs ladder GAME --reference``, written to ``anchors/GAME.json`` beside this module): every pair of
  anchors plays duplicate deals, and a Bradley-Terry fit over all pairs of seats where the two met (one ahead
  of the other, ties half) gives Elo-scale ratings with ``random`` at 0.
* **Placement**: the new agent plays every anchor on duplicate deals (per anchor, the tables of the pair as
  :func:`cardenvs.analysis.skill.ladder.tables_for` builds them: seats alternate between the two, so in a team
  game each plays with itself as partner), and its rating is the maximum-likelihood Bradley-Terry rating with
  the anchors' ratings held fixed (so placing an agent never moves the anchors). The 95% interval is the
  percentile interval over bootstrap resamples of the deals (a deal is the unit: its seatings share the cards).
* **Leaderboard**: each placement appends a row (game, agent, rating and interval, deals, seed, version) to a
  JSON file; the docs page "Leaderboard" is generated from the committed one (``docs/results/leaderboard.json``).
  A leaderboard is read field by field (:func:`read`: a row with a missing field, a rating that is no finite
  number, ... is a ``ValueError`` naming the file, the row and the field), holds at most
  :data:`MAX_LEADERBOARD_ROWS` rows in at most :data:`MAX_LEADERBOARD_BYTES`, and is written whole to a
  temporary file beside it that then replaces it (:func:`append`), so a reader never sees half a file.

Any agent name the arena takes can be placed: a heuristic, a model file, a search agent with parameters, a
``module:Class`` or a program (``cmd:COMMAND``).
"""

from __future__ import annotations

import itertools
import json
import math
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from cardenvs import arena
from cardenvs.core import seeds
from cardenvs.core.userfiles import load_json
from cardenvs.registry import make, resolve_id, spec_of

from .skill.ladder import tables_for
from .skill.measures import BT_PRIOR, ELO, bradley_terry, resample_weights

ANCHORS_DIR = Path(__file__).parent / "anchors"
RESAMPLES = 1000
NEWTON_STEPS = 50
#: the most placements a leaderboard file holds (a row is about 400 bytes)
MAX_LEADERBOARD_ROWS = 10_000
#: the largest leaderboard file read
MAX_LEADERBOARD_BYTES = 16 * 1024 * 1024
#: the largest anchors (reference ratings) file read
MAX_ANCHORS_BYTES = 1024 * 1024


def anchors_of(env_id: str) -> list[str]:
    """The game's anchor agents, weak to strong (module doc)."""
    spec = spec_of(env_id)
    return list(spec.skill_ladder_quick or spec.skill_ladder or ("random", *spec.policy_agents()))


def pair_counts(
    env_id: str,
    a: str,
    b: str,
    games: int,
    seed: int,
    workers: int = 1,
    luck_adjusted: bool = False,
    unsandboxed: bool = False,
    ran_unsandboxed: set[str] | None = None,
) -> tuple[np.ndarray, ...]:
    """``a`` against ``b`` on ``games`` duplicate deals: per deal, the pairs of seats where ``a`` finished ahead
    of ``b`` (ties half) and the pairs where they met. ``luck_adjusted``: also, per deal, the deal term of those
    pairs (:mod:`cardenvs.arena.luck`: the same count in the value function's rollout from the deal, minus its
    mean over the reference deals). ``unsandboxed``: programs may run without a sandbox where none can be made
    (the arena's ``unsandboxed``); the names of those that did are added to ``ran_unsandboxed``."""
    from cardenvs.arena.luck import beat as ahead

    seats = make(env_id).unwrapped.num_players
    beat, met, terms = np.zeros(games), np.zeros(games), np.zeros(games)
    for table in tables_for([a, b], seats):
        # the rating's terms are the deal's alone: no resampled decisions, no repeated rollouts
        results = arena.run_tournament(
            env_id,
            table,
            games,
            seed,
            workers=workers,
            luck_adjusted=luck_adjusted,
            luck_samples=0 if luck_adjusted else None,
            luck_rollouts=1 if luck_adjusted else None,
            unsandboxed=unsandboxed,
        )
        name_of = dict(zip(results.agents, results.agent_names, strict=True))
        if ran_unsandboxed is not None:
            ran_unsandboxed.update(name_of[label] for label in results.unsandboxed)
        for r in results.records:
            names = [name_of[label] for label in r.seats]
            for i, j in itertools.combinations(range(seats), 2):
                if {names[i], names[j]} != {a, b}:
                    continue
                x, y = (i, j) if names[i] == a else (j, i)
                beat[r.deal] += ahead(r.outcome[x], r.outcome[y])
                met[r.deal] += 1.0
                if luck_adjusted and r.luck is not None and results.luck is not None:
                    mean = results.luck["beat"]["mean"][(r.luck["options"] * seats + x) * seats + y]
                    terms[r.deal] += ahead(r.luck["deal_outcome"][x], r.luck["deal_outcome"][y]) - mean
    return (beat, met, terms) if luck_adjusted else (beat, met)


def reference(env_id: str, games: int, seed: int, workers: int = 1) -> dict[str, Any]:
    """The anchors' reference run: every pair plays, one Bradley-Terry fit over them (``random`` at 0)."""
    env_id = resolve_id(env_id)
    anchors = anchors_of(env_id)
    n = len(anchors)
    beat, met = np.zeros((1, n, n)), np.zeros((1, n, n))
    for i, j in itertools.combinations(range(n), 2):
        b, m = pair_counts(env_id, anchors[i], anchors[j], games, seed, workers)
        beat[0, i, j], beat[0, j, i] = b.sum(), m.sum() - b.sum()
        met[0, i, j] = met[0, j, i] = m.sum()
    ratings = bradley_terry(beat, met)[0]
    zero = ratings[anchors.index("random")] if "random" in anchors else ratings.mean()
    return {
        "game": env_id,
        "anchors": {name: round(float(r - zero), 1) for name, r in zip(anchors, ratings, strict=True)},
        "deals_per_pair": games,
        "seed": seed,
        "command": f"cardenvs ladder {spec_of(env_id).name} --reference --games {games} --seed {seed}",
    }


def load_reference(env_id: str, path: str | Path | None = None) -> dict[str, Any]:
    """The committed reference ratings of ``env_id``'s anchors (or those of the file ``path``), checked field
    by field."""
    env_id = resolve_id(env_id)
    file = Path(path) if path is not None else ANCHORS_DIR / f"{spec_of(env_id).name}.json"
    if not os.path.lexists(file):
        raise ValueError(
            f"no reference ratings for {env_id} ({file}); make them with cardenvs ladder "
            f"{spec_of(env_id).name} --reference"
        )
    data = load_json(file, "anchors file", MAX_ANCHORS_BYTES)
    if not isinstance(data, dict) or data.get("game") != env_id or not isinstance(data.get("anchors"), dict):
        raise ValueError(f"{file} holds no reference ratings of {env_id}")
    if not data["anchors"]:
        raise ValueError(f"{file}: 'anchors' is empty")
    for name, rating in data["anchors"].items():
        if not _finite(rating):
            raise ValueError(f"{file}: anchor {name!r}: the rating must be a finite number, got {_shown(rating)}")
    if not _count(data.get("deals_per_pair")):
        raise ValueError(f"{file}: 'deals_per_pair' must be a whole number, got {_shown(data.get('deals_per_pair'))}")
    return data


def fit_rating(beat: np.ndarray, met: np.ndarray, anchors: np.ndarray) -> np.ndarray:
    """Ratings ``[B]`` of one agent against anchors rated ``anchors[A]`` (Elo scale, held fixed) from its pair
    counts ``beat[B, A]`` (ahead of anchor ``a``) and ``met[B, A]``: the maximum-likelihood Bradley-Terry rating,
    by Newton's method, with :data:`BT_PRIOR` wins each way per anchor met."""
    prior = BT_PRIOR * (met > 0)
    wins, games = beat + prior, met + 2 * prior
    rating = np.zeros(beat.shape[0])
    for _ in range(NEWTON_STEPS):
        p = 1.0 / (1.0 + np.exp(-(rating[:, None] - anchors[None, :]) / ELO))
        gradient = ((wins - games * p) / ELO).sum(axis=1)
        curvature = (games * p * (1 - p) / ELO**2).sum(axis=1)
        step = np.where(curvature > 0, gradient / np.maximum(curvature, 1e-300), 0.0)
        rating = rating + np.clip(step, -400.0, 400.0)
        if np.abs(step).max() < 1e-9:
            break
    return rating


def place(
    env_id: str,
    agent: str,
    games: int,
    seed: int,
    workers: int = 1,
    reference_file: str | Path | None = None,
    luck_adjusted: bool = False,
    unsandboxed: bool = False,
) -> dict[str, Any]:
    """Place ``agent`` on the game's ladder: its rating with a 95% interval and its score against each anchor.
    ``luck_adjusted``: also ``adjusted`` (``mean``, ``low``, ``high``, ``variance_ratio``): the rating fitted
    from each anchor's counts less their deal terms (:func:`pair_counts`) scaled by a slope cross-fitted over
    the deals (even deals' slope from the odd deals and back, as :mod:`cardenvs.arena.luck` does), with the same
    bootstrap; the variance ratio is the plain interval's width over the adjusted one's, squared. The anchors'
    ratings stay the plain reference run's. ``unsandboxed``: a program may run without a sandbox where none can
    be made (``cardenvs ladder --unsandboxed``); the row then says ``"unsandboxed": true``."""
    from cardenvs import __version__

    env_id = resolve_id(env_id)
    ref = load_reference(env_id, reference_file)
    names = list(ref["anchors"])
    ratings = np.array([ref["anchors"][a] for a in names], dtype=np.float64)
    beat = np.zeros((games, len(names)))
    met = np.zeros((games, len(names)))
    terms = np.zeros((games, len(names)))
    ran_unsandboxed: set[str] = set()
    for k, anchor in enumerate(names):
        if anchor == agent:
            raise ValueError(f"{agent} is an anchor of the {env_id} ladder (rated {ref['anchors'][agent]})")
        counts = pair_counts(env_id, agent, anchor, games, seed, workers, luck_adjusted, unsandboxed, ran_unsandboxed)
        beat[:, k], met[:, k] = counts[0], counts[1]
        if luck_adjusted:
            terms[:, k] = counts[2]
    weights = resample_weights(games, RESAMPLES, seeds.generator(seed, stream="ladder_bootstrap"))
    point = fit_rating(beat.sum(axis=0)[None, :], met.sum(axis=0)[None, :], ratings)[0]
    draws = fit_rating(weights @ beat, weights @ met, ratings)
    low, high = np.percentile(draws, [2.5, 97.5])
    adjusted = None
    if luck_adjusted:
        adjusted = _adjusted_rating(beat, met, terms, weights, ratings, float(high - low))
    row = {
        "game": env_id,
        "agent": agent,
        "rating": round(float(point), 1),
        "interval": [round(float(low), 1), round(float(high), 1)],
        "against": {
            a: round(float(beat[:, k].sum() / met[:, k].sum()), 3) if met[:, k].sum() else None
            for k, a in enumerate(names)
        },
        "deals": games,
        "seed": seed,
        "version": __version__,
    }
    if adjusted is not None:
        row["adjusted"] = adjusted
    if ran_unsandboxed:
        row["unsandboxed"] = True
    return row


def _adjusted_rating(beat, met, terms, weights, ratings, plain_width: float) -> dict[str, float]:
    """The luck-adjusted rating of :func:`place`: per anchor, the counts less a cross-fitted slope times the deal
    terms, fitted and resampled as the plain ones."""
    from cardenvs.arena.luck import fit_slopes

    fold = np.arange(len(beat)) % 2
    adjusted = beat.copy()
    for k in range(beat.shape[1]):
        for f in (0, 1):
            slope = fit_slopes(beat[fold != f, k], terms[fold != f, k : k + 1])[0]
            adjusted[fold == f, k] -= slope * terms[fold == f, k]
    point = fit_rating(adjusted.sum(axis=0)[None, :], met.sum(axis=0)[None, :], ratings)[0]
    low, high = np.percentile(fit_rating(weights @ adjusted, weights @ met, ratings), [2.5, 97.5])
    width = float(high - low)
    return {
        "mean": round(float(point), 1),
        "low": round(float(low), 1),
        "high": round(float(high), 1),
        "variance_ratio": round((plain_width / width) ** 2, 3) if width > 0 else float("nan"),
    }


def _finite(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _count(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and x >= 0


def _shown(x: Any) -> str:
    """A value for an error message, cut short (a leaderboard may hold anything)."""
    text = json.dumps(x) if not isinstance(x, (dict, list)) else type(x).__name__
    return text if len(text) <= 40 else text[:37] + "..."


def check_row(row: Any) -> str | None:
    """What is wrong with a leaderboard row (None if nothing): the fields :func:`standings` and :func:`table`
    read, each of its type (a finite rating, an interval of two finite numbers, the lower first, ...), and the
    optional ones :func:`place` writes."""
    if not isinstance(row, dict):
        return f"a row must be an object, got {type(row).__name__}"
    for key in ("game", "agent", "rating", "interval", "deals"):
        if key not in row:
            return f"the field {key!r} is missing"
    for key in ("game", "agent"):
        if not isinstance(row[key], str) or not row[key]:
            return f"{key!r} must be a non-empty string, got {_shown(row[key])}"
    if not _finite(row["rating"]):
        return f"'rating' must be a finite number, got {_shown(row['rating'])}"
    interval = row["interval"]
    pair = isinstance(interval, list) and len(interval) == 2
    shown = _shown(interval) if not pair else "[" + ", ".join(_shown(x) for x in interval) + "]"
    if not (pair and all(_finite(x) for x in interval)):
        return f"'interval' must be a list of two finite numbers, got {shown}"
    if interval[0] > interval[1]:
        return f"'interval' must be [lower, upper], got {shown} (the lower end above the upper)"
    if not _count(row["deals"]):
        return f"'deals' must be a whole number, got {_shown(row['deals'])}"
    if "seed" in row and not _count(row["seed"]):
        return f"'seed' must be a whole number, got {_shown(row['seed'])}"
    if "version" in row and not isinstance(row["version"], str):
        return f"'version' must be a string, got {_shown(row['version'])}"
    against = row.get("against", {})
    if not isinstance(against, dict) or not all(x is None or _finite(x) for x in against.values()):
        return "'against' must map anchors to finite scores (or null)"
    if "unsandboxed" in row and not isinstance(row["unsandboxed"], bool):
        return f"'unsandboxed' must be true or false, got {_shown(row['unsandboxed'])}"
    if "adjusted" in row and not isinstance(row["adjusted"], dict):
        return f"'adjusted' must be an object, got {_shown(row['adjusted'])}"
    return None


def read(leaderboard: str | Path) -> list[dict[str, Any]]:
    """The placements of a leaderboard file (a JSON list of rows as :func:`place` makes them), each checked by
    :func:`check_row`; ``ValueError`` naming the file (and the row and field) for anything else."""
    file = Path(leaderboard)
    rows = load_json(file, "leaderboard", MAX_LEADERBOARD_BYTES)
    if not isinstance(rows, list):
        raise ValueError(f"{file} is not a leaderboard (a JSON list of placements), it holds {type(rows).__name__}")
    if len(rows) > MAX_LEADERBOARD_ROWS:
        raise ValueError(f"{file} holds {len(rows):,} placements; a leaderboard holds at most {MAX_LEADERBOARD_ROWS:,}")
    for k, row in enumerate(rows):
        problem = check_row(row)
        if problem is not None:
            raise ValueError(f"{file}: row {k}: {problem}")
    return rows


def append(leaderboard: str | Path, row: dict[str, Any]) -> None:
    """Add a placement to a leaderboard file (a JSON list; made if missing): the whole list is written to a
    temporary file in the same folder, which then replaces the file (a reader sees the old list or the new)."""
    file = Path(leaderboard)
    problem = check_row(row)
    if problem is not None:
        raise ValueError(f"the placement to add to {file}: {problem}")
    rows = read(file) if os.path.lexists(file) else []
    if len(rows) >= MAX_LEADERBOARD_ROWS:
        raise ValueError(f"{file} is full ({MAX_LEADERBOARD_ROWS:,} placements); start another leaderboard file")
    text = json.dumps([*rows, row], indent=1) + "\n"
    folder = file.parent
    try:
        mode = os.stat(file).st_mode & 0o777 if file.exists() else None
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{file.name}.", suffix=".tmp")
    except OSError as exc:
        raise ValueError(f"cannot write the leaderboard {file}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "w") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        if mode is None:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp, mode)
        os.replace(tmp, file)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise ValueError(f"cannot write the leaderboard {file}: {exc.strerror or exc}") from None


def standings(rows: Sequence[dict[str, Any]], ref: dict[str, Any]) -> list[dict[str, Any]]:
    """A game's leaderboard, best first: the anchors (``interval`` None: their ratings are fixed) and the agents
    of ``rows`` placed on the game ``ref`` rates."""
    out: list[dict[str, Any]] = [
        {"agent": a, "rating": r, "interval": None, "deals": ref["deals_per_pair"]} for a, r in ref["anchors"].items()
    ]
    out += [
        {"agent": row["agent"], "rating": row["rating"], "interval": row["interval"], "deals": row["deals"]}
        for row in rows
        if row["game"] == ref["game"]
    ]
    return sorted(out, key=lambda e: -e["rating"])


def table(rows: Sequence[dict[str, Any]], ref: dict[str, Any]) -> list[str]:
    """A game's leaderboard as Markdown table lines: the anchors and the agents placed, best first."""
    lines = ["| agent | rating | 95% interval | deals |", "|---|---|---|---|"]
    for e in standings(rows, ref):
        if e["interval"] is None:
            lines.append(f"| `{e['agent']}` (anchor) | {e['rating']:.0f} | fixed | {e['deals']} a pair |")
        else:
            low, high = e["interval"]
            lines.append(f"| `{e['agent']}` | {e['rating']:.0f} | [{low:.0f}, {high:.0f}] | {e['deals']} per anchor |")
    return lines
