"""Aligning a model's rewrite back to the note (pipeline.detection.rewrite_align).

A deterministic rewriting stub plays the language model: it replaces given spans with a
placeholder and then damages the rewrite the ways models do (whitespace, inserted and deleted
words, a preamble, repeated placeholders, truncation). Each test computes what must come back
from the spans it gave the stub. Notes are invented; MEDDOCAN fixture text is only compared by
offsets, never printed.
"""
from __future__ import annotations

import re

import pytest

from pipeline.detection.rewrite_align import align_rewrite
from pipeline.detection.rewrite_placeholders import Placeholder, strip_placeholders
from pipeline.detection.rewrite_labels import generic_label, known_tags, resolve_tag, rewrite_spans
from pipeline.formats import read_collection
from pipeline.schemas import GERMAN, I2B2_2014, MEDDOCAN, SchemaError

NOTE = ("Paciente: Lucía Ferrer Soto\n"
        "Edad: 67 años. Ingresa el 14/02/2019 en el Hospital San Telmo.\n"
        "Refiere dolor torácico. Lucía vive en Almería con su hija.\n"
        "Médico: Dr. Tomás Ibarra\n")
PHI = ["Lucía Ferrer Soto", "67", "14/02/2019", "Hospital San Telmo", "Lucía", "Almería", "Tomás Ibarra"]


def mark(text: str, phrases: list[str]) -> list[tuple[int, int]]:
    """Offsets of each phrase's first occurrence after the previous one."""
    out, at = [], 0
    for p in phrases:
        k = text.index(p, at)
        out.append((k, k + len(p)))
        at = k + len(p)
    return out


def stub_rewrite(text: str, spans: list[tuple[int, int]], *, placeholder: str = "[PHI]", per_word: bool = False,
                 tags: list[str] | None = None) -> str:
    """The note with each span replaced by the placeholder (one per word with ``per_word``)."""
    out, cur = [], 0
    for k, (a, b) in enumerate(sorted(spans)):
        out.append(text[cur:a])
        ph = placeholder.replace("{label}", tags[k]) if tags else placeholder
        out.append(" ".join([ph] * len(text[a:b].split())) if per_word else ph)
        cur = b
    out.append(text[cur:])
    return "".join(out)


def found(al) -> list[tuple[int, int]]:
    return [(s.start, s.end) for s in al.spans]


def test_a_faithful_copy_gives_back_exactly_the_replaced_spans():
    gold = mark(NOTE, PHI)
    al = align_rewrite(NOTE, stub_rewrite(NOTE, gold))
    assert found(al) == gold
    assert al.faithfulness == 1.0 and al.placeholders == len(gold) and al.unplaced == 0
    assert al.covered_end == len(NOTE)


def test_changed_whitespace_case_and_accents_do_not_move_spans():
    gold = mark(NOTE, PHI)
    rw = stub_rewrite(NOTE, gold)
    rw = re.sub(r" ", "   ", rw).replace("\n", "\n\n  ").upper().replace("É", "E").replace("Á", "A")
    assert found(align_rewrite(NOTE, rw)) == gold


def test_inserted_words_are_ignored_and_lower_faithfulness():
    gold = mark(NOTE, PHI)
    rw = stub_rewrite(NOTE, gold).replace("Refiere", "El paciente refiere claramente").replace(
        "con su hija", "con su hija mayor")
    al = align_rewrite(NOTE, rw)
    assert found(al) == gold
    assert 0.8 < al.faithfulness < 1.0


def test_deleted_words_are_not_taken_for_phi():
    gold = mark(NOTE, PHI)
    rw = stub_rewrite(NOTE, gold).replace(" torácico", "").replace(" su hija", "").replace(" Ingresa", "")
    al = align_rewrite(NOTE, rw)
    assert found(al) == gold
    assert al.faithfulness == 1.0     # nothing invented: all the rewrite's words are the note's


def test_a_preamble_even_one_naming_the_placeholder_adds_nothing():
    gold = mark(NOTE, PHI)
    rw = "Sure. Here is the note with every identifier replaced by [PHI]:\n\n" + stub_rewrite(NOTE, gold)
    assert found(align_rewrite(NOTE, rw)) == gold


def test_repeated_names_only_the_replaced_occurrences_are_spans():
    text = "Visto por Rosa Vidal. Rosa Vidal refiere mareo. Llamar a Rosa Vidal mañana.\n"
    occ = [m.span() for m in re.finditer("Rosa Vidal", text)]
    replaced = [occ[0], occ[2]]                # the model kept the middle one (a leak, not a span)
    al = align_rewrite(text, stub_rewrite(text, replaced))
    assert found(al) == replaced


