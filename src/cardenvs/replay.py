"""Replays: one game as JSON, written by ``cardenvs arena --replays DIR`` and replayed exactly through the AEC env.

A replay file holds what it takes to play the game again, move for move, and what to check it against:

* ``env_id``, ``options`` (the constructor options), ``seed`` (the env's reset seed) and ``reset_options``
  (e.g. Dou Dizhu's ``landlord`` and ``bid`` in the arena's duplicate mode): ``reset(seed, reset_options)``
  deals the same cards again. ``deal_seed`` is the dealing generator's seed that reset draws, and ``decks``
  the first decks it deals (card codes, top card first), for people and tools; the replay checks both.
* ``agents`` (agent names, one per seat) and ``labels`` (the arena's labels, ``random#2``);
* ``steps``: every action in order, each with its ``seat``, ``agent`` (``player_0``), ``action`` id,
  ``move`` (the env's name of the action) and ``rewards`` (every seat's reward from that step);
* the result: ``rewards`` (each seat's total), ``scores`` (the game's own units), ``outcome`` (the win
  scale), ``illegal`` (the label of an agent whose illegal action ended the game) and ``truncated``;
* where it comes from: ``tournament_seed``, ``deal``, ``replay`` (the seating within the deal's duplicate
  set) and ``table``;
* ``transcript`` (only where the arena wrote transcripts too, ``--transcripts``): the decisions of language-model
  seats, each with its ``step``, ``agent`` label, ``seat``, the chat ``messages``, the ``answers``, the ``action`` and
  ``move`` (and a ``fault`` where there was one), the lines of the game's transcript file.

:func:`load` reads a file (``ValueError`` naming the file and what is wrong); :meth:`Replay.verify` plays it
again and raises :class:`ReplayMismatch` at the first step whose mover, legality, move name or rewards
differ, or at the end if the totals or the scores do. :meth:`Replay.env_at` gives the env after ``k`` steps
(the web viewer steps through games with it).
"""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .core.cards import card_code
from .core.play import play_on
from .core.rng import deal_deck
from .core.seeds import deal_seed_of
from .core.userfiles import load_json
from .registry import make, resolve_id

FORMAT = "cardenvs-replay"
FORMAT_VERSION = 1
#: how arena replay files are named: game index over the whole tournament (table, deal, seating)
FILE_PATTERN = "game_{index:06d}.json"
#: the largest replay file read (a long Guandan match's replay takes a few MB)
MAX_REPLAY_BYTES = 64 * 1024 * 1024


class ReplayMismatch(ValueError):
    """Playing a replay again did not give what the file records."""


@dataclass
class Step:
    seat: int
    agent: str  # the env's agent name (player_0)
    action: int
    move: str  # the env's name of the action
    rewards: list[float]  # every seat's reward from this step


