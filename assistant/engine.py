"""Wires a configuration into the running pipeline: the one door the CLI and the terminal
UI use (index, ask, search, status, forget; the conversation history and its export, the
scope of a question, the retrievers, folders kept in step). What else crosses the door
(the records they hold, the errors they catch and the words for them) is named in
__all__, so that they import it from here and not from the rooms behind."""

from __future__ import annotations

import datetime as dt
import os
import threading
import time
from functools import cached_property
from pathlib import Path
from typing import Any, Callable, Iterable

from . import models, sync
from .components import PARSE_COMPONENTS, check_names, entity_rules
from .answer.answerer import EMPTY_INDEX, Answerer
from .answer.grounding.citations import SHOWN_CITATIONS
from .answer.computed import computed_answer, reported
from .answer.budget import QuestionBudget, over_time
from .answer.records.conversation import Conversations, stopped_answer
from .answer.asking import Accepted, Asked, Asking, AskEvent, Drafted, SourcesChosen, search_summary
from .answer.records.export import exported
from .answer.prompt import NO_ANSWER, Source
from .answer.records.record import Answer
from .answer.grounding.sections import cited_at, last_heading
from .answer.records.shown import ShownAnswer, ShownCitation, ShownSource
from .answer.routes.followup import Turn, resolve_followup
from .nlp.llm import LlamaGenerator
from .config import Config
from .indexing import FileBudget, Indexer, IndexReport, Progress, holds_only
from .nlp.encoders.embedder import Embedder
from .nlp.sentences import SentenceSplitter
from .answer.passages import Passage, passages
from .retrieve import Resources, Retriever, available, is_known, make, variants
from .retrieve.base import Hit, ReadsClassVectors
from .retrieve.scope import Scope, ScopeError, scoped_search
from .retrieve.stopping import SearchStopped
from .safetext import valid_text
from .store import Index, IndexMismatch, Store, left_out
from .store.damage import INDEX_ERRORS, index_trouble, not_a_folder
from .store.disk import WRITE_ERRORS, disk_refusal, disk_state, disk_trouble
from .store.history import Conversation, History, Message
from .store.index import DB_NAME
from .store.index_status import FailedFile, IndexStatus
from .store.chunk_rows import ChunkRows
from .store.row_types import DocumentRow
from .store.left_out import in_words as left_out_in_words
from .store.lockfile import to_stderr
from .sync import IndexRun
from .watch import FolderWatcher

__all__ = [
    "Engine", "PARSE_COMPONENTS", "check_names", "entity_rules",
    # The records the CLI and the terminal UI hold.
    "Answer", "Conversation", "FailedFile", "FolderWatcher", "History", "IndexRun", "IndexStatus", "Message",
    "Passage", "Scope", "ShownAnswer", "ShownCitation", "ShownSource",
    # What asking in a conversation tells and comes to (answer/asking.py).
    "Accepted", "AskEvent", "Asked", "Drafted", "SourcesChosen",
    # The errors they catch, and the words for them.
    "INDEX_ERRORS", "IndexMismatch", "ScopeError", "SearchStopped", "WRITE_ERRORS", "disk_refusal",
    "disk_state", "disk_trouble", "index_trouble", "left_out_in_words",
    # The answer's fixed texts.
    "EMPTY_INDEX", "NO_ANSWER", "SHOWN_CITATIONS", "stopped_answer", "over_time", "search_summary",
    # Where a shown source sits in its document.
    "cited_at", "last_heading",
]


