"""English rules for text written outside a ward (forms, e-mails, chats, letters, statements): each
on lines such texts have, and on clinical lines that must keep no hit. Every value is invented."""
from __future__ import annotations

import pytest

from pipeline.detection.rules.en.address_parts import address_parts
from pipeline.detection.rules.en.companies import companies
from pipeline.detection.rules.en.coordinates import coordinates
from pipeline.detection.rules.en.form_fields import form_fields
from pipeline.detection.rules.en.handles import handles
from pipeline.detection.rules.en.labelled_ids import sentence_ids
from pipeline.detection.rules.en.letters_chat import letters_chat
from pipeline.detection.rules.en.masked_numbers import masked_numbers
from pipeline.detection.rules.en.world_addresses import world_postcodes
from pipeline.detection.rules.en.contact import phones


def found(fn, text):
    return [(text[s.start:s.end], s.type) for s in fn(text, "d")]


def texts(fn, text):
    return sorted(v for v, _ in found(fn, text))


CLINICAL = [
    "Pt transferred to step down unit at 1600 with belongings.",
    "f/u apt 2 wks with PCP. Position: supine, HOB 30.",
    "Called Blood Bank re: 2 units PRBC. Social Services following.",
    "NA 138 CL 101 HCO3 22 AG 14. Temp 38.5°C at 0400.",
    "ABG 7.38, 7.42 on repeat. Lytes @ 2200, propofol @20 mcg/kg/min.",
    "Neuro: A+Ox3.\nPlan: wean vent.\nSkin: intact.",
    "Hi, pt comfortable. Thanks, RN aware.",
    "CAR 2 HRS AGO. VAN 10 MG.",
    "Heparin gtt ending 1200 per protocol.",
]


@pytest.mark.parametrize("fn", [address_parts, companies, coordinates, form_fields, handles, letters_chat,
                                masked_numbers])
def test_clinical_lines_keep_no_hit(fn):
    for line in CLINICAL:
        assert found(fn, line) == [], line


def test_letters_and_chats_name_people():
    assert texts(letters_chat, "Hi Lucinda,\nI need to move my appointment.") == ["Lucinda"]
    assert texts(letters_chat, "Happy 70th!\nLove, Graça and Henrique") == ["Graça", "Henrique"]
    assert texts(letters_chat, "Please sign by Friday. – Tomasz") == ["Tomasz"]
    assert texts(letters_chat, "Odile: did the plumber come?\nHenri: yes\nOdile: ok") == ["Henri", "Odile", "Odile"]
    assert texts(letters_chat, "Hi, I'm Anwen, nurse at the clinic.") == ["Anwen"]
    assert texts(letters_chat, "Call Dwayne at (615) 555-0181.") == ["Dwayne"]
    # no one's name: a group greeted, a role, a single speaker line, a bot's dialogue
    for line in ("Hi team, please update.", "Dear Hiring Manager,", "Dear Parent/Guardian,",
                 "Agent: hi\nCustomer: hello", "Marcus: on my way"):
        assert found(letters_chat, line) == [], line


def test_companies_by_suffix_and_label():
    assert found(companies, "Welcome to Coastline Credit Union! Your member") == [("Coastline Credit Union", "ORGANIZATION")]
    assert texts(companies, "business name Achterberg Carpentry LLC, SSN") == ["Achterberg Carpentry LLC"]
    assert found(companies, "at Lakeview Medical Center, Suite 310") == [("Lakeview Medical Center", "HOSPITAL")]
    assert found(companies, "Employer: Vireo Biotech, Lab Manager") == [("Vireo Biotech", "ORGANIZATION")]
    assert found(companies, "Employer: Retired") == []


