"""Self-play on Ray RLlib (new API stack), from one machine to a cluster.

    python -m cardenvs.training.rllib_selfplay --config configs/twenty_rllib.yaml [--steps N] [--minutes M]
                                      [--iterations N] [--out DIR] [--seed S] [--set key=value ...]
                                      [--address auto] [--num-env-runners K]
    cardenvs train twenty --algo rllib [same flags]

1. Read the YAML config (``Args``), the ``--set`` overrides and the flags through the training scripts' one
   loader (:mod:`cardenvs.config`); the run is called ``{game}__{exp}__{seed}``. The budget: ``iterations``
   of ``algo.train()``, and optionally ``--steps`` (``total_steps``, env steps sampled) and ``--minutes``;
   the run stops at whichever ends first. An iteration samples about ``train_batch_size_per_learner`` env
   steps, so ``--steps`` ends the run at the first iteration that reaches it; the run prints the steps it
   sampled when they differ from ``--steps`` (:func:`steps_note`).
2. Start Ray: ``--address auto`` joins a running cluster (``ray start --head`` ...), otherwise a local
   Ray with the configured CPUs.
3. PPO with the masking RLModule (:mod:`cardenvs.training.rllib_module`) on the one learner adapter, the vector
   learner view, as RLlib's vector env (:func:`make_env`; ``num_envs_per_env_runner``
   games per env runner, the learner's seat rotating): every other seat draws its opponent from the one
   opponent pool (``opponents``: agent name -> weight; frozen snapshots of the learner share
   ``snapshot_weight``, each an :class:`cardenvs.training.rllib_policies.RLlibAgent` playing batches).
4. After each iteration: the learner's win rate over its recent episodes (a positive return: a win on the
   default ``reward: win`` scale); above ``snapshot_win_rate`` a frozen copy of the learner joins the pool
   of every env runner (the newest ``max_snapshots`` are drawn).
5. Save a checkpoint every ``checkpoint_every`` iterations and at the end; the arena plays it as
   ``rllib:OUT/RUN/checkpoint``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import gymnasium as gym
import numpy as np
import yaml

from cardenvs import vector
from cardenvs.config import add_training_flags, read_trainer_config
from cardenvs.opponents import OpponentPool

from .rllib_policies import RLlibAgent


@dataclass
class Args:
    game: str = ""  # env id or short name (required: a config's game, --set game=..., or cardenvs train GAME)
    exp: str = "rllib"  # experiment name, part of the run name
    seed: int = 1
    options: dict = field(default_factory=dict)  # env options (the game variant)
    iterations: int = 20  # calls of algo.train() at most ...
    total_steps: int | None = None  # ... or stop once this many env steps are sampled (--steps) ...
    minutes: float | None = None  # ... or after this many minutes of wall time
    num_env_runners: int = 2
    num_envs_per_env_runner: int = 1
    num_cpus: int | None = None  # of the local Ray (None: every core)
    opponents: dict = field(default_factory=lambda: {"random": 1.0})  # agent name -> weight, the other seats
    snapshot_weight: float = 0.0  # total weight of frozen learner snapshots in the pool
    snapshot_win_rate: float = 0.6  # the learner's win rate above which a snapshot is taken
    max_snapshots: int = 5
    train_batch_size_per_learner: int = 4000
    minibatch_size: int = 512
    num_epochs: int = 4
    lr: float = 3e-4
    gamma: float = 1.0
    entropy_coeff: float = 0.01
    fcnet_hiddens: list = field(default_factory=lambda: [256, 256])
    num_learners: int = 0
    num_gpus_per_learner: int = 0
    checkpoint_every: int = 10  # iterations between checkpoints (and one at the end)
    out: str = "runs"
    address: str | None = None  # "auto" joins a running Ray cluster; None starts a local Ray


#: the default settings as a dict (``training/measure_throughput.py`` builds configs from it)
DEFAULTS: dict[str, Any] = dataclasses.asdict(Args())


def parse_args(argv: Sequence[str] | None) -> dict[str, Any]:
    """The run's settings as a dict (``build_config`` reads them by key)."""
    parser = argparse.ArgumentParser(description="Self-play PPO on Ray RLlib for a cardenvs game.")
    add_training_flags(
        parser,
        config_help="YAML config (configs/<game>_rllib.yaml)",
        steps_dest="total_steps",
        steps_help="stop once N env steps are sampled (config total_steps)",
        minutes_dest="minutes",
    )
    parser.add_argument("--iterations", type=int, help="calls of algo.train() at most (config iterations)")
    parser.add_argument("--address", help="'auto' joins a running Ray cluster; default: start a local Ray")
    parser.add_argument("--num-env-runners", type=int)
    ns = parser.parse_args(argv)
    flags = ("total_steps", "minutes", "iterations", "out", "address", "num_env_runners", "seed")
    values = read_trainer_config(parser, ns, Args, flags)
    for key in ("options", "opponents"):
        if not isinstance(values.get(key, {}), dict):
            parser.error(f"config key {key} must be a mapping (key: value lines, or {{}} for none)")
    if not values.get("game"):
        parser.error("no game: name one with a config's game, --set game=NAME, or cardenvs train GAME")
    return dataclasses.asdict(Args(**values))


