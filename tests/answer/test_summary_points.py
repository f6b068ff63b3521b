"""What a summary is read from (answer/routes/summary_points.py): a file's main points,
section by section, not its opening lines. Real files, real spaCy, a real index; the
sentences are the stored ones."""

from __future__ import annotations

import shutil
from pathlib import Path, PurePath

from assistant.answer.routes.summary_points import key_points, main_points, sections
from assistant.config import Config

PERSONAL = Path(__file__).resolve().parents[2] / "bench" / "personal" / "docs"


def _stored(make_engine, tmp_path, name, source=PERSONAL):
    folder = tmp_path / "docs"
    folder.mkdir(parents=True)
    shutil.copy(source / name, folder / name)
    engine = make_engine(tmp_path / "ix", config=Config(extractor="none"))
    assert engine.index_paths([folder]).ok
    passages = engine.answerer.store.passages
    ids = passages.chunk_ids_of([str((folder / name).resolve())]) or passages.chunk_ids_of([str(folder / name)])
    chunks, sentences = passages.chunks(ids), passages.sentences_of(ids)
    return list(chunks.values()), [sentences[i] for i in ids], _tokens


def _tokens(text: str) -> int:
    """About what the answer models' tokenizer counts in English prose (no model loaded)."""
    return round(1.4 * len(text.split()))


def _kept_texts(chunks, lists, budget, count):
    kept = main_points(sections(chunks, lists), budget, count)
    return [s.text for sents in lists for s in sents if s.id in kept]


def test_minutes_give_each_agenda_item_s_point_before_any_item_s_second(make_engine, tmp_path):
    """Minutes open with where the meeting was and who was present; a summary read from
    their opening lines told who attended (issue 47, q41). With room for about one sentence
    a section, each numbered item gives its own: the balance, the petition, the party."""
    chunks, lists, count = _stored(make_engine, tmp_path, "residents-association-minutes-2024-05-21.md")
    kept = " ".join(_kept_texts(chunks, lists, 260, count))
    for point in ("€1,318.75", "speed bumps", "Saturday 13 July 2024", "bulbs"):
        assert point in kept, kept
    assert "Present:" not in kept, kept  # front matter: its first line only
    assert "## 2. Treasurer's report" in kept  # a kept point comes with its heading


def test_the_points_a_summary_states_are_sentences_of_the_most_telling_sections(make_engine, tmp_path):
    chunks, lists, _ = _stored(make_engine, tmp_path, "residents-association-minutes-2024-05-21.md")
    points = [s.text for s in key_points(sections(chunks, lists))]
    assert len(points) == 3, points
    assert points[0].startswith("Frank reported a balance of €1,318.75"), points
    assert "speed bumps" in points[1] and "street party" in points[2], points


def test_a_transcript_without_headings_gives_its_paragraphs_telling_sentences(make_engine, tmp_path):
    """A call transcript has no headings: its paragraphs are its sections, and of each the
    sentence with figures, not the greeting that opens it (q42: the Q3 revenue, the Lisbon
    sale, the dividend)."""
    chunks, lists, count = _stored(make_engine, tmp_path, "q3-call-transcript.txt")
    kept = _kept_texts(chunks, lists, 400, count)
    joined = " ".join(kept)
    for point in ("€38.6 million", "Lisbon warehouse for €4.2 million", "€0.18"):
        assert point in joined, joined
    assert not any(text.startswith(("Thank you, Marta", "Thanks, Inês")) for text in kept), kept
    assert sum(count(t) + 1 for t in kept) <= 400


def test_a_file_without_headings_is_read_whole_when_it_fits(make_engine, tmp_path):
    """A letter's paragraphs (or a record's fields: "Name: Mungo") are all read where the
    context holds them; a file with headings gives each section its best two."""
    chunks, lists, count = _stored(make_engine, tmp_path, "landlord-letter.txt")
    every = [s.text for sents in lists for s in sents]
    assert set(every) == set(_kept_texts(chunks, lists, 10_000, count))
    chunks, lists, count = _stored(make_engine, tmp_path / "vet", "vet-appointment-biscuit.md")
    kept = _kept_texts(chunks, lists, 10_000, count)
    assert len(kept) < sum(len(sents) for sents in lists), kept


def test_a_record_of_fields_has_no_points_to_state(make_engine, tmp_path):
    """A vaccination card is fields and rows ("Name: Mungo", "03/03/2024 Annual booster"):
    stated as points, its summary would be a pasted row ("03/03/2024 Weight 5.6 kg."). It
    has none, and the model summarises it."""
    folder = tmp_path / "docs"
    folder.mkdir()
    shutil.copy(PERSONAL.parents[1] / "personal2" / "src" / "vaccination-card.txt", folder / "vaccination-card.txt")
    engine = make_engine(tmp_path / "ix", config=Config(extractor="none"))
    assert engine.index_paths([folder]).ok
    passages = engine.answerer.store.passages
    ids = passages.chunk_ids_of([d.path for d in engine.answerer.store.docs.documents()])
    chunks, sentences = passages.chunks(ids), passages.sentences_of(ids)
    assert key_points(sections(list(chunks.values()), [sentences[i] for i in ids])) == []


FILES = Path(__file__).resolve().parent / "files"


def _points_of(make_engine, tmp_path, name):
    chunks, lists, _ = _stored(make_engine, tmp_path, name, FILES)
    return [s.text for s in key_points(sections(chunks, lists))]


def test_an_agreement_s_points_are_its_parties_and_terms_not_the_words_of_every_clause(make_engine, tmp_path):
    """A loan agreement says "the Lender" and "the Borrower" in every clause: counted as
    what the file comes back to, they made its points the clauses that say them most
    (notices, the whole agreement). They say what the file is; its points are who it is
    between (its front matter names them) and its sums."""
    points = " ".join(_points_of(make_engine, tmp_path, "loan-agreement.md"))
    for term in ("Priya Castellan", "Tomas Whitfield", "£8,400.00", "£248.70"):
        assert term in points, points
    assert "A notice from the Lender" not in points, points


def test_an_email_of_more_header_and_list_lines_than_sentences_has_points(make_engine, tmp_path):
    """An e-mail's headers, greeting, list of things to bring and signature are more lines
    than its paragraphs, but far fewer words: its points are its paragraphs' sentences,
    not a summary the model makes of its header fields ("Date: Mon, 10 Mar 2025 ...")."""
    points = _points_of(make_engine, tmp_path, "trip-email.eml")
    assert points and any("Cheddar Gorge" in p for p in points), points
    assert not any(p.startswith(("Date:", "From:", "Subject:")) for p in points), points


def test_a_summary_of_a_document_named_by_what_it_holds_is_of_that_document(make_engine, tmp_path):
    """"What is the email from Orla Brennan about?": the sender is in the e-mail, not in its
    file name or subject, so no document was named and the question was answered as a
    single fact ("about his trip [2]"). The document of the first passages retrieved is
    summarised."""
    folder = tmp_path / "docs"
    folder.mkdir()
    for name in ("trip-email.eml", "loan-agreement.md", "garden-letter.txt"):
        shutil.copy(FILES / name, folder / name)
    engine = make_engine(tmp_path / "ix", llm=True, config=Config(extractor="none"))
    assert engine.index_paths([folder]).ok
    answer = engine.ask("What is the email from Orla Brennan about?")
    assert answer.context == "summary", answer.text
    assert "Cheddar Gorge" in answer.text, answer.text
    assert {PurePath(c.path).name for c in answer.citations} == {"trip-email.eml"}, answer.citations
