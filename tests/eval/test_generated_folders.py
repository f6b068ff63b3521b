"""The generated personal folders (bench/generated): deterministic for a seed, every key
fact readable by the real loaders from the real files, the split fixed and disjoint, and
enough questions over the ten folders."""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:  # bench/generated is a package of the checkout, not installed
    sys.path.insert(0, str(REPO))

from bench.generated import check  # noqa: E402
from bench.generated.core import FAILURE_CLASSES  # noqa: E402
from bench.generated.generate import DEV_SEEDS, VALIDATION_SEEDS, compose, generate  # noqa: E402


def _files(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


def test_same_seed_same_folder(tmp_path):
    first = generate(1, tmp_path / "a")
    second = generate(1, tmp_path / "b")
    assert first == second
    a, b = _files(tmp_path / "a"), _files(tmp_path / "b")
    assert a.keys() == b.keys()
    assert [name for name in a if a[name] != b[name]] == []
    assert 15 <= len(a) <= 22


def test_another_seed_another_household(tmp_path):
    one, two = compose(1), compose(2)
    assert [f.name for f in one.files] != [f.name for f in two.files]
    assert [q["question"] for q in one.questions] != [q["question"] for q in two.questions]


def test_key_facts_are_in_the_loaded_text(tmp_path):
    folder = tmp_path / "gen-1"
    questions = generate(1, folder)
    texts = check.loaded_texts(folder)
    assert check.question_problems(questions, texts) == []
    assert check.candidate_problems(1, texts) == []
    answerable = [q for q in questions if q["file"]]
    assert answerable and all(check.looked_for(q) or q["shape"] == "yesno" for q in answerable)


def test_split_is_fixed_and_disjoint():
    assert list(DEV_SEEDS) == [1, 2, 3, 4, 5]
    assert list(VALIDATION_SEEDS) == [101, 102, 103, 104, 105]
    assert not set(DEV_SEEDS) & set(VALIDATION_SEEDS)


def test_held_back_layouts_only_in_validation():
    def layouts(seeds) -> set[str]:
        return {f.layout.name for seed in seeds for f in compose(seed).files}

    assert not any("-h" in name for name in layouts(DEV_SEEDS))
    assert any("-h" in name for name in layouts(VALIDATION_SEEDS))


def test_enough_questions_of_every_class():
    folders = [compose(seed) for seed in [*DEV_SEEDS, *VALIDATION_SEEDS]]
    questions = [q for folder in folders for q in folder.questions]
    assert len(questions) >= 300
    assert {q["failure_class"] for q in questions} == set(FAILURE_CLASSES)
    for folder in folders:
        assert 30 <= len(folder.questions) <= 40
        ids = [q["id"] for q in folder.questions]
        assert len(set(ids)) == len(ids)
    refusals = [q for q in questions if q["shape"] == "unanswerable"]
    assert refusals and all(q["key_facts"] == [] and q["file"] is None for q in refusals)
