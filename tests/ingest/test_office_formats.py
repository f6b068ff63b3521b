"""A person's other files: spreadsheets and CSV, slides, OpenDocument, RTF, e-mail and
calendars. Each file is built here with a real library (openpyxl, python-pptx, odfpy,
the email package, icalendar), loaded, and then indexed with the rest through the real
Engine: each is found by a question about a fact in it, and a corrupt file of each type
fails with a one-line reason."""

from __future__ import annotations

import datetime as dt
import io
import os
import re
import shutil
from email.message import EmailMessage
from pathlib import Path

import pytest

from helpers import indexed_folder
from assistant.ingest.loaders import SUPPORTED_SUFFIXES, LoadError, load
from assistant.ingest.zip_containers import ZIP_CONTAINERS
from assistant.safetext import path_key

NEW = (".xlsx", ".ods", ".csv", ".tsv", ".pptx", ".odt", ".odp", ".rtf", ".eml", ".mbox", ".ics")


# --- the files ----------------------------------------------------------------------


def _xlsx() -> bytes:
    from openpyxl import Workbook

    book = Workbook()
    book.properties.title = "Household accounts"
    sheet = book.active
    sheet.title = "Budget"
    sheet.append(["Household budget 2024"])
    sheet.append([])
    sheet.append(["Date", "Item", "Amount", "Paid to"])
    sheet.append([dt.datetime(2024, 3, 2), "Roof repair", 1250.0, "Kestrel Roofing"])
    sheet.append([])
    sheet.append([dt.datetime(2024, 3, 9), "Boiler service", 95.5, "Harrowmere Heating"])
    sheet.append([None, "Share of income", 0.15, None])
    sheet["C7"].number_format = "0%"
    savings = book.create_sheet("Savings")
    savings.append(["Account", "Balance"])
    savings.append(["Ferry Street Building Society", 4200])
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def _odf_bytes(document) -> bytes:
    buffer = io.BytesIO()
    document.write(buffer)
    return buffer.getvalue()


def _ods() -> bytes:
    from odf.opendocument import OpenDocumentSpreadsheet
    from odf.table import Table, TableCell, TableRow
    from odf.text import P

    doc = OpenDocumentSpreadsheet()

    def row(*values, repeat=None):
        r = TableRow(numberrowsrepeated=repeat) if repeat else TableRow()
        for v in values:
            if isinstance(v, (int, float)):
                cell = TableCell(valuetype="float", value=v)
                cell.addElement(P(text=f"{v:g}"))
            else:
                cell = TableCell(valuetype="string")
                if v:
                    cell.addElement(P(text=v))
            r.addElement(cell)
        # What office suites write after the last cell: the rest of the row, empty.
        r.addElement(TableCell(numbercolumnsrepeated=16000))
        return r

    plots = Table(name="Plots")
    for r in (row("Plot", "Tenant", "Crop"), row(7, "Edwin Rook", "Rhubarb and leeks"),
              row(), row(12, "Ada Quill", "Sweet peas")):
        plots.addElement(r)
    plots.addElement(row(repeat=1_000_000))  # a formatted, empty rest of the sheet
    doc.spreadsheet.addElement(plots)
    waiting = Table(name="Waiting list")
    for r in (row("Name", "Since"), row("Tobias Fenwick", "2021-04-01")):
        waiting.addElement(r)
    doc.spreadsheet.addElement(waiting)
    return _odf_bytes(doc)


def _csv() -> bytes:
    # Semicolons and cp1252, as a spreadsheet program in much of Europe saves them.
    return ("Name;Phone;Town\r\nMabel Ashdown;01632 960455;Brackenford\r\n;;\r\n"
            "Jörg Café;01632 960981;Lowmoor\r\n").encode("cp1252")


def _tsv() -> bytes:
    return b"Tool\tLent to\tReturned\nHedge trimmer\tWalter Pym\tno\n"


