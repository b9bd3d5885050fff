"""``cardenvs serve``'s app through Starlette's test client: every route, bad moves, hidden hands, sessions.

(The attacks the app refuses are in ``test_web_security.py``.)"""

import re
import socket
import subprocess
import sys
import warnings

import pytest

pytest.importorskip("starlette", reason="the web extra (pip install 'cardenvs[web]') is not installed")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # starlette's deprecation note on httpx
    from starlette.testclient import TestClient

from cardenvs import cli, replay  # noqa: E402
from cardenvs.arena import run_tournament  # noqa: E402
from cardenvs.core.cards import card_code  # noqa: E402
from cardenvs.web import create_app, views  # noqa: E402

BASE = "http://127.0.0.1:8000"  # the app answers only requests for its own Host


@pytest.fixture
def client():
    return TestClient(create_app(), base_url=BASE)


def start(client, **query) -> str:
    response = client.get("/new", params=query, follow_redirects=False)
    assert response.status_code == 303, response.text
    location = response.headers["location"]
    assert location.startswith("/game/")
    return location.rsplit("/", 1)[1]


def session(client, sid):
    return client.app.state.sessions.get(sid)


def view(client, sid) -> dict:
    response = client.get(f"/api/game/{sid}")
    assert response.status_code == 200
    return response.json()


def post(client, sid, kind, **body):
    """A move, next or back naming the step it answers (the current one), as the page sends it."""
    if kind in ("move", "next", "back"):
        body.setdefault("step", view(client, sid)["step"])
    return client.post(f"/api/game/{sid}/{kind}", json=body)


def test_start_page_lists_every_game_and_static_files(client):
    page = client.get("/")
    assert page.status_code == 200
    for game in ("twenty", "twos", "doudizhu", "two_way_street", "war"):
        assert f'id="game-{game}"' in page.text
    assert "twenty.greedy" in page.text and "exposed_hands" in page.text
    assert client.get("/static/app.js").headers["content-type"].startswith("text/javascript")
    assert "fetch(" in client.get("/static/app.js").text
    assert client.get("/static/style.css").status_code == 200
    assert client.get("/static/secret.py").status_code == 404


def test_the_start_page_shows_each_games_leaderboard_from_the_file(tmp_path):
    from cardenvs.analysis import grading

    ref = grading.load_reference("twos_v0")
    strongest = max(ref["anchors"].values())
    board = tmp_path / "board.json"
    row = {
        "game": "twos_v0",
        "agent": "cmd:./mybot",
        "rating": strongest + 100,
        "interval": [strongest + 40, strongest + 160],
    }
    grading.append(board, {**row, "deals": 50, "seed": 0})
    text = TestClient(create_app(leaderboard=board), base_url=BASE).get("/").text
    twos = text[text.index('id="leaderboard-twos"') :]
    twos = twos[: twos.index("</details>")]
    # the placed agent first (rated above every anchor), then the anchors, each with its rating and deals
    assert twos.index("cmd:./mybot") < min(twos.index(f"<code>{a}</code>") for a in ref["anchors"])
    assert f"[{strongest + 40:.0f}, {strongest + 160:.0f}]" in twos and "50 per anchor" in twos
    assert twos.count("(anchor)") == len(ref["anchors"]) and str(board.resolve()) in twos
    # the row is the twos board's alone; without a file, the anchors alone and how to show one
    assert "cmd:./mybot" not in text.replace(twos, "")
    plain = TestClient(create_app(), base_url=BASE).get("/").text
    assert 'id="leaderboard-twos"' in plain and "cmd:./mybot" not in plain and "serve --leaderboard" in plain


