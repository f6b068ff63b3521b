"""A conversation as a file: each question, its answer and the citations behind it (the
document's path, the cited sentence's character span, its page where the format has pages).

Markdown is for reading and sharing, JSON for other tools. Both are read from the index's
history, whose assistant messages keep the answer's evidence (`Answer.as_dict(with_text=True)`),
so an export still says what was cited after the documents have changed.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone

from pathlib import Path

from ...safetext import clean
from ...store.db import Store
from ...store.history import History, Message
from .shown import ShownAnswer

FORMATS = ("md", "json")
CITATION_FIELDS = ("n", "path", "title", "page", "place", "start", "end", "text", "span_start", "span_end", "attributed")


def conversation_json(history: History, conversation_id: int) -> dict:
    """The conversation, its turns in order; a question not (yet) answered has answer None."""
    conversation = history.conversation(conversation_id)
    if conversation is None:
        raise LookupError(f"there is no conversation {conversation_id}")
    return {
        "id": conversation.id,
        "title": conversation.title,
        "created_at": _iso(conversation.created_at),
        "updated_at": _iso(conversation.updated_at),
        "turns": _turns(history.messages(conversation_id)),
    }


def conversation_markdown(history: History, conversation_id: int) -> str:
    data = conversation_json(history, conversation_id)
    lines = [f"# {data['title']}", "",
             f"Conversation {data['id']}, {data['created_at']} to {data['updated_at']}.", ""]
    for i, turn in enumerate(data["turns"], start=1):
        lines += _turn_markdown(i, turn)
    # Read in a terminal as often as in an editor: nothing a document said may drive it.
    return clean("\n".join(lines).rstrip()) + "\n"


def conversation_text(history: History, conversation_id: int, fmt: str = "md") -> str:
    """The export as the text of a file, in one of FORMATS."""
    if fmt == "json":
        return json.dumps(conversation_json(history, conversation_id), indent=2, ensure_ascii=False) + "\n"
    if fmt == "md":
        return conversation_markdown(history, conversation_id)
    raise ValueError(f"unknown export format '{fmt}'; choose one of: {', '.join(FORMATS)}")


def _turns(messages: list[Message]) -> list[dict]:
    turns: list[dict] = []
    for message in messages:
        if message.role == "user":
            turns.append(_unanswered(message))
        elif turns and turns[-1]["answer"] is None:
            turns[-1].update(_answer(message))
    return turns


def _unanswered(question: Message) -> dict:
    return {"question": question.content, "asked_at": _iso(question.created_at), "answer": None,
            "answered_at": None, "retriever": None, "short_answer": None, "understood_as": None,
            "steps": [], "citations": [], "flagged": []}


def _answer(message: Message) -> dict:
    # The stored evidence read as the terminal UI reads it (an older version's row too).
    shown = ShownAnswer.from_dict(message.evidence)
    return {
        "answer": message.content,  # as shown (a stopped answer says so), not the raw evidence
        "answered_at": _iso(message.created_at),
        "retriever": message.retriever,
        "short_answer": shown.short_answer,
        "understood_as": shown.understood_as,
        "steps": [{"question": s.question, "answer": s.answer} for s in shown.steps],
        "citations": [{key: getattr(c, key) for key in CITATION_FIELDS} for c in shown.citations],
        "flagged": [{"sentence": c.sentence, "reason": c.reason} for c in shown.checks if not c.supported],
    }


def _turn_markdown(i: int, turn: dict) -> list[str]:
    lines = [f"## {i}. {turn['question']}", ""]
    if turn["understood_as"]:
        lines += [f"*Understood as: {turn['understood_as']}*", ""]
    lines += [turn["answer"] if turn["answer"] is not None else "*(no answer)*", ""]
    lines += [f"*Looked up: {step['question']} → {step['answer']}*" for step in turn["steps"]]
    lines += [""] if turn["steps"] else []
    for flagged in turn["flagged"]:
        lines += [f"> Not supported by its citations: {flagged['sentence']} ({flagged['reason']})", ""]
    if turn["citations"]:
        lines += ["Sources:", ""]
        lines += [line for c in turn["citations"] for line in citation_markdown(c, turn["short_answer"])]
        lines.append("")
    return lines


def citation_markdown(c: dict, short_answer: str | None) -> list[str]:
    # The path in backticks: Markdown would read the underscores of file names as emphasis.
    located = c.get("place") or (f"p. {c['page']}" if c.get("page") else "")
    where = f"`{c['path']}`" + (f", {located}" if located else "")
    how = " (attributed by similarity)" if c.get("attributed") else ""
    lines = [f"- [{c['n']}] {where}, characters {c['start']}-{c['end']}{how}: \"{c['text']}\""]
    if short_answer and c.get("span_start") is not None:
        lines.append(f"  - the answer \"{short_answer}\": characters {c['span_start']}-{c['span_end']}")
    return lines


def _iso(timestamp: float) -> str:
    """ISO 8601 in UTC: the same text wherever the file is read."""
    return datetime.fromtimestamp(timestamp, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def exported(opened: Store | None, db: Path, conversation_id: int | None, fmt: str) -> str:
    """A conversation (the most recent one where None) as the text of a file, read from the
    index's store if `opened`, else from its database `db` alone (no model loads).
    LookupError: no index, no conversation yet, or no such conversation."""
    if opened is not None:
        return _exported(opened, conversation_id, fmt)
    if not db.exists():
        raise LookupError(f"there is no index at {db.parent}")
    store = Store(db)
    try:
        return _exported(store, conversation_id, fmt)
    finally:
        store.close()


def _exported(store: Store, conversation_id: int | None, fmt: str) -> str:
    history = History(store)
    if conversation_id is None:
        recent = history.conversations()
        if not recent:
            raise LookupError("there are no conversations in this index yet")
        conversation_id = recent[0].id
    return conversation_text(history, conversation_id, fmt)
