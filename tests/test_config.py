"""The config file keeps what the person chose, and only that."""

from __future__ import annotations

import tomllib

from assistant.config import Config


def test_save_writes_only_the_settings_that_differ_from_the_defaults(tmp_path):
    path = tmp_path / "config.toml"
    Config(retriever="hybrid", k=7, folders=["/home/a/notes"]).save(path)
    written = tomllib.loads(path.read_text(encoding="utf-8"))
    assert written == {"retriever": "hybrid", "k": 7, "folders": ["/home/a/notes"]}
    loaded = Config.load(path)
    assert (loaded.retriever, loaded.k, loaded.folders) == ("hybrid", 7, ["/home/a/notes"])
    # Everything not chosen follows the defaults, including a default that changes later.
    assert loaded.llm == Config().llm and loaded.context_tokens == Config().context_tokens


def test_a_config_with_nothing_chosen_is_empty_and_loads_as_the_defaults(tmp_path):
    path = tmp_path / "config.toml"
    Config().save(path)
    assert path.read_text(encoding="utf-8").strip() == ""
    assert Config.load(path) == Config()