def test_placeholders_at_line_ends_never_run_into_the_next_line():
    text = "Nombre: Andrés Gil Prat\nNHC: 4417230\nCentro: Clínica Los Arcos\nAlta: sí\n"
    gold = mark(text, ["Andrés Gil Prat", "4417230", "Clínica Los Arcos"])
    for rw in (stub_rewrite(text, gold), stub_rewrite(text, gold).replace("\n", " \n")):
        al = align_rewrite(text, rw)
        assert found(al) == gold
        assert all("\n" not in text[a:b] for a, b in found(al))


def test_one_placeholder_per_word_makes_one_span_over_the_whole_name():
    gold = mark(NOTE, PHI)
    al = align_rewrite(NOTE, stub_rewrite(NOTE, gold, per_word=True))
    assert found(al) == gold
    assert al.placeholders == sum(len(NOTE[a:b].split()) for a, b in gold)


def test_a_paraphrase_around_a_placeholder_does_not_widen_it():
    text = "Paciente ingresado el 3 de marzo en Teruel por disnea.\n"
    # the model rewords "ingresado" and keeps "el": near-equal words still anchor
    al = align_rewrite(text, "Paciente ingresada el [PHI] en [PHI] por disnea.\n")
    assert found(al) == mark(text, ["3 de marzo", "Teruel"])


def test_truncated_output_keeps_the_spans_before_the_cut_and_says_where_it_stopped():
    gold = mark(NOTE, PHI)
    rw = stub_rewrite(NOTE, gold)
    cut = rw.index("Refiere") + len("Refiere dolor")
    al = align_rewrite(NOTE, rw[:cut])
    before = [g for g in gold if g[1] <= NOTE.index("Refiere")]
    assert found(al) == before
    assert NOTE.index("Refiere") < al.covered_end < len(NOTE) - 20
    # cut at the token limit right after a placeholder: how far its PHI ran is unknown, so it
    # is left for the next try, which starts where the copied text ended
    cut2 = rw.index("[PHI]", rw.index("Refiere")) + len("[PHI]")
    al2 = align_rewrite(NOTE, rw[:cut2], truncated=True)
    assert found(al2) == gold[:4] and al2.covered_end <= gold[4][0]
    assert align_rewrite(NOTE[al2.covered_end:], stub_rewrite(NOTE[al2.covered_end:], [
        (a - al2.covered_end, b - al2.covered_end) for a, b in gold[4:]])).spans  # the next try finds it
    # the model chose to stop there: the placeholder covers its PHI and at most the rest of the line
    al2 = align_rewrite(NOTE, rw[:cut2])
    line_end = NOTE.index("\n", gold[4][0])
    assert found(al2)[:-1] == gold[:4]
    assert found(al2)[-1][0] == gold[4][0] and gold[4][1] <= found(al2)[-1][1] <= line_end
    assert found(al2)[-1][1] <= al2.covered_end <= line_end
    # cut inside a placeholder: that one is lost, nothing else is invented
    al3 = align_rewrite(NOTE, rw[:cut2 - 2])
    assert found(al3) == gold[:4]


def test_no_placeholders_no_spans():
    al = align_rewrite(NOTE, NOTE)
    assert al.spans == [] and al.faithfulness == 1.0 and al.placeholders == 0
    assert align_rewrite(NOTE, "").spans == []
    assert align_rewrite(NOTE, "").covered_end == 0


def test_all_placeholders():
    text = "Marta Ruiz Peña\n12/05/1950\nCalle Sol 4, Huesca\n"
    lines = [(m.start(), m.end()) for m in re.finditer(r"[^\n]+", text)]
    assert found(align_rewrite(text, "[PHI]\n[PHI]\n[PHI]\n")) == lines
    # the line breaks dropped too: k placeholders still cover (at most) the k lines
    assert found(align_rewrite(text, "[PHI] [PHI] [PHI]")) == lines
    assert found(align_rewrite(text, "[PHI]")) == lines[:1]
    one = "Marta Ruiz Peña"
    assert found(align_rewrite(one, "[PHI]")) == [(0, len(one))]


def test_inserted_placeholder_with_nothing_under_it_is_counted_not_placed():
    text = "Sin alergias conocidas.\n"
    al = align_rewrite(text, "Sin [PHI] alergias conocidas.\n")
    assert al.spans == [] and al.unplaced == 1


def test_typed_placeholders_carry_their_label_and_the_note_own_brackets_are_not_placeholders():
    text = "Paciente Iker Sanz [sic], 54 años, de Bilbao.\n"
    gold = mark(text, ["Iker Sanz", "54", "Bilbao"])
    ph = Placeholder("[{label}]", known_tags(MEDDOCAN))
    rw = stub_rewrite(text, gold, placeholder="[{label}]", tags=["NAME", "AGE", "LOCATION"])
    al = align_rewrite(text, rw, ph)
    assert found(al) == gold and [s.tag for s in al.spans] == ["NAME", "AGE", "LOCATION"]
    spans = rewrite_spans(text, rw, "d1", "qwen", MEDDOCAN, ph)
    assert [(s.category, s.type) for s in spans] == [("NAME", ""), ("AGE", "EDAD_SUJETO_ASISTENCIA"),
                                                      ("LOCATION", "")]


