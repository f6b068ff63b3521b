"""AMR graph -> SentenceGraph (GroundedKG section 3.2): the nodes that amr_graph.py
classified are grounded in their sentence and assembled into mentions, actions and roles.

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

import re
from dataclasses import dataclass, field

from .graph import ENTITY_KINDS, FRAME, GENERIC, PRONOUN_FORMS, ROLE_NAMES, SKIP_ROLES, AmrGraph, decode_amr
from .words import Token, alignment_tokens, date_forms, match_score, tokenize
from ..extract import Action, Mention, SentenceGraph
from ..normalize import entity_key


@dataclass
class Conversion:
    graph: SentenceGraph
    nodes: int = 0  # concept nodes that became a mention or an action
    aligned: int = 0  # located by the graph's own ~e.N alignments
    unlocated: list[str] = field(default_factory=list)  # "var/concept" grounded to the whole sentence
    empty: bool = False  # the graph has no concept at all (the parser's "()")


def convert(amr, text: str, base: int = 0, tokens: list[Token] | None = None) -> Conversion:
    """One sentence's AMR (a PENMAN string or a penman Graph) as a SentenceGraph with
    document spans (`base` = the sentence's offset in its document)."""
    g = decode_amr(amr)
    return _Converter(g, text, base, tokens if tokens is not None else tokenize(text)).run()


# Mentions are grounded names first (surest), then pronouns, dates and the other concepts.
_MENTION_RANK = {"named": 0, "pron": 1, "date": 2, "noun": 3}


class _Converter(AmrGraph):
    """The steps of `convert` over one decoded graph, sharing its indexes as attributes."""

    def __init__(self, g, text: str, base: int, toks: list[Token]):
        super().__init__(g)
        self.text, self.base, self.toks = text, base, toks
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
        self.align_spans = alignment_tokens(self.g, self.text) if self.alignments else []
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
            score = 3 if forms and t.text in forms else max((match_score(w, t) for w in words), default=0)
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
            cands = date_forms(role, val.strip('"'))
            for i, t in enumerate(self.toks):
                if t.text in cands and i not in self.mention_tokens:
                    found.append(i)
                    break
        for role, t in self.out[v]:  # :weekday (w / monday), :dayperiod (n / night), :season
            if self.concept.get(t):
                i = self.best_token({self.concept[t]}, self.mention_tokens)
                if i is not None and match_score(self.concept[t], self.toks[i]) >= 2:
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
                    w = next((w for w in mods if match_score(w, toks[i]) >= 2), None)
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
