"""``llm:MODEL`` seats against a real chat-completions server on the loopback address (``chatserver.py``): the twin
test (every game played as the scripted player plays it as a Python agent), rethinks, faults (slow answers, 500,
429 with Retry-After, a dropped connection, a refusal), the key kept out of every file and message, costs and
transcripts, games at once equal to one at a time; and hostile endpoints: the key sent back in any form or in
part, malformed and cut responses, token counts that are no count, drips that never end, a 30 MB answer, storms
of 429s with unreadable waits, more threads than ``in_flight``."""

from __future__ import annotations

import json
import re
import shutil
import threading
from pathlib import Path

import numpy as np
import pytest
from chatserver import KEY_FORMS, MALFORMED, TOKENS, ChatServer

from cardenvs import arena
from cardenvs.agent import load_agent
from cardenvs.agent.llm import LLMAgent
from cardenvs.cli import main
from cardenvs.registry import env_ids, make

pytest.importorskip("openai")

KEY = "sk-test-4f9a1c77e0b2d35a"
KEY_ENV = "CARDENVS_TEST_LLM_KEY"


@pytest.fixture(autouse=True)
def _no_openai_environment(monkeypatch):
    """The openai client's variables that a seat refuses (llm.REFUSED_ENVIRONMENT) unset for every test."""
    for name in ("OPENAI_BASE_URL", "OPENAI_CUSTOM_HEADERS"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="module")
def server():
    with ChatServer() as running:
        yield running


def seat(server: ChatServer, model: str = "twin", **params: object) -> str:
    extra = "".join(f",{k}={v}" for k, v in params.items())
    return f"llm:{model}(base_url={server.url}{extra})"


def results(game: str, first: str, games: int = 1, duplicate: bool = False, seed: int = 3, **kw) -> arena.Results:
    players = make(game).unwrapped.num_players
    return arena.run_tournament(game, [first] + ["random"] * (players - 1), games, seed, duplicate=duplicate, **kw)


def played(res: arena.Results) -> list[tuple]:
    """What the games were, whoever played them (not the labels)."""
    return [(r.deal, r.replay, r.scores, r.rewards, r.outcome, r.steps, r.illegal) for r in res.records]


def model_usage(res: arena.Results) -> dict:
    (usage,) = res.usage().values()
    return usage


@pytest.mark.parametrize("game", env_ids())
def test_twin_every_game(server, game):
    """The model seat plays every game move for move as the scripted player does in process."""
    by_model = results(game, seat(server), engine="aec")
    by_python = results(game, "chatserver:TwinAgent", engine="aec")
    assert played(by_model) == played(by_python)
    assert not any(r.faults for r in by_model.records)
    usage = model_usage(by_model)
    assert usage["games"] == 1 and usage["rethinks"] == 0 and usage["faults"] == {}
    if game != "war_v0":  # War has no choices: no calls
        assert usage["calls"] > 0 and usage["input_tokens"] > 0 and usage["output_tokens"] > 0
        assert usage["latency_ms_median"] > 0


def test_rethinks_and_costs(server, tmp_path):
    """An unreadable first answer is asked again and the game goes on as the twin's; the costs add up."""
    name = seat(server, "garbage", rethink=1, price_in=2, price_out=10)
    res = results("twos", name, transcripts=str(tmp_path / "t"))
    assert played(res) == played(results("twos", "chatserver:TwinAgent"))
    usage = model_usage(res)
    assert usage["calls"] == 2 * usage["rethinks"] > 0
    assert usage["cost"] == pytest.approx((2 * usage["input_tokens"] + 10 * usage["output_tokens"]) / 1e6)
    label = res.records[0].seats[0]  # the arena's label of the name (a long name is shortened)
    record = res.records[0].usage[label]
    assert record["calls"] == usage["calls"] and len(record["latency_ms"]) == usage["calls"]
    lines = [json.loads(line) for line in (tmp_path / "t" / "game_000000.jsonl").read_text().splitlines()]
    assert len(lines) == usage["rethinks"]
    for line in lines:
        assert line["agent"] == label and len(line["answers"]) == 2 and "Final Answer" in line["answers"][1]
        assert [m["role"] for m in line["messages"]] == ["system", "user", "assistant", "user"]
        assert "not accepted" in line["messages"][3]["content"] and line["move"]
    again = results("twos", seat(server, "garbage", rethink=0))
    (fault,) = again.records[0].faults
    assert fault["kind"] == "garbage" and fault["forfeit"] and again.records[0].outcome[0] == -1.0