def _pptx() -> bytes:
    from pptx import Presentation
    from pptx.util import Inches

    deck = Presentation()
    deck.core_properties.title = "Harbour Festival"
    first = deck.slides.add_slide(deck.slide_layouts[0])
    first.shapes.title.text = "Harbour Festival plan"
    first.placeholders[1].text = "Committee meeting, May"
    second = deck.slides.add_slide(deck.slide_layouts[1])
    second.shapes.title.text = "Stalls and budget"
    body = second.placeholders[1].text_frame
    body.text = "The brass band costs 600 pounds for the afternoon."
    body.add_paragraph().text = "Forty stalls line the quay."
    table = second.shapes.add_table(2, 2, Inches(1), Inches(5), Inches(4), Inches(1)).table
    for (r, c), value in {(0, 0): "Stall", (0, 1): "Fee", (1, 0): "Cake stall", (1, 1): "15 pounds"}.items():
        table.cell(r, c).text = value
    second.notes_slide.notes_text_frame.text = "Remember to book the lifeboat crew."
    buffer = io.BytesIO()
    deck.save(buffer)
    return buffer.getvalue()


def _odt() -> bytes:
    from odf.opendocument import OpenDocumentText
    from odf.table import Table, TableCell, TableRow
    from odf.text import H, List, ListItem, ListLevelStyleNumber, ListStyle, Note, NoteBody, NoteCitation, P, Span

    doc = OpenDocumentText()
    doc.text.addElement(H(outlinelevel=1, text="Mill restoration report"))
    doc.text.addElement(H(outlinelevel=2, text="The wheel"))
    para = P(text="The waterwheel at Calder Mill was restored in 2019 ")
    para.addElement(Span(text="by forty volunteers."))
    note = Note(noteclass="footnote")
    note.addElement(NoteCitation(text="1"))
    body = NoteBody()
    body.addElement(P(text="The oak for its paddles came from Brackenford."))
    note.addElement(body)
    para.addElement(note)
    doc.text.addElement(para)
    items = List()
    for text in ("New sluice gate.", "Repointed millrace wall."):
        item = ListItem()
        item.addElement(P(text=text))
        items.addElement(item)
    doc.text.addElement(items)
    numbering = ListStyle(name="Steps")
    numbering.addElement(ListLevelStyleNumber(level=1, numformat="1"))
    doc.automaticstyles.addElement(numbering)
    steps = List(stylename=numbering)
    for text in ("Drain the race.", "Lift the gate."):
        item = ListItem()
        item.addElement(P(text=text))
        steps.addElement(item)
    doc.text.addElement(steps)
    table = Table(name="Costs")
    for cells in (("Work", "Cost"), ("Sluice gate", "3,400 pounds")):
        tr = TableRow()
        for text in cells:
            tc = TableCell()
            tc.addElement(P(text=text))
            tr.addElement(tc)
        table.addElement(tr)
    doc.text.addElement(table)
    return _odf_bytes(doc)


def _odp() -> bytes:
    from odf.draw import Frame, Page, TextBox
    from odf.opendocument import OpenDocumentPresentation
    from odf.presentation import Notes
    from odf.style import MasterPage, PageLayout
    from odf.text import P

    doc = OpenDocumentPresentation()
    layout = PageLayout(name="layout")
    doc.automaticstyles.addElement(layout)
    master = MasterPage(name="master", pagelayoutname=layout)
    doc.masterstyles.addElement(master)

    def frame(text, cls=None):
        f = Frame(width="20cm", height="3cm", x="1cm", y="1cm", **({"class": cls} if cls else {}))
        box = TextBox()
        box.addElement(P(text=text))
        f.addElement(box)
        return f

    for title, line, said in (("Lantern parade", "Volunteers meet at the church hall.", None),
                              ("Route", "The lantern parade starts at the quay at dusk.", "Mention the road closure.")):
        page = Page(masterpagename=master)
        page.addElement(frame(title, "title"))
        page.addElement(frame(line))
        if said:
            notes = Notes()
            notes.addElement(frame(said))
            page.addElement(notes)
        doc.presentation.addElement(page)
    return _odf_bytes(doc)


def _rtf() -> bytes:
    return (rb"{\rtf1\ansi\ansicpg1252\deff0{\fonttbl{\f0 Times New Roman;}}"
            rb"{\info{\title Letter to the parish}}"
            rb"\f0\fs24 Dear friends,\par The churchyard yew is over 800 years old.\par "
            rb"Tea at the Caf\'e9 follows the meeting.\par}")


