"""The Guandan competition platform's WebSocket protocol: ``gdws:COMMAND`` runs a bot written for the 1st
National GuanDan AI Competition's table server (DanZero's clients, the released competition bots) or for
OpenGuanDan's server (``dialect=openguandan``) unchanged in ``guandan_v0``. :data:`cardenvs.games.guandan.SPEC`
declares it as ``program_protocols={"gdws": ...}``; the transport, the sandbox, the limits and the faults are
:class:`cardenvs.agent.websocket.WebSocketAgent`'s, this module writes the messages and reads the answers.

Why ``gdws``: ``gd`` is how the platform itself names the game (its URLs ``/game/gd/...``, the bots' ``gd_``
files) and ``ws`` its transport; a short kind name that says both, as ``botzone:`` says its platform.

## The protocol as this module speaks it, and where each part was verified

* Connection (a bot is a WebSocket client of the table server): the competition's bots connect to
  ``ws://127.0.0.1:23456/game/client{seat}``, the seat in the path, one program per seat (DanZero's evaluation
  clients ``wintest/ai1/client0.py`` .. ``client3.py`` and ``wintest/danzero/client0.py`` of
  submit-paper/Danzero_plus; the baseline ``fin-njupt-guandan-ai/lxw/rule_client.py`` of dashidhy/DanLM). The
  address is written in their code, so ``{seat}``, ``{port}`` and ``{url}`` in the command are only for bots
  that take them; the port the bot reaches in its sandbox is 23456 (``port=`` to change it). OpenGuanDan's
  server listens on 8181 (its README, section 2) and seats a client by a ``CREATE_ROOM`` / ``JOIN_ROOM``
  message; with ``dialect=openguandan`` the port is 8181, the bot's first message must be one of those, and it
  is answered (``code`` 200, ``roomId`` 1) before the game's messages, whatever seat it asks: the seat is the
  arena's.
* Messages, JSON objects with ``type`` (``notify`` or ``act``) and ``stage`` (verified in the competition bots'
  ``state.py``, whose ``parse`` raises on any other pair, so only these are sent; in OpenGuanDan's README,
  sections 4-5, and its Python port of the server ``guandan-java/engine/table.py`` and ``types.py``):
  ``beginning`` (``handCards`` as dealt, before any tribute, ``myPos``, ``curRank``, ``selfRank``,
  ``oppoRank``); ``play`` (``curPos``, ``curAction``, ``greaterPos``, ``greaterAction``: each play and pass,
  to every seat); ``tribute`` (``result``: ``[giver, receiver, card]``, once every payer has paid);
  ``anti-tribute`` (``antiNum``, as the server's code spells it, and ``antiNums``, as its README does;
  ``antiPos``: the payers); ``back`` (``result``: ``[returner, receiver, card]``, once every return is made);
  ``episodeOver`` (``order``: the finishing order, the seats still holding cards after the out ones in seat
  order; ``curRank``: the hand's level; ``restCards``: always ``[]`` where the platform lists the cards left
  in each hand: our rules never show another seat's hidden cards, and the bots read here only print them); and
  at the end of a match (``episode="match"``) ``gameOver`` (``curTimes`` 1, ``settingTimes`` 1) and ``gameResult``
  (``victoryNum``: 1 for each seat of the winning team, ``draws``: 1 for every seat of a truncated match).
  A question is ``type: act`` with ``stage`` ``play``, ``tribute`` or ``back``: ``handCards``, ``publicInfo``
  (``rest`` and ``playArea``, each seat's last action of the hand or null, read by the bots' ``act_play``),
  ``selfRank``, ``oppoRank``, ``curRank``, ``curPos`` and ``curAction`` (the last action of the trick; -1 and
  null when leading), ``greaterPos`` and ``greaterAction`` (the play to beat; -1 and null when leading),
  ``actionList`` and ``indexRange`` (its last index); a return adds ``tributePos`` and ``tribute`` (the payer
  and the card received). The notifications since a bot's last question are sent just before its next one
  (the bots keep state from them; none of them answers a notification); a game's end is sent when the next
  game starts or the table ends.
* Cards and moves (verified against OpenGuanDan's move generator, ``guandan-java-action.jar``, run here):
  cards ``S2`` .. ``DA`` (suit then rank, ``T`` for ten), ``SB`` the black joker, ``HR`` the red one; a move
  ``[type, rank, cards]`` with the types ``Single``, ``Pair``, ``Trips``, ``ThreeWithTwo`` (rank: the triple's),
  ``Straight``, ``ThreePair``, ``TwoTrips`` and ``StraightFlush`` (rank: the lowest card, ``A`` for A-2-3-4-5),
  ``Bomb``, ``PASS`` (``["PASS", "PASS", "PASS"]``), ``tribute`` and ``back`` (``["tribute", "tribute",
  ["S2"]]``); wild cards are listed as themselves (``["Pair", "A", ["H9", "HA"]]`` at level 9), level cards
  keep their rank. The four jokers are ``["Bomb", "JOKER", ...]`` on the competition's platform (its bots test
  ``rank == "JOKER"``: ``wintest/ai2/config.py``, ``ai3/message_Reyn_CUR.py``) and ``["FourKings", "B", ...]``
  on OpenGuanDan's (its jar). When following, the pass is ``actionList[0]`` (the competition's bots return 0
  to pass and search ``actionList[1:]``, ``wintest/ai1/action.py``).
* Answers, both forms accepted: ``{"actIndex": i}`` (the competition's) with ``0 <= i <= indexRange``, or the
  move itself (OpenGuanDan's ``PLAY``, ``TRIBUTE``, ``PAYTRIBUTE`` messages, ``{"type": ..., "data": {"act":
  [...]}}``, or ``{"act": [...]}``, or the bare ``[type, rank, cards]``): it must be an entry of
  ``actionList``, its cards in any order.

## Where the platform and our rules differ, and what happens

* The list of moves is this game's (:mod:`.moves`): a bot can only choose among them, so a move of the
  platform's rules that ours lack is never offered, and one answered anyway (a move not in the list) is an
  ``illegal`` fault, as is an index outside the list; an answer that is not JSON, or no move, is ``garbage``.
* Measured against OpenGuanDan's move generator (``benchmarks/gdws_moves_check.py``, its jar run on the same
  hand, level and play to beat at every play decision of 30 random hands): the move sets are equal at 3,795 of
  3,807 decisions (99.7%). The rest are two readings. (1) Five in a row whose natural cards are of one suit
  with a wild (``S4 S5 S6 S8`` and the level's heart): the platform lists it as a straight flush and also as a
  straight (the wild keeping its own suit); here it is a straight flush only (rule 11), and with
  ``sf_as_straight=True`` every straight flush is also a straight, natural ones included, which the platform
  does not list (the same 30 hands: 3,790 equal). (2) A natural triple with both wilds: a five-bomb on both
  sides, and also a full house here (R15), not on the platform. A bot never sees the platform-only moves
  (they are not in our list); it may play our extra readings.
* Readings: a card set with two readings here (``8S 8D 9S 9D 2H`` at level 2: full house of 8s or of 9s) is
  two entries, as the platform lists them; identical entries are listed once.
* Wild cards: the platform's and ours agree (the level's hearts stand for any card but a joker); our
  ``wilds=False`` has no platform counterpart: the bots are told the level as usual and their lists hold no
  wild play.
* Tribute: the platform pays the highest card and lists one entry per suit (its ``max_cards``), resists when
  the payers hold both red jokers (``anti-tribute``) and gives a double's higher card to the first finisher,
  as here. The return: the platform's limit is a card of 10 or less not of the level rank (its
  ``less_than_ten``); here ``return_rule`` decides (``max10``, the default, is the platform's), and the
  list is ours.
* Who leads, 接风 and the end of a hand follow our rules (:mod:`.rules`); the messages describe what happened.
* The A level: the platform's match ends at A as ours (``a_win="not_last"``: 1-2 or 1-3); a team that fails at
  A three times goes back to 2 here (``a_attempts``), where OpenGuanDan's server also goes back after 3; the
  bots read ``selfRank``/``oppoRank`` whatever they are.
* Timing: the platform gives no per-move limit to its clients; ``move_ms`` (default 5,000) and ``start_ms``
  (default 30,000, loading a model) are this arena's.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cardenvs.core.cards import RANKS, SUITS

from . import moves, rules

#: the platform's card names by our card id
CARD_NAMES = tuple(SUITS[c % 4] + RANKS[c // 4] for c in range(52)) + ("SB", "HR")
CARD_IDS = {name: i for i, name in enumerate(CARD_NAMES)}
TYPE_NAMES = {
    moves.SINGLE: "Single",
    moves.PAIR: "Pair",
    moves.TRIPLE: "Trips",
    moves.FULLHOUSE: "ThreeWithTwo",
    moves.STRAIGHT: "Straight",
    moves.TUBE: "ThreePair",
    moves.PLATE: "TwoTrips",
    moves.BOMB: "Bomb",
    moves.STRAIGHT_FLUSH: "StraightFlush",
}
#: a sequence's length in distinct ranks: its platform rank is its lowest
SPAN = {moves.STRAIGHT: 5, moves.STRAIGHT_FLUSH: 5, moves.TUBE: 3, moves.PLATE: 2}
RANK_NAMES = RANKS + "BR"  # rank index 0..14 as the platform writes a move's rank
DIALECTS = {"competition": 23456, "openguandan": 8181}  # and each one's port
PASS_MOVE = ["PASS", "PASS", "PASS"]
ROOM_MESSAGES = ("CREATE_ROOM", "JOIN_ROOM")


class PlatformError(ValueError):
    """An answer that cannot be played: ``kind`` is the fault (``"garbage"`` or ``"illegal"``)."""

    def __init__(self, kind: str, text: str):
        super().__init__(text)
        self.kind = kind


def card_names(cards: Any) -> list[str]:
    """Card ids (copies repeated) as the platform's names, in our card order."""
    return [CARD_NAMES[int(c)] for c in sorted(int(c) for c in cards)]


