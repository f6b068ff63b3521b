"""Build the second personal folder (bench/personal2) from its sources.

    from bench.personal2.build import build      # or: import build; build.build(dest)
    build(Path("/tmp/personal2-docs"))           # -> the folder, rebuilt from scratch

or from the shell: ``.venv/bin/python bench/personal2/build.py DEST``.

Every file of the folder has one source in ``src/``:

- ``src/NAME`` for the files that are text already (.txt, .md, .html, .csv, .ics): copied as is;
- ``src/NAME.txt`` for the others, written with python-docx, fpdf2, openpyxl, python-pptx,
  odfpy, the standard library's email package, Pillow, or by hand (RTF). Their sources use a
  small line markup, read by the writer of that kind:

  ``# title``, ``## heading``, ``- bullet``, ``| a | b | c`` (table rows, the first one the
  header), blank lines between paragraphs; in PDF sources also ``^ name`` (letterhead name),
  ``> line`` (right-aligned letterhead line), ``~ text`` (a wrapped paragraph; every other line
  is written as a line of its own); in slide sources ``=== title`` (a new slide),
  ``subtitle:``, ``figure:``, ``caption:``, ``notes:``; in workbook sources ``## Sheet: name``
  then the sheet's rows; in the e-mail source its headers, a blank line, the body, then
  ``=== attachment: NAME.pdf`` and that PDF's source; in picture sources the lines to draw.

The build is deterministic: fixed dates in the documents' properties, zip entries written
with a fixed timestamp, a fixed MIME boundary, and seeded noise in the pictures.
"""

from __future__ import annotations

import datetime as dt
import io
import random
import re
import shutil
import sys
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE / "src"

# The folder's rich files: output name -> writer (the text ones are copied from src/NAME).
FIXED = dt.datetime(2024, 11, 10, 9, 0, 0)
FONT_DIRS = [Path("/usr/share/fonts/truetype/dejavu"), Path("/usr/share/fonts/dejavu"),
             Path("/usr/share/fonts/TTF"), Path("/usr/share/fonts")]


def build(dest: Path) -> Path:
    """(Re)create folder `dest` holding the personal2 folder's files; returns `dest`."""
    dest = Path(dest)
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    for source in sorted(SRC.iterdir()):
        if not source.is_file():
            continue
        name = source.name
        if name.endswith(".txt") and Path(name[:-4]).suffix in WRITERS:
            target = dest / name[:-4]
            WRITERS[target.suffix](source.read_text(encoding="utf-8"), target)
        else:
            shutil.copyfile(source, dest / name)
    return dest


def files() -> list[str]:
    """The names of the files `build` writes, sorted."""
    out = []
    for source in SRC.iterdir():
        name = source.name
        out.append(name[:-4] if name.endswith(".txt") and Path(name[:-4]).suffix in WRITERS else name)
    return sorted(out)


def source_of(name: str) -> Path:
    """The source in src/ of the built file `name`."""
    rich = SRC / f"{name}.txt"
    return rich if rich.exists() and Path(name).suffix in WRITERS else SRC / name


# --- shared helpers -------------------------------------------------------------------


def _blocks(text: str) -> list[list[str]]:
    """The source's blocks (runs of non-blank lines), each a list of its lines."""
    out, cur = [], []
    for line in text.splitlines():
        if line.strip():
            cur.append(line.rstrip())
        elif cur:
            out.append(cur)
            cur = []
    if cur:
        out.append(cur)
    return out


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _latin1(text: str) -> str:
    """Text fpdf's core fonts can write (latin-1): typographic marks made plain."""
    for a, b in (("\u2019", "'"), ("\u2018", "'"), ("\u201c", '"'), ("\u201d", '"'), ("\u2013", "-"),
                 ("\u2014", "-"), ("\u20ac", "EUR "), ("\u2026", "...")):
        text = text.replace(a, b)
    return text.encode("latin-1", "replace").decode("latin-1")


