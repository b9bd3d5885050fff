"""The vector envs tell the truth: a step that fails half-way (an opponent callable's illegal move) leaves the
whole batch as it was, returned arrays belong to the caller, Gymnasium's episode statistics work on the
learner view, and ``render_mode`` is honoured."""

import gymnasium
import numpy as np
import pytest

from cardenvs import vector


def first_legal(masks: np.ndarray) -> np.ndarray:
    return np.argmax(masks, axis=1)


def batch_snapshot(env) -> dict:
    """Every array of the batch and of the view, and the pool's random state."""
    arrays = {}
    for owner_name, owner in (("batch", env._b), ("view", env)):
        for name, value in vars(owner).items():
            if isinstance(value, np.ndarray):
                arrays[f"{owner_name}.{name}"] = value.copy()
    return {"arrays": arrays, "rng": env.rng.bit_generator.state, "has_reset": env._b.has_reset}


def assert_same(before: dict, after: dict) -> None:
    assert before["arrays"].keys() == after["arrays"].keys()
    for name, value in before["arrays"].items():
        np.testing.assert_array_equal(after["arrays"][name], value, err_msg=name)
    assert after["rng"] == before["rng"] and after["has_reset"] == before["has_reset"]


class FailingOpponent:
    """Plays the first legal move, then (once ``fail`` is set) an illegal move or an exception."""

    def __init__(self):
        self.fail = None

    def __call__(self, obs):
        if self.fail == "illegal":
            return np.full(len(obs["action_mask"]), obs["action_mask"].shape[1] + 5)
        if self.fail == "raise":
            raise RuntimeError("the opponent's network crashed")
        return first_legal(obs["action_mask"])


@pytest.mark.parametrize("how", ["illegal", "raise"])
@pytest.mark.parametrize("env_id", ["twos", "doudizhu"])
def test_a_failed_opponent_move_restores_the_whole_batch(env_id, how):
    """The learner's moves are applied before the opponent callable is asked; when it fails, every array of
    the batch is restored, the error says no game was stepped, and the next step is the learner's again: the
    env then plays on exactly as a twin that never saw the failure."""
    opponent = FailingOpponent()
    env = vector.make(env_id, 8, learner="rotate", opponents=[opponent])
    twin = vector.make(env_id, 8, learner="rotate", opponents=[FailingOpponent()])
    obs, _ = env.reset(seed=3)
    twin_obs, _ = twin.reset(seed=3)
    for _ in range(3):  # a few good steps first, so the batch is mid-game
        obs, *_ = env.step(first_legal(env.action_masks()))
        twin_obs, *_ = twin.step(first_legal(twin.action_masks()))
    before = batch_snapshot(env)
    opponent.fail = how
    expected = ValueError if how == "illegal" else RuntimeError
    with pytest.raises(expected, match="No game was stepped" if how == "illegal" else "crashed"):
        env.step(first_legal(env.action_masks()))
    assert_same(before, batch_snapshot(env))
    opponent.fail = None
    for _ in range(40):
        actions = first_legal(env.action_masks())
        got = env.step(actions)
        want = twin.step(actions)
        for g, w in zip(got[:4], want[:4], strict=True):
            np.testing.assert_array_equal(g, w)
        np.testing.assert_array_equal(got[4]["learner_seat"], want[4]["learner_seat"])


def test_a_failed_reset_restores_the_batch():
    opponent = FailingOpponent()
    env = vector.make("twos", 4, learner=1, opponents=[opponent])
    env.reset(seed=1)
    before = batch_snapshot(env)
    opponent.fail = "illegal"
    with pytest.raises(ValueError, match="from an opponent callable"):
        env.reset(seed=2)
    assert_same(before, batch_snapshot(env))


def observations(obs, learner):
    return obs["observation"] if learner is None else obs