def test_serve_refuses_a_file_that_is_no_leaderboard(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text('{"not": "a list"}')
    assert cli.main(["serve", "--leaderboard", str(bad), "--port", "1"]) == 2
    err = capsys.readouterr().err
    assert "is not a leaderboard" in err and "Traceback" not in err


def test_play_twenty_to_the_end(client):
    sid = start(client, mode="play", game="twenty", agents="twenty.greedy", seat=1, seed=5)
    page = client.get(f"/game/{sid}")
    assert page.status_code == 200 and "<svg" in page.text
    v = view(client, sid)
    assert v["mode"] == "play" and v["viewer"] == 1 and v["seats"][1]["you"]
    moves = 0
    while not v["over"]:
        assert v["your_turn"] and v["legal"]
        assert {m["move"] for m in v["legal"]} <= set("A23456789T")
        response = post(client, sid, "move", action=v["legal"][-1]["action"])
        assert response.status_code == 200, response.text
        v = response.json()
        moves += 1
    assert moves == 25 * 2  # two rounds of five hands of five cards
    base = session(client, sid).base
    assert v["scores"] == base.scores().tolist() and v["outcome"] == base.outcome().tolist()
    assert v["seed"] == 5  # shown once the game is over
    assert "final scores" in client.get(f"/game/{sid}").text
    over = post(client, sid, "move", action=0)
    assert over.status_code == 400 and "over" in over.json()["error"]


def test_illegal_and_malformed_moves_are_400_naming_the_legal_moves(client):
    sid = start(client, mode="play", game="twenty", agents="random", seat=0, seed=2)
    before = view(client, sid)
    legal = [m["move"] for m in before["legal"]]
    illegal = next(a for a in range(10) if a not in {m["action"] for m in before["legal"]})
    step = before["step"]
    bad_requests = [
        {"json": {"step": step, "action": illegal}},
        {"json": {"step": step, "action": 99}},
        {"json": {"step": step, "action": "3"}},
        {"json": {"step": step, "action": True}},
        {"json": {"step": step, "move": "Z"}},
        {"json": {"step": step, "move": ""}},
        {"json": {"step": step}},
        {"json": [1, 2]},
        {"content": b"not json", "headers": {"content-type": "application/json"}},
    ]
    for request in bad_requests:
        response = client.post(f"/api/game/{sid}/move", **request)
        assert response.status_code == 400, request
        message = response.json()["error"]
        assert "legal moves: " + ", ".join(legal) in message, (request, message)
        assert view(client, sid) == before  # the game is unchanged
    missing_step = client.post(f"/api/game/{sid}/move", json={"move": legal[0]})
    assert missing_step.status_code == 400 and '"step"' in missing_step.json()["error"]
    assert view(client, sid) == before
    ok = post(client, sid, "move", move=legal[0])  # a move as text
    assert ok.status_code == 200 and ok.json()["log"][0]["move"] == legal[0]


def test_play_mode_has_no_stepping_or_other_views(client):
    sid = start(client, mode="play", game="twos", agents="twos.heuristic", seat=0, seed=1)
    for kind, body in [("next", {}), ("back", {}), ("goto", {"step": 0}), ("view", {"viewer": None})]:
        response = post(client, sid, kind, **body)
        assert response.status_code == 400 and response.json()["error"], kind
    assert view(client, sid)["viewer"] == 0


def held_codes(base, seat: int) -> list[str]:
    hand = base.state.hands[seat]
    return [card_code(c) for c in range(len(hand)) if hand[c]]


@pytest.mark.parametrize("game, agent, seat", [("doudizhu", "doudizhu.rule", 1), ("twenty", "twenty.greedy", 0)])
def test_hidden_hands_never_reach_the_page(client, game, agent, seat):
    """At every turn of a whole game, no card another seat holds appears in the JSON or the HTML (but the
    kitty, which every player sees before the landlord takes it)."""
    sid = start(client, mode="play", game=game, agents=agent, seat=seat, seed=8)
    s = session(client, sid)
    turns = 0
    while True:
        v = view(client, sid)
        if v["over"]:  # then every hand is shown (test_the_end_says_who_won_and_shows_every_hand)
            break
        payloads = [client.get(f"/api/game/{sid}").text, client.get(f"/game/{sid}").text]
        base = s.base
        for p in range(base.num_players):
            if p == seat:
                continue
            assert v["seats"][p]["cards"] is None and v["seats"][p]["count"] >= 0
            if game == "twenty":
                from cardenvs.games.twenty.rules import hand_cards

                codes = [card_code(c) for c in hand_cards(base.state, p)]
            else:
                codes = held_codes(base, p)
            public = {c for pile in v["table"] for c in pile.get("cards", [])}  # Dou Dizhu's kitty is shown
            for code in set(codes) - public:
                for payload in payloads:
                    assert not re.search(rf"\b{code}\b", payload), f"{code} of player_{p} leaks"
                name = re.escape(views.card_name(code))  # the page writes a card as its picture shows it
                assert not re.search(rf"(?<!\w){name}", payloads[1]), f"{code} of player_{p} leaks as {name}"
        mine = v["seats"][seat]["cards"]
        assert mine is not None and v["seed"] is None  # the seed would tell every hand
        post(client, sid, "move", action=v["legal"][0]["action"]).raise_for_status()
        turns += 1
    assert turns > 3


def play_to_the_end(client, sid) -> dict:
    v = view(client, sid)
    while not v["over"]:
        v = post(client, sid, "move", action=v["legal"][0]["action"]).json()
    return v


def test_the_end_says_who_won_and_shows_every_hand(client):
    """A finished game says who won and why in words, shows the game's own scores (not the RL rewards, which
    only the text view keeps) and every hand."""
    sid = start(client, mode="play", game="doudizhu", agents="doudizhu.rule", seat=0, seed=8)
    v = play_to_the_end(client, sid)
    base = session(client, sid).base
    winner, landlord = int(base.state.winner), int(base.state.landlord)
    side = "the landlord wins" if winner == landlord else "the farmers win"
    assert v["result"]["text"].startswith(f"player_{winner}") and side in v["result"]["text"]
    assert [r["score"] for r in v["result"]["scores"]] == v["scores"] == base.scores().tolist()
    assert all(seat["cards"] is not None for seat in v["seats"])  # every hand, also the agents'
    assert sum(len(seat["cards"]) for seat in v["seats"]) == int(base.state.hands.sum())
    page = client.get(f"/game/{sid}").text
    assert f'id="result" class="final">{v["result"]["text"]}<' in page
    for seat in v["seats"]:
        for code in seat["cards"]:
            assert f'data-code="{code}"' in page
    assert "result -" not in page and "zero-sum rewards" in v["text"]  # the rewards: the text view only


@pytest.mark.parametrize(
    "game, options, words",
    [
        ("war", "", r"player_\d holds all 52 cards|ran out of cards during a war"),
        ("war", "max_turns=3", r"stopped after 3 battles \(max_turns\): nobody wins"),
        ("war", "single_pass=true", r"player_\d wins, \d+ battles to \d+|a draw"),
        ("twenty", "rounds=1", r"player_\d wins the match after 1 round, \d+ points to \d+|a draw"),
        ("twos", "", r"player_\d went out first and wins \(left in hand: player_\d \d+ cards?"),
        ("two_way_street", "target=5", r"player_\d( and player_\d)* (wins|share the win) with \d+ points? after"),
        ("guandan", "", r"player_\d went out first: team \d \(player_\d and player_\d\) wins the hand and [123] level"),
    ],
)
def test_each_game_says_how_it_ended(client, game, options, words):
    sid = start(client, mode="play", game=game, options=options, agents="random", seat=0, seed=3)
    v = play_to_the_end(client, sid)
    assert re.match(words, v["result"]["text"]), v["result"]["text"]
    assert v["result"]["scores"][0] == {"seat": 0, "name": "player_0", "score": v["scores"][0]}


def test_a_game_without_its_own_words_gets_the_generic_ones(client):
    from cardenvs.web import views

    sid = start(client, mode="play", game="twenty", options="rounds=1", agents="random", seat=0, seed=4)
    play_to_the_end(client, sid)
    base = session(client, sid).base
    a, b = (views.number(x) for x in base.scores())
    winner = "player_0" if a > b else "player_1"
    assert views.generic_result(base) == f"{winner} wins (scores: player_0 {a}, player_1 {b})"


def test_favicon_and_glyphs_every_browser_font_has(client):
    icon = client.get("/static/favicon.svg")
    assert icon.status_code == 200 and icon.headers["content-type"].startswith("image/svg+xml")
    assert client.get("/favicon.ico").text == icon.text
    assert '<link rel="icon" href="/static/favicon.svg"' in client.get("/").text
    sid = start(client, mode="watch", game="war", agents="random", seed=1)
    page = client.get(f"/game/{sid}").text
    assert "&laquo; start" in page and not re.search("\u23ee|\u23ed|&#x23E[DE];", page, re.IGNORECASE)


def test_counts_are_pluralized_and_the_table_is_drawn_only_with_something_on_it(client):
    sid = start(client, mode="watch", game="war", agents="random", seed=1)
    assert 'class="table-area"' not in client.get(f"/game/{sid}").text  # nothing flipped yet
    assert "1 card on the table" in post(client, sid, "next").json()["seats"][0]["notes"]
    assert 'class="table-area"' in client.get(f"/game/{sid}").text
    sid = start(client, mode="play", game="twenty", agents="random", seat=0, seed=2)
    for _ in range(4):  # four cards each: one left in each hand
        post(client, sid, "move", action=view(client, sid)["legal"][0]["action"]).raise_for_status()
    page = client.get(f"/game/{sid}").text
    assert '<span class="count">1 card</span>' in page and not re.search(r"\b1 cards\b", page)


def test_twos_explains_its_move_names(client):
    """The page says what a Twos move name means, next to moves named that way."""
    sid = start(client, mode="play", game="twos", agents="twos.heuristic", seat=0, seed=3)
    v = view(client, sid)
    assert any(re.fullmatch(r"\dx\d+ to [2-9TJQKA][CDHS]", m["move"]) for m in v["legal"])
    page = client.get(f"/game/{sid}").text
    assert "move names: NxL is L consecutive ranks with N cards of each" in page


def test_dou_dizhu_bidding_offers_only_the_bids(client):
    """While bidding, no card selection, no play-selected button and no typed move; once the play starts,
    all three."""
    sid = start(client, mode="play", game="doudizhu", agents="doudizhu.rule", seat=0, seed=8)
    v = view(client, sid)
    assert not v["card_moves"] and all("bid" in m["move"] for m in v["legal"])
    page = client.get(f"/game/{sid}").text
    assert 'id="moves"' in page and "selectable" not in page
    assert 'id="play-selected"' not in page and 'id="typed"' not in page
    while not v["card_moves"] and not v["over"]:  # the most: become landlord, who leads
        v = post(client, sid, "move", action=v["legal"][-1]["action"]).json()
    assert v["your_turn"]
    page = client.get(f"/game/{sid}").text
    assert 'id="play-selected"' in page and 'id="typed"' in page and "hand selectable" in page


def test_each_seat_shows_its_last_move_and_the_bids_name_their_bidders(client):
    sid = start(client, mode="play", game="doudizhu", agents="doudizhu.rule", seat=2, seed=8)
    v = view(client, sid)
    assert [e["move"] for e in v["log"]] == ["no bid", "no bid"]  # player_0 bids first with this deal
    assert [s["last"] for s in v["seats"]] == ["no bid", "no bid", None]
    assert "bids so far: player_0 no bid, player_1 no bid" in v["info"]
    assert v["since_your_move"] == v["log"]
    page = client.get(f"/game/{sid}").text
    assert page.count("last: <b>no bid</b>") == 2 and 'id="since"' in page
    v = post(client, sid, "move", action=v["legal"][-1]["action"]).json()  # bid 3: landlord, who leads
    assert v["seats"][2]["last"] == "bid 3" and v["since_your_move"] == []


def test_twenty_shows_the_plays_of_the_hand(client):
    """Each card of the five-card hand with who played it, as the log has them; once a hand ends, its plays
    stay in sight while the next one starts."""
    sid = start(client, mode="play", game="twenty", agents="random", seat=1, seed=8)
    for moves in range(1, 7):
        v = post(client, sid, "move", action=view(client, sid)["legal"][0]["action"]).json()
        plays = [p for pile in v["table"] for p in pile.get("plays", [])]
        value = {"J": "T", "Q": "T", "K": "T"}
        shown = [(p["who"], value.get(p["card"][0], p["card"][0])) for p in plays]
        logged = [(f"player_{e['seat']}", e["move"]) for e in v["log"]]
        assert shown == logged[len(logged) - len(shown) :] and len(shown) >= min(len(logged), 2)
        labels = [pile["label"] for pile in v["table"] if "plays" in pile]
        assert labels == (["hand 1: its plays", "hand 2: plays so far"] if moves == 5 else [labels[-1]])
        if moves < 5:
            assert labels == ["hand 1: plays so far"] and len(plays) == len(v["log"])
    assert "<figcaption>player_0</figcaption>" in client.get(f"/game/{sid}").text


def test_the_view_brings_the_pages_game_part_to_replace_it_in_place(client):
    sid = start(client, mode="watch", game="war", agents="random", seed=1)
    post(client, sid, "next").raise_for_status()
    with_html = client.get(f"/api/game/{sid}", params={"html": "1"}).json()
    html = with_html.pop("html")
    assert with_html == view(client, sid) and "html" not in view(client, sid)
    assert html.startswith('<div id="game"') and 'data-step="1"' in html and html in client.get(f"/game/{sid}").text
    assert 'id="auto"' in html


def test_play_to_the_end_is_offered_only_without_a_choice(client):
    sid = start(client, mode="play", game="war", agents="random", seat=1, seed=2)
    v = view(client, sid)
    assert [m["move"] for m in v["legal"]] == ["flip"]
    page = client.get(f"/game/{sid}").text
    assert re.search(r'<button id="play-to-end" data-action="0"', page)
    sid = start(client, mode="play", game="twenty", agents="random", seat=0, seed=2)
    assert len(view(client, sid)["legal"]) > 1 and 'id="play-to-end"' not in client.get(f"/game/{sid}").text


def test_legal_moves_carry_the_cards_they_play(client):
    from cardenvs.web import views

    sid = start(client, mode="play", game="doudizhu", agents="doudizhu.rule", seat=0, seed=8)
    v = view(client, sid)
    assert all(m["cards"] == [] for m in v["legal"])  # bids play no card
    page = client.get(f"/game/{sid}").text
    assert "moves:" in page and 'class="move card-move"' not in page
    while not v["card_moves"]:
        v = post(client, sid, "move", action=v["legal"][-1]["action"]).json()
    base = session(client, sid).base
    state = base.states.copy()
    hand = v["seats"][0]["cards"]
    assert len(v["legal"]) > 10
    for m in v["legal"]:  # the landlord leads: every move plays cards of the hand, rank by rank as named
        assert m["cards"] and all(m["cards"].count(c) <= hand.count(c) for c in m["cards"])
        ranks = sorted(views.selection_token("doudizhu", c) for c in m["cards"])
        assert ranks == sorted(m["move"].replace("+", "")), m
    assert base.states.tobytes() == state.tobytes()  # the env is left as it was
    page = client.get(f"/game/{sid}").text
    assert page.count('class="move card-move"') == len(v["legal"]) and 'class="mini-cards"' in page
    v = post(client, sid, "move", action=v["legal"][0]["action"]).json()
    passes = [m for m in v["legal"] if m["move"] == "pass"]
    if passes:  # following: pass is drawn in words, under the legend
        assert passes[0]["cards"] == [] and "moves that play no card:" in client.get(f"/game/{sid}").text
    sid = start(client, mode="play", game="twenty", agents="random", seat=0, seed=2)
    for m in view(client, sid)["legal"]:
        (code,) = m["cards"]
        assert m["move"] == {"J": "T", "Q": "T", "K": "T"}.get(code[0], code[0])


def test_twenty_buttons_name_the_card_a_move_plays_when_a_value_has_several(client):
    """Twenty's action is a value; with 10♠, 10♣ and J♦ in hand the one button of value T plays 10♣ (the first
    held) and says so, as it draws it; a typed card name is a move too."""
    sid = start(client, mode="play", game="twenty", agents="random", seat=0, seed=1)
    v = view(client, sid)
    hand = v["seats"][0]["cards"]
    assert sorted(c for c in hand if c[0] in "TJQK") == ["JD", "TC", "TS"]  # three cards of value 10
    (ten,) = [m for m in v["legal"] if m["move"] == "T"]
    played = ten["cards"][0]
    assert ten["label"] == views.card_name(played) == f"10{views.SUIT_SYMBOLS[played[-1]]}"
    page = client.get(f"/game/{sid}").text
    button = re.search(rf'<button class="move card-move" data-action="{ten["action"]}"[^>]*>(.*?)</button>', page, re.S)
    assert button and f'title="{ten["label"]}"' in button.group(0)
    assert f'<span class="move-name">{ten["label"]}</span>' in button.group(1)
    assert all(f'<span class="move-name">{m["label"]}</span>' in page for m in v["legal"])
    assert '<span class="move-name">T</span>' not in page
    v = post(client, sid, "move", move=ten["label"]).json()  # typed as the page names it: 10♣
    assert v["log"][0]["move"] == "T" and played not in (v["seats"][0]["cards"] or [])


@pytest.mark.parametrize(
    "game, agents",
    [
        ("twenty", "random"),
        ("twos", "random"),
        ("two_way_street", "random"),
        ("doudizhu", "random"),
        ("guandan", "random"),
    ],
)
def test_the_page_names_every_card_as_its_picture_does(client, game, agents):
    """No card code (``TC``) is left in the page's words, the text view included: each is written as its card is
    drawn (``10♣``: rank and suit symbol, as its SVG's label says), while the JSON keeps the codes."""
    sid = start(client, mode="watch", game=game, agents=agents, seed=3)
    base = session(client, sid).base
    names = views.deck_names(base)
    named = 0
    for _ in range(8):
        v = view(client, sid)
        page = client.get(f"/game/{sid}").text
        text = re.search(r'<pre id="text">(.*?)</pre>', page, re.S).group(1)
        coded = [m.group(0) for m in views.CARD_CODE.finditer(v["text"]) if m.group(0) in names]
        named += len(coded)  # the text view names cards (Dou Dizhu's hands are ranks, its kitty cards) ...
        for code in coded:  # ... and the page writes them as drawn
            assert re.search(rf"(?<!\w){re.escape(names[code])}", text), (code, text)
        words = re.sub(r"<svg.*?</svg>|<[^>]+>", " ", page, flags=re.S)  # the page's words, not its markup
        assert not [m.group(0) for m in views.CARD_CODE.finditer(words) if m.group(0) in names], words
        for label, code in re.findall(r'aria-label="([^"]+)" data-code="([^"]+)"', page):
            assert label in (names.get(code), "black joker", "red joker", "joker")
        post(client, sid, "next").raise_for_status()
    assert named


def test_card_names_leave_other_notations_alone():
    assert views.card_name("TC") == "10\u2663" and views.card_name("AS") == "A\u2660"
    assert views.card_name("BJ") == "B\u2605" and views.card_name("JK") == "J\u2605"
    assert views.card_names_in("hand: TC 10H AS, kitty BJ; player_0 JK") == (
        "hand: 10\u2663 10\u2665 A\u2660, kitty B\u2605; player_0 J\u2605"
    )
    doudizhu = {"BJ": "B\u2605", "RJ": "R\u2605", "TC": "10\u2663"}  # a deck without JK: a jack and a king
    assert views.card_names_in("JK TC TT 3334 BJ", doudizhu) == "JK 10\u2663 TT 3334 B\u2605"
    assert views.card_names_in("player_1 ATC QS_ 2CS") == "player_1 ATC QS_ 2CS"  # whole words only
    assert views.typed_codes("1x1 to 9\u2666") == "1x1 to 9D" and views.typed_codes("B\u2605 R\u2605") == "BJ RJ"


def test_two_way_street_hides_other_players_discards(client):
    sid = start(client, mode="play", game="two_way_street", agents="two_way_street.heuristic", seat=1, seed=3)
    s = session(client, sid)
    for _ in range(40):
        v = view(client, sid)
        if v["over"]:
            break
        post(client, sid, "move", action=v["legal"][0]["action"]).raise_for_status()
    log = view(client, sid)["log"]
    others = [e for e in log if e["seat"] != 1 and s.base.metadata["name"] == "two_way_street_v0"]
    assert others and not any(e["move"].startswith("discard ") for e in others)


def test_two_sessions_are_independent(client):
    a = start(client, mode="play", game="twenty", agents="random", seat=0, seed=4)
    b = start(client, mode="play", game="twenty", agents="random", seat=0, seed=4)
    assert a != b
    first = view(client, b)
    assert view(client, a)["seats"][0]["cards"] == first["seats"][0]["cards"]  # same seed, same deal
    post(client, a, "move", action=view(client, a)["legal"][0]["action"]).raise_for_status()
    assert len(view(client, a)["log"]) >= 1
    assert view(client, b) == first


def without_steps(v: dict) -> dict:
    return {k: x for k, x in v.items() if k != "steps"}


def test_watch_steps_forward_and_back(client):
    sid = start(client, mode="watch", game="doudizhu", agents="doudizhu.rule,random,random", seed=6)
    views = [view(client, sid)]
    assert views[0]["viewer"] is None and all(s["cards"] for s in views[0]["seats"])
    for _ in range(6):
        views.append(post(client, sid, "next").json())
    assert [v["step"] for v in views] == list(range(7))
    post(client, sid, "back").raise_for_status()
    post(client, sid, "back").raise_for_status()
    assert without_steps(view(client, sid)) == without_steps(views[4])
    assert view(client, sid)["steps"] == 6  # what was played is kept: next replays it
    assert post(client, sid, "next").json() == views[5] | {"steps": 6}
    assert client.post(f"/api/game/{sid}/goto", json={"step": 2}).json() == views[2] | {"steps": 6}
    assert client.post(f"/api/game/{sid}/goto", json={"step": 99}).status_code == 400
    seat_view = client.post(f"/api/game/{sid}/view", json={"viewer": 2}).json()
    assert seat_view["viewer"] == 2 and seat_view["seats"][0]["cards"] is None and seat_view["seats"][2]["cards"]
    assert client.post(f"/api/game/{sid}/view", json={"viewer": 7}).status_code == 400
    client.post(f"/api/game/{sid}/goto", json={"step": 0}).raise_for_status()
    assert post(client, sid, "back").status_code == 400
    move = post(client, sid, "move", action=0)
    assert move.status_code == 400 and "watch" in move.json()["error"]


def test_replays_folder_and_file(tmp_path):
    folder = tmp_path / "replays"
    run_tournament("twenty", ["twenty.greedy", "random"], 1, seed=9, replays=str(folder))
    client = TestClient(create_app(replays=folder), base_url=BASE)
    files = replay.replay_files(folder)
    listing = client.get("/replays")
    assert listing.status_code == 200
    assert all(f.name in listing.text for f in files) and "twenty.greedy" in listing.text
    links = re.findall(r'class="replay-link" href="([^"]+)"', listing.text)
    assert links == [f"/replays?path={f.name}" for f in files]  # names in the folder, not paths
    assert client.get("/").text.count(str(folder.resolve())) == 1  # the start page links the folder
    # an absolute path inside the folder is the same file as its name
    for name in (files[1].name, str(files[1])):
        response = client.get("/replays", params={"path": name}, follow_redirects=False)
        assert response.status_code == 303
    sid = response.headers["location"].rsplit("/", 1)[1]
    game = replay.load(files[1])
    v = view(client, sid)
    assert v["mode"] == "replay" and v["steps"] == len(game.steps) and v["step"] == 0
    assert [s["agent"] for s in v["seats"]] == game.labels
    end = client.post(f"/api/game/{sid}/goto", json={"step": len(game.steps)}).json()
    assert end["over"] and end["scores"] == game.scores and end["replay"]["final_scores"] == game.scores
    assert [e["move"] for e in end["log"]] == [s.move for s in game.steps]
    assert post(client, sid, "next").status_code == 400
    page = client.get(f"/game/{sid}").text
    shown_scores = re.findall(r'class="final-score" data-seat="\d+">[^<]*<b>([^<]*)</b>', page)
    assert shown_scores == [str(int(x)) for x in game.scores]


def test_unknown_game_agent_option_seat_and_paths_are_clear_errors(client, tmp_path):
    (tmp_path / "x.json").write_text("[]")
    cases = [
        ({"game": "poker"}, "unknown game 'poker'"),
        ({"game": "twenty", "agents": "nobody"}, "unknown agent 'nobody'"),
        ({"game": "twenty", "options": "colour=red"}, "unknown option 'colour'"),
        ({"game": "twenty", "options": "rounds=0"}, "rounds=0 is out of range"),
        ({"game": "twenty", "options": "rounds"}, "must look like key=value"),
        ({"game": "twenty", "seat": "2"}, "seat 2 is not a seat"),
        ({"game": "twenty", "seat": "x"}, "seat 'x' is not an integer"),
        ({"game": "twenty", "mode": "fly"}, "unknown mode 'fly'"),
        ({"game": "twos", "agents": "twenty.greedy"}, "plays twenty, not twos"),
    ]
    for query, message in cases:
        response = client.get("/new", params=query)
        assert response.status_code == 400, query
        assert message in response.text.replace("&#39;", "'"), (query, response.text[-400:])
        assert "Traceback" not in response.text
    assert client.get("/game/nope").status_code == 404
    assert client.get("/api/game/nope").status_code == 404
    assert client.post("/api/game/nope/move", json={"action": 1}).status_code == 404
    assert client.get("/replays").status_code == 404  # no --replays folder: no replays at all
    assert "--replays DIR" in client.get("/replays", params={"path": str(tmp_path / "x.json")}).text
    with_folder = TestClient(create_app(replays=tmp_path), base_url=BASE)
    assert with_folder.get("/replays", params={"path": "missing.json"}).status_code == 404
    bad = with_folder.get("/replays", params={"path": "x.json"})
    assert bad.status_code == 400 and "not a cardenvs replay" in bad.text


def test_serve_without_the_web_extra_says_how_to_install_it(monkeypatch, capsys):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "starlette" else real(name, *a))
    assert cli.main(["serve", "--port", "8123"]) == 2
    err = capsys.readouterr().err
    assert "pip install 'cardenvs[web]'" in err and len(err.strip().splitlines()) == 1


