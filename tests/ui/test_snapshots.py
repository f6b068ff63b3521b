"""Snapshots of the main screens (pytest-textual-snapshot). After an intended change of
the layout, look at the new SVGs and accept them with `pytest --snapshot-update`.

The apps run on a real, empty index; the conversation shown is written to its SQLite
history first, so what is pinned is the layout, not the model's words."""

from __future__ import annotations

from dataclasses import replace

import pytest
from textual.widgets import Input

from assistant.config import Config
from assistant.store.history import History
from assistant.ui.app import AssistantApp

SIZE = (130, 38)

SOURCE_TEXT = (
    "# Kestrel Hill Observatory\n\n"
    "The Kestrel Hill Observatory was founded in 1898 by the astronomer Margarethe Olsson. "
    "It stands on the summit of Kestrel Hill, three kilometres north of Harrowmere."
)
EVIDENCE = {
    "question": "When was the Kestrel Hill Observatory founded?",
    "answer": "It was founded in 1898 by the astronomer Margarethe Olsson [1].",
    "retriever": "hop",
    "citations": [{
        "n": 1, "path": "/home/me/Documents/kestrel_hill_observatory.md", "title": "Kestrel Hill Observatory",
        "page": None, "start": 28, "end": 113, "chunk_id": 1, "sentence_id": 2, "attributed": False,
        "text": "The Kestrel Hill Observatory was founded in 1898 by the astronomer Margarethe Olsson.",
    }],
    "sources": [
        {"n": 1, "path": "/home/me/Documents/kestrel_hill_observatory.md", "title": "Kestrel Hill Observatory",
         "page": None, "chunk_id": 1, "start": 0, "end": len(SOURCE_TEXT), "score": 0.8123,
         "evidence": {"linked": ["kestrel hill observatory"], "dense": 0.71, "hop": 1},
         "text": SOURCE_TEXT, "highlights": [[28, 113]]},
        {"n": 2, "path": "/home/me/Documents/calder_valley.pdf", "title": "Tales of the Calder Valley",
         "page": 2, "chunk_id": 9, "start": 0, "end": 40, "score": 0.4410, "evidence": {"dense": 0.44},
         "text": "Olsson moved to the Calder Valley in 1894.", "highlights": []},
    ],
}


# A short answer first: the span in bold, highlighted inside its sentence in the source;
# a follow-up as it was understood; and a sentence the entity check flagged.
SHORT = {
    **EVIDENCE,
    "question": "and who founded it?",
    "answer": "Margarethe Olsson. The Kestrel Hill Observatory was founded in 1898 by the astronomer "
              "Margarethe Olsson [1]. It was run by Dr Amara Okafor from 1898 [1].",
    "short_answer": "Margarethe Olsson",
    "understood_as": "Who founded Kestrel Hill Observatory?",
    "checks": [
        {"sentence": "Margarethe Olsson.", "supported": True, "reason": ""},
        {"sentence": "The Kestrel Hill Observatory was founded in 1898 by the astronomer Margarethe Olsson [1].",
         "supported": True, "reason": ""},
        {"sentence": "It was run by Dr Amara Okafor from 1898 [1].", "supported": False,
         "reason": "names not in the cited sentences: Amara, Okafor"},
    ],
    "sources": [{**EVIDENCE["sources"][0], "span_highlights": [[95, 112]]}, EVIDENCE["sources"][1]],
}


# Five sources of one document, all titled alike (issue 39): the buttons wrap under the
# answer, each entry of the list has its section and the start of its sentence.
PLAN_PATH = "/home/me/Documents/harbor_plan.md"
PLAN_SECTIONS = [
    ("Tonnage", "The harbor handled 1,380 tonnes of fish in 2023, compared with 1,150 tonnes in 2022."),
    ("Materials", "Each granite block of the new wall weighs about 1,380 kg."),
    ("Budget", "The harbor wall repair has a budget of 2.4 million euros."),
    ("Staff", "Priya Raman leads the project for the port authority."),
    ("Risks", "Winter storms may delay the work on the north pier."),
]


