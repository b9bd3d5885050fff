"""A single-agent Gymnasium view of any cardenvs env, for self-play with MaskablePPO.

The learner occupies one seat (``seat="rotate"``: seat ``k mod n`` in episode ``k``; ``"random"``: drawn
from the wrapper's generator; or a fixed seat index). Every other seat is played inside the wrapper by an
opponent drawn from an :class:`~training.opponents.OpponentPool` at each reset. Opponents are given only
their own observation (``env.observe(their seat)``), never the learner's.

The learner sees its own observation vector and receives its own rewards: the sum of what the AEC env
handed it on its own step *and* on every opponent step until its next turn, including the terminal reward
when an opponent's move ends the game (losses included). ``action_masks()`` is a method of the env itself,
so it works in ``SubprocVecEnv``. ``features`` names the observation features the learner sees
(:mod:`training.features`; default: the env's raw vector).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from cardenvs.registry import make

from .features import feature_size, get_features
from .opponents import OpponentPool


class SelfPlayEnv(gym.Env):
    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        env_id: str,
        options: dict | None = None,
        opponents: OpponentPool | None = None,
        seat: str | int = "rotate",
        seed: int | None = None,
        margin_shaping: float = 0.0,
        features: str | None = None,
    ):
        self.env_id = env_id
        self.aec = make(env_id, **(options or {}))
        self.base = self.aec.unwrapped
        self.num_players = self.base.num_players
        if not (seat in ("rotate", "random") or (isinstance(seat, int) and 0 <= seat < self.num_players)):
            raise ValueError(f"seat must be 'rotate', 'random' or 0..{self.num_players - 1}; got {seat!r}")
        self.seat_mode = seat
        # optional dense shaping: + margin_shaping x change of (own score - mean of the others' scores)
        self.margin_shaping = float(margin_shaping)
        self.pool = opponents or OpponentPool({"random": 1.0})
        agent = self.base.possible_agents[0]
        self.action_space = self.base.action_space(agent)
        self.features_name = features
        self.features = get_features(features)
        if features in (None, "raw"):
            self.observation_space = self.base.observation_space(agent)["observation"]
        else:
            size = feature_size(features, self.base)
            self.observation_space = gym.spaces.Box(-np.inf, np.inf, (size,), dtype=np.float32)
        self.rng = np.random.default_rng(seed)
        self.episodes = 0
        self.learner_seat = 0
        self.learner = self.base.possible_agents[0]
        self.opponents: dict[int, Any] = {}
        self._mask = np.zeros(self.action_space.n, dtype=bool)
        self._final_info: dict = {}
        self._final_obs = self.base.layout.zeros()

    # ------------------------------------------------------------------ gymnasium API
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        if self.seat_mode == "rotate":
            self.learner_seat = self.episodes % self.num_players
        elif self.seat_mode == "random":
            self.learner_seat = int(self.rng.integers(self.num_players))
        else:
            self.learner_seat = int(self.seat_mode)
        self.episodes += 1
        self.learner = self.base.possible_agents[self.learner_seat]
        self.opponents = {
            s: self.pool.sample(self.rng, self.base) for s in range(self.num_players) if s != self.learner_seat
        }
        self.aec.reset(seed=int(self.rng.integers(2**63 - 1)), options=options)
        self._margin = self._score_margin()
        reward, done, truncated = self._advance()
        if done:  # a game that ends before the learner moves (possible in principle): play another
            return self.reset()
        return self._observation(), {"learner_seat": self.learner_seat}

    def step(self, action):
        self.aec.step(int(action))
        reward = self.aec.rewards.get(self.learner, 0.0)
        more, done, truncated = self._advance()
        if self.margin_shaping:
            margin = self._score_margin()
            reward += self.margin_shaping * (margin - self._margin)
            self._margin = margin
        info = {"learner_seat": self.learner_seat}
        if done or truncated:
            info["score"] = self._final_info.get("score", 0.0)
            info["outcome"] = float(self.base.outcome()[self.learner_seat])
        return self._observation(), float(reward + more), done, truncated, info

    def action_masks(self) -> np.ndarray:
        return self._mask.copy()

    def render(self):
        return self.base.render_text()

    # ------------------------------------------------------------------ opponents
    def add_snapshot(self, path: str, weight: float | None = None) -> None:
        """Add a frozen copy of the learner (a saved model) to the opponent pool (callable via env_method)."""
        self.pool.add_snapshot(path, weight)

    def _advance(self) -> tuple[float, bool, bool]:
        """Let opponents move until it is the learner's turn or the game is over; the learner's rewards meanwhile."""
        reward = 0.0
        while True:
            if self.learner not in self.aec.agents:
                return reward, True, False
            agent = self.aec.agent_selection
            if self.aec.terminations[self.learner] or self.aec.truncations[self.learner]:
                self._final_info = dict(self.aec.infos[self.learner])
                truncated = self.aec.truncations[self.learner]
                terminated = self.aec.terminations[self.learner]
                self._final_obs = self.aec.observe(self.learner)["observation"]
                self._mask = np.zeros(self.action_space.n, dtype=bool)
                return reward, terminated, truncated and not terminated
            if agent == self.learner:
                obs = self.aec.observe(agent)
                self._mask = obs["action_mask"].astype(bool)
                self._final_obs = obs["observation"]
                return reward, False, False
            seat = self.base.agent_name_mapping[agent]
            action = self.opponents[seat].act(self.aec.observe(agent), self.rng)
            self.aec.step(action)
            reward += self.aec.rewards.get(self.learner, 0.0)

    def _score_margin(self) -> float:
        scores = self.base.scores()
        others = np.delete(scores, self.learner_seat)
        return float(scores[self.learner_seat] - others.mean())

    def _observation(self) -> np.ndarray:
        if self.features_name in (None, "raw"):
            return self._final_obs
        return self.features(self.base, self._final_obs, self._mask)


def snapshot_opponent(path: str, features: str | None, base: Any):
    """A saved MaskablePPO model as a batched opponent: ``f({"observation", "action_mask"}) -> actions``
    (its greedy masked actions on the features it was trained with)."""
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(path, device="cpu")
    fn = get_features(features)

    def act(batch: dict) -> np.ndarray:
        obs = batch["observation"]
        if features not in (None, "raw"):
            obs = np.stack([fn(base, o, m) for o, m in zip(obs, batch["action_mask"], strict=True)])
        actions, _ = model.predict(obs, action_masks=batch["action_mask"], deterministic=True)
        return np.asarray(actions, dtype=np.int64)

    act.__name__ = f"ppo:{path}"
    return act


def make_vector_selfplay(
    env_id: str,
    options: dict | None,
    opponents: dict[str, float],
    n_envs: int,
    seat: str | int = "rotate",
    seed: int | None = None,
    margin_shaping: float = 0.0,
    features: str | None = None,
    snapshot_weight: float = 0.0,
    max_snapshots: int = 5,
    threads: int = 1,
):
    """Self-play on the numba vector env: an SB3 ``VecEnv`` of ``n_envs`` games stepped together.

    The learner and its opponents as in :class:`SelfPlayEnv`, but each seat of each deal draws its opponent
    from the pool inside :class:`cardenvs.vector.LearnerVectorEnv`: heuristics and ``random`` run as numba
    policies (no Python per game); frozen snapshots of the learner (``add_snapshot``, also through
    ``env_method``) are MaskablePPO models called once per round on the batch of games where they are to
    move, the newest ``max_snapshots`` sharing ``snapshot_weight``. Features and margin shaping are applied
    to the batch; the learner receives its own rewards, terminal ones included.
    """
    from cardenvs import vector
    from cardenvs.sb3 import SB3VecEnv

    if seat == "random":
        raise ValueError("seat='random' is not supported on the vector env; use 'rotate' or a seat index")
    base = make(env_id, **(options or {})).unwrapped
    pool: dict[Any, float] = {}
    for name, weight in opponents.items():
        pool[snapshot_opponent(name[4:], features, base) if name.startswith("ppo:") else name] = weight
    venv = vector.make(env_id, n_envs, learner=seat, opponents=pool, threads=threads, **(options or {}))
    feature_fn = get_features(features)
    rows = np.arange(n_envs)

    def margins(scores: np.ndarray, seats: np.ndarray) -> np.ndarray:
        own = scores[rows, seats]
        return own - (scores.sum(axis=1) - own) / max(1, scores.shape[1] - 1)

    class VectorSelfPlayEnv(SB3VecEnv):
        def __init__(self):
            super().__init__(venv)
            if features not in (None, "raw"):
                size = feature_size(features, base)
                self.observation_space = gym.spaces.Box(-np.inf, np.inf, (size,), dtype=np.float32)
            self._margin = np.zeros(n_envs)
            self.snapshots: list[int] = []  # pool indices of the snapshots, oldest first
            self.seed(seed)

        def _features(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
            if features in (None, "raw"):
                return obs
            return np.stack([feature_fn(base, o, m) for o, m in zip(obs, masks, strict=True)])

        def reset(self):
            obs = self._features(super().reset(), venv.action_masks())
            self._margin = margins(venv.scores, venv.learner_seat)
            return obs

        def step_wait(self):
            seats = venv.learner_seat.copy()
            obs, rewards, dones, infos = super().step_wait()
            if margin_shaping:
                scores = venv.scores.copy()
                ended = np.flatnonzero(dones)
                scores[ended] = venv._b.final_scores[ended]
                margin = margins(scores, seats)
                rewards = rewards + np.float32(margin_shaping) * (margin - self._margin).astype(np.float32)
                self._margin = margins(venv.scores, venv.learner_seat)
            no_mask = np.zeros((1, venv.single_action_space.n), dtype=bool)
            for i in np.flatnonzero(dones):
                infos[i]["terminal_observation"] = self._features(infos[i]["terminal_observation"][None], no_mask)[0]
                infos[i]["learner_seat"] = int(seats[i])
            return self._features(obs, venv.action_masks()), rewards, dones, infos

        def add_snapshot(self, path: str, weight: float | None = None) -> None:
            total = snapshot_weight if weight is None else float(weight)
            self.snapshots.append(venv.add_opponent(snapshot_opponent(path, features, base), 0.0))
            kept = self.snapshots[-max_snapshots:]
            for index in self.snapshots:
                venv.set_opponent_weight(index, total / len(kept) if index in kept else 0.0)

        def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs):
            if method_name == "add_snapshot":
                self.add_snapshot(*method_args, **method_kwargs)
                return [None] * len(self._indices(indices))
            return super().env_method(method_name, *method_args, indices=indices, **method_kwargs)

    return VectorSelfPlayEnv()
