"""The shorter ways a name is written elsewhere: a person's ("Julie Ethel Dash" -> "Julie
Dash", "Francis Albert Sinatra" -> "Frank Sinatra") and a ruler's or a noble's ("Infante
Ferdinand of Bavaria" -> "Ferdinand of Bavaria"): English naming conventions, which the
graph reads to find the home of a name written another way."""

from __future__ import annotations

import re


# A nickname written inside a full name: Gian-Carla "Gia" Coppola.
_NICKNAME = re.compile(r'\s*["\u201c\u201d]([^"\u201c\u201d]+)["\u201c\u201d]\s*')
_HONORIFICS = {"sir", "dame", "lord", "lady", "dr", "mr", "mrs", "ms"}
_SUFFIX = re.compile(r"[IVX]+|Jr\.?|Sr\.?")
_INITIAL = re.compile(r"[A-Z]\.")
# The familiar forms of common English given names: a page opens with "Francis Albert
# Sinatra", the others write "Frank Sinatra".
_FAMILIAR = {
    "albert": ("Al",), "alexander": ("Alex",), "andrew": ("Andy",), "anthony": ("Tony",),
    "benjamin": ("Ben",), "catherine": ("Kate",), "charles": ("Charlie", "Chuck"),
    "christopher": ("Chris",), "daniel": ("Dan", "Danny"), "david": ("Dave",), "donald": ("Don",),
    "douglas": ("Doug",), "edward": ("Ed", "Eddie", "Ted"), "elizabeth": ("Liz", "Beth"),
    "eugene": ("Gene",), "francis": ("Frank",), "frederick": ("Fred",), "gerald": ("Jerry",),
    "gregory": ("Greg",), "henry": ("Harry", "Hank"), "james": ("Jim", "Jimmy"), "jennifer": ("Jenny",),
    "john": ("Jack",), "jonathan": ("Jon",), "joseph": ("Joe",), "katherine": ("Kate",),
    "kenneth": ("Ken",), "lawrence": ("Larry",), "leonard": ("Len",), "margaret": ("Maggie", "Peggy"),
    "matthew": ("Matt",), "michael": ("Mike",), "nicholas": ("Nick",), "peter": ("Pete",),
    "richard": ("Dick", "Rick"), "robert": ("Bob", "Rob", "Bobby"), "ronald": ("Ron",),
    "samuel": ("Sam",), "stephen": ("Steve",), "steven": ("Steve",), "susan": ("Sue",),
    "thomas": ("Tom", "Tommy"), "timothy": ("Tim",), "vincent": ("Vince",), "walter": ("Walt",),
    "william": ("Bill", "Will", "Billy"),
}
_POSTNOMINAL = re.compile(r"[A-Z]{2,4}")


def short_names(name: str) -> list[str]:
    """The shorter ways a person's full name is written elsewhere: first and last name
    ("Julie Ethel Dash" -> "Julie Dash"), with the middle initial ("Isaac P. Walker"), a
    later given name ("Sven Olof Joachim Palme" -> "Olof Palme"), initials ("Robert G.
    Springsteen" -> "R. G. Springsteen"), the name without leading initials, a familiar
    form of the first name ("Francis Albert Sinatra" -> "Frank Sinatra"), a quoted
    nickname with the last name ("Rodney "Rod" Amateau" -> "Rod Amateau"), and the name
    without an honorific or post-nominal letters ("Sir Kenneth Charles Branagh" ->
    "Kenneth Branagh", "John Tyndall FRS"). Only for a name of capitalised words (not
    "Albert III the Pious of Bavaria")."""
    nick = _NICKNAME.search(name)
    words = [w for w in _NICKNAME.sub(" ", name).split() if w.lower().rstrip(".") not in _HONORIFICS]
    if len(words) > 2 and _POSTNOMINAL.fullmatch(words[-1]) and not _SUFFIX.fullmatch(words[-1]):
        words = words[:-1]  # "John Tyndall FRS"
    if not 2 <= len(words) <= 4 or not all(w[0].isupper() and w.replace("-", "").replace(".", "").isalpha()
                                            for w in words) or _SUFFIX.fullmatch(words[-1]) \
            or words[0].lower() in ("the", "a", "an"):
        return []  # (a "Henry Ford II" is not a "Henry II", nor "The Foster Boy" a "The Boy")
    out = [f"{nick.group(1).strip()} {words[-1]}"] if nick else []
    named = [w for w in words[:-1] if not _INITIAL.fullmatch(w)]
    if named and len(named) < len(words) - 1:
        out.append(" ".join(named + words[-1:]))  # "S. R. Puttanna Kanagal" -> "Puttanna Kanagal"
    if len(words) >= 3:
        out += [f"{words[0]} {words[-1]}", f"{words[0]} {words[1][0]}. {words[-1]}"]
    out += [f"{familiar} {words[-1]}" for familiar in _FAMILIAR.get(words[0].lower(), ())]
    if not _INITIAL.fullmatch(words[0]):
        # The given names as initials: "Robert G. Springsteen" -> "R. G. Springsteen".
        out.append(" ".join([f"{w[0]}." for w in words[:-1]] + words[-1:]))
        # A person known by a later given name: "Sven Olof Joachim Palme" -> "Olof Palme".
        out += [f"{w} {words[-1]}" for w in named[1:]]
    return list(dict.fromkeys(out + [" ".join(words)]))


