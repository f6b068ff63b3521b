"""What the question box understands besides a question: `/search QUERY` (or `? QUERY`)
lists passages instead of answering, and `in:PATH` / `type:pdf` anywhere keep a question
or a search to a folder, a file or a file type (`in:"~/My Papers"` for a path with spaces)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

SEARCH_PREFIXES = ("/search ", "? ")
_SCOPE = re.compile(r'(?:(?<=\s)|^)(in|type):(?:"([^"]+)"|(\S+))')


@dataclass
class Request:
    text: str
    search: bool = False
    in_paths: list[str] = field(default_factory=list)
    types: list[str] = field(default_factory=list)

    @property
    def scoped(self) -> bool:
        return bool(self.in_paths or self.types)


def parse_request(raw: str) -> Request:
    text = raw.strip()
    search = False
    for prefix in SEARCH_PREFIXES:
        if text.startswith(prefix) or text == prefix.strip():
            text, search = text[len(prefix):], True
            break
    request = Request("", search)
    for match in _SCOPE.finditer(text):
        value = match.group(2) or match.group(3)
        (request.in_paths if match.group(1) == "in" else request.types).append(value)
    request.text = " ".join(_SCOPE.sub(" ", text).split())
    return request
