"""cardenvs analyze skill: the variance split on hand-computed outcomes, its error term on coin flips, the
ratings and games-to-lead formulas, War's calibration, a game with skill, variants and bad input."""

import json
import math

import numpy as np
import pytest

from cardenvs.analysis import skill
from cardenvs.arena import GameRecord
from cardenvs.cli import main


def test_variance_split_by_hand():
    # 3 deals, 1 hand per deal, 2 agents, 1 game per cell: y[deal] = (agent 0, agent 1)
    y = np.array([[2.0, 0.0], [1.0, 1.0], [3.0, -1.0]])[:, None, :, None]
    split = skill.variance_split(skill.layout_of_array(y))
    # mean 1; sum of squares 16 - 6 * 1 = 10, so the outcome variance is 10 / 6
    # agent means 2 and 0: SS_agent = 3 * (1 + 1) = 6 (1 df); deal means all 1: SS between deals 0
    # agent x deal = 10 - 0 - 6 = 4 over 2 df: MS 2; var_agent = 1/2 * (6 - 2) / 3 = 2/3
    # skill share (2/3) / (10/6) = 0.4; deal share 0 (one hand a deal, no spread); the agents' eta2 6/10
    assert split["ss_total"][0] == pytest.approx(10.0)
    assert split["ss_agent"][0] == pytest.approx(6.0)
    assert split["ss_agent_by_deal"][0] == pytest.approx(4.0)
    assert split["var_agent"][0] == pytest.approx(2 / 3)
    assert split["skill_share"][0] == pytest.approx(0.4)
    assert split["deal_share"][0] == pytest.approx(0.0)
    assert split["residual_share"][0] == pytest.approx(0.6)
    assert split["eta2_agent"][0] == pytest.approx(0.6)


def test_variance_split_pure_deal_and_pure_skill():
    # two seats a deal, zero-sum, the cards decide (War): hand effects +-1 whoever holds them
    luck = np.array([[[1.0, 1.0], [-1.0, -1.0]], [[-1.0, -1.0], [1.0, 1.0]]])[..., None]
    split = skill.variance_split(skill.layout_of_array(luck))
    assert split["skill_share"][0] == pytest.approx(0.0)
    assert split["deal_share"][0] == pytest.approx(1.0)
    # the agent decides: agent 0 always +1, agent 1 always -1, whatever the hand
    talent = np.tile(np.array([1.0, -1.0]), (3, 2, 1))[..., None]
    split = skill.variance_split(skill.layout_of_array(talent))
    assert split["skill_share"][0] == pytest.approx(1.0)
    assert split["deal_share"][0] == pytest.approx(0.0)


def coin_layout(deals, rng):
    """Two-player zero-sum coin flips on duplicate deals: hand 0 / hand 1, agents A / B, each game a flip."""
    c = rng.choice([-1.0, 1.0], size=(deals, 2))
    y = np.zeros((deals, 2, 2, 1))
    y[:, 0, 0, 0], y[:, 1, 1, 0] = c[:, 0], -c[:, 0]  # game 1: A holds hand 0
    y[:, 0, 1, 0], y[:, 1, 0, 0] = c[:, 1], -c[:, 1]  # game 2: B holds hand 0
    return skill.layout_of_array(y)


def test_skill_share_is_unbiased_on_coin_flips():
    # the agents' effect is tested against the agent x deal interaction: on coin flips the skill share
    # averages 0 (a test against the hands' residual would average about +1/60 here); eta2 stays above 0
    rng = np.random.default_rng(3)
    draws = [skill.variance_split(coin_layout(30, rng)) for _ in range(2000)]
    shares = np.array([d["skill_share"][0] for d in draws])
    assert abs(shares.mean()) < 3 * shares.std() / math.sqrt(len(shares))
    assert np.mean([d["eta2_agent"][0] for d in draws]) > 0.01


def test_resampling_weights_equal_repeating_deals():
    rng = np.random.default_rng(0)
    layout = coin_layout(5, rng)
    weights = np.array([[2.0, 0.0, 1.0, 1.0, 1.0]])
    repeated = skill.Layout(
        layout.agents,
        1,
        layout.cell_sum[[0, 0, 2, 3, 4]],
        layout.square_sum[[0, 0, 2, 3, 4]],
        layout.beat,
        layout.met,
        layout.won,
        layout.played,
        layout.pairs,
        layout.pair_n,
        layout.pair_x,
        layout.pair_xx,
    )
    a, b = skill.variance_split(layout, weights), skill.variance_split(repeated)
    for key in ("ss_total", "ss_agent", "ss_agent_by_deal", "skill_share", "deal_share"):
        assert a[key][0] == pytest.approx(b[key][0])


