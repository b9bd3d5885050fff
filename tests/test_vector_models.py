"""A model as an opponent in the learner view: one ``act_batch`` call per decision step for every game where it
is to move (:class:`cardenvs.vector.AgentOpponent`), with the results of its ``act`` played game by game."""

import numpy as np
import pytest

from cardenvs import vector
from cardenvs.agent import load_agent
from cardenvs.registry import make

GAMES = 6
STEPS = 40


def play(opponent, learner=0):
    """The learner's observations, rewards and end flags over STEPS steps (its first legal move each time)."""
    v = vector.make("twos", GAMES, learner=learner, opponents=[opponent])
    obs, _ = v.reset(seed=11)
    seen, rewards, ends = [obs.copy()], [], []
    for _ in range(STEPS):
        actions = np.array([int(np.flatnonzero(m)[0]) for m in v.action_masks()])
        obs, reward, terminated, truncated, _ = v.step(actions)
        seen.append(obs.copy())
        rewards.append(reward.copy())
        ends.append(terminated | truncated)
    return np.array(seen), np.array(rewards), np.array(ends), v


def counted(monkeypatch, cls, method):
    """Count the calls of ``cls.method`` and the rows they were asked for."""
    calls, original = [], getattr(cls, method)

    def wrapper(self, observations, *args, **kwargs):
        rows = np.asarray(observations["observation"])
        calls.append(1 if rows.ndim == 1 else len(rows))
        return original(self, observations, *args, **kwargs)

    monkeypatch.setattr(cls, method, wrapper)
    return calls


def test_a_model_opponent_acts_on_the_batch_with_the_results_of_act_game_by_game(monkeypatch):
    """``twos.dmc`` (the shipped DMC model, ``dmc:PATH``) in the other seats of a seeded learner view: its moves
    are asked with one ``act_batch`` call per decision step for every game where it is to move, never ``act``;
    with ``act_batch`` taken away the same opponent plays through ``act``, one game at a time (an agent and
    an AEC env per game), and the learner sees the same observations, rewards and ends."""
    pytest.importorskip("torch")
    from cardenvs.training.dmc_model import DMCAgent

    batch_rows = counted(monkeypatch, DMCAgent, "act_batch")
    act_rows = counted(monkeypatch, DMCAgent, "act")
    batched = play("twos.dmc")
    assert act_rows == [] and len(batch_rows) > 0
    decisions = sum(batch_rows)
    # several games per call: Twos' seats move in turn, so every game where the model is to move is one call
    assert len(batch_rows) < decisions
    opponents = batched[3].callables  # Twos is three-handed: one AgentOpponent per other seat
    assert len(opponents) == 2
    assert all(o.agent is not None and o.players == {} for o in opponents)  # one agent for every game, no AEC env

    batch_rows.clear()
    with monkeypatch.context() as m:
        m.delattr(DMCAgent, "act_batch")
        one_by_one = play("twos.dmc")
    assert batch_rows == [] and len(act_rows) == decisions  # the same decisions, each through act
    for opponent in one_by_one[3].callables:
        assert opponent.agent is None and sorted(opponent.players) == list(range(GAMES))
    for a, b in zip(batched[:3], one_by_one[:3], strict=True):
        np.testing.assert_array_equal(a, b)
    assert batched[2].any(), "no game ended: the rewards compared are all zero"


def test_an_agent_object_with_act_batch_is_an_opponent_as_its_name_is():
    """A model object (a snapshot the trainer holds rather than a path) plays as its name does."""
    pytest.importorskip("torch")
    env = make("twos").unwrapped
    agent = load_agent("twos.dmc", env)
    by_name, by_object = play("twos.dmc", learner=1), play(agent, learner=1)
    for a, b in zip(by_name[:3], by_object[:3], strict=True):
        np.testing.assert_array_equal(a, b)
    assert [o.agent is agent for o in by_object[3].callables] == [True, True]
    with pytest.raises(ValueError, match="expected an agent name or an agent with act_batch"):
        vector.AgentOpponent(object(), by_object[3]._b)
