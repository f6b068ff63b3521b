"""Generated personal folders: one household's files, drawn at random from a seed, with the
questions about them and the answers worked out from what was drawn (bench/generated/README.md).

    from bench.generated.generate import generate, compose
    questions = generate(1, Path(".cache/generated/gen-1"))   # writes the folder
    folder = compose(1)                                        # the same, nothing written

or from the shell: ``.venv/bin/python bench/generated/generate.py SEED DEST`` (writes DEST,
DEST.questions.json and DEST.files.json, the layout each file was written in).
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # run as a script: `bench.generated` is imported from the checkout
    sys.path.insert(0, str(ROOT))

from bench.generated import agreements, bank, calendar_file, letters, lists, money_docs, pools, tables  # noqa: E402
from bench.generated.core import GenFile, Household, draw_household, say, unanswerable  # noqa: E402
from bench.generated.render import write  # noqa: E402

# The split, fixed: developers may read the development folders question by question; the
# validation folders are reported, never read answer by answer while a mechanism is written.
DEV_SEEDS = range(1, 6)
VALIDATION_SEEDS = range(101, 106)
UNANSWERABLE = 5


def is_validation(seed: int) -> bool:
    """Seeds from 100 up write the held-back layouts too (VALIDATION_SEEDS are among them)."""
    return seed >= 100


@dataclass
class Folder:
    seed: int
    files: list[GenFile]
    questions: list[dict]


def compose(seed: int) -> Folder:
    """One household's files (their sources) and its questions, nothing written."""
    house = draw_household(seed, is_validation(seed))
    files = _files(house)
    chosen = _chosen_groups(house, files)
    questions = _numbered(seed, _with_unanswerable(house, chosen))
    return Folder(seed, files, questions)


def generate(seed: int, dest: Path) -> list[dict]:
    """(Re)create folder `dest` with the household of `seed`; returns its questions."""
    folder = compose(seed)
    dest = Path(dest)
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    for file in folder.files:
        write(file.name, file.source, dest)
    return folder.questions


def _files(house: Household) -> list[GenFile]:
    """The folder's files, in an order where a file another refers to comes first (the
    bills and the tenancy before the bank statement that pays them)."""
    rng = house.rng
    files = [money_docs.receipt(house, ".txt"), money_docs.receipt(house, ".pdf")]
    if rng.random() < 0.5:
        files.append(money_docs.receipt(house, ".png"))
    files += [money_docs.invoice(house, ".pdf"), money_docs.invoice(house, ".docx")]
    energy = money_docs.energy_bill(house)
    house.facts["supplier"] = next(line[2:] for line in energy.source.splitlines() if line.startswith("^ "))
    ctax = money_docs.council_tax_bill(house)
    house.facts["instalment"] = ctax.facts["instalment"]
    files += [energy, ctax]
    files.append(tables.pools_table(house, rng.choice([".html", ".docx"])))
    files.append(tables.clubs_table(house, rng.choice([".odt", ".docx", ".html"])))
    if rng.random() < 0.6:
        files.append(tables.medicines_table(house, rng.choice([".docx", ".odt", ".html"])))
    files.append(tables.budget_workbook(house))
    files.append(lists.packing_list(house))
    if rng.random() < 0.6:
        files.append(lists.shopping_list(house))
    files.append(lists.kit_list(house))
    agreement = rng.choice([agreements.tenancy, agreements.loan])
    files.append(agreement(house, rng.choice([".pdf", ".docx"])))
    files.append(calendar_file.calendar(house))
    files.append(bank.bank_statement(house))
    files += [letters.trip_email(house), letters.concert_email(house)]
    files.append(letters.community_letter(house, rng.choice([".txt", ".docx", ".rtf"])))
    if rng.random() < 0.6:
        files.append(letters.car_notes(house))
    return files


def _groups(file: GenFile) -> list[list[dict]]:
    """A file's questions in groups: a question with the follow-ups that read it."""
    groups: list[list[dict]] = []
    for q in file.questions:
        if q["shape"] == "followup" and groups:
            groups[-1].append(q)
        else:
            groups.append([q])
    return groups