def test_handles_masked_numbers_and_coordinates():
    assert texts(handles, "my venmo is @dario-vanucci for the pizza") == ["@dario-vanucci"]
    assert texts(handles, "withdrawal by satoshi_fan21 blocked; MAX_DOSE reached") == ["satoshi_fan21"]
    assert texts(handles, "auth.info login ok user=dmitri.kovalenko src=10.0.0.1") == ["dmitri.kovalenko"]
    assert found(handles, "e-mail me at dario_v@example.org or see /srv/app_logs/x") == []
    assert texts(masked_numbers, "card ************4821 used; refund to card ending in 8812") == ["************4821", "8812"]
    assert texts(masked_numbers, "Autopay from checking ending x4419.") == ["x4419"]
    assert texts(coordinates, "sample taken at 43.6591, -70.2568 by") == ["43.6591, -70.2568"]
    assert texts(coordinates, "last ping at lat 44.27 lon -71.30, red jacket") == ["lat 44.27 lon -71.30"]
    assert texts(coordinates, "found at N 47° 36.582 W 122° 19.926 by") == ["N 47° 36.582 W 122° 19.926"]
    assert found(coordinates, "lactate 2.1, 4.0 earlier; 91.2345, 200.1234") == []   # too short; out of range


def test_address_parts():
    line = "Unit 7, 340 Harbourside Quay, Bristol. Apt 4B upstairs."
    assert ("340 Harbourside Quay", "STREET") in found(address_parts, line)
    assert ("Unit 7", "STREET") in found(address_parts, line) and ("Apt 4B", "STREET") in found(address_parts, line)
    assert ("Magazine Street", "STREET") in found(address_parts, "last seen near Magazine Street, New Orleans")
    assert ("1420 Rue Saint-Denis", "STREET") in found(address_parts, "1420 Rue Saint-Denis, Montréal")
    assert ("Tulsa County", "LOCATION-OTHER") in found(address_parts, "Signed in Tulsa County, Oklahoma")
    assert sorted(found(address_parts, "Level 3, 88 Collins Street, Melbourne VIC 3000")) == sorted([
        ("88 Collins Street", "STREET"), ("Level 3", "STREET"), ("Melbourne", "CITY"), ("VIC", "STATE"), ("3000", "ZIP")])
    assert ("Guadalajara", "CITY") in found(address_parts, "sign-in from Guadalajara, Mexico")
    assert found(address_parts, "Unit 7 called at 1400; sent Via Fax.") == []   # a ward's unit, no street


def test_form_fields_names_and_jobs():
    assert found(form_fields, "Customer: Percival Ngcobo\nEmail: x") == [("Percival Ngcobo", "PATIENT")]
    assert found(form_fields, "Account holder: MR ALISTAIR J PENHALIGON") == [("ALISTAIR J PENHALIGON", "PATIENT")]
    assert found(form_fields, "Emergency contact: Kofi Quaye (husband)") == [("Kofi Quaye", "PATIENT")]
    assert found(form_fields, "Employer: Northwind   Position: Warehouse Supervisor") == [
        ("Warehouse Supervisor", "PROFESSION")]
    assert found(form_fields, "Customer: my order never came") == []


def test_plates_licences_refs_phones_and_postcodes():
    assert texts(sentence_ids, "the tech drives a white van reg KM68 PXT.") == ["KM68 PXT"]
    assert texts(sentence_ids, "Plate: 8ABC123; licence plate LMN-4821") == ["8ABC123", "LMN-4821"]
    assert texts(sentence_ids, "driving licence MENSA705304AB9CD checked") == ["MENSA705304AB9CD"]
    assert texts(sentence_ids, "Customer ref CUS-7781203.") == ["CUS-7781203"]
    assert found(sentence_ids, "CAR 2 HRS AGO, reg 2 units") == []
    assert texts(phones, "Phone: +44 7911 123456. LinkedIn") == ["+44 7911 123456"]
    assert sorted(found(world_postcodes, "arrive at 77 Wellington Road, Harrogate HG2 0LR on")) == [
        ("HG2 0LR", "ZIP"), ("Harrogate", "CITY")]
    assert found(world_postcodes, "Rose Cottage\nGloucestershire\nGL54 2HP\nDear Mrs") == [("GL54 2HP", "ZIP")]


