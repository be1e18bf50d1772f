"""``train-infill`` on a folder and ``deidentify --profile paraphrase`` (in-process through cli.main):
the model written owner-only, paraphrased outputs without leaks, the quality table, fallbacks
counted without a model, and a resume with another model refused."""
from __future__ import annotations

import json
import re
import stat
from pathlib import Path

import pytest

from cli import main
from pipeline.deid import document_pseudonym
from pipeline.formats import read_collection
from pipeline.schemas import MEDDOCAN
from tests.test_deid_cli import no_phi

SAMPLE = Path(__file__).parent / "fixtures" / "meddocan"
SECRET_TEXT = "paraphrase-cli-secret-0123456789abcdef\n"
TINY = {"hidden": 32, "layers": 1, "heads": 2, "intermediate": 64, "epochs": 1, "vocab_size": 2000, "max_len": 64,
        "min_docs": 2, "batch_size": 16}


@pytest.fixture
def secret_file(tmp_path) -> Path:
    p = tmp_path / "secret.key"
    p.write_text(SECRET_TEXT, encoding="ascii")
    p.chmod(0o600)
    return p


@pytest.fixture(scope="module")
def model_root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("mlm") / "infill"
    cfg = root.parent / "tiny.json"
    cfg.write_text(json.dumps(TINY), encoding="utf-8")
    key = root.parent / "secret.key"        # the key the runs use (secret_file): the model's set of values is keyed with it
    key.write_text(SECRET_TEXT, encoding="ascii")
    key.chmod(0o600)
    assert main(["train-infill", "--input", str(SAMPLE / "brat"), "--format", "brat", "--schema", "meddocan",
                 "--out", str(root), "--config", str(cfg), "--secret-file", str(key), "--no-progress"]) == 0
    return root


def test_train_infill_on_a_folder_writes_an_owner_only_model(model_root, capsys):
    current = (model_root / "CURRENT").read_text().strip()
    folder = model_root / current
    assert folder.is_dir() and stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in folder.rglob("*") if p.is_file())
    assert (folder / "model" / "config.json").is_file() and (folder / "tokenizer" / "tokenizer.json").is_file()


def test_deidentify_paraphrase_with_the_model_prints_the_quality_table(model_root, tmp_path, secret_file, capsys):
    out = tmp_path / "out"
    rc = main(["deidentify", "--input", str(SAMPLE / "brat"), "--format", "brat", "--profile", "paraphrase",
               "--infill-model", str(model_root), "--output", str(out), "--secret-file", str(secret_file),
               "--quality"])
    cap = capsys.readouterr()
    assert rc == 0, cap.err
    assert cap.out.startswith("deidentify: profile=paraphrase documents=16 ") and "leaks=0" in cap.out
    paraphrased = int(re.search(r"paraphrased=(\d+)", cap.out).group(1))
    assert paraphrased > 100 and "same_rate=0.000" in cap.out
    table = [ln for ln in cap.out.splitlines() if ln.startswith(("paraphrase ", "list surrogates"))]
    assert len(table) == 2 and "Same rate" in cap.out and "BERTScore F1" in cap.out
    assert all(ln.split()[-6] == "0.0000" for ln in table)       # the Same rate column
    assert no_phi(cap.out + cap.err)
    written = {d.doc_id: d for d in read_collection(out, "brat", MEDDOCAN)}
    secret = secret_file.read_text(encoding="ascii").strip().encode()
    sources = read_collection(SAMPLE / "brat", "brat", MEDDOCAN)
    assert len(written) == 16
    assert all(no_phi(written[document_pseudonym(secret, src.doc_id)].text, src) for src in sources)


def test_paraphrase_without_a_model_says_how_many_fell_back(tmp_path, secret_file, capsys):
    rc = main(["deidentify", "--input", str(SAMPLE / "brat"), "--format", "brat", "--profile", "paraphrase",
               "--output", str(tmp_path / "out"), "--secret-file", str(secret_file), "--json"])
    cap = capsys.readouterr()
    assert rc == 0
    summary = json.loads(cap.out)
    n = summary["paraphrase_fallbacks"]["no_model"]
    assert n > 100 and summary["paraphrased"] == 0 and summary["leaks"] == 0 and summary["same_rate"] == 0.0
    assert f"{n} spans fell back to list surrogates: no project language model" in cap.err
    assert no_phi(cap.out + cap.err)


def test_resume_with_another_model_is_refused_and_ray_is_refused(model_root, tmp_path, secret_file, capsys):
    out = tmp_path / "out"
    base = ["deidentify", "--input", str(SAMPLE / "brat"), "--format", "brat", "--profile", "paraphrase",
            "--output", str(out), "--secret-file", str(secret_file)]
    assert main(base + ["--infill-model", str(model_root)]) == 0
    capsys.readouterr()
    assert main(base + ["--resume"]) == 1                 # no model now: the outputs were infilled
    err = capsys.readouterr().err
    assert "language model" in err and len(err.strip().splitlines()) == 1
    assert main(base + ["--infill-model", str(model_root), "--resume"]) == 0
    capsys.readouterr()
    assert main(["deidentify", "--input", str(SAMPLE / "brat"), "--profile", "paraphrase", "--engine", "ray",
                 "--output", str(tmp_path / "ray"), "--secret-file", str(secret_file)]) == 1
    assert "local engine" in capsys.readouterr().err
    assert main(["deidentify", "--input", str(SAMPLE / "brat"), "--profile", "replace", "--infill-model",
                 str(model_root), "--output", str(tmp_path / "r"), "--secret-file", str(secret_file)]) == 1
    assert "only used by the paraphrase action" in capsys.readouterr().err
