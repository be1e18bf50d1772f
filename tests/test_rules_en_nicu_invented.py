"""English rules found on the NICU notes' find half (``icu_invented_o/find``: nursing, NNP,
lactation, social work and discharge notes), each beside the text that must stay unmarked. Lines
are rephrased from the find notes."""
from __future__ import annotations

import pytest

from rules_en_case_helpers import CASES, detector, found, marked_phi, recase  # noqa: F401  (detector: fixture)


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "Resp: weaned from NC 1 L 40% to 1/2 L 30% today.",   # f03
    "Repeat bld cx from yest NGTD.",
    "Weak suck, incomplete Moro, pupils 3 mm sluggish.",   # f06
    "Pastor's wife has been driving Mom in.",              # f07
])
def test_a_nurserys_words_are_no_phi(detector, line, case):
    assert marked_phi(detector, recase(line, case)) == []


@pytest.mark.parametrize("case", CASES)
def test_a_newborn_named_by_twin_and_surname(detector, case):
    """'TWIN A GAGNON, EX 32 3/7 WKS' (f09); 'Twin B weight 1.2 kg' stays."""
    assert recase("Gagnon", case) in found(detector, recase("Twin A Gagnon, ex 32 3/7 wks, DOL 6.", case), "NAME")
    assert found(detector, recase("Twin B weight 1.2 kg, twin A is stable.", case), "NAME") == []
    assert found(detector, recase("Hips: Twin A Ortolani neg, Barlow neg.", case), "NAME") == []


def test_initials_before_a_credential_sign_the_note():
    """'RP RN' alone on the last line (f03); a unit's 'ICU RN' does not."""
    from pipeline.detection.detector import Detector
    from pipeline.schemas import I2B2_2014

    det = Detector.without_model(I2B2_2014, "en")
    assert found(det, "Feeds advanced, tolerating well.\nRP RN", "NAME") == ["RP"]
    assert found(det, "Report given to the floor.\nICU RN", "NAME") == []


@pytest.mark.parametrize("case", CASES)
def test_an_agency_that_visits_the_home_is_named_with_its_head(detector, case):
    """'referral to seacoast home care faxed' (f14); 'needs home care' stays."""
    text = recase("VNA: referral to Seacoast Home Care faxed with d/c summary.", case)
    assert recase("Seacoast Home Care", case) in found(detector, text, "LOCATION")
    assert found(detector, recase("Needs home care and PT at discharge.", case), "LOCATION") == []


@pytest.mark.parametrize("case", CASES)
def test_a_hospitals_town_and_state_after_its_comma(detector, case):
    """'MONADNOCK VALLEY HOSPITAL, PETERBOROUGH NH, TO A 27 YO' (f06); a clause after the comma stays."""
    text = recase("Born at Monadnock Valley Hospital, Peterborough NH, to a 27 yo G1P0.", case)
    assert {recase("Peterborough", case), recase("NH", case)} <= set(found(detector, text, "LOCATION"))
    text = recase("Admitted to Mercy Hospital, sent to OR for washout.", case)
    assert found(detector, text, "LOCATION") == [recase("Mercy Hospital", case)]