def test_proven_rule_spans_replace_the_model_spans_they_overlap():
    from pipeline.detection.merge_policy import merge_model_first
    from pipeline.spans import Span

    model = [Span("d", 21, 37, "CONTACT", "PHONE", source="model:crf"), Span("d", 52, 60, "LOCATION", "HOSPITAL",
                                                                             source="model:crf")]
    rules = [Span("d", 24, 37, "CONTACT", "IPADDR", source="rule:ipaddr"),
             Span("d", 45, 79, "ID", "ACCOUNT", source="rule:crypto_addresses")]
    got = [(s.start, s.end, s.type) for s in merge_model_first(model, rules, {})]
    assert got == [(24, 37, "IPADDR"), (45, 79, "ACCOUNT")]
    # a rule that reads words does not: the model's span stays and the rule's is not added
    other = [Span("d", 24, 37, "NAME", "PATIENT", source="rule:letters_chat")]
    assert [(s.start, s.end) for s in merge_model_first(model[:1], other, {})] == [(21, 37)]


def test_towns_with_states_houses_and_prose_jobs():
    assert sorted(found(address_parts, "Born in Waterloo, Iowa, she taught")) == [("Iowa", "STATE"), ("Waterloo", "CITY")]
    assert found(address_parts, "Seen by Smith, MD. Jones, PA aware.") == []   # credentials, not states
    assert ("Cobden House", "STREET") in found(address_parts, "Visited at Flat 22, Cobden House, Salford.")
    assert found(form_fields, "Hildegard Wainscott, Marketing Director at Pemberly Foods.") == [
        ("Marketing Director", "PROFESSION")]
    assert found(form_fields, "Pt seen by Dr Lee, Resident at 0800.") == []
    assert found(form_fields, "Dictated by: Blaze Vaughan, PharmD") == [("Blaze Vaughan", "PATIENT")]
    assert texts(sentence_ids, "IBAN: GB94BARC20457743018866 (unchecked)") == ["GB94BARC20457743018866"]


def test_weekday_dates():
    from pipeline.detection.rules.en.weekday_dates import weekday_dates

    assert texts(weekday_dates, "Date: Mon, 10 Feb 2025 09:14") == ["Mon, 10 Feb 2025"]
    assert texts(weekday_dates, "a party on Saturday 8th, sign by Friday 21st.") == ["Friday 21st", "Saturday 8th"]
    for line in ("Sat 98% on RA", "Sun exposure", "Friday 1st dose", "O2 Sat 90/60", "sat 94/95 % on 2L"):
        assert found(weekday_dates, line) == [], line


def test_a_business_name_stops_at_a_full_stop():
    assert found(companies, "Lives in Spokane Valley. Insurance ID WA8821930-01.") == []


def test_greetings_in_any_case_vocatives_and_last_line_signatures():
    assert texts(letters_chat, "hey Lena can u send me the wifi pw?") == ["Lena"]
    assert texts(letters_chat, "Appointment reminder: Nadia, you have an appointment.") == ["Nadia"]
    assert texts(letters_chat, "She needs a copy of her records.\nCorinne Holloway") == ["Corinne Holloway"]
    for line in ("hey there can u call", "Neuro: Alert, you may", "Will continue to monitor.\nPlan Of Care",
                 "hi pt comfortable"):
        assert found(letters_chat, line) == [], line


def test_access_log_user():
    line = '198.51.100.23 - bturner [10/Mar/2025:13:55:36] "GET /account HTTP/1.1" 200'
    assert texts(handles, line) == ["bturner"]
    assert found(handles, '198.51.100.23 - - [10/Mar/2025:13:55:36] "GET / HTTP/1.1" 200') == []
