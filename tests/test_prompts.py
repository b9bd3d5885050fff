"""Prompts of language-model seats (cardenvs.agent.prompts) and ``cardenvs prompt``: every game and variant."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

import cardenvs
from cardenvs.agent.prompts import AnswerError, prompt_messages, read_answer, rethink_message
from cardenvs.cli import main
from cardenvs.core.env import legal_actions
from cardenvs.registry import env_ids, spec_of
from cardenvs.seatview import hand_codes, table_view

VARIANTS = [(env_id, variant) for env_id in env_ids() for variant in spec_of(env_id).variants()]


def _decision(env_id: str, variant: str, moves: int = 4, seed: int = 1):
    """The env after about ``moves`` random moves, at a decision with more than one legal move if one comes."""
    env = cardenvs.make(env_id, variant=variant)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for done in range(200):
        if not env.agents:
            pytest.fail(f"{env_id} {variant}: the game ended before a decision")
        if env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
            env.step(None)
            continue
        observation = env.observe(env.agent_selection)
        legal = legal_actions(observation)
        if done >= moves and (len(legal) > 1 or done >= 3 * moves):  # War's flips are never a choice
            break
        env.step(int(rng.choice(legal)))
    base = env.unwrapped
    return base, base.agent_name_mapping[env.agent_selection], observation


def _tokens(text: str) -> set[str]:
    return set(re.findall(r"[A-Za-z0-9]+", text))


@pytest.mark.parametrize("env_id,variant", VARIANTS)
def test_prompt_names_hand_and_legal_moves_and_hides_other_hands(env_id, variant):
    base, seat, observation = _decision(env_id, variant)
    system, user = prompt_messages(base, seat, observation, "list")
    assert (system["role"], user["role"]) == ("system", "user")
    spec = spec_of(env_id)
    assert spec.title in system["content"] and "Final Answer:" in system["content"]
    for name, value in base.config.items():  # the options in play, with their values
        assert f"{name} = {value!r}" in system["content"]
    decision = json.loads(user["content"])
    hand = hand_codes(base, seat)
    if hand:
        assert decision["view"][0] == f"your hand ({len(hand)} cards): " + " ".join(hand)
    legal = [int(a) for a in legal_actions(observation)]
    assert decision["legal"] == [{"id": a, "name": base.action_name(a)} for a in legal]
    assert len(decision["history"]) == len(base.actions_taken)

    unlisted = json.loads(prompt_messages(base, seat, observation, "none")[1]["content"])
    assert "legal" not in unlisted and unlisted["view"] == decision["view"]

    # no card another seat holds unseen by this seat is named (its own cards and those shown on the table are seen)
    view = table_view(base, seat)
    seen = set(hand)
    for entry in view["table"]:
        seen |= set(entry.get("cards") or []) | {p.get("card") for p in entry.get("plays") or []}
    for s in view["seats"]:
        seen |= set(s["cards"] or []) | set(s["last_cards"] or [])
    for line in view["info"]:  # the game's public notes ("both 2H are wild" names the level's wild cards)
        seen |= _tokens(str(line))
    for line in decision["history"]:  # what was played in public (two decks: another seat may hold its twin)
        seen |= _tokens(line)
    hidden = {c for other in range(base.num_players) if other != seat for c in hand_codes(base, other)} - seen
    for other in range(base.num_players):
        assert view["seats"][other]["cards"] is None or other == seat or set(view["seats"][other]["cards"]) <= seen
    leaked = hidden & _tokens(user["content"])
    assert not leaked, f"{env_id} {variant}: hidden cards {sorted(leaked)} in the prompt"


def test_hidden_hands_exist_where_the_test_looks():
    """The check above bites: Dou Dizhu's other hands are hidden, and a prompt naming them would fail it."""
    base, seat, observation = _decision("doudizhu_v0", "default")
    others = {c for s in range(3) if s != seat for c in hand_codes(base, s)} - set(hand_codes(base, seat))
    assert len(others) >= 20
    assert not others & _tokens(prompt_messages(base, seat, observation)[1]["content"])


def test_rules_summary_follows_the_game_and_its_options():
    base, seat, observation = _decision("twos_v0", "small_hands")
    system = prompt_messages(base, seat, observation)[0]["content"]
    assert "hand_size = 5" in system and "bomb_order = 'rarity'" in system and "players = 3" in system
    assert "The first player with no cards wins at once." in system  # the rules module's plain words
    assert "``" not in system and ":mod:" not in system


@pytest.fixture(scope="module", params=sorted(env_ids()))
def position(request):
    return _decision(request.param, "default", moves=6)


