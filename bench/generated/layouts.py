"""The layout variants of each file kind: the labels a receipt, an invoice, a bill or a
table writes its figures under, and how its rows are written.

A variant named `-sN` is shared: development folders and validation folders both use it.
A variant named `-hN` is held back: only validation folders use it, so that a mechanism
written while reading the development folders is measured on labels its writer never saw
("Change due" where development only ever wrote "CHANGE")."""

from __future__ import annotations

import random
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Layout:
    name: str
    labels: dict[str, str] = field(default_factory=dict)

    @property
    def held_back(self) -> bool:
        return "-h" in self.name

    def __getitem__(self, key: str) -> str:
        return self.labels[key]


def _variants(*specs: tuple[str, dict[str, str]]) -> list[Layout]:
    return [Layout(name, labels) for name, labels in specs]


LAYOUTS: dict[str, list[Layout]] = {
    "receipt": _variants(
        ("receipt-s1", {"total": "TOTAL", "cash": "CASH", "change": "CHANGE", "items": "plain"}),
        ("receipt-s2", {"total": "Total to pay", "cash": "Cash tendered", "change": "CHANGE", "items": "qty"}),
        ("receipt-s3", {"total": "TOTAL", "cash": "Cash tendered", "change": "CHANGE", "items": "count"}),
        ("receipt-h1", {"total": "Amount paid", "cash": "Paid cash", "change": "Change due", "items": "qty"}),
        ("receipt-h2", {"total": "Balance", "cash": "CASH", "change": "Change due", "items": "plain"}),
    ),
    "invoice": _variants(
        ("invoice-s1", {"subtotal": "Subtotal", "vat": "VAT @ 20%", "gross": "Total",
                        "deposit": "Less deposit paid", "due": "Total due"}),
        ("invoice-s2", {"subtotal": "Net", "vat": "VAT (20%)", "gross": "Invoice total",
                        "deposit": "Deposit received", "due": "Amount due"}),
        ("invoice-s3", {"subtotal": "Subtotal", "vat": "VAT 20%", "gross": "Total",
                        "deposit": "Deposit received", "due": "Amount due"}),
        ("invoice-h1", {"subtotal": "Sub-total", "vat": "Tax (20%)", "gross": "Gross",
                        "deposit": "Already paid", "due": "Balance due"}),
        ("invoice-h2", {"subtotal": "Sub-total", "vat": "Tax @ 20%", "gross": "Total",
                        "deposit": "Paid on account", "due": "Please pay"}),
    ),
    "energy": _variants(
        ("energy-s1", {"period": "This bill", "annual": "Estimated annual cost", "pay": "Amount to pay"}),
        ("energy-s2", {"period": "This period", "annual": "Annual estimate", "pay": "Total to pay"}),
        ("energy-h1", {"period": "Current charges", "annual": "Projected 12 months", "pay": "Please pay"}),
    ),
    "ctax": _variants(
        ("ctax-s1", {"annual": "Annual charge", "instalment": "monthly instalments of"}),
        ("ctax-s2", {"annual": "Total charge for the year", "instalment": "monthly payments of"}),
        ("ctax-h1", {"annual": "Amount payable for the year", "instalment": "instalments, each"}),
    ),
    "pools": _variants(
        ("pools-s1", {"name": "Pool", "length": "Length", "depth": "Deepest point", "hours": "Weekday opening",
                      "price": "Adult swim", "order": "name length depth hours price"}),
        ("pools-s2", {"name": "Venue", "length": "Length", "depth": "Max depth", "hours": "Open (Mon-Fri)",
                      "price": "Adult price", "order": "name length depth hours price"}),
        ("pools-h1", {"name": "Pool", "length": "Length", "depth": "Deep end", "hours": "Hours (weekdays)",
                      "price": "Adult swim", "order": "name depth length price hours"}),
    ),
    "clubs": _variants(
        ("clubs-s1", {"club": "Club", "member": "Member", "number": "Membership no.", "renews": "Renewal date"}),
        ("clubs-s2", {"club": "Club", "member": "Name", "number": "Member number", "renews": "Renews"}),
        ("clubs-h1", {"club": "Membership", "member": "Who", "number": "No.", "renews": "Due for renewal"}),
    ),
    "meds": _variants(
        ("meds-s1", {"medicine": "Medicine", "strength": "Strength", "dose": "Dose", "when": "When",
                     "doctor": "Prescribed by"}),
        ("meds-h1", {"medicine": "Tablet", "strength": "Strength", "dose": "How many", "when": "Time of day",
                     "doctor": "Doctor"}),
    ),
    "bank": _variants(
        ("bank-s1", {"date": "%d/%m/%Y", "case": "upper", "suffix": ""}),
        ("bank-s2", {"date": "%Y-%m-%d", "case": "title", "suffix": ""}),
        ("bank-h1", {"date": "%d/%m/%Y", "case": "upper", "suffix": "card"}),
    ),
    "budget": _variants(
        ("budget-s1", {"planned": "Budget", "actual": "Actual", "target": "Target", "saved": "Saved so far"}),
        ("budget-h1", {"planned": "Planned", "actual": "Spent", "target": "Goal", "saved": "In the pot"}),
    ),
    "list": _variants(
        ("list-s1", {"heading": "## ", "bullet": "- "}),
        ("list-h1", {"heading": "**", "bullet": "* "}),
    ),
}
# Files with one way of being written: named all the same so every question has a layout.
for kind in ("agreement", "calendar", "email", "letter", "notes"):
    LAYOUTS[kind] = [Layout(f"{kind}-s1")]
DATE_STYLES = ["long", "weekday", "us"]


def choose(rng: random.Random, kind: str, validation: bool) -> Layout:
    """A layout of `kind`: a shared one in a development folder; in a validation folder,
    a held-back one half the time where the kind has any."""
    shared = [x for x in LAYOUTS[kind] if not x.held_back]
    held = [x for x in LAYOUTS[kind] if x.held_back]
    if validation and held and rng.random() < 0.5:
        return rng.choice(held)
    return rng.choice(shared)
