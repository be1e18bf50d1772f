"""Defects 1, 2 and 8 of de-identification, each through every path that had it.

1. Overlapping spans ("Pedro Garcia" and "Garcia Lopez" on "Pedro Garcia Lopez") were resolved
   by dropping one, so "Lopez" stayed while the leak check, built on the spans kept, reported 0.
   Now overlaps are rewritten over their union, the leak check works from the input spans
   (coverage and strings, in text, metadata, ids and names), and a leak fails the run.
2. JSONL ``meta``/``patient_id`` were copied verbatim and output files were named like their
   inputs. Now metadata is dropped unless the profile allows it and names are keyed pseudonyms.
8. ``--resume`` with another profile or secret mixed the two. Now a stored fingerprint refuses it.

The PHI here is invented ("Pedro Garcia Lopez", record 2569870). Assertions compare counts,
offsets and labels; a failure message never quotes a document (pytest runs with --assert=plain).
"""
from __future__ import annotations

import io
import json
import stat
import zipfile
from pathlib import Path

import pytest

import store
from cli import main
from pipeline.deid import (DeidContext, Profile, builtin_profiles, deidentify, deidentify_batch, document_pseudonym,
                           overlap_groups, patient_pseudonym, resolve_overlaps, run_fingerprint)
from pipeline.deid import engine as deid_engine
from pipeline.deid import resolved as deid_resolved
from pipeline.deid.overlaps import OverlapGroup
from apptest_helpers import demo_app, new_app, open_page, sign_in  # noqa: F401 - demo_app is a fixture
from pipeline.deid.fingerprint import FINGERPRINT_FILE, mismatch
from pipeline.engines.manifest import MANIFEST_FILE
from pipeline.deid.leaks import field_text, find_leaks, needles, uncovered
from pipeline.formats import write_collection
from pipeline.schemas import I2B2_2014
from pipeline.spans import Document, Span
from services import deid_batch, deid_files, deid_runs
from services import risk as rs
from services import worker
from services.jobs import JobCancelled, JobContext
from services.settings import secret_path

SECRET = b"leaks-test-secret-0123456789abcdef"
NAME = "Pedro Garcia Lopez"
FILE_ID = "Pedro_Garcia_Lopez_2569870"
MRN = "2569870"
PHI_WORDS = ("Pedro", "Garcia", "Lopez", MRN, FILE_ID)
TEXT = f"Patient {NAME}, record {MRN}, seen today.\nThe patient reports knee pain.\n"
N0 = TEXT.index(NAME)
M0 = TEXT.index(MRN)


def overlapping_spans(doc_id: str = FILE_ID) -> list[Span]:
    """The two overlapping name annotations of the report, plus the record number."""
    return [Span(doc_id, N0, N0 + len("Pedro Garcia"), "NAME", "PATIENT"),
            Span(doc_id, N0 + len("Pedro "), N0 + len(NAME), "NAME", "PATIENT"),
            Span(doc_id, M0, M0 + len(MRN), "ID", "MEDICALRECORD")]


def overlap_doc(doc_id: str = FILE_ID, **kw) -> Document:
    return Document(doc_id, TEXT, overlapping_spans(doc_id), **kw)


def phi_in(data: str | bytes) -> list[str]:
    """Which of the invented PHI words occur in ``data`` (names of words, for the failure message)."""
    text = data.decode("utf-8") if isinstance(data, bytes) else data
    return [w for w in PHI_WORDS if w.lower() in text.lower()]


def tree_phi(folder: Path) -> list[str]:
    """PHI words in any file name or file content under ``folder``."""
    found = []
    for p in folder.rglob("*"):
        found += [f"name:{w}" for w in phi_in(p.name)]
        if p.is_file():
            found += [f"{p.suffix}:{w}" for w in phi_in(p.read_bytes())]
    return found


@pytest.fixture
def secret_file(tmp_path) -> Path:
    p = tmp_path / "secret.key"
    p.write_bytes(SECRET)
    p.chmod(0o600)
    return p