# ---------------------------------------------------------------- 2. the env: the learner view, its mask beside
class WithMask(gym.vector.VectorWrapper):
    """Observations ``{"observation": [B, D], "action_mask": int8 [B, A]}``: the learner view's vectors and
    its masks (an ended game's mask is all 0 in next-step mode)."""

    def __init__(self, env: vector.LearnerVectorEnv):
        super().__init__(env)
        actions = cast(gym.spaces.Discrete, env.single_action_space)
        mask = gym.spaces.Box(0, 1, shape=(int(actions.n),), dtype=np.int8)
        self.single_observation_space = gym.spaces.Dict(
            {"observation": env.single_observation_space, "action_mask": mask}
        )
        self.observation_space = gym.vector.utils.batch_space(self.single_observation_space, env.num_envs)

    def _with_mask(self, obs: np.ndarray) -> dict[str, np.ndarray]:
        return {"observation": obs, "action_mask": self.env.unwrapped.action_masks().view(np.int8)}

    # gymnasium's VectorWrapper.reset also takes a list of seeds, which the VectorEnv it wraps does not
    def reset(self, *, seed: int | None = None, options: dict | None = None):  # type: ignore[override]
        obs, info = self.env.reset(seed=seed, options=options)
        return self._with_mask(obs), info

    def step(self, actions: Any):
        obs, rewards, terminated, truncated, info = self.env.step(np.asarray(actions, dtype=np.int64))
        return self._with_mask(obs), rewards, terminated, truncated, info


def make_env(config: dict[str, Any]) -> WithMask:
    """RLlib's vector entry point: ``config`` holds ``env_id``, ``options``, ``opponents`` (agent name ->
    weight), ``snapshot_weight``, ``max_snapshots`` and ``num_envs`` (RLlib adds it)."""
    pool = OpponentPool(dict(config["opponents"]), config.get("snapshot_weight", 0.0), config.get("max_snapshots", 5))
    env = vector.make(
        config["env_id"],
        int(config.get("num_envs", 1)),
        learner="rotate",
        opponents=pool,
        autoreset_mode="next_step",
        **dict(config.get("options", {})),
    )
    return WithMask(env)


def build_config(cfg: dict[str, Any]):
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.callbacks.callbacks import RLlibCallback
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.tune.registry import register_env

    from .rllib_module import MaskedPPOTorchRLModule

    class WinRateCallback(RLlibCallback):
        """Logs the learner's win rate: episodes with a positive return (wins on the ``win`` reward scale)."""

        def on_episode_end(self, *, episode, metrics_logger, **kwargs):
            metrics_logger.log_value("learner_win_rate", float(episode.get_return() > 0), reduce="mean", window=200)

    env_config = {key: cfg[key] for key in ("options", "opponents", "snapshot_weight", "max_snapshots")}
    env_config["env_id"] = cfg["game"]
    register_env("cardenvs", make_env)  # the env runners call it as the vector entry point
    return (
        PPOConfig()
        .environment("cardenvs", env_config=env_config, disable_env_checking=True)
        .env_runners(
            num_env_runners=cfg["num_env_runners"],
            num_envs_per_env_runner=cfg["num_envs_per_env_runner"],
            gym_env_vectorize_mode="vector_entry_point",
        )
        .learners(num_learners=cfg["num_learners"], num_gpus_per_learner=cfg["num_gpus_per_learner"])
        .rl_module(
            rl_module_spec=RLModuleSpec(
                module_class=MaskedPPOTorchRLModule, model_config={"fcnet_hiddens": cfg["fcnet_hiddens"]}
            )
        )
        .training(
            train_batch_size_per_learner=cfg["train_batch_size_per_learner"],
            minibatch_size=cfg["minibatch_size"],
            num_epochs=cfg["num_epochs"],
            lr=cfg["lr"],
            gamma=cfg["gamma"],
            entropy_coeff=cfg["entropy_coeff"],
        )
        .callbacks(WinRateCallback)
        .debugging(seed=cfg["seed"])
    )


