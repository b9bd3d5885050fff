"""Twenty, a two-player tally game: the numba rules over a batched state (:mod:`.rules`), the numba greedy
heuristic (:mod:`.policies`), the hand and round solvers (:mod:`.solver`), the determinizer for search
(:mod:`.determinize`), learner features (:mod:`.features`), the env (:mod:`.env`).

This module is the game's one declaration, :data:`SPEC` (:class:`cardenvs.core.spec.GameSpec`)."""

from __future__ import annotations

from cardenvs.core.spec import Baseline, GameSpec, Pairings, RelativeSkill

SPEC = GameSpec(
    name="twenty",
    version=0,
    package=__name__,
    title="Twenty",
    # how moves are named, for a reader not shown them (the prompts' Moves section)
    move_names="A move is the value of the card you put on the tally: `A` (worth 1), `2` to `9`, or `T` (worth 10: "
    "any Ten card, T, J, Q or K; which one goes does not matter). A card code such as `7H` or `QS`, or `10`, is read "
    "as its value.",
    learner_features={"twenty": "cardenvs.games.twenty.features:learner_features"},
    view="cardenvs.games.twenty.view",
    skill_ladder=("random", "twenty.greedy", "twenty.pimc(playouts=50)", "twenty.pimc(playouts=400)", "twenty.dmc"),
    skill_ladder_quick=("random", "twenty.greedy", "twenty.dmc"),
    # the all-seeing player: the round solver given the true hands and later deals (exact play of the round)
    relative_skill=RelativeSkill("random", "twenty.solver", "twenty.oracle", "twenty.greedy"),
    studies={
        # What the round solver (solver.solve_round, via twenty.solver) gains over one-ply greedy play, hands
        # exposed and hidden, over duplicate deals with swap_deals=True (each match plays a deck twice with the
        # hands exchanged, and the arena replays it with the seats swapped). The solver is exact in round 2
        # (every card is known from round 1) and in the last hand of a round; elsewhere it samples the later
        # deals and, hands hidden, averages over sampled opponent hands: the margins are this solver's, not
        # perfect play's, and exposed minus hidden is what seeing the other hand is worth to it.
        "twenty-variants": Pairings(
            help="solver, greedy and random against each other, hands hidden and exposed: point margins with 95% CIs",
            title="Twenty, swap_deals=True",
            pairs=(("twenty.solver", "twenty.greedy"), ("twenty.solver", "random"), ("twenty.greedy", "random")),
            variants={
                "hidden": {"swap_deals": True, "exposed_hands": False},
                "exposed": {"swap_deals": True, "exposed_hands": True},
            },
            column="hands",
            summary={
                "exposed": "solver's margin over greedy with hands exposed (round solver: exact in round 2 and in "
                "last hands, sampled later deals elsewhere)",
                "hidden": "solver's margin over greedy with hands hidden (the same solver averaged over sampled "
                "opponent hands; exact in round 2)",
            },
        )
    },
    baselines=(
        Baseline(("twenty.greedy", "random"), 500, duplicate=True),
        Baseline(("twenty.solver", "twenty.greedy"), 500, {"exposed_hands": True, "swap_deals": True}, True),
    ),
    luck_value="greedy",  # its self-play from a position: the value function of arena --luck-adjusted
)
