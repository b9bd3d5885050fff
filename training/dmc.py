"""Deep Monte Carlo (DouZero's DMC) self-play on the numba vector env, top to bottom. Usage::

    python -m cardenvs.training.dmc --config configs/doudizhu_dmc.yaml [--steps N] [--minutes M] [--out DIR]
                           [--seed S] [--resume] [--set key=value ...]
    cardenvs train doudizhu --algo dmc [same flags]

``--steps`` is ``total_frames`` (``--total-frames``, the old spelling) and ``--minutes`` ``minutes``; the
run stops at whichever ends first. The learner trains on whole batches, so a budget that is not a multiple of
``batch_size`` frames (counted from the frames already done) is rounded up to one, and the run says so.

DMC learns ``Q(state, move)``, the expected return of the acting seat after it plays ``move``, by
regressing on Monte Carlo returns: every decision of a finished game is one sample whose target is the
return of the seat that made it from that decision to the end, losses included (``target: win`` -> its
final +1/-1; ``points`` -> the points it still scores; ``margin`` -> those minus the mean of the other
seats', zero-sum and denser than ``win`` in games scored over many hands, such as Twenty; ``horizon`` H
counts only the rewards of the next H steps, a truncated return for games where the rest of a long match
drowns a move's effect in noise). The actors play every seat with the current networks, epsilon-greedily,
except the seats the ``opponent`` draws (``opponent_share``: a numba heuristic, or any agent name, such as
RLCard's rule agent ``rlcard.rule``, played in Python one game at a time; or a mix, ``{name: weight}``, one of
them drawn by weight for each seat, or for each game's untrained roles) and, with ``train_roles``, every
decision of a role this run does not train (a landlord that learns against rule farmers only); ``init_from``
starts the networks from a model (a warm start; :mod:`training.dmc_combine` joins such runs' networks).

1. **Config** (``Args``): YAML, ``--set`` overrides and flags (:mod:`training.config`). The run is
   ``{game}__{exp}__{seed}`` in ``OUT``; ``--resume`` continues its checkpoint and frame count.
2. **Features.** The state is the observation, scaled by its segments' bounds (``features``:
   :class:`StateFeatures`, logarithmic for scores and awards); a segment called
   ``history`` (Dou Dizhu's last 15 moves, ``[15, 54]``) goes through a 1-D convolution first. Moves are
   described by the game's move table (:func:`cardenvs.training.features.move_features`: cards, type, main rank,
   kickers), so alike moves share what is learnt.
3. **Networks**, one per role (:func:`roles_of`): Dou Dizhu has the landlord, the farmer after the
   landlord, the farmer before it, and the bidder; other games one network, seat-relative.
   ``Q = w . relu(A h(state) + B e(move) + c)``: the state part is computed once per decision and the move
   part once per move for all moves (a table refreshed after each update), so scoring the ~30 legal moves
   of a decision costs little more than one forward pass.
4. **Actors**: ``num_envs`` games of :func:`cardenvs.vector.make`, batched inference without gradients,
   a ring of the last steps of every game; when a game ends its decisions get their seats' returns and go
   to the learner's per-role buffers (only finished episodes, each sample used once).
5. **Learner**: Adam on the mean squared error, per role, ``batch_size`` samples per update, gradient
   norm clipped, the step size constant or decaying linearly to 0 over the budget (:func:`learning_rate`).
   Torch uses ``torch_threads`` threads; actors and learner alternate in one process (on two cores that
   measured faster than an actor process feeding a learner process, which copies every batch). With
   ``backend: ray`` (``--ray --actors N``) the actors are ``N`` Ray actors (:func:`ray_actor_class`,
   one CPU each, on any machine of the cluster ``RAY_ADDRESS`` names, or a local Ray when it is unset): the
   learner waits for every actor's first rollout, then learns from whichever actor's samples arrive first
   and hands that actor the newest weights (so a Ray run does not replay exactly). ``device`` puts the
   learner on a GPU (``auto``: CUDA when torch sees one); the actors act on CPU copies of the networks.
6. **Logs**: ``progress.csv`` (frames, frames/s, loss per role), ``actors.json`` (decisions and episodes each
   actor handed out) and TensorBoard; every ``eval_minutes`` a
   checkpoint ``model.pt`` and a duplicate-deal arena evaluation against ``eval_opponent`` to
   ``eval.csv``; the arena plays the checkpoint as ``dmc:OUT/RUN/model.pt`` (:class:`DMCAgent`).

A *frame* is one decision trained on (DouZero's unit): learner frames/s = samples consumed by updates per
second of wall time, actors included.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import math
import os
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import numpy as np
import torch
import yaml
from torch import nn

from cardenvs.agent import BatchGames
from cardenvs.core import seeds
from cardenvs.core.observation import bound_scaling
from cardenvs.opponents import OpponentPool
from cardenvs.registry import spec_of

from .config import add_config_arguments, read_config

TARGETS = ("win", "points", "margin")
BACKENDS = ("local", "ray")
NETWORKS = "<networks>"  # the opponent pool's entry for seats the Q networks play
OPPONENT = 0  # the pool's index of the opponent (its first entry; a mix's first name)
LR_SCHEDULES = ("constant", "linear")


@dataclass
class Args:
    game: str = ""  # env id or short name (required: a config's game, --set game=..., or cardenvs train GAME)
    exp: str = "dmc"  # experiment name, part of the run name
    seed: int = 1
    options: dict = field(default_factory=dict)  # env options (the game variant); reward is set by target
    target: str = "win"  # the acting seat's return: "win" (+1/-1 per side), "points", "margin" (see EpisodeRing)
    target_scale: float = 1.0  # targets are divided by this (points can be large)
    horizon: int = 0  # points / margin: count the rewards of this many steps from each decision (0: to the end)
    total_frames: int = 100_000_000  # stop after this many learner frames ...
    minutes: float | None = None  # ... or this many minutes of wall time
    num_envs: int = 256  # games the actor steps together
    rollout_steps: int = 16  # actor steps (of every game) between learner phases
    batch_size: int = 1024  # samples per update (per role)
    learning_rate: float = 3e-4
    lr_schedule: str = "constant"  # "linear": decay to 0 over the budget (the larger of frames and minutes done)
    max_grad_norm: float = 40.0
    epsilon: float = 0.01  # actors' exploration: a uniformly random legal move with this probability
    opponent: str | dict | None = None  # an agent that plays some seats of the actors' games: a numba policy
    # ("doudizhu.rule", stepped in numba) or any other agent name ("rlcard.rule", in Python, one game at a time),
    # or a mix {name: weight, ...}: each episode draws one by weight for each opponent seat, and one for every
    # untrained role of the game (the farmers of a landlord run are both RLCard's or both ours)
    opponent_share: float = 0.0  # its weight in the opponent pool (the networks': 1 - share): each seat of each
    # episode is the opponent with this probability (not all seats: a network plays at least one)
    train_roles: list | None = None  # networks trained (role names, e.g. [landlord]); the opponent plays every
    # decision of the other roles, and only the listed networks learn (None: every network)
    init_from: str | None = None  # a model.pt whose networks start this run (fresh optimizer and frame count)
    hidden: list = field(default_factory=lambda: [256, 256])  # the state MLP
    move_hidden: int = 128  # the move MLP
    head_hidden: int = 256  # the joint layer
    history_channels: int = 64  # 1-D conv channels over the history segment (0: feed it flat)
    history_kernel: int = 3  # moves per conv window (kernel = stride)
    features: str = "scaled"  # the state input: "scaled" (log for large bounds) or "bounds" (StateFeatures)
    torch_threads: int = 1
    backend: str = "local"  # "local": actors and learner alternate in this process; "ray": actors are Ray actors
    actors: int = 2  # backend ray: how many Ray actors, each playing num_envs games (any number of machines)
    device: str = "cpu"  # the learner's torch device: "cpu", "cuda", "cuda:N" or "auto" (cuda when available)
    eval_minutes: float = 10.0  # minutes between checkpoints + arena evaluations (0: only at the end)
    eval_games: int = 100  # duplicate deals per evaluation
    final_eval_games: int = 500  # duplicate deals of the final evaluation (0: none)
    eval_opponent: str = "random"  # fills every other seat in evaluations
    eval_options: dict = field(default_factory=dict)  # env options of the evaluations (e.g. bidding: false)
    out: str = "runs"
    resume: bool = False

    @property
    def run_name(self) -> str:
        from cardenvs import resolve_id

        return f"{resolve_id(self.game).rsplit('_v', 1)[0]}__{self.exp}__{self.seed}"


def env_reward(target: str) -> str:
    """The env's ``reward`` option that gives a target's rewards."""
    return "win" if target == "win" else "points"


def parse_args(argv: Sequence[str] | None) -> Args:
    parser = argparse.ArgumentParser(description="Deep Monte Carlo self-play on a cardenvs game.")
    add_config_arguments(
        parser,
        "configs/<game>_dmc.yaml",
        steps_key="total_frames",
        steps_help="stop after N learner frames, the moves trained on (config total_frames; --total-frames is the "
        "old spelling)",
        minutes_key="minutes",
        aliases={"steps": ["--total-frames"]},
    )
    parser.add_argument("--num-envs", type=int)
    parser.add_argument("--eval-games", type=int)
    parser.add_argument("--final-eval-games", type=int)
    parser.add_argument("--resume", action="store_true", default=None, help="continue OUT/RUN/model.pt")
    # not --backend: cardenvs train's --backend picks the trainer
    parser.add_argument("--ray", dest="backend", action="store_const", const="ray", help="backend: ray (Ray actors)")
    parser.add_argument("--actors", type=int, help="Ray actors with --ray (config actors)")
    parser.add_argument("--device", help="the learner's device: cpu, cuda, cuda:N or auto (config device)")
    ns = parser.parse_args(argv)
    flags: tuple[str, ...] = ("total_frames", "minutes", "out", "seed", "num_envs", "eval_games", "final_eval_games")
    flags += ("resume", "backend", "actors", "device")
    values = read_config(parser, ns, Args, flags)
    for key in ("options", "eval_options"):
        if not isinstance(values.get(key, {}), dict):
            parser.error(f"config key {key} must be a mapping (or {{}} for none)")
    if values.get("target", "win") not in TARGETS:
        parser.error(f"target {values['target']!r}: expected one of {', '.join(TARGETS)}")
    if values.get("horizon", 0) and (not isinstance(values["horizon"], int) or values["horizon"] < 0):
        parser.error(f"horizon={values['horizon']!r}: expected an integer >= 0 (0: to the end of the episode)")
    if values.get("horizon", 0) and values.get("target", "win") == "win":
        parser.error("horizon needs target points or margin (the win target is one reward at the end)")
    if values.get("lr_schedule", "constant") not in LR_SCHEDULES:
        parser.error(f"lr_schedule {values['lr_schedule']!r}: expected one of {', '.join(LR_SCHEDULES)}")
    if values.get("features", "scaled") not in FEATURES:
        parser.error(f"features {values['features']!r}: expected one of {', '.join(FEATURES)}")
    if values.get("backend", "local") not in BACKENDS:
        parser.error(f"backend {values['backend']!r}: expected one of {', '.join(BACKENDS)}")
    device = values.get("device", "cpu")
    if not isinstance(device, str) or not (device in ("cpu", "auto", "cuda") or device.startswith("cuda:")):
        parser.error(f"device {device!r}: expected cpu, cuda, cuda:N or auto")
    for key in ("num_envs", "rollout_steps", "batch_size", "torch_threads", "actors"):
        if key in values and (not isinstance(values[key], int) or values[key] < 1):
            parser.error(f"{key}={values[key]!r}: expected an integer >= 1")
    for key in ("epsilon", "opponent_share"):
        if key in values and not (isinstance(values[key], (int, float)) and 0 <= values[key] <= 1):
            parser.error(f"{key}={values[key]!r}: expected a probability in [0, 1]")
    if values.get("opponent") is not None:
        try:
            opponent_weights(values["opponent"])
        except ValueError as exc:
            parser.error(str(exc))
    if values.get("opponent_share", 0) > 0 and not values.get("opponent"):
        parser.error("opponent_share > 0 needs an opponent (an agent of the game: cardenvs list shows them)")
    args = Args(**values)
    from cardenvs import make, resolve_id, vector

    if not args.game:
        parser.error("no game: name one with a config's game, --set game=NAME, or cardenvs train GAME")
    try:
        args.game = resolve_id(str(args.game))
        make(args.game, **{**args.options, "reward": env_reward(args.target)})
        make(args.game, **{**args.options, **args.eval_options})
        if args.opponent:
            probe = vector.make(args.game, 1, **{**args.options, "reward": env_reward(args.target)})
            probe.reset(seed=0)
            for name in opponent_weights(args.opponent):
                probe.agent_actions(name)
    except ValueError as exc:
        parser.error(f"game {args.game!r} with options {args.options}: {exc}")
    if args.train_roles is not None:
        names = role_names(args.game)
        if not isinstance(args.train_roles, list) or not args.train_roles:
            parser.error(f"train_roles={args.train_roles!r}: expected a list of roles among {', '.join(names)}")
        unknown = [r for r in args.train_roles if r not in names]
        if unknown:
            parser.error(f"train_roles: unknown role {unknown[0]!r} of {args.game} (its roles: {', '.join(names)})")
        if not args.opponent:
            parser.error("train_roles needs an opponent to play the other roles (an agent of the game)")
    if args.init_from is not None and args.resume:
        parser.error("init_from starts a new run from a model; --resume continues this run's own: pass one")
    return args


def opponent_weights(opponent: str | dict) -> dict[str, float]:
    """``opponent`` (a name, or a mix ``{name: weight}``) as names and weights; a ValueError names what is wrong."""
    if isinstance(opponent, str):
        return {opponent: 1.0}
    if not isinstance(opponent, dict) or not opponent:
        raise ValueError(f"opponent {opponent!r}: expected an agent name or a mapping {{name: weight}}")
    for name, weight in opponent.items():
        if not isinstance(name, str):
            raise ValueError(f"opponent mix: {name!r} is not an agent name")
        if isinstance(weight, bool) or not isinstance(weight, (int, float)) or weight < 0:
            raise ValueError(f"opponent mix: weight {weight!r} of {name!r} must be a number >= 0")
    if sum(opponent.values()) <= 0:
        raise ValueError(f"opponent mix {opponent!r}: no positive weight")
    return {name: float(weight) for name, weight in opponent.items()}


def trained_roles(args: Args) -> np.ndarray:
    """A bool per network of :func:`role_names`: whether this run trains it (``train_roles``)."""
    names = role_names(args.game)
    wanted = names if args.train_roles is None else args.train_roles
    return np.array([name in wanted for name in names])


# ---------------------------------------------------------------- 2. features and roles
FEATURES = ("scaled", "bounds")


class StateFeatures:
    """Raw observation rows -> the networks' float32 input, scaled as
    :func:`cardenvs.core.observation.bound_scaling` defines it (``scaled``: every segment divided by its
    bound, bounds above 100 -- scores, awards -- logarithmic); ``bounds`` divides by the bound only
    (checkpoints from before ``features`` existed: a Twenty score of 80 was 80 / 1e6, invisible to the
    network)."""

    def __init__(self, layout, kind: str):
        if kind not in FEATURES:
            raise ValueError(f"features {kind!r}: expected one of {', '.join(FEATURES)}")
        big, divisor = bound_scaling(layout.high, logarithmic=kind == "scaled")  # the core's one definition
        self.big = torch.as_tensor(big) if big.any() else None
        self.div = torch.as_tensor(1.0 / divisor, dtype=torch.float32)

    def __call__(self, raw: np.ndarray | torch.Tensor) -> torch.Tensor:
        x = torch.as_tensor(raw, dtype=torch.float32)
        if self.big is not None:
            x = torch.where(self.big, torch.log1p(x.clamp(min=0.0)), x)
        return x * self.div


def role_names(game: str) -> list[str]:
    """The networks of a game: one per part a learner plays where the game declares roles (its spec's
    ``roles.learner_names``, e.g. Dou Dizhu's landlord, the two farmers and the bidder), else one."""
    roles = spec_of(game).roles
    return list(roles.learner_names) if roles else ["player"]


def roles_of(game: str, layout, obs: np.ndarray) -> np.ndarray:
    """The network each decision uses (see :func:`role_names`), from the observations ``[N, D]``."""
    roles = spec_of(game).roles
    if roles is None:
        return np.zeros(len(obs), dtype=np.int64)
    return np.asarray(roles.learner_roles(layout, obs), dtype=np.int64)


# ---------------------------------------------------------------- 3. the Q network of one role
class QNet(nn.Module):
    """``Q(s, m) = w . relu(A h(s) + B e(m) + c) + d`` with ``h`` the state MLP (a 1-D conv over the history
    segment, if any) and ``e`` the move MLP over the move table's features."""

    # for the type checker: the buffers (torch types a module's attributes as Tensor | Module), and the history
    # segment's (start, stop, windows, window) or None
    rest_index: torch.Tensor
    moves: torch.Tensor
    history: tuple[int, int, int, int] | None

    def __init__(self, layout, move_table: np.ndarray, args: Args):
        super().__init__()
        size = layout.size
        history = layout.slices.get("history") if "history" in layout else None
        if history is not None and args.history_channels > 0:
            seg = next(s for s in layout.segments if s.name == "history")
            steps, width = seg.shape
            kernel = args.history_kernel
            if steps % kernel:
                raise ValueError(f"history_kernel={kernel} must divide the history's {steps} moves")
            rest = np.setdiff1d(np.arange(size), np.arange(history.start, history.stop))
            self.register_buffer("rest_index", torch.as_tensor(rest), persistent=False)
            self.history = (history.start, history.stop, steps // kernel, kernel * width)
            # a 1-D convolution over the moves with kernel = stride = history_kernel (Dou Dizhu: 3 moves, one
            # round of the table), written as one Linear over each window: on CPU it costs a fifth of Conv1d
            self.conv: nn.Module | None = nn.Sequential(nn.Linear(kernel * width, args.history_channels), nn.ReLU())
            state_in = len(rest) + steps // kernel * args.history_channels
        else:
            self.conv, self.history = None, None
            state_in = size
        layers: list[nn.Module] = []
        for width_out in args.hidden:
            layers += [nn.Linear(state_in, width_out), nn.ReLU()]
            state_in = width_out
        self.state_mlp = nn.Sequential(*layers)
        self.register_buffer("moves", torch.as_tensor(move_table, dtype=torch.float32), persistent=False)
        self.move_mlp = nn.Sequential(nn.Linear(move_table.shape[1], args.move_hidden), nn.ReLU())
        self.state_proj = nn.Linear(state_in, args.head_hidden)
        self.move_proj = nn.Linear(args.move_hidden, args.head_hidden, bias=False)
        self.out = nn.Linear(args.head_hidden, 1)
        self._table: torch.Tensor | None = None  # move_proj(move_mlp(every move)), cached without gradients

    def state_part(self, x: torch.Tensor) -> torch.Tensor:
        if self.conv is not None and self.history is not None:
            start, stop, windows, window = self.history
            seq = x[:, start:stop].reshape(-1, windows, window)
            x = torch.cat([x.index_select(1, self.rest_index), self.conv(seq).flatten(1)], dim=1)
        return self.state_proj(self.state_mlp(x))

    def move_part(self, actions: torch.Tensor) -> torch.Tensor:
        return self.move_proj(self.move_mlp(self.moves[actions]))

    def forward(self, x: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
        """Q of one move per state (training)."""
        return self.out(torch.relu(self.state_part(x) + self.move_part(actions))).squeeze(1)

    @torch.no_grad()
    def move_table(self) -> torch.Tensor:
        if self._table is None:
            self._table = self.move_proj(self.move_mlp(self.moves))
        return self._table

    def invalidate(self) -> None:
        self._table = None

    @torch.no_grad()
    def q_pairs(self, x: torch.Tensor, rows: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
        """Q of the pairs (state ``rows[i]`` of ``x``, move ``actions[i]``), without gradients (acting)."""
        h = self.state_part(x)
        return self.out(torch.relu(h[rows] + self.move_table()[actions])).squeeze(1)


def build_nets(game: str, layout, args: Args) -> nn.ModuleList:
    from .features import move_features

    table = move_features(game)
    return nn.ModuleList([QNet(layout, table, args) for _ in role_names(game)])


def choose(
    nets: nn.ModuleList,
    x: torch.Tensor,
    roles: np.ndarray,
    ids: np.ndarray,
    counts: np.ndarray,
    epsilon: float,
    rng: np.random.Generator,
) -> np.ndarray:
    """The greedy move of each state (ties: the lowest id) among its legal ids (``ids[i, :counts[i]]``),
    or with probability ``epsilon`` a uniformly random legal one."""
    n, width = ids.shape
    chosen = np.empty(n, dtype=np.int64)
    valid = np.arange(width)[None, :] < counts[:, None]
    for role in np.unique(roles):
        sel = np.flatnonzero(roles == role)
        sub_valid = valid[sel]
        rows_local, cols = np.nonzero(sub_valid)
        q = nets[role].q_pairs(
            x[torch.as_tensor(sel)], torch.as_tensor(rows_local), torch.as_tensor(ids[sel][rows_local, cols])
        )
        grid = torch.full((len(sel), width), -math.inf)
        grid[torch.as_tensor(rows_local), torch.as_tensor(cols)] = q
        best_col = grid.argmax(dim=1).numpy()
        chosen[sel] = ids[sel, best_col]
    if epsilon > 0:
        explore = rng.random(int(n)) < epsilon
        if explore.any():
            k = np.flatnonzero(explore)
            cols = (rng.random(len(k)) * counts[k]).astype(np.int64)
            chosen[k] = ids[k, cols]
    return chosen


# ---------------------------------------------------------------- 4. actors: finished episodes -> samples
class EpisodeRing:
    """The last ``capacity`` steps of every game; an episode's decisions leave it, with their targets, when
    the episode ends. A decision's target is its seat's return from that decision to the end of the
    episode (:func:`episode_targets`): the final result on the win scale, the points still to come with
    ``points``, and with ``margin`` the points still to come minus the mean of the other seats'; with
    ``horizon`` H > 0 only the rewards of the H steps from the decision count (a truncated return)."""

    def __init__(
        self,
        num_envs: int,
        obs_size: int,
        num_players: int,
        capacity: int = 256,
        margin: bool = False,
        horizon: int = 0,
    ):
        self.capacity, self.margin, self.horizon = capacity, margin, horizon
        self.obs = np.zeros((capacity, num_envs, obs_size), dtype=np.int8)
        self.action = np.zeros((capacity, num_envs), dtype=np.int64)
        self.seat = np.zeros((capacity, num_envs), dtype=np.int64)
        self.role = np.zeros((capacity, num_envs), dtype=np.int64)
        self.rewards = np.zeros((capacity, num_envs, num_players))
        self.start = np.zeros(num_envs, dtype=np.int64)
        self.t = 0

    def _grow(self) -> None:
        """Double the ring, keeping every step of the episodes still running (long games: Two Way Street
        plays to a target score, several hundred steps)."""
        old, first = self.capacity, int(self.start.min())
        self.capacity = 2 * old
        for name in ("obs", "action", "seat", "role", "rewards"):
            before = getattr(self, name)
            after = np.zeros((self.capacity, *before.shape[1:]), dtype=before.dtype)
            steps = np.arange(first, self.t)
            after[steps % self.capacity] = before[steps % old]
            setattr(self, name, after)

    def add(self, obs: np.ndarray, action: np.ndarray, seat: np.ndarray, role: np.ndarray) -> None:
        if self.t - int(self.start.min()) + 1 > self.capacity:
            self._grow()
        i = self.t % self.capacity
        self.obs[i] = obs
        self.action[i], self.seat[i], self.role[i] = action, seat, role

    def finish_step(self, rewards: np.ndarray, done: np.ndarray) -> list[tuple[np.ndarray, ...]]:
        """Add the step's rewards; for each game that ended, its decisions as (obs, action, role, target)."""
        self.rewards[self.t % self.capacity] = rewards
        out: list[tuple[np.ndarray, ...]] = []
        for b in np.flatnonzero(done):
            steps = np.arange(self.start[b], self.t + 1) % self.capacity
            targets = episode_targets(self.rewards[steps, b], self.seat[steps, b], self.margin, self.horizon)
            out.append((self.obs[steps, b], self.action[steps, b], self.role[steps, b], targets))
            self.start[b] = self.t + 1
        self.t += 1
        return out


def episode_targets(
    rewards: Sequence[np.ndarray] | np.ndarray, seats: Sequence[int], margin: bool = False, horizon: int = 0
):
    """Each decision's DMC target, as a plain statement (:class:`EpisodeRing` uses it; tests compare with
    it): ``rewards[t]`` is every seat's reward after step ``t`` and ``seats[t]`` the seat that acted at
    ``t``; the target of step ``t`` is ``sum(rewards[t:])[seats[t]]``, that seat's return from its decision
    to the end (with ``margin``, minus the mean of the other seats' returns). With ``horizon`` H > 0 only
    the rewards of steps ``t .. t + H - 1`` count (a truncated return: less noise from far-off play, blind
    beyond H)."""
    r = np.asarray(rewards, dtype=np.float64)
    to_go = np.cumsum(r[::-1], axis=0)[::-1]  # to_go[t] = sum of rewards[t:]
    if horizon > 0:
        later = np.zeros_like(to_go)
        later[: max(len(r) - horizon, 0)] = to_go[horizon:]
        to_go = to_go - later  # sum of rewards[t : t + horizon]
    if margin and r.shape[1] > 1:
        to_go = to_go - (to_go.sum(axis=1, keepdims=True) - to_go) / (r.shape[1] - 1)
    return to_go[np.arange(len(r)), np.asarray(seats)]


class Actors:
    """``num_envs`` games played by the networks given to :meth:`collect` (epsilon-greedily) and by the opponent
    pool's heuristic in the seats it draws: each call plays ``rollout_steps`` steps of every game and returns
    the decisions of the episodes that ended, per role, as ``(obs, actions, targets)`` arrays. ``rng`` draws
    the exploration and the opponent seats; ``deal_seed`` resets the vector env. The local backend runs one
    in the learner's process (sharing its ``rng``), the Ray backend one per Ray actor (:func:`ray_actor_class`)."""

    def __init__(self, args: Args, rng: np.random.Generator, deal_seed: int):
        from cardenvs import vector

        self.args, self.rng = args, rng
        # the learner's target is the env's reward (win scale or points); the episode ring copies what it
        # keeps, so the env may hand out its buffers
        reward = env_reward(args.target)
        self.env = vector.make(args.game, args.num_envs, copy=False, **{**args.options, "reward": reward})
        self.layout = self.env.layout
        self.features = StateFeatures(self.layout, args.features)
        self.obs, self.info = self.env.reset(seed=deal_seed)
        n = self.env.num_players
        self.ring = EpisodeRing(
            args.num_envs, self.layout.size, n, margin=args.target == "margin", horizon=args.horizon
        )
        # who plays each seat of each game's episode, drawn from the one opponent pool (cardenvs.opponents) and
        # redrawn when the game ends: the opponents with weight opponent_share (shared by a mix's weights), the
        # networks with the rest; the untrained roles of a game are played by one opponent, drawn from the mix
        # alone (its entries come first in the pool, so both draw the same indices)
        share = args.opponent_share
        self.pool = self.mix = None
        if args.opponent:
            mix = opponent_weights(args.opponent)
            total = sum(mix.values())
            self.pool = OpponentPool({**{k: share * w / total for k, w in mix.items()}, NETWORKS: 1 - share})
            self.mix = OpponentPool(mix)
            assert self.pool.opponents[: len(self.mix)] == self.mix.opponents
        self.networks = len(self.pool) - 1 if self.pool else 0  # the networks' entry in the pool
        self.seat_entry = np.full((args.num_envs, n), self.networks)
        self.game_opponent = np.full(args.num_envs, OPPONENT)  # the pool entry playing the untrained roles
        self.draw_opponent_seats(np.arange(args.num_envs))
        self.roles = len(role_names(args.game))
        self.trained = trained_roles(args)  # decisions of the other roles: always the opponent, never learnt
        self.episodes, self.decisions = 0, 0  # finished episodes and their decisions handed out

    def draw_opponent_seats(self, games: np.ndarray) -> None:
        if self.pool is None or self.mix is None or len(games) == 0:
            return
        if len(self.mix) > 1:  # one opponent: no draw (the generator's stream as before mixes)
            self.game_opponent[games] = self.mix.draw(self.rng, len(games))
        if self.args.opponent_share <= 0:
            return
        n = self.env.num_players
        drawn = self.pool.draw(self.rng, (len(games), n))
        full = np.flatnonzero((drawn != self.networks).all(axis=1))
        drawn[full, self.rng.integers(n, size=len(full))] = self.networks  # a network plays at least one seat
        self.seat_entry[games] = drawn

    def collect(self, nets: nn.ModuleList) -> list[list[tuple[np.ndarray, np.ndarray, np.ndarray]]]:
        """``rollout_steps`` steps of every game with ``nets`` (CPU, eval mode); the finished episodes'
        decisions per role."""
        args, env = self.args, self.env
        samples: list[list[tuple[np.ndarray, np.ndarray, np.ndarray]]] = [[] for _ in range(self.roles)]
        everyone = np.arange(args.num_envs)
        for _ in range(args.rollout_steps):
            raw = self.obs["observation"]
            roles = roles_of(args.game, self.layout, raw)
            ids, counts = env.legal_ids()
            actions = np.empty(args.num_envs, dtype=np.int64)
            entry = self.seat_entry[everyone, self.info["to_move"]]
            untrained = ~self.trained[roles]
            if untrained.any():  # the opponent plays every decision of a role this run does not train
                entry = np.where(untrained, self.game_opponent, entry)
            scripted = entry != self.networks
            for index in np.unique(entry[scripted]):
                assert self.pool is not None
                rows = np.flatnonzero(entry == index)
                actions[rows] = env.agent_actions(self.pool.opponents[index], rows)
            net_rows = np.flatnonzero(~scripted)
            x = self.features(raw[net_rows])
            actions[net_rows] = choose(
                nets, x, roles[net_rows], ids[net_rows], counts[net_rows], args.epsilon, self.rng
            )
            self.ring.add(raw, actions, self.info["to_move"], roles)
            self.obs, rewards, terminated, truncated, self.info = env.step(actions)
            self.draw_opponent_seats(np.flatnonzero(terminated | truncated))
            for ep_obs, ep_actions, ep_roles, ep_targets in self.ring.finish_step(rewards, terminated | truncated):
                self.episodes += 1
                self.decisions += len(ep_actions)
                for role in np.unique(ep_roles[self.trained[ep_roles]]):
                    sel = ep_roles == role
                    samples[role].append((ep_obs[sel], ep_actions[sel], ep_targets[sel] / args.target_scale))
        return samples


def ray_actor_class():
    """The Ray actor class of the ``ray`` backend: an :class:`Actors` with its own CPU copy of the networks,
    which takes the learner's newest weights with each :meth:`collect` call (a Ray object ref, or None
    when it has them). Actor ``i`` of a run draws from stream ``(frames, i, 0)`` of ``dmc_actors`` and deals
    from seed ``(frames, i, 1)`` of it (``frames`` done when the run started or resumed)."""
    import ray

    @ray.remote(num_cpus=1)
    class RayActor:
        def __init__(self, values: dict[str, Any], index: int, frames: int):
            torch.set_num_threads(1)
            self.args = Args(**values)
            rng = seeds.generator(self.args.seed, frames, index, 0, stream="dmc_actors")
            deal_seed = seeds.seed_from(self.args.seed, frames, index, 1, stream="dmc_actors")
            self.actors = Actors(self.args, rng, deal_seed)
            self.nets = build_nets(self.args.game, self.actors.layout, self.args)
            self.nets.eval()

        def collect(self, weights: dict[str, torch.Tensor] | None):
            if weights is not None:
                self.nets.load_state_dict(weights)
                for net in self.nets:
                    cast(QNet, net).invalidate()
            samples = self.actors.collect(self.nets)
            return samples, self.actors.episodes, self.actors.decisions

    return RayActor


def resolve_device(name: str) -> torch.device:
    """``auto``: the first GPU when torch sees one, else the CPU; otherwise the device named."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    device = torch.device(name)
    if device.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device {name!r}: torch sees no GPU (use device: auto or cpu)")
    return device


# ---------------------------------------------------------------- 6. checkpoints and the arena agent
def save_checkpoint(path: Path, nets: nn.ModuleList, optimizers: list, args: Args, frames: int, minutes: float):
    """``model.pt`` (what the arena loads: the networks in float16, the config, the frame count) and, beside
    it, ``optimizer.pt`` (what ``--resume`` adds: full-precision weights and Adam's state)."""
    full = {"nets": nets.state_dict(), "optimizers": [o.state_dict() for o in optimizers]}
    half = {k: v.half() if v.is_floating_point() else v for k, v in nets.state_dict().items()}
    model = {
        "format": "cardenvs-dmc-1",
        "game": args.game,
        "args": dataclasses.asdict(args),
        "nets": half,
        "frames": frames,
        "minutes": minutes,
    }
    for target, data in ((path.with_name("optimizer.pt"), full), (path, model)):
        tmp = target.with_suffix(".tmp")
        torch.save(data, tmp)
        tmp.replace(target)


def load_checkpoint(path: str | Path) -> dict:
    p = Path(path)
    if p.is_dir():
        p = p / "model.pt"
    if not p.is_file():
        raise ValueError(f"no DMC checkpoint at {path} (expected model.pt written by training.dmc)")
    try:
        data = torch.load(p, map_location="cpu", weights_only=False)
    except Exception as exc:  # a truncated or foreign file: say which
        raise ValueError(f"{p} is not a readable DMC checkpoint: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != "cardenvs-dmc-1":
        raise ValueError(f"{p} is not a DMC checkpoint of training.dmc (format cardenvs-dmc-1)")
    return data


def trained_features(data: dict) -> str:
    """The input features a checkpoint's networks were trained with (``bounds`` for checkpoints saved before
    ``features`` existed)."""
    return data["args"].get("features", "bounds")


class DMCAgent:
    """``dmc:PATH``: the greedy move of a DMC checkpoint (``model.pt`` or its folder), through the public
    env API (the observation dict and the env's layout). The env must be the game it was trained on, with
    the same observation size."""

    def __init__(self, env: Any, path: str):
        data = load_checkpoint(path)
        base = env.unwrapped
        game = base.metadata["name"]
        if data["game"] != game:
            raise ValueError(f"dmc:{path} was trained on {data['game']}, not {game}")
        fields = {f.name for f in dataclasses.fields(Args)}
        known = {k: v for k, v in data["args"].items() if k in fields}
        self.args = Args(**{**known, "features": trained_features(data)})
        self.layout = base.layout
        self.nets = build_nets(game, self.layout, self.args)
        try:
            self.nets.load_state_dict({k: v.float() for k, v in data["nets"].items()})
        except RuntimeError as exc:
            raise ValueError(f"dmc:{path} does not fit this env's observation layout: {exc}") from None
        self.nets.eval()
        self.features = StateFeatures(self.layout, self.args.features)
        self.game = game
        self.name = f"dmc:{path}"

    def act(self, observation: dict[str, np.ndarray], rng: np.random.Generator) -> int:
        obs = np.asarray(observation["observation"])[None, :]
        legal = np.flatnonzero(np.asarray(observation["action_mask"]).view(np.bool_))
        if len(legal) == 0:
            raise ValueError("dmc agent asked to act with an empty action mask")
        x = self.features(obs)
        roles = roles_of(self.game, self.layout, obs)
        return int(choose(self.nets, x, roles, legal[None, :], np.array([len(legal)]), 0.0, rng)[0])

    def act_batch(
        self,
        observations: Mapping[str, np.ndarray],
        rngs: Sequence[np.random.Generator],
        games: BatchGames | None = None,
    ) -> np.ndarray:
        """:meth:`act` on ``k`` rows (the batch protocol of :mod:`cardenvs.agent`): one forward per role's
        network for all of them; the greedy move draws nothing from ``rngs``. The legal ids come from the
        vector env's lists when ``games`` is given, else from the masks."""
        obs = np.asarray(observations["observation"])
        if games is not None:
            ids, counts = games.legal_ids()  # ascending, as act lists them; padded with -1 past the count
        else:
            masks = np.asarray(observations["action_mask"]).view(np.bool_)
            counts = masks.sum(axis=1)
            rows, legal = np.nonzero(masks)  # row by row, ascending ids: each row's legal ids as act lists them
            ids = np.zeros((len(counts), max(1, int(counts.max(initial=0)))), dtype=np.int64)
            ids[rows, np.arange(len(rows)) - np.repeat(np.cumsum(counts) - counts, counts)] = legal
        if len(counts) and counts.min() == 0:
            raise ValueError("dmc agent asked to act with an empty action mask")
        x = self.features(obs)
        roles = roles_of(self.game, self.layout, obs)
        return choose(self.nets, x, roles, ids, counts, 0.0, None)  # type: ignore[arg-type]  # epsilon 0: no draws

    @torch.no_grad()
    def action_values(self, observations: np.ndarray, ids: np.ndarray, counts: np.ndarray) -> np.ndarray:
        """Q of each row's legal ids ``ids[i, :counts[i]]`` (``[k, W]`` float64, ``-inf`` past the count): the
        network's estimate of the acting seat's return after each move, on its training target's scale (the
        win scale with ``target: win``, divided by ``target_scale``). What a search scores positions with
        (``GAME.pimc(leaf=dmc)``, :mod:`cardenvs.search`); the greedy move is the row's first maximum."""
        obs = np.asarray(observations)
        ids = np.asarray(ids, dtype=np.int64)
        counts = np.asarray(counts, dtype=np.int64)
        out = np.full(ids.shape, -np.inf)
        if len(obs) == 0:
            return out
        x = self.features(obs)
        roles = roles_of(self.game, self.layout, obs)
        valid = np.arange(ids.shape[1])[None, :] < counts[:, None]
        for role in np.unique(roles):
            sel = np.flatnonzero(roles == role)
            rows, cols = np.nonzero(valid[sel])
            q = self.nets[role].q_pairs(
                x[torch.as_tensor(sel)], torch.as_tensor(rows), torch.as_tensor(ids[sel][rows, cols])
            )
            out[sel[rows], cols] = q.numpy()
        return out


def evaluate(path: Path, args: Args, games: int, seed: int) -> dict[str, Any]:
    """The checkpoint against ``eval_opponent`` in every other seat, over the arena's duplicate deals."""
    from cardenvs import arena, make

    options = {**args.options, **args.eval_options}
    n = make(args.game, **options).unwrapped.num_players
    agents = [f"dmc:{path}"] + [args.eval_opponent] * (n - 1)
    results = arena.run_tournament(args.game, agents, games, seed=seed, options=options, duplicate=True)
    label = results.agents[0]
    st = results.stats()[label]
    out = {
        "win_rate": st["win_rate"],
        "win_rate_lo": st["win_rate_ci"][0],
        "win_rate_hi": st["win_rate_ci"][1],
        "mean_score": st["mean_score"],
        "games": st["games"],
    }
    if results.has_roles():
        roles = results.role_stats()[label]
        for key, value in roles.items():
            if isinstance(value, (int, float)):
                out[f"role_{key}"] = value
            elif isinstance(value, (list, tuple)) and len(value) == 2:
                out[f"role_{key}_lo"], out[f"role_{key}_hi"] = value
    return out


def learning_rate(args: Args, frames: int, minutes: float) -> float:
    """The learner's step size after ``frames`` frames and ``minutes`` minutes: ``learning_rate``, or with
    ``lr_schedule: linear`` that times the budget left, the smaller of the frames and minutes left (CleanRL's
    annealing; a resumed run picks up where its schedule was)."""
    if args.lr_schedule == "constant":
        return args.learning_rate
    done = frames / args.total_frames
    if args.minutes:
        done = max(done, minutes / args.minutes)
    return args.learning_rate * max(0.0, 1.0 - done)


# ---------------------------------------------------------------- the run
def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    from cardenvs import make

    # 1. seeding and the run folder
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.torch_threads)
    try:
        device = resolve_device(args.device)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    run_dir = Path(args.out) / args.run_name
    run_dir.mkdir(parents=True, exist_ok=True)
    checkpoint = run_dir / "model.pt"
    if checkpoint.exists() and not args.resume:
        print(f"error: {checkpoint} exists; pass --resume to continue it or --out elsewhere", file=sys.stderr)
        return 2
    (run_dir / "config.yaml").write_text(yaml.safe_dump(dataclasses.asdict(args), sort_keys=False))
    print(f"run {args.run_name} -> {run_dir} (backend {args.backend}, learner on {device})", flush=True)
    layout = make(args.game, **{**args.options, "reward": env_reward(args.target)}).unwrapped.layout

    # 3. networks and optimizers (on the learner's device), maybe resumed
    nets = build_nets(args.game, layout, args).to(device).eval()
    optimizers = [torch.optim.Adam(net.parameters(), lr=args.learning_rate) for net in nets]
    frames, minutes_before = 0, 0.0
    if args.resume and checkpoint.exists():
        data = load_checkpoint(checkpoint)
        trained_on = trained_features(data)
        if trained_on != args.features:
            print(f"error: {checkpoint} was trained with features={trained_on}; pass --set features={trained_on}",
                  file=sys.stderr)  # fmt: skip
            return 2
        full = torch.load(checkpoint.with_name("optimizer.pt"), map_location=device, weights_only=False)
        nets.load_state_dict(full["nets"])
        for opt, state in zip(optimizers, full["optimizers"], strict=True):
            opt.load_state_dict(state)
        frames, minutes_before = int(data["frames"]), float(data["minutes"])
        print(f"resumed at {frames:,} frames ({minutes_before:.1f} min)", flush=True)
    if args.init_from is not None:  # a new run that starts from a model's networks (a warm start)
        try:
            data = load_checkpoint(args.init_from)
            if data["game"] != args.game:
                raise ValueError(f"{args.init_from} was trained on {data['game']}, not {args.game}")
            trained_on = trained_features(data)
            if trained_on != args.features:
                raise ValueError(f"{args.init_from} was trained with features={trained_on}: set features={trained_on}")
            nets.load_state_dict({k: v.float() for k, v in data["nets"].items()})
        except (ValueError, RuntimeError) as exc:  # RuntimeError: another architecture (hidden sizes ...)
            print(f"error: init_from: {exc}", file=sys.stderr)
            return 2
        for net in nets:
            cast(QNet, net).invalidate()
        print(f"networks from {args.init_from} ({int(data['frames']):,} frames)", flush=True)
    if args.total_frames > frames and (args.total_frames - frames) % args.batch_size:
        asked = args.total_frames
        args.total_frames = frames + -(-(asked - frames) // args.batch_size) * args.batch_size
        print(f"total_frames (--steps) {asked:,} rounded up to {args.total_frames:,}: the learner trains on whole "
              f"batches of batch_size={args.batch_size} frames", flush=True)  # fmt: skip
    names = role_names(args.game)
    features = StateFeatures(layout, args.features)
    features.big = None if features.big is None else features.big.to(device)
    features.div = features.div.to(device)

    # 6. logs
    writer = None
    try:
        from torch.utils.tensorboard import SummaryWriter

        writer = SummaryWriter(str(run_dir))
    except ImportError:  # tensorboard is in the train extra; the CSV logs are enough without it
        pass
    progress_csv, eval_csv = run_dir / "progress.csv", run_dir / "eval.csv"
    if not (args.resume and progress_csv.exists()):
        with open(progress_csv, "w", newline="") as f:
            csv.writer(f).writerow(["frames", "minutes", "frames_per_s", "episodes"] + [f"loss_{n}" for n in names])
    if not (args.resume and eval_csv.exists()):
        with open(eval_csv, "w", newline="") as f:
            csv.writer(f).writerow(["frames", "minutes", "win_rate", "win_rate_lo", "win_rate_hi", "mean_score"])

    started = time.time()

    def minutes() -> float:
        return minutes_before + (time.time() - started) / 60

    def checkpoint_and_evaluate(games: int) -> dict[str, Any]:
        save_checkpoint(checkpoint, nets, optimizers, args, frames, minutes())
        if games <= 0:
            return {}
        nets.eval()
        result = evaluate(checkpoint, args, games, seed=seeds.linear_seed(args.seed, 0, stream="training_evaluation"))
        with open(eval_csv, "a", newline="") as f:
            csv.writer(f).writerow(
                [frames, f"{minutes():.2f}"]
                + [result[k] for k in ("win_rate", "win_rate_lo", "win_rate_hi", "mean_score")]
            )
        if writer is not None:
            writer.add_scalar("eval/win_rate", result["win_rate"], frames)
        print(
            f"[{minutes():6.1f} min] {frames:>11,d} frames: vs {args.eval_opponent} win rate "
            f"{result['win_rate']:.3f} [{result['win_rate_lo']:.3f}, {result['win_rate_hi']:.3f}]",
            flush=True,
        )
        return result

    # 5. the learner: consumes the per-role buffers of finished episodes, batch_size samples an update
    # a resumed run goes on with new deals and exploration draws (seeded by the frames done), not the first ones
    rng = seeds.generator(args.seed, frames, stream="dmc_actors")
    buffers: list[list[tuple[np.ndarray, ...]]] = [[] for _ in names]
    buffered = np.zeros(len(names), dtype=np.int64)
    losses = [float("nan")] * len(names)

    def add_samples(samples: list[list[tuple[np.ndarray, np.ndarray, np.ndarray]]]) -> None:
        for role, items in enumerate(samples):
            buffers[role] += items
            buffered[role] += sum(len(item[1]) for item in items)

    def learn() -> int:
        """Every full batch of every role's buffer, once, up to the frames left; returns the frames consumed."""
        nets.train()
        lr = learning_rate(args, frames, minutes())
        for opt in optimizers:
            for group in opt.param_groups:
                group["lr"] = lr
        consumed = 0
        for role in np.flatnonzero(buffered >= args.batch_size):
            data_obs = np.concatenate([b[0] for b in buffers[role]])
            data_act = np.concatenate([b[1] for b in buffers[role]])
            data_tgt = np.concatenate([b[2] for b in buffers[role]])
            usable = len(data_obs) - len(data_obs) % args.batch_size
            usable = min(usable, args.total_frames - frames - consumed)  # stop at the budget (a whole batch)
            if usable <= 0:
                break
            order = rng.permutation(usable)
            net, opt = cast(QNet, nets[int(role)]), optimizers[role]
            for lo in range(0, usable, args.batch_size):
                idx = order[lo : lo + args.batch_size]
                x = features(torch.as_tensor(data_obs[idx], device=device))
                q = net(x, torch.as_tensor(data_act[idx], device=device))
                loss = torch.mean((q - torch.as_tensor(data_tgt[idx], dtype=torch.float32, device=device)) ** 2)
                opt.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(net.parameters(), args.max_grad_norm)
                opt.step()
                losses[role] = float(loss.detach())
            net.invalidate()
            consumed += usable
            buffers[role] = [(data_obs[usable:], data_act[usable:], data_tgt[usable:])]
            buffered[role] = len(data_obs) - usable
        nets.eval()
        return consumed

    # 4. the actors: in this process (sharing the learner's rng, and its networks when on the CPU), or Ray
    # actors on any machine of the cluster, each with a CPU copy of the networks
    deal_seed = seeds.linear_seed(args.seed, frames, stream="dmc_deals")
    local = Actors(args, rng, deal_seed) if args.backend == "local" else None
    acting = nets if device.type == "cpu" else build_nets(args.game, layout, args).eval()
    pending: dict[Any, int] = {}
    remote: list[Any] = []
    produced = np.zeros(args.actors if local is None else 1, dtype=np.int64)  # decisions each actor handed out
    actor_episodes = np.zeros_like(produced)
    if local is None:
        import ray

        started_ray = not ray.is_initialized()
        if started_ray:  # RAY_ADDRESS names a running cluster; unset: a local Ray of this machine
            ray.init(address=os.environ.get("RAY_ADDRESS"))
        RayActor = ray_actor_class()
        values = dataclasses.asdict(args)
        remote = [RayActor.remote(values, i, frames) for i in range(args.actors)]  # type: ignore[attr-defined]
        weights = ray.put({k: v.cpu() for k, v in nets.state_dict().items()})
        version = 0
        actor_version = np.zeros(args.actors, dtype=np.int64)
        # the first round waits for every actor (they start at different speeds: imports, numba's cache), so
        # each one plays from the start; then whichever actor's samples arrive first are learnt from first
        first = ray.get([actor.collect.remote(weights) for actor in remote])
        for i, (samples, episodes_i, decisions_i) in enumerate(first):
            add_samples(samples)
            actor_episodes[i], produced[i] = episodes_i, decisions_i
        pending = {actor.collect.remote(None): i for i, actor in enumerate(remote)}
        started = time.time()  # the clock of the minutes budget starts with the actors up
        print(f"{args.actors} Ray actors of {args.num_envs} games each", flush=True)

    episodes, window_frames, window_start = 0, 0, time.time()
    next_eval = time.time() + 60 * args.eval_minutes if args.eval_minutes > 0 else math.inf
    next_log = time.time() + 30
    while frames < args.total_frames and (args.minutes is None or minutes() < args.minutes):
        if local is not None:
            add_samples(local.collect(acting))
            episodes, produced[0], actor_episodes[0] = local.episodes, local.decisions, local.episodes
        else:  # take the first actor's samples that arrive, hand it the newest weights and let it play on
            [ready], _ = ray.wait(list(pending), num_returns=1)
            i = pending.pop(ready)
            samples, actor_episodes[i], produced[i] = ray.get(ready)
            add_samples(samples)
            episodes = int(actor_episodes.sum())
        used = learn()
        frames += used
        window_frames += used
        if used and acting is not nets:
            acting.load_state_dict(nets.state_dict())
            for net in acting:
                cast(QNet, net).invalidate()
        if local is None:
            if used:
                version += 1
                weights = ray.put({k: v.cpu() for k, v in nets.state_dict().items()})
            news = weights if actor_version[i] != version else None
            actor_version[i] = version
            pending[remote[i].collect.remote(news)] = i
        now = time.time()
        if now >= next_log:
            rate = window_frames / (now - window_start)
            with open(progress_csv, "a", newline="") as f:
                csv.writer(f).writerow([frames, f"{minutes():.2f}", f"{rate:.0f}", episodes] + losses)
            if writer is not None:
                writer.add_scalar("train/frames_per_s", rate, frames)
                for name, value in zip(names, losses, strict=True):
                    writer.add_scalar(f"loss/{name}", value, frames)
            print(
                f"[{minutes():6.1f} min] {frames:>11,d} frames, {rate:,.0f} frames/s, {episodes:,} episodes, loss "
                + " ".join(f"{n}={v:.3f}" for n, v in zip(names, losses, strict=True)),
                flush=True,
            )
            window_frames, window_start, next_log = 0, now, now + 30
        if now >= next_eval:
            checkpoint_and_evaluate(args.eval_games)
            next_eval = time.time() + 60 * args.eval_minutes
    if local is None:  # a driver's actors end with it; a caller's Ray lives on, so free its CPUs now
        if started_ray:
            ray.shutdown()
        else:
            for actor in remote:
                ray.kill(actor)
    actors_json = {
        "backend": args.backend,
        "device": str(device),
        "actors": [{"decisions": int(d), "episodes": int(e)} for d, e in zip(produced, actor_episodes, strict=True)],
    }
    (run_dir / "actors.json").write_text(json.dumps(actors_json, indent=2))

    # the final checkpoint and evaluation
    result = checkpoint_and_evaluate(args.final_eval_games)
    if result:
        (run_dir / "final_eval.json").write_text(json.dumps(result, indent=2))
    if writer is not None:
        writer.close()
    print(
        f"saved {checkpoint} ({frames:,} frames); play it with: cardenvs arena {args.game} "
        f"--agents dmc:{checkpoint},{args.eval_opponent}",
        flush=True,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
