"""The `amr` extractor: sentence graphs from Abstract Meaning Representation parses
(GroundedKG section 3.2).

amrlib parses each sentence into an AMR graph (PENMAN notation); penman decodes it; the
conversion below turns the graph into a `SentenceGraph`:

* PropBank frames (`give-01`, `look-up-05`) become actions, lemma = the frame without its
  sense number ("give", "look up"); one that only names its own argument ("teacher" =
  person :ARG0-of teach-01) is not kept. AMR's relation frames (`*-91`) and a few discourse
  frames (`cause-01` "because", `contrast-01` "but", `possible-01` "can"...) are not events
  and are left out; their arguments keep the roles they have in the other frames.
* Named concepts (`(p / person :name (n / name :op1 "Peter"))`) become mentions named by
  their :op strings; the concept gives the kind (person -> PERSON, city -> GPE,
  organization -> ORG ... see ENTITY_KINDS; other types -> PROPN). `date-entity` -> DATE.
  The pronouns he/she/it/they -> PRON placeholders for the coreference step, exactly as the
  spacy extractor leaves them. Every other concept is a NOUN mention keyed by the concept
  (so "tea" and "the camomile tea" share a class, as in the paper); function-word
  concepts (STOP_CONCEPTS) and the first and second persons are dropped.
* Leaf :mod/:quant modifiers fold into their head's surface text ("some camomile tea"),
  as the paper adds modification words to the node text.
* An unnamed person/thing that `have-rel-role-91`/`have-org-role-91` describes takes its
  role as its name ("Peter's mother" -> a `mother` mention, the paper's Table 3).
* Roles from an action: :ARG0 -> agent, :ARG1 -> patient, :ARG2 -> recipient (PropBank's
  ARG2 is frame-specific: recipient of give-01, destination of put-01; the spacy
  extractor's name is kept for all), :time -> time, :location -> place; every other role
  keeps its AMR name in lower case ("arg3", "instrument", "destination"...). Roles into
  `and`/`or` reach each operand. Actions are linked by "next" edges in surface order.

Grounding. AMR has no surface alignment unless a graph carries ISI alignments (`~e.N`,
which penman decodes; token N of the `# ::tok`/`# ::tokens` metadata, else of the sentence
split on spaces): those are used first. Otherwise each node is located in its sentence:
names by their :op strings, concepts by word form (the concept without its sense, matched
against each token's lemma, known irregular forms, then a shared prefix: `want-01` ->
"wanted", `believe-01` -> "belief"). Mentions never share a token. A node that cannot be
located is grounded to its whole sentence and counted in `Conversion.unlocated` (an
unlocated pronoun is dropped instead: coreference would rewrite the whole sentence).
"""

from __future__ import annotations

import json
import logging
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from .. import models
from .extract import Action, Mention, SentenceGraph, register_extractor
from .normalize import entity_key

log = logging.getLogger(__name__)

FRAME = re.compile(r"^(?P<lemma>[a-z][a-z\-']*?)-(?P<sense>\d{2,3})$")

ROLE_NAMES = {":ARG0": "agent", ":ARG1": "patient", ":ARG2": "recipient", ":time": "time", ":location": "place"}
# Structure, not arguments: never an action's role edge.
SKIP_ROLES = {":name", ":wiki", ":polarity", ":mode", ":polite", ":li", ":value", ":quant", ":mod", ":domain"}

ENTITY_KINDS = {
    "person": "PERSON",
    **dict.fromkeys(("city", "country", "state", "province", "county", "city-district", "territory",
                     "continent", "world-region", "country-region", "local-region"), "GPE"),
    **dict.fromkeys(("organization", "company", "government-organization", "military", "criminal-organization",
                     "political-party", "market-sector", "school", "university", "research-institute",
                     "team", "league", "newspaper"), "ORG"),
    **dict.fromkeys(("location", "mountain", "river", "lake", "sea", "ocean", "bay", "island", "forest",
                     "desert", "valley", "canyon", "plain", "peninsula", "planet", "star", "galaxy"), "LOC"),
    **dict.fromkeys(("facility", "airport", "station", "port", "building", "tower", "hotel", "hospital",
                     "museum", "theater", "palace", "temple", "church", "bridge", "road", "street",
                     "park", "zoo", "amusement-park", "castle", "house", "sports-facility"), "FAC"),
    **dict.fromkeys(("nationality", "ethnic-group", "regional-group", "religious-group", "political-movement"),
                    "NORP"),
    **dict.fromkeys(("product", "vehicle", "ship", "aircraft", "aircraft-type", "car-make", "spaceship",
                     "weapon", "software", "program", "food-dish"), "PRODUCT"),
    **dict.fromkeys(("event", "war", "battle", "festival", "conference", "game", "incident", "natural-disaster"),
                    "EVENT"),
    **dict.fromkeys(("work-of-art", "book", "publication", "picture", "music", "song", "show", "broadcast-program",
                     "film", "magazine", "journal", "opera", "painting", "poem", "story"), "WORK_OF_ART"),
    **dict.fromkeys(("law", "treaty", "court-decision", "constitution", "bill"), "LAW"),
    "language": "LANGUAGE",
}

