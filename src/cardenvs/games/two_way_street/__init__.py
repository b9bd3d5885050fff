"""Two Way Street: rules and scoring (:mod:`.rules`), the env (:mod:`.env`)."""
from .rules import duel_score, hand_scores, raw_score  # noqa: F401
