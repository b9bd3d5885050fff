"""Two Way Street, trick-taking with high/low declarations: the numba rules over a batched state and the
scoring (:mod:`.rules`: :func:`duel_score`, :func:`hand_scores`, :func:`raw_score`), the numba heuristic
(:mod:`.policies`), the determinizer for search (:mod:`.determinize`), the env (:mod:`.env`).

This module is the game's one declaration, :data:`SPEC` (:class:`cardenvs.core.spec.GameSpec`)."""

from __future__ import annotations

from cardenvs.core.spec import Baseline, GameSpec, RelativeSkill, lazy_attributes

SPEC = GameSpec(
    name="two_way_street",
    version=0,
    package=__name__,
    title="Two Way Street",
    # how moves are named, for a reader not shown them (the prompts' Moves section)
    move_names="Cards are named by rank (2 3 4 5 6 7 8 9 T J Q K A) then suit (S C D H): `TD` is the ten of "
    "diamonds; `RJ` is the red joker, `BJ` the black one, `JK` a colourless joker. The moves, by phase: `high` or "
    "`low` to declare; `discard CARD` to put a card at the bottom of the stock (`discard 7C`); the card's name to "
    "play it (`7C`); after a joker lead, `suit S`, `suit C`, `suit D` or `suit H` to name the suit led; in a duel "
    "the bid, `no bid` or a strength 1 to 10 with its direction (`3 high`, `10 low`), and after two no bids the "
    "dealer's choice, `high` or `low`.",
    view="cardenvs.games.two_way_street.view",
    # PIMC at 50 playouts below the heuristic, as measured (docs/luck-and-skill.md, "Ladder order": 4 players,
    # 20 deals, 152 Elo below it, interval 133 to 169); at 400 playouts, its rollouts stopping at the end of
    # the hand, the strongest at every player count ("The full study": 3 to 10 players, 8 deals)
    skill_ladder=(
        "random",
        "two_way_street.pimc(playouts=50)",
        "two_way_street.heuristic",
        "two_way_street.pimc(playouts=400)",
    ),
    skill_ladder_quick=("random", "two_way_street.heuristic"),
    relative_skill=RelativeSkill(
        "random",
        "two_way_street.pimc(playouts=200)",
        "two_way_street.pimc(playouts=200,oracle=true)",
        "two_way_street.heuristic",
    ),
    baselines=(
        Baseline(("two_way_street.heuristic", "random", "random", "random"), 100, duplicate=True),
        Baseline(("two_way_street.heuristic", "random"), 200, {"players": 2}, duplicate=True),
    ),
    luck_value="heuristic",  # its self-play from a position: the value function of arena --luck-adjusted
)

#: names this package re-exports from its modules, imported on first use
__getattr__ = lazy_attributes(__name__, {"duel_score": "rules", "hand_scores": "rules", "raw_score": "rules"})
