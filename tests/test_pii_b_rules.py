"""English rules found on the second invented PII set's find half (benchmarks/data/pii_invented_b):
each on a line such texts have, beside one it must leave alone, and clinical lines that must keep
no hit; and the benchmark's loader and scorer on one of the set's texts. Every value is invented
(none is copied from the set's check half)."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

import pipeline.detection.rules.en  # noqa: F401  (registers the pack)
from pipeline.detection.rules.en.address_parts import address_parts
from pipeline.detection.rules.en.contact import phones
from pipeline.detection.rules.en.form_fields import form_fields
from pipeline.detection.rules.en.handles import handles
from pipeline.detection.rules.en.job_titles import job_titles
from pipeline.detection.rules.en.labelled_ids import sentence_ids
from pipeline.detection.rules.en.letters_chat import letters_chat
from pipeline.detection.rules.en.record_fields import record_fields
from pipeline.detection.rules.en.wallet_addresses import wallet_addresses

REPO = Path(__file__).resolve().parents[1]


def found(fn, text):
    return sorted((text[s.start:s.end], s.type) for s in fn(text, "d"))


CLINICAL = [
    "PT FROM PACU, RN AWARE.",
    "BP 120/80, HR 88, q4h prn.",
    "Spoke with Smith, case manager, re dispo.",
    "Driver side airbag deployed per EMS. Coach bus MVC.",
    "Pt named the assistant. customer service called.",
    "Foley d/c'd, user error on pump, VAN 10 MG.",
    "time,hr,bp,spo2\n08:00,88,120/80,96",
    "dose=5 mg; rate=20 ml/h",
    "Called 0412 at 1400. Lytes @ 2200.",
]


@pytest.mark.parametrize("fn", [record_fields, wallet_addresses, job_titles, handles, form_fields, sentence_ids,
                                letters_chat, address_parts])
@pytest.mark.parametrize("line", CLINICAL)
def test_clinical_lines_keep_no_hit(fn, line):
    assert found(fn, line) == []


def test_record_fields_read_json_keys_and_pairs():
    text = '{"uid": 4410, "full_name": "Marisela Quintanar", "city": "Toldbridge", "card_last4": "8812", "plan": "gold"}'
    assert found(record_fields, text) == [("8812", "ACCOUNT"), ("Marisela Quintanar", "PATIENT"), ("Toldbridge", "CITY")]
    assert found(record_fields, "first_name=Ottokar&zip=H3Z 2Y7&promo=FALL10") == [("H3Z 2Y7", "ZIP"), ("Ottokar", "PATIENT")]
    assert found(record_fields, '{"status": "active", "name": null, "zip": "none"}') == []


def test_record_fields_read_csv_cells_under_a_known_header():
    text = "surname,given name,town,postcode\nVelasquez-Orr,Idony,Penwarra,TR9 4QX"
    assert found(record_fields, text) == [("Idony", "PATIENT"), ("Penwarra", "CITY"), ("TR9 4QX", "ZIP"),
                                          ("Velasquez-Orr", "PATIENT")]
    # a header with no known key, or rows of another width, say nothing
    assert found(record_fields, "sku,qty,price\nAB-12,3,9.99") == []
    assert found(record_fields, "name,city,zip\nonly two,cells") == []


def test_record_keys_are_no_logins():
    assert found(handles, '{"customer_ref": 12, "last_seen": "x"}') == []
    assert found(handles, "given_name,family_name,phone\nA,B,1") == []
    assert found(handles, "ping me, I'm tidal_fox88 on there") == [("tidal_fox88", "USERNAME")]


def test_wallet_addresses_need_a_coins_word():
    addr = "LZx7Qm3Tq9RbV2wKc5Hn8YdG4jPs6AeFuN"
    assert found(wallet_addresses, f"payout in LTC to {addr} today") == [(addr, "ACCOUNT")]
    assert found(wallet_addresses, f"session token {addr}") == []
    seg = "ltc1q8d3xw7k2m9p4t6v0s5r3n2h7j8c4f6g9l0q2z"
    assert found(wallet_addresses, f"wallet: {seg}") == [(seg, "ACCOUNT")]


def test_job_titles_after_promotion_and_between_a_names_commas():
    assert found(job_titles, "Odalys Ferrante was promoted to Head of Compliance last week") == [
        ("Head of Compliance", "PROFESSION")]
    assert found(job_titles, "Meeting with Hamish Torrance, warehouse supervisor, at noon.") == [
        ("warehouse supervisor", "PROFESSION")]
    assert found(job_titles, "Reviewed by Nkosana Dube, Senior Tax Analyst, on Friday") == [
        ("Senior Tax Analyst", "PROFESSION")]
    # lines in one case, and the care team's roles, are left alone
    assert found(job_titles, "MEETING WITH HAMISH TORRANCE, WAREHOUSE SUPERVISOR, AT NOON.") == []
    assert found(job_titles, "Discussed with Okafor, charge nurse, and family.") == []


def test_roles_in_prose_before_a_name():
    assert found(form_fields, "The claimant Vasquez-Ibarra disputes the fee.") == [("Vasquez-Ibarra", "PATIENT")]
    assert found(form_fields, "parcel left with courier Thandeka, van 4.") == [("Thandeka", "PATIENT")]
    assert found(form_fields, "the guest Room was cleaned") == []


def test_ids_after_sentence_labels():
    assert found(sentence_ids, "IMEI 35-884120-447190-2 reported lost") == [("35-884120-447190-2", "DEVICE")]
    assert found(sentence_ids, "the vehicle WP0ZZZ99ZTS392124 was towed") == [("WP0ZZZ99ZTS392124", "VEHICLE")]
    assert found(sentence_ids, "mortgage no. HL-55021983 is due") == [("HL-55021983", "ACCOUNT")]
    assert found(sentence_ids, "loyalty no. QF 771 2094 18 updated") == [("QF 771 2094 18", "ACCOUNT")]
    assert found(sentence_ids, "the lorry (KX19 PLE) left") == [("KX19 PLE", "VEHICLE")]
    assert found(sentence_ids, "blocked user tern.wing7 twice") == [("tern.wing7", "USERNAME")]
    assert found(sentence_ids, "the vehicle was towed; loan pending; user error again") == []


def test_phone_with_a_one_digit_area_code():
    assert found(phones, "ring +351 2 2555 0193 today") == [("+351 2 2555 0193", "PHONE")]
    assert found(phones, "ratio +5 2 3 4") == []


def test_chat_greetings_and_calls():
    assert found(letters_chat, "omg Ysabeau, you were right") == [("Ysabeau", "PATIENT")]
    assert found(letters_chat, "just ping Tjorven on 555-0143 later") == [("Tjorven", "PATIENT")]
    assert found(letters_chat, "Account alert: Ottoline, someone signed in") == [("Ottoline", "PATIENT")]
    assert found(letters_chat, "lol ok. ping me on the ward") == []


def test_town_after_a_british_street():
    got = found(address_parts, "residing at 12 Quillerby Gardens, Marrowcombe. Rent paid.")
    assert ("Marrowcombe", "CITY") in got
    assert found(address_parts, "BP 120/80, 2 Main Street, Foley in place") == [("2 Main Street", "STREET")]


def _bench():
    spec = importlib.util.spec_from_file_location("pii_invented_bench", REPO / "benchmarks" / "pii_invented.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod   # its dataclass looks its module up
    spec.loader.exec_module(mod)
    return mod


def test_second_set_loads_and_scores_one_text():
    bench = _bench()
    half = bench.load("find", bench.SETS["b"])
    assert len(half.docs) >= 80
    doc = next(d for d in half.docs if d.doc_id == "f_fin_64")
    labels = {lab for _, _, lab in half.public[doc.doc_id]}
    assert {"FULLNAME", "ACCOUNTNUMBER", "COMPANYNAME"} <= labels
    one = bench.Half("find", [doc], {doc.doc_id: half.public[doc.doc_id]})
    name = next(s for s in doc.spans if doc.text[s.start:s.end] == "Olamide Fashola")
    r = bench.scores(one, {doc.doc_id: [name]})
    assert r["P"] == 1.0
    gold_chars = sum(1 for s in doc.spans for c in doc.text[s.start:s.end] if not c.isspace())
    assert r["R"] == pytest.approx(len("OlamideFashola") / gold_chars)
    assert r["public"]["FULLNAME"]["recall"] == 1.0 and r["public"]["ACCOUNTNUMBER"]["recall"] == 0.0
    # the check half is there too, never read for misses (--show refuses it)
    check = bench.load("check", bench.SETS["b"])
    with pytest.raises(ValueError):
        bench.show(check, {})


def test_towns_named_by_a_site_or_a_journey():
    from pipeline.detection.rules.en.route_towns import route_towns
    assert found(route_towns, "collect it at our Wrexley depot before noon") == [("Wrexley", "CITY")]
    assert found(route_towns, "Train ticket: Ostravik to Lemminghall, coach 4") == [("Lemminghall", "CITY"),
                                                                                    ("Ostravik", "CITY")]
    # a site that is a common word, a ward's transfer without a travel word, drugs in a line of capitals
    assert found(route_towns, "left it at the Post office; the Main office is shut") == []
    assert found(route_towns, "Transferred from MICU to Floor 5 at 1400") == []
    assert found(route_towns, "SWITCHED TYLENOL TO MOTRIN, BUS TO CT") == []
    for line in CLINICAL:
        assert found(route_towns, line) == []


def test_job_title_in_brackets_needs_capitals():
    assert found(job_titles, "Survey: Aksel (Lead Payroll Analyst, 29) left") == [("Lead Payroll Analyst", "PROFESSION")]
    assert found(job_titles, "Pt (ventilator operator) resting") == []


def test_names_closing_thanks_and_after_for_and_rare_chat_speakers():
    assert found(letters_chat, "Thank you for your order, Maelis! It ships today.") == [("Maelis", "PATIENT")]
    assert found(letters_chat, "Reminder for Oskarine: the boiler check is Monday") == [("Oskarine", "PATIENT")]
    assert found(letters_chat, "Vesna: you up?\nOrlaith: yes, call me") == [("Orlaith", "PATIENT"), ("Vesna", "PATIENT")]
    # labels, drugs and plans before a colon, a team thanked, one speaker alone
    assert found(letters_chat, "Orders for Lasix: 40 mg IV\nPlan for Tomorrow: wean") == []
    assert found(letters_chat, "Thanks for the update, Team!") == []
    assert found(letters_chat, "Resp: LS clear\nHeme: Hct 30\nEndo: RISS") == []
    assert found(letters_chat, "Vesna: you up?\nVesna: hello?") == []
    # a note's sections beside rare ones: every speaker must be a name
    assert found(letters_chat, "Neuro: A+Ox3\nDispo: home\nInteg: intact") == []


def test_bracketed_chat_speakers_are_logins():
    assert found(handles, "[tidewalker] anyone up?\n[moth.lamp] yes") == [("moth.lamp", "USERNAME"), ("tidewalker", "USERNAME")]
    assert found(handles, "[tidewalker] anyone up?") == []
    assert found(handles, "[Neuro] A+Ox3\n[Resp] LS clear\n[REDACTED] x") == []
    assert found(handles, "[pending] labs\n[held] heparin") == []
