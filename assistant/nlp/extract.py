"""Grounded extraction: entities and the actions that link them, per sentence.

An `Extractor` turns sentences into `SentenceGraph`s: entity mentions (named entities,
proper-noun runs, the heads of common noun chunks, the document title) and action nodes
(verbs) with role edges to the mentions that fill them (agent, patient, recipient, time,
place), plus "next" edges between the actions of a sentence, as GroundedKG builds from
SRL. Every mention and action keeps its character span in the document.

Backends are registered by name (`spacy` here; `llm` and `amr` plug in beside it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Protocol, runtime_checkable

from ..registry import Registry
from .normalize import entity_key

Span = tuple[int, int]

# Named-entity labels that name things worth a class of their own. Dates and times are
# mentions too (time roles point at them) but retrievers never link or hop through them;
# numbers and amounts are left out.
ENTITY_LABELS = {"PERSON", "NORP", "FAC", "ORG", "GPE", "LOC", "PRODUCT", "EVENT", "WORK_OF_ART", "LAW", "LANGUAGE"}
TIME_LABELS = {"DATE", "TIME"}
# "1898", "14 August", "the 1990s", "noon": not a bare run of small numbers ("34 56").
_DATE_LIKE = re.compile(r"[^\W\d_]|\b\d{3,4}s?\b")
PLACE_LABELS = {"GPE", "LOC", "FAC"}
# Amounts the tagger may give to a name written with a number word ("Two Dollar Radio").
_AMOUNT_LABELS = {"MONEY", "CARDINAL", "QUANTITY", "ORDINAL", "PERCENT"}
_AMOUNT_SIGNS = re.compile(r"[\d$€£¥₹%]")
_QUOTE_MARKS = {'"', "“", "”", "``", "''"}
# The small words a name may hold in lower case ("Louis the Junker of Hesse", "Return of
# the Vampire"); a title's (below) and a defined subject's (nlp/aboutness.py) add to them.
NAME_SMALL_WORDS = frozenset({"a", "an", "the", "of", "in", "on", "at", "to", "for", "from", "and", "with", "by",
                              "de", "la", "le", "du", "von", "van", "der"})
# Words a title leaves in lower case ("Falling Away from Me", "Love or Money").
_TITLE_SMALL_WORDS = NAME_SMALL_WORDS | {"or", "nor", "but", "as", "into", "upon", "vs"}
# Bump when the rules below change what a sentence graph holds (evaluation caches key on it).
SPACY_RULES_VERSION = 3


def is_named_kind(kind: str) -> bool:
    """A mention kind that names something: a typed named entity or a proper-noun run."""
    return kind in ENTITY_LABELS or kind == "PROPN"


@dataclass
class Mention:
    start: int  # character span in the document
    end: int
    text: str
    key: str  # entity-class key (normalize.entity_key)
    kind: str  # NER label, PROPN, NOUN (common noun head) or TITLE
    name: str = ""  # display name for the class (the text, or the antecedent for a pronoun)


@dataclass
class Action:
    start: int
    end: int
    text: str
    lemma: str
    # (role, index into SentenceGraph.mentions) for each filled role
    roles: list[tuple[str, int]] = field(default_factory=list)


@dataclass
class SentenceGraph:
    mentions: list[Mention] = field(default_factory=list)
    actions: list[Action] = field(default_factory=list)
    # (i, j): action i is followed by action j in the sentence
    next_edges: list[tuple[int, int]] = field(default_factory=list)
    # Character span of the sentence's grammatical subject where it names something ("When
    # a Man Loves a Woman" is a 1994 film): the indexer reads an untitled document's opening
    # one as what the document is about. None where a backend does not parse it.
    subject: tuple[int, int] | None = None


def compact(graph: SentenceGraph, drop_kinds: frozenset[str] = frozenset()) -> SentenceGraph:
    """Drop mentions left without a class key (unresolved pronouns), and those of
    `drop_kinds`, with their roles."""
    keep = [i for i, m in enumerate(graph.mentions) if m.key and m.kind not in drop_kinds]
    if len(keep) == len(graph.mentions):
        return graph
    remap = {old: new for new, old in enumerate(keep)}
    actions = []
    for a in graph.actions:
        a.roles = [(r, remap[m]) for r, m in a.roles if m in remap]
        actions.append(a)
    return SentenceGraph([graph.mentions[i] for i in keep], actions, graph.next_edges, graph.subject)


class Extractor(Protocol):
    """What the indexer and the entity retrievers need of a backend."""

    name: str

    def extract(self, texts: list[str], offsets: list[int]) -> list[SentenceGraph]:
        """One graph per sentence text; `offsets` place each text in its document."""


@runtime_checkable
class DescribesClasses(Protocol):
    """A backend that describes what it finds (llm): per chunk (its sentence texts and
    offsets), the sentence graphs and {class key: description}; the indexer stores the
    descriptions, and a class's are folded into one by `class_description`."""

    def extract_described(self, chunks: list[tuple[list[str], list[int]]]
                          ) -> list[tuple[list[SentenceGraph], dict[str, str]]]: ...

    def class_description(self, name: str, descriptions: list[str], threshold: int, limit_chars: int) -> str: ...


