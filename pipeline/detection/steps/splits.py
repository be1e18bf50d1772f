"""Boundary steps where a rule or a shipped list shows where one entity ends and the next begins,
in a model's span that ran two together: a contact line (format rules), a town after an
organisation (place lists), a first name after a relative (the first-name list), a street's
opening word after an organisation or a name; and, after the merge, the acronym in brackets
after an organisation.

The words are the locale pack's (``ctx.words``); which types are organisations, streets and
relatives is the schema's (``ctx.plays``); the sources are rule and list names, no language's.
"""
from __future__ import annotations

from pipeline.detection.combine import CombinePolicy, clean_span
from pipeline.detection.dictionary_lists import SHIPPED_KINDS
from pipeline.detection.steps.registry import StepContext, boundary_step
from pipeline.spans import Span

#: the format rules of a contact line: one such span may replace a model span on its own
CONTACT_RULE_SOURCES: tuple[str, ...] = ("rule:phones", "rule:email")
#: a header field's values split a model span only two or more at a time ("San Lucas, Coyoacan, CDMX"
#: after "Localidad/ Provincia:"), never to move one edge (MEDDOCAN's gold draws "4 Izq.." both with
#: and without the abbreviation's dot)
_HEADER_FIELD_SOURCE = "rule:header_fields"


def _outside(span: Span, covers: list[Span], text: str, policy: CombinePolicy) -> Span | None:
    """``span`` without what ``covers`` (non-overlapping) cover: None if one holds it whole, cut at
    the edge of one it runs past, cleaned as any machine span."""
    for r in covers:
        if not (r.start < span.end and span.start < r.end):
            continue
        if r.start <= span.start and span.end <= r.end:
            return None
        cut = clean_span(span.with_(start=r.end) if span.start >= r.start else span.with_(end=r.start), text, policy)
        if cut is None:
            return None
        span = cut
    return span


@boundary_step("split_on_format_rules", "model")
def split_on_format_rules(model_spans: list[Span], ctx: StepContext) -> list[Span]:
    """Model spans where each one that runs a contact line together is replaced by the
    :data:`CONTACT_RULE_SOURCES` spans (of ``ctx.resolved``) it overlaps, when all else in it is
    separators and field labels (``ctx.words.contact_separators``), or by two or more values of a
    header field the model ran together.

    A sequence model reads "918823884 / 918823984 / 619128686" or "848428434 Fax 848422528" as one
    entity, and takes "E-mail." into the address after it; the phone and e-mail rules know where
    each number or address starts and ends, and the label between them ("Fax") knows its type.
    A model span with any other word in it (a street before the phone) is kept as it is.

    >>> text = "Tfno. 848428434 Fax 848422528"
    >>> model = [Span("d", 6, 29, "CONTACT", "NUMERO_TELEFONO")]
    >>> rules = [Span("d", 6, 15, "CONTACT", "NUMERO_TELEFONO", source="rule:phones"),
    ...          Span("d", 20, 29, "CONTACT", "NUMERO_FAX", source="rule:phones")]
    >>> ctx = StepContext.for_locale(text, "meddocan", "es", resolved=rules)
    >>> [(text[s.start:s.end], s.label) for s in split_on_format_rules(model, ctx)]
    [('848428434', 'NUMERO_TELEFONO'), ('848422528', 'NUMERO_FAX')]
    """
    fmt = sorted((o for o in ctx.resolved if o.source in CONTACT_RULE_SOURCES or o.source == _HEADER_FIELD_SOURCE),
                 key=lambda o: (o.start, o.end))
    if not fmt:
        return model_spans
    text = ctx.text
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
        if all(ctx.words.contact_separators.fullmatch(g) for g in gaps) and (
                len(inside) > 1 or inside[0].source in CONTACT_RULE_SOURCES):
            replacing.extend(o for o in inside if o not in replacing)
        else:
            kept.append(m)
    # the other model spans give up what such a rule span covers (none overlap; none of the text
    # the model covered is left uncovered): one inside it goes, one that runs on past it is cut
    # at its edge ("garamendi.pm@aju.ej-gv.es" where the model began a street at "-gv.es")
    policy = CombinePolicy(words=ctx.words)
    out = replacing + [x for x in (_outside(k, replacing, text, policy) for k in kept) if x is not None]
    return sorted(out, key=lambda s: (s.start, s.end))