def test_illegal_answers_fall_back(server):
    """Illegal answers after every rethink: the fallback moves and the faults are counted."""
    res = results("twos", seat(server, "illegal-always", rethink=2, fallback="twos.heuristic"))
    usage = model_usage(res)
    assert usage["fallbacks"] > 0 and usage["calls"] == 3 * usage["fallbacks"]
    assert usage["faults"] == {"illegal": usage["fallbacks"]}
    assert not any(f["forfeit"] for f in res.records[0].faults)
    assert "fallbacks" in res.report() and "faults: " in res.report()


@pytest.mark.parametrize(
    ("model", "params", "kind"),
    [
        ("slow", {"move_ms": 300}, "timeout"),
        ("error500", {}, "server"),
        ("drop", {}, "connection"),
        ("ratelimit-long", {"move_ms": 300}, "rate_limit"),
    ],
)
def test_faults(server, model, params, kind):
    """No answer in time, a server error, a dropped connection, a 429 whose wait does not fit: faults of that kind
    (the game lost), at once."""
    before = server.requests
    res = results("twos", seat(server, model, **params))
    assert server.requests - before == 1  # not retried: the first fault ends the game
    (fault,) = res.records[0].faults
    assert fault["kind"] == kind and fault["forfeit"], fault
    (usage,) = res.to_dict()["usage"].values()
    assert usage["faults"] == {kind: 1}


def test_rate_limit_retried(server):
    """A 429 with a short Retry-After is waited out and asked again: the twin's game, each answer counted once."""
    res = results("twos", seat(server, "ratelimit"))
    assert played(res) == played(results("twos", "chatserver:TwinAgent"))
    assert not res.records[0].faults and model_usage(res)["calls"] > 0


def test_key_is_sent_and_never_written(server, tmp_path, monkeypatch, capsys):
    """The key is read from key_env and sent; no results file, transcript, replay, report or fault says it."""
    monkeypatch.setenv(KEY_ENV, KEY)
    name = seat(server, key_env=KEY_ENV)
    refused = seat(server, "refuse-quoting", key_env=KEY_ENV)
    code = main(
        ["arena", "twos", "--agents", f"{name},{refused},random", "--games", "1", "--no-progress"]
        + ["--out", str(tmp_path / "r.json"), "--transcripts", str(tmp_path / "t"), "--replays", str(tmp_path / "p")]
    )
    assert code == 0
    assert f"Bearer {KEY}" in server.authorizations
    out = capsys.readouterr().out
    assert "refused" in out and KEY not in out
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert {p.suffix for p in files} == {".json", ".jsonl", ".csv"}
    for path in files:
        assert KEY not in path.read_text() and KEY[-8:] not in path.read_text(), path
    data = json.loads((tmp_path / "r.json").read_text())
    faults = [f for r in data["records"] for f in r.get("faults", [])]
    assert faults and all(f["kind"] == "refused" and "HTTP 401" in f["detail"] for f in faults)
    replay = json.loads((tmp_path / "p" / "game_000000.json").read_text())
    transcript = [json.loads(line) for line in (tmp_path / "t" / "game_000000.jsonl").read_text().splitlines()]
    assert replay["transcript"] == transcript and transcript
    agent = load_agent(name, make("twos").unwrapped)
    assert KEY not in repr(agent) and KEY not in str(vars(agent))
    monkeypatch.delenv(KEY_ENV)
    with pytest.raises(ValueError, match=f"{KEY_ENV} \\(key_env\\) is not set"):
        load_agent(name, make("twos").unwrapped)


