"""Hop's ways to a candidate, as named rules beside the scoring signals (signals.py): each
says when it fires, the example it was written for and the test that shows it (in
HOP_TESTS, where the test also switches it off and sees the example fail), and each can
be switched off by name (`HopRetriever(rules_off=("kin_steps",))`; bench/lodo.py measures
each switched off, one dataset left out at a time).

Where they act, in the order a question meets them (core.py):
    link       noun_variants, as_written
    relation   type_word, made_by, kin_steps
    hop        full_names, parents_pair, apposition (what a page says of each name),
               subject_short (which names lead on), aspects, titles_naming (where to)
    then       names_written (which pages name the question's entity again)"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .signals import Signal

RULES = {r.name: r for r in (
    Signal("noun_variants",
           "a common noun's class, matched by a name the question writes, stands for the titled classes of that name "
           "(or for the note it opens, where none is titled)",
           "\"Who wrote Brand?\": the class of the noun \"brand\" leads to \"Brand (play)\"",
           "test_a_name_that_is_also_a_common_word_leads_to_the_note_it_opens"),
    Signal("as_written",
           "a linked name's homes are kept to the files titled exactly as the question writes it, where some are",
           "\"The Outlaw Express\" is not the page \"Outlaw Express\", which shares its key",
           "test_a_name_written_with_its_article_links_the_page_titled_so_only"),
    Signal("type_word",
           "what the question says a name is is no relation word",
           "\"film\" in \"the director of film Battle in Seattle\": a festival a film page names is no director",
           "test_what_the_question_says_a_name_is_is_no_relation_but_made_by_is"),
    Signal("made_by",
           "a bridge written after \"<that word> by\" is related (pages tag it \"by:film\")",
           "\"a film by Luis Mandoki\" answers \"the director of film X\"",
           "test_what_the_question_says_a_name_is_is_no_relation_but_made_by_is"),
    Signal("kin_steps",
           "a kin pages never write is reached through the kin they do: an in-law through the spouse, a "
           "grandparent or an uncle through a parent, a step-parent through a parent's spouse",
           "\"the father-in-law of X\": X's wife is related, then her father",
           "test_an_in_law_is_reached_through_the_spouse_named_past_a_title"),
    Signal("full_names",
           "a page's name written in full in a sentence is a mention of its own where the tagger cut it",
           "\"Berengaria of Barcelona\", tagged as \"Berengaria\" and \"Barcelona\"",
           "test_a_page_named_in_full_where_the_tagger_took_part_of_the_name_is_a_bridge"),
    Signal("parents_pair",
           "of \"a son of A and B\", A is said to be the father and B the mother, and B shares the words before A",
           "\"a daughter of Archduke Leo of Austria and Infanta Blanca\": Blanca is the mother",
           "test_of_a_son_of_a_and_b_a_is_the_father_and_b_the_mother"),
    Signal("apposition",
           "a \"daughter of\" set off after another name is said of that name, not of the name after it",
           "\"he married Charlotte Grimstead, daughter of Joseph Grimstead\": Joseph is the wife's father",
           "test_the_father_named_in_full_comes_before_the_wife_and_her_father"),
    Signal("subject_short",
           "a page's own subject written short is no bridge",
           "\"Edsel\" on Edsel Ford's page would lead to the other Edsels",
           "test_a_page_does_not_bridge_through_a_part_of_its_own_name"),
    Signal("aspects",
           "a bridge leads to the titles named after an aspect of it",
           "Maryland leads to \"History of Maryland\"",
           "test_a_bridge_reaches_a_page_on_an_aspect_of_it"),
    Signal("titles_naming",
           "a bridge leads to the titles that write its name with a word of the question",
           "Fredericton, for a question on its diocese, leads to \"Diocese of Fredericton\"",
           "test_a_bridge_leads_to_the_titles_that_write_it_with_the_question_s_words"),
    Signal("names_written",
           "a bridged page that writes the linked name in full, where the tagger cut it at its comma, names the "
           "question's entity again (named_again)",
           "\"She married Thomas Lyon-Bowes, Lord Glamis, only son of ...\" names Lord Glamis",
           "test_the_father_named_in_full_comes_before_the_wife_and_her_father"),
)}


@dataclass(frozen=True)
class Rules:
    """Which of RULES are on: every one but those switched off by name."""

    off: frozenset[str] = frozenset()

    @classmethod
    def without(cls, names: Iterable[str]) -> Rules:
        off = frozenset(names)
        unknown = sorted(off - RULES.keys())
        if unknown:
            raise ValueError(f"no hop rule named {', '.join(unknown)} (the rules: {', '.join(RULES)})")
        return cls(off)

    def on(self, name: str) -> bool:
        if name not in RULES:
            raise KeyError(name)  # a rule's name mistyped in the code
        return name not in self.off
