"""The command line with the annotation tools' formats: export a project and import it back
exactly, Label Studio suggestions from the ``pre`` layer, the README's Label Studio round trip,
and de-identified output in these formats exposing only what the leak check scanned.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import store
from pipeline.deid import DeidContext, builtin_profiles, deidentify_batch
from pipeline.formats import read_collection, write_collection
from pipeline.schemas import MEDDOCAN
from pipeline.spans import Document, Span

REPO = Path(__file__).resolve().parent.parent
BRAT = REPO / "tests" / "fixtures" / "meddocan" / "brat"
NEW_FORMATS = ("label-studio", "doccano", "prodigy", "spacy", "hf-dataset")

#: The README's Label Studio round trip, run verbatim (keep the two in step).
README_LABEL_STUDIO = """\
export WORKBENCH_DB=ward.db
python -m pipeline import tests/fixtures/meddocan/brat --format brat --project ward --schema meddocan
python -m pipeline export --project ward --format label-studio --out ls   # ls/tasks.json, ls/label_config.xml
python -m pipeline import ls/tasks.json --format label-studio --project ward-ls --schema meddocan
"""


def cli(argv: list[str], capsys) -> str:
    from cli import main

    assert main(argv) == 0
    return capsys.readouterr().out


def gold(db, project: str, layer: str = "gold") -> dict[str, tuple[str, list]]:
    pid = store.get_project_by_name(db, project).id
    return {d.meta["name"]: (d.text, sorted((s.start, s.end, s.category, s.type) for s in d.spans))
            for d in store.load_documents(db, pid, layer=layer)}


@pytest.fixture
def ward(tmp_path: Path, capsys) -> Path:
    db_path = tmp_path / "wb.db"
    cli(["import", str(BRAT), "--format", "brat", "--project", "ward", "--schema", "meddocan", "--db", str(db_path)],
        capsys)
    return db_path


@pytest.mark.parametrize("fmt", NEW_FORMATS)
def test_cli_export_then_import_is_exact(fmt: str, ward: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / fmt
    line = cli(["export", "--project", "ward", "--format", fmt, "--out", str(out), "--db", str(ward)], capsys)
    assert line.startswith(f"exported 16 documents (363 spans, layer gold) as {fmt}")
    cli(["import", str(out), "--format", fmt, "--project", "back", "--schema", "meddocan", "--db", str(ward)], capsys)
    with store.connect(ward) as db:
        assert gold(db, "back") == gold(db, "ward")


def test_label_studio_export_carries_the_model_suggestions(ward: Path, tmp_path: Path, capsys) -> None:
    with store.connect(ward) as db:
        pid = store.get_project_by_name(db, "ward").id
        first = store.load_documents(db, pid, layer="gold")[0]
        spans = [Span("", s.start, s.end, s.category, s.type, "model:v3", 0.75) for s in first.spans[:3]]
        store.save_layer(db, int(first.doc_id), "pre", spans, expected_version=0, user="model")
        text = "Visto por la Dra. Ana Ruiz el 3 de mayo."
        i = text.index("Ana Ruiz")
        store.add_documents(db, pid, [Document("new-note", text, [Span("", i, i + 8, "NAME", "NOMBRE_PERSONAL_SANITARIO",
                                                                       "model:v3", 0.6)])], layer="pre")
    out = tmp_path / "ls"
    cli(["export", "--project", "ward", "--format", "label-studio", "--out", str(out), "--db", str(ward)], capsys)
    tasks = {t["data"]["doc_id"]: t for t in json.loads((out / "tasks.json").read_text(encoding="utf-8"))}
    assert len(tasks) == 17
    assert "annotations" not in tasks["new-note"]             # nobody annotated it: suggestions only
    assert tasks["new-note"]["predictions"][0]["model_version"] == "v3"
    named = tasks[first.meta["name"]]
    assert named["predictions"][0]["score"] == 0.75 and len(named["predictions"][0]["result"]) == 3
    assert sum("predictions" in t for t in tasks.values()) == 2
    cli(["import", str(out / "tasks.json"), "--format", "label-studio", "--project", "back", "--schema", "meddocan",
         "--db", str(ward)], capsys)
    with store.connect(ward) as db:
        assert gold(db, "back") == gold(db, "ward")
        assert gold(db, "back", "pre") == gold(db, "ward", "pre")
        assert len(gold(db, "back", "pre")) == 2
    none = tmp_path / "ls-none"
    cli(["export", "--project", "ward", "--format", "label-studio", "--out", str(none), "--predictions", "none",
         "--db", str(ward)], capsys)
    assert not any("predictions" in t for t in json.loads((none / "tasks.json").read_text(encoding="utf-8")))


def test_readme_label_studio_round_trip(tmp_path: Path) -> None:
    shutil.copytree(BRAT, tmp_path / "tests" / "fixtures" / "meddocan" / "brat")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    text = (REPO / "README.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- test: label-studio -->\s*```bash\n(.*?)```", text, re.S)
    assert block is not None, "README.md lost its Label Studio round trip"
    assert block.group(1) == README_LABEL_STUDIO, "README.md's Label Studio lines differ from the tested ones"
    for line in README_LABEL_STUDIO.splitlines():
        line = line.split("#", 1)[0].strip()
        if line.startswith("export "):
            key, value = line[len("export "):].split("=", 1)
            env[key] = value
        elif line:
            argv = [sys.executable, *line.split()[1:]]
            done = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
            assert done.returncode == 0, done.stderr[-500:]
    assert sorted(p.name for p in (tmp_path / "ls").iterdir()) == ["label_config.xml", "tasks.json"]
    with store.connect(tmp_path / "ward.db") as db:
        assert gold(db, "ward-ls") == gold(db, "ward") and len(gold(db, "ward")) == 16


# --------------------------------------------------------------------------- de-identified output

@pytest.mark.parametrize("fmt", NEW_FORMATS)
def test_deidentified_output_exposes_only_what_the_leak_check_scanned(fmt: str, tmp_path: Path) -> None:
    docs = read_collection(BRAT, "brat", MEDDOCAN)
    for d in docs:
        d.patient_id = "pat-" + d.doc_id[-3:]
        d.source_file = "/secret/path/" + d.doc_id
    batch = deidentify_batch(docs, builtin_profiles()["replace"], DeidContext(secret=b"k" * 32, locale="es"))
    outs = [r.to_document() for r in batch.results]
    write_collection(outs, tmp_path, fmt)
    back = {d.doc_id: d for d in read_collection(tmp_path, fmt, MEDDOCAN)}
    for o in outs:   # what the file holds is what the leak check scanned: text, ids, metadata, spans
        b = back[o.doc_id]
        assert (b.text, b.patient_id, b.meta) == (o.text, o.patient_id, o.meta)
        assert sorted((s.start, s.end, s.type) for s in b.spans) == sorted((s.start, s.end, s.type) for s in o.spans)
    raw = "".join(p.read_bytes().decode("utf-8", "replace") for p in tmp_path.rglob("*") if p.is_file())
    checked = "\n".join(o.text for o in outs)
    originals = {d.text[s.start:s.end] for d in docs for s in d.spans if len(d.text[s.start:s.end]) >= 8}
    assert not [x for x in originals if x in raw and x not in checked], "an original the leak check never saw"
    assert not any(d.doc_id in raw or "/secret/path" in raw or d.patient_id in raw for d in docs)


def test_a_deidentified_run_exports_in_the_new_formats(ward: Path, tmp_path: Path, capsys) -> None:
    """``export --run`` in a new format: the run's leak check passed, the files carry pseudonyms
    and none of the input's names, ids or PHI the leak check did not see in the output."""
    from cli import main

    assert main(["deidentify-project", "--project", "ward", "--db", str(ward), "--no-risk"]) == 0
    assert "leaks=0" in capsys.readouterr().out
    docs = read_collection(BRAT, "brat", MEDDOCAN)
    originals = {d.text[s.start:s.end] for d in docs for s in d.spans if len(d.text[s.start:s.end]) >= 8}
    for fmt in ("label-studio", "doccano", "prodigy"):
        out = tmp_path / f"run-{fmt}"
        cli(["export", "--project", "ward", "--run", "1", "--format", fmt, "--out", str(out), "--db", str(ward)], capsys)
        back = read_collection(out, fmt, MEDDOCAN)
        assert len(back) == 16 and all(d.doc_id.startswith("doc-") for d in back)
        raw = "".join(p.read_text(encoding="utf-8") for p in out.iterdir())
        released = "\n".join(d.text for d in back)
        assert not any(d.doc_id in raw for d in docs)
        assert not [x for x in originals if x in raw and x not in released]
