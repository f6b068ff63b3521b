"""Start-up time: some libraries import heavy optional packages they can work without.

sqlite-utils imports pandas when it is installed (for DataFrame inserts we never make)
and thinc, under spaCy, imports torch (for models we do not run): a fifth and a full
second of start-up for `search` and `ask`. Importing them with those packages hidden
skips that; the hidden packages stay importable afterwards for what does use them
(sentence-transformers' batch encoding uses torch).
"""

from __future__ import annotations

import sys
from contextlib import contextmanager


@contextmanager
def hidden(*names: str):
    """Imports made inside see `names` as not installed, unless one is loaded already."""
    hide = [n for n in names if n not in sys.modules]
    for name in hide:
        sys.modules[name] = None  # type: ignore[assignment]  # makes `import name` raise ImportError
    try:
        yield
    finally:
        for name in hide:
            if name in sys.modules and sys.modules[name] is None:
                del sys.modules[name]
