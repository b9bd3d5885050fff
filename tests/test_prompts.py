"""Prompts of language-model seats (cardenvs.agent.prompts) and ``cardenvs prompt``: every game and variant."""

from __future__ import annotations

import itertools
import json
import re

import numpy as np
import pytest
from seat_knowledge import SeatKnowledge, leaks

import cardenvs
from cardenvs.agent.prompts import AnswerError, prompt_messages, read_answer, rethink_message
from cardenvs.cli import main
from cardenvs.core.env import legal_actions
from cardenvs.registry import env_ids, spec_of
from cardenvs.seatview import hand_codes

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


@pytest.mark.parametrize("env_id,variant", VARIANTS)
def test_prompt_names_hand_and_legal_moves(env_id, variant):
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

    unlisted = prompt_messages(base, seat, observation, "none")
    decision_unlisted = json.loads(unlisted[1]["content"])
    assert "legal" not in decision_unlisted and decision_unlisted["view"] == decision["view"]
    assert f"Moves:\n{spec.move_names}\n" in unlisted[0]["content"] and spec.move_names  # the names' grammar
    assert "#ID" not in unlisted[0]["content"]  # no ids to write without the list


def _told(user: str) -> str:
    """What a user message tells of the game: its view and history (the legal moves are the seat's own, from its
    mask), less the line that explains move names by example (Twos' note names 9D)."""
    decision = json.loads(user)
    return "\n".join(line for line in decision["view"] + decision["history"] if "move names:" not in line)


def _leaks_of_a_game(env, go_on):
    """A random game (seed 7) while ``go_on(base)``: at each decision (seat, its prompt's user message, the words of
    it the seat has not observed), then the seat's random legal move."""
    env.reset(seed=7)
    knowledge = SeatKnowledge(env)
    knowledge.see()
    rng = np.random.default_rng(7)
    while env.agents and go_on(env.unwrapped):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        observation = env.observe(agent)
        seat = env.unwrapped.agent_name_mapping[agent]
        user = prompt_messages(env.unwrapped, seat, observation)[1]["content"]
        yield seat, user, leaks(knowledge, seat, _told(user))
        action = int(rng.choice([int(a) for a in legal_actions(observation)]))
        env.step(action)
        knowledge.played(action)
        knowledge.see()


@pytest.mark.parametrize("env_id,variant", VARIANTS)
def test_no_prompt_names_what_its_seat_has_not_observed(env_id, variant):
    """At every decision of a game (the first 60), the prompt names no card and no secret word (a duel's hidden
    bid, another seat's discard) that the seat has not seen in its own observations (seat_knowledge): what the
    seat may know comes from the env's observation, never from the prompt itself (issue 62 item 9)."""
    env = cardenvs.make(env_id, variant=variant)
    checked = 0
    for _, user, leaked in itertools.islice(_leaks_of_a_game(env, lambda base: True), 60):
        assert not leaked, f"{env_id} {variant} step {len(env.unwrapped.actions_taken)}: {leaked} in {user}"
        checked += 1
    assert checked >= 10 or not env.agents


def test_the_leak_check_catches_a_history_that_names_every_move(monkeypatch):
    """The check above bites (issue 62 item 9's mutation): a history that names every move as it was played, the
    duel dealer's hidden bid and another seat's discards, fails it, in a duel and in a four-player game."""
    from cardenvs.agent import prompts

    monkeypatch.setattr(prompts, "public_move", lambda base, seat, action, viewer: base.action_name(int(action)))
    for variant, secret in (("duel", r"\d+ (high|low)|no bid"), ("default", "discard ")):
        env = cardenvs.make("two_way_street_v0", variant=variant)
        caught = []
        for _, _, leaked in _leaks_of_a_game(env, lambda base: len(base.actions_taken) < 40):
            caught += [w for w in leaked if re.match(secret, w)]
        assert caught, f"{variant}: a history naming every move passed the leak check"