def _eml() -> bytes:
    msg = EmailMessage()
    msg["From"] = "Lowmoor Ferries <tickets@lowmoor.example>"
    msg["To"] = "Alice Marlow <alice@example.org>"
    msg["Date"] = "Thu, 07 Mar 2024 10:12:00 +0000"
    msg["Subject"] = "Your ticket to the Lowmoor ferry"
    msg.set_content("Dear Alice,\n\nYour crossing to Lowmoor departs at 7:45 on Saturday from the north pier.\n")
    msg.add_alternative("<html><body><p>Your crossing to Lowmoor departs at 7:45.</p></body></html>", subtype="html")
    msg.add_attachment(b"Seat 12A on the upper deck, by the galley window.\n", maintype="text",
                       subtype="plain", filename="ticket.txt")
    msg.add_attachment(_fares_xlsx(), maintype="application", filename="fares.xlsx",
                       subtype="vnd.openxmlformats-officedocument.spreadsheetml.sheet")
    msg.add_attachment(b"\x89PNG\r\n\x1a\n" + bytes(64), maintype="image", subtype="png", filename="map.png")
    return bytes(msg)


def _fares_xlsx() -> bytes:
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    sheet.title = "Fares"
    sheet.append(["Route", "Return fare", "Bicycle"])
    sheet.append(["North pier to Lowmoor", 18.5, 3])
    sheet.append(["Lowmoor to Harrow Isle", 11.0, 2])
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def _mbox() -> bytes:
    def message(subject, sender, when, body, attached=()):
        msg = EmailMessage()
        msg["From"], msg["To"], msg["Date"], msg["Subject"] = sender, "parish@example.org", when, subject
        msg.set_content(body)
        for name, data in attached:
            msg.add_attachment(data, maintype="text", subtype="plain", filename=name)
        return bytes(msg).replace(b"\r\n", b"\n")

    first = message("Bell ringing practice", "Tom Bellamy <tom@example.org>", "Mon, 04 Mar 2024 08:00:00 +0000",
                    "Bell ringing practice moves to Thursday evenings.\n>From now on we start at seven.\n")
    second = message("Jumble sale", "Ada Quill <ada@example.org>", "Sat, 09 Mar 2024 17:30:00 +0000",
                     "The jumble sale raised 312 pounds for the roof fund.\n",
                     attached=[("float.txt", b"The tombola float of 40 pounds in coins is kept in the vestry safe.\n")])
    return (b"From tom@example.org Mon Mar  4 08:00:00 2024\n" + first + b"\n"
            b"From ada@example.org Sat Mar  9 17:30:00 2024\n" + second + b"\n")


def _ics() -> bytes:
    from zoneinfo import ZoneInfo

    import icalendar

    cal = icalendar.Calendar()
    cal.add("prodid", "-//test//EN")
    cal.add("version", "2.0")
    cal.add("x-wr-calname", "Family")
    dentist = icalendar.Event()
    dentist.add("uid", "1@test")
    dentist.add("summary", "Dentist check-up")
    dentist.add("dtstart", dt.datetime(2024, 3, 5, 9, 30, tzinfo=ZoneInfo("Europe/London")))
    dentist.add("dtend", dt.datetime(2024, 3, 5, 10, 15, tzinfo=ZoneInfo("Europe/London")))
    dentist.add("location", "Smile Clinic, Harbour Road")
    dentist.add("description", "Bring the insurance card.")
    birthday = icalendar.Event()
    birthday.add("uid", "2@test")
    birthday.add("summary", "Grandma Elsie's birthday")
    birthday.add("dtstart", dt.date(2024, 6, 12))
    birthday.add("dtend", dt.date(2024, 6, 13))
    birthday.add("rrule", {"freq": "yearly"})
    birthday.add("description", "Bring the seed cake from the Wren Bakery.")
    cal.add_component(dentist)
    cal.add_component(birthday)
    return cal.to_ical()


FILES = {
    "budget.xlsx": _xlsx, "allotments.ods": _ods, "contacts.csv": _csv, "tools.tsv": _tsv,
    "festival.pptx": _pptx, "mill.odt": _odt, "parade.odp": _odp, "letter.rtf": _rtf,
    "ferry.eml": _eml, "parish.mbox": _mbox, "family.ics": _ics,
}