# Concepts that only structure the graph: roles through them reach their operands (so
# does any other non-frame concept with :opN children, like `under` or `after`).
TRANSPARENT = {"and", "or", "slash", "multi-sentence", "either", "neither", "name"}
PRONOUN_FORMS = {
    "he": {"he", "him", "his", "himself"},
    "she": {"she", "her", "hers", "herself"},
    "it": {"it", "its", "itself"},
    "they": {"they", "them", "their", "theirs", "themselves"},
}
DROPPED_PRONOUNS = {"i", "you", "we", "one"}
# Frames that are not events: discourse relations and modality.
NON_EVENT_FRAMES = {"cause-01", "contrast-01", "possible-01", "obligate-01", "concession-01", "instead-of-91",
                    "have-condition-91", "have-concession-91", "mean-01"}
ROLE_FRAMES = {"have-rel-role-91", "have-org-role-91"}
# Stand-ins AMR uses for what the sentence does not name (their surface, if any).
GENERIC = {
    "person": {"person", "people", "persons", "someone", "somebody", "anyone", "anybody", "everyone", "everybody"},
    "thing": {"thing", "things", "something", "anything", "everything", "what"},
}
STOP_CONCEPTS = {
    "also", "even", "just", "very", "only", "too", "so", "really", "again", "still", "then", "now", "more",
    "most", "much", "many", "some", "all", "each", "every", "any", "this", "that", "these", "those", "other",
    "amr-unknown", "amr-choice", "imperative", "expressive", "interrogative", "here", "there", "same", "such",
    "as-well", "ever", "never", "already", "yet", "quite", "rather", "almost", "about", "up", "out", "down",
    "back", "away", "off", "over", "own", "else", "instead", "et-cetera", "certain", "date-interval",
}
MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december"]

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


def _score(word: str, tok: Token) -> int:
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


@dataclass
class Conversion:
    graph: SentenceGraph
    nodes: int = 0  # concept nodes that became a mention or an action
    aligned: int = 0  # located by the graph's own ~e.N alignments
    unlocated: list[str] = field(default_factory=list)  # "var/concept" grounded to the whole sentence
    empty: bool = False  # the graph has no concept at all (the parser's "()")


def _decode(amr):
    import penman

    return penman.decode(amr) if isinstance(amr, str) else amr


def _alignment_tokens(graph, text: str) -> list[tuple[int, int] | None]:
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


def convert(amr, text: str, base: int = 0, tokens: list[Token] | None = None) -> Conversion:
    """One sentence's AMR (a PENMAN string or a penman Graph) as a SentenceGraph with
    document spans (`base` = the sentence's offset in its document)."""
    g = _decode(amr)
    return _Converter(g, text, base, tokens if tokens is not None else tokenize(text)).run()


# Mentions are grounded names first (surest), then pronouns, dates and the other concepts.
_MENTION_RANK = {"named": 0, "pron": 1, "date": 2, "noun": 3}


