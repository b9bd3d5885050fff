"""Vector envs: B games stepped together in numba, over the same rules as the AEC envs.

Two views of one batch (:mod:`cardenvs.core.kernels` runs the games; no Python runs per game):

* ``make(env_id, num_envs, **options)`` -> :class:`VectorEnv`, turn-based and multi-agent, as Pgx does:
  ``reset(seed)`` returns the observation of the player to move in every game (``observation`` [B, D],
  ``action_mask`` bool [B, A]) and ``info["to_move"]`` [B]; ``step(actions)`` takes one action per game and
  returns observations, the rewards of every seat [B, n], terminated and truncated [B] and info.
* ``make(env_id, num_envs, learner="rotate" | seat, opponents=[...], **options)`` ->
  :class:`LearnerVectorEnv`, a ``gymnasium.vector.VectorEnv`` for one learner per game: the opponents act
  inside ``step`` -- ``"random"`` and the game's numba heuristics (``"heuristic"``, ``"twos.heuristic"``,
  ...) with no Python per game, any callable (a frozen network) once per round with the batch of
  observations where it is to move, any other agent name (``"twenty.solver"``, ``"dmc:PATH"``) or an agent
  object with ``act_batch`` as such a callable (:class:`AgentOpponent`): an agent that acts on batches (the
  models) with one ``act_batch`` call per round, any other one agent per game. The learner receives every
  reward of its seat, the terminal one included when an opponent's move ends the game. ``action_masks()``
  is there for sb3-contrib, and :func:`cardenvs.sb3.SB3VecEnv` wraps it as an SB3 ``VecEnv``.

Autoreset: Gymnasium's **same-step** mode (``AutoresetMode.SAME_STEP``). A game that ends in ``step``
reports its rewards and end flags, and the observation returned for it is already the first one of its
next deal; the final scores are in ``info["final_scores"]`` (and, in the learner view, the learner's final
observation in ``info["final_obs"]``), valid where ``info["_final_scores"]`` is True. The learner view also
offers the **next-step** mode (``autoreset_mode="next_step"``, what Gymnasium's ``SyncVectorEnv`` and Ray
RLlib's env runners expect): a game that ends returns the learner's final observation (its mask all
False), and the next ``step`` ignores that game's action and deals it again, with reward 0 and no end
flags. ``info["deal_number"]``
counts the deals each game has started since ``reset`` (``info["episode"]`` is left to Gymnasium's
``RecordEpisodeStatistics``, which writes its statistics there). The turn-based view can also play each game
once (``autoreset=False``: an ended game stays at its end; the arena's batched engine plays so).

Ownership: ``reset``, ``step``, ``action_masks`` and ``legal_ids`` return arrays the caller owns (copies, as
Gymnasium's own vector envs do by default), so observations kept in a buffer stay as they were.
``copy=False`` returns the env's buffers instead, valid only until the next call that changes the batch.

Rendering: ``render_mode="ansi"`` (or ``"human"``) is passed on to the games; ``render()`` then returns (or
prints) every game's table as text, the AEC env's ``render`` for that game.

Seeds: game ``i``'s first deal after ``reset(seed=s)`` is the AEC env's deal after ``reset(seed=s + i)``
(after ``reset(seed=seeds[i])`` with the turn-based view's ``reset(options={"seeds": seeds})``), so any
vector game can be replayed in the AEC env; game ``i``'s later deals follow a splitmix64 chain of
its deal seed (``info["deal_seed"]`` at every step). ``threads=k`` steps the batch on k cores (numba
``prange``; batches under 32 games stay on one thread), with results identical to one thread: every game
only touches its own record.

Bad input (a wrong shape or dtype of ``actions``, ``num_envs < 1``, an illegal action in game i) raises a
``ValueError`` naming the game index, the action and the legal ones; no game is touched and the batch stays
usable. In the learner view an opponent callable's moves are only known once the learner's are applied: if
one returns an illegal move (or raises), the whole batch is restored to what it was before that ``step``
(or ``reset``), so the error's "no game was stepped" is true and the next ``step`` is the learner's again.
"""

from __future__ import annotations

from typing import Any

from .learner import LearnerVectorEnv
from .opponents import AgentOpponent, Opponent, Opponents
from .turns import VectorEnv

__all__ = ["make", "VectorEnv", "LearnerVectorEnv", "AgentOpponent", "Opponent", "Opponents"]


def make(
    env_id: str,
    num_envs: int,
    learner: int | str | None = None,
    opponents: Opponents | None = None,
    threads: int = 1,
    copy: bool = True,
    **options: Any,
):
    """A vector env of ``num_envs`` games of ``env_id`` with the AEC env's ``options``: turn-based and
    multi-agent (:class:`VectorEnv`), or with ``learner`` a single-agent view (:class:`LearnerVectorEnv`).
    ``copy=False`` returns the env's buffers instead of arrays the caller owns (see the module docstring)."""
    if learner is None:
        if opponents is not None:
            raise ValueError("opponents are played only in the learner view: pass learner='rotate' or a seat")
        return VectorEnv(env_id, num_envs, threads=threads, copy=copy, **options)
    return LearnerVectorEnv(
        env_id, num_envs, learner=learner, opponents=opponents or ("random",), threads=threads, copy=copy, **options
    )