def test_placeholder_matching_tolerates_case_and_inner_spaces():
    text = "Firma: Elena Mora\n"
    gold = mark(text, ["Elena Mora"])
    assert found(align_rewrite(text, "Firma: [ phi ]\n")) == gold
    assert found(align_rewrite(text, "Firma: <<X>>\n", "<<X>>")) == gold
    assert strip_placeholders("a [PHI] b [ phi ]c") .split() == ["a", "b", "c"]


def test_rewrite_spans_are_llm_spans_shifted_to_the_note():
    gold = mark(NOTE, PHI)
    spans = rewrite_spans(NOTE, stub_rewrite(NOTE, gold), "doc-1", "tiny", MEDDOCAN, offset=100)
    assert [(s.start - 100, s.end - 100) for s in spans] == gold
    assert {s.source for s in spans} == {"llm:tiny"} and {(s.category, s.type) for s in spans} == {("OTHER", "")}
    assert all(s.score == 1.0 and s.doc_id == "doc-1" for s in spans)


def test_labels_resolve_through_the_schema():
    assert resolve_tag("NOMBRE_SUJETO_ASISTENCIA", MEDDOCAN) == ("NAME", "NOMBRE_SUJETO_ASISTENCIA")
    assert resolve_tag("date", I2B2_2014) == ("DATE", "DATE")
    assert resolve_tag("PERSON", GERMAN) == ("NAME", "")
    assert resolve_tag("PHONE", MEDDOCAN) == ("CONTACT", "NUMERO_TELEFONO")
    assert resolve_tag("SIC", MEDDOCAN) is None
    assert "SIC" not in known_tags(MEDDOCAN) and "NAME" in known_tags(MEDDOCAN)
    assert generic_label(MEDDOCAN) == ("OTHER", "") and generic_label(GERMAN) == ("OTHER", "Other")
    assert generic_label(I2B2_2014, "ID") == ("ID", "")
    with pytest.raises(SchemaError):
        generic_label(I2B2_2014)          # no OTHER category: the caller must choose
    with pytest.raises(SchemaError):
        generic_label(MEDDOCAN, "NOT_A_LABEL")


@pytest.mark.parametrize("damage", ["none", "whitespace", "per_word"])
def test_meddocan_fixture_every_gold_character_comes_back(meddocan_sample, damage):
    """On real notes (compared by offsets only): every letter and digit of gold PHI is covered,
    and no letter or digit outside gold is. (Punctuation may shift: in "X. [PHI]. [PHI]." a
    full stop inside an address and one after it are interchangeable to any token alignment.)"""
    docs = read_collection(meddocan_sample / "brat", "brat", MEDDOCAN)
    assert docs
    for d in docs:
        gold = sorted({(s.start, s.end) for s in d.spans})
        rw = stub_rewrite(d.text, gold, per_word=damage == "per_word")
        if damage == "whitespace":
            rw = rw.replace(" ", "  ").replace("\n", "\n\n")
        al = align_rewrite(d.text, rw)
        cov = bytearray(len(d.text))
        for s in al.spans:
            cov[s.start:s.end] = b"\x01" * (s.end - s.start)
        gold_chars = bytearray(len(d.text))
        for a, b in gold:
            gold_chars[a:b] = b"\x01" * (b - a)
        missed = [i for i in range(len(d.text)) if gold_chars[i] and not cov[i] and d.text[i].isalnum()]
        assert not missed, f"{d.doc_id}: {len(missed)} gold characters not covered"
        extra = [i for i in range(len(d.text)) if cov[i] and not gold_chars[i] and d.text[i].isalnum()]
        assert not extra, f"{d.doc_id}: {len(extra)} non-gold characters covered"


def test_punctuation_inside_phi_stays_inside_its_span():
    text = ("Dirección: Avda. del Puerto 12, 3º B, 46011 Valencia.\nCorreo: Dr. Ruiz. ruiz@salud.es\n"
            "Centro: Hospital General (Elda).\nDomicilio: C/ Mayor s/n, bajo dcha.\n")
    phrases = ["Avda. del Puerto 12, 3º B", "46011", "Valencia", "Ruiz", "ruiz@salud.es",
               "Hospital General (Elda)", "C/ Mayor s/n, bajo dcha."]
    gold = mark(text, phrases)
    got = found(align_rewrite(text, stub_rewrite(text, gold)))
    # each span whole; the postal code and the city, with only a space between, come back as one
    merged = (gold[1][0], gold[2][1])
    assert got == [gold[0], merged, *gold[3:]]