_FIRST_NAME_SOURCE = "dict:first_names"


#: shipped place lists (towns, provinces or states, countries) whose hits may end an organisation
PLACE_LIST_SOURCES: tuple[str, ...] = tuple(sorted(
    f"dict:{name}" for name, (_, generic, _) in SHIPPED_KINDS.items() if generic in {"CITY", "STATE", "COUNTRY"}))


@boundary_step("split_trailing_place", "model")
def split_trailing_place(model_spans: list[Span], ctx: StepContext) -> list[Span]:
    """Model spans where an organisation that runs into the town written after it ends before the
    town, and the town (a shipped place-list hit of ``ctx.candidates``) becomes its own span.

    Affiliations name the hospital and then its town with no "de" between ("Hospital Virgen Del
    Puerto Plasencia", "Instituto Colombiano del Dolor Medellín"); a sequence model takes the town
    into the name. In MEDDOCAN's 500 training notes the gold writes such a town as its own span 10
    times and inside the name 3 times, each of those 3 after a word the name goes on after
    (``ctx.words.name_continuations``: "Hospital Universitario Donostia"), which keeps the name
    whole here too. A maker run into its
    country is split the same way ("Septodont Francia"). A town after "de" stays in the name: the
    gold goes both ways there.

    >>> text = "Hospital Virgen Del Puerto Plasencia."
    >>> model = [Span("d", 0, 36, "LOCATION", "HOSPITAL")]
    >>> towns = [Span("d", 27, 36, "LOCATION", "TERRITORIO", source="dict:cities")]
    >>> ctx = StepContext.for_locale(text, "meddocan", "es", candidates=towns)
    >>> [(text[s.start:s.end], s.label) for s in split_trailing_place(model, ctx)]
    [('Hospital Virgen Del Puerto', 'HOSPITAL'), ('Plasencia', 'TERRITORIO')]
    """
    places = sorted((o for o in ctx.candidates if o.source in PLACE_LIST_SOURCES), key=lambda o: o.start)
    if not places:
        return model_spans
    text, goes_on = ctx.text, ctx.words.name_continuations
    out: list[Span] = []
    for m in model_spans:
        place = None
        if ctx.plays(m, "organisation"):
            for p in places:
                words = text[m.start:p.start].split()
                if p.end == m.end and p.start > m.start and text[p.start - 1] == " " and words \
                        and words[-1][:1].isupper() and words[-1].strip(".,").lower() not in goes_on:
                    place = p
                    break
        if place is None:
            out.append(m)
            continue
        out.append(m.with_(end=m.start + len(text[m.start:place.start].rstrip())))
        out.append(place)
    return sorted(out, key=lambda s: (s.start, s.end))


@boundary_step("hand_street_word_over", "model")
def hand_street_word_over(model_spans: list[Span], ctx: StepContext) -> list[Span]:
    """Model spans where an organisation or a person's name that took the first word of the street
    after it ("Hospital Sant Joan de Déu Passeig" + "Sant Joan de Déu, 2", "Igor Azurmendi Arin
    Apartado" + "Calle Oria 9, 3D") gives that word back to the street's span.

    Only when a street span of the model follows right after the word (blanks or its dot between),
    so the word stays covered even where it was a surname ("Juan Calle"). The words that open a
    street are ``ctx.words.street_words``.

    >>> text = "Hospital de Cantoblanco. Carr. Vía de Servicio, Km 14.500, 28049 Madrid"
    >>> model = [Span("d", 0, 29, "LOCATION", "HOSPITAL"), Span("d", 31, 57, "LOCATION", "CALLE")]
    >>> [text[s.start:s.end] for s in hand_street_word_over(model, StepContext.for_locale(text, "meddocan", "es"))]
    ['Hospital de Cantoblanco', 'Carr. Vía de Servicio, Km 14.500']
    """
    text, policy = ctx.text, CombinePolicy(words=ctx.words)
    out = sorted(model_spans, key=lambda s: (s.start, s.end))
    for i in range(len(out) - 1):
        org, street = out[i], out[i + 1]
        if (not ctx.plays(org, "organisation") and org.category != "NAME") or not ctx.plays(street, "street"):
            continue
        m = ctx.words.street_opener.search(text, org.start, org.end)
        if m is None or text[org.end:street.start].strip(" .") or m.start() <= org.start:
            continue
        kept = clean_span(org.with_(end=m.start()), text, policy)
        if kept is None:
            continue
        out[i], out[i + 1] = kept, street.with_(start=m.start() + 1)
    return out


