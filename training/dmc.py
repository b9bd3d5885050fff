"""Deep Monte Carlo (DouZero's DMC) self-play on the numba vector env, top to bottom. Usage::

    python -m cardenvs.training.dmc --config configs/doudizhu_dmc.yaml [--steps N] [--minutes M] [--out DIR]
                           [--seed S] [--resume] [--session-minutes M] [--eval-against NAME]
                           [--set key=value ...]
    cardenvs train doudizhu --algo dmc [same flags]

``--steps`` is ``total_frames`` (``--total-frames``, the old spelling) and ``--minutes`` ``minutes``; the
run stops at whichever ends first, and a session also after ``--session-minutes`` of its own (a long run in
sessions, each continued with ``--resume``: the budget and the learning rate's schedule stay ``minutes``).
The learner trains on whole batches, so a budget that is not a multiple of ``batch_size`` frames (counted
from the frames already done) is rounded up to one, and the run says so.

DMC learns ``Q(state, move)``, the expected return of the acting seat after it plays ``move``, by
regressing on Monte Carlo returns: every decision of a finished game is one sample whose target is the
return of the seat that made it from that decision to the end, losses included (``target: win`` -> its
final +1/-1; ``points`` -> the points it still scores; ``margin`` -> those minus the mean of the other
seats', zero-sum and denser than ``win`` in games scored over many hands, such as Twenty; ``win_points`` ->
the win plus ``points_weight`` times the points, e.g. a Guandan hand's win and the levels it gains (3, 2 or
1); ``horizon`` H counts only the rewards of the next H steps, a truncated return for games where the rest of
a long match drowns a move's effect in noise). The actors play every seat with the current networks, epsilon-greedily,
except the seats the ``opponent`` draws (``opponent_share``: a numba heuristic, or any agent name, such as
RLCard's rule agent ``rlcard.rule``, played in Python one game at a time; or a mix, ``{name: weight}``, one of
them drawn by weight for each seat, or for each game's untrained roles), past selves (``snapshot_minutes``,
``snapshot_share``, ``max_snapshots``: a frozen copy of the networks joins the one opponent pool every few
minutes, the newest few sharing the weight) and, with ``train_roles``, every
decision of a role this run does not train (a landlord that learns against rule farmers only); ``init_from``
starts the networks from a model (a warm start; :mod:`cardenvs.training.dmc_combine` joins such runs' networks).

1. **Config** (:class:`cardenvs.training.dmc_args.Args`): YAML, ``--set`` overrides and flags
   (:mod:`cardenvs.config`). The run is ``{game}__{exp}__{seed}`` in ``OUT``; ``--resume`` continues its
   checkpoint, frame count, minutes (the budget and the learning rate's schedule) and past selves, so a long
   run is several sessions of ``--minutes`` each.
2. **Features and networks**, one per role, and the agent that plays a checkpoint:
   :mod:`cardenvs.training.dmc_model`.
3. **Actors** (:mod:`cardenvs.training.dmc_actors`): ``num_envs`` games of :func:`cardenvs.vector.make`,
   batched inference without gradients; when a game ends its decisions get their seats' returns and go to the
   learner's per-role buffers (only finished episodes, each sample used once).
4. **Learner**: Adam on the mean squared error, per role, ``batch_size`` samples per update, gradient
   norm clipped, the step size constant or decaying linearly to 0 over the budget (:func:`learning_rate`).
   Torch uses ``torch_threads`` threads; actors and learner alternate in one process (on two cores that
   measured faster than an actor process feeding a learner process, which copies every batch). With
   ``backend: ray`` (``--ray --actors N``) the actors are ``N`` Ray actors (:class:`RayActors`,
   one CPU each, on any machine of the cluster ``RAY_ADDRESS`` names, or a local Ray when it is unset): the
   learner waits for every actor's first rollout, then learns from whichever actor's samples arrive first
   and hands that actor the newest weights (so a Ray run does not replay exactly). ``device`` puts the
   learner on a GPU (``auto``: CUDA when torch sees one); the actors act on CPU copies of the networks.
5. **Logs**: ``progress.csv`` (frames, frames/s, loss per role), ``actors.json`` (decisions and episodes each
   actor handed out) and TensorBoard; every ``eval_minutes`` a
   checkpoint ``model.pt`` (with ``snapshots.pt``, the pool's past selves) and a duplicate-deal arena
   evaluation against ``eval_opponent`` and each of ``eval_opponents`` (``--eval-against NAME``: eval-only
   opponents such as ``danzero:FILE``, which the actors never play, :func:`check_training_opponents`) to
   ``eval.csv``, one row per opponent; the arena plays the checkpoint as ``dmc:OUT/RUN/model.pt``
   (:class:`cardenvs.training.dmc_model.DMCAgent`).

A *frame* is one decision trained on (DouZero's unit): learner frames/s = samples consumed by updates per
second of wall time, actors included.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import math
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

import numpy as np
import torch
import yaml
from torch import nn

from cardenvs.core import seeds

from .dmc_actors import Actors, Snapshot, ray_actor_class
from .dmc_args import Args, check_training_opponents, env_reward, parse_args
from .dmc_model import (
    FORMAT,
    QNet,
    StateFeatures,
    build_nets,
    extra_size,
    load_checkpoint,
    resolve_device,
    role_names,
    trained_features,
)

Samples = list[list[tuple[np.ndarray, np.ndarray, np.ndarray]]]  # per role: (obs, actions, targets) arrays


# ---------------------------------------------------------------- 1. the run folder
def start_run(args: Args) -> Path:
    """``OUT/RUN`` with the run's ``config.yaml``; a checkpoint already there needs ``--resume``."""
    run_dir = Path(args.out) / args.run_name
    run_dir.mkdir(parents=True, exist_ok=True)
    if (run_dir / "model.pt").exists() and not args.resume:
        raise ValueError(f"{run_dir / 'model.pt'} exists; pass --resume to continue it or --out elsewhere")
    (run_dir / "config.yaml").write_text(yaml.safe_dump(dataclasses.asdict(args), sort_keys=False))
    return run_dir


