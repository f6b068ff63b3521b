"""The short answer first: a span the model copies from its sources ("1867", "Margarethe
Olsson"), said at once, then the source sentence that states it, cited, the span marked in
it. A span that repeats the question's own name, or one no sentence of the sources states,
answers nothing (under strict grounding: "I don't know").
"""

from __future__ import annotations

import re
import time
from typing import Callable

import numpy as np

from ...nlp.llm import Generator
from ...retrieve.base import Evidence, Hit
from ...retrieve.baseline import content_stems
from ...store.row_types import ChunkRow, SentenceRow
from ..grounding.check import check_sentence
from ..grounding.citations import Citation
from ..question.compare import same_answer
from ..question.plan import Plan
from ..question.reading import Words
from ..grounding.context import content_words
from ..passages import named_words
from ..prompt import NO_ANSWER, Source
from ..records.record import Answer, SentenceCheck
from ..grounding.sections import heading_above, is_heading_line
from ..grounding.text import is_heading
from .asked_for import counted_in, latest_entry, not_a_count
from .list_asked import list_asked, said_as_sections
from .labelled import labelled_amount, named_cell
from .listed import attendance_asked, listed_under, said_as_list
from ..records.wording import fuller_date, fuller_name, named_in_full, reads_as_prose, with_unit, worded
from .sentence import said_in_a_sentence
from .short import UNKNOWN, clean_span, repeats, span_stream
from .unnamed import Tagger, not_said_text, question_nouns, unsaid


def emit(answer: Answer, text: str, on_token) -> None:
    """`text` as the whole answer, shown."""
    answer.text = text
    if on_token:
        on_token(text)


def source_blocks(sources: list[Source]) -> list[str]:
    return [f"[{s.n}] {s.label()}: {s.text}" for s in sources]


def numbered_blocks(plan: Plan, sources: list[Source]) -> list[str] | None:
    """The sources' lines that write every number the question names a thing by ("number
    31": 'Zara is also the landlord of number 31'), each under its source's number; None
    where the question names none or no line writes them. A tenancy agreement's landlord,
    ranked above the letter, is no answer to "who's the landlord at number 31?"."""
    if not plan.numbered:
        return None
    wanted = set(plan.numbered)
    blocks = []
    for src in sources:
        lines = [s.text for s in src.sentences if wanted <= set(Words.of(s.text).all)]
        if lines:
            blocks.append(f"[{src.n}] {src.label()}: {' '.join(' '.join(line.split()) for line in lines)}")
    return blocks or None