def test_hidden_hands_exist_where_the_test_looks():
    """The check bites on hands too: Dou Dizhu's other hands are hidden from a seat's observations, and a prompt
    naming them would fail it."""
    env = cardenvs.make("doudizhu_v0")
    env.reset(seed=1)
    knowledge = SeatKnowledge(env)
    knowledge.see()
    base = env.unwrapped
    seat = base.agent_name_mapping[env.agent_selection]
    others = {c for s in range(3) if s != seat for c in hand_codes(base, s)}
    assert len(set(leaks(knowledge, seat, " ".join(others)))) >= 10
    assert not leaks(
        knowledge, seat, _told(prompt_messages(base, seat, env.observe(env.agent_selection))[1]["content"])
    )


def _rules_fragments(doc: str) -> list[str]:
    """The rules section's sentences as runs of words (letters and digits), computed here from the docstring:
    the section runs from its heading to the first line that is neither a bullet nor indented; a sentence ends
    at ``.``, ``;`` or ``:``; a cross-reference (``:mod:`.moves```) splits it into runs, each of which the prompt
    must hold in order."""
    heading = next(h for h in ("Rules, in plain words:", "Plain words:") if h in doc)
    section = []
    for line in doc.split(heading, 1)[1].splitlines()[1:]:
        if line.strip() and not line[0].isspace() and not line.startswith("* "):
            break
        section.append(line)
    text = re.sub(r":\w+:`[^`]*`", "|", " ".join(section))
    runs = []
    for sentence in re.split(r"(?<=[.;:])\s+", text):
        for fragment in sentence.split("|"):
            words = re.findall(r"[A-Za-z0-9]+", fragment)
            if words:
                runs.append(" ".join(words))
    return runs


@pytest.mark.parametrize("env_id,variant", VARIANTS)
def test_every_sentence_of_the_rules_reaches_the_prompt(env_id, variant):
    """Each sentence of the rules module's plain-words section, sub-lists included, is in the system message, and
    no markup is left over (issue 64 item 1: Twenty's scoring rule stopped at 'scores:', 'rounds rounds',
    '*Ten card*', '(moves)')."""
    base, seat, observation = _decision(env_id, variant, moves=0)
    system = prompt_messages(base, seat, observation)[0]["content"]
    rules = re.split(r"\n\n(?:Moves|Options in play):\n", system.split("\n\nRules:\n", 1)[1])[0]
    words = " ".join(re.findall(r"[A-Za-z0-9]+", rules))
    runs = _rules_fragments(spec_of(env_id).core().__doc__)
    assert len(runs) >= 8
    missing = [run for run in runs if f" {run} " not in f" {words} "]
    assert not missing, f"{env_id}: rules sentences missing from the prompt: {missing}"
    for debris in ("``", ":mod:", ":func:", ":data:", "**", "(moves)", "()", "( )"):
        assert debris not in rules, debris
    assert not re.search(r"(?<![\w*])\*\w[^*\n]*\*(?!\w)", rules), "emphasis stars left"
    assert not re.search(r"(?<![`\w])(\w+) \1\b", rules), "a word twice in a row (a literal lost its marks)"
    assert all(line.startswith(("* ", "  - ")) for line in rules.splitlines())


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