@runtime_checkable
class CountsCosts(Protocol):
    """A backend that counts what it spends (LLM tokens and calls, parses): reported by
    `assistant index --json` and the evaluation."""

    def costs(self) -> dict: ...


@runtime_checkable
class BuiltFromContext(Protocol):
    """A backend class that takes what it needs from the application's BuildContext."""

    @classmethod
    def from_context(cls, context: "BuildContext") -> Extractor: ...


# Backends by name; those in modules of their own (heavier imports) registered when first named.
EXTRACTORS = Registry("extractor", modules={"llm": "assistant.nlp.llm_extract.extractor", "amr": "assistant.nlp.amr.extractor"})


def register_extractor(name: str, description: str = ""):
    return EXTRACTORS.register(name, description)


@dataclass
class BuildContext:
    """What an extractor may need to be built, each part loaded only when asked for: a
    backend's `from_context(context)` takes what it uses, so a new backend needs no edit
    of whoever builds it."""

    nlp: Callable[[], object]  # the spaCy parse pipeline (tagger, parser, NER)
    generator: Callable[[], object]  # the configured LLM (assistant.nlp.llm.LlamaGenerator)
    config: object  # assistant.config.Config
    index_dir: Path  # where the index keeps its files (caches beside it)
    extraction_cache: Callable[[], object] = lambda: None  # store.ExtractionCache in the index folder


def make_extractor(name: str, **kwargs) -> Extractor:
    """A backend built from explicit arguments (tests, scripts)."""
    return EXTRACTORS.build(name, **kwargs)


def build_extractor(name: str, context: BuildContext) -> Extractor:
    """A backend built from the application's context (the engine)."""
    factory = EXTRACTORS.entry(name).factory
    return factory.from_context(context) if isinstance(factory, BuiltFromContext) else factory()


PRONOUNS = {"he", "him", "his", "himself", "she", "her", "hers", "herself", "it", "its", "itself", "they", "them", "their", "theirs"}

_SUBJECT_DEPS = {"nsubj", "csubj"}
_PASSIVE_SUBJECT_DEPS = {"nsubjpass", "csubjpass"}
_OBJECT_DEPS = {"dobj", "obj", "attr", "oprd"}
_RECIPIENT_DEPS = {"dative", "iobj"}


@register_extractor("spacy")
class SpacyExtractor:
    """Named entities, proper nouns, noun-chunk heads and dependency roles from spaCy."""

    name = "spacy"

    def __init__(self, nlp, batch_size: int = 256, noun_heads: bool = True):
        self.nlp = nlp
        self.batch_size = batch_size
        self.noun_heads = noun_heads
        # The graph reads the lemmas of a few tokens (noun heads, verbs): they are found
        # for those alone, as the pipeline's lemmatizer would (it lemmatizes every token).
        lemmatizer = nlp.get_pipe("lemmatizer") if "lemmatizer" in nlp.pipe_names else None
        self._skipped = ["lemmatizer"] if lemmatizer is not None else []
        self._lemma = _lazy_lemma(lemmatizer)

    @classmethod
    def from_context(cls, context: BuildContext) -> SpacyExtractor:
        return cls(context.nlp())

    def extract(self, texts: list[str], offsets: list[int]) -> list[SentenceGraph]:
        graphs = []
        for doc, base in zip(self.nlp.pipe(texts, batch_size=self.batch_size, disable=self._skipped), offsets):
            graphs.append(self._graph(doc, base))
        return graphs

    def _graph(self, doc, base: int) -> SentenceGraph:
        return _GraphBuilder(doc, base, self._lemma).build(self.noun_heads)


