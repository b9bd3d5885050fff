"""War as numba functions over a batched array state (RULES.md "War").

Rules, in plain words:

* Two players, 26 cards each, face down; index 0 of a pile is flipped first. Cards compare by rank,
  2 low, A high; suits do not matter.
* A battle: player_0 flips, then player_1; the higher card wins. A tie is a *war*: each player puts
  ``war_face_down`` cards face down and one face up (one flip action each), and so on while tied.
* The battle's winner puts every card of the battle at the bottom of their pile: their own cards in the
  order played, then the loser's (with ``shuffle_won`` the won cards are shuffled instead, by a generator
  seeded from the dealing seed).
* A player who cannot complete a war plays what they have, the last card face up. A player who must flip
  and holds no card at all loses; both out at once is a draw.
* The game ends when one player holds every card, or when a player runs out during a war (below); it is
  truncated after ``max_turns`` battles.
* ``single_pass``: the Riddler form. Exactly 26 battles, no wars (a tie is a battle nobody wins), no
  recycling; the score is the number of battles won.

Readings this implementation chooses: the battle counter counts battles, a war being part of its battle;
cards of a battle stay on the table until it resolves (they are counted there by the conservation
invariant); when a player runs out during a war (a tie with nothing left to flip) the game ends at once
with the war's cards still on the table, taken by nobody: the winner holds only its pile, fewer than 52
cards, and that pile is its score (so ``reward="points"`` sums to less than 0 over the two players);
the shuffle of won cards draws from stream :data:`SHUFFLE_STREAM` of the deal seed (:mod:`cardenvs.core.rng`),
kept in the state, so a deal replays exactly whatever came before it.

State (:data:`STATE`, one record per game; :mod:`cardenvs.core.kernels` states the functions' contract):
each pile is a 52-slot ring buffer (``head`` the next card to flip, ``held`` the cards in it), the cards
each player put on the table in the battle under way, the last face-up card of each player, the war flag,
battles played and won, cards set aside (single pass), the result and the shuffle's random stream. The
same functions drive the AEC env, the vector envs and the Monte Carlo simulator in
:mod:`cardenvs.games.war.study`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardenvs.core import kernels
from cardenvs.core.observation import Layout, Segment
from cardenvs.core.rng import EXTRA_STREAM, episode_deck, stream, uniform_index

#: the observation: named segments (:mod:`cardenvs.core.observation`); :func:`observe` writes them at
#: the offsets ``LAYOUT.starts()`` the params carry
LAYOUT = Layout(
    [
        Segment("own_pile", 1, 52, "cards in own pile"),
        Segment("opponent_pile", 1, 52, "cards in the opponent's pile"),
        Segment("own_last_flip", 13, 1, "rank of own last face-up card this battle, one-hot (2..A)"),
        Segment("opponent_last_flip", 13, 1, "rank of the opponent's last face-up card this battle, one-hot"),
        Segment("table", 1, 52, "cards on the table in the battle under way"),
        Segment("in_war", 1, 1, "1 while a tie is being settled"),
        Segment("battles_won", 2, 26, "battles won by self, opponent (single_pass only)"),
    ]
)

DECK_SIZE = 52
HALF = 26
PLAYERS = 2
MAX_STACKED = 16  # one deal per episode; further stacked decks are not used
SHUFFLE_STREAM = EXTRA_STREAM + 3  # the shuffle of won cards (``shuffle_won``)
DECK = np.arange(DECK_SIZE, dtype=np.int16)
NO_RESULT, DRAW = -1, 2  # ``result``: -1 while playing (and at a truncation), 0 / 1 the winner, 2 a draw
POLICIES = ("flip",)

STATE = np.dtype(
    [
        ("pile", np.int8, (PLAYERS, DECK_SIZE)),  # ring buffers
        ("head", np.int16, (PLAYERS,)),  # slot of the next card to flip
        ("held", np.int16, (PLAYERS,)),  # cards in the pile (not "size": records have a .size)
        ("table", np.int8, (PLAYERS, DECK_SIZE)),  # cards each player put on the table this battle, in order
        ("table_n", np.int16, (PLAYERS,)),
        ("last_flip", np.int8, (PLAYERS,)),  # last face-up card of each player (-1 none)
        ("out", np.int8, (DECK_SIZE,)),  # cards set aside (single pass)
        ("out_n", np.int16),
        ("to_move", np.int8),
        ("in_war", np.int8),  # 1 while a tie is being settled
        ("result", np.int8),
        ("battles", np.int64),
        ("battles_won", np.int16, (PLAYERS,)),  # the single pass score
        ("rng", np.uint64, (1,)),  # xorshift64* stream of the shuffle of won cards
    ]
)

# observation offsets (segments of the env's layout, in order)
O_OWN_PILE, O_OPP_PILE, O_OWN_FLIP, O_OPP_FLIP, O_TABLE, O_IN_WAR, O_BATTLES_WON = range(7)

PARAMS = np.dtype(
    [
        ("war_face_down", np.int8),
        ("shuffle_won", np.bool_),
        ("single_pass", np.bool_),
        ("max_turns", np.int64),
        ("stacked", np.int16, (MAX_STACKED, DECK_SIZE)),
        ("n_stacked", np.int32),
        ("offsets", np.int32, (7,)),
    ]
)


def check_options(war_face_down: int, shuffle_won: bool, single_pass: bool, name: str = "war") -> None:
    """``single_pass`` has no wars and no recycling, so ``war_face_down`` and ``shuffle_won`` would be ignored:
    a ``ValueError`` naming both when either is not its default (1, False) with ``single_pass=True``."""
    if single_pass and (war_face_down != 1 or shuffle_won):
        raise ValueError(
            f"{name}: single_pass=True has no wars and does not recycle won cards, so the options "
            f"war_face_down and shuffle_won do not apply (got war_face_down={war_face_down}, "
            f"shuffle_won={shuffle_won}); leave them at their defaults (1, False)"
        )


def make_params(
    war_face_down: int = 1,
    shuffle_won: bool = False,
    single_pass: bool = False,
    max_turns: int = 5000,
    offsets: np.ndarray | None = None,
) -> np.ndarray:
    """The constants of one configuration (:func:`check_options` rejects options ``single_pass`` would
    ignore); ``offsets``: where the observation's segments start (default: the env's layout,
    :data:`LAYOUT`)."""
    check_options(war_face_down, shuffle_won, single_pass)
    if offsets is None:
        offsets = LAYOUT.starts()
    p = np.zeros(1, dtype=PARAMS)
    p["war_face_down"] = war_face_down
    p["shuffle_won"] = shuffle_won
    p["single_pass"] = single_pass
    p["max_turns"] = max_turns
    p["offsets"][0] = offsets
    return p


# ---------------------------------------------------------------- the state machine
@njit(cache=True)
def card_rank(card: int) -> int:
    """A card's rank, 0 = two .. 12 = ace (reads only)."""
    return card // 4


