"""A conversation as the answerer needs it: the earlier turns a follow-up is read against,
kept in the index's history (the terminal UI and `assistant ask --continue` share them)."""

from __future__ import annotations

from ...store.db import Store
from ...store.history import History
from ..budget import over_time
from ..routes.followup import Turn
from ..prompt import NO_ANSWER
from .shown import ShownAnswer

TURNS_KEPT = 3  # a follow-up points back a turn or two, rarely further


def stopped_answer(text: str, time_limit: float | None = None) -> str:
    """What a stopped answer says (the terminal UI and `assistant ask` alike): the text
    accepted before the stop, marked, and why where the question's time limit stopped it.
    A stop before the first sentence leaves the answerer with nothing, which it reports as
    NO_ANSWER; the model never answered, so only the stop is shown."""
    text = "" if text == NO_ANSWER else text
    mark = over_time(time_limit) if time_limit is not None else "(stopped)"
    return f"{text} {mark}".lstrip()


class Conversations:
    def __init__(self, store: Store):
        self.history = History(store)

    def pick(self, conversation_id: int | None = None, continue_last: bool = False) -> int | None:
        """The conversation to ask in: the one named, the most recent one, or None for a new
        one. A new one is written with its first answer (`record`): asking writes nothing
        before there is an answer to keep."""
        if conversation_id is not None:
            if self.history.conversation(conversation_id) is None:
                raise LookupError(f"there is no conversation {conversation_id}")
            return conversation_id
        if continue_last:
            existing = self.history.conversations()
            if existing:
                return existing[0].id
        return None

    def turns(self, conversation_id: int | None) -> list[Turn]:
        """The answered turns, oldest first (a question still being answered is not one)."""
        if conversation_id is None:
            return []
        turns, question = [], None
        for message in self.history.messages(conversation_id):
            if message.role == "user":
                question = message.content
            elif question is not None:
                record = ShownAnswer.from_dict(message.evidence)  # any version's record
                if record.mode != "search":  # a list of passages: no answer to follow up
                    turns.append(Turn(record.understood_as or question, message.content, record.short_answer))
                question = None
        return turns[-TURNS_KEPT:]
