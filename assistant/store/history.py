"""Conversations and their messages, kept in the index's SQLite file.

An assistant message keeps its whole evidence (sources with their chunk text, the cited
sentences, the retriever's explanation) as JSON, so an old conversation still shows why
it answered what it did after its documents have changed or gone.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field

from .db import Store

UNTITLED = "New conversation"


@dataclass
class Conversation:
    id: int
    title: str
    created_at: float
    updated_at: float


@dataclass
class Message:
    id: int
    conversation_id: int
    role: str  # "user" or "assistant"
    content: str
    retriever: str | None
    created_at: float
    evidence: dict = field(default_factory=dict)


class History:
    def __init__(self, store: Store):
        self.store = store
        self.db = store.db

    def conversations(self) -> list[Conversation]:
        """Most recently used first."""
        with self.store.lock:
            rows = self.db.execute(
                "select id, title, created_at, updated_at from conversations order by updated_at desc, id desc"
            ).fetchall()
        return [Conversation(*r) for r in rows]

    def conversation(self, conversation_id: int) -> Conversation | None:
        with self.store.lock:
            row = self.db.execute(
                "select id, title, created_at, updated_at from conversations where id = ?", [conversation_id]
            ).fetchone()
        return Conversation(*row) if row else None

    def create(self, title: str = UNTITLED) -> Conversation:
        now = time.time()
        with self.store.lock, self.db.atomic():
            table = self.db.table("conversations").insert({"title": title, "created_at": now, "updated_at": now})
            new_id = table.last_pk
        return Conversation(new_id, title, now, now)

    def rename(self, conversation_id: int, title: str) -> None:
        title = " ".join(title.split())
        if not title:
            raise ValueError("a conversation needs a title")
        with self.store.lock, self.db.atomic():
            self.db.execute("update conversations set title = ? where id = ?", [title, conversation_id])

    def delete(self, conversation_id: int) -> None:
        with self.store.lock, self.db.atomic():
            self.db.execute("delete from messages where conversation_id = ?", [conversation_id])
            self.db.execute("delete from conversations where id = ?", [conversation_id])

    def add(self, conversation_id: int, role: str, content: str, retriever: str | None = None,
            evidence: dict | None = None) -> Message:
        now = time.time()
        with self.store.lock, self.db.atomic():
            table = self.db.table("messages").insert({
                "conversation_id": conversation_id, "role": role, "content": content,
                "citations": json.dumps(evidence or {}, ensure_ascii=False), "retriever": retriever,
                "created_at": now,
            })
            message_id = table.last_pk
            self.db.execute("update conversations set updated_at = ? where id = ?", [now, conversation_id])
            # The first question names an untitled conversation.
            if role == "user":
                self.db.execute(
                    "update conversations set title = ? where id = ? and title = ?",
                    [_title_from(content), conversation_id, UNTITLED],
                )
        return Message(message_id, conversation_id, role, content, retriever, now, evidence or {})

    def add_exchange(self, conversation_id: int | None, question: str, answer: str, retriever: str | None,
                     evidence: dict) -> int:
        """A question and its answer in one transaction, in a new conversation if None: a
        full disk keeps neither rather than a question without its answer. Returns the id."""
        with self.store.lock, self.db.atomic():
            if conversation_id is None:
                conversation_id = self.create().id
            self.add(conversation_id, "user", question)
            self.add(conversation_id, "assistant", answer, retriever, evidence)
        return conversation_id

    def messages(self, conversation_id: int) -> list[Message]:
        with self.store.lock:
            rows = self.db.execute(
                "select id, conversation_id, role, content, retriever, created_at, citations from messages"
                " where conversation_id = ? order by id", [conversation_id],
            ).fetchall()
        return [Message(*r[:6], evidence=json.loads(r[6] or "{}")) for r in rows]


def _title_from(question: str, limit: int = 48) -> str:
    text = " ".join(question.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