@pytest.mark.parametrize("learner", [None, "rotate"])
def test_returned_arrays_belong_to_the_caller(learner):
    """Observations, masks, rewards, end flags and infos kept from one step are not changed by later steps (a
    replay buffer that keeps references stays right); ``copy=False`` hands out the buffers instead."""
    env = vector.make("twenty", 4, learner=learner, rounds=1)
    obs, info = env.reset(seed=0)
    kept = [(observations(obs, learner), info)]
    copies = [(observations(obs, learner).copy(), {k: np.copy(v) for k, v in info.items()})]
    for _ in range(120):
        masks = obs["action_mask"] if learner is None else env.action_masks()
        masks_kept = masks.copy()
        obs, rewards, terminated, truncated, info = env.step(first_legal(masks))
        np.testing.assert_array_equal(masks, masks_kept)
        extra = {"rewards": rewards, "terminated": terminated, "truncated": truncated}
        kept.append((observations(obs, learner), {**info, **extra}))
        copies.append((observations(obs, learner).copy(), {k: np.copy(v) for k, v in {**info, **extra}.items()}))
    assert any(info["_final_scores"].any() for _, info in kept), "no game ended: the check saw no final arrays"
    for (obs, info), (obs_copy, info_copy) in zip(kept, copies, strict=True):
        np.testing.assert_array_equal(obs, obs_copy)
        for k, v in info.items():
            np.testing.assert_array_equal(v, info_copy[k], err_msg=k)
    buffers = vector.make("twenty", 4, learner=learner, copy=False)
    first, _ = buffers.reset(seed=0)
    second, _ = buffers.reset(seed=1)
    assert observations(first, learner) is observations(second, learner)
    with pytest.raises(ValueError, match="copy='yes'"):
        vector.make("twenty", 4, learner=learner, copy="yes")


def test_record_episode_statistics_and_a_cleanrl_loop_on_the_learner_view():
    """Gymnasium's ``RecordEpisodeStatistics`` owns ``info["episode"]``: it runs through finished games, and
    a CleanRL-style ``if "episode" in infos`` loop reads its returns (equal to the rewards summed by hand)."""
    from gymnasium.wrappers.vector import RecordEpisodeStatistics

    env = RecordEpisodeStatistics(vector.make("twenty", 4, learner="rotate", opponents=["twenty.greedy"]))
    obs, info = env.reset(seed=0)
    assert "episode" not in info
    running = np.zeros(4)
    finished = []
    for _ in range(200):
        obs, rewards, terminated, truncated, infos = env.step(first_legal(env.unwrapped.action_masks()))
        running += rewards
        done = terminated | truncated
        if "episode" in infos:
            for i in np.flatnonzero(infos["_episode"]):
                assert infos["episode"]["r"][i] == pytest.approx(running[i])
                finished.append(infos["episode"]["r"][i])
        running[done] = 0
    assert len(finished) >= 4
    assert isinstance(env.unwrapped, gymnasium.vector.VectorEnv)


def test_reset_seed_fully_determines_the_learner_views_episodes():
    """Gymnasium's ``check_env`` takes single envs only; its seeding check, for the learner view: the same
    ``reset(seed)`` replays the same observations, rewards, learner seats and opponents drawn from the
    pool (a numba policy, random and a Python agent), whatever the env did before; another seed does not.
    Under ``RecordEpisodeStatistics`` too."""
    from gymnasium.wrappers.vector import RecordEpisodeStatistics

    env = RecordEpisodeStatistics(
        vector.make("twenty", 4, learner="rotate", opponents={"twenty.greedy": 1, "random": 1, "twenty.hand_solver": 1})
    )

    def play(seed: int) -> list:
        obs, info = env.reset(seed=seed)
        record = [obs, info["learner_seat"], env.unwrapped.seat_kinds.copy()]
        for _ in range(60):
            obs, rewards, terminated, truncated, info = env.step(first_legal(env.unwrapped.action_masks()))
            record += [obs, rewards, terminated, info["learner_seat"], env.unwrapped.seat_kinds.copy()]
            if "episode" in info:
                record.append(info["episode"]["r"][info["_episode"]])
        drawn.append(np.stack([r for r in record if r.shape == (4, 2)]))  # the opponents drawn
        return record

    drawn: list[np.ndarray] = []
    first = play(5)
    play(9)  # whatever came before
    again = play(5)
    assert len(first) == len(again) > 3 + 5 * 60  # some games ended: their episode returns are recorded
    for a, b in zip(first, again, strict=True):
        np.testing.assert_array_equal(a, b)
    other = play(6)
    assert not np.array_equal(first[0], other[0]), "another seed dealt the same hands"
    assert not np.array_equal(drawn[0], drawn[-1]), "another seed drew the same opponents"