def _lazy_lemma(lemmatizer) -> Callable:
    """A token's lemma: the one the attribute ruler set (exceptions such as "n't"), else
    the lemmatizer's for that token, else the lemma the Doc holds (none: "")."""
    if lemmatizer is None:
        return lambda tok: tok.lemma_
    return lambda tok: tok.lemma_ if tok.lemma else lemmatizer.lemmatize(tok)[0]


class _GraphBuilder:
    """One sentence's graph from its spaCy Doc: mentions first (each token in one mention
    at most), then the actions whose dependency roles point at them."""

    def __init__(self, doc, base: int, lemma: Callable = lambda tok: tok.lemma_):
        self.doc = doc
        self.base = base  # the sentence's offset in its document
        self.lemma = lemma
        self.g = SentenceGraph()
        self.token_mention: dict[int, int] = {}  # token index -> mention index
        self.time_tokens: dict[int, str] = {}  # token index -> the date/time entity's text

    def build(self, noun_heads: bool) -> SentenceGraph:
        self.add_pronouns()
        self.add_mended_names()
        self.add_entities()
        self.add_proper_noun_runs()
        if noun_heads:
            self.add_noun_heads()
        self.add_actions()
        g = self.g
        g.next_edges = [(i, i + 1) for i in range(len(g.actions) - 1)]
        g.subject = _named_subject(self.doc, self.base, self.lemma)
        return g

    def add(self, start_tok: int, end_tok: int, kind: str, proper: bool = True) -> None:
        """A mention over doc[start_tok:end_tok], unless it is too small or overlaps one."""
        span = self.doc[start_tok:end_tok]
        # Trim leading determiners/possessives ("the", "his") from the surface form.
        while len(span) > 1 and span[0].pos_ in ("DET", "PRON", "PUNCT"):
            span = span[1:]
        key = entity_key(span.text, proper=proper)
        if not key or (len(key) < 2 and kind not in TIME_LABELS) or (key.isdigit() and kind not in TIME_LABELS):
            return
        if any(i in self.token_mention for i in range(span.start, span.end)):
            return
        idx = len(self.g.mentions)
        self.g.mentions.append(Mention(self.base + span.start_char, self.base + span.end_char, span.text, key,
                                       kind, span.text))
        for i in range(span.start, span.end):
            self.token_mention[i] = idx

    def add_pronouns(self) -> None:
        # Pronouns become placeholder mentions (no class key yet) so that roles can attach
        # to them; coreference resolution later gives them their antecedent's key or drops them.
        base = self.base
        for tok in self.doc:
            if tok.pos_ == "PRON" and tok.lower_ in PRONOUNS:
                self.token_mention[tok.i] = len(self.g.mentions)
                self.g.mentions.append(Mention(base + tok.idx, base + tok.idx + len(tok.text), tok.text, "", "PRON"))

    def add_entities(self) -> None:
        for ent in self.doc.ents:
            if ent.label_ in ENTITY_LABELS:
                self.add(ent.start, ent.end, ent.label_)
            elif ent.label_ in TIME_LABELS and _DATE_LIKE.search(ent.text):
                # Dates are graph nodes (the time role of an action) but never bridges:
                # retrievers skip their classes when linking and hopping.
                self.add(ent.start, ent.end, ent.label_)
                for i in range(ent.start, ent.end):
                    self.time_tokens[i] = ent.text

    def add_mended_names(self) -> None:
        """Names the tagger cut or misread, before its own entities: a title written in
        double quotes is one name ("Love Forecast", which it tags as "Love" alone), and a
        capitalised name it read as an amount is one ("Two Dollar Radio", MONEY)."""
        for start, end in _quoted_titles(self.doc):
            self.add(start, end, "WORK_OF_ART")
        for ent in self.doc.ents:
            if ent.label_ in _AMOUNT_LABELS and _is_name_read_as_amount(ent):
                self.add(ent.start, ent.end, "PROPN")
            elif ent.label_ in ENTITY_LABELS and ent[-1].lower_ in _TITLE_SMALL_WORDS:
                self.add(ent.start, _mended_end(self.doc, ent), ent.label_)

    def add_proper_noun_runs(self) -> None:
        """Runs of proper nouns the NER missed (titles of films, bands, ships...)."""
        doc, token_mention = self.doc, self.token_mention
        ner_tokens = {i for ent in doc.ents for i in range(ent.start, ent.end)}
        i = 0
        while i < len(doc):
            if doc[i].pos_ == "PROPN" and i not in token_mention and i not in ner_tokens:
                j = i
                while (j + 1 < len(doc) and doc[j + 1].pos_ == "PROPN" and (j + 1) not in token_mention
                       and (j + 1) not in ner_tokens):
                    j += 1
                self.add(i, j + 1, "PROPN")
                i = j + 1
            else:
                i += 1

    def add_noun_heads(self) -> None:
        base = self.base
        for chunk in self.doc.noun_chunks:
            head = chunk.root
            if head.pos_ == "NOUN" and head.i not in self.token_mention and not head.is_stop and head.is_alpha:
                lemma = self.lemma(head)
                key = entity_key(lemma or head.text, proper=False)
                if key and len(key) > 2:
                    idx = len(self.g.mentions)
                    self.g.mentions.append(Mention(base + head.idx, base + head.idx + len(head.text), head.text,
                                                   key, "NOUN", lemma))
                    self.token_mention[head.i] = idx

    def add_actions(self) -> None:
        """Predicate-argument structure from the dependency parse."""
        base = self.base
        verbs = [t for t in self.doc if t.pos_ in ("VERB", "AUX") and t.dep_ != "aux" and t.dep_ != "auxpass"]
        for v in verbs:
            action = Action(base + v.idx, base + v.idx + len(v.text), v.text, self.lemma(v).lower())
            passive = any(c.dep_ == "auxpass" for c in v.children)
            for child in v.children:
                role, arg = self.role(child, passive)
                if role is None:
                    continue
                m = self.mention_of(arg)
                if m is not None:
                    action.roles.append((role, m))
            if action.roles:
                self.g.actions.append(action)

    def role(self, child, passive: bool):
        """The role a verb's dependent fills and the token that fills it (the object of a
        preposition, the agent of a passive's "by"); (None, child) for no role."""
        role = None
        if child.dep_ in _SUBJECT_DEPS:
            role = "agent"
        elif child.dep_ in _PASSIVE_SUBJECT_DEPS or child.dep_ in _OBJECT_DEPS:
            role = "patient"
        elif child.dep_ in _RECIPIENT_DEPS:
            role = "recipient"
        elif child.dep_ == "agent":  # "by X" of a passive
            role = "agent"
            child = next((c for c in child.children if c.dep_ == "pobj"), child)
        elif child.dep_ == "prep":
            pobj = next((c for c in child.children if c.dep_ == "pobj"), None)
            if pobj is not None:
                if pobj.i in self.time_tokens or pobj.ent_type_ in TIME_LABELS:
                    role = "time"
                elif pobj.ent_type_ in PLACE_LABELS:
                    role = "place"
                elif child.lower_ == "by" and passive:
                    role = "agent"
                else:
                    role = f"prep_{child.lower_}"
                child = pobj
        elif child.dep_ == "npadvmod" and child.i in self.time_tokens:
            role = "time"
        return role, child

    def mention_of(self, tok) -> int | None:
        m = self.token_mention.get(tok.i)
        if m is None:
            # The argument's head may sit inside a longer mention (compound names).
            m = next((self.token_mention[t.i] for t in tok.subtree if t.i in self.token_mention), None)
        return m


