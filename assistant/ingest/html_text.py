"""HTML as text: BeautifulSoup's tree walked once, its blocks as paragraphs, line breaks
and table cells kept, scripts, styles and navigation left out. `_html_to_text` serves
the EPUB chapters and e-mail bodies too."""

from __future__ import annotations

import warnings

from .loaders import _BOMS, LoadedDocument, LoadError, _normalise, looks_binary, register

_DROP_TAGS = ("script", "style", "nav", "noscript", "template", "head", "svg", "iframe", "form")
_BLOCK_TAGS = (
    "p", "div", "section", "article", "main", "header", "footer", "aside", "blockquote",
    "pre", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "dl", "dt", "dd",
    "table", "tr", "figure", "figcaption", "hr", "address", "body",
)  # fmt: skip
# Private-use characters mark structure while whitespace from the source is
# collapsed; they never occur in real prose.
_PARA, _LINE, _CELL = "\ue000", "\ue001", "\ue002"


def _html_to_text(markup: bytes | str) -> tuple[str, str | None]:
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
    for para in raw.split(_PARA):
        lines = []
        for line in para.split(_LINE):
            cells = [" ".join(c.split()) for c in line.split(_CELL)]
            line = " | ".join(c for c in cells if c)
            if line:
                lines.append(line)
        if lines:
            paragraphs.append("\n".join(lines))
    return _normalise("\n\n".join(paragraphs)), title


_BLOCK_SET, _DROP_SET = frozenset(_BLOCK_TAGS), frozenset(_DROP_TAGS)


def _text_with_marks(soup) -> list[str]:
    """The soup's text (what get_text() gives: NavigableString and CData, no comments) with
    the structure marks: _PARA around a block tag, _LINE for <br>, _CELL after a table
    cell; dropped tags are skipped whole. One walk over the tree with an explicit stack:
    linear in its size and free of the recursion limit, however deep the nesting (marking
    the tree by inserting strings into it cost a walk of the siblings per insert)."""
    from bs4 import CData, NavigableString, Tag

    keep = (NavigableString, CData)
    out: list[str] = []
    # A string to emit on the way out of a tag, or a node to enter (children reversed).
    stack: list = [iter(soup.contents)]
    while stack:
        top = stack[-1]
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
            if name in _DROP_SET:
                continue
            if name == "br":
                out.append(_LINE)
                continue
            if name in _BLOCK_SET:
                out.append(_PARA)
                stack.append(_PARA)
            elif name in ("td", "th"):
                stack.append(_CELL)
            stack.append(iter(node.contents))
        elif type(node) in keep:
            out.append(node)
    return out


@register("HTML", ".html", ".htm")
def _load_html(data: bytes) -> LoadedDocument:
    has_bom = any(data.startswith(bom) for bom, _ in _BOMS)
    if not has_bom and looks_binary(data):
        raise LoadError("binary content in a text file")
    # Bytes, not a decoded string: BeautifulSoup honours <meta charset> and BOMs
    # and falls back to detection on its own.
    text, title = _html_to_text(data)
    return LoadedDocument(text=text, pages=[], title=title)
