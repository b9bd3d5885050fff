"""Botzone's Fight the Landlord protocol (``botzone:COMMAND``, :mod:`cardenvs.games.doudizhu.botzone`): a bot
written to Botzone's protocol plays full duplicate tables, with and without the bidding, run once per turn or
kept running, exactly as the same logic written as a Python class; it gets back exactly the card ids it named;
``data`` and ``globaldata`` are kept as Botzone's runner keeps them; its faults are recorded results; other
games refuse the kind."""

import json
import os
import sys
from pathlib import Path

import numpy as np
import pytest

import cardenvs
from cardenvs.agent import load_agent
from cardenvs.agent.program import ProgramAgent
from cardenvs.arena import run_tournament
from cardenvs.games.doudizhu import botzone, moves

BOTS = Path(__file__).parent / "bots"
# -S: no site, a faster start each decision; language=py: Botzone's time limits of a Python bot
BOT = f"botzone:{sys.executable} -S {BOTS / 'botzone_smallest.py'}"
PY = "language=py"


class Smallest:
    """The Botzone test bot's logic on this game's state: bid one more than the bid so far holding a 2 or a
    joker (below 3), else no bid; lead the lowest rank; beat a single with the lowest higher rank; else pass."""

    def __init__(self, env):
        self.env = env.unwrapped
        self.name = "smallest"

    def act(self, observation, rng):
        s = self.env.state
        seat = self.env.agent_name_mapping[self.env.agent_selection]
        counts = s.counts[seat]
        if s.bidding:
            high = counts[moves.TWO :].sum() > 0
            return moves.BID_PASS + (int(s.bid) + 1 if high and s.bid < 3 else 0)
        held = [r for r in range(moves.NUM_RANKS) if counts[r] > 0]
        if s.last_move < 0:
            return moves.MOVE_ID[moves.RANK_CHARS[held[0]]]
        if moves.MOVE_TYPE[s.last_move] == moves.SINGLE:
            higher = [r for r in held if r > moves.MOVE_MAIN[s.last_move]]
            if higher:
                return moves.MOVE_ID[moves.RANK_CHARS[higher[0]]]
        return moves.PASS


@pytest.fixture
def python_class(monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "Smallest", Smallest)
    return f"{__name__}:Smallest"


def _games(results):
    return [(r.deal, r.replay, r.seats.index(results.agents[0]), r.scores, r.steps, r.roles) for r in results.records]


@pytest.mark.parametrize(
    ("game", "options", "role_phase", "modes"),
    [
        # the agents bid, from the deal's first bidder; the bot names the highest ids of a rank and checks that
        # its responses come back as it said them (through data) and that no history shows a card it holds
        ("FightTheLandlord2", {"bidding": True}, True, " high check"),
        ("FightTheLandlord", {"bidding": False}, False, ""),  # Botzone's fixed-landlord game
    ],
)
def test_a_botzone_bot_plays_a_duplicate_table_as_its_python_twin(
    game, options, role_phase, modes, python_class, starts
):
    bot = f"{BOT}{modes}(game={game},{PY})"
    kwargs = {"games": 1, "seed": 3, "options": options, "role_phase": role_phase, "engine": "aec"}
    program = run_tournament("doudizhu_v0", [bot, "doudizhu.rule", "random"], **kwargs)
    twin = run_tournament("doudizhu_v0", [python_class, "doudizhu.rule", "random"], **kwargs)
    assert len(program.records) == 6  # one deal in all 6 seatings
    assert _games(program) == _games(twin)
    assert not program.faults()
    assert any(r.steps > 20 for r in program.records)  # hands were played out, not ended at once
    assert starts[bot] > 5 * len(program.records)  # run once per turn: a start at each decision


def _perl_with_json() -> bool:
    import shutil
    import subprocess

    perl = shutil.which("perl")
    return perl is not None and subprocess.run([perl, "-MJSON::PP", "-e", "1"], capture_output=True).returncode == 0


