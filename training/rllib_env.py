"""cardenvs AEC envs as RLlib multi-agent envs, for self-play on Ray RLlib.

RLlib's masking wants ``{"observations", "action_mask"}`` with float observations (its default network
breaks on int8), so the adapter renames the keys, casts to float32 and rewrites the spaces. Agent ids are
*roles*, not seats: ``"learner"`` (trained), ``"opponent"`` (mapped to a frozen snapshot of the learner,
or to the learner itself before any snapshot exists) and heuristic seats played inside the env by agents
from the registry. Roles move to random seats every episode, so seats swap between episodes.

Turn-based: each step returns the observation of the role to move; rewards earned meanwhile by the other
roles are handed over as they come. When the game ends -- terminated *or* truncated -- every role gets a
final observation, its reward and its flag, with ``"__all__"`` set.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from cardenvs.agent import load_agent
from cardenvs.registry import make

ROLES = ("learner", "opponent")


def convert_observation(obs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Our ``{"observation", "action_mask"}`` -> RLlib's ``{"observations", "action_mask"}``, float32."""
    return {"observations": obs["observation"].astype(np.float32), "action_mask": obs["action_mask"].astype(np.float32)}


def convert_space(space: gym.spaces.Dict) -> gym.spaces.Dict:
    inner, mask = space["observation"], space["action_mask"]
    return gym.spaces.Dict(
        {
            "observations": gym.spaces.Box(0.0, inner.high.astype(np.float32), shape=inner.shape, dtype=np.float32),
            "action_mask": gym.spaces.Box(0.0, 1.0, shape=mask.shape, dtype=np.float32),
        }
    )


class RLlibCardEnv(MultiAgentEnv):
    def __init__(self, config: dict[str, Any] | None = None):
        super().__init__()
        config = dict(config or {})
        self.env_id = config.get("env_id", "twenty_v0")
        self.aec = make(self.env_id, **config.get("options", {}))
        self.base = self.aec.unwrapped
        self.heuristics = dict(config.get("heuristics", {"random": 1.0}))
        self.opponent_share = float(config.get("opponent_share", 0.0))  # episodes with an RL opponent seat
        self.rng = np.random.default_rng(config.get("seed"))
        seat_space = convert_space(self.base.observation_space(self.base.possible_agents[0]))
        self.possible_agents = list(ROLES)
        self.agents = []
        self.observation_spaces = {r: seat_space for r in ROLES}
        self.action_spaces = {r: self.base.action_space(self.base.possible_agents[0]) for r in ROLES}
        self.observation_space = gym.spaces.Dict(self.observation_spaces)
        self.action_space = gym.spaces.Dict(self.action_spaces)
        self.illegal_actions = 0  # actions outside the mask that reached this adapter (should stay 0)
        self._cache: dict[str, Any] = {}

    # ------------------------------------------------------------------ roles and seats
    def _heuristic(self):
        names = list(self.heuristics)
        p = np.array([self.heuristics[n] for n in names], dtype=float)
        name = names[int(self.rng.choice(len(names), p=p / p.sum()))]
        if name not in self._cache:
            self._cache[name] = load_agent(name, self.base)
        return self._cache[name]

    def reset(self, *, seed=None, options=None):
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        n = self.base.num_players
        seats = self.rng.permutation(n)
        self.role_of_seat: dict[int, str] = {int(seats[0]): "learner"}
        if n > 1 and self.rng.random() < self.opponent_share:
            self.role_of_seat[int(seats[1])] = "opponent"
        self.bots = {s: self._heuristic() for s in range(n) if s not in self.role_of_seat}
        self.seat_of_role = {r: s for s, r in self.role_of_seat.items()}
        self.agents = list(self.seat_of_role)
        self.aec.reset(seed=int(self.rng.integers(2**31)))
        self.pending = {r: 0.0 for r in self.agents}
        obs, rewards, terminateds, _, _ = self._advance({}, {})
        if terminateds["__all__"]:  # over before any role moved: deal again
            return self.reset()
        for role, r in rewards.items():  # rewards before the first observation are kept for the next one
            self.pending[role] += r
        return obs, {}

    def step(self, action_dict):
        role = self._to_move_role
        action = int(action_dict[role])
        if not self.aec.observe(self.aec.agent_selection)["action_mask"][action]:
            self.illegal_actions += 1
        self.aec.step(action)
        self._collect()
        return self._advance({}, {})

    # ------------------------------------------------------------------ internals
    def _collect(self) -> None:
        for role, seat in self.seat_of_role.items():
            self.pending[role] += self.aec.rewards.get(self.base.possible_agents[seat], 0.0)

    def _advance(self, obs, infos):
        while True:
            agent = self.aec.agent_selection
            if self.aec.terminations.get(agent) or self.aec.truncations.get(agent) or not self.aec.agents:
                truncated = any(self.aec.truncations.values())
                obs = {
                    r: convert_observation(self.aec.observe(self.base.possible_agents[s]))
                    for r, s in self.seat_of_role.items()
                }
                rewards = {r: self.pending[r] for r in self.seat_of_role}
                flags = {r: True for r in self.seat_of_role}
                outcome = self.base.outcome()
                infos = {
                    r: {"outcome": float(outcome[s]), "illegal_actions": self.illegal_actions}
                    for r, s in self.seat_of_role.items()
                }
                terminateds = {r: not truncated for r in flags} | {"__all__": not truncated}
                truncateds = {r: truncated for r in flags} | {"__all__": truncated}
                self.agents = []
                return obs, rewards, terminateds, truncateds, infos
            seat = self.base.agent_name_mapping[agent]
            if seat in self.role_of_seat:
                role = self.role_of_seat[seat]
                self._to_move_role = role
                rewards = {role: self.pending[role]}
                self.pending[role] = 0.0
                # rewards of a role that is not to move wait until its next observation (or the end)
                obs = {role: convert_observation(self.aec.observe(agent))}
                return obs, rewards, {"__all__": False}, {"__all__": False}, {}
            self.aec.step(self.bots[seat].act(self.aec.observe(agent), self.rng))
            self._collect()