@pytest.fixture
def project(tmp_path):
    """A project with three notes of one patient (gold spans, the first with overlapping names;
    the others name the patient by record number only, so nothing else mentions "Lopez")."""
    path = tmp_path / "wb.db"
    db = store.connect(path)
    pid = store.create_project(db, "leaks", I2B2_2014)
    docs = [Document(FILE_ID, TEXT, overlapping_spans(), patient_id=MRN)]
    for k in (2, 3):
        t = f"Control visit {k}. Record {MRN}: the patient is better.\n"
        docs.append(Document(f"{FILE_ID}-{k}", t, [Span("", t.index(MRN), t.index(MRN) + len(MRN), "ID",
                                                        "MEDICALRECORD")], patient_id=MRN))
    ids = store.add_documents(db, pid, docs, layer="gold", user="lea", allow_overlap=True)
    db.close()
    return path, pid, ids


# ------------------------------------------------------------------------------ defect 1: overlaps
@pytest.mark.parametrize("profile_name", ["redact", "replace"])
def test_defect1_overlapping_names_are_rewritten_over_their_union(profile_name):
    """Defect 1 (engine): no character of either overlapping span survives; the merge is counted."""
    r = deidentify(overlap_doc(), None, builtin_profiles()[profile_name], DeidContext(secret=SECRET, locale="en"))
    assert phi_in(r.text) == []
    assert r.merged_overlaps == 1 and r.uncovered_chars == 0 and r.leaks == []
    union = r.source_spans[0]
    assert (union.start, union.end, union.category) == (N0, N0 + len(NAME), "NAME")
    assert [(a.start, a.end) for a in r.alternatives[0]] == [(N0 + 6, N0 + len(NAME))]
    assert r.summary()["merged_overlaps"] == 1


@pytest.mark.parametrize("profile_name", ["redact", "replace"])
def test_defect1_deidentify_command_leaves_no_phi(tmp_path, secret_file, capsys, profile_name):
    """Defect 1 (``deidentify`` on a folder): exit 0 only because nothing is left."""
    write_collection([overlap_doc()], tmp_path / "in", "brat")
    out = tmp_path / "out"
    rc = main(["deidentify", "--input", str(tmp_path / "in"), "--output", str(out), "--profile", profile_name,
               "--secret-file", str(secret_file), "--json"])
    summary = json.loads(capsys.readouterr().out)
    assert tree_phi(out) == []
    assert rc == 0 and summary["leaks"] == 0 and summary["merged_overlaps"] == 1
    assert summary["uncovered_chars"] == 0


def test_defect1_project_run_and_upload_leave_no_phi(project):
    """Defect 1 (``deidentify-project`` and the page's upload path)."""
    path, pid, ids = project
    for profile_name in ("redact", "replace"):
        res = worker.run_inline(path, "deidentify", {"project_id": pid, "profile": profile_name, "risk": False})
        db = store.connect(path)
        texts = [o.text for o in store.list_deid_outputs(db, res["run_id"], with_text=True)]
        run = store.get_deid_run(db, res["run_id"])
        db.close()
        assert len(texts) == 3 and not any(phi_in(t) for t in texts)
        assert res["leaks"] == 0 and res["status"] == "done"
        assert run.counts["merged_overlaps"] == 1 and run.status == "done"
    for profile in builtin_profiles().values():
        up = deid_files.deidentify_documents([overlap_doc()], profile, SECRET, "en")
        assert phi_in(up.batch.results[0].text) == []
        assert up.batch.summary.leaks == 0 and up.batch.summary.merged_overlaps == 1


def _drop_overlaps(spans, action_of=None):
    """The old resolution (longest wins, the others dropped), to show the check does not trust it."""
    kept: list = []
    for s in sorted(spans, key=lambda s: (-(s.end - s.start), s.start)):
        if not any(s.start < k.end and k.start < s.end for k in kept):
            kept.append(s)
    return [OverlapGroup(s, (s,)) for s in sorted(kept, key=lambda s: s.start)]


