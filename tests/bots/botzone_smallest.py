#!/usr/bin/env python3
"""A bot for Botzone's Fight the Landlord games (FightTheLandlord2 and FightTheLandlord), written to Botzone's
documented JSON protocol as a bot there is: it reads one line, the requests and its own responses so far,
answers the last request and exits.

Bidding: one more than the highest bid so far if its hand holds a 2 or a joker and the bids are below 3, else 0.
Play: when leading, the lowest card; when following a single card, the lowest card of a higher rank if it
has one; else it passes. Arguments (modes, any number of them):

* "garbage" or "illegal": its third play is an answer that is not JSON, or a card it does not hold (the arena's
  fault tests); "read-all": it reads its input to the end, not one line;
* "keep": Botzone's long-running mode: after each answer it writes >>>BOTZONE_REQUEST_KEEP_RUNNING<<< on a line
  of its own, flushes, and reads the next turn's request alone (one line of JSON), keeping the game itself;
  "exit-kept": with "keep", it asks to keep running after its second play and then exits;
* "high": of the rank it plays, the card with the highest id, not the lowest; "check": it keeps what it said
  in ``data`` and answers garbage if a later input's last response is not what it said, or a history shows a
  card it holds or one already played.
"""

import json
import sys


def rank(card):
    """3 .. 2 are 0 .. 12, the black joker 13, the red one 14."""
    return card // 4 if card < 52 else card - 39


def lowest(cards, high=False):
    """The card of the lowest rank; of that rank the lowest id (the highest with ``high``)."""
    return min(cards, key=lambda card: (rank(card), -card if high else card))


def answer(requests, responses, modes):
    current = requests[-1]
    if "bid" in current and "history" not in current:
        bids = current["bid"]
        top = max(bids, default=0)
        high = any(card >= 48 for card in current["own"])
        return top + 1 if high and top < 3 else 0
    first = next(r for r in requests if "history" in r)  # the first request of the play has the hand
    hand = set(first["own"])
    if first.get("landlord", 0) == first.get("pos", -1):  # FightTheLandlord2's landlord adds the bottom cards
        hand |= set(first["publiccard"])
    for response in responses:
        if isinstance(response, list):
            hand -= set(response)
    plays = sum(isinstance(r, list) for r in responses)
    if "garbage" in modes and plays == 2:
        return "{not json"
    if "illegal" in modes and plays == 2:
        return [next(card for card in range(54) if card not in hand)]
    before_last, last = current["history"]
    to_beat = last or before_last
    if not to_beat:
        return [lowest(hand, "high" in modes)]
    if len(to_beat) == 1:
        higher = [card for card in hand if rank(card) > rank(to_beat[0])]
        if higher:
            return [lowest(higher, "high" in modes)]
    return []


def echoed_wrong(game, hand_of):
    """With "check": what the platform echoed that this bot did not say, or a history card it cannot be."""
    said = (game.get("data") or {}).get("said", None)
    if game["responses"] and said is not None and game["responses"][-1] != said:
        return f"said {said}, echoed {game['responses'][-1]}"
    seen = [card for r in game["requests"] for cards in r.get("history", []) for card in cards]
    if len(seen) != len(set(seen)) or set(seen) & hand_of:
        return "a history card twice, or one in its hand"
    return ""


def hand_now(requests, responses):
    first = next((r for r in requests if "history" in r), None)
    if first is None:
        return set(requests[-1].get("own", []))
    hand = set(first["own"])
    if first.get("landlord", 0) == first.get("pos", -1):
        hand |= set(first["publiccard"])
    return hand - {card for response in responses if isinstance(response, list) for card in response}


def main():
    modes = set(sys.argv[1:])
    game = json.loads(sys.stdin.read() if "read-all" in modes else sys.stdin.readline())
    requests, responses = game["requests"], game["responses"]
    while True:
        wrong = "check" in modes and echoed_wrong(game, hand_now(requests, responses))
        response = "{not json" if wrong else answer(requests, responses, modes)
        if response == "{not json":
            print(response)
            return
        output = {"response": response, "data": {"said": response}} if "check" in modes else {"response": response}
        print(json.dumps(output))
        if "keep" not in modes:
            return
        print(">>>BOTZONE_REQUEST_KEEP_RUNNING<<<")
        sys.stdout.flush()
        plays = sum(isinstance(r, list) for r in responses) + isinstance(response, list)
        if "exit-kept" in modes and plays == 2:
            return
        line = sys.stdin.readline()
        if not line:
            return
        requests.append(json.loads(line))  # a kept bot is sent this turn's request alone
        responses.append(response)
        game = {"requests": requests, "responses": responses}


main()
