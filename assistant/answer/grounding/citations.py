"""From an answer's [n] markers to the document sentences that support it.

A marker names a source (a chunk); the citation points at the sentences of that chunk
most similar to the answer sentence that carries the marker. When the model cites
nothing (small models often don't), each answer sentence is attributed to its most
similar source sentence if that similarity is high enough, and the marker is added.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Callable

import numpy as np

from ...ingest.locator import place
from .check import names_in, numbers_in
from ..prompt import Source
from .sections import heading_above
from .text import MARKER as _MARKER
from .text import BEFORE_A_NUMBER, answer_sentences, ends_in_abbreviation, is_bare_marker, item_text, join_sentences, list_items, strip_lead_in

ATTRIBUTION_THRESHOLD = 0.55
# "I don't know ..." is supported by no sentence, however similar a source's wording is.
ABSTENTION = re.compile(r"\s*I\s+(?:don['’]t|do\s+not)\s+know\b", re.IGNORECASE)


# Citations shown under an answer, in the CLI and the terminal UI alike, and the rows a
# computed answer marks in its text; past them, how many more (a sum cites every row).
SHOWN_CITATIONS = 8


@dataclass
class Citation:
    n: int
    path: str
    title: str | None
    page: int | None
    start: int  # character span of the supporting sentence in the document text
    end: int
    text: str
    chunk_id: int
    sentence_id: int
    attributed: bool  # True when added by similarity rather than cited by the model
    # The short answer inside this sentence (document offsets), for the evidence pane.
    span_start: int | None = None
    span_end: int | None = None

    @property
    def place(self) -> str:
        """Where the sentence is in its file: "p. 3", "sheet Budget, row 14", "slide 4"."""
        return place(self.path, self.page, self.text)

    def as_dict(self) -> dict:
        return {**asdict(self), "place": self.place}


def cited_numbers(text: str) -> list[int]:
    numbers: list[int] = []
    for m in _MARKER.finditer(text):
        for part in m.group(1).split(","):
            n = int(part)
            if n not in numbers:
                numbers.append(n)
    return numbers


def resolve_citations(
    answer: str, sources: list[Source], embed: Callable[[list[str]], np.ndarray]
) -> tuple[str, list[Citation]]:
    """The answer (with markers added where attributed) and its citations in marker order."""
    by_n = {s.n: s for s in sources}
    sentences = answer_sentences(answer)
    if not sentences or not sources or ABSTENTION.match(answer):
        return answer, []
    cand = [(src, sent) for src in sources for sent in src.sentences]
    if not cand:
        return answer, []
    vecs = embed([s for s in sentences] + [sent.text for _, sent in cand])
    ans_vecs, cand_vecs = vecs[: len(sentences)], vecs[len(sentences):]
    sims = ans_vecs @ cand_vecs.T  # answer sentence x candidate sentence

    # One citation per answer sentence and source it cites (a source cited by three
    # sentences points at the sentence each of them says), each sentence of a source once.
    citations: dict[tuple[int, int], Citation] = {}
    rewritten: list[str] = []
    any_marker = bool(cited_numbers(answer))
    for i, sentence in enumerate(sentences):
        numbers = [n for n in cited_numbers(sentence) if n in by_n]
        attributed = False
        if not numbers and not any_marker and not ABSTENTION.match(sentence):
            best = int(np.argmax(sims[i]))
            if sims[i, best] >= ATTRIBUTION_THRESHOLD:
                numbers, attributed = [cand[best][0].n], True
                sentence = append_marker(sentence, cand[best][0].n)
        if ABSTENTION.match(sentence):
            numbers = []
        facts = claims(sentence)
        for n in numbers:
            idx = [j for j, (src, _) in enumerate(cand) if src.n == n]
            for j in _supporting(facts, idx, cand, sims[i], quantities_in(sentence)):
                citations.setdefault((n, cand[j][1].id), _citation(cand[j], attributed=attributed))
        rewritten.append(sentence)
    text = join_sentences(rewritten) if not any_marker else answer
    order = {n: at for at, n in enumerate(cited_numbers(text))}
    ordered = sorted((c for (n, _), c in citations.items() if n in order), key=lambda c: order[c.n])
    return text, ordered


def _supporting(facts: set[str], idx: list[int], cand: list, sims: np.ndarray,
                quantities: dict[str, str] | None = None) -> list[int]:
    """Of one source's candidate sentences (`idx`), the one that holds most of the answer
    sentence's names and numbers (then the closest): what the reader checks the claim
    against; then, while some of its facts are held by none chosen, the sentence that
    holds most of the rest: where the answer joins two of the source's sentences ("sold
    the warehouse for 4.2 million" / "the proceeds went to the Porto lab"), or lists the
    items of a list ("3 eggs, 180 g sugar, ... and 60 g ground almonds"). A number is
    looked for with its unit where a sentence holds them together ("180 g", not the oven's
    "180°C")."""
    facts = _as_quantities(facts, quantities, [cand[j][1].text for j in idx])
    chosen = [max(idx, key=lambda j: (held(facts, cand[j][1].text), sims[j]))]
    rest = facts - held_facts(facts, cand[chosen[0]][1].text)
    while rest:
        more = max(idx, key=lambda j: (held(rest, cand[j][1].text), sims[j]))
        found = held_facts(rest, cand[more][1].text)
        if not found:
            break
        chosen.append(more)
        rest -= found
    return chosen


# A number and the word after it: "180 g", "3 eggs", "4.2 million".
_QUANTITY = re.compile(r"(?<![\w.,])(\d[\d.,]*)\s*(%|[a-z]+)\b", re.IGNORECASE)


def quantities_in(sentence: str) -> dict[str, str]:
    """number (as numbers_in writes it) -> "number unit", for the numbers of an answer
    sentence that a word follows."""
    out: dict = {}
    for m in _QUANTITY.finditer(_MARKER.sub(" ", sentence)):
        number = numbers_in(m.group(1))
        if len(number) == 1:
            out.setdefault(next(iter(number)), f"{m.group(1)} {m.group(2)}".lower())
    return out


def _as_quantities(facts: set[str], quantities: dict[str, str] | None, texts: list[str]) -> set[str]:
    """`facts` with each number that some text holds with its unit as that quantity."""
    out = set(facts)
    for number, quantity in (quantities or {}).items():
        if number in out and any(_holds_quantity(quantity, t) for t in texts):
            out = (out - {number}) | {quantity}
    return out


def _holds_quantity(quantity: str, text: str) -> bool:
    number, unit = quantity.split(" ", 1)
    return re.search(rf"(?<![\w.,]){re.escape(number)}\s*{re.escape(unit)}\b", text.lower()) is not None


def claims(sentence: str) -> set[str]:
    """The names and numbers an answer sentence states (markers left out)."""
    plain = _MARKER.sub(" ", sentence)
    return {n.lower() for n in names_in(plain)} | numbers_in(plain)


def held_facts(facts: set[str], text: str) -> set[str]:
    """The `facts` a source sentence holds."""
    if not facts:
        return set()
    words = {w.lower().strip("'’-") for w in re.findall(r"[\w'’-]+", text)}
    quantities = {f for f in facts if " " in f and _holds_quantity(f, text)}
    return {f for f in facts if f in words} | (facts & numbers_in(text)) | quantities


def held(facts: set[str], text: str) -> int:
    """How many of `facts` a source sentence holds."""
    return len(held_facts(facts, text))


def append_marker(sentence: str, n: int) -> str:
    m = re.search(r"([.!?]+)$", sentence)
    if m:
        return sentence[: m.start()] + f" [{n}]" + m.group(1)
    return sentence + f" [{n}]"


def _citation(pair, attributed: bool) -> Citation:
    src, sent = pair
    return Citation(
        n=src.n, path=src.chunk.path, title=src.chunk.title, page=sent.page, start=sent.start,
        end=sent.end, text=sent.text, chunk_id=src.chunk.id, sentence_id=sent.id, attributed=attributed,
    )


# What says it does not know, and so needs no source.
_REFUSALS = ("i don't know", "i dont know", "i do not know", "the sources do not", "the documents do not")
SUPPORT_THRESHOLD = 0.5


class SupportChecker:
    """Whether an answer sentence still says what some source sentence says.

    Small models start from the sources and then drift into invention; the answer is cut
    at the first sentence that no source sentence supports (cosine similarity of the
    sentence, markers removed, to its closest source sentence).
    """

    def __init__(self, sources: list[Source], embed: Callable[[list[str]], np.ndarray],
                 threshold: float = SUPPORT_THRESHOLD):
        self.embed = embed
        self.threshold = threshold
        # Each sentence, and each two in a row: an answer sentence may say what two source
        # sentences say together ("The review moved to 6 May because Paylane ...").
        texts = [sent.text for src in sources for sent in src.sentences]
        texts += [f"{a.text} {b.text}" for src in sources for a, b in zip(src.sentences, src.sentences[1:])]
        # A list item or a laid-out line with the line that heads it: "In April we planted
        # tomatoes" says what "PLANTED IN APRIL" and "tomatoes" say together.
        headed = ((heading_above(src.chunk, sent.start), sent.text) for src in sources for sent in src.sentences)
        texts += [f"{head}: {text}" for head, text in headed if head and head != text.strip()]
        self.vectors = embed(texts) if texts else np.zeros((0, 1), dtype=np.float32)

    def support(self, sentence: str) -> float:
        """The closest source sentence's similarity; for a list ("1. X 2. Y"), that of its
        least supported item, each without its marker."""
        plain = _MARKER.sub("", sentence).strip()
        if not plain or plain.lower().replace("\u2019", "'").startswith(_REFUSALS):
            return 1.0  # saying "I don't know" needs no source
        if not len(self.vectors):
            return 0.0
        items = [item_text(item) for item in list_items(plain)]
        return float(np.min(np.max(self.embed(items) @ self.vectors.T, axis=1)))

    def supported(self, sentence: str) -> bool:
        return self.support(sentence) >= self.threshold


def split_complete_sentences(buffer: str) -> tuple[list[str], str]:
    """Complete sentences at the front of a streamed buffer, and what is left over. A list
    marker ("1. ") stays with the item it opens: alone it is no sentence to check. "no. 27"
    is no end: after "no." the buffer waits for what follows."""
    out, start = [], 0
    for m in re.finditer(rf"(?<=[.!?])(?:\s*{_MARKER.pattern})?\s+|\n+", buffer):
        piece = buffer[start:m.end()]
        if is_bare_marker(strip_lead_in(piece).strip()) or (m.group().strip() == "" and ends_in_abbreviation(piece)):
            continue
        if m.group().strip() == "" and BEFORE_A_NUMBER.search(piece.rstrip()):
            if m.end() == len(buffer):
                break
            if buffer[m.end()].isdigit():
                continue
        if piece.strip():
            out.append(piece)
        start = m.end()
    return out, buffer[start:]
