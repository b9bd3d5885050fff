"""Prompts for language-model seats (``llm:MODEL``) and fine-tuning data (``cardenvs dataset``): a seat's
decision as chat messages, and a model's answer read back as an action.

Built from the game's own declaration and views (:func:`cardenvs.agent.program.decision_message`, the seat's
view of :mod:`cardenvs.seatview`), never from a second description of a game.

The API (stable: :mod:`.llm` and the dataset writer use it):

* :func:`prompt_messages` ``(env, seat, observation, legal="list") -> list[dict]``: the chat messages
  (``{"role", "content"}``, a system message then a user message) for the decision of ``seat`` of the AEC env
  ``env`` (unwrapped), ``observation`` its ``{"observation", "action_mask"}``; ``legal="none"`` leaves the
  legal moves out of the prompt.
* :func:`read_answer` ``(env, text, observation) -> int``: the action of a model's answer, or an
  :class:`AnswerError` (``kind`` ``"garbage"``: no move could be read; ``"illegal"``: a move, not legal here).
* :func:`rethink_message` ``(error) -> dict``: the user message that says what was wrong and asks again.
"""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np

from ..core.env import legal_actions
from ..seatview import hand_codes
from .program import decision_message

LEGAL_FORMS = ("list", "none")
ANSWER_PREFIX = "Final Answer:"


class AnswerError(ValueError):
    """A model's answer that gives no legal move: ``kind`` is ``"garbage"`` or ``"illegal"``."""

    def __init__(self, kind: str, detail: str):
        super().__init__(detail)
        self.kind, self.detail = kind, detail


def prompt_messages(env: Any, seat: int, observation: dict[str, np.ndarray], legal: str = "list") -> list[dict]:
    """The chat messages of ``seat``'s decision (module docstring)."""
    if legal not in LEGAL_FORMS:
        raise ValueError(f"legal must be one of {', '.join(LEGAL_FORMS)}, got {legal!r}")
    message = decision_message(env, seat, observation, hand_codes(env, seat))
    if legal == "none":
        message.pop("legal")
    system = (
        f"You play the card game {message['game']} as seat {seat}. "
        f"End your answer with a line '{ANSWER_PREFIX} MOVE', MOVE being one legal move's name or id."
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": json.dumps(message)}]


def read_answer(env: Any, text: str, observation: dict[str, np.ndarray]) -> int:
    """The action of a model's answer ``text`` (the part after the last ``Final Answer:``, else its last line)."""
    at = text.rfind(ANSWER_PREFIX)
    answer = text[at + len(ANSWER_PREFIX) :] if at >= 0 else (text.strip().splitlines() or [""])[-1]
    answer = re.sub(r"\s+", " ", answer).strip().strip("`'\".")
    if not answer:
        raise AnswerError("garbage", "no move in the answer")
    legal = [int(a) for a in legal_actions(observation)]
    if answer.lstrip("-").isdigit():
        if int(answer) in legal:
            return int(answer)
        raise AnswerError("illegal", f"move id {answer} is not a legal move here")
    by_name = {env.action_name(a).lower(): a for a in legal}
    if answer.lower() in by_name:
        return by_name[answer.lower()]
    names = {env.action_name(a).lower() for a in range(env.num_actions)}
    if answer.lower() in names:
        raise AnswerError("illegal", f"{answer[:80]!r} is not a legal move here")
    raise AnswerError("garbage", f"{answer[:80]!r} is neither a move's name nor its id")


def rethink_message(error: AnswerError) -> dict:
    """The message asking again after ``error``."""
    return {"role": "user", "content": f"That answer was not accepted: {error.detail}. Answer again."}