def _is_title_cased(tokens) -> bool:
    words = [t for t in tokens if t.is_alpha]
    return bool(words) and words[0].text[0].isupper() and all(
        w.text[0].isupper() or w.lower_ in _TITLE_SMALL_WORDS for w in words[1:])


def _quoted_titles(doc, max_tokens: int = 12) -> list[tuple[int, int]]:
    """Token spans of titles in double quotes that the tagger cut or missed: at least two
    tokens, every word capitalised but a title's small words, and no entity running
    across a quote (Rodney "Rod" Amateau's nickname is part of his name)."""
    marks = [t.i for t in doc if t.text in _QUOTE_MARKS]
    spans = []
    for open_at, close_at in zip(marks[::2], marks[1::2]):
        start, end = open_at + 1, close_at
        while end > start and doc[end - 1].is_punct:
            end -= 1  # "Love Forecast," with the comma inside the quotes
        if not 2 <= end - start <= max_tokens or not _is_title_cased(doc[start:end]):
            continue
        inside = [e for e in doc.ents if e.start < end and e.end > start]
        if any(e.start < start or e.end > end for e in inside):
            continue
        if any(e.start == start and e.end == end for e in inside):
            continue  # already one name
        spans.append((start, end))
    return spans


def _mended_end(doc, ent) -> int:
    """Where a name the tagger ended on a small word ends: "Ludwig III of" + "Bavaria"
    and "the Battle of" + "Cecora" are one name; "Burkina Faso to" is "Burkina Faso"."""
    end = ent.end
    while end > ent.start + 1 and doc[end - 1].lower_ in _TITLE_SMALL_WORDS:
        end -= 1
    if doc[ent.end - 1].lower_ not in ("of", "the") or not any(t.lower_ == "of" for t in doc[end:ent.end]):
        return end
    j = ent.end
    following = next((e for e in doc.ents if e.start == j), None)
    if following is not None and following.label_ in ENTITY_LABELS:
        return following.end
    while j < len(doc) and doc[j].pos_ == "PROPN" and not any(e.start <= j < e.end for e in doc.ents):
        j += 1
    return j if j > ent.end else end


