"""Deal files (:mod:`cardenvs.arena.deals`): a table's deals written down and played again, byte for byte, for
every game; DouZero's evaluation data read and written; every bad file a one-line error naming what is wrong."""

import json
import pickle

import numpy as np
import pytest

import cardenvs
from cardenvs.arena import load_deals, make_deals, run_tournament, save_deals
from cardenvs.cli import main
from cardenvs.registry import env_ids


def _agents(env_id):
    players = cardenvs.make(env_id).unwrapped.num_players
    return ["random"] * players


class FirstLegal:
    """The legal move with the lowest id, no draw from the generator: a game is a function of its deal alone,
    so the tournament's seed changes the games only through the deals it deals."""

    name = "first_legal"

    def __init__(self, env):
        self.env = env

    def act(self, observation, rng):
        return int(np.flatnonzero(observation["action_mask"])[0])


def _games(results):
    return [(r.deal, r.replay, r.seats, r.scores, r.outcome, r.steps) for r in results.records]


@pytest.mark.parametrize("env_id", env_ids())
def test_saved_deals_replay_to_the_same_json(env_id, tmp_path):
    deals = tmp_path / "deals.json"
    saved = run_tournament(env_id, _agents(env_id), games=2, seed=4, save_deals=str(deals))
    replayed = run_tournament(env_id, _agents(env_id), games=2, seed=4, deals=str(deals))
    assert json.dumps(saved.to_dict()) == json.dumps(replayed.to_dict())
    data = json.loads(deals.read_text())
    assert data["format"] == "cardenvs-deals" and data["game"] == env_id and len(data["deals"]) == 2
    # the file, not the seed, deals: under another seed it plays the saved games, and that seed's own deals
    # (no file) are other games; deterministic agents, so that only the deals can make a difference
    first = [f"{__name__}:FirstLegal"] * len(_agents(env_id))
    saved = run_tournament(env_id, first, games=3, seed=4, save_deals=str(deals))
    replayed = run_tournament(env_id, first, games=3, seed=77, deals=str(deals))
    own = run_tournament(env_id, first, games=3, seed=77)
    assert _games(replayed) == _games(saved)
    assert _games(own) != _games(saved)


def test_the_cli_writes_and_plays_deal_files(tmp_path, capsys):
    deals, first, second = tmp_path / "d.json", tmp_path / "a.json", tmp_path / "b.json"
    args = ["arena", "twos", "--agents", "twos.heuristic,random,random", "--no-progress", "--seed", "3"]
    assert main([*args, "--games", "3", "--save-deals", str(deals), "--out", str(first)]) == 0
    assert "wrote the 3 deals" in capsys.readouterr().out
    assert main([*args, "--deals", str(deals), "--out", str(second)]) == 0  # all 3 deals of the file
    assert first.read_bytes() == second.read_bytes()
    # under another seed, deterministic agents play the file's games, not that seed's
    args = ["arena", "twos", "--agents", ",".join([f"{__name__}:FirstLegal"] * 3), "--no-progress", "--games", "3"]
    assert main([*args, "--seed", "3", "--save-deals", str(deals), "--out", str(first)]) == 0
    assert main([*args, "--seed", "8", "--deals", str(deals), "--out", str(second)]) == 0
    assert main([*args, "--seed", "8", "--out", str(tmp_path / "c.json")]) == 0
    records = [json.loads(f.read_text())["records"] for f in (first, second, tmp_path / "c.json")]
    assert records[1] == records[0] != records[2]


def test_a_deal_file_says_which_deals_are_played(tmp_path):
    """The decks in the file are what is dealt: a hand written into it is the hand played."""
    from cardenvs.seatview import hand_codes

    data = make_deals("doudizhu_v0", {}, 1, 1)
    deck = data["deals"][0]["decks"][0].split()
    data["deals"][0]["decks"] = [" ".join(deck[17:34] + deck[:17] + deck[34:])]  # the first two hands swapped
    data["deals"][0]["reset"] = {"first_bidder": 0}
    resets = load_deals(_write(tmp_path, data), "doudizhu_v0", {})
    env = cardenvs.make("doudizhu_v0")
    env.reset(seed=99, options={**resets[0], "landlord": 2, "bid": 1})
    assert sorted(hand_codes(env.unwrapped, 0)) == sorted(deck[17:34])
    assert sorted(hand_codes(env.unwrapped, 1)) == sorted(deck[:17])