class SpanFirst:
    """Asks `generator` for the span; finds its sentence with `embed` (the encoder); with
    `tag`, a question that names nothing is answered only by a sentence about its nouns."""

    def __init__(self, generator: Generator, embed: Callable[[list[str]], np.ndarray], strict: bool,
                 tag: Tagger | None = None,
                 read_document: Callable[[str], list[tuple[ChunkRow, SentenceRow]]] | None = None,
                 sentences: bool = True):
        self.generator = generator
        self.embed = embed
        self.strict = strict
        self.tag = tag
        self.read_document = read_document  # a document's sentences, by its path
        self.sentences = sentences  # the short answer said in a sentence the model writes

    def said(self, answer: Answer, span: str, sent: SentenceRow, src: Source, on_draft=None,
             naming: SentenceRow | None = None) -> str | None:
        """The short answer in a sentence the model writes and the line backs
        (`sentence.said_in_a_sentence`, shown as it is written with `on_draft`); None where
        it fails its check."""
        t0 = time.perf_counter()
        evidence = [f"{heading_above(src.chunk, sent.start) or ''} {sent.text} {sent.resolved_text or ''}", src.label(),
                    *([naming.text] if naming is not None else [])]
        try:
            return said_in_a_sentence(self.generator, answer.question, span, with_unit(span, sent.text), sent.text,
                                      src.n, evidence, self.tag, on_draft=on_draft)
        finally:
            answer.timings.generate = (answer.timings.generate or 0.0) + time.perf_counter() - t0

    def first(self, answer: Answer, plan: Plan, all_sentences: dict, on_token, stop, on_draft,
                     not_answers: tuple[str, ...] = (), emit_unknown: bool = True, about: str | None = None) -> bool:
        """The span, then the source sentence that states it (the span highlighted). A span
        that names what the question asks about, or one of `not_answers`, answers nothing.
        Whether the question is settled: a span found, or the sentence that states it about
        another thing than the question's ("I don't know", shown). When no span is found,
        "I don't know" is shown only with `emit_unknown` (otherwise the caller writes an
        answer instead)."""
        unknown = (lambda: emit(answer, NO_ANSWER, on_token)) if emit_unknown else (
            lambda: setattr(answer, "text", NO_ANSWER))
        blocks = numbered_blocks(plan, answer.sources) or source_blocks(answer.sources)
        t1, first, pieces = time.perf_counter(), None, []
        answer.timings.started = t1
        stream = span_stream(self.generator, plan, blocks, stop=stop)
        try:
            for piece in stream:
                if first is None:
                    first = time.perf_counter() - t1
                pieces.append(piece)
                if on_draft:
                    on_draft("".join(pieces))
        finally:
            stream.close()
        answer.timings.generate = time.perf_counter() - t1
        answer.timings.first_token = first or 0.0
        span = clean_span("".join(pieces))
        if stop is not None and stop.is_set():
            return False  # stopped: an unchecked span is not an answer
        denial = denied(plan, span, answer.sources, all_sentences, self.embed)
        if denial is not None:
            # "Is there a council tax payment in March?" of a bill that says "No payments are
            # due in February and March": the model said yes, or did not know.
            span = "no"
        if not span or span.lower() == UNKNOWN:
            unknown()
            return False
        if not_an_answer(plan, span, not_answers):
            answer.unsupported = span  # what the model said, not shown as an answer
            unknown()
            return False
        return self.state(answer, plan, span, all_sentences, on_token, unknown, about, on_draft, denial)

    def labelled(self, answer: Answer, plan: Plan, all_sentences: dict, on_token, on_draft=None) -> bool:
        """A question that names its amount's line by the line's label ("What change was I
        given?" of a receipt's "CHANGE 28.76"): that amount, stated and cited as a span the
        model gave would be (`labelled.labelled_amount`), no model asked for it. Whether
        one did."""
        found = labelled_amount(plan, answer.sources)
        if found is None:
            found = named_cell(plan, answer.sources, self.embed)
        if found is None:
            return False
        answer.timings.generate = answer.timings.first_token = 0.0
        return self.state(answer, plan, found[0], all_sentences, on_token, lambda: emit(answer, NO_ANSWER, on_token),
                          on_draft=on_draft)

    def listed(self, answer: Answer, plan: Plan, on_token) -> bool:
        """A question about a list answered by its lines as the document lays them out
        (`list_asked`), no model needed: the first source's document that answers it, every
        line cited. Whether one did."""
        if self.read_document is None:
            return False
        for path in dict.fromkeys(src.chunk.path for src in answer.sources):
            sections = list_asked(plan, self.read_document(path), self.tag, self.embed)
            if sections:
                break
        else:
            return False
        items = [item for section in sections for item in section.items]
        number = {chunk.id: self._source_of(answer, chunk, [sent for c, sent in items if c.id == chunk.id]).n
                  for chunk, _sent in items}
        answer.timings.generate = answer.timings.first_token = 0.0
        emit(answer, said_as_sections(sections, number), on_token)
        by_chunk = {src.chunk.id: src for src in answer.sources}
        answer.citations = [_cited(by_chunk[chunk.id], sent) for chunk, sent in items]
        return True

    @staticmethod
    def _source_of(answer: Answer, chunk: ChunkRow, sentences: list[SentenceRow]) -> Source:
        """The source that is `chunk`, holding `sentences` (one added where it is none)."""
        src = next((s for s in answer.sources if s.chunk.id == chunk.id), None)
        if src is None:
            src = Source(len(answer.sources) + 1, Hit(chunk.id, 0.0, answer.retriever, Evidence()), chunk, [],
                         chunk.text)
            answer.sources.append(src)
        src.sentences = sorted({s.id: s for s in [*src.sentences, *sentences]}.values(), key=lambda s: s.id)
        return src

    def attendance(self, answer: Answer, plan: Plan, all_sentences: dict, on_token) -> bool:
        """"Who was at the committee meeting?" answered by the minutes' "Present:" line,
        its names as written, cited; whether a source has one."""
        if not plan.attendance:
            return False
        found = attendance_asked(answer.question, answer.sources, all_sentences)
        if found is None:
            return False
        src, sent, names = found
        answer.timings.generate = answer.timings.first_token = 0.0
        emit(answer, f"{names[:1].upper()}{names[1:]} [{src.n}].", on_token)
        answer.citations = [_cited(src, sent)]
        if all(s.id != sent.id for s in src.sentences):
            src.sentences = sorted([*src.sentences, sent], key=lambda s: s.id)
        return True

    def latest(self, answer: Answer, plan: Plan, span: str, found: tuple) -> tuple[tuple, str]:
        """(where it is stated, the span) for "at its last service": the latest-dated entry
        of the document the span came from, where the model copied an earlier one's value;
        its passage joins the sources where it was not one of them."""
        src, sent, _ = found
        if plan.latest is None or self.read_document is None:
            return found, span
        later = latest_entry(plan.latest, span, sent.text, self.read_document(src.chunk.path))
        if later is None:
            return found, span
        span, chunk, sent = later
        src = next((s for s in answer.sources if s.chunk.id == chunk.id), None)
        if src is None:
            src = Source(len(answer.sources) + 1, Hit(chunk.id, 0.0, answer.retriever, Evidence()), chunk, [sent],
                         sent.text)
            answer.sources.append(src)
        at = sent.text.find(span)
        return (src, sent, at if at >= 0 else None), span

    def state(self, answer: Answer, plan: Plan, span: str, all_sentences: dict, on_token, unknown,
              about: str | None = None, on_draft=None, support: tuple | None = None) -> bool:
        """The span said, then the sentence of the sources that states it (`support`, where
        it is known), cited (a sentence found in the rest of a chunk joins its source: the
        check reads what is quoted)."""
        found = support or support_for(plan, span, answer.sources, all_sentences, self.embed)
        if found is not None and plan.counted and not_a_count(plan.counted, span, found[1].text, found[2]):
            # "How many members does the co-op have?" answered "412,600" of "£412,600": the
            # count the sources write with the question's noun ("1,184 members"), or none.
            counted = counted_in(plan.counted, answer.sources, all_sentences)
            if counted is None:
                answer.unsupported = span
                unknown()
                return False
            span = counted
            found = support_for(plan, span, answer.sources, all_sentences, self.embed)
        if found is not None:
            found, span = self.latest(answer, plan, span, found)
        if found is not None and (whole := fuller_name(fuller_date(span, found[1].text), found[1].text)) != span:
            # "2025" of "5 March 2025", "Zara" of "Zara Castell, the landlord": said whole.
            at = found[1].text.find(whole)
            span, found = whole, (found[0], found[1], at if at >= 0 else None)
        span, found, naming = in_full(span, found, all_sentences)
        answer.short = span
        if found is None:
            # No sentence states it: not shown as an answer (strict), or shown marked.
            answer.text = f"{_capitalise(span)}."
            answer.checks = [SentenceCheck(answer.text, False, "no sentence of the sources states this answer")]
            if self.strict:
                answer.unsupported, answer.short = span, None
                unknown()
                return False
        else:
            src, sent, offset = found
            # `about`: the question a part comes from, where the part points back ("which room
            # is it in?"): the thing is the other part's, said in the whole question.
            nouns = question_nouns(about or answer.question, self.tag) if self.tag and self.strict else []
            if unsaid(nouns, src.chunk, sent, self.tag):
                # "Which day are the bins collected?" by "Mobile phones will be collected on
                # Tuesday": the day of another thing; a written answer would read the same.
                answer.unsupported, answer.short, answer.abstained = span, None, True
                emit(answer, not_said_text(NO_ANSWER, nouns), on_token)
                return True
            if all(s.id != sent.id for s in src.sentences):
                # Found in the rest of the chunk: the source now holds it, so the check and
                # the citations read the sentence the answer quotes.
                src.sentences = sorted([*src.sentences, sent], key=lambda s: s.id)
            citation = Citation(
                n=src.n, path=src.chunk.path, title=src.chunk.title, page=sent.page, start=sent.start, end=sent.end,
                text=sent.text, chunk_id=src.chunk.id, sentence_id=sent.id, attributed=False,
                span_start=None if offset is None else sent.start + offset,
                span_end=None if offset is None else sent.start + offset + len(span),
            )
            answer.text = worded(span, sent.text, src.n)
            answer.citations = [citation]
            if naming is not None:  # the sentence that says the name in full is cited too
                answer.citations.append(_cited(src, naming))
                if all(s.id != naming.id for s in src.sentences):
                    src.sentences = sorted([*src.sentences, naming], key=lambda s: s.id)
            listed = listed_under(answer.question, src.chunk, sent, all_sentences.get(src.chunk.id, src.sentences), span)
            if listed:  # "What did I plant in April?": every line under "PLANTED IN APRIL"
                answer.text = said_as_list(listed, src.n)
                answer.citations = [_cited(src, s) for s in listed]
                src.sentences = sorted({s.id: s for s in [*src.sentences, *listed]}.values(), key=lambda s: s.id)
            elif self.sentences and span.lower() not in ("yes", "no"):
                # (A yes or no keeps the line that says what was asked: "Yes. Bicycles: yes,
                # up to €1,500 each ..." says more than any sentence the model wrote of it.)
                written = self.said(answer, span, sent, src, on_draft, naming)
                if written:  # checked against the line it says, as the answer's check would
                    answer.text, answer.checks = written, [SentenceCheck(written, True, "")]
                elif reads_as_prose(sent.text):
                    # Never the short answer and then the sentence that holds it pasted
                    # ("Ada Lind. The last keeper was Ada Lind, ..."): the answer alone, cited.
                    answer.text = f"{_capitalise(with_unit(span, sent.text))} [{src.n}]."
        if on_token:
            on_token(answer.text)
        return True