def test_games_at_once_equal_one_at_a_time(server):
    """in_flight=4: games played at once, the records those of one at a time, at most 4 calls in flight."""
    import time

    deadline = time.monotonic() + 30  # an earlier test's slow answer may still be running: let it end first
    while server.active and time.monotonic() < deadline:
        time.sleep(0.05)
    server.most_active = 0
    alone = results("doudizhu", seat(server), games=2, duplicate=True, seed=1)
    assert server.most_active == 1
    at_once = results("doudizhu", seat(server, "twin+delay=0.02", in_flight=4), games=2, duplicate=True, seed=1)
    assert 1 < server.most_active <= 4
    assert played(at_once) == played(alone) and len(alone.records) == 12
    calls = [sorted(u["calls"] for u in r.usage.values()) for r in alone.records]
    assert calls == [sorted(u["calls"] for u in r.usage.values()) for r in at_once.records]


def test_bad_names(server):
    env = make("twos").unwrapped
    for name, says in (
        (seat(server, temp=1), "unknown parameter 'temp'; llm: accepts base_url"),
        (seat(server, legal="some"), "legal must be one of list, none"),
        (seat(server, in_flight=0), "must be positive"),
        (seat(server, fallback="nobody"), "fallback 'nobody'"),
        ("llm:(base_url=http://x)", "no model"),
        ("llm:m(base_url=ftp://x)", "base_url must start with http"),
    ):
        with pytest.raises(ValueError, match=says.replace("(", "\\(")):
            load_agent(name, env)
    with pytest.raises(ValueError, match="not run here"):
        load_agent(seat(server), env, registered_only=True)


def test_transcripts_folder_checked(tmp_path):
    (tmp_path / "game_000000.jsonl").write_text("")
    with pytest.raises(ValueError, match="--transcripts .* already holds"):
        arena.plan_tournament("twos", ["random"] * 3, 1, transcripts=str(tmp_path))
    assert Path(tmp_path).is_dir()


def test_replay_viewer_shows_the_transcript(server, tmp_path):
    """The web replay shows the model's prompt and answer behind the move it made."""
    from starlette.testclient import TestClient

    from cardenvs.web import create_app

    name = seat(server)
    results("twos", name, replays=str(tmp_path / "p"), transcripts=str(tmp_path / "t"))
    client = TestClient(create_app(replays=tmp_path / "p"), base_url="http://127.0.0.1:8000")
    opened = client.get("/replays", params={"path": "game_000000.json"}, follow_redirects=False)
    sid = opened.headers["location"].rsplit("/", 1)[1]
    first = json.loads((tmp_path / "t" / "game_000000.jsonl").read_text().splitlines()[0])
    shown = client.post(f"/api/game/{sid}/goto", json={"step": first["step"] + 1}).json()
    assert shown["replay"]["transcript"] == [first]
    page = client.get(f"/game/{sid}").text
    assert 'id="transcript"' in page and "Final Answer" in page
    before = client.post(f"/api/game/{sid}/goto", json={"step": first["step"]}).json()
    assert before["replay"]["transcript"] == []


def test_docs_page_lists_every_parameter_and_fault():
    from cardenvs.agent.llm import FAULTS, PARAMETERS

    page = (Path(__file__).parents[1] / "docs" / "llm.md").read_text()
    for name in [*PARAMETERS, *FAULTS]:
        assert f"`{name}`" in page, name


