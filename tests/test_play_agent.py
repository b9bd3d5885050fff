"""The agent people play against where they name none (issue 56, item 4): the game spec's ``play_agent``, seated by
``cardenvs play`` and the web app (Dou Dizhu: ``doudizhu.stakes_pimc``, the bids of the model trained for the whole
game with bidding and the play of search); ``random`` for a game that declares none, or where the model it loads
cannot be loaded (no torch), said in a note."""

import importlib.util
import io
import sys

import pytest

from cardenvs import cli
from cardenvs.agent import load_agent, loader, play_agent
from cardenvs.play import setup_play

INSTALL = "pip install 'cardenvs[train]'; seating random"
NO_TORCH_NOTE = f"doudizhu.stakes_pimc needs the train extra (torch): {INSTALL}"
GUANDAN_PLAY = "guandan.pimc(playouts=1200,prior=dmc,top=4,weight=0.5)"


def test_cardenvs_play_seats_the_games_play_agent_where_none_is_named():
    pytest.importorskip("torch")
    session = setup_play("doudizhu", None, {}, 0, 1, False)
    assert session.env.unwrapped.config["bidding"] and session.note is None
    assert {agent.name for agent in session.agents.values()} == {"doudizhu.stakes_pimc"}
    named = setup_play("doudizhu", "random", {}, 0, 1, False)
    assert {agent.name for agent in named.agents.values()} == {"random"}
    assert play_agent("twos") == ("random", None)
    guandan = setup_play("guandan", None, {}, 0, 1, False)  # issue 63: search over the shipped model
    assert guandan.note is None and {agent.name for agent in guandan.agents.values()} == {GUANDAN_PLAY}
    searches = list(guandan.agents.values())
    assert all(s.parameters["playouts"] == 1200 and s.top == 4 and s.weight == 0.5 for s in searches)
    assert all(type(s.prior).__name__ == type(load_agent("guandan.dmc", guandan.env)).__name__ for s in searches)


def test_without_torch_random_is_seated_and_the_note_says_why(monkeypatch, capsys):
    """Where torch is missing (here: find_spec says so), ``cardenvs play doudizhu`` seats random and tells the
    person why, on standard error, before the game; the session carries the note that ``cmd_play`` prints."""
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "torch" else real(name, *a))
    assert loader.play_agent("doudizhu") == ("random", NO_TORCH_NOTE)
    # a search whose prior is the shipped model needs torch as well (its parameters name the model)
    assert loader.play_agent("guandan") == ("random", f"{GUANDAN_PLAY} needs the train extra (torch): {INSTALL}")
    session = setup_play("doudizhu", None, {}, 0, 1, False)
    assert session.note == NO_TORCH_NOTE and {agent.name for agent in session.agents.values()} == {"random"}
    assert setup_play("doudizhu", "random", {}, 0, 1, False).note is None  # named: nothing to explain
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))  # the input ends at once: the game is left, status 0
    assert cli.main(["play", "doudizhu", "--seed", "1"]) == 0
    err = capsys.readouterr().err
    assert err.splitlines()[0] == f"cardenvs: note: {NO_TORCH_NOTE}", err


def test_the_web_app_offers_and_seats_the_play_agent():
    pytest.importorskip("torch")
    from starlette.testclient import TestClient

    from cardenvs.web import create_app

    client = TestClient(create_app(), base_url="http://127.0.0.1")
    assert 'value="doudizhu.stakes_pimc"' in client.get("/").text
    page = client.get("/new?mode=play&game=doudizhu&seat=0&seed=3")
    assert page.status_code == 200 and "doudizhu.stakes_pimc" in page.text