# name -> content that cannot be read, and the one-line reason it gets.
CORRUPT = {
    "broken.xlsx": (os.urandom(2048), r"^corrupt XLSX: "),
    "broken.ods": (b"PK\x03\x04" + os.urandom(500), r"^corrupt ODS: "),
    "broken.csv": (os.urandom(4096), r"^binary content in a text file$"),
    "broken.tsv": (b"\x00\x01\x02" * 300, r"^binary content in a text file$"),
    "broken.pptx": (os.urandom(2048), r"^corrupt PPTX: "),
    "broken.odt": (lambda: _zip({"mimetype": "application/vnd.oasis.opendocument.text"}),
                   r"^corrupt ODT: no content.xml"),
    "broken.odp": (lambda: _zip({"content.xml": "<office:document-content"}), r"^corrupt ODP: "),
    "broken.rtf": (b"Dear friends, this was never RTF.", r"^corrupt RTF: it does not start with"),
    "broken.eml": (os.urandom(4096), r"^corrupt e-mail message: binary content"),
    "headless.eml": (b"just a line of text, no headers at all\n", r"^corrupt e-mail message: no message headers"),
    "broken.mbox": (b"Subject: not a mailbox\n\nhello\n", r"^corrupt mailbox: it does not start with a 'From '"),
    "broken.ics": (b"BEGIN:VCALENDAR\nthis line is no property\n", r"^corrupt iCalendar: "),
}


def _zip(entries: dict[str, str]) -> bytes:
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        for name, data in entries.items():
            z.writestr(name, data)
    return buffer.getvalue()


def _write(folder: Path, name: str, content) -> Path:
    path = folder / name
    path.write_bytes(content() if callable(content) else content)
    return path


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("office")
    return {name: _write(folder, name, build) for name, build in FILES.items()}


def _page_of(doc, phrase: str) -> int | None:
    return doc.page_at(doc.text.index(phrase))


# --- (a) each loaded ----------------------------------------------------------------


def test_the_new_types_are_supported():
    assert set(NEW) <= SUPPORTED_SUFFIXES
    assert {".xlsx", ".ods", ".pptx", ".odt", ".odp"} <= ZIP_CONTAINERS


def test_a_question_can_be_kept_to_the_new_types_by_the_names_people_use():
    from assistant.retrieve.scope import suffixes_of

    assert {".xlsx", ".ods", ".csv"} <= set(suffixes_of("spreadsheet")) and ".xlsx" in suffixes_of("excel")
    assert set(suffixes_of("email")) == {".eml", ".mbox"} and suffixes_of("calendar") == (".ics",)
    assert ".pptx" in suffixes_of("slides") and suffixes_of("rtf") == (".rtf",)


def test_xlsx_rows_read_with_their_headers_a_sheet_a_page(files):
    doc = load(files["budget.xlsx"])
    assert doc.title == "Household accounts"
    assert doc.text.startswith("Sheet: Budget\n\nHousehold budget 2024\n\nColumns: Date; Item; Amount; Paid to")
    assert "Budget, row 4: Date: 2024-03-02; Item: Roof repair; Amount: 1250; Paid to: Kestrel Roofing" in doc.text
    assert ("Budget, row 6: Date: 2024-03-09; Item: Boiler service; Amount: 95.5; "
            "Paid to: Harrowmere Heating") in doc.text
    assert "Budget, row 7: Item: Share of income; Amount: 15%" in doc.text
    assert "Budget, row 5" not in doc.text and "Budget, row 2" not in doc.text  # empty rows are left out
    assert "Savings, row 2: Account: Ferry Street Building Society; Balance: 4200" in doc.text
    assert [p for p, _ in doc.pages] == [1, 2]
    assert _page_of(doc, "Roof repair") == 1 and _page_of(doc, "Sheet: Savings") == 2
    assert _page_of(doc, "Ferry Street") == 2
    assert "\n\n\n" not in doc.text


def test_ods_rows_with_headers_repeated_cells_and_rows_cost_nothing(files):
    doc = load(files["allotments.ods"])
    assert "Plots, row 2: Plot: 7; Tenant: Edwin Rook; Crop: Rhubarb and leeks" in doc.text
    assert "Plots, row 4: Plot: 12; Tenant: Ada Quill; Crop: Sweet peas" in doc.text
    assert "Waiting list, row 2: Name: Tobias Fenwick; Since: 2021-04-01" in doc.text
    assert [p for p, _ in doc.pages] == [1, 2]
    assert _page_of(doc, "Tobias Fenwick") == 2 and _page_of(doc, "Edwin Rook") == 1
    # The 16,000 empty cells closing each row were never spelled out.
    assert not re.search(r"Column [A-Z]", doc.text)
    assert len(doc.text) < 1000


