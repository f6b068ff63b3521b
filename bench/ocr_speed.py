"""OCR speed and accuracy (assistant/ingest/ocr.py): pages a second on this machine.

Renders A4 pages of about 300 words (DejaVu Serif, 11 pt, matplotlib's copy of the font)
at 200 and 300 dpi, puts them into a scanned PDF (Pillow, one image a page, JPEG inside,
as a scanner app writes it) and reads it with the PDF loader, OCR included; prints pages
a second (wall clock and CPU) and the share of the words read back exactly.

    .venv/bin/python bench/ocr_speed.py [--pages 10]
"""

from __future__ import annotations

import argparse
import difflib
import random
import resource
import tempfile
import textwrap
import time
from pathlib import Path

import matplotlib
from PIL import Image, ImageDraw, ImageFont

from assistant.ingest.loaders import load

FONT = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSerif.ttf"
WORDS = ("the insurance policy covers water damage from burst pipes but not gradual leaks please send the "
         "signed lease agreement to the landlord before March 15 2024 the monthly rent is 1250 euros payable "
         "on the first working day of each month invoice number 4471 was paid by bank transfer on 3 April the "
         "dentist appointment moved to Thursday at 10:30 our quarterly meeting reviewed the budget for the "
         "garden renovation and the new roof tiles which cost 3400 including labour warranty expires after five "
         "years contact Maria Schneider at the municipal office regarding parking permits for residents").split()


def page(dpi: int, seed: int, words: int = 300) -> tuple[Image.Image, str]:
    rng = random.Random(seed)
    text = " ".join(rng.choice(WORDS) for _ in range(words))
    image = Image.new("L", (int(8.27 * dpi), int(11.69 * dpi)), 255)
    draw, font = ImageDraw.Draw(image), ImageFont.truetype(str(FONT), int(11 * dpi / 72))
    margin, y = dpi, dpi
    for line in textwrap.wrap(text, int((image.width - 2 * margin) / (font.getlength("x") * 1.05))):
        draw.text((margin, y), line, fill=0, font=font)
        y += int(font.size * 1.5)
    return image, text


def word_accuracy(expected: str, got: str) -> float:
    a, b = expected.lower().split(), got.lower().split()
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    return sum(m.size for m in matcher.get_matching_blocks()) / len(a)


def cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        warm, _ = page(200, 0)
        warm.save(Path(tmp) / "warm.png")
        load(Path(tmp) / "warm.png")  # the engine starts once per reader process: not timed
        for dpi in (200, 300):
            pages = [page(dpi, seed) for seed in range(1, args.pages + 1)]
            pdf = Path(tmp) / f"scan{dpi}.pdf"
            pages[0][0].save(pdf, "PDF", save_all=True, append_images=[p for p, _ in pages[1:]], resolution=dpi)
            wall, cpu = time.perf_counter(), cpu_s()
            doc = load(pdf)
            wall, cpu = time.perf_counter() - wall, cpu_s() - cpu
            bounds = [start for _, start in doc.pages] + [len(doc.text)]
            accuracy = sum(word_accuracy(text, doc.text[bounds[i]:bounds[i + 1]])
                           for i, (_, text) in enumerate(pages)) / len(pages)
            print(f"{dpi} dpi, {len(pages)} pages: {len(pages) / wall:.2f} pages/s (wall), "
                  f"{cpu / len(pages):.2f} CPU s a page, {accuracy:.1%} of the words exact")


if __name__ == "__main__":
    main()
