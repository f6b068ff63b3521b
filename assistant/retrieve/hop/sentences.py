"""What a page's sentences say of each name they mention: the words from the name before a
mention to the mention after it, with the parent that a "son of" before it makes it; and
the names of pages a sentence writes in full where the tagger cut them. Hop reads them to
tell a bridge named beside the question's relation words."""

from __future__ import annotations

from itertools import groupby

from ..baseline import content_stems as _stems
from ..entity_graph import EntityGraph
from .lexicon import APPOSITION, BY, CHILD_OF, FATHER, MADE_BY, MODIFIER_KINDS, MOTHER, PARENT
from .rules import Rules


def names_said_in(graph: EntityGraph, store, chunk_ids: list[int],
                  rules: Rules) -> tuple[dict[int, dict[int, list[set[str]]]], set[tuple[int, int]]]:
    """(chunk id -> {class row: the words said of it (`said_in`) at each of its mentions
    there}, the (chunk id, class row) of names cut from a longer one there). With the rule
    full_names, a page's name the sentence writes in full where the tagger cut it
    ("Berengaria" and "Barcelona" for "Berengaria of Barcelona") is a mention of its own,
    and the parts are left out where nothing else names them there."""
    out: dict[int, dict[int, list[set[str]]]] = {}
    inside, outside = set(), set()
    for _, group in groupby(store.mentions.mentions_in(chunk_ids), key=lambda m: m.sentence_id):
        group = list(group)
        first = group[0]
        # (row, start, end in the sentence, kind) of what the sentence names.
        spans = [(graph.row_of_entity.get(m.entity_id), m.start - first.sentence_start,
                  m.end - first.sentence_start, m.kind) for m in group]
        if rules.on("full_names"):
            named_rows = {row for row, *_ in spans}
            written = [(r, a, b) for r, a, b in graph.titles_written_in(first.sentence_text) if r not in named_rows]
            kept = [sp for sp in spans if not any(a <= sp[1] and sp[2] <= b for _, a, b in written)]
            inside |= {(first.chunk_id, sp[0]) for sp in spans if sp not in kept}
            spans = sorted(kept + [(r, a, b, "FULL") for r, a, b in written], key=lambda sp: sp[1])
        outside |= {(first.chunk_id, sp[0]) for sp in spans}
        names = out.setdefault(first.chunk_id, {})
        for row, words in said_in(first.sentence_text, spans, rules):
            names.setdefault(row, []).append(words)
    return out, inside - outside


def said_in(text: str, spans: list[tuple], rules: Rules = Rules()) -> list[tuple[int, set[str]]]:
    """(class row, the stems of the words said of it) for each mention of a sentence: from
    the start of the words before it (`start_of_words_before`) to the end of the mention
    after it. "film directed by Luis Mandoki, and starring Norma Aleandro, Liv Ullmann"
    gives Mandoki "film directed by Luis Mandoki, and starring Norma Aleandro" and Ullmann
    no "directed". A name after "son of" is said to be a parent (`_parents_said`)."""
    out, starts = [], []
    pairs = rules.on("parents_pair")
    for i, (row, start, end, kind) in enumerate(spans):
        starts.append(start_of_words_before(text, spans, i))
        # "a son of A and B": B shares the words before A.
        if pairs and _second_of_pair(text, spans, i):
            starts[i] = min(starts[i], starts[i - 1])
        # Not around a pronoun that coreference gave the class: in Edsel Ford's page "He
        # worked closely with his father" is Edsel, not the son named just before.
        if row is None or kind == "COREF":
            continue
        hi = spans[i + 1][2] if i + 1 < len(spans) else len(text)
        before = text[starts[i]: start]
        if rules.on("apposition") and of_the_name_before(text, spans, i, starts[i]):
            before = CHILD_OF.sub(" ", before)
        out.append((row, words_said(before, text[start: hi], _parents_said(text, spans, i) if pairs else PARENT)))
    return out


def _second_of_pair(text: str, spans: list[tuple], i: int) -> bool:
    """Whether mention `i` is the B of "A and B" (A a name, not a common noun)."""
    return i > 0 and text[spans[i - 1][2]: spans[i][1]].strip() == "and" and spans[i - 1][3] not in MODIFIER_KINDS


def _parents_said(text: str, spans: list[tuple], i: int) -> set[str]:
    """The parent a "son of" before mention `i` makes it: of "a son of A and B" A the
    father and B the mother, as pages list them; either where it is named alone."""
    if _second_of_pair(text, spans, i):
        return MOTHER
    return FATHER if i + 1 < len(spans) and _second_of_pair(text, spans, i + 1) else PARENT


def words_said(before: str, rest: str, parents: set[str] = PARENT) -> set[str]:
    """The stems of the words around a mention, with the parent a "son of" or "daughter
    of" before it makes it: pages write a parent as the child's, never as "father"."""
    words = _stems(before) | _stems(rest) | {MADE_BY + w for m in BY.finditer(before) for w in _stems(m.group(1))}
    return words | parents if CHILD_OF.search(before) else words


def of_the_name_before(text: str, spans: list[tuple], i: int, begin: int) -> bool:
    """Whether a "daughter of" in the words before mention `i` is said of a name set off
    just before it, other than the one the sentence opens with: in "he married Charlotte
    Grimstead, daughter of Joseph Valentine Grimstead" Joseph is the wife's father, in "Dui
    Finn, son of Sétna Innarraid, was ..." the subject's."""
    cue = CHILD_OF.search(text, begin, spans[i][1])
    if cue is None:
        return False
    named = [sp for sp in spans[:i] if sp[3] not in MODIFIER_KINDS and sp[2] <= cue.start()]
    return bool(named) and text[: named[-1][1]].strip() != "" \
        and APPOSITION.fullmatch(text, named[-1][2], cue.start()) is not None


def start_of_words_before(text: str, spans: list[tuple], i: int) -> int:
    """Where the words before mention `i` start: at the mention before it, or further back
    past common nouns and nationalities up to the name before them, within the clause:
    "the wife of the Carolingian emperor Louis the Pious" keeps "wife" before Louis,
    where "emperor" and "Carolingian" are mentions of their own."""
    if i == 0:
        return 0
    named = [sp for sp in spans[:i] if sp[3] not in MODIFIER_KINDS]
    clause = max(text.rfind(mark, 0, spans[i][1]) for mark in ",;:()") + 1
    return min(spans[i - 1][1], max(named[-1][1] if named else 0, clause))
