"""English rules on numbers in lines written for these tests as ward notes write them (issue 30,
items 2 and 3): ages in the shapes a presentation line uses, years in a history, courses of days,
MAR/DEC with a day, identifiers after marked labels, professions after labels; each in the case
written, in capitals and in lower case, beside the clinical lines where it must not fire (vitals,
doses, ranges, scores, times, drips), and a PHI-free ICU note that stays unmarked."""
from __future__ import annotations

import pytest

from pipeline.spans import Document

from rules_en_case_helpers import CASES, detector, found as _found, recase as _recase  # noqa: F401  (detector: a fixture)


AGE_LINES = [
    ("84M with PMH HTN, DM, presents with SOB", "84"),
    ("Pt is an 84 F s/p fall at home", "84"),
    ("HPI: 67 M w/ hx of afib on coumadin", "67"),
    ("71 yrs male, full code", "71"),
    ("59yr F from home with chest pain", "59"),
    ("Age/Sex: 84/M", "84"),
    ("DOB: 04-JAN-1950 (84 yrs)", "84"),
    ("Patient is 84. Lives alone.", "84"),
    ("a man of 84 with CHF", "84"),
    ("Age (years): 84", "84"),
    ("Pt 84y, lives alone", "84"),
]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line,age", AGE_LINES)
def test_age_shapes(detector, line, age, case):
    assert age in _found(detector, _recase(line, case), "AGE")


NOT_AGES = [
    "16F foley placed, draining clear yellow urine",
    "14 F NGT to LIWS, placement confirmed",
    "walked 30 m with PT, tolerated well",
    "smoker x 40 yrs male pattern baldness noted",
    "Pt is 2 assist to chair. Pt is 1:1 with sitter.",
    "pt is 100% on NRB, RR 28",
    "HR 90 SR, BP 120/80, RR 18, SpO2 98% on 2L NC",
    "heparin gtt at 1200 units/hr, PTT 65",
    "FOLEY DRAINING 30-50 CC/HR, LASIX 40 MG IV GIVEN @ 2000",
    "a man of 84 kg", "woman of 2 children", "Pt 2y post CABG", "weaned, 10 yrs, ok",
    "On coumadin, 5 years, for afib", "man of 5 feet",
]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", NOT_AGES)
def test_no_age_in_clinical_numbers(detector, line, case):
    assert _found(detector, _recase(line, case), "AGE") == []


YEAR_LINES = [
    ("s/p CABG in '98, stents x 2", "'98"),
    ("h/o MI 2005, s/p PCI to LAD", "2005"),
    ("PMH: DM dx'd 1999, HTN, CKD", "1999"),
    ("last colonoscopy 1998 normal", "1998"),
]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line,year", YEAR_LINES)
def test_history_years(detector, line, year, case):
    assert year.lstrip("'") in [d.lstrip("'") for d in _found(detector, _recase(line, case), "DATE")]


NOT_YEARS = [
    "Lasix given 2000, last dose 0800",
    "Last BM 2000 per report",
    "LAST K 3.9 AT 2000, repeat at 0400",
    "prior I/O +1960, goal even",
    "last UO 1960 cc over shift",
    "Pt 5'10\", 80 kg, BMI 25",
]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", NOT_YEARS)
def test_no_year_in_times_and_values(detector, line, case):
    assert _found(detector, _recase(line, case), "DATE") == []


RANGE_LINES = [
    ("abx 3/12-3/20, then po", ["3/12", "3/20"]),
    ("Off pressors since 3/12 - 3/14", ["3/12", "3/14"]),
    ("PEG placed Mar. 12 by GI", ["Mar. 12"]),
]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line,dates", RANGE_LINES)
def test_courses_of_days(detector, line, dates, case):
    got = _found(detector, _recase(line, case), "DATE")
    assert all(_recase(d, case) in got for d in dates)


NOT_RANGES = [
    "PS 10/5-12/5 overnight, tolerated",
    "pain 3/10-5/10 with movement",
    "BP 110/60-120/70, HR 80-90",
    "PEEP/PS 5/10-5/12 on CPAP",
    "I/O 2/3-4/5 L",
    "weaned 4/2-2/2 over the shift",
]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", NOT_RANGES)
def test_no_date_in_ranges_of_values(detector, line, case):
    assert _found(detector, _recase(line, case), "DATE") == []


