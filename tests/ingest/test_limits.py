"""A file's rows and events are bounded, not only its reading time (issue 48): a 100,000-row
sheet became 100,000 units to parse and embed (over 600 s), and a 100,000-event calendar
took 1,036 s. Past the limit the file is indexed in part, and the run says what was left out."""

from __future__ import annotations

import csv

from assistant.ingest.loaders import load
from assistant.ingest.mail import MAX_EVENTS
from assistant.ingest.table_text import MAX_ROWS


def _csv(path, rows: int):
    with open(path, "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["Date", "Description", "Amount"])
        for i in range(rows):
            out.writerow([f"2024-01-{i % 28 + 1:02d}", f"Payment {i}", f"{i % 97}.50"])


def test_a_table_past_its_row_limit_is_read_in_part_and_says_so(tmp_path):
    _csv(tmp_path / "bank.csv", MAX_ROWS + 50)
    document = load(tmp_path / "bank.csv")
    assert f"Payment {MAX_ROWS - 1};" in document.text and f"Payment {MAX_ROWS};" not in document.text
    assert document.left_out == f"rows past {MAX_ROWS:,} (50 more), over the limit of {MAX_ROWS:,} rows a table"
    _csv(tmp_path / "small.csv", 20)
    assert load(tmp_path / "small.csv").left_out is None


def test_a_workbook_sheet_past_its_row_limit_says_which_sheet(tmp_path):
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Ledger"
    sheet.append(["Date", "Amount"])
    for i in range(MAX_ROWS + 5):
        sheet.append([f"day {i}", i])
    book.save(tmp_path / "ledger.xlsx")
    assert load(tmp_path / "ledger.xlsx").left_out == (
        f"rows past {MAX_ROWS:,} (5 more) of sheet Ledger, over the limit of {MAX_ROWS:,} rows a table")


def test_a_calendar_past_its_event_limit_is_read_in_part(tmp_path):
    events = "".join(f"BEGIN:VEVENT\r\nUID:e{i}\r\nDTSTART:20240101T090000Z\r\nSUMMARY:Lesson {i}\r\nEND:VEVENT\r\n"
                     for i in range(MAX_EVENTS + 3))
    (tmp_path / "cal.ics").write_text(f"BEGIN:VCALENDAR\r\nVERSION:2.0\r\n{events}END:VCALENDAR\r\n")
    document = load(tmp_path / "cal.ics")
    assert "Lesson 0" in document.text and f"Lesson {MAX_EVENTS}\n" not in document.text + "\n"
    assert document.left_out == f"events past {MAX_EVENTS:,} (3 more), over the limit of {MAX_EVENTS:,} a calendar"


def test_the_run_names_a_file_it_indexed_in_part(tmp_path, quick_cli):
    folder = tmp_path / "docs"
    folder.mkdir()
    _csv(folder / "bank.csv", MAX_ROWS + 50)
    proc = quick_cli("index", str(folder), index=tmp_path / "ix")
    assert proc.exit_code == 0, proc.output
    assert f"indexed in part {folder / 'bank.csv'}: not read: rows past {MAX_ROWS:,} (50 more)" in " ".join(proc.output.split())
