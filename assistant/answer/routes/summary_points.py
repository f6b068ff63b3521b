"""What a summary is read from: a file's main points, one section at a time.

A file's opening lines are seldom its points: minutes open with who was present, a call
transcript with the operator's welcome, a report with its letterhead. So the file is cut
into its sections (by its headings; a file without headings by its paragraphs), and each
section gives its most telling sentence first, then its next, until the context is full:

- "## 2. Treasurer's report / Frank reported a balance of €1,318.75 on 30 April." gives
  that sentence, not "Approved without changes.";
- a transcript's "A word on the footprint. In August we completed the sale of our Lisbon
  warehouse for €4.2 million." gives the sale.

A sentence tells more when it states figures (a number, an amount, a date) and words the
rest of the file comes back to, and when it opens its section; a line of three words
tells little. The sentences kept
are read in the file's order, each section with its heading.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Sequence

from ...nlp.sentences import LIST_ITEM
from ...store.row_types import ChunkRow, SentenceRow
from ..grounding.text import is_heading, item_text, plain
from ..passages import WORD
from ..question.reading import MONTH_WORDS

KEY_POINTS = 3  # the points a summary states after what the file is; a long file up to
MOST_POINTS = 5
PROSE_SHARE = 0.4  # a file with fewer of its lines sentences (slides, a record) has no points to state
PER_SECTION = 2  # a section's points: more is a section retold, and the file's others left out
WHOLE_FILE = 0.25  # a word in more of the file's sentences than this share is its subject, not a point's
LEAD = 2.0  # how much more a section's first sentence tells than its others, figures alike
_FIGURE = re.compile(r"\d(?:[\d,.:/-]*\d)?")
_MONEY = re.compile(r"[£€$]\s?\d")
_LABEL = re.compile(r"^\W*(?:[^\W\d_]+[ '’.-]*){1,3}:\s")
# Words every file uses, and the greetings of a call or a letter: that a file comes back to
# them says nothing of what it is about.
_COMMON = frozenset(
    "the and for are was were has have had not but with this that these those from into our your their "
    "his her its she him them they you who what which when where will would can could should may might "
    "all any some each also than then there here about after before over under been being very just "
    "more most one two said says thank thanks good morning afternoon evening everyone welcome hello please "
    "yes okay".split())
_CALENDAR_WORDS = MONTH_WORDS | frozenset("monday tuesday wednesday thursday friday saturday sunday".split())


def sections(chunks: Sequence[ChunkRow], sentence_lists: Sequence[list[SentenceRow]]) -> list[list[SentenceRow]]:
    """The file's sentences in order, cut where a heading begins; a file with fewer than
    two headings after its title is cut at its paragraphs (a blank line) instead."""
    flat = [s for sentences in sentence_lists for s in sentences]
    headed = sum(1 for s in flat[1:] if is_heading(s.text)) >= 2
    texts = {c.id: c for c in chunks}
    out: list[list[SentenceRow]] = []
    before: SentenceRow | None = None
    for sent in flat:
        new = is_heading(sent.text) if headed else _after_blank_line(before, sent, texts)
        if not out or new:
            out.append([])
        out[-1].append(sent)
        before = sent
    return out


def _after_blank_line(before: SentenceRow | None, sent: SentenceRow, chunks: dict[int, ChunkRow]) -> bool:
    """Whether a blank line (or a new chunk) lies between `before` and `sent`."""
    if before is None or before.chunk_id != sent.chunk_id:
        return True
    chunk = chunks.get(sent.chunk_id)
    if chunk is None:
        return False
    between = chunk.text[before.end - chunk.start:sent.start - chunk.start]
    return between.count("\n") >= 2


def main_points(sections: list[list[SentenceRow]], budget: int, count_tokens: Callable[[str], int]) -> set[int]:
    """The ids of the sentences a summary reads within `budget` tokens: every section's most
    telling sentence before any section's second, the most telling sections first; each
    kept section's heading comes with it."""
    kept: set[int] = set()
    left = budget
    for point in sorted(_ranked(sections), key=lambda p: (p.rank, -p.score)):
        sent, heading = point.sentence, point.heading
        cost = count_tokens(sent.text) + 1
        extra = count_tokens(heading.text) + 1 if heading is not None and heading.id not in kept else 0
        if cost + extra > left:
            continue
        kept.add(sent.id)
        if heading is not None:
            kept.add(heading.id)
        left -= cost + extra
    return kept


