"""Each indexed sheet (CSV, TSV, XLSX, XLSM, ODS) read back as a table from its row
sentences ("Bills, row 14: Date: 2025-03-02; Item: Roof repair; Amount: £1,250"), so the
table and its citations are the index's own rows and are always in step with it: a file
re-indexed, moved or forgotten changes them with everything else. Each column's kind
(date, money with its currency, number, text) is inferred from its values."""

from __future__ import annotations

import calendar
import datetime as dt
import re
from dataclasses import dataclass, field
from pathlib import PurePath

from ...ingest.locator import row_fields, row_number
from ...store import Store
from ...store.row_types import ChunkRow, SentenceRow
from ..question.reading import Words

TABLE_SUFFIXES = (".csv", ".tsv", ".xlsx", ".xlsm", ".ods")
_CURRENCY = {"£": "£", "€": "€", "$": "$", "¥": "¥", "gbp": "£", "eur": "€", "usd": "$", "jpy": "¥"}
_MONEY = re.compile(
    r"(?P<neg>[-−(])?\s*(?P<pre>[£€$¥]|(?:GBP|EUR|USD)\s)?\s*(?P<neg2>-)?(?P<num>\d[\d,]*(?:\.\d+)?|\.\d+)"
    r"\s*(?P<post>[£€$¥]|\s?(?:GBP|EUR|USD))?\)?", re.I)
# A column of money, by a word of its name ("Amount", "Paid out", "Cost (£)").
_AMOUNT_HEADER = frozenset("amount total cost price paid spent spend value sum debit credit money payment fee charge "
                           "balance budget actual out in gbp eur usd".split())


def _names_money(name: str) -> bool:
    return bool(_AMOUNT_HEADER & set(Words.of(name).all)) or any(c in name for c in "£€$")


@dataclass
class Row:
    number: int
    cells: dict[str, str]
    sentence: SentenceRow
    chunk: ChunkRow


@dataclass
class Column:
    name: str
    kind: str = "text"  # "date", "month" (names of months), "money", "number" or "text"
    currency: str = ""  # "£" ... for money


@dataclass
class Table:
    path: str
    title: str | None
    sheet: str | None
    columns: list[Column] = field(default_factory=list)
    rows: list[Row] = field(default_factory=list)

    @property
    def name(self) -> str:
        """"bank-2025.csv" or "budget.xlsx, sheet Bills": as the answer says it."""
        file = PurePath(self.path).name
        return f"{file}, sheet {self.sheet}" if self.sheet else file

    def column(self, name: str) -> Column | None:
        return next((c for c in self.columns if c.name == name), None)

    def of_kind(self, *kinds: str) -> list[Column]:
        return [c for c in self.columns if c.kind in kinds]


def number(text: str) -> tuple[float, str] | None:
    """A cell's amount and its currency ("£1,250.00" → (1250.0, "£"); "(45.20)" → -45.2);
    None where the cell is not one number."""
    m = _MONEY.fullmatch(text.strip())
    if not m:
        return None
    value = float(m["num"].replace(",", ""))
    if m["neg"] or m["neg2"]:
        value = -value
    mark = (m["pre"] or m["post"] or "").strip().lower()
    return value, _CURRENCY.get(mark, "")


_DATE_FORMATS = ("%Y-%m-%d", "%Y/%m/%d", "%d %B %Y", "%d %b %Y", "%B %d, %Y", "%b %d, %Y", "%d-%b-%Y", "%d %b %y")


def day(text: str, day_first: bool = True) -> dt.date | None:
    """A cell's date: ISO (a workbook's "2025-03-02 00:00:00" too), "2 March 2025",
    "02/03/2025" (day first unless the column says otherwise)."""
    text = text.strip()
    iso = re.match(r"(\d{4})-(\d{2})-(\d{2})(?:[ T]\d{2}:\d{2}(?::\d{2})?)?$", text)
    if iso:
        try:
            return dt.date(*map(int, iso.groups()))
        except ValueError:
            return None
    slash = re.fullmatch(r"(\d{1,2})[/.](\d{1,2})[/.](\d{2}|\d{4})", text)
    if slash:
        a, b, y = map(int, slash.groups())
        y += 2000 if y < 100 else 0
        d, m = (a, b) if day_first else (b, a)
        try:
            return dt.date(y, m, d)
        except ValueError:
            return None
    for fmt in _DATE_FORMATS:
        try:
            return dt.datetime.strptime(text, fmt).date()
        except ValueError:
            continue
    return None