def test_serve_on_a_busy_port_is_an_error(capsys):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert cli.main(["serve", "--port", str(port)]) == 2
    assert f"cannot serve on 127.0.0.1:{port}" in capsys.readouterr().err


def test_cardenvs_does_not_import_the_web_stack():
    code = (
        "import sys, cardenvs, cardenvs.cli, cardenvs.arena, cardenvs.replay; cardenvs.cli.build_parser(); "
        "print(sorted(m for m in ('starlette', 'uvicorn', 'jinja2') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_move_cards_names_the_cards_of_each_move_and_leaves_the_env_alone():
    """Dou Dizhu after the bidding: every legal play's cards come out of the hand, a pass takes none, and the
    env's state is the same object with the same bytes afterwards."""
    import numpy as np

    import cardenvs
    from cardenvs.web.views import move_cards

    env = cardenvs.make("doudizhu", bidding=False).unwrapped
    env.reset(seed=3)
    states, before = env.states, env.states.copy()
    seat = env.agent_name_mapping[env.agent_selection]
    legal = [int(a) for a in env.legal_actions()]
    cards = move_cards(env, seat, legal)
    assert env.states is states and np.array_equal(env.states, before)
    assert all(cards[a] for a in legal if env.action_name(a) != "pass")
    assert len({len(cards[a]) for a in legal}) > 1  # singles, pairs, ... take different numbers of cards


# ------------------------------------------------------------------ what was played, drawn as its cards
def cards_of_each_step(game: str, options: dict, seed, reset_options, actions) -> tuple[list, object]:
    """Each action's mover and the cards it took, read here from the raw state's hands before and after the
    action in an env of our own (Twos keeps hands by card value, Dou Dizhu by card id); and that env after
    them all."""
    import numpy as np

    import cardenvs

    if game == "twos":
        from cardenvs.games.twos.moves import value_code as code_of
    else:
        code_of = card_code
    env = cardenvs.make(game, **options)
    env.reset(seed=seed, options=reset_options or None)
    base = env.unwrapped
    steps = []
    for action in actions:
        seat = base.agent_name_mapping[env.agent_selection]
        before = base.state.hands[seat].copy()
        env.step(action)
        steps.append((seat, action, sorted(code_of(int(c)) for c in np.flatnonzero(before > base.state.hands[seat]))))
    return steps, base


def pile_of(v: dict, label: str) -> dict | None:
    return next((pile for pile in v["table"] if pile["label"] == label), None)


def html_codes(html: str, pattern: str) -> list[str]:
    """The card codes of the SVG cards inside the first match of ``pattern`` (group 1) in ``html``."""
    match = re.search(pattern, html, re.S)
    return re.findall(r'data-code="([^"]+)"', match.group(1)) if match else []


def check_plays_drawn(v: dict, html: str, steps: list, base) -> int:
    """The move to beat, Twos's trick and each seat's last play in the view ``v`` and its HTML are the cards
    ``steps`` says were played; returns how many cards the move to beat has."""
    s = base.state
    plays = [(seat, action, cards) for seat, action, cards in steps if cards]
    for seat in v["seats"]:
        mine = [cards for p, _, cards in steps if p == seat["seat"]]
        assert sorted(seat["last_cards"]) == (mine[-1] if mine else [])
        shown = html_codes(html, rf'data-seat="{seat["seat"]}">.*?<div class="last-move">(.*?)</div>')
        assert sorted(shown) == (mine[-1] if mine else [])  # a pass or a bid: in words, no card
    to_beat = pile_of(v, "to beat")
    beaten = s.last_player >= 0 and (s.to_beat_shape >= 0 if v["game"] == "twos" else s.last_move >= 0)
    assert (to_beat is not None) == bool(beaten)
    if not beaten:
        return 0
    seat, _, cards = plays[-1]  # the move to beat is the last play
    assert seat == s.last_player and to_beat["text"].endswith(f"by player_{seat}")
    assert sorted(to_beat["cards"]) == cards
    in_html = html_codes(html, r'<div class="dim">to beat</div>\s*<div class="pile-cards">(.*?)</div>')
    assert sorted(in_html) == cards
    if v["game"] == "twos":
        from cardenvs.games.twos import moves, rules

        n, length = moves.SHAPES[s.to_beat_shape]
        assert len(cards) == n * length and moves.value_code(int(s.to_beat_top)) in cards
        trick = rules.trick(s)
        drawn = pile_of(v, "trick")["plays"]
        expected = [(f"player_{p}", c) for p, _, c in steps[len(steps) - len(trick) :]]
        assert [(p["who"], sorted(p["cards"])) for p in drawn] == expected
        assert [p["move"] for p in drawn] == [moves.describe(a) for _, a in trick]
    else:
        from cardenvs.games.doudizhu import view as ddz_view

        assert sorted(ddz_view.selection_token(c) for c in cards) == sorted(to_beat["text"].split()[0].replace("+", ""))
    return len(cards)


@pytest.mark.parametrize(
    "game, agents, options", [("twos", "twos.heuristic", {"hand_size": 8}), ("doudizhu", "doudizhu.rule,random", {})]
)
def test_the_trick_the_move_to_beat_and_the_last_plays_are_the_cards_played(client, game, agents, options):
    """Watching a whole seeded game, then stepping back: at every step the move to beat (and Twos's trick, each
    turn) and every seat's last play carry exactly the cards the move took from its mover's hand, read here
    from the hands before and after each action in an env of our own; the page draws those cards."""
    sid = start(
        client, mode="watch", game=game, agents=agents, seed=7, options=",".join(f"{k}={v}" for k, v in options.items())
    )
    sizes = set()
    for _ in range(300):
        v = view(client, sid)
        s = session(client, sid)
        steps, base = cards_of_each_step(game, options, 7, {}, s.actions[: v["step"]])
        html = client.get(f"/api/game/{sid}", params={"html": "1"}).json()["html"]
        sizes.add(check_plays_drawn(v, html, steps, base))
        if v["over"]:
            break
        post(client, sid, "next").raise_for_status()
    assert v["over"] and len(sizes - {0}) >= 2  # moves of different sizes were checked
    for k in (v["step"] - 1, 5, 1, v["step"] - 2):  # back and goto read the same cards
        v = client.post(f"/api/game/{sid}/goto", json={"step": k}).json()
        steps, base = cards_of_each_step(game, options, 7, {}, session(client, sid).actions[:k])
        check_plays_drawn(v, client.get(f"/api/game/{sid}", params={"html": "1"}).json()["html"], steps, base)


def test_the_person_and_the_agents_plays_are_drawn_as_their_cards(client):
    """Play mode: after each of the person's moves (and the agents' answers), the move to beat and the last
    plays are the cards played."""
    sid = start(client, mode="play", game="doudizhu", agents="doudizhu.rule", seat=1, seed=3, options="bidding=false")
    for _ in range(60):
        v = view(client, sid)
        steps, base = cards_of_each_step("doudizhu", {"bidding": False}, 3, {}, session(client, sid).actions)
        check_plays_drawn(v, client.get(f"/game/{sid}").text, steps, base)
        if v["over"]:
            break
        post(client, sid, "move", action=v["legal"][0]["action"]).raise_for_status()
    assert v["over"]


@pytest.mark.parametrize(
    "game, agents",
    [("twos", ["twos.heuristic", "random", "random"]), ("doudizhu", ["doudizhu.rule", "random", "random"])],
)
def test_a_replay_draws_the_same_cards(tmp_path, game, agents):
    """An arena replay opened in the web app (stepping on, going to the end, back, to any step): the move to
    beat and the last plays are the cards the replay's actions played."""
    folder = tmp_path / "replays"
    run_tournament(game, agents, 1, seed=4, replays=str(folder))
    client = TestClient(create_app(replays=folder), base_url=BASE)
    path = replay.replay_files(folder)[-1]
    game_file = replay.load(path)
    response = client.get("/replays", params={"path": path.name}, follow_redirects=False)
    sid = response.headers["location"].rsplit("/", 1)[1]
    total = len(game_file.steps)
    for k in [1, 2, 3, total, total - 1, total // 2, 4, total]:
        v = client.post(f"/api/game/{sid}/goto", json={"step": k}).json()
        steps, base = cards_of_each_step(
            game, game_file.options, game_file.seed, game_file.reset_options, game_file.actions[:k]
        )
        check_plays_drawn(v, client.get(f"/game/{sid}").text, steps, base)
    for _ in range(3):
        post(client, sid, "back").raise_for_status()
    v = post(client, sid, "next").json()
    steps, base = cards_of_each_step(
        game, game_file.options, game_file.seed, game_file.reset_options, game_file.actions[: total - 2]
    )
    assert v["step"] == total - 2
    check_plays_drawn(v, client.get(f"/game/{sid}").text, steps, base)


def test_guandan_matches_are_played_to_their_end_through_the_api(client):
    """Whole Guandan matches in play mode through the JSON API (issue 53: a later hand's tribute answered 500 and
    the match could not go on): the person's moves are the heuristic's, every answer a 200, the pages of the
    tribute and return drawn, each match won at A."""
    import numpy as np

    from cardenvs.agent.base import PolicyAgent
    from cardenvs.games.guandan import rules

    phases = set()
    for seed in (36, 38):  # the person pays a tribute in both; seed 38 has a resisted one too
        sid = start(
            client,
            mode="play",
            game="guandan",
            agents="guandan.heuristic,random",
            seat=1,
            seed=seed,
            options="episode=match",
        )
        base = session(client, sid).base
        person = PolicyAgent(base, "heuristic")
        rng = np.random.default_rng(seed)
        v = view(client, sid)
        while not v["over"]:
            assert v["your_turn"] and v["legal"]
            phases.add(int(base.state.phase))
            if base.state.phase != rules.PLAY:  # the page of a tribute or return
                assert client.get(f"/game/{sid}").status_code == 200
            action = person.act(base.observe(base.agent_selection), rng)
            response = post(client, sid, "move", action=action)
            assert response.status_code == 200, response.text
            v = response.json()
        assert base.state.hands_played >= 5
        assert "wins the match at A" in v["result"]["text"] and client.get(f"/game/{sid}").status_code == 200
    assert phases == {rules.PAY, rules.RETURN, rules.PLAY}


def test_a_guandan_match_replay_steps_through_its_tributes(tmp_path):
    """An arena replay of a whole Guandan match opened in the app: every step where a later hand's tribute or
    return is under way (the positions that once answered 500) and the end are drawn."""
    from cardenvs.games.guandan import rules

    folder = tmp_path / "replays"
    run_tournament(
        "guandan",
        ["guandan.heuristic", "random", "guandan.heuristic", "random"],
        1,
        seed=3,
        options={"episode": "match"},
        duplicate=False,
        replays=str(folder),
    )
    client = TestClient(create_app(replays=folder), base_url=BASE)
    path = replay.replay_files(folder)[0]
    game = replay.load(path)
    env = game.new_env()
    giving = []  # the steps at which a card of a tribute or a return is to be given
    for k, action in enumerate(game.actions):
        if env.unwrapped.state.phase in (rules.PAY, rules.RETURN):
            giving.append(k)
        env.step(action)
    assert giving and env.unwrapped.state.match_winner >= 0
    response = client.get("/replays", params={"path": path.name}, follow_redirects=False)
    sid = response.headers["location"].rsplit("/", 1)[1]
    for k in giving[:: max(1, len(giving) // 6)] + [len(game.actions)]:
        moved = client.post(f"/api/game/{sid}/goto", json={"step": k})
        assert moved.status_code == 200, moved.text
        assert client.get(f"/game/{sid}").status_code == 200
    assert moved.json()["over"] and "wins the match at A" in moved.json()["result"]["text"]