def in_full(span: str, found: tuple | None, all_sentences: dict) -> tuple[str, tuple | None, SentenceRow | None]:
    """(the span, where it is stated, the sentence that names it in full): "Zara" of "Zara
    is also the landlord" is "Zara Castell", where the passage names her in full elsewhere."""
    if found is None:
        return span, found, None
    others = [s for s in all_sentences.get(found[0].chunk.id, found[0].sentences) if s.id != found[1].id]
    full = named_in_full(span, [s.text for s in others])
    if full is None:
        return span, found, None
    return full[0], (found[0], found[1], None), others[full[1]]


def _cited(src: Source, sent) -> Citation:
    return Citation(n=src.n, path=src.chunk.path, title=src.chunk.title, page=sent.page, start=sent.start,
                    end=sent.end, text=sent.text, chunk_id=src.chunk.id, sentence_id=sent.id, attributed=False)


def not_an_answer(plan: Plan, span: str, not_answers: tuple[str, ...] = ()) -> bool:
    """A span that repeats the question's own name ("Lisbeth Palme" to "What is the place of
    birth of Lisbeth Palme's husband?") or is a known non-answer (a chain's bridge). A
    question that offers options ("X or Y", "out of X and Y", "born first") is answered by
    one of its own words."""
    if any(same_answer(span, other) for other in not_answers if other):
        return True
    return plan.kind == "short" and not plan.offers_options and repeats(span, plan.question)


