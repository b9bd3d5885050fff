#!/usr/bin/env python3
"""A bot for Botzone's Fight the Landlord games (FightTheLandlord2 and FightTheLandlord), written to Botzone's
documented JSON protocol as a bot there is: it reads one line, the requests and its own responses so far,
answers the last request and exits.

Bidding: one more than the highest bid so far if its hand holds a 2 or a joker and the bids are below 3, else 0.
Play: when leading, the lowest card; when following a single card, the lowest card of a higher rank if it
has one; else it passes. An argument "garbage" or "illegal" makes its third play an answer that is not JSON
or a card it does not hold, for the arena's fault tests; "read-all" reads its input to the end, not one line."""

import json
import sys


def rank(card):
    """3 .. 2 are 0 .. 12, the black joker 13, the red one 14."""
    return card // 4 if card < 52 else card - 39


def lowest(cards):
    return min(cards, key=lambda card: (rank(card), card))


def answer(requests, responses, mode):
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
    if mode == "garbage" and plays == 2:
        return "{not json"
    if mode == "illegal" and plays == 2:
        return [next(card for card in range(54) if card not in hand)]
    before_last, last = current["history"]
    to_beat = last or before_last
    if not to_beat:
        return [lowest(hand)]
    if len(to_beat) == 1:
        higher = [card for card in hand if rank(card) > rank(to_beat[0])]
        if higher:
            return [lowest(higher)]
    return []


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    game = json.loads(sys.stdin.read() if mode == "read-all" else sys.stdin.readline())
    response = answer(game["requests"], game["responses"], mode)
    if response == "{not json":
        print(response)
        return
    print(json.dumps({"response": response}))


main()
