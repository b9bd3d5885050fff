"""Arena tables whose results are written down: a restructuring of the arena, the agents or the games must
leave every game of them as it was (issue 44's "behaviour stays identical").

One table per engine (``--engine aec`` with a search agent, ``--engine vector``), one with Dou Dizhu's phase
before play (the bidding) on, and the shipped DMC models of every game against the heuristics. Each table's
JSON (per-agent stats, head-to-head, ratings and every game's record) is compared with the file under
``tests/data/arena_records/``, written once from the tree before the restructuring. To change it on purpose
(a rules fix, a new model), rerun with ``CARDENVS_WRITE_RECORDS=1`` and say why in the commit.
"""

import json
import os
from pathlib import Path

import pytest

from cardenvs.cli import main

RECORDS = Path(__file__).parent / "data" / "arena_records"
#: name -> the arena's arguments
TABLES = {
    "twos_aec_pimc": [
        "twos",
        "--agents",
        "twos.pimc(playouts=20),twos.heuristic,random",
        "--games",
        "6",
        "--seed",
        "3",
        "--engine",
        "aec",
    ],
    "two_way_street_vector": [
        "two_way_street",
        "--agents",
        "two_way_street.dmc,two_way_street.heuristic,random,random",
        "--games",
        "8",
        "--seed",
        "4",
        "--engine",
        "vector",
    ],
    "doudizhu_bidding": [
        "doudizhu",
        "--agents",
        "doudizhu.dmc,doudizhu.rule,random",
        "--games",
        "10",
        "--seed",
        "7",
        "--bidding",
    ],
    "doudizhu_fixed_aec": [
        "doudizhu",
        "--agents",
        "doudizhu.dmc,doudizhu.rule,random",
        "--games",
        "4",
        "--seed",
        "8",
        "--engine",
        "aec",
    ],
    "twenty_dmc": ["twenty", "--agents", "twenty.dmc,twenty.greedy", "--games", "20", "--seed", "5"],
    "twos_dmc": ["twos", "--agents", "twos.dmc,twos.heuristic,random", "--games", "8", "--seed", "6"],
    "war_vector": ["war", "--agents", "war.flip,random", "--games", "10", "--seed", "2", "-o", "max_turns=300"],
}
#: what must stay equal: the results, not the version string or the way the table was asked for
COMPARED = ("env_id", "agents", "options", "seed", "deals", "stats", "head_to_head", "ratings", "records")


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(TABLES))
def test_the_arena_plays_the_recorded_table(name, tmp_path, capsys):
    out = tmp_path / f"{name}.json"
    assert main(["arena", *TABLES[name], "--no-progress", "--out", str(out)]) == 0
    capsys.readouterr()
    got = {key: value for key, value in json.loads(out.read_text()).items() if key in COMPARED}
    recorded = RECORDS / f"{name}.json"
    if os.environ.get("CARDENVS_WRITE_RECORDS"):
        recorded.write_text(json.dumps(got, indent=1, sort_keys=True) + "\n")
    assert got == json.loads(recorded.read_text()), f"{name}: the arena's results changed"
