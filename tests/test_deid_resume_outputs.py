"""``deidentify --resume`` trusts only outputs it can vouch for (issue 29, items 4 and 8).

Item 4: a killed run left a 0-byte ``.ann`` (or half a ``.txt``) that a resume took for done.
Item 8: a resume with another ``--schema`` or ``--model`` mixed two kinds of spans in one folder.
"""
from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from cli import main
from pipeline.deid import builtin_profiles, mismatch, run_fingerprint
from pipeline.engines.manifest import MANIFEST_FILE
from pipeline.formats import brat as brat_format
from pipeline.formats import read_collection
from pipeline.schemas import MEDDOCAN
from test_deid_leaks import project  # noqa: F401 - a fixture

SAMPLE = Path(__file__).parent / "fixtures" / "meddocan" / "brat"


@pytest.fixture
def secret_file(tmp_path) -> Path:
    p = tmp_path / "secret.key"
    p.write_text("resume-test-secret-0123456789abcdef\n", encoding="ascii")
    p.chmod(0o600)
    return p


def files(folder: Path) -> dict[str, bytes]:
    """The outputs (not the folder's own fingerprint and manifest)."""
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file() and not p.name.startswith(".")}


def args_for(out: Path, secret_file: Path, *extra: str) -> list[str]:
    return ["deidentify", "--input", str(SAMPLE), "--output", str(out), "--secret-file", str(secret_file),
            "--json", *extra]


@pytest.fixture
def reference(tmp_path, secret_file, capsys) -> dict[str, bytes]:
    """What a full, uninterrupted run writes."""
    assert main(args_for(tmp_path / "reference", secret_file)) == 0
    capsys.readouterr()
    return files(tmp_path / "reference")


def test_resume_writes_again_the_empty_and_truncated_files_a_killed_run_left(tmp_path, secret_file, reference,
                                                                             capsys):
    out = tmp_path / "out"
    assert main(args_for(out, secret_file)) == 0
    capsys.readouterr()
    anns, txts = sorted(out.glob("*.ann")), sorted(out.glob("*.txt"))
    anns[0].write_bytes(b"")                                       # a 0-byte .ann
    txts[3].write_bytes(txts[3].read_bytes()[:40])                 # half a .txt
    anns[5].write_bytes(anns[5].read_bytes()[:-7])                 # an .ann cut short
    assert main(args_for(out, secret_file, "--resume")) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["skipped"] == 13 and summary["documents"] == 3 and summary["leaks"] == 0
    assert files(out) == reference
    assert len(read_collection(out, "brat", MEDDOCAN)) == 16


