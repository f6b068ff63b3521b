"""The text-like formats: plain text, Markdown, reStructuredText and Org files, read as
they are, with their title (front matter, a heading, a title-like first line) and the
spans of their lines that are settings, not prose (`metadata_spans`)."""

from __future__ import annotations

import html
import re

from .loaders import LoadedDocument, decode_bytes, normalise, register

_MD_TITLE = re.compile(r"^#[ \t]+(.+?)[ \t#]*$", re.M)
_ORG_TITLE = re.compile(r"^#\+title:[ \t]*(.+)$", re.M | re.I)
_RST_TITLE = re.compile(r"^([=\-~*#^\"'`+]{3,})?\n?([^\n]+)\n([=\-~*#^\"'`+]{3,})[ \t]*$", re.M)


# YAML ("---" ... "---" or "...") or TOML ("+++" ... "+++") front matter opening a file
# (Markdown for site generators): settings, not text. Its first line must be a key.
_FRONT_MATTER = re.compile(
    r"\A(?:---|\+\+\+)[ \t]*\n([\w-]+[ \t]*[:=].*?)\n(?:---|\.\.\.|\+\+\+)[ \t]*(?=\n|\Z)", re.S
)
_FRONT_TITLE = re.compile(r"^title[ \t]*[:=][ \t]*[\"']?(.*?)[\"']?[ \t]*$", re.M | re.I)
# Org keyword lines: "#+TITLE: ...", "#+AUTHOR: ...", "#+BEGIN_QUOTE".
_ORG_KEYWORD = re.compile(r"^[ \t]*#\+(\w+):?[ \t]*(.*)$", re.M)


def metadata_spans(text: str) -> list[tuple[int, int]]:
    """The parts of a loaded text that are its file's settings, not prose, so never a
    sentence to cite: front matter opening the text, and org keyword lines, of which a
    #+TITLE keeps its value (the title line, as a Markdown or RST title is). Spans, not a
    shorter text: the offsets of plain-text formats stay the file's own."""
    front = _FRONT_MATTER.match(text)
    spans = [(0, front.end())] if front else []
    for m in _ORG_KEYWORD.finditer(text):
        title = m.group(1).lower() == "title" and m.group(2).strip()
        spans.append((m.start(), m.start(2) if title else m.end()))
    return sorted(spans)


def text_title(text: str) -> str | None:
    front = _FRONT_MATTER.match(text)
    title = _FRONT_TITLE.search(front.group(1)) if front else None
    if title and title.group(1).strip():
        return title.group(1).strip()
    # A cheap look at the first lines only; real parsing would cost more than it gives.
    head = text[:2000]
    for pattern, group in ((_ORG_TITLE, 1), (_MD_TITLE, 1), (_RST_TITLE, 2)):
        m = pattern.search(head)
        if m and m.group(group).strip():
            return m.group(group).strip()
    return _first_line_title(head)


_FIRST_LINE = re.compile(r"\A\s*([^\n]+)(\n[ \t]*\n|\n|\Z)")


def _first_line_title(head: str) -> str | None:
    """A plain text's opening line, when it reads as a title: short, not ending as a
    sentence does, and standing alone (a blank line after it) or in capitals
    ("A Short History of Harrowmere", "TAVORA FOODS S.A. — Q3 RESULTS CALL")."""
    m = _FIRST_LINE.match(head)
    if not m:
        return None
    line = " ".join(m.group(1).split())
    letters = [c for c in line if c.isalpha()]
    if not letters or len(line) > 100 or line[-1] in ".,;:!?" or line.startswith(("-", "*", "|", "#")):
        return None
    alone = m.group(2).count("\n") == 2 and len(line) <= 80
    capitals = len(line.split()) >= 2 and all(c.isupper() for c in letters)
    return line if alone or capitals else None


# HTML's character references left in text copied out of a web page or an export
# ("SG&amp;A", "&#8217;"): shown raw they are noise, and a search for "SG&A" misses them.
# Only the references such copies carry; a text that writes "&" alone keeps it.
_CHARACTER_REFERENCE = re.compile(r"&(?:amp|lt|gt|quot|apos|nbsp|ndash|mdash|rsquo|lsquo|rdquo|ldquo|hellip|euro|pound"
                                  r"|#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6});")


def unescape_references(text: str) -> str:
    """`text` with HTML character references ("&amp;", "&#8217;") as the characters they name."""
    return _CHARACTER_REFERENCE.sub(lambda m: html.unescape(m.group()), text)


@register("text file", ".txt", ".md", ".markdown", ".rst", ".org")
def _load_text(data: bytes) -> LoadedDocument:
    text = normalise(unescape_references(decode_bytes(data)))
    return LoadedDocument(text=text, pages=[], title=text_title(text))
