"""Dou Dizhu's ``rules="botzone"``: Botzone's Fight the Landlord judge exactly (:mod:`cardenvs.games.doudizhu.moves`).

The judge's verdicts come from ``tests/data/botzone_judge_cases.json.gz`` (written by
``tests/data/make_botzone_judge_cases.py`` from Botzone's own judge program, which this repository does not
hold): every card set of both rule sets' tables, the edge cases of docs/bots.md, random card sets and near
moves, and pairs of plays the judge let follow or not."""

import gzip
import json
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

import cardenvs
from cardenvs import vector
from cardenvs.arena import run_tournament
from cardenvs.core import encoding
from cardenvs.core.cards import card_code
from cardenvs.games.doudizhu import botzone, moves, rules

DATA = Path(__file__).parent / "data" / "botzone_judge_cases.json.gz"
# a Python bot: Botzone's Python time limit (6,000 ms a turn), so a loaded machine does not time it out
BOT = f"botzone:{sys.executable} -S {Path(__file__).parent / 'bots' / 'botzone_smallest.py'}(language=py)"


@pytest.fixture(scope="module")
def judge():
    with gzip.open(DATA, "rt", encoding="utf-8") as f:
        return json.load(f)


def _readings_by_cards(rule_set: str) -> dict[bytes, list[int]]:
    out: dict[bytes, list[int]] = defaultdict(list)
    for m in np.flatnonzero(moves.RULE_MOVES[rule_set]):
        out[moves.ALL_COUNTS[m].tobytes()].append(int(m))
    return out


def _reading(m: int) -> str:
    return f"{moves.ALL_TYPES[moves.ALL_TYPE[m]]} {moves.RANK_CHARS[moves.ALL_MAIN[m]]} {moves.ALL_LENGTH[m]}"


def test_every_card_set_reads_as_botzones_judge_reads_it(judge):
    """Every case: no move where the judge says none, else exactly one reading, the judge's type, main rank and
    length (65,880 card sets when written, 34,323 of them combinations: the botzone rule set's move count)."""
    by_cards = _readings_by_cards("botzone")
    cases = judge["cases"]
    assert len(cases) > 60_000
    wrong = {}
    for text, verdict in cases.items():
        ours = [_reading(m) for m in by_cards.get(moves.counts_of(text).tobytes(), [])]
        if ours != ([verdict] if verdict else []):
            wrong[text] = (verdict, ours)
    assert not wrong, list(wrong.items())[:10]
    assert sum(1 for v in cases.values() if v) == int(moves.RULE_MOVES["botzone"].sum())


def test_the_standard_rules_differ_from_the_judge_only_where_documented(judge):
    """docs/bots.md's list, case by case: shuttles and both jokers as kickers the judge has and the standard
    rules do not; single kickers of one rank (of a four or an airplane) the standard rules have and the judge
    does not; card sets of several readings here, one of them the judge's."""
    by_cards = _readings_by_cards("standard")
    kinds: dict[str, int] = defaultdict(int)
    for text, verdict in judge["cases"].items():
        counts = moves.counts_of(text)
        ours = by_cards.get(counts.tobytes(), [])
        if [_reading(m) for m in ours] == ([verdict] if verdict else []):
            kinds["same"] += 1
        elif verdict and not ours:
            assert verdict.startswith("shuttle") or (counts[moves.BLACK] and counts[moves.RED]), text
            kinds["botzone only"] += 1
        elif not verdict:
            assert all(
                moves.ALL_TYPE[m] in (moves.FOUR_SINGLES, moves.AIRPLANE_SINGLES) and moves.ALL_KICKERS[m].max() > 1
                for m in ours
            ), text
            kinds["standard only"] += 1
        else:
            assert verdict in [_reading(m) for m in ours], text
            kinds["several readings"] += 1
    assert min(kinds.values()) > 0 and len(kinds) == 4


def test_what_follows_what_is_the_judges(judge):
    """The judge's verdict on every pair (same type, length and a higher main rank; bombs and the rocket)."""
    pairs = judge["beats"]
    ids = moves.move_ids("botzone")
    assert len(pairs) >= 3000 and 0 < sum(p[2] for p in pairs) < len(pairs)
    assert any(moves.ALL_TYPE[ids[b]] == moves.BOMB and ok for _, b, ok in pairs)
    wrong = [(a, b, ok) for a, b, ok in pairs if moves.beats(ids[b], ids[a]) != ok]
    assert not wrong, wrong[:10]


