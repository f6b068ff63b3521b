"""What the folder never mentions: a question about a thing no document names ("What is
my dentist's phone number?" in a folder without a dentist) is answered "I don't know",
naming the word, instead of by whatever passage came closest ("Numbers at a glance").

A word counts as mentioned when any chunk holds it or a word it begins, after stemming
(the full-text index's own reading), so "month" meets "monthly" and "grocery" meets
"groceries"; a word one slip of the keyboard from an indexed one is a mention misspelt
("Brittish", "Gothais" for "Gotha is"), not a thing the folder lacks. Only the words that pick out what the question is about are looked up (names, a
person's own things, owners, nouns that qualify another noun): the attribute asked for
("the history of X") and the question's verbs are the documents' to word differently.
"""

from __future__ import annotations

import calendar
import re
from typing import Callable

from ...nlp.normalize import strip_accents
from ...store.db import Store
from ...store.row_types import ChunkRow
from ..passages import named_words
from ..prompt import NO_ANSWER

Tagger = Callable[[str], list[tuple[str, str, str]]]
_LOOKED_UP = ("NOUN", "PROPN")


_OWNERS = frozenset("my our your his her their".split())


def unmentioned(question: str, store: Store, tag: Tagger | None) -> list[str]:
    """The words that say what the question is about and that no chunk of the index holds,
    and the trades it names ("window cleaner") that no chunk holds together."""
    if tag is None:
        return []
    tokens = tag(question)
    named = _file_words(store)
    missing = [w for w in _identifying(tokens) if not (_mentioned(w, store) or _folded(w) in named)]
    for trade in _trades(tokens):
        in_a_file_name = all(_folded(w) in named for w in trade)
        if not any(w in missing for w in trade) and not in_a_file_name and \
                not store.passages.mentions_together([_trade_root(w) for w in trade]):
            missing.append(" ".join(trade))
    return missing


def _file_words(store: Store) -> set[str]:
    """The words of the documents' file names and titles: "the carpenter" is named by
    invoice-INV-9007-carpenter.docx, whose text says only "Kavanagh Joinery"."""
    return {_folded(w) for d in store.docs.documents() for w in named_words(d.path, d.title)}


def _mentioned(word: str, store: Store) -> bool:
    """Held by a chunk as written, misspelt by one slip, or as the trade it names
    ("plumber" by "plumbing", "electrician" by "electrical")."""
    root = _trade_root(word)
    return store.passages.mentions(word) or store.passages.spelled_like(word) or (
        root != word and store.passages.mentions(root))


# Who does a trade is named by it with a suffix: the plumber's invoice says "plumbing".
_AGENT_SUFFIXES = ("ician", "ian", "er", "or", "ist")
_ROOT_MIN = 5  # "tiler" -> "til" would be held by "till" and "Tilbrook": left whole


def _trade_root(word: str) -> str:
    """"plumber" -> "plumb", "electrician" -> "electric", "decorator" -> "decorat"; a word
    with no such suffix, or too short a root, as it is."""
    for suffix in _AGENT_SUFFIXES:
        keep = "ic" if suffix == "ician" else ""
        if word.endswith(suffix) and len(word) - len(suffix) + len(keep) >= _ROOT_MIN:
            return word[: len(word) - len(suffix)] + keep
    return word


def _is_agent(word: str) -> bool:
    return _trade_root(word) != word


def _trades(tokens: list[tuple[str, str, str]]) -> list[list[str]]:
    """The nouns before a word that names who does something ("window cleaner", "piano
    tuner", "dog walker"; the tagger reads "cleaner" as an adjective as often as not), with
    it: such a person is named by the words together."""
    out: list[list[str]] = []
    run: list[str] = []
    for word, _lemma, pos in tokens:
        plain = word.lower()
        if run and pos in ("NOUN", "ADJ") and plain.isalpha() and _is_agent(plain):
            out.append([*run, plain])
            run = []
        elif pos == "NOUN" and plain.isalpha():
            run.append(plain)
        else:
            run = []
    return out


