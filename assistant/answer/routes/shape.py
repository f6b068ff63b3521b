"""What shape the answer takes, read off the question's words.

- **parts**: "What was the revenue, and how much went to R&D?" is two questions; each is
  answered, and the answer says both.
- **explain**: how / why / what happened / what was X used for: one to three sentences in
  the documents' words, not a span. "What were the proceeds of the sale used for?" names
  the sale; a span copied from it answers nothing.
- **summary**: "What is notes-2024-03-12.md about?", "Summarise the Risks section".
- **list**: "Who attended the review?", "What ingredients go into the cake?": the items,
  written out, not one of them as a span.
Everything else keeps the short answer first (a span, a yes or no, one of the options);
where no span is found the answer is written from the same sources (single.py, written.py).
"""

from __future__ import annotations

import re

from .short import question_kind

_ASKS = r"(?:who|whom|whose|what|when|where|which|why|how|is|are|was|were|do|does|did|can|could|has|have|had|will|would|should)"
# ", and how much ...", "; when ...", " and when ..." between two questions. A "who" or
# "which" joined without a comma opens a relative clause ("the singer who ... and who's
# third album ..."), not a second question; nor does a bare comma ("X, released in which
# year, is ...").
_SECOND = r"(?:what|when|where|why|how|is|are|was|were|do|does|did|can|could|has|have|had|will|would|should)"
_FROM = r"(?:(?:from|since|until|till|by|in|at|on|for|to|with)\s+)?"  # "and from when ..."
_JOIN = re.compile(
    rf"(?:,?\s+and\s+(?:also\s+)?|;\s*(?:and\s+)?|,\s*but\s+)(?={_FROM}{_SECOND}\b)"
    rf"|,\s+and\s+(?=(?:who|whom|whose|which)\b)",
    re.IGNORECASE)
_MIN_WORDS = 3
_STARTS_ASKING = re.compile(rf"\s*(?:(?:from|since|until|till|by|in|at|on|for|to|with)\s+(?=wh))?{_ASKS}\b", re.IGNORECASE)

# What asks for an explanation or an account, not a name or a number.
_EXPLAIN = re.compile(
    r"^\s*(?:why\b|how\b(?!\s+(?:many|much|long|old|far|tall|big|large|often)\b)|describe\b|explain\b"
    r"|what\s+(?:happened|happens|went\s+wrong|changed|was\s+decided|did\b.*\b(?:say|said|decide|agree|discuss|do|plan|propose|suggest|recommend)\b)"
    r"|what\b.*\b(?:used\s+for|for\s+what|the\s+reason|the\s+reasons|caused?|mean|means|the\s+purpose|the\s+plan|the\s+outcome|the\s+result|decided|agreed|discussed)\b)",
    re.IGNORECASE,
)
_SUMMARY = re.compile(
    r"\b(?:summari[sz]e|summary|sum\s+up|overview|gist|tl;?dr|main\s+points|key\s+points)\b"
    r"|^\s*what(?:'s|\s+is|\s+was|\s+are)\s+.+\s+about\s*\??\s*$"
    r"|^\s*what\s+does\s+.+\s+(?:say|cover|contain)\s*\??\s*$",
    re.IGNORECASE,
)


# "What revenue did the brewery and the cider company each report?": one question asked of
# two things, "each" after them.
_EACH = re.compile(r"^(?P<pre>.*?\b(?:did|do|does|is|are|was|were|has|have|had|will|would|can|could)\s+)"
                   r"(?P<a>[^,?]+?)\s+and\s+(?P<b>[^,?]+?)\s+each\s+(?P<post>[^?]+)\??\s*$", re.IGNORECASE)


def split_parts(question: str) -> list[str] | None:
    """The questions a two-part question asks, each ending in "?"; None for one question."""
    text = question.strip()
    each = _EACH.match(text)
    if each:
        return [_as_question(f"{each['pre']}{thing} {each['post']}") for thing in (each["a"], each["b"])]
    pieces = [p for p in re.split(r"(?<=\?)\s+(?=\S)", text) if p.strip()]
    if len(pieces) == 1:
        at = [m for m in _JOIN.finditer(text) if m.start() > 0]
        if not at:
            return None
        pieces, start = [], 0
        for m in at:
            pieces.append(text[start:m.start()])
            start = m.end()
        pieces.append(text[start:])
    parts = [_as_question(p) for p in pieces]
    # Each piece a question of its own: "At the 2011 census, what was ..." is one.
    if len(parts) < 2 or any(len(p.split()) < _MIN_WORDS or not _STARTS_ASKING.match(p) for p in parts):
        return None
    return parts


def _as_question(piece: str) -> str:
    piece = piece.strip().rstrip("?.,; ").strip()
    return piece[:1].upper() + piece[1:] + "?"


def wants_explanation(question: str) -> bool:
    return bool(_EXPLAIN.search(question))


def wants_summary(question: str) -> bool:
    return bool(_SUMMARY.search(question))


# What asks for several things: "Who attended ...?", "What ingredients go into ...?",
# "Which documents do I need ...?", "List ...".
_LIST = re.compile(
    r"^\s*(?:list\b|name\s+all\b|who\s+(?:attended|was\s+at|were\s+at|came|took\s+part)\b"
    r"|(?:what|which)\s+(?:\w+\s+)?\w+[^s\W]s\s+(?:do|does|did|are|were|go|went|need|have|has|had|should|must|will)\b"
    r"|what\s+are\s+the\b|what\s+were\s+the\b)",
    re.IGNORECASE,
)


# An account of a whole event: "What happened at the residents' meeting in May?", "What
# was decided at the kickoff?". Where the words name one file (its minutes), the answer is
# that file's summary, not the few sentences closest to "happened".
_ACCOUNT = re.compile(
    r"^\s*what\s+(?:happened|went\s+on|was\s+(?:discussed|decided|agreed)|were\s+the\s+(?:decisions|outcomes))"
    r"\s+(?:at|in|during|on)\b", re.IGNORECASE)


def wants_account(question: str) -> bool:
    return bool(_ACCOUNT.search(question))


def wants_list(question: str) -> bool:
    return bool(_LIST.search(question))


def answer_shape(question: str) -> str:
    """"span" (a name, number, date, yes or no answers it; said first) or "written" (an
    explanation, an account or a summary, in a few sentences)."""
    if question_kind(question) == "open" or wants_explanation(question) or wants_summary(question) or wants_list(question):
        return "written"
    return "span"
