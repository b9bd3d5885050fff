"""Botzone's Fight the Landlord protocol: ``botzone:COMMAND`` runs a program written for Botzone's
``FightTheLandlord2`` (with bidding, the default) or ``FightTheLandlord`` (the landlord fixed;
``botzone:COMMAND(game=FightTheLandlord)``) unchanged in this game (:data:`cardenvs.games.doudizhu.SPEC`
declares it as ``program_protocols={"botzone": ...}``; the process, limits and faults are
:class:`cardenvs.agent.program.ProtocolAgent`'s).

The protocol as this module speaks it, and where each part was verified. The source for the runner's side is
the code of Botzone's own local runner, the ``ailab-pku/botzone-local`` repository (its ``botzone/online/bot.py``
builds the bot's input and reads its output, ``sandbox.py`` runs the program, ``compiler.py`` holds the limits
of each language, ``game.py`` resets the bots at every game); the program's side is also in the Bot page of
Botzone's wiki (as stored: its translation units ``Bot/35``, ``Bot/37`` and ``Bot/97``) and in sample bots.

* Botzone's JSON interaction, the only one its two Fight the Landlord games offer (the runner's game table says
  neither supports the "simple interaction", a text format). A turn's input is one line, ``{"requests": [...],
  "responses": [...]}``: every request this seat was sent in the game and its own earlier responses, with
  ``"data"`` and ``"globaldata"`` when they are set (below; the wiki also lists ``time_limit`` and
  ``memory_limit``, which the runner does not send and neither does this module). The turn's output is
  everything the program writes until it exits (or writes the keep-running line, below), read as one JSON
  value as the runner reads it (``json.loads`` of the whole output): ``{"response": ..., "data": ...,
  "globaldata": ..., "debug": ...}`` or the bare response. So a second line that is not blank makes the answer
  ``garbage``, as it is not JSON to the runner. The program's input is closed after the line unless the
  program may keep running (``keep_running``), so a bot that reads its input to the end needs
  ``keep_running=false`` (on Botzone too, keep-running is a setting of the bot).
* ``data`` and ``globaldata``, as the runner keeps them (verified line by line in ``bot.py``): an answer that is
  an object with a ``"response"`` key sets ``data`` to its ``"data"`` (none when the key is missing); any other
  answer (the bare response, or an object without ``"response"``, which is then the response) sets ``data`` to
  none; ``data`` is sent on the next turn only when it is set and not empty (JSON's ``""``, ``0``, ``[]``,
  ``{}``, ``false`` and ``null`` are not sent, as Python's ``if self.data`` decides there); a new game starts
  with none. ``globaldata`` changes only when an answer with ``"response"`` gives a non-empty one (a missing or
  empty one keeps the old), is sent under the same rule, and is kept across the games of a table (the runner
  keeps it for the bot's lifetime and writes it to a file; here it lives as long as the agent). An answer that
  is not JSON changes neither.
* Long-running mode (``keep_running``, default true): a program that writes the line
  ``>>>BOTZONE_REQUEST_KEEP_RUNNING<<<`` (alone on its line, after its answer; it must flush its output, or the
  line never arrives) is not stopped: its answer is what it wrote before that line, and from its next turn on
  it is sent only that turn's request, as one line of JSON (``{"history": [...]}``; no ``requests``,
  ``responses``, ``data`` or ``globaldata``), and answers as before, with the line again to stay running.
  Verified in the runner (``bot.py`` sends ``json.dumps(request)`` alone once the program asked; ``sandbox.py``
  keeps the process and its pipes) and in the wiki (``Bot/97``: only the turn's request, no history, data or
  globaldata); the marker's spelling, on a line of its own and flushed, in public Botzone bots' code (the
  wiki's text that spells it was not among the stored pages). On Botzone keep-running is a setting of the bot
  (the runner's ``BotConfig(keep_running=False)`` by default); here it is on unless ``keep_running=false``. The
  runner ends each input to its wrapper with a line ``>>>BOTZONE_CONTROLLER_INPUT_END<<<``, which the bot is
  presumably not shown (the wrapper is not public); it is not sent here. The process
  lives for one game, as the runner kills a kept bot when a game starts (``game.py`` resets every bot, and
  ``Bot.reset`` kills the kept process). Choices: a program that is kept running and has exited when its
  next turn comes is an ``exit`` fault; after any fault, or a turn it ended by exiting, the program is started
  again at its next decision and sent the whole game, as on its first turn (the runner, once a bot asked to
  keep running, sends even a restarted one the request alone). Not verified: the runner's
  wrapper program (a binary in Botzone's Docker images, not in the repository) reads the marker; whether it
  accepts text after it on the same line is not known, and here the line must be the marker alone.
* Time limits, from the runner's table of languages (``compiler.py``; the wiki's own table was not found in the
  stored pages): a turn has 1,000 ms for C, C++ and Pascal and for binaries; 3,000 ms for Java; 6,000 ms for C#
  and Python; 2,000 ms for JavaScript; in long-running mode the later turns have 1,000, 2,000, 4,000, 4,000 and
  2,000 ms. ``language=`` picks the row (default ``cpp``: 1,000 ms a turn, as the issue asks), ``move_ms`` and
  ``keep_ms`` set them outright. The runner doubles them in its Docker containers (``CONFIG_TIME_RATIO``, to
  match the online judges' speed); Botzone's wiki counts CPU time between turns into the next turn; here a
  turn's time is wall-clock time from sending the input to the end of the answer, a process start included.
  Botzone's memory limit (256 MB for every language) is not applied: ``memory_mb`` limits the address space,
  which a Java or Node program exceeds long before its memory.
* Card ids 0..53: ``rank * 4 + suit`` for the ranks 3 4 5 6 7 8 9 10 J Q K A 2 (rank 0 is the 3), 52 the
  black joker, 53 the red one. Verified in both games' judge programs (Botzone's own, as copied into
  ``ailab-pku/botzone-local``: a card's point is ``id // 4 + 3``, plus one for 53). This game's own card ids
  are mapped rank by rank and suit by suit (:data:`TO_BOTZONE`), so a hand is the same set of cards in both.
  A play takes exactly the cards the program named (the env's ``name_cards``), so every seat's later requests,
  and the program's own responses, show those ids, as Botzone's history does.
* ``FightTheLandlord2`` (verified in its judge program): seat 0 bids first; a bid request is
  ``{"own": [17 ids], "bid": [the earlier bids]}`` (a program learns its seat from how many bids it sees),
  answered by 0 (no bid) or a bid higher than the bids so far, at most 3; a 3 ends the bidding. A seat's
  first request of the play is ``{"own": [its 17 dealt ids, the bottom cards not among them even for the
  landlord], "publiccard": [3 ids], "landlord": seat, "pos": its own seat, "finalbid": the bid, "history":
  ...}``, every later one ``{"history": [[the cards of the seat two before it], [those of the seat before
  it]]}`` (``[]`` for a pass, or for a seat that has not played yet), answered by a list of card ids (``[]``
  passes). Here Botzone's seat 0 is this game's first bidder (seats keep their order), so a program's seat
  from the ``bid`` list is right.
* ``FightTheLandlord`` (verified in its judge program and Botzone's local env for it): no bidding; the
  landlord is seat 0 and holds 20 cards; a seat's first request is ``{"own": [its 20 or 17 ids, the
  bottom cards included], "publiccard": [3 ids], "history": ...}`` (a program learns its seat from the
  history), later ones ``{"history": ...}``. Here Botzone's seat 0 is the landlord. Choice: the bottom cards
  are also sent as ``"public"``, the key a sample bot for this game reads.
* Checked when this module was first written (the judge programs are not part of this repository or its
  tests): seeded games of the test bot and the rule agent, replayed through both judges, got from the judge
  exactly the requests this module wrote, decision by decision, and with bidding the judge's scores were this
  game's.
* Not verified: the wiki's pages of the two games (not found in the stored pages searched; the judges are the
  source above).

Where this game and Botzone's differ (``docs/bots.md`` lists them with what happens): with the option
``rules="botzone"`` (the variant ``botzone``; recommended for tables with Botzone's bots) nowhere in the
rules: its combinations, what beats what and a bidding nobody bid in (the first bidder is landlord at bid 1)
are Botzone's ``FightTheLandlord2`` judge's, checked case by case against the judge's verdicts
(``tests/data/botzone_judge_cases.json.gz``), and every card set has one reading, Botzone's; what remains is
the table's setup (who bids first, which a bot cannot tell; ``bidding=False``; ``FightTheLandlord``'s scores).
(Botzone's older ``FightTheLandlord`` judge gives a space shuttle L wings, not 2L.) With the standard rules a
response is checked against this game's rules. Cards not in the seat's hand, a repeated card, an id outside
0..53, a pass while leading, a combination this game does not have (Botzone's space shuttles, both jokers as
kickers) or one that does not beat the move on the table is an ``illegal`` fault with that reason; an answer
that is not JSON, or not a list of ids (a number while bidding), is ``garbage``. A combination the standard
rules allow and Botzone's judges do not (a four with two single kickers of one rank, airplane wings of one
rank) is played. A card set with several readings here is played as Botzone reads it (all of its trios as the
airplane), else as its strongest legal reading.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from . import moves

GAMES = ("FightTheLandlord2", "FightTheLandlord")
KEEP_RUNNING = ">>>BOTZONE_REQUEST_KEEP_RUNNING<<<"  # the line by which a program asks to stay running
#: Botzone's time limits by language, ms: (a turn, a later turn of a program kept running); the runner's table
LIMITS = {"cpp": (1000, 1000), "java": (3000, 2000), "cs": (6000, 4000), "js": (2000, 2000), "py": (6000, 4000)}
JOKERS = (52, 53)  # the black and the red joker, in this game's card ids and in Botzone's alike
#: this game's card id -> Botzone's: rank (3..2 as 0..12) * 4 + suit, the jokers 52 and 53
TO_BOTZONE = np.array(
    [int(moves.RANK_OF_CARD[c]) * 4 + c % 4 for c in range(52)] + list(JOKERS),
    dtype=np.int64,
)
FROM_BOTZONE = np.argsort(TO_BOTZONE)
#: Botzone's card id -> rank 0..14 (3 .. 2, black joker, red joker), as :mod:`.moves` counts them
BOTZONE_RANK = np.array([b // 4 for b in range(52)] + [13, 14], dtype=np.int64)


class BotzoneError(ValueError):
    """An answer that cannot be played: ``kind`` is the fault (``"garbage"`` or ``"illegal"``)."""

    def __init__(self, kind: str, text: str):
        super().__init__(text)
        self.kind = kind


def botzone_cards(flags: np.ndarray) -> list[int]:
    """The cards set in a 54-entry per-card array, as Botzone's ids, ascending."""
    return sorted(int(TO_BOTZONE[c]) for c in np.flatnonzero(flags))


