"""Sentence boundaries with character offsets.

Paragraphs (blank-line separated) are split first so that a sentence never spans a
heading or a paragraph break; spaCy's statistical sentence recogniser (the small `senter`
component, much faster than the full parser) then splits each paragraph.
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache
from pathlib import Path

from ..imports import hidden

from ..ingest.plain_text import metadata_spans

Span = tuple[int, int]

_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
# spaCy's memory grows with very long texts; a paragraph longer than this is cut at
# line breaks or spaces first (it is most likely a table or a dump, not prose).
_MAX_PARAGRAPH_CHARS = 100_000


def import_spacy():
    """spaCy, imported without torch (see assistant/imports.py)."""
    with hidden("torch"):
        import spacy
    return spacy


@lru_cache(maxsize=4)
def load_spacy(model_dir: str, components: tuple[str, ...] | None = None):
    """A spaCy pipeline from a local directory, with only the named components enabled."""
    spacy = import_spacy()
    nlp = spacy.load(Path(model_dir))
    if components is not None:
        for name in nlp.component_names:
            if name in components:
                nlp.enable_pipe(name)
            else:
                nlp.disable_pipe(name)
    nlp.max_length = max(nlp.max_length, _MAX_PARAGRAPH_CHARS + 10)
    return nlp


def paragraph_spans(text: str) -> list[Span]:
    spans, start = [], 0
    for m in _PARAGRAPH_BREAK.finditer(text):
        spans.append((start, m.start()))
        start = m.end()
    spans.append((start, len(text)))
    out = []
    for s, e in _cut_out(spans, metadata_spans(text)):
        # Trim surrounding whitespace so spans point at real text.
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if e <= s:
            continue
        while e - s > _MAX_PARAGRAPH_CHARS:
            cut = text.rfind("\n", s, s + _MAX_PARAGRAPH_CHARS)
            if cut <= s:
                cut = text.rfind(" ", s, s + _MAX_PARAGRAPH_CHARS)
            if cut <= s:
                cut = s + _MAX_PARAGRAPH_CHARS
            out.append((s, cut))
            s = cut
            while s < e and text[s].isspace():
                s += 1
        if e > s:
            out.append((s, e))
    return out


def _cut_out(spans: list[Span], holes: list[Span]) -> list[Span]:
    """`spans` without the (sorted) `holes`: a metadata line ends a paragraph."""
    out = []
    for s, e in spans:
        for hole_start, hole_end in holes:
            if hole_start < e and hole_end > s:
                if hole_start > s:
                    out.append((s, hole_start))
                s = max(s, hole_end)
        if e > s:
            out.append((s, e))
    return out


# What numbers or bullets a list item: "1." "2)" "(b)" "iv." "-" "•". spaCy often makes
# one a sentence of its own ("1." / "The minutes ... were approved."), and a citation of
# it would say nothing.
LIST_MARKER = re.compile(
    r"\(?(?:\d{1,3}|[a-zA-Z]|[ivxlcdm]{1,6}|[IVXLCDM]{1,6})[.)]|\d{1,3}|[-*+\u2022\u2023\u25e6\u25aa\u2013\u2014]"
)


# The marker of the next item, left at the end of a sentence ("...toll house.\n2.").
_TRAILING_MARKER = re.compile(r"\n[ \t]*(?:" + LIST_MARKER.pattern + r")\Z")


def merge_list_markers(text: str, spans: list[Span]) -> list[Span]:
    """Sentence spans of one paragraph of `text` with each bare list marker joined to the
    sentence it numbers; a marker with no sentence after it is dropped, and one written
    against the sentence before it (no space between) ends that sentence."""
    out: list[Span] = []
    opened = None  # where the pending markers start
    for s, e in spans:
        if out and opened is None and s == out[-1][1] and LIST_MARKER.fullmatch(text[s:e]):
            out[-1] = (out[-1][0], e)  # no space before it: the end of "**Term dates**"
            continue
        if LIST_MARKER.fullmatch(text[s:e]):
            opened = s if opened is None else opened
            continue
        start, opened = (s if opened is None else opened), None
        trailing = _TRAILING_MARKER.search(text, s, e)
        if trailing is not None:
            opened = e - len(trailing.group().lstrip())
            e = len(text[:trailing.start()].rstrip())
        out.append((start, e))
    return out


# Sentences glued without a space ("...this year.We used the proceeds..."), common in
# transcripts and in text taken out of PDFs: spaCy keeps them one sentence. A full stop
# (or ? or !) between a lower-case word of two letters or more (or a number, a closing
# bracket or quote) and a capitalised word, an acronym or a code ("SG&A", "Q3") ends a
# sentence; an abbreviation's does not.
_GLUED = re.compile(r"(?:(?<![A-Za-z])(?P<word>[a-z][a-z]+)|[0-9%)\]\"”’])(?P<stop>[.!?]+)(?=[A-Z][a-zA-Z0-9&])")
_ABBREVIATIONS = frozenset("mr mrs ms dr prof st mt jr sr inc ltd co corp vs etc no vol pp www fig eq approx".split())


def split_glued(text: str, spans: list[Span]) -> list[Span]:
    """`spans` with each sentence cut where two sentences are glued without a space."""
    out: list[Span] = []
    for s, e in spans:
        for m in _GLUED.finditer(text, s, e):
            word = m.group("word")
            if word and word in _ABBREVIATIONS:
                continue
            cut = m.end("stop")
            if cut - s > 1:
                out.append((s, cut))
                s = cut
        out.append((s, e))
    return out


# Lines that are sentences of their own whatever their punctuation: a table row, a list
# item, a heading, a checkbox. spaCy would read a whole table or list as one sentence, and
# a citation of it would quote the table.
TABLE_ROW = re.compile(r"[ \t]*\|")
LIST_ITEM = re.compile(r"[ \t]*(?:[-*+\u2022][ \t]|\d{1,3}[.)][ \t]|\[[ xX]\][ \t])")
_HEADING_UNIT = re.compile(r"[ \t]*#{1,6}[ \t][^\n]*\Z")
_OWN_LINE = re.compile(rf"{TABLE_ROW.pattern}|{LIST_ITEM.pattern}|[ \t]*#{{1,6}}[ \t]")
_RULE_CHARS = frozenset(" \t:|-")

# Laid-out text (a letterhead, an address, a bill, a form, a PDF page's table) is lines
# with no full stops: read as one run, a "sentence" would be a whole page. A line ends its
# unit where the layout says so: it is a field ("Total due: EUR 60", "Marta Sousa — Head of
# Investor Relations"), a row of cells ("Parking | Bay 14") or of columns set apart by
# spaces, or it is short beside the run's
# widest line (a wrapped paragraph's lines are nearly as wide as each other); and the next
# line starts as a new line would, not with a lower-case word that carries the sentence on.
_FIELD_LINE = re.compile(r"[ \t]*[^\s:][^:\n]{0,39}(?::|[ \t][\u2013\u2014])[ \t]+\S")
_COLUMN_GAP = re.compile(r"\S(?: {3,}|\t+)\S")
_CELLS = " | "
SHORT_LINE_CHARS = 40
# A run whose lines are all this short is a list written a thing a line ("early
# potatoes", "broad beans"), never a paragraph wrapped so narrow.
LIST_LINE_CHARS = 25
SHORT_LINE_SHARE = 0.7


def is_table_rule(line: str) -> bool:
    """A table's rule line ("|---|:--|", "-----"): only rule characters, two dashes or more."""
    return "--" in line and set(line) <= _RULE_CHARS