@pytest.mark.parametrize("learner", [None, 0])
def test_render_mode_is_honoured(learner, capsys):
    """``render_mode="ansi"`` renders every game as the AEC env renders the same deal; ``"human"`` prints; no
    render mode warns and returns None, as the AEC env does."""
    from cardenvs import make

    env = vector.make("twos", 3, learner=learner, render_mode="ansi")
    env.reset(seed=7)
    texts = env.render()
    assert isinstance(texts, tuple) and len(texts) == 3
    if learner is None:  # before any move game i is the AEC deal of seed 7 + i
        for i, text in enumerate(texts):
            aec = make("twos", render_mode="ansi")
            aec.reset(seed=7 + i)
            assert text == aec.render()
    assert all("player_0:" in t for t in texts)
    human = vector.make("twos", 2, learner=learner, render_mode="human")
    human.reset(seed=7)
    assert human.render() is None
    assert "game 1:" in capsys.readouterr().out
    silent = vector.make("twos", 2, learner=learner)
    silent.reset(seed=7)
    with pytest.warns(UserWarning, match="without a render_mode"):
        assert silent.render() is None
    with pytest.raises(ValueError, match="render_mode='rgb_array' is not supported"):
        vector.make("twos", 2, learner=learner, render_mode="rgb_array")


@pytest.mark.parametrize("env_id", ["twenty", "war"])
def test_next_step_autoreset_plays_the_same_games_as_same_step(env_id):
    """``autoreset_mode="next_step"`` (Gymnasium's ``SyncVectorEnv`` convention, what RLlib expects): a game
    that ends returns the learner's final observation with an empty mask, and the next step deals again
    whatever action it gets, with reward 0 and no flags. Played with the same learner moves, the games,
    rewards and final observations are those of the same-step mode, one step later. (One game per env, so
    the same-step env is stepped exactly when the next-step one plays.)"""
    options = {"max_turns": 5} if env_id == "war" else {}  # War: truncations too
    same = vector.make(env_id, 1, learner="rotate", opponents=["random"], **options)
    nxt = vector.make(env_id, 1, learner="rotate", opponents=["random"], autoreset_mode="next_step", **options)
    assert nxt.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.NEXT_STEP
    assert same.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.SAME_STEP
    obs_s, _ = same.reset(seed=4)
    obs_n, _ = nxt.reset(seed=4)
    np.testing.assert_array_equal(obs_s, obs_n)
    ends = {"terminated": 0, "truncated": 0}
    for _ in range(150):
        actions = first_legal(nxt.action_masks())
        o, r, te, tr, _ = nxt.step(actions)
        so, sr, ste, str_, sinfo = same.step(actions)
        assert (r[0], te[0], tr[0]) == (sr[0], ste[0], str_[0])
        if te[0] or tr[0]:
            ends["terminated" if te[0] else "truncated"] += 1
            np.testing.assert_array_equal(o, sinfo["final_obs"])
            assert not nxt.action_masks().any(), "a game that ended shows an empty mask"
            o, r, te, tr, _ = nxt.step(np.array([10**6]))  # ignored: the game is dealt again
            assert r[0] == 0 and not te[0] and not tr[0]
        np.testing.assert_array_equal(o, so)
    assert ends["terminated" if env_id != "war" else "truncated"] >= 2, ends  # War: truncated after 5 battles
    with pytest.raises(ValueError, match="autoreset_mode='later'"):
        vector.make(env_id, 2, learner=0, autoreset_mode="later")
