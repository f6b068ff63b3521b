"""Reading a decoded AMR graph (GroundedKG section 3.2): its nodes indexed and each one
classified, before anything is looked for in the sentence (amr_convert.py grounds them).

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
"""

from __future__ import annotations

import re

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


def decode_amr(amr):
    import penman

    return penman.decode(amr) if isinstance(amr, str) else amr


class AmrGraph:
    """One decoded graph: its concepts, edges and attributes indexed by variable, and what
    each node is (named, date, pronoun, action, noun...), read from the graph alone."""

    def __init__(self, g):
        self.g = g
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