def test_legal_none_leaves_the_moves_out(server, tmp_path):
    """legal=none: no legal moves in the prompt; answers that give no move fall back, every decision recorded."""
    name = seat(server, "garbage-always", legal="none", rethink=0, fallback="random")
    res = results("twos", name, transcripts=str(tmp_path))
    lines = [json.loads(line) for line in (tmp_path / "game_000000.jsonl").read_text().splitlines()]
    assert lines and all("legal" not in json.loads(line["messages"][1]["content"]) for line in lines)
    assert all(line["fault"]["kind"] == "garbage" and line["fallback"] == "random" for line in lines)
    assert model_usage(res)["fallbacks"] == len(lines) == model_usage(res)["calls"]


# ------------------------------------------------------------------ the endpoint's check, the client's environment
def closed_port() -> int:
    """A port of the loopback address nothing listens on (bound, then closed)."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def unchecked(monkeypatch):
    """No endpoint reached before in this process (a closed port may be one a test server had)."""
    from cardenvs.agent import llm

    monkeypatch.setattr(llm, "_REACHED", set(), raising=False)


def test_an_unreachable_endpoint_is_one_line_before_the_first_game(unchecked, tmp_path, capsys):
    """A closed port: cardenvs arena prints one line naming the model, the URL and why, exit 2, and plays no game
    (the old seat played the table on connection faults); the Python API raises endpoint.Unreachable."""
    from cardenvs.agent.endpoint import Unreachable

    url = f"http://127.0.0.1:{closed_port()}/v1"
    name = f"llm:m(base_url={url},fallback=random)"
    code = main(["arena", "twos", "--agents", f"{name},random,random", "--games", "2", "--no-progress"])
    captured = capsys.readouterr()
    assert code == 2 and "Traceback" not in captured.err
    assert captured.err.strip() == f"cardenvs: error: llm:m: cannot reach {url}: connection refused"
    with pytest.raises(Unreachable, match=f"^llm:m: cannot reach {re.escape(url)}: connection refused$"):
        results("twos", name)
    assert issubclass(Unreachable, ValueError)
    with pytest.raises(ValueError, match="cannot reach http://no-such-host.invalid/v1: the host is not known"):
        load_agent("llm:m(base_url=http://no-such-host.invalid/v1)", make("twos").unwrapped)


class _Answers(threading.Thread):
    """A loopback listener whose every connection gets ``reply`` (bytes, then closed), or nothing (``None``: the
    connection is held open, unanswered, until the listener stops)."""

    def __init__(self, reply: bytes | None):
        import socket

        super().__init__(daemon=True)
        self.reply, self.listener = reply, socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}/v1"
        self.held: list = []
        self.requests: list[bytes] = []

    def run(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:  # the listener closed
                return
            if self.reply is None:
                self.held.append(conn)
                continue
            self.requests.append(conn.recv(65536))
            conn.sendall(self.reply)
            conn.close()

    def __enter__(self) -> _Answers:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.listener.close()
        for conn in self.held:
            conn.close()


def test_reachable_means_it_answers_http(unchecked, monkeypatch, server):
    """Any status line counts (a 404 of a server without /models, a 401, a compressed 200, the test server's 501
    for GET); a listener that never answers is cut at REACH_SECONDS, one that speaks no HTTP is unreachable.
    The check sends no key."""
    from cardenvs.agent import endpoint

    monkeypatch.setattr(endpoint, "REACH_SECONDS", 0.5)
    monkeypatch.setenv(KEY_ENV, KEY)
    env = make("twos").unwrapped
    for status in (b"404 Not Found", b"401 Unauthorized", b"200 OK\r\nContent-Encoding: gzip"):
        with _Answers(b"HTTP/1.1 " + status + b"\r\nContent-Length: 5\r\n\r\nhello") as answers:
            load_agent(f"llm:m(base_url={answers.url},key_env={KEY_ENV})", env)
            (request,) = answers.requests
            assert request.startswith(b"GET /v1/models ") and KEY.encode() not in request
    load_agent(seat(server), env)  # no GET there: 501
    for reply, why in ((None, "no HTTP answer within 0.5 s"), (b"SSH-2.0-OpenSSH_9.6\r\n", "no HTTP answer (")):
        with _Answers(reply) as answers:
            with pytest.raises(endpoint.Unreachable, match=re.escape(f"cannot reach {answers.url}: {why}")):
                load_agent(f"llm:m(base_url={answers.url})", env)


def test_an_endpoint_gone_after_its_check_is_a_connection_fault(unchecked):
    """The check passes, then the server goes: the seat's calls are connection faults, which the fallback covers."""
    with ChatServer() as gone:
        env = make("twos").unwrapped
        agent = load_agent(seat(gone, fallback="random"), env)
    agent.act(decision(env, 0), np.random.default_rng(0))
    (fault,) = agent.faults
    assert fault.kind == "connection"


