"""The homes of classes, a part of `EntityGraph` (graph.py): where a title names a class, or
an opening sentence is about it, and the ways to a home from a name that its class does
not carry as written: titled variants ("Richard Wright (author)"), aspects ("History of
Maryland"), titles that write the name with other words ("Diocese of Fredericton"), a
page's name written in running text, a person's name written shorter."""

from __future__ import annotations

import re

from ...nlp.extract import is_named_kind
from ...nlp.normalize import entity_key
from ..baseline import content_stems
from .names import shorter_names


# A page's name read in running text can be longer than a question's names ("Thomas
# Lyon-Bowes, 11th Earl of Strathmore and Kinghorne" is nine words).
MAX_TITLE_WORDS = 12
# A name written plainly ("Richard Wright") stands for at most this many titled classes
# that add a disambiguation to it ("Richard Wright (author)"); more, and it is too common.
MAX_VARIANTS = 4
# A one-word name named in more chunks than this is too common to lead to the titles that
# write it with the question's words; and a name leads to at most this many such titles.
MAX_PART_DF = 10
MAX_TITLES_NAMING = 50
# A class with more titles named after aspects of it than this is too broad to lead to them.
MAX_ASPECTS = 6
# "History of Maryland", "Alcohol laws of Indiana", "The climate of New Delhi" (an opening
# subject, with its article): a common noun phrase, then the name.
ASPECT_OF = re.compile(r"^(?:[Tt]he )?((?:[A-Za-z]+ ){1,3})(?:of|in) (?:the )?([A-Z].*)$")
# "Kansas's congressional districts", "2016-17 Chelsea F.C. season": the name, then common words.
NAME_THEN_COMMON = re.compile(r"^(?:[\d\u2013-]+ )?([A-Z][^a-z]*?(?:[A-Za-z.]+ )*?[A-Za-z.]+?)(?:'s?)? ((?:[a-z]+ ?){1,3})$")
_WORD_SPANS = re.compile(r"\S+")
_LETTERS = re.compile(r"[^\W\d_]+", re.UNICODE)
_DISAMBIGUATION = re.compile(r"\s*\([^()]*\)\s*$")
# A place's name qualified by the larger place it is in: "West Chicago, Illinois",
# "Rochester, New York" (a page's title; its text and others write "West Chicago").
# Words apart by one space each: written "(?:[A-Z]\w*\s?){1,4}", a run of capitals could be
# cut into words in so many ways that a long one took minutes to fail.
_QUALIFIED_PLACE = re.compile(r"^([A-Z][\w'.-]*(?:\s[A-Z][\w'.-]*){0,3})\s?,\s([A-Z][\w'.-]*(?:\s[A-Z][\w'.-]*){0,2})\s?$")
# A name with a common word after it inside one entity: "Maharashtra state", "Thrissur city".
_NAME_THEN_LOWER = re.compile(r"^((?:[A-Z][\w'.-]*\s){1,4})[a-z]+(?:\s[a-z]+)?\s?$")


def _lower_words(text: str) -> set[str]:
    return {w for w in _LETTERS.findall(text) if w[0].islower()}