@dataclass
class Replay:
    env_id: str
    options: dict[str, Any]
    seed: int | None
    reset_options: dict[str, Any]
    agents: list[str]  # agent names per seat
    labels: list[str]  # the arena's labels per seat
    steps: list[Step] = field(default_factory=list)
    rewards: list[float] = field(default_factory=list)
    scores: list[float] = field(default_factory=list)
    outcome: list[float] = field(default_factory=list)
    illegal: str | None = None
    truncated: bool = False
    deal_seed: int | None = None
    decks: list[str] = field(default_factory=list)
    tournament_seed: int | None = None
    deal: int = 0
    replay: int = 0
    table: int = 0
    version: str = ""
    #: the decisions of agents that keep transcripts (``llm:`` seats: messages, answers, move), written by
    #: ``cardenvs arena --replays DIR --transcripts DIR2``; empty otherwise (and then not written)
    transcript: list[dict] = field(default_factory=list)

    # ------------------------------------------------------------------ files
    def to_dict(self) -> dict[str, Any]:
        data = {"format": FORMAT, "format_version": FORMAT_VERSION}
        data.update(asdict(self))
        if not data["transcript"]:
            del data["transcript"]
        return data

    @classmethod
    def from_dict(cls, data: Any, where: str = "replay") -> Replay:
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError(f'{where} is not a cardenvs replay (no "format": {FORMAT!r} at its top)')
        if data.get("format_version") != FORMAT_VERSION:
            raise ValueError(
                f"{where}: replay format version {data.get('format_version')!r}; this cardenvs reads {FORMAT_VERSION}"
            )
        missing = [k for k in ("env_id", "options", "seed", "agents", "steps", "scores") if k not in data]
        if missing:
            raise ValueError(f"{where}: the replay has no {missing[0]!r}")
        known = {f for f in cls.__dataclass_fields__}
        fields = {k: v for k, v in data.items() if k in known}
        try:
            fields["steps"] = [Step(**s) for s in data["steps"]]
            fields["reset_options"] = dict(data.get("reset_options") or {})
            fields["env_id"] = resolve_id(data["env_id"])
            return cls(**fields)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{where}: malformed replay: {exc}") from None

    def save(self, path: str | Path) -> None:
        """JSON with one line per step (and per decision of its transcript)."""
        data = self.to_dict()
        steps = data.pop("steps")
        transcript = data.pop("transcript", None)
        head = json.dumps(data, indent=1)[: -len("\n}")]
        lines = ",\n  ".join(json.dumps(s, separators=(", ", ": ")) for s in steps)
        text = f'{head},\n "steps": [\n  {lines}\n ]'
        if transcript:
            text += ',\n "transcript": [\n  ' + ",\n  ".join(json.dumps(t) for t in transcript) + "\n ]"
        Path(path).write_text(text + "\n}\n")

    # ------------------------------------------------------------------ playing
    @property
    def num_players(self) -> int:
        return len(self.agents)

    @property
    def actions(self) -> list[int]:
        return [s.action for s in self.steps]

    def new_env(self):
        """The env the game was played in (illegal actions end the game, as in the arena), reset to its start."""
        env = make(self.env_id, **self.options)
        env.reset(seed=self.seed, options=self.reset_options or None)
        return env

    def env_at(self, k: int):
        """The env after the first ``k`` steps (0 <= k <= len(steps)), without checks (see :meth:`verify`)."""
        if not 0 <= k <= len(self.steps):
            raise ValueError(f"step {k} is not in this replay (0..{len(self.steps)})")
        env = self.new_env()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a recorded illegal action warns again
            replay_moves(env, self.actions, k)
        return env

    def verify(self) -> None:
        """Play the game again through the AEC env; :class:`ReplayMismatch` names the first difference."""
        env = self.new_env()
        base = env.unwrapped
        name = f"replay of {self.env_id} (deal {self.deal}, seating {self.replay})"
        if base.num_players != self.num_players:
            raise ReplayMismatch(f"{name}: {len(self.agents)} agents recorded, the env seats {base.num_players}")
        if self.deal_seed is not None and self.seed is not None and deal_seed_of(self.seed) != self.deal_seed:
            raise ReplayMismatch(f"{name}: seed {self.seed} deals from {deal_seed_of(self.seed)}, not {self.deal_seed}")
        decks = dealt_decks(base, self.deal_seed, len(self.decks)) if self.deal_seed is not None else []
        if self.decks and decks != self.decks:
            raise ReplayMismatch(f"{name}: the recorded decks are not what deal seed {self.deal_seed} deals")
        totals = np.zeros(self.num_players)
        for i, step in enumerate(self.steps):
            where = f"{name}, step {i} ({step.agent} {step.move!r})"
            if not base.agents:
                raise ReplayMismatch(f"{where}: the game ended after {i} steps, the replay goes on")
            if env.agent_selection != step.agent or base.possible_agents[step.seat] != step.agent:
                raise ReplayMismatch(f"{where}: {env.agent_selection} is to move in the env")
            if step.action not in set(base.legal_actions().tolist()) and self.illegal is None:
                raise ReplayMismatch(f"{where}: action {step.action} is not legal in the env")
            if base.action_name(step.action) != step.move:
                raise ReplayMismatch(f"{where}: the env names action {step.action} {base.action_name(step.action)!r}")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                env.step(step.action)
            got = [float(env.rewards.get(a, 0.0)) for a in base.possible_agents]
            if not _same(got, step.rewards):
                raise ReplayMismatch(f"{where}: rewards {got} in the env, {step.rewards} recorded")
            totals += got
        if base.agents and not all(env.terminations[a] or env.truncations[a] for a in base.agents):
            raise ReplayMismatch(f"{name}: the game is not over after the {len(self.steps)} recorded steps")
        scores = [float(x) for x in base.scores()]
        if not _same(scores, self.scores):
            raise ReplayMismatch(f"{name}: final scores {scores} in the env, {self.scores} recorded")
        if self.rewards and not _same(totals.tolist(), self.rewards):
            raise ReplayMismatch(f"{name}: total rewards {totals.tolist()} in the env, {self.rewards} recorded")


def replay_moves(env, actions: Sequence[int], k: int) -> None:
    """Step ``env`` through the first ``k`` of ``actions`` (live moves in order) with the one play loop."""
    moves = iter(actions)
    play_on(env, lambda seat, observation: next(moves), moves=k)


