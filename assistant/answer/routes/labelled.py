"""The amount a question names by its line's label. "What change was I given at Fresh &
Co?" is asked of a receipt whose lines are all amounts ("TOTAL 21.24", "CASH 50.00",
"CHANGE 28.76"); a small model reading them took a bank row's -7.06, or the total. The
question's own words say which line: a word it writes in lower case ("change", "cash",
"deposit", "VAT" aside) that begins the label of exactly one line of the first source
holding one amount. That amount is the span, stated as any span is (`SpanFirst.state`).

Only for a short answer of the first source, where it is laid out a line a thing (a
receipt, a bill, an invoice) or the question asks about money; a name in the question
("Fresh & Co") labels nothing; two lines that match, or none, leave it to the model.
"""

from __future__ import annotations

from functools import cache

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


def labelled_amount(plan: Plan, source: Source) -> tuple[str, SentenceRow] | None:
    """(the amount as the line writes it, the line) of the one line of `source` whose label
    a word of the question names; None where no line, or more than one, is named."""
    if plan.written or plan.kind != "short" or not (plan.money or laid_out(source.sentences)):
        return None
    asked = content_stems(" ".join(w for w in plan.question.split()[1:] if not w[:1].isupper()), min_length=3)
    asked -= _any_money()
    if not asked:
        return None
    named = []
    for sent in source.sentences:
        amount = _amount_written(sent.text)
        if amount is None:
            continue
        label = " ".join(sent.text[:sent.text.find(amount)].split()[:_LABEL_WORDS])
        if content_stems(label, min_length=3) & asked:
            named.append((amount, sent))
    return named[0] if len(named) == 1 else None


def _amount_written(text: str) -> str | None:
    """The one amount a line writes, as written ("28.76", "1,121.20"); None for none or several."""
    words = [w.strip("£€$:;,()") for w in text.split()]
    amounts = [w for w in words if w and line_amount(w) is not None and "." in w]
    return amounts[0] if len(amounts) == 1 else None
