"""What the model reads: whole chunks, or only the sentences that carry the answer.

A small model answers better from a few sentences than from five whole chunks, and reads
them faster (prompt processing is most of the time to first token on a CPU). The
grounded context keeps, from each retrieved chunk, the sentences that name the
question's linked entities or the bridges that reached the chunk (the entity index's
evidence), the sentences closest to the question, and the chunk's opening sentence (what
the passage is about), in document order, with the coreference-resolved text the model
can read without the sentences around it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

import numpy as np

from .amounts import BillAmounts, bill_amounts
from .sections import heading_above, is_heading_line
from ..money import MONEY
from .text import dates_written
from ...retrieve.base import Hit
from ...retrieve.baseline import content_stems
from ...nlp.sentences import LIST_ITEM, TABLE_ROW
from ...store.db import SentenceRow
from ..question.plan import Plan
from ...store.row_types import ChunkRow

CONTEXT_MODES = ("sentences", "chunks")
# A sentence that opens with one of these points back to the one before it.
_POINTING_BACK = frozenset("he she it they his her its their this these those there".split())
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’.-]*")
_STOP = frozenset(
    "a an the of in on at to for from by with and or but is are was were be been being do does did "
    "what which who whom whose when where why how many much that this these those it its as than "
    "both either same more most first last".split()
)


@dataclass
class SelectSettings:
    closest: int = 2  # sentences kept per chunk for their similarity to the question
    min_similarity: float = 0.2  # below this a "closest" sentence is noise
    # Sentences after each closest one: the answer is often the next sentence ("In August
    # we sold the Lisbon warehouse." / "The proceeds went to ...").
    following: int = 1
    # Sentences kept per chunk for the question's names and numbers they hold, the rarer in
    # the chunk the more: "October" picks its row out of a reading list the embedding reads
    # as alike.
    by_words: int = 1
    # For a question that asks for a list ("What ingredients go into the cake?"): a list
    # item kept brings the whole list, so the answer is not two items of nine.
    whole_lists: bool = False
    # The question asks about money ("How much did the boiler service cost?"): a bill is
    # read with its total, and a line holding an amount is kept (`question.plan.Plan.money`).
    money: bool = False
    # The question asks when: the chunk's dated sentence is kept (`Plan.when`).
    when: bool = False

    @classmethod
    def asked(cls, plan: Plan) -> SelectSettings:
        """The settings for what a question asks (its plan): a list, money, a time."""
        return cls(whole_lists=plan.listing, money=plan.money, when=plan.when)


def _opens_pointing_back(text: str) -> bool:
    """"He left in 1931.", "It's", "(They": the first word a pronoun or "there"."""
    start = next((i for i, c in enumerate(text) if c.isalnum() or c == "_"), len(text))
    end = next((i for i in range(start, len(text)) if not (text[i].isalnum() or text[i] == "_")), len(text))
    return text[start:end].lower() in _POINTING_BACK


def entity_names(hit: Hit) -> list[str]:
    """The names the retriever matched for this chunk: linked entities and bridges."""
    return [n for n in hit.evidence.linking_names() if isinstance(n, str) and n.strip()]


def content_words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text) if w.lower() not in _STOP and len(w) > 2}


def mentions_any(text: str, names: list[str]) -> bool:
    low = text.lower()
    return any(re.search(r"(?<!\w)" + re.escape(n.lower()) + r"(?!\w)", low) for n in names)


def select_sentences(
    question: str, qvec: np.ndarray, hit: Hit, sentences: list[SentenceRow], vectors: np.ndarray,
    names: list[str], settings: SelectSettings = SelectSettings(),
) -> list[SentenceRow]:
    """The sentences of one chunk worth showing the model, in document order."""
    if not sentences:
        return []
    keep = {0}  # the opening sentence says what the passage is about (a title, a subject)
    sims = vectors @ qvec if len(vectors) else np.zeros(len(sentences))
    for i, sent in enumerate(sentences):
        if names and (mentions_any(sent.text, names) or (sent.resolved_text and mentions_any(sent.resolved_text, names))):
            keep.add(i)
    for i in np.argsort(-sims)[: settings.closest]:
        if sims[i] >= settings.min_similarity:
            keep.update(range(int(i), min(len(sentences), int(i) + 1 + settings.following)))
    for i in [i for i in most_words(question, sentences) if i not in keep][: settings.by_words]:
        keep.update(range(i, min(len(sentences), i + 1 + settings.following)))
    for i in sorted(keep):
        # A pronoun the resolver left alone needs the sentence before it to be read.
        if i > 0 and not sentences[i].resolved_text and _opens_pointing_back(sentences[i].text):
            keep.add(i - 1)
        # A table row or list item means nothing without what heads its block.
        head = block_head(sentences, i)
        if head is not None:
            keep.add(head)
    if settings.whole_lists:
        keep.update(best_list(question, sentences, sims, settings.min_similarity))
    for i in sorted(keep):
        keep.update(headed_lines(sentences, i))
    # A bill read for a question about money is read with its total, and without the
    # figures beside it that such a question is answered with by mistake: its subtotal,
    # the cash handed over, the change.
    if settings.money:
        aside = figures_beside_the_total(question, sentences)
        if aside and aside.total is not None and keep & aside.amounts:
            keep = (keep - aside.beside_the_total) | {aside.total}
        # Last, and alone (with a table's header): an amount line bringing the lines around
        # it buried "Balance due" under the invoice's rows.
        for i in closest_amount(sentences, sims, keep, aside.beside_the_total if aside else frozenset()):
            keep.update(j for j in (i, block_head(sentences, i)) if j is not None)
    if settings.when:
        keep.update(closest_dated(sentences, sims))
    return [sentences[i] for i in sorted(keep)]


def closest_dated(sentences: list[SentenceRow], sims: np.ndarray) -> list[int]:
    """For a question asking when, the chunk's sentence closest to it that writes a date (a
    message's own "Date:" header aside: "the trip is now on Thursday 15 June 2023", where
    the e-mail's opening and its header were all that was kept); else nothing."""
    dated = [i for i, s in enumerate(sentences) if dates_written(s.text)]
    return [max(dated, key=lambda i: float(sims[i]))] if dated else []


