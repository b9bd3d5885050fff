"""Guandan's competition platform protocol (``gdws:COMMAND``, :mod:`cardenvs.games.guandan.platform` over
:mod:`cardenvs.agent.websocket`): a bot written to the protocol (``tests/bots/gdws_bot.py``, a WebSocket client
in the standard library) plays duplicate tables exactly as its Python twin, in both reply forms; every fault is
a result (the WebSocket frames a client may get wrong included); the arena reads the bot's folder as the bot's
(no link followed, no FIFO waited on) and quotes the relay's own reason; the messages to a seat name no card it
may not see (every value of every message walked); the bot reaches nothing outside its sandbox."""

import json
import re
import socket
import sys
import threading
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import cardenvs
from cardenvs.agent import load_agent, sandbox
from cardenvs.agent.sandbox import unavailable
from cardenvs.arena import run_tournament
from cardenvs.games.guandan import moves, platform, rules
from cardenvs.games.guandan.env import LAYOUT

BOT = Path(__file__).parent / "bots" / "gdws_bot.py"
MATCH = {"episode": "match", "max_hands": 2}  # a second hand: levels, tribute and return

pytestmark = pytest.mark.skipif(unavailable() is not None, reason=f"no sandbox here: {unavailable()}")


def bot(mode: str = "index", params: str = "") -> str:
    return f"gdws:{sys.executable} {BOT} {{seat}} {mode}" + (f"({params})" if params else "")


class Twin:
    """The test bot's logic as a Python agent: the entry of the platform's list with the most cards (the first
    of those), then the suits of that play; the first entry to pay or return."""

    def __init__(self, env):
        self.env = env.unwrapped
        self.name = "twin"
        self.flags = rules.move_flags(self.env.config)
        self.plan = None

    def act(self, observation, rng):
        s = self.env.core_state()[1][0]
        mask = np.asarray(observation["action_mask"], dtype=bool)
        if s["phase"] == rules.PLAY and s["pending"] >= 0:
            target = np.bincount(np.asarray(self.plan, dtype=np.int64), minlength=54)
            for a in np.flatnonzero(mask):
                chosen = s["chosen"].copy()
                moves.apply_suit_choice(
                    int(s["pending"]), int(s["hand_level"]), self.flags, chosen, int(a) - moves.SUIT0
                )
                if (chosen <= target).all():
                    return int(a)
        _, listed, options = platform.question_moves(s, mask, self.flags)
        sizes = [0 if m[2] == "PASS" else len(m[2]) for m in listed]
        best = max(range(len(listed)), key=lambda i: (sizes[i], -i))
        self.plan = options[best][1]
        return options[best][0]


@pytest.fixture
def twin(monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "Twin", Twin)
    return f"{__name__}:Twin"


def _games(results):
    return [
        (r.deal, r.replay, ["heuristic" in s for s in r.seats], r.outcome, r.scores, r.steps) for r in results.records
    ]


@pytest.mark.parametrize(
    ("mode", "params", "options"),
    [
        ("index", "", MATCH),
        ("move", "", None),
        ("room 8181", "dialect=openguandan", None),
        ("fragments", "", None),
    ],
)
def test_the_bot_plays_a_duplicate_table_as_its_python_twin(mode, params, options, twin):
    """Both reply forms; with ``MATCH`` the second hand's tribute and return pass through the protocol too; an
    OpenGuanDan bot (``room``) takes a room on port 8181 first; a bot that sends each answer in fragments with
    a ping and a pong between them (``fragments``) is read as the whole answer."""
    name = bot(mode, params)
    program = run_tournament("guandan_v0", [name, "guandan.heuristic"] * 2, games=1, seed=3, options=options)
    python = run_tournament("guandan_v0", [twin, "guandan.heuristic"] * 2, games=1, seed=3, options=options)
    assert _games(program) == _games(python)
    assert not program.faults()  # a hand that drifted from the bot's count would be answered "mismatch"


FAULTS = {
    "timeout": ("timeout", "move_ms=400"),
    "exit": ("exit", ""),
    "disconnect": ("disconnect", ""),
    "garbage": ("garbage", ""),
    "range": ("illegal", ""),
    "unknown": ("illegal", ""),
    "silent": ("start", "start_ms=600"),
    "huge": ("output", ""),
    "unmasked": ("garbage", ""),  # RFC 6455 5.1: a server closes on an unmasked client frame
    "binary": ("garbage", ""),  # the platform's messages are JSON text
    "badutf8": ("garbage", ""),
    "close": ("disconnect", ""),  # a close frame while its program runs on
}