def test_the_tables_sizes_are_counted_by_hand():
    # standard: unchanged, 28,237 moves + pass + 4 bids
    assert moves.NUM_ACTIONS == moves.NUM_MOVES + 5 == 28242
    # botzone's extra moves, after the bids:
    #   shuttles alone: L = 2..5 fours among 3..A: 11 + 10 + 9 + 8 = 38
    #   with 2L singles of distinct ranks (jokers too) outside the chain: L=2 C(13,4)=715 x 11 = 7,865;
    #     L=3 C(12,6)=924 x 10 = 9,240 (L=4 would be 24 cards)
    #   with 2L pairs of distinct ranks (3..2) outside the chain: L=2 C(11,4)=330 x 11 = 3,630
    #   a four with both jokers: 13
    #   airplanes with both jokers among the L wings, the other L-2 of distinct ranks: L=2 11; L=3 10 x 10 = 100;
    #     L=4 C(9,2)=36 x 9 = 324; L=5 C(8,3)=56 x 8 = 448 -> 883
    # 38 + 7,865 + 9,240 + 3,630 + 13 + 883 = 21,669
    assert moves.NUM_EXTRA == 21669
    assert moves.NUM_ACTIONS_OF == {"standard": 28242, "botzone": 28242 + 21669}
    assert (moves.ALL_TYPE[moves.NUM_MOVES : moves.NUM_ACTIONS] == -1).all()  # pass and the bids
    assert not moves.RULE_MOVES["botzone"][moves.NUM_MOVES : moves.NUM_ACTIONS].any()
    # the ids <-> moves bijection of each rule set
    for rule_set in moves.RULE_SETS:
        ids = moves.move_ids(rule_set)
        assert len(ids) == moves.RULE_MOVES[rule_set].sum()
        assert all(moves.move_ids(rule_set)[moves.move_string(m)] == m for m in list(ids.values())[::97])


def test_new_moves_counted_by_hand():
    hand = "33334444BR"
    # botzone: singles 3 4 B R (4); pairs 33 44 (2); trios (2); trio+single 333+{4,B,R}, 444+{3,B,R} (6);
    # trio+pair 333+44, 444+33 (2); airplane 333444 (1); airplane with wings 333444+BR (1); a four with two
    # singles of distinct ranks 3333+{4B,4R,BR}, 4444+{3B,3R,BR} (6); bombs 3333 4444 and the rocket (3); the
    # shuttle 33334444 (1; with wings it needs 4 more ranks) = 28
    ours = moves.legal_moves(hand, rules="botzone")
    assert len(ours) == 28
    assert {"333444+BR", "3333+BR", "4444+BR", "33334444"} <= set(ours)
    assert "3333+44" not in ours
    # standard: the same less 333444+BR, 3333+BR, 4444+BR and the shuttle, plus 3333+44 and 4444+33:
    # 28 - 4 + 2 = 26
    standard = moves.legal_moves(hand)
    assert len(standard) == 26
    assert {"3333+44", "4444+33"} <= set(standard)
    # following the shuttle 33334444 with 55556666: the bombs 5555 6666, the higher shuttle, pass = 4
    assert moves.legal_moves("55556666", "33334444", rules="botzone") == ["5555", "6666", "55556666", "pass"]
    # a shuttle with pair wings follows only a shuttle with pair wings of a lower chain
    assert "44445555+7788TTKK" in moves.legal_moves("444455557788TTKK", "33334444+55667788", rules="botzone")
    assert "44445555+7788TTKK" not in moves.legal_moves("444455557788TTKK", "33334444+5678", rules="botzone")


@pytest.mark.parametrize(
    ("cards", "standard", "botzone"),
    [
        ("444455557788TTKK", None, ("shuttle+pairs", "4", 2)),
        ("KKKAAATT", ("airplane+singles", "K", 2), None),
        ("333355", ("four+two_singles", "3", 1), None),
        ("33344455", ("airplane+singles", "3", 2), None),
        ("3334445556667778", ("airplane+singles", "3", 4), None),  # 333444555666+7778 or 444555666777+3338
        ("333444555666", ("airplane", "3", 4), ("airplane", "3", 4)),
        ("3333BR", None, ("four+two_singles", "3", 1)),
        ("333444BR", None, ("airplane+singles", "3", 2)),
        ("AAAA2222", None, None),
        ("3333444456", None, None),  # Botzone's older judge's L wings: not FightTheLandlord2's
    ],
)
def test_the_listed_differences(cards, standard, botzone):
    assert moves.classify(cards) == standard
    assert moves.classify(cards, "botzone") == botzone


