"""``python -m pipeline risk`` on plain folders (the MEDDOCAN fixture in brat, XML and JSONL)."""
from __future__ import annotations

import json

import pytest

from cli import main

ORDER = {"red": 0, "amber": 1, "green": 2}


def span_texts(meddocan_sample) -> list[str]:
    from pipeline.formats import read_collection
    from pipeline.schemas import MEDDOCAN
    docs = read_collection(meddocan_sample / "brat", "brat", MEDDOCAN)
    return [d.text[s.start:s.end] for d in docs for s in d.spans if len(d.text[s.start:s.end]) >= 5]


def test_brat_folder_gives_a_report_in_triage_order(meddocan_sample, tmp_path, capsys):
    out = tmp_path / "reports" / "risk.json"
    assert main(["risk", "--input", str(meddocan_sample / "brat"), "--format", "brat", "--output", str(out)]) == 0
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["method"] == "document-share" and report["schema"] == "meddocan"
    assert report["embedder"].startswith("lexical:") and report["search"] == "exact"
    docs = report["documents"]
    assert len(docs) == 16 and len({d["id"] for d in docs}) == 16
    keys = [(ORDER[d["colour"]], -d["score"]) for d in docs]
    assert [k[0] for k in keys] == sorted(k[0] for k in keys)
    for d in docs:
        assert {"id", "score", "colour", "reasons"} <= set(d)
        # every gold span was replaced: a replaced name is no reason for a colour, only text left
        # outside the spans or kept facts are
        assert not any(r["kind"] == "machine_only_direct_identifier" for r in d["reasons"])
        assert {r["kind"] for r in d["reasons"] if r["level"] != "info"} <= {"phi_like_text", "quasi_identifier"}
    kept = tmp_path / "kept.json"
    assert main(["risk", "--input", str(meddocan_sample / "brat"), "--format", "brat", "--output", str(kept),
                 "--action", "keep"]) == 0
    assert {d["colour"] for d in json.loads(kept.read_text(encoding="utf-8"))["documents"]} == {"red"}
    printed = capsys.readouterr()
    assert "risk: 16 documents" in printed.out
    assert not any(t in printed.out + printed.err for t in span_texts(meddocan_sample))


def test_xml_folder_reviewed_corpus_share(meddocan_sample, tmp_path):
    out = tmp_path / "risk.json"
    assert main(["risk", "--input", str(meddocan_sample / "xml"), "--format", "xml", "--output", str(out),
                 "--reviewed", "--method", "corpus-share", "--threshold", "0.6", "--k", "2",
                 "--quasi-fields", "age_band,sex"]) == 0
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["method"] == "corpus-share" and report["threshold"] == 0.6 and report["k"] == 2
    assert report["quasi_fields"] == ["age_band", "sex"]
    for d in report["documents"]:
        for r in d["reasons"]:
            if r["kind"] == "quasi_identifier":
                assert set(r["quasi_identifiers"]) <= {"age_band", "sex"} and r["k"] < 2
    docs = report["documents"]
    assert len(docs) == 16
    assert not any(r["kind"] == "machine_only_direct_identifier" for d in docs for r in d["reasons"])
    assert sum(d["scores"]["corpus-share"] for d in docs) <= 100.0 + 1e-6
    for d in docs:
        assert 0 <= d["scores"]["corpus-share"] <= 100 and 0 <= d["score"] <= 100


def test_jsonl_file_and_same_scores_as_brat(meddocan_sample, tmp_path):
    from pipeline.formats import read_collection, write_collection
    from pipeline.schemas import MEDDOCAN
    write_collection(read_collection(meddocan_sample / "brat", "brat", MEDDOCAN), tmp_path / "j", "jsonl")
    for fmt, src in (("jsonl", tmp_path / "j"), ("brat", meddocan_sample / "brat")):
        assert main(["risk", "--input", str(src), "--format", fmt, "--output", str(tmp_path / f"{fmt}.json"),
                     "--reviewed"]) == 0
    a = {d["id"]: d["scores"] for d in json.loads((tmp_path / "jsonl.json").read_text())["documents"]}
    b = {d["id"]: d["scores"] for d in json.loads((tmp_path / "brat.json").read_text())["documents"]}
    assert a == b


def test_wrong_schema_and_missing_folder_are_one_line_errors(meddocan_sample, tmp_path, capsys):
    rc = main(["risk", "--input", str(meddocan_sample / "brat"), "--format", "brat", "--schema", "i2b2-2014",
               "--output", str(tmp_path / "r.json")])
    err = capsys.readouterr().err
    assert rc == 1 and err.startswith("error: ") and err.count("\n") == 1
    assert not any(t in err for t in span_texts(meddocan_sample))
    assert not (tmp_path / "r.json").exists()
    rc = main(["risk", "--input", str(tmp_path / "missing"), "--format", "brat", "--output", str(tmp_path / "r.json")])
    assert rc == 1
    rc = main(["risk", "--input", str(meddocan_sample / "brat"), "--format", "brat", "--quasi-fields", "shoe_size",
               "--output", str(tmp_path / "r.json")])
    assert rc == 1 and "quasi_fields" in capsys.readouterr().err


def test_out_of_range_options_are_refused(tmp_path):
    with pytest.raises(SystemExit) as e:
        main(["risk", "--input", str(tmp_path), "--format", "brat", "--output", str(tmp_path / "r.json"),
              "--threshold", "2"])
    assert e.value.code == 2
    with pytest.raises(SystemExit):
        main(["risk", "--input", str(tmp_path), "--format", "brat", "--output", str(tmp_path / "r.json"), "--k", "0"])
