"""``python -m pipeline deidentify`` on plain folders (in-process through cli.main)."""
from __future__ import annotations

import json
import os
import re
import stat
import sys
import types
from pathlib import Path

import pytest

from cli import main
from pipeline.deid import document_pseudonym
from pipeline.deid.dates import is_partial_date
from pipeline.formats import read_collection, write_collection
from pipeline.schemas import MEDDOCAN

SAMPLE = Path(__file__).parent / "fixtures" / "meddocan"


@pytest.fixture
def secret_file(tmp_path) -> Path:
    p = tmp_path / "secret.key"
    p.write_text("cli-test-secret-0123456789abcdef\n", encoding="ascii")
    p.chmod(0o600)
    return p


def originals(doc=None) -> set[str]:
    docs = [doc] if doc is not None else read_collection(SAMPLE / "brat", "brat", MEDDOCAN)
    return {d.text[s.start:s.end] for d in docs for s in d.spans
            if s.end - s.start >= 5 and not is_partial_date(d.text[s.start:s.end])}


def no_phi(text: str, doc=None) -> bool:
    """No original (5+ characters) of ``doc`` (or of any sample document) as a whole word."""
    return not any(re.search(r"(?<!\w)" + re.escape(o) + r"(?!\w)", text, re.I) for o in originals(doc))


def test_brat_replace_end_to_end(tmp_path, secret_file, capsys):
    out = tmp_path / "out"
    rc = main(["deidentify", "--input", str(SAMPLE / "brat"), "--format", "brat", "--profile", "replace",
               "--output", str(out), "--secret-file", str(secret_file)])
    cap = capsys.readouterr()
    assert rc == 0
    assert cap.out.startswith("deidentify: profile=replace documents=16 ") and "leaks=0" in cap.out
    assert "NAME=" in cap.out and "DATE=" in cap.out
    assert no_phi(cap.out + cap.err)
    assert len(list(out.glob("*.txt"))) == 16 and len(list(out.glob("*.ann"))) == 16
    docs = {d.doc_id: d for d in read_collection(out, "brat", MEDDOCAN)}
    assert len(docs) == 16 and all(d.spans for d in docs.values())
    sources = read_collection(SAMPLE / "brat", "brat", MEDDOCAN)
    secret = secret_file.read_text(encoding="ascii").strip().encode()
    assert all(no_phi(docs[document_pseudonym(secret, src.doc_id)].text, src) for src in sources)   # defect 2