_MONTH_NAMES = {m.lower(): i for i, m in enumerate(calendar.month_name) if m}
_MONTH_NAMES.update({m.lower(): i for i, m in enumerate(calendar.month_abbr) if m})


def month_number(text: str) -> int | None:
    """"March" or "Mar" → 3."""
    return _MONTH_NAMES.get(text.strip().lower().rstrip("."))


def _day_first(values: list[str]) -> bool:
    """dd/mm unless a value can only be mm/dd (its second part over 12)."""
    pairs = [re.fullmatch(r"(\d{1,2})[/.](\d{1,2})[/.]\d{2,4}", v.strip()) for v in values]
    return not any(p and int(p[2]) > 12 for p in pairs) or any(p and int(p[1]) > 12 for p in pairs)


def typed_columns(names: list[str], rows: list[Row]) -> list[Column]:
    """Each column's kind: the kind four in five of its filled cells read as."""
    columns = []
    for name in names:
        values = [r.cells[name] for r in rows if r.cells.get(name)]
        column = Column(name)
        if values:
            enough = max(1, int(0.8 * len(values)))
            first = _day_first(values)
            numbers = [n for n in (number(v) for v in values) if n is not None]
            if sum(1 for v in values if day(v, first)) >= enough:
                column.kind = "date"
            elif sum(1 for v in values if month_number(v)) >= enough:
                column.kind = "month"
            elif len(numbers) >= enough:
                marks = {c for _, c in numbers if c}
                header_mark = next((c for k, c in _CURRENCY.items() if k in name.lower().split() or k in name), "")
                currency = next(iter(marks)) if len(marks) == 1 else header_mark
                money = currency or _names_money(name) or any("." in v for v in values)
                column.kind, column.currency = ("money", currency) if money else ("number", "")
        columns.append(column)
    return columns


# The tables last read, with the index version they were read at: read again only once
# the index has changed (every committed write bumps its version, in any process).
_READ: dict = {}


def read_tables(store: Store, admits=lambda path: True) -> list[Table]:
    """Every indexed sheet (of a file `admits`), its rows in order, its columns typed."""
    key = (id(store), str(store.path), store.meta.version)
    if _READ.get("key") != key:
        _READ.clear()
        _READ.update(key=key, tables=_read_all(store))
    return [t for t in _READ["tables"] if admits(t.path)]


def _read_all(store: Store) -> list[Table]:
    docs = [d for d in store.docs.documents() if d.status == "ok" and d.path.lower().endswith(TABLE_SUFFIXES)]
    tables = []
    for doc in docs:
        chunk_ids = store.passages.chunk_ids_of([doc.path])
        chunks = store.passages.chunks(chunk_ids)
        sentences = store.passages.sentences_of(chunk_ids)
        by_sheet: dict[str | None, Table] = {}
        headers: dict[str | None, list[str]] = {}
        sheet = None
        for cid in sorted(chunks, key=lambda c: chunks[c].ord):
            for s in sentences.get(cid, []):
                text = s.text.strip()
                if text.startswith("Sheet: ") and "\n" not in text:
                    sheet = text.removeprefix("Sheet: ").strip()
                elif text.startswith("Columns: "):
                    headers[sheet] = [c.strip() for c in text.removeprefix("Columns: ").split("; ")]
                elif (where := row_number(text)) and (fields := row_fields(text)):
                    name, number_ = where
                    table = by_sheet.setdefault(name, Table(doc.path, doc.title, name))
                    table.rows.append(Row(number_, dict(fields), s, chunks[cid]))
        for table in by_sheet.values():
            names = list(dict.fromkeys([*headers.get(table.sheet, []), *(k for r in table.rows for k in r.cells)]))
            table.columns = typed_columns(names, table.rows)
            tables.append(table)
    return tables