def found_in(text: str, needle: str) -> int:
    """Where `needle` is written in `text`, or -1; a number only as a whole number: "4" is
    not said by "20 May 2024" or "2.4 m", nor "£18" by "£189.00", nor by the "4." that
    numbers a list item."""
    at = text.find(needle)
    while at >= 0:
        end = at + len(needle)
        runs_on_before = needle[:1].isdigit() and _NUMBER_GOES_ON_BEFORE.search(text[:at])
        runs_on_after = needle[-1:].isdigit() and _NUMBER_GOES_ON_AFTER.match(text[end:])
        numbers_an_item = needle.isdigit() and _ITEM_NUMBER.match(text[end:]) and not text[:at].split("\n")[-1].strip()
        if not (runs_on_before or runs_on_after or numbers_an_item):
            return at
        at = text.find(needle, at + 1)
    return -1


_ITEM_NUMBER = re.compile(r"[.)](?:\s|$)")
# A number goes on through a digit, or a decimal point or thousands comma between digits
# ("£189" is "£189.00", though: its decimals say nothing more).
_NUMBER_GOES_ON_BEFORE = re.compile(r"(?:\d|\d[.,])$")
_NUMBER_GOES_ON_AFTER = re.compile(r"\d|,\d|\.0*[1-9]")


