"""What the terminal shows is the text: nothing that came from a document or a path is read
as Rich markup (`[bold]`, `[/]`) or as an emoji code (`:x:`, `:smile:`), and no bidirectional
control (U+202E RIGHT-TO-LEFT OVERRIDE and the others) reaches the terminal raw: in document
text it is shown as U+FFFD, in a path as its escape (`\\u202e`), as other non-printable
characters are. Real files, the real CLI in-process (CliRunner) and the terminal UI driven by
Textual's pilot over a real engine; nothing of ours is mocked."""

from __future__ import annotations

import asyncio
import time

import pytest

from assistant.config import Config
from helpers import squash

RLO = "\u202e"  # RIGHT-TO-LEFT OVERRIDE
BIDI = ["\u061c", "\u200e", "\u200f", *map(chr, range(0x202A, 0x202F)), *map(chr, range(0x2066, 0x206A))]

PASSWD = "The password file of the lighthouse holds the line root:x:0:0:root:/root:/bin/bash for the keeper.\n"
HEADING = "In the logbook the keeper typed :smile: and [bold]not bold[/bold] by hand.\n"
SIGNED = f"The harbour master signed the logbook as {RLO}txt.exe{RLO}\u202c on Monday.\n"
REPORT = "The final report says the ferry to Harrowmere was repainted blue in March.\n"
INVOICE = "The invoice for the lighthouse lamp was paid in June.\n"
FOLDER = "d:x:[bold]/[/]"  # folders whose path would be an emoji, a markup tag and a closing tag


def _no_bidi(text: str) -> None:
    bad = sorted({f"U+{ord(c):04X}" for c in text if c in BIDI})
    assert not bad, f"bidirectional controls reach the terminal: {bad}"


def _no_emoji(text: str) -> None:
    assert "\u274c" not in text and "\U0001f604" not in text, "an emoji code was replaced"


@pytest.fixture
def marked(tmp_path, quick_cli):
    """A folder (its name a markup tag and an emoji code) with the three documents above, a
    file named report:x:final.txt, one with an override in its name and a PDF that fails,
    indexed into `ix:x:[bold]`: (the index, the folder, what `index` printed)."""
    docs = tmp_path / FOLDER
    docs.mkdir(parents=True)
    for name, text in (("passwd.txt", PASSWD), ("heading.txt", HEADING), ("signed.txt", SIGNED)):
        (docs / name).write_text(text, encoding="utf-8")
    (docs / "report:x:final.txt").write_text(REPORT, encoding="utf-8")
    (docs / f"invoice{RLO}fdp.txt").write_text(INVOICE, encoding="utf-8")
    (docs / "broken:x:[bold].pdf").write_bytes(b"%PDF-1.4 this is not really a pdf")
    ix = tmp_path / "ix:x:[bold]"
    result = quick_cli("index", str(docs), index=ix)
    assert result.exit_code == 1, result.output  # the PDF fails
    assert "added 5" in result.output and "failed 1" in result.output, result.output
    return ix, docs, result.output


def test_index_names_the_file_that_failed_as_written(marked):
    ix, docs, output = marked
    assert squash(f"skipped {docs}/broken:x:[bold].pdf:") in squash(output), output
    _no_emoji(output)


def test_search_shows_document_text_and_paths_as_written(marked, quick_cli):
    ix, docs, _ = marked
    result = quick_cli("search", "Which line of the password file belongs to root?", index=ix)
    assert result.exit_code == 0, result.output
    out = squash(result.output)
    assert "root:x:0:0:root:/root:/bin/bash" in out, result.output
    assert ":smile:and[bold]notbold[/bold]byhand" in out and "/[/]/heading.txt" in out, result.output
    assert squash(f"{docs}/passwd.txt") in out, result.output
    _no_emoji(result.output)
    _no_bidi(result.output)
    # The override itself is shown, as U+FFFD, where it was.
    assert "as\ufffdtxt.exe\ufffd\ufffdonMonday" in out, result.output

    report = quick_cli("search", "What colour was the ferry repainted?", index=ix)
    assert report.exit_code == 0, report.output
    assert "report:x:final.txt" in squash(report.output), report.output
    _no_emoji(report.output)

    # An override in a file name is escaped, as other non-printable characters are.
    invoice = quick_cli("search", "When was the lighthouse lamp invoice paid?", index=ix)
    assert invoice.exit_code == 0, invoice.output
    assert "invoice\\u202efdp.txt" in squash(invoice.output), invoice.output
    _no_bidi(invoice.output)


def test_status_shows_paths_as_written(marked, quick_cli):
    ix, docs, _ = marked
    result = quick_cli("status", index=ix)
    assert result.exit_code == 0, result.output
    out = squash(result.output)
    assert squash(f"index {ix.resolve()}") in out and "ix:x:[bold]" in out, result.output
    assert squash(f"failed {docs}/broken:x:[bold].pdf") in out, result.output
    _no_emoji(result.output)