MAR_DEC_LINES = [
    ("CXR Mar 12: clear, no effusion", "Mar 12"),
    ("Due back Dec 3 for f/u", "Dec 3"),
    ("Started abx Mar 12, d/c'd Mar 15", "Mar 12"),
]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line,date", MAR_DEC_LINES)
def test_mar_and_dec_with_a_day_in_any_case(detector, line, date, case):
    assert _recase(date, case) in _found(detector, _recase(line, case), "DATE")


NOT_MAR_DEC = [
    "UO dec 30 cc/hr over last 2 hrs",
    "UO DEC 30",
    "Insulin dec 2 units per scale",
    "Per MAR 12 doses given this shift",
    "Sats dec 88% on RA, HR dec 50s",
    "propofol decreased, dec 5 more",
    "Wean dec 10 to 5 as tolerated",
    "pressor dec 0.05, MAP 65",
]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", NOT_MAR_DEC)
def test_mar_and_dec_as_record_and_decrease(detector, line, case):
    assert _found(detector, _recase(line, case), "DATE") == []


# a night's nursing note written for this test, in capitals as many ICU notes are: vitals, drips,
# ranges, scores, weights, devices and drugs, and no PHI at all
ICU_NOTE = """NPN 7P-7A
NEURO: ALERT AND ORIENTED X3, MAE, FOLLOWS COMMANDS. PERRL 3MM BRISK.
CV: HR 80-90 NSR, NO ECTOPY. BP 110-130/60-70. K 3.8 REPLETED WITH 40 MEQ KCL.
RESP: LS CLEAR UPPER, DIMINISHED BASES. O2 SAT 95-98% ON 4L NC. RR 18-22.
GI: ABD SOFT, +BS, NO BM. TOLERATING CLEARS. PROTONIX IV.
GU: FOLEY DRAINING CLEAR YELLOW URINE 30-60CC/HR. LASIX 40MG IV GIVEN WITH GOOD EFFECT.
ID: TMAX 100.2, WBC 12.3. ON VANCO/ZOSYN. BLOOD CX PENDING.
SKIN: INTACT. TURNED Q2H.
SOCIAL: WIFE AND SON IN TO VISIT, UPDATED BY RN. FULL CODE.
PLAN: CONT TO MONITOR HEMODYNAMICS, WEAN O2 AS TOL, F/U AM LABS.
HEMODY STABLE. AFEBRILE. MAX TEMP 99.1.
PT IS 84 KG, DOWN 1.2 KG FROM YESTERDAY.
CI 2.4, CO 5.1, SVR 900, PAD 18, CVP 12.
O-NEURO: UNCHANGED. P-: CONT PLAN.
CAREVUE UPDATED. MAE 5/5 STRENGTH, GRIPS EQUAL.
PROPOFOL AT 20MCG/KG/MIN, FENTANYL 50MCG/HR, RASS -1.
HEPARIN GTT AT 1000 UNITS/HR, PTT 68 AT 0400, NO CHANGE PER PROTOCOL.
PS 10/5, FIO2 40%, TV 450S, RR 16, ABG 7.41/40/98.
INSULIN GTT 2-4 UNITS/HR, FS 110-140.
U/O 20-30CC/HR, MD AWARE. BOLUSED 500CC NS X2.
CXR 0600: NO CHANGE. EKG SR 70S.
LEVOPHED 0.05-0.1 MCG/KG/MIN, MAP 60-65.
PT TRANSFERRED FROM OSH FOR FURTHER MGMT.
PT FROM HOME, LIVES WITH WIFE.
SEEN BY CARDS, RECS FOLLOWED.
ALERT, ORIENTED, APPROPRIATE.
PT C/O PAIN 6/10, MEDICATED WITH MORPHINE 2MG IV WITH RELIEF TO 2/10.
REPOSITIONED, BACK RUB GIVEN. SLEPT IN NAPS.
PEG TUBE FEEDS AT 60CC/HR GOAL 80. RESIDUALS < 50.
TRACH CARE DONE, SMALL AMT WHITE SECRETIONS.
DAUGHTER CALLED AT 2100, UPDATED.
PT HAD 2 BRIEF RUNS OF NSVT 5-8 BEATS, ASYMPTOMATIC, K AND MG REPLETED.
ART LINE DAMPENED, RE-ZEROED, FLUSHED.
WT 78.4 KG, I/O +1.2L.
A-FIB 110-130S, DILT GTT 10MG/HR.
D/C'D ART LINE. PIV X2 20G L FA, 18G R AC.
OOB TO CHAIR X 1 HR, TOLERATED WELL WITH ASSIST OF 2.
PLAN FOR ECHO IN AM. NPO AFTER MN.
CODE STATUS DISCUSSED WITH FAMILY, REMAINS FULL CODE.
PT TO GO TO CATH LAB IN AM.
TYLENOL 650MG PR FOR TEMP 101.2.
DR AWARE OF LOW UO. NS 250CC BOLUS GIVEN.
RN TO RN REPORT GIVEN.
SBP 90S-100S, MAP > 60.
RESTRAINTS ON FOR SAFETY, CHECKED Q2H.
NITRO GTT TITRATED TO SBP < 140."""