# CI installs perl (Debian's perl has JSON::PP): there a missing one fails the test instead of skipping it
@pytest.mark.skipif(not _perl_with_json() and not os.environ.get("CI"), reason="no perl with its core JSON::PP here")
def test_the_same_bot_in_perl_plays_the_table_as_its_python_twin(python_class):
    """Another language through the unchanged protocol: tests/bots/botzone_smallest.pl is the Python test bot's
    logic in Perl; both bidding and play give the twin's games, seating for seating."""
    kwargs = {"games": 1, "seed": 5, "options": {"bidding": True}, "role_phase": True, "engine": "aec"}
    perl = f"botzone:perl {BOTS / 'botzone_smallest.pl'}(move_ms=5000)"
    program = run_tournament("doudizhu_v0", [perl, "doudizhu.rule", "random"], **kwargs)
    twin = run_tournament("doudizhu_v0", [python_class, "doudizhu.rule", "random"], **kwargs)
    assert _games(program) == _games(twin) and not program.faults()
    assert any(r.steps > 20 for r in program.records)


def _first_decisions(game, reset_options, seat_count=3):
    """The first Botzone inputs of each seat's program in a seeded game the test bot's twin plays."""
    env = cardenvs.make("doudizhu_v0")
    env.reset(seed=11, options=reset_options)
    base = env.unwrapped
    speakers = [botzone.Protocol(base, game) for _ in range(seat_count)]
    twin = Smallest(env)
    inputs: list[list[dict]] = [[] for _ in range(seat_count)]
    for _ in range(12):
        seat = base.agent_name_mapping[base.agent_selection]
        observation = base.observe(base.agent_selection)
        inputs[seat].append(json.loads(speakers[seat].request(seat, observation)))
        env.step(twin.act(observation, None))
    return base, inputs