# Ranks written before a ruler's, a noble's or a cleric's name, and left out elsewhere:
# "Infante Ferdinand of Bavaria" is "Prince Ferdinand of Bavaria" and "Ferdinand of Bavaria".
_RANKS = {"prince", "princess", "infante", "infanta", "king", "queen", "emperor", "empress",
          "archduke", "archduchess", "duke", "duchess", "count", "countess", "saint", "st",
          "imam", "sultan", "caliph", "shah", "tsar", "tsarina", "pope", "grand", "crown"}
# "Hermann II, Landgrave of Hesse": the name, a title after a comma, and the place it is of.
_NAME_OF_PLACE = re.compile(
    r"^(?P<name>[A-Z][\w'.-]*(?: [A-Z][\w'.-]*){0,4}?)(?:, (?P<title>[A-Z][a-z]+(?: [A-Z][a-z]+)?))?"
    r" of (?P<place>[A-Z][\w'.-]*(?: [A-Z][\w'.-]*){0,2})$")
_ROMAN = re.compile(r"[IVX]+")
# "bin", "ibn": a name followed by the chain of its fathers' names.
_NASAB = {"bin", "ibn", "ben", "bint"}


def ruler_names(name: str) -> list[str]:
    """The shorter ways a ruler's or a noble's name is written: without the rank before
    it ("Infante Ferdinand of Bavaria" -> "Ferdinand of Bavaria"), without the title
    after a comma ("Hermann II, Landgrave of Hesse" -> "Hermann II of Hesse"), with the
    first given name only ("Sigrid Eriksdotter of Sweden" -> "Sigrid of Sweden"), and a
    chain of fathers' names cut after the first ("Abdul Aziz bin Muhammad bin Saud" ->
    "Abdul Aziz bin Muhammad")."""
    words = name.split()
    while len(words) > 2 and words[0].lower().rstrip(".") in _RANKS and words[1][0].isupper():
        words = words[1:]  # (not "Saint Louis" -> "Louis")
    out = [" ".join(words)]
    at = [i for i, w in enumerate(words) if w.lower() in _NASAB]
    if len(at) >= 2 and at[0] > 0:
        out.append(" ".join(words[: at[1]]))
    match = _NAME_OF_PLACE.match(" ".join(words))
    if match:
        given = match["name"].split()
        place = match["place"]
        out.append(f"{match['name']} of {place}")
        first = given[:2] if len(given) > 1 and _ROMAN.fullmatch(given[1]) else given[:1]
        if len(first) < len(given):
            out.append(f"{' '.join(first)} of {place}")
    return [n for n in dict.fromkeys(out) if n != name]


def shorter_names(name: str) -> list[str]:
    """Every shorter way of writing a name that a page, a passage or a question may use:
    a person's (`short_names`) and a ruler's or noble's (`ruler_names`)."""
    return list(dict.fromkeys(short_names(name) + ruler_names(name)))
