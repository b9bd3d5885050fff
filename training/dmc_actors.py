"""DMC's actors (:mod:`cardenvs.training.dmc`): games played by the current networks, whose finished
episodes become the learner's samples.

``num_envs`` games of :func:`cardenvs.vector.make`, batched inference without gradients, a ring of the last
steps of every game (:class:`EpisodeRing`); when a game ends its decisions get their seats' returns
(:func:`episode_targets`) and go to the learner's per-role buffers (only finished episodes, each sample used
once). The seats the opponent draws are played by the one opponent pool (:class:`cardenvs.opponents.OpponentPool`)
through the vector env's seat loop (``agent_actions``); the pool's snapshots (past selves, :class:`Snapshot`,
added every ``snapshot_minutes``) are frozen copies of the networks, played greedily on the same rows. With a
state feature set (``features: danzero``) each observation row gets its columns from the vector env's state
(``VectorEnv.state``) before it is stored and scored. :class:`Actors` runs in the learner's process (backend
``local``) or one per Ray actor (:func:`ray_actor_class`, backend ``ray``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import numpy as np
import torch
from torch import nn

from cardenvs.core import seeds
from cardenvs.opponents import OpponentPool

from .dmc_args import Args, check_training_opponents, env_reward, opponent_weights, trained_roles
from .dmc_model import QNet, StateFeatures, build_nets, choose, role_names, roles_of, state_extra, win_points

NETWORKS = "<networks>"  # the opponent pool's entry for seats the Q networks play
OPPONENT = 0  # the pool's index of the opponent (its first entry; a mix's first name)


class Snapshot:
    """A past self in the opponent pool: a frozen CPU copy of the networks (``nets``, eval mode), taken after
    ``frames`` frames; the actors play its seats greedily."""

    def __init__(self, nets: nn.ModuleList, frames: int):
        self.nets, self.frames = nets, int(frames)
        self.name = f"snapshot@{self.frames}"


class EpisodeRing:
    """The last ``capacity`` steps of every game; an episode's decisions leave it, with their targets, when
    the episode ends. A decision's target is its seat's return from that decision to the end of the
    episode (:func:`episode_targets`): the final result on the win scale, the points still to come with
    ``points``, and with ``margin`` the points still to come minus the mean of the other seats'; with
    ``horizon`` H > 0 only the rewards of the H steps from the decision count (a truncated return); with
    ``points_weight`` w (``target: win_points``) the sign of the points still to come plus w times them."""

    def __init__(
        self,
        num_envs: int,
        obs_size: int,
        num_players: int,
        capacity: int = 256,
        margin: bool = False,
        horizon: int = 0,
        points_weight: float | None = None,
    ):
        self.capacity, self.margin, self.horizon, self.points_weight = capacity, margin, horizon, points_weight
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
            targets = episode_targets(
                self.rewards[steps, b], self.seat[steps, b], self.margin, self.horizon, self.points_weight
            )
            out.append((self.obs[steps, b], self.action[steps, b], self.role[steps, b], targets))
            self.start[b] = self.t + 1
        self.t += 1
        return out


def episode_targets(
    rewards: Sequence[np.ndarray] | np.ndarray,
    seats: Sequence[int],
    margin: bool = False,
    horizon: int = 0,
    points_weight: float | None = None,
):
    """Each decision's DMC target, as a plain statement (:class:`EpisodeRing` uses it; tests compare with
    it): ``rewards[t]`` is every seat's reward after step ``t`` and ``seats[t]`` the seat that acted at
    ``t``; the target of step ``t`` is ``sum(rewards[t:])[seats[t]]``, that seat's return from its decision
    to the end (with ``margin``, minus the mean of the other seats' returns). With ``horizon`` H > 0 only
    the rewards of steps ``t .. t + H - 1`` count (a truncated return: less noise from far-off play, blind
    beyond H). With ``points_weight`` w the target is ``sign(g) + w * g`` of that return ``g`` (``target:
    win_points``: with a points reward whose sign is the result, as in Guandan's hands, the win and the levels
    it scores)."""
    r = np.asarray(rewards, dtype=np.float64)
    to_go = np.cumsum(r[::-1], axis=0)[::-1]  # to_go[t] = sum of rewards[t:]
    if horizon > 0:
        later = np.zeros_like(to_go)
        later[: max(len(r) - horizon, 0)] = to_go[horizon:]
        to_go = to_go - later  # sum of rewards[t : t + horizon]
    if margin and r.shape[1] > 1:
        to_go = to_go - (to_go.sum(axis=1, keepdims=True) - to_go) / (r.shape[1] - 1)
    out = to_go[np.arange(len(r)), np.asarray(seats)]
    return out if points_weight is None else win_points(out, points_weight)


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
        self.extra = state_extra(args.game, args.features)  # columns from the state (features: danzero), or None
        width = self.layout.size + (0 if self.extra is None else self.extra.size)
        self.features = StateFeatures(self.layout, args.features, width - self.layout.size)
        self.obs, self.info = self.env.reset(seed=deal_seed)
        n = self.env.num_players
        weight = args.points_weight if args.target == "win_points" else None
        self.ring = EpisodeRing(
            args.num_envs, width, n, margin=args.target == "margin", horizon=args.horizon, points_weight=weight
        )
        # who plays each seat of each game's episode, drawn from the one opponent pool (cardenvs.opponents) and
        # redrawn when the game ends: the opponents with weight opponent_share (shared by a mix's weights), the
        # networks with the rest; the untrained roles of a game are played by one opponent, drawn from the mix
        # alone (its entries come first in the pool, so both draw the same indices); past selves (add_snapshot)
        # join the pool after the networks' entry, sharing snapshot_share
        share = args.opponent_share
        self.pool = self.mix = None
        check_training_opponents(args)  # a judge never teaches (parse_args said so already; assert it here)
        if args.opponent or args.snapshot_share > 0:
            mix = opponent_weights(args.opponent) if args.opponent else {}
            total = sum(mix.values())
            weights = {**{k: share * w / total for k, w in mix.items()}, NETWORKS: 1 - share}
            self.pool = OpponentPool(weights, args.snapshot_share, args.max_snapshots)
            self.mix = OpponentPool(mix) if mix else None
            assert self.mix is None or self.pool.opponents[: len(self.mix)] == self.mix.opponents
            assert not set(self.pool.opponents) & set(args.eval_opponents), "an eval-only opponent in training"
        self.networks = len(self.pool) - 1 if self.pool else 0  # the networks' entry in the pool
        self.seat_entry = np.full((args.num_envs, n), self.networks)
        self.game_opponent = np.full(args.num_envs, OPPONENT)  # the pool entry playing the untrained roles
        self.draw_opponent_seats(np.arange(args.num_envs))
        self.roles = len(role_names(args.game))
        self.trained = trained_roles(args)  # decisions of the other roles: always the opponent, never learnt
        self.epsilon = np.array([args.role_epsilon.get(name, args.epsilon) for name in role_names(args.game)])
        self.episodes, self.decisions = 0, 0  # finished episodes and their decisions handed out

    def add_snapshot(self, nets: nn.ModuleList, frames: int) -> Snapshot:
        """Put a frozen copy of ``nets`` (any device) in the pool as a past self; the newest ``max_snapshots``
        share ``snapshot_share`` (taken from the networks' own weight). Returns it."""
        assert self.pool is not None and self.args.snapshot_share > 0
        copy = build_nets(self.args.game, self.layout, self.args).eval()
        copy.load_state_dict({k: v.detach().float().cpu() for k, v in nets.state_dict().items()})
        if not self.pool.snapshots:  # the first past self: the networks give up its share
            self.pool.set_weight(self.networks, 1 - self.args.opponent_share - self.args.snapshot_share)
        snapshot = Snapshot(copy, frames)
        self.pool.add_snapshot(snapshot)
        return snapshot

    def snapshots(self) -> list[Snapshot]:
        """The pool's past selves, oldest first."""
        return [] if self.pool is None else [self.pool.opponents[i] for i in self.pool.snapshots]

    def draw_opponent_seats(self, games: np.ndarray) -> None:
        if self.pool is None or len(games) == 0:
            return
        if self.mix is not None and len(self.mix) > 1:  # one opponent: no draw (the stream as before mixes)
            self.game_opponent[games] = self.mix.draw(self.rng, len(games))
        if self.args.opponent_share <= 0 and not self.pool.snapshots:
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
            if self.extra is not None:  # the state feature set's columns of the seat to move, from the env's state
                raw = np.concatenate([raw, self.extra.rows(env.state, everyone)], axis=1)
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
                opponent = self.pool.opponents[index]
                if isinstance(opponent, Snapshot):  # a past self: its greedy moves on the same rows (no draws)
                    x = self.features(raw[rows])
                    actions[rows] = choose(opponent.nets, x, roles[rows], ids[rows], counts[rows], 0.0, self.rng)
                else:
                    actions[rows] = env.agent_actions(opponent, rows)
            net_rows = np.flatnonzero(~scripted)
            x = self.features(raw[net_rows])
            epsilon = self.epsilon[roles[net_rows]] if args.role_epsilon else args.epsilon
            actions[net_rows] = choose(nets, x, roles[net_rows], ids[net_rows], counts[net_rows], epsilon, self.rng)
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
