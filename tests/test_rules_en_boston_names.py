"""English rules and steps found on the fourth and fifth find batches of Boston-area ICU nursing
notes (``icu_invented_p`` f49-f80): names, states and the words beside them that are no one's.
Lines are rephrased from the find notes; each is checked as written, in capitals and in lower
case where case should not matter."""
from __future__ import annotations

import pytest

from rules_en_case_helpers import CASES, detector, found, marked_phi, recase  # noqa: F401


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, state", [
    ("Daughter Donna called from Portland ME x2, updated.", "ME"),
    ("They live in Old Lyme CT most of the year, want rehab closer.", "CT"),
    ("Son drove down from Keene NH this morning.", "NH"),
])
def test_a_state_code_right_after_a_town(detector, line, state, case):
    assert recase(state, case) in found(detector, recase(line, case), "LOCATION")


@pytest.mark.parametrize("line", [
    "Transferred from Hartford CT scan showed SDH.",
    "Pt told me he drives to Boston me and wife ok.",
])
def test_a_scan_or_a_pronoun_after_a_town_is_no_state(detector, line):
    assert [f for f in found(detector, line, "LOCATION") if len(f) == 2] == []


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line", [
    "Daughter asks that her mother's pastor be called this evening.",
    "Met with the family's parish priest at the bedside.",
    "Wife's chaplain visited, prayed with family.",
    "Now sitting w/ wife (arr 0405).",
    "C-collar (Miami J) on, c-spine not yet cleared.",
    "Brother is his guardian w/ Rogers authority, form on chart.",
    "Company will handle paperwork, OSHA was out to the site.",
])
def test_roles_devices_and_legal_words_are_no_name(detector, line, case):
    assert marked_phi(detector, recase(line, case)) == []


@pytest.mark.parametrize("case", CASES)
def test_a_rank_is_no_first_name(detector, case):
    line = recase("Arrived trauma bay 0652. Trooper Dufresne (state police) here at 0815.\n0815 trooper in.", case)
    names = found(detector, line, "NAME")
    assert not any("trooper" in n.lower() for n in names)
    assert recase("Dufresne", case) in names


@pytest.mark.parametrize("case", CASES)
def test_a_case_manager_s_full_name_in_any_case(detector, case):
    line = recase("Son updated by phone. Case mgr Yesenia Pabon met w/ daughter re: LTACH vs rehab.", case)
    assert recase("Yesenia Pabon", case) in found(detector, line, "NAME")


@pytest.mark.parametrize("closing", ["Eileen T.", "EILEEN T.", "Bob K"])
def test_a_first_name_and_an_initial_close_the_note(detector, closing):
    text = f"Plan: pulm toilet, NIF/VC q4, early rehab referral once stable.\n{closing}"
    assert closing in found(detector, text, "NAME")


@pytest.mark.parametrize("closing", ["Vitamin D.", "Hep B.", "Plan A"])
def test_a_drug_or_a_plan_closing_the_note_is_no_writer(detector, closing):
    text = f"Plan: cont abx, f/u cultures in am.\n{closing}"
    assert found(detector, text, "NAME") == []


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("line, name", [
    ("Dr St. Romain (MICU attending) explained the findings.", "St. Romain"),
    ("Decision per surg (Dr. St. Germain).", "St. Germain"),
    ("Paged Dr. St. Pierre re: low UO, aware.", "St. Pierre"),
    ("Wife Marie St. Pierre at bedside.", "St. Pierre"),
])
def test_a_surname_opened_by_its_saint(detector, line, name, case):
    # "St." is no particle of the shared list (icu_invented_r find f08, f28; icu_invented_q find f16)
    assert any(recase(name, case) in f for f in found(detector, recase(line, case), "NAME"))


@pytest.mark.parametrize("line", ["Per St. Mary's, records faxed to unit.", "Transferred to St. Elizabeth's, report called."])
def test_a_saints_hospital_after_a_weak_context_is_no_person(detector, line):
    assert found(detector, line, "NAME") == []