@boundary_step("add_bracketed_acronyms", "merged")
def add_bracketed_acronyms(spans: list[Span], ctx: StepContext) -> list[Span]:
    """``spans`` (non-overlapping) plus, after each organisation, the acronym in brackets that
    follows it ("Hospital Universitario La Paz (HULP)"), of the organisation's type and source:
    two of the language's capitals or more (``ctx.words.bracketed_acronym``).

    MEDDOCAN's gold marks each such acronym (5 of 5 in train + dev); a sequence model often leaves
    it, or takes the bracket with it ("CHUVI)"). A span inside the brackets gives way to the
    acronym; one that runs past them leaves them as they are. Run on the combined spans, so an
    organisation that a rule found gets its acronym too.

    >>> text = "Hospital Universitario La Paz (HULP). Paseo de la Castellana"
    >>> ctx = StepContext.for_locale(text, "meddocan", "es")
    >>> out = add_bracketed_acronyms([Span("d", 0, 29, "LOCATION", "HOSPITAL")], ctx)
    >>> [(text[s.start:s.end], s.label) for s in out]
    [('Hospital Universitario La Paz', 'HOSPITAL'), ('HULP', 'HOSPITAL')]
    """
    out = list(spans)
    for org in spans:
        if not ctx.plays(org, "organisation"):
            continue
        m = ctx.words.bracketed_acronym.match(ctx.text, org.end)
        if m is None or sum(c.isupper() for c in m.group(1)) < 2:
            continue
        inside = [x for x in out if x.start < m.end() and m.start() < x.end]
        if all(m.start() <= x.start and x.end <= m.end() for x in inside):
            out = [x for x in out if x not in inside] + [org.with_(start=m.start(1), end=m.end(1))]
    return sorted(out, key=lambda s: (s.start, s.end))


_FIRST_NAME_SOURCE = "dict:first_names"


@boundary_step("split_relative_name", "model")
def split_relative_name(model_spans: list[Span], ctx: StepContext) -> list[Span]:
    """Model spans where a relative run into the first name after it ("su madre Carmen", "hermana
    mayor Maite") becomes two spans, the kinship words and the name, both of the relative's type.

    MEDDOCAN's gold writes them apart every time (2 in train, 3 in dev, none together); a sequence
    model reads one entity. The name must be a hit of the shipped first-name list (of
    ``ctx.candidates``) ending the span, after lower-case words only (``ctx.words.kinship``).

    >>> text = "acompañada de su madre Carmen y su hermano"
    >>> model = [Span("d", 17, 29, "OTHER", "FAMILIARES_SUJETO_ASISTENCIA")]
    >>> names = [Span("d", 23, 29, "NAME", "NOMBRE_SUJETO_ASISTENCIA", source="dict:first_names")]
    >>> ctx = StepContext.for_locale(text, "meddocan", "es", candidates=names)
    >>> [text[s.start:s.end] for s in split_relative_name(model, ctx)]
    ['madre', 'Carmen']
    """
    names = {(o.start, o.end) for o in ctx.candidates if o.source == _FIRST_NAME_SOURCE}
    if not names:
        return model_spans
    out: list[Span] = []
    for m in model_spans:
        kin = ctx.words.kinship.match(ctx.text, m.start, m.end) if ctx.plays(m, "relative") else None
        if kin is None or (kin.end(), m.end) not in names:
            out.append(m)
            continue
        out.append(m.with_(end=kin.end() - 1))
        out.append(m.with_(start=kin.end()))
    return out