def hand_names(counts: np.ndarray) -> list[str]:
    """A 54-count hand as the platform's names."""
    return card_names(np.repeat(np.arange(54), np.asarray(counts[:54], dtype=np.int64)))


def platform_move(pid: int, cards: Any, level: int, dialect: str = "competition") -> list:
    """Our play (pattern id, card ids) as the platform's ``[type, rank, cards]``; the pass as ``PASS_MOVE``."""
    if pid == moves.PASS:
        return list(PASS_MOVE)
    kind, key = int(moves.PAT_KIND[pid]), int(moves.PAT_KEY[pid])
    names = card_names(cards)
    if kind == moves.JOKERS:
        return ["FourKings", "B", names] if dialect == "openguandan" else ["Bomb", "JOKER", names]
    if key == moves.LEVEL_KEY:  # wilds alone: level cards
        rank = RANKS[level]
    elif kind in SPAN:
        low = key - SPAN[kind] + 1
        rank = "A" if low < 0 else RANKS[low]
    else:
        rank = RANK_NAMES[key]
    return [TYPE_NAMES[kind], rank, names]


def legal_plays(hand: np.ndarray, mask: np.ndarray, level: int, flags: int) -> list[tuple[int, tuple[int, ...]]]:
    """Every legal play of a play decision as (pattern id, card ids): the pass first when allowed (as the
    platform lists it), then each pattern the mask allows with every choice of suits
    (:func:`moves.plays_of_patterns`)."""
    out: list[tuple[int, tuple[int, ...]]] = [(moves.PASS, ())] if mask[moves.PASS] else []
    return out + moves.plays_of_patterns(hand, np.flatnonzero(mask[: moves.NUM_PATTERNS]), level, flags)


