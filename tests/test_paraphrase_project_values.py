"""Issue 29 item 1: a paraphrase surrogate is never a real value of the project.

The attack: ``train-infill`` on notes where a few people (patients and their doctors) appear in
three or more notes each, then ``deidentify --profile paraphrase`` on held-out notes that never
name them. The model filled the held-out notes' name slots with those people, and the leak
check said 0. Now the model learns from notes whose PHI was replaced by list surrogates first
(:mod:`models.masked_lm_source`), every fill is checked against the keyed set of the project's
values (:mod:`pipeline.deid.project_values`; a hit takes a list surrogate and is counted), and
the leak check reports such a value (``kind="project_value"``).

Every name here is invented and, except "Lucas", in none of the shipped lists. Assertions count
words; a failure message never quotes a note.
"""
from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from cli import main
from pipeline.deid import DeidContext, builtin_profiles, deidentify_batch
from pipeline.deid.operators import paraphrase as paraphrase_op
from pipeline.deid.project_values import ProjectValues, ProjectValuesError
from pipeline.formats import read_collection, write_collection
from pipeline.schemas import MEDDOCAN
from pipeline.spans import Document, Span

FIRST = ["Xandrolo", "Wirtemba", "Quelmira", "Zorbela", "Brunalda", "Ostrelio", "Fenwara", "Tumberto"]
LAST = ["Ibarzabal", "Urkitza", "Elkoro", "Kaltxo", "Garmendi", "Osteriz", "Belandro", "Zurbano"]
HELD_FIRST = ["Ilvaro", "Grastina", "Yolberto", "Nairusa"]
HELD_LAST = ["Etxaniz", "Olazagoitia", "Berasategui", "Lisdrana"]
PROJECT_WORDS = {w.lower() for w in FIRST + LAST}
SECRET = b"project-values-test-secret-0123456789"
TINY = {"hidden": 32, "layers": 1, "heads": 2, "intermediate": 64, "epochs": 2, "vocab_size": 1500, "max_len": 64,
        "min_docs": 2, "batch_size": 8}


def _note(doc_id: str, patient: str, doctor: str, rng: random.Random) -> Document:
    parts: list[tuple[str, str | None]] = [
        ("Datos del paciente.\nNombre: ", None), (patient, "NOMBRE_SUJETO_ASISTENCIA"),
        (".\nMédico: Dr. ", None), (doctor, "NOMBRE_PERSONAL_SANITARIO"),
        (f".\nInforme clínico. Paciente de {rng.randint(30, 80)} años que acude a consulta por dolor abdominal. "
         "Exploración sin hallazgos. El paciente ", None), (patient.split()[0], "NOMBRE_SUJETO_ASISTENCIA"),
        (" refiere mejoría. Remitido por el Dr. ", None), (doctor.split()[-1], "NOMBRE_PERSONAL_SANITARIO"),
        (" para control en un mes.\n", None)]
    text, spans = "", []
    for chunk, type_ in parts:
        if type_:
            spans.append(Span(doc_id, len(text), len(text) + len(chunk), "NAME", type_))
        text += chunk
    return Document(doc_id, text, spans)


def project_notes(n: int = 24, seed: int = 3) -> list[Document]:
    """Notes where each invented first name and surname occurs in three notes or more."""
    rng = random.Random(seed)
    return [_note(f"train{k:02d}", f"{FIRST[k % 8]} {LAST[(k * 3) % 8]}",
                  f"{FIRST[(k + 3) % 8]} {LAST[(k + 5) % 8]}", rng) for k in range(n)]


def held_out_notes(n: int = 6, seed: int = 7) -> list[Document]:
    rng = random.Random(seed)
    return [_note(f"held{k}", f"{HELD_FIRST[k % 4]} {HELD_LAST[(k + 1) % 4]}",
                  f"{HELD_FIRST[(k + 2) % 4]} {HELD_LAST[(k + 3) % 4]}", rng) for k in range(n)]


def project_words_in(text: str) -> int:
    return sum(1 for w in re.findall(r"[^\W\d_]+", text) if w.lower() in PROJECT_WORDS)


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    root = tmp_path_factory.mktemp("pv")
    write_collection(project_notes(), root / "train", "brat")
    write_collection(held_out_notes(), root / "held", "brat")
    key = root / "secret.key"
    key.write_text(SECRET.hex() + "\n", encoding="ascii")
    key.chmod(0o600)
    cfg = root / "tiny.json"
    cfg.write_text(json.dumps(TINY), encoding="utf-8")
    assert main(["train-infill", "--input", str(root / "train"), "--format", "brat", "--schema", "meddocan",
                 "--out", str(root / "mlm"), "--config", str(cfg), "--secret-file", str(key), "--no-progress"]) == 0
    return root


def test_the_attack_held_out_notes_get_no_person_of_the_project(folders, capsys):
    capsys.readouterr()
    out = folders / "out"
    rc = main(["deidentify", "--input", str(folders / "held"), "--format", "brat", "--profile", "paraphrase",
               "--infill-model", str(folders / "mlm"), "--output", str(out), "--secret-file",
               str(folders / "secret.key"), "--json"])
    cap = capsys.readouterr()
    summary = json.loads(cap.out)
    assert rc == 0 and summary["leaks"] == 0 and summary["documents"] == 6
    written = read_collection(out, "brat", MEDDOCAN)
    assert len(written) == 6
    assert sum(project_words_in(d.text) for d in written) == 0       # was 20+ before the fix


