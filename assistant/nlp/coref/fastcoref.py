"""The neural coreference backend: fastcoref (F-coref or LingMess) on a local model.

`FastCoref.resolve` has RuleCoref's contract. It runs the model on a chunk's sentences
joined by spaces, maps each predicted cluster back to the extracted mentions, and gives a
pronoun (or "the <noun>") in a cluster the key of the nearest named mention before it in
that cluster. Keys therefore only ever come from mentions of the passage itself.

The weights are never downloaded: a local directory (`coref_model` in the config) or the
Hugging Face cache of a machine that fetched them. `make_coref` falls back to the rules
when neither has them.

fastcoref 2.1.6 builds its models with `init_weights()`, which transformers 5 no longer
supports before `post_init()` has run; `model_classes()` puts that right.
"""

from __future__ import annotations

import functools
import json
import logging
import warnings
from pathlib import Path

from .rules import COREF, POSSESSIVES, REFLEXIVES, RuleCoref, apply_replacements, log as coref_log
from ..extract import PRONOUNS, Mention

HF_REPOS = ("biu-nlp/f-coref", "biu-nlp/lingmess-coref")
WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")
# Mentions that may name an antecedent: typed entities, proper-noun runs, the title.
UNNAMED_KINDS = {"PRON", "COREF", "NOUN", "DATE", "TIME"}
DETERMINERS = {"", "the", "a", "an"}


def find_weights(model: str = "") -> tuple[Path | None, list[str]]:
    """The model directory (configured, else the Hugging Face cache) and where we looked."""
    if model:
        path = Path(model).expanduser()
        return (path if _complete(path) else None), [str(path)]
    try:
        from huggingface_hub import constants, try_to_load_from_cache
    except ImportError:
        return None, ["the Hugging Face cache (huggingface_hub is not installed)"]
    looked = []
    for repo in HF_REPOS:
        looked.append(f"{constants.HF_HUB_CACHE} ({repo})")
        found = try_to_load_from_cache(repo, "config.json")  # a lookup on disk, no network
        if isinstance(found, str) and _complete(Path(found).parent):
            return Path(found).parent, looked
    return None, looked


def _complete(path: Path) -> bool:
    return (path / "config.json").is_file() and any((path / f).is_file() for f in WEIGHT_FILES)