def question_moves(
    state: Any, mask: np.ndarray, flags: int, dialect: str = "competition"
) -> tuple[str, list[list], list[tuple[int, tuple[int, ...]]]]:
    """The stage, the ``actionList`` and the (action, cards) of each entry of a decision in ``state`` (one
    game's record, not a pending play's suit decision); identical entries are listed once."""
    level = int(state["hand_level"])
    if state["phase"] in (rules.PAY, rules.RETURN):
        stage, word = ("tribute", "tribute") if state["phase"] == rules.PAY else ("back", "back")
        options: list[tuple[int, tuple[int, ...]]] = [
            (int(a), (int(a) - moves.CARD0,)) for a in np.flatnonzero(mask) if moves.CARD0 <= a < moves.SUIT0
        ]
        return stage, [[word, word, [CARD_NAMES[c[0]]]] for _, c in options], options
    listed: list[list] = []
    kept: list[tuple[int, tuple[int, ...]]] = []
    seen: set[str] = set()
    for pid, cards in legal_plays(state["hands"][int(state["to_move"])], mask, level, flags):
        move = platform_move(pid, cards, level, dialect)
        key = json.dumps(move)
        if key not in seen:
            seen.add(key)
            listed.append(move)
            kept.append((pid, cards))
    return "play", listed, kept


