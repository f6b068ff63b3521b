"""Aboutness from content: a document that no title names is about the named subject of
its opening sentence, and that subject's class makes the document its home, as a title
does. Real files with neutral names, the real spaCy pipeline and embedder."""

from __future__ import annotations

import pytest

from assistant.config import Config

pytestmark = pytest.mark.slow

# Neutral file names, no headings: nothing but the text says what each file is about.
FILES = {
    "notes-march.txt": (
        "Luis Mandoki (born 17 August 1954) is a Mexican film director. "
        "He directed the film When a Man Loves a Woman, released by Touchstone Pictures in 1994."
    ),
    "scan_0042.txt": (
        "When a Man Loves a Woman is a 1994 American romantic drama film. "
        "It was directed by Luis Mandoki and stars Andy Garcia and Meg Ryan."
    ),
    "Minutes 2024-05.txt": (
        "In 2019 the committee met twice in Lisbon. "
        "The members agreed to publish the report in the spring."
    ),
    # Definitions a parse misreads: a title that opens with "I", a name with a long aside.
    "scan_0043.txt": "I Cover the Underworld is a 1955 American crime film directed by R. G. Springsteen.",
    "scan_0044.txt": ("Michael Curtiz (born Mano Kaminer; December 24, 1886 - April 11, 1962) was a "
                      "Hungarian-born American film director."),
}


def _index(tmp_path, make_engine, aboutness: bool):
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, text in FILES.items():
        (folder / name).write_text(text, encoding="utf-8")
    engine = make_engine(tmp_path / "ix", config=Config(aboutness=aboutness))
    engine.indexer.index_paths([folder])
    return engine


def _about(engine) -> dict[str, str]:
    """file name -> the name of the class its ABOUT mention points at."""
    rows = engine.index.store.db.execute(
        "select d.path, e.name from mentions m join entities e on e.id = m.entity_id"
        " join documents d on d.id = m.document_id where m.kind = 'ABOUT'"
    ).fetchall()
    return {path.rsplit("/", 1)[-1]: name for path, name in rows}


def test_opening_subject_is_what_an_untitled_file_is_about(tmp_path, make_engine):
    about = _about(_index(tmp_path, make_engine, aboutness=True))
    assert about.get("notes-march.txt") == "Luis Mandoki"
    assert "When a Man Loves a Woman" in about.get("scan_0042.txt", "")
    # "In 2019 the committee met": no named subject before the verb, so no aboutness.
    assert "Minutes 2024-05.txt" not in about
    assert about.get("scan_0043.txt") == "I Cover the Underworld"
    assert about.get("scan_0044.txt") == "Michael Curtiz"


@pytest.mark.parametrize("sentence, name", [
    ("Luis Mandoki (born 17 August 1954) is a Mexican film director.", "Luis Mandoki"),
    ("You Can No Longer Remain Silent( German: Du darfst nicht laenger schweigen) is a 1955 film.",
     "You Can No Longer Remain Silent"),
    ("I Like Only You , is a 1949 French comedy film.", "I Like Only You"),
    ("Possession or Phroso is a 1922 silent drama film.", "Possession"),
    ("Louis the Junker of Hesse (1305 - 1345) was a German nobleman.", "Louis the Junker of Hesse"),
    ("Ann Lee, the chair, was a founder of the club.", "Ann Lee"),
    ("Haymo of Faversham, O.F.M. ( c. 1243 ), was an English Franciscan scholar.", "Haymo of Faversham"),
    ("Love, Honor and Oh-Baby! is a 1940 film.", "Love, Honor and Oh-Baby!"),
    ("Gaby: A True Story is a 1987 drama film.", "Gaby: A True Story"),
    # Not definitions of a name.
    ("It was a dark night.", None), ("The results are the mean of three runs.", None),
    ("In 1990 the town was a small port.", None), ("The committee met on Tuesday and was a success.", None),
    ("John Smith and Jane Doe were the founders.", None),
])
def test_defined_name(sentence, name):
    from assistant.nlp.aboutness import defined_name

    assert defined_name(sentence) == name


def test_the_subject_class_makes_the_file_its_home(tmp_path, make_engine):
    from assistant.retrieve.entity_graph import entity_graph

    engine = _index(tmp_path, make_engine, aboutness=True)
    graph = entity_graph(engine.resources)
    row = graph.keys[next(k for k in graph.keys if "mandoki" in k)]
    homes = {engine.index.store.passages.chunks([int(graph.chunk_ids[c])])[int(graph.chunk_ids[c])].path.rsplit("/", 1)[-1]
             for c in graph.title_chunks.get(row, [])}
    assert homes == {"notes-march.txt"}
    # Coreference reads the subject as the antecedent of "He" in the next sentence.
    sentences = engine.index.store.passages.sentences_of([int(graph.chunk_ids[c]) for c in graph.title_chunks[row]])
    resolved = [s.resolved_text for rows in sentences.values() for s in rows if s.resolved_text]
    assert any(t.startswith("Luis Mandoki directed") for t in resolved)