def key_points(sections: list[list[SentenceRow]]) -> list[SentenceRow]:
    """The sentences a summary states as the file's points, in the file's order: the most
    telling sentence of each of its most telling sections (the first, the file's title
    and front matter, aside unless it names who the file is between), where it is a sentence ("Frank reported a balance of
    €1,318.75 on 30 April."), not a field or a table row; none where fewer than
    PROSE_SHARE of the file's lines are sentences. A file says what matters most
    early (a call's results before its questions, minutes' business before any other; an
    agreement who it is between, in its first lines), so
    a section's sentence weighs less the later it comes; a file of many sections has
    more points, up to MOST_POINTS."""
    said = [s for section in sections for s in section if not is_heading(s.text)]
    # By words, not lines: an e-mail's headers, greeting and list of five things to bring
    # are more lines than its paragraphs, and far fewer words.
    words = [len(WORD.findall(s.text)) for s in said]
    if sum(n for s, n in zip(said, words) if _prose(s.text)) < PROSE_SHARE * sum(words):
        return []  # slides, a record of fields, a table: the model says what they hold
    best = [p for p in _ranked(sections) if p.rank == 0 and _prose(p.sentence.text)
            and (p.section > 0 or _names_parties(p.sentence.text))]
    weight = {id(p): p.score / (1 + p.section / len(sections)) for p in best}
    most = min(MOST_POINTS, max(KEY_POINTS, len(sections) // 4))
    chosen = sorted(best, key=lambda p: -weight[id(p)])[:most]
    return [p.sentence for p in sorted(chosen, key=lambda p: (p.section, p.sentence.start))]


@dataclass(frozen=True)
class _Point:
    rank: int  # 0: its section's most telling sentence
    score: float
    sentence: SentenceRow
    heading: SentenceRow | None
    section: int


def _ranked(sections: list[list[SentenceRow]]) -> list[_Point]:
    """Each section's sentences that a summary may read, ranked within their section."""
    # The title's words say what the file is, not which of its sentences matter:
    # "OPERATOR: Good afternoon and welcome to the Tavora Foods third quarter 2024 results
    # call." repeats the title of the call's transcript.
    title = {_key(w) for w in WORD.findall(plain(sections[0][0].text))} if sections and sections[0] else set()
    recurring = {w: n for w, n in _recurring_words([s for section in sections for s in section]).items()
                 if w not in title}
    headed = len(sections) > 1 and is_heading(sections[1][0].text)
    out: list[_Point] = []
    for at, section in enumerate(sections):
        heading = section[0] if is_heading(section[0].text) else None
        said = _best_first([s for s in section if not is_heading(s.text)], recurring,
                           _stems(heading.text) if heading else set())
        # What comes before a file's first section heading is its front matter (the date,
        # the place, who was present): its first line says what the file is; the rest
        # the model would copy before any point. A section gives its PER_SECTION best.
        # A file without headings is cut at its paragraphs, and a paragraph of fields
        # ("Name: Mungo" / "Species: cat") is read whole where the budget allows.
        most = (1 if at == 0 else PER_SECTION) if headed else len(said)
        out += [_Point(rank, score, sent, heading, at) for rank, (score, sent) in enumerate(said[:most])]
    return out


def _names_parties(text: str) -> bool:
    """Whether a front-matter sentence names two or more people or bodies, each in two
    capitalised words or more: an agreement's 'made on 27 March 2024 between Bethan
    Lockhart of 59 Canal Side ("the Landlord") and Hamza Petrakis ("the Tenant")' says
    what the file is; minutes' "Meeting held on Tuesday 21 May 2024 at 19:00, St Anne's
    church hall." only when and where (the opening sentence says that)."""
    names, run = 0, 0
    for word in WORD.findall(plain(_LABEL.sub("", text)))[1:] + [""]:
        if word[:1].isupper() and word.lower() not in _CALENDAR_WORDS:
            run += 1
            continue
        names += run >= 2
        run = 0
    return names >= 2


def _prose(text: str) -> bool:
    """A statement of five words or more that ends as one does (a question is no point)."""
    said = plain(item_text(text)).strip()
    return len(WORD.findall(said)) >= 5 and said.endswith((".", "!"))


def _best_first(said: list[SentenceRow], recurring: dict[str, float], heading: set[str]) -> list[tuple[float, SentenceRow]]:
    """A section's sentences, the most telling first. Its first sentence of four words or
    more is most often what it is about ("The petition for speed bumps now has 142
    signatures." before the speed gun's readings), and so is one that says its heading's
    words ("## 5. Green verges": "Irene proposed planting bulbs on the verges")."""
    lead = next((s.id for s in said if len(WORD.findall(s.text)) >= 4), None)
    scored = [(_telling(s.text, recurring, heading) * (LEAD if s.id == lead else 1.0), s) for s in said]
    return sorted(scored, key=lambda pair: -pair[0])


def _recurring_words(sentences: list[SentenceRow]) -> dict[str, float]:
    """The content words that more than one sentence of the file uses, each weighed by how
    many do (log2 of it: a word in eight sentences weighs three, in two one): what the file
    is about. A word in more than WHOLE_FILE of its sentences weighs nothing: "the Tenant"
    in every clause of a tenancy says what the whole file is, not which clause matters."""
    counts = Counter(w for s in sentences for w in {_key(w) for w in WORD.findall(plain(_LABEL.sub("", s.text)))} if w)
    most = max(2.0, WHOLE_FILE * len(sentences))
    return {w: math.log2(n) for w, n in counts.items() if 1 < n <= most}


def _key(word: str) -> str:
    low = word.lower()
    return "" if len(low) < 3 or low in _COMMON or low.isdigit() else low


def _stems(text: str) -> set[str]:
    """A line's content words cut to five letters: "report" and "reported" alike."""
    return {key[:5] for w in WORD.findall(plain(text)) if (key := _key(w))}


def _telling(text: str, recurring: dict[str, float], heading: frozenset[str] | set[str] = frozenset()) -> float:
    """How much a sentence tells: its figures (each amount, date or count once: "€38.6
    million"), the file's recurring words and its section heading's words it uses, per
    square root of its length (a long sentence costs what it holds). A label before a
    colon ("Volunteers:", "MARTA SOUSA:") is not counted."""
    said = plain(_LABEL.sub("", text))
    words = WORD.findall(said)
    if len(words) < 4:
        return 0.0
    keys = {_key(w) for w in words} - {""}
    topical = sum(recurring.get(k, 0.0) for k in keys) + 2 * len({k[:5] for k in keys} & heading)
    # A sum of money counts twice: it is a term of an agreement, a bill or a letter.
    figures = len(_FIGURE.findall(said)) + len(_MONEY.findall(said))
    # A figure is one word however it is written: "£412,600" is not two.
    length = figures + sum(1 for w in words if not w.isdigit())
    return (2 * figures + topical) / math.sqrt(max(length, 1))


def laid_out(sentences: list[SentenceRow]) -> str:
    """The kept sentences as the model reads them: each heading on a line of its own, so
    that the sections read as sections ("## 3. Traffic and speeding" / "The petition ..."),
    and each list item."""
    lines: list[str] = []
    for sent in sentences:
        text = " ".join(sent.text.split())
        if is_heading(text) or LIST_ITEM.match(text) or not lines or is_heading(lines[-1]):
            lines.append(text)
        else:
            lines[-1] += " " + text
    return "\n".join(lines)
