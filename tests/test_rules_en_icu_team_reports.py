"""English rules found on the find halves of three blind sets: New England ICU nursing notes
(``icu_invented_p``), the rest of the ICU team's notes (``icu_invented_q``: therapists, dietitians,
chaplains, case managers) and hospital reports (``rad_invented``), each beside the text that must
stay unmarked. Lines are rephrased from the find notes."""
from __future__ import annotations

import pytest

from rules_en_case_helpers import CASES, detector, found, marked, marked_phi, recase  # noqa: F401  (detector: fixture)


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, name", [
    ("Will f/u.\nMoody RCP", "Moody"),                               # a respiratory care practitioner
    ("Will follow daily.\nC. Oyelowo MS RD LD pager 6072", "C. Oyelowo"),   # a dietitian's degree and licences
    ("Plan: BID ambulation.\nA. Vogelsang PT / M. Diaz-Cordero OTR", "M. Diaz-Cordero"),
    ("Plan: BID ambulation.\nA. Vogelsang PT / M. Diaz-Cordero OTR", "A. Vogelsang"),
    ("Bereavement packet given.\nD. Abernethy-Cole, Chaplain", "D. Abernethy-Cole"),
    ("Preliminary result phoned 1615.\nCytotechnologist: G. Ferraro, CT(ASCP)", "G. Ferraro"),
])
def test_staff_before_a_therapist_s_a_dietitian_s_or_a_chaplain_s_credential(detector, line, name, case):
    assert recase(name, case) in found(detector, recase(line, case), "NAME")


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "Walked 200 ft with PT",                     # physical therapy, not a credential
    "Skin: fingertips cool/dusky.",              # two findings, no sign-off's initials
    "Toes cool/dusky, cap refill 3 sec.",
])
def test_a_discipline_or_two_findings_are_no_staff(detector, line, case):
    assert found(detector, recase(line, case), "NAME") == []


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, name", [
    ("Insurance: commercial plan via husband's employer (Plains Milling). Pre-cert required.", "Plains Milling"),
    ("Pt's employer (Fitzgerald Bros. Construction) supervisor came by.", "Fitzgerald Bros. Construction"),
    ("Presented to OSH (Door Peninsula Memorial) w/ abd/back pain.", "Door Peninsula Memorial"),
    ("Her church (Greater New Hope Baptist) has volunteers for rides.", "Greater New Hope Baptist"),
])
def test_a_name_in_brackets_after_the_kind_of_place_it_is(detector, line, name, case):
    assert recase(name, case) in found(detector, recase(line, case), "LOCATION")


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "Employer (retired), insurance via Medicare.",
    "Church (none), family declines chaplain.",
    "Transferred from OSH (see above) on a heparin drip.",
])
def test_brackets_that_hold_no_name_stay_unmarked(detector, line, case):
    assert found(detector, recase(line, case), "LOCATION") == []


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, town, state", [
    ("68 yo woman, retired, lives alone in Normal, IL. Presented w/ DOE.", "Normal", "IL"),
    ("Rehab address for ambulance: 40 Ledgewood Rd, Dover NH.", "Dover", "NH"),
])
def test_a_town_its_state_s_code_vouches_for(detector, line, town, state, case):
    got = found(detector, recase(line, case), "LOCATION")
    assert recase(town, case) in got and recase(state, case) in got