# ---------------------------------------------------------------- 3. networks and optimizers
def build_learner(args: Args, layout, device: torch.device, checkpoint: Path):
    """The networks and optimizers on the learner's device, resumed (``--resume``) or started from a model
    (``init_from``); returns ``(nets, optimizers, frames, minutes)`` with the frames and minutes done."""
    nets = build_nets(args.game, layout, args).to(device).eval()
    optimizers = [torch.optim.Adam(net.parameters(), lr=args.learning_rate) for net in nets]
    frames, minutes = 0, 0.0
    if args.resume and checkpoint.exists():
        data = load_checkpoint(checkpoint)
        trained_on = trained_features(data)
        if trained_on != args.features:
            raise ValueError(f"{checkpoint} was trained with features={trained_on}; pass --set features={trained_on}")
        full = torch.load(checkpoint.with_name("optimizer.pt"), map_location=device, weights_only=True)
        nets.load_state_dict(full["nets"])
        for opt, state in zip(optimizers, full["optimizers"], strict=True):
            opt.load_state_dict(state)
        frames, minutes = int(data["frames"]), float(data["minutes"])
        print(f"resumed at {frames:,} frames ({minutes:.1f} min)", flush=True)
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
            raise ValueError(f"init_from: {exc}") from None
        invalidate(nets)
        print(f"networks from {args.init_from} ({int(data['frames']):,} frames)", flush=True)
    return nets, optimizers, frames, minutes


def invalidate(nets: nn.ModuleList) -> None:
    """Drop the networks' cached move tables (after their weights change)."""
    for net in nets:
        cast(QNet, net).invalidate()


def round_budget(args: Args, frames: int) -> None:
    """Round ``total_frames`` up to whole batches counted from ``frames`` (the learner trains on whole batches)."""
    if args.total_frames > frames and (args.total_frames - frames) % args.batch_size:
        asked = args.total_frames
        args.total_frames = frames + -(-(asked - frames) // args.batch_size) * args.batch_size
        print(f"total_frames (--steps) {asked:,} rounded up to {args.total_frames:,}: the learner trains on whole "
              f"batches of batch_size={args.batch_size} frames", flush=True)  # fmt: skip


# ---------------------------------------------------------------- 4. actors, here or on Ray
class LocalActors:
    """Backend ``local``: one :class:`Actors` in this process, sharing the learner's ``rng``, acting with
    ``acting`` (the learner's networks on the CPU, else a CPU copy refreshed after each update)."""

    def __init__(self, args: Args, rng: np.random.Generator, frames: int, nets: nn.ModuleList, layout):
        self.actors = Actors(args, rng, seeds.linear_seed(args.seed, frames, stream="dmc_deals"))
        on_cpu = next(nets.parameters()).device.type == "cpu"
        self.nets, self.acting = nets, nets if on_cpu else build_nets(args.game, layout, args).eval()
        if not on_cpu:
            self.acting.load_state_dict(nets.state_dict())
        self.decisions, self.episodes = np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64)

    def first_round(self) -> list[Samples]:
        return []

    def collect(self) -> Samples:
        samples = self.actors.collect(self.acting)
        self.decisions[0], self.episodes[0] = self.actors.decisions, self.actors.episodes
        return samples

    def hand_out(self, updated: bool) -> None:
        if updated and self.acting is not self.nets:
            self.acting.load_state_dict(self.nets.state_dict())
            invalidate(self.acting)

    def add_snapshot(self, nets: nn.ModuleList, frames: int) -> Snapshot:
        return self.actors.add_snapshot(nets, frames)

    def snapshots(self) -> list[Snapshot]:
        return self.actors.snapshots()

    def stop(self) -> None:
        pass


