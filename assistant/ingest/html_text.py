"""HTML as text: BeautifulSoup's tree walked once, its blocks as paragraphs, headings
marked as Markdown marks them ("## Tickets"), line breaks kept, a table's rows with its
header's names beside their values (`table_text.document_table`), scripts,
styles and navigation left out. `html_to_text` serves
the EPUB chapters and e-mail bodies too.

Text a reader of the page never sees is left out as well: an element `hidden`, styled
`display: none`, `visibility: hidden`, `opacity: 0` or `font-size: 0`, written white (or in
its own background's colour), or with a class or id that the page's own style sheet hides
that way. Such text is where a page hides words meant for a machine ("ignore all previous
instructions"), not for the person who keeps it.
"""

from __future__ import annotations

import re
import warnings

from .loaders import BOMS, LoadedDocument, LoadError, normalise, looks_binary, register
from .table_text import document_table

_DROP_TAGS = ("script", "style", "nav", "noscript", "template", "head", "svg", "iframe", "form")
_BLOCK_TAGS = (
    "p", "div", "section", "article", "main", "header", "footer", "aside", "blockquote",
    "pre", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "dl", "dt", "dd",
    "table", "tr", "figure", "figcaption", "hr", "address", "body",
)  # fmt: skip
# Private-use characters mark structure while whitespace from the source is
# collapsed; they never occur in real prose.
_PARA, _LINE, _CELL = "\ue000", "\ue001", "\ue002"
_TABLE_OPEN, _TABLE_CLOSE = "\ue003", "\ue004"


def html_to_text(markup: bytes | str) -> tuple[str, str | None]:
    from bs4 import BeautifulSoup, XMLParsedAsHTMLWarning

    with warnings.catch_warnings():
        # EPUB chapters are XHTML; the forgiving HTML parser copes with the broken
        # ones that an XML parser would reject, so the "XML parsed as HTML" hint is noise.
        warnings.simplefilter("ignore", XMLParsedAsHTMLWarning)
        soup = BeautifulSoup(markup, "lxml")
    title = None
    if soup.title is not None:
        title = " ".join(soup.title.get_text().split()) or None
    raw = "".join(_text_with_marks(soup))
    paragraphs = []
    for part, is_table in _table_parts(raw):
        paragraphs.extend(_table_paragraphs(part) if is_table else _paragraphs(part))
    return normalise("\n\n".join(paragraphs)), title


def _paragraphs(raw: str) -> list[str]:
    paragraphs = []
    for para in raw.split(_PARA):
        lines = []
        for line in para.split(_LINE):
            cells = [" ".join(c.split()) for c in line.split(_CELL)]
            line = " | ".join(c for c in cells if c)
            if line.strip("# "):  # an empty heading leaves its marks alone
                lines.append(line)
        if lines:
            paragraphs.append("\n".join(lines))
    return paragraphs


def _table_parts(raw: str) -> list[tuple[str, bool]]:
    """`raw` cut into the text outside tables and each outermost table (a table inside a
    table's cell is text of that cell), with whether the part is a table."""
    parts: list[tuple[str, bool]] = []
    depth, start = 0, 0
    for i, char in enumerate(raw):
        if char == _TABLE_OPEN:
            if depth == 0:
                parts.append((raw[start:i], False))
                start = i + 1
            depth += 1
        elif char == _TABLE_CLOSE and depth:
            depth -= 1
            if depth == 0:
                parts.append((raw[start:i], True))
                start = i + 1
    parts.append((raw[start:], depth > 0))
    return parts


def _table_paragraphs(raw: str) -> list[str]:
    """A table's rows (each <tr> a block, its cells ended by _CELL) with its header's names
    beside each row's values (`document_table`)."""
    flat = raw.replace(_TABLE_OPEN, "").replace(_TABLE_CLOSE, "").replace(_LINE, " ")
    rows = [[" ".join(c.split()) for c in block.split(_CELL)] for block in flat.split(_PARA)]
    text = document_table([cells for cells in rows if any(cells)])
    return [text] if text.strip() else []


_BLOCK_SET, _DROP_SET = frozenset(_BLOCK_TAGS), frozenset(_DROP_TAGS)
_HEADING_LEVEL = {f"h{n}": n for n in range(1, 7)}
# A declaration that hides what it styles; each alternative is bounded, so no run of one
# character can make it backtrack.
_HIDING = re.compile(
    r"display\s*:\s*none|visibility\s*:\s*hidden|opacity\s*:\s*0(?:\.0+)?\s*(?:;|$|!)"
    r"|font-size\s*:\s*0(?:px|pt|em|rem|%)?\s*(?:;|$|!)",
    re.IGNORECASE,
)
_WHITE = frozenset(("white", "#fff", "#ffffff", "rgb(255,255,255)", "rgba(255,255,255,1)"))
_COLOUR = re.compile(r"(?<![\w-])(color|background-color|background)\s*:\s*([^;!]{1,40})", re.IGNORECASE)


