"""Self-play training with MaskablePPO, top to bottom. Usage::

    python -m cardenvs.training.selfplay --config configs/twenty_ppo.yaml [--steps N] [--minutes M] [--out DIR]
                                [--seed S] [--set ppo.learning_rate=1e-4 ...]
    cardenvs train twenty [same flags]

``--steps`` is ``total_timesteps`` and ``--minutes`` ``time_limit_minutes`` (``--total-timesteps`` and
``--time-limit-minutes`` are the old spellings); training stops at whichever ends first. PPO collects whole
rollouts of ``ppo.n_steps`` x ``n_envs`` timesteps, so a budget that is not a multiple of that is rounded up
to one (:func:`whole_rollouts`), and the run says so.

1. Read the YAML config (see ``Args``) and the overrides.
2. Seed everything from ``seed``; the run is called ``{game}__{exp}__{seed}``.
3. Build the self-play env: ``n_envs`` games of the numba vector env's learner view
   (:func:`~cardenvs.training.wrapper.make_vector_selfplay`; learner seat rotating, opponents drawn from the one
   opponent pool of numba heuristics, random, other agents by name and frozen snapshots of the learner).
4. Train MaskablePPO with a progress bar, TensorBoard and CSV logs in ``OUT/RUN/``.
5. Every ``eval_every`` steps: save a checkpoint, add it to the opponent pool as a snapshot, and play it
   against ``eval_opponent`` through the arena's duplicate deals; the win rate with its 95% interval goes
   to ``eval.csv`` and TensorBoard (``training/plot_curves.py`` draws the learning curve from it).
6. Save ``final_model.zip`` (the arena loads it as ``ppo:OUT/RUN/final_model.zip``) and a final evaluation.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from cardenvs.config import add_training_flags, read_trainer_config
from cardenvs.core import seeds


@dataclass
class Args:
    game: str = ""  # env id or short name (required: a config's game, --set game=..., or cardenvs train GAME)
    exp: str = "ppo"  # experiment name, part of the run name
    seed: int = 1
    options: dict = field(default_factory=dict)  # env options (the game variant)
    total_timesteps: int = 100_000
    time_limit_minutes: float | None = None  # stop training after this wall time
    n_envs: int = 4
    seat: str | int = "rotate"  # learner seat: "rotate" (game b, episode k: seat (b + k) % n) or a seat index
    margin_shaping: float = 0.0  # dense reward: this x change of (own score - mean other score)
    features: str | None = None  # observation features of the learner (training/features.py): raw, scaled, twenty
    policy: str = "mlp"  # "mlp" (SB3's linear action head) or "action_features" (training/heads.py)
    opponents: dict = field(default_factory=lambda: {"random": 1.0})  # agent name (or ppo:PATH) -> weight
    snapshot_weight: float = 0.0  # total weight of frozen learner snapshots in the pool
    max_snapshots: int = 5
    eval_every: int = 20_000  # timesteps between evaluations / checkpoints / snapshots
    eval_games: int = 100  # duplicate deals per evaluation
    eval_opponent: str = "random"  # the heuristic evaluated against (fills every other seat)
    final_eval_games: int = 0  # deals for the final evaluation (0 = eval_games)
    out: str = "runs"
    ppo: dict = field(
        default_factory=lambda: {
            "learning_rate": 3e-4,
            "n_steps": 512,
            "batch_size": 256,
            "n_epochs": 4,
            "gamma": 1.0,
            "gae_lambda": 0.95,
            "ent_coef": 0.01,
            "net_arch": [256, 256],
        }
    )
    progress_bar: bool = True

    @property
    def run_name(self) -> str:
        from cardenvs.registry import short_name

        return f"{short_name(self.game)}__{self.exp}__{self.seed}"


POLICIES = ("mlp", "action_features")  # values of Args.policy


def parse_args(argv: Sequence[str] | None) -> Args:
    parser = argparse.ArgumentParser(description="Self-play MaskablePPO on a cardenvs game.")
    add_training_flags(
        parser,
        config_help="YAML config (configs/<game>_ppo.yaml)",
        steps_dest="total_timesteps",
        steps_help="stop after N timesteps, the learner's moves (config total_timesteps; --total-timesteps is "
        "the old spelling)",
        minutes_dest="time_limit_minutes",
        aliases={"steps": ["--total-timesteps"], "minutes": ["--time-limit-minutes"]},
    )
    parser.add_argument("--n-envs", type=int)
    parser.add_argument("--eval-every", type=int)
    parser.add_argument("--eval-games", type=int)
    parser.add_argument(
        "--no-progress", "--no-progress-bar", dest="no_progress", action="store_true", help="no progress bar"
    )
    ns = parser.parse_args(argv)
    flags = ("total_timesteps", "time_limit_minutes", "out", "seed", "n_envs", "eval_every", "eval_games")
    values = read_trainer_config(parser, ns, Args, flags)
    if ns.no_progress:
        values["progress_bar"] = False
    for key in ("options", "opponents", "ppo"):
        if key in values and not isinstance(values[key], dict):
            parser.error(
                f"config key {key} must be a mapping (key: value lines, or {{}} for none), got "
                f"{'null' if values[key] is None else type(values[key]).__name__}"
            )
    if values.get("policy", "mlp") not in POLICIES:
        parser.error(f"unknown policy {values['policy']!r}; known: {', '.join(POLICIES)}")
    seat = values.get("seat", "rotate")
    if seat != "rotate" and (isinstance(seat, bool) or not isinstance(seat, int)):
        parser.error(f"seat must be 'rotate' or a seat index, got {seat!r}")
    _check_game_and_ppo(parser, values)
    defaults = Args()
    if "ppo" in values:
        values["ppo"] = {**defaults.ppo, **values["ppo"]}
    return Args(**values)


def _check_game_and_ppo(parser: argparse.ArgumentParser, values: dict[str, Any]) -> None:
    """The game, its env options and the ppo keys, checked before a run folder is made."""
    from cardenvs import make, resolve_id

    game = values.get("game", Args.game)
    if not game:
        parser.error("no game: name one with a config's game, --set game=NAME, or cardenvs train GAME")
    try:
        make(resolve_id(str(game)), **values.get("options", {}))
    except ValueError as exc:
        parser.error(f"game {game!r} with options {values.get('options', {})}: {exc}")
    import inspect

    try:
        from sb3_contrib import MaskablePPO
    except ImportError:  # main() says what is missing
        return
    # main() passes the policy, env, seed, device, verbosity and policy_kwargs itself; net_arch goes to the latter
    accepted = set(inspect.signature(MaskablePPO.__init__).parameters) - {
        "self",
        "policy",
        "env",
        "seed",
        "device",
        "verbose",
        "policy_kwargs",
        "_init_setup_model",
    }
    accepted |= {"net_arch"}
    unknown = sorted(set(values.get("ppo", {})) - accepted)
    if unknown:
        parser.error(f"unknown ppo keys {unknown}; MaskablePPO takes {sorted(accepted)}")


def whole_rollouts(total_timesteps: int, n_steps: int, n_envs: int) -> int:
    """The timesteps a PPO run of ``total_timesteps`` plays: SB3 collects whole rollouts of ``n_steps`` steps
    in each of ``n_envs`` games before it checks the budget, so the budget rounded up to a rollout."""
    rollout = n_steps * n_envs
    return -(-total_timesteps // rollout) * rollout


def evaluate(model_path: str, args: Args, games: int, seed: int) -> dict[str, float]:
    """The model against ``eval_opponent`` in every other seat, over the arena's duplicate deals."""
    from cardenvs import arena, make

    n = make(args.game, **args.options).unwrapped.num_players
    agents = [f"ppo:{model_path}"] + [args.eval_opponent] * (n - 1)
    results = arena.run_tournament(args.game, agents, games, seed=seed, options=args.options, duplicate=True)
    label = results.agents[0]
    st = results.stats()[label]
    return {
        "win_rate": st["win_rate"],
        "win_rate_lo": st["win_rate_ci"][0],
        "win_rate_hi": st["win_rate_ci"][1],
        "mean_score": st["mean_score"],
        "games": st["games"],
        "draws": st["draws"],
    }


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.logger import configure

    # 2. seeding and the run folder
    torch.manual_seed(args.seed)
    torch.distributions.Distribution.set_default_validate_args(False)  # the masks already keep logits sane
    run_dir = Path(args.out) / args.run_name
    (run_dir / "checkpoints").mkdir(parents=True, exist_ok=True)
    (run_dir / "config.yaml").write_text(yaml.safe_dump(dataclasses.asdict(args), sort_keys=False))
    print(f"run {args.run_name} -> {run_dir}", flush=True)

    # 3. self-play on the vector learner view: all games stepped together, opponents drawn from the pool
    from .wrapper import make_vector_selfplay

    vec = make_vector_selfplay(
        args.game,
        args.options,
        args.opponents,
        args.n_envs,
        args.seat,
        args.seed,
        args.margin_shaping,
        args.features,
        args.snapshot_weight,
        args.max_snapshots,
    )

    # 4. the learner
    ppo = dict(args.ppo)
    policy_kwargs: dict[str, Any] = {"net_arch": ppo.pop("net_arch", [256, 256])}
    if args.policy == "action_features":
        from .heads import ActionFeaturePolicy

        policy: Any = ActionFeaturePolicy
        policy_kwargs["action_game"] = args.game
    else:
        policy = "MlpPolicy"
    model = MaskablePPO(policy, vec, seed=args.seed, device="cpu", verbose=0, policy_kwargs=policy_kwargs, **ppo)
    # saved with the model; PPOAgent applies the same features (an attribute of ours, unknown to SB3's types)
    model.observation_features = args.features  # type: ignore[attr-defined]
    model.set_logger(configure(str(run_dir), ["csv", "tensorboard"]))

    # 5. periodic evaluation, checkpoints and snapshots
    eval_csv = run_dir / "eval.csv"
    with open(eval_csv, "w", newline="") as f:
        csv.writer(f).writerow(
            ["timesteps", "minutes", "win_rate", "win_rate_lo", "win_rate_hi", "mean_score", "games"]
        )
    started = time.time()

    def record(timesteps: int, path: str, games: int) -> dict[str, float]:
        result = evaluate(path, args, games, seed=seeds.linear_seed(args.seed, 0, stream="training_evaluation"))
        minutes = (time.time() - started) / 60
        with open(eval_csv, "a", newline="") as f:
            csv.writer(f).writerow(
                [
                    timesteps,
                    f"{minutes:.2f}",
                    result["win_rate"],
                    result["win_rate_lo"],
                    result["win_rate_hi"],
                    result["mean_score"],
                    result["games"],
                ]
            )
        print(
            f"[{minutes:6.1f} min] {timesteps:>9,d} steps: win rate vs {args.eval_opponent} "
            f"{result['win_rate']:.3f} [{result['win_rate_lo']:.3f}, {result['win_rate_hi']:.3f}]",
            flush=True,
        )
        return result

    class EvalSnapshotCallback(BaseCallback):
        def __init__(self):
            super().__init__()
            self.next_eval = args.eval_every

        def _on_step(self) -> bool:
            if self.num_timesteps >= self.next_eval:
                self.next_eval += args.eval_every
                path = str(run_dir / "checkpoints" / f"step_{self.num_timesteps}.zip")
                self.model.save(path)
                result = record(self.num_timesteps, path, args.eval_games)
                self.logger.record("eval/win_rate", result["win_rate"])
                self.logger.record("eval/mean_score", result["mean_score"])
                if args.snapshot_weight > 0:
                    self.training_env.env_method("add_snapshot", path)
            if args.time_limit_minutes and time.time() - started > 60 * args.time_limit_minutes:
                print(
                    f"time limit of {args.time_limit_minutes} minutes reached at {self.num_timesteps} steps", flush=True
                )
                return False
            return True

    total = whole_rollouts(args.total_timesteps, model.n_steps, model.n_envs)
    if total != args.total_timesteps:
        print(
            f"total_timesteps (--steps) {args.total_timesteps:,} rounded up to {total:,}: PPO collects whole "
            f"rollouts of n_steps x n_envs = {model.n_steps} x {model.n_envs} timesteps",
            flush=True,
        )
    model.learn(total_timesteps=total, callback=EvalSnapshotCallback(), progress_bar=args.progress_bar)

    # 6. the final model and its evaluation
    final = run_dir / "final_model.zip"
    model.save(str(final))
    result = record(model.num_timesteps, str(final), args.final_eval_games or args.eval_games)
    (run_dir / "final_eval.json").write_text(json.dumps(result, indent=2))
    vec.close()
    print(
        f"saved {final} ({model.num_timesteps:,} timesteps); play it with: cardenvs arena {args.game} "
        f"--agents ppo:{final},{args.eval_opponent}",
        flush=True,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