def test_csv_sniffed_decoded_and_read_with_its_header(files):
    doc = load(files["contacts.csv"])
    assert doc.text.startswith("Columns: Name; Phone; Town")
    assert "Row 2: Name: Mabel Ashdown; Phone: 01632 960455; Town: Brackenford" in doc.text
    assert "Row 4: Name: Jörg Café; Phone: 01632 960981; Town: Lowmoor" in doc.text
    assert "Row 3" not in doc.text and doc.pages == []
    tsv = load(files["tools.tsv"])
    assert "Row 2: Tool: Hedge trimmer; Lent to: Walter Pym; Returned: no" in tsv.text


def test_a_sheet_without_a_header_names_its_columns_by_letter(tmp_path):
    path = _write(tmp_path, "readings.csv", b"2024-01-01,4512,kWh\n2024-02-01,4790,kWh\n")
    doc = load(path)
    assert "Row 1: Column A: 2024-01-01; Column B: 4512; Column C: kWh" in doc.text
    years = _write(tmp_path, "years.csv", b"Item,2023,2024\nRent,1200,1250\n")
    assert "Row 2: Item: Rent; 2023: 1200; 2024: 1250" in load(years).text


def test_reading_a_long_table_stops_at_max_rows_and_keeps_what_was_read(tmp_path):
    from assistant.ingest.table_text import MAX_ROWS

    rows = "".join(f"{i},item {i}\n" for i in range(MAX_ROWS + 500))
    doc = load(_write(tmp_path, "long.csv", ("n,item\n" + rows).encode()))
    assert f"Row {MAX_ROWS + 1}: n: {MAX_ROWS - 1}; item: item {MAX_ROWS - 1}" in doc.text
    assert f"Row {MAX_ROWS + 2}:" not in doc.text


def test_pptx_slide_by_slide_with_titles_tables_and_notes(files):
    doc = load(files["festival.pptx"])
    assert doc.title == "Harbour Festival"
    assert doc.text.startswith("Slide 1: Harbour Festival plan\n\nCommittee meeting, May")
    assert "Slide 2: Stalls and budget\n\nThe brass band costs 600 pounds for the afternoon." in doc.text
    assert "Forty stalls line the quay." in doc.text
    assert "Columns: Stall; Fee\n\nRow 2: Stall: Cake stall; Fee: 15 pounds" in doc.text
    assert "Speaker notes: Remember to book the lifeboat crew." in doc.text
    assert [p for p, _ in doc.pages] == [1, 2]
    assert _page_of(doc, "brass band") == 2 and _page_of(doc, "lifeboat") == 2 and _page_of(doc, "Committee") == 1


def test_odt_headings_paragraphs_footnotes_lists_and_tables_in_order(files):
    doc = load(files["mill.odt"])
    text = doc.text
    # Headings are marked as Markdown marks them, by outline level; the first one is the
    # title where the document's properties give none.
    assert text.startswith("# Mill restoration report\n\n## The wheel\n\n"
                           "The waterwheel at Calder Mill was restored in 2019 by forty volunteers.")
    assert doc.title == "Mill restoration report"
    # The footnote's number is not glued to the sentence; its text follows the paragraph.
    assert "volunteers.1" not in text and "\n\nThe oak for its paddles came from Brackenford." in text
    assert text.index("Brackenford") < text.index("New sluice gate.") < text.index("Repointed millrace wall.")
    # A list is one block, each item a line marked as Markdown marks it, numbered where its
    # style numbers it: an item is read with the lines before it.
    assert "\n\n- New sluice gate.\n- Repointed millrace wall.\n\n1. Drain the race.\n2. Lift the gate.\n\n" in text
    assert "Columns: Work; Cost\n\nRow 2: Work: Sluice gate; Cost: 3,400 pounds" in text
    assert doc.pages == []


