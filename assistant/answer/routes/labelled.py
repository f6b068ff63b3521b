"""The amount a question names by its line's label. "What change was I given at Fresh &
Co?" is asked of a receipt whose lines are all amounts ("TOTAL 21.24", "CASH 50.00",
"CHANGE 28.76"); a small model reading them took a bank row's -7.06, or the total. The
question's own words say which line: a word it writes in lower case ("change", "cash",
"deposit", "VAT" aside) that begins the label of exactly one line of the first source
holding one amount. That amount is the span, stated as any span is (`SpanFirst.state`).

Only for a short answer of the first source, where it is laid out a line a thing (a
receipt, a bill, an invoice) or the question asks about money; a name in the question
("Fresh & Co") labels nothing; two lines that match, or none, leave it to the model.

A table row's cell is named the same way, by its column (`named_cell`): "How much have we
saved for the holiday pot?" is asked of the row "Pot: Holiday; Target: 800.00; Saved so
far: 573.00", where the model took the target. The row is the one whose cells hold the
question's words ("Holiday"); the cell is the one whose header shares a word with the
question ("saved"), or else reads clearly closest to it ("how deep" and "Max depth").
"""

from __future__ import annotations

from functools import cache
from typing import Callable

import numpy as np

from ...ingest.locator import row_fields
from ...retrieve.baseline import content_stems
from ...store.row_types import SentenceRow
from ..grounding.amounts import line_amount
from ..grounding.context import laid_out
from ..prompt import Source
from ..question.plan import Plan

# Words of any money question: they name no one line ("how much did it cost").
_ANY_MONEY = ("amount cost costs paid pay price charge charged spend spent much money bill invoice receipt "
              "given gave hand handed")


@cache
def _any_money() -> frozenset[str]:
    return frozenset(content_stems(_ANY_MONEY, min_length=3))  # read when first asked (stop words load then)
_LABEL_WORDS = 4  # a label is the line's first few words ("Deposit received", "CHANGE")


def labelled_amount(plan: Plan, sources: list[Source]) -> tuple[str, SentenceRow, Source] | None:
    """(the amount as the line writes it, the line, its source) of the one line of the
    first source's document whose label a word of the question names (an invoice's
    "Less deposit paid ...: £215.00" is often in its second passage, below the items);
    None where no line, or more than one, is named."""
    first = sources[0] if sources else None
    if first is None or plan.written or plan.kind != "short" or not (plan.money or laid_out(first.sentences)):
        return None
    asked = content_stems(" ".join(w for w in plan.question.split()[1:] if not w[:1].isupper()), min_length=3)
    asked -= _any_money()
    if not asked:
        return None
    named = []
    for source in [s for s in sources if s.chunk.path == first.chunk.path]:
        for sent in source.sentences:
            amount = _amount_written(sent.text)
            if amount is None:
                continue
            label = " ".join(sent.text[:sent.text.find(amount)].split()[:_LABEL_WORDS])
            if content_stems(label, min_length=3) & asked:
                named.append((amount, sent, source))
    return named[0] if len(named) == 1 else None


def _amount_written(text: str) -> str | None:
    """The one amount a line writes, as written ("28.76", "1,121.20"); None for none or several."""
    words = [w.strip("£€$:;,()") for w in text.split()]
    amounts = [w for w in words if w and line_amount(w) is not None and "." in w]
    return amounts[0] if len(amounts) == 1 else None


ROW_SOURCES = 2  # the first sources whose rows are read: the row asked of is found near the top
CLEARLY_CLOSEST = 0.08  # how much closer to the question the header read must be than the next


def named_cell(plan: Plan, sources: list[Source], embed: Callable[[list[str]], np.ndarray]
               ) -> tuple[str, SentenceRow, Source] | None:
    """(the cell's value, its row, the row's source) of the one table row of the first
    sources whose cells hold the most of the question's words, and of the column the
    question names; None where no one row or no one column is named."""
    if plan.written or plan.kind != "short":
        return None
    asked = content_stems(plan.question, min_length=3)
    rows = [(src, sent, fields) for src in sources[:ROW_SOURCES] for sent in src.sentences
            if (fields := row_fields(sent.text)) and len(fields) > 2]
    held = [(len(asked & content_stems(" ".join(v for _, v in fields), min_length=3)), src, sent, fields)
            for src, sent, fields in rows]
    held.sort(key=lambda h: -h[0])
    if not held or held[0][0] == 0 or (len(held) > 1 and held[1][0] == held[0][0]):
        return None
    _, src, sent, fields = held[0]
    # The cells the question names are what it asks about, not what it asks.
    open_cells = [(label, value) for label, value in fields
                  if value and not content_stems(value, min_length=3) & asked]
    label = _column_named(plan, open_cells, asked, embed)
    value = next((v for lab, v in open_cells if lab == label), None)
    return (value, sent, src) if value else None


def _column_named(plan: Plan, cells: list[tuple[str, str]], asked: set[str],
                  embed: Callable[[list[str]], np.ndarray]) -> str | None:
    """The header of `cells` the question names: the one that shares a word with it, else
    the one that reads clearly closest to it; an amount's column for a money question."""
    if plan.money:
        cells = [(label, value) for label, value in cells if any(c.isdigit() for c in value)]
    if not cells:
        return None
    sharing = [label for label, _ in cells if content_stems(label, min_length=3) & (asked - _any_money())]
    if len(sharing) == 1:
        return sharing[0]
    if len(cells) == 1:
        return cells[0][0]
    vectors = embed([plan.question, *(label for label, _ in cells)])
    closeness = sorted(((float(vectors[0] @ v), label) for v, (label, _) in zip(vectors[1:], cells)), reverse=True)
    return closeness[0][1] if closeness[0][0] - closeness[1][0] >= CLEARLY_CLOSEST else None