class RayActors:
    """Backend ``ray``: ``actors`` Ray actors (:func:`ray_actor_class`) on any machine of the cluster
    ``RAY_ADDRESS`` names, or a local Ray when it is unset. The learner waits for every actor's first rollout
    (:meth:`first_round`), then learns from whichever actor's samples arrive first and hands that actor the
    newest weights (:meth:`hand_out`)."""

    def __init__(self, args: Args, frames: int, nets: nn.ModuleList):
        import ray

        self.ray, self.nets, self.num_envs = ray, nets, args.num_envs
        self.started_ray = not ray.is_initialized()
        if self.started_ray:  # RAY_ADDRESS names a running cluster; unset: a local Ray of this machine
            ray.init(address=os.environ.get("RAY_ADDRESS"))
        RayActor = ray_actor_class()
        values = dataclasses.asdict(args)
        self.remote = [RayActor.remote(values, i, frames) for i in range(args.actors)]  # type: ignore[attr-defined]
        self.weights = ray.put({k: v.cpu() for k, v in nets.state_dict().items()})
        self.version, self.actor_version = 0, np.zeros(args.actors, dtype=np.int64)
        self.decisions, self.episodes = np.zeros(args.actors, dtype=np.int64), np.zeros(args.actors, dtype=np.int64)
        self.pending: dict[Any, int] = {}
        self.last = 0  # the actor whose samples came last

    def first_round(self) -> list[Samples]:
        """Every actor's first rollout (they start at different speeds: imports, numba's cache), so each
        one plays from the start."""
        first = self.ray.get([actor.collect.remote(self.weights) for actor in self.remote])
        out = []
        for i, (samples, episodes, decisions) in enumerate(first):
            out.append(samples)
            self.episodes[i], self.decisions[i] = episodes, decisions
        self.pending = {actor.collect.remote(None): i for i, actor in enumerate(self.remote)}
        print(f"{len(self.remote)} Ray actors of {self.num_envs} games each", flush=True)
        return out

    def collect(self) -> Samples:
        [ready], _ = self.ray.wait(list(self.pending), num_returns=1)
        self.last = i = self.pending.pop(ready)
        samples, self.episodes[i], self.decisions[i] = self.ray.get(ready)
        return samples

    def hand_out(self, updated: bool) -> None:
        """The actor that handed in last plays on, with the newest weights if it lacks them."""
        i = self.last
        if updated:
            self.version += 1
            self.weights = self.ray.put({k: v.cpu() for k, v in self.nets.state_dict().items()})
        news = self.weights if self.actor_version[i] != self.version else None
        self.actor_version[i] = self.version
        self.pending[self.remote[i].collect.remote(news)] = i

    def stop(self) -> None:
        """A driver's actors end with it; a caller's Ray lives on, so free its CPUs now."""
        if self.started_ray:
            self.ray.shutdown()
        else:
            for actor in self.remote:
                self.ray.kill(actor)