def add_snapshot(algo: Any, name: str) -> int:
    """A frozen copy of the learner joins the opponent pool of every env runner that has an env; returns how
    many took it. The runners hold the learner's newest weights (synced after each training step)."""

    def join(runner: Any) -> bool:
        env = getattr(runner, "env", None)
        if env is None or runner.module is None:
            return False
        import copy

        env.unwrapped.pool.add_snapshot(RLlibAgent.from_module(copy.deepcopy(runner.module), name))
        return True

    return sum(algo.env_runner_group.foreach_env_runner(join, local_env_runner=True))


def steps_note(cfg: dict[str, Any], iterations: int, env_steps: int) -> str | None:
    """The line that names the env steps a run sampled when they are not its ``--steps`` budget, or None."""
    asked = cfg["total_steps"]
    if asked is None or env_steps == asked:
        return None
    if env_steps > asked:
        batch = cfg["train_batch_size_per_learner"]
        why = f"each iteration samples about train_batch_size_per_learner={batch:,} env steps"
    else:
        why = "another budget (iterations or minutes) ended the run first"
    done = f"{iterations} iteration{'s' * (iterations != 1)}"
    return f"total_steps (--steps) {asked:,}: sampled {env_steps:,} env steps in {done} ({why})"


def main(argv: Sequence[str] | None = None) -> int:
    cfg = parse_args(argv)
    import ray

    from cardenvs.registry import short_name

    run_name = f"{short_name(cfg['game'])}__{cfg['exp']}__{cfg['seed']}"
    run_dir = Path(cfg["out"]).resolve() / run_name
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "config.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))
    started_here = not ray.is_initialized()
    if started_here:
        if cfg["address"]:
            ray.init(address=cfg["address"])
        else:
            ray.init(address="local", num_cpus=cfg["num_cpus"], include_dashboard=False, log_to_driver=False)
    try:
        algo = build_config(cfg).build_algo()
        snapshots = 0
        log = []
        start = time.time()
        for it in range(1, cfg["iterations"] + 1):
            result = algo.train()
            runners = result.get("env_runners", {})
            row = {
                "iteration": it,
                "seconds": round(time.time() - start, 2),
                "env_steps": int(runners.get("num_env_steps_sampled_lifetime", 0)),
                "env_steps_per_s": float(runners.get("num_env_steps_sampled", 0))
                / max(1e-9, result.get("time_this_iter_s", 1)),
                "learner_win_rate": runners.get("learner_win_rate"),
                "snapshots": snapshots,
            }
            log.append(row)
            print(json.dumps(row), flush=True)
            win = row["learner_win_rate"]
            if cfg["snapshot_weight"] > 0 and win is not None and win > cfg["snapshot_win_rate"]:
                snapshots += 1
                row["snapshot_taken_by_runners"] = add_snapshot(algo, f"snapshot_{snapshots}")
            last = (
                it == cfg["iterations"]
                or (cfg["total_steps"] is not None and row["env_steps"] >= cfg["total_steps"])
                or (cfg["minutes"] is not None and time.time() - start >= 60 * cfg["minutes"])
            )
            if it % cfg["checkpoint_every"] == 0 or last:
                algo.save_to_path(str(run_dir / "checkpoint"))
            if last:
                break
        (run_dir / "log.json").write_text(json.dumps(log, indent=1))
        note = steps_note(cfg, len(log), log[-1]["env_steps"] if log else 0)
        if note:
            print(note, flush=True)
        algo.stop()
        print(
            f"saved {run_dir / 'checkpoint'}; play it with: cardenvs arena {cfg['game']} --agents "
            f"rllib:{run_dir / 'checkpoint'},random",
            flush=True,
        )
    finally:
        if started_here:
            ray.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