def test_bradley_terry_two_agents_by_hand():
    # agent 1 ahead of agent 0 in 3 of 4 meetings; with half a win each way: 3.5 of 5, odds 3.5 / 1.5
    beat = np.array([[[0.0, 1.0], [3.0, 0.0]]])
    met = np.array([[[0.0, 4.0], [4.0, 0.0]]])
    ratings = skill.bradley_terry(beat, met)[0]
    assert ratings[1] - ratings[0] == pytest.approx(400 * math.log10(3.5 / 1.5))
    assert ratings.sum() == pytest.approx(0.0)


def test_games_to_lead_formula():
    layout = coin_layout(4, np.random.default_rng(0))
    # one pair; per-game differences over 4 deals: deal d has games x = (1, 0) -> mean 0.5 per game
    layout.pair_n[:] = 2
    layout.pair_x[:] = 1.0
    layout.pair_xx[:] = 1.0
    lead = skill.games_to_lead(layout)
    # games: mean 0.5, variance 0.25 -> n = 1.645^2 * 0.25 / 0.25 = 2.7 -> 3; deals: no spread -> 1
    assert lead["games"][0, 0] == 3
    assert lead["deals"][0, 0] == 1
    layout.pair_x[:] = -1.0  # the "stronger" agent behind: never ahead
    assert math.isinf(skill.games_to_lead(layout)["games"][0, 0])


def test_unbalanced_games_are_refused():
    records = [GameRecord(0, 0, 0, ["a", "b"], [0, 0], [0, 0], [1.0, -1.0])]
    with pytest.raises(ValueError, match="balanced"):
        skill.layout_of(skill.games_of(records, {"a": 0, "b": 1}, 2, 2), ["a", "b"], 1, 2)


def test_tables_cover_every_hand_equally():
    # fewer agents than seats: each agent holds each seat equally often over the cyclic tables
    tables = skill.tables_for(["a", "b", "c"], 4)
    counts = {name: [sum(t[s] == name for t in tables) for s in range(4)] for name in "abc"}
    assert counts == {"a": [1, 1, 1, 1], "b": [1, 1, 1, 1], "c": [1, 1, 1, 1]}
    assert skill.tables_for(["a", "b", "c"], 2) == [["a", "b", "c"]]


def run_json(tmp_path, argv):
    assert main(["analyze", "skill", *argv, "--out", str(tmp_path), "--no-progress"]) == 0
    return json.loads(next(tmp_path.glob("*.json")).read_text())


def contains_zero(entry):
    lo, hi = entry["ci"]
    return lo is not None and hi is not None and lo <= 0 <= hi


def test_war_calibration(tmp_path, capsys):
    data = run_json(tmp_path, ["war", "--games", "12", "--bootstrap", "100"])
    result = data["variants"][0]
    assert data["ladder"] == ["random", "war.flip"] and result["games"] == 24
    # no decisions: neither the skill share nor the ratings may find skill
    assert contains_zero(result["skill_share"])
    assert contains_zero(result["rating_spread"]) and contains_zero(result["rating_gap"])
    assert [c["keep"] for c in result["calibration"]] == list(skill.KEEPS)
    assert "war_v0 default" in capsys.readouterr().out


def test_a_game_with_skill_and_variants_in_one_call(tmp_path):
    # Twos with 2 and 3 players; random against the heuristic (a ladder shorter than 3 seats: cyclic tables)
    data = run_json(
        tmp_path,
        [
            "twos",
            "--ladder",
            "random,twos.heuristic",
            "--games",
            "12",
            "--bootstrap",
            "200",
            "--variants",
            "players=2",
            "default",
        ],
    )
    two, three = data["variants"]
    assert two["options"] == {"players": 2} and two["players"] == 2 and three["players"] == 3
    for result in (two, three):
        assert result["skill_share"]["ci"][0] > 0
        assert result["rating_gap"]["ci"][0] > 0
        assert result["agents"]["twos.heuristic"]["win_rate"]["value"] > result["agents"]["random"]["win_rate"]["value"]
    assert "--variants players=2 default" in data["command"]