# ---------------------------------------------------------------- 5. the learner
class Learner:
    """Adam on the mean squared error, per role: the per-role buffers of finished episodes, consumed
    ``batch_size`` samples an update, every sample once. ``rng`` orders the samples."""

    def __init__(self, args: Args, nets: nn.ModuleList, optimizers: list, layout, rng: np.random.Generator):
        self.args, self.nets, self.optimizers, self.rng = args, nets, optimizers, rng
        self.device = next(nets.parameters()).device
        self.features = StateFeatures(layout, args.features, extra_size(args.game, args.features))
        self.features.big = None if self.features.big is None else self.features.big.to(self.device)
        self.features.div = self.features.div.to(self.device)
        self.buffers: list[list[tuple[np.ndarray, ...]]] = [[] for _ in nets]
        self.buffered = np.zeros(len(nets), dtype=np.int64)
        self.losses = [float("nan")] * len(nets)

    def add(self, samples: Samples) -> None:
        for role, items in enumerate(samples):
            self.buffers[role] += items
            self.buffered[role] += sum(len(item[1]) for item in items)

    def learn(self, frames: int, minutes: float) -> int:
        """Every full batch of every role's buffer, once, up to the frames left; returns the frames consumed."""
        args, device = self.args, self.device
        self.nets.train()
        lr = learning_rate(args, frames, minutes)
        for opt in self.optimizers:
            for group in opt.param_groups:
                group["lr"] = lr
        consumed = 0
        for role in np.flatnonzero(self.buffered >= args.batch_size):
            data_obs = np.concatenate([b[0] for b in self.buffers[role]])
            data_act = np.concatenate([b[1] for b in self.buffers[role]])
            data_tgt = np.concatenate([b[2] for b in self.buffers[role]])
            usable = len(data_obs) - len(data_obs) % args.batch_size
            usable = min(usable, args.total_frames - frames - consumed)  # stop at the budget (a whole batch)
            if usable <= 0:
                break
            order = self.rng.permutation(usable)
            net, opt = cast(QNet, self.nets[int(role)]), self.optimizers[role]
            for lo in range(0, usable, args.batch_size):
                idx = order[lo : lo + args.batch_size]
                x = self.features(torch.as_tensor(data_obs[idx], device=device))
                q = net(x, torch.as_tensor(data_act[idx], device=device))
                loss = torch.mean((q - torch.as_tensor(data_tgt[idx], dtype=torch.float32, device=device)) ** 2)
                opt.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(net.parameters(), args.max_grad_norm)
                opt.step()
                self.losses[role] = float(loss.detach())
            net.invalidate()
            consumed += usable
            self.buffers[role] = [(data_obs[usable:], data_act[usable:], data_tgt[usable:])]
            self.buffered[role] = len(data_obs) - usable
        self.nets.eval()
        return consumed


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


# ---------------------------------------------------------------- 6. logs, checkpoints and evaluations
class Logs:
    """``progress.csv``, ``eval.csv`` (appended to when resumed) and TensorBoard, if installed."""

    def __init__(self, run_dir: Path, args: Args, names: list[str]):
        self.names, self.writer = names, None
        try:
            from torch.utils.tensorboard import SummaryWriter

            self.writer = SummaryWriter(str(run_dir))
        except ImportError:  # tensorboard is in the train extra; the CSV logs are enough without it
            pass
        self.progress_csv, self.eval_csv = run_dir / "progress.csv", run_dir / "eval.csv"
        if not (args.resume and self.progress_csv.exists()):
            header = ["frames", "minutes", "frames_per_s", "episodes"] + [f"loss_{n}" for n in names]
            self.row(self.progress_csv, header, "w")
        if not (args.resume and self.eval_csv.exists()):
            header = ["frames", "minutes", "win_rate", "win_rate_lo", "win_rate_hi", "mean_score", "opponent"]
            self.row(self.eval_csv, header, "w")

    @staticmethod
    def row(path: Path, row: list, mode: str = "a") -> None:
        with open(path, mode, newline="") as f:
            csv.writer(f).writerow(row)

    def progress(self, frames: int, minutes: float, rate: float, episodes: int, losses: list[float]) -> None:
        self.row(self.progress_csv, [frames, f"{minutes:.2f}", f"{rate:.0f}", episodes] + losses)
        if self.writer is not None:
            self.writer.add_scalar("train/frames_per_s", rate, frames)
            for name, value in zip(self.names, losses, strict=True):
                self.writer.add_scalar(f"loss/{name}", value, frames)
        print(
            f"[{minutes:6.1f} min] {frames:>11,d} frames, {rate:,.0f} frames/s, {episodes:,} episodes, loss "
            + " ".join(f"{n}={v:.3f}" for n, v in zip(self.names, losses, strict=True)),
            flush=True,
        )

    def evaluation(self, frames: int, minutes: float, result: dict[str, Any], opponent: str, first: bool) -> None:
        """One evaluation's row (``first``: against ``eval_opponent``, TensorBoard's ``eval/win_rate``)."""
        keys = ("win_rate", "win_rate_lo", "win_rate_hi", "mean_score")
        self.row(self.eval_csv, [frames, f"{minutes:.2f}"] + [result[k] for k in keys] + [opponent])
        if self.writer is not None:
            self.writer.add_scalar(
                "eval/win_rate" if first else f"eval/win_rate/{opponent}", result["win_rate"], frames
            )
        print(
            f"[{minutes:6.1f} min] {frames:>11,d} frames: vs {opponent} win rate "
            f"{result['win_rate']:.3f} [{result['win_rate_lo']:.3f}, {result['win_rate_hi']:.3f}]",
            flush=True,
        )

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