def test_the_openai_clients_environment_is_honoured_or_refused(server, monkeypatch):
    """OPENAI_BASE_URL without base_url in the name, and OPENAI_CUSTOM_HEADERS, are refused in one line (the old
    seat ignored the first and sent the second's Authorization, a key no key_env named); a base_url in the name
    wins; OPENAI_API_KEY and OPENAI_ADMIN_KEY are never sent, and a 401 without key_env says no key was sent."""
    env = make("twos").unwrapped
    monkeypatch.setenv("OPENAI_BASE_URL", server.url)
    with pytest.raises(ValueError) as refused:
        load_agent("llm:twin", env)
    assert f"OPENAI_BASE_URL is set ({server.url})" in str(refused.value) and "default http://127.0.0.1:8000/v1" in (
        str(refused.value)
    )
    assert f"write llm:twin(base_url={server.url})" in str(refused.value)
    with ChatServer() as other:
        agent, _ = ask(seat(other))  # the name's base_url, not the environment's
        assert other.requests == 1 and not agent.faults
    monkeypatch.delenv("OPENAI_BASE_URL")
    monkeypatch.setenv("OPENAI_CUSTOM_HEADERS", "Authorization: Bearer sk-ambient-0123456789")
    with pytest.raises(ValueError, match="OPENAI_CUSTOM_HEADERS is set, but a seat sends no headers"):
        load_agent(seat(server), env)
    monkeypatch.delenv("OPENAI_CUSTOM_HEADERS")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-ambient-0123456789")
    monkeypatch.setenv("OPENAI_ADMIN_KEY", "sk-admin-0123456789")
    with ChatServer() as fresh:
        ask(seat(fresh))
        agent, _ = ask(seat(fresh, "refuse-quoting", fallback="random"))
        assert fresh.authorizations == {"Bearer none"}
    (fault,) = agent.faults
    assert fault.kind == "refused" and "HTTP 401 (no key was sent: key_env names none; OPENAI_API_KEY is set: " in (
        fault.detail
    )


# ------------------------------------------------------------------ hostile endpoints
ODD_KEY = "sk-proj/4f9a+1c77=e0b2_d35a~Qx"  # characters that percent-encoding, JSON and base64 write otherwise


def key_runs(text: str, key: str) -> list[str]:
    """The runs of 8 characters of ``key``, in every form the test server writes it (chatserver.KEY_FORMS), that
    ``text`` holds, without regard to case."""
    lowered = text.lower()
    forms = {form(key).lower() for name, form in KEY_FORMS.items() if name not in ("all", "base64url")}
    forms.add(KEY_FORMS["base64url"](key).lower()[8:])  # its first 8 characters write "user:" and the key's first
    return sorted({f[i : i + 8] for f in forms for i in range(len(f) - 7) if f[i : i + 8] in lowered})


def decision(env, seed: int) -> dict:
    """The first observation of a seeded game of ``env`` with more than one legal move (the first moves made)."""
    env.reset(seed=seed)
    while True:
        observation = env.observe(env.agent_selection)
        legal = np.flatnonzero(observation["action_mask"])
        if len(legal) > 1:
            return observation
        env.step(int(legal[0]))


