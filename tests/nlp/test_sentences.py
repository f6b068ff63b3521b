"""Sentence spans from the real spaCy pipeline."""

from __future__ import annotations

from assistant.ingest.loaders import load
from assistant.ingest.plain_text import metadata_spans
from assistant.nlp.sentences import LIST_MARKER, paragraph_spans


def left_out_on_purpose(text: str, s: int, e: int) -> bool:
    """Text between sentences that is no sentence: the file's metadata lines (#+AUTHOR:,
    front matter) and list markers with no sentence after them."""
    kept = [i for i in range(s, e) if not any(a <= i < b for a, b in metadata_spans(text))]
    rest = "".join(text[i] for i in kept).split()
    return all(LIST_MARKER.fullmatch(word) for word in rest)


def check_spans(text, spans):
    for s, e in spans:
        assert 0 <= s < e <= len(text)
        assert text[s:e].strip() == text[s:e], f"span not trimmed: {text[s:e]!r}"
    for (s1, e1), (s2, e2) in zip(spans, spans[1:]):
        assert e1 <= s2, "spans overlap or are out of order"
    # Only whitespace is left between sentences: nothing of the text is lost but what is
    # no sentence on purpose.
    prev = 0
    for s, e in spans:
        assert left_out_on_purpose(text, prev, s), f"text skipped: {text[prev:s]!r}"
        prev = e
    assert left_out_on_purpose(text, prev, len(text))


def test_offsets_exact_and_sentences_found(splitter):
    text = ("Harrowmere lies on the River Lisk. It was founded in 1742 by Tobias Wren! "
            "Was it a mill town? Yes, Dr. Okafor says so.")
    spans = splitter.split(text)
    check_spans(text, spans)
    sents = [text[s:e] for s, e in spans]
    assert sents[0] == "Harrowmere lies on the River Lisk."
    assert sents[1] == "It was founded in 1742 by Tobias Wren!"
    assert "Was it a mill town?" in sents
    assert len(sents) == 4


def test_paragraph_breaks_never_crossed(splitter):
    # No final punctuation anywhere: only the paragraph breaks can separate these.
    paras = ["Opening hours", "Monday to Friday from nine until five and on Saturdays by appointment",
             "Contact the warden", "Tickets at the door", "Last line here"]
    text = "\n\n".join(paras[:-1]) + "\n \n\t\n" + paras[-1]
    spans = splitter.split(text)
    check_spans(text, spans)
    ranges = [(text.index(p), text.index(p) + len(p)) for p in paras]
    for s, e in spans:
        inside = [r for r in ranges if r[0] <= s and e <= r[1]]
        assert len(inside) == 1, f"sentence {text[s:e]!r} crosses a paragraph break"
    starts = {s for s, _ in spans}
    assert all(r[0] in starts for r in ranges), "every paragraph starts a sentence"


def test_paragraph_spans():
    text = "\n\n  First para.\nsame para  \n\n\n\nSecond.\n \n"
    assert [text[s:e] for s, e in paragraph_spans(text)] == ["First para.\nsame para", "Second."]
    assert paragraph_spans("") == [] and paragraph_spans(" \n\n ") == []


def test_every_example_document(splitter, example_docs):
    texts = [load(p).text for p in sorted(example_docs.iterdir())]
    all_spans = splitter.split_many(texts)
    assert len(all_spans) == len(texts)
    for text, spans in zip(texts, all_spans):
        assert spans
        check_spans(text, spans)
        for s, e in spans:
            assert "\n\n" not in text[s:e]


def test_non_english_text(splitter):
    text = ("Der Fluss Lisk ist 84 Kilometer lang. Er mündet bei Tamford in den Tam.\n\n"
            "東京は日本の首都です。大阪は二番目に大きい都市です。\n\n"
            "Москва — столица России. Київ — столиця України.\n\n"
            "مرحبا بالعالم. هذا نص عربي.\n\n"
            "Emoji 🎉🚀 and symbols ∑∫√ ≠ €100 — fine.")
    spans = splitter.split(text)
    check_spans(text, spans)
    assert spans[0] == (0, len("Der Fluss Lisk ist 84 Kilometer lang."))


def test_table_flattened_to_text(splitter, example_docs):
    table = "\n".join(
        ["Item | Allocation | Responsible"]
        + [f"Row {i} | £{i * 1000:,} | Person {i}" for i in range(200)]
    )
    text = "Budget 2024.\n\n" + table + "\n\nApproved unanimously."
    spans = splitter.split(text)
    check_spans(text, spans)
    assert text[spans[0][0]:spans[0][1]] == "Budget 2024."
    assert text[spans[-1][0]:spans[-1][1]] == "Approved unanimously."
    # The docx example holds a real table, its rows written with their header's names.
    doc = load(example_docs / "council_minutes.docx").text
    assert "Row 3: Item: Lantern Festival 2024;" in doc
    check_spans(doc, splitter.split(doc))