@pytest.mark.parametrize("case", CASES)
def test_an_icu_note_without_phi_stays_unmarked(detector, case):
    text = ICU_NOTE if case == "upper" else ICU_NOTE.lower() if case == "lower" else \
        "\n".join(line[:1] + line[1:].lower() for line in ICU_NOTE.splitlines())
    assert [text[s.start:s.end] for s in detector.detect(Document("d", text))] == []


ID_LINES = [
    ("Acct #: 99887766", "99887766"),
    ("Acc no. 7788", "7788"),
    ("Visit ID: V-998877", "V-998877"),
    ("MRN #: 554433", "554433"),
    ("device serial SN 44556677", "44556677"),
]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line,value", ID_LINES)
def test_identifiers_after_labels_with_marks(detector, line, value, case):
    assert _recase(value, case) in _found(detector, _recase(line, case), "ID")


@pytest.mark.parametrize("case", CASES)
def test_no_identifier_in_a_dose(detector, case):
    assert _found(detector, _recase("FIN 123 mg, acc 2 tabs", case), "ID") == []


@pytest.mark.parametrize("case", CASES)
def test_professions_after_a_label(detector, case):
    assert _found(detector, _recase("Profession: lawyer", case), "PROFESSION") == [_recase("lawyer", case)]
    assert _found(detector, _recase("Job: cashier at the mall", case), "PROFESSION") == [_recase("cashier", case)]
    assert _found(detector, _recase("Work: of breathing increased", case), "PROFESSION") == []


@pytest.mark.parametrize("case", CASES)
def test_may_after_a_subject_is_the_verb(detector, case):
    assert _found(detector, _recase("pt may 2 assist to chair", case), "DATE") == []
    assert _found(detector, _recase("extubated May 3, tolerated", case), "DATE") == [_recase("May 3", case)]


PHONE_LINES = [
    ("call 617/555-0134 with questions", "617/555-0134"),
    ("phone 617 5550134", "617 5550134"),
    ("Reachable at (617) 555 - 0134", "(617) 555 - 0134"),
    ("daughter in London: +44 20 7946 0958", "+44 20 7946 0958"),
    ("beeper 4-1234", "4-1234"),
]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line,phone", PHONE_LINES)
def test_phone_shapes(detector, line, phone, case):
    assert _recase(phone, case) in _found(detector, _recase(line, case), "CONTACT")


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", ["I/O +1200/-300", "+2 pitting edema, +1 200 300", "ABG 7.38/42/98, vent 500/14/5/40",
                                  "2 units 4-6 hrs", "Na 138 K 4.1 Cl 102 CO2 24 BUN 20 Cr 1.1"])
def test_no_phone_in_values(detector, line, case):
    assert _found(detector, _recase(line, case), "CONTACT") == []


WEAK_ID_LINES = [
    ("Chart #: 44556677", "44556677"), ("ID: 4455667", "4455667"), ("Ref #: AB-99887", "AB-99887"),
    ("Employee ID: E44556", "E44556"), ("Enc: 99887766", "99887766"),
]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line,value", WEAK_ID_LINES)
def test_identifiers_after_weaker_labels(detector, line, value, case):
    assert _recase(value, case) in _found(detector, _recase(line, case), "ID")


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", ["ID: Tmax 101.2, WBC 12", "ID: 100.4 max", "Rx: 12345 units heparin",
                                  "Record: 2000 mL out", "ID: 10000 units", "Patient #2 in room"])
def test_no_identifier_in_an_id_section_or_a_dose(detector, line, case):
    assert _found(detector, _recase(line, case), "ID") == []