@njit(cache=True)
def deal(state, b, deck, rng_seed) -> None:
    """Start game ``b`` from ``deck`` (top first: the first 26 cards to player_0, the next 26 to player_1),
    the shuffle's stream seeded with ``rng_seed`` (0 is taken as 1). In place."""
    s = state[b]
    for p in range(PLAYERS):
        for i in range(HALF):
            s.pile[p, i] = deck[HALF * p + i]
        s.head[p] = 0
        s.held[p] = HALF
        s.table_n[p] = 0
        s.last_flip[p] = -1
        s.battles_won[p] = 0
    s.out_n = 0
    s.to_move = 0
    s.in_war = 0
    s.result = NO_RESULT
    s.battles = 0
    seed = np.uint64(rng_seed)
    if seed == np.uint64(0):
        seed = np.uint64(1)
    s.rng[0] = seed


@njit(cache=True)
def init(state, b, params, deal_seed) -> None:
    """Deal game ``b``: the stacked deck if given, else deal 0 of ``deal_seed``. In place."""
    pr = params[0]
    deck = np.empty(DECK_SIZE, dtype=np.int16)
    episode_deck(pr.stacked, pr.n_stacked, DECK, deal_seed, np.int64(0), deck)
    deal(state, b, deck, stream(deal_seed, np.int64(SHUFFLE_STREAM))[0])


