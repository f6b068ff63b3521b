"""Self-check of the generated folders: build each seed's folder, read every file through
the project's loaders (assistant.ingest, OCR included) and check that

- every key fact of an answerable question is in the text the loaders read from its file
  (a computed sum or count is not written anywhere: the rows it adds up are, its
  `evidence`); a yes/no question's "yes" or "no" is not looked for;
- what a question no file answers asks about (its `absent`) is named by no file;
- ids, shapes, failure classes and follow-ups are well formed;
- and the same for every question the files offer, the ones this seed did not ask too.

A key fact the loaders cannot see is a bug of the generator, not of the assistant.

    .venv/bin/python bench/generated/check.py            # all dev and validation seeds
    .venv/bin/python bench/generated/check.py 1 2 101    # these seeds

Exits 0 when everything holds, 1 with a list of what does not.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.generated.core import FAILURE_CLASSES, SHAPES  # noqa: E402
from bench.generated.generate import DEV_SEEDS, VALIDATION_SEEDS, compose, generate  # noqa: E402

CACHE = ROOT / ".cache" / "generated"
VERDICTS = {"yes", "no"}


def loaded_texts(folder: Path) -> dict[str, str]:
    """Each file's text as the loaders read it (an e-mail with its attachments), lower case,
    every run of white space one space (a PDF's line may break inside a date)."""
    import assistant.ingest  # noqa: F401  (registers the loaders)
    from assistant.ingest.loaders import load

    texts = {}
    for path in sorted(folder.iterdir()):
        doc = load(path)
        texts[path.name] = " ".join(" ".join([doc.text] + [a.document.text for a in doc.attachments]).lower().split())
    return texts


def looked_for(q: dict) -> list[str]:
    """What must be in the file's loaded text for the question to be answerable from it."""
    facts = [] if q.get("derived") else [f for f in q["key_facts"] if f not in VERDICTS]
    return facts + q.get("evidence", [])


def question_problems(questions: list[dict], texts: dict[str, str]) -> list[str]:
    problems = []
    for i, q in enumerate(questions):
        where = q["id"]
        if q["shape"] not in SHAPES or q["failure_class"] not in FAILURE_CLASSES:
            problems.append(f"{where}: shape {q['shape']!r} or class {q['failure_class']!r} unknown")
        if q["shape"] == "followup" and (i == 0 or q.get("follow_up_of") != questions[i - 1]["id"]):
            problems.append(f"{where}: follow_up_of is not the question before it")
        if q["file"] is None:
            named = [name for name, text in texts.items() if q["absent"].lower() in text]
            if q["key_facts"] or named:
                problems.append(f"{where}: unanswerable, but {q['absent']!r} is in {named} or it has key facts")
            continue
        if q["file"] not in texts:
            problems.append(f"{where}: {q['file']} is not in the folder")
            continue
        if not q["key_facts"]:
            problems.append(f"{where}: answerable without key facts")
        for fact in looked_for(q):
            if fact.lower() not in texts[q["file"]]:
                problems.append(f"{where}: {fact!r} not in the loaded text of {q['file']}")
    return problems


def candidate_problems(seed: int, texts: dict[str, str]) -> list[str]:
    """The key facts of every question the files offer, asked or not: another draw of the
    same kind of file may ask the one this seed left out."""
    problems = []
    for file in compose(seed).files:
        for k, q in enumerate(file.questions):
            if q["shape"] != "followup":  # its place in the list is checked on the asked ones
                problems += question_problems([{"id": f"{file.name} candidate {k}", **q}], texts)
    return problems


def check_seed(seed: int) -> tuple[list[str], list[dict], float]:
    """The problems of seed's folder, its questions, and the seconds generating it took."""
    folder = CACHE / f"gen-{seed}"
    t0 = time.perf_counter()
    questions = generate(seed, folder)
    seconds = time.perf_counter() - t0
    ids = [q["id"] for q in questions]
    problems = [] if ids == [f"g{seed}-{n:02d}" for n in range(1, len(ids) + 1)] else [f"g{seed}: ids out of order"]
    texts = loaded_texts(folder)
    return problems + question_problems(questions, texts) + candidate_problems(seed, texts), questions, seconds


def main(argv: list[str]) -> int:
    seeds = [int(a) for a in argv] or [*DEV_SEEDS, *VALIDATION_SEEDS]
    all_problems: list[str] = []
    total: Counter[str] = Counter()
    for seed in seeds:
        problems, questions, seconds = check_seed(seed)
        all_problems += problems
        answerable = sum(1 for q in questions if q["file"])
        facts = sum(len(looked_for(q)) for q in questions if q["file"])
        total.update(q["failure_class"] for q in questions)
        print(f"seed {seed}: {len(list((CACHE / f'gen-{seed}').iterdir()))} files, {len(questions)} questions "
              f"({answerable} answerable, {facts} facts looked for), generated in {seconds:.1f}s, "
              f"{len(problems)} problems")
    for problem in all_problems:
        print("FAIL", problem)
    print(f"{sum(total.values())} questions: {dict(total.most_common())}")
    return 1 if all_problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
