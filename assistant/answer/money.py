"""How documents write money: the currency symbols and codes an amount may carry, and a
pattern that finds an amount in a line ("€549", "GBP 29.49", "1,200 EUR")."""

from __future__ import annotations

import re

CURRENCY_SYMBOLS = "£€$¥₹"
CURRENCY_CODES = ("GBP", "EUR", "USD", "CHF", "JPY", "CAD", "AUD", "NZD", "SEK", "NOK", "DKK", "PLN", "CZK",
                  "INR", "CNY", "HKD", "SGD", "ZAR")
_CODES = "|".join(CURRENCY_CODES)
MONEY = re.compile(rf"[{CURRENCY_SYMBOLS}]\s?\d|\d\s?(?:{_CODES})\b|\b(?:{_CODES})\s?\d|\d\s(?:pounds|euros|dollars)\b")