class _Converter:
    """The steps of `convert` over one decoded graph, sharing its indexes as attributes."""

    def __init__(self, g, text: str, base: int, toks: list[Token]):
        self.g, self.text, self.base, self.toks = g, text, base, toks
        # amrlib answers "()" for a sentence it could not parse: a node without a concept.
        self.concept = {i.source: str(i.target) for i in g.instances() if i.target}
        self.order = [i.source for i in g.instances() if i.target]  # pre-order: about the surface order
        self.out: dict[str, list[tuple[str, str]]] = {v: [] for v in self.concept}
        self.into: dict[str, list[tuple[str, str]]] = {v: [] for v in self.concept}
        for e in g.edges():
            if e.source in self.out and e.target in self.concept:
                self.out[e.source].append((e.role, e.target))
                self.into[e.target].append((e.role, e.source))
        self.attrs: dict[str, list[tuple[str, str]]] = {v: [] for v in self.concept}
        for a in g.attributes():
            if a.source in self.attrs:
                self.attrs[a.source].append((a.role, str(a.target)))
        self.name_of: dict[str, str] = {}  # named concept -> its :op name
        self.name_node: dict[str, str] = {}  # named concept -> its name node
        self.kind: dict[str, str] = {}  # named, transparent, date, pron, skip, relation, action, noun, folded
        self.folded: dict[str, list[str]] = {}  # head -> its leaf modifiers
        self.alias: dict[str, str] = {}  # a role concept -> the person it names ("mother")
        self.word_of: dict[str, str] = {}  # that person -> the role's word
        self.mention_tokens: set[int] = set()
        self.action_tokens: set[int] = set()
        self.span_of: dict[str, tuple[int, int]] = {}
        self.mentions: dict[str, Mention] = {}
        self.conv = Conversion(SentenceGraph())

    def run(self) -> Conversion:
        from penman import surface

        if not self.concept:
            return Conversion(SentenceGraph(), empty=True)
        self.alignments = surface.alignments(self.g)
        self.align_spans = _alignment_tokens(self.g, self.text) if self.alignments else []
        self.find_names()
        self.classify()
        self.fold_modifiers()
        self.name_role_holders()
        self.ground_mentions()
        return self.assemble(self.ground_actions())

    def aligned(self, triples) -> tuple[int, int] | None:
        """The character span the ~e.N alignments of `triples` cover, if any."""
        idx = [i for t in triples if t in self.alignments for i in self.alignments[t].indices]
        spans = [self.align_spans[i] for i in idx if 0 <= i < len(self.align_spans) and self.align_spans[i] is not None]
        if not spans:
            return None
        return min(s for s, _ in spans), max(e for _, e in spans)

    # -- classify the nodes ----------------------------------------------------------

    def find_names(self) -> None:
        for v in self.concept:
            for role, t in self.out[v]:
                if role == ":name" and self.concept.get(t) == "name":
                    ops = [(r, s) for r, s in self.attrs[t] if r.startswith(":op")]
                    ops.sort(key=lambda x: int(x[0][3:]) if x[0][3:].isdigit() else 0)
                    name = " ".join(s.strip('"') for _, s in ops).strip()
                    if name:
                        self.name_of[v], self.name_node[v] = name, t

    def classify(self) -> None:
        for v, c in self.concept.items():
            self.kind[v] = self.node_kind(v, c)

    def node_kind(self, v: str, c: str) -> str:
        m = FRAME.match(c)
        if v in self.name_of:
            return "named"
        if c in TRANSPARENT or (not m and any(r.startswith(":op") for r, _ in self.out[v])):
            # and/or, and relations over operands: (under :op1 gate), (after :op1 ...)
            return "transparent"
        if c == "date-entity":
            return "date"
        if c in PRONOUN_FORMS:
            return "pron"
        if c in DROPPED_PRONOUNS:
            return "skip"
        if m:
            return "relation" if (m["sense"] == "91" or c in NON_EVENT_FRAMES) else "action"
        if c in STOP_CONCEPTS or c.startswith("-") or not re.search(r"[a-z]", c):
            return "skip"
        return "noun"

    def fold_modifiers(self) -> None:
        """Leaf modifiers fold into their head's text."""
        kind = self.kind
        for v in self.concept:
            if kind[v] not in ("noun", "named", "skip"):
                continue
            only_in = self.into[v]
            if (not self.out[v] and len(only_in) == 1 and only_in[0][0] in (":mod", ":quant")
                    and kind.get(only_in[0][1]) in ("noun", "named")):
                self.folded.setdefault(only_in[0][1], []).append(v)
                kind[v] = "folded"

    def name_role_holders(self) -> None:
        """A generic person/thing that a role frame describes takes the role as its word:
        "Peter's mother" = (person :ARG0-of (have-rel-role-91 :ARG1 Peter :ARG2 mother))."""
        concept = self.concept
        for v, c in concept.items():
            if c not in ROLE_FRAMES:
                continue
            args = {r: t for r, t in self.out[v]}
            holder, role = args.get(":ARG0"), args.get(":ARG2")
            if (holder and role and concept.get(holder) in GENERIC and holder not in self.name_of
                    and self.kind.get(role) == "noun"):
                self.word_of[holder] = concept[role].replace("-", " ")
                self.alias[role] = holder
                self.folded.setdefault(holder, []).extend(self.folded.pop(role, []))

    # -- ground the nodes ------------------------------------------------------------

    def tok_span(self, i: int, j: int) -> tuple[int, int]:
        return self.toks[i].start, self.toks[j].end

    def token_range(self, s: int, e: int) -> list[int]:
        return [i for i, t in enumerate(self.toks) if t.start < e and t.end > s]

    def best_token(self, words: set[str], used: set[int], forms: set[str] | None = None) -> int | None:
        best, best_score = None, 0
        for i, t in enumerate(self.toks):
            if i in used:
                continue
            score = 3 if forms and t.text in forms else max((_score(w, t) for w in words), default=0)
            if score > best_score:
                best, best_score = i, score
        return best

    def claim(self, span: tuple[int, int], used: set[int]) -> None:
        used.update(self.token_range(*span))

    def locate_name(self, name: str) -> tuple[int, int] | None:
        parts = [re.escape(p) for p in name.split()]
        pattern = r"(?<!\w)" + r"\W*".join(parts) + r"(?!\w)"
        for flags in (0, re.IGNORECASE):
            for m in re.finditer(pattern, self.text, flags):
                if not any(i in self.mention_tokens for i in self.token_range(m.start(), m.end())):
                    return m.start(), m.end()
        return None

    def locate_date(self, v: str) -> tuple[int, int] | None:
        found = []
        for role, val in self.attrs[v]:
            cands = _date_forms(role, val.strip('"'))
            for i, t in enumerate(self.toks):
                if t.text in cands and i not in self.mention_tokens:
                    found.append(i)
                    break
        for role, t in self.out[v]:  # :weekday (w / monday), :dayperiod (n / night), :season
            if self.concept.get(t):
                i = self.best_token({self.concept[t]}, self.mention_tokens)
                if i is not None and _score(self.concept[t], self.toks[i]) >= 2:
                    found.append(i)
                    self.kind[t] = "folded"
        if not found:
            return None
        s, e = self.tok_span(min(found), max(found))
        return (s, e) if e - s <= 40 else self.tok_span(found[0], found[0])

    def extend(self, v: str, span: tuple[int, int]) -> tuple[int, int]:
        """Grow a mention's span over its folded modifiers when they stand next to it."""
        toks = self.toks
        s, e = span
        mods = [self.concept[m] for m in self.folded.get(v, [])]
        changed = True
        while mods and changed:
            changed = False
            inside = self.token_range(s, e)
            if not inside:
                break
            for i in (inside[0] - 1, inside[-1] + 1):
                if 0 <= i < len(toks) and i not in self.mention_tokens:
                    w = next((w for w in mods if _score(w, toks[i]) >= 2), None)
                    if w is not None:
                        s, e = min(s, toks[i].start), max(e, toks[i].end)
                        mods.remove(w)
                        changed = True
                        break
        return s, e

    def ground_mention(self, v: str) -> tuple[int, int] | None:
        k = self.kind[v]
        triples = [(v, ":instance", self.concept[v])]
        if k == "named":
            nn = self.name_node[v]
            triples = [(nn, r, s) for r, s in self.attrs[nn]] + [(nn, ":instance", "name")]
        span = self.aligned(triples)
        if span is not None:
            self.conv.aligned += 1
            return span
        if k == "named":
            return self.locate_name(self.name_of[v])
        if k == "date":
            return self.locate_date(v)
        if k == "pron":
            i = self.best_token(set(), self.mention_tokens, PRONOUN_FORMS[self.concept[v]])
            return self.tok_span(i, i) if i is not None else None
        c = self.concept[v]
        if v in self.word_of:
            words = {self.word_of[v].split()[-1]}
        elif c in GENERIC:
            return self.ground_generic(v, c)
        else:
            words = {c.split("-")[0], c.replace("-", "")}
        i = self.best_token(words, self.mention_tokens)
        return self.tok_span(i, i) if i is not None else None

    def ground_generic(self, v: str, c: str) -> tuple[int, int] | None:
        """A bare person/thing: its own word ("someone"), else where the frame it is an
        argument of stands ("the teacher" = (person :ARG0-of (teach-01)))."""
        from penman import layout

        frames = [t for r, t in self.into[v]
                  if self.kind.get(t) == "action" and layout.appears_inverted(self.g, (t, r, v))]
        i = self.best_token(set(), self.mention_tokens, GENERIC[c])
        if i is not None:
            return self.tok_span(i, i)
        for f in frames:
            i = self.best_token({FRAME.match(self.concept[f])["lemma"].split("-")[0]}, self.mention_tokens)
            if i is not None:
                return self.tok_span(i, i)
        return None

    def ground_mentions(self) -> None:
        """Names first (surest), then pronouns, dates and the other concepts, in graph order."""
        kind = self.kind
        mention_vars = sorted((v for v in self.order if kind[v] in _MENTION_RANK and v not in self.alias),
                              key=lambda v: _MENTION_RANK[kind[v]])
        for v in mention_vars:
            if kind[v] == "folded":  # a date's weekday or day period
                continue
            span = self.mention_span(v)
            if span is None:
                continue
            mention = self.mention(v, span)
            if mention is None:
                continue
            self.span_of[v] = span
            self.mentions[v] = mention
            self.conv.nodes += 1

    def mention_span(self, v: str) -> tuple[int, int] | None:
        """Where mention `v` stands, claimed; the whole sentence where it cannot be found;
        None for an unfound pronoun or bare "person" (nothing to index)."""
        span = self.ground_mention(v)
        c = self.concept[v]
        if span is not None and self.kind[v] in ("noun", "named"):
            span = self.extend(v, span)
        if span is not None:
            self.claim(span, self.mention_tokens)
        elif self.kind[v] == "pron" or (c in GENERIC and v not in self.word_of):
            self.conv.unlocated.append(f"{v}/{c}")
            return None
        else:
            self.conv.unlocated.append(f"{v}/{c}")
            span = (0, len(self.text))
        return span

    def mention(self, v: str, span: tuple[int, int]) -> Mention | None:
        """The mention node `v` makes at `span`; None where it has no class worth a key."""
        s, e = span
        surface_text = self.text[s:e]
        k, c = self.kind[v], self.concept[v]
        if k == "named":
            key, mkind, name = entity_key(self.name_of[v]), ENTITY_KINDS.get(c, "PROPN"), self.name_of[v]
        elif k == "date":
            key, mkind, name = entity_key(surface_text), "DATE", surface_text
        elif k == "pron":
            key, mkind, name = "", "PRON", ""
        else:
            word = self.word_of.get(v) or c.replace("-", " ")
            if c in GENERIC and v not in self.word_of and span != (0, len(self.text)):
                if surface_text.lower() not in GENERIC[c]:
                    word = surface_text.lower()  # "teacher", where its frame stands
                elif c == "thing":
                    return None  # "something", "what": no class worth a name
            key, mkind, name = entity_key(word, proper=False), "NOUN", word
            if len(key) <= 2:
                return None
        if k != "pron" and not key:
            return None
        return Mention(self.base + s, self.base + e, surface_text, key, mkind, name)

    # -- actions and their roles -----------------------------------------------------

    def targets(self, t: str, seen: frozenset = frozenset()) -> list[str]:
        """The mentions a role edge into `t` reaches (through and/or and other operands)."""
        t = self.alias.get(t, t)
        if t in self.mentions:
            return [t]
        if self.kind.get(t) == "transparent" and t not in seen:
            return [x for r, o in self.out[t] if r.startswith(":op") for x in self.targets(o, seen | {t})]
        return []

    def ground_actions(self) -> list[tuple[str, Action]]:
        actions: list[tuple[str, Action]] = []
        for v in self.order:
            if self.kind[v] != "action":
                continue
            action = self.action(v)
            if action is not None:
                actions.append((v, action))
                self.conv.nodes += 1
        return actions

    def action(self, v: str) -> Action | None:
        c = self.concept[v]
        lemma = FRAME.match(c)["lemma"]
        span = self.aligned([(v, ":instance", c)])
        if span is not None:
            self.conv.aligned += 1
        else:
            i = self.best_token({lemma.split("-")[0], lemma.replace("-", "")}, self.action_tokens)
            span = self.tok_span(i, i) if i is not None else None
        located = span is not None
        if not located:
            self.conv.unlocated.append(f"{v}/{c}")
            span = (0, len(self.text))
        else:
            self.claim(span, self.action_tokens)
        roles = self.action_roles(v)
        # A nominal frame that only names its own argument ("teacher": the person who
        # teaches) is that argument, not an event of the sentence.
        if not roles or (located and all(self.span_of[m] == span for _, m in roles)):
            return None
        s, e = span
        return Action(self.base + s, self.base + e, self.text[s:e], lemma.replace("-", " "), roles)

    def action_roles(self, v: str) -> list[tuple[str, str]]:
        """(role name, mention variable) for each role edge of action `v`."""
        roles = []
        for role, t in self.out[v]:
            if role in SKIP_ROLES:
                continue
            name = ROLE_NAMES.get(role, role.lstrip(":").lower())
            for m in self.targets(t):
                if (name, m) not in roles:
                    roles.append((name, m))
        return roles

    def assemble(self, actions: list[tuple[str, Action]]) -> Conversion:
        """Surface order for mentions and actions; roles point at mention indices."""
        mentions = self.mentions
        ordered = sorted(mentions, key=lambda v: (mentions[v].start, mentions[v].end))
        index = {v: i for i, v in enumerate(ordered)}
        graph = self.conv.graph
        graph.mentions = [mentions[v] for v in ordered]
        actions.sort(key=lambda x: (x[1].start, x[1].end))
        for _, a in actions:
            a.roles = [(r, index[m]) for r, m in a.roles]
            graph.actions.append(a)
        graph.next_edges = [(i, i + 1) for i in range(len(graph.actions) - 1)]
        return self.conv