def test_workers_play_the_same_study(tmp_path):
    """Two worker processes (one pool for every option set and table) give the numbers one process gives."""
    argv = ["twos", "--ladder", "random,twos.heuristic,twos.pimc(playouts=20)", "--games", "6", "--bootstrap", "50"]
    argv += ["--variants", "players=2", "default"]
    one = run_json(tmp_path / "one", argv)
    two = run_json(tmp_path / "two", [*argv, "--workers", "2"])
    assert (one["workers"], two["workers"]) == (1, 2)
    assert two["command"].endswith(f"--workers 2 --out {tmp_path / 'two'}")
    for result in one["variants"]:
        result.pop("seconds")
    assert two["variants"] == one["variants"]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["twos", "--ladder", "random"], "a ladder needs at least 2 agents"),
        (["twos", "--ladder", "random,twenty.greedy"], "plays twenty, not twos"),
        (["twos", "--ladder", "random,random"], "names random twice"),
        (["twos", "--variants", "nonesuch"], "unknown variant 'nonesuch'"),
        (["twos", "--variants", "colour=red"], "unknown option 'colour'"),
        (["twos", "-o", "players=9"], "players=9 is out of range"),
    ],
)
def test_bad_input_is_one_line(argv, message, capsys):
    assert main(["analyze", "skill", *argv, "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert err.startswith("cardenvs: error: analyze skill: ") and len(err.strip().splitlines()) == 1


def test_help_and_out_path(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["analyze", "skill", "--help"])
    out = capsys.readouterr().out
    assert "95% intervals" in out and "%%" not in out
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert main(["analyze", "skill", "war", "--out", str(blocker), "--no-progress"]) == 2
    assert "is a file; name a folder" in capsys.readouterr().err


def duel_records(deals, first_wins):
    """Two-player duplicate deals between ``first`` and ``second``: each deal played in both seatings;
    ``first_wins(deal, replay)`` says who wins each game."""
    records = []
    for deal in range(deals):
        for replay, seats in enumerate((["first", "second"], ["second", "first"])):
            first_ahead = first_wins(deal, replay)
            outcome = [1.0, -1.0] if (seats[0] == "first") == first_ahead else [-1.0, 1.0]
            records.append(GameRecord(deal, replay, 0, seats, outcome, outcome, outcome))
    return records


def duel_study(ladder, records, deals):
    run = skill.LadderRun({}, False, [], seats=2, seatings=2, reset_options=1)
    return skill.study(ladder, run, records, deals, seed=0, resamples=200)


def test_a_wrong_declared_order_is_flagged():
    # "first" wins every game but one deal's second: declared the weaker, it is clearly the stronger
    records = duel_records(20, lambda deal, replay: deal != 0 or replay == 0)
    result = duel_study(["first", "second"], records, 20)
    order = result["ladder_order"]
    assert order["declared"] == ["first", "second"] and order["measured"] == ["second", "first"]
    assert not order["agrees"]
    (pair,) = order["inversions"]
    assert pair["weaker"] == "first" and pair["stronger"] == "second" and pair["clear"]
    assert pair["rating_difference"]["value"] < 0 and pair["rating_difference"]["ci"][1] < 0
    text = skill.report("duel_v0", result)
    assert "measured order (by rating, weakest first): second < first" in text
    assert "ORDER DIFFERS from the declared ladder (first, second)" in text
    assert "second rated below first" in text and "clear: interval below 0" in text
    # declared the right way round: no flag
    result = duel_study(["second", "first"], records, 20)
    assert result["ladder_order"]["agrees"] and result["ladder_order"]["inversions"] == []
    assert "ORDER DIFFERS" not in skill.report("duel_v0", result)


def test_an_inversion_within_noise_is_not_clear():
    # "first" wins 11 of 20 deals in both seatings and loses 9: ahead, but the interval reaches 0
    records = duel_records(20, lambda deal, replay: deal < 11)
    order = duel_study(["first", "second"], records, 20)["ladder_order"]
    (pair,) = order["inversions"]
    assert not pair["clear"] and pair["rating_difference"]["ci"][0] < 0 < pair["rating_difference"]["ci"][1]


def test_equal_ratings_keep_the_declared_order():
    # every deal split one game each: equal ratings are no inversion (War's case)
    records = duel_records(10, lambda deal, replay: replay == 0)
    order = duel_study(["first", "second"], records, 10)["ladder_order"]
    assert order["agrees"] and order["measured"] == ["first", "second"]
