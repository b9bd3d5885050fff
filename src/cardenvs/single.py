"""A single-agent ``gymnasium.Env``: one learner against opponents, for Gymnasium-only tooling.

``cardenvs.single_agent(game, opponents=[...], seat="rotate", **options)`` is the learner view
(:class:`cardenvs.vector.LearnerVectorEnv`) of one game, seen as a plain ``gymnasium.Env``: Gymnasium's and
SB3's ``check_env``, single-env wrappers, sb3-contrib's ``MaskablePPO`` (``action_masks()``) and classic RL
code take it as it is. The opponents play inside ``step`` by the learner view's one loop, with the same
names (``"random"``, the game's numba heuristics, any agent name, a callable, a pool ``{opponent: weight}``).

* ``reset(seed=s)`` fully determines the episode: the deal is the AEC env's after ``reset(seed=s)``, the
  learner's seat (``seat="rotate"``: drawn from ``s``, so every seat is learnt across seeded resets) and the
  opponents' random choices all follow from ``s``. ``reset()`` without a seed takes the next seed from the
  env's ``np_random`` (seeded by the last seeded reset), so a seeded first reset makes the whole run replay.
* ``step(action)`` plays the learner's move and the opponents' until the learner is to move again or the game
  ends; the reward is the learner's (win rewards: +1 / -1 / 0 at the end, or the game's points with
  ``reward="points"``), the terminal one included when an opponent's move ends the game. There is no
  autoreset: after ``terminated`` or ``truncated`` call ``reset``. ``info``: ``learner_seat``, ``deal_seed``
  and, at the end, ``final_scores`` (every seat's score).
* An illegal action: with ``illegal_action="raise"`` (the default, as the AEC env) a ``ValueError`` that
  names the action and the legal ones, and nothing is played; with ``"terminate"`` the episode ends at once
  with reward -1 for the learner and ``info["illegal_action"] = True`` (PettingZoo's convention).
  Gymnasium's and SB3's checkers step with random actions that ignore the mask: check with
  ``illegal_action="terminate"``.
* ``action_masks()``: the learner's legal actions, bool ``[A]`` (all False once the episode has ended).
* ``render_mode="ansi"``: ``render()`` returns the table as text; ``"human"`` prints it after each step.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from .core import seeds
from .vector import LearnerVectorEnv, Opponents

ILLEGAL_ACTIONS = ("raise", "terminate")


class SingleAgentEnv(gymnasium.Env):
    """One learner, one game, the opponents inside ``step`` (see the module docstring)."""

    metadata = {"render_modes": ["ansi", "human"]}

    def __init__(
        self,
        game: str,
        opponents: Opponents = ("random",),
        seat: int | str = "rotate",
        illegal_action: str = "raise",
        render_mode: str | None = None,
        **options: Any,
    ):
        if illegal_action not in ILLEGAL_ACTIONS:
            raise ValueError(f"illegal_action={illegal_action!r}: expected one of {', '.join(ILLEGAL_ACTIONS)}")
        self.illegal_action = illegal_action
        self.learner = LearnerVectorEnv(
            game, 1, learner=seat, opponents=opponents, autoreset_mode="next_step", render_mode=render_mode, **options
        )
        self.render_mode = render_mode
        self.env_id = self.learner.env_id
        self.observation_space = self.learner.single_observation_space
        self.action_space: spaces.Discrete = spaces.Discrete(int(self.learner.single_action_space.n))
        self._over = True  # no episode yet: reset first

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if options:
            raise ValueError(f"{self.env_id}: single_agent's reset takes no options (got {sorted(options)})")
        if seed is None:  # the next episode of the generator the last seeded reset made
            seed = seeds.next_seed(self.np_random)
        obs, info = self.learner.reset(seed=seed)
        self._over = False
        self._render_human()
        return obs[0], self._info(info)

    def step(self, action: Any):
        if self._over:
            raise RuntimeError(f"{self.env_id}: the episode is over (or not started): call reset()")
        if isinstance(action, np.ndarray) and action.shape in ((), (1,)):
            action = action.reshape(-1)[0]
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise ValueError(f"{self.env_id}: action {action!r} is not an action id (an int in {self.action_space})")
        action = int(action)
        mask = self.action_masks()
        if not (0 <= action < len(mask) and mask[action]):
            return self._illegal(action, mask)
        obs, rewards, terminated, truncated, info = self.learner.step(np.array([action], dtype=np.int64))
        self._over = bool(terminated[0] or truncated[0])
        self._render_human()
        return obs[0], float(rewards[0]), bool(terminated[0]), bool(truncated[0]), self._info(info)

    def _illegal(self, action: int, mask: np.ndarray):
        name = self.learner.action_name
        legal = np.flatnonzero(mask)
        named = ", ".join(f"{a} ({name(int(a))})" for a in legal[:40]) + (" ..." if len(legal) > 40 else "")
        what = f"{action} ({name(action)})" if 0 <= action < len(mask) else f"{action} (out of range)"
        message = f"{self.env_id}: illegal action {what} for the learner; legal actions: {named}"
        if self.illegal_action == "raise":
            raise ValueError(message)
        self._over = True
        obs = self.learner.observations()[0]
        info = {"learner_seat": self._seat, "deal_seed": self._deal_seed, "illegal_action": True}
        return obs, -1.0, True, False, info

    def _info(self, info: dict) -> dict:
        self._seat, self._deal_seed = int(info["learner_seat"][0]), int(info["deal_seed"][0])
        out: dict[str, Any] = {"learner_seat": self._seat, "deal_seed": self._deal_seed}
        if self._over:
            out["final_scores"] = np.array(info["final_scores"][0], dtype=np.float64)
        return out

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions, bool ``[A]`` (sb3-contrib's hook); all False after the end."""
        if self._over:
            return np.zeros(self.action_space.n, dtype=np.bool_)
        return self.learner.action_masks()[0]

    def render(self) -> str | None:  # type: ignore[override]  # Gymnasium types frames as arrays; ours is text
        """The table as text (``render_mode="ansi"``); printed with ``"human"``."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() without render_mode: make the env with render_mode='ansi' or 'human'")
            return None
        if self.render_mode == "human":
            print(self.learner.table(0))
            return None
        return self.learner.table(0)

    def _render_human(self) -> None:
        if self.render_mode == "human":
            self.render()


def single_agent(
    game: str,
    opponents: Opponents = ("random",),
    seat: int | str = "rotate",
    illegal_action: str = "raise",
    render_mode: str | None = None,
    **options: Any,
) -> SingleAgentEnv:
    """A single-agent ``gymnasium.Env`` of ``game`` (an env id or its short name, with the AEC env's
    ``options``): the learner in ``seat`` (``"rotate"``: drawn from each reset's seed) against ``opponents``
    (one per other seat, one for all, or a pool ``{opponent: weight}``). See :mod:`cardenvs.single`."""
    return SingleAgentEnv(game, opponents, seat, illegal_action, render_mode, **options)