def _identifying(tokens: list[tuple[str, str, str]]) -> list[str]:
    """The question's words that pick out a thing: names ("Corvex", "GP"), a person's own
    things ("my dentist", "our pension provider"), owners ("the dentist's") and nouns that
    qualify another noun ("pension provider", "blood type"). Not the attribute asked for
    ("the history of X", "the name of our GP", "in detail"): documents state it without
    naming it."""
    out, owned = [], False  # inside "my ... " / "our ...": a person's own thing, named in full
    for i, (word, _lemma, pos) in enumerate(tokens):
        plain = word.strip(".,;:!?\"'’()[]").lower()
        after = tokens[i + 1] if i + 1 < len(tokens) else ("", "", "")
        before = tokens[i - 1] if i else ("", "", "")
        if plain in _TIME_WORDS:
            continue  # a date: documents write "10 September" as "10/09"
        if word.lower() in _OWNERS:
            owned = True
            continue
        owned = owned and pos in (*_LOOKED_UP, "ADJ")
        if pos not in _LOOKED_UP or not plain.isalpha() or plain in out:
            continue
        short_name = word.isupper() and len(word) >= 2  # "GP", "EHIC"
        if len(plain) < 3 and not short_name:
            continue
        # The one who does what the question asks of: "How much did the tiler charge?"
        does = pos == "NOUN" and after[2] == "VERB" and before[2] in ("DET", "NOUN")
        if pos == "PROPN" or short_name or owned or does or after[0] in ("'s", "’s") or after[2] in _LOOKED_UP:
            out.append(plain)
    return out


_TIME_WORDS = frozenset(w.lower() for w in [*calendar.month_name, *calendar.month_abbr, *calendar.day_name] if w)


def not_found(question: str, store: Store, tag: Tagger | None, chunks: dict[int, ChunkRow]) -> str | None:
    """What to say instead of an answer when the question asks about something no document
    names, or names a thing in words no passage found holds; None when neither."""
    missing = unmentioned(question, store, tag)
    if missing:
        return not_mentioned_text(missing, NO_ANSWER)
    unread = unread_names(question, [f"{c.title or ''} {c.text}" for c in chunks.values()], tag)
    return not_mentioned_text(unread, NO_ANSWER, "the passages found") if unread else None


def unread_names(question: str, texts: list[str], tag: Tagger | None) -> list[str]:
    """The names of two words or more the question writes ("National Insurance", "Kiss and
    Tell" is two names) with a word that none of `texts` (the passages found, with their
    titles) holds: the passages are then about something else, though another of the
    name's words ("Van insurance: Hollybank Insurance") brought them up."""
    if tag is None:
        return []
    # Not as a phrase: a name is written in other orders ("Akinoshu, Kenji"); but its words
    # near each other in one passage, not "Fernley" in an address and "Swimming Club" in
    # another club's name.
    passages = [re.findall(r"\w+", _folded(text)) for text in texts]
    return [name for name in _names_of_words(tag(question))
            if not any(_near(_folded(name).split(), words) for words in passages)]


NAME_SLACK = 2  # words that may come between a name's words ("Kenji T. Akinoshu")


def _near(name: list[str], words: list[str]) -> bool:
    """Whether every word of `name` is in one window of `words` little wider than the name."""
    wanted, width = set(name), len(set(name)) + NAME_SLACK
    for i, word in enumerate(words):
        if word in wanted and wanted <= set(words[i: i + width]):
            return True
    return False


def _folded(text: str) -> str:
    """Lower case without accents: "Akinoshū" is "Akinoshu" as a question types it."""
    return strip_accents(text.lower())


def _names_of_words(tokens: list[tuple[str, str, str]]) -> list[str]:
    names, run = [], []
    for word, _lemma, pos in [*tokens, ("", "", "")]:
        if pos == "PROPN" and word[:1].isupper() and word.isalpha():
            run.append(word)
            continue
        if len(run) >= 2:
            names.append(" ".join(run))
        run = []
    return names


def not_mentioned_text(words: list[str], no_answer: str, where: str = "them") -> str:
    quoted = ", ".join(f"\u201c{w}\u201d" for w in words)
    return f"{no_answer.rstrip('.')}: none of {where} mentions {quoted}."