def test_an_unknown_setting_is_named_with_its_control_characters_escaped(tmp_path):
    from click.testing import CliRunner

    from assistant.cli import main

    config = tmp_path / "config.toml"
    config.write_text('"evil\\u001b]0;pwned\\u0007key" = 1\n"rlo\\u202ekey" = 2\n', encoding="utf-8")
    result = CliRunner().invoke(main, ["--config", str(config), "--index", str(tmp_path / "ix"), "status"])
    assert result.exit_code != 0
    assert "unknown setting" in result.output, result.output
    assert "\x1b" not in result.output and "\x07" not in result.output, repr(result.output)
    _no_bidi(result.output)
    out = squash(result.output)
    assert "evil\\x1b]0;pwned\\x07key" in out and "rlo\\u202ekey" in out, result.output


# -- the terminal UI ------------------------------------------------------------------------
SIZE = (150, 45)


async def _wait_for(pilot, condition, timeout: float, what: str) -> None:
    start = time.monotonic()
    while not condition():
        if time.monotonic() - start > timeout:
            raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")
        await pilot.pause(0.05)


def _plain(widget) -> str:
    content = widget.content
    return content.plain if hasattr(content, "plain") else str(content)


def test_the_terminal_ui_shows_text_and_paths_as_written(make_engine, tmp_path):
    """A search in the question box over the same documents: the passage, its source and
    its citation button keep `:x:`, `[bold]` and `:smile:`; the override is shown as U+FFFD
    in the text and escaped in a path (the folders screen); a folder that is gone is named
    in a notification as written, not read as markup."""
    from textual.widgets import Button
    from textual.widgets._toast import Toast

    from assistant.ui.app import AssistantApp
    from assistant.ui.screens.folders import FoldersScreen
    from assistant.ui.widgets.chat import AnswerView
    from assistant.ui.widgets.sources import SourcesPane

    docs = tmp_path / f"{FOLDER}{RLO}"
    docs.mkdir(parents=True)
    for name, text in (("passwd.txt", PASSWD), ("heading.txt", HEADING), ("signed.txt", SIGNED)):
        (docs / name).write_text(text, encoding="utf-8")
    (docs / "report:x:final.txt").write_text(REPORT, encoding="utf-8")
    gone = str(tmp_path / "gone:x:[bold]not bold[/bold]")
    engine = make_engine(tmp_path / "index", config=Config(extractor="none"))
    engine.index_paths([docs])
    # Paused: not indexed again on start; the missing one is named in a notification.
    folder = str(docs.resolve())
    engine.config.folders = [folder, gone]
    engine.config.paused_folders = [folder]
    app = AssistantApp(engine, config_path=tmp_path / "config.toml", opener=lambda path: None, watch=False)

    async def session():
        async with app.run_test(size=SIZE, notifications=True) as pilot:
            await _wait_for(pilot, lambda: app.ready, 120, "the index to open")
            await _wait_for(pilot, lambda: app.screen.query(Toast), 10, "the notification")
            toasts = [t.render().plain for t in app.screen.query(Toast)]
            assert any("gone:x:[bold]not bold[/bold]" in t for t in toasts), toasts

            box = app.query_one("#question")
            box.value = "/search Which line of the password file belongs to root?"
            await pilot.press("enter")
            await _wait_for(pilot, lambda: not app.answering and app.query(AnswerView), 120, "the search")
            view = app.query(AnswerView).last()
            summary = _plain(view.query_one(".answer-text"))
            assert "root:x:0:0:root:/root:/bin/bash" in summary and "report:x:final.txt: " in summary, summary
            assert ":smile: and [bold]not bold[/bold] by hand" in summary, summary
            _no_bidi(summary)

            # Each passage in the sources pane: its path, then its text.
            pane = app.query_one(SourcesPane)
            shown = {}
            for p in view.evidence["found"]:
                pane.select(p["n"])
                await pilot.pause()
                shown[p["path"].rsplit("/", 1)[-1]] = _plain(pane.query_one("#source-text"))
            assert "root:x:0:0:root:/root:/bin/bash" in shown["passwd.txt"], shown
            assert f"{FOLDER}\\u202e/passwd.txt" in shown["passwd.txt"], shown
            assert ":smile: and [bold]not bold[/bold] by hand" in shown["heading.txt"], shown
            assert f"{FOLDER}\\u202e/heading.txt" in shown["heading.txt"], shown
            assert "as \ufffdtxt.exe\ufffd\ufffd on Monday" in shown["signed.txt"], shown
            assert "/report:x:final.txt" in shown["report:x:final.txt"], shown
            for text in shown.values():
                _no_bidi(text)

            await _wait_for(pilot, lambda: view.query(Button), 10, "the citation buttons")
            labels = [str(b.label) for b in view.query(Button)]
            assert any("report:x:final.txt" in label for label in labels), labels

            await pilot.press("ctrl+f")
            await _wait_for(pilot, lambda: isinstance(app.screen, FoldersScreen), 10, "the folders screen")
            rows = app.screen.query_one("#folder-table")
            await _wait_for(pilot, lambda: rows.row_count == 2, 10, "the folder rows")
            cells = [str(rows.get_row_at(i)[0]) for i in range(rows.row_count)]
            assert any(c.endswith(f"{FOLDER}\\u202e") for c in cells), cells
            assert any(c.endswith("gone:x:[bold]not bold[/bold]") for c in cells), cells
            for c in cells:
                _no_bidi(c)

    asyncio.run(session())