class GraphHomes:
    """The homes of `EntityGraph`'s classes (`title_chunks`, `variants`, `aspects`) and the
    ways to them; reads the graph's names, keys and kinds."""

    def _titled_variants(self) -> dict[str, list[int]]:
        """key of a plain name -> the classes with a home that name it at more length: a
        title's "(author)" or "(1968 film)" is not written where the thing is named, nor a
        place's ", Illinois" where the text is about it, and a
        person's page opens with the whole name ("Julie Ethel Dash") where others write
        "Julie Dash"."""
        out: dict[str, set[int]] = {}
        for row in self.title_chunks:
            name = self.names[row]
            plain = [_DISAMBIGUATION.sub("", name)] if name.endswith(")") else []
            qualified = _QUALIFIED_PLACE.match(name)
            if qualified:
                plain.append(qualified.group(1).strip())
            # ABOUT: a page's opening subject; COREF: one that "he" and "she" refer to.
            if self.kinds[row] in ("PERSON", "ABOUT", "COREF"):
                plain += shorter_names(name)
            for text in plain:
                key = entity_key(text, proper=True) if text else ""
                if key and key != self.key_of_row[row]:
                    out.setdefault(key, set()).add(row)
        return {key: sorted(rows) for key, rows in out.items() if len(rows) <= MAX_VARIANTS}

    def _titles_of_several_words(self) -> tuple[dict[str, int], dict[str, int]]:
        """(key -> class row, first word's key -> most words) of the classes with a home
        whose name has two words or more: what `titles_written_in` looks for."""
        keys: dict[str, int] = {}
        longest: dict[str, int] = {}
        for row in self.title_chunks:
            words = self.key_of_row[row].split()
            if 2 <= len(words) <= MAX_TITLE_WORDS:
                keys[self.key_of_row[row]] = row
                longest[words[0]] = max(longest.get(words[0], 0), len(words))
        return keys, longest

    def titles_written_in(self, text: str) -> list[tuple[int, int, int]]:
        """(class row, start, end) of each name of a home, two words or more, that `text`
        writes in full, the longest at each place: where the tagger cut a name in two
        ("Berengaria" and "Barcelona" for "Berengaria of Barcelona"), took only part of it
        ("Humphrey Stafford" of "Humphrey Stafford, 1st Duke of Buckingham") or more ("King
        George VII of Imereti"), the page's name is still there to be read."""
        keys, longest = self._long_titles
        words = list(_WORD_SPANS.finditer(text))
        found: list[tuple[int, int, int]] = []
        covered = 0
        for i, first in enumerate(words):
            if first.start() < covered or not first.group().lstrip("\"'(\u201c\u2018")[:1].isupper():
                continue
            first_key = entity_key(first.group(), proper=True)
            most = longest.get(first_key, 0)
            for n in range(min(most, len(words) - i), 1, -1):
                span = text[first.start(): words[i + n - 1].end()]
                row = keys.get(entity_key(span, proper=True))
                # Written as a name: no word in lower case that the name writes with a
                # capital ("Related work" is no heading "Related Work" of another file).
                if row is not None and _lower_words(span) <= _lower_words(self.names[row]):
                    found.append((row, first.start(), words[i + n - 1].end()))
                    covered = words[i + n - 1].end()
                    break
        return found

    def _titled_aspects(self) -> dict[int, list[int]]:
        """class row -> the titled classes named after an aspect of it: a common noun
        phrase of the name ("History of Maryland", "Alcohol laws of Indiana", "Diocese of
        Fredericton") or the name with common words after it ("Kansas's congressional
        districts", "2016-17 Chelsea F.C. season"). Not "Duke of Orleans" or "Oda of
        Metz", whose first words are not common nouns here, and only for a class with few
        such titles (not each "... of the United States")."""
        out: dict[int, set[int]] = {}
        for row in self.title_chunks:
            named = self._aspect_of(self.names[row])
            if named is not None and named != row:
                out.setdefault(named, set()).add(row)
        return {row: sorted(titled) for row, titled in out.items() if len(titled) <= MAX_ASPECTS}

    def _aspect_of(self, title: str) -> int | None:
        """The named class a title is an aspect of, if it is written as one."""
        m = ASPECT_OF.match(title)
        if m:
            head, name = m.group(1).split(), m.group(2)
            row = self.keys.get(entity_key(head[0], proper=False))
            if row is None or self.kinds[row] != "NOUN" or not all(w.islower() for w in head[1:]):
                return None
        else:
            m = NAME_THEN_COMMON.match(title)
            if not m:
                return None
            name = m.group(1)
        row = self.keys.get(entity_key(name, proper=True))
        return row if row is not None and is_named_kind(self.kinds[row]) else None

    def titles_naming(self, row: int, asked: set[str]) -> list[int]:
        """The chunks of the titles that write class `row`'s name with other words, one of
        which the question asks about (`asked`: the question's words, by `content_stems`):
        "Diocese of Fredericton", "South Korea at the Olympics", "2016-17 Chelsea F.C.
        season" for a question on the diocese, the Olympics, the last season."""
        if self._titles_by_part is None:
            parts: dict[str, list[int]] = {}
            for title in self.title_chunks:
                words = self.key_of_row[title].split()
                for n in range(1, min(4, len(words) - 1) + 1):
                    for i in range(len(words) - n + 1):
                        parts.setdefault(" ".join(words[i:i + n]), []).append(title)
            self._titles_by_part = parts
        key = self.key_of_row[row]
        if " " not in key:
            # One word: only a rare name that is no common noun ("Fredericton", not
            # "Duchess", "May" or "Central", which many titles write).
            common = self.keys.get(entity_key(self.names[row], proper=False))
            if len(self.chunks_of(row)) > MAX_PART_DF or (common is not None and self.kinds[common] == "NOUN"):
                return []
        out = []
        for title in self._titles_by_part.get(key, ())[:MAX_TITLES_NAMING]:
            rest = f" {self.key_of_row[title]} ".replace(f" {key} ", " ", 1)
            if title != row and content_stems(rest) & asked:
                out += self.title_chunks[title]
        return sorted(set(out))

    def aspect_chunks(self, row: int) -> list[int]:
        """The chunks of the titles named after an aspect of this class."""
        return sorted({c for t in self.aspects.get(row, ()) for c in self.title_chunks[t]})

    def home_chunks(self, row: int, rare_df: int) -> list[int]:
        """The chunks about a class: its title's; else those of the titled classes that
        disambiguate its name ("Richard Wright" -> "Richard Wright (author)"); else, for a
        class named in at most `rare_df` chunks, every chunk that names it."""
        titled = self.title_chunks.get(row)
        if titled:
            return titled
        variants = self.variants.get(self.key_of_row[row])
        if variants:
            return sorted({c for v in variants for c in self.title_chunks[v]})
        shorter = self._home_of_short_name(row) or self._home_of_name_before_common_words(row)
        if shorter:
            return shorter
        chunks = self.chunks_of(row)
        return [int(c) for c in chunks] if len(chunks) <= rare_df else []

    def _home_of_short_name(self, row: int) -> list[int]:
        """A person named at more length than their page names them ("Robert North
        Bradbury" where the page opens with "Robert N. Bradbury"): the home that one of
        the name's short forms leads to."""
        if self.kinds[row] != "PERSON":
            return []
        for name in shorter_names(self.names[row]):
            rows = self._titled_rows(name)
            if rows and row not in rows:
                return sorted({c for r in rows for c in self.title_chunks[r]})
        return []

    def _home_of_name_before_common_words(self, row: int) -> list[int]:
        """A name the tagger took with the common word after it ("Maharashtra state",
        "Thrissur city"), or a common noun of a name ("State of Israel"): the name's home."""
        if not is_named_kind(self.kinds[row]):
            return []
        m = _NAME_THEN_LOWER.match(self.names[row])
        rows = self._titled_rows(m.group(1).strip()) if m else []
        if not rows:  # "State of Israel", where no page is titled so: Israel's
            part = self._aspect_of(self.names[row])
            rows = [part] if part in self.title_chunks else []
        return sorted({c for r in rows if r != row for c in self.title_chunks[r]})

    def _titled_rows(self, name: str) -> list[int]:
        """The classes with a home that `name` leads to: its own class where that has a
        home, else the titled classes it is a variant of."""
        key = entity_key(name, proper=True)
        row = self.keys.get(key)
        return [row] if row is not None and row in self.title_chunks else self.variants.get(key, [])
