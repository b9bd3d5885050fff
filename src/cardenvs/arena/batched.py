"""The arena's batched engine: a table's games played on the turn-based vector env, all at once.

:func:`play_games` plays a list of arena games (deal, seating, reset options) of one table on a
:class:`cardenvs.vector.VectorEnv` of as many games (``autoreset=False``: each is played once), with one
``act_batch`` call per agent and step for every game where that agent is to move (the batch protocol of
:mod:`cardenvs.agent`). It returns the :class:`~cardenvs.arena.records.GameRecord` each game gets from the AEC engine
(:func:`cardenvs.arena.aec.play_one`), field for field:

* the deal of game ``(d, k)`` is the AEC env's after ``reset(seed=game_seed(seed, d), options=...)`` (the
  vector env's per-game ``seeds``), with the duplicate mode's reset options in the vector env's params (games
  with different options are played in different batches);
* the seats of numba policies (:class:`~cardenvs.agent.PolicyAgent`) play on in one kernel call
  (:meth:`VectorEnv.play_policies`, no Python per move) until another agent is to move, a policy would draw a
  random number (that decision is then its ``act_batch``'s, with the game's generator) or the game ends: the
  moves ``act_batch`` would choose, without an observation written for each;
* its agents draw from ``agent_rng(seed, d, k)``, made when an agent first asks for it, and an agent of the
  protocol draws what its ``act`` would;
* rewards are summed as the AEC loop sums them (each seat collects what came since its last move when it is
  to move, and the rest at the end), so even rewards that do not add exactly give the same totals;
* an illegal action ends the game as the AEC env's ``illegal_action="terminate"`` does (a warning, -1 for
  the offender, 0 for the others, the scores before it);
* the outcome is the env's ``"win"`` scale result (:meth:`VectorEnv.outcome`) and the roles are the game's
  own hook (its spec's ``roles``) read from player_0's observation of the finished game
  (:meth:`VectorEnv.seat_observations`), as the AEC engine reads them, so this module names no game.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import partial
from typing import Any

import numpy as np

from ..agent import BatchGames, Generators, PolicyAgent, batch_actions, load_agent, takes_games
from ..registry import make, spec_of
from ..vector import VectorEnv
from .records import GameRecord, agent_rng, deal_games, game_seed

#: an arena game: (deal, replay index in the deal's set, agent index per seat, reset options)
Game = tuple[int, int, tuple[int, ...], dict]
#: what this process built for the tournament it plays (agents, envs), by key, kept for its next jobs
_KEPT: dict[tuple, Any] = {}
_KEPT_FOR = [""]  # the tournament they were built for


def _kept(key: tuple, build: Callable[[], Any]) -> Any:
    """``build()``, once per process and tournament for ``key``."""
    if key not in _KEPT:
        if len(_KEPT) >= 64:  # play_games called on its own, with many batch sizes
            _KEPT.clear()
        _KEPT[key] = build()
    return _KEPT[key]


def play_deals(
    env_id: str,
    agent_names: Sequence[str],
    labels: Sequence[str],
    options: dict,
    seed: int,
    deals: Sequence[int],
    duplicate: bool,
    table: int,
    role_phase: bool,
    tournament: str = "",
) -> list[GameRecord]:
    """An arena job (:func:`cardenvs.arena.aec.play_deals`'s) on this engine: the games of ``deals`` by
    :func:`play_games`. The agents and envs are built once per process for the tournament ``tournament``
    (an id; another one builds them anew, so a model file written between two tournaments is read again):
    an agent of the batch protocol keeps nothing between calls, so every job shares it (a DMC model is
    loaded, and its move table computed, once rather than per job)."""
    if tournament != _KEPT_FOR[0] or not tournament:
        _KEPT.clear()
        _KEPT_FOR[0] = tournament
    config = json.dumps(options, sort_keys=True, default=str)
    base = _kept(("env", env_id, config), lambda: make(env_id, **options).unwrapped)
    agents = [_kept(("agent", env_id, config, name), partial(load_agent, name, base)) for name in agent_names]
    games = deal_games(base, deals, duplicate, role_phase)
    return play_games(env_id, options, agents, labels, seed, games, table)


class _Rows(Mapping[str, np.ndarray]):
    """Rows ``games`` of the batch's observation buffers, each entry gathered when first read (a Dou Dizhu
    mask row is 28 KB, and a numba policy reads none)."""

    def __init__(self, batch: Mapping[str, np.ndarray], games: np.ndarray):
        self._batch, self._games = batch, games
        self._rows: dict[str, np.ndarray] = {}

    def __getitem__(self, key: str) -> np.ndarray:
        if key not in self._rows:
            self._rows[key] = self._batch[key][self._games]
        return self._rows[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._batch)

    def __len__(self) -> int:
        return len(self._batch)


def play_games(
    env_id: str,
    options: dict,
    agents: Sequence[Any],
    labels: Sequence[str],
    seed: int,
    games: Sequence[Game],
    table: int = 0,
) -> list:
    """The records of ``games`` (in their order) played by ``agents`` (each with ``act_batch``) labelled
    ``labels``; see the module docstring."""
    groups: dict[str, list[int]] = {}
    for i, game in enumerate(games):
        groups.setdefault(repr(sorted(game[3].items())), []).append(i)
    records: list = [None] * len(games)
    for indices in groups.values():
        chosen = [games[i] for i in indices]
        for i, record in zip(indices, _play_batch(env_id, options, agents, labels, seed, chosen, table), strict=True):
            records[i] = record
    return records


def _play_batch(
    env_id: str,
    options: dict,
    agents: Sequence[Any],
    labels: Sequence[str],
    seed: int,
    games: Sequence[Game],
    table: int,
) -> list:
    count = len(games)
    config = json.dumps(options, sort_keys=True, default=str)
    build = partial(VectorEnv, env_id, count, copy=False, autoreset=False, **options)
    env = _kept(("vector", env_id, config, count), build)  # the jobs of a tournament are mostly of one size
    n, num_actions = env.num_players, env.num_actions
    seat_agent = np.array([perm for _, _, perm, _ in games], dtype=np.int64).reshape(count, n)
    deal_seeds = {d: game_seed(seed, d) for d in dict.fromkeys(d for d, *_ in games)}
    batch, info = env.reset(options={"seeds": [deal_seeds[d] for d, *_ in games], **games[0][3]})
    mask, to_move = batch["action_mask"], info["to_move"]  # the env's buffers (copy=False), updated by step

    generators: dict[int, np.random.Generator] = {}

    def generator(g: int) -> np.random.Generator:
        return agent_rng(seed, games[g][0], games[g][1])

    # one call per agent object and step: an agent named in several seats is one object (play_deals)
    players = list({id(agent): agent for agent in agents}.values())
    player_of = np.array([players.index(agent) for agent in agents], dtype=np.int64)  # member -> player
    with_games = [takes_games(player) for player in players]
    total = np.zeros((count, n))  # what each seat collected (play_on's sums)
    pending = np.zeros((count, n))  # rewards since each seat's last move (the AEC env's cumulative rewards)
    steps = np.zeros(count, dtype=np.int64)
    actions = np.zeros(count, dtype=np.int64)
    illegal: dict[int, tuple[str, list[float], Any]] = {}  # game -> (offender, scores, roles) at the move
    spec_roles = spec_of(env_id).roles
    live = np.arange(count)
    running = np.ones(count, dtype=np.bool_)  # the env still steps the game (not ended there)
    orphaned = np.zeros(count, dtype=np.bool_)  # left through an illegal action, still running in the env
    # seats of numba policies (2 + k): they play on inside one kernel call until another agent is to move
    kinds = np.array([agent.kind if isinstance(agent, PolicyAgent) else 0 for agent in agents], dtype=np.int64)
    seat_kinds = kinds[seat_agent]
    fused = bool((seat_kinds >= 2).any())
    while len(live):
        if fused:
            over = env.play_policies(live, seat_kinds, pending, total, steps)
            if len(over):
                running[over] = False
                live = live[~(env.terminated[live] | env.truncated[live])]
                if not len(live):
                    break
        seats = to_move[live]
        movers = player_of[seat_agent[live, seats]]
        total[live, seats] += pending[live, seats]  # the seat to move reads its reward (last()) ...
        pending[live, seats] = 0.0  # ... and its step clears it
        for j, agent in enumerate(players):
            rows = live[movers == j] if len(players) > 1 else live
            if not len(rows):
                continue
            games_of_rows = BatchGames(env, rows, mask) if with_games[j] else None
            rngs = Generators(generator, rows, generators)
            actions[rows] = batch_actions(agent, _Rows(batch, rows), rngs, games_of_rows)
        proposed = actions[live]
        outside = (proposed < 0) | (proposed >= num_actions)
        if outside.any():  # the AEC env refuses these (a ValueError) rather than ending the game
            g = int(live[outside][0])
            raise ValueError(
                f"{env_id}: action {int(actions[g])} of agent {labels[seat_agent[g, to_move[g]]]} is outside the "
                f"action space Discrete({num_actions})"
            )
        legal = mask[live, proposed]
        steps[live] += 1  # an illegal action counts as a step, as in play_on
        for g in live[~legal].tolist():
            illegal[g] = _illegal(env, g, labels[seat_agent[g, to_move[g]]], int(actions[g]), spec_roles)
            seat = int(to_move[g])
            pending[g, seat] = 0.0  # the AEC env's _illegal: the offender's cumulative reward restarts ...
            pending[g] += np.where(np.arange(n) == seat, -1.0, 0.0)  # ... and -1 (0 for the others) is added
            total[g] += pending[g]  # every seat's last read
            orphaned[g] = True
        on = live[legal]
        if illegal:
            orphans = np.flatnonzero(orphaned & running)  # the env plays them on: any legal move, not recorded
            actions[orphans] = mask[orphans].argmax(axis=1)
        _, rewards, terminated, truncated, info = env.step(actions)
        pending[on] += rewards[on]
        ended = terminated | truncated
        running &= ~ended
        done = on[ended[on]]
        total[done] += pending[done]  # every seat's last read at the end
        live = on[~ended[on]]

    outcome = env.outcome()
    final_scores = info["final_scores"]
    finished = np.array([g for g in range(count) if g not in illegal], dtype=np.int64)
    seat0 = env.seat_observations(0, finished) if spec_roles is not None else None
    row_of = {int(g): i for i, g in enumerate(finished)}
    records = []
    for g, (d, k, perm, _) in enumerate(games):
        if g in illegal:
            offender, scores, (roles, values) = illegal[g]
            result = [-1.0 if labels[i] == offender else 0.0 for i in perm]
            cut = False
        else:
            offender, scores = None, final_scores[g].tolist()
            result = outcome[g].tolist()
            roles, values = (None, {})
            if spec_roles is not None and seat0 is not None:
                roles, values = spec_roles.observed_roles(env.layout, seat0[row_of[g]])
            cut = bool(env.truncated[g])
        records.append(
            GameRecord(
                d,
                k,
                table,
                [labels[i] for i in perm],
                scores,
                total[g].tolist(),
                result,
                offender,
                int(steps[g]),
                cut,
                roles,
                values,
            )
        )
    return records


def _illegal(env: VectorEnv, g: int, label: str, action: int, spec_roles: Any) -> tuple[str, list[float], Any]:
    """Game ``g`` ends by ``label``'s illegal ``action``: the warning the AEC env gives, the scores and roles
    as they are before it."""
    game = env.game_env(g)
    seat = game.agent_selection
    legal = ", ".join(f"{a} ({game.action_name(int(a))})" for a in game.legal_actions()[:40])
    warnings.warn(
        f"{env.env_id}: illegal action {action} ({game.action_name(int(action))}) for {seat} ({label}); legal "
        f"actions: {legal}; the game ends with -1 for the offender",
        stacklevel=3,
    )
    roles = spec_roles.game_roles(game) if spec_roles is not None else (None, {})
    return label, game.scores().tolist(), roles