@pytest.mark.parametrize("case", CASES)
def test_a_town_after_what_the_patient_works_as(detector, case):
    line = recase("Fiancee here from 1100. Pt works as line cook in Gloucester, no health insurance.", case)
    assert recase("Gloucester", case) in found(detector, line, "LOCATION")
    line = "social: pt is a high school chemistry teacher in hudson nh. wife at bedside daily."
    assert {"hudson", "nh"} <= set(found(detector, line, "LOCATION"))


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "ID: ancef x2 post-procedure doses (1900, 0300 due).",     # clock times, no year
    "- Staples out POD 10-14 (can be at clinic).",             # a range of post-operative days
    "Notify county/state health dept - done, spoke w/ epidemiologist on call.",
    "Case reviewed at GU consensus conference, agree.",
    "Paged covering resident at pager 3-6208, no answer.",
    "Skin: staples intact, removed at POD 14 at rehab.",
    "- 2nd LTACH declined (wound vac, no wound nurse weekends).",
    "Doppler of cca, ica, eca and vertebral arteries bilaterally.",
    "Clinical: 63 yo, PSA 7.8, DRE firm nodule L lobe.",
])
def test_ward_numbers_words_and_meetings_stay_unmarked(detector, line, case):
    assert [f for f in marked_phi(detector, recase(line, case)) if f.lower() not in ("3-6208",)] == []


def test_a_county_by_its_name_is_still_a_place(detector):
    assert "Orange County" in found(detector, "He lives in Orange County with his son.", "LOCATION")


@pytest.mark.parametrize("case", CASES)
def test_a_transcriptionist_s_login_and_a_monitoring_company(detector, case):
    line = recase("K. Ota, MD     dictated 1623, transcribed rmedina2", case)
    assert recase("rmedina2", case) in found(detector, line, "CONTACT") + found(detector, line, "NAME") \
        + found(detector, line, "ID")
    line = recase("Monitoring service: CardioLink Diagnostics", case)
    assert recase("CardioLink Diagnostics", case) in found(detector, line, "LOCATION")


@pytest.mark.parametrize("case", CASES)
def test_an_outreach_worker_s_first_name(detector, case):
    line = recase("Pt is known to the shelter staff, outreach worker Dale came in and identified him.", case)
    assert recase("Dale", case) in found(detector, line, "NAME")


# outpatient specialty notes (``spec_invented``): oncology, dialysis, transplant, home care
@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, phi", [
    ("HD since 2008. Waiting time counts from 2008.", "2008"),
    ("Enrolled. Study ID PANC-3317-0042. Randomized to Arm A.", "PANC-3317-0042"),
    ("C1D1 planned next Mon pending insurance.", "Mon"),
    ("Dialysis - monthly physician progress note\nFlatbush Renal Care\nSeen on floor during tx.", "Flatbush Renal Care"),
])
def test_what_a_specialty_clinic_writes(detector, line, phi, case):
    assert recase(phi, case) in marked(detector, recase(line, case))


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "Lenalidomide 25mg D1-14, dex 40 weekly. Today C3D8.",
    "Referral sent to the BMT program, pt wants to collect after C4.",
    "Rev REMS survey completed by pt.",
    "Nephew has a 4 wheel drive, can bring him down to the paved rd.",
    "Van time 0445 for 1st shift.",
    "Daughter works part time at the dollar store afternoons.",
    "Works at the feedlot, still on his feet all day.",
    "Levo from 1900 to 2300, weaned off.",
    "Potential living donors: wife wants to be tested.",
    "Living donation info packet given.",
    "He still goes to the vfw twice a wk.",
])
def test_what_a_specialty_clinic_writes_that_is_no_phi(detector, line, case):
    assert marked_phi(detector, recase(line, case)) == [] and found(detector, recase(line, case), "ID") == []