def _fixed_zip(path: Path) -> None:
    """Rewrite a zip package (docx, xlsx, pptx, odt) with every entry dated FIXED, in the
    same order and with the same compression, so that two builds give the same bytes."""
    with zipfile.ZipFile(path) as z:
        entries = [(info, z.read(info.filename)) for info in z.infolist()]
    with zipfile.ZipFile(path, "w") as z:
        for info, data in entries:
            fixed = zipfile.ZipInfo(info.filename, date_time=FIXED.timetuple()[:6])
            fixed.compress_type = info.compress_type
            fixed.external_attr = 0o644 << 16
            z.writestr(fixed, data)


def _font(size: int, bold: bool = False, mono: bool = False, serif: bool = False):
    from PIL import ImageFont

    name = "DejaVuSansMono" if mono else "DejaVuSerif" if serif else "DejaVuSans"
    name += "-Bold.ttf" if bold else ".ttf"
    candidates = [d / name for d in FONT_DIRS]
    try:
        import matplotlib

        candidates.append(Path(matplotlib.get_data_path()) / "fonts" / "ttf" / name)
    except ImportError:
        pass
    for path in candidates:
        if path.exists():
            return ImageFont.truetype(str(path), size)
    for d in FONT_DIRS:  # any TrueType font at all
        for path in sorted(d.rglob("*.ttf")) if d.exists() else []:
            return ImageFont.truetype(str(path), size)
    raise RuntimeError("no TrueType font found (install fonts-dejavu or matplotlib)")


# --- PDF (fpdf2) -------------------------------------------------------------------


def _pdf_bytes(text: str, title: str) -> bytes:
    from fpdf import FPDF

    pdf = FPDF(format="A4")
    pdf.set_creation_date(FIXED)
    pdf.set_title(title)
    pdf.set_author("")
    pdf.set_margins(20, 18, 20)
    pdf.set_auto_page_break(True, margin=18)
    pdf.add_page()
    width = pdf.w - pdf.l_margin - pdf.r_margin
    for block in _blocks(text):
        if block[0].startswith("|"):
            rows = [_cells(line) for line in block]
            n = len(rows[0])
            first = width * (0.58 if n > 2 else 0.75)
            rest = (width - first) / max(n - 1, 1)
            widths = [first] + [rest] * (n - 1)
            for r, row in enumerate(rows):
                pdf.set_font("Helvetica", "B" if r == 0 else "", 9.5)
                for i, cell in enumerate(row):
                    pdf.cell(widths[i], 7, _latin1(cell), border=1, align="L" if i == 0 else "R")
                pdf.ln(7)
            pdf.ln(3)
            continue
        for line in block:
            if line.startswith("^ "):
                pdf.set_font("Helvetica", "B", 18)
                pdf.cell(0, 10, _latin1(line[2:]), new_x="LMARGIN", new_y="NEXT")
            elif line.startswith("> "):
                pdf.set_font("Helvetica", "", 9)
                pdf.cell(0, 4.6, _latin1(line[2:]), align="R", new_x="LMARGIN", new_y="NEXT")
            elif line.startswith("# "):
                pdf.set_font("Helvetica", "B", 15)
                pdf.cell(0, 10, _latin1(line[2:]), new_x="LMARGIN", new_y="NEXT")
            elif line.startswith("~ "):
                pdf.set_font("Helvetica", "", 9.5)
                pdf.multi_cell(0, 5, _latin1(line[2:]), new_x="LMARGIN", new_y="NEXT")
            else:
                pdf.set_font("Helvetica", "B" if line.endswith(":") else "", 10.5)
                pdf.cell(0, 5.6, _latin1(line), new_x="LMARGIN", new_y="NEXT")
        pdf.ln(4)
    return bytes(pdf.output())


def _write_pdf(text: str, target: Path) -> None:
    title = next((line[2:] for line in text.splitlines() if line.startswith("# ")), target.stem)
    target.write_bytes(_pdf_bytes(text, title))


# --- DOCX (python-docx) ------------------------------------------------------------


