"""What one `assistant eval` run is asked to do (dataset, retrievers, k, answers, caching):
its own room because the runner, the index builder and the scorers all read it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class EvalSettings:
    fmt: str
    questions: Path
    corpus: Path | None = None
    retrievers: list[str] = field(default_factory=lambda: ["dense", "bm25", "hybrid", "auto"])
    ks: list[int] = field(default_factory=lambda: [2, 5, 10])
    answer: bool = False
    answer_limit: int | None = None
    # Questions skipped before the answered ones: the ones after a tuned-on slice are held out.
    answer_skip: int = 0
    answer_retrievers: list[str] | None = None  # default: all of `retrievers`
    limit: int | None = None
    out: Path = Path("eval-out")
    cache_dir: Path | None = None
    rebuild: bool = False
    name: str | None = None  # label in reports, default: the questions file's stem
    extractor: str | None = None  # the entity extractor to index with (default: the config's)
    # What the answer model reads of each retriever's top passages: "chunks" (whole) and/or
    # "sentences" (the grounded sentences the chat answer uses).
    answer_contexts: list[str] = field(default_factory=lambda: ["chunks", "sentences"])
    llm: str | None = None  # the answer model (default: the config's)
    # Index every passage without its title (no title paragraph, no title metadata), as a
    # person's files rarely carry one; gold passages are unchanged.
    no_titles: bool = False
    # Folder mode: every passage written as a neutral file (doc000.txt...) and indexed
    # through the same path as a person's folder; each question is also scored by how
    # much of its reference answer the top chunks of its own document contain.
    as_files: bool = False
    # The closed-book and oracle prompts beside the retrievers' answers. In folder mode a
    # gold passage is a whole document, so the oracle reads a paper cut to the context
    # budget: the slowest prompt of all, and no ceiling of what retrieval could give.
    answer_baselines: bool = True