@pytest.mark.parametrize("profile_name", ["redact", "replace"])
def test_defect1_check_from_input_spans_catches_a_dropped_span(monkeypatch, profile_name):
    """Defect 1 (the check): with the old resolution put back, the input-span check reports what
    the old check missed: the characters of "Lopez" are left unrewritten, at their output offsets."""
    monkeypatch.setattr(deid_resolved, "overlap_groups", _drop_overlaps)
    profile = Profile(name="np", actions=builtin_profiles()[profile_name].actions, propagate=False)
    r = deidentify(overlap_doc(), None, profile, DeidContext(secret=SECRET, locale="en"))
    assert "Lopez" in r.text                         # the old defect, reproduced
    holes = [lk for lk in r.leaks if lk.kind == "uncovered"]
    assert len(holes) == 1 and holes[0].category == "NAME" and holes[0].location == "text"
    assert r.text[holes[0].start:holes[0].end] == "Lopez" and r.uncovered_chars == 5
    strings = [lk for lk in r.leaks if lk.kind == "string"]
    assert strings == []                              # the same characters are counted once
    assert set(r.leaks[0].to_dict()) == {"doc_id", "category", "type", "start", "end", "scope", "location", "kind"}


def test_defect1_a_leak_fails_the_project_run(project, capsys):
    """Defect 1 (failure): a leak makes the run ``failed`` (not resumable, not scored, not on the
    Risk page, not exportable) and ``deidentify-project`` exit 3; the leak is stored as id,
    category and offsets only."""
    path, pid, ids = project
    no_prop = {**builtin_profiles()["redact"].to_dict(), "name": "no propagation", "propagate": False}
    db = store.connect(path)
    t = f"Seen {NAME} twice: {NAME}.\n"
    [did] = store.add_documents(db, pid, [Document("missed", t, [Span("", 5, 5 + len(NAME), "NAME", "PATIENT")],
                                                   patient_id="P2")], layer="gold", user="lea")
    db.close()
    res = worker.run_inline(path, "deidentify", {"project_id": pid, "doc_ids": [did], "profile": no_prop})
    db = store.connect(path)
    run = store.get_deid_run(db, res["run_id"])
    assert res["leaks"] >= 1 and run.status == "failed" and "risk" not in res
    assert res["status"] == "failed" and res["failure"] == "leaks"
    assert run.failed_leak_check and run.leaks == res["leaks"]
    assert not deid_runs.resumable(db, run)
    assert store.risk_queue(db, run.id) == []
    store.create_user(db, "lea2", "a long test password for leads", "lead")
    assert run.id not in [r.id for r in rs.runs(db, store.get_user(db, "lea2"), pid)]
    with pytest.raises(rs.RiskError):
        rs.score_run_risk(None, db, run.id)
    with pytest.raises(deid_batch.DeidentificationError, match="leak check"):
        deid_files.stored_outputs_as_documents(db, run.id)
    detail = run.counts["leak_details"][0]
    assert {detail["category"], detail["location"], detail["doc_id"]} == {"NAME", "text", str(did)}
    assert phi_in(json.dumps(run.counts)) == []
    db.close()
    with pytest.raises(deid_batch.DeidentificationError, match="failed the leak check"):
        worker.run_inline(path, "deidentify", {"run_id": run.id, "risk": False})
    prof = path.parent / "np.json"
    prof.write_text(json.dumps(no_prop), encoding="utf-8")
    assert main(["deidentify-project", "--db", str(path), "--project", "leaks", "--docs", str(did),
                 "--profile", str(prof), "--no-risk"]) == 3
    cap = capsys.readouterr()
    assert "FAILED[leak check]" in cap.out and phi_in(cap.out + cap.err) == []