def _plan_source(n: int, section: str, sentence: str) -> dict:
    text = f"## {section}\n\n{sentence} More of the plan follows here."
    at = text.index(sentence)
    return {"n": n, "path": PLAN_PATH, "title": "Harbor — Project Plan", "page": None, "chunk_id": n,
            "start": 0, "end": len(text), "score": 0.6 - n / 100, "evidence": {"dense": 0.5}, "text": text,
            "highlights": [[at, at + len(sentence)]]}


PLAN = {
    "question": "What does the harbor plan say about tonnage, weight, money, people and risk?",
    "answer": " ".join(f"{sentence} [{n}]" for n, (_, sentence) in enumerate(PLAN_SECTIONS, 1)),
    "retriever": "hybrid",
    "citations": [{"n": n, "path": PLAN_PATH, "title": "Harbor — Project Plan", "page": None, "text": sentence,
                   "start": 0, "end": len(sentence), "chunk_id": n, "sentence_id": n, "attributed": False}
                  for n, (_, sentence) in enumerate(PLAN_SECTIONS, 1)],
    "sources": [_plan_source(n, section, sentence) for n, (section, sentence) in enumerate(PLAN_SECTIONS, 1)],
}


@pytest.fixture
def snapshot_app(make_engine, tmp_path):
    def build(conversation: bool = False, evidence: dict = EVIDENCE) -> AssistantApp:
        config = Config(folders=["/home/me/Documents", "/home/me/Papers"],
                        paused_folders=["/home/me/Documents", "/home/me/Papers"])
        engine = make_engine(tmp_path / "index", config=config)
        if conversation:
            history = History(engine.index.store)
            conv = history.create()
            history.add(conv.id, "user", evidence["question"])
            history.add(conv.id, "assistant", evidence["answer"], "hop", evidence)
        return AssistantApp(engine, config_path=tmp_path / "config.toml", watch=False, warm_up=False)

    return build


# The index's size on disk counts SQLite's write-ahead log, whose length depends on when
# SQLite last checkpointed: not layout, so the snapshots show one fixed size.
PINNED_SIZE_BYTES = 473_600


def _steady_cursors(app) -> None:
    """A focused input blinks its cursor every 0.5 s: on a loaded machine the picture
    was taken on either side of a blink (a CI run failed so). Blinking off, it stays shown."""
    for screen in app.screen_stack:
        for box in screen.query(Input):
            box.cursor_blink = False


async def _ready(pilot) -> None:
    while not pilot.app.ready:
        await pilot.pause(0.05)
    await pilot.app.workers.wait_for_complete()
    pilot.app._show_status(replace(pilot.app.status_info, size_bytes=PINNED_SIZE_BYTES))
    _steady_cursors(pilot.app)
    await pilot.pause()  # the messages those changes posted


def test_main_screen_empty(snap_compare, snapshot_app):
    assert snap_compare(snapshot_app(), terminal_size=SIZE, run_before=_ready)


def test_main_screen_with_an_answer_and_its_sources(snap_compare, snapshot_app):
    assert snap_compare(snapshot_app(conversation=True), terminal_size=SIZE, run_before=_ready)


def test_a_short_answer_with_a_flagged_sentence(snap_compare, snapshot_app):
    assert snap_compare(snapshot_app(conversation=True, evidence=SHORT), terminal_size=SIZE, run_before=_ready)


@pytest.mark.parametrize("key", ["ctrl+f", "ctrl+s", "f1"], ids=["folders", "settings", "help"])
def test_dialog_screen(snap_compare, snapshot_app, key):
    async def open_dialog(pilot):
        await _ready(pilot)
        await pilot.press(key)
        while len(pilot.app.screen_stack) < 2:
            await pilot.pause(0.05)
        await pilot.app.workers.wait_for_complete()
        _steady_cursors(pilot.app)
        await pilot.pause()

    assert snap_compare(snapshot_app(), terminal_size=SIZE, run_before=open_dialog)


@pytest.mark.parametrize("size", [(80, 24), (140, 40)], ids=["80x24", "140x40"])
def test_five_sources_of_one_document_at_each_size(snap_compare, snapshot_app, size):
    """80x24: the chat has the width (the sources come under it when a citation is chosen);
    140x40: three panes. Every citation button is whole under the answer."""
    assert snap_compare(snapshot_app(conversation=True, evidence=PLAN), terminal_size=size, run_before=_ready)