def test_bad_rule_set_is_a_clear_error():
    with pytest.raises(ValueError, match="rule sets are 'standard' and 'botzone'"):
        moves.legal_moves("33", rules="botzon")
    with pytest.raises(ValueError, match="rules"):
        cardenvs.make("doudizhu_v0", rules="Botzone")


def _deck(first: str, second: str) -> list[str]:
    """A stacked deck: the first two hands (17 cards each, from the first bidder), then the rest of the cards in
    id order (the third hand, then the kitty)."""
    order: list[int] = []
    for hand in (first, second):
        for r, c in enumerate(moves.counts_of(hand)):
            order += [int(i) for i in np.flatnonzero(moves.RANK_OF_CARD[:54] == r) if i not in order][:c]
    assert len(order) == 34
    return [card_code(c) for c in order + [c for c in range(54) if c not in order]]


def _shuttle_table():
    """A botzone-rules table whose landlord (seat 0) holds the shuttle 33334444 and leads."""
    env = cardenvs.make("doudizhu_v0", rules="botzone", bidding=False)
    env.reset(
        seed=0,
        options={"deck": _deck("33334444556677889", "999TTTTJJJJQKA2BR"), "first_bidder": 0, "landlord": 0, "bid": 1},
    )
    return env


def test_an_env_plays_a_shuttle_and_its_observation_shows_it():
    env = _shuttle_table()
    base = env.unwrapped
    assert base.action_space("player_0").n == moves.NUM_ALL
    shuttle = moves.move_ids("botzone")["33334444+5678"]
    assert shuttle >= moves.NUM_ACTIONS  # after the bids
    for field in ("last_move", "hist_move"):  # the state's move fields hold every id
        assert np.iinfo(rules.STATE.fields[field][0].base).max >= moves.NUM_ALL
    assert base.observe("player_0")["action_mask"][shuttle]
    env.step(shuttle)
    assert base.state.last_move == shuttle
    obs = base.observe("player_1")
    parts = base.layout.decode(obs["observation"])
    assert parts["to_beat_type"].sum() == 0  # a shuttle sets none of the 14 types
    assert parts["to_beat_main"].argmax() == 0 and parts["to_beat"].sum() == 12
    # player_1 (999TTTTJJJJQKA2BR) follows with TTTTJJJJ and 4 singles of distinct ranks among 9 Q K A 2 B R:
    # C(7,4) = 35; the bombs TTTT, JJJJ and the rocket (3); pass (1) = 39
    legal = [moves.move_string(int(m)) for m in np.flatnonzero(obs["action_mask"])]
    assert len(legal) == 39 and "TTTTJJJJ+QKBR" in legal and "TTTTJJJJ+99QK" not in legal
    assert base.parse_action("TTTTJJJJQKBR") == moves.move_ids("botzone")["TTTTJJJJ+QKBR"]


def test_the_heuristic_and_the_vector_env_play_the_botzone_rules():
    results = run_tournament(
        "doudizhu_v0", ["doudizhu.rule", "doudizhu.rule", "random"], games=2, seed=5, options={"rules": "botzone"}
    )
    assert len(results.records) == 12 and not results.faults()  # 2 deals x 6 seatings
    env = vector.make("doudizhu_v0", 4, learner=0, opponents=["doudizhu.rule"], rules="botzone")
    env.reset(seed=1)
    rng = np.random.default_rng(0)
    for _ in range(30):
        masks = env.action_masks()
        assert masks.shape == (4, moves.NUM_ALL)
        env.step(np.array([rng.choice(np.flatnonzero(row)) for row in masks]))


def test_a_botzone_bot_plays_a_table_under_the_botzone_rules():
    results = run_tournament(
        "doudizhu_v0",
        [BOT, "doudizhu.rule", "random"],
        games=1,
        seed=3,
        options={"rules": "botzone", "bidding": True},
        role_phase=True,
        engine="aec",
    )
    assert len(results.records) == 6 and not results.faults()
    assert any(r.steps > 20 for r in results.records)


def test_botzone_answers_read_under_the_botzone_rules():
    env = _shuttle_table()
    base = env.unwrapped
    speaker = botzone.Protocol(base)
    observation = base.observe(base.agent_selection)
    own = json.loads(speaker.request(0, observation))["requests"][0]["own"]
    answer = [b for b in own if botzone.BOTZONE_RANK[b] < 2]  # 3333 4444
    answer += [next(b for b in own if botzone.BOTZONE_RANK[b] == r) for r in (2, 3, 4, 5)]  # 5 6 7 8
    assert moves.move_string(speaker.action(json.dumps({"response": answer}), observation)) == "33334444+5678"
    assert botzone.botzone_only(moves.counts_of("33334444"), "botzone") == ""
    assert "space shuttle" in botzone.botzone_only(moves.counts_of("33334444"))
    assert "both jokers" in botzone.botzone_only(moves.counts_of("3333BR"))


