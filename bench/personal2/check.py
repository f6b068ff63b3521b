"""Self-check of the personal2 folder: build it into a temporary folder, then check that
every file is there and non-empty, that questions.json is well formed, and that every key
fact of every answerable question occurs (case-insensitively) in its file's source in src/
(the rendered text for the pictures, the text without tags for the HTML page).

    .venv/bin/python bench/personal2/check.py            # sources (fast, no OCR)
    .venv/bin/python bench/personal2/check.py --loaders  # also through assistant.ingest (OCR too)

Exits 0 when everything holds, 1 with a list of what does not.
"""

from __future__ import annotations

import html
import json
import re
import sys
import tempfile
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import build as builder  # noqa: E402

SHAPES = {"factoid", "two-part", "how-why", "yesno", "list", "summary", "followup", "unanswerable"}
KINDS = {".pdf": 2, ".docx": 2, ".xlsx": 1, ".csv": 1, ".pptx": 1, ".odt": 1, ".rtf": 1, ".html": 1,
         ".md": 1, ".txt": 1, ".ics": 1, ".eml": 1, ".png": 2}
AT_LEAST = {"factoid": 12, "two-part": 5, "how-why": 4, "yesno": 4, "list": 4, "summary": 4, "followup": 4,
            "unanswerable": 5}
VERDICTS = {"yes", "no"}


def source_text(name: str) -> str:
    text = builder.source_of(name).read_text(encoding="utf-8")
    if name.endswith(".html"):
        text = html.unescape(re.sub(r"<[^>]+>", " ", text))
    if name.endswith(".ics"):
        text = text.replace("\\,", ",").replace("\\;", ";")
    return text


def check_questions(questions: list[dict], names: set[str], problems: list[str]) -> None:
    ids = [q["id"] for q in questions]
    if ids != [f"p{i:02d}" for i in range(1, len(ids) + 1)]:
        problems.append(f"ids are not p01..p{len(ids):02d} in order")
    counts = Counter(q["shape"] for q in questions)
    for shape, least in AT_LEAST.items():
        if counts[shape] < least:
            problems.append(f"only {counts[shape]} {shape} questions (want {least}+)")
    if len(questions) < 44:
        problems.append(f"only {len(questions)} questions (want 44+)")
    for i, q in enumerate(questions):
        where = q["id"]
        for key in ("id", "question", "shape", "answer", "key_facts", "file"):
            if key not in q:
                problems.append(f"{where}: no {key}")
        if q["shape"] not in SHAPES:
            problems.append(f"{where}: unknown shape {q['shape']}")
        if q["shape"] == "unanswerable":
            if q["key_facts"] or q["file"] is not None:
                problems.append(f"{where}: unanswerable with key facts or a file")
            continue
        if not q["key_facts"]:
            problems.append(f"{where}: no key facts")
        if q["shape"] == "followup":
            if i == 0 or q.get("follow_up_of") != questions[i - 1]["id"]:
                problems.append(f"{where}: follow_up_of is not the question right before it")
        elif "follow_up_of" in q:
            problems.append(f"{where}: follow_up_of on a {q['shape']} question")
        if q["shape"] == "yesno" and q["key_facts"][0] not in VERDICTS:
            problems.append(f"{where}: a yes/no question's first key fact should be yes or no")
        files = q.get("files") or [q["file"]]
        if q["file"] != files[0]:
            problems.append(f"{where}: file is not the first of files")
        for name in files:
            if name not in names:
                problems.append(f"{where}: {name} is not in the built folder")
        if any(name not in names for name in files):
            continue
        texts = [source_text(name).lower() for name in files]
        for fact in q["key_facts"]:
            if q["shape"] == "yesno" and fact in VERDICTS:
                continue
            if not any(fact.lower() in t for t in texts):
                problems.append(f"{where}: key fact {fact!r} not in the source of {', '.join(files)}")


def check_attachment_only(questions: list[dict], problems: list[str]) -> None:
    """The e-mail question's key fact is in the attached PDF only, not in the message."""
    for q in questions:
        if q.get("file", "") and q["file"].endswith(".eml") and q["shape"] == "factoid":
            message = builder.source_of(q["file"]).read_text(encoding="utf-8").split("\n=== attachment: ")[0]
            for fact in q["key_facts"]:
                if fact.lower() in message.lower():
                    problems.append(f"{q['id']}: {fact!r} is in the message body, not only in the attachment")


def check_loaders(folder: Path, questions: list[dict], problems: list[str]) -> None:
    """Every key fact in the text the project's loaders read from the built file."""
    sys.path.insert(0, str(HERE.parent.parent))
    import assistant.ingest  # noqa: F401  (registers the loaders)
    from assistant.ingest.loaders import load

    texts: dict[str, str] = {}
    for path in sorted(folder.iterdir()):
        doc = load(path)
        texts[path.name] = "\n".join([doc.text] + [a.document.text for a in doc.attachments]).lower()
    for q in questions:
        if q["shape"] == "unanswerable":
            continue
        files = q.get("files") or [q["file"]]
        for fact in q["key_facts"]:
            if fact in VERDICTS:
                continue
            if not any(fact.lower() in texts.get(name, "") for name in files):
                problems.append(f"{q['id']}: key fact {fact!r} not in the loaded text of {', '.join(files)}")


def main() -> int:
    problems: list[str] = []
    questions = json.loads((HERE / "questions.json").read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as tmp:
        folder = builder.build(Path(tmp) / "personal2")
        built = sorted(p.name for p in folder.iterdir())
        if built != builder.files():
            problems.append(f"built {built}, expected {builder.files()}")
        for name in built:
            if (folder / name).stat().st_size == 0:
                problems.append(f"{name} is empty")
        if len(built) < 22:
            problems.append(f"only {len(built)} files (want 22+)")
        kinds = Counter(Path(n).suffix for n in built)
        for suffix, least in KINDS.items():
            if kinds[suffix] < least:
                problems.append(f"only {kinds[suffix]} {suffix} files (want {least}+)")
        check_questions(questions, set(built), problems)
        check_attachment_only(questions, problems)
        if "--loaders" in sys.argv[1:]:
            check_loaders(folder, questions, problems)
    for problem in problems:
        print("FAIL", problem)
    shape_counts = Counter(q["shape"] for q in questions)
    print(f"{len(built)} files, {len(questions)} questions ({dict(shape_counts)}): "
          + ("all checks pass" if not problems else f"{len(problems)} problems"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