def test_defect1_an_upload_with_a_leak_cannot_be_downloaded(project):
    path, pid, _ = project
    t = f"Seen {NAME} twice: {NAME}.\n"
    doc = Document("up", t, [Span("up", 5, 5 + len(NAME), "NAME", "PATIENT")])
    no_prop = Profile(name="np", actions=builtin_profiles()["redact"].actions, propagate=False)
    up = deid_files.deidentify_documents([doc], no_prop, SECRET, "en")
    assert up.batch.summary.leaks >= 1
    db = store.connect(path)
    store.create_user(db, "lea3", "a long test password for leads", "lead")
    with pytest.raises(deid_batch.DeidentificationError, match="leak check"):
        deid_files.export_outputs(db, store.get_user(db, "lea3"), up.batch.results, "brat", target="t")
    db.close()


# ------------------------------------------------------------------------------ union coverage
def test_union_nested_chained_partial_and_touching():
    groups = overlap_groups([Span("d", 0, 20, "DATE"), Span("d", 5, 10, "NAME"),            # nested
                             Span("d", 30, 35, "NAME"), Span("d", 34, 40, "ID"), Span("d", 39, 45, "AGE"),  # chain
                             Span("d", 50, 62, "NAME"), Span("d", 56, 68, "NAME"),          # partial
                             Span("d", 70, 75, "NAME"), Span("d", 75, 80, "NAME"),          # touching
                             Span("d", 90, 95, "ID"), Span("d", 90, 95, "ID")])             # duplicate
    got = [(g.span.start, g.span.end, g.span.category, len(g.alternatives)) for g in groups]
    assert got == [(0, 20, "DATE", 1), (30, 45, "ID", 2), (50, 68, "NAME", 1), (70, 75, "NAME", 0),
                   (75, 80, "NAME", 0), (90, 95, "ID", 1)]
    spans, merged = resolve_overlaps([Span("d", 0, 4, "DATE"), Span("d", 2, 6, "NAME")])
    assert [(s.start, s.end, s.category) for s in spans] == [(0, 6, "NAME")] and merged == 1   # same length: NAME


def test_union_a_kept_span_never_shields_a_rewritten_one():
    """A kept DATE overlapping a NAME: the union is rewritten (as NAME), so the name goes too."""
    text = "On 12 March Garcia Lopez came.\n"
    spans = [Span("d", 3, 24, "DATE", "DATE"), Span("d", 12, 24, "NAME", "PATIENT")]
    keep_dates = Profile(name="keep-dates", actions={**builtin_profiles()["redact"].actions, "DATE": "keep"})
    r = deidentify(Document("d", text, spans), None, keep_dates, DeidContext(secret=SECRET))
    assert r.actions == ["redact"] and r.source_spans[0].category == "NAME"
    assert (r.source_spans[0].start, r.source_spans[0].end) == (3, 24)
    assert "Garcia" not in r.text and "Lopez" not in r.text and r.leaks == []


def test_uncovered_stretches_ignore_edge_whitespace():
    s = Span("d", 0, 18, "NAME")
    assert [(a, b) for _, a, b in uncovered([s], [(0, 6)], NAME)] == [(6, 18)]
    assert [(a, b) for _, a, b in uncovered([s], [(0, 5), (13, 18)], NAME)] == [(6, 12)]
    assert uncovered([s], [(0, 10), (8, 18)], NAME) == []


# ---------------------------------------------------------------- the input-span leak check, planted
def test_planted_leak_in_text_is_found():
    """The text: a name left in the output (a missed mention) is a leak at its output offsets."""
    out = "Patient [NAME], seen today. Lopez reports knee pain."
    found, _ = find_leaks("d", out, prepared=needles([("NAME", "PATIENT", NAME, "document")])[0])
    assert [(lk.location, lk.start, lk.end) for lk in found] == [("text", out.index("Lopez"), out.index("Lopez") + 5)]