def _write_docx(text: str, target: Path) -> None:
    import docx
    from docx.shared import Pt

    document = docx.Document()
    document.styles["Normal"].font.name = "Calibri"
    document.styles["Normal"].font.size = Pt(11)
    title = None
    for block in _blocks(text):
        if block[0].startswith("|"):
            rows = [_cells(line) for line in block]
            table = document.add_table(rows=len(rows), cols=len(rows[0]))
            table.style = "Table Grid"
            for r, row in enumerate(rows):
                for c, value in enumerate(row):
                    cell = table.cell(r, c)
                    cell.text = value
                    if r == 0 or row[0] == "Total":
                        for run in cell.paragraphs[0].runs:
                            run.bold = True
            document.add_paragraph()
        elif block[0].startswith("# "):
            title = block[0][2:]
            document.add_heading(title, level=1)
        elif block[0].startswith("## "):
            document.add_heading(block[0][3:], level=2)
        elif block[0].startswith("- "):
            for line in block:
                document.add_paragraph(line[2:], style="List Bullet")
        else:
            document.add_paragraph(" ".join(block))
    props = document.core_properties
    props.title = title or target.stem
    props.author = "Niamh Calder"
    props.last_modified_by = "Niamh Calder"
    props.created = props.modified = FIXED
    props.revision = 2
    document.save(str(target))
    _fixed_zip(target)


# --- XLSX (openpyxl) ---------------------------------------------------------------

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def _write_xlsx(text: str, target: Path) -> None:
    import openpyxl
    from openpyxl.styles import Font, PatternFill

    book = openpyxl.Workbook()
    book.remove(book.active)
    sheet = None
    header_seen = False
    for line in text.splitlines():
        if not line.strip():
            continue
        if line.startswith("## Sheet:"):
            sheet = book.create_sheet(line.split(":", 1)[1].strip())
            header_seen = False
            continue
        if "|" not in line:  # a title line above the table
            sheet.append([line.strip()])
            sheet.cell(sheet.max_row, 1).font = Font(bold=True, size=13)
            continue
        cells = _cells(line)
        if not header_seen:
            sheet.append(cells)
            for cell in sheet[sheet.max_row]:
                cell.font = Font(bold=True)
                cell.fill = PatternFill("solid", fgColor="DDEBD2")
            header_seen = True
            continue
        values = []
        for value in cells:
            if _DATE.fullmatch(value):
                values.append(dt.datetime.strptime(value, "%Y-%m-%d"))
            elif _NUMBER.fullmatch(value):
                values.append(float(value) if "." in value else int(value))
            else:
                values.append(value)
        sheet.append(values)
        row = sheet.max_row
        sheet.cell(row, 1).number_format = "dd/mm/yyyy"
        sheet.cell(row, len(values)).number_format = '"£"#,##0.00'
    for ws in book.worksheets:
        for col, width in zip("ABCDE", (12, 30, 30, 46, 14)):
            ws.column_dimensions[col].width = width
        ws.freeze_panes = "A3"
    book.properties.title = "Calder Garden Design accounts 2024-25"
    book.properties.creator = "Niamh Calder"
    book.properties.created = FIXED
    book.properties.modified = FIXED
    book.save(str(target))
    _fix_core_dates(target)
    _fixed_zip(target)


def _fix_core_dates(path: Path) -> None:
    """openpyxl stamps docProps/core.xml with the time of saving; put FIXED there instead."""
    stamp = FIXED.strftime("%Y-%m-%dT%H:%M:%SZ")
    with zipfile.ZipFile(path) as z:
        entries = [(info, z.read(info.filename)) for info in z.infolist()]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for info, data in entries:
            if info.filename == "docProps/core.xml":
                data = re.sub(rb"(<dcterms:(?:created|modified)[^>]*>)[^<]*", rb"\g<1>" + stamp.encode(), data)
            z.writestr(info, data)


# --- PPTX (python-pptx) ------------------------------------------------------------