@pytest.mark.parametrize("mode", sorted(FAULTS))
def test_each_fault_is_a_recorded_result(mode):
    kind, params = FAULTS[mode]
    agents = [bot(mode, params), "guandan.heuristic"] * 2
    results = run_tournament("guandan_v0", agents, games=1, seed=1, duplicate=False)
    (record,) = results.records
    assert record.faults and all(f["kind"] == kind and f["forfeit"] for f in record.faults)


def _arena_environment() -> list[str]:
    """The entries of this process's own /proc/self/environ (what a link to it would show the arena)."""
    entries = Path("/proc/self/environ").read_bytes().split(b"\0")
    return [e.decode(errors="replace") for e in entries if len(e) >= 8]


def _run_in_thread(agents, **kwargs):
    """run_tournament in a thread: a read that blocks (a FIFO opened by the arena) fails the test instead of
    hanging it. The join's bound is a guard, not a measurement: the run takes seconds."""
    out: dict = {}

    def target():
        try:
            out["results"] = run_tournament("guandan_v0", agents, games=1, seed=1, duplicate=False, **kwargs)
        except BaseException as exc:  # noqa: BLE001 - handed to the test below
            out["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(timeout=300)
    assert not thread.is_alive(), "the arena blocked reading the bot's folder"
    if "error" in out:
        raise out["error"]
    return out["results"]


@pytest.fixture(params=["capped", "bound"])
def folder(request, monkeypatch):
    """The seat's folder as the sandbox makes it: a capped tmpfs sharing only the arena's files with the host
    (bubblewrap >= 0.10: the bot cannot replace them, they are mount points), or the host's folder bound whole
    (older bubblewrap: the bot can replace any file in it, which the arena must then read as the bot's)."""
    if request.param == "bound":
        start = sandbox.start

        def bound(*args, **kwargs):
            return start(*args, **{**kwargs, "disk_mb": None, "shared": ()})

        monkeypatch.setattr(sandbox, "start", bound)
    return request.param


def test_a_link_in_the_bots_folder_is_not_followed(folder):
    """The bot replaces bot.stderr, where the relay writes its standard error and the arena quotes its end,
    with a link to /proc/self/environ and exits: the arena (outside the sandbox) must not read its own
    environment into the fault or the results."""
    results = _run_in_thread([bot("stderrlink"), "guandan.heuristic"] * 2)
    (record,) = results.records
    assert record.faults and all(f["kind"] == "exit" for f in record.faults)
    if folder == "bound":  # the link was made (exit status 3), not refused (status 1, "resource busy")
        assert all("exited (status 3)" in f["detail"] for f in record.faults), record.faults
    written = json.dumps(results.to_dict()) + json.dumps(record.faults)
    leaked = [entry for entry in _arena_environment() if entry in written]
    assert not leaked, f"the arena's environment reached the results: {leaked[:3]}"


def test_a_fifo_in_the_bots_folder_does_not_block_the_arena(folder):
    results = _run_in_thread([bot("stderrfifo"), "guandan.heuristic"] * 2)
    (record,) = results.records
    assert record.faults and all(f["kind"] == "exit" for f in record.faults)
    if folder == "bound":
        assert all("exited (status 3)" in f["detail"] for f in record.faults), record.faults


@pytest.mark.parametrize(
    ("script", "mode", "reason"),
    [
        ("#!/usr/bin/env python3\n", 0o644, "Permission denied"),  # not executable
        ("#!/nonexistent/python3\n", 0o755, "No such file or directory"),  # its interpreter is missing
    ],
)
def test_the_relays_reason_reaches_the_fault(tmp_path, script, mode, reason):
    """A program that cannot start: the relay's own reason (its output, which the arena reads) is the fault's
    detail, not its exit status."""
    program = tmp_path / "bot.py"
    program.write_text(script + "print('never runs')\n")
    program.chmod(mode)
    (record,) = run_tournament(
        "guandan_v0", [f"gdws:{program}", "guandan.heuristic"] * 2, games=1, seed=1, duplicate=False
    ).records
    assert record.faults
    for fault in record.faults:
        assert fault["kind"] == "start", fault
        assert f"cannot run {program}" in fault["detail"] and reason in fault["detail"], fault


def test_a_bot_run_by_a_linked_environment_plays(tmp_path):
    """The interpreter reached through a link in the bot's folder, which the sandbox binds (a virtual
    environment kept elsewhere): the sandbox binds where the link leads too, so the relay starts the bot and it
    plays (the sandbox's own tests check the binding for every linked case)."""
    (tmp_path / "env").symlink_to(sys.prefix, target_is_directory=True)
    python = tmp_path / "env" / "bin" / Path(sys.executable).name
    assert python.exists()
    (tmp_path / "bot.py").write_bytes(BOT.read_bytes())
    agents = [f"gdws:{python} {tmp_path / 'bot.py'} {{seat}}", "guandan.heuristic"] * 2
    (record,) = run_tournament("guandan_v0", agents, games=1, seed=1, duplicate=False).records
    assert not record.faults and record.steps > 40


def test_the_relays_reason_when_it_cannot_listen():
    """With network=1 the relay listens on the host's loopback: a port taken there is its reason."""
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    port = taken.getsockname()[1]
    try:
        agents = [bot("index", f"network=1,port={port}"), "guandan.heuristic"] * 2
        (record,) = run_tournament("guandan_v0", agents, games=1, seed=1, duplicate=False).records
    finally:
        taken.close()
    assert record.faults
    for fault in record.faults:
        assert fault["kind"] == "start" and f"cannot listen on 127.0.0.1:{port}" in fault["detail"], fault


def test_a_fallback_plays_on_after_a_fault():
    agents = [bot("once", "fallback=guandan.heuristic"), "guandan.heuristic"] * 2
    (record,) = run_tournament("guandan_v0", agents, games=1, seed=1, duplicate=False).records
    assert record.faults and all(f["kind"] == "garbage" and not f["forfeit"] for f in record.faults)
    assert len(record.faults) == 2  # each seat's first question; started again, its program played on
    assert record.steps > 40


def test_the_bot_cannot_reach_the_hosts_loopback():
    """A server listening on the host's 127.0.0.1 is not reachable from the bot's sandbox (it answers
    actIndex 1 if it connects, 0 if not); the arena's relay is."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]
    env = cardenvs.make("guandan_v0")
    env.reset(seed=2)
    base = env.unwrapped
    agent = load_agent(f"gdws:{sys.executable} {BOT} {{seat}} probe 23456 {port}", base)
    try:
        observation = env.observe(env.agent_selection)
        action = agent.act(observation, np.random.default_rng(0))
        seat = base.agent_name_mapping[env.agent_selection]
        _, _, options = agent.protocol.memories[seat].question
        assert action == options[0][0] != options[1][0]
    finally:
        agent.close()
        server.close()


def test_messages_name_only_the_seats_own_cards_and_public_plays():
    """Every message to a seat, over a two-hand match with tribute: its hand and its lists are its own cards
    (the questions' ``handCards`` equal its observation's hand), and the plays announced by ``notify`` add up,
    seat by seat, to exactly the cards its observation shows each seat played (so no card is named that the
    seat may not see), the deal it is shown is its own."""
    env = cardenvs.make("guandan_v0", **MATCH)
    env.reset(seed=11)
    base = env.unwrapped
    protocol = platform.Protocol(base)
    heuristic = load_agent("guandan.heuristic", base)
    played = {s: [Counter() for _ in range(4)] for s in range(4)}
    dealt: dict[int, Counter] = {}
    exchanged = {s: Counter() for s in range(4)}  # tribute and return cards gone (-) and come (+)
    checked = Counter()
    rng = np.random.default_rng(0)
    for name in env.agent_iter():
        observation, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        seat = base.agent_name_mapping[name]
        request = protocol.request(seat, observation)
        action = heuristic.act(observation, rng)
        if not isinstance(request, list):
            env.step(action)
            continue
        parts = LAYOUT.decode(observation["observation"])
        hand = Counter(platform.hand_names(parts["hand"]))
        for line in request:
            message = json.loads(line)
            stage = message["stage"]
            if stage == "beginning":
                dealt[seat], played[seat] = Counter(message["handCards"]), [Counter() for _ in range(4)]
                exchanged[seat] = Counter()
            elif stage == "play" and message["type"] == "notify" and message["curAction"][0] != "PASS":
                played[seat][message["curPos"]] += Counter(message["curAction"][2])
            elif stage in ("tribute", "back") and message["type"] == "notify":
                for giver, receiver, card in message["result"]:
                    exchanged[seat][card] += (receiver == seat) - (giver == seat)
            elif stage == "episodeOver":
                assert message["restCards"] == []
        question = json.loads(request[-1])
        assert Counter(question["handCards"]) == hand
        for move in question["actionList"]:
            if move[2] != "PASS":
                assert not Counter(move[2]) - hand
        seen = parts["played"].reshape(4, 54)
        for q in range(4):
            assert played[seat][q] == Counter(platform.hand_names(seen[(q - seat) % 4]))
        own = Counter(dealt[seat])
        own.update(exchanged[seat])  # counts may go negative here, then the plays are taken
        own.subtract(played[seat][seat])
        if question["stage"] == "play":  # a payer's own tribute leaves its hand before the others are shown
            assert +own == hand
        checked[question["stage"]] += 1
        env.step(action)
    assert checked["tribute"] and checked["back"] and checked["play"] > 20


#: a card's name anywhere in a string (no word of the protocol's vocabulary holds one: checked by the test)
CARD_NAME = re.compile(r"[SHCD][2-9TJQKA]|SB|HR")


def _walk(value):
    """Every value inside a message, containers included: each dict's keys and values, each list's items."""
    yield value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _walk(key)
            yield from _walk(item)
    elif isinstance(value, list):
        for item in value:
            yield from _walk(item)


def _cards_named(value) -> Counter:
    """The cards a value names: a string's card names, a list's strings' together."""
    if isinstance(value, str):
        return Counter(CARD_NAME.findall(value))
    if isinstance(value, list):
        return sum((Counter(CARD_NAME.findall(v)) for v in value if isinstance(v, str)), Counter())
    return Counter()


def test_no_message_names_a_card_its_seat_may_not_know():
    """Every value of every message to a seat (notifications, questions, the ends of hands and of the match),
    walked whole: each string and each list names only cards the seat may know in the hand the message is
    about: its own cards in that hand and those that have left a hand (played, paid or returned), as the env
    itself counts them, not as the messages say; no list of numbers is another seat's hand either (counts or
    card ids). Over a two-hand match with tribute and return."""
    vocabulary = {"PASS", "Single", "Pair", "Trips", "ThreeWithTwo", "Straight", "ThreePair", "TwoTrips"}
    vocabulary |= {"StraightFlush", "Bomb", "JOKER", "tribute", "back", "notify", "act", "beginning", "play"}
    assert not any(CARD_NAME.search(word) for word in vocabulary)
    env = cardenvs.make("guandan_v0", **MATCH)
    env.reset(seed=11)
    base = env.unwrapped
    protocol = platform.Protocol(base)
    heuristic = load_agent("guandan.heuristic", base)
    own = [[Counter() for _ in range(4)]]  # own[hand][seat]: every card the seat held in that hand
    gone = [Counter()]  # gone[hand]: every card that left a hand in it
    told = [-1] * 4  # the hand each seat's stream is about (its "beginning"s counted)
    rng = np.random.default_rng(0)
    checked = Counter()

    def state():
        return base.core_state()[1][0]

    def check(seat, lines):
        now = int(state()["hands_played"])
        hands = state()["hands"]
        for line in lines:
            message = json.loads(line)
            if message.get("stage") == "beginning":
                told[seat] += 1
            hand = told[seat]
            known = own[hand][seat] + gone[hand]
            for value in _walk(message):
                assert not _cards_named(value) - known, (seat, message)
                if isinstance(value, list) and len(value) >= 5 and all(isinstance(v, int) for v in value):
                    for q in range(4):
                        if q != seat and hand == now:
                            ids = sorted(np.repeat(np.arange(54), hands[q][:54]).tolist())
                            assert value != hands[q][:54].tolist() and sorted(value) != ids, (seat, message)
            checked[message["stage"]] += 1

    for name in env.agent_iter():
        s = state()
        for q in range(4):
            own[-1][q] |= Counter(platform.hand_names(s["hands"][q]))
        observation, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        seat = base.agent_name_mapping[name]
        request = protocol.request(seat, observation)
        if isinstance(request, list):
            check(seat, request)
        before = s.copy()
        env.step(heuristic.act(observation, rng))
        after = state()
        mover = int(before["to_move"])
        if after["hands_played"] != before["hands_played"] or after["status"] != 0:
            gone[-1] += Counter(platform.hand_names(before["hands"][mover]))  # the hand's last play: all its cards
            if after["status"] == 0:
                own.append([Counter() for _ in range(4)])
                gone.append(Counter())
        else:
            for q in range(4):
                left = np.maximum(before["hands"][q][:54].astype(int) - after["hands"][q][:54].astype(int), 0)
                gone[-1] += Counter(platform.hand_names(left))
    for seat in range(4):
        check(seat, protocol.finish(seat))
    assert len(own) == 2 and checked["tribute"] and checked["back"] and checked["episodeOver"] == 8
    assert checked["beginning"] == 8 and checked["gameResult"] == 4 and checked["play"] > 100


def test_the_pass_is_the_first_entry_when_following():
    """The competition's bots answer 0 to pass and search ``actionList[1:]``: when following, the pass is
    ``actionList[0]`` and nowhere else; when leading there is none."""
    env = cardenvs.make("guandan_v0", **MATCH)
    counts = Counter()
    for seed in (11, 12):
        env.reset(seed=seed)
        base = env.unwrapped
        protocol = platform.Protocol(base)
        rng = np.random.default_rng(seed)
        for name in env.agent_iter():
            observation, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            request = protocol.request(base.agent_name_mapping[name], observation)
            if isinstance(request, list):
                question = json.loads(request[-1])
                entries = question["actionList"]
                if question["stage"] == "play" and question["greaterPos"] >= 0:
                    assert entries[0] == platform.PASS_MOVE and platform.PASS_MOVE not in entries[1:]
                    counts["following"] += 1
                elif question["stage"] == "play":
                    assert platform.PASS_MOVE not in entries
                    counts["leading"] += 1
            env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    assert counts["following"] > 50 and counts["leading"] > 10


def test_moves_are_written_as_the_platform_writes_them():
    """Ranks of sequences are their lowest card (A for A-2-3-4-5 and A-A-2-2-3-3), as OpenGuanDan's move
    generator writes them; wilds are listed as themselves; the four jokers by dialect."""
    from cardenvs.core.cards import parse_cards

    def written(text, level="2", dialect="competition"):
        cards = parse_cards(text)
        (pid, *_) = moves.readings(cards, "23456789TJQKA".index(level))
        return platform.platform_move(pid, cards, "23456789TJQKA".index(level), dialect)

    assert written("AS 2C 3D 4S 5S", "9") == ["Straight", "A", ["C2", "D3", "S4", "S5", "SA"]]
    assert written("AS AC 2D 2S 3S 3C", "9") == ["ThreePair", "A", ["S2", "D2", "S3", "C3", "SA", "CA"]]
    assert written("TS TC TD JS JC JD", "9") == ["TwoTrips", "T", ["ST", "CT", "DT", "SJ", "CJ", "DJ"]]
    assert written("9H AS", "9") == ["Pair", "A", ["H9", "SA"]]
    assert written("BJ BJ RJ RJ") == ["Bomb", "JOKER", ["SB", "SB", "HR", "HR"]]
    assert written("BJ BJ RJ RJ", dialect="openguandan") == ["FourKings", "B", ["SB", "SB", "HR", "HR"]]
    assert written("7S 7C 7D BJ BJ") == ["ThreeWithTwo", "7", ["S7", "C7", "D7", "SB", "SB"]]


def test_a_bad_name_is_a_one_line_error():
    env = cardenvs.make("guandan_v0").unwrapped
    with pytest.raises(ValueError, match=r"braces name \{seat\}, \{port\} or \{url\} only"):
        load_agent(f"gdws:{sys.executable} {BOT} {{player}}", env)
    with pytest.raises(ValueError, match="dialect='bogus'"):
        load_agent(f"gdws:{sys.executable} {BOT}(dialect=bogus)", env)
    with pytest.raises(ValueError, match="only guandan declares"):
        load_agent(f"gdws:{sys.executable} {BOT}", cardenvs.make("doudizhu_v0").unwrapped)


def test_a_new_game_without_reset_is_told_from_its_start():
    env = cardenvs.make("guandan_v0")
    base = env.unwrapped
    protocol = platform.Protocol(base)
    for seed in (4, 5):  # the second game is not announced to the protocol
        env.reset(seed=seed)
        seat = base.agent_name_mapping[env.agent_selection]
        lines = [json.loads(line) for line in protocol.request(seat, env.observe(env.agent_selection))]
        assert lines[0]["stage"] == "beginning" and lines[0]["myPos"] == seat
        assert Counter(lines[-1]["handCards"]) == Counter(platform.hand_names(base.core_state()[1][0]["hands"][seat]))
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