def save_checkpoint(path: Path, nets: nn.ModuleList, optimizers: list, args: Args, frames: int, minutes: float):
    """``model.pt`` (what the arena loads: the networks in float16, the config, the frame count) and, beside
    it, ``optimizer.pt`` (what ``--resume`` adds: full-precision weights and Adam's state)."""
    full = {"nets": nets.state_dict(), "optimizers": [o.state_dict() for o in optimizers]}
    half = {k: v.half() if v.is_floating_point() else v for k, v in nets.state_dict().items()}
    model = {
        "format": FORMAT,
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


def save_snapshots(path: Path, snapshots: list[Snapshot], keep: int) -> None:
    """The pool's newest ``keep`` past selves (the ones with a weight) to ``path`` (``snapshots.pt``), for
    ``--resume``: each one's frames and full-precision weights."""
    data = [{"frames": s.frames, "nets": s.nets.state_dict()} for s in snapshots[-keep:]]
    tmp = path.with_suffix(".tmp")
    torch.save(data, tmp)
    tmp.replace(path)


def load_snapshots(path: Path, args: Args, layout) -> list[tuple[int, nn.ModuleList]]:
    """The past selves :func:`save_snapshots` wrote, as ``(frames, networks)``, oldest first."""
    out = []
    for item in torch.load(path, map_location="cpu", weights_only=True):
        nets = build_nets(args.game, layout, args).eval()
        nets.load_state_dict(item["nets"])
        out.append((int(item["frames"]), nets))
    return out


def eval_table(path: Path, args: Args, opponent: str | None = None) -> list[str]:
    """The evaluation's agents, one per seat: the checkpoint in ``eval_seats``, ``opponent`` (default
    ``eval_opponent``) elsewhere."""
    from cardenvs import make

    n = make(args.game, **{**args.options, **args.eval_options}).unwrapped.num_players
    other = args.eval_opponent if opponent is None else opponent
    return [f"dmc:{path}" if seat in args.eval_seats else other for seat in range(n)]


def evaluate(path: Path, args: Args, games: int, seed: int, opponent: str | None = None) -> dict[str, Any]:
    """The checkpoint in ``eval_seats`` against ``opponent`` (default ``eval_opponent``) in every other seat,
    over the arena's duplicate deals (which also swap the seats, so the model plays every seat of every deal)."""
    from cardenvs import arena

    options = {**args.options, **args.eval_options}
    agents = eval_table(path, args, opponent)
    results = arena.run_tournament(args.game, agents, games, seed=seed, options=options, duplicate=True)
    label = results.agents[args.eval_seats[0]]
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


def checkpoint_and_evaluate(
    checkpoint: Path,
    learner: Learner,
    args: Args,
    frames: int,
    minutes: float,
    games: int,
    logs: Logs,
    snapshots: list[Snapshot],
) -> dict[str, Any]:
    """Save the checkpoint (and the pool's past selves); with ``games`` > 0, evaluate it against
    ``eval_opponent`` and each of ``eval_opponents`` (:func:`evaluate`, the same deals) and log each result.
    Returns the first result, the others under ``also`` by opponent."""
    save_checkpoint(checkpoint, learner.nets, learner.optimizers, args, frames, minutes)
    if args.snapshot_share > 0:
        save_snapshots(checkpoint.with_name("snapshots.pt"), snapshots, args.max_snapshots)
    if games <= 0:
        return {}
    learner.nets.eval()
    seed = seeds.linear_seed(args.seed, 0, stream="training_evaluation")
    out: dict[str, Any] = {}
    for i, opponent in enumerate([args.eval_opponent, *args.eval_opponents]):
        result = evaluate(checkpoint, args, games, seed=seed, opponent=opponent)
        logs.evaluation(frames, minutes, result, opponent, first=i == 0)
        if i == 0:
            out = result
        else:
            out.setdefault("also", {})[opponent] = result
    return out


# ---------------------------------------------------------------- the run
def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    from cardenvs import make

    # 1. seeding, the learner's device and the run folder
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.torch_threads)
    layout = make(args.game, **{**args.options, "reward": env_reward(args.target)}).unwrapped.layout
    try:
        device = resolve_device(args.device)
        run_dir = start_run(args)
        print(f"run {args.run_name} -> {run_dir} (backend {args.backend}, learner on {device})", flush=True)
        checkpoint = run_dir / "model.pt"
        # 3. networks and optimizers (on the learner's device), maybe resumed
        nets, optimizers, frames, minutes_before = build_learner(args, layout, device, checkpoint)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    round_budget(args, frames)
    names = role_names(args.game)
    logs = Logs(run_dir, args, names)
    started = time.time()

    def minutes() -> float:
        return minutes_before + (time.time() - started) / 60

    # 5. the learner; a resumed run goes on with new deals and exploration draws (seeded by the frames done)
    rng = seeds.generator(args.seed, frames, stream="dmc_actors")
    learner = Learner(args, nets, optimizers, layout, rng)
    # 4. the actors: in this process (sharing the learner's rng), or Ray actors, each with CPU networks
    check_training_opponents(args)  # the judges (eval-only opponents) never play the actors' seats
    actors = LocalActors(args, rng, frames, nets, layout) if args.backend == "local" else RayActors(args, frames, nets)
    saved_snapshots = run_dir / "snapshots.pt"
    if args.resume and args.snapshot_share > 0 and saved_snapshots.exists():
        assert isinstance(actors, LocalActors)
        for done, past_nets in load_snapshots(saved_snapshots, args, layout):
            actors.add_snapshot(past_nets, done)
        print(f"{len(actors.snapshots())} past selves back in the opponent pool", flush=True)
    for samples in actors.first_round():
        learner.add(samples)
    if args.backend == "ray":
        started = time.time()  # the clock of the minutes budget starts with the actors up

    episodes, window_frames, window_start = 0, 0, time.time()
    next_eval = time.time() + 60 * args.eval_minutes if args.eval_minutes > 0 else math.inf
    next_log = time.time() + 30
    next_snapshot = time.time() + 60 * args.snapshot_minutes if args.snapshot_share > 0 else math.inf

    def snapshots() -> list[Snapshot]:
        return actors.snapshots() if isinstance(actors, LocalActors) else []

    def session_over() -> bool:
        return args.session_minutes is not None and (time.time() - started) / 60 >= args.session_minutes

    while frames < args.total_frames and (args.minutes is None or minutes() < args.minutes) and not session_over():
        learner.add(actors.collect())
        episodes = int(actors.episodes.sum())
        used = learner.learn(frames, minutes())
        frames += used
        window_frames += used
        actors.hand_out(bool(used))
        now = time.time()
        if now >= next_log:
            logs.progress(frames, minutes(), window_frames / (now - window_start), episodes, learner.losses)
            window_frames, window_start, next_log = 0, now, now + 30
        if now >= next_snapshot and isinstance(actors, LocalActors):
            if not snapshots() or snapshots()[-1].frames < frames:  # new weights since the newest past self
                name = actors.add_snapshot(nets, frames).name
                print(f"[{minutes():6.1f} min] {name} joins the opponent pool", flush=True)
            next_snapshot = now + 60 * args.snapshot_minutes
        if now >= next_eval:
            checkpoint_and_evaluate(checkpoint, learner, args, frames, minutes(), args.eval_games, logs, snapshots())
            next_eval = time.time() + 60 * args.eval_minutes
    actors.stop()
    actors_json = {
        "backend": args.backend,
        "device": str(device),
        "actors": [
            {"decisions": int(d), "episodes": int(e)} for d, e in zip(actors.decisions, actors.episodes, strict=True)
        ],
    }
    (run_dir / "actors.json").write_text(json.dumps(actors_json, indent=2))

    # the final checkpoint and evaluation
    result = checkpoint_and_evaluate(
        checkpoint, learner, args, frames, minutes(), args.final_eval_games, logs, snapshots()
    )
    if result:
        (run_dir / "final_eval.json").write_text(json.dumps(result, indent=2))
    logs.close()
    seated = ",".join(eval_table(checkpoint, args))
    print(
        f"saved {checkpoint} ({frames:,} frames); play it with: cardenvs arena {args.game} --agents {seated}",
        flush=True,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
