"""A role a document defines, read where it defines it. "Who is our landlord?" is asked of
a tenancy agreement that says "the Landlord" in every clause and names them once, where it
defines the term: 'between Esme Hallam of 58 Canal Side ("the Landlord") and ...'. Every
chunk is as close to the question as the next, and the one that names the person was not
among them. So for a question that asks who holds a role (`Plan.role`), the passage of a retrieved
document that defines that role in quotes joins the sources first.
"""

from __future__ import annotations

import re

from ...retrieve.base import Evidence, Hit
from ...store.db import Store

# How many of the retrieved documents are searched for the definition.
DOCUMENTS_READ = 3


def defines(text: str, role: str) -> bool:
    """Whether `text` defines `role` as a term: '("the Landlord")', '(the "Tenant")',
    '"the Lender" means'."""
    role = re.escape(role[:-1] if role.endswith("s") and len(role) > 3 else role)
    return bool(re.search(rf"[\"\u201c]\s*(?:the\s+)?[\"\u201c]?{role}s?[\"\u201d]", text, re.IGNORECASE))


def with_definition(store: Store, hits: list[Hit], role: str, retriever: str) -> list[Hit]:
    """`hits` with the chunk that defines `role` first (retrieved lower, or not at all),
    where one of the first retrieved documents defines it; `hits` otherwise."""
    chunks = store.passages.chunks([h.chunk_id for h in hits])
    paths = list(dict.fromkeys(chunks[h.chunk_id].path for h in hits if h.chunk_id in chunks))[:DOCUMENTS_READ]
    word = role.split()[-1].rstrip("s") if len(role.split()[-1]) > 3 else role.split()[-1]
    found = next((chunk_id for chunk_id, text in store.passages.chunks_saying(paths, word) if defines(text, role)), None)
    if found is None or hits[0].chunk_id == found:
        return hits
    best = max((h.score for h in hits), default=0.0)
    first = next((h for h in hits if h.chunk_id == found), Hit(found, best, retriever, Evidence()))
    return [first, *(h for h in hits if h.chunk_id != found)][:max(1, len(hits))]