def test_a_write_killed_midway_leaves_no_partial_output_and_resume_completes(tmp_path, secret_file, reference,
                                                                            monkeypatch, capsys):
    out = tmp_path / "out"
    real, calls = brat_format.write_file, []

    def dies_on_the_ninth_file(path, data):
        calls.append(path)
        if len(calls) == 9:          # the process dies with the file half written
            Path(path).write_text(data[: len(data) // 2], encoding="utf-8")
            raise KeyboardInterrupt
        real(path, data)

    monkeypatch.setattr(brat_format, "write_file", dies_on_the_ninth_file)
    assert main(args_for(out, secret_file)) == 130
    monkeypatch.setattr(brat_format, "write_file", real)
    left = files(out)
    assert not any(p.name.startswith(".engine-tmp-") for p in out.iterdir() if p.is_file())
    assert all(reference[name] == data for name, data in left.items())   # only whole files in the folder
    capsys.readouterr()
    assert main(args_for(out, secret_file, "--resume")) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["skipped"] + summary["documents"] == 16
    assert files(out) == reference


def test_files_no_manifest_vouches_for_are_written_again(tmp_path, secret_file, reference, capsys):
    out = tmp_path / "out"
    assert main(args_for(out, secret_file)) == 0
    manifest = out / MANIFEST_FILE
    assert stat.S_IMODE(manifest.stat().st_mode) == 0o600
    body = json.loads(manifest.read_text(encoding="utf-8"))
    assert sorted(body["outputs"]) == sorted(reference)           # pseudonyms and digests, nothing else
    manifest.unlink()                                               # a folder from before manifests
    sorted(out.glob("*.ann"))[2].write_bytes(b"")
    capsys.readouterr()
    assert main(args_for(out, secret_file, "--resume")) == 0
    assert json.loads(capsys.readouterr().out)["skipped"] == 0
    assert files(out) == reference


def test_jsonl_resume_rewrites_a_truncated_file(tmp_path, secret_file, capsys):
    from pipeline.formats import write_collection
    src = tmp_path / "in"
    write_collection(read_collection(SAMPLE, "brat", MEDDOCAN), src, "jsonl")
    base = ["deidentify", "--input", str(src), "--format", "jsonl", "--secret-file", str(secret_file), "--json"]
    assert main([*base, "--output", str(tmp_path / "ref")]) == 0
    out = tmp_path / "out"
    assert main([*base, "--output", str(out)]) == 0
    full = (out / "documents.jsonl").read_bytes()
    (out / "documents.jsonl").write_bytes(full[: len(full) // 3])
    capsys.readouterr()
    assert main([*base, "--output", str(out), "--resume"]) == 0
    assert json.loads(capsys.readouterr().out)["skipped"] == 0
    assert (out / "documents.jsonl").read_bytes() == full == (tmp_path / "ref" / "documents.jsonl").read_bytes()


# ------------------------------------------------------------------ item 8: --schema and --model

def test_resume_with_another_schema_or_model_is_refused_in_one_line(tmp_path, secret_file, capsys):
    out = tmp_path / "out"
    assert main(args_for(out, secret_file)) == 0                   # --schema auto: read as meddocan
    for p in sorted(out.glob("*.ann"))[:4]:
        p.unlink()
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    other_schema = tmp_path / "schema.json"
    other = json.loads(MEDDOCAN.to_json())
    other["name"] = "meddocan-local"
    other["categories"]["NAME"] = [*other["categories"]["NAME"], "NICKNAME"]
    other_schema.write_text(json.dumps(other), encoding="utf-8")
    model = tmp_path / "model"
    model.mkdir()
    (model / "version.json").write_text("{}", encoding="utf-8")
    capsys.readouterr()
    for extra, what in ((["--schema", str(other_schema), "--locale", "es"], "another schema"),
                        (["--model", str(model)], "another detection model")):
        for flag in ("--resume", "--force"):
            assert main(args_for(out, secret_file, *extra, flag)) == 1
            err = capsys.readouterr().err
            assert what in err and err.count("\n") == 1
            assert {p.name: p.read_bytes() for p in out.iterdir()} == before    # nothing written
    assert main(args_for(out, secret_file, "--schema", "meddocan", "--resume")) == 0   # the same schema, named
    assert json.loads(capsys.readouterr().out)["skipped"] == 12


def test_fingerprint_names_the_schema_and_the_detection_model():
    p, key = builtin_profiles()["replace"], b"0123456789abcdef"
    base = run_fingerprint(p, key, "es", schema="a", model="m1")
    assert mismatch(base, run_fingerprint(p, key, "es", schema="b", model="m1")) == "schema"
    assert mismatch(base, run_fingerprint(p, key, "es", schema="a", model="m2")) == "detection model"
    assert mismatch(base, run_fingerprint(p, key, "es", schema="a")) == "detection model"
    assert mismatch(base, run_fingerprint(p, key, "es", schema="a", model="m1")) is None
    assert "m1" not in base and ":s=" in base and ":d=" in base


def test_the_model_is_named_by_its_content_not_its_folder(tmp_path):
    from models.version import content_digest
    a, b = tmp_path / "a", tmp_path / "b"
    for d in (a, b):
        (d / "members" / "crf").mkdir(parents=True)
        (d / "version.json").write_text('{"name": "v1"}', encoding="utf-8")
        (d / "members" / "crf" / "model.bin").write_bytes(b"weights")
    assert content_digest(a) == content_digest(b)
    (b / "members" / "crf" / "model.bin").write_bytes(b"weightz")
    assert content_digest(a) != content_digest(b)


# ------------------------------------------------------------------ item 4 for project runs

def test_a_project_resume_writes_again_a_stored_output_it_would_not_write(project):
    """A project run's outputs are rows (saved in transactions, never half a row), but a stored
    output that differs from what the resumed run writes (and leak-checks) is written again, so
    what is exported is what was checked."""
    import store
    from services import worker
    from test_deid_leaks import _interrupted_run

    path, pid, ids = project
    run_id = _interrupted_run(path, pid)
    db = store.connect(path)
    (first,) = store.list_deid_outputs(db, run_id)
    good = store.get_deid_output(db, run_id, first.doc_id).text
    db.execute("UPDATE deid_outputs SET text = substr(text, 1, 10) WHERE run_id = ? AND doc_id = ?",
               [run_id, first.doc_id])
    db.conn.commit()
    res = worker.run_inline(path, "deidentify", {"run_id": run_id, "risk": False})
    assert res["resume_mismatches"] == 1 and res["saved"] == 3 and res["leaks"] == 0
    assert store.get_deid_output(db, run_id, first.doc_id).text == good
    db.close()
