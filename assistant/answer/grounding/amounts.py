"""What the amounts of a bill, a receipt or an invoice are, told by their arithmetic rather
than by their labels, so that it holds for labels nobody listed ("TOTAL", "Amount
payable", "Te betalen"):

- the **total** is the last amount that is the sum of two or more amounts right above it
  (the items; or a subtotal and its VAT);
- a **subtotal** is such a sum that the total adds up in turn;
- the **payment** lines come after the total: an amount handed over and the change given
  back, the one less the total being the other ("CASH 20.00", "CHANGE 2.65" under
  "TOTAL 17.35").

A question about what something cost is answered by the total: the subtotal and the
payment lines beside it are the figures a reader (or a small model) takes by mistake.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..money import CURRENCY_SYMBOLS

# An amount as bills write it: two decimals, thousands perhaps grouped, a sign or a
# currency symbol before it ("-£1,000.00", "17.35", "£ 4,338.40").
_AMOUNT = re.compile(rf"(?<![\w.,])(-)?\s?(?:[{CURRENCY_SYMBOLS}]\s?)?(-)?(\d{{1,3}}(?:,\d{{3}})+|\d+)\.(\d\d)(?![\d,]|\.\d)")
# Past this many amounts a text is no bill: its sums are left alone (and the search, which
# is quadratic in them, stays short).
MAX_AMOUNTS = 120


@dataclass(frozen=True)
class BillAmounts:
    """Line indexes: the total, the subtotals summed into it, the payment lines after it,
    and every line that states an amount."""

    total: int | None = None
    subtotals: frozenset[int] = field(default_factory=frozenset)
    payment: frozenset[int] = field(default_factory=frozenset)
    amounts: frozenset[int] = field(default_factory=frozenset)

    @property
    def beside_the_total(self) -> frozenset[int]:
        return self.subtotals | self.payment


def line_amount(text: str) -> int | None:
    """The last amount a line states, in hundredths ("TOTAL GBP 17.35" -> 1735); None when
    it states none."""
    found = None
    for m in _AMOUNT.finditer(text):
        found = m
    if found is None:
        return None
    cents = int(found[3].replace(",", "")) * 100 + int(found[4])
    return -cents if found[1] or found[2] else cents


def bill_amounts(lines: list[str]) -> BillAmounts:
    """The total, subtotals and payment lines among `lines` (a bill's lines in order); an
    empty BillAmounts where no amount is the sum of those above it."""
    amounts = [(i, cents) for i, text in enumerate(lines) if (cents := line_amount(text)) is not None]
    if len(amounts) > MAX_AMOUNTS:
        return BillAmounts()
    runs = {k: run for k in range(len(amounts)) if (run := _summed_run(amounts, k)) is not None}
    if not runs:
        return BillAmounts()
    last = max(runs)
    subtotals = frozenset(amounts[j][0] for j in runs[last] if j in runs)
    return BillAmounts(amounts[last][0], subtotals, _payment(amounts, last), frozenset(i for i, _ in amounts))


def _summed_run(amounts: list[tuple[int, int]], k: int) -> range | None:
    """The run of two or more amounts right above amount k that adds up to it, if any."""
    total, target = 0, amounts[k][1]
    for start in range(k - 1, -1, -1):
        total += amounts[start][1]
        if k - start >= 2 and total == target and target > 0:
            return range(start, k)
    return None


def _payment(amounts: list[tuple[int, int]], total_at: int) -> frozenset[int]:
    """An amount handed over after the total and the change after it: tendered less total
    is the change."""
    total = amounts[total_at][1]
    after = amounts[total_at + 1:]
    for n, (i, tendered) in enumerate(after):
        if tendered <= total:
            continue
        for j, change in after[n + 1:]:
            if change == tendered - total:
                return frozenset((i, j))
    return frozenset()