def _plan_picture() -> bytes:
    """The Linden Close garden plan for the case-study slide (a simple drawing)."""
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (1100, 1340), (250, 248, 240))
    d = ImageDraw.Draw(img)
    f, small = _font(30, bold=True), _font(24)
    d.rectangle([60, 60, 1040, 1280], outline=(90, 90, 90), width=6)  # boundary 9 m x 11 m
    d.rectangle([60, 1100, 1040, 1280], fill=(160, 160, 160))  # the house
    d.text((420, 1170), "HOUSE", fill=(255, 255, 255), font=f)
    d.rectangle([160, 880, 940, 1060], fill=(222, 196, 150), outline=(120, 100, 70), width=3)
    d.text((330, 950), "Sandstone patio (18 m2)", fill=(60, 40, 20), font=small)
    d.rectangle([160, 1062, 940, 1098], fill=(205, 205, 195))
    d.text((420, 1064), "gravel strip", fill=(80, 80, 80), font=_font(20))
    d.rectangle([330, 420, 770, 770], fill=(150, 200, 110), outline=(80, 130, 60), width=3)
    d.text((470, 580), "Lawn 4 x 5 m", fill=(30, 70, 20), font=small)
    for x in range(86, 1000, 46):  # the hornbeam hedge along the north boundary
        d.ellipse([x, 80, x + 40, 120], fill=(70, 120, 60))
    d.text((380, 130), "Hornbeam hedge (40)", fill=(40, 80, 30), font=small)
    d.ellipse([830, 160, 1010, 340], fill=(110, 160, 80), outline=(60, 100, 40), width=3)
    d.text((860, 235), "Apple", fill=(255, 255, 255), font=small)
    d.ellipse([900, 760, 1020, 880], fill=(190, 120, 150))
    d.text((790, 800), "Amelanchier", fill=(90, 40, 60), font=_font(20))
    d.text((90, 300), "Gravel garden", fill=(110, 100, 80), font=small)
    d.text((90, 1220), "N at top. Scale 1:50", fill=(255, 255, 255), font=_font(20))
    out = io.BytesIO()
    img.save(out, format="PNG")
    return out.getvalue()


def _write_pptx(text: str, target: Path) -> None:
    from pptx import Presentation
    from pptx.util import Inches, Pt

    deck = Presentation()
    slides: list[dict] = []
    for line in text.splitlines():
        if line.startswith("=== "):
            slides.append({"title": line[4:].strip(), "subtitle": [], "bullets": [], "figure": None,
                           "caption": None, "notes": None})
        elif line.startswith("subtitle:"):
            slides[-1]["subtitle"].append(line.split(":", 1)[1].strip())
        elif line.startswith("figure:"):
            slides[-1]["figure"] = line.split(":", 1)[1].strip()
        elif line.startswith("caption:"):
            slides[-1]["caption"] = line.split(":", 1)[1].strip()
        elif line.startswith("notes:"):
            slides[-1]["notes"] = line.split(":", 1)[1].strip()
        elif line.startswith("- "):
            slides[-1]["bullets"].append(line[2:])
    for spec in slides:
        if spec["subtitle"]:
            slide = deck.slides.add_slide(deck.slide_layouts[0])
            slide.shapes.title.text = spec["title"]
            slide.placeholders[1].text = "\n".join(spec["subtitle"])
        elif spec["figure"]:
            slide = deck.slides.add_slide(deck.slide_layouts[5])  # title only
            slide.shapes.title.text = spec["title"]
            slide.shapes.add_picture(io.BytesIO(_plan_picture()), Inches(0.5), Inches(1.5), height=Inches(5.6))
            box = slide.shapes.add_textbox(Inches(5.4), Inches(2.0), Inches(4.2), Inches(4.5))
            box.text_frame.word_wrap = True
            box.text_frame.text = spec["caption"] or ""
            for p in box.text_frame.paragraphs:
                for run in p.runs:
                    run.font.size = Pt(20)
        else:
            slide = deck.slides.add_slide(deck.slide_layouts[1])  # title and content
            slide.shapes.title.text = spec["title"]
            frame = slide.placeholders[1].text_frame
            for i, bullet in enumerate(spec["bullets"]):
                p = frame.paragraphs[0] if i == 0 else frame.add_paragraph()
                p.text = bullet
        if spec["notes"]:
            slide.notes_slide.notes_text_frame.text = spec["notes"]
    props = deck.core_properties
    props.title = slides[0]["title"]
    props.author = "Niamh Calder"
    props.last_modified_by = "Niamh Calder"
    props.created = props.modified = FIXED
    props.revision = 3
    deck.save(str(target))
    _fixed_zip(target)


# --- ODT (odfpy) -------------------------------------------------------------------