def figures_beside_the_total(question: str, sentences: list[SentenceRow]) -> BillAmounts | None:
    """For a question about money, the chunk's bill amounts (`amounts.bill_amounts`) with
    the subtotal and payment lines the question names by their label left in place
    ("How much did I hand over in cash?" reads "CASH 20.00"); None otherwise."""
    found = bill_amounts([s.text for s in sentences])
    if found.total is None:
        return None
    asked = content_stems(question)
    named = frozenset(i for i in found.beside_the_total if content_stems(sentences[i].text) & asked)
    return BillAmounts(found.total, found.subtotals - named, found.payment - named, found.amounts)


def closest_amount(sentences: list[SentenceRow], sims: np.ndarray, keep: set[int],
                   aside: frozenset[int] = frozenset()) -> list[int]:
    """For a question about money, the chunk's line closest to it that holds an amount
    (not one of the figures `aside`), where none of the lines kept holds one; else nothing.
    A question about money ("How much did the washing machine cost?") is answered by a line
    that holds an amount; the lines closest to it in meaning may be the thing's model and
    serial number, and "Price paid: €549 (reduced from €629, ...)" reads as neither."""
    with_money = [i for i, s in enumerate(sentences) if MONEY.search(s.text) and i not in aside]
    if not with_money or any(i in keep for i in with_money):
        return []
    return [max(with_money, key=lambda i: float(sims[i]))]


# Lines listed under a heading without list markers ("PLANTED IN APRIL" / "early
# potatoes" / "broad beans"): a heading kept brings them, an item kept brings its heading.
UNDER_HEADING_MAX = 12
ITEM_MAX_CHARS = 80


def _bare_item(sentence: SentenceRow) -> bool:
    """A short line with no full stop and no list marker: an item of a list written a
    thing a line (a marked list's items have their own rules: `block_head`, `best_list`)."""
    text = sentence.text.strip()
    return 0 < len(text) <= ITEM_MAX_CHARS and "\n" not in text and text[-1] not in ".!?" \
        and not is_heading_line(text) and not _LIST_ITEM.match(text) and not _TABLE_ROW.match(text)