def _laid_out(line: str) -> bool:
    """A line that is a unit of its own whatever follows it: a field, cells, columns."""
    return len(line) <= 120 and bool(_FIELD_LINE.match(line) or _CELLS in line or _COLUMN_GAP.search(line.strip()))


def layout_breaks(lines: list[str]) -> list[bool]:
    """For each line of a run, whether a unit ends after it."""
    widest = max((len(line.strip()) for line in lines), default=0)
    short = max(SHORT_LINE_CHARS, SHORT_LINE_SHARE * widest)
    breaks = []
    for line, following in zip(lines, lines[1:] + [""]):
        nxt = following.strip()
        starts_anew = bool(nxt) and (not nxt[0].islower() or widest < LIST_LINE_CHARS) and not _carries_on(line)
        breaks.append(heads_lines(line) or (starts_anew and (_laid_out(line) or _laid_out(following)
                                                          or len(line.strip()) < short)))
    return breaks


# A line that ends inside its sentence: after a comma, a dash or a word that joins ("Present:
# Margaret Oduya (chair), Joe Rahman," / "Clara Hollis, ..."): the next line goes on with it.
_CARRIES_ON = re.compile(r"(?:[,&\u2013\u2014-]|\b(?:and|or|of|the|a|an|to|with|for|in|on|at|by|from))\s*$")