def _write_odt(text: str, target: Path) -> None:
    from odf.opendocument import OpenDocumentText
    from odf.style import ParagraphProperties, Style, TextProperties
    from odf.text import H, List, ListItem, P
    from odf import dc, meta

    doc = OpenDocumentText()
    h1 = Style(name="Heading 1", family="paragraph")
    h1.addElement(TextProperties(fontsize="16pt", fontweight="bold"))
    h1.addElement(ParagraphProperties(margintop="0.2cm", marginbottom="0.3cm"))
    h2 = Style(name="Heading 2", family="paragraph")
    h2.addElement(TextProperties(fontsize="13pt", fontweight="bold"))
    h2.addElement(ParagraphProperties(margintop="0.4cm", marginbottom="0.2cm"))
    body = Style(name="Body", family="paragraph")
    body.addElement(ParagraphProperties(marginbottom="0.25cm"))
    for style in (h1, h2, body):
        doc.styles.addElement(style)
    title = target.stem
    for block in _blocks(text):
        if block[0].startswith("# "):
            title = block[0][2:]
            doc.text.addElement(H(outlinelevel=1, stylename=h1, text=title))
        elif block[0].startswith("## "):
            doc.text.addElement(H(outlinelevel=2, stylename=h2, text=block[0][3:]))
        elif block[0].startswith("- "):
            items = List()
            for line in block:
                item = ListItem()
                item.addElement(P(stylename=body, text=line[2:]))
                items.addElement(item)
            doc.text.addElement(items)
        else:
            doc.text.addElement(P(stylename=body, text=" ".join(block)))
    doc.meta.addElement(dc.Title(text=title))
    doc.meta.addElement(dc.Creator(text="Niamh Calder"))
    doc.meta.addElement(meta.CreationDate(text=FIXED.strftime("%Y-%m-%dT%H:%M:%S")))
    doc.meta.addElement(dc.Date(text=FIXED.strftime("%Y-%m-%dT%H:%M:%S")))
    doc.save(str(target))
    _fixed_zip(target)


# --- RTF (by hand) ----------------------------------------------------------------


def _rtf_escape(text: str) -> str:
    out = []
    for ch in text:
        if ch in "\\{}":
            out.append("\\" + ch)
        elif ord(ch) < 128:
            out.append(ch)
        else:
            try:
                out.append("".join(f"\\'{b:02x}" for b in ch.encode("cp1252")))
            except UnicodeEncodeError:
                out.append(f"\\u{ord(ch)}?")
    return "".join(out)


def _write_rtf(text: str, target: Path) -> None:
    title = next((line[2:] for line in text.splitlines() if line.startswith("# ")), target.stem)
    parts = [
        "{\\rtf1\\ansi\\ansicpg1252\\deff0",
        "{\\fonttbl{\\f0\\froman\\fcharset0 Times New Roman;}{\\f1\\fswiss\\fcharset0 Arial;}}",
        "{\\info{\\title " + _rtf_escape(title) + "}{\\author Niamh Calder}"
        "{\\creatim\\yr2024\\mo9\\dy8\\hr20\\min15}}",
        "\\paperw11906\\paperh16838\\margl1440\\margr1440\\margt1440\\margb1440",
        "\\f0\\fs24",
    ]
    for block in _blocks(text):
        if block[0].startswith("# "):
            parts.append("\\pard\\sa240\\f1\\fs36\\b " + _rtf_escape(block[0][2:]) + "\\b0\\f0\\fs24\\par")
        elif block[0].startswith("## "):
            parts.append("\\pard\\sb120\\sa120\\f1\\fs28\\b " + _rtf_escape(block[0][3:]) + "\\b0\\f0\\fs24\\par")
        elif block[0].startswith("- "):
            for line in block:
                parts.append("\\pard\\li360\\fi-240\\sa60 \\bullet  " + _rtf_escape(line[2:]) + "\\par")
        else:
            parts.append("\\pard\\sa160 " + _rtf_escape(" ".join(block)) + "\\par")
    parts.append("}")
    target.write_bytes(("\r\n".join(parts) + "\r\n").encode("ascii"))


# --- EML with a PDF attachment (email) ---------------------------------------------


def _write_eml(text: str, target: Path) -> None:
    from email import policy
    from email.message import EmailMessage

    message, _, attachment = text.partition("\n=== attachment: ")
    head, _, body = message.partition("\n\n")
    msg = EmailMessage(policy=policy.SMTP)
    for line in head.splitlines():
        key, _, value = line.partition(":")
        msg[key.strip()] = value.strip()
    msg.set_content(body.rstrip() + "\n")
    if attachment:
        name, _, pdf_source = attachment.partition("\n")
        msg.add_attachment(_pdf_bytes(pdf_source, name.strip()), maintype="application", subtype="pdf",
                           filename=name.strip())
        msg.set_boundary("==========calder-anand-2024-10-08==")
    target.write_bytes(msg.as_bytes())


