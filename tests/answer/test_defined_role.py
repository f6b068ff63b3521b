"""A question asking who holds a role is read where a retrieved document defines it
(issue 62, the person class): a tenancy says "the Landlord" in every clause and names
them once, in the definition 'between Esme Hallam ... ("the Landlord")', which was not
among the sources of "Who is our landlord?". Real files, a real index; no model writes."""

from __future__ import annotations

import pytest

from assistant.answer.question.reading import role_asked
from assistant.answer.routes.defined_role import defines
from helpers import engine_over_files, sources_chosen

CLAUSES = [
    "The Landlord will keep in repair the structure and exterior of the Property, the installations for the supply "
    "of water, gas and electricity, and the heating and hot water, and will do so within a reasonable time of notice.",
    "The Tenant will tell the Landlord promptly of any repair the Landlord is responsible for, and will allow the "
    "Landlord or the Landlord's agent in at reasonable times to carry it out, after 24 hours' notice in writing.",
    "The Landlord has fitted smoke alarms on each floor and a carbon monoxide alarm in the room with the boiler; the "
    "Tenant will test them monthly and tell the Landlord of any fault at once.",
    "The Tenant will not change the locks or have further keys cut without the Landlord's consent, and will return "
    "all keys to the Landlord at the end of the tenancy.",
    "The Landlord will hold the Tenant's personal details only for managing the tenancy and will not pass them to "
    "anyone else except as the law requires; the Landlord will tell the Tenant of any change of address.",
    "The Tenant will not keep any animal at the Property without the Landlord's written consent, which the Landlord "
    "will not withhold without good reason.",
    "The Landlord will insure the building; the Tenant will insure their own belongings and will tell the Landlord "
    "of anything that might make the Landlord's insurance void.",
    "At the end of the tenancy the Landlord will return the deposit, less any sum the Landlord and the Tenant agree "
    "is owed for damage, within ten days of agreeing it.",
]
DEFINITIONS = (
    "1. Definitions. In this agreement \"the Property\" means the house described in clause 3 with its garden, "
    "fixtures, fittings and the furniture listed in the inventory; \"the Term\" means the fixed term in clause 4 and "
    "any period after it; a \"rent day\" is the day of the month on which the rent is due; words in the singular "
    "include the plural, and an obligation on more than one person is owed by each of them alone and by all of them "
    "together. The inventory, signed by both parties, lists the furniture, the white goods, the meter readings and "
    "the condition of each room, the garden and the outbuildings on the first day of the Term.\n\n")
TENANCY = ("Assured Shorthold Tenancy Agreement\n\nThis agreement is made on 8 January 2023 between Esme Hallam of "
           "58 Canal Side, Hexley (\"the Landlord\") and Isaac Pemberton and Chloe Pemberton (\"the Tenant\").\n\n"
           + DEFINITIONS
           + "\n\n".join(f"{n}. {clause}" for n, clause in enumerate(CLAUSES * 2, start=1)) + "\n")


def test_a_role_asked_and_a_role_defined():
    assert role_asked("Who is our landlord?") == "landlord"
    assert role_asked("who's the borrower") == "borrower"
    assert role_asked("Who is the landlord of number 43?") is None  # a role of something named
    assert role_asked("Who is Zara?") is None
    assert defines('between Esme Hallam of 58 Canal Side ("the Landlord") and', "landlord")
    assert defines('Isaac and Chloe Pemberton (the \u201cTenant\u201d)', "tenants")
    assert not defines("The Landlord will insure the building.", "landlord")


@pytest.fixture(scope="module")
def engine(tmp_path_factory, embedder, splitter, tiny_generator):
    engine = engine_over_files(tmp_path_factory.mktemp("tenancy"), {"tenancy-agreement.txt": TENANCY},
                               embedder, splitter, tiny_generator)
    yield engine
    engine.close()


def test_who_holds_a_role_is_read_where_the_role_is_defined(engine):
    sources = sources_chosen(engine, "Who is our landlord?").sources
    assert "Esme Hallam" in sources[0].text, [s.text[:80] for s in sources]