def headed_lines(sentences: list[SentenceRow], i: int) -> list[int]:
    """For heading i, the bare items right under it; for bare item i, its heading and its
    fellow items; [] otherwise."""
    head = i if is_heading_line(sentences[i].text) else None
    if head is None and _bare_item(sentences[i]):
        j = i
        while j > 0 and _bare_item(sentences[j - 1]) and i - j < UNDER_HEADING_MAX:
            j -= 1
        head = j - 1 if j > 0 and is_heading_line(sentences[j - 1].text) else None
    if head is None:
        return []
    under = []
    for j in range(head + 1, min(len(sentences), head + 1 + UNDER_HEADING_MAX)):
        if not _bare_item(sentences[j]):
            break
        under.append(j)
    return [head, *under] if under else []


def best_list(question: str, sentences: list[SentenceRow], sims: np.ndarray, min_similarity: float) -> list[int]:
    """The list of the chunk closest to the question, whole, with the line that introduces
    it ("## Ingredients" above nine items), as indexes; [] when the chunk has no list or
    none is close. A list is judged by its introducing line, which often names what the
    question asks for ("ingredients"), plus its items on average (one item close to the
    question does not make its list the one asked for). An introducing line that shares a
    word with the question names the list asked for: the embedding barely links
    "## Documents" to "which documents do I need to take?"."""
    best, best_sim, i = [], 2 * min_similarity, 0
    asked = content_stems(question)  # "document" and "documents" alike
    while i < len(sentences):
        if not _LIST_ITEM.match(sentences[i].text):
            i += 1
            continue
        block = list(list_block(sentences, i))
        lines = ([block[0] - 1] if block[0] > 0 else []) + block
        head = lines[0] != block[0] and _INTRODUCES.match(sentences[lines[0]].text)
        sim = (float(sims[lines[0]]) if head else 0.0) + float(np.mean(sims[block]))
        if head and content_stems(sentences[lines[0]].text) & asked:
            sim += _NAMED_LIST  # "## Documents" for "which documents do I need?"
        if sim >= best_sim:
            best, best_sim = lines, sim
        i = block[-1] + 1
    return best


# A line that introduces a list: a heading, a line ending in ":", a short line with no full
# stop ("Ingredients"); not a sentence of the item before that ran on ("Grease the tin.").
_INTRODUCES = re.compile(r"\s*(?:#{1,6}\s.*|.*:\s*|(?:\S+\s+){0,5}[^\s.]+\s*)$")


_NAMED_LIST = 0.5


def list_block(sentences: list[SentenceRow], i: int) -> range:
    """The indexes of the list items around list item i (the run of items it is one of)."""
    start = end = i
    while start > 0 and _LIST_ITEM.match(sentences[start - 1].text):
        start -= 1
    while end + 1 < len(sentences) and _LIST_ITEM.match(sentences[end + 1].text):
        end += 1
    return range(start, end + 1)


def most_words(question: str, sentences: list[SentenceRow]) -> list[int]:
    """Sentence indexes by the question's names and numbers they hold (each weighted by
    how few of the chunk's sentences hold it), best first; sentences holding none are left
    out. Names and numbers only: a question's verbs and common nouns ("used", "book") pick
    out sentences that merely share a word."""
    asked = {w.lower() for w in _NAME_OR_NUMBER.findall(question.split(" ", 1)[-1])}
    held = [{w.lower() for w in _WORD.findall(s.text)} & asked for s in sentences]
    counts = {w: sum(w in h for h in held) for w in asked}
    scores = [sum(1.0 / counts[w] for w in h) for h in held]
    order = sorted(range(len(sentences)), key=lambda i: -scores[i])
    return [i for i in order if scores[i] > 0]


# A capitalised word or a number (the question's first word aside: it is capitalised as
# the sentence's start).
_NAME_OR_NUMBER = re.compile(r"\b(?:[A-Z][\w'’-]*|\d[\d.,:/-]*)")


# A table row or a list item: the lines the sentence splitter keeps as sentences of their own.
_TABLE_ROW, _LIST_ITEM = TABLE_ROW, LIST_ITEM


