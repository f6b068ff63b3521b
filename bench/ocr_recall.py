"""OCR that keeps numbers (assistant/ingest/ocr.py): word and number recall on pages the
benchmark renders as people photograph and scan them, with and without the second,
second pass (the page read as one block of lines).

Three kinds of page, each made here from text the benchmark writes (so the truth is
known): a shop receipt (narrow, item names left and prices right, a TOTAL line whose
amount stands apart from its label), a form (labels and values in two columns) and a
letter (an address block and paragraphs). Each is rendered clean, then as a phone photo
would have it: rotated a little, noisy, on grey paper with faded ink. Recall is the share
of the page's words (numbers) found in what OCR read, each counted as often as written.

    .venv/bin/python bench/ocr_recall.py [--pages 6] [--out bench/results/ocr_recall.json]
"""

from __future__ import annotations

import argparse
import collections
import io
import json
import random
import re
import statistics
import time
from pathlib import Path

import matplotlib
from PIL import Image, ImageDraw, ImageFilter, ImageFont

from assistant.ingest import ocr

FONT = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"
MONO = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSansMono.ttf"
SHOPS = ["HARBOUR FRESH MARKET", "GREENWAY PHARMACY", "CORNER HARDWARE", "BAKERY ON MILL LANE"]
ITEMS = ["Milk 2L", "Sourdough loaf", "Free range eggs", "Bananas", "Cheddar 400g", "Coffee beans", "Dish soap",
         "Batteries AA", "Tomatoes", "Rice 1kg", "Olive oil", "Tea bags", "Paracetamol", "Plasters", "Screws M4"]
LABELS = ["Name", "Date of birth", "Policy number", "Vehicle reg", "Claim amount", "Phone", "Postcode",
          "Account no", "Sort code", "Start date"]
PROSE = ("thank you for your letter about the boiler service we have booked an engineer for the morning of "
         "the visit and the cost will be covered by your plan please keep this letter with your records and "
         "call us if the date does not suit you").split()
_TOKEN = re.compile(r"\d+(?:[.,:/-]\d+)*|[^\W\d_]+")


def receipt(rng: random.Random) -> tuple[list[tuple[str, str]], str]:
    rows = [(rng.choice(SHOPS), ""), (f"{rng.randint(1, 28):02d}/0{rng.randint(1, 9)}/2026 {rng.randint(8, 20)}:{rng.randint(10, 59)}", "")]
    total = 0.0
    for item in rng.sample(ITEMS, rng.randint(4, 7)):
        price = rng.randint(40, 1500) / 100
        total += price
        rows.append((item, f"{price:.2f}"))
    rows.append(("TOTAL GBP", f"{total:.2f}"))
    rows.append((f"CARD ****{rng.randint(1000, 9999)}", f"{total:.2f}"))
    return rows, "receipt"


def form(rng: random.Random) -> tuple[list[tuple[str, str]], str]:
    rows = [("CLAIM FORM", "")]
    for label in rng.sample(LABELS, 7):
        value = {"Name": "Edith Marlow", "Postcode": f"AB{rng.randint(1, 9)} {rng.randint(1, 9)}QT",
                 "Vehicle reg": f"KX{rng.randint(10, 99)} LMN"}.get(label, f"{rng.randint(1000, 999999)}")
        rows.append((f"{label}:", value))
    return rows, "form"


def letter(rng: random.Random) -> tuple[list[tuple[str, str]], str]:
    rows = [("Ambury Heating Ltd", ""), (f"{rng.randint(2, 99)} Quay Street", ""), (f"Ambury AB3 {rng.randint(1, 9)}QT", ""),
            (f"Reference {rng.randint(10000, 99999)}", ""), ("", "")]
    words = [rng.choice(PROSE) for _ in range(60)]
    rows += [(" ".join(words[i:i + 9]), "") for i in range(0, len(words), 9)]
    rows.append((f"Visit booked for {rng.randint(1, 28)} March at {rng.randint(8, 11)}:30", ""))
    return rows, "letter"


def render(rows: list[tuple[str, str]], kind: str) -> Image.Image:
    width = 620 if kind == "receipt" else 1400
    size = 26 if kind == "receipt" else 30
    font = ImageFont.truetype(str(MONO if kind == "receipt" else FONT), size)
    image = Image.new("L", (width, 80 + int(size * 1.7) * len(rows)), 255)
    draw = ImageDraw.Draw(image)
    for i, (left, right) in enumerate(rows):
        y = 40 + int(size * 1.7) * i
        draw.text((30, y), left, fill=0, font=font)
        if right:
            x = width - 30 - draw.textlength(right, font=font) if kind == "receipt" else width // 2
            draw.text((x, y), right, fill=0, font=font)
    return image


def photographed(image: Image.Image, rng: random.Random) -> Image.Image:
    """Faded ink on grey paper, turned 1.5 to 3 degrees, blurred a little and noisy."""
    faded = image.point(lambda v: 90 + v * 110 // 255)
    turned = faded.rotate(rng.choice([-1, 1]) * rng.uniform(1.5, 3.0), expand=True, fillcolor=200, resample=Image.BICUBIC)
    blurred = turned.filter(ImageFilter.GaussianBlur(0.8))
    return Image.blend(blurred, Image.effect_noise(blurred.size, 40), 0.18)


def tokens(text: str) -> collections.Counter:
    return collections.Counter(t.lower() for t in _TOKEN.findall(text))


def recall(truth: collections.Counter, read: collections.Counter) -> float:
    total = sum(truth.values())
    return sum(min(n, read[t]) for t, n in truth.items()) / total if total else 1.0


def read_page(image: Image.Image, sparse: bool) -> tuple[str, float]:
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    kept = ocr.needs_second_pass
    if not sparse:
        ocr.needs_second_pass = lambda text: False
    try:
        t0 = time.perf_counter()
        text = "\n".join(ocr.image_pages(buf.getvalue()))
        return text, time.perf_counter() - t0
    finally:
        ocr.needs_second_pass = kept


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pages", type=int, default=6, help="pages of each kind")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "ocr_recall.json")
    args = parser.parse_args()
    rng, results = random.Random(7), {}
    pages = []
    for maker in (receipt, form, letter):
        for _ in range(args.pages):
            rows, kind = maker(rng)
            image = render(rows, kind)
            truth = "\n".join(f"{a} {b}" for a, b in rows)
            pages.append((kind, "clean", image, truth))
            pages.append((kind, "photo", photographed(image, rng), truth))
    for sparse in (False, True):
        for kind, look, image, truth in pages:
            text, seconds = read_page(image, sparse)
            key = f"{kind}/{look}/{'two passes' if sparse else 'first pass only'}"
            numbers = collections.Counter({t: n for t, n in tokens(truth).items() if t[0].isdigit()})
            row = results.setdefault(key, {"words": [], "numbers": [], "seconds": []})
            row["words"].append(recall(tokens(truth), tokens(text)))
            row["numbers"].append(recall(numbers, tokens(text)))
            row["seconds"].append(seconds)
    table = {key: {"pages": len(r["words"]), "word_recall": round(100 * statistics.mean(r["words"]), 1),
                   "number_recall": round(100 * statistics.mean(r["numbers"]), 1),
                   "seconds_per_page_p50": round(statistics.median(r["seconds"]), 2)} for key, r in results.items()}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(table, indent=1), encoding="utf-8")
    for key, row in sorted(table.items()):
        print(f"{key:40s} words {row['word_recall']:5.1f}%  numbers {row['number_recall']:5.1f}%  "
              f"{row['seconds_per_page_p50']:.2f} s/page")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
