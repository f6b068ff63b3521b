"""Hop's special cases as named signals. Each says when it fires, on the example it was
written for, and names the test that shows it; `Weights` is the one place that turns the
signals a chunk's way there fired into its bonus (core.py marks them, scoring.py counts
them, and a hit's evidence lists them: `search --explain` shows "signals: link, ...").

A way there is scored as

    link:  link × the similarity of the question's name to the class
    hop:   hop × decay per hop past the second  (+ relation)  (− wrong_kind)

then, once every way is known, cut where the page is not the best of any way it was
reached (other_home, other_bridge_home) or names the question's entity again
(named_again).

Which pages are reached at all, and which words count as the question's relation, are
decided by the rules of rules.py, named and switchable like these."""

from __future__ import annotations

from dataclasses import dataclass

HOP_TESTS = "tests/retrieve/test_hop_links.py"


@dataclass(frozen=True)
class Signal:
    name: str
    fires_when: str
    example: str
    test: str  # the test (in HOP_TESTS) that shows it


SIGNALS = {s.name: s for s in (
    Signal("link", "a chunk is a home of a name the question writes (its title, or a rare name's every mention)",
           "\"...the director of film Gaby: A True Story?\": the page titled Gaby: A True Story",
           "test_the_bridge_beside_the_relation_word_leads"),
    Signal("hop", "a chunk is the home of a name written on a page the question's names reached",
           "Luis Mandoki, named on Gaby: A True Story's page, leads to his own page",
           "test_the_bridge_beside_the_relation_word_leads"),
    Signal("relation", "the bridge is named in a sentence with the question's relation word",
           "\"directed by Luis Mandoki\" answers \"the director of\"; \"starring Liv Ullmann\" does not",
           "test_the_bridge_beside_the_relation_word_leads"),
    Signal("third_hop", "a hop past the second, followed only from bridges named beside a relation word",
           "\"the mother of the director of film X\": film, director, then his mother",
           "test_a_third_hop_follows_relation_words_only_when_asked"),
    Signal("wrong_kind", "the bridge is of a kind the question's relation rules out",
           "\"X's mother\": a place named on X's page is not who",
           "test_a_bridge_of_the_kind_the_question_asks_for_comes_before_the_other_kind"),
    Signal("other_home", "a linked page is not the best-scored of the name's homes (another file shares the title)",
           "two files open with the name: the one closer to the question keeps the link",
           "test_of_a_name_s_homes_in_several_files_the_best_keeps_the_link"),
    Signal("other_bridge_home", "a bridged page is not the best-scored of that bridge's homes",
           "a page reached through two bridges keeps the bonus of the one it is the best of",
           "test_a_page_reached_two_ways_keeps_the_bonus_of_the_way_it_is_the_best_of"),
    Signal("named_again", "a bridged page names the question's linked entity again",
           "\"Lothair II's mother\": a page reached through his family that names Lothair II is often his wife's",
           "test_a_bridged_note_that_names_the_question_s_entity_again_counts_the_bridge_for_less"),
)}


@dataclass(frozen=True)
class Weights:
    """What each signal adds, takes away or keeps: declared here once, and HopRetriever's
    settings of the same names set them (bench/sweep.py and bench/lodo.py do)."""

    link_bonus: float = 1.0
    hop_bonus: float = 0.5
    relation_bonus: float = 0.25
    decay: float = 0.8  # third_hop: the hop bonus kept per hop past the second
    kind_penalty: float = 0.3  # wrong_kind
    other_home: float = 0.5  # the share of the link bonus kept
    other_bridge_home: float = 0.75  # the share of the hop bonus kept
    named_again: float = 0.3

    def linked(self, similarity: float) -> tuple[float, tuple[str, ...]]:
        return self.link_bonus * similarity, ("link",)

    def hopped(self, hop_bonus: float, depth: int, related: bool, wrong_kind: bool) -> tuple[float, tuple[str, ...]]:
        """A hop's bonus: `hop_bonus` is the hop weight already decayed to this depth."""
        fired = ("hop",) + (("third_hop",) if depth > 2 else ()) + (("relation",) if related else ()) \
            + (("wrong_kind",) if wrong_kind else ())
        return hop_bonus + (self.relation_bonus if related else 0.0) - (self.kind_penalty if wrong_kind else 0.0), fired

    def counted(self, bonus: float, linked: bool, best_home: bool,
                names_linked: bool) -> tuple[float, tuple[str, ...]]:
        """The bonus that counts once every way is known, and the cuts that fired."""
        fired: tuple[str, ...] = ()
        if not best_home:
            bonus *= self.other_home if linked else self.other_bridge_home
            fired += ("other_home",) if linked else ("other_bridge_home",)
        if not linked and names_linked:
            bonus = max(0.0, bonus - self.named_again)
            fired += ("named_again",)
        return bonus, fired