def _is_name_read_as_amount(ent) -> bool:
    """"Two Dollar Radio" (a publisher) tagged MONEY: no digit or currency sign, every
    word capitalised, and a proper noun among them; not "Two Hundred" or "$5"."""
    return (len(ent) >= 2 and not _AMOUNT_SIGNS.search(ent.text) and _is_title_cased(ent)
            and all(t.is_alpha or t.is_punct for t in ent) and any(t.pos_ == "PROPN" for t in ent))


_ROOT_SUBJECTS = ("nsubj", "nsubjpass", "csubj", "csubjpass")
_SUBJECT_ENDS = {"(", ",", ";", "–", "—", "["}
_SUBJECT_ASIDES = ("appos", "acl", "relcl")


def _named_subject(doc, base: int, lemma: Callable, max_tokens: int = 12) -> tuple[int, int] | None:
    """The span of the root's subject, cut before an aside ("Luis Mandoki (born 1954)",
    "Ann Lee, the chair,"), when it names something: a named entity, a proper noun, or
    capitalised words past the first ("When a Man Loves a Woman"), or in "X is a Y" a
    capitalised X ("Airheads"); not "The committee met"."""
    # The root's subject; where the parse hangs the clause elsewhere ("Gaby: A True Story
    # is..." parsed with "Gaby" as root), the first verb that has one.
    heads = [t for t in doc if t.dep_ == "ROOT"] + [t for t in doc if t.pos_ in ("AUX", "VERB")]
    root, subj = None, None
    for head in heads:
        subj = next((c for c in head.children if c.dep_ in _ROOT_SUBJECTS), None)
        if subj is not None:
            root = head
            break
    if subj is None:
        return None
    aside = {t.i for c in subj.subtree if c.dep_ in _SUBJECT_ASIDES and c.i > subj.left_edge.i for t in c.subtree}
    start = subj.left_edge.i
    if all(t.text == ":" or t.is_title for t in doc[:start]):
        start = 0  # a parse that splits "Gaby: A True Story" at its colon
    tokens = []
    for t in doc[start: subj.right_edge.i + 1]:
        if t.text in _SUBJECT_ENDS or t.i in aside or (t.lower_ == "or" and t.dep_ == "cc"):
            break  # "Oscar Blumenthal or Oskar Blumenthal": the first name is the one
        tokens.append(t)
    while tokens and tokens[-1].is_punct:
        tokens.pop()
    if not tokens or len(tokens) > max_tokens:
        return None
    # A capitalised first word counts in a definition only ("Airheads is a 1994 film").
    first = 0 if lemma(root) == "be" else 1
    named = any(t.pos_ == "PROPN" or t.ent_type_ in ENTITY_LABELS for t in tokens) or any(
        t.is_title and not t.is_stop for t in tokens[first:])
    if not named:
        return None
    return base + tokens[0].idx, base + tokens[-1].idx + len(tokens[-1].text)
