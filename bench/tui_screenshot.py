"""The README's screenshot (docs/images/tui-answer.svg): the terminal UI at 140x40 on the
sample folder, the answer to the first question of examples/questions.txt, with its cited
source on the right. `.venv/bin/python bench/tui_screenshot.py [FOLDER]` (default
docs/images); the default answer model answers."""
import asyncio
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from assistant.config import Config
from assistant.engine import Engine
from assistant.ui.app import AssistantApp

root = Path(tempfile.mkdtemp())
docs = root / "docs"
shutil.copytree(ROOT / "examples" / "docs", docs)
question = (ROOT / "examples" / "questions.txt").read_text().splitlines()[0]
config = Config(folders=[str(docs.resolve())])
engine = Engine(config, index_dir=root / "ix")
engine.index_paths([docs])
app = AssistantApp(engine, config_path=root / "config.toml", watch_options={"debounce_s": 0.3})

async def main():
    async with app.run_test(size=(140, 40)) as pilot:
        t0 = time.time()
        while not app.ready and time.time() - t0 < 300:
            await pilot.pause(0.5)
        box = app.query_one("#question")
        box.focus(); box.value = question
        await pilot.press("enter")
        await pilot.pause(2)
        t0 = time.time()
        while (app.answering or not app.query("#chat")) and time.time() - t0 < 600:
            await pilot.pause(1)
        await pilot.pause(3)
        app.save_screenshot(filename="tui-answer.svg", path=sys.argv[1] if len(sys.argv) > 1 else str(ROOT / "docs" / "images"))
        print("saved", time.time() - t0)

asyncio.run(main())
engine.close()