#: the scripted player's answers in the forms models write (issue 64 item 2, and what answer extractors of
#: evaluation harnesses meet: Markdown, LaTeX, tags, reasoning blocks), each from a legal move's id and name
ANSWER_FORMS = {
    "plain": lambda i, n: f"Final Answer: {n}",
    "the legal move copied": lambda i, n: "Final Answer: " + json.dumps({"id": i, "name": n}),
    "python dict": lambda i, n: f"Final Answer: {{'id': {i}, 'name': '{n}'}}",
    "json on the next lines": lambda i, n: f'Final Answer:\n```json\n{{\n  "id": {i},\n  "name": "{n}"\n}}\n```',
    "name only, json": lambda i, n: "Final Answer: " + json.dumps({"move": n}),
    "id and name": lambda i, n: f"Final Answer: #{i} {n}",
    "id: name": lambda i, n: f"Final Answer: id {i}: {n}",
    "name (id)": lambda i, n: f"Final Answer: {n} (id {i})",
    "name (#id)": lambda i, n: f"Final Answer: {n} (#{i})",
    "dash": lambda i, n: f"Final answer - {n}",
    "is": lambda i, n: f"So my final answer is {n}.",
    "bold marker": lambda i, n: f"**Final Answer:** **{n}**",
    "bold around": lambda i, n: f"**Final Answer**: {n}",
    "code": lambda i, n: f"Final Answer: `{n}`",
    "code fence": lambda i, n: f"Final Answer:\n```\n{n}\n```",
    "next line": lambda i, n: f"Final Answer:\n\n{n}",
    "trailing period": lambda i, n: f"Final Answer: {n}.",
    "quotes": lambda i, n: f'Final Answer: "{n}"',
    "curly quotes": lambda i, n: f"Final Answer: \u201c{n}\u201d",
    "brackets": lambda i, n: f"Final Answer: [{n}]",
    "lowercase": lambda i, n: f"final answer: {n.lower()}",
    "uppercase": lambda i, n: f"FINAL ANSWER: {n.upper()}",
    "a comment after": lambda i, n: f"Final Answer: {n} (my best move)",
    "a comment after the id": lambda i, n: f"Final Answer: #{i} - my best move",
    "is:": lambda i, n: f"My final answer is: {n}",
    "I play": lambda i, n: f"The table is open.\nI play {n}.",
    "move:": lambda i, n: f"Move: {n}",
    "bullet": lambda i, n: f"My choice:\n- **{n}**",
    "boxed": lambda i, n: f"The answer is $\\boxed{{{n}}}$",
    "boxed text": lambda i, n: f"\\boxed{{\\text{{{n}}}}}",
    "answer tags": lambda i, n: f"<answer>{n}</answer>",
    "after thinking": lambda i, n: f"<think>Final Answer: #999999 surely</think>\nFinal Answer: {n}",
    "fence last": lambda i, n: f"```\n{n}\n```",
}


def test_read_answer_reads_every_form_models_write(position):
    """The scripted player answers each legal move in every form of ANSWER_FORMS: each is read as that move."""
    base, seat, observation = position
    legal = [int(a) for a in legal_actions(observation)]
    for a in legal:
        for form, write in ANSWER_FORMS.items():
            text = write(a, base.action_name(a))
            assert read_answer(base, text, observation) == a, (form, text)


def test_read_answer_reads_a_name_with_a_word_left_out():
    """Twos' ``1x1 3S`` is ``1x1 to 3S`` (the words of one legal name, in order); words of several names are not
    read."""
    base, seat, observation = _decision("twos_v0", "default", moves=0, seed=5)
    legal = [int(a) for a in legal_actions(observation)]
    for a in legal:
        words = base.action_name(a).split()
        if len(words) == 3:
            assert read_answer(base, f"Final Answer: {words[0]} {words[2]}", observation) == a
    with pytest.raises(AnswerError) as error:
        read_answer(base, "Final Answer: 1x1", observation)  # every single's name has it
    assert error.value.kind in ("garbage", "illegal")


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("Let me see.\n*", "the answer's last line is '*', which names no move"),
        ("Final Answer:", "nothing follows the last 'Final Answer:'"),
        ("Final Answer:\n**", "nothing follows the last 'Final Answer:'"),
        ("Final Answer: MOVE", "'MOVE' is the answer format's placeholder"),
        ("<think>I could play anything", "all thinking"),
        ("   ", "the answer is empty"),
        ("Final Answer: I would rather not say", "'I would rather not say' is neither a legal move's name nor its id"),
    ],
)
def test_read_answer_says_why_it_read_no_move(text, says):
    base, seat, observation = _decision("twos_v0", "default", moves=0, seed=5)
    with pytest.raises(AnswerError) as error:
        read_answer(base, text, observation)
    assert error.value.kind == "garbage" and says in error.value.detail, error.value.detail
    assert says in rethink_message(error.value)["content"]


def test_read_answer_refuses_an_id_and_a_name_that_disagree():
    base, seat, observation = _decision("twos_v0", "default", moves=0, seed=5)
    first, second = [int(a) for a in legal_actions(observation)][:2]
    name = base.action_name(second)
    for text in (f"Final Answer: #{first} {name}", "Final Answer: " + json.dumps({"id": first, "name": name})):
        with pytest.raises(AnswerError) as error:
            read_answer(base, text, observation)
        assert "names two moves" in error.value.detail and name in error.value.detail


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
