"""Dou Dizhu, landlord against two farmers: move table and generator (:mod:`.moves`, with
:func:`legal_moves` and :func:`classify`), the numba rules over a batched state (:mod:`.rules`), numba
heuristics (:mod:`.policies`), determinization for search (:mod:`.determinize`), roles and move features
for the arena and learners (:mod:`.roles`, :mod:`.features`), the env (:mod:`.env`), Botzone's protocol for
programs written for its Fight the Landlord games (:mod:`.botzone`).

Two rule sets, the env option ``rules``: ``"standard"`` and ``"botzone"`` (Botzone's Fight the Landlord judge
exactly; the variant ``botzone``), stated in :mod:`.rules`.

This module is the game's one declaration, :data:`SPEC` (:class:`cardenvs.core.spec.GameSpec`)."""

from __future__ import annotations

from cardenvs.core.spec import Baseline, GameSpec, RelativeSkill, RolePhase, Roles, lazy_attributes

SPEC = GameSpec(
    name="doudizhu",
    version=0,
    package=__name__,
    title="Dou Dizhu",
    # how moves are named, for a reader not shown them (the prompts' Moves section)
    move_names="A move is named by the ranks of its cards, lowest first, kickers after a `+`; suits never matter. "
    "Ranks go 3 4 5 6 7 8 9 T J Q K A 2, then B (the black joker) and R (the red joker). Single `9`; pair `99`; trio "
    "`999`; trio with a single `999+3` or with a pair `999+33`; straight of 5 to 12 consecutive ranks within 3..A "
    "`34567`; pair straight of 3 or more consecutive pairs `334455`; airplane of 2 or more consecutive trios within "
    "3..A `333444`, with a single per trio `333444+57` or a pair per trio `333444+5577`; four with two singles "
    "`3333+57` or two pairs `3333+5577`; bomb `3333`; rocket `BR`. A card set that reads two ways has a name per "
    "reading (`333444555666` is four trios, `333444555+666` three trios with three singles). With rules 'botzone' "
    "there is also the space shuttle, 2 or more consecutive fours (`33334444`), alone or with its kickers after a "
    "`+`. `pass` passes. While bidding: `no bid`, `bid 1`, `bid 2` or `bid 3`.",
    roles=Roles(
        names=("landlord", "farmer"),
        of_game="cardenvs.games.doudizhu.roles:of_game",
        learner_names=("landlord", "farmer_after_landlord", "farmer_before_landlord", "bidder"),
        of_observation="cardenvs.games.doudizhu.roles:of_observation",
        without="dead",
        chosen="the agents bid for the landlord",
        fixed="duplicate mode: player_0 is landlord at bid 1 in every seating, nobody bids; --bidding plays "
        "the bidding",
        phase=RolePhase("bidding", option="bidding"),  # cardenvs arena --bidding, alias of --role-phase
    ),
    move_features="cardenvs.games.doudizhu.features:move_features",
    deal_formats={"douzero": "cardenvs.games.doudizhu.deal_formats"},  # DouZero's pickled evaluation deals
    # programs written for Botzone's Fight the Landlord games, run unchanged: botzone:COMMAND
    program_protocols={"botzone": "cardenvs.games.doudizhu.botzone:Protocol"},
    view="cardenvs.games.doudizhu.view",
    # people play the whole game (bidding is on by default) against the model trained for its stakes, whose
    # bids are played on by search (docs/results/trained-doudizhu.md, "doudizhu.stakes_pimc")
    play_agent="doudizhu.stakes_pimc",
    # PIMC at 50 playouts below the rule agent, as measured (docs/luck-and-skill.md, "Ladder order": 40 deals,
    # 79 and 47 Elo below it with the landlord fixed and with bidding, intervals apart)
    skill_ladder=(
        "random",
        "doudizhu.pimc(playouts=50)",
        "doudizhu.rule",
        "doudizhu.pimc(playouts=400)",
        "doudizhu.dmc",
    ),
    skill_ladder_quick=("random", "doudizhu.rule", "doudizhu.dmc"),
    # the all-seeing player: search on the true hands (the shipped model plays on its own observation only)
    relative_skill=RelativeSkill("random", "doudizhu.dmc", "doudizhu.pimc(playouts=200,oracle=true)", "doudizhu.rule"),
    # the rule agent as landlord (seat 0) and as a farmer (seat 1), random elsewhere, player_0 landlord at bid 1
    baselines=(
        Baseline(
            ("doudizhu.rule", "random", "random"),
            2000,
            reset_options={"landlord": 0, "bid": 1},
            label="doudizhu.rule as landlord vs random",
        ),
        Baseline(
            ("random", "doudizhu.rule", "random"),
            2000,
            reset_options={"landlord": 0, "bid": 1},
            seat=1,
            label="doudizhu.rule as farmer vs random",
        ),
    ),
    luck_value="rule",  # its self-play from a position: the value function of arena --luck-adjusted
)

#: names this package re-exports from its modules, imported on first use
__getattr__ = lazy_attributes(__name__, {"legal_moves": "moves", "classify": "moves"})
