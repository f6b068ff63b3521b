"""What every evaluation set is read into, whatever its native format: passages with
stable ids, questions with their answers and gold passage ids, and the dataset holding both
with its reader's notes."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Passage:
    pid: str  # stable id unique within the dataset
    title: str
    text: str


@dataclass
class Question:
    qid: str
    question: str
    answers: list[str]  # gold answer plus aliases ([] when a dataset has none)
    gold_pids: list[str]  # passage ids of the gold evidence ([] when none is in the corpus)
    choices: list[str] | None = None  # multiple-choice options where the format has them


@dataclass
class Dataset:
    name: str  # the format name
    passages: list[Passage]
    questions: list[Question]
    notes: list[str] = field(default_factory=list)

    def passage_by_id(self) -> dict[str, "Passage"]:
        if getattr(self, "_by_id", None) is None:
            self._by_id = {p.pid: p for p in self.passages}
        return self._by_id