def test_read_answer_round_trips_every_legal_move(position):
    base, seat, observation = position
    legal = [int(a) for a in legal_actions(observation)]
    named = {base.action_name(m).lower() for m in range(base.num_actions)}
    for a in legal:
        name = base.action_name(a)
        assert read_answer(base, f"Final Answer: #{a}", observation) == a
        assert read_answer(base, f"Final Answer: id {a}", observation) == a
        if str(a) not in named:  # a bare number no move is named: an id
            assert read_answer(base, f"Final Answer: {a}", observation) == a
        assert read_answer(base, f"Final Answer: {name}", observation) == a
        assert read_answer(base, f"I think so.\nfinal answer:   {name.upper()}  \n", observation) == a
        assert read_answer(base, f"**Final Answer: {name.lower()}**", observation) == a
        assert read_answer(base, f"Maybe {name}?\n`{name}`.", observation) == a  # the last line, no prefix
    wrong = read_answer(base, f"Final Answer: #{legal[-1]}\nno wait\nFinal Answer: #{legal[0]}", observation)
    assert wrong == legal[0]  # the last Final Answer counts


def test_read_answer_errors(position):
    base, seat, observation = position
    legal = set(int(a) for a in legal_actions(observation))
    for text, kind in (("", "garbage"), ("Final Answer:", "garbage"), ("I would rather not say", "garbage")):
        with pytest.raises(AnswerError) as error:
            read_answer(base, text, observation)
        assert error.value.kind == kind
    with pytest.raises(AnswerError) as error:
        read_answer(base, "Final Answer: 999999", observation)
    assert error.value.kind == "illegal"
    other = next((a for a in range(base.num_actions) if a not in legal), None)
    name = base.action_name(other) if other is not None else ""
    if other is not None and name.lower() not in {base.action_name(a).lower() for a in legal}:
        with pytest.raises(AnswerError) as error:
            read_answer(base, f"Final Answer: {name}", observation)
        assert error.value.kind == "illegal" and name in error.value.detail
        assert error.value.detail in rethink_message(error.value)["content"]


def test_read_answer_takes_the_games_own_forms():
    """Twos takes the cards of a move in any order (its parse_action); spaces inside a name are forgiven."""
    base, seat, observation = _decision("twos_v0", "default", moves=0, seed=5)
    legal = [int(a) for a in legal_actions(observation)]
    pair = next(a for a in legal if base.action_name(a).startswith("2x1"))
    top = base.action_name(pair).split()[-1]
    below = next(c for c in hand_codes(base, seat) if c[:-1] == top[:-1] and c != top)
    assert read_answer(base, f"Final Answer: {top} {below}", observation) == pair
    assert read_answer(base, f"Final Answer: {below}  {top}", observation) == pair
    assert read_answer(base, "Final Answer: " + base.action_name(pair).replace(" ", ""), observation) == pair


def test_prompt_command_is_deterministic_and_errors_cleanly(capsys):
    assert main(["prompt", "twos", "--seed", "2", "--step", "3", "-o", "players=4"]) == 0
    first = capsys.readouterr().out
    assert main(["prompt", "twos", "--seed", "2", "--step", "3", "-o", "players=4"]) == 0
    assert capsys.readouterr().out == first
    assert first.startswith("=== system ===\nYou play the card game Twos") and "=== user ===" in first
    assert main(["prompt", "twos", "--seed", "2", "--step", "3", "-o", "players=4", "--json"]) == 0
    messages = json.loads(capsys.readouterr().out)
    assert f"=== user ===\n{messages[1]['content']}\n" in first
    assert main(["prompt", "twos", "--seed", "3", "--step", "3", "-o", "players=4"]) == 0
    assert capsys.readouterr().out != first
    for argv, words in (
        (["prompt", "nogame"], "unknown game 'nogame'"),
        (["prompt", "war", "-o", "variant=short", "--step", "100000"], "--step must be below"),
        (["prompt", "twos", "--agents", "nobody"], "unknown agent 'nobody'"),
        (["prompt", "twos", "--agents", "random,random"], "has 3 seats"),
    ):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith("cardenvs: error: ") and words in err and err.count("\n") == 1, err


def test_a_bare_number_is_the_move_named_so_where_there_is_one():
    """Dou Dizhu's single 9 is named ``9`` (move id 6) and move id 9 is the single Q: a model answering 9 plays
    the 9, ``#9`` the Q."""
    env = cardenvs.make("doudizhu_v0", bidding=False)
    base = env.unwrapped
    assert base.action_name(6) == "9" and base.action_name(9) == "Q"
    for seed in range(40):  # the first deal whose landlord may lead a single 9 and a single Q
        env.reset(seed=seed)
        observation = env.observe(env.agent_selection)
        if {6, 9} <= set(int(a) for a in legal_actions(observation)):
            break
    else:
        pytest.fail("no deal of 40 lets the landlord lead both a 9 and a Q")
    assert read_answer(base, "Final Answer: 9", observation) == 6
    assert read_answer(base, "Final Answer: #9", observation) == 9
    assert read_answer(base, "Final Answer: id 6", observation) == 6