def test_the_standard_params_are_the_old_tables():
    """The standard rule set walks exactly the old groups: same ids, same order (the hash tests check play)."""
    p = rules.make_params(True, np.zeros(rules.NUM_SEGMENTS, dtype=np.int64))[0]
    n = len(moves.GROUP_START)
    assert (p["group_start"][:n] == moves.GROUP_START).all() and (p["group_start"][n:] == -1).all()
    assert (p["group_end"][:n] == moves.GROUP_END).all()
    rows, width = moves.TL_GROUPS.shape
    assert (p["tl_groups"][:rows, :width] == moves.TL_GROUPS).all() and (p["tl_groups"][:, width:] == -1).all()
    botzone = moves.RULE_TABLES["botzone"]
    covered = np.concatenate([np.arange(a, b) for a, b in zip(botzone.group_start, botzone.group_end, strict=True)])
    np.testing.assert_array_equal(covered, np.flatnonzero(moves.RULE_MOVES["botzone"]))  # every move, once


def test_the_model_refuses_the_botzone_rules_with_a_clear_error():
    """The shipped model has move features for the standard actions only."""
    from cardenvs.agent import load_agent

    with pytest.raises(ValueError, match="'rules': 'botzone'.* has 49911"):
        load_agent("doudizhu.dmc", cardenvs.make("doudizhu_v0", rules="botzone").unwrapped)


def _reference_legal(hand: np.ndarray, last: int, rule_set: str) -> np.ndarray:
    """Every move of the rule set the hand holds that may follow ``last``, by brute force over the table."""
    fits = (moves.ALL_COUNTS <= hand).all(axis=1) & moves.RULE_MOVES[rule_set]
    if last < 0:
        return np.flatnonzero(fits)
    t, lt = moves.ALL_TYPE, moves.ALL_TYPE[last]
    higher = moves.ALL_MAIN > moves.ALL_MAIN[last]
    same = (t == lt) & (moves.ALL_LENGTH == moves.ALL_LENGTH[last]) & higher
    bomb = (t == moves.BOMB) & ((lt != moves.BOMB) | higher)
    beats = (same | bomb | (t == moves.ROCKET)) & (lt != moves.ROCKET)
    return np.flatnonzero(fits & beats)


@pytest.mark.parametrize("rule_set", moves.RULE_SETS)
def test_the_generator_lists_exactly_the_legal_moves_in_order(rule_set):
    """Random 20-card hands against random moves of the rule set: the generator's ids, ascending, are the
    brute-force list."""
    rng = np.random.default_rng(7)
    allowed = np.flatnonzero(moves.RULE_MOVES[rule_set])
    for k in range(60):
        cards = np.zeros(54, dtype=np.int8)
        cards[rng.choice(54, 20, replace=False)] = 1
        hand = np.bincount(moves.RANK_OF_CARD[np.flatnonzero(cards)], minlength=15)
        last = -1 if k % 3 == 0 else int(rng.choice(allowed))
        ids = np.empty(moves.NUM_ALL, dtype=np.int64)
        table = moves.RULE_TABLES[rule_set]
        n = moves.collect_moves(
            encoding.planes_bits(hand.astype(np.int8), 15, 4),
            last,
            ids,
            moves.ALL_NEED,
            moves.ALL_MAIN_NEED,
            moves.ALL_TYPE,
            moves.ALL_MAIN,
            moves.ALL_LENGTH,
            *table,
        )
        np.testing.assert_array_equal(ids[:n], _reference_legal(hand, last, rule_set))


@pytest.mark.parametrize(("rule_set", "dead"), [("standard", True), ("botzone", False)])
def test_when_nobody_bids(rule_set, dead):
    """Botzone's judge makes its seat 0 (the first bidder) landlord at bid 1 when all three pass; the standard
    rules end a dead hand."""
    env = cardenvs.make("doudizhu_v0", rules=rule_set)
    env.reset(seed=2)
    base = env.unwrapped
    first = int(base.state.first_bidder)
    for _ in range(3):
        env.step(moves.BID_PASS)
    assert bool(base.state.dead) == dead
    if not dead:
        assert (int(base.state.landlord), int(base.state.bid)) == (first, 1)
        assert base.agent_selection == f"player_{first}" and base.state.counts[first].sum() == 20