def _same(a: Sequence[float], b: Sequence[float]) -> bool:
    return len(a) == len(b) and all(math.isclose(x, y, rel_tol=1e-12, abs_tol=1e-12) for x, y in zip(a, b, strict=True))


def dealt_decks(base, deal_seed: int | None, count: int) -> list[str]:
    """The first ``count`` decks the dealing generator deals from ``deal_seed``, as strings of card codes."""
    if deal_seed is None:
        return []
    out = np.empty_like(base.deck)
    decks = []
    for k in range(count):
        deal_deck(base.deck, np.uint64(deal_seed), k, out)
        decks.append(" ".join(card_code(int(c)) for c in out))
    return decks


def load(path: str | Path) -> Replay:
    """Read one replay file; ``ValueError`` naming the file for anything that is not a readable replay."""
    p = Path(path)
    if p.is_dir():
        raise ValueError(f"{path} is a folder; open one of its replay files (see replay_files)")
    data = load_json(p, "replay", MAX_REPLAY_BYTES)
    return Replay.from_dict(data, str(path))


def replay_files(folder: str | Path) -> list[Path]:
    """The replay files of a folder (an arena run's ``--replays`` folder), in game order."""
    p = Path(folder)
    if not p.is_dir():
        raise ValueError(f"{folder} is not a folder")
    return sorted(f for f in p.glob("*.json") if f.is_file())


# ---------------------------------------------------------------------- recording (the arena)
class Recorder:
    """An AEC env seen through :func:`~cardenvs.core.env.play_episode`, keeping every live step: the seat,
    the action, its name and every seat's reward right after it."""

    def __init__(self, env):
        self.env = env
        self.unwrapped = env.unwrapped
        self.steps: list[Step] = []

    @property
    def possible_agents(self) -> list[str]:
        return self.env.possible_agents

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self.steps = []
        self.env.reset(seed=seed, options=options)

    def agent_iter(self, max_iter: int = 2**63):
        return self.env.agent_iter(max_iter)

    def last(self, observe: bool = True):
        return self.env.last(observe)

    def step(self, action: int | None) -> None:
        env = self.env
        agent = env.agent_selection
        live = not (env.terminations[agent] or env.truncations[agent])
        env.step(action)
        if live and action is not None:
            base = self.unwrapped
            self.steps.append(
                Step(
                    base.agent_name_mapping[agent],
                    agent,
                    int(action),
                    base.action_name(int(action)),
                    [float(env.rewards.get(a, 0.0)) for a in base.possible_agents],
                )
            )


def from_game(
    recorder: Recorder,
    record: Any,
    agent_names: Sequence[str],
    options: dict,
    seed: int,
    reset_options: dict | None,
    tournament_seed: int | None = None,
) -> Replay:
    """The replay of a game the arena just played through ``recorder`` (``record`` is its ``GameRecord``)."""
    from . import __version__

    base = recorder.unwrapped
    deal_seed = deal_seed_of(seed)
    count = base.decks_per_episode() or 1
    return Replay(
        env_id=base.metadata["name"],
        options=dict(options),
        seed=int(seed),
        reset_options=dict(reset_options or {}),
        agents=list(agent_names),
        labels=list(record.seats),
        steps=list(recorder.steps),
        rewards=[float(x) for x in record.rewards],
        scores=[float(x) for x in record.scores],
        outcome=[float(x) for x in record.outcome],
        illegal=record.illegal,
        truncated=bool(record.truncated),
        deal_seed=deal_seed,
        decks=dealt_decks(base, deal_seed, count),
        tournament_seed=tournament_seed,
        deal=record.deal,
        replay=record.replay,
        table=record.table,
        version=__version__,
    )


def check_replays_folder(path: str, flag: str = "--replays", pattern: str = "game_*.json") -> None:
    """A ``ValueError`` unless ``path`` can take an arena's replays (``flag``: the option that names it, its files
    ``pattern``; an arena's transcripts too): a new folder (made with its missing parents when the tournament
    starts), or an existing folder without such files (so a folder never mixes two runs)."""
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise ValueError(f"{flag} {path} is a file; name a folder for the {flag[2:]} files")
    for ancestor in p.parents:
        if ancestor.exists():
            if not ancestor.is_dir():
                raise ValueError(f"cannot write {flag[2:]} to {path}: {ancestor} is a file, not a folder")
            break
    if p.is_dir():
        old = sorted(p.glob(pattern))
        if old:
            raise ValueError(
                f"{flag} {path} already holds {flag[2:]} ({old[0].name}, ... {len(old)} files); name a new "
                "or empty folder so that runs do not mix"
            )
