"""The arena report's labels and warnings: long agent names get short, unique labels in every table (the full
names in the JSON and a legend), and a table that measured a seat's fallback, or its faults, says so at the top."""

from __future__ import annotations

import json

import pytest
from chatserver import ChatServer

from cardenvs import arena
from cardenvs.arena.plans import LABEL_WIDTH, labels_for, short_name
from cardenvs.arena.records import GameRecord
from cardenvs.arena.results import Results

GDWS = "gdws:/work/botvenv/bin/python /tmp/g1bots/wintest/ai1/client0.py(move_ms=20000,memory_mb=16000)"
LLM = "llm:gemma3-270m-it(base_url=http://127.0.0.1:8080/v1,fallback=random,rethink=2,legal=none)"


def test_short_names_fit_and_keep_what_tells_agents_apart():
    assert short_name("twos.heuristic") == "twos.heuristic"  # short names stay whole
    assert short_name(LLM) == "llm:gemma3-270m-it"  # the parameters go first
    assert short_name(GDWS) == "gdws:.../ai1/client0.py"  # then a command's folders, from the left
    long_model = "llm:a-model-name-that-is-far-too-long-for-a-column(base_url=http://x)"
    assert short_name(long_model) == "llm:a-model-name-that-is-fa..." and len(short_name(long_model)) == LABEL_WIDTH
    for name in (GDWS, LLM, long_model, "cmd:" + "/x" * 40):
        assert len(short_name(name)) <= LABEL_WIDTH


def test_labels_are_unique_even_where_two_names_shorten_alike():
    names = ["guandan.dmc", GDWS, "guandan.dmc", GDWS]
    assert labels_for(names) == [
        "guandan.dmc#1",
        "gdws:.../ai1/client0.py#1",
        "guandan.dmc#2",
        "gdws:.../ai1/client0.py#2",
    ]
    two = ["doudizhu.pimc(playouts=200)", "doudizhu.pimc(playouts=5000,leaf=dmc)", "random"]
    assert labels_for(two) == ["doudizhu.pimc(playouts=200)", "doudizhu.pimc", "random"]  # the legend says which
    alike = ["doudizhu.pimc(playouts=5000,leaf=dmc)", "doudizhu.pimc(playouts=5000,rollout=dmc)"]
    assert labels_for(alike) == ["doudizhu.pimc#1", "doudizhu.pimc#2"]
    assert labels_for(["random", "random", "twos.heuristic"]) == ["random#1", "random#2", "twos.heuristic"]


def _results(names: list[str], records: list[GameRecord]) -> Results:
    res = Results("twos_v0", labels_for(names), names, {}, 0, len(records), False, "test")
    res.records = records
    return res


def test_the_report_lines_up_its_columns_and_names_every_shortened_agent():
    names = [LLM, "random", "twos.heuristic"]
    labels = labels_for(names)
    records = [
        GameRecord(d, 0, 0, list(labels), [1.0, 0.0, 0.0], [1.0, -1.0, -1.0], [1.0, -1.0, -1.0]) for d in range(3)
    ]
    res = _results(names, records)
    report = res.report()
    assert f"  {labels[0]}: {LLM}" in report  # the legend gives the whole name
    table = res.table().splitlines()
    assert len({len(line) for line in table}) == 1  # every row of the table as wide as its header
    saved = res.to_dict()
    assert saved["agent_names"] == names and saved["legend"] == {labels[0]: LLM}
    assert "warnings" not in saved


def _fault(label: str, kind: str, forfeit: bool, detail: str = "no move in the answer") -> dict:
    return {"agent": label, "kind": kind, "detail": detail, "forfeit": forfeit}


def test_a_seat_whose_fallback_made_most_moves_is_a_warning_at_the_top():
    names = ["llm:m", "random", "random"]
    labels = labels_for(names)
    records = []
    for d in range(4):  # 10 decisions of llm:m a game, 6 of them by its fallback: 24 of 40
        faults = [_fault(labels[0], "garbage", False, f"game {d}") for _ in range(6)]
        records.append(
            GameRecord(
                d, 0, 0, list(labels), [0.0] * 3, [0.0] * 3, [1.0, -1.0, -1.0], faults=faults, decisions=[10, 9, 9]
            )
        )
    res = _results(names, records)
    (warning,) = res.warnings()
    assert "llm:m's fallback made 24 of its 40 moves with a choice (60%)" in warning
    assert "first fault: garbage: game 0" in warning
    assert res.report().splitlines()[1] == f"WARNING: {warning}"
    assert res.to_dict()["warnings"] == [warning]
    assert json.loads(json.dumps(res.to_dict()))["records"][0]["decisions"] == [10, 9, 9]
    # half or fewer: no warning
    for r in records:
        r.faults = r.faults[:5]
    assert res.warnings() == []


def test_a_seat_that_lost_most_games_by_faults_is_a_warning():
    names = ["cmd:./bot", "random"]
    labels = labels_for(names)
    records = [
        GameRecord(
            d,
            0,
            0,
            list(labels),
            [0.0] * 2,
            [0.0] * 2,
            [-1.0, 0.0],
            faults=[_fault(labels[0], "connection", True, "refused")],
        )
        for d in range(3)
    ] + [GameRecord(3, 0, 0, list(labels), [0.0] * 2, [0.0] * 2, [1.0, -1.0])]
    res = _results(names, records)
    assert res.warnings() == ["cmd:./bot lost 3 of its 4 games by a fault (first fault: connection: refused)"]


@pytest.fixture
def server():
    with ChatServer() as running:
        yield running


def test_a_table_against_an_endpoint_whose_every_answer_is_unreadable_says_it_measured_the_fallback(server):
    name = f"llm:garbage-always(base_url={server.url},fallback=random,rethink=0)"
    res = arena.run_tournament("twos", [name, "random", "random"], 2, 5, duplicate=False)
    warnings = res.warnings()
    assert len(warnings) == 1 and "measured the fallback" in warnings[0] and "first fault: garbage" in warnings[0]
    assert warnings[0].startswith(f"{res.agents[0]}'s fallback made ")
    assert res.report().splitlines()[1].startswith("WARNING: ")
    assert sum(r.decisions[r.seats.index(res.agents[0])] for r in res.records) > 0


def test_forced_moves_do_not_hide_a_fallback_that_made_every_asked_move(server):
    """A forced move (one legal move) asks no model: against the heuristic in this Twos game half of the seat's 10
    moves were forced, its fallback made the other 5, every one it was asked. Counting all moves (5 of 10) gave no
    warning; counted against the moves with a choice it is 5 of 5."""
    name = f"llm:garbage-always(base_url={server.url},fallback=random,rethink=0)"
    res = arena.run_tournament("twos", [name, "twos.heuristic", "twos.heuristic"], 1, 0, duplicate=False)
    (record,) = res.records
    seat = record.seats.index(res.agents[0])
    faults = [f for f in record.faults if f["agent"] == res.agents[0]]
    assert (record.decisions[seat], record.choices[seat], len(faults)) == (10, 5, 5)
    assert res.warnings() == [
        f"{res.agents[0]}'s fallback made 5 of its 5 moves with a choice (100%): this table measured the fallback, "
        f"not {res.agents[0]} (first fault: garbage: {faults[0]['detail']})"
    ]
    assert json.loads(json.dumps(res.to_dict()))["records"][0]["choices"][seat] == 5
    assert Results.from_dict(res.to_dict()).warnings() == res.warnings()  # kept in the JSON
