"""Text that comes from the file system or from documents, made safe to store and to show.

- Paths as keys: the OS hands Python a file name that is not valid UTF-8 with its odd bytes
  as lone surrogates (surrogateescape, U+DC80..U+DCFF), which SQLite cannot store. The key
  of such a path writes each of them as NUL + two hex digits: a POSIX path never holds NUL,
  so the form is unambiguous and `key_path` gives back the very bytes to open. A valid
  UTF-8 path is its own key.
- Showing text on a terminal: `clean` drops control characters from document text (C0
  but tab and newline, ESC, DEL, C1), so a document cannot clear the screen, set the
  window title or plant a hyperlink, and shows each bidirectional control (U+202E...) as
  U+FFFD, so a document cannot reorder what the terminal shows; `show_path` makes every
  non-printable character of a name visible as an escape (`\\n`, `\\x1b`, `\\u202e`,
  `\\xe9` for a byte that is not UTF-8).
- JSON for a terminal or a pipe: `json_text` keeps the text whole (a reader of the JSON gets
  every character back) but writes as \\u escapes every character a terminal could obey or
  a UTF-8 stream could not carry, so `--json` output never holds a raw control character.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

_SURROGATE = re.compile("[\udc80-\udcff]")
_ESCAPED = re.compile("\x00([0-9a-f]{2})")
# C0 except \t and \n, DEL, C1.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def path_key(path: str | Path) -> str:
    """The text under which a path is stored (valid UTF-8 whatever the name's bytes)."""
    s = str(path)
    if _SURROGATE.search(s):
        s = _SURROGATE.sub(lambda m: "\x00%02x" % (ord(m.group()) - 0xDC00), s)
    return s


def key_os(key: str) -> str:
    """The inverse of path_key: the OS's own (surrogateescape) text of a stored path."""
    if "\x00" not in key:
        return key
    return _ESCAPED.sub(lambda m: chr(0xDC00 + int(m.group(1), 16)), key)


def key_path(key: str) -> Path:
    return Path(key_os(key))


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def valid_text(text: str) -> str:
    """`text` with each lone surrogate made U+FFFD: a question or query typed with a byte
    that is not UTF-8 (`assistant search $'caf\\xe9'`) reaches Python as 'caf\\udce9', which
    no UTF-8 encoder (spaCy, the tokenizer, SQLite) can carry."""
    return _LONE_SURROGATE.sub("\ufffd", text) if text and _LONE_SURROGATE.search(text) else text


# The bidirectional controls: the embeddings and overrides (U+202A..U+202E), the isolates
# (U+2066..U+2069) and the marks (U+200E, U+200F, U+061C). A terminal that obeys them shows
# text in another order than it is written ("exe.txt" as "txt.exe"); they are invisible.
_BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def clean(text: str | None, mark: str = "") -> str:
    """Document text without the control characters a terminal would obey; `mark` (one
    character, e.g. U+FFFD) stands in for each where offsets into the text must hold. A
    bidirectional control is always shown, as U+FFFD, where it was: the reader sees that
    the text holds one, and offsets into the text hold whatever `mark` is."""
    if not text:
        return text or ""
    return _BIDI.sub("\ufffd", _CONTROL.sub(mark, text))


_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def show_path(path: str | Path | None) -> str:
    """A path (or a stored key, or a name) with whatever is not printable made visible."""
    if path is None:
        return ""
    s = key_os(str(path))
    if s.isprintable():
        return s
    out = []
    for ch in s:
        o = ord(ch)
        if 0xDC80 <= o <= 0xDCFF:
            out.append("\\x%02x" % (o - 0xDC00))
        elif ch.isprintable():
            out.append(ch)
        elif ch in _NAMED:
            out.append(_NAMED[ch])
        elif o <= 0xFF:
            out.append("\\x%02x" % o)
        else:
            out.append("\\u%04x" % o if o <= 0xFFFF else "\\U%08x" % o)
    return "".join(out)


# What json.dumps(ensure_ascii=False) leaves raw and a terminal (or a UTF-8 stream) must not
# get: DEL and C1 (U+0080..U+009F: U+009B is a CSI, as ESC [ is), the line and paragraph
# separators, the bidirectional controls, and lone surrogates (a path that is not UTF-8).
# json.dumps escapes C0 (below U+0020) itself.
_JSON_RAW = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def json_text(obj, **kwargs) -> str:
    """json.dumps(obj, ensure_ascii=False, **kwargs), readable (non-ASCII letters stay as
    they are) yet safe to print: no character below U+0020 but the layout's newlines, and
    none of DEL, C1 or the others above, which are written as \\uXXXX. They can only occur
    inside JSON strings, where the escape stands for the very same character."""
    kwargs.setdefault("ensure_ascii", False)
    return _JSON_RAW.sub(lambda m: "\\u%04x" % ord(m.group()), json.dumps(obj, **kwargs))
