"""How candidate spans from rules, dictionaries, models and people become one set of annotations.

Detection takes the *union* of every source for recall (a missed name is a privacy breach; a
spurious one costs a reviewer a click), then makes the result usable: one span per stretch of
text, never overlapping. The policy, in order:

1. **Clean boundaries** (machine spans only; a person's span is taken as drawn). Leading and
   trailing blanks go; trailing ``, ; :`` go; a trailing ``.`` goes unless it closes an
   abbreviation (``EE.UU.``, ``D.F.``, an initial ``J.``); an unbalanced closing bracket or
   quote goes. In NAME spans leading titles go: ``Dr. Smith`` -> ``Smith`` (titles are never part
   of a name: a surrogate replaces the name and keeps the title). A span left empty is dropped.
2. **Merge within a category.** Spans of the same category that overlap merge into one
   covering span ("10 de octubre" from a model and "octubre de 2016" from a rule give
   "10 de octubre de 2016"). Spans of one category separated only by spaces or tabs (at most
   ``max_gap`` characters, never a newline or punctuation) merge too, for the categories in
   ``merge_whitespace`` (default NAME, DATE, AGE, PROFESSION): "January" + "2071" is one DATE,
   "Pedro" + "Rivera" one NAME, but "Pedro" and "De Miguel" on the next line stay two, and
   "28036" (ZIP) + "Madrid" (CITY) stay two because LOCATION is not merged on blanks (an
   address is several spans). The merged span takes its label and source from the member of
   highest source priority (then the longest, then the best score) and the highest score among
   members; members whose label lost go to the alternatives.
3. **Resolve across categories.** First, containment (``containment=True``): a span lying
   strictly inside a longer span of another category whose source is at least as trusted loses
   to it, whatever the scores ("Miguel", a first name, inside the street "Calle Miguel Benitez 90"
   found by a rule; a dictionary hit has score 1.0 but no context). Then, where spans of
   different categories still overlap (a dictionary LOCATION and a model NAME on "Clarkfield")
   the one ranked first by ``resolve_by`` survives:
   by default higher score, then source priority (human > model > rule > dict), then the longer
   span, then the earlier one. Losers go to the alternatives so a reviewer can switch.

``combine`` returns ``(kept, alternatives)``: ``kept`` sorted and non-overlapping,
``alternatives`` (which may overlap ``kept`` and each other) with the offsets they were proposed
with after cleaning. It works on one document at a time.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from pipeline.detection.candidates import candidates, shipped_matcher
from pipeline.detection.dictionaries import SHIPPED_KINDS
from pipeline.detection.rules import has_pack
from pipeline.schemas import LabelSchema
from pipeline.spans import Document, Span, SpanError, dedupe

DEFAULT_PRIORITY: tuple[str, ...] = ("human", "model", "rule", "dict", "import")
DEFAULT_RESOLVE: tuple[str, ...] = ("score", "priority", "length")
DEFAULT_MERGE_WHITESPACE: frozenset[str] = frozenset({"NAME", "DATE", "AGE", "PROFESSION"})

# Titles in the languages the workbench meets. Matched case-sensitively at the start of a NAME
# span and followed by blanks; "Dr" without a dot and "Mr"/"Ms" count too.
TITLES: tuple[str, ...] = (
    "Dr.", "Dra.", "Drs.", "Dres.", "Dr", "Dra", "DR.", "DRA.", "Sr.", "Sra.", "Srta.", "Mr.", "Mrs.", "Ms.",
    "Mr", "Mrs", "Ms", "Miss", "Prof.", "Profa.", "Prof", "Dña.", "Dª", "D.", "Frau", "Herr", "Fr.", "Hr.",
    "Doctor", "Doctora", "DOCTOR", "DOCTORA",
)
_TITLE_RE = re.compile(
    r"(?:(?:%s)(?::|(?<=\.)|(?=\s))\s*)+" % "|".join(
        re.escape(t) if t.endswith(".") else re.escape(t) + r"(?![\w.])" for t in sorted(TITLES, key=len, reverse=True)))
_ABBREV_END = re.compile(r"(?:(?:\b\w{1,3}\.){2,}|(?<![\w.])[A-ZÁÉÍÓÚÑ]\.|\b(?:Jr|Sr|Inc|Ltd|Co|St|Av|Avda|Dr|Bros)\.)$")
_OPENERS = {")": "(", "]": "[", "»": "«", "”": "“", '"': '"', "'": "'"}


@dataclass(frozen=True)
class CombinePolicy:
    """The knobs of :func:`combine`; see the module docstring for what each does."""

    source_priority: tuple[str, ...] = DEFAULT_PRIORITY
    resolve_by: tuple[str, ...] = DEFAULT_RESOLVE
    merge_whitespace: frozenset[str] = DEFAULT_MERGE_WHITESPACE
    max_gap: int = 3
    trim_human: bool = False
    containment: bool = True
    strip_titles: frozenset[str] = field(default_factory=lambda: frozenset({"NAME"}))

    def priority(self, source: str) -> int:
        kind = source.split(":", 1)[0]
        try:
            return self.source_priority.index(kind)
        except ValueError:
            return len(self.source_priority)


_PAIRS = {"(": ")", "[": "]", "«": "»", "“": "”", '"': '"', "'": "'"}


def _balanced_strip(text: str, s: int, e: int) -> tuple[int, int]:
    """Drop a bracket or quote that is not closed inside the span, or that encloses all of it."""
    if e - s > 2 and text[s] in _PAIRS and text[e - 1] == _PAIRS[text[s]] \
            and text[s] not in text[s + 1:e - 1] and text[e - 1] not in text[s + 1:e - 1]:
        s, e = s + 1, e - 1
    changed = True
    while changed and e > s:
        changed = False
        last = text[e - 1]
        if last in _OPENERS:
            inner = text[s:e - 1]
            opener = _OPENERS[last]
            n_open = inner.count(opener) if opener != last else inner.count(last)
            if (opener != last and n_open == 0) or (opener == last and n_open % 2 == 0):
                e -= 1
                changed = True
        first = text[s] if e > s else ""
        if first in "([«“" and first not in text[s + 1:e] and {"(": ")", "[": "]", "«": "»", "“": "”"}[first] not in text[s + 1:e]:
            s += 1
            changed = True
        elif first in "\"'" and text[s + 1:e].count(first) == 0:
            s += 1
            changed = True
    return s, e


def clean_span(span: Span, text: str, policy: CombinePolicy = CombinePolicy()) -> Span | None:
    """``span`` with blanks, trailing punctuation and (for NAME) leading titles removed; None if empty."""
    s, e = span.start, span.end
    for _ in range(4):
        before = (s, e)
        while s < e and text[s].isspace():
            s += 1
        while e > s and (text[e - 1].isspace() or text[e - 1] in ",;:"):
            e -= 1
        if e > s and text[e - 1] == "." and not _ABBREV_END.search(text[s:e]):
            e -= 1
        s, e = _balanced_strip(text, s, e)
        if span.category in policy.strip_titles and e > s:
            m = _TITLE_RE.match(text, s, e)
            if m:
                s = m.end()  # a title alone is not a name: the span empties and is dropped
        if (s, e) == before:
            break
    if e <= s:
        return None
    return span if (s, e) == (span.start, span.end) else span.with_(start=s, end=e)


def strip_leading_title(span: Span, text: str, policy: CombinePolicy = CombinePolicy()) -> Span:
    """``span`` without the titles it starts with, for the categories in ``policy.strip_titles``
    (NAME): a title is never part of a name, whoever drew the span, and gold sets leave it out.
    A span that is nothing but a title is returned as it is.

    >>> text = "Remitido por: Doctora Marta García Torrelles."
    >>> s = strip_leading_title(Span("d", 14, 44, "NAME", "DOCTOR"), text)
    >>> text[s.start:s.end]
    'Marta García Torrelles'
    """
    if span.category not in policy.strip_titles:
        return span
    m = _TITLE_RE.match(text, span.start, span.end)
    if not m or m.end() >= span.end:
        return span
    return span.with_(start=m.end())


# a place name's last word with the sentence's full stop after it: four letters or more, not an
# abbreviation ("Avda.", "Apto.") nor capitals ("D.F.", "S.A." never match: they hold a dot)
_WORD_FULL_STOP = re.compile(r"(?<![\w.])([^\W\d_]{4,})\.$")
_ABBREVIATIONS_4 = frozenset({"Avda", "Apto", "Ctra", "Dpto", "Prov", "Cdad", "Bros", "Corp", "Dept", "Univ", "Hosp",
                              "Urbz", "Edif", "Trav", "Pasj"})


def strip_trailing_full_stop(span: Span, text: str) -> Span:
    """A model's LOCATION span without the full stop that ends the sentence after it ("San Justo."):
    gold sets leave it out, as rules and dictionaries do. An abbreviation keeps its dot.

    >>> text = "Dr. Luis León, DIAVERUM, San Justo. Buenos Aires"
    >>> s = strip_trailing_full_stop(Span("d", 25, 35, "LOCATION", "TERRITORIO"), text)
    >>> text[s.start:s.end]
    'San Justo'
    """
    if span.category != "LOCATION":
        return span
    m = _WORD_FULL_STOP.search(text, span.start, span.end)
    if not m or m.group(1) in _ABBREVIATIONS_4 or m.group(1).isupper():
        return span
    return span.with_(end=span.end - 1)


# lower-case function words (Spanish, English) that never end an entity in a gold set: "padre de",
# "Marzo a", "hermano mayor de" end where the function word starts
_TRAILING_FUNCTION_WORD = re.compile(r"\s+(?:de|del|y|a|en|con|e|o|la|el|los|las|of|and|the|in|at|to|with|or)$")
# names of organisations go on after "de" ("Hospital General de" + "Ciudad Real"): a model that
# stopped there cut the name short, and leaving the "de" in keeps more of it covered
_ORGANISATION_TYPES = frozenset({"HOSPITAL", "INSTITUCION", "CENTRO_SALUD", "ORGANIZATION", "HEALTHCENTER"})


def strip_trailing_function_word(span: Span, text: str) -> Span:
    """A model's span without a lower-case function word at its end, except for organisations.

    Measured on MEDDOCAN dev with four models: span recall +0.0002 to +0.0003, strict F1 +0.0002 to
    +0.0004; missed PHI tokens per 1,000 +0 to +0.009 (the "de" of a relative's "hermano mayor de
    6 años", a function word).

    >>> text = "padre de 30 años"
    >>> s = strip_trailing_function_word(Span("d", 0, 8, "OTHER", "FAMILIARES_SUJETO_ASISTENCIA"), text)
    >>> text[s.start:s.end]
    'padre'
    """
    if span.label in _ORGANISATION_TYPES:
        return span
    return _cut_tail(span, text, _TRAILING_FUNCTION_WORD)


def _cut_tail(span: Span, text: str, tail: re.Pattern) -> Span:
    """``span`` ending where ``tail`` (anchored at the span's end) starts; as it was when nothing
    matches or the cut would leave it empty."""
    m = tail.search(text, span.start, span.end)
    if not m or m.start() <= span.start:
        return span
    return span.with_(end=m.start())


# what follows an age and is not part of it: MEDDOCAN's gold ends "53 años" before "de edad" 244
# times in train + dev and includes it twice
_AGE_TAIL = re.compile(r"\s+(?:de\s+edad|of\s+age)$")


def strip_age_tail(span: Span, text: str) -> Span:
    """A model's AGE span without a trailing "de edad" ("seis meses de edad" -> "seis meses"), as the
    age rules draw it. MEDDOCAN dev: 2 spans more at seeds 7 and 21, none at seed 13.

    >>> text = "adoptada a los seis meses de edad, sin"
    >>> s = strip_age_tail(Span("d", 15, 33, "AGE", "EDAD_SUJETO_ASISTENCIA"), text)
    >>> text[s.start:s.end]
    'seis meses'
    """
    if span.category != "AGE":
        return span
    return _cut_tail(span, text, _AGE_TAIL)


# a field label written onto the word before it, a line break lost in the source ("Dominguez" +
# "Correo electrónico: ..."): the label is no part of the name
_GLUED_LABEL = re.compile(r"(?<=[a-záéíóúñü])(?:Correo|E-?mail|Email|Tel[eé]fono|Tfno|Tel|Fax)$")


def strip_glued_label(span: Span, text: str) -> Span:
    """A machine span without a contact label glued to its last word ("Ignacio Sarra DominguezCorreo"
    -> "Ignacio Sarra Dominguez"); found twice in MEDDOCAN's training notes, both names after "Dr.",
    where the doctor-name rule read the glued word as one.

    >>> text = "Dr. Ignacio Sarra DominguezCorreo electrónico: x@y.es"
    >>> s = strip_glued_label(Span("d", 4, 33, "NAME", "NOMBRE_PERSONAL_SANITARIO"), text)
    >>> text[s.start:s.end]
    'Ignacio Sarra Dominguez'
    """
    return _cut_tail(span, text, _GLUED_LABEL)


def _rank_key(span: Span, policy: CombinePolicy) -> tuple:
    key: list = []
    for crit in policy.resolve_by:
        if crit == "score":
            key.append(-span.score)
        elif crit == "priority":
            key.append(policy.priority(span.source))
        elif crit == "length":
            key.append(-(span.end - span.start))
        else:
            raise ValueError(f"unknown resolve_by criterion {crit!r}; use score, priority, length")
    key.extend([span.start, span.end, span.label, span.source])
    return tuple(key)


def _label_key(span: Span, policy: CombinePolicy) -> tuple:
    """Which member of a same-category cluster names the merged span."""
    return (policy.priority(span.source), -(span.end - span.start), -span.score, span.start, span.label, span.source)


def _gap_ok(text: str, a_end: int, b_start: int, policy: CombinePolicy) -> bool:
    gap = text[a_end:b_start]
    return 0 <= len(gap) <= policy.max_gap and all(c in " \t\u00a0" for c in gap)


def _merge_category(spans: list[Span], text: str, policy: CombinePolicy) -> tuple[list[Span], list[Span]]:
    """Merge one category's spans (sorted by start) into clusters; returns (merged, alternatives)."""
    merged: list[Span] = []
    alternatives: list[Span] = []
    cluster: list[Span] = []
    c_end = -1

    def flush() -> None:
        if not cluster:
            return
        best = min(cluster, key=lambda x: _label_key(x, policy))
        start = min(x.start for x in cluster)
        end = max(x.end for x in cluster)
        score = max(x.score for x in cluster)
        merged.append(best.with_(start=start, end=end, score=score))
        alternatives.extend(x for x in cluster if x.label != best.label)

    for sp in spans:
        if cluster:
            overlapping = sp.start < c_end
            adjacent = (sp.category in policy.merge_whitespace
                        and sp.start >= c_end and _gap_ok(text, c_end, sp.start, policy))
            if overlapping or adjacent:
                cluster.append(sp)
                c_end = max(c_end, sp.end)
                continue
            flush()
        cluster = [sp]
        c_end = sp.end
    flush()
    return merged, alternatives


def combine(spans: Iterable[Span], text: str, *, source_priority: Sequence[str] | None = None,
            resolve_by: Sequence[str] | None = None, merge_whitespace: Iterable[str] | None = None,
            max_gap: int | None = None, policy: CombinePolicy | None = None) -> tuple[list[Span], list[Span]]:
    """Union of candidate spans for one document -> ``(kept, alternatives)``; see the module docstring.

    Keyword arguments override fields of ``policy`` (default :class:`CombinePolicy`). Raises
    :class:`SpanError` for spans outside the text, without a category, or from several documents.
    """
    pol = policy or CombinePolicy()
    changes: dict = {}
    if source_priority is not None:
        changes["source_priority"] = tuple(source_priority)
    if resolve_by is not None:
        changes["resolve_by"] = tuple(resolve_by)
    if merge_whitespace is not None:
        changes["merge_whitespace"] = frozenset(merge_whitespace)
    if max_gap is not None:
        changes["max_gap"] = max_gap
    if changes:
        pol = CombinePolicy(**{**pol.__dict__, **changes})

    items = list(spans)
    if not items:
        return [], []
    doc_ids = {s.doc_id for s in items}
    if len(doc_ids) > 1:
        raise SpanError(f"combine works on one document at a time; got {len(doc_ids)} document ids")
    n = len(text)
    cleaned: list[Span] = []
    for s in items:
        if not (0 <= s.start < s.end <= n):
            raise SpanError(f"{s.doc_id}: span {s.start}-{s.end} ({s.label}) lies outside the text (length {n})")
        if not s.category:
            raise SpanError(f"{s.doc_id}: span {s.start}-{s.end} has no category")
        if s.source.startswith("human") and not pol.trim_human:
            cleaned.append(s)
            continue
        c = clean_span(s, text, pol)
        if c is not None:
            cleaned.append(c)

    # 2. merge within each category
    by_cat: dict[str, list[Span]] = {}
    for s in cleaned:
        by_cat.setdefault(s.category, []).append(s)
    merged: list[Span] = []
    alternatives: list[Span] = []
    for cat in sorted(by_cat):
        group = sorted(by_cat[cat], key=lambda x: (x.start, -x.end, pol.priority(x.source)))
        m, alt = _merge_category(group, text, pol)
        merged.extend(m)
        alternatives.extend(alt)

    # 3a. a span inside a longer span of another category from an equally or more trusted
    # source loses to it ("Miguel" in "Calle Miguel Benitez 90", "Madrid" in "Hospital ... Madrid")
    if pol.containment:
        survivors: list[Span] = []
        for s in merged:
            if any(o.category != s.category and o.start <= s.start and s.end <= o.end
                   and (o.end - o.start) > (s.end - s.start) and pol.priority(o.source) <= pol.priority(s.source)
                   for o in merged):
                alternatives.append(s)
            else:
                survivors.append(s)
        merged = survivors

    # 3b. resolve the remaining overlaps across categories, best first
    kept: list[Span] = []
    taken: list[tuple[int, int]] = []
    for s in sorted(merged, key=lambda x: _rank_key(x, pol)):
        if any(s.start < e and b < s.end for b, e in taken):
            alternatives.append(s)
            continue
        kept.append(s)
        taken.append((s.start, s.end))
    kept.sort(key=lambda x: (x.start, x.end))
    alternatives.sort(key=lambda x: (x.start, x.end, x.label))
    return kept, dedupe(alternatives)


# --------------------------------------------------------------------------- model spans first

TYPE_POLICIES = ("model+rules", "model", "rules-first")

#: sources whose type beats the model's on the same offsets: every rule (it read a field label or a
#: format) and the shipped lists of organisation names ("Pfizer" is a maker wherever it stands);
#: not lists of person or place names, which cannot tell "Santiago" the town from the name
TYPE_WINNING_SOURCES: tuple[str, ...] = ("rule:", *sorted(
    f"dict:{name}" for name, (_, generic, _) in SHIPPED_KINDS.items() if generic == "ORGANIZATION"))
#: rules that read a field label or a strict format: one that contains every model span it overlaps
#: replaces them whatever their type ("NSS: 92-91-90-8443-1" where the model saw a date
#: "92-91-90-8443"; a phone number the model cut in three). A rule that reads words (hospitals,
#: streets) does not: "Hospital del Sureste Ronda del Sur, 10" is a hospital and a street.
FORMAT_RULE_SOURCES: tuple[str, ...] = (
    "rule:header_fields", "rule:record_numbers", "rule:phones", "rule:email", "rule:ssn", "rule:colegiado")


# what may stand between the numbers or addresses of one contact line: separators and the line's
# field labels ("Tlf. 609 518571 / Fax 93 2607982", "917277336 - 606409021", "E-mail.x@y.es")
_CONTACT_GLUE = re.compile(
    r"(?:[\s/|;,.:()+\-\u2013]|\b(?:y|o|and|or|fax|tel|tfno|tfnos|tlf|tlfs|telf|telfs|tel[eé]fonos?|phone|"
    r"m[oó]vil(?:es)?|(?:e-?)?mail|correos?|electr[oó]nicos?)\b)*", re.IGNORECASE)


#: the format rules of a contact line: one such span may replace a model span on its own
CONTACT_RULE_SOURCES: tuple[str, ...] = ("rule:phones", "rule:email")
#: a header field's values split a model span only two or more at a time ("San Lucas, Coyoacan, CDMX"
#: after "Localidad/ Provincia:"), never to move one edge (MEDDOCAN's gold draws "4 Izq.." both with
#: and without the abbreviation's dot)
_HEADER_FIELD_SOURCE = "rule:header_fields"


def _outside(span: Span, covers: list[Span], text: str) -> Span | None:
    """``span`` without what ``covers`` (non-overlapping) cover: None if one holds it whole, cut at
    the edge of one it runs past, cleaned as any machine span."""
    for r in covers:
        if not (r.start < span.end and span.start < r.end):
            continue
        if r.start <= span.start and span.end <= r.end:
            return None
        cut = clean_span(span.with_(start=r.end) if span.start >= r.start else span.with_(end=r.start), text)
        if cut is None:
            return None
        span = cut
    return span


def split_on_format_rules(model_spans: list[Span], others: list[Span], text: str) -> list[Span]:
    """Model spans where each one that runs a contact line together is replaced by the
    :data:`CONTACT_RULE_SOURCES` spans it overlaps, when all else in it is separators and field labels
    (or by two or more values of a header field the model ran together).

    A sequence model reads "918823884 / 918823984 / 619128686" or "848428434 Fax 848422528" as one
    entity, and takes "E-mail." into the address after it; the phone and e-mail rules know where
    each number or address starts and ends, and the label between them ("Fax") knows its type.
    A model span with any other word in it (a street before the phone) is kept as it is.

    >>> text = "Tfno. 848428434 Fax 848422528"
    >>> model = [Span("d", 6, 29, "CONTACT", "NUMERO_TELEFONO")]
    >>> rules = [Span("d", 6, 15, "CONTACT", "NUMERO_TELEFONO", source="rule:phones"),
    ...          Span("d", 20, 29, "CONTACT", "NUMERO_FAX", source="rule:phones")]
    >>> [(text[s.start:s.end], s.label) for s in split_on_format_rules(model, rules, text)]
    [('848428434', 'NUMERO_TELEFONO'), ('848422528', 'NUMERO_FAX')]
    """
    fmt = sorted((o for o in others if o.source in CONTACT_RULE_SOURCES or o.source == _HEADER_FIELD_SOURCE),
                 key=lambda o: (o.start, o.end))
    if not fmt:
        return model_spans
    kept: list[Span] = []
    replacing: list[Span] = []
    for m in model_spans:
        inside = [o for o in fmt if o.start < m.end and m.start < o.end]
        if not inside or (len(inside) == 1 and (inside[0].start, inside[0].end) == (m.start, m.end)):
            kept.append(m)
            continue
        gaps, pos = [], m.start
        for o in inside:
            if o.start > pos:
                gaps.append(text[pos:o.start])
            pos = max(pos, o.end)
        if pos < m.end:
            gaps.append(text[pos:m.end])
        if all(_CONTACT_GLUE.fullmatch(g) for g in gaps) and (
                len(inside) > 1 or inside[0].source in CONTACT_RULE_SOURCES):
            replacing.extend(o for o in inside if o not in replacing)
        else:
            kept.append(m)
    # the other model spans give up what such a rule span covers (none overlap; none of the text
    # the model covered is left uncovered): one inside it goes, one that runs on past it is cut
    # at its edge ("garamendi.pm@aju.ej-gv.es" where the model began a street at "-gv.es")
    out = replacing + [x for x in (_outside(k, replacing, text) for k in kept) if x is not None]
    return sorted(out, key=lambda s: (s.start, s.end))


#: shipped place lists (towns, provinces or states, countries) whose hits may end an organisation
PLACE_LIST_SOURCES: tuple[str, ...] = tuple(sorted(
    f"dict:{name}" for name, (_, generic, _) in SHIPPED_KINDS.items() if generic in {"CITY", "STATE", "COUNTRY"}))
# words that open a street or a postal address (es, ca, gl) and never end an organisation's or a
# person's name in MEDDOCAN's gold (0 of its organisation and name spans end with one; 812 of its
# streets begin with one). "Camino" is left out: it ends names too ("Hospital Virgen del Camino")
_STREET_WORDS: tuple[str, ...] = ("Passeig", "Carr", "Ctra", "Carretera", "Calle", "C/", "Avda", "Avenida", "Av",
                                  "Paseo", "Plaza", "Pza", "Ronda", "Rúa", "Vía", "Travesía", "Urb", "Apartado")
_STREET_OPENER = re.compile(r"\s(?:%s)\.?$" % "|".join(map(re.escape, _STREET_WORDS)))
# a place after one of these words is part of the name, not beside it: an article or linking word
# ("Hospital Universitario La Paz", "Hospital Clinic i Provincial Barcelona"), a generic word that a
# town completes ("Hospital Universitario Donostia", "Hospital Torrevieja"), a street word ("Carretera
# Toledo"); es and en words, as the combination step is locale-neutral
_NAME_GOES_ON = frozenset({
    "la", "el", "los", "las", "de", "del", "en", "i", "y", "e", "of", "the", "and", "at", "in", "san", "santa",
    "sant", "st", "hospital", "universitario", "universitari", "university", "provincial", "general", "clínico",
    "clinico", "clinic", "clínic", "hospitalario", "comarcal", "regional", "complejo", "centro", "center",
    "centre", "instituto", "institut", "institute", "clínica", "clinica", "fundación", "infantil", "materno",
    "nacional", "policlínica", "sanatorio", "ciudad", "área", "servicio", "medical", "county", "memorial",
    "camino", "via", "street", "road", "avenue",
}) | {w.lower() for w in _STREET_WORDS}


def split_trailing_place(model_spans: list[Span], others: list[Span], text: str) -> list[Span]:
    """Model spans where an organisation that runs into the town written after it ends before the
    town, and the town (a shipped place-list hit, ``others`` uncombined) becomes its own span.

    Affiliations name the hospital and then its town with no "de" between ("Hospital Virgen Del
    Puerto Plasencia", "Instituto Colombiano del Dolor Medellín"); a sequence model takes the town
    into the name. In MEDDOCAN's 500 training notes the gold writes such a town as its own span 10
    times and inside the name 3 times, each of those 3 after a word of :data:`_NAME_GOES_ON`
    ("Hospital Universitario Donostia"), which keeps the name whole here too. A maker run into its
    country is split the same way ("Septodont Francia"). A town after "de" stays in the name: the
    gold goes both ways there.

    >>> text = "Hospital Virgen Del Puerto Plasencia."
    >>> model = [Span("d", 0, 36, "LOCATION", "HOSPITAL")]
    >>> towns = [Span("d", 27, 36, "LOCATION", "TERRITORIO", source="dict:cities")]
    >>> [(text[s.start:s.end], s.label) for s in split_trailing_place(model, towns, text)]
    [('Hospital Virgen Del Puerto', 'HOSPITAL'), ('Plasencia', 'TERRITORIO')]
    """
    places = sorted((o for o in others if o.source in PLACE_LIST_SOURCES), key=lambda o: o.start)
    if not places:
        return model_spans
    out: list[Span] = []
    for m in model_spans:
        place = None
        if m.label in _ORGANISATION_TYPES:
            for p in places:
                words = text[m.start:p.start].split()
                if p.end == m.end and p.start > m.start and text[p.start - 1] == " " and words \
                        and words[-1][:1].isupper() and words[-1].strip(".,").lower() not in _NAME_GOES_ON:
                    place = p
                    break
        if place is None:
            out.append(m)
            continue
        out.append(m.with_(end=m.start + len(text[m.start:place.start].rstrip())))
        out.append(place)
    return sorted(out, key=lambda s: (s.start, s.end))


#: the type of a street in the schemas the workbench ships
STREET_TYPES = frozenset({"CALLE", "STREET"})


def hand_street_word_over(model_spans: list[Span], text: str) -> list[Span]:
    """Model spans where an organisation or a person's name that took the first word of the street
    after it ("Hospital Sant Joan de Déu Passeig" + "Sant Joan de Déu, 2", "Igor Azurmendi Arin
    Apartado" + "Calle Oria 9, 3D") gives that word back to the street's span.

    Only when a street span of the model follows right after the word (blanks or its dot between),
    so the word stays covered even where it was a surname ("Juan Calle").

    >>> text = "Hospital de Cantoblanco. Carr. Vía de Servicio, Km 14.500, 28049 Madrid"
    >>> model = [Span("d", 0, 29, "LOCATION", "HOSPITAL"), Span("d", 31, 57, "LOCATION", "CALLE")]
    >>> [text[s.start:s.end] for s in hand_street_word_over(model, text)]
    ['Hospital de Cantoblanco', 'Carr. Vía de Servicio, Km 14.500']
    """
    out = sorted(model_spans, key=lambda s: (s.start, s.end))
    for i in range(len(out) - 1):
        org, street = out[i], out[i + 1]
        if (org.label not in _ORGANISATION_TYPES and org.category != "NAME") or street.label not in STREET_TYPES:
            continue
        m = _STREET_OPENER.search(text, org.start, org.end)
        if m is None or text[org.end:street.start].strip(" .") or m.start() <= org.start:
            continue
        kept = clean_span(org.with_(end=m.start()), text)
        if kept is None:
            continue
        out[i], out[i + 1] = kept, street.with_(start=m.start() + 1)
    return out


# an acronym in brackets: two capitals or more, up to ten characters ("HULP", "HU12O", "CHUVI")
_BRACKETED_ACRONYM = re.compile(r"[ \t]*\(([A-ZÁÉÍÓÚÑ][A-ZÁÉÍÓÚÑ0-9\-]{1,9})\)")


def add_bracketed_acronyms(spans: list[Span], text: str) -> list[Span]:
    """``spans`` (non-overlapping) plus, after each organisation, the acronym in brackets that
    follows it ("Hospital Universitario La Paz (HULP)"), of the organisation's type and source.

    MEDDOCAN's gold marks each such acronym (5 of 5 in train + dev); a sequence model often leaves
    it, or takes the bracket with it ("CHUVI)"). A span inside the brackets gives way to the
    acronym; one that runs past them leaves them as they are. Run on the combined spans, so an
    organisation that a rule found gets its acronym too.

    >>> text = "Hospital Universitario La Paz (HULP). Paseo de la Castellana"
    >>> out = add_bracketed_acronyms([Span("d", 0, 29, "LOCATION", "HOSPITAL")], text)
    >>> [(text[s.start:s.end], s.label) for s in out]
    [('Hospital Universitario La Paz', 'HOSPITAL'), ('HULP', 'HOSPITAL')]
    """
    out = list(spans)
    for org in spans:
        if org.label not in _ORGANISATION_TYPES:
            continue
        m = _BRACKETED_ACRONYM.match(text, org.end)
        if m is None or sum(c.isupper() for c in m.group(1)) < 2:
            continue
        inside = [x for x in out if x.start < m.end() and m.start() < x.end]
        if all(m.start() <= x.start and x.end <= m.end() for x in inside):
            out = [x for x in out if x not in inside] + [org.with_(start=m.start(1), end=m.end(1))]
    return sorted(out, key=lambda s: (s.start, s.end))


#: the types of a patient's relatives ("su madre", "hermano mayor")
RELATIVE_TYPES = frozenset({"FAMILIARES_SUJETO_ASISTENCIA", "FAMILY"})
_KINSHIP_WORDS = re.compile(r"[^\W\d_A-ZÁÉÍÓÚÑ]+(?: [^\W\d_A-ZÁÉÍÓÚÑ]+){0,2} ")
_FIRST_NAME_SOURCE = "dict:first_names"


def split_relative_name(model_spans: list[Span], others: list[Span], text: str) -> list[Span]:
    """Model spans where a relative run into the first name after it ("su madre Carmen", "hermana
    mayor Maite") becomes two spans, the kinship words and the name, both of the relative's type.

    MEDDOCAN's gold writes them apart every time (2 in train, 3 in dev, none together); a sequence
    model reads one entity. The name must be a hit of the shipped first-name list (``others``
    uncombined) ending the span, after lower-case words only.

    >>> text = "acompañada de su madre Carmen y su hermano"
    >>> model = [Span("d", 17, 29, "OTHER", "FAMILIARES_SUJETO_ASISTENCIA")]
    >>> names = [Span("d", 23, 29, "NAME", "NOMBRE_SUJETO_ASISTENCIA", source="dict:first_names")]
    >>> [text[s.start:s.end] for s in split_relative_name(model, names, text)]
    ['madre', 'Carmen']
    """
    names = {(o.start, o.end) for o in others if o.source == _FIRST_NAME_SOURCE}
    if not names:
        return model_spans
    out: list[Span] = []
    for m in model_spans:
        kin = _KINSHIP_WORDS.match(text, m.start, m.end) if m.label in RELATIVE_TYPES else None
        if kin is None or (kin.end(), m.end) not in names:
            out.append(m)
            continue
        out.append(m.with_(end=kin.end() - 1))
        out.append(m.with_(start=kin.end()))
    return out


def merge_model_first(model_spans: list[Span], others: list[Span], type_policy: dict[str, str]) -> list[Span]:
    """Model spans plus rule/dictionary spans, per the type of each rule/dictionary span:

    * ``model+rules`` (default): added where no model span overlaps; where the model's spans
      it overlaps all have its type and lie inside it, it replaces them (the rule saw the whole
      "diciembre-08" where the model stopped at "diciembre"); where a span of a
      :data:`TYPE_WINNING_SOURCES` source has exactly a model span's offsets but another type,
      its type wins: a rule reads the field label or the format ("País: España" is a country,
      "Fax: ..." a fax number, an address with "@" an e-mail), an organisation list knows
      "Merck" is a maker, where the model guesses between neighbouring types (MEDDOCAN dev,
      three default models: strict F1 +0.0008 to +0.0021, span recall unchanged). A list of
      person or place names does not: the model was right on 7 of 8 such disagreements; a
      :data:`FORMAT_RULE_SOURCES` span that contains every model span it overlaps replaces them
      whatever their type (+0.0002 to +0.0004 span recall on four models);
    * ``model``: never added (the model alone decides this type);
    * ``rules-first``: added, and the model spans it overlaps are dropped (the rules know this
      type's boundaries better, e.g. ages "52 años" or phone numbers).

    ``others`` must not overlap each other (pass them through :func:`combine`).
    """
    first = [o for o in others if type_policy.get(o.label) == "rules-first"]
    kept_model = [m for m in model_spans if not any(o.start < m.end and m.start < o.end for o in first)]
    out = kept_model + first
    for o in others:
        pol = type_policy.get(o.label, "model+rules")
        if pol != "model+rules":
            continue
        hit = [m for m in out if o.start < m.end and m.start < o.end]
        if not hit:
            out.append(o)
        elif len(hit) == 1 and (hit[0].start, hit[0].end) == (o.start, o.end) and hit[0].label != o.label \
                and o.source.startswith(TYPE_WINNING_SOURCES):
            out = [m for m in out if m is not hit[0]] + [o]
        elif all(o.start <= m.start and m.end <= o.end for m in hit) \
                and any((m.start, m.end) != (o.start, o.end) for m in hit) \
                and (all(m.label == o.label for m in hit) or o.source in FORMAT_RULE_SOURCES):
            out = [m for m in out if m not in hit] + [o]
    return sorted(out, key=lambda s: (s.start, s.end))


def learn_type_policy(docs: Sequence[Document], model_spans: Sequence[list[Span]], schema: LabelSchema,
                      locale: str, *, min_gain: int = 1) -> dict[str, str]:
    """Per fine type, the way of merging rule/dictionary spans into the model's that gives the
    best strict F1 on ``docs`` (a dev split with gold spans), one type at a time, most frequent
    first. A type moves off the default (``model+rules``) only when that gains at least
    ``min_gain`` in (correct - spurious) spans, so noise on a small dev set does not decide."""
    matcher = shipped_matcher(locale, schema)
    rules = has_pack(locale)
    others = []
    for d in docs:
        cands = candidates(d, schema, locale, rules=rules, matcher=matcher)
        others.append(combine(cands, d.text)[0] if cands else [])
    gold = [{(s.start, s.end, s.label) for s in d.spans} for d in docs]

    def net(policy: dict[str, str]) -> int:
        tp = fp = 0
        for g, ms, os_ in zip(gold, model_spans, others):
            pred = {(s.start, s.end, s.label) for s in merge_model_first(ms, os_, policy)}
            tp += len(pred & g)
            fp += len(pred - g)
        return tp - fp  # near the operating point (TP ~ gold >> FP) F1 moves with TP - FP

    support: dict[str, int] = {}
    for g in gold:
        for _, _, t in g:
            support[t] = support.get(t, 0) + 1
    types = {o.label for os_ in others for o in os_}
    policy: dict[str, str] = {}
    current = net(policy)
    for t in sorted(types, key=lambda t: (-support.get(t, 0), t)):
        best_pol, best = "model+rules", current
        for pol in ("model", "rules-first"):
            trial = {**policy, t: pol}
            v = net(trial)
            if v >= best + min_gain:
                best_pol, best = pol, v
        if best_pol != "model+rules":
            policy[t] = best_pol
            current = best
    return policy