def _chosen_groups(house: Household, files: list[GenFile]) -> list[list[dict]]:
    """Some of each file's questions: one group a file (three of the bank statement's),
    then groups of the failure classes least asked so far, up to about 30 answerable
    questions and every class asked at least once; kept in file order."""
    rng = house.rng
    target = rng.randint(28, 34)
    chosen: dict[int, list[list[dict]]] = {}
    spare: list[tuple[int, list[dict]]] = []
    for i, file in enumerate(files):
        groups = _groups(file)
        rng.shuffle(groups)
        first = 3 if file.name.endswith(".csv") else 1
        chosen[i] = groups[:first]
        spare += [(i, g) for g in groups[first:]]
    rng.shuffle(spare)

    def asked(failure_class: str) -> int:
        return sum(1 for gs in chosen.values() for g in gs for q in g if q["failure_class"] == failure_class)

    def wanted() -> bool:  # short of the target, or a failure class not asked yet
        total = sum(len(g) for gs in chosen.values() for g in gs)
        return total < target or any(asked(g[0]["failure_class"]) == 0 for _, g in spare)

    while spare and wanted():
        i, group = min(spare, key=lambda item: asked(item[1][0]["failure_class"]))
        spare.remove((i, group))
        chosen[i].append(group)
    order = {id(q): n for n, q in enumerate(q for f in files for q in f.questions)}
    return [g for i in sorted(chosen) for g in sorted(chosen[i], key=lambda g: order[id(g[0])])]


def _unanswerable_candidates(house: Household) -> list[dict]:
    """Questions shaped like the answerable ones, about a trade, shop, payee, pool, place or
    club drawn from the pools that no file of this folder names."""
    rng, out = house.rng, []
    month = dt.date(2000, rng.randint(1, 12), 1).strftime("%B")
    trade = house.unused(sorted(pools.TRADES) + pools.ONLY_ASKED)
    if trade:
        out.append(unanswerable(say(rng, ["How much did the {t} charge?", "When is the {t} coming?",
                                          "what did we pay the {t} last time"], t=trade),
                                f"No file mentions a {trade}.", trade))
    shop = house.unused([name for names, _ in pools.SHOPS.values() for name in names])
    if shop:
        out.append(unanswerable(say(rng, ["How much change did I get at {s}?", "What did I spend at {s}?"], s=shop),
                                f"There is no receipt from {shop}.", shop))
    payee = house.unused([f"{house.town} {p}" for p in [name for name, _, _ in pools.TOWN_PAYEES]
                          + ["Garage", "Post Office", "Vets", "Library"]])
    if payee:
        out.append(unanswerable(say(rng, ["How much did we spend at {p} in {m}?", "How many times did we pay {p} in {m}?"],
                                    p=payee, m=month), f"The statement has no payments to {payee}.", payee))
    pool = house.unused(pools.POOL_NAMES, town=house.town, surname=house.stranger().surname)
    if pool:
        out.append(unanswerable(say(rng, ["How deep is {p}?", "What time does {p} open on weekdays?"], p=pool),
                                f"No file mentions {pool}.", pool))
    place = house.unused(pools.HOLIDAY_PLACES)
    if place:
        out.append(unanswerable(say(rng, ["What should I pack for {p}?", "What's on the packing list for {p}?"], p=place),
                                f"There is no packing list for {place}.", place))
    club = house.unused([f"{house.town} {c}" for c in pools.CLUBS])
    if club:
        member = rng.choice(house.adults + house.children).first
        out.append(unanswerable(say(rng, ["When does {m}'s {c} membership renew?", "Who is the treasurer of the {c}?"],
                                    m=member, c=club), f"No file mentions the {club}.", club))
    return out


def _with_unanswerable(house: Household, groups: list[list[dict]]) -> list[dict]:
    """The chosen groups with questions no file answers put among them."""
    rng = house.rng
    extra = rng.sample(_unanswerable_candidates(house), UNANSWERABLE)
    for q in extra:
        groups.insert(rng.randint(0, len(groups)), [q])
    return [q for g in groups for q in g]


def _numbered(seed: int, questions: list[dict]) -> list[dict]:
    """Ids g{seed}-{n:02d}; a follow-up points at the question before it."""
    out: list[dict] = []
    for n, q in enumerate(questions, 1):
        q = {"id": f"g{seed}-{n:02d}", **q}
        if q.get("follow_up_of") == "previous":
            q["follow_up_of"] = out[-1]["id"]
        out.append(q)
    return out


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    seed, dest = int(argv[0]), Path(argv[1])
    questions = generate(seed, dest)
    dest.with_name(dest.name + ".questions.json").write_text(
        json.dumps(questions, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    layouts = {f.name: f.layout.name for f in compose(seed).files}
    dest.with_name(dest.name + ".files.json").write_text(json.dumps(layouts, indent=1) + "\n", encoding="utf-8")
    print(f"{dest}: {len(layouts)} files, {len(questions)} questions")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
