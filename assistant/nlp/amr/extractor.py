"""The `amr` extractor: sentence graphs from Abstract Meaning Representation parses
(GroundedKG section 3.2).

amrlib parses each sentence into an AMR graph (PENMAN notation); penman decodes it;
amr_graph.py reads the graph (which nodes are actions, names, dates, pronouns, nouns) and
amr_convert.py grounds those nodes in the sentence as a `SentenceGraph` (the word rules in
amr_words.py). This module holds what needs amrlib and its model: finding and loading the
parse model, and the extractor that parses sentences in batches and converts each graph.
"""

from __future__ import annotations

import json
import logging
from collections import Counter
from pathlib import Path

from ... import models
from .convert import convert
from .words import spacy_tokens
from ..extract import SentenceGraph, register_extractor

log = logging.getLogger(__name__)

META_FILE = "amrlib_meta.json"
TOKENIZER_FILES = ("tokenizer.json", "vocab.json")


class AmrUnavailable(models.ModelNotFound):
    """amrlib or its parse model is missing: raised when the extractor is built."""


def find_model(model: str = "") -> tuple[Path | None, list[str]]:
    """The amrlib parse-model directory and where we looked: `model` (a registry name or a
    path), else the registry's amr models that are present, else amrlib's `model_stog`."""
    looked: list[str] = []
    candidates: list[Path] = []
    if model:
        registry = models.load_registry()
        if model in registry:
            spec = registry[model]
            found = spec.locate()
            looked.append(f"{spec.pulled_dir()} ({model})")
            if found is not None:
                candidates.append(found)
        else:
            candidates.append(Path(model).expanduser())
            looked.append(str(candidates[-1]))
    else:
        specs = [s for s in models.load_registry().values() if s.role == "amr"]
        for spec in sorted(specs, key=lambda s: not s.default):
            looked.append(f"{spec.pulled_dir()} ({spec.name})")
            found = spec.locate()
            if found is not None:
                candidates.append(found)
        try:
            import importlib.util

            spec = importlib.util.find_spec("amrlib")
            if spec is not None and spec.submodule_search_locations:
                stog = Path(next(iter(spec.submodule_search_locations))) / "data" / "model_stog"
                looked.append(str(stog))
                candidates.append(stog)
        except (ImportError, ValueError):
            pass
    for c in candidates:
        if (c / META_FILE).is_file():
            return c, looked
        inner = sorted(c.glob(f"*/{META_FILE}")) if c.is_dir() else []
        if inner:
            return inner[0].parent, looked
    return None, looked


def default_model_name() -> str:
    specs = [s for s in models.load_registry().values() if s.role == "amr"]
    return next((s.name for s in specs if s.default), specs[0].name if specs else "parse_xfm_bart_base")


def load_parser(model_dir: Path, batch_size: int = 8, device: str | None = None, **kwargs):
    """amrlib's sentence-to-graph model, loaded offline."""
    try:
        import amrlib
    except ImportError as exc:
        raise AmrUnavailable("the amr extractor needs amrlib: pip install 'assistant[amr]'") from exc
    meta = json.loads((model_dir / META_FILE).read_text(encoding="utf-8"))
    if device:
        kwargs["device"] = device
    # The parse_xfm models name their base model's tokenizer (facebook/bart-large...):
    # `models pull` stores it beside the weights, else it must be in the HF cache.
    xfm = any(k in meta.get("inference_module", "") for k in ("parse_xfm", "parse_t5"))
    if xfm and any((model_dir / f).is_file() for f in TOKENIZER_FILES):
        kwargs.setdefault("tok_name_or_path", str(model_dir))
    try:
        return amrlib.load_stog_model(str(model_dir), batch_size=batch_size, **kwargs)
    except Exception as exc:
        raise AmrUnavailable(
            f"the amrlib parse model at {model_dir} does not load: {type(exc).__name__}: "
            f"{str(exc).splitlines()[0] if str(exc) else ''}"
        ) from exc


