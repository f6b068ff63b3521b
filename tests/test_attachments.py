"""An e-mail's attachments are documents of their own (`MESSAGE.eml/NAME`) that live and
die with their message: a changed message drops the attachments it no longer carries, a
renamed one takes them along, a forgotten or deleted one takes them out, and `--in
MESSAGE.eml` searches them. Real messages built with the email package, a real index."""

from __future__ import annotations

from email.message import EmailMessage
from pathlib import Path

from assistant.config import Config

SEAT = b"Your seat is 12A on the upper deck, by the galley window.\n"
LUGGAGE = b"Each passenger may bring two bags and one bicycle on the Lowmoor ferry.\n"


def message(path: Path, *attachments: tuple[str, bytes]) -> Path:
    msg = EmailMessage()
    msg["From"], msg["To"] = "tickets@lowmoor.example", "alice@example.org"
    msg["Subject"] = "Your Lowmoor ferry booking"
    msg.set_content("Dear Alice,\n\nYour crossing to Lowmoor departs at 7:45 from the north pier.\n")
    for name, data in attachments:
        msg.add_attachment(data, maintype="text", subtype="plain", filename=name)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(bytes(msg))
    return path


def documents(engine) -> dict[str, str | None]:
    """Each indexed path and the message it is attached to."""
    return {d.path: d.attached_to for d in engine.index.store.docs.documents()}


def vectors_in_step(engine) -> bool:
    store_ids = {r[0] for r in engine.index.store.db.execute("select id from chunks")}
    return set(engine.index.vectors("chunks").ids) == store_ids


def test_attachments_live_and_go_with_their_message(tmp_path, make_engine):
    docs = tmp_path / "docs"
    mail = message(docs / "booking.eml", ("seat.txt", SEAT), ("luggage.txt", LUGGAGE))
    engine = make_engine(tmp_path / "ix", config=Config(extractor="none"))
    report = engine.index_paths([docs])
    assert (report.added, report.attachments) == (1, 2)
    m = str(mail)
    assert documents(engine) == {m: None, m + "/luggage.txt": m, m + "/seat.txt": m}
    assert engine.search("Which seat do I have?", k=1)[0].chunk.path == m + "/seat.txt"
    status = engine.status()
    assert (status.documents, status.attachments) == (3, 2)

    # Indexed again unchanged: nothing is read, nothing goes.
    assert "; 2 attachments read as documents" in report.summary()
    again = engine.index_paths([docs])
    assert (again.unchanged, again.added, again.removed, again.attachments) == (1, 0, 0, 0)
    assert len(documents(engine)) == 3

    # The message saved again without one attachment: that one leaves the index.
    message(mail, ("seat.txt", SEAT))
    report = engine.index_paths([docs])
    assert (report.updated, report.attachments) == (1, 1)
    assert report.summary().endswith("; unchanged 0; 1 attachment read as a document")
    assert documents(engine) == {m: None, m + "/seat.txt": m}
    assert all(h.chunk.path != m + "/luggage.txt" for h in engine.search("How many bags may I bring?", k=5))
    assert vectors_in_step(engine)

    # Renamed: its attachment moves with it, nothing is read again.
    moved = mail.rename(docs / "ferry booking.eml")
    report = engine.index_paths([docs])
    assert (report.moved, report.added, report.removed) == (1, 0, 0)
    n = str(moved)
    assert documents(engine) == {n: None, n + "/seat.txt": n}
    assert engine.search("Which seat do I have?", k=1)[0].chunk.path == n + "/seat.txt"

    # `--in` the message searches its attachments too.
    hits = engine.search("Which seat do I have?", k=3, scope=engine.scope(paths=[n]))
    assert {h.chunk.path for h in hits} == {n, n + "/seat.txt"}

    # Forgotten: its attachments go too, and come back with it.
    assert engine.forget(moved) == 1
    assert documents(engine) == {}
    engine.index_paths([moved])
    assert documents(engine) == {n: None, n + "/seat.txt": n}

    # Deleted: its attachments go too.
    moved.unlink()
    report = engine.index_paths([docs])
    assert report.removed == 1 and documents(engine) == {}
    assert vectors_in_step(engine)


def test_a_message_that_fails_keeps_no_attachments(tmp_path, make_engine):
    docs = tmp_path / "docs"
    mail = message(docs / "booking.eml", ("seat.txt", SEAT))
    engine = make_engine(tmp_path / "ix", config=Config(extractor="none"))
    engine.index_paths([docs])
    mail.write_bytes(b"\x00\x01" * 4000)  # overwritten with garbage: it fails, and is not a message now
    report = engine.index_paths([docs])
    assert [p for p, _ in report.failed] == [str(mail)]
    assert documents(engine) == {str(mail): None}
    assert vectors_in_step(engine)


def test_the_cli_says_how_many_attachments_it_read(tmp_path, quick_cli):
    docs = tmp_path / "docs"
    message(docs / "booking.eml", ("seat.txt", SEAT), ("luggage.txt", LUGGAGE))
    out = quick_cli("index", str(docs), index=tmp_path / "ix").output
    assert "added 1," in out and "; 2 attachments read as documents" in out, out
    status = quick_cli("status", index=tmp_path / "ix").output
    assert "documents  3 (2 of them e-mail attachments; 0 failed)" in status, status
    message(docs / "booking.eml", ("seat.txt", SEAT))
    quick_cli("index", str(docs), index=tmp_path / "ix")
    status = quick_cli("status", index=tmp_path / "ix").output
    assert "documents  2 (1 of them an e-mail attachment; 0 failed)" in status, status


def test_an_attachment_left_unread_says_why(tmp_path):
    # Issue 48: a zip bomb attached to a message was dropped with only its name shown.
    import io
    import zipfile

    from assistant.ingest.loaders import load

    bomb = io.BytesIO()
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        z.writestr("word/document.xml", b"a" * (20 << 20))  # 20 MB of one letter: about 20 KB packed
    path = message(tmp_path / "trip.eml", ("bomb.docx", bomb.getvalue()), ("seat.txt", SEAT))
    text = load(path).text
    assert "Attachment: bomb.docx (not read: it unpacks to 20 MB from " in text, text
    assert "a zip bomb?" in text, text
