"""Where to look: a question or a search kept to some folders, files or file types.

Retrievers rank the whole index; a scope filters their ranking. So that a narrow scope
still fills k places, the ranking is asked for deeper until k hits fall inside it or the
retriever has nothing more to give.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..store.db import Store
from .base import Evidence, Hit, Retriever
from .baseline import chunk_cosines
from .stopping import checkpoint

# Type names people use for the suffixes that hold them.
TYPE_SUFFIXES = {
    "pdf": (".pdf",), "word": (".docx",), "docx": (".docx",), "text": (".txt",), "txt": (".txt",),
    "markdown": (".md", ".markdown"), "md": (".md", ".markdown"), "html": (".html", ".htm"),
    "htm": (".html", ".htm"), "epub": (".epub",), "org": (".org",), "rst": (".rst",),
    "excel": (".xlsx", ".xlsm"), "xlsx": (".xlsx", ".xlsm"), "csv": (".csv", ".tsv"),
    "spreadsheet": (".xlsx", ".xlsm", ".ods", ".csv", ".tsv"), "powerpoint": (".pptx",), "slides": (".pptx", ".odp"),
    "email": (".eml", ".mbox"), "mail": (".eml", ".mbox"), "calendar": (".ics",),
}
DEEPEST = 1000  # candidates asked for at most, however narrow the scope


class ScopeError(ValueError):
    """A scope that names nothing usable (an unknown file type)."""


@dataclass(frozen=True)
class Scope:
    paths: tuple[str, ...] = ()  # absolute files or folders; empty: everywhere
    suffixes: tuple[str, ...] = ()  # ".pdf"...; empty: every type

    @classmethod
    def of(cls, paths=(), types=()) -> Scope:
        """From what a person writes: paths relative to here, types as "pdf" or ".pdf"."""
        resolved = tuple(str(Path(p).expanduser().resolve()) for p in paths)
        return cls(resolved, tuple(s for t in types for s in suffixes_of(t)))

    @property
    def everywhere(self) -> bool:
        return not self.paths and not self.suffixes

    def admits(self, path: str) -> bool:
        if self.suffixes and not path.lower().endswith(self.suffixes):
            return False
        return not self.paths or any(path == p or path.startswith(p.rstrip("/") + "/") for p in self.paths)

    def describe(self) -> str:
        parts = [*self.paths, *(f"*{s}" for s in self.suffixes)]
        return ", ".join(parts) or "everywhere"


def suffixes_of(kind: str) -> tuple[str, ...]:
    kind = kind.strip().lower().lstrip(".")
    if not kind:
        raise ScopeError("an empty file type")
    if kind in TYPE_SUFFIXES:
        return TYPE_SUFFIXES[kind]
    if kind.isalnum():
        return (f".{kind}",)
    raise ScopeError(f"unknown file type '{kind}'; for example: pdf, docx, md, txt, html")


def admitted_chunks(store: Store, hits: list[Hit], scope: Scope) -> set[int]:
    """The hits' chunks whose document, or an identical copy of it, the scope admits."""
    paths = {cid: row.path for cid, row in store.passages.chunks([h.chunk_id for h in hits]).items()}
    copies = store.docs.copies_of(sorted(set(paths.values())))
    return {cid for cid, path in paths.items() if any(scope.admits(p) for p in [path, *copies.get(path, [])])}


def scope_chunks(store: Store, scope: Scope) -> list[int]:
    """Every chunk of the documents the scope admits, itself or through an identical copy."""
    admitted = set()
    for doc in store.docs.documents():
        if scope.admits(doc.path):
            admitted.add(doc.copy_of if doc.status == "copy" else doc.path)
    return store.passages.chunk_ids_of(sorted(p for p in admitted if p))


def scoped_search(retriever: Retriever, store: Store, query: str, k: int, scope: Scope | None) -> list[Hit]:
    """The retriever's top k among the chunks the scope admits (all of them without one).
    Where its ranking, however deep, holds fewer than k of them (a scope its candidates
    never reach: ppr's walk, or a file far down a large index), the scope's other chunks
    follow, by their cosine to the question."""
    checkpoint()
    if scope is None or scope.everywhere:
        hits = retriever.search(query, k)
        checkpoint()  # stopped at its last step: stopped all the same
        return hits
    depth = max(4 * k, 20)
    while True:
        checkpoint()
        hits = retriever.search(query, depth)
        kept = [h for h in hits if h.chunk_id in admitted_chunks(store, hits, scope)]
        if len(kept) >= k or len(hits) < depth or depth >= DEEPEST:
            break
        depth = min(depth * 4, DEEPEST)
    res = getattr(retriever, "res", None)  # every registered retriever holds its Resources
    checkpoint()
    if len(kept) < k and res is not None:
        taken = {h.chunk_id for h in kept}
        kept += _rest_by_cosine(res, retriever.name, query, scope_chunks(store, scope), taken, k - len(kept))
    return kept[:k]


def _rest_by_cosine(res, name: str, query: str, chunk_ids: list[int], taken: set[int], k: int) -> list[Hit]:
    rest = [cid for cid in chunk_ids if cid not in taken]
    ranked = sorted(chunk_cosines(res, query, rest).items(), key=lambda x: -x[1])[:k]
    return [Hit(cid, sim, name, Evidence(cosine=round(sim, 4), beyond_ranking=True)) for cid, sim in ranked]


def interleaved(first: list[Hit], second: list[Hit], k: int) -> list[Hit]:
    """The top k of two rankings taken in turn, each chunk once; `first`'s lead."""
    out, seen = [], set()
    for pair in zip(first + [None] * len(second), second + [None] * len(first)):
        for hit in pair:
            if hit is not None and hit.chunk_id not in seen:
                seen.add(hit.chunk_id)
                out.append(hit)
    return out[:k]