@njit(cache=True)
def to_move(state, b, params) -> int:
    """The seat to flip (reads only)."""
    return state[b].to_move


@njit(cache=True)
def status(state, b, params) -> int:
    """OVER once there is a result; TRUNCATED after ``max_turns`` battles with the table empty (reads only)."""
    s = state[b]
    if s.result != NO_RESULT:
        return kernels.OVER
    if s.battles >= params[0].max_turns and s.table_n[0] + s.table_n[1] == 0:
        return kernels.TRUNCATED
    return kernels.RUNNING


@njit(cache=True)
def legal_ids(state, b, params, ids) -> int:
    """The one action, flip (0), into ``ids`` while the game is on; returns how many (1, or 0 once it ended)."""
    if status(state, b, params) != kernels.RUNNING:
        return 0
    ids[0] = 0
    return 1


@njit(cache=True)
def _take(state, b, p) -> int:
    """Take player ``p``'s next card off their pile and return it. In place."""
    s = state[b]
    card = s.pile[p, s.head[p]]
    s.head[p] = (s.head[p] + 1) % DECK_SIZE
    s.held[p] -= 1
    return card


@njit(cache=True)
def _put_bottom(state, b, p, card) -> None:
    """Put ``card`` under player ``p``'s pile. In place."""
    s = state[b]
    s.pile[p, (s.head[p] + s.held[p]) % DECK_SIZE] = card
    s.held[p] += 1


@njit(cache=True)
def _to_table(state, b, p, card) -> None:
    """Put ``card`` on the table in front of player ``p``. In place."""
    s = state[b]
    s.table[p, s.table_n[p]] = card
    s.table_n[p] += 1


@njit(cache=True)
def apply(state, b, params, action) -> None:
    """The player to move flips (in a war: up to ``war_face_down`` face down, then one face up); after
    player_1's flip the battle resolves. In place."""
    s = state[b]
    p = s.to_move
    if s.in_war == 1:
        down = min(params[0].war_face_down, s.held[p] - 1)
        for _ in range(down):
            _to_table(state, b, p, _take(state, b, p))
    card = _take(state, b, p)
    _to_table(state, b, p, card)
    s.last_flip[p] = card
    if p == 0:
        s.to_move = 1
        return
    s.to_move = 0
    _resolve(state, b, params)


