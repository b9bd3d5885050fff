"""Guandan's web view (:mod:`cardenvs.games.guandan.view`) through :func:`cardenvs.seatview.table_view`: the levels
and the wild cards, the teams, the play to beat as its cards, the tribute and the return face down until shown
(only their giver sees them before), who is out in which order, the words at the end."""

import re

import numpy as np

from cardenvs.core.cards import card_code, parse_card
from cardenvs.games.guandan import moves
from cardenvs.games.guandan import rules as R
from cardenvs.games.guandan.env import raw_env
from cardenvs.seatview import table_view


def pile(view: dict, label: str) -> dict | None:
    return next((p for p in view["table"] if p["label"] == label), None)


def test_levels_wilds_teams_and_hidden_hands():
    env = raw_env()
    env.reset(seed=4, options={"levels": ["7", "Q"], "declarer": 1})
    v = table_view(env, 0)
    assert "levels: team 0 at 7, team 1 at Q" in v["info"]
    assert any("played at Q" in line and "both QH are wild" in line for line in v["info"])
    assert [s["notes"][0] for s in v["seats"]] == ["team 0", "team 1", "team 0", "team 1"]
    assert v["seats"][0]["cards"] is not None and all(v["seats"][p]["cards"] is None for p in (1, 2, 3))
    assert [s["count"] for s in v["seats"]] == [27] * 4
    # the hand is shown in card order at level Q: the queens after the aces, the jokers last
    order = [R.card_order(parse_card(c), R.ACE - 2) for c in v["seats"][0]["cards"]]
    assert order == sorted(order)


def test_the_play_to_beat_is_its_cards_and_each_seat_shows_its_last_play():
    env = raw_env()
    env.reset(seed=2, options={"first_leader": 0})
    leader_hand = env.state.hands[0].copy()
    low = int(np.flatnonzero(leader_hand)[0])  # player_0's lowest card id, led as a single
    env.step(int(env.parse_action(card_code(low))))
    while env.state.pending >= 0:
        env.step(int(env.legal_actions()[0]))
    v = table_view(env, 1, plays=None)
    beat = pile(v, "to beat")
    assert beat["cards"] == [card_code(low)] and beat["text"].endswith("by player_0")
    assert int(env.state.last_pid) >= 0 and moves.PAT_KIND[env.state.last_pid] == moves.SINGLE


def test_the_tribute_is_face_down_until_every_payer_paid():
    # a double (0 and 2 first): player_1 then player_3 pay. After player_1 paid, only player_1 sees its card.
    env = raw_env()
    env.reset(seed=5, options={"previous_order": [0, 2, 1, 3]})
    if env.state.resisted:  # the payers hold both red jokers on this deal: try the next ones
        for seed in range(6, 30):
            env.reset(seed=seed, options={"previous_order": [0, 2, 1, 3]})
            if not env.state.resisted:
                break
    assert env.state.phase == R.PAY and env.state.to_move == 1
    env.step(int(env.legal_actions()[0]))
    paid = card_code(int(env.state.paid[0]))
    mine = pile(table_view(env, 1), "tribute")
    assert mine is not None and mine["cards"] == [paid] and "not shown yet" in mine["text"]
    for viewer in (0, 2, 3):
        assert pile(table_view(env, viewer), "tribute") is None
    env.step(int(env.legal_actions()[0]))  # player_3 pays: both shown, handed over
    for viewer in range(4):
        shown = pile(table_view(env, viewer), "tribute")
        assert shown is not None and len(shown["cards"]) == 2 and "not shown" not in shown["text"]
    assert any(line.startswith("return: player_0 gives a card back") for line in table_view(env, 2)["info"])
    # the returns: player_0's is face down until player_2 returned too
    env.step(int(env.legal_actions()[0]))
    assert pile(table_view(env, 0), "returned") is not None
    assert pile(table_view(env, 1), "returned") is None
    env.step(int(env.legal_actions()[0]))
    assert len(pile(table_view(env, 1), "returned")["cards"]) == 2


def test_the_end_names_the_first_out_the_order_and_the_levels():
    env = raw_env()
    env.reset(seed=9)
    rng = np.random.default_rng(9)
    while env.state.status == 0:
        env.step(int(rng.choice(env.legal_actions())))
    s = env.state
    v = table_view(env, None)
    first = int(s.out_order[0])
    assert any(line.startswith(f"out: player_{first} 1st") for line in v["info"])
    from cardenvs.games.guandan.view import describe_result

    text = describe_result(env)
    gain = int(s.gain)
    assert re.match(rf"player_{first} went out first: team {first % 2} \(player_\d and player_\d\) wins the hand", text)
    assert f"{gain} level" in text


def test_a_move_names_another_seats_tribute_card_only_to_its_giver():
    """The moves' history (the web app's, cardenvs play's, a program agent's) names a paid or returned card to
    its giver only; a play is public. A double (0 and 2 first): player_1 pays first."""
    from cardenvs.seatview import public_move

    env = raw_env()
    seed = next(s for s in range(5, 40) if not _resisted(env, s))
    env.reset(seed=seed, options={"previous_order": [0, 2, 1, 3]})
    action = int(env.legal_actions()[0])
    assert moves.CARD0 <= action < moves.SUIT0 and env.state.to_move == 1
    assert public_move(env, 1, action, 1) == public_move(env, 1, action, None) == env.action_name(action)
    assert env.action_name(action).startswith("card ")
    for viewer in (0, 2, 3, -1):
        assert public_move(env, 1, action, viewer) == "gives a card"
    assert public_move(env, 1, moves.PASS, 0) == "pass"


def _resisted(env, seed: int) -> bool:
    env.reset(seed=seed, options={"previous_order": [0, 2, 1, 3]})
    return bool(env.state.resisted)