@register_extractor("amr")
class AmrExtractor:
    """Parses each sentence with amrlib and converts the graph (see `convert`)."""

    name = "amr"

    def costs(self) -> dict:
        """What the parser made of the sentences so far (parsed, unparsed, nodes aligned)."""
        return {"extraction": dict(self.stats)} if self.stats else {}

    def __init__(self, model_dir: str | Path = "", nlp=None, batch_size: int = 8, parser=None,
                 device: str | None = None):
        """`model_dir`: a registry name or a directory ("" = the first one present);
        `nlp`: a spaCy pipeline with a lemmatiser for grounding (else word-form guesses);
        `parser`: anything with amrlib's `parse_sents(list[str]) -> list[str | None]`
        (the model is not loaded then)."""
        self.nlp = nlp
        self.batch_size = batch_size
        self.stats: Counter = Counter()
        if parser is None:
            import importlib.util

            if importlib.util.find_spec("amrlib") is None:
                raise AmrUnavailable("the amr extractor needs amrlib: pip install 'assistant[amr]'")
            found, looked = find_model(str(model_dir) if model_dir else "")
            if found is None:
                raise AmrUnavailable(
                    f"no amrlib parse model at {', '.join(looked) or 'any known place'}: run "
                    f"`assistant models pull {default_model_name()}` on a machine with a network, "
                    f"or set amr_model to a model directory"
                )
            self.model_dir = found
            parser = load_parser(found, batch_size=batch_size, device=device)
        else:
            self.model_dir = None
        self.parser = parser

    @classmethod
    def from_context(cls, context) -> AmrExtractor:
        # spaCy's lemmas ground AMR concepts in their sentence; the entity retrievers read
        # the question through the extractor's pipeline (tags, NER) as well.
        return cls(model_dir=context.config.amr_model, nlp=context.nlp())

    def _parse(self, texts: list[str]) -> list[str | None]:
        clean = [" ".join(t.split()) for t in texts]
        todo = [i for i, t in enumerate(clean) if t]
        out: list[str | None] = [None] * len(texts)
        try:
            parsed = self.parser.parse_sents([clean[i] for i in todo])
            for i, p in zip(todo, parsed):
                out[i] = p
        except Exception as exc:  # noqa: BLE001 - one bad batch must not stop the index
            log.warning("AMR parse of a batch failed (%s); parsing its sentences one by one", exc)
            for i in todo:
                try:
                    out[i] = self.parser.parse_sents([clean[i]])[0]
                except Exception as one_exc:  # noqa: BLE001 - that sentence gets no graph
                    log.warning("AMR parse failed for %r: %s", clean[i][:80], one_exc)
        return out

    def extract(self, texts: list[str], offsets: list[int]) -> list[SentenceGraph]:
        graphs: list[SentenceGraph] = []
        for at in range(0, len(texts), self.batch_size):
            part, bases = texts[at: at + self.batch_size], offsets[at: at + self.batch_size]
            amrs = self._parse(part)
            docs = list(self.nlp.pipe(part)) if self.nlp is not None else [None] * len(part)
            for text, base, amr, doc in zip(part, bases, amrs, docs):
                self.stats["sentences"] += 1
                if not amr:
                    self.stats["unparsed"] += int(bool(text.strip()))
                    graphs.append(SentenceGraph())
                    continue
                try:
                    conv = convert(amr, text, base, spacy_tokens(doc) if doc is not None else None)
                except Exception as exc:  # noqa: BLE001 - a malformed graph: this sentence has none
                    log.warning("AMR graph not converted (%s): %r", exc, text[:80])
                    self.stats["unparsed"] += 1
                    graphs.append(SentenceGraph())
                    continue
                if conv.empty:
                    self.stats["unparsed"] += 1
                self.stats["nodes"] += conv.nodes
                self.stats["aligned"] += conv.aligned
                self.stats["unlocated"] += len(conv.unlocated)
                graphs.append(conv.graph)
        return graphs
