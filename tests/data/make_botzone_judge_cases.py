"""Write ``botzone_judge_cases.json.gz``: card sets and pairs of plays with the verdicts of Botzone's own
Fight the Landlord judge, for ``tests/test_doudizhu_botzone_rules.py`` (which needs no judge: it reads
the verdicts).

    python tests/data/make_botzone_judge_cases.py PATH/TO/FightTheLandlord2.py36 [OUT]
    python tests/data/make_botzone_judge_cases.py PATH/TO/FightTheLandlord2.py36 --every 12  # compare only

The judge is not part of this repository: get it with ``git clone https://github.com/ailab-pku/botzone-local``
(``botzone/online/game/FightTheLandlord2.py36``). This script loads that file as a module and calls its own
functions: ``checkPokerType`` (what a card set is: type, main cards, kickers) for every card set, and
``main`` (one whole judge turn: the landlord bids 3 and plays the first move, the next seat answers with the
second) for every pair, whose verdict is the judge's: accepted, or an error recorded for the second seat.

Card sets: every move of this game's table under both rule sets (each card set once), the edge cases of
``docs/bots.md``, random card sets (uniform from the deck, 1 to 20 cards) and near moves (a random move of
either rule set with one card added or taken away). Pairs: random pairs of moves of the botzone rule set
that fit in one deck: 40% of one type and length, 40% of random types, 20% with a bomb or the rocket.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import sys
import types
from pathlib import Path

import numpy as np

from cardenvs.games.doudizhu import moves

SEED = 20261128
RANDOM_SETS = 10_000
NEAR_MOVES = 10_000
PAIRS = 3_000
EDGE_CASES = [
    "444455557788TTKK",  # a space shuttle with pair wings: a bot's move refused by the standard rules
    "KKKAAATT",  # an airplane with one pair as its two single wings
    "333355",  # a four with two single kickers of one rank
    "33344455",  # airplane wings of one rank
    "3334445556667778",  # 444555666777+3338: kickers that make a trio
    "333444555666",  # four trios: one airplane, or a three-trio airplane with a trio as wings
    "3333BR",  # both jokers as a four's kickers
    "333444BR",  # both jokers as an airplane's wings
    "333444555BR7",
    "33334444",  # the smallest space shuttle
    "KKKKAAAA",
    "AAAA2222",  # fours that include the 2: no shuttle
    "333344445566",  # a shuttle with two pairs: Botzone's first judge's wings, not FightTheLandlord2's
    "3333444456",  # a shuttle with two singles (the same)
    "33334444555566667777",  # a five-four shuttle, 20 cards
    "333344445555+6789TJ",
    "3333444456BR",
    "AAA222",
    "22BR",
    "3333",
    "BR",
    "333BR",
    "333+44",
]
TYPE_OF_JUDGE = {  # the judge's names (Chinese) -> moves.ALL_TYPES
    "单张": "single",
    "一对": "pair",
    "三带零": "trio",
    "三带一": "trio+single",
    "三带二": "trio+pair",
    "单顺": "straight",
    "双顺": "pair_straight",
    "飞机不带翼": "airplane",
    "飞机带小翼": "airplane+singles",
    "飞机带大翼": "airplane+pairs",
    "四带两只": "four+two_singles",
    "四带两对": "four+two_pairs",
    "炸弹": "bomb",
    "火箭": "rocket",
    "航天飞机不带翼": "shuttle",
    "航天飞机带小翼": "shuttle+singles",
    "航天飞机带大翼": "shuttle+pairs",
}
WIDTH = {"pair_straight": 2, "airplane": 3, "airplane+singles": 3, "airplane+pairs": 3}  # cards per main rank


def load_judge(path: str) -> types.ModuleType:
    module = types.ModuleType("botzone_judge")  # its __name__ is not "__main__": loading it runs no game
    exec(compile(Path(path).read_text(encoding="utf-8"), path, "exec"), module.__dict__)
    return module


def card_ids(counts: np.ndarray, taken: np.ndarray | None = None) -> list[int]:
    """Botzone's card ids of rank counts (ranks 0..12: id rank * 4 + suit; the jokers 52, 53), skipping the
    ids in ``taken``."""
    ids = []
    for r, c in enumerate(counts):
        pool = [52] if r == 13 else [53] if r == 14 else list(range(4 * r, 4 * r + 4))
        pool = [i for i in pool if taken is None or not taken[i]]
        ids += pool[: int(c)]
    return ids


def verdict(judge, counts: np.ndarray) -> str:
    """``"type main length"`` (main as its rank character, length as moves counts it) or ``""``: not a move."""
    kind, main, _rest = judge.checkPokerType(card_ids(counts))
    if kind == "错误":
        return ""
    name = TYPE_OF_JUDGE[kind]
    ranks = sorted(judge.convertToPoint(c) - 3 for c in main)
    width = 4 if name.startswith("shuttle") else WIDTH.get(name, 1)
    length = len(ranks) // width if name in WIDTH or name.startswith("shuttle") or name == "straight" else 1
    return f"{name} {moves.RANK_CHARS[ranks[0]]} {length}"


def rank_string(counts: np.ndarray) -> str:
    return "".join(moves.RANK_CHARS[r] * int(c) for r, c in enumerate(counts))


def judge_accepts(judge, first: np.ndarray, second: np.ndarray) -> bool | None:
    """Whether the judge lets ``second`` follow ``first`` (None: the two do not fit in one deck)."""
    if ((first + second)[:13] > 4).any() or ((first + second)[13:] > 1).any():
        return None
    taken = np.zeros(54, dtype=bool)
    a = card_ids(first)
    taken[a] = True
    b = card_ids(second, taken)
    taken[b] = True
    rest = [i for i in range(54) if not taken[i]]
    filler = rest[:2]  # neither seat empties its hand: no game end in the way
    allocation = [a + filler[:1], b + filler[1:], rest[2:]]
    out = {"output": {"display": {}}}
    log = [out, {"0": {"verdict": "OK", "response": 3}}, out, {"0": {"verdict": "OK", "response": a}}, out]
    log.append({"1": {"verdict": "OK", "response": b}})
    judge.errored[:] = [None, None, None]
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed), contextlib.suppress(SystemExit):
        judge.main({"log": log, "initdata": {"allocation": allocation, "publiccard": [], "seed": "0"}})
    if judge.errored[0] is not None:
        raise RuntimeError(f"the judge refused the first play {rank_string(first)}: {judge.errored[0]}")
    if judge.errored[1] is not None:
        return False
    reply = json.loads(printed.getvalue().strip().splitlines()[-1])
    assert reply["command"] == "request", reply
    return True


def main(judge_path: str, out: str) -> None:
    judge = load_judge(judge_path)
    rng = np.random.default_rng(SEED)
    seen: dict[bytes, np.ndarray] = {}

    def add(counts) -> None:
        counts = np.asarray(counts, dtype=np.int8)
        if 0 < counts.sum() <= moves.MAX_CARDS and not (counts[:13] > 4).any() and not (counts[13:] > 1).any():
            seen.setdefault(counts.tobytes(), counts)

    for m in range(moves.NUM_ALL):
        if moves.ALL_TYPE[m] >= 0:
            add(moves.ALL_COUNTS[m])
    for text in EDGE_CASES:
        add(moves.counts_of(text))
    rank_of_card = np.array([c // 4 for c in range(52)] + [13, 14])
    for _ in range(RANDOM_SETS):
        cards = rng.choice(54, size=int(rng.integers(1, 21)), replace=False)
        add(np.bincount(rank_of_card[cards], minlength=15))
    botzone_ids = np.flatnonzero(moves.RULE_MOVES["botzone"])
    every_id = np.flatnonzero(moves.ALL_TYPE >= 0)
    for _ in range(NEAR_MOVES):
        counts = moves.ALL_COUNTS[rng.choice(every_id)].astype(np.int64)
        r = int(rng.integers(15))
        counts[r] += 1 if rng.random() < 0.5 or counts[r] == 0 else -1
        add(counts)
    cases = {rank_string(c): verdict(judge, c) for c in seen.values()}
    pairs = []
    by_key: dict[tuple[int, int], list[int]] = {}
    for m in botzone_ids:
        by_key.setdefault((int(moves.ALL_TYPE[m]), int(moves.ALL_LENGTH[m])), []).append(int(m))
    keys = list(by_key)
    bombs = [int(m) for m in botzone_ids if moves.ALL_TYPE[m] in (moves.BOMB, moves.ROCKET)]
    while len(pairs) < PAIRS:
        first = int(rng.choice(botzone_ids))
        draw = rng.random()
        if draw < 0.4:
            group = by_key[(int(moves.ALL_TYPE[first]), int(moves.ALL_LENGTH[first]))]
        elif draw < 0.8:
            group = by_key[keys[int(rng.integers(len(keys)))]]
        else:  # bombs and the rocket, on either side
            group = bombs
            if draw < 0.9:
                first = int(rng.choice(bombs))
        second = int(group[int(rng.integers(len(group)))])
        accepted = judge_accepts(judge, moves.ALL_COUNTS[first], moves.ALL_COUNTS[second])
        if accepted is not None:
            pairs.append([moves.move_string(first), moves.move_string(second), accepted])
    data = {
        "about": "Botzone's FightTheLandlord2 judge (ailab-pku/botzone-local, botzone/online/game/"
        "FightTheLandlord2.py36): its verdict on card sets ('type main length' as cardenvs.games.doudizhu.moves "
        "names them, '' = not a combination) and whether it lets the second play of a pair follow the first",
        "command": "python tests/data/make_botzone_judge_cases.py PATH/TO/FightTheLandlord2.py36",
        "seed": SEED,
        "cases": cases,
        "beats": pairs,
    }
    with gzip.open(out, "wt", encoding="utf-8") as f:
        json.dump(data, f, ensure_ascii=False, separators=(",", ":"))
    valid = sum(1 for v in cases.values() if v)
    print(
        f"{len(cases)} card sets ({valid} combinations), {len(pairs)} pairs "
        f"({sum(p[2] for p in pairs)} accepted) -> {out}"
    )


def check_every(judge_path: str, max_cards: int) -> None:
    """Compare every card set of 1..``max_cards`` cards (not written anywhere: millions of them): the judge's
    verdict against the botzone rule set's one reading (``--every N``)."""
    judge = load_judge(judge_path)
    by_cards: dict[bytes, list[int]] = {}
    for m in np.flatnonzero(moves.RULE_MOVES["botzone"]):
        by_cards.setdefault(moves.ALL_COUNTS[m].tobytes(), []).append(int(m))
    caps = [4] * 13 + [1, 1]
    counts = np.zeros(15, dtype=np.int8)
    tally = {"card sets": 0, "combinations": 0, "agree": 0}

    def walk(rank: int, left: int) -> None:
        if rank == 15:
            if counts.sum():
                want = verdict(judge, counts)
                ours = [
                    f"{moves.ALL_TYPES[moves.ALL_TYPE[m]]} {moves.RANK_CHARS[moves.ALL_MAIN[m]]} {moves.ALL_LENGTH[m]}"
                    for m in by_cards.get(counts.tobytes(), [])
                ]
                tally["card sets"] += 1
                tally["combinations"] += bool(want)
                tally["agree"] += ours == ([want] if want else [])
            return
        for c in range(min(caps[rank], left) + 1):
            counts[rank] = c
            walk(rank + 1, left - c)
        counts[rank] = 0

    walk(0, max_cards)
    print(f"every card set of 1..{max_cards} cards: " + ", ".join(f"{k} {v}" for k, v in tally.items()))


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[2] == "--every":
        check_every(sys.argv[1], int(sys.argv[3]))
        sys.exit()
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    main(
        sys.argv[1], sys.argv[2] if len(sys.argv) == 3 else str(Path(__file__).with_name("botzone_judge_cases.json.gz"))
    )
