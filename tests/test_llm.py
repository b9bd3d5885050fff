"""``llm:MODEL`` seats against a real chat-completions server on the loopback address (``chatserver.py``): the twin
test (every game played as the scripted player plays it as a Python agent), rethinks, faults (slow answers, 500,
429 with Retry-After, a dropped connection, a refusal), the key kept out of every file and message, costs and
transcripts, games at once equal to one at a time."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from chatserver import ChatServer

from cardenvs import arena
from cardenvs.agent import load_agent
from cardenvs.cli import main
from cardenvs.registry import env_ids, make

pytest.importorskip("openai")

KEY = "sk-test-4f9a1c77e0b2d35a"
KEY_ENV = "CARDENVS_TEST_LLM_KEY"


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
    record = res.records[0].usage[name]
    assert record["calls"] == usage["calls"] and len(record["latency_ms"]) == usage["calls"]
    lines = [json.loads(line) for line in (tmp_path / "t" / "game_000000.jsonl").read_text().splitlines()]
    assert len(lines) == usage["rethinks"]
    for line in lines:
        assert line["agent"] == name and len(line["answers"]) == 2 and "Final Answer" in line["answers"][1]
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
    assert res.to_dict()["usage"][seat(server, model, **params)]["faults"] == {kind: 1}


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