# --- PNG pictures (Pillow) ---------------------------------------------------------


def _noise(img, sigma: float, seed: int):
    """`img` (mode L) with seeded Gaussian noise added."""
    from PIL import Image, ImageChops

    rng = random.Random(seed)
    n = img.width * img.height
    table = [max(0, min(255, int(round(128 + rng.gauss(0, sigma))))) for _ in range(4096)]
    idx = rng.randbytes(2 * n)
    data = bytes(table[(idx[2 * i] << 4 | idx[2 * i + 1] >> 4) & 4095] for i in range(n))
    noise = Image.frombytes("L", img.size, data)
    return ImageChops.add(img, noise, scale=1.0, offset=-128)


def _write_scan(text: str, target: Path) -> None:
    """A one-page letter as a flatbed scan at 150 dpi (A4: 1240 x 1754), black on white."""
    from PIL import Image, ImageDraw

    img = Image.new("L", (1240, 1754), 255)
    d = ImageDraw.Draw(img)
    regular, bold, head = _font(27, serif=True), _font(27, bold=True, serif=True), _font(40, bold=True, serif=True)
    y, first = 120, True
    for line in text.splitlines():
        if first:
            d.text((130, y), line, fill=0, font=head)
            y += 62
            first = False
            continue
        if not line.strip():
            y += 22
            continue
        font = bold if line.strip() == "Your fixed rate is coming to an end" else regular
        d.text((130, y), line, fill=15, font=font)
        y += 40
    img = img.rotate(0.4, resample=Image.Resampling.BICUBIC, fillcolor=255)
    img = _noise(img, 6, seed=20241001)
    img.save(target, format="PNG", dpi=(150, 150))


def _write_receipt(text: str, target: Path) -> None:
    """A till receipt photographed with a phone: narrow, grey paper, a little rotated, noisy."""
    from PIL import Image, ImageDraw, ImageFilter

    lines = text.splitlines()
    font, big = _font(26, mono=True), _font(30, bold=True, mono=True)
    height = 70 + sum(44 if i < 2 else 36 if line.strip() else 18 for i, line in enumerate(lines)) + 60
    paper = Image.new("L", (600, height), 232)
    d = ImageDraw.Draw(paper)
    y = 60
    for i, line in enumerate(lines):
        if not line.strip():
            y += 18
            continue
        if i < 2:  # the shop's name, centred and bold
            w = d.textlength(line, font=big)
            d.text(((600 - w) / 2, y), line, fill=55, font=big)
            y += 44
        elif i < 5 or line.startswith(("Thank", "Returns")):
            w = d.textlength(line, font=font)
            d.text(((600 - w) / 2, y), line, fill=70, font=font)
            y += 36
        else:
            d.text((30, y), line, fill=_ink(line), font=big if line.startswith("TOTAL") else font)
            y += 36
    paper = paper.filter(ImageFilter.GaussianBlur(0.6))
    photo = paper.rotate(2.5, resample=Image.Resampling.BICUBIC, expand=True, fillcolor=255)
    canvas = Image.new("L", (photo.width + 80, photo.height + 80), 205)  # the table under it
    canvas.paste(photo, (40, 40))
    canvas = _noise(canvas, 9, seed=20240330)
    canvas.save(target, format="PNG")


def _ink(line: str) -> int:
    return 40 if line.startswith("TOTAL") else 70


def _write_png(text: str, target: Path) -> None:
    (_write_receipt if "receipt" in target.name else _write_scan)(text, target)


WRITERS = {
    ".pdf": _write_pdf,
    ".docx": _write_docx,
    ".xlsx": _write_xlsx,
    ".pptx": _write_pptx,
    ".odt": _write_odt,
    ".rtf": _write_rtf,
    ".eml": _write_eml,
    ".png": _write_png,
}


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: build.py DEST")
    print(build(Path(sys.argv[1])))