def _hides(style: str, dark_page: bool = False) -> bool:
    """Whether an inline style (or a rule's body) hides its text from a reader: white text
    is hidden on a page that sets no dark background of its own."""
    if _HIDING.search(style):
        return True
    colours = _colours(style)
    text = colours.get("color")
    background = colours.get("background-color") or colours.get("background")
    return text is not None and (text == background or (text in _WHITE and background is None and not dark_page))


def _colours(style: str) -> dict[str, str]:
    return {name.lower(): "".join(value.lower().split()) for name, value in _COLOUR.findall(style)}


def _hidden_names(soup) -> tuple[frozenset[str], bool]:
    """The classes (".name") and ids ("#name") the page's style sheets hide, and whether
    the page sets a background that is not white anywhere (white text may then be read)."""
    names: set[str] = set()
    dark = False
    styles = [sheet.get_text() for sheet in soup.find_all("style")]
    inline = [tag.get("style") or "" for tag in soup.find_all(("html", "body", "table", "div"), style=True)]
    for style in styles + inline:
        for rule in style.split("}"):
            selectors, _, body = rule.rpartition("{") if "{" in rule else ("", "", rule)
            background = _colours(body).get("background-color") or _colours(body).get("background")
            dark = dark or (background is not None and background not in _WHITE)
            if selectors and _hides(body):
                names.update(sel.strip() for sel in selectors.split(",") if sel.strip()[:1] in (".", "#"))
    return frozenset(names), dark


def _is_hidden(tag, hidden_names: frozenset[str], dark_page: bool) -> bool:
    if tag.has_attr("hidden") or _hides(tag.get("style") or "", dark_page):
        return True
    if not hidden_names:
        return False
    classes = tag.get("class") or []
    return any(f".{c}" in hidden_names for c in classes) or f"#{tag.get('id')}" in hidden_names


def _text_with_marks(soup) -> list[str]:
    """The soup's text (what get_text() gives: NavigableString and CData, no comments) with
    the structure marks: _PARA around a block tag, _LINE for <br>, _CELL after a table
    cell; dropped tags are skipped whole. One walk over the tree with an explicit stack:
    linear in its size and free of the recursion limit, however deep the nesting (marking
    the tree by inserting strings into it cost a walk of the siblings per insert)."""
    from bs4 import CData, NavigableString, Tag

    keep = (NavigableString, CData)
    hidden_names, dark_page = _hidden_names(soup)
    out: list[str] = []
    numbers: dict[int, int] = {}  # an ordered list's count so far
    markers: list[str] = []  # each open list item's marker, "" once written before its first words
    # A string to emit on the way out of a tag, or a node to enter (children reversed).
    stack: list = [iter(soup.contents)]
    while stack:
        top = stack[-1]
        if top is _ITEM_END:
            stack.pop()
            markers.pop()
            continue
        if isinstance(top, str):
            stack.pop()
            out.append(top)
            continue
        node = next(top, None)
        if node is None:
            stack.pop()
            continue
        if isinstance(node, Tag):
            name = node.name
            if name in _DROP_SET or _is_hidden(node, hidden_names, dark_page):
                continue
            if name == "br":
                out.append(_LINE)
                continue
            if name == "li":  # a line of its list, marked as Markdown marks it ("- ", "2. ")
                out.append(_LINE)
                stack.append(_LINE)
                stack.append(_ITEM_END)
                markers.append(_item_marker(node, numbers))
            elif name in _BLOCK_SET:
                brk = _LINE if markers else _PARA  # within a list item, its paragraphs are lines of it
                out.append(brk)
                stack.append(brk)
                if name == "table":  # read as a whole: its rows with its header's names
                    out.append(_TABLE_OPEN)
                    stack.append(_TABLE_CLOSE)
                if name in _HEADING_LEVEL:  # "## Tickets": a section, as Markdown writes it
                    out.append("#" * _HEADING_LEVEL[name] + " ")
            elif name in ("td", "th"):
                stack.append(_CELL)
            stack.append(iter(node.contents))
        elif type(node) in keep:
            if markers and markers[-1] and node.strip():  # the item's marker, before its first words
                out.append(markers[-1])
                markers[-1] = ""
            out.append(node)
    return out


_ITEM_END = object()  # on the stack: the end of a list item (its marker, used or not, goes)


def _item_marker(item, numbers: dict[int, int]) -> str:
    """"- " for an item of an unordered list, "N. " for one of an ordered list (from its
    `start`, counted per list: one count per list, not a walk over the siblings)."""
    parent = item.parent
    if parent is None or parent.name != "ol":
        return "- "
    key = id(parent)
    if key not in numbers:
        start = str(parent.get("start") or "1").strip()
        numbers[key] = int(start) - 1 if start.isdigit() and len(start) < 7 else 0
    numbers[key] += 1
    return f"{numbers[key]}. "


@register("HTML", ".html", ".htm")
def _load_html(data: bytes) -> LoadedDocument:
    has_bom = any(data.startswith(bom) for bom, _ in BOMS)
    if not has_bom and looks_binary(data):
        raise LoadError("binary content in a text file")
    # Bytes, not a decoded string: BeautifulSoup honours <meta charset> and BOMs
    # and falls back to detection on its own.
    text, title = html_to_text(data)
    return LoadedDocument(text=text, pages=[], title=title)
