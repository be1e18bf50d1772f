"""Boundary conventions learned from gold spans (pipeline/detection/boundaries.py)."""
from __future__ import annotations

from pipeline.detection.boundaries import BoundaryTable, adjust, adjust_spans, learn, norm
from pipeline.spans import Document, Span

FAM = "FAMILIARES_SUJETO_ASISTENCIA"


def _doc(i: int, text: str, *marked: tuple[str, str]) -> Document:
    spans, at = [], 0
    for phrase, label in marked:
        s = text.index(phrase, at)
        spans.append(Span(f"d{i}", s, s + len(phrase), "X", label))
        at = s + len(phrase)
    return Document(f"d{i}", text, tuple(spans))


GOLD = [
    _doc(1, "Acude con su madre y su padre.", ("madre", FAM), ("padre", FAM)),
    _doc(2, "Vive con su hermano y su abuela.", ("hermano", FAM), ("abuela", FAM)),
    _doc(3, "Remitido desde Sevilla. Hospital de Getafe, Madrid.", ("Sevilla", "TERRITORIO"),
         ("Hospital de Getafe", "HOSPITAL"), ("Madrid", "TERRITORIO")),
    _doc(4, "Trasladado a Cádiz. Consultar en Carretera de Toledo 5, Getafe.", ("Cádiz", "TERRITORIO"),
         ("Carretera de Toledo 5", "CALLE"), ("Getafe", "TERRITORIO")),
    _doc(5, "Vive en Carretera Sur 2 y en Carretera Norte 4; en México D.F. desde 2010.",
         ("Carretera Sur 2", "CALLE"), ("Carretera Norte 4", "CALLE"), ("México D.F.", "TERRITORIO")),
]


def test_learn_counts_edges_neighbours_and_the_words_outside():
    t = learn(GOLD)
    assert t.first[FAM]["madre"] == 1 and t.last[FAM]["padre"] == 1
    assert t.before[FAM]["su"] == 4 and t.after[FAM]["y"] == 2
    assert t.last["TERRITORIO"]["."] == 1 and t.after["TERRITORIO"]["."] >= 3
    assert t.starts["carretera"] == {"CALLE": 3}
    assert t.outside["su"] == 4 and t.outside["madre"] == 0
    assert norm("28036") == "00000" and norm("Getafe") == "getafe"


def test_edge_words_the_gold_keeps_outside_are_trimmed_repeatedly():
    t = learn(GOLD, min_adjacent=2, ratio=0.3)     # "." ends 1 town in 5 here ("D.F.")
    text = "Acompañada de su madre Carmen y su hermano."
    s = text.index("su madre")
    got = adjust(text, [(s, text.index(" hermano"), FAM)], t)
    assert [text[a:b] for a, b, _ in got] == ["madre Carmen"]
    # a full stop after a town goes; one closing an abbreviation stays
    text = "Natural de San Justo. Vive en México D.F. ahora."
    spans = [(text.index("San"), text.index("San") + len("San Justo."), "TERRITORIO"),
             (text.index("México"), text.index("México") + len("México D.F."), "TERRITORIO")]
    assert [text[a:b] for a, b, _ in adjust(text, spans, t)] == ["San Justo", "México D.F."]


def test_words_without_evidence_never_move_a_boundary():
    t = learn(GOLD, min_adjacent=2)
    text = "Ingresa con su tía Remedios Ontiveros."
    s = text.index("tía")
    assert adjust(text, [(s, text.index("."), FAM)], t) == [(s, text.index("."), FAM)]
    assert adjust(text, [(s, s + 3, FAM)], BoundaryTable()) == [(s, s + 3, FAM)]     # an empty table


def test_a_word_that_begins_other_spans_splits_a_run_on_span():
    t = learn(GOLD, min_starts=2, start_ratio=1.0)
    text = "Hospital de Getafe Carretera de Toledo 5"
    got = adjust(text, [(0, len(text), "HOSPITAL")], t)
    assert [(text[a:b], ty) for a, b, ty in got] == [("Hospital de Getafe", "HOSPITAL"),
                                                       ("Carretera de Toledo 5", "CALLE")]
    t.split = False
    assert adjust(text, [(0, len(text), "HOSPITAL")], t) == [(0, len(text), "HOSPITAL")]


def test_table_survives_json_and_only_model_spans_are_adjusted():
    t = learn(GOLD, min_adjacent=2, ratio=0.05)
    back = BoundaryTable.from_json(t.to_json())
    assert back.to_json() == t.to_json() and back.ratio == 0.05 and back.min_adjacent == 2
    text = "Acude con su madre y su padre."
    model = Span("n", 10, 18, "NAME", FAM, "model:v1")
    rule = Span("n", 10, 18, "NAME", FAM, "rule:family")
    got = adjust_spans(text, [rule.with_(doc_id="n"), model], back, lambda ty: "NAME")
    assert [(text[s.start:s.end], s.source) for s in got] == [("su madre", "rule:family"), ("madre", "model:v1")]