def block_head(sentences: list[SentenceRow], i: int) -> int | None:
    """The index of what heads sentence i's block, when i is a table row (the table's
    first row: its header) or a list item (the line that introduces the list); None
    otherwise, or when the head is i itself or not in this chunk."""
    text = sentences[i].text
    kind = _TABLE_ROW if _TABLE_ROW.match(text) else _LIST_ITEM if _LIST_ITEM.match(text) else None
    if kind is None:
        return None
    j = i
    while j > 0 and kind.match(sentences[j - 1].text):
        j -= 1
    if kind is _LIST_ITEM:
        j -= 1  # the line before the first item
    return j if 0 <= j < i else None


def model_text(sentences: list[SentenceRow], resolved: bool = True) -> str:
    """What the model reads: the coreference-resolved text where there is one (with
    `resolved`). A table row or list item starts its own line: run together, "| January |
    ... | | October | ..." reads as one row."""
    out: list = []
    for s in sentences:
        text = ((resolved and s.resolved_text) or s.text).strip()
        if out:
            out.append("\n" if _TABLE_ROW.match(text) or _LIST_ITEM.match(text) else " ")
        out.append(text)
    return "".join(out)


# A short laid-out line ("Date: 4 April 2024", "Amount borrowed: €13,500.00") is as close
# to "What date is the street party?" as a line can be, whichever document it is in; read
# with the heading it is under, or its document's title, it is close only in the right one.
SHORT_UNIT_CHARS = 60


def read_in_place(sentence: SentenceRow, chunk: ChunkRow | None) -> str:
    """What a sentence is compared with the question as: a short line that is no sentence
    (no full stop) with the heading above it, else its document's title; any other
    sentence as it is."""
    text = sentence.text
    if chunk is None or len(text) > SHORT_UNIT_CHARS or "\n" in text.strip() or text.rstrip()[-1:] in ".!?":
        return text  # a sentence says what it is about itself
    place = heading_above(chunk, sentence.start) or chunk.title
    return f"{place}: {text}" if place and place.strip() != text.strip() else text


def grounded_selection(
    question: str, hits: list[Hit], sentences: dict[int, list[SentenceRow]],
    embed: Callable[[list[str]], np.ndarray], settings: SelectSettings = SelectSettings(),
    chunks: dict[int, ChunkRow] | None = None,
) -> dict[int, list[SentenceRow]]:
    """chunk id -> its selected sentences, for every hit (one embedding call for all);
    with `chunks`, short lines are compared in their place (`read_in_place`)."""
    flat = [s for h in hits for s in sentences.get(h.chunk_id, [])]
    chunks = chunks or {}
    texts = [read_in_place(s, chunks.get(s.chunk_id)) for s in flat]
    vecs = embed([question] + texts) if flat else np.zeros((1, 1))
    qvec, rest = vecs[0], vecs[1:]
    # The names of every hit count in every chunk: a bridge found in one passage is the
    # subject of the next.
    names = sorted({n for h in hits for n in entity_names(h)}, key=len, reverse=True)
    out, at = {}, 0
    for rank, h in enumerate(hits):
        sents = sentences.get(h.chunk_id, [])
        if rank == 0 and laid_out(sents):
            out[h.chunk_id] = read_whole(question, sents, settings.money)
        else:
            out[h.chunk_id] = select_sentences(question, qvec, h, sents, rest[at: at + len(sents)], names, settings)
        at += len(sents)
    return out


# A short document laid out a line a thing (a receipt, a ticket, a label): its lines are
# alike to the embedding ("TOTAL 65.93", "CASH 80.00", "Till 6"), so the best-ranked one is
# read whole, not by the lines closest to the question.
LAID_OUT_MAX_LINES = 30
LAID_OUT_SHARE = 0.7


def laid_out(sentences: list[SentenceRow]) -> bool:
    """Whether a chunk's sentences are a few short lines, most of them without a full stop."""
    if not 2 <= len(sentences) <= LAID_OUT_MAX_LINES:
        return False
    short = sum(_bare_item(s) or is_heading_line(s.text.strip()) for s in sentences)
    return short >= LAID_OUT_SHARE * len(sentences)


def read_whole(question: str, sentences: list[SentenceRow], money: bool) -> list[SentenceRow]:
    """Every line of a laid-out chunk, but for a question about `money` the figures beside
    its total that the question does not name (the cash handed over, the change)."""
    aside = figures_beside_the_total(question, sentences) if money else None
    if aside is None or aside.total is None:
        return list(sentences)
    return [s for i, s in enumerate(sentences) if i not in aside.beside_the_total]

