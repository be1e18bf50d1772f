"""The Python API (deidkit): its documented examples run as doctests, it loads a model version and
a project's detector, runs the command line's code paths, and ``pip install .`` makes
``import deidkit`` work from any directory."""
from __future__ import annotations

import doctest
import importlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import deidkit
from pipeline.deid import deidentify_batch, DeidContext, builtin_profiles
from pipeline.formats import READERS, WRITERS

ROOT = Path(__file__).resolve().parents[1]
KEY = b"deidkit-tests-key-0123456789"


def _modules() -> list[str]:
    out = []
    for p in sorted((ROOT / "deidkit").glob("*.py")):
        if ">>> " in p.read_text(encoding="utf-8"):
            out.append("deidkit" if p.stem == "__init__" else f"deidkit.{p.stem}")
    return out


def test_the_api_documents_examples_in_its_modules():
    assert {"deidkit", "deidkit.io", "deidkit.loading"} <= set(_modules())


@pytest.mark.parametrize("name", _modules())
def test_docstring_examples_run(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
                             report=False)
    assert result.attempted > 0 and result.failed == 0, f"{name}: {result.failed} of {result.attempted} failed"


def test_formats_are_the_registry_s():
    f = deidkit.formats()
    assert set(f.read) == set(READERS) and set(f.write) == set(WRITERS)


def test_same_outputs_as_the_engine_and_a_key_is_required(monkeypatch):
    model = deidkit.load(schema="i2b2-2014", secret=KEY, workers=1)
    notes = ["Seen by Dr. Ann Wu on 03/14/2070.", "Call 617-555-0199 about Mr. Lee."]
    batch = model.deidentify(notes)
    docs = [deidkit.Document(f"note-{i + 1}", t, spans) for i, (t, spans) in enumerate(zip(notes, model.detect(notes)))]
    ref = deidentify_batch(docs, builtin_profiles()["replace"], DeidContext(secret=KEY, locale="en"))
    assert [r.text for r in batch.results] == [r.text for r in ref.results]
    assert "KEY" not in repr(model) and KEY.decode() not in repr(model)
    monkeypatch.delenv("WORKBENCH_DB", raising=False)
    with pytest.raises(deidkit.DeidkitError, match="secret="):
        deidkit.load(schema="i2b2-2014")


def test_load_a_model_version_and_a_project(tmp_path):
    import store
    from models.trainer import train_ensemble
    from pipeline.formats import read_collection
    from pipeline.schemas import MEDDOCAN

    docs = read_collection(ROOT / "tests/fixtures/meddocan/brat", "brat", MEDDOCAN)
    cfg = dict(members=["crf"], seed=5, threads=1, crf={"max_iterations": 10}, weights={"crf": 1.0}, name="api-1",
               augment_copies=0)
    info = train_ensemble(docs[:8], docs[8:10], MEDDOCAN, cfg, tmp_path / "models")
    model = deidkit.load(info.path, secret=KEY, workers=1)
    assert model.locale == "es" and model.description.startswith("model:crf")
    assert len(model.detect([d.text for d in docs[:3]])) == 3
    db = tmp_path / "w.db"
    with store.connect(db) as conn:
        store.create_project(conn, "Ward 7", MEDDOCAN)
    project = deidkit.load(store=db, project="Ward 7")
    assert project.locale == "es" and project.description == "rules and dictionaries"
    assert project.secret == bytes.fromhex((tmp_path / "w.secret.key").read_text().strip())   # the database's key
    with pytest.raises(deidkit.DeidkitError, match="no project"):
        deidkit.load(store=db, project="Nope")


def test_pip_install_makes_import_work_from_any_directory(tmp_path):
    """``pip install .`` (from a copy of the tree, so the checkout gets no build/ folder), then the
    API and ``python -m pipeline`` from another directory, without the checkout on the path."""
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "requirements.txt"):
        shutil.copy(ROOT / name, src / name)
    for pkg in ("deidkit", "pipeline", "models", "services", "store", "cli"):
        shutil.copytree(ROOT / pkg, src / pkg, ignore=shutil.ignore_patterns("__pycache__"))
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
                    "--no-compile", "--target", str(site), str(src)], check=True, capture_output=True, timeout=300)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "WORKBENCH_DB")}
    env["PYTHONPATH"] = str(site)
    code = ("import deidkit, pipeline; m = deidkit.load(schema='i2b2-2014', secret=b'0123456789abcdef-x'); "
            "assert deidkit.__file__.startswith(%r) and pipeline.__file__.startswith(%r); "
            "print(sorted({s.category for s in m.detect('Seen by Dr. Ann Wu on 03/14/2070.')}))") % (str(site), str(site))
    out = subprocess.run([sys.executable, "-c", code], cwd=elsewhere, env=env, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "'DATE'" in out.stdout and "'NAME'" in out.stdout
    cli = subprocess.run([sys.executable, "-m", "pipeline", "deidentify-table", "--help"], cwd=elsewhere, env=env,
                         capture_output=True, text=True, timeout=300)
    assert cli.returncode == 0 and "--text-column" in cli.stdout
    assert (site / "pipeline/locales/en/surnames.txt").is_file() and (site / "store/common_passwords.txt").is_file()


def test_read_and_write_through_the_registry_with_table_columns(tmp_path):
    import pandas as pd

    pd.DataFrame({"nid": ["a"], "pid": ["P1"], "body": ["Seen by Dr. Ann Wu."]}).to_csv(tmp_path / "t.csv", index=False)
    docs = deidkit.read(tmp_path / "t.csv", "csv", columns=deidkit.TableColumns(text=("body",), id="nid", patient="pid"))
    assert [(d.doc_id, d.patient_id) for d in docs] == [("a", "P1")]
    files = deidkit.write(docs, tmp_path / "out", "jsonl")
    assert [(d.doc_id, d.text) for d in deidkit.read(files[0], "jsonl")] == [(d.doc_id, d.text) for d in docs]