def test_odp_slides_with_titles_and_notes(files):
    doc = load(files["parade.odp"])
    assert doc.text.startswith("Slide 1: Lantern parade\n\nVolunteers meet at the church hall.")
    assert "Slide 2: Route\n\nThe lantern parade starts at the quay at dusk." in doc.text
    assert "Speaker notes: Mention the road closure." in doc.text
    assert doc.text.count("Lantern parade") == 1  # the title is not read twice
    assert [p for p, _ in doc.pages] == [1, 2] and _page_of(doc, "at dusk") == 2


def test_rtf_text_and_title(files):
    doc = load(files["letter.rtf"])
    assert doc.title == "Letter to the parish"
    assert "The churchyard yew is over 800 years old." in doc.text
    assert "Tea at the Café follows the meeting." in doc.text
    assert "Times New Roman" not in doc.text and "\\" not in doc.text


def test_eml_headers_plain_body_and_attachments(files):
    doc = load(files["ferry.eml"])
    assert doc.title == "Your ticket to the Lowmoor ferry"
    assert doc.text.startswith("From: Lowmoor Ferries <tickets@lowmoor.example>\nTo: Alice Marlow <alice@example.org>\n"
                               "Date: Thu, 07 Mar 2024 10:12:00 +0000\nSubject: Your ticket to the Lowmoor ferry")
    assert "Your crossing to Lowmoor departs at 7:45 on Saturday from the north pier." in doc.text
    assert "<p>" not in doc.text and doc.text.count("departs at 7:45") == 1  # the plain part, not both
    assert "Attachments: ticket.txt, fares.xlsx, map.png" in doc.text
    assert doc.pages == []
    # A supported attachment is a document of its own, read in its own format; one that
    # cannot be read (this PNG is a header and zeros) is noted after the message.
    assert "Seat 12A" not in doc.text and "Attachment: map.png (not read: corrupt image" in doc.text
    ticket, fares = doc.attachments
    assert (ticket.name, ticket.document.text) == ("ticket.txt", "Seat 12A on the upper deck, by the galley window.")
    assert ticket.size == len(b"Seat 12A on the upper deck, by the galley window.\n")
    assert fares.name == "fares.xlsx" and "North pier to Lowmoor" in fares.document.text
    assert fares.document.title == "fares.xlsx"


def test_an_attachment_is_named_as_one_path_step_unique_in_its_message():
    from assistant.ingest.mail import file_name

    assert file_name("../../etc/passwd") == ".._.._etc_passwd"
    assert file_name("notes.pdf", {"notes.pdf"}) == "notes (2).pdf"
    assert file_name("notes.pdf", {"notes.pdf", "notes (2).pdf"}) == "notes (3).pdf"
    assert file_name("..") == "attachment" and file_name("a\x1bb.txt") == "a_b.txt"


def test_eml_with_only_html_reads_it_as_text(tmp_path):
    msg = EmailMessage()
    msg["Subject"], msg["From"] = "Minutes", "clerk@example.org"
    msg.set_content("<html><body><h1>Minutes</h1><p>The toll house keeper kept <b>geese</b>.</p></body></html>",
                    subtype="html")
    doc = load(_write(tmp_path, "minutes.eml", bytes(msg)))
    assert "The toll house keeper kept geese." in doc.text and "<" not in doc.text.split("\n", 2)[-1]


def test_eml_an_attachment_that_cannot_be_read_costs_only_itself(tmp_path):
    msg = EmailMessage()
    msg["From"], msg["Subject"] = "ada@example.org", "Accounts"
    msg.set_content("The accounts are attached.")
    msg.add_attachment(os.urandom(2048), maintype="application", subtype="octet-stream", filename="accounts.xlsx")
    doc = load(_write(tmp_path, "accounts.eml", bytes(msg)))
    assert "The accounts are attached." in doc.text
    assert re.search(r"Attachment: accounts.xlsx \(not read: corrupt XLSX: [^\n]+\)", doc.text), doc.text


def test_eml_a_forwarded_message_is_read_with_it(tmp_path):
    inner = EmailMessage()
    inner["From"], inner["Subject"] = "clerk@example.org", "Minutes of March"
    inner.set_content("The bridge toll was abolished in 1889.")
    outer = EmailMessage()
    outer["From"], outer["Subject"] = "ada@example.org", "Fwd: minutes"
    outer.set_content("See below.")
    outer.add_attachment(inner)
    doc = load(_write(tmp_path, "fwd.eml", bytes(outer)))
    assert 'Attachments: message "Minutes of March"' in doc.text
    assert "Attached message:\n\nFrom: clerk@example.org\nSubject: Minutes of March\n\nThe bridge toll" in doc.text


