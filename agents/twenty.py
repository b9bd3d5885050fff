"""Twenty agents that cannot be numba policies: ``twenty.solver`` (the round solver) and
``twenty.hand_solver`` (its first version, kept as a baseline). The one-ply ``twenty.greedy`` is the game's
numba policy (:mod:`cardenvs.games.twenty.policies`, played here by :class:`cardenvs.agent.PolicyAgent`).

Solver: :func:`cardenvs.games.twenty.solver.solve_round`, the round solver (minimax over the rest of the
round with the later deals as chance nodes), maximising the point margin:

* **exact** whenever every remaining card is known: round 2k of ``swap_deals`` (hidden or exposed: the
  ``replayed_hands`` segment gives every later hand and the opponent's current one), and the last hand
  of a round (hidden hands too: the opponent then holds exactly the unseen cards);
* exposed hands, unknown stock: later deals are chance nodes estimated from sampled deals
  (``samples``: draws per chance node by the hand dealt; 0 for the last hand enumerates its split exactly,
  which is exact expectimax in the fourth hand but costs about 3 s a move, so the default samples it);
* hidden hands, unknown stock: the solver is averaged over ``opponent_samples`` hands drawn for the
  opponent from the unseen cards (a determinization: each sample is solved as if the opponent's hand
  were known to both, so it is not exact).

The draws are seeded from the caller's ``rng``, so a seeded arena replays the same moves.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cardenvs.agent import PolicyAgent
from cardenvs.games.twenty.features import _exposed, _unseen
from cardenvs.games.twenty.rules import NUM_VALUES, PLAYERS, _replayed_hands_into
from cardenvs.games.twenty.solver import HANDS_PER_ROUND, solve, solve_round


def _round_position(parts: dict[str, np.ndarray]) -> dict[str, Any]:
    """The round's public position as :func:`solve_round` takes it, from the observation's segments."""
    last = parts["last_scorer"]
    return dict(
        tally=int(parts["tally"][0]),
        n_cards=int(parts["tally_cards"][0]),
        hand_index=int(parts["hand_index"][0]),
        bonus=int(parts["bonus"][0]),
        last_scorer=0 if last[0] else 1 if last[1] else -1,
        leader_is_own=bool(parts["leading"][0]),
    )


def _parts(env, observation):
    return env.layout.decode(observation["observation"])


class HandSolverAgent:
    """The first ``twenty.solver``: exact over the current pair of hands only (:func:`solve`), guessing the
    tally carried into the next hand; with hidden hands the numba ``twenty.greedy`` (it reads the env's
    state). Kept as a baseline (``twenty.hand_solver``)."""

    name = "twenty.hand_solver"

    def __init__(self, env):
        self.env = env
        self.greedy = PolicyAgent(env, "greedy")

    def act(self, observation, rng: np.random.Generator) -> int:
        parts = _parts(self.env, observation)
        if not _exposed(parts) and int(parts["opponent_hand_size"][0]) > 0:
            return self.greedy.act(observation, rng)
        last = parts["last_scorer"]
        last_scorer = 0 if last[0] else 1 if last[1] else -1
        _, value = solve(
            tuple(parts["own_hand"].astype(int)),
            tuple(parts["opponent_hand"].astype(int)),
            int(parts["tally"][0]),
            int(parts["tally_cards"][0]),
            int(parts["stock"][0]) == 0,
            int(parts["bonus"][0]),
            last_scorer,
            bool(parts["leading"][0]),
            tuple(_unseen(parts, True)),
        )
        return value - 1


class SolverAgent:
    """``twenty.solver``: the round solver (module docstring). ``samples``: draws per chance node by the hand
    it deals (five numbers; the last one 0 = enumerate the last hand's split); ``opponent_samples``: hands
    drawn for a hidden opponent."""

    name = "twenty.solver"

    def __init__(self, env, samples: tuple[int, ...] = (0, 2, 1, 1, 6), opponent_samples: int = 4):
        self.env = env
        if len(samples) != 5 or min(samples) < 0:
            raise ValueError(f"twenty.solver: samples={samples}; it takes five draw counts >= 0")
        if opponent_samples < 1:
            raise ValueError(f"twenty.solver: opponent_samples={opponent_samples}; it takes 1 or more")
        self.samples = tuple(int(x) for x in samples)
        self.opponent_samples = int(opponent_samples)

    def values(self, observation, rng: np.random.Generator) -> np.ndarray:
        """The solver's value of each card value (index ``v - 1``; -inf for values not held): the expected
        point margin to the end of the round."""
        parts = _parts(self.env, observation)
        own = parts["own_hand"].astype(np.int64)
        opp_size = int(parts["opponent_hand_size"][0])
        common: dict[str, Any] = dict(_round_position(parts), samples=self.samples)
        hand_index = common["hand_index"]
        replayed = parts["replayed_hands"].astype(np.int64)  # [hand][own, opponent][value]
        if replayed[hand_index].sum() > 0:  # round 2k of swap_deals: every card is known
            return solve_round(own, replayed[hand_index, 1], future=replayed, seed=0, **common)[2]
        if _exposed(parts) or opp_size == 0:
            opp = parts["opponent_hand"].astype(np.int64)
            stock = _unseen(parts, True)
            seed = int(rng.integers(2**62))
            return solve_round(own, opp, unseen=stock, seed=seed, **common)[2]
        unseen = _unseen(parts, False)
        if unseen.sum() == opp_size:  # the last hand: the opponent holds exactly the unseen cards
            return solve_round(own, unseen, unseen=np.zeros(10, np.int64), seed=0, **common)[2]
        pool = np.repeat(np.arange(10), unseen)
        total = np.zeros(10)
        for _ in range(self.opponent_samples):
            hand = np.bincount(rng.choice(pool, opp_size, replace=False), minlength=10)
            total += solve_round(own, hand, unseen=unseen - hand, seed=int(rng.integers(2**62)), **common)[2]
        return total / self.opponent_samples

    def act(self, observation, rng: np.random.Generator) -> int:
        values = self.values(observation, rng)
        best, best_card = -np.inf, -1
        for v in range(10):  # ties: the lowest non-Ten value, as the solvers break them
            if values[v] == -np.inf:
                continue
            if values[v] > best + 1e-9 or (abs(values[v] - best) <= 1e-9 and v != 9 and best_card == 9):
                best, best_card = values[v], v
        return best_card


class OracleSolverAgent(SolverAgent):
    """``twenty.oracle`` CHEATS: the round solver given the opponent's hand and the round's later deals as the
    env's true state holds them (not the observation), so it is exact, perfect-information play of the round
    (the margin-maximising minimax :func:`solve_round` computes when every card is known). The fictive player
    who knows the chance outcomes in the relative skill of ``cardenvs analyze skill`` (Twenty's
    ``GameSpec.relative_skill``); ``sees_hidden`` tells the agent loader to refuse it where names come from
    outside (the web app)."""

    name = "twenty.oracle"
    sees_hidden = True

    def values(self, observation, rng: np.random.Generator) -> np.ndarray:
        parts = _parts(self.env, observation)
        _, states, _, _ = self.env.unwrapped.core_state()
        seat = int(states[0]["to_move"])
        cards = np.zeros(HANDS_PER_ROUND * PLAYERS * NUM_VALUES, dtype=np.float32)
        _replayed_hands_into(states, 0, seat, cards, 0)  # the true hands: [hand][own, opponent][value]
        known = cards.astype(np.int64).reshape(HANDS_PER_ROUND, PLAYERS, NUM_VALUES)
        position = _round_position(parts)
        hand = position["hand_index"]
        return solve_round(known[hand, 0], known[hand, 1], future=known, seed=0, **position)[2]


AGENTS = {"solver": SolverAgent, "hand_solver": HandSolverAgent, "oracle": OracleSolverAgent}