def _date_forms(role: str, val: str) -> list[str]:
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


def amr_to_graph(amr, text: str, base: int = 0, tokens: list[Token] | None = None) -> SentenceGraph:
    return convert(amr, text, base, tokens).graph


# -- the extractor --------------------------------------------------------------------

META_FILE = "amrlib_meta.json"
TOKENIZER_FILES = ("tokenizer.json", "vocab.json")


class AmrUnavailable(models.ModelNotFound):
    """amrlib or its parse model is missing: raised when the extractor is built."""


def find_model(model: str = "") -> tuple[Path | None, list[str]]:
    """The amrlib parse-model directory and where we looked: `model` (a registry name or a
    path), else the registry's amr models that are present, else amrlib's `model_stog`."""
    looked: list[str] = []
    candidates: list[Path] = []
    if model:
        registry = models.load_registry()
        if model in registry:
            spec = registry[model]
            found = spec.locate()
            looked.append(f"{spec.pulled_dir()} ({model})")
            if found is not None:
                candidates.append(found)
        else:
            candidates.append(Path(model).expanduser())
            looked.append(str(candidates[-1]))
    else:
        specs = [s for s in models.load_registry().values() if s.role == "amr"]
        for spec in sorted(specs, key=lambda s: not s.default):
            looked.append(f"{spec.pulled_dir()} ({spec.name})")
            found = spec.locate()
            if found is not None:
                candidates.append(found)
        try:
            import importlib.util

            spec = importlib.util.find_spec("amrlib")
            if spec is not None and spec.submodule_search_locations:
                stog = Path(next(iter(spec.submodule_search_locations))) / "data" / "model_stog"
                looked.append(str(stog))
                candidates.append(stog)
        except (ImportError, ValueError):
            pass
    for c in candidates:
        if (c / META_FILE).is_file():
            return c, looked
        inner = sorted(c.glob(f"*/{META_FILE}")) if c.is_dir() else []
        if inner:
            return inner[0].parent, looked
    return None, looked


