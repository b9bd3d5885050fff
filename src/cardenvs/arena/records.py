"""What both arena engines share, below both: a game's record, the seeds of deals and agents, and the games
of a deal (its seatings and duplicate reset options)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..core import seeds


def game_seed(seed: int, deal: int) -> int:
    """The env reset seed of deal ``deal`` of a tournament seeded ``seed``."""
    return seeds.seed_from(seed, deal, stream="arena_deal")


def agent_rng(seed: int, deal: int, replay: int = 0) -> np.random.Generator:
    """The agents' generator in game ``replay`` of deal ``deal``."""
    return seeds.generator(seed, deal, replay, stream="arena_agents")


@dataclass
class GameRecord:
    deal: int
    replay: int  # index of the seating (and reset options) within the deal's duplicate set
    table: int  # index of the table (round robin); 0 otherwise
    seats: list[str]  # agent label per seat
    scores: list[float]
    rewards: list[float]  # total reward per seat
    outcome: list[float]  # win-scale result per seat
    illegal: str | None = None
    steps: int = 0
    truncated: bool = False
    roles: list[int] | None = None  # games with roles: each seat's role index (None: none, e.g. a dead hand)
    role_values: dict[str, list[float]] = field(default_factory=dict)  # numbers per seat (the game's roles hook)
    #: faults of programs playing as agents (:func:`fault_record`): one that lost the game (``forfeit``), or moves
    #: their fallback agent made
    faults: list[dict] = field(default_factory=list)
    #: a luck-adjusted tournament's terms of this game (:mod:`cardenvs.arena.luck`): the value function after the
    #: deal and the decision terms' sums, per seat; None otherwise (and then not written)
    luck: dict | None = None
    #: what agents with a ``game_usage()`` hook (``llm:`` seats) used in this game, by label: calls, tokens,
    #: latencies, cost, ... (:func:`cardenvs.arena.aec.game_usage`); empty otherwise (and then not written)
    usage: dict[str, dict] = field(default_factory=dict)
    #: decisions each seat made in the game, kept where a seat's agent can fault (programs, ``llm:`` seats), so
    #: the results can tell what share of a seat's moves its fallback made; empty otherwise (and then not written)
    decisions: list[int] = field(default_factory=list)
    #: of those, the decisions with more than one legal move (the ones an ``llm:`` seat asks its model about; a
    #: forced move is played without a call): what the fallback warning counts against; empty where not kept
    choices: list[int] = field(default_factory=list)


def fault_record(label: str, fault, forfeit: bool) -> dict:
    """A program's fault (:class:`cardenvs.agent.program.BotFault`) as a game's record keeps it."""
    return {"agent": label, "kind": fault.kind, "detail": fault.detail, "forfeit": forfeit}


def seatings(n: int, duplicate: bool) -> list[tuple[int, ...]]:
    """Agent index per seat for each replay of a deal: all permutations up to 3 players, rotations beyond."""
    if not duplicate:
        return [tuple(range(n))]
    if n <= 3:
        return list(itertools.permutations(range(n)))
    return [tuple((s + k) % n for s in range(n)) for k in range(n)]


def deal_games(base, deals: Sequence[int], duplicate: bool, role_phase: bool) -> list[tuple[int, int, tuple, dict]]:
    """The games of ``deals``, in play order: (deal, replay index, agent index per seat, reset options)."""
    extra = base.duplicate_reset_options(phase=role_phase) if duplicate else [{}]
    n = base.num_players
    games = []
    for d in deals:
        replays = [(perm, opt) for opt in extra for perm in seatings(n, duplicate)]
        if not duplicate:  # plain rotation: deal d uses rotation d mod n
            replays = [(tuple((s + d) % n for s in range(n)), {})]
        games += [(d, k, perm, reset_options) for k, (perm, reset_options) in enumerate(replays)]
    return games