@dataclass
class SeatMemory:
    """What one seat's program has been told: the game replayed up to ``index`` of the env's moves, each seat's
    last action of the hand, the trick's last action, the messages not yet sent, the play it chose."""

    shadow: np.ndarray
    index: int = 0
    area: list = field(default_factory=lambda: [None] * 4)
    last: tuple[int, Any] = (-1, None)
    outbox: list[dict] = field(default_factory=list)
    plan: tuple[int, tuple[int, ...]] | None = None
    question: tuple[str, list[list], list[tuple[int, tuple[int, ...]]]] | None = None
    over: bool = False


class Protocol:
    """The platform's messages for each seat's program and its answers as this game's actions (module
    docstring); :class:`cardenvs.agent.websocket.WebSocketAgent` calls it."""

    PARAMETERS: dict[str, tuple[type, Any, str]] = {
        "dialect": (
            str,
            "competition",
            "the server the bot was written for: competition (the 1st National GuanDan AI Competition's, DanZero's "
            "clients) or openguandan",
        ),
    }
    transport = "websocket"

    def __init__(self, env: Any, dialect: str = "competition"):
        if dialect not in DIALECTS:
            raise ValueError(f"dialect={dialect!r}: the platforms known are {', '.join(DIALECTS)}")
        self.env = getattr(env, "unwrapped", env)
        if self.env.metadata.get("name") != "guandan_v0":
            raise ValueError(f"the Guandan platform protocol plays guandan_v0, not {self.env.metadata.get('name')}")
        self.dialect = dialect
        self.port = DIALECTS[dialect]
        self.greeting = dialect == "openguandan"  # its bots ask for a room before the game starts
        self.flags = rules.move_flags(self.env.config)
        self.match = self.env.config["episode"] == "match"
        self.memories: dict[int, SeatMemory] = {}

    def url(self, seat: int, port: int) -> str:
        """The address a bot of this dialect connects to for ``seat``."""
        if self.dialect == "openguandan":
            return f"ws://127.0.0.1:{port}"
        return f"ws://127.0.0.1:{port}/game/client{seat}"

    def reset(self) -> None:
        """A new game: every seat's memory is forgotten."""
        self.memories = {}

    def forget(self, seat: int) -> None:
        """The seat's program is started again: it is sent the game from its start."""
        self.memories.pop(seat, None)

    # ------------------------------------------------------------------ the game as messages
    def _catch_up(self, seat: int, fresh: bool = False) -> SeatMemory:
        """Replay the env's moves since the seat's last look on its copy of the game, queueing the messages."""
        _, states, params, _ = self.env.core_state()
        memory = self.memories.get(seat)
        if memory is not None and memory.index > len(self.env.actions_taken):
            memory = None  # another game started without a reset(): this one is told from its start
        if memory is None:
            shadow = np.zeros(1, dtype=states.dtype)
            rules.init(shadow, 0, params, states[0]["deal_seed"])
            memory = self.memories[seat] = SeatMemory(shadow)
            self._hand_start(memory, seat)
        taken = self.env.actions_taken
        for p, a in taken[memory.index :]:
            before = memory.shadow[0].copy()
            rules.apply(memory.shadow, 0, params, a)
            self._events(memory, seat, before, int(p), int(a))
        memory.index = len(taken)
        if not np.array_equal(memory.shadow[0]["hands"], states[0]["hands"]) and not fresh:
            self.memories.pop(seat)  # not the game it was told (a new one without a reset()): from its start
            return self._catch_up(seat, fresh=True)
        return memory

    def _hand_start(self, memory: SeatMemory, seat: int) -> None:
        s = memory.shadow[0]
        memory.area = [None] * 4
        memory.last = (-1, None)
        memory.outbox.append(
            {
                "type": "notify",
                "stage": "beginning",
                "handCards": hand_names(s["hands"][seat]),
                "myPos": seat,
                **self._ranks(s, seat),
            }
        )
        if s["resisted"]:
            payers = [int(q) for q in s["payers"][: int(s["n_payers"])]]
            memory.outbox.append(
                {"type": "notify", "stage": "anti-tribute", "antiNum": len(payers), "antiNums": len(payers)}
                | {"antiPos": payers}
            )

    @staticmethod
    def _ranks(s: Any, seat: int) -> dict[str, str]:
        levels = s["levels"]
        return {
            "curRank": RANKS[int(s["hand_level"])],
            "selfRank": RANKS[int(levels[seat % 2])],
            "oppoRank": RANKS[int(levels[1 - seat % 2])],
        }

    def _hist_move(self, s: Any, i: int) -> list:
        cards = [int(c) for c in s["hist_cards"][i] if c >= 0]
        return platform_move(int(s["hist_pid"][i]), cards, int(s["hand_level"]), self.dialect)

    def _events(self, memory: SeatMemory, seat: int, before: Any, p: int, a: int) -> None:
        """The messages of move ``a`` by seat ``p`` (``before``: the game before it, the copy after it)."""
        after = memory.shadow[0]
        out = memory.outbox
        if before["phase"] == rules.PAY:
            if after["tribute_shown"] and not before["tribute_shown"]:
                result = []
                for j in range(int(after["n_payers"])):
                    giver = int(after["return_to"][j])
                    i = [int(q) for q in after["payers"]].index(giver)
                    result.append([giver, int(after["return_seats"][j]), CARD_NAMES[int(after["paid"][i])]])
                out.append({"type": "notify", "stage": "tribute", "result": result})
            return
        if before["phase"] == rules.RETURN:
            if after["returns_shown"] and not before["returns_shown"]:
                result = [
                    [int(after["return_seats"][j]), int(after["return_to"][j]), CARD_NAMES[int(after["returned"][j])]]
                    for j in range(int(after["n_payers"]))
                ]
                out.append({"type": "notify", "stage": "back", "result": result})
            return
        level = int(before["hand_level"])
        hand_over = after["hands_played"] != before["hands_played"] or after["status"] != 0
        if a == moves.PASS:
            greater = int(before["last_player"])
            move = self._hist_move(before, int(before["last_play"]))
            memory.area[p] = list(PASS_MOVE)
            memory.last = (p, list(PASS_MOVE))
            out.append(self._play_notice(p, list(PASS_MOVE), greater, move))
            return
        if after["pending"] >= 0 and not hand_over:
            return  # a play still being chosen: nothing is shown yet
        pid = a if a < moves.NUM_PATTERNS else int(before["pending"])
        if hand_over:  # the hand's last play empties its player's hand
            cards = [int(c) for c in np.repeat(np.arange(54), before["hands"][p])]
        else:
            cards = [int(c) for c in after["hist_cards"][int(before["n_hist"])] if c >= 0]
        move = platform_move(pid, cards, level, self.dialect)
        memory.area[p] = move
        memory.last = (p, move)
        out.append(self._play_notice(p, move, p, move))
        if not hand_over:
            return
        order = [int(q) for q in before["out_order"][: int(before["n_out"])]] + [p]
        rest = [q for q in range(4) if q not in order]
        out.append(
            {
                "type": "notify",
                "stage": "episodeOver",
                "order": order + rest,
                "curRank": RANKS[level],
                "restCards": [],  # the cards left in other hands stay hidden (module docstring)
            }
        )
        if after["status"] != 0:
            memory.over = True
            if self.match:
                out.append({"type": "notify", "stage": "gameOver", "curTimes": 1, "settingTimes": 1})
                winner = int(after["match_winner"])
                wins = [int(winner >= 0 and q % 2 == winner) for q in range(4)]
                draws = [int(winner < 0)] * 4
                out.append({"type": "notify", "stage": "gameResult", "victoryNum": wins, "draws": draws})
            return
        self._hand_start(memory, seat)

    @staticmethod
    def _play_notice(p: int, move: list, greater: int, greater_move: list) -> dict:
        return {
            "type": "notify",
            "stage": "play",
            "curPos": p,
            "curAction": move,
            "greaterPos": greater,
            "greaterAction": greater_move,
        }

    # ------------------------------------------------------------------ the agent's calls
    def request(self, seat: int, observation: dict) -> list[str] | int | None:
        """The messages due to ``seat``'s program with its question last; the action itself for a suit
        decision of a play it chose (None where it did not choose one: a fallback's play)."""
        memory = self._catch_up(seat)
        s = self.env.core_state()[1][0]
        mask = np.asarray(observation["action_mask"], dtype=bool)
        if s["phase"] == rules.PLAY and s["pending"] >= 0:
            return self._suit(memory, s, mask)
        memory.plan = None
        stage, listed, options = question_moves(s, mask, self.flags, self.dialect)
        memory.question = (stage, listed, options)
        message: dict[str, Any] = {"type": "act", "stage": stage, "handCards": hand_names(s["hands"][seat])}
        message["publicInfo"] = [{"rest": int(s["n_cards"][q]), "playArea": memory.area[q]} for q in range(4)]
        message.update(self._ranks(s, seat))
        if stage == "play" and s["last_pid"] >= 0:
            message.update(curPos=memory.last[0], curAction=memory.last[1])
            message.update(greaterPos=int(s["last_player"]), greaterAction=self._hist_move(s, int(s["last_play"])))
        else:
            message.update(curPos=-1, curAction=None, greaterPos=-1, greaterAction=None)
        if stage == "back":
            payer = int(s["return_to"][int(s["n_returned"])])
            i = [int(q) for q in s["payers"]].index(payer)
            message.update(tributePos=payer, tribute=CARD_NAMES[int(s["paid"][i])])
        message.update(actionList=listed, indexRange=len(listed) - 1)
        lines = [json.dumps(m, separators=(",", ":")) for m in memory.outbox + [message]]
        memory.outbox = []
        return lines

    def _suit(self, memory: SeatMemory, s: Any, mask: np.ndarray) -> int | None:
        if memory.plan is None or memory.plan[0] != int(s["pending"]):
            return None
        target = np.bincount(np.asarray(memory.plan[1], dtype=np.int64), minlength=54)
        for a in np.flatnonzero(mask):
            chosen = s["chosen"].copy()
            moves.apply_suit_choice(int(s["pending"]), int(s["hand_level"]), self.flags, chosen, int(a) - moves.SUIT0)
            if (chosen <= target).all():
                return int(a)
        return None

    def answer(self, seat: int, text: str, observation: dict) -> int:
        """The action of the program's answer to its last question; :class:`PlatformError` otherwise."""
        memory = self.memories[seat]
        assert memory.question is not None
        stage, listed, options = memory.question
        try:
            value = json.loads(text)
        except ValueError:
            raise PlatformError("garbage", f"not JSON: {text.strip()[:80]!r}") from None
        if isinstance(value, dict) and "actIndex" in value:
            index = value["actIndex"]
            if isinstance(index, bool) or not isinstance(index, int):
                raise PlatformError("garbage", f"actIndex is {json.dumps(index)[:40]}, not an integer")
            if not 0 <= index < len(listed):
                raise PlatformError("illegal", f"actIndex {index} is out of range (indexRange {len(listed) - 1})")
        else:
            index = self._find(value, listed)
        action, cards = options[index]
        memory.plan = (action, cards) if stage == "play" and action != moves.PASS else None
        return action

    @staticmethod
    def _find(value: Any, listed: list[list]) -> int:
        move = value
        if isinstance(value, dict):
            data = value.get("data")
            move = data.get("act") if isinstance(data, dict) and "act" in data else value.get("act")
        if not (
            isinstance(move, list)
            and len(move) == 3
            and all(isinstance(x, str) for x in move[:2])
            and (isinstance(move[2], list) and all(isinstance(c, str) for c in move[2]) or move[2] == "PASS")
        ):
            raise PlatformError(
                "garbage", f"neither {{'actIndex': i}} nor a move [type, rank, cards]: {str(value)[:80]}"
            )
        for i, entry in enumerate(listed):
            same_cards = entry[2] == move[2] if isinstance(entry[2], str) else sorted(entry[2]) == sorted(move[2])
            if entry[0] == move[0] and entry[1] == move[1] and same_cards:
                return i
        raise PlatformError("illegal", f"{json.dumps(move)[:80]} is not a move here (not in actionList)")

    def side_reply(self, text: str) -> str | None:
        """The reply to a message that answers no question: OpenGuanDan's room requests (module docstring)."""
        try:
            value = json.loads(text)
        except ValueError:
            return None
        if isinstance(value, dict) and value.get("type") in ROOM_MESSAGES:
            reply = {"type": value["type"], "code": 200, "data": {"roomId": 1, "userNum": 0}}
            return json.dumps(reply, separators=(",", ":"))
        return None

    def finish(self, seat: int) -> list[str]:
        """The messages that end the game for ``seat``'s program (the moves it has not been told of, the end of
        the hand and of the match)."""
        if seat not in self.memories:
            return []
        if self.memories[seat].index > len(self.env.actions_taken):
            return []  # the env was reset already: nothing more is known of that game
        memory = self._catch_up(seat)
        lines = [json.dumps(m, separators=(",", ":")) for m in memory.outbox]
        memory.outbox = []
        return lines