def test_mbox_a_message_a_page_with_its_headers(files):
    doc = load(files["parish.mbox"])
    assert doc.text.startswith("Message 1 of 2\nFrom: Tom Bellamy <tom@example.org>")
    assert "Subject: Bell ringing practice" in doc.text
    assert "Bell ringing practice moves to Thursday evenings.\nFrom now on we start at seven." in doc.text
    assert "Message 2 of 2\nFrom: Ada Quill <ada@example.org>\nTo: parish@example.org\n" in doc.text
    assert [p for p, _ in doc.pages] == [1, 2]
    assert _page_of(doc, "jumble sale raised") == 2 and _page_of(doc, "Thursday evenings") == 1
    # A message's attachment is a document of its own, under its message.
    assert "Attachments: float.txt" in doc.text and "tombola" not in doc.text
    [attached] = doc.attachments
    assert attached.name == "message 2/float.txt" and "vestry safe" in attached.document.text


def test_a_mailboxs_attachments_past_its_allowance_are_only_named(files, monkeypatch):
    from assistant.ingest import mail

    monkeypatch.setattr(mail, "MAILBOX_ATTACHMENTS_MB", 0.00001)
    doc = load(files["parish.mbox"])
    assert doc.attachments == []
    assert "Attachment: float.txt (not read: the mailbox's attachments past 1e-05 MB are only named)" in doc.text


def test_ics_an_event_a_paragraph_saying_what_when_and_where(files):
    doc = load(files["family.ics"])
    assert doc.title == "Family"
    assert ("Event: Dentist check-up, Tuesday 5 March 2024, 09:30 to 10:15 (GMT), "
            "at Smile Clinic, Harbour Road.\nBring the insurance card.") in doc.text
    assert ("Event: Grandma Elsie's birthday, Wednesday 12 June 2024.\nRepeats yearly.\n"
            "Bring the seed cake from the Wren Bakery.") in doc.text
    assert doc.pages == []


@pytest.mark.parametrize("name", sorted(CORRUPT))
def test_a_corrupt_file_of_each_type_gets_a_one_line_reason(tmp_path, name):
    content, reason = CORRUPT[name]
    path = _write(tmp_path, name, content)
    with pytest.raises(LoadError) as info:
        load(path)
    message = str(info.value)
    assert re.search(reason, message), message
    assert "\n" not in message and len(message) <= 300


# --- (b) indexed and found ----------------------------------------------------------

QUESTIONS = {
    "budget.xlsx": "How much did I pay for the roof repair?",
    "allotments.ods": "Who grows rhubarb and leeks on the allotment?",
    "contacts.csv": "What is Mabel Ashdown's phone number?",
    "tools.tsv": "Who borrowed the hedge trimmer?",
    "festival.pptx": "How much does the brass band cost?",
    "mill.odt": "When was the waterwheel at Calder Mill restored?",
    "parade.odp": "Where does the lantern parade start?",
    "letter.rtf": "How old is the churchyard yew?",
    "ferry.eml": "When does my crossing to Lowmoor depart?",
    "ferry.eml/ticket.txt": "Which seat do I have on the upper deck?",
    "ferry.eml/fares.xlsx": "What is the return fare from North pier to Lowmoor?",
    "parish.mbox": "How much did the jumble sale raise?",
    "parish.mbox/message 2/float.txt": "Where is the tombola float kept?",
    "family.ics": "When is the dentist check-up?",
}


@pytest.fixture(scope="module")
def indexed(tmp_path_factory, files, embedder, splitter):

    root = tmp_path_factory.mktemp("office_index")
    folder = root / "docs"
    folder.mkdir()
    for name, path in files.items():
        shutil.copy(path, folder / name)
    for name, (content, _) in CORRUPT.items():
        _write(folder, name, content)
    yield from indexed_folder(root, embedder, splitter, file_timeout_s=60, file_memory_mb=1024)


