"""What a question asks for decides what answers it (issue 47), through the whole ask path
over real files: "who was at" a meeting is its "Present:" line, "how many" members is a
count and not the revenue beside it, and the "4." that numbers a list item states no
number. Where a case needs the model to go wrong, it writes what it wrote on the folders."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from helpers import Written

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
PERSONAL = ROOT / "bench" / "personal" / "docs"
PERSONAL2 = ROOT / "bench" / "personal2" / "src"


def _folder(tmp_path: Path, *files: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    for path in files:
        shutil.copy(path, folder / path.name)
    return folder


@pytest.mark.parametrize("question, names, absent", [
    # Three meetings' notes with an attendance line each: the one the question dates.
    ("Who attended the Atlas launch review on 6 May?",
     ["Danielle Frost", "Clara Hollis", "Priya Raman", "Jonas Weber", "Aiko Tanaka", "Ben Carver"], "Apologies"),
    # Aiko Tanaka sent her apologies.
    ("Who was at the Atlas status meeting on 2 April?", ["Clara Hollis", "Priya Raman", "Jonas Weber", "Ben Carver"],
     "Aiko"),
    # "Present:", its list running on to a second line.
    ("Who was at the residents' association meeting?", ["Margaret Oduya", "Joe Rahman", "Irene Wojcik"], "Gerald Finch"),
])
def test_who_was_at_a_meeting_is_its_attendance_line(make_engine, tmp_path, question, names, absent):
    # The model wrote where the meeting was held ("The choir committee meeting in September
    # was held at St Aldhelm's Church Hall"), or one name and a quote.
    folder = _folder(tmp_path, *(PERSONAL / n for n in ("notes-2024-04-02.md", "notes-2024-05-06.md",
                                                        "residents-association-minutes-2024-05-21.md")))
    engine = make_engine(tmp_path / "ix", llm=True)
    assert engine.index_paths([folder]).ok
    answer = engine.ask(question)
    assert all(name in answer.text for name in names), answer.text
    assert absent not in answer.text, answer.text
    assert answer.citations and any(names[0] in c.text for c in answer.citations), answer.citations
    assert not [c for c in answer.checks if not c.supported], answer.checks


def test_how_many_is_a_count_not_the_money_beside_it(make_engine, tmp_path, generator):
    # "How many members does the brewery co-op have now?" was answered "£412,600": the
    # revenue, in the sentence before "Membership grew by 61 to 1,184 members".
    folder = _folder(tmp_path, PERSONAL2 / "members-report-q2-2024.txt")
    engine = make_engine(tmp_path / "ix", generator=Written(generator, "412,600"))
    assert engine.index_paths([folder]).ok
    answer = engine.ask("How many members does the brewery co-op have now?")
    assert answer.short and "1,184" in answer.short and "412,600" not in answer.text, answer.text
    assert any("1,184 members" in c.text for c in answer.citations), answer.citations


def test_the_number_of_a_list_item_states_no_number(make_engine, tmp_path, generator):
    # "How much is the multi-stem amelanchier?" was answered "4. The old apple tree stays":
    # the model's "4" found in the item's number.
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "okafor-site-visit.txt").write_text(
        "Okafor garden: site visit notes\n\n1. The patio moves 1.5 m towards the house.\n2. The lawn is reseeded in autumn.\n"
        "3. The shed is taken down.\n4. The old apple tree stays.\n"
, encoding="utf-8")
    engine = make_engine(tmp_path / "ix", generator=Written(generator, "4"))
    assert engine.index_paths([folder]).ok
    answer = engine.ask("How much is the multi-stem amelanchier for the Okafor garden?")
    assert "apple tree" not in answer.text and not any("apple tree" in c.text for c in answer.citations), answer.text
