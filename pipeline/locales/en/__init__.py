"""The English locale pack: the word lists beside this file (:mod:`pipeline.locales`) and the
boundary steps with their words: the shared Western pack's (:mod:`pipeline.locales.western`), then
the English ones of :mod:`.ward_steps` (numbers without an age's, a date's or a phone's context
dropped; kinship and role words cut from names). Last, spans made only of safe clinical words
(``vocab/``, :mod:`pipeline.detection.steps.safe_words`) need strong evidence to stay. Spanish and
German do not list them."""
from dataclasses import replace

from pipeline.detection.steps.registry import register_pack
from pipeline.locales.en.case_view import truecase_one_case_lines
from pipeline.locales.en.wrap_view import unwrap_hard_breaks
from pipeline.locales.typography import normalise_typography
from pipeline.locales.en import address_steps, code_steps, common_word_steps, date_steps, description_steps, eponym_steps, institution_steps, line_steps, name_steps, prose_steps, ward_steps  # noqa: F401  (register the steps named below)
from pipeline.detection.step_policy import register_sparable
from pipeline.detection.rules.en.staff_closings import CREDENTIAL_WORDS
from pipeline.detection.steps.safe_words import register_safe_word_step
from pipeline.locales import load_vocabulary
from pipeline.locales.western import STEPS as WESTERN_STEPS, WORDS

#: field labels whose value is PHI: a span after one keeps its place even when its words are
#: ordinary ones ("Name: Hope", "Attending: Grant"); the label's words, case-insensitive
PHI_LABELS = (
    "name", "patient", "patient name", "pt name", "pt", "attending", "physician", "doctor", "dr", "provider",
    "pcp", "primary care", "referring", "surgeon", "resident", "intern", "fellow", "nurse", "rn", "np", "pa",
    "md", "author", "signed", "signed by", "dictated by", "transcribed by", "cc", "contact", "emergency contact",
    "next of kin", "nok", "family", "spouse", "wife", "husband", "son", "daughter", "mother", "father",
    "guardian", "hospital", "facility", "clinic", "location", "address", "street", "city", "town", "state",
    "country", "zip", "employer", "occupation", "school", "phone", "tel", "telephone", "fax", "email", "e-mail",
    "mrn", "id", "account", "ssn", "insurance", "member", "unit no", "room", "bed",
)

_VOCAB = load_vocabulary("en")
# "D." opens a Spanish name as a title ("D. Juan"); an English one as an initial ("D. Johnson RN"), kept
_EN_WORDS = replace(WORDS, titles=tuple(t for t in WORDS.titles if t != "D."))
# credentials of four letters or more are never a name on their own ("CCFP", "CWOCN", "PharmD"); the
# shorter ones may be initials or a state ("MD", "PA", "RD"), which the lists and rules decide
_CREDENTIALS = frozenset(w for w in CREDENTIAL_WORDS if len(w) >= 4)
STEPS = WESTERN_STEPS + (
    "cut_model_spans_at_lines",   # model (line_steps: a model span over a line break, one per line)
    "drop_ward_codes",   # model (code_steps: a model's state that is a ward's code, "VT 380", outside an address)
    "strip_slashed_with",   # model (code_steps: "ALDERSGATE MANOR W/ CHF" ends before "W/")
    "drop_lower_common_words",   # model (common_word_steps: "with a kitchen knife" in a mixed-case line)
    "drop_impossible_dates",   # model (date_steps: "vbg 7.30/34", "IHS" are no dates)
    "strip_context_words", "drop_numbers_without_context", "drop_eponyms", "extend_over_particle",
    "surname_after_one_case_first_name",   # (name_steps: "NEIGHBOR VELMA ROOT" in a line of one case)
    "repeat_names", "ages_after_names", "drop_field_label_spans", "drop_vehicle_spans",   # (prose_steps: letters, forms, messages)
    # model, merged, merged, merged, merged, merged, merged, merged, merged
    "states_after_towns",   # merged (address_steps: a state after the comma of a model's town)
    "extend_over_institution_heads",   # merged (institution_steps: "Nantasket Bay | VNA", "Fairview | Manor")
    "strip_role_titles", "drop_faiths_and_languages", "drop_described_places",   # (description_steps)
    # model, merged, merged
    register_safe_word_step("drop_safe_word_spans_en", _VOCAB.safe | _CREDENTIALS, PHI_LABELS, _VOCAB.ambiguous,
                            initials_need_evidence=True,
                            # care chains are institutions named with ordinary words ("Select
                            # Specialty", "HD AT FRESENIUS": icu_invented_c find f12, f26)
                            vouching_lists=frozenset({"dict:care_chains"})),   # merged
)


def detection_text(text: str) -> str:
    """What English detection reads for a note: no-break spaces, CRLF line ends and curly
    apostrophes as plain characters (:mod:`pipeline.locales.typography`), then a hard-wrapped
    note's wrap breaks as blanks (:mod:`.wrap_view`); the same length, every offset the note's."""
    return unwrap_hard_breaks(normalise_typography(text))


# the model reads lines written in one case truecased (case_view: capitals are its name signal);
# the whole of detection reads the note's plain characters, wrap breaks as blanks (detection_text)
PACK = register_pack("en", _EN_WORDS, STEPS, model_view=truecase_one_case_lines,
                     detection_view=detection_text)
# a model trained on the ward's own notes may be spared the safe-word guard where its dev notes
# show the guard deletes its PHI (pipeline.detection.step_policy); never the number-context step
register_sparable("en", ("drop_safe_word_spans_en",))