def support_for(plan: Plan, span: str, sources: list[Source], all_sentences: dict, embed):
    """(source, sentence, offset of the span in it or None) that best states the short
    answer, among the sentences the model read and then the rest of their chunks: one that
    contains the span; for yes or no, the one closest to the question; else one that states
    every name and number of the span. None when no sentence does."""
    needle, question = span.lower(), plan.question
    pool = []
    for src in sources:
        shown = {s.id for s in src.sentences}
        for sent in sorted(all_sentences.get(src.chunk.id, src.sentences), key=lambda s: s.id not in shown):
            pool.append((src, sent))
    if plan.kind == "yesno" and needle in ("yes", "no"):
        # A heading ("# Home insurance summary") states nothing to say yes or no by; a
        # field does ("Microchip: 941000024681357" to "Is Mungo microchipped?").
        candidates = [(src, sent, None) for src, sent in pool if not is_heading(sent.text)
                      and not is_heading_line(sent.text)
                      and (len(sent.text.split()) >= 4 or _FIELD.match(sent.text))] or [
            (src, sent, None) for src, sent in pool]
        candidates = _saying_what_is_asked(question, candidates)
    else:
        candidates = []
        for src, sent in pool:
            at = found_in(sent.text.lower(), needle)
            if at >= 0 or (sent.resolved_text and found_in(sent.resolved_text.lower(), needle) >= 0):
                candidates.append((src, sent, at if at >= 0 else None))
        if not candidates:
            candidates = [(src, sent, None) for src, sent in pool
                          if check_sentence(span, [f"{sent.text} {sent.resolved_text or ''}"], question).supported
                          and content_words(span) & content_words(f"{sent.text} {sent.resolved_text or ''}")]
    if len(candidates) <= 1:
        return candidates[0] if candidates else None
    vecs = embed([f"{question} {span}"] + [c[1].text for c in candidates])
    return candidates[int(np.argmax(vecs[1:] @ vecs[0]))]


_FIELD = re.compile(r"\s*[A-Za-z][\w ()/-]{0,40}:\s+\S")
_NEGATIONS = frozenset("no not none never nothing nor cannot n't".split())


def denied(plan: Plan, span: str, sources: list[Source], all_sentences: dict, embed) -> tuple | None:
    """(source, sentence, None) of the line that says no to a yes-or-no question the model
    said yes to (or could not answer): the line that says most of what the question asks,
    its rarer words weighing more and its document's name words not at all (a council tax
    bill says "council tax" in many lines, "March" and "payments" in few),
    where that line is a negation ("No payments are due in February and March"); None
    otherwise, or where another line says as much without one."""
    if plan.kind != "yesno" or span.strip().lower() == "no":
        return None
    pool = [(src, sent) for src in sources for sent in all_sentences.get(src.chunk.id, src.sentences)
            if not is_heading(sent.text)]
    # The words that name a line's document ("council-tax-2025-26.txt") say which document,
    # not which of its lines.
    stems = [content_stems(sent.text, min_length=3)
             - content_stems(" ".join(named_words(src.chunk.path, src.chunk.title)), min_length=3) for src, sent in pool]
    asked = content_stems(plan.question, min_length=3)
    rarity = {w: 1.0 / sum(w in s for s in stems) for w in asked if any(w in s for s in stems)}
    scores = [sum(rarity.get(w, 0.0) for w in s & asked) for s in stems]
    best = max(scores, default=0.0)
    top = [pair for pair, score in zip(pool, scores) if score == best and best > 0]
    if len(top) > 1:
        vecs = embed([plan.question] + [sent.text for _, sent in top])
        top = [top[int(np.argmax(vecs[1:] @ vecs[0]))]]
    if not top or len(asked & content_stems(top[0][1].text, min_length=3)) < 2:
        return None
    src, sent = top[0]
    said = set(Words.of(sent.text.replace("\u2019", "'")).all) | ({"n't"} if "n't" in sent.text.lower() else set())
    return (src, sent, None) if said & _NEGATIONS else None


def _saying_what_is_asked(question: str, candidates: list) -> list:
    """The candidates that say most of what a yes-or-no question asks (its words written
    in lower case: "microchipped" of "Is Mungo microchipped?"), not those that only name
    its subject ("Mungo: annual booster"); all of them where none says any of it."""
    asked = content_stems(" ".join(w for w in question.split()[1:] if not w[:1].isupper()), min_length=3)

    def said(c) -> int:
        return len(asked & content_stems(f"{c[1].text} {c[1].resolved_text or ''}", min_length=3))

    most = max((said(c) for c in candidates), default=0)
    return [c for c in candidates if said(c) == most] if most else candidates


def _capitalise(text: str) -> str:
    return text[:1].upper() + text[1:]