def ask(name: str, seed: int = 0) -> tuple[LLMAgent, int]:
    """A seat of ``name`` and the move it makes at a seeded decision of Twos."""
    env = make("twos").unwrapped
    agent = load_agent(name, env)
    return agent, agent.act(decision(env, seed), np.random.default_rng(0))


def test_the_key_is_scrubbed_in_every_form(server, tmp_path, monkeypatch, capsys):
    """An endpoint that sends the key back, in its answers (as it is, in its middle alone, upper case, base64,
    percent-encoded, hex, JSON-escaped), its error messages and its headers: no results file, transcript, replay,
    report or fault holds a run of 8 of its characters, and the games go on (the answers still read)."""
    monkeypatch.setenv(KEY_ENV, ODD_KEY)
    echoes = [seat(server, f"twin+echo-key={form}", key_env=KEY_ENV) for form in ("all", "middle")]
    faulty = [seat(server, m, key_env=KEY_ENV, fallback="random") for m in ("echo-key-error", "echo-key-header")]
    out, files = tmp_path / "r.json", [tmp_path / "t", tmp_path / "p"]
    for agents in (echoes + ["random"], faulty + ["random"]):
        for path in [out, *files]:
            shutil.rmtree(path) if path.is_dir() else path.unlink(missing_ok=True)
        code = main(
            ["arena", "twos", "--agents", ",".join(agents), "--games", "1", "--no-progress", "--out", str(out)]
            + ["--transcripts", str(files[0]), "--replays", str(files[1])]
        )
        assert code == 0
        assert f"Bearer {ODD_KEY}" in server.authorizations
        written = [capsys.readouterr().out] + [p.read_text() for p in tmp_path.rglob("*") if p.is_file()]
        assert len(written) > 3 and not [runs for text in written if (runs := key_runs(text, ODD_KEY))]
        data = json.loads(out.read_text())
        if agents[0] == echoes[0]:  # the answers were read: the twin's games, no fault
            assert not [f for r in data["records"] for f in r.get("faults", [])]
            transcript = (files[0] / "game_000000.jsonl").read_text()
            assert "I was sent the key [key]" in transcript and "Final Answer" in transcript
        else:
            faults = [f for r in data["records"] for f in r.get("faults", [])]
            assert {f["kind"] for f in faults} == {"server", "connection"} and all(
                "[key]" in f["detail"] for f in faults
            )


def test_a_partial_key_is_scrubbed(server, monkeypatch):
    """12 characters from the key's middle (neither end, not the whole key) in an answer are not kept."""
    monkeypatch.setenv(KEY_ENV, KEY)
    agent, _ = ask(seat(server, "twin+echo-key=middle", key_env=KEY_ENV))
    (entry,) = agent.game_transcript()
    (text,) = entry["answers"]
    assert text.startswith("I was sent the key [key].") and not key_runs(json.dumps(entry), KEY)


def test_key_forms_and_scrub():
    """The scrub's own forms: every alignment of base64, runs only, a short key whole."""
    import base64

    from cardenvs.agent.endpoint import KEY_MARK, KeyScrub

    scrub = KeyScrub(ODD_KEY)
    for prefix in (b"", b"u:", b"us:", b"usr:"):  # the key at each of base64's three byte alignments
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            sent = encode(prefix + ODD_KEY.encode()).decode()
            assert not key_runs(scrub(sent), ODD_KEY) and KEY_MARK in scrub(sent), (prefix, sent)
    assert scrub("the move 4f9a+1c and sk-proj") == "the move 4f9a+1c and sk-proj"  # runs of 7: kept
    assert scrub("x 4f9a+1c77 y") == f"x {KEY_MARK} y"
    assert KeyScrub("abc")("abcd cab") == f"{KEY_MARK}d cab"