def default_model_name() -> str:
    specs = [s for s in models.load_registry().values() if s.role == "amr"]
    return next((s.name for s in specs if s.default), specs[0].name if specs else "parse_xfm_bart_base")


def load_parser(model_dir: Path, batch_size: int = 8, device: str | None = None, **kwargs):
    """amrlib's sentence-to-graph model, loaded offline."""
    try:
        import amrlib
    except ImportError as exc:
        raise AmrUnavailable("the amr extractor needs amrlib: pip install 'assistant[amr]'") from exc
    meta = json.loads((model_dir / META_FILE).read_text(encoding="utf-8"))
    if device:
        kwargs["device"] = device
    # The parse_xfm models name their base model's tokenizer (facebook/bart-large...):
    # `models pull` stores it beside the weights, else it must be in the HF cache.
    xfm = any(k in meta.get("inference_module", "") for k in ("parse_xfm", "parse_t5"))
    if xfm and any((model_dir / f).is_file() for f in TOKENIZER_FILES):
        kwargs.setdefault("tok_name_or_path", str(model_dir))
    try:
        return amrlib.load_stog_model(str(model_dir), batch_size=batch_size, **kwargs)
    except Exception as exc:
        raise AmrUnavailable(
            f"the amrlib parse model at {model_dir} does not load: {type(exc).__name__}: "
            f"{str(exc).splitlines()[0] if str(exc) else ''}"
        ) from exc