def test_without_aboutness_no_file_has_a_home(tmp_path, make_engine):
    from assistant.retrieve.entity_graph import entity_graph

    engine = _index(tmp_path, make_engine, aboutness=False)
    assert _about(engine) == {}
    assert entity_graph(engine.resources).title_chunks == {}


def test_a_section_is_about_what_its_heading_names(tmp_path, make_engine):
    from assistant.retrieve.entity_graph import entity_graph

    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "week-12.md").write_text(
        "# Trip notes\n\nWe left early on Monday and the roads were quiet.\n\n"
        "## Results\n\nNothing much happened on the first day.\n\n"
        "## Harrowmere Museum\n\nThe collection opened in 1867 in the old station building. "
        "It holds the Calder Valley maps.\n", encoding="utf-8")
    engine = make_engine(tmp_path / "ix")
    engine.indexer.index_paths([folder])
    rows = engine.index.store.db.execute("select m.kind, substr(c.text, m.start - c.start + 1, m.end - m.start) from mentions m join chunks c on c.id = m.chunk_id"
        " where m.kind in ('TITLE', 'ABOUT')").fetchall()
    assert ("ABOUT", "Harrowmere Museum") in rows
    # A heading that names nothing makes no home.
    assert not any("Results" in text for _, text in rows)
    graph = entity_graph(engine.resources)
    row = graph.keys["harrowmere museum"]
    (chunk,) = [engine.index.store.passages.chunks([int(graph.chunk_ids[c])])[int(graph.chunk_ids[c])] for c in graph.title_chunks[row]]
    assert "opened in 1867" in chunk.text


def test_html_and_docx_headings_make_homes_like_markdown_ones(tmp_path, make_engine):
    import docx

    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "page.html").write_text(
        "<html><body><h1>Visit notes</h1><p>We arrived late.</p>"
        "<h2>Calder Valley Railway</h2><p>The line opened in 1871 and closed in 1964.</p></body></html>",
        encoding="utf-8")
    document = docx.Document()
    document.add_heading("Wren Street Bakery", level=2)
    document.add_paragraph("The bakery has sold rye bread since 1921.")
    document.save(folder / "minutes.docx")
    engine = make_engine(tmp_path / "ix")
    engine.indexer.index_paths([folder])
    rows = engine.index.store.db.execute(
        "select d.path, substr(c.text, m.start - c.start + 1, m.end - m.start) from mentions m join chunks c on c.id = m.chunk_id"
        " join documents d on d.id = m.document_id where m.kind = 'ABOUT'"
    ).fetchall()
    about = {(path.rsplit("/", 1)[-1], text) for path, text in rows}
    assert ("page.html", "Calder Valley Railway") in about
    assert ("minutes.docx", "Wren Street Bakery") in about


def test_without_a_parse_the_named_mention_before_the_main_verb_is_the_subject():
    # Backends that give no subject span (llm, amr) fall back on their graph's roles.
    from assistant.nlp.aboutness import subject_mention
    from assistant.nlp.extract import Action, Mention, SentenceGraph

    text = "In 1990 Ann Lee founded the Harrowmere Museum."
    graph = SentenceGraph(
        mentions=[Mention(3, 7, "1990", "1990", "DATE"), Mention(8, 15, "Ann Lee", "ann lee", "PERSON"),
                  Mention(28, 45, "Harrowmere Museum", "harrowmere museum", "ORG")],
        actions=[Action(16, 23, "founded", "found", [("agent", 1), ("patient", 2)])],
    )
    mention, person = subject_mention(graph, 0, text)
    assert (mention.text, mention.kind, person) == ("Ann Lee", "ABOUT", True)
    assert graph.mentions[1] is mention  # it takes the place of the PERSON mention
    # No named mention before the verb: no subject.
    bare = SentenceGraph(mentions=[Mention(25, 42, "Harrowmere Museum", "harrowmere museum", "ORG")],
                         actions=[Action(14, 20, "opened", "open", [("patient", 0)])])
    assert subject_mention(bare, 0, "The committee opened Harrowmere Museum.") == (None, False)


def test_a_line_of_a_letterhead_or_a_form_is_no_heading():
    # Laid-out lines are units of their own (issue 47); "27 Kestrel Road" inside an
    # address block made the letter a home of Kestrel Road, and questions about the street
    # went to it.
    from assistant.nlp.aboutness import heading_text

    letter = "NORTHGATE BANK\nPO Box 2210\nDate: 4 April 2024\nMrs C. Hollis\n27 Kestrel Road\nAmbury AM2 4LX\n\nDear Mrs Hollis,"
    at = letter.index("27 Kestrel Road")
    assert heading_text(letter, at, at + len("27 Kestrel Road")) is None
    at = letter.index("Date:")
    assert heading_text(letter, at, at + len("Date: 4 April 2024")) is None
    assert heading_text(letter, 0, len("NORTHGATE BANK")) == "NORTHGATE BANK"
    notes = "Intro line here.\n\nSummer street party\n\nAgreed: it is on 13 July."
    at = notes.index("Summer")
    assert heading_text(notes, at, at + len("Summer street party")) == "Summer street party"
