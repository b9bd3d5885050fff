"""Self-play on Ray RLlib (new API stack), from one machine to a cluster.

    python -m cardenvs.training.rllib_selfplay --config configs/twenty_rllib.yaml [--steps N] [--minutes M]
                                      [--iterations N] [--out DIR] [--seed S] [--set key=value ...]
                                      [--address auto] [--num-env-runners K]
    cardenvs train twenty --algo rllib [same flags]

1. Read the YAML config (``Args``), the ``--set`` overrides and the flags through the training scripts' one
   loader (:mod:`training.config`); the run is called ``{game}__{exp}__{seed}``. The budget: ``iterations``
   of ``algo.train()``, and optionally ``--steps`` (``total_steps``, env steps sampled) and ``--minutes``;
   the run stops at whichever ends first.
2. Start Ray: ``--address auto`` joins a running cluster (``ray start --head`` ...), otherwise a local
   Ray with the configured CPUs.
3. PPO with the masking RLModule (:mod:`training.rllib_module`) over :class:`training.rllib_env.RLlibCardEnv`:
   the ``learner`` role is trained; heuristics from ``heuristics`` play the other seats inside the env; in
   a share ``opponent_share`` of episodes one seat is the ``opponent`` role, played by a frozen snapshot
   of the learner (by the learner itself until the first snapshot).
4. After each iteration: the learner's win rate over its recent episodes (outcome > 0 on the env's win
   scale, whatever the reward option); above ``snapshot_win_rate`` a frozen copy joins the snapshots.
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
from typing import Any

import yaml

from cardenvs.training.config import add_config_arguments, read_config


@dataclass
class Args:
    game: str = "twenty_v0"  # env id or short name
    exp: str = "rllib"  # experiment name, part of the run name
    seed: int = 1
    options: dict = field(default_factory=dict)  # env options (the game variant)
    iterations: int = 20  # calls of algo.train() at most ...
    total_steps: int | None = None  # ... or stop once this many env steps are sampled (--steps) ...
    minutes: float | None = None  # ... or after this many minutes of wall time
    num_env_runners: int = 2
    num_envs_per_env_runner: int = 1
    num_cpus: int | None = None  # of the local Ray (None: every core)
    heuristics: dict = field(default_factory=lambda: {"random": 1.0})  # agent name -> weight, the other seats
    opponent_share: float = 0.0  # share of episodes where one seat is a frozen snapshot of the learner
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
    add_config_arguments(
        parser,
        "configs/<game>_rllib.yaml",
        steps_key="total_steps",
        steps_help="stop once N env steps are sampled (config total_steps)",
        minutes_key="minutes",
    )
    parser.add_argument("--iterations", type=int, help="calls of algo.train() at most (config iterations)")
    parser.add_argument("--address", help="'auto' joins a running Ray cluster; default: start a local Ray")
    parser.add_argument("--num-env-runners", type=int)
    ns = parser.parse_args(argv)
    flags = ("total_steps", "minutes", "iterations", "out", "address", "num_env_runners", "seed")
    values = read_config(parser, ns, Args, flags)
    for key in ("options", "heuristics"):
        if not isinstance(values.get(key, {}), dict):
            parser.error(f"config key {key} must be a mapping (key: value lines, or {{}} for none)")
    return dataclasses.asdict(Args(**values))


def mapping_fn(snapshots: list[str]):
    def agent_to_module(agent_id, episode, **kwargs):
        if agent_id == "learner" or not snapshots:
            return "learner"
        return snapshots[hash(episode.id_) % len(snapshots)]

    return agent_to_module


def build_config(cfg: dict[str, Any]):
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.callbacks.callbacks import RLlibCallback
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.tune.registry import register_env

    from cardenvs.training.rllib_env import RLlibCardEnv
    from cardenvs.training.rllib_module import MaskedPPOTorchRLModule

    register_env("cardenvs", lambda env_config: RLlibCardEnv(env_config))

    class OutcomeCallback(RLlibCallback):
        """Logs the learner's win rate (outcome > 0 on the win scale) and illegal actions per episode."""

        def on_episode_end(self, *, episode, metrics_logger, **kwargs):
            infos = episode.get_infos(-1) if hasattr(episode, "get_infos") else {}
            info = infos.get("learner", {}) if isinstance(infos, dict) else {}
            if "outcome" in info:
                metrics_logger.log_value("learner_win_rate", float(info["outcome"] > 0), reduce="mean", window=200)
                metrics_logger.log_value("illegal_actions", float(info["illegal_actions"]), reduce="max")

    spec = RLModuleSpec(module_class=MaskedPPOTorchRLModule, model_config={"fcnet_hiddens": cfg["fcnet_hiddens"]})
    env_config = {
        "env_id": cfg["game"],
        "options": cfg["options"],
        "heuristics": cfg["heuristics"],
        "opponent_share": cfg["opponent_share"],
        "seed": cfg["seed"],
    }
    return (
        PPOConfig()
        .environment("cardenvs", env_config=env_config, disable_env_checking=True)
        .env_runners(num_env_runners=cfg["num_env_runners"], num_envs_per_env_runner=cfg["num_envs_per_env_runner"])
        .learners(num_learners=cfg["num_learners"], num_gpus_per_learner=cfg["num_gpus_per_learner"])
        .multi_agent(policies={"learner"}, policy_mapping_fn=mapping_fn([]), policies_to_train=["learner"])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={"learner": spec}))
        .training(
            train_batch_size_per_learner=cfg["train_batch_size_per_learner"],
            minibatch_size=cfg["minibatch_size"],
            num_epochs=cfg["num_epochs"],
            lr=cfg["lr"],
            gamma=cfg["gamma"],
            entropy_coeff=cfg["entropy_coeff"],
        )
        .callbacks(OutcomeCallback)
        .debugging(seed=cfg["seed"])
    )


def main(argv: Sequence[str] | None = None) -> int:
    cfg = parse_args(argv)
    import ray
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from cardenvs import resolve_id

    run_name = f"{resolve_id(cfg['game']).rsplit('_v', 1)[0]}__{cfg['exp']}__{cfg['seed']}"
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
        snapshots: list[str] = []
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
                "illegal_actions": runners.get("illegal_actions", 0.0),
                "snapshots": len(snapshots),
            }
            log.append(row)
            print(json.dumps(row), flush=True)
            win = row["learner_win_rate"]
            if cfg["opponent_share"] > 0 and win is not None and win > cfg["snapshot_win_rate"]:
                module_id = f"snapshot_{len(snapshots) + 1}"
                learner = algo.get_module("learner")
                snapshots = (snapshots + [module_id])[-cfg["max_snapshots"] :]
                algo.add_module(
                    module_id=module_id,
                    module_spec=RLModuleSpec.from_module(learner),
                    new_agent_to_module_mapping_fn=mapping_fn(list(snapshots)),
                    new_should_module_be_updated=["learner"],
                )
                algo.set_state({"learner_group": {"learner": {"rl_module": {module_id: learner.get_state()}}}})
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
