"""English organisation and facility rules found on the find halves of Boston-area ICU nursing
notes (``icu_invented_p`` f49-f80): a union's local, a court named by its town or county, an
employer closed by a company's legal word after a calling and "for", an unlisted town's fire
department, a facility head joined by "&", a church named for a mount, and a rehab named by its
owner and its care. Lines are rephrased from the find notes, each beside the text that must stay
unmarked; each case is checked as written, in capitals and in lower case."""
from __future__ import annotations

import pytest

from rules_en_case_helpers import CASES, detector, found, marked, recase  # noqa: F401


def _covered(det, line: str, target: str) -> bool:
    """Whether the detector's spans cover every character of ``target`` in ``line``."""
    from pipeline.spans import Document
    at = line.index(target)
    spans = det.detect(Document("d", line))
    return all(any(s.start <= i < s.end for s in spans) for i in range(at, at + len(target)))


def _found_whole(det, line: str, target: str) -> bool:
    return target in marked(det, line)


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, org", [
    ("Dad is an electrician, IBEW Local 103, out on disability.", "IBEW Local 103"),
    ("Husband drives for Teamsters Local 25 out of Charlestown.", "Teamsters Local 25"),
    ("Works in housekeeping, SEIU Local 1199 rep called unit.", "SEIU Local 1199"),
    ("Member of Sheet Metal Workers Local 17 for 20 yrs.", "Sheet Metal Workers Local 17"),
])
def test_a_unions_local_by_its_number(detector, line, org, case):
    assert _found_whole(detector, recase(line, case), recase(org, case))


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "Local anesthesia with 1% lidocaine, 5 mL given.",
    "Pt received local 1% lidocaine x2 before line placed.",
    "Lido local 2 mL given by MD at bedside.",
    "Infiltrated with local 10 mL, hemostasis achieved.",
])
def test_a_local_anaesthetic_is_no_union(detector, line, case):
    assert marked(detector, recase(line, case)) == []


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, court", [
    ("Temporary guardian appointed by Bristol County Probate Court, atty to call.", "Bristol County Probate Court"),
    ("PO from Barnstable District Court called, aware pt here.", "Barnstable District Court"),
    ("Hearing at Boston Municipal Court next week per pt.", "Boston Municipal Court"),
    ("Guardianship petition filed in Plymouth Probate and Family Court.", "Plymouth Probate and Family Court"),
])
def test_a_court_named_by_its_town_or_county(detector, line, court, case):
    assert _found_whole(detector, recase(line, case), recase(court, case))


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "Court-ordered treatment, went to family court with mother.",
    "Has a date at housing court next month.",
    "On probation through district court, district nurse visits.",
    "Pt's juvenile court hearing postponed.",
])
def test_a_court_without_its_town_is_no_name(detector, line, case):
    assert marked(detector, recase(line, case)) == []


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, org", [
    ("Lives on the island, deckhand for Vineyard Sound Ferry Co, found down at 0500.", "Vineyard Sound Ferry Co"),
    ("Son is a lineman for Quabbin Valley Electric Co, here at 1400.", "Quabbin Valley Electric Co"),
])
def test_an_employer_closed_by_a_legal_word_after_a_calling(detector, line, org, case):
    assert _found_whole(detector, recase(line, case), recase(org, case))


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "Monitor for CO retention, ABG in AM.",
    "Sister is a nurse for the company, will visit later.",
    "Cardiac output monitor for co 4.5, ci 2.1.",
])
def test_a_calling_for_no_company(detector, line, case):
    assert found(detector, recase(line, case), "LOCATION") == []   # (the nurse is a profession)


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, org", [
    ("Single car vs tree, prolonged extrication by Carver Fire, GCS 7 at scene.", "Carver Fire"),
])
def test_an_unlisted_towns_fire_department(detector, line, org, case):
    assert _found_whole(detector, recase(line, case), recase(org, case))


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "Pulled from camper fire by neighbors, smoke inhalation.",
    "ICD did not fire during the run of VT.",
    "Burns to hands from a grease fire at home.",
])
def test_what_burns_is_no_fire_department(detector, line, case):
    assert marked(detector, recase(line, case)) == []


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, place", [
    ("84 y/o woman from Stonewall Hill Nursing & Rehab in Dracut, sent in for lethargy.",
     "Stonewall Hill Nursing & Rehab"),
    ("Screened by Maplewood Health and Rehabilitation Center, bed offered.", "Maplewood Health and Rehabilitation Center"),
    ("Will return to Brookside Rehab & Nursing Center once stable.", "Brookside Rehab & Nursing Center"),
])
def test_a_facility_head_joined_by_and(detector, line, place, case):
    assert _found_whole(detector, recase(line, case), recase(place, case))


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "Pt needs skilled nursing and rehab after discharge.",
    "Discussed home health and rehab options with family.",
])
def test_care_joined_by_and_names_no_facility(detector, line, case):
    assert marked(detector, recase(line, case)) == []


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, org", [
    ("Pastor is Rev. Hollis of Mt. Olive Baptist Church, msg left at church office.", "Mt. Olive Baptist Church"),
    ("Deacon from Mount Zion AME Church visited today.", "Mount Zion AME Church"),
    ("Member of Mount Olive Missionary Baptist Church for 40 yrs.", "Mount Olive Missionary Baptist Church"),
])
def test_a_church_named_for_a_mount_is_the_whole_name(detector, line, org, case):
    assert _found_whole(detector, recase(line, case), recase(org, case))


@pytest.mark.parametrize("case", CASES)
def test_a_mountain_stays_a_mountain_and_a_verb_no_name(detector, case):
    assert marked(detector, recase("Hiked Mount Monadnock last weekend.", case)) == [recase("Mount Monadnock", case)]
    assert marked(detector, recase("Will mount the tv above the hospital bed.", case)) == []


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, place", [
    ("Early rehab referral - case mgr sending to Sheffield Spinal Rehab once stable.", "Sheffield Spinal Rehab"),
])
def test_a_rehab_named_by_its_owner_and_its_care(detector, line, place, case):
    assert _covered(detector, recase(line, case), recase(place, case))


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "Early referral to acute rehab, then inpatient rehab.",
    "Case mgr sending to spinal cord rehab once stable.",
    "Pt needs acute rehab once stable.",
])
def test_the_kind_of_rehab_is_no_name(detector, line, case):
    assert marked(detector, recase(line, case)) == []


@pytest.mark.parametrize("case", CASES)
def test_a_trades_local_is_found_by_the_rule(case):
    # the rule finds it; the pack's drop_numbers_without_context step then drops an organisation made
    # of safe words and a number ("Carpenters", "Local" are both in the safe vocabulary)
    from pipeline.detection.rules.en.companies import companies
    line = recase("Lives w/ parents, apprentice carpenter, member of Carpenters Local 1187.", case)
    assert recase("Carpenters Local 1187", case) in [line[s.start:s.end] for s in companies(line, "d")]