def _write(tmp_path, data, name="deals.json"):
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return str(path)


def test_douzero_deals_round_trip_and_play_as_ours(tmp_path):
    ours = make_deals("doudizhu_v0", {}, 2, 3)
    pkl = tmp_path / "eval.pkl"
    save_deals(f"douzero:{pkl}", ours)
    douzero = pickle.loads(pkl.read_bytes())
    assert len(douzero) == 3 and sorted(douzero[0]) == [
        "landlord",
        "landlord_down",
        "landlord_up",
        "three_landlord_cards",
    ]
    assert [len(douzero[0][k]) for k in ("landlord", "landlord_down", "landlord_up", "three_landlord_cards")] == [
        20,
        17,
        17,
        3,
    ]
    again = tmp_path / "again.pkl"
    save_deals(f"douzero:{again}", {"game": "doudizhu_v0", "deals": [dict(d, deal_seed=None) for d in _read(pkl)]})
    assert pickle.loads(again.read_bytes()) == douzero  # DouZero -> ours -> DouZero
    agents = [f"{__name__}:FirstLegal"] * 3  # no draws: the deals alone make the games
    from_douzero = run_tournament("doudizhu_v0", agents, games=3, seed=5, deals=f"douzero:{pkl}")
    from_ours = run_tournament("doudizhu_v0", agents, games=3, seed=9, deals=_write(tmp_path, ours))
    seed_5 = run_tournament("doudizhu_v0", agents, games=3, seed=5)
    games = [[(r.outcome, r.scores, r.steps) for r in res.records] for res in (from_douzero, from_ours, seed_5)]
    assert games[0] == games[1]  # the same hands (suits never matter): the same games, whatever the seed
    assert games[0] != games[2]  # and not seed 5's own deals


def _read(pkl):
    from cardenvs.games.doudizhu import deal_formats

    return deal_formats.read(str(pkl))


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda d: d.update(format="other"), "is not a deal file"),
        (lambda d: d.update(version=9), "version 9"),
        (lambda d: d.update(game="war_v0"), "are for 'war_v0'"),
        (lambda d: d.update(options={"bidding": False}), "give the file's options"),
        (lambda d: d.update(deals=[]), "non-empty list"),
        (lambda d: d["deals"][0].update(decks="3S"), "deal 0: 'decks' must be"),
        (lambda d: d["deals"][0].update(decks=["3S 4S"]), "deal 0:"),
        (lambda d: d["deals"][0].update(hands=[]), "deal 0: unknown field 'hands'"),
        (lambda d: d["deals"][0].update(reset={"landlord": 7}), "deal 0:"),
    ],
)
def test_bad_deal_files_name_the_deal_and_the_field(tmp_path, change, words):
    data = make_deals("doudizhu_v0", {}, 1, 1)
    change(data)
    with pytest.raises(ValueError, match=words):
        load_deals(_write(tmp_path, data), "doudizhu_v0", {})


def test_bad_douzero_files_and_formats(tmp_path):
    bad = tmp_path / "bad.pkl"
    bad.write_bytes(pickle.dumps([{"landlord": [3] * 20}]))
    with pytest.raises(ValueError, match="deal 0: expected a dict with landlord"):
        load_deals(f"douzero:{bad}", "doudizhu_v0", {})
    with pytest.raises(ValueError, match="no deal format 'douzero' for twos_v0"):
        load_deals(f"douzero:{bad}", "twos_v0", {})
    with pytest.raises(ValueError, match="more|holds 1 deals"):
        run_tournament(
            "doudizhu_v0", ["random"] * 3, games=2, deals=_write(tmp_path, make_deals("doudizhu_v0", {}, 1, 1))
        )
    assert main(["arena", "twos", "--agents", "random,random,random", "--deals", str(tmp_path / "none.json")]) == 2
