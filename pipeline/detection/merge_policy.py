"""How rule and dictionary spans join a model's spans: per type, the policy of the merge, and
how that policy is learned on a dev split.

Apart from :mod:`pipeline.detection.combine` (which resolves candidates among themselves) and from
the boundary steps (:mod:`pipeline.detection.steps`, which move the model's edges first): the
merge itself knows sources and types, never words of a language. ``models.trainer`` learns the
policy while training (:func:`learn_type_policy`); the detector applies it
(:func:`merge_model_first`).
"""
from __future__ import annotations

from typing import Sequence

from pipeline.detection.candidates import candidates, shipped_matcher
from pipeline.detection.combine import CombinePolicy, combine
from pipeline.detection.dictionary_lists import SHIPPED_KINDS
from pipeline.detection.rules import has_pack
from pipeline.schemas import LabelSchema
from pipeline.spans import Document, Span

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
#: rules whose match proves itself (check digits, or a machine format no prose has: a masked card
#: number, a coordinate pair with four decimals): merged as
#: ``rules-first`` whatever the type's policy, so a model span that cuts into one or runs past it is
#: dropped for it. A starter CRF trained on notes marked "IP 192.168.14.77" as a phone (dropped
#: afterwards as a number without context, taking the address with it) and half a Bitcoin address
#: as a hospital (found on the invented PII "find" texts, benchmarks/pii_invented.py).
PROVEN_RULE_SOURCES: frozenset[str] = frozenset(
    f"rule:{n}" for n in ("email", "url", "ipaddr", "payment_cards", "ibans", "vins", "ipv6_short", "mac_addresses",
                          "crypto_addresses", "coordinates", "masked_numbers"))

#: locales where a rule span that contains every model span it overlaps replaces them whatever
#: their type. English: its rules read the words around a value in a line in one case, where the
#: model reads a single capital-less word and guesses ("Lindqvist" a patient inside the company
#: "Lindqvist & Partners Solicitors", "Denis" a doctor inside the street "1420 Rue Saint-Denis",
#: "Logan" a hospital inside "Logan Airport"; invented PII and ICU notes' find halves,
#: benchmarks/pii_invented.py, benchmarks/icu_invented.py), so the model's word cost the rule's
#: span its other words. Not Spanish: on MEDDOCAN the model's type inside a wider rule span was
#: the right one ("Hospital del Sureste Ronda del Sur, 10" is a hospital and a street), and its
#: rules-only and full-detector figures stay as they were.
RULE_CONTAINS_WINS: frozenset[str] = frozenset({"en"})


def merge_model_first(model_spans: list[Span], others: list[Span], type_policy: dict[str, str], *,
                      rule_contains_wins: bool = False, text: str | None = None) -> list[Span]:
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
      whatever their type (+0.0002 to +0.0004 span recall on four models); with
      ``rule_contains_wins`` (:data:`RULE_CONTAINS_WINS`) so does any rule span, and (given the
      ``text``) a rule span that a model span only partly overlaps is added too, the model span
      keeping what lies outside it (:func:`_cut_around`);
    * ``model``: never added (the model alone decides this type);
    * ``rules-first``: added, and the model spans it overlaps are dropped (the rules know this
      type's boundaries better, e.g. ages "52 años" or phone numbers); always so for a span of
      a :data:`PROVEN_RULE_SOURCES` rule.

    ``others`` must not overlap each other (pass them through :func:`pipeline.detection.combine.combine`).
    """
    first = [o for o in others if type_policy.get(o.label) == "rules-first" or o.source in PROVEN_RULE_SOURCES]
    kept_model = [m for m in model_spans if not any(o.start < m.end and m.start < o.end for o in first)]
    out = kept_model + first
    for o in others:
        pol = "rules-first" if o.source in PROVEN_RULE_SOURCES else type_policy.get(o.label, "model+rules")
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
                and (all(m.label == o.label for m in hit) or o.source in FORMAT_RULE_SOURCES
                     or (rule_contains_wins and o.source.startswith("rule:"))):
            out = [m for m in out if m not in hit] + [o]
        elif rule_contains_wins and text is not None and o.source.startswith("rule:") \
                and not any(m.start <= o.start and o.end <= m.end for m in hit) \
                and not any(m.source.startswith(("rule:", "dict:")) for m in hit):
            out = [m for m in out if m not in hit] + [p for m in hit for p in _cut_around(m, o, text)] + [o]
    return sorted(out, key=lambda s: (s.start, s.end))


def _cut_around(model: Span, rule: Span, text: str) -> list[Span]:
    """The parts of ``model`` outside ``rule`` that hold a letter or digit, trimmed of blanks and
    punctuation at their edges.

    Why: in English a rule span that a model span only partly overlaps was dropped, and the
    characters only the rule had found went out with it ("Szabo, Erzsebet" by its field, where the
    model saw "Erzsebet 3349102": notes_invented find f22); the union keeps both readings' PHI."""
    parts = []
    for a, b in ((model.start, min(model.end, rule.start)), (max(model.start, rule.end), model.end)):
        while a < b and not text[a].isalnum():
            a += 1
        while b > a and not text[b - 1].isalnum():
            b -= 1
        if a < b:
            parts.append(model.with_(start=a, end=b))
    return parts


def learn_type_policy(docs: Sequence[Document], model_spans: Sequence[list[Span]], schema: LabelSchema,
                      locale: str, *, min_gain: int = 1) -> dict[str, str]:
    """Per fine type, the way of merging rule/dictionary spans into the model's that gives the
    best strict F1 on ``docs`` (a dev split with gold spans), one type at a time, most frequent
    first. A type moves off the default (``model+rules``) only when that gains at least
    ``min_gain`` in (correct - spurious) spans, so noise on a small dev set does not decide."""
    matcher = shipped_matcher(locale, schema)
    rules = has_pack(locale)
    resolve = CombinePolicy.for_locale(locale)
    others = []
    for d in docs:
        cands = candidates(d, schema, locale, rules=rules, matcher=matcher)
        others.append(combine(cands, d.text, policy=resolve)[0] if cands else [])
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