def test_default_secret_is_created_owner_only_and_reused(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("WORKBENCH_DB", str(tmp_path / "var" / "workbench.db"))
    assert main(["deidentify", "--input", str(SAMPLE / "xml"), "--format", "xml", "--output", "a"]) == 0
    key = tmp_path / "var" / "workbench.secret.key"    # the database's key: app and CLI agree
    assert key.is_file() and stat.S_IMODE(key.stat().st_mode) == 0o600
    first = key.read_bytes()
    assert main(["deidentify", "--input", str(SAMPLE / "xml"), "--format", "xml", "--output", "b"]) == 0
    assert key.read_bytes() == first
    a = sorted((tmp_path / "a").glob("*.xml"))
    assert [p.read_bytes() for p in a] == [(tmp_path / "b" / p.name).read_bytes() for p in a]
    assert "<MEDDOCAN>" in a[0].read_text(encoding="utf-8")
    capsys.readouterr()


def test_resume_rewrites_only_missing_files_identically(tmp_path, secret_file, capsys):
    out = tmp_path / "out"
    args = ["deidentify", "--input", str(SAMPLE / "brat"), "--output", str(out), "--secret-file", str(secret_file)]
    assert main(args) == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    for p in sorted(out.glob("*.ann"))[:5]:
        p.unlink()
    assert main(args) == 1                            # non-empty output needs --resume or --force
    assert "not empty" in capsys.readouterr().err
    assert main([*args, "--resume"]) == 0
    assert "skipped=11" in capsys.readouterr().out
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_jsonl_with_profile_file_and_json_summary(tmp_path, secret_file, capsys):
    src = tmp_path / "in"
    write_collection(read_collection(SAMPLE / "brat", "brat", MEDDOCAN), src, "jsonl")
    prof = tmp_path / "p.json"
    prof.write_text(json.dumps({"name": "angles", "actions": {"NAME": "redact"}, "placeholder": "angle",
                                "categories": ["NAME"]}), encoding="utf-8")
    out = tmp_path / "out"
    args = ["deidentify", "--input", str(src), "--format", "jsonl", "--profile", str(prof), "--output", str(out),
            "--secret-file", str(secret_file), "--json"]
    assert main(args) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["profile"] == "angles" and summary["documents"] == 16 and summary["leaks"] == 0
    assert set(summary["spans"]["NAME"]) == {"redact"} and set(summary["spans"]["DATE"]) == {"keep"}
    first = (out / "documents.jsonl").read_bytes()
    assert "<Name_Nombre_Sujeto_Asistencia>".encode() in first
    assert main([*args, "--resume"]) == 0
    assert json.loads(capsys.readouterr().out)["skipped"] == 16
    assert (out / "documents.jsonl").read_bytes() == first


def test_usage_errors_are_one_line(tmp_path, secret_file, capsys):
    assert main(["deidentify", "--input", str(SAMPLE / "brat"), "--format", "text", "--output",
                 str(tmp_path / "o"), "--secret-file", str(secret_file)]) == 1
    assert "--model" in capsys.readouterr().err
    assert main(["deidentify", "--input", str(SAMPLE / "brat"), "--profile", "nope", "--output",
                 str(tmp_path / "o"), "--secret-file", str(secret_file)]) == 1
    assert "unknown profile" in capsys.readouterr().err
    short = tmp_path / "short.key"
    short.write_text("x", encoding="ascii")
    assert main(["deidentify", "--input", str(SAMPLE / "brat"), "--output", str(tmp_path / "o2"),
                 "--secret-file", str(short)]) == 1
    err = capsys.readouterr().err
    assert "at least 16 bytes" in err and err.count("\n") == 1


def test_model_option_detects_spans_first(tmp_path, secret_file, monkeypatch, capsys):
    gold = {d.doc_id: d.spans for d in read_collection(SAMPLE / "brat", "brat", MEDDOCAN)}

    class FakeDetector:
        def __init__(self, path):
            self.path = path

        def detect(self, doc):
            return [s for s in gold[doc.doc_id] if s.category == "NAME"]

    fake = types.ModuleType("pipeline.detection.detector")
    fake.Detector = FakeDetector
    monkeypatch.setitem(sys.modules, "pipeline.detection.detector", fake)
    out = tmp_path / "out"
    rc = main(["deidentify", "--input", str(SAMPLE / "brat"), "--format", "brat", "--model", str(tmp_path),
               "--output", str(out), "--secret-file", str(secret_file), "--json"])
    summary = json.loads(capsys.readouterr().out)
    assert rc == 0 and set(summary["spans"]) == {"NAME"}
    assert all(s.category == "NAME" for d in read_collection(out, "brat", MEDDOCAN) for s in d.spans)


def test_leaks_give_exit_status_3(tmp_path, secret_file, capsys):
    src = tmp_path / "in"
    docs = read_collection(SAMPLE / "brat", "brat", MEDDOCAN)
    doc, name, twins = next((d, s, tw) for d in docs for s in d.spans if s.category == "NAME"
                            for tw in [[t for t in d.spans if d.text[t.start:t.end] == d.text[s.start:s.end]]]
                            if len(tw) >= 2 and s.end - s.start > 6)
    doc.spans = [s for s in doc.spans if s != twins[-1]]
    write_collection([doc], src, "brat")
    prof = tmp_path / "np.json"
    prof.write_text(json.dumps({"name": "np", "actions": {"NAME": "replace"}, "propagate": False}), encoding="utf-8")
    rc = main(["deidentify", "--input", str(src), "--profile", str(prof), "--output", str(tmp_path / "o"),
               "--secret-file", str(secret_file)])
    cap = capsys.readouterr()
    assert rc == 3 and "leak check found" in cap.err
    assert doc.text[name.start:name.end] not in cap.out + cap.err
    assert os.path.isdir(tmp_path / "o")


def test_secret_files_match_the_projects_format(tmp_path):
    from pipeline.deid.secret import SecretError, ensure_secret, load_secret
    from pipeline.deid.secret import load_or_create_secret

    created = ensure_secret(tmp_path / "v" / "secret.key")
    assert len(created) == 32 and stat.S_IMODE((tmp_path / "v" / "secret.key").stat().st_mode) == 0o600
    assert load_secret(tmp_path / "v" / "secret.key") == created == load_or_create_secret(tmp_path / "v" / "secret.key")
    raw = tmp_path / "raw.key"
    raw.write_bytes(b"not hex but long enough\n")
    assert load_secret(raw) == b"not hex but long enough"
    with pytest.raises(SecretError):
        load_secret(tmp_path / "missing.key")


def test_a_run_with_a_secret_file_imports_neither_the_store_nor_pandas(tmp_path, secret_file):
    """Start-up: with ``--secret-file`` nothing of the workbench database is needed, so neither
    sqlite-utils nor the pandas it would pull in (seconds on a busy machine) is imported."""
    import subprocess

    code = ("import sys; from cli import main; "
            f"rc = main(['deidentify', '--input', {str(SAMPLE / 'brat')!r}, '--output', {str(tmp_path / 'out')!r}, "
            f"'--secret-file', {str(secret_file)!r}]); "
            "print(rc, 'pandas' in sys.modules, 'sqlite_utils' in sys.modules, 'store' in sys.modules)")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.strip().splitlines()[-1] == "0 False False False"
