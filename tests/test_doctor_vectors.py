"""`assistant doctor` reads the stored vectors back (issue 64): a blob of the right length
holding values no embedder writes (search showed a cosine of -7e27 while doctor said the
vectors were fine) is found and counted, with what to do. A real index, damaged for real."""

from __future__ import annotations

import sqlite3
import struct

from assistant.config import Config
from assistant.doctor import index_checks


def _vector_check(ix):
    [check] = [c for c in index_checks(Config(), str(ix), embedder_ok=False) if c.name == "index vector values"]
    return check


def test_doctor_finds_stored_vectors_that_are_not_finite_or_not_unit_length(tmp_path, make_engine):
    ix = tmp_path / "ix"
    engine = make_engine(ix, config=Config(extractor="none"))
    docs = tmp_path / "d"
    docs.mkdir()
    (docs / "ferry.txt").write_text("The ferry leaves Harrowmere at nine every morning.\n\n"
                                    "The last boat back is at six, except on Sundays.\n")
    (docs / "mill.txt").write_text("The old mill on the river was built in 1820 and milled flour until 1961.\n")
    assert engine.index_paths([docs]).added == 2
    engine.close()
    healthy = _vector_check(ix)
    assert healthy.ok and "finite, unit length" in healthy.detail, healthy.detail

    conn = sqlite3.connect(ix / "index.db")
    dim = int(conn.execute("select value from meta where key = 'dim'").fetchone()[0])
    ids = [r[0] for r in conn.execute("select id from chunks order by id")]
    # The right length (int8 steps, then their float32 scale), values of no embedder.
    conn.execute("update chunks set embedding = ? where id = ?", [bytes([127]) * dim + struct.pack("<f", 3e25), ids[0]])
    conn.execute("update chunks set embedding = ? where id = ?", [bytes(dim) + struct.pack("<f", float("nan")), ids[1]])
    conn.commit()
    conn.close()
    damaged = _vector_check(ix)
    assert not damaged.ok and not damaged.warning
    assert damaged.detail.startswith("2 of "), damaged.detail
    assert "not finite or not unit length" in damaged.detail and "index FOLDER..." in damaged.detail
