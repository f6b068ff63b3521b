"""A question asking when is read with the sentence of its passage closest to it that
writes a date, a message's own "Date:" header aside (issue 62, a part from the wrong
place): the e-mail's header and opening were all that was kept of "When is the trip to
Glenmore Lodge?", so the model read the day the e-mail was sent. Real files, a real index;
no model writes."""

from __future__ import annotations

import pytest

from assistant.answer.grounding.text import dates_written
from helpers import engine_over_files, sources_chosen

MESSAGE = """From: Niall Jarvis <niall.jarvis@castle-school.example>
To: Theo Pemberton <theo@homemail.example>
Date: Sun, 07 May 2023 16:05:00 +0100
Subject: Year 7 trip to Glenmore Lodge
Content-Type: text/plain; charset="utf-8"

Dear Parent/Carer,

I'm writing with the details of the Year 7 trip to Glenmore Lodge in the Cairngorms.

The centre runs workshops on rivers, woodland and mountain weather, and the pupils will
keep a field notebook through the day, which they will bring back to school for their
geography project next term.

Please note the trip is now on Thursday 15 June 2023, because the centre had to close
for repairs to its roof.

The coach leaves the school at 08:30 sharp, and we expect to be back by 15:30. The cost is
£41.00, which covers the coach, entry and a guided workshop.

Kind regards,
Niall Jarvis
"""


def test_a_date_field_is_not_a_date_the_message_tells_of():
    assert dates_written("Date: Sun, 07 May 2023 16:05:00 +0100") == []
    assert dates_written("the trip is now on Thursday 15 June 2023") == ["15 June 2023"]


@pytest.fixture(scope="module")
def engine(tmp_path_factory, embedder, splitter, tiny_generator):
    engine = engine_over_files(tmp_path_factory.mktemp("mail"), {"school-trip-glenmore-lodge.eml": MESSAGE},
                               embedder, splitter, tiny_generator)
    yield engine
    engine.close()


def test_a_question_asking_when_reads_the_dated_sentence(engine):
    text = " ".join(s.text for s in sources_chosen(engine, "When is the trip to Glenmore Lodge?").sources)
    assert "15 June 2023" in text, text
