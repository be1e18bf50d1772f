"""English rules found on the eleventh blind set's find half (``icu_invented_k/find``): each case
as written, in capitals and in lower case, beside the ward text that must stay unmarked."""
from __future__ import annotations

import pytest

from rules_en_case_helpers import CASES, detector, found, marked_phi, recase  # noqa: F401  (detector: fixture)


@pytest.mark.parametrize("case", CASES)
def test_a_hospitals_acronym_defined_in_brackets_and_written_again(detector, case):
    """"Good Shepherd Hospital (GSH) ... Intubated at GSH" (f01)."""
    text = recase("Transferred from Good Shepherd Hospital (GSH) w/ CAP. Intubated at GSH prior to transfer.", case)
    assert found(detector, text, "LOCATION").count(recase("GSH", case)) == 2


@pytest.mark.parametrize("case", CASES)
def test_an_acronym_before_its_emergency_department(detector, case):
    """"sent over from smh ed" (f10): the department says a hospital stands before it."""
    assert recase("smh", case) in found(detector, recase("pt sent over from smh ed for icu bed", case), "LOCATION")


@pytest.mark.parametrize("case", CASES)
def test_a_ward_before_a_department_is_no_hospital(detector, case):
    assert marked_phi(detector, recase("sent to OR. back from CT. from ICU to floor. pt sent from ED.", case)) == []


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "PEEP increased to 12 per fellow, FiO2 to 90%, sats 91-93%.",            # f01
    "Paste applied by WOC RN. Post-pyloric Dobhoff (placed by IR).",        # f18
    "Son stayed, lives nearby, he is hcp. dtr-in-law calls in am.",         # f10
    "Pulm Dr called in from clinic, can be reached at x4-5521.",            # f14
    "Trach ties changed, obturator taped at HOB.",                          # f12
    "is a retired firefighter, former police officer.",
    "intubated 3-4 days ago, extubated 2-3 hrs ago.",
])
def test_ward_words_after_a_context_name_nobody(detector, line, case):
    assert found(detector, recase(line, case), "NAME") == [] and found(detector, recase(line, case), "LOCATION") == [] \
        and found(detector, recase(line, case), "DATE") == []


def test_a_title_abbreviated_still_names(detector):
    got = found(detector, "Dr. Smith aware. Mrs. Jones here. Fr. Doherty visited.", "NAME")
    assert {"Smith", "Jones", "Doherty"} <= set(got)


@pytest.mark.parametrize("case", CASES)
def test_an_operations_day(detector, case):
    """"ex-lap 3-12" (f03)."""
    assert "3-12" in found(detector, recase("22 yo m s/p gsw, ex-lap 3-12 (small bowel resection x2)", case), "DATE")


@pytest.mark.parametrize("case", ("as", "upper"))
def test_a_towns_firefighter(detector, case):
    """"brother-in-law is a Chelsea firefighter" (f16): a capital in a mixed line, or a listed town."""
    assert "Chelsea" in found(detector, "Brother-in-law is a Chelsea firefighter, spoke w/ team.", "LOCATION")
    assert recase("Revere", case) in found(detector, recase("Brother is a Revere firefighter.", case), "LOCATION")


def test_a_models_name_keeps_the_relative_not_the_language_she_speaks():
    from pipeline.locales.en.description_steps import drop_faiths_and_languages
    from pipeline.spans import Span
    from rules_en_case_helpers import step_context
    text = "Dtr Hope speaks English, is designated contact."
    got = drop_faiths_and_languages([Span("d", 4, 23, "NAME", "PATIENT", "model:v")], step_context(text))
    assert [text[s.start:s.end] for s in got] == ["Hope"]


# the twelfth blind set's find half (icu_invented_l/find)