@pytest.mark.parametrize("case", CASES)
def test_a_town_after_a_place_named_by_its_kind(detector, case):
    """'he still goes to the vfw in hurricane' (spec_invented find f10); 'church in the morning' stays."""
    assert recase("Hurricane", case) in found(detector, recase("He still goes to the VFW in Hurricane twice a wk.", case),
                                              "LOCATION")
    assert found(detector, recase("Goes to church in the morning.", case), "LOCATION") == []


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, phi", [
    ("Brazos Valley Kidney Ctr  HD tx note  11/14/03", "Brazos Valley Kidney Ctr"),
    ("Keystone Home Infusion - RN home visit", "Keystone Home Infusion"),
    ("Pt addr: 212 Mill Race Ln, Bird-in-Hand 17505 (farm lane past the produce stand)", "Bird-in-Hand"),
    ("Pt arrived by w/c, brought by church van (Greater Mt Zion) - driver says van in shop.", "Greater Mt Zion"),
    ("Access: R forearm AVF placed 1999, good thrill/bruit.", "1999"),
])
def test_what_a_specialty_clinic_writes_second_batch(detector, line, phi, case):
    assert recase(phi, case) in marked(detector, recase(line, case))


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "Asked about Benadryl - defer to MD, Sarna lotion ok per standing orders.",
    "Foley inserted 2000, draining clear yellow urine.",
    "Line placed 2010 by IV team.",
    "Referred to the transplant center.",
])
def test_what_a_specialty_clinic_writes_that_is_no_phi_second_batch(detector, line, case):
    assert marked_phi(detector, recase(line, case)) == []


@pytest.mark.parametrize("case", CASES)
def test_a_driver_s_title_is_no_name(detector, case):
    line = recase("Brought by church van - driver Deacon Price says van in shop next wk.", case)
    assert recase("Deacon", case) not in found(detector, line, "NAME")


# second find batches of the ED, long-term care and specialty sets
@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, phi", [
    ("Pt arrived ambulatory w/ daughter Marisol who drove her over from Palisade.", "Palisade"),
    ("Wife asks about work (he drives a delivery route for Zeeland Farm Supply) - ok light duty.", "Zeeland Farm Supply"),
    ("Bandage change.\nT. Oyelaran CHT / M. Quintana RN", "T. Oyelaran"),
    ("Pt works part time as a security guard at Tennessee Valley Feed & Seed afternoons.",
     "Tennessee Valley Feed & Seed"),
    ("Pt address: 14 Mill Pond Rd, Ware - 2nd fl apt, side entrance.", "Ware"),
    ("Was on HD ~3 yrs at Lakeshore Dialysis in Holland prior to tx.", "Lakeshore Dialysis"),
    ("Destination: this facility (bypassed Redbud Memorial - no CT after 2300)", "Redbud Memorial"),
    ("Agency: Medic 12          Incident #: 03-118842", "03-118842"),
    ("Unit: Medic 41   Run#: 09-31275   Date: 9/12/09", "09-31275"),
    ('Friend ("Bubba") following by priv veh.', "Bubba"),
    ("Spoke w/ advocate Yesenia, who will f/u with pt by phone.", "Yesenia"),
    ("Pt seen in apt, dtr-in-law Sue present for part of visit.", "Sue"),
    ("R palm lac from box cutter. Tdap 2009 per pt - up to date.", "2009"),
    ("Crisis team paged for bed search - Desert Willow Behavioral has adult bed.", "Desert Willow Behavioral"),
    ("Bereavement referral made.\nT. Oyelaran-Fisk, MDiv, Hospice Chaplain", "T. Oyelaran-Fisk"),
])
def test_what_second_find_batches_showed(detector, line, phi, case):
    assert recase(phi, case) in marked(detector, recase(line, case))


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "Order reads 400mg, clarified with pharmacist.",
    "Referred back to podiatry.",
    "Insurance auth needed - sent to auth coordinator.",
    "Premedicated w/ Norco 5/325 @ 0900.",
    "D/C plan is to return to ALF w/ 24hr staff.",
    "Rx sent to the outpt pharmacy downstairs.",
    "5 x 4 mm R UVJ stone, mild hydronephrosis.",
    "Anesth: lido 1% plain 4cc local infiltration.",
    "Md reeval - not yet clinically sober.",
    "Referred to outpatient behavioral health.",
    "He drives a truck for a living.",
])
def test_what_second_find_batches_showed_is_no_phi(detector, line, case):
    assert marked_phi(detector, recase(line, case)) == [] and found(detector, recase(line, case), "ID") == []