def _carries_on(line: str) -> bool:
    return bool(_CARRIES_ON.search(line))


def heads_lines(line: str) -> bool:
    """A line in capitals ("PLANTED IN APRIL") or a short lead-in ending in ":": it heads
    the lines under it, whatever their case. (The answer's check reads a line with the one
    that heads it by this same test: answer/grounding/sections.py.)"""
    text = line.strip()
    letters = [c for c in text if c.isalpha()]
    capitals = len(letters) >= 4 and all(c.isupper() for c in letters) and len(text) <= 80
    return capitals or (text.endswith(":") and len(text) <= 60)


def line_units(text: str, start: int, end: int) -> list[Span]:
    """The paragraph text[start:end] as units for the sentence recogniser: each table row,
    list item or heading alone, laid-out lines each alone (`layout_breaks`), the lines of
    a wrapped paragraph together; a table's rule line ("|---|---|") is no sentence and is
    left out."""
    units: list[Span] = []
    run: list[tuple[int, str]] = []  # the current run of ordinary lines: (start, line)

    def close_run() -> None:
        opened = None
        for (line_start, line), cut in zip(run, layout_breaks([line for _, line in run])):
            opened = line_start if opened is None else opened
            if cut:
                units.append((opened, line_start + len(line)))
                opened = None
        if opened is not None:
            units.append((opened, run[-1][0] + len(run[-1][1])))
        run.clear()

    pos, item = start, None  # item: the list item a wrapped line may go on from
    for line in text[start:end].split("\n"):
        line_start = pos
        pos = line_start + len(line) + 1
        if item is not None and line.strip() and not _OWN_LINE.match(line) and _goes_on(text[item:line_start], line):
            # "1. Patio to be moved 1.5 m, because the drain inspection chamber" goes on
            # "   sits right where the new steps would go.": one item, one unit.
            units[-1] = (item, line_start + len(line))
            continue
        item = None
        if _OWN_LINE.match(line) or is_table_rule(line):
            close_run()
            if not is_table_rule(line) and line.strip():
                units.append((line_start, line_start + len(line)))
                item = line_start if LIST_ITEM.match(line) else None
        elif line.strip():
            run.append((line_start, line))
    close_run()
    return [(s, e) for s, e in units if text[s:e].strip()]


def _goes_on(item: str, line: str) -> bool:
    """Does `line` go on with the list item above it: indented under it, or starting in
    lower case after an item that ends mid-sentence?"""
    last = item.rstrip()
    return line[:1] in " \t" or (bool(last) and last[-1] not in ".!?:;" and line.lstrip()[:1].islower())


class SentenceSplitter:
    def __init__(self, spacy_dir: Path):
        self.spacy_dir = str(spacy_dir)
        self._lock = threading.Lock()

    @property
    def nlp(self):
        return load_spacy(self.spacy_dir, ("senter",))

    def split_many(self, texts: list[str]) -> list[list[Span]]:
        """Sentence spans for each text (batched through spaCy for speed)."""
        jobs: list[tuple[int, int]] = []  # (text index, paragraph start)
        paras: list[str] = []
        for i, text in enumerate(texts):
            for ps, pe in paragraph_spans(text):
                for s, e in line_units(text, ps, pe):
                    jobs.append((i, s))
                    paras.append(text[s:e])
        result: list[list[Span]] = [[] for _ in texts]
        with self._lock:
            docs = self.nlp.pipe(paras, batch_size=128)
            for (i, base), para, doc in zip(jobs, paras, docs):
                # `para`, never `doc.text`: spaCy rebuilds that from every token on each
                # access, which made a long paragraph quadratic (minutes per MB).
                spans = []
                if _HEADING_UNIT.match(para):
                    # "## 1. Minutes of the last meeting" is one heading: spaCy cut it after
                    # "1.", leaving a unit that names nothing.
                    spans.append((0, len(para.rstrip())))
                for sent in doc.sents if not spans else ():
                    s, e = sent.start_char, sent.end_char
                    while e > s and para[e - 1].isspace():
                        e -= 1
                    if e > s:
                        spans.append((s, e))
                result[i].extend((base + s, base + e) for s, e in merge_list_markers(para, split_glued(para, spans)))
        return result

    def split(self, text: str) -> list[Span]:
        return self.split_many([text])[0]