@njit(cache=True)
def _resolve(state, b, params) -> None:
    """Both have flipped: settle the battle (or start a war), count it, set the result if it ends. In place."""
    s = state[b]
    pr = params[0]
    r0 = card_rank(s.last_flip[0])
    r1 = card_rank(s.last_flip[1])
    if pr.single_pass:
        if r0 != r1:
            s.battles_won[0 if r0 > r1 else 1] += 1
        for p in range(PLAYERS):
            for i in range(s.table_n[p]):
                s.out[s.out_n] = s.table[p, i]
                s.out_n += 1
            s.table_n[p] = 0
        s.battles += 1
        if s.battles == HALF:
            w0, w1 = s.battles_won[0], s.battles_won[1]
            s.result = DRAW if w0 == w1 else (0 if w0 > w1 else 1)
        return
    if r0 == r1:
        s.in_war = 1
        empty0 = s.held[0] == 0
        empty1 = s.held[1] == 0
        if empty0 and empty1:
            s.result = DRAW
        elif empty0:
            s.result = 1
        elif empty1:
            s.result = 0
        if s.result != NO_RESULT:
            s.battles += 1
        return
    winner = 0 if r0 > r1 else 1
    loser = 1 - winner
    start = s.held[winner]  # the won cards go to pile positions start.. (next flip = position 0)
    for p in (winner, loser):
        for i in range(s.table_n[p]):
            _put_bottom(state, b, winner, s.table[p, i])
        s.table_n[p] = 0
    if pr.shuffle_won:  # Fisher-Yates over the won cards where they now lie
        n_won = s.held[winner] - start
        for i in range(n_won - 1, 0, -1):
            j = uniform_index(s.rng, i + 1)
            si = (s.head[winner] + start + i) % DECK_SIZE
            sj = (s.head[winner] + start + j) % DECK_SIZE
            s.pile[winner, si], s.pile[winner, sj] = s.pile[winner, sj], s.pile[winner, si]
    s.in_war = 0
    s.battles += 1
    if s.held[loser] == 0:
        s.result = winner


@njit(cache=True)
def scores(state, b, params, out) -> None:
    """Cards in each pile (battles won with ``single_pass``) into ``out``."""
    s = state[b]
    for p in range(PLAYERS):
        out[p] = s.battles_won[p] if params[0].single_pass else s.held[p]


@njit(cache=True)
def outcome(state, b, params, out) -> None:
    """Into ``out``: once over, the higher score wins (+1 / -1), equal scores draw (0 each); zeros otherwise
    (running or truncated)."""
    out[:] = 0.0
    if state[b].result == NO_RESULT:
        return
    sc = np.empty(PLAYERS, dtype=np.float64)
    scores(state, b, params, sc)
    kernels.win_share(sc, out)


@njit(cache=True)
def play_out(state, b, params) -> None:
    """Flip until the game ends or is truncated (the Monte Carlo inner loop). In place."""
    while status(state, b, params) == kernels.RUNNING:
        apply(state, b, params, 0)


# ---------------------------------------------------------------- the observation
@njit(cache=True)
def observe(state, b, params, p, obs) -> None:
    """Seat ``p``'s observation (the env's layout) into the zeroed row ``obs``."""
    s = state[b]
    off = params[0].offsets
    q = 1 - p
    obs[off[O_OWN_PILE]] = s.held[p]
    obs[off[O_OPP_PILE]] = s.held[q]
    if s.last_flip[p] >= 0 and s.table_n[p] > 0:
        obs[off[O_OWN_FLIP] + card_rank(s.last_flip[p])] = 1
    if s.last_flip[q] >= 0 and s.table_n[q] > 0:
        obs[off[O_OPP_FLIP] + card_rank(s.last_flip[q])] = 1
    obs[off[O_TABLE]] = s.table_n[0] + s.table_n[1]
    obs[off[O_IN_WAR]] = s.in_war
    obs[off[O_BATTLES_WON]] = s.battles_won[p]
    obs[off[O_BATTLES_WON] + 1] = s.battles_won[q]


# ---------------------------------------------------------------- helpers for people and tests (Python)
def pile_cards(record, p: int) -> np.ndarray:
    """Player ``p``'s pile of one game (a record of :data:`STATE`), next flip first."""
    idx = (int(record["head"][p]) + np.arange(int(record["held"][p]))) % DECK_SIZE
    return np.asarray(record["pile"][p], dtype=np.int64)[idx]


def card_locations(record) -> np.ndarray:
    """Every card of one game: in piles, on the table and set aside (the conservation invariant)."""
    parts = []
    for p in range(PLAYERS):
        parts.append(pile_cards(record, p))
        parts.append(np.asarray(record["table"][p, : record["table_n"][p]], dtype=np.int64))
    parts.append(np.asarray(record["out"][: record["out_n"]], dtype=np.int64))
    return np.concatenate(parts)
