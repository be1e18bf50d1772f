"""Read-only views of de-identified text tell surrogates from originals (issue 15, item 6): every
output span is marked by what was done to it, so a name the detector missed (unmarked) stands out."""
from __future__ import annotations

import re

from dashboard.components import OUTPUT_MARKS, deid_output_html, output_legend_html
from pipeline.layers import output_layer
from pipeline.spans import Span

TEXT = "Seen by Dr Lee on 2070-01-15 with [NAME] and Rosa Diaz.\nAge 90+."


def _span(start, end, cat, typ, action):
    return Span("d", start, end, cat, typ, layer=output_layer(action, "gold"))


def test_surrogates_placeholders_and_kept_spans_are_marked_and_originals_are_not():
    spans = [_span(11, 14, "NAME", "DOCTOR", "replace"), _span(18, 28, "DATE", "DATE", "shift"),
             _span(34, 40, "NAME", "PATIENT", "redact"), _span(60, 63, "AGE", "AGE", "keep")]
    out = deid_output_html(TEXT, spans)
    titled = dict(re.findall(r'title="([^"]*)" style="[^"]*">([^<]*)</span>', out))
    assert titled["surrogate (DOCTOR)"] == "Lee" and titled["shifted date or age (DATE)"] == "2070-01-15"
    assert titled["placeholder (PATIENT)"] == "[NAME]" and titled["kept as written (AGE)"] == "90+"
    assert "Rosa Diaz" in out and not re.search(r">[^<]*Rosa Diaz[^<]*</span>", out)   # the missed name: no mark
    assert "\n" in out and "white-space:pre-wrap" in out                                # the note as written
    assert all(words in output_legend_html() for words, _ in OUTPUT_MARKS.values())


def test_risk_reasons_box_their_entity_on_top_of_the_output_mark():
    spans = [_span(11, 14, "NAME", "DOCTOR", "replace")]
    out = deid_output_html(TEXT, spans, reasons=[{"kind": "unique_context", "start": 11, "end": 14,
                                                  "context_start": 0, "context_end": 30}],
                           reason_words={"unique_context": "unique context"}, css_class="wb-risk")
    assert 'class="wb-risk"' in out and "border:2px solid #c62828" in out
    assert 'title="surrogate (DOCTOR); unique context"' in out