@pytest.mark.parametrize(
    "malformed",
    [f"malformed={kind}" for kind in MALFORMED] + [f"tokens={value}" for value in TOKENS] + ["encoded"],
)
def test_malformed_responses_are_server_faults(server, malformed):
    """Invalid or cut JSON, no choices, content not a string, token counts that are no count ("lots", Infinity,
    NaN, negative, 10^30), a compressed body: each a ``server`` fault that the fallback covers, nothing counted."""
    agent, action = ask(seat(server, f"twin+{malformed}", rethink=0, fallback="twos.heuristic"))
    (fault,) = agent.faults
    assert fault.kind == "server", (fault.kind, fault.detail)
    usage = agent.game_usage()
    assert usage["fallbacks"] == 1 and usage["calls"] == usage["input_tokens"] == usage["output_tokens"] == 0
    (entry,) = agent.game_transcript()
    assert entry["fault"]["kind"] == "server" and entry["fallback"] == "twos.heuristic" and entry["move"]


def test_a_tournament_of_malformed_endpoints_finishes(server, tmp_path):
    """Seats whose endpoints send invalid JSON and token counts of "lots" and Infinity: the tournament ends with
    its results written and every fault recorded (forfeits without a fallback, fallback moves with one)."""
    agents = [seat(server, "twin+malformed=badjson"), seat(server, "twin+tokens=lots", fallback="random")]
    agents.append(seat(server, "twin+tokens=inf", fallback="random"))
    code = main(
        ["arena", "twos", "--agents", ",".join(agents), "--games", "1", "--no-progress"]
        + ["--out", str(out := tmp_path / "r.json")]
    )
    assert code == 0
    data = json.loads(out.read_text())
    assert len(data["records"]) == 6
    faults = [f for r in data["records"] for f in r.get("faults", [])]
    assert faults and {f["kind"] for f in faults} == {"server"}
    assert sum(f["forfeit"] for f in faults) == 6  # the invalid JSON seat lost each game at its first call
    for usage in data["usage"].values():
        assert usage["input_tokens"] == 0 and usage["cost"] == 0 and usage["faults"]["server"] > 0


def test_counts_are_bounded():
    """A count is a whole number from 0 to MAX_TOKEN_COUNT; missing or null counts 0."""
    from cardenvs.agent.endpoint import MAX_TOKEN_COUNT, Malformed, read_completion

    def body(usage: object) -> bytes:
        return json.dumps({"choices": [{"message": {"content": "hi"}}], "usage": usage}).encode()

    assert read_completion(body({"prompt_tokens": 3, "completion_tokens": 4.0})) == ("hi", 3, 4)
    assert read_completion(body(None)) == read_completion(body({"prompt_tokens": None})) == ("hi", 0, 0)
    for bad in (-1, MAX_TOKEN_COUNT + 1, 1.5, True, "7", [1]):
        with pytest.raises(Malformed, match="not a count of tokens"):
            read_completion(body({"completion_tokens": bad}))
    assert read_completion(json.dumps({"choices": [{"message": {"content": None}}]}).encode()) == ("", 0, 0)


@pytest.mark.parametrize("mode", ["drip", "dripbody"])
def test_move_ms_bounds_the_whole_call(mode):
    """A server that drips a byte every 0.3 s and never ends (from its status line, or after its headers) is cut
    at move_ms: a timeout, and the bytes it sent bounded by what 1.5 s allows (the elapsed time only a guard)."""
    import time

    with ChatServer() as server:  # a server of its own: its drips counted alone
        started = time.monotonic()
        res = results("twos", seat(server, f"twin+{mode}=0.3", move_ms=1500))
        elapsed = time.monotonic() - started
        faults = [f for r in res.records for f in r.faults]
        assert len(faults) == len(res.records) and all(f["kind"] == "timeout" and f["forfeit"] for f in faults)
        assert elapsed < 10 * 1.5 * len(faults)
        guard = time.monotonic() + 10
        while server.dripping and time.monotonic() < guard:  # the drips end as their connections are shut
            time.sleep(0.05)
        assert server.dripping == 0
        # in 1.5 s at most 1.5 / 0.3 + 1 bytes, and a few written before the client's close reached the server
        assert server.dripped <= len(faults) * 10, server.dripped


