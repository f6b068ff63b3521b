"""Lines that are no sentence are never stored as one, so never cited: a bare list marker
("1." of the council minutes) joins the sentence it numbers, and a file's metadata (org
`#+TITLE:`/`#+AUTHOR:` lines, Markdown front matter) is left out. Real files, real index."""

from __future__ import annotations

import re
import shutil

from assistant.config import Config
from assistant.ingest.loaders import load
from assistant.store.entity_rows import SENTENCE_TEXT

FRONT_MATTER_MD = """---
title: "Ferry Notes"
author: Ann Lisk
tags: [ferry, river]
---

The rope ferry at Harrowmere ran from 1790 until the Old Stone Bridge opened in 1836.

1. The ferryman lived in the toll house.
2. The fare was one penny.
"""

METADATA_LINE = re.compile(r"^\s*(#\+\w+|---|title:|author:|tags:)", re.I | re.M)
BARE_MARKER = re.compile(r"\(?(\d{1,3}|[a-zA-Z]|[ivxlcdm]+)[.)]|\d{1,3}|[-*+•]")


def indexed_folder(tmp_path, example_docs, make_engine):
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in ("council_minutes.docx", "lantern_festival.org"):
        shutil.copy2(example_docs / name, docs / name)
    (docs / "ferry.md").write_text(FRONT_MATTER_MD, encoding="utf-8")
    engine = make_engine(tmp_path / "ix", config=Config(extractor="none"))
    assert engine.index_paths([docs]).ok
    return docs, engine


def stored_sentences(engine, path) -> list[tuple[int, int, str]]:
    store = engine.index.store
    doc = store.docs.document(str(path))
    rows = store.db.execute(f"select s.start, s.end, {SENTENCE_TEXT} from sentences s join chunks c on c.id = s.chunk_id"
                            " where c.document_id = ? order by s.start", [doc.id])
    return [tuple(r) for r in rows]


def test_no_stored_sentence_is_a_list_marker_or_a_metadata_line(tmp_path, example_docs, make_engine):
    docs, engine = indexed_folder(tmp_path, example_docs, make_engine)
    for path in sorted(docs.iterdir()):
        sentences = stored_sentences(engine, path)
        assert sentences, path.name
        for start, end, text in sentences:
            assert not BARE_MARKER.fullmatch(text.strip()), (path.name, start, text)
            assert not METADATA_LINE.search(text), (path.name, start, text)
            # Offsets still point into the loaded text (and, for plain text, the file).
            assert load(path).text[start:end] == text
            if path.suffix in (".org", ".md"):
                assert path.read_text(encoding="utf-8")[start:end] == text

    minutes = [t for _, _, t in stored_sentences(engine, docs / "council_minutes.docx")]
    assert "1. The minutes of the meeting of 13 February 2024 were approved." in minutes
    org = stored_sentences(engine, docs / "lantern_festival.org")
    # The #+TITLE's value is the title line; the #+AUTHOR line is gone.
    assert org[0][2] == "The Harrowmere Lantern Festival"
    assert not any("Boatmen's Guild" == t for _, _, t in org)
    ferry = [t for _, _, t in stored_sentences(engine, docs / "ferry.md")]
    assert ferry[0].startswith("The rope ferry at Harrowmere ran from 1790")
    assert "1. The ferryman lived in the toll house." in ferry
    assert engine.index.store.docs.document(str(docs / "ferry.md")).title == "Ferry Notes"


def test_a_list_marker_spacy_splits_off_joins_its_item(splitter):
    text = "Steps:\n\n1. Preheat the oven. 2. Mix the flour.\n\n(ii) Second item here.\n\n12."
    sentences = [text[s:e] for s, e in splitter.split(text)]
    assert sentences == ["Steps:", "1. Preheat the oven.", "2. Mix the flour.", "(ii) Second item here."]