def test_the_requests_are_botzones_with_its_card_numbers():
    """FightTheLandlord2 after a fixed landlord: each seat's first request of the play has its 17 dealt cards
    (the bottom cards not among them), the bottom cards, Botzone's seats of the landlord and of itself (seat 0
    the first bidder) and the bid; the history shows the last two seats' cards as the game took them."""
    base, inputs = _first_decisions("FightTheLandlord2", {"landlord": 1, "bid": 2})
    s = base.state
    first = int(s.first_bidder)
    bottom = sorted(int(botzone.TO_BOTZONE[c]) for c in s.kitty)
    for seat in range(3):
        request = inputs[seat][0]["requests"][0]
        assert set(request) == {"own", "publiccard", "landlord", "pos", "finalbid", "history"}
        assert len(request["own"]) == 17 and not set(request["own"]) & set(bottom)
        assert request["publiccard"] == bottom and request["finalbid"] == 2
        assert request["pos"] == (seat - first) % 3 and request["landlord"] == (1 - first) % 3
        # a card id is Botzone's: rank (3 = 0) * 4 + suit, so its rank is id // 4 as this game counts ranks
        ranks = sorted(int(moves.RANK_OF_CARD[botzone.FROM_BOTZONE[b]]) for b in request["own"])
        assert ranks == sorted(b // 4 if b < 52 else b - 39 for b in request["own"])
    # seat 1 leads: its first history is empty; seat 2 then sees seat 1's lead as the previous seat's cards
    assert inputs[1][0]["requests"][0]["history"] == [[], []]
    lead = inputs[2][0]["requests"][0]["history"][1]
    assert len(lead) == 1 and inputs[0][0]["requests"][0]["history"][0] == lead
    # seat 1's second input holds its first response: the card the game took for its lead
    assert inputs[1][1]["responses"] == [lead] and len(inputs[1][1]["requests"]) == 2


def test_the_bidding_requests_count_seats_from_the_first_bidder():
    base, inputs = _first_decisions("FightTheLandlord2", {"first_bidder": 2})
    s = base.state
    bids = [int(b) for b in s.bids[: int(s.n_bids)]]
    for k in range(int(s.n_bids)):
        seat = (2 + k) % 3
        request = inputs[seat][0]["requests"][0]
        assert set(request) == {"own", "bid"} and request["bid"] == bids[:k] and len(request["own"]) == 17


def test_the_fixed_landlord_game_gives_the_landlord_twenty_cards():
    base, inputs = _first_decisions("FightTheLandlord", {"landlord": 2, "bid": 1})
    bottom = sorted(int(botzone.TO_BOTZONE[c]) for c in base.state.kitty)
    landlord = inputs[2][0]["requests"][0]
    assert len(landlord["own"]) == 20 and set(bottom) <= set(landlord["own"])
    assert landlord["publiccard"] == landlord["public"] == bottom and landlord["history"] == [[], []]
    assert len(inputs[0][0]["requests"][0]["own"]) == 17


def _answer(answer, reset_options=None):
    """The action (or the fault) of ``answer`` to a seeded first decision of the play."""
    env = cardenvs.make("doudizhu_v0")
    env.reset(seed=4, options=reset_options or {"landlord": 0, "bid": 1})
    base = env.unwrapped
    seat = base.agent_name_mapping[base.agent_selection]
    speaker = botzone.Protocol(base)
    observation = base.observe(base.agent_selection)
    request = json.loads(speaker.request(seat, observation))["requests"][0]
    hand = request["own"] + request["publiccard"]
    return speaker.action(json.dumps(answer(hand)), observation)


def test_answers_become_this_games_moves():
    # the lowest card of the hand, as a Botzone id, is the single of its rank
    action = _answer(lambda hand: {"response": [min(hand)]})
    assert moves.MOVE_TYPE[action] == moves.SINGLE
    # a bare response (no object around it) is read too
    assert _answer(lambda hand: [min(hand)]) == action


@pytest.mark.parametrize(
    ("answer", "kind", "words"),
    [
        (lambda hand: {"response": []}, "illegal", "a pass while leading"),
        (lambda hand: {"response": [60]}, "illegal", "outside 0..53"),
        (lambda hand: {"response": [hand[0], hand[0]]}, "illegal", "named twice"),
        (lambda hand: {"response": [next(b for b in range(54) if b not in hand)]}, "illegal", "not in its hand"),
        (lambda hand: {"response": "3"}, "garbage", "a list of card ids"),
        (lambda hand: {"response": [True]}, "garbage", "a list of card ids"),
    ],
)
def test_answers_that_cannot_be_played_say_why(answer, kind, words):
    with pytest.raises(botzone.BotzoneError, match=words) as caught:
        _answer(answer)
    assert caught.value.kind == kind


def _first_bid():
    """A bidding hand's first decision (seed 4): the env, the seat to bid, its Botzone speaker and observation."""
    env = cardenvs.make("doudizhu_v0")
    env.reset(seed=4)
    base = env.unwrapped
    return (
        base,
        base.agent_name_mapping[base.agent_selection],
        botzone.Protocol(base),
        base.observe(base.agent_selection),
    )


@pytest.mark.parametrize(
    ("response", "expected"),
    [(0, "no bid"), (2, "bid 2"), ("3", "bid 3"), (4, "illegal"), (-1, "illegal"), ([1], "garbage"), (True, "garbage")],
)
def test_bids_are_read_as_botzones(response, expected):
    """The first decision of a hand with bidding is a bid: 0 is no bid, 1..3 a bid (as a number or its digits)."""
    base, seat, speaker, observation = _first_bid()
    assert set(json.loads(speaker.request(seat, observation))["requests"][0]) == {"own", "bid"}
    try:
        action = speaker.action(json.dumps({"response": response}), observation)
    except botzone.BotzoneError as error:
        assert error.kind == expected
    else:
        assert base.action_name(action) == expected


def test_botzone_programs_are_not_run_from_untrusted_names():
    with pytest.raises(ValueError, match="not run here"):
        load_agent(BOT, cardenvs.make("doudizhu_v0").unwrapped, registered_only=True)


def test_card_sets_are_read_as_botzone_reads_them():
    """333444555666 is four trios on Botzone (an airplane of 4), not three trios with three kickers."""
    counts = moves.counts_of("333444555666")
    mask = np.zeros(moves.NUM_ACTIONS, dtype=np.int8)
    mask[moves.readings(counts)] = 1  # every reading legal, as when leading
    assert len(moves.readings(counts)) == 3  # the airplane of four, and 333444555+666, 444555666+333
    env = cardenvs.make("doudizhu_v0")
    env.reset(seed=4, options={"landlord": 0, "bid": 1})
    speaker = botzone.Protocol(env.unwrapped)
    speaker.last, speaker.seat = "play", 0
    s = env.unwrapped.state
    ids = [b for r in range(4) for b in range(4 * r, 4 * r + 3)]  # three cards each of 3, 4, 5, 6
    s.hands[0][:] = 0
    s.hands[0][botzone.FROM_BOTZONE[ids]] = 1
    action = speaker.action(json.dumps({"response": ids}), {"action_mask": mask})
    assert moves.move_string(action) == "333444555666" and moves.MOVE_TYPE[action] == moves.AIRPLANE


def test_botzone_only_combinations_are_named():
    assert "space shuttle" in botzone.botzone_only(moves.counts_of("33334444"))
    assert "both jokers" in botzone.botzone_only(moves.counts_of("3333BR"))
    assert botzone.botzone_only(moves.counts_of("33334")) == ""


@pytest.mark.parametrize(
    ("mode", "kind"),
    [("garbage", "garbage"), ("illegal", "illegal"), ("keep garbage", "garbage"), ("keep exit-kept", "exit")],
)
def test_a_faulty_botzone_answer_is_a_recorded_fault(mode, kind):
    bot = f"{BOT} {mode}({PY})"
    results = run_tournament("doudizhu_v0", [bot, "random", "random"], games=1, seed=1, engine="aec")
    assert len(results.records) == 6  # every game was played or forfeited
    lost = [f for r in results.records for f in r.faults]
    assert lost and all(f["kind"] == kind and f["forfeit"] for f in lost)
    label = results.agents[0]  # the bot's label (a long name is shortened in the report's tables)
    for r in results.records:
        if r.faults:
            assert r.outcome[r.seats.index(label)] == -1.0
    assert results.to_dict()["faults"][label]["forfeits"][kind] == len(lost)


def test_a_bot_that_reads_its_input_to_the_end_is_answered_with_keep_running_off():
    """keep_running=false: its input is closed after the line, as a program run once per decision may expect;
    by default the input stays open (a program may keep running) and the timeout says what to do."""
    kwargs = {"games": 1, "seed": 2, "duplicate": False, "engine": "aec"}
    bot = f"{BOT} read-all({PY},keep_running=false)"
    results = run_tournament("doudizhu_v0", [bot, "random", "random"], **kwargs)
    assert len(results.records) == 1 and results.records[0].steps > 10 and not results.faults()
    bot = f"{BOT} read-all(move_ms=300)"
    (fault,) = run_tournament("doudizhu_v0", [bot, "random", "random"], **kwargs).records[0].faults
    assert fault["kind"] == "timeout" and "keep_running=false" in fault["detail"]


def test_with_keep_running_off_a_bot_asking_for_it_is_run_once_per_turn(starts):
    """keep_running=false: its answer is what it wrote before the line, and it is stopped and started again
    with the whole game at each decision (its input closed), playing on without a fault."""
    bot = f"{BOT} keep({PY},keep_running=false)"
    results = run_tournament("doudizhu_v0", [bot, "random", "random"], games=1, seed=2, duplicate=False, engine="aec")
    assert results.records[0].steps > 10 and not results.faults()
    assert starts[bot] > 3  # a start at each of its decisions


@pytest.mark.parametrize("modes", ["illegal", "keep illegal"])
def test_with_a_fallback_the_faulty_move_is_flagged_and_the_game_goes_on(modes, starts):
    """Kept running or not, the program is started again after the fault and sent the whole game."""
    bot = f"{BOT} {modes}(fallback=random,{PY})"
    results = run_tournament("doudizhu_v0", [bot, "random", "random"], games=2, seed=1, duplicate=False, engine="aec")
    assert len(results.records) == 2
    flagged = [f for r in results.records for f in r.faults]
    assert flagged and not any(f["forfeit"] for f in flagged)
    assert all(f["kind"] == "illegal" and "not in its hand" in f["detail"] for f in flagged)
    assert all(r.steps > 20 for r in results.records)  # played on to the end, the restarted program too
    if modes.startswith("keep"):
        assert starts[bot] == len(results.records) + len(flagged)  # once a game, once more after each fault


@pytest.fixture
def starts(monkeypatch):
    """How many times each program agent started its program."""
    counts: dict[str, int] = {}
    start = ProgramAgent._start

    def counting(self):
        counts[self.name] = counts.get(self.name, 0) + 1
        return start(self)

    monkeypatch.setattr(ProgramAgent, "_start", counting)
    return counts


def test_a_kept_running_bot_plays_its_per_turn_twins_games_started_once_a_game(python_class, starts):
    """Botzone's long-running mode: the bot asks to keep running after each answer and reads each later turn's
    request alone; it plays the games of its per-turn twin and of the Python twin, with one process a game
    (Botzone's runner kills a kept bot when a game starts), where the per-turn bot starts at every decision."""
    kwargs = {"games": 1, "seed": 3, "options": {"bidding": True}, "role_phase": True, "engine": "aec"}
    kept = f"{BOT} keep high check({PY})"
    program = run_tournament("doudizhu_v0", [kept, "doudizhu.rule", "random"], **kwargs)
    twin = run_tournament("doudizhu_v0", [python_class, "doudizhu.rule", "random"], **kwargs)
    assert _games(program) == _games(twin) and not program.faults()  # the per-turn twin's too: same seed there
    assert starts[kept] == len(program.records) == 6


def test_the_cards_a_bot_names_are_the_cards_it_plays_and_the_others_see():
    """Bots naming the highest id of a rank (the game's rules would take the kitty cards, then the lowest ids):
    over whole games, exactly the named ids leave the hand and come back in the next seat's history."""
    env = cardenvs.make("doudizhu_v0")
    base = env.unwrapped
    agents = [load_agent(f"{BOT} keep high({PY})", base) for _ in range(3)]
    talk: list[tuple[int, int, str, str]] = []  # (game, seat, input, output) of every decision
    plays = other_than_lowest = 0
    try:
        for seed in (1, 2):
            env.reset(seed=seed, options={"landlord": seed % 3, "bid": 1})
            for agent in agents:
                agent.reset()
            while not any(base.terminations.values()):
                seat = base.agent_name_mapping[base.agent_selection]
                agent = agents[seat]
                hand = np.array(base.state.hands[seat])
                sent = agent._message(seat, base.observe(base.agent_selection), 1.0)
                answer = agent._ask(sent, 6.0)
                talk.append((seed, seat, sent, answer))
                env.step(agent._action(answer, base.observe(base.agent_selection)))
                named = json.loads(answer)["response"]
                if named:
                    taken = np.flatnonzero(hand - np.asarray(base.state.hands[seat]))
                    assert sorted(int(botzone.TO_BOTZONE[c]) for c in taken) == sorted(named)
                    plays += 1
                    ranks = moves.RANK_OF_CARD
                    held = [int(botzone.TO_BOTZONE[c]) for c in np.flatnonzero(hand)]
                    other_than_lowest += any(
                        min(b for b in held if ranks[botzone.FROM_BOTZONE[b]] == ranks[botzone.FROM_BOTZONE[n]]) != n
                        for n in named
                    )
    finally:
        for agent in agents:
            agent.close()
    for (game, seat, _, answer), (next_game, following, sent, _) in zip(talk, talk[1:], strict=False):
        request = json.loads(sent)
        request = request["requests"][-1] if "requests" in request else request  # kept: the request alone
        if game == next_game and following == (seat + 1) % 3 and "history" in request:
            assert request["history"][1] == sorted(json.loads(answer)["response"])
    assert plays > 20 and other_than_lowest > 5
    assert sum('"requests"' not in sent for _, _, sent, _ in talk) > 40  # kept running: the request alone


def _data_after(answers, reset=False):
    """The ``data`` and ``globaldata`` Botzone's runner would send after a bidding seat's answers ``answers``
    (each a JSON value; its response a legal bid)."""
    base, seat, speaker, observation = _first_bid()
    for answer in answers:
        speaker.request(seat, observation)
        try:
            speaker.action(answer if isinstance(answer, str) else json.dumps(answer), observation)
        except botzone.BotzoneError:
            pass
    if reset:
        speaker.reset()
    message = json.loads(speaker.request(seat, observation))
    return message.get("data"), message.get("globaldata")


@pytest.mark.parametrize(
    ("answers", "expected"),
    [
        ([{"response": 0, "data": "d"}], ("d", None)),
        ([{"response": 0, "data": {"n": 1}}], ({"n": 1}, None)),
        ([{"response": 0, "data": "d"}, 0], (None, None)),  # a bare answer: the runner keeps no data
        ([{"response": 0, "data": "d"}, {"response": 0}], (None, None)),  # a missing key: none
        ([{"response": 0, "data": "d"}, {"response": 0, "data": ""}], (None, None)),  # empty: not sent
        ([{"response": 0, "data": 0}], (None, None)),
        ([{"response": 0, "data": []}], (None, None)),
        ([{"response": 0, "data": "d"}, "{not json"], ("d", None)),  # not JSON: nothing changes
        ([{"response": 0, "data": "d"}, {"data": "x"}], (None, None)),  # no "response": the object is the response
        ([{"response": 0, "globaldata": "g"}, 0], (None, "g")),  # globaldata stays, bare answer or not
        ([{"response": 0, "globaldata": "g"}, {"response": 0, "globaldata": ""}], (None, "g")),
        ([{"response": 0, "globaldata": "g"}, {"response": 0, "globaldata": "h"}], (None, "h")),
    ],
)
def test_data_is_kept_as_botzones_runner_keeps_it(answers, expected):
    assert _data_after(answers) == expected


def test_a_new_game_forgets_data_and_keeps_globaldata():
    assert _data_after([{"response": 0, "data": "d", "globaldata": "g"}], reset=True) == (None, "g")


@pytest.mark.parametrize(
    ("output", "kind"),
    [
        ('{"response": 0}\n\n', "no bid"),  # blank lines around the value are whitespace to JSON
        ('{"response": 0}\n{"response": 1}\n', "more than one JSON value"),  # garbage to the runner too
        ("", "not JSON"),
    ],
)
def test_the_answer_is_all_the_program_wrote(output, kind):
    env = cardenvs.make("doudizhu_v0")
    env.reset(seed=4)
    base = env.unwrapped
    speaker = botzone.Protocol(base)
    observation = base.observe(base.agent_selection)
    speaker.request(base.agent_name_mapping[base.agent_selection], observation)
    try:
        result = base.action_name(speaker.action(output, observation))
    except botzone.BotzoneError as error:
        assert error.kind == "garbage"
        result = str(error)
    assert kind in result


def test_botzones_time_limits_are_the_defaults():
    base = cardenvs.make("doudizhu_v0").unwrapped
    agent = load_agent(BOT, base)
    assert (agent.move_ms, agent.kept_ms, agent.close_input) == (1000, 1000, False)  # C++'s limits on Botzone
    agent = load_agent(f"{BOT}(language=py)", base)
    assert (agent.move_ms, agent.kept_ms) == (6000, 4000)  # Python's first and kept turns
    agent = load_agent(f"{BOT}(language=java,move_ms=1500,keep_ms=800,keep_running=false)", base)
    assert (agent.move_ms, agent.kept_ms, agent.close_input) == (1500, 800, True)


@pytest.mark.parametrize(
    ("env_id", "name", "words"),
    [
        ("twos_v0", BOT, "only doudizhu declares"),  # another game: the games that declare the kind are named
        ("doudizhu_v0", f"{BOT}(game=Landlord3)", "FightTheLandlord2 and FightTheLandlord"),
        ("doudizhu_v0", f"{BOT}(speed=2)", "unknown parameter 'speed'"),
        ("doudizhu_v0", f"{BOT}(language=go)", "time limits are known for cpp, java"),
        ("doudizhu_v0", f"{BOT}(keep_running=yes)", "keep_running='yes': true or false"),
    ],
)
def test_bad_botzone_names_are_clear_errors(env_id, name, words):
    with pytest.raises(ValueError, match=words):
        load_agent(name, cardenvs.make(env_id).unwrapped)


def test_a_fixed_landlord_bot_is_refused_where_the_agents_bid():
    bot = f"{BOT}(game=FightTheLandlord)"
    with pytest.raises(ValueError, match="cannot play the bidding"):
        run_tournament("doudizhu_v0", [bot, "random", "random"], games=1, options={"bidding": True}, role_phase=True)
