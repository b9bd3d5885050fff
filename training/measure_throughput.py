"""Training throughput on this machine: SB3 MaskablePPO on the numba vector env (8 and 64 games), RLlib PPO
(0 and 2 env runners) on the first game, and the RLlib learner's update time on each game; by default the
games with a heuristic and a choice that have the fewest and the most actions (Twenty, 10, and Dou Dizhu,
28,242). The learner plays against the game's first heuristic (its spec's ``policy_agents``).

    python -m cardenvs.training.measure_throughput [--games twos doudizhu] [--iterations 3] [--batch 4000]
        [--sb3-only]

Prints one JSON line per measurement. Env steps per second count sampled env steps over wall time of
sampling+learning for SB3 (its loop interleaves them) and over RLlib's sampling time for RLlib.
"""

from __future__ import annotations

import argparse
import json
import time

from cardenvs.registry import env_ids, make, resolve_id, spec_of


def heuristic(game: str) -> str:
    """The game's first numba heuristic, as an agent name."""
    return spec_of(game).policy_agents()[0]


def default_games() -> list[str]:
    """The games with a heuristic that have the fewest and the most actions (more than one: a choice)."""
    sizes = {}
    for env_id in env_ids():
        if spec_of(env_id).policy_agents():
            env = make(env_id)
            if env.action_space(env.possible_agents[0]).n > 1:
                sizes[env_id] = env.action_space(env.possible_agents[0]).n
    ordered = sorted(sizes, key=sizes.__getitem__)
    return [ordered[0], ordered[-1]]


def sb3_env(game: str, n_envs: int):
    """The self-play VecEnv the learner samples from: the vector learner view against the game's heuristic."""
    from .wrapper import make_vector_selfplay

    return make_vector_selfplay(game, {}, {heuristic(game): 1.0}, n_envs, seed=0)


def sb3_steps_per_second(game: str, steps: int, n_envs: int = 8) -> dict:
    """MaskablePPO learning (sampling and updates, 4,096 steps a rollout) and sampling alone (the policy's
    masked actions and env steps), in env steps per second."""
    from sb3_contrib import MaskablePPO

    vec = sb3_env(game, n_envs)
    model = MaskablePPO("MlpPolicy", vec, n_steps=4096 // n_envs, batch_size=512, n_epochs=4, device="cpu", seed=0)
    start = time.perf_counter()
    model.learn(steps)
    learn = model.num_timesteps / (time.perf_counter() - start)
    obs = vec.reset()
    sampled, start = 0, time.perf_counter()
    while sampled < steps:
        masks = vec.env_method("action_masks")
        actions, _ = model.predict(obs, action_masks=masks)
        obs, _, _, _ = vec.step(actions)
        sampled += n_envs
    sample = sampled / (time.perf_counter() - start)
    return {
        "sb3": game,
        "backend": "vector",
        "n_envs": n_envs,
        "learn_steps_per_s": learn,
        "sampling_steps_per_s": sample,
    }


def rllib_run(game: str, runners: int, iterations: int, batch: int) -> dict:
    import ray

    from .rllib_selfplay import DEFAULTS, build_config

    cfg = dict(
        DEFAULTS,
        game=game,
        num_env_runners=runners,
        num_envs_per_env_runner=4 if runners else 8,
        train_batch_size_per_learner=batch,
        minibatch_size=512,
        num_epochs=4,
        opponents={heuristic(game): 1.0},
    )
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        algo = build_config(cfg).build_algo()
        algo.train()  # warm-up
        steps = sample_s = learn_s = 0.0
        for _ in range(iterations):
            result = algo.train()
            timers = result.get("timers", {})
            steps += result["env_runners"].get("num_env_steps_sampled", 0)
            sample_s += timers.get("env_runner_sampling_timer", 0.0)
            learn_s += timers.get("learner_update_timer", 0.0)
        algo.stop()
    finally:
        ray.shutdown()
    return {
        "game": game,
        "env_runners": runners,
        "env_steps_per_s_sampling": steps / max(sample_s, 1e-9),
        "learner_update_s_per_iteration": learn_s / iterations,
        "batch": batch,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", help="env ids or short names (default: module docstring)")
    parser.add_argument("--iterations", type=int, default=3)
    parser.add_argument("--batch", type=int, default=4000)
    parser.add_argument("--sb3-steps", type=int, default=20_000)
    parser.add_argument("--sb3-only", action="store_true", help="only the SB3 measurements")
    args = parser.parse_args(argv)
    games = [resolve_id(game) for game in args.games] if args.games else default_games()
    for game in games:
        for n_envs in (8, 64):
            print(json.dumps(sb3_steps_per_second(game, args.sb3_steps, n_envs)), flush=True)
    if args.sb3_only:
        return 0
    for game in games:
        for runners in (0, 2) if game == games[0] else (0,):
            print(json.dumps(rllib_run(game, runners, args.iterations, args.batch)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
