"""The sentence side of AMR grounding: word tokens with a lemma, how well a concept word
matches a token, and the character spans that a graph's ~e.N alignments and a
date-entity's attributes point at. Kept apart from the graph so that the word rules can be
read (and tuned) without the conversion around them.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

# Irregular word forms -> base form, for grounding without a lemmatiser.
IRREGULAR = {
    "was": "be", "were": "be", "is": "be", "are": "be", "been": "be", "am": "be", "had": "have", "has": "have",
    "did": "do", "does": "do", "done": "do", "went": "go", "gone": "go", "goes": "go", "gave": "give",
    "given": "give", "made": "make", "took": "take", "taken": "take", "came": "come", "saw": "see", "seen": "see",
    "said": "say", "told": "tell", "got": "get", "gotten": "get", "found": "find", "knew": "know", "known": "know",
    "thought": "think", "brought": "bring", "bought": "buy", "caught": "catch", "taught": "teach",
    "sought": "seek", "fought": "fight", "ran": "run", "sat": "sit", "stood": "stand", "understood": "understand",
    "wrote": "write", "written": "write", "spoke": "speak", "spoken": "speak", "ate": "eat", "eaten": "eat",
    "drank": "drink", "drunk": "drink", "began": "begin", "begun": "begin", "felt": "feel", "kept": "keep",
    "left": "leave", "lost": "lose", "met": "meet", "paid": "pay", "sent": "send", "spent": "spend",
    "built": "build", "held": "hold", "led": "lead", "meant": "mean", "heard": "hear", "slept": "sleep",
    "fell": "fall", "fallen": "fall", "flew": "fly", "flown": "fly", "grew": "grow", "grown": "grow",
    "threw": "throw", "thrown": "throw", "wore": "wear", "worn": "wear", "chose": "choose", "chosen": "choose",
    "rose": "rise", "risen": "rise", "drove": "drive", "driven": "drive", "rode": "ride", "ridden": "ride",
    "broke": "break", "broken": "break", "forgot": "forget", "forgotten": "forget", "hid": "hide",
    "hidden": "hide", "shook": "shake", "shaken": "shake", "stole": "steal", "stolen": "steal", "won": "win",
    "sang": "sing", "sung": "sing", "swam": "swim", "became": "become", "died": "die", "lay": "lie",
    "laid": "lay", "fed": "feed", "fled": "flee", "dug": "dig", "hung": "hang", "woke": "wake",
    "children": "child", "men": "man", "women": "woman", "people": "person", "mice": "mouse", "feet": "foot",
    "teeth": "tooth", "geese": "goose", "wives": "wife", "knives": "knife", "lives": "life", "leaves": "leaf",
    "better": "good", "best": "good", "worse": "bad", "worst": "bad",
}


@dataclass
class Token:
    start: int
    end: int
    text: str  # lower case
    lemma: str  # lower case


_WORD = re.compile(r"\w+", re.UNICODE)


def tokenize(text: str) -> list[Token]:
    """Word tokens with a guessed lemma (no lemmatiser needed)."""
    out = []
    for m in _WORD.finditer(text):
        w = m.group().lower()
        out.append(Token(m.start(), m.end(), w, IRREGULAR.get(w, w)))
    return out


def spacy_tokens(doc) -> list[Token]:
    """Tokens of a spaCy Doc (of the sentence alone), with the pipeline's lemmas."""
    return [Token(t.idx, t.idx + len(t.text), t.lower_, (t.lemma_ or t.text).lower())
            for t in doc if not t.is_space and not t.is_punct]


def _stems(word: str) -> set[str]:
    """Plausible base forms of an inflected word ("carried" -> "carry", "making" -> "make")."""
    out = {word, IRREGULAR.get(word, word)}
    for suffix, repl in (("ies", "y"), ("ied", "y"), ("es", ""), ("s", ""), ("ed", ""), ("ed", "e"),
                         ("ing", ""), ("ing", "e"), ("er", ""), ("er", "e"), ("ly", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 2:
            base = word[: -len(suffix)] + repl
            out.add(base)
            if len(base) > 2 and base[-1] == base[-2] and not repl:  # "stopped" -> "stop"
                out.add(base[:-1])
    return out


def match_score(word: str, tok: Token) -> int:
    """How well a concept word matches a token: 3 exact, 2 an inflection, 1 a shared stem."""
    if word in (tok.text, tok.lemma):
        return 3
    if word in _stems(tok.text):
        return 2
    n = 0
    for a, b in zip(word, tok.text):
        if a != b:
            break
        n += 1
    if n >= max(4, len(word) - 2) or (len(word) >= 3 and n == len(word)):
        return 1
    return 0


def alignment_tokens(graph, text: str) -> list[tuple[int, int] | None]:
    """Character spans of the tokens that ~e.N alignments count."""
    meta = graph.metadata or {}
    if meta.get("tokens"):
        try:
            toks = json.loads(meta["tokens"])
        except ValueError:
            toks = meta["tokens"].split()
    elif meta.get("tok"):
        toks = meta["tok"].split()
    else:
        toks = text.split()
    spans: list[tuple[int, int] | None] = []
    at = 0
    for t in toks:
        variants = [t, t.replace("``", '"').replace("''", '"'), t.replace("-LRB-", "(").replace("-RRB-", ")")]
        found = -1
        for v in variants:
            found = text.find(v, at)
            if found >= 0:
                spans.append((found, found + len(v)))
                at = found + len(v)
                break
        if found < 0:
            spans.append(None)
    return spans


MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december"]


def date_forms(role: str, val: str) -> list[str]:
    """The words a date-entity attribute may stand as in the sentence (:month 10 -> "october", "oct")."""
    if role == ":year":
        return [val]
    if role == ":month" and val.isdigit() and 1 <= int(val) <= 12:
        return [MONTHS[int(val) - 1], MONTHS[int(val) - 1][:3]]
    if role == ":day":
        return [val, val + "st", val + "nd", val + "rd", val + "th"]
    if role in (":decade",):
        return [val + "s", val]
    return []
