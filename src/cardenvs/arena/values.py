"""The value functions of luck-adjusted estimates (:mod:`cardenvs.arena.luck`): ``f(position)``, each seat's
result when one player plays every seat from the position to the end.

* :class:`PolicyValue`: a numba policy of the game (``rule``, ``heuristic``, ``greedy``, ...) plays; one
  rollout per position, its random draws (a heuristic breaking ties) from the seed the caller gives the row.
  The caller may seat others in the rollout: uniformly random play or another of the game's policies in
  chosen seats (the arena's decision terms play each seat as the table does, where it can).
* :class:`ModelValue`: a learned model's greedy moves play (the shipped ``GAME.dmc`` or ``dmc:PATH``: any
  agent with ``action_values(observations, ids, counts)``, as :mod:`cardenvs.search` leaves use), every
  running row of a batch asked in one call per step. Greedy play draws nothing, so ``f`` is a function of the
  position alone.

Either returns, for rows of positions, three ``[rows, players]`` arrays: the win indicator (the outcome is
positive), the score and the outcome on the win scale. :func:`load_value` builds one from a name, which a
game declares in its spec (``GameSpec.luck_value``) and ``cardenvs arena --luck-value`` overrides.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from ..agent import load_agent
from ..core import kernels
from ..core.rng import stream, uniform_index
from ..registry import spec_of
from ..search.drivers import model_action_values
from ..search.kernels import apply_rows, status_and_seat

Values = tuple[np.ndarray, np.ndarray, np.ndarray]


@njit(cache=True)
def _results(sims, params, wins, scores, outcome) -> None:
    """Rows ``i`` of ``wins``, ``scores`` and ``outcome``: each seat's result in (finished) game ``i``."""
    for i in range(sims.shape[0]):
        kernels.outcome(sims, i, params, outcome[i])
        kernels.scores(sims, i, params, scores[i])
        for s in range(wins.shape[1]):
            wins[i, s] = 1.0 if outcome[i, s] > 0 else 0.0


@njit(cache=True)
def _policy_rows(sims, params, kinds, seeds, wins, scores, outcome, ids) -> None:
    """Game ``i`` of ``sims`` (in place) played to its end with seat ``s`` played by ``kinds[s]`` (1: uniformly
    random, 2 + k: the game's heuristic k), drawing from stream 0 of ``seeds[i]``; the results into row ``i`` of
    ``wins``, ``scores`` and ``outcome`` (``ids``: scratch of the action count)."""
    for i in range(sims.shape[0]):
        rng = stream(seeds[i], 0)
        while kernels.status(sims, i, params) == kernels.RUNNING:
            kind = kinds[kernels.to_move(sims, i, params)]
            if kind == 1:
                n = kernels.legal_ids(sims, i, params, ids)
                move = ids[uniform_index(rng, n)]
            else:
                move = kernels.policy(sims, i, params, kind - 2, rng)
            kernels.apply(sims, i, params, move)
    _results(sims, params, wins, scores, outcome)


def _arrays(rows: int, players: int) -> Values:
    return np.zeros((rows, players)), np.zeros((rows, players)), np.zeros((rows, players))


class PolicyValue:
    """``f`` by the self-play of the game's numba policy number ``index`` (named ``name``)."""

    kind = "policy"

    def __init__(self, name: str, index: int, players: int, num_actions: int):
        self.name, self.index, self.players = name, index, players
        self.ids = np.empty(num_actions, dtype=np.int64)

    def __call__(self, sims: np.ndarray, params: np.ndarray, seeds: np.ndarray, seats: Any = None) -> Values:
        """The results of rollouts from positions ``sims`` (played on in place), row ``i`` drawing from
        ``seeds[i]`` (``uint64``). ``seats``: who plays each seat in the rollouts (1: random, 2 + k: the game's
        heuristic k, as the kernels number them); by default the policy plays every seat."""
        kinds = np.full(self.players, 2 + self.index, dtype=np.int64) if seats is None else np.asarray(seats)
        out = _arrays(len(sims), self.players)
        _policy_rows(sims, params, kinds.astype(np.int64), np.asarray(seeds, dtype=np.uint64), *out, self.ids)
        return out


class ModelValue:
    """``f`` by the greedy self-play of a learned model (``action_values``), batched over the rows."""

    kind = "model"

    def __init__(self, name: str, model: Any, base: Any):
        self.name, self.model = name, model
        _, _, _, layout = base.core_state()
        self.observation = (int(layout.size), layout.dtype)
        self.num_actions = int(base.num_actions)
        self.players = int(base.num_players)

    def __call__(self, sims: np.ndarray, params: np.ndarray, seeds: np.ndarray, seats: Any = None) -> Values:
        """As :meth:`PolicyValue.__call__`; greedy play draws nothing, so ``seeds`` are not read, and the model
        plays every seat (``seats`` is not read)."""
        status = np.empty(len(sims), dtype=np.int64)
        seats = np.empty(len(sims), dtype=np.int64)
        status_and_seat(sims, params, status, seats)
        while True:
            which = np.flatnonzero(status == kernels.RUNNING)
            if not len(which):
                break
            ids, q = model_action_values(self.model, sims, params, which, self.observation, self.num_actions)
            apply_rows(sims, params, which, ids[np.arange(len(which)), q.argmax(axis=1)])  # ties: the lowest id
            status_and_seat(sims, params, status, seats)
        out = _arrays(len(sims), self.players)
        _results(sims, params, *out)
        return out


def load_value(base: Any, name: str) -> PolicyValue | ModelValue:
    """The value function ``name`` names for the game of env ``base``: one of its numba policies (``rule`` or
    ``GAME.rule``) or an agent that scores moves (``GAME.dmc``, ``dmc:PATH``). A ``ValueError`` says why
    another name is neither."""
    game = spec_of(base.metadata["name"]).name
    policies = list(base.policy_names())
    short = name[len(game) + 1 :] if name.startswith(game + ".") else name
    if short in policies:
        return PolicyValue(f"{game}.{short}", policies.index(short), int(base.num_players), int(base.num_actions))
    try:
        agent = load_agent(name, base)
    except (ValueError, KeyError) as exc:
        raise ValueError(
            f"luck_value {name!r}: neither a numba policy of {game} ({', '.join(policies)}) nor a loadable model: {exc}"
        ) from None
    if not callable(getattr(agent, "action_values", None)):
        raise ValueError(
            f"luck_value {name!r} loads {type(agent).__name__}, which does not score moves (no action_values); "
            f"name a numba policy of {game} ({', '.join(policies)}) or a learned model such as {game}.dmc"
        )
    return ModelValue(name, agent, base)
