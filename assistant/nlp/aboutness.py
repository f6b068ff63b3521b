"""What a document, or a section of it, is about: the mentions that make a chunk the
*home* of an entity class (the passages about X, where hop goes when a question names X).

A title written in the first sentence is one (`TITLE`). Where no title names the
document, the named subject of its opening sentence is (`ABOUT`); a heading line that
names something makes its section about it, and so does the named subject of the
sentence that opens the section. These edit sentence graphs in place, before
coreference reads them.
"""

from __future__ import annotations

import re

from .extract import NAME_SMALL_WORDS, Mention, SentenceGraph, is_named_kind
from .normalize import entity_key

# Bump when the rules below change what an index holds (evaluation caches and an index's
# recorded entity rules key on it). 4: an untitled document is about the name its defining
# opening sentence writes (defined_name). 5: a line inside a block of lines (a letterhead,
# an address, a form's fields), now a unit of its own, is no heading.
ABOUTNESS_VERSION = 5


def title_mention_in(title: str, graph: SentenceGraph, base: int, text: str,
                     kind: str = "TITLE", alongside: bool = False) -> tuple[Mention | None, bool]:
    """The document title as a mention in its first sentence, when it is written there.
    `alongside`: added beside the mentions it overlaps, which keep their kinds (a section's
    subject stays a person that "she" can refer to)."""
    at = text.lower().find(title.lower().strip())
    key = entity_key(title)
    if at < 0 or not key:
        return None, False
    start, end = base + at, base + at + len(title.strip())
    overlapping = [i for i, m in enumerate(graph.mentions) if m.start < end and m.end > start]
    person = any(graph.mentions[i].kind == "PERSON" for i in overlapping)
    mention = Mention(start, end, text[at: at + len(title.strip())], key, kind, title.strip())
    if alongside:
        graph.mentions.append(mention)
    elif overlapping:
        # The first overlapping mention becomes the title (its roles now point at the
        # title); the others lose their key and are dropped by compact().
        graph.mentions[overlapping[0]] = mention
        for i in overlapping[1:]:
            graph.mentions[i].key = ""
    else:
        graph.mentions.append(mention)
    return mention, person


def subject_mention(graph: SentenceGraph, base: int, text: str, alongside: bool = False) -> tuple[Mention | None, bool]:
    """What a document that no title names is about: the named subject of its opening
    sentence ("Luis Mandoki (born 1954) is a Mexican film director"), written into the
    graph as an ABOUT mention, the home of its class as a title is. A definition's subject
    as written ("I Cover the Underworld is a 1955 film", "Michael Curtiz (born Mano
    Kaminer; ...) was a ..."), which a parse can miss or cut; else from the parse where
    the extractor gives one; else the named mention before the main verb."""
    defined = defined_name(text)
    if defined is not None:
        return title_mention_in(defined, graph, base, text, kind="ABOUT", alongside=alongside)
    if graph.subject is not None:
        start, end = graph.subject
        return title_mention_in(text[start - base: end - base], graph, base, text, kind="ABOUT", alongside=alongside)
    main = next((a for a in graph.actions if any(r in ("agent", "patient") for r, _ in a.roles)), None)
    named = [i for i, m in enumerate(graph.mentions)
             if main is not None and m.key and m.end <= main.start and is_named_kind(m.kind)]
    if not named:
        return None, False
    fillers = {i for r, i in main.roles if r in ("agent", "patient")}
    m = graph.mentions[next((i for i in named if i in fillers), named[0])]
    return title_mention_in(m.text, graph, base, text, kind="ABOUT", alongside=alongside)


# "X is a ...", "X (born 1954) was an ...", "X, is a ...": a sentence that defines what
# it opens with (asides in brackets taken out first).
_DEFINITION = re.compile(r"^(?P<name>[^\W\d_][^;]{0,120}?)(?:\s*,)?\s+(?:is|was)\s+(?:a|an|the|one)\s")
_BRACKETED = re.compile(r"\s*[(\[][^()\[\]]*[)\]]")
# An aside after a comma starts in lower case (", the chair,") or with letters such as
# "O.F.M." or "Jr."; a comma inside a title does not ("Love, Honor and Oh-Baby!").
_ASIDE = re.compile(r"\s*(?:,\s+(?=[a-z]|[A-Z]\.|[A-Z]{2}|Jr\b|Sr\b)|\s(?:or|also|aka)\s)")
# The small words a defined subject may hold ("Louis the Junker of Hesse", "Simon & Garfunkel").
_NAME_JOINERS = NAME_SMALL_WORDS | {"&", "del", "da", "di", "den", "y"}
_PRONOUNS = {"it", "he", "she", "they", "this", "that", "these", "those", "i", "we", "you", "there"}


