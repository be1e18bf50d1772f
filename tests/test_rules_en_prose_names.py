"""Names with no context word, in positions only a person takes
(:mod:`pipeline.detection.rules.en.prose_names`): lines written for this test in the shapes of
messages, forms and tickets (every name invented), beside clinical lines that must stay unmarked."""
from __future__ import annotations

import pytest

from pipeline.detection.detector import Detector
from pipeline.detection.rules.en import prose_names as pn
from pipeline.spans import Document

RULES = (pn.prose_subject_names, pn.prose_object_names, pn.prose_possessive_names, pn.prose_listed_names,
         pn.prose_subject_line_names, pn.prose_aged_names)

FOUND = [
    ("Kasandra has been approved for the loan.", ["Kasandra"]),
    ("Thanks for the update. Ysolt worked with us from 2019 to 2021.", ["Ysolt"]),
    ("Mirela said the parcel was late.", ["Mirela"]),
    ("If the router fails again, please contact Oduya in IT.", ["Oduya"]),
    ("Ticket INC-2231 assigned to Brennagh.", ["Brennagh"]),
    ("Complaint escalated to Tomasz Wrzesniak on Friday.", ["Tomasz Wrzesniak"]),
    ("Laptop reassigned from Gunnhild to Emeka Adeyemi.", ["Gunnhild", "Emeka Adeyemi"]),
    ("we need to update Ilse's account before Monday", ["Ilse"]),
    ("Search update: Teodor's last known location was the pier.", ["Teodor"]),
    ("Attendees were Tomasz, Wairimu and Odile from the Leeds office.", ["Tomasz", "Wairimu", "Odile"]),
    ("New hire: Babajide Ogunleye, junior analyst, starts in May.", ["Babajide Ogunleye"]),
    ("Exit survey: Rasmus (backend developer) left in March.", ["Rasmus"]),
    ("TELL RASMUS TO CALL THE OFFICE.", ["RASMUS"]),
    ("The appointment for Kasandra is confirmed.", ["Kasandra"]),
    ("Exit survey: Wairimu Kamau (31) left in March.", ["Wairimu Kamau"]),
    ("EXIT SURVEY: RASMUS (31) LEFT.", ["RASMUS"]),
    ("NEW HIRE: BABAJIDE OGUNLEYE, JUNIOR ANALYST", ["BABAJIDE OGUNLEYE"]),
    ("Voter registration: Przybylski, Ludmila Jadwiga; 905 W. Maple St", ["Przybylski, Ludmila Jadwiga"]),
    ("tell eilert to bring the cake", ["eilert"]),             # one case: a rarer word, a strong position
    ("Hi team, Kasandra and Oduya will cover the desk on Monday.", ["Kasandra", "Oduya"]),
    ("Claim submitted by Wairimu Kamau.", ["Wairimu Kamau"]),
    ("Meeting with Oduya and Kasandra at 3pm.", ["Kasandra", "Oduya"]),
    ("This is to certify that Gualtiero R. Penhallow has been employed by us since 2016.", ["Gualtiero R. Penhallow"]),
    ("Memorial notice: Rosalind Mae Trevethan, 88, of Ashby, died on Tuesday.", ["Rosalind Mae Trevethan"]),            # a listed first name, rare: one case too
]

# clinical lines and ordinary prose: no name here
NOT_FOUND = [
    "Foley placed, draining clear yellow urine.",
    "Lasix given with good effect.",
    "Pt has been stable overnight, will attend PT in am.",
    "Please contact pharmacy for the vanco level.",
    "If no response, contact MD on call.",
    "Ticket assigned to support and closed.",
    "Exam consistent with Addison's disease; Bell's palsy resolved.",
    "Parkinson's meds given at 0800.",
    "Stable, Alert and Oriented x3.",
    "Neuro: Alert, oriented, follows commands.",
    "Plan: Continue lasix, wean vent as tolerated.",
    "Grace said the dressing was changed.",                   # a common word: not vouched alone
    "Transferred from Lakeside to the floor, reassigned from MICU to SICU.",
    "eilert's cake and sigrun's card",                         # unlisted, one case, a weak position
    "PT WILL ATTEND REHAB. CONTACT NEURO IF CHANGES, ASSIGNED TO MICU TEAM.",
    "pt said abd pain better, contact renal re: hd, tell charge rn.",
    "NEURO: ALERT, MAE, FOLLOWS COMMANDS. RESP: LS CLEAR, SUCTIONED FOR THICK TAN.",
    "Hope has been good for the family.",
    "Lasix (40) given, K (3.4) repleted, Foley (16) placed.",
    "Plan: Zosyn, 12, Vanco, 15, rechecked. Prescription for Eliquis sent, referral for PT.",
    "LEVOPHED (12) WEANED, SAT (98) ON 2L.",
    "Access: Hickman, Broviac; Cultures: Enterococcus, Candida. Allergies: Bactrim, Dilantin.",
    "ID: ZOSYN FLAGYL, AFEBRILE. GI: PEPCID PROTONIX, TF AT GOAL.",
    "skin: coccyx decub, duoderm intact. access: rij tlc, lue piv.",
    "Vanco and Zosyn started, will recheck in am.",
    "Neuro and Resp stable, will continue to monitor.",
    "Results submitted by fax; meeting with family at 3pm.",
    "Line placed by IR, dressing made by wound care.",
    "Plan: Lasix Mae Given, Foley removed.",
    "CXR: Bibasilar Atelectasis, no effusion.",
    "Austin, Dallas and Houston offices will attend.",
]


def _found(text: str) -> list[str]:
    return sorted({text[s.start:s.end] for rule in RULES for s in rule(text, "d")})


@pytest.mark.parametrize("text,names", FOUND)
def test_a_name_in_a_persons_position_is_found(text, names):
    assert _found(text) == sorted(names)


@pytest.mark.parametrize("text", NOT_FOUND)
def test_clinical_and_ordinary_words_stay_unmarked(text):
    assert _found(text) == []


def test_the_detector_marks_them_as_names():
    det = Detector.without_model("i2b2-2014", "en")
    doc = Document(doc_id="d", text="Hi all. Kasandra has been approved; please contact Oduya in IT.")
    got = {doc.text[s.start:s.end]: s.category for s in det.detect(doc)}
    assert got.get("Kasandra") == "NAME" and got.get("Oduya") == "NAME"


def test_vouched_is_stricter_in_one_case():
    assert pn.vouched("Rasmus", True) and pn.vouched("RASMUS", False)
    assert pn.vouched("Eilert", True) and not pn.vouched("EILERT", False)
    assert not pn.vouched("Foley", True) and not pn.vouched("Stable", True)
