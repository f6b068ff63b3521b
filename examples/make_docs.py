"""Generate the binary example documents (PDF, DOCX, EPUB) in examples/docs/.

The text files next to them are written by hand; these three formats need a
writer library, so their content lives here and the outputs are committed.

    .venv/bin/python examples/make_docs.py

Needs fpdf2 (dev dependency), python-docx and ebooklib.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

DOCS = Path(__file__).resolve().parent / "docs"
# A fixed date keeps regenerated files from differing only by timestamps.
FIXED_DATE = dt.datetime(2024, 3, 20, 12, 0, tzinfo=dt.timezone.utc)

# --- PDF: a visitor guide, one section per page ----------------------------------

GUIDE_TITLE = "Harrowmere Visitor Guide"
GUIDE_PAGES = [
    (
        "Getting there",
        [
            "Harrowmere Halt station opened in 1867 on the Calder Valley Line. Trains run "
            "every hour from Saltby, and the journey takes forty minutes.",
            "By road, leave the valley road at the Greyfell turning and follow the signs for "
            "the town centre. The long-stay car park on Tanner's Field is free on Sundays.",
            "Cyclists can follow the towpath along the east bank of the Lisk all the way from "
            "Saltby; it is flat, well surfaced and about thirty kilometres long.",
        ],
    ),
    (
        "What to see",
        [
            "The Harrowmere Museum is housed in the old Customs House on Quay Street. It "
            "opened as a museum in 1956, and its most treasured object is the brass bell "
            "of the rope ferry that crossed the Lisk before the bridge was built.",
            "The Old Stone Bridge is best seen from the riverside path below the museum. Look "
            "for the carved flood line on the third pier.",
            "On the first Friday of every month the Kestrel Hill Observatory opens its dome to "
            "visitors. Tickets cost five pounds and must be booked in advance.",
        ],
    ),
    (
        "Where to stay and eat",
        [
            "The Ferryman's Rest on Quay Street has been an inn since 1751 and has nine rooms. "
            "Its landlady, Dora Finch, keeps a fire lit in the bar from October to April.",
            "For breakfast, queue early at Wren & Daughters on Mill Lane; the bakery closes at "
            "two in the afternoon and is shut on Mondays.",
        ],
    ),
]

# --- DOCX: council minutes with a budget table -----------------------------------

MINUTES_TITLE = "Harrowmere Town Council - Minutes of 12 March 2024"
MINUTES_INTRO = [
    "The meeting was held in the Council Chamber on Quay Street and began at 7 p.m.",
    "Present: Mayor Ilse Varga (chair), Councillor Peter Lund, Councillor Sara Mbeki and "
    "Councillor Owen Hale. The town clerk, Martin Sykes, took the minutes.",
    "1. The minutes of the meeting of 13 February 2024 were approved.",
    "2. Budget allocations for 2024-25. The Mayor presented the following allocations:",
]
MINUTES_TABLE = [
    ("Item", "Allocation", "Responsible"),
    ("Kestrel Hill Observatory roof repair", "£48,000", "Dr Amara Okafor"),
    ("Lantern Festival 2024", "£15,500", "Harrowmere Boatmen's Guild"),
    ("Old Stone Bridge structural survey", "£9,200", "Town engineer"),
    ("Museum lighting upgrade", "£6,300", "Museum trustees"),
    ("Total", "£79,000", ""),
]
MINUTES_OUTRO = [
    "Resolved: the allocations were approved by four votes to none.",
    "3. Councillor Mbeki reported that the towpath between Harrowmere and Willow Reach "
    "will be resurfaced in May.",
    "The next meeting will be held on 9 April 2024. The meeting closed at 8.40 p.m.",
]

# --- EPUB: two chapters of local tales ---------------------------------------------

BOOK_TITLE = "Tales of the Calder Valley"
BOOK_AUTHOR = "Edith Marsh"
BOOK_CHAPTERS = [
    (
        "The Night of the Flood",
        [
            "In October 1802 it rained for six days without a break, and on the seventh night "
            "the Lisk broke its banks at Harrowmere. By midnight the water stood higher than "
            "the doorways of Mill Lane.",
            "Samuel Cray, a boatman of thirty-one, took his flat-bottomed barge into the street "
            "and began taking people off the roofs. Eleven other boatmen followed him, and by "
            "dawn they had rescued forty townspeople. Not one life was lost.",
            "A year later, on the first Saturday of September, the survivors set paper lanterns "
            "on the river to thank the boatmen. The custom has never been broken since.",
        ],
    ),
    (
        "The Comet Summer",
        [
            "On the night of 14 August 1911, Margarethe Olsson and her young assistant Elias "
            "Pike were sweeping the northern sky with the Old Lantern when Pike noticed a faint "
            "smudge that had not been there the week before.",
            "It was a new comet, and it was named Comet Olsson-Pike. By October it was bright "
            "enough to be seen without a telescope, and half the town walked up Kestrel Hill "
            "to look at it.",
            "Pike later became the observatory's second director, from 1937 until 1962.",
        ],
    ),
]


def make_pdf(path: Path) -> None:
    from fpdf import FPDF
    from fpdf.enums import XPos, YPos

    pdf = FPDF(format="A4")
    pdf.set_creation_date(FIXED_DATE)
    pdf.set_title(GUIDE_TITLE)
    pdf.set_author("Harrowmere Tourist Office")
    pdf.set_auto_page_break(False)  # one section per page, so page numbers are predictable
    for heading, paragraphs in GUIDE_PAGES:
        pdf.add_page()
        pdf.set_font("Helvetica", "B", 15)
        pdf.multi_cell(0, 8, heading, new_x=XPos.LMARGIN, new_y=YPos.NEXT)
        pdf.ln(3)
        pdf.set_font("Helvetica", size=10)
        for para in paragraphs:
            pdf.multi_cell(0, 5, para, new_x=XPos.LMARGIN, new_y=YPos.NEXT)
            pdf.ln(3)
    pdf.output(str(path))


def make_docx(path: Path) -> None:
    import docx

    document = docx.Document()
    props = document.core_properties
    props.title = MINUTES_TITLE
    props.author = "Martin Sykes"
    props.created = props.modified = FIXED_DATE.replace(tzinfo=None)
    document.add_heading(MINUTES_TITLE, level=1)
    for para in MINUTES_INTRO:
        document.add_paragraph(para)
    table = document.add_table(rows=len(MINUTES_TABLE), cols=len(MINUTES_TABLE[0]))
    table.style = "Table Grid"
    for row, values in zip(table.rows, MINUTES_TABLE):
        for cell, value in zip(row.cells, values):
            cell.text = value
    for para in MINUTES_OUTRO:
        document.add_paragraph(para)
    document.save(str(path))


def make_epub(path: Path) -> None:
    from ebooklib import epub

    book = epub.EpubBook()
    book.set_identifier("harrowmere-tales-0001")
    book.set_title(BOOK_TITLE)
    book.set_language("en")
    book.add_author(BOOK_AUTHOR)
    book.add_metadata("DC", "date", FIXED_DATE.date().isoformat())
    chapters = []
    for number, (heading, paragraphs) in enumerate(BOOK_CHAPTERS, start=1):
        chapter = epub.EpubHtml(title=heading, file_name=f"chapter{number}.xhtml", lang="en")
        body = "".join(f"<p>{p}</p>" for p in paragraphs)
        chapter.content = f"<h1>Chapter {number}: {heading}</h1>{body}"
        book.add_item(chapter)
        chapters.append(chapter)
    book.toc = chapters
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    # The nav document sits in the spine as in most real books; the loader must skip it.
    book.spine = ["nav", *chapters]
    epub.write_epub(str(path), book)


def main() -> None:
    DOCS.mkdir(parents=True, exist_ok=True)
    make_pdf(DOCS / "visitor_guide.pdf")
    make_docx(DOCS / "council_minutes.docx")
    make_epub(DOCS / "calder_valley_tales.epub")
    for name in ("visitor_guide.pdf", "council_minutes.docx", "calder_valley_tales.epub"):
        print(f"wrote {DOCS / name} ({(DOCS / name).stat().st_size} bytes)")


if __name__ == "__main__":
    main()