def test_the_model_folder_holds_keyed_digests_and_learned_no_real_name(folders):
    folder = folders / "mlm" / (folders / "mlm" / "CURRENT").read_text().strip()
    stored = (folder / "project_values.json").read_text(encoding="utf-8").lower()
    assert json.loads(stored)["digests"] and not any(w in stored for w in PROJECT_WORDS)
    vocab = (folder / "tokenizer" / "tokenizer.json").read_text(encoding="utf-8").lower()
    fillers = (folder / "fillers.json").read_text(encoding="utf-8").lower()
    assert not any(w in vocab for w in PROJECT_WORDS) and not any(w in fillers for w in PROJECT_WORDS)


class ProposesProjectNames:
    """A stub model that proposes the project's people first (what the attack's model did)."""

    name = "stub-project-names"

    def __init__(self, values: ProjectValues | None):
        self.project_values = values

    def infill(self, text, requests, top_k=32):
        pool = ["Lucas"] + FIRST + LAST
        return [[[(p, -0.1 * k) for k, p in enumerate(pool if kind == "name" else list("ABCDEFGHJK"))]
                 for kind in r.kinds] for r in requests]


def _project_values() -> ProjectValues:
    docs = project_notes()
    values = [(s.category, d.text[s.start:s.end]) for d in docs for s in d.spans]
    return ProjectValues.build(SECRET, values + [("NAME", "Lucas Kaltxo")])


def test_the_gate_replaces_and_counts_fills_that_are_project_values():
    held = held_out_notes()
    ctx = DeidContext(secret=SECRET, locale="es", infiller=ProposesProjectNames(_project_values()))
    batch = deidentify_batch(held, builtin_profiles()["paraphrase"], ctx)
    s = batch.summary
    assert s.paraphrase_fallbacks.get("project_value", 0) > 0
    assert sum(project_words_in(r.text) for r in batch.results) == 0 and s.leaks == 0
    assert "real value of the project" in s.fallback_note()
    # "Lucas" is a project value but also a common first name of the public list: it may stay
    assert s.paraphrased > 0 and any("Lucas" in r.text for r in batch.results)


def test_without_the_gate_the_leak_check_reports_a_project_value(monkeypatch):
    monkeypatch.setattr(paraphrase_op, "gate_project_values", lambda run, out: None)
    ctx = DeidContext(secret=SECRET, locale="es", infiller=ProposesProjectNames(_project_values()))
    batch = deidentify_batch(held_out_notes(), builtin_profiles()["paraphrase"], ctx)
    kinds = {(lk.kind, lk.scope) for r in batch.results for lk in r.leaks}
    assert batch.summary.leaks > 0 and kinds == {("project_value", "project")}
    # and without the keyed set (the code before the fix) the same outputs passed as leak-free
    ctx = DeidContext(secret=SECRET, locale="es", infiller=ProposesProjectNames(None))
    before = deidentify_batch(held_out_notes(), builtin_profiles()["paraphrase"], ctx)
    assert before.summary.leaks == 0 and sum(project_words_in(r.text) for r in before.results) > 0


def test_a_set_keyed_with_another_secret_is_refused():
    with pytest.raises(ProjectValuesError):
        DeidContext(secret=b"another-secret-0123456789abcdef", locale="es",
                    infiller=ProposesProjectNames(_project_values()))


def test_a_model_trained_before_the_set_existed_is_refused(folders, capsys):
    import shutil

    old = folders / "old-mlm"
    shutil.copytree(folders / "mlm", old)
    for p in old.rglob("project_values.json"):
        p.unlink()
    capsys.readouterr()
    rc = main(["deidentify", "--input", str(folders / "held"), "--format", "brat", "--profile", "paraphrase",
               "--infill-model", str(old), "--output", str(folders / "out-old"), "--secret-file",
               str(folders / "secret.key")])
    err = capsys.readouterr().err
    assert rc == 1 and "train it again" in err and len(err.strip().splitlines()) == 1


def test_hits_are_whole_words_inside_e_mails_and_longer_values():
    pv = _project_values()
    assert pv.hits(SECRET, "kaltxo.m@hospital.es") == [(0, 6)]            # a surname inside an e-mail address
    assert pv.hits(SECRET, "Dr. Xandrolo Ibarzabal") == [(4, 22)]        # a whole value, longest first
    assert pv.hits(SECRET, "Xandrolo Urkitza") == [(0, 8), (9, 16)]     # two people's parts
    assert pv.hits(SECRET, "Kaltxoberri") == [] and pv.hits(SECRET, "Lucas") == [(0, 5)]
    assert pv.hits(SECRET, "Lucas Kaltxo", frozenset({"lucas"})) == [(0, 12)]
    assert pv.hits(SECRET, "Lucas", frozenset({"lucas"})) == []          # a public list entry