def test_planted_leak_in_a_meta_value_is_found():
    """Metadata: a key the profile allows whose value holds PHI of the spans is a leak."""
    doc = overlap_doc(meta={"ward": "7", "note": f"copied from {NAME}'s file"})
    allow = Profile(name="allow-note", actions=builtin_profiles()["redact"].actions, meta_keys=["ward", "note"])
    r = deidentify(doc, None, allow, DeidContext(secret=SECRET))
    meta = [lk for lk in r.leaks if lk.location == "meta"]
    assert meta and {lk.category for lk in meta} == {"NAME"}
    hit = field_text([r.meta])[meta[0].start:meta[0].end]
    assert hit in (NAME, "Pedro Garcia", "Garcia Lopez", "Pedro", "Garcia", "Lopez")
    ok = deidentify(doc, None, Profile(name="ward", actions=allow.actions, meta_keys=["ward"]), DeidContext(secret=SECRET))
    assert ok.leaks == [] and ok.meta == {"ward": "7"} and ok.meta_dropped == 1


def test_planted_leak_in_ids_and_file_names_is_found(monkeypatch, tmp_path, secret_file, capsys):
    """Ids and file names: were the pseudonyms broken (the input id passed through), the check
    would report it in ``id`` and ``name``, and the folder command would exit 3."""
    monkeypatch.setattr(deid_engine, "document_pseudonym", lambda secret, doc_id: doc_id)
    monkeypatch.setattr(deid_engine, "patient_pseudonym", lambda secret, pid: pid)
    r = deidentify(overlap_doc(patient_id=MRN), None, builtin_profiles()["redact"], DeidContext(secret=SECRET))
    ids = [(lk.start, lk.end) for lk in r.leaks if lk.location == "id"]
    names = [lk for lk in r.leaks if lk.location == "name"]
    assert ids == [(0, len(FILE_ID)), (len(FILE_ID) + 1, len(FILE_ID) + 1 + len(MRN))]   # document, then patient
    assert len(names) == 3 and {lk.type for lk in names} == {"DOCUMENT_ID"}           # .txt, .ann, .xml
    assert not any(lk.location in ("text", "meta") for lk in r.leaks)
    write_collection([overlap_doc()], tmp_path / "in", "brat")
    rc = main(["deidentify", "--input", str(tmp_path / "in"), "--output", str(tmp_path / "out"),
               "--secret-file", str(secret_file)])
    cap = capsys.readouterr()
    assert rc == 3 and "leak check found" in cap.err and "name=" in cap.err


