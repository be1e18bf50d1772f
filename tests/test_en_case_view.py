"""pipeline/locales/en/case_view.py and the locale pack's model view: English lines written in one
case reach the model truecased, at the same offsets; everything else reaches it as written."""
from __future__ import annotations

from types import SimpleNamespace

from pipeline.detection.detector import Detector
from pipeline.detection.steps.registry import pack_for
from pipeline.locales.en.case_view import truecase_one_case_lines
from pipeline.schemas import I2B2_2014
from pipeline.spans import Document, Span


def test_an_all_caps_line_reads_as_mixed_case_would():
    line = "PT TRANSFERRED FROM BROCKTON, SEEN BY DR KOWALCZYK. FOLEY INTACT."
    got = truecase_one_case_lines(line)
    assert got == "pt transferred from Brockton, seen by dr Kowalczyk. foley intact."
    assert len(got) == len(line)


def test_a_lower_case_line_capitalises_only_the_words_english_hardly_uses():
    assert truecase_one_case_lines("wife maryellen at bedside, lasix 40 iv") == \
        "wife Maryellen at bedside, lasix 40 iv"


def test_mixed_case_lines_and_lines_without_letters_are_left_as_written():
    text = "Seen by Dr. Hale in MICU\n120/80 - 88 - 18\nNEURO: A+O X3\nson tavish called"
    got = truecase_one_case_lines(text)
    lines = got.split("\n")
    assert lines[0] == "Seen by Dr. Hale in MICU" and lines[1] == "120/80 - 88 - 18"
    assert lines[2] == "neuro: a+o x3" and lines[3] == "son Tavish called"
    assert len(got) == len(text) and got.count("\n") == text.count("\n")


def test_accented_capitals_are_truecased_whole_and_a_length_change_leaves_the_line():
    assert truecase_one_case_lines("SON JOSÉ AND DR MÜLLER AT BEDSIDE") == \
        "son José and dr Müller at bedside"
    assert truecase_one_case_lines("pt seen by dr o'brien") == "pt seen by dr O'brien"
    # "ß" capitalises to two letters: the copy would be longer, so the line is left as written
    assert truecase_one_case_lines("visit from ßtrauss") == "visit from ßtrauss"


def test_an_institutions_name_before_its_head_word_reaches_the_model_capitalised():
    """psych_invented find f13, f16: common words name a church or a lodge in a line of capitals."""
    got = truecase_one_case_lines("ATTENDS REDEEMED CHRISTIAN CHURCH OF GOD; 90 DAYS AT BLUEGRASS RECOVERY LODGE")
    assert got == "attends Redeemed Christian Church of god; 90 days at Bluegrass Recovery Lodge"
    # a verb ends the run, a kind's words alone name nothing, and a head alone is the word
    assert truecase_one_case_lines("brought hospital liaison. community college. went to church") == \
        "brought hospital liaison. community college. went to church"


def test_only_english_has_a_view():
    assert pack_for("en").text_for_model("DR KOWALCZYK") == "dr Kowalczyk"
    assert pack_for("es").text_for_model("DR KOWALCZYK") == "DR KOWALCZYK"


class _Recording:
    """An ensemble that records what it was given and marks the word 'Kowalczyk' where it reads it."""
    uses_rule_hits = False
    active_members = ["crf"]

    def __init__(self, case_view: bool):
        self.seen: list[str] = []
        self.info = SimpleNamespace(convention="all", spared_steps=[], muted_sources=[], type_policy={},
                                    case_view=case_view)

    def predict(self, texts, doc_ids, use_thresholds=True, rule_hits=None):
        self.seen.extend(texts)
        out = []
        for t, i in zip(texts, doc_ids):
            k = t.find("Kowalczyk")
            out.append([Span(i, k, k + 9, "NAME", "DOCTOR", score=0.99)] if k >= 0 else [])
        return out


def test_a_cold_start_version_reads_the_view_and_its_spans_stand_on_the_note_as_written():
    ens = _Recording(case_view=True)
    det = Detector(schema=I2B2_2014, locale="en", ensemble=ens, rules=False, dictionaries=False)
    doc = Document("d1", "SEEN BY DR KOWALCZYK TODAY")
    [spans] = det.detect_many([doc])
    assert ens.seen == ["seen by dr Kowalczyk today"]
    assert [doc.text[s.start:s.end] for s in spans] == ["KOWALCZYK"]


def test_a_version_without_the_view_reads_the_note_as_written():
    ens = _Recording(case_view=False)
    det = Detector(schema=I2B2_2014, locale="en", ensemble=ens, rules=False, dictionaries=False)
    assert det.detect_many([Document("d1", "SEEN BY DR KOWALCZYK TODAY")]) == [[]]
    assert ens.seen == ["SEEN BY DR KOWALCZYK TODAY"]


def test_a_teams_training_reads_notes_as_written_unless_asked():
    from models.train_config import TrainConfig

    assert TrainConfig().case_view is False          # train-starter's own: tests/test_train_starter.py
    assert TrainConfig.from_dict({"case_view": True}).case_view is True


def test_the_risk_run_reads_released_notes_as_the_versions_detection_did():
    import numpy as np

    from models.decode import LabelIndex
    from pipeline.risk import DeidDocument
    from services.risk_evidence import model_candidates

    class _Probs(_Recording):
        index = LabelIndex.of(["O", "B-DOCTOR", "I-DOCTOR"])
        schema = I2B2_2014

        def combined_probs(self, items, rule_hits=None):
            self.seen.extend(t for t, _ in items)
            return [np.tile(np.array([1.0, 0.0, 0.0], dtype=np.float32), (len(w), 1)) for _, w in items]

    for view, expected in ((True, "seen by dr Kowalczyk today"), (False, "SEEN BY DR KOWALCZYK TODAY")):
        ens = _Probs(case_view=view)
        det = Detector(schema=I2B2_2014, locale="en", ensemble=ens, rules=False, dictionaries=False)
        assert model_candidates(det, [DeidDocument("r1", "SEEN BY DR KOWALCZYK TODAY")]) == [[]]
        assert ens.seen == [expected]
