"""The typed records that cross the Engine's door: `status --json` is IndexStatus.as_dict,
whose keys and their order scripts may rely on, and a documents row is a DocumentRow
whatever version of the database it was read from."""

from __future__ import annotations

from assistant.engine import Engine, FailedFile, IndexStatus
from assistant.store import DocumentRow

COUNTS = ["documents", "failed", "copies", "partial", "no_text", "chunks", "sentences", "entities", "mentions",
          "actions", "attachments"]


def test_as_dict_is_the_status_json_object_in_its_order():
    status = IndexStatus("/ix", "all-minilm-l6-v2", "spacy rules 3", "spacy rules 3", False,
                         **dict.fromkeys(COUNTS, 2), size_bytes=10, last_update="2025-01-02 03:04:05",
                         failures=[FailedFile("/d/a.pdf", "corrupt PDF")], left_out={"forgotten": 1},
                         left_out_by_folder={"/d": {"forgotten": 1}})
    out = status.as_dict()
    assert list(out) == ["index", "embedder", "entity_rules", "entity_rules_now", "stale_entity_rules", *COUNTS,
                         "size_bytes", "last_update", "failures", "left_out", "left_out_by_folder"]
    assert out["failures"] == [{"path": "/d/a.pdf", "error": "corrupt PDF"}]
    assert out["left_out_by_folder"] == {"/d": {"forgotten": 1}}


def test_an_index_not_created_yet_says_so_with_every_count(tmp_path):
    status = Engine(index_dir=tmp_path / "ix").status()
    assert status.documents == status.chunks == status.size_bytes == 0 and status.failures == []
    assert status.last_update is None and not (tmp_path / "ix").exists()
    # The same keys as a real index's (its JSON once lacked "no_text").
    assert set(COUNTS) <= set(status.as_dict())


def test_a_row_of_an_older_database_reads_its_missing_columns_as_none():
    row = DocumentRow.from_row({"id": 1, "path": "/d/a.txt", "status": "ok", "content_hash": "abc", "mtime": 1.0,
                                "size": 3, "error": None, "title": "A", "n_chars": 3, "n_pages": None,
                                "indexed_at": 2.0})
    assert row.path == "/d/a.txt" and row.title == "A" and row.copy_of is None and row.indexed_chars is None
    assert row.attached_to is None
