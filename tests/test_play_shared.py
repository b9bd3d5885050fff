"""``cardenvs play`` with several people at one terminal (``--humans``) and with a partner agent: whole games
driven through stdin; a person's hand is never printed while another person has the keyboard."""

import io
import re

import pytest

from cardenvs.cli import main
from cardenvs.play import play_terminal

HANDOFF = re.compile(r"pass the keyboard to (player_\d)")


def turns(text: str, first: str) -> list[tuple[str, str]]:
    """The output cut where the keyboard passes: (who holds the keyboard, what was printed meanwhile)."""
    cuts = [(m.start(), m.group(1)) for m in HANDOFF.finditer(text)]
    edges = [(0, first), *cuts, (len(text), "")]
    return [(who, text[start:end]) for (start, who), (end, _) in zip(edges, edges[1:], strict=False)]


def hand_lines(segment: str, seat: int) -> list[str]:
    """What the renders in ``segment`` say of ``seat``'s hand (Guandan: '  player_2 team 0: 3S 4H ...')."""
    return re.findall(rf"^  player_{seat} team \d(?: \(out \d\))?: (.*)$", segment, flags=re.M)


def test_two_people_play_a_guandan_hand_without_seeing_each_others_cards():
    stdin = io.StringIO("#0\n" * 3000)  # a line confirms a handoff; #0 plays the first legal move
    stdout = io.StringIO()
    assert play_terminal("guandan", "guandan.heuristic", {}, [0, 2], 5, False, stdin, stdout) == 0
    text = stdout.getvalue()
    assert "game over" in text and "results player_0 " in text and ", player_2 " in text
    played = text.split("game over")[0].rsplit("\n\n", 1)[0]  # the last render (every hand) cut off
    segments = turns(played, "player_0")
    holders = [who for who, _ in segments]
    assert {"player_0", "player_2"} <= set(holders[1:])  # the keyboard went to each person at least once
    for who, segment in segments:
        me = int(who[-1])
        other = 2 - me
        if "legal:" not in segment:
            continue
        mine, theirs = hand_lines(segment, me), hand_lines(segment, other)
        assert mine and theirs  # the segment shows the table
        assert all(re.fullmatch(r"\d+ cards|-", h) for h in theirs), theirs
        assert any(re.search(r"\b[2-9TJQKA][SCDH]\b", h) for h in mine)
        assert all(re.fullmatch(r"\d+ cards|-", h) for h in hand_lines(segment, 1) + hand_lines(segment, 3))
    # each person's prompt only after the keyboard was passed to them
    for who, segment in segments:
        assert f"player_{2 - int(who[-1])}>" not in segment


def test_a_person_with_a_partner_agent():
    """player_0 plays with the heuristic at seat 2 against random seats 1 and 3 (the agents are cycled over the
    other seats: random, heuristic, random): nobody is asked to pass the keyboard and the partner's hand stays
    hidden."""
    stdin = io.StringIO("#0\n" * 3000)
    stdout = io.StringIO()
    assert play_terminal("guandan", "random,guandan.heuristic,random", {}, 0, 11, False, stdin, stdout) == 0
    text = stdout.getvalue()
    assert "game over" in text and "your result" in text and "pass the keyboard" not in text
    assert "player_2 plays" in text
    during = text.split("game over")[0].rsplit("\n\n", 1)[0]
    assert all(re.fullmatch(r"\d+ cards|-", h) for h in hand_lines(during, 2))


def test_two_people_at_war_each_confirm_before_their_turn():
    """War, two people and no agent: each flip follows a handoff (the other person moved last), so the
    handoffs alternate player_1, player_0, ... and every move is printed for both."""
    stdin = io.StringIO("\n#0\n" * 40)  # Enter at the handoff, then the flip
    stdout = io.StringIO()
    assert play_terminal("war", "random", {"max_turns": 5}, [0, 1], 3, False, stdin, stdout) == 0
    text = stdout.getvalue()
    handoffs = HANDOFF.findall(text)
    assert handoffs[:4] == ["player_1", "player_0", "player_1", "player_0"]
    assert "player_0 plays" in text and "player_1 plays" in text and "game over" in text


def test_quit_at_a_handoff_leaves_the_game():
    stdout = io.StringIO()
    assert play_terminal("war", "random", {}, [0, 1], 3, False, io.StringIO("#0\nquit\n"), stdout) == 0
    assert "goodbye: game left unfinished" in stdout.getvalue()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["play", "war", "--humans", "0,0"], "seat 0 is given twice"),
        (["play", "war", "--humans", "0,2"], "--humans 2 is not a seat of war_v0"),
        (["play", "war", "--humans", "0,x"], "'x' is not a seat number"),
        (["play", "war", "--humans", "0,1", "--seat", "1"], "not both"),
    ],
)
def test_humans_mistakes_are_reported(argv, message, capsys):
    assert main(argv) == 2
    assert message in capsys.readouterr().err