def rank_string(ids: list[int]) -> str:
    """Botzone card ids as this game's ranks, low to high (``"334BR"``)."""
    return "".join(moves.RANK_CHARS[r] for r in sorted(int(BOTZONE_RANK[b]) for b in ids))


def botzone_only(counts: np.ndarray, rules: str = "standard") -> str:
    """What Botzone's judge makes of a card set that is no move of the rule set ``rules`` (``""`` when
    nothing): with the standard rules a space shuttle (two or more consecutive fours up to the ace, with or
    without wings) or both jokers among kickers; with ``rules="botzone"`` nothing (the rule sets agree)."""
    if rules == "botzone" or not moves.readings(counts, "botzone"):
        return ""
    (botzone_move,) = moves.readings(counts, "botzone")
    if moves.ALL_TYPE[botzone_move] in (moves.SHUTTLE, moves.SHUTTLE_SINGLES, moves.SHUTTLE_PAIRS):
        return "Botzone's space shuttle (consecutive fours), which only rules='botzone' has"
    return "both jokers as kickers, which Botzone allows and only rules='botzone' has"


class Protocol:
    """Botzone's requests for one seat's program, and its responses as this game's actions (module
    docstring); the :class:`cardenvs.agent.program.ProtocolAgent` of ``botzone:COMMAND`` calls it."""

    PARAMETERS: dict[str, tuple[type, Any, str]] = {
        "game": (str, GAMES[0], "Botzone's game the program was written for: FightTheLandlord2 or FightTheLandlord"),
        "move_ms": (int, LIMITS["cpp"][0], "milliseconds for one decision (default: the language's, Botzone's)"),
        "language": (
            str,
            "cpp",
            "the program's language on Botzone, whose time limits are the defaults: "
            + ", ".join(f"{k} {a} ms" + (f" ({b} ms kept running)" if b != a else "") for k, (a, b) in LIMITS.items()),
        ),
        "keep_ms": (int, 0, "milliseconds for a turn of a program kept running (0: the language's)"),
        "keep_running": (str, "true", "true: honour a program's request to keep running; false: close its input"),
    }
    fresh_process = True  # Botzone's usual mode: one run of the program per decision, unless it keeps running

    def __init__(
        self, env: Any, game: str = GAMES[0], language: str = "cpp", keep_ms: int = 0, keep_running: str | bool = True
    ):
        if game not in GAMES:
            raise ValueError(f"game={game!r}: Botzone's Fight the Landlord games are {' and '.join(GAMES)}")
        if language not in LIMITS:
            raise ValueError(f"language={language!r}: Botzone's time limits are known for {', '.join(LIMITS)}")
        if str(keep_running).lower() not in ("true", "false"):
            raise ValueError(f"keep_running={keep_running!r}: true or false")
        if keep_ms < 0:
            raise ValueError(f"keep_ms={keep_ms}: milliseconds, positive (0: the language's limit)")
        self.env = getattr(env, "unwrapped", env)
        self.game = game
        self.plays_role_phase = game == "FightTheLandlord2"  # FightTheLandlord has no bidding
        self.defaults = {"move_ms": LIMITS[language][0]}  # the agent's parameters this protocol sets by default
        self.kept_ms = keep_ms or LIMITS[language][1]
        self.keep_running_line = KEEP_RUNNING
        self.keep_running = str(keep_running).lower() == "true"  # else its input is closed and it is stopped
        self.kept = False  # the program is running on from its previous turn (its agent says so)
        self.globaldata: Any = None  # kept across games, as Botzone keeps it
        self.reset()

    def reset(self) -> None:
        """A new game: no requests yet."""
        self.requests: list[dict] = []
        self.responses: list[Any] = []
        self.data: Any = None
        self.seat = -1
        self.last = ""  # what the previous decision was: "bid" or "play"
        self.seen = np.zeros((3, 54), dtype=np.int8)  # every seat's played cards at the previous decision

    # ------------------------------------------------------------------ the requests
    def botzone_seat(self, seat: int) -> int:
        """Botzone's seat of this game's ``seat``: seats keep their order; seat 0 is the first bidder
        (``FightTheLandlord2``) or the landlord (``FightTheLandlord``)."""
        s = self.env.state
        first = s.first_bidder if self.game == "FightTheLandlord2" else s.landlord
        return (seat - int(first)) % 3

    def request(self, seat: int, observation: dict) -> str:
        """The input line of ``seat``'s program for its decision now."""
        s = self.env.state
        played = np.asarray(s.played, dtype=np.int8)
        new = played - self.seen  # what each seat played since this seat's previous decision
        self.seen = played.copy()
        if self.last == "bid":
            self.responses.append(int(s.bids[(seat - int(s.first_bidder)) % 3]))
        elif self.last == "play":
            self.responses.append(botzone_cards(new[seat]))
        self.seat = seat
        if s.bidding:
            if self.game != "FightTheLandlord2":
                raise ValueError(
                    "a FightTheLandlord program cannot bid: play it with bidding=False or in the arena's "
                    "duplicate mode (game=FightTheLandlord2 for a program that bids)"
                )
            request: dict[str, Any] = {
                "own": botzone_cards(s.hands[seat]),
                "bid": [int(b) for b in s.bids[: int(s.n_bids)]],
            }
            self.last = "bid"
        else:
            history = [botzone_cards(new[(seat + 1) % 3]), botzone_cards(new[(seat + 2) % 3])]
            request = {"history": history}
            if not any("history" in r for r in self.requests):  # this seat's first request of the play
                request.update(self._first_play(seat))
            self.last = "play"
        self.requests.append(request)
        if self.kept:  # a program kept running reads this turn's request alone
            return json.dumps(request, separators=(",", ":"))
        message: dict[str, Any] = {"requests": self.requests, "responses": self.responses}
        if self.data:
            message["data"] = self.data
        if self.globaldata:
            message["globaldata"] = self.globaldata
        return json.dumps(message, separators=(",", ":"))

    def _first_play(self, seat: int) -> dict[str, Any]:
        s = self.env.state
        dealt = (np.asarray(s.hands[seat]) | np.asarray(s.played[seat])).astype(np.int8)  # with the kitty
        bottom = sorted(int(TO_BOTZONE[c]) for c in s.kitty)
        if self.game == "FightTheLandlord":
            return {"own": botzone_cards(dealt), "publiccard": bottom, "public": bottom}
        if seat == s.landlord:
            dealt[np.asarray(s.kitty, dtype=np.int64)] = 0
        return {
            "own": botzone_cards(dealt),
            "publiccard": bottom,
            "landlord": self.botzone_seat(int(s.landlord)),
            "pos": self.botzone_seat(seat),
            "finalbid": int(s.bid),
        }

    # ------------------------------------------------------------------ the answer
    def action(self, answer: str, observation: dict) -> int:
        """The action of the program's output for the last request (all it wrote in the turn, one JSON value);
        :class:`BotzoneError` if it cannot be played here. Sets ``data`` and ``globaldata`` as Botzone's runner
        does (module docstring)."""
        try:
            output = json.loads(answer)
        except ValueError:
            text = answer.strip()
            why = repr(text[:80]) if "\n" not in text else f"more than one JSON value: {text[:80]!r}"
            raise BotzoneError("garbage", f"not JSON: {why}") from None
        if isinstance(output, dict) and "response" in output:
            response, data, globaldata = output["response"], output.get("data"), output.get("globaldata")
        else:  # the bare response: the runner keeps no data
            response, data, globaldata = output, None, None
        self.data = data
        if globaldata:
            self.globaldata = globaldata
        mask = observation["action_mask"]
        if self.last == "bid":
            return self._bid(response, mask)
        return self._play(response, mask)

    def _bid(self, response: Any, mask: np.ndarray) -> int:
        if isinstance(response, str) and response.strip().isdigit():
            response = int(response)
        if isinstance(response, bool) or not isinstance(response, int):
            raise BotzoneError("garbage", f"a bid is a number 0..3, not {json.dumps(response)[:80]}")
        if response == 0:
            return moves.BID_PASS
        if 1 <= response <= 3 and mask[moves.BID_PASS + response]:
            return moves.BID_PASS + response
        raise BotzoneError(
            "illegal", f"bid {response}: a bid is 0 (no bid) or above the bid so far ({self.env.state.bid}), up to 3"
        )

    def _play(self, response: Any, mask: np.ndarray) -> int:
        if not isinstance(response, list) or any(isinstance(b, bool) or not isinstance(b, int) for b in response):
            raise BotzoneError("garbage", f"a play is a list of card ids ([] passes), not {json.dumps(response)[:80]}")
        outside = [b for b in response if not 0 <= b < 54]
        if outside:
            raise BotzoneError("illegal", f"card id {outside[0]} is outside 0..53")
        if len(set(response)) < len(response):
            raise BotzoneError("illegal", f"a card is named twice in {response}")
        hand = set(botzone_cards(self.env.state.hands[self.seat]))
        missing = [b for b in response if b not in hand]
        if missing:
            raise BotzoneError("illegal", f"card {missing[0]} ({rank_string(missing[:1])}) is not in its hand")
        if not response:
            if mask[moves.PASS]:
                return moves.PASS
            raise BotzoneError("illegal", "a pass while leading the trick")
        counts = np.bincount(BOTZONE_RANK[response], minlength=moves.NUM_RANKS).astype(np.int8)
        rules = self.env.config["rules"]
        readings = moves.readings(counts, rules)
        legal = [m for m in readings if mask[m]]
        if legal:  # Botzone reads every trio of a card set as the airplane: the reading with most main cards
            action = max(legal, key=lambda m: (int(moves.ALL_MAIN_COUNTS[m].sum()), int(moves.ALL_MAIN[m])))
            if hasattr(self.env, "name_cards"):  # the play takes the very cards named
                self.env.name_cards(action, FROM_BOTZONE[response])
            return action
        cards = rank_string(response)
        if readings:
            to_beat = self.env.state.last_move
            raise BotzoneError("illegal", f"{cards} does not beat {moves.move_string(int(to_beat))}")
        why = botzone_only(counts, rules)
        raise BotzoneError("illegal", f"{cards} is no combination of this game" + (f" ({why})" if why else ""))
