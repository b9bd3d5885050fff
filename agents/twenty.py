"""Twenty agents: ``twenty.greedy`` (one-ply heuristic) and ``twenty.solver`` (the round solver).

Greedy, as the document's commentary plays: score each card it could play as

    points it scores now - the opponent's expected best reply - 1 if it spends a Ten card

where the opponent's reply is the best immediate score of its hand: known exactly when hands are exposed,
otherwise its expectation over the cards not yet seen (hypergeometric, :func:`expected_best_gain`). So it
takes the most points now, avoids leaving a tally the opponent can turn into an Exact Twenty, and holds
Ten cards when that costs nothing.

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

import numpy as np

from cardenvs.games.twenty.rules import points_for
from cardenvs.games.twenty.solver import expected_best_gain, solve, solve_round

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


class HandSolverAgent:
    """The first ``twenty.solver``: exact over the current pair of hands only (:func:`solve`), guessing the
    tally carried into the next hand; greedy with hidden hands. Kept as a baseline (``twenty.hand_solver``)."""

    name = "twenty.hand_solver"

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
        hand_index = int(parts["hand_index"][0])
        last = parts["last_scorer"]
        common = dict(
            tally=int(parts["tally"][0]),
            n_cards=int(parts["tally_cards"][0]),
            hand_index=hand_index,
            bonus=int(parts["bonus"][0]),
            last_scorer=0 if last[0] else 1 if last[1] else -1,
            leader_is_own=bool(parts["leading"][0]),
            samples=self.samples,
        )
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


AGENTS = {"greedy": GreedyAgent, "solver": SolverAgent, "hand_solver": HandSolverAgent}