def test_a_long_answer_is_cut_where_it_is_kept(server, tmp_path):
    """A 30 MB answer is read (its move is played) but kept as its start and end, saying what was cut; past the
    response cap that max_tokens gives, it is a server fault."""
    from cardenvs.agent.endpoint import ANSWER_CHARS, response_bytes

    agent, _ = ask(seat(server, "twin+flood=30000000", max_tokens=1_000_000))
    (entry,) = agent.game_transcript()
    (text,) = entry["answers"]
    cut = re.search(r"\[\.\.\. ([0-9,]+) characters of the answer not kept \.\.\.\]", text)
    assert len(text) < ANSWER_CHARS + 100 and cut and int(cut.group(1).replace(",", "")) > 29_980_000
    assert "fault" not in entry and text.rstrip().endswith(entry["move"])
    name = seat(server, "twin+flood=3000000", max_tokens=100_000)
    res = results("twos", name, transcripts=str(tmp_path))
    assert played(res) == played(results("twos", "chatserver:TwinAgent"))
    assert sum(p.stat().st_size for p in tmp_path.iterdir()) < 60 * 6 * ANSWER_CHARS * 3  # not 6 x 30 x 3 MB
    agent, _ = ask(seat(server, "twin+flood=3000000", fallback="random"))
    (fault,) = agent.faults
    assert fault.kind == "server" and f"over {response_bytes(512)} bytes" in fault.detail


@pytest.mark.parametrize("retry_after", ["nan", "-5", "inf", "soon", "0"])
def test_a_storm_of_429s_is_bounded(retry_after):
    """429s every time with a Retry-After of nan, -5, inf, garbage or 0: waits of 1 s (0: at least 0.05 s, doubled
    at each 429), so a 2 s call makes a handful of requests, then a rate_limit fault."""
    with ChatServer() as server:
        agent, _ = ask(seat(server, f"twin+ratelimit-storm={retry_after}", move_ms=2000, fallback="random"))
        (fault,) = agent.faults
        assert fault.kind == "rate_limit"
        assert server.requests <= (7 if retry_after == "0" else 2), server.requests


def test_retry_after_read():
    from cardenvs.agent.endpoint import DEFAULT_RETRY_AFTER, retry_after

    assert retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert retry_after({"retry-after-ms": "nan", "retry-after": "2"}) == 2.0
    assert retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0  # a date gone by: now
    for bad in ("nan", "-5", "inf", "-inf", "soon", ""):
        assert retry_after({"retry-after": bad}) == DEFAULT_RETRY_AFTER, bad
    assert retry_after({}) == DEFAULT_RETRY_AFTER


def test_in_flight_bounds_calls_across_threads():
    """Six threads, each with its own seat of one model at in_flight=2 (as the arena's lanes have): the server
    never answers more than 2 at once. It holds each request until 3 are in at once (or 1 s), so a bound that
    does not hold is seen, as the same threads at in_flight=6 show."""
    import threading

    with ChatServer() as server:
        for in_flight, most in ((2, 2), (6, 6)):
            server.most_active = 0
            name = seat(server, "twin+gate=3", in_flight=in_flight)
            seats = [(load_agent(name, env := make("twos").unwrapped), decision(env, seed)) for seed in range(6)]
            for agent, _ in seats:
                agent.client()  # made before the threads start
            moves: list[int] = []
            start = threading.Barrier(len(seats))

            def play(agent, observation, start=start, moves=moves):
                start.wait()
                moves.append(agent.act(observation, np.random.default_rng(0)))

            threads = [threading.Thread(target=play, args=pair) for pair in seats]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            assert len(moves) == 6 and not any(agent.faults for agent, _ in seats)
            if in_flight == 2:
                assert server.most_active == 2
            else:
                assert 3 <= server.most_active <= most