def defined_name(sentence: str, max_words: int = 10) -> str | None:
    """The name a defining sentence opens with, cut before an aside ("(born 1954)", ",
    the chair,") or an alternative name ("Possession or Phroso"): `None` where the
    sentence is not a definition or does not open with a name ("The results are the...",
    "It was a ...")."""
    text = sentence.lstrip(" \"'\u201c")
    for _ in range(3):  # nested brackets, innermost first
        text = _BRACKETED.sub("", text)
    m = _DEFINITION.match(text)
    if not m:
        return None
    name = _ASIDE.split(m.group("name"), maxsplit=1)[0].strip(" ,\"'\u201d")
    words = name.split()
    if not words or len(words) > max_words or (len(words) == 1 and words[0].lower() in _PRONOUNS):
        return None
    if not all(w[:1].isupper() or w[:1].isdigit() or w in _NAME_JOINERS for w in words) or words[-1] in _NAME_JOINERS:
        return None
    return name if name in sentence else None


_HEADING_MARK = re.compile(r"^\s*(?:#{1,6}|\*{1,6}(?=\s)|=+|-+)?\s*")


def heading_text(doc_text: str, start: int, end: int, max_words: int = 12) -> str | None:
    """The text of a sentence that is a heading: a line of its own (Markdown "## ...", an
    HTML or DOCX heading paragraph), short, without a sentence's closing punctuation."""
    line = doc_text[start:end]
    if "\n" in line.strip() or (start > 0 and doc_text[start - 1] != "\n"):
        return None
    if end < len(doc_text) and doc_text[end] != "\n":
        return None
    marked = bool(_HEADING_MARK.match(line).group().strip())
    text = _HEADING_MARK.sub("", line).strip().rstrip("#").strip()
    if not text or len(text.split()) > max_words or text[-1] in ".?!:;,|" or "|" in text:
        return None
    if not marked and not _stands_apart(doc_text, start, end, text):
        return None  # a line of a letterhead, an address or a form: laid out, not a heading
    return text


def _stands_apart(doc_text: str, start: int, end: int, text: str) -> bool:
    """Whether an unmarked line reads as a heading: in capitals, or set apart by a blank
    line above or below it, and not a field ("Address insured: 27 Kestrel Road")."""
    letters = [c for c in text if c.isalpha()]
    if letters and all(c.isupper() for c in letters):
        return True
    if re.match(r"[^:]{1,40}:\s", text) or re.search(r"\s[\u2013\u2014]\s", text):
        return False
    above = start == 0 or doc_text[:start].endswith("\n\n") or not doc_text[:start].strip()
    below = end >= len(doc_text) or doc_text[end:end + 2] == "\n\n" or not doc_text[end:].strip()
    return above or below


def _names_something(text: str, graph: SentenceGraph) -> bool:
    named = any(m.key and is_named_kind(m.kind) for m in graph.mentions)
    capitals = [w for w in text.split() if w[:1].isupper() and len(w) > 3]
    return named or len(capitals) >= 2


def section_mentions(doc_text: str, graphs: list[SentenceGraph], offsets: list[int], texts: list[str],
                      skip_first: bool) -> None:
    """Sections are about what their headings name ("## Kestrel Hill Observatory"), and
    the opening sentence under a heading about its named subject: both become ABOUT
    mentions, homes of their classes. A heading that names nothing ("Results") is not."""
    for j, (graph, base, text) in enumerate(zip(graphs, offsets, texts)):
        if j == 0 and skip_first:
            continue
        heading = heading_text(doc_text, base, base + len(text))
        if heading is None:
            continue
        if _names_something(heading, graph):
            title_mention_in(heading, graph, base, text, kind="ABOUT")
        if j + 1 < len(graphs):
            subject_mention(graphs[j + 1], offsets[j + 1], texts[j + 1], alongside=True)