@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "0330 pt c/o back pain from bedrest, tylenol 650 PO.",                  # f06
    "dizzy and near syncope at nh, temp pacer placed.",                     # f17
    "FAMILY LIVES UPSTATE, WIFE STAYING AT HOSPITAL HOUSING.",              # f11
    "ETOH LEVEL 180, APAP NEG. VANC LEVEL 17, GENT PEAK PENDING.",          # f08, f19
    "LR @ 400 W/ 1 AMP BICARB PER LITER, URINE TEA COLORED.",               # f11
    "DIZZY BRIEFLY, BACK TO BED. 1700 CT OUTPUT 10 CC/HR.",                 # f13
    "TEAM (PT/OT, MD) RECOMMENDS SNF, PT NOT ABLE TO TOLERATE REHAB.",       # f03
    "PT VERBALIZED WILLINGNESS TO GO TO DETOX IF BED AVAILABLE.",           # f14
])
def test_clinical_words_after_a_places_or_a_names_context(detector, line, case):
    assert marked_phi(detector, recase(line, case)) == []


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, phi, category", [
    ("SISTER PREFERS MEADOWLARK NURSING HOME IN YONKERS.", "MEADOWLARK NURSING HOME", "LOCATION"),   # f03
    ("Stoma clean, ties secure. --dw", "dw", "NAME"),                                       # f10
    ("septic from infected L AV graft, s/p graft excision Sun.\nCV: Levophed 2-4.", "Sun", "DATE"),   # f19
    ("Assisted pt w/ application for replacement ID.\nL. Greene LMSW", "L. Greene", "NAME"),   # f14
])
def test_a_facility_a_sign_off_a_day_an_employer_and_a_social_worker(detector, line, phi, category, case):
    assert recase(phi, case) in found(detector, recase(line, case), category)


def test_rooms_and_towns_near_home_still_found(detector):
    assert found(detector, "Rm. 12, bed 4, Room 1006", "LOCATION") == ["12", "4", "1006"]
    assert "Fleetwood" in found(detector, "Daughter lives near Fleetwood.", "LOCATION")
    assert "GLENS FALLS HOSPITAL" in found(detector, "TRANSFER TO GLENS FALLS HOSPITAL", "LOCATION")


# the thirteenth and fourteenth blind sets' find halves (icu_invented_m/find, icu_invented_n/find)

@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, phi, category", [
    ("-RN Case Mgr, ext 2213", "2213", "CONTACT"),                                         # n f20
    ("power out since the 2nd from the ice storm", "2nd", "DATE"),                          # n f07
    ("myasthenia gravis (dx 2002, on mestinon)", "2002", "DATE"),                           # m f07
    ("NEURO: A&OX2, THINKS IT IS 1989, CALM.", "1989", "DATE"),                             # m f11
    ("went back into silo Sun AM to level it", "Sun", "DATE"),                              # n f13
    ("Dispo: Case mgr Bev working on LTAC placement.", "Bev", "NAME"),                      # m f10
    ("Daughter asked about DEET, family took a walk.\n-AB RN", "AB", "NAME"),               # n f17
    ("Address verified w/ wife: RR 1 Box 42, Hartington, NE 68739.", "RR 1 Box 42", "LOCATION"),   # n f20
])
def test_what_the_thirteenth_and_fourteenth_sets_found(detector, line, phi, category, case):
    assert recase(phi, case) in found(detector, recase(line, case), category)


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "Transferred here from local ER after CT showed rib fx.",                    # n f01
    "NG aspirate via Minnesota gastric port: dark red 200cc.",                   # n f04
    "Pacer wire placed in cath lab procedure room 0915, threshold 0.8mA.",        # n f05
    "on the 2nd floor. after the 3rd dose.",
    "AKI (resolved, no HD), C diff, delirium. Awaiting LTAC bed.",               # m f10
    "pressure held by rn + cards fellow, femostop reapplied at 40 mmhg.",        # m f12
    "BCx x2 from OSH: GNR in 2/2, speciation pending.",                          # m f01
    "PSV decreased to 8/5 at 1400, tol well.",                                   # m f07
    "RR 18 BPM, HR 90.",
])
def test_ward_text_of_the_thirteenth_and_fourteenth_sets_stays_unmarked(detector, line, case):
    assert marked_phi(detector, recase(line, case)) == []


def test_staff_after_a_roles_comma_when_english_knows_the_name(detector):
    got = found(detector, "discussed w/ fellow, Kowalczyk. paged resident, Okonkwo.", "NAME")
    assert got == ["Kowalczyk", "Okonkwo"]
