"""Guandan (掼蛋), two teams of two with two decks and wild cards: the play patterns and their suit decisions
(:mod:`.moves`), the numba rules over a batched state with tribute, levels and the match (:mod:`.rules`), its
numba policies (:mod:`.policies`), determinization for search (:mod:`.determinize`), the env (:mod:`.env`),
the web view (:mod:`.view`). Teams are fixed by seat (``player_0`` and ``player_2``
against ``player_1`` and ``player_3``), so the game declares no roles.

This module is the game's one declaration, :data:`SPEC` (:class:`cardenvs.core.spec.GameSpec`); it imports
nothing heavy."""

from __future__ import annotations

from cardenvs.core.spec import Baseline, GameSpec, RelativeSkill

#: the agent people play against (``cardenvs play``, the web app): PIMC over ``guandan.dmc``, the model's four best
#: moves a turn compared by 1200 playouts, half the model's value added to each (issue 63, item 2); 1200 keeps a
#: match's move under 100 ms of CPU on average (``benchmarks/search_move_ms.py``: 68.5 ms; 1600 took 114.2)
PLAY_AGENT = "guandan.pimc(playouts=1200,prior=dmc,top=4,weight=0.5)"

SPEC = GameSpec(
    name="guandan",
    version=0,
    package=__name__,
    title="Guandan",
    # how moves are named, for a reader not shown them (the prompts' Moves section)
    move_names="A play is named `KINDKEY CARDS`: its kind (`single`, `pair`, `triple`, `fh` a full house, "
    "`straight`, `tube` three consecutive pairs, `plate` two consecutive triples, `bomb`, `sf` a straight flush with "
    "its suit S C D or H, `jokers` the four jokers), its key (a rank 2 3 4 5 6 7 8 9 T J Q K A, BJ or RJ for a "
    "joker, L for wild cards played as the level rank), then its natural cards by rank and `+Nw` for N wild cards: "
    "`pair8 88`, `fh3 3335+1w` (three 3s and a pair of 5s, one of them a wild), `bombJ JJJ+2w` (five Js, two of "
    "them wilds), `sfCT 79T+2w` (the clubs straight flush 6 to T, the wilds as 6 and 8), `singleL -+1w` (a wild "
    "alone). Once the kind is chosen, the suits of its natural cards are chosen rank by rank, lowest open rank first: "
    "`suits S1 C0 D1 H0` takes one spade and one diamond of that rank. `card AS` pays or returns a tribute card; "
    "`pass` passes. An answer may also give a play's cards (`5S 5C`, or `5S 6S 7S 8S 7H=sf9` with its reading).",
    view="cardenvs.games.guandan.view",
    move_features="cardenvs.games.guandan.features:move_features",
    # DanZero's 513 state features of the seat to move, in numba over the rules' state (DMC's features: danzero)
    learner_features={"danzero": "cardenvs.games.guandan.danzero_features:LEARNER_FEATURES"},
    # rising strength as measured on duplicate deals: heuristic partnerships win 0.98 of hands against random
    # ones, PIMC at 300 playouts 0.64 against heuristic ones, the shipped DMC model 0.75
    # (docs/results/trained-guandan.md)
    skill_ladder=("random", "guandan.heuristic", "guandan.pimc(playouts=300)", "guandan.dmc"),
    skill_ladder_quick=("random", "guandan.heuristic"),
    # the best agent is the shipped model (PIMC at 200 playouts scored below the heuristic's own place); the
    # all-seeing player is search on the true hands, a different algorithm from the model, as in Dou Dizhu
    relative_skill=RelativeSkill(
        "random", "guandan.dmc", "guandan.pimc(playouts=200,oracle=true)", "guandan.heuristic"
    ),
    # a heuristic partnership (seats 0 and 2) against a random one, each deal also with the sides swapped
    baselines=(
        Baseline(
            ("guandan.heuristic", "random", "guandan.heuristic", "random"),
            500,
            duplicate=True,
            label="a guandan.heuristic partnership vs random",
        ),
    ),
    luck_value="heuristic",  # its self-play from a position: the value function of arena --luck-adjusted
    # bots of the Guandan competition platform (WebSocket clients) run unchanged: gdws:COMMAND
    program_protocols={"gdws": "cardenvs.games.guandan.platform:Protocol"},
    # people play against search over the shipped model of issue 63 (about 10 ms of CPU a move): it won more hands
    # than the model alone against guandan.heuristic, DanZero and the field's bots (docs/results/guandan-field.md)
    play_agent=PLAY_AGENT,
    # guandan.dmc is issue 63's learner (DanZero's state features, win_points, past selves); issue 54's model, the
    # newest guandan__dmc__N, keeps guandan.dmc_v1 (docs/results/trained-guandan.md)
    shipped_runs={"dmc": "guandan__dmc_v2_small__1", "dmc_v1": "guandan__dmc__1"},
)