# ------------------------------------------------------------------------------ defect 2: names, meta
def _jsonl_input(folder: Path) -> None:
    folder.mkdir(parents=True)
    lines = []
    for k, (doc_id, ward) in enumerate([(FILE_ID, "7"), (f"{FILE_ID}-b", "9")]):
        lines.append(json.dumps({"text": TEXT, "patient_id": MRN,
                                 "meta": {"id": doc_id, "patient_name": NAME, "mrn": MRN, "ward": ward},
                                 "spans": [{"start": s.start, "end": s.end, "label": s.type}
                                           for s in overlapping_spans()]}))
    (folder / "notes.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_defect2_jsonl_meta_dropped_and_ids_pseudonymised(tmp_path, secret_file, capsys):
    """Defect 2 (command line, JSONL): ``meta`` keys are dropped unless allowed, ``id`` and
    ``patient_id`` become keyed pseudonyms, and no PHI is anywhere in the output folder."""
    _jsonl_input(tmp_path / "in")
    out = tmp_path / "out"
    assert main(["deidentify", "--input", str(tmp_path / "in"), "--format", "jsonl", "--output", str(out),
                 "--secret-file", str(secret_file), "--json"]) == 0
    s = json.loads(capsys.readouterr().out)
    assert tree_phi(out) == []
    assert (s["renamed_documents"], s["renamed_patients"], s["dropped_meta_keys"]) == (2, 2, 6)
    recs = [json.loads(x) for x in (out / "documents.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [r["meta"] for r in recs] == [{"id": document_pseudonym(SECRET, FILE_ID)},
                                         {"id": document_pseudonym(SECRET, f"{FILE_ID}-b")}]
    assert {r["patient_id"] for r in recs} == {patient_pseudonym(SECRET, MRN)}
    assert sorted(p.name for p in out.iterdir()) == sorted([FINGERPRINT_FILE, MANIFEST_FILE,   # no mapping
                                                            "documents.jsonl"])
    prof = tmp_path / "ward.json"
    prof.write_text(json.dumps({**builtin_profiles()["replace"].to_dict(), "name": "ward", "meta_keys": ["ward"]}),
                    encoding="utf-8")
    assert main(["deidentify", "--input", str(tmp_path / "in"), "--format", "jsonl", "--output", str(tmp_path / "o2"),
                 "--secret-file", str(secret_file), "--profile", str(prof), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["dropped_meta_keys"] == 4
    recs = [json.loads(x) for x in (tmp_path / "o2" / "documents.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [r["meta"]["ward"] for r in recs] == ["7", "9"]


def test_defect2_output_file_names_are_keyed_pseudonyms(tmp_path, secret_file, capsys):
    """Defect 2 (file names): ``Pedro_Garcia_Lopez_2569870.txt`` is written as ``doc-<hex>.txt``,
    the same name in every run with the same key, another with another key."""
    write_collection([overlap_doc()], tmp_path / "in", "brat")
    for fmt_out, secret in (("a", secret_file), ("b", secret_file)):
        assert main(["deidentify", "--input", str(tmp_path / "in"), "--output", str(tmp_path / fmt_out),
                     "--secret-file", str(secret)]) == 0
        assert tree_phi(tmp_path / fmt_out) == []
    name = document_pseudonym(SECRET, FILE_ID)
    assert name.startswith("doc-") and len(name) == 16
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == sorted([FINGERPRINT_FILE, MANIFEST_FILE,
                                                                         f"{name}.ann", f"{name}.txt"])
    assert sorted(p.name for p in (tmp_path / "b").iterdir()) == sorted(p.name for p in (tmp_path / "a").iterdir())
    other = tmp_path / "other.key"
    other.write_bytes(b"another-secret-0123456789abcdef!")
    other.chmod(0o600)
    assert main(["deidentify", "--input", str(tmp_path / "in"), "--output", str(tmp_path / "c"),
                 "--secret-file", str(other)]) == 0
    assert not (tmp_path / "c" / f"{name}.txt").exists() and tree_phi(tmp_path / "c") == []
    assert "leaks=0" in capsys.readouterr().out


def test_defect2_page_download_and_project_export_are_pseudonymised(project):
    """Defect 2 (the page's zip download and a project run's export): pseudonyms, no metadata;
    a project run keeps the name of each output in the store only."""
    path, pid, ids = project
    db = store.connect(path)
    store.create_user(db, "lea4", "a long test password for leads", "lead")
    lead = store.get_user(db, "lea4")
    up = deid_files.deidentify_documents([overlap_doc(meta={"patient_name": NAME, "mrn": MRN}, patient_id=MRN)],
                                         builtin_profiles()["replace"], SECRET, "en")
    for fmt in ("jsonl", "brat", "xml", "text"):
        data = deid_files.export_outputs(db, lead, up.batch.results, fmt, target="t")
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            assert not any(phi_in(n) for n in zf.namelist())
            assert not any(phi_in(zf.read(n)) for n in zf.namelist())
    res = worker.run_inline(path, "deidentify", {"project_id": pid, "profile": "replace", "risk": False})
    outputs = store.list_deid_outputs(db, res["run_id"])
    secret = store_secret(path)
    assert [o.output_name for o in outputs] == [document_pseudonym(secret, str(i)) for i in ids]
    docs = deid_files.stored_outputs_as_documents(db, res["run_id"])
    assert [d.doc_id for d in docs] == [o.output_name for o in outputs] and all(d.meta == {} for d in docs)
    data = deid_files.export_outputs(db, lead, docs, "jsonl", target="t")
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        assert not any(phi_in(zf.read(n)) for n in zf.namelist())
    db.close()


def store_secret(path: Path) -> bytes:
    from pipeline.deid import load_secret
    return load_secret(secret_path(path))


# ------------------------------------------------------------------------------ defect 8: resume
def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_defect8_folder_resume_with_another_profile_or_secret_is_refused(tmp_path, secret_file, capsys):
    """Defect 8 (``deidentify --resume``): refused with one line, before anything is written."""
    notes = [overlap_doc(f"note-{k}") for k in range(6)]
    write_collection(notes, tmp_path / "in", "brat")
    out = tmp_path / "out"
    base = ["deidentify", "--input", str(tmp_path / "in"), "--output", str(out)]
    assert main([*base, "--secret-file", str(secret_file)]) == 0
    for p in sorted(out.glob("*.ann"))[:3]:
        p.unlink()
    before = _snapshot(out)
    capsys.readouterr()
    other = tmp_path / "other.key"
    other.write_bytes(b"another-secret-0123456789abcdef!")
    other.chmod(0o600)
    for extra, what in ((["--profile", "redact", "--secret-file", str(secret_file)], "another profile"),
                        (["--secret-file", str(other)], "another secret key"),
                        (["--secret-file", str(secret_file), "--locale", "es"], "another locale")):
        for flag in ("--resume", "--force"):
            assert main([*base, *extra, flag]) == 1
            err = capsys.readouterr().err
            assert what in err and err.count("\n") == 1
            assert _snapshot(out) == before
    assert main([*base, "--secret-file", str(secret_file), "--resume"]) == 0
    assert "skipped=3" in capsys.readouterr().out
    fp_file = out / FINGERPRINT_FILE
    assert stat.S_IMODE(fp_file.stat().st_mode) == 0o600
    content = fp_file.read_text(encoding="utf-8")
    assert SECRET.decode() not in content and SECRET.hex() not in content and phi_in(content) == []
    # a folder of outputs without a fingerprint cannot be checked: refused too
    fp_file.unlink()
    assert main([*base, "--secret-file", str(secret_file), "--resume"]) == 1
    assert "no de-identification fingerprint" in capsys.readouterr().err


class StopAfter(JobContext):
    """A job context whose cancel request arrives after ``n`` documents."""

    def __init__(self, *a, n: int, **kw):
        super().__init__(*a, **kw)
        self.n, self.calls = n, 0

    def should_stop(self) -> bool:
        self.calls += 1
        return self.calls > self.n


def _interrupted_run(path: Path, pid: int, profile: str = "replace") -> int:
    with pytest.raises(JobCancelled):
        deid_runs.deidentify_job(StopAfter(str(path), None, {"project_id": pid, "profile": profile, "risk": False},
                                           n=1))
    db = store.connect(path)
    run = store.list_deid_runs(db, pid)[0]
    assert run.status == "failed" and len(store.list_deid_outputs(db, run.id)) == 1
    db.close()
    return run.id


def test_defect8_project_resume_with_another_secret_or_profile_is_refused(project, capsys):
    """Defect 8 (``deidentify-project --resume RUN``): the run's fingerprint is checked first."""
    path, pid, ids = project
    run_id = _interrupted_run(path, pid)
    assert main(["deidentify-project", "--db", str(path), "--resume", str(run_id), "--profile", "redact",
                 "--no-risk"]) == 1
    err = capsys.readouterr().err
    assert "not 'redact'" in err and err.count("\n") == 1
    key = secret_path(path)
    original = key.read_bytes()
    key.write_text("ab" * 32 + "\n", encoding="ascii")
    assert main(["deidentify-project", "--db", str(path), "--resume", str(run_id), "--no-risk"]) == 1
    err = capsys.readouterr().err
    assert "another secret key" in err and err.count("\n") == 1
    db = store.connect(path)
    assert len(store.list_deid_outputs(db, run_id)) == 1          # nothing was written
    db.close()
    key.write_bytes(original)
    assert main(["deidentify-project", "--db", str(path), "--resume", str(run_id), "--profile", "replace",
                 "--no-risk"]) == 0
    db = store.connect(path)
    run = store.get_deid_run(db, run_id)
    assert len(store.list_deid_outputs(db, run_id)) == 3 and run.status == "done"
    assert run.fingerprint == run_fingerprint(builtin_profiles()["replace"], store_secret(path), "en")
    db.close()


def test_defect8_a_run_without_fingerprint_is_checked_output_by_output(project):
    """Runs made before fingerprints: resumed only when their outputs match the current key."""
    path, pid, ids = project
    run_id = _interrupted_run(path, pid)
    db = store.connect(path)
    db.execute("UPDATE deid_runs SET fingerprint = NULL WHERE id = ?", [run_id])
    db.conn.commit()
    key = secret_path(path)
    original = key.read_bytes()
    key.write_text("cd" * 32 + "\n", encoding="ascii")
    with pytest.raises(deid_batch.DeidentificationError, match="another secret key"):
        worker.run_inline(path, "deidentify", {"run_id": run_id, "risk": False})
    assert len(store.list_deid_outputs(db, run_id)) == 1
    key.write_bytes(original)
    res = worker.run_inline(path, "deidentify", {"run_id": run_id, "risk": False})
    assert res["saved"] == 2 and res["resume_mismatches"] == 0
    assert store.get_deid_run(db, run_id).fingerprint == run_fingerprint(builtin_profiles()["replace"],
                                                                         store_secret(path), "en")
    db.close()


def test_fingerprint_names_what_differs_and_ignores_the_profile_name():
    redact, replace = builtin_profiles()["redact"], builtin_profiles()["replace"]
    a = run_fingerprint(redact, SECRET)
    assert SECRET.hex()[:16] not in a and mismatch(a, run_fingerprint(redact, SECRET)) is None
    assert mismatch(a, run_fingerprint(replace, SECRET)) == "profile"
    assert mismatch(a, run_fingerprint(redact, b"another-secret-0123456789abcdef!")) == "secret key"
    renamed = Profile.from_json({**redact.to_dict(), "name": "renamed", "description": "same actions"})
    assert mismatch(a, run_fingerprint(renamed, SECRET)) is None
    assert mismatch(run_fingerprint(redact, SECRET, "en"), run_fingerprint(redact, SECRET, "es")) == "locale"
    assert deidentify_batch([overlap_doc()], renamed, DeidContext(secret=SECRET)).summary.leaks == 0


def test_defect1_the_page_shows_a_leaky_run_as_failed_without_download_or_resume(demo_app):
    """Defect 1 (the De-identify page): a run that failed its leak check is red, says why, and
    offers neither a download nor a resume."""

    t = f"Seen {NAME} twice: {NAME}.\n"
    with demo_app.db() as db:
        [did] = store.add_documents(db, demo_app.project_id, [Document("missed", t, [Span("", 5, 5 + len(NAME), "NAME",
                                                                                         "PATIENT")])],
                                    layer="gold", user="lea")
    no_prop = {**builtin_profiles()["redact"].to_dict(), "name": "no propagation", "propagate": False}
    res = worker.run_inline(demo_app.db_path, "deidentify", {"project_id": demo_app.project_id, "doc_ids": [did],
                                                           "profile": no_prop})
    assert res["status"] == "failed"
    at = new_app(demo_app)
    sign_in(at, demo_app, "lea", "lead")
    open_page(at, "deidentify")
    errs = [e.value for e in at.error]
    assert any(f"Run {res['run_id']} failed" in e for e in errs) and any("Leak check" in e for e in errs)
    assert not at.get("download_button")
    assert not [b for b in at.button if b.key == "deid.resume"]
    assert any("No download" in c.value for c in at.caption)