class Engine:
    def __init__(self, config: Config | None = None, index_dir: str | Path | None = None, *,
                 embedder: Embedder | None = None, splitter: SentenceSplitter | None = None,
                 generator: LlamaGenerator | None = None, extractor: Any = None):
        """Models given here are used as they are (tests share one loaded model between
        engines); the others are loaded from the config on first use."""
        self.config = config or Config()
        self.index_dir = self.config.resolved_index_dir(index_dir)
        given = {"embedder": embedder, "splitter": splitter, "generator": generator, "extractor": extractor}
        # Each is a cached_property: a value in the instance's dict is what it returns.
        self.__dict__.update({name: model for name, model in given.items() if model is not None})
        self._retrievers: dict[str, Retriever] = {}
        self._lock = threading.Lock()
        # One writer and many readers share the index in this process (the terminal UI
        # indexes while it answers): the writer holds this lock only while it changes the
        # database and vectors, readers only while they retrieve.
        self.index_lock = threading.RLock()
        # Runs of the indexer (a folder added in the UI, a watcher's rescan) take turns.
        self._writer = threading.Lock()
        # Where a one-off piece of work says what it is doing (stderr by default).
        self.on_note: Callable[[str], None] | None = None

    # -- components (loaded on first use) -----------------------------------------
    @cached_property
    def embedder(self) -> Embedder:
        return Embedder(models.resolve(self.config.embedder, "embedder"),
                        backend=self.config.embed_backend, threads=self.config.embed_threads)

    @cached_property
    def spacy_dir(self) -> Path:
        return models.resolve(self.config.spacy_model, "spacy")

    @cached_property
    def splitter(self) -> SentenceSplitter:
        return SentenceSplitter(self.spacy_dir)

    @cached_property
    def index(self) -> Index:
        return Index(self.index_dir, embedder_name=self.config.embedder, dim=self.embedder.dim,
                     writer_timeout=self.config.writer_wait)

    @cached_property
    def generator(self) -> LlamaGenerator:
        name, why = models.answer_model(self.config.llm)
        if why:
            (self.on_note or to_stderr)(f"answering with {name}: {why}")
        return LlamaGenerator(
            models.resolve(name, "llm"), n_ctx=self.config.llm_context_tokens,
            threads=self.config.llm_threads,
        )

    @cached_property
    def resources(self) -> Resources:
        return Resources(self.index, self.embedder, extractor=self.extractor, llm=lambda: self.generator)

    @cached_property
    def extractor(self) -> Any:
        if self.config.extractor in ("", "none"):
            return None
        from .nlp.extract import BuildContext, build_extractor
        from .nlp.sentences import load_spacy

        context = BuildContext(
            nlp=lambda: load_spacy(str(self.spacy_dir), PARSE_COMPONENTS),
            generator=lambda: self.generator, config=self.config, index_dir=self.index_dir,
            extraction_cache=self._extraction_cache,
        )
        return build_extractor(self.config.extractor, context)

    def _extraction_cache(self) -> Any:
        from .store.extraction_cache import ExtractionCache

        return ExtractionCache(self.index_dir / "llm_extract_cache.sqlite")

    @cached_property
    def coref(self) -> Any:
        from .nlp.coref.rules import make_coref

        return make_coref(self.config.coref, spacy_dir=self.spacy_dir, model=self.config.coref_model)

    @cached_property
    def indexer(self) -> Indexer:
        return Indexer(
            self.index, self.embedder, self.splitter, chunk_tokens=self.config.chunk_tokens,
            extractor=self.extractor, coref=self.coref if self.extractor is not None else None,
            write_lock=self.index_lock, sentence_vectors=self.config.sentence_vectors,
            aboutness=self.config.aboutness, ignore=self.config.ignore,
            budget=FileBudget(self.config.file_timeout_s, self.config.file_memory_mb, self.config.max_file_mb,
                              ocr=self.config.ocr),
            follow_links_outside=self.config.follow_links_outside,
        )

    @cached_property
    def answerer(self) -> Answerer:
        return Answerer(
            self.index.store, self.embedder, self.generator, n_ctx=self.config.llm_context_tokens,
            answer_tokens=self.config.answer_tokens, min_relevance=self.config.min_relevance,
            strict=self.config.strict_grounding, read_lock=self.index_lock, context=self.config.context,
            context_tokens=self.config.context_tokens, tag=self.tag, chain=self.config.chain_questions,
            sentences=self.config.answer_sentences,
        )

    @cached_property
    def tagger(self) -> Any:
        """spaCy's tagger and NER, for checking answers and reading follow-ups."""
        from .nlp.sentences import load_spacy

        return load_spacy(str(self.spacy_dir), ("tok2vec", "tagger", "attribute_ruler", "lemmatizer", "ner"))

    def tag(self, text: str) -> list[tuple[str, str, str]]:
        return [(t.text, t.lemma_.lower(), t.pos_) for t in self.tagger(text)]

    def persons(self, text: str) -> list[str]:
        return [e.text for e in self.tagger(text).ents if e.label_ == "PERSON"]

    def warm_up(self) -> None:
        """Load the answer model and evaluate its fixed prompt, so the first question
        starts from the KV cache (the terminal UI does this while the person types)."""
        from .answer.routes.short import SPAN_SYSTEM

        self.generator.prime(SPAN_SYSTEM)
        self.tagger  # noqa: B018 - loads it

    def use_llm(self, name: str) -> None:
        """Answer with another model from now on (loaded on the next question)."""
        models.resolve(name, "llm")  # fails now, clearly, when it is not on disk
        self.config.llm = name
        for cached in ("generator", "answerer"):
            self.__dict__.pop(cached, None)

    def retriever(self, name: str | None = None) -> Retriever:
        name = name or self.config.retriever
        with self._lock:
            if name not in self._retrievers:
                made = make(name, self.resources)
                if isinstance(made, ReadsClassVectors):
                    self._with_class_vectors(made.name)
                self._retrievers[name] = made
            return self._retrievers[name]

    def _with_class_vectors(self, retriever: str) -> None:
        """Compute the entity classes' vectors before the first retriever that reads them
        runs on this index; an index that keeps them already has them all."""
        store = self.index.store
        with self.index_lock:
            if store.meta.keeps_class_vectors():
                return  # every indexing run keeps them current
            missing = store.entities.dirty_entities()
        if not missing:
            # Nothing to compute yet (an empty index): the runs to come compute them, as
            # this retriever, made once, will read them.
            if not store.read_only:
                store.meta.keep_class_vectors()
            return
        note = self.on_note or to_stderr
        note(f"{retriever} reads the entity classes' vectors: computing them for this index, once "
             f"({len(missing):,} classes)…")
        with self._writer:
            report = self.indexer.compute_class_vectors()
        note(f"entity class vectors computed in {report.wall_seconds:.1f} s")

    def plan_class_vectors(self) -> None:
        """Where the configured retriever reads the classes' vectors, indexing computes
        them as it goes, so the first question does not wait for them; so it does for an
        extractor that describes classes (llm: the descriptions are what it is for, and
        shortening them calls the model)."""
        from .nlp.extract import DescribesClasses

        if (isinstance(make(self.config.retriever, self.resources), ReadsClassVectors)
                or isinstance(self.extractor, DescribesClasses)):
            self.index.store.meta.keep_class_vectors()

    # -- actions -------------------------------------------------------------------
    def check_extractor(self) -> None:
        """An index keeps the extractor it was built with: mixing two would give entity
        classes of two different kinds in one graph."""
        from .store import IndexMismatch

        store = self.index.store
        built = store.meta.get("extractor")
        wanted = self.config.extractor or "none"
        if built is None or store.meta.counts()["documents"] == 0:
            store.meta.set("extractor", wanted)
            store.meta.set("entity_rules", entity_rules(wanted, self.config.aboutness))
        elif built != wanted:
            raise IndexMismatch(
                f"the index in {self.index_dir} was built with the '{built}' extractor, not '{wanted}'; "
                "choose that extractor or index into a new directory"
            )

    def entity_rules(self, store: Store | None = None) -> str:
        """This version's rules for the index's extractor (the one it keeps)."""
        store = store or self.index.store
        return entity_rules(store.meta.get("extractor") or self.config.extractor, self.config.aboutness)

    def stale_entity_rules(self, store: Store | None = None) -> tuple[str, str] | None:
        """(the rules the index's entities were extracted by, this version's) where they
        differ: "unrecorded" for an index from before they were recorded. None when they
        agree, and for an index without entities."""
        store = store or self.index.store
        now = self.entity_rules(store)
        if now == "none" or store.meta.counts()["documents"] == 0:
            return None
        built = store.meta.get("entity_rules")
        return None if built == now else (built or "unrecorded", now)

    def index_paths(self, paths: list[Path], on_progress: Callable[[Progress], None] | None = None,
                    again: bool = False) -> IndexReport:
        """Index `paths`; with `again`, every file anew, so that its entities are extracted
        by today's rules (the index records them once it holds no document indexed before)."""
        with self._writer:
            self.check_extractor()
            self.plan_class_vectors()
            report = self.indexer.index_paths(paths, on_progress=on_progress, again=again)
            left_out.record(self.index.store, paths, report.skipped)
            if again and self.holds_only(paths):
                self.index.store.meta.set("entity_rules", self.entity_rules())
            return report

    def holds_only(self, roots: list[Path]) -> bool:
        """Whether every document of the index lies under one of `roots` (so that reading
        them anew reads the whole index)."""
        return holds_only(self.index.store, roots)

    @property
    def ignored(self) -> list[str]:
        """The patterns of files and folders never indexed nor watched (the config's)."""
        return self.config.ignore

    def forget(self, path: Path) -> int:
        with self._writer:
            return self.indexer.forget(path)

    def ask(
        self, question: str, retriever: str | None = None, k: int | None = None,
        on_token: Callable[[str], None] | None = None, stop: threading.Event | None = None,
        on_draft: Callable[[str], None] | None = None, turns: list[Turn] | None = None,
        scope: Scope | None = None, on_sources: Callable[[Answer], None] | None = None,
        today: dt.date | None = None,
    ) -> Answer:
        """Answer `question`; `turns` are the conversation's earlier turns, against which a
        follow-up ("and when was it founded?") is read before anything is retrieved;
        `on_sources` gets the answer once its sources are chosen, before the model writes. A
        sum, count... over a table is computed (answer/computed/), its dates from `today`."""
        question = valid_text(question)  # a byte that is not UTF-8 (a lone surrogate): U+FFFD
        if self.index.store.meta.counts()["chunks"] == 0:
            # Said before any model is loaded (or its parts joined: minutes, the first time).
            if on_token:
                on_token(EMPTY_INDEX)
            return Answer(question, EMPTY_INDEX, retriever or self.config.retriever, abstained=True)
        understood = resolve_followup(question, turns or [], self.persons, self.tag) if turns else None
        stop = stop if stop is not None else threading.Event()  # a sum, a count over a table: no model, a time limit
        with self.index_lock, QuestionBudget(self.config.question_timeout_s, stop) as budget:
            computed = computed_answer(self.index.store, understood or question, (scope or Scope()).admits, today, stop)
        if computed is not None:
            return reported(computed, on_sources, on_token, budget.seconds if budget.expired else None)
        self.generator.llm  # noqa: B018 - loaded (its parts joined, the first time) before the time counts
        with QuestionBudget(self.config.question_timeout_s, stop) as budget:
            answer = self.answerer.ask(understood or question, self.retriever(retriever), k or self.config.k,
                                       on_token, stop, on_draft=on_draft, scope=scope, on_sources=on_sources)
        answer.time_limit = budget.seconds if budget.expired else None
        if understood:
            answer.question, answer.understood_as = question.strip(), understood
        # Stopped: nothing was found wanting, the answer was cut short (no "none of them states it").
        if answer.unknown and answer.hits and not stop.is_set():
            with self.index_lock:
                answer.found = passages(self.index.store, answer.question, answer.hits)
        return answer

    def search(self, query: str, retriever: str | None = None, k: int | None = None,
               scope: Scope | None = None, stop: threading.Event | None = None) -> list[Passage]:
        """The best passages for `query`, without the answer model (`assistant search`).
        Setting `stop`, or the question's time limit, ends it with SearchStopped."""
        query = valid_text(query)  # a byte that is not UTF-8 (a lone surrogate): U+FFFD
        chosen = self.retriever(retriever)
        with QuestionBudget(self.config.question_timeout_s, stop or threading.Event()) as budget, \
                budget.searching(), self.index_lock:
            hits = scoped_search(chosen, self.index.store, query.strip(), k or self.config.k, scope)
            return passages(self.index.store, query, hits)

    # -- the door's other rooms: conversations, export, scope, retrievers, folders ---------
    def history(self) -> History:
        """The conversations kept in this index, to list, create, rename, delete and add
        messages to (opens the index: loads the embedder)."""
        return History(self.index.store)

    def conversations(self) -> Conversations:
        """The conversations as asking reads them: the one to ask in, its earlier turns."""
        return Conversations(self.index.store)

    def asking(self) -> Asking:
        """Asking in a conversation, one way for every shell: the earlier turns read, the
        progress told as typed events, one record kept (answer/asking.py)."""
        return Asking(self.ask, self.index.store, self.search)

    def export_conversation(self, conversation_id: int | None = None, fmt: str = "md") -> str:
        """A conversation (the most recent one where None) as the text of a file, "md" or
        "json" (answer/records/export.py). An index not opened yet is read from its database
        alone: no model loads. LookupError: no index, or no such conversation."""
        opened = self.index.store if self._loaded("index") else None
        return exported(opened, self.index_dir / DB_NAME, conversation_id, fmt)

    @staticmethod
    def scope(paths: Iterable[str | Path] = (), types: Iterable[str] = ()) -> Scope | None:
        """Where to look, from what a person writes (--in and --type; in: and type: in the
        question box): None for everywhere. ScopeError for a file type that names nothing."""
        scope = Scope.of(paths, types)
        return None if scope.everywhere else scope

    @staticmethod
    def retrievers() -> dict[str, str]:
        """Each retriever's name and what it does."""
        return available()

    @staticmethod
    def retriever_variants() -> dict[str, tuple[str, ...]]:
        """The variants of the retrievers that have some ("hop" -> ("linked", ...))."""
        return variants()

    @staticmethod
    def knows_retriever(name: str) -> bool:
        """Whether `name` (or "name:variant") is a retriever."""
        return is_known(name)

    @staticmethod
    def extractors() -> list[str]:
        """The entity extractors' names (an index is built with one of them, or "none")."""
        from .nlp.extract import EXTRACTORS

        return EXTRACTORS.names()

    def run_index(self, roots: list[Path], forget: Iterable[Path] = (),
                  on_progress: Callable[[Progress], None] | None = None, again: bool = False) -> IndexRun:
        """Forget these paths, then index those roots: the run, with its report or its
        error (returned, not raised: sync.py)."""
        return sync.run_index(self, roots, forget, on_progress, again)

    def watch_folders(self, folders: Iterable[str | Path], on_run: Callable[[IndexRun], None],
                      **options: Any) -> FolderWatcher:
        """A watcher (not started) over `folders` whose changes this engine indexes, one run
        at a time; `options`: on_start, on_progress, on_notice and the watcher's (sync.py)."""
        return sync.watch_folders(self, [Path(f) for f in folders], on_run, **options)

    def extractor_costs(self) -> dict:
        """What the extractor has spent in this process, per stage (extraction per chunk;
        class descriptions), for an extractor that counts (llm: LLM tokens, calls, cache
        hits, grounding, invalid JSON, loops; amr: parse counts); empty otherwise."""
        from .nlp.extract import CountsCosts

        extractor = self.extractor if self._loaded("extractor") else None  # only when something built it
        return extractor.costs() if isinstance(extractor, CountsCosts) else {}

    def index_texts(self, items: Iterable[tuple[str, str, str | None]],
                    on_progress: Callable[[Progress], None] | None = None, total: int | None = None) -> IndexReport:
        """Index in-memory documents (key, text, title): an evaluation corpus."""
        with self._writer:
            return self.indexer.index_texts(items, on_progress=on_progress, total=total)

    def passages(self) -> ChunkRows:
        """The index's chunks and sentences, read by id (an evaluation's scoring)."""
        return self.index.store.passages

    def sources_for(self, question: str, hits: list[Hit]) -> list[Source]:
        """The numbered sources the model would read for these hits (grounded sentences)."""
        ids = [h.chunk_id for h in hits]
        with self.index_lock:
            chunks, sentences = self.passages().chunks(ids), self.passages().sentences_of(ids)
        return self.answerer.sources_for(self.answerer.plan(question), hits, chunks, sentences, "sentences")

    def llm_tokens(self) -> int:
        """Tokens the answer model has read and written in this process (0 if never loaded)."""
        return self.generator.prompt_tokens + self.generator.completion_tokens if self._loaded("generator") else 0

    def counts(self) -> dict[str, int]:
        """What the index holds: documents, chunks, sentences, entities, mentions, actions."""
        return self.index.store.meta.counts()

    def documents(self) -> list[DocumentRow]:
        """Every document of the index: its path, its status ("ok", "error", …), its title."""
        return self.index.store.docs.documents()

    def open_index(self) -> None:
        """Open the index now (the embedder loaded, the directory checked), not on first use.
        ModelNotFound or IndexMismatch where it cannot open."""
        self.index  # noqa: B018 - opened

    def vector_count(self) -> int:
        """How many chunk vectors the index holds (one per chunk when it is whole)."""
        return len(self.index.vectors())

    def _loaded(self, name: str) -> bool:
        """Whether the component `name` (a cached property: "index", "generator") was built."""
        return name in self.__dict__

    def status(self) -> IndexStatus:
        # Reads the database only: no model needs loading to say what the index holds.
        db = self.index_dir / DB_NAME
        nothing = not os.path.lexists(db) or (db.is_file() and not db.stat().st_size)
        if not self._loaded("index") and nothing and not_a_folder(self.index_dir) is None:
            # No index yet (or one that was never written to): said without creating one,
            # which a full or read-only disk would refuse.
            return self._empty_status()
        store = self.index.store if self._loaded("index") else Store(db)
        last = store.meta.last_update()
        return IndexStatus(
            index=str(self.index_dir),
            embedder=store.meta.get("embedder"),
            entity_rules=store.meta.get("entity_rules"),
            entity_rules_now=self.entity_rules(store),
            stale_entity_rules=self.stale_entity_rules(store) is not None,
            **store.meta.counts(),
            size_bytes=sum(p.stat().st_size for p in self.index_dir.iterdir() if p.is_file()),
            last_update=time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(last)) if last else None,
            failures=[FailedFile(d.path, d.error) for d in store.docs.documents() if d.status == "error"],
            # What the last run over each folder did not read, by reason (store/left_out.py).
            left_out=left_out.totals(store),
            left_out_by_folder=left_out.by_folder(store),
        )

    def _empty_status(self) -> IndexStatus:
        """status() of an index not created yet: every count 0."""
        return IndexStatus(index=str(self.index_dir), embedder=None, entity_rules=None, stale_entity_rules=False,
                           entity_rules_now=entity_rules(self.config.extractor, self.config.aboutness))

    def close(self) -> None:
        if self._loaded("indexer"):
            self.indexer.close()
        if self._loaded("index"):
            self.index.close()
