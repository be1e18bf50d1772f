"""English rules found on the long-term care and obstetric notes' find halves (``ltc_invented/find``,
``ob_invented/find``), each beside the text that must stay unmarked. Lines are rephrased from the
find notes."""
from __future__ import annotations

import pytest

from rules_en_case_helpers import CASES, detector, found, marked_phi, recase  # noqa: F401  (detector: fixture)


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "Res is a 96 y/o female, lived w/ granddaughter.",             # ltc f01
    "MOST form signed by granddaughter (HCPOA) and PCP.",
    "Met w/ res in room re: d/c plans, res agreeable.",            # ltc f07
])
def test_a_nursing_homes_shorthand_is_no_name(detector, line, case):
    assert [p for p in marked_phi(detector, recase(line, case)) if not p.isdigit()] == []


def test_a_degree_before_a_credential_is_no_state():
    """'B. Haugen, MS, CCC-SLP' (ltc f12): the therapist, not a town in Mississippi."""
    from pipeline.detection.detector import Detector
    from pipeline.schemas import I2B2_2014

    det = Detector.without_model(I2B2_2014, "en")
    text = "Speech eval done.\nB. Haugen, MS, CCC-SLP"
    assert found(det, text, "LOCATION") == [] and "B. Haugen" in found(det, text, "NAME")
    assert {"Jackson", "MS"} <= set(found(det, "Lives in Jackson, MS with his wife.", "LOCATION"))


@pytest.mark.parametrize("case", CASES)
def test_a_street_after_a_bare_direction_letter_on_an_address_on_file(detector, case):
    """'address on file: 1187 W Cottonwood Ln, Magna' (ob f06)."""
    text = recase("Infant will go to address on file: 1187 W Cottonwood Ln, Magna.", case)
    assert recase("1187 W Cottonwood Ln", case) in found(detector, text, "LOCATION")


@pytest.mark.parametrize("case", CASES)
def test_a_newborns_name_in_quotes_and_a_veterans_post(detector, case):
    """'INFANT "YANDEL" 3620G' (ob f02), 'VFW Post 4417' (ltc f07); an infant's quoted feeding stays."""
    assert recase("Yandel", case) in found(detector, recase('Infant "Yandel" 3620g rooming in.', case), "NAME")
    assert recase("VFW Post 4417", case) in found(detector, recase("Active in VFW Post 4417 for years.", case), "LOCATION")
    assert found(detector, recase('Infant "fussy" after feeds per mom.', case), "NAME") == []


@pytest.mark.parametrize("case", CASES)
def test_a_saints_surname_after_a_name_label(detector, case):
    """'NAME: ST. GERMAIN, ROSE     DOB: 08/02/1916' (ltc f11)."""
    text = recase("NAME: St. Germain, Rose     DOB: 08/02/1916", case)
    assert recase("St. Germain, Rose", case) in found(detector, text, "NAME")
