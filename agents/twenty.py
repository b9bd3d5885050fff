"""Twenty agents: ``twenty.greedy`` (one-ply heuristic) and ``twenty.solver`` (exact for exposed hands).

Greedy, as the document's commentary plays: score each card it could play as

    points it scores now - the opponent's expected best reply - 1 if it spends a Ten card

where the opponent's reply is the best immediate score of its hand: known exactly when hands are exposed,
otherwise its expectation over the cards not yet seen (hypergeometric, :func:`expected_best_gain`). So it
takes the most points now, avoids leaving a tally the opponent can turn into an Exact Twenty, and holds
Ten cards when that costs nothing.

Solver: with both hands known it plays :func:`cardenvs.games.twenty.solver.solve` (exact negamax over the
current pair of hands); with hidden hands it plays greedy.
"""

from __future__ import annotations

import numpy as np

from cardenvs.games.twenty.rules import points_for
from cardenvs.games.twenty.solver import expected_best_gain, solve

FULL_DECK = np.array([4] * 9 + [16])  # cards per value A..T
TEN_PENALTY = 1.0


def _parts(env, observation):
    return env.layout.decode(observation["observation"])


def _unseen(parts, include_opponent: bool) -> np.ndarray:
    unseen = FULL_DECK - parts["seen"] - parts["own_hand"]
    if include_opponent:
        unseen = unseen - parts["opponent_hand"]
    return np.maximum(unseen, 0).astype(int)


def _exposed(parts) -> bool:
    size = int(parts["opponent_hand_size"][0])
    return size > 0 and int(parts["opponent_hand"].sum()) == size


def action_outlook(parts: dict[str, np.ndarray], actions=range(10)) -> np.ndarray:
    """Per card value A..T (rows): [points it scores now, 1 if it clears the tally, the opponent's expected
    best immediate reply after it]. The reply is exact when hands are exposed, otherwise its expectation
    over the unseen cards (:func:`expected_best_gain`); 0 when the opponent holds no card. Rows not in
    ``actions`` stay zero."""
    tally, n = int(parts["tally"][0]), int(parts["tally_cards"][0])
    exposed = _exposed(parts)
    opp_size = int(parts["opponent_hand_size"][0])
    unseen = tuple(_unseen(parts, exposed))
    out = np.zeros((10, 3))
    for a in actions:
        v = int(a) + 1
        points, clears = points_for(tally, n, v)
        after_tally, after_n = (0, 0) if clears else (tally + v, n + 1)
        if opp_size == 0:
            reply = 0.0
        elif exposed:
            reply = max(points_for(after_tally, after_n, w + 1)[0] for w in range(10) if parts["opponent_hand"][w])
        else:
            reply = expected_best_gain(after_tally, after_n, unseen, opp_size)
        out[a] = points, clears, reply
    return out


class GreedyAgent:
    name = "twenty.greedy"

    def __init__(self, env):
        self.env = env

    def scores(self, observation) -> dict[int, float]:
        """Heuristic value of each legal action."""
        parts = _parts(self.env, observation)
        legal = np.flatnonzero(observation["action_mask"])
        outlook = action_outlook(parts, legal)
        tens_only = parts["own_hand"][:9].sum() == 0
        out = {}
        for action in legal:
            points, _, reply = outlook[action]
            penalty = TEN_PENALTY if action == 9 and not tens_only else 0.0
            out[int(action)] = float(points - reply - penalty)
        return out

    def act(self, observation, rng: np.random.Generator) -> int:
        scores = self.scores(observation)
        best = max(scores.values())
        choices = [a for a, s in scores.items() if s >= best - 1e-9]
        return int(choices[0]) if len(choices) == 1 else int(choices[rng.integers(len(choices))])


class SolverAgent:
    name = "twenty.solver"

    def __init__(self, env):
        self.env = env
        self.greedy = GreedyAgent(env)

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


AGENTS = {"greedy": GreedyAgent, "solver": SolverAgent}