def test_very_long_paragraph_is_split_without_losing_text(splitter):
    line = "word " * 30 + "\n"
    text = (line * 4000).strip()  # ~600k characters, one "paragraph" of lines
    spans = splitter.split(text)
    check_spans(text, spans)
    assert max(e - s for s, e in spans) <= 100_000


# -- laid-out text: a unit a line where the layout says so (issue 47) -----------------

LETTERHEAD = """Harbour Dental Practice
14 Quay Street
Ambury AB3 4QT
Invoice no: 4471
Patient: Edith Marlow
Check-up and scale and polish    EUR 60.00
Total due: EUR 60.00
Payable within 30 days of the invoice date"""


def test_a_letterhead_and_a_bill_are_a_unit_a_line_not_one_page(splitter):
    spans = splitter.split(LETTERHEAD)
    units = [LETTERHEAD[s:e] for s, e in spans]
    assert "Total due: EUR 60.00" in units, units
    assert "Invoice no: 4471" in units and "14 Quay Street" in units, units
    assert max(len(u) for u in units) < 60, units


def test_a_wrapped_paragraph_stays_one_sentence(splitter):
    text = ("The engineer will call on the morning of the visit to confirm the time, and the cost of the\n"
            "service is covered by your plan, so there is nothing to pay on the day itself.\n"
            "Please keep this letter with your records until the work is done.")
    units = [text[s:e] for s, e in splitter.split(text)]
    assert len(units) == 2 and units[0].endswith("on the day itself."), units


def test_a_list_item_wrapped_onto_indented_lines_stays_one_item(splitter):
    # The item's reason was cut from it: "1. Patio to be moved 1.5 m ..., because the drain
    # inspection chamber" | "sits right where the new steps would go."
    text = ("## Agreed\n\n1. Patio to be moved 1.5 m further out from the back door, because the drain inspection chamber\n"
            "   sits right where the new steps would go.\n2. Patio in Indian sandstone, laid on a full mortar bed.\n"
            "- Skip on the drive from the\nfirst day of work.\n- Lighting. Probably not.\nNext meeting in June.\n")
    units = [" ".join(text[s:e].split()) for s, e in splitter.split(text)]
    assert ("1. Patio to be moved 1.5 m further out from the back door, because the drain inspection chamber sits "
            "right where the new steps would go.") in units, units
    assert "2. Patio in Indian sandstone, laid on a full mortar bed." in units, units
    assert "- Skip on the drive from the first day of work." in units, units  # lower case after mid-sentence
    assert "Next meeting in June." in units, units  # a line of its own after an item that ended


def test_a_numbered_heading_is_one_unit(splitter):
    # spaCy cut "## 1. Minutes of the last meeting" after "1.": a unit "## 1." that names
    # nothing, and a summary's section without its heading.
    text = ("## 1. Minutes of the last meeting\nApproved without changes.\n\n## 4. Summer street party\n"
            "Agreed: the street party will be on Saturday 13 July 2024.\n\n### Dr. Helen Moreau. Vet\n")
    units = [text[s:e] for s, e in splitter.split(text)]
    assert units[0] == "## 1. Minutes of the last meeting", units
    assert "## 4. Summer street party" in units and "### Dr. Helen Moreau. Vet" in units, units


def test_table_cells_on_one_line_are_a_unit_of_their_own(splitter):
    text = "Parking | Bay no 14\nStorage | Cellar 2\nBins | collected on Tuesdays"
    assert [text[s:e] for s, e in splitter.split(text)] == text.split("\n")


def test_sentences_glued_before_an_acronym_or_a_code_are_two(splitter):
    text = "Margins held up across the pipeline.SG&A expense rose 4% quarter-on-quarter.Q3 closed well."
    units = [text[s:e] for s, e in splitter.split(text)]
    assert units == ["Margins held up across the pipeline.", "SG&A expense rose 4% quarter-on-quarter.",
                     "Q3 closed well."], units


def test_a_line_of_one_repeated_character_is_split_in_linear_time():
    # A rule of dashes with a letter at its end made the old table-rule pattern cubic.
    import time

    from assistant.nlp.sentences import line_units

    text = "Notes\n" + "-" * 20000 + "x\n" + " " * 20000 + "y"
    t0 = time.process_time()
    line_units(text, 0, len(text))
    assert time.process_time() - t0 < 5.0