def test_every_new_type_is_indexed_and_a_question_finds_it(indexed):
    engine, folder, _ = indexed
    store = engine.index.store
    for name in FILES:
        row = store.docs.document(path_key(folder / name))
        assert row is not None and row.status == "ok", (name, row and row.error)
    for name, question in QUESTIONS.items():
        hits = engine.search(question, k=3)
        assert any(h.chunk.path == path_key(folder / name) for h in hits), (name, [h.chunk.path for h in hits])


def test_an_emails_attachments_are_documents_of_their_own(indexed):
    engine, folder, report = indexed
    store = engine.index.store
    message = path_key(folder / "ferry.eml")
    attached = store.docs.attachments_of(message)
    assert [d.path for d in attached] == [message + "/fares.xlsx", message + "/ticket.txt"]
    assert all(d.status == "ok" and d.attached_to == message for d in attached)
    # Counted apart from the files: one message is one file to the person.
    # (and the mailbox's one)
    assert report.attachments == 3 and "; 3 attachments read as documents" in report.summary()
    assert report.as_dict()["attachments"] == 3
    box = path_key(folder / "parish.mbox")
    assert [d.path for d in store.docs.attachments_of(box)] == [box + "/message 2/float.txt"]
    # Cited in their own format: a row of the attached workbook, not a place in the message.
    found = next(p for p in engine.search("What is the return fare from North pier to Lowmoor?", k=3)
                 if p.chunk.path == message + "/fares.xlsx")
    assert re.fullmatch(r"sheet Fares, row \d+", found.place), found.place


def test_a_found_row_slide_or_message_carries_its_page(indexed):
    engine, folder, _ = indexed
    for name, question, page in (("budget.xlsx", "Ferry Street Building Society balance", 2),
                                 ("festival.pptx", "How much does the brass band cost?", 2),
                                 ("parish.mbox", "How much did the jumble sale raise?", 2)):
        hit = next(h for h in engine.search(question, k=3) if h.chunk.path == path_key(folder / name))
        assert hit.page == page, (name, hit.page)


def test_a_found_passage_is_placed_as_its_program_would_place_it(indexed):
    # A sheet's row, a CSV row, a slide, a mailbox's message, a calendar's event: "p. 2"
    # tells a person nothing about a workbook.
    engine, folder, _ = indexed
    for name, question, place in (("budget.xlsx", "How much did I pay for the roof repair?", r"sheet .+, row \d+"),
                                  ("contacts.csv", "What is Mabel Ashdown's phone number?", r"row \d+"),
                                  ("festival.pptx", "How much does the brass band cost?", r"slide 2"),
                                  ("parish.mbox", "How much did the jumble sale raise?", r"message 2"),
                                  ("family.ics", "When is the dentist check-up?", r"event .*[Dd]entist.*")):
        found = next(p for p in engine.search(question, k=3) if p.chunk.path == path_key(folder / name))
        assert re.fullmatch(place, found.place), (name, found.place, found.best and found.best.text)
        assert re.fullmatch(place, found.as_dict()["place"])


def test_corrupt_files_fail_in_the_reader_with_their_one_line_reason(indexed):
    _, folder, report = indexed
    failed = dict(report.failed)
    for name, (_, reason) in CORRUPT.items():
        key = path_key(folder / name)
        assert key in failed, (name, sorted(failed))
        assert re.search(reason, failed[key]) and "\n" not in failed[key], (name, failed[key])
    assert len(failed) == len(CORRUPT), sorted(failed)


def test_an_amount_is_read_as_the_sheet_shows_it(tmp_path):
    # 3338.4 formatted "£#,##0.00" is £3,338.40 on screen: the person's question and its key
    # fact write it so, and "3338.4" matched neither (issue 47).
    import openpyxl

    from assistant.ingest.loaders import load

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Income"
    sheet.append(["Client", "Amount (GBP)", "Hours", "Share"])
    sheet.append(["A and F Okafor", 3338.4, 12, 0.25])
    sheet["B2"].number_format = '"£"#,##0.00'
    sheet["C2"].number_format = "0"
    sheet["D2"].number_format = "0%"
    book.save(tmp_path / "accounts.xlsx")
    text = load(tmp_path / "accounts.xlsx").text
    assert "Amount (GBP): 3,338.40" in text and "Hours: 12" in text and "Share: 25%" in text, text
