"""The document a question is about. A question that names the subject of a document, the
name in its title line (a company, a person, a project), is answered from that document
and from the documents it leads to; never from a parallel document about another subject.

"What was Brenmoor's gross margin for the quarter?" over a folder of two results calls
written alike: Tavora's transcript says "Gross margin for the quarter was 31.4%" in the
question's own words, and without this a retriever ranks it first and the model attributes
Tavora's figure to Brenmoor. A document is set aside only where it is parallel to the named
one (their titles say the same thing of two subjects: "... THIRD QUARTER 2024 RESULTS
CONFERENCE CALL") and nothing links it to the question: its own subject is named neither
in the question nor in the passages kept, and its passage does not name the question's
subject. A page titled by a name alone is parallel to nothing, so the hops of a question
("the director of Phoolwari" leads to the director's page) keep every page they need, and a
comparison names both subjects.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...retrieve.base import Hit, Retriever
from ...retrieve.scope import Scope, scoped_search
from ...store.db import Store
from ...store.row_types import ChunkRow
from ..passages import WORD
from .kind_named import kind_words, named_by_kind

# Words of titles that name no subject: what a document is, not whom it is about.
_KIND_WORDS = frozenset(
    """a an and the of in on for to at by with from or vs de la le du der und y e
    call calls transcript results result report reports quarter quarterly annual year full half first second
    third fourth q1 q2 q3 q4 h1 h2 fy meeting minutes notes note letter memo summary update plan budget draft
    final version edited conference earnings presentation statement invoice receipt agenda review overview
    what who when where which why how is was are were did does do
    january february march april may june july august september october november december
    monday tuesday wednesday thursday friday saturday sunday""".split()
)
# A title word shared by more titles than this names a kind of document, not one subject
# ("Film" in "Phoolwari (1946 film)"), unless the index is large enough for a name to recur.
_SHARED_BY = 3
_MOST_NAMED = 3  # a question matching more documents than this names no one subject
_SAME_KIND = 2  # title words besides the subject two documents share to be of one kind
# Subject words a question must say in lower case to name a document by them: one ("the
# cider") is any question's word; two ("the cider company") are its subject's name.
_LOWER_WORDS = 2


@dataclass(frozen=True)
class Subjects:
    """The words that name each document's subject: its title's words that few other
    titles share."""

    words: dict[str, frozenset[str]]  # document path -> its subject's words
    kinds: dict[str, frozenset[str]]  # document path -> its title's other words (what it is)

    @classmethod
    def of(cls, titles: dict[str, str | None]) -> Subjects:
        worded = {path: _title_words(title) for path, title in titles.items() if title}
        shared: dict[str, int] = {}
        for words in worded.values():
            for w in words:
                shared[w] = shared.get(w, 0) + 1
        most = max(_SHARED_BY, len(worded) // 100)
        subject = {path: frozenset(w for w in words if shared[w] <= most) for path, words in worded.items()}
        kinds = {path: frozenset(_words(title)) - subject[path] for path, title in titles.items() if title}
        return cls(subject, kinds)

    def parallel(self, path: str, named: list[str]) -> bool:
        """Whether a document is one of a kind with a named one: their titles say the same
        thing of two subjects ("... THIRD QUARTER 2024 RESULTS CONFERENCE CALL"). A page
        titled by a name alone ("Shakti Samanta") is parallel to nothing."""
        own = self.kinds.get(path, frozenset())
        return any(len(own & self.kinds.get(p, frozenset())) >= _SAME_KIND for p in named)

    def named_in(self, question: str) -> list[str]:
        """The documents whose subject the question names, as a name is written (with a
        capital): those whose title shares most subject words with it, when they are few."""
        return self._sharing_most(_names(question), 1)

    def described_in(self, question: str) -> list[str]:
        """The documents the question describes by at least _LOWER_WORDS of their title's
        subject words in lower case ("the cider company": "Orchard Lane Cider Company:
        investor update"), where it names none (`named_in`)."""
        lower = {w for w in WORD.findall(question) if w.islower()}
        return [] if self.named_in(question) else self._sharing_most(lower, _LOWER_WORDS)

    def _sharing_most(self, asked: set[str], least: int) -> list[str]:
        scored = {path: n for path, words in self.words.items() if (n := len(words & asked)) >= least}
        if not scored:
            return []
        best = max(scored.values())
        named = sorted(path for path, n in scored.items() if n == best)
        return named if len(named) <= _MOST_NAMED else []


class SubjectIndex:
    """The index's Subjects, read again only when the index has changed."""

    def __init__(self, store: Store):
        self.store = store
        self._read: tuple[str, Subjects, dict[str, frozenset[str]]] | None = None

    def _documents(self) -> tuple[str, Subjects, dict[str, frozenset[str]]]:
        """The index's Subjects and each document's kinds (kind_named.py), as of its version."""
        version = self.store.meta.version
        if self._read is None or self._read[0] != version:
            titles = {d.path: d.title for d in self.store.docs.documents() if d.status == "ok"}
            kinds = {path: k for path, title in titles.items() if (k := kind_words(path, title))}
            self._read = (version, Subjects.of(titles), kinds)
        return self._read

    def _text_of(self, path: str) -> str:
        chunks = self.store.passages.chunks(self.store.passages.chunk_ids_of([path]))
        return " ".join(c.text for c in chunks.values())

    def kept(self, question: str, hits: list[Hit], retriever: Retriever, scope: Scope | None) -> list[Hit]:
        """The hits on the question's subject (`on_subject`); where the question names a
        document none of them comes from, that document's best passages are put first
        (unless a scope the person chose leaves it out). A document named by its kind and
        a name ("the Okafor invoice", kind_named.py) or described by its title's words
        ("the cider company") is read first."""
        _, subjects, kinds = self._documents()
        described = named_by_kind(question, kinds, self._text_of) or subjects.described_in(question)
        if described and hits:
            hits = self._first(described, question, hits, retriever, scope)
        named = subjects.named_in(question)
        if not named or not hits:
            return hits
        chunks = self.store.passages.chunks([h.chunk_id for h in hits])
        if (scope is None or scope.everywhere) and not any(row.path in named for row in chunks.values()):
            found = scoped_search(retriever, self.store, question, 2, Scope(paths=tuple(named)))
            found = [h for h in found if h.chunk_id not in chunks]
            hits = found + hits[: max(0, len(hits) - len(found))]
            chunks = self.store.passages.chunks([h.chunk_id for h in hits])
        return on_subject(question, hits, chunks, subjects, named)

    def _first(self, paths: list[str], question: str, hits: list[Hit], retriever: Retriever,
               scope: Scope | None) -> list[Hit]:
        """The hits with the passages of `paths` first: their two best for the question
        (the invoice's letterhead and its "Balance due" line, where the whole index's
        ranking found only the letterhead), then those of them found; only the paths the
        person's scope admits."""
        paths = [p for p in paths if scope is None or scope.admits(p)]
        if not paths:
            return hits
        chunks = self.store.passages.chunks([h.chunk_id for h in hits])
        best = scoped_search(retriever, self.store, question, 2, Scope(paths=tuple(paths)))
        found = [h for h in hits if h.chunk_id in chunks and chunks[h.chunk_id].path in paths]
        theirs: dict[int, Hit] = {}
        for h in best + found:
            theirs.setdefault(h.chunk_id, h)
        return ([*theirs.values()] + [h for h in hits if h.chunk_id not in theirs])[: len(hits)]


def on_subject(question: str, hits: list[Hit], chunks: dict[int, ChunkRow], subjects: Subjects,
               named: list[str]) -> list[Hit]:
    """The hits without the passages of documents about another subject, which nothing
    links to the question (see the module's docstring). A passage kept links on in turn:
    a film's page names its director, whose page names his birthplace, whose page is kept
    too. Unchanged where no hit is a passage of a named document: then nothing says what
    the others lack."""
    if not any(chunks[h.chunk_id].path in named for h in hits if h.chunk_id in chunks):
        return hits
    linked = _names(question)
    asked_about = linked & frozenset().union(*(subjects.words.get(p, frozenset()) for p in named))
    kept: set[int] = set()
    grew = True
    while grew:
        grew = False
        for h in hits:
            row = chunks.get(h.chunk_id)
            if h.chunk_id not in kept and _linked(row, named, subjects, linked, asked_about):
                kept.add(h.chunk_id)
                if row is not None and (row.path in named or subjects.words.get(row.path)):
                    linked |= _names(row.text)  # a page about no one subject leads nowhere
                    grew = True
    return [h for h in hits if h.chunk_id in kept]


def _linked(row: ChunkRow | None, named: list[str], subjects: Subjects, linked: set[str],
            asked_about: set[str] | frozenset[str]) -> bool:
    if row is None or row.path in named or not subjects.parallel(row.path, named):
        return True
    own = subjects.words.get(row.path)
    if not own:  # no title, or one of common words only: nothing says whom it is about
        return True
    return bool(own & linked) or bool(asked_about & _names(row.text))


def _title_words(title: str) -> set[str]:
    """A title's words that may name its subject: no kind of document, month or number."""
    return {w for w in _words(title) if w not in _KIND_WORDS and len(w) >= 3 and not w.isdigit()}


def _names(text: str) -> set[str]:
    return {w.lower() for w in WORD.findall(text) if w[0].isupper()}


def _words(text: str) -> list[str]:
    return [w.lower() for w in WORD.findall(text)]
