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


PROMPT = re.compile(r"^(player_\d)> ", flags=re.M)


def screens(text: str) -> list[tuple[int, str]]:
    """The output cut at each prompt: (the seat prompted, everything printed since the previous prompt), the
    table and legal moves that person saw before typing."""
    cuts = [(m.start(), int(m.group(1)[-1])) for m in PROMPT.finditer(text)]
    return [(seat, text[start:end]) for (start, _), (end, seat) in zip([(0, -1), *cuts], cuts, strict=False)]


def test_two_people_play_a_guandan_hand_without_seeing_each_others_cards():
    stdin = io.StringIO("#0\n" * 3000)  # a line confirms a handoff; #0 plays the first legal move
    stdout = io.StringIO()
    assert play_terminal("guandan", "guandan.heuristic", {}, [0, 2], 5, False, stdin, stdout) == 0
    read = 3000 - len(stdin.read().splitlines())  # the lines the game took: one per handoff and per move
    text = stdout.getvalue()
    assert "game over" in text and "results player_0 " in text and ", player_2 " in text
    played = text.split("game over")[0].rsplit("\n\n", 1)[0]  # the last render (every hand) cut off
    segments = turns(played, "player_0")
    holders = [who for who, _ in segments]
    assert {"player_0", "player_2"} <= set(holders[1:])  # the keyboard went to each person at least once
    seen = screens(played)
    # each person's own hand as their screens showed it (long ones only: a short hand may be a move's cards)
    hands = {
        me: {h for seat, screen in seen if seat == me for h in hand_lines(screen, me) if len(h.split()) > 10}
        for me in (0, 2)
    }
    checked = {0: 0, 2: 0}
    for me, screen in seen:
        other = 2 - me
        assert "legal:" in screen  # every prompt follows the table and the legal moves
        mine, theirs = hand_lines(screen, me), hand_lines(screen, other)
        assert mine and theirs  # the screen shows the table
        assert all(re.fullmatch(r"\d+ cards|-", h) for h in theirs), theirs
        assert any(re.search(r"\b[2-9TJQKA][SCDH]\b", h) for h in mine)
        assert all(re.fullmatch(r"\d+ cards|-", h) for h in hand_lines(screen, 1) + hand_lines(screen, 3))
        assert not [h for h in hands[other] if h in screen]  # nor the other person's hand in any other form
        checked[me] += 1
    # every line the game read was a handoff's Enter or a move typed at a screen checked above
    handoffs = HANDOFF.findall(played)
    assert checked[0] + checked[2] + len(handoffs) == read
    assert checked[0] >= handoffs.count("player_0") > 0 and checked[2] >= handoffs.count("player_2") > 0
    assert all(hands.values())
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
