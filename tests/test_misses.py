"""Why reference spans were missed (pipeline/metrics/misses.py), on lines written like MEDDOCAN's."""
from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.formats import read_collection
from pipeline.metrics.entity import span_strict
from pipeline.metrics.misses import KINDS, classify_misses, miss_kind
from pipeline.schemas import MEDDOCAN
from pipeline.spans import Span

FIXTURES = Path(__file__).parent / "fixtures" / "meddocan" / "brat"


def _span(text: str, part: str, label: str, doc: str = "d", nth: int = 0) -> Span:
    start = -1
    for _ in range(nth + 1):
        start = text.index(part, start + 1)
    return Span(doc, start, start + len(part), MEDDOCAN.category_of(label), label)


TEXT = ("Remitido por: Doctora Marta García Torrelles. Servicio de Urología. Hospital de Getafe "
        "Carretera Toledo 28905 Getafe (Madrid). Localidad/ Provincia: Monterrey. Nvo León.")


def test_each_kind_on_an_affiliation_line():
    gold = [_span(TEXT, "Marta García Torrelles", "NOMBRE_PERSONAL_SANITARIO"),
            _span(TEXT, "Hospital de Getafe", "HOSPITAL"),
            _span(TEXT, "Carretera Toledo", "CALLE"),
            _span(TEXT, "28905", "TERRITORIO"),
            _span(TEXT, "Getafe", "TERRITORIO", nth=1),
            _span(TEXT, "Madrid", "TERRITORIO"),
            _span(TEXT, "Monterrey", "TERRITORIO"),
            _span(TEXT, "Nvo León", "TERRITORIO")]
    system = [_span(TEXT, "Doctora Marta García Torrelles", "NOMBRE_PERSONAL_SANITARIO"),   # too long
              _span(TEXT, "Hospital de Getafe Carretera Toledo", "HOSPITAL"),                 # 2 x too long
              _span(TEXT, "28905", "TERRITORIO"),                                             # found
              _span(TEXT, "(Madrid)", "TERRITORIO"),                                          # too long
              _span(TEXT, "Monter", "TERRITORIO"),                                            # too short
              _span(TEXT, ". Nvo", "TERRITORIO")]                                             # shifted
    m = classify_misses({"d": system}, {"d": gold}, ["d"])
    assert m.reference_spans == 8
    assert m.counts == {("NOMBRE_PERSONAL_SANITARIO", "too long"): 1, ("HOSPITAL", "too long"): 1,
                        ("CALLE", "too long"): 1, ("TERRITORIO", "none"): 1, ("TERRITORIO", "too long"): 1,
                        ("TERRITORIO", "too short"): 1, ("TERRITORIO", "shifted"): 1}
    assert list(m.by_kind()) == ["none", "too long", "too short", "shifted"]   # KINDS order, zeros left out
    assert m.by_label()["TERRITORIO"] == 4


def test_a_span_cut_in_pieces_is_split_and_an_exact_match_among_overlaps_is_found():
    assert miss_kind(10, 30, [(10, 18), (19, 30)]) == "split"
    assert miss_kind(10, 30, [(5, 12), (10, 30)]) is None
    assert miss_kind(10, 30, []) == "none"
    assert miss_kind(10, 30, [(0, 10), (30, 40)]) == "none"       # touching is not overlapping


def test_the_type_does_not_matter_and_duplicates_count_once():
    gold = [Span("d", 0, 5, "NAME", "NOMBRE_SUJETO_ASISTENCIA")] * 2
    system = [Span("d", 0, 5, "NAME", "NOMBRE_PERSONAL_SANITARIO")]
    m = classify_misses({"d": system}, {"d": gold}, ["d"])
    assert (m.total, m.reference_spans) == (0, 1)


@pytest.mark.skipif(not FIXTURES.exists(), reason="MEDDOCAN sample missing")
def test_misses_add_up_to_what_span_recall_leaves_out_on_the_meddocan_sample():
    docs = read_collection(FIXTURES, "brat", MEDDOCAN)
    assert len(docs) >= 5
    reference = {d.doc_id: list(d.spans) for d in docs}
    ids = [d.doc_id for d in docs]
    # a system that drops every third span, widens every fifth by one character and keeps the rest
    system = {}
    for d in docs:
        out = []
        for k, s in enumerate(sorted(d.spans, key=lambda s: (s.start, s.end))):
            if k % 3 == 2:
                continue
            out.append(s.with_(end=min(len(d.text), s.end + 1)) if k % 5 == 4 and s.end < len(d.text) else s)
        system[d.doc_id] = out
    m = classify_misses(system, reference, ids)
    recall = span_strict(system, reference, ids).micro
    assert m.total == recall.fn > 0
    assert set(m.by_kind()) <= set(KINDS)
    assert m.by_kind()["none"] > 0 and m.by_kind()["too long"] > 0