class FastCoref:
    name = "fastcoref"

    def __init__(self, model_dir: str | Path, nlp):
        """`nlp`: a loaded spaCy pipeline; fastcoref only uses its tokenizer."""
        self.model = _load(Path(model_dir), nlp)

    def clusters(self, text: str) -> list[list[tuple[int, int]]]:
        """Predicted clusters of `text` as character spans, each in reading order."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)  # pyarrow, via datasets
            result = self.model.predict([text])[0]
        # A span that touches a special token ([CLS], padding) maps to None: left out.
        clusters = [sorted(tuple(s) for s in c if s is not None and None not in s)
                    for c in result.get_clusters(as_strings=False)]
        return [c for c in clusters if c]

    def resolve(self, sentences, offsets, graphs, title=None, title_is_person=None):
        if not sentences:
            return []
        # Joined text position -> document position, sentence by sentence.
        starts, at = [], 0
        for s in sentences:
            starts.append(at)
            at += len(s) + 1
        # The title is one of the first sentence's mentions already (the indexer puts it there).
        by_span = {}  # document span -> [(sentence, mention)], before any is added
        for si, g in enumerate(graphs):
            for m in g.mentions:
                by_span.setdefault((m.start, m.end), []).append((si, m))

        def to_doc(start: int, end: int) -> tuple[int, int] | None:
            for si in range(len(sentences) - 1, -1, -1):
                if starts[si] <= start:
                    if end > starts[si] + len(sentences[si]):
                        return None  # spans two sentences
                    return offsets[si] + start - starts[si], offsets[si] + end - starts[si]
            return None

        replacements = [[] for _ in sentences]
        for cluster in self.clusters(" ".join(sentences)):
            named: Mention | None = None  # the nearest named mention so far
            for span in cluster:
                doc_span = to_doc(*span)
                if doc_span is None:
                    continue
                for si, m, lead in self._mentions_in(doc_span, by_span, sentences, offsets):
                    if m.key and m.kind not in UNNAMED_KINDS:
                        named = m
                    elif named is not None and m.kind == "PRON" and m.text.lower() in PRONOUNS:
                        word = m.text.lower()
                        m.key, m.name, m.kind = named.key, named.name or named.text, "COREF"
                        if word not in REFLEXIVES:
                            name = m.name + ("'s" if word in POSSESSIVES else "")
                            replacements[si].append((m.start - offsets[si], m.end - offsets[si], name))
                    elif named is not None and m.kind == "NOUN" and m.key and lead == "the":
                        # "the film": indexed under the antecedent too, its text left as is.
                        graphs[si].mentions.append(
                            Mention(m.start, m.end, m.text, named.key, "COREF", named.name or named.text))
        return [apply_replacements(text, r) for text, r in zip(sentences, replacements)]

    @staticmethod
    def _mentions_in(span, by_span, sentences, offsets):
        """(sentence, mention, determiner) for the extracted mentions a predicted span stands
        for: the mention with that exact span, or one the span only adds a determiner to
        ("the Zephyr 3" -> "Zephyr 3", "the film" -> "film")."""
        start, end = span
        for (ms, me), found in by_span.items():
            if me == end and start <= ms:
                si = found[0][0]
                lead = sentences[si][start - offsets[si]: ms - offsets[si]].strip().lower()
                if lead in DETERMINERS:
                    return [(si, m, lead) for _, m in found]
        return []


@functools.cache
def model_classes() -> dict:
    """fastcoref's model classes, made to build under transformers 5, by architecture
    name: (model class, batch collator)."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    import datasets
    from fastcoref.coref_models import modeling_fcoref, modeling_lingmess
    from fastcoref.utilities.collate import LeftOversCollator, PadCollator

    # fastcoref calls logging.basicConfig(level=INFO) on import: undo that.
    root.handlers[:], root.level = handlers, level
    logging.getLogger("fastcoref").setLevel(logging.WARNING)
    datasets.disable_progress_bars()  # one "Map" bar per chunk otherwise

    class Compat:
        def init_weights(self):
            # transformers 5 sets up its tied-weight bookkeeping in post_init(), which then
            # calls init_weights() again; transformers 4 needs nothing of the sort.
            if "all_tied_weights_keys" not in self.__dict__ and hasattr(self, "get_expanded_tied_weights_keys"):
                self.post_init()
            else:
                super().init_weights()

    # The same class names as fastcoref's: a saved config names its architecture by them.
    class FCorefModel(Compat, modeling_fcoref.FCorefModel):
        pass

    class LingMessModel(Compat, modeling_lingmess.LingMessModel):
        pass

    return {"FCorefModel": (FCorefModel, LeftOversCollator), "LingMessModel": (LingMessModel, PadCollator)}


def _load(model_dir: Path, nlp):
    """fastcoref's own model wrapper on `model_dir`: CPU, quiet, never downloading."""
    classes = model_classes()
    from fastcoref.modeling import CorefModel

    config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
    lingmess = any("LingMess" in a for a in config.get("architectures") or []) or "lingmess" in str(model_dir)
    model_class, collator = classes["LingMessModel" if lingmess else "FCorefModel"]
    return CorefModel(str(model_dir), model_class, collator, False, "cpu", nlp)


@COREF.register("fastcoref", "F-Coref (fastcoref), where its weights are on disk; else the rules")
def build_fastcoref(spacy_dir=None, nlp=None, model: str = ""):
    """fastcoref needs its weights on disk (`model`, a local directory, else the Hugging
    Face cache) and a spaCy pipeline for its tokenizer (`nlp`, else loaded from
    `spacy_dir`); without the package or the weights it falls back to the rules, with a
    warning."""
    import importlib.util

    if importlib.util.find_spec("fastcoref") is None:
        coref_log.warning("coref = fastcoref but the fastcoref package is not installed "
                          "(pip install 'assistant[coref]'); using the rule-based coreference.")
        return RuleCoref()
    found, looked = find_weights(model)
    if found is None:
        coref_log.warning(
            "fastcoref weights not found (looked in: %s); using the rule-based coreference. "
            "Fetch them on a machine with a network (`hf download biu-nlp/f-coref`) and copy "
            "the Hugging Face cache over, or set coref_model to the model's directory.",
            "; ".join(looked),
        )
        return RuleCoref()
    if nlp is None:
        from ..sentences import load_spacy

        nlp = load_spacy(str(spacy_dir), ())  # fastcoref needs only the tokenizer
    return FastCoref(found, nlp)