@register_extractor("amr")
class AmrExtractor:
    """Parses each sentence with amrlib and converts the graph (see `convert`)."""

    name = "amr"

    def costs(self) -> dict:
        """What the parser made of the sentences so far (parsed, unparsed, nodes aligned)."""
        return {"extraction": dict(self.stats)} if self.stats else {}

    def __init__(self, model_dir: str | Path = "", nlp=None, batch_size: int = 8, parser=None,
                 device: str | None = None):
        """`model_dir`: a registry name or a directory ("" = the first one present);
        `nlp`: a spaCy pipeline with a lemmatiser for grounding (else word-form guesses);
        `parser`: anything with amrlib's `parse_sents(list[str]) -> list[str | None]`
        (the model is not loaded then)."""
        self.nlp = nlp
        self.batch_size = batch_size
        self.stats: Counter = Counter()
        if parser is None:
            import importlib.util

            if importlib.util.find_spec("amrlib") is None:
                raise AmrUnavailable("the amr extractor needs amrlib: pip install 'assistant[amr]'")
            found, looked = find_model(str(model_dir) if model_dir else "")
            if found is None:
                raise AmrUnavailable(
                    f"no amrlib parse model at {', '.join(looked) or 'any known place'}: run "
                    f"`assistant models pull {default_model_name()}` on a machine with a network, "
                    f"or set amr_model to a model directory"
                )
            self.model_dir = found
            parser = load_parser(found, batch_size=batch_size, device=device)
        else:
            self.model_dir = None
        self.parser = parser

    @classmethod
    def from_context(cls, context) -> AmrExtractor:
        # spaCy's lemmas ground AMR concepts in their sentence; the entity retrievers read
        # the question through the extractor's pipeline (tags, NER) as well.
        return cls(model_dir=context.config.amr_model, nlp=context.nlp())

    def _parse(self, texts: list[str]) -> list[str | None]:
        clean = [" ".join(t.split()) for t in texts]
        todo = [i for i, t in enumerate(clean) if t]
        out: list[str | None] = [None] * len(texts)
        try:
            parsed = self.parser.parse_sents([clean[i] for i in todo])
            for i, p in zip(todo, parsed):
                out[i] = p
        except Exception as exc:  # noqa: BLE001 - one bad batch must not stop the index
            log.warning("AMR parse of a batch failed (%s); parsing its sentences one by one", exc)
            for i in todo:
                try:
                    out[i] = self.parser.parse_sents([clean[i]])[0]
                except Exception as one_exc:  # noqa: BLE001 - that sentence gets no graph
                    log.warning("AMR parse failed for %r: %s", clean[i][:80], one_exc)
        return out

    def extract(self, texts: list[str], offsets: list[int]) -> list[SentenceGraph]:
        graphs: list[SentenceGraph] = []
        for at in range(0, len(texts), self.batch_size):
            part, bases = texts[at: at + self.batch_size], offsets[at: at + self.batch_size]
            amrs = self._parse(part)
            docs = list(self.nlp.pipe(part)) if self.nlp is not None else [None] * len(part)
            for text, base, amr, doc in zip(part, bases, amrs, docs):
                self.stats["sentences"] += 1
                if not amr:
                    self.stats["unparsed"] += int(bool(text.strip()))
                    graphs.append(SentenceGraph())
                    continue
                try:
                    conv = convert(amr, text, base, spacy_tokens(doc) if doc is not None else None)
                except Exception as exc:  # noqa: BLE001 - a malformed graph: this sentence has none
                    log.warning("AMR graph not converted (%s): %r", exc, text[:80])
                    self.stats["unparsed"] += 1
                    graphs.append(SentenceGraph())
                    continue
                if conv.empty:
                    self.stats["unparsed"] += 1
                self.stats["nodes"] += conv.nodes
                self.stats["aligned"] += conv.aligned
                self.stats["unlocated"] += len(conv.unlocated)
                graphs.append(conv.graph)
        return graphs
