"""The components a configuration names, checked and described before anything is built:
a setting that names no component is said in one line (`check_names`), and what builds an
index's entity layer is recorded with the versions of its rules (`entity_rules`)."""

from __future__ import annotations

import os
from pathlib import Path

from .config import Config, ConfigError
from .retrieve import available, is_known

# The spaCy components the spacy extractor needs (the sentence recogniser is not one:
# sentences come from the faster senter pass of the chunker).
PARSE_COMPONENTS = ("tok2vec", "tagger", "parser", "attribute_ruler", "lemmatizer", "ner")


def check_names(config: Config) -> None:
    """ConfigError naming the first setting that names no component ("retriever = "bogus"",
    an embedder path that is a file): said in one line before anything is opened."""
    from .answer.grounding.context import CONTEXT_MODES
    from .nlp.coref.rules import COREF
    from .nlp.encoders.embedder import BACKENDS
    from .nlp.extract import EXTRACTORS

    choices = {
        "retriever": (is_known(config.retriever), available()),
        "extractor": (config.extractor in ("", "none") or EXTRACTORS.is_known(config.extractor),
                      ["none", *EXTRACTORS.names()]),
        "coref": (config.coref in ("", "none") or COREF.is_known(config.coref), ["none", *COREF.names()]),
        "embed_backend": (config.embed_backend in BACKENDS, BACKENDS),
        "context": (config.context in CONTEXT_MODES, CONTEXT_MODES),
    }
    for name, (known, names) in choices.items():
        if not known:
            raise ConfigError(f"unknown {name} '{getattr(config, name)}'; choose one of: {', '.join(names)}")
    embedder = Path(os.path.expanduser(config.embedder))
    if embedder.exists() and not embedder.is_dir():
        raise ConfigError(f"embedder '{config.embedder}' is a file: name a model directory or a registered model")


def entity_rules(extractor: str | None, aboutness: bool) -> str:
    """What builds an index's entity layer, as the index records it: the extractor, the
    versions of the rules that shape what it extracts, and of the readers that give it its
    text ("spacy rules 3, aboutness 4, readers 2"). An index built by older rules or
    readers is told so (`Engine.stale_entity_rules`), and read anew."""
    from .ingest.loaders import READERS_VERSION
    from .nlp.aboutness import ABOUTNESS_VERSION
    from .nlp.extract import SPACY_RULES_VERSION

    if not extractor or extractor == "none":
        return "none"
    parts = [f"spacy rules {SPACY_RULES_VERSION}" if extractor == "spacy" else extractor]
    about = [f"aboutness {ABOUTNESS_VERSION}"] if aboutness else []
    return ", ".join([*parts, *about, f"readers {READERS_VERSION}"])
