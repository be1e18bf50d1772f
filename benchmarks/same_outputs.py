"""Proof that a refactor changed no behaviour: the commands users run, on the test fixtures with
fixed seeds, and a manifest of every output file's SHA-256.

Run it on the commit before a change and on the commit after, then compare the manifests::

    python benchmarks/same_outputs.py --work /tmp/before --manifest before.json   # at the old commit
    python benchmarks/same_outputs.py --work /tmp/after --manifest after.json     # at the new commit
    python benchmarks/same_outputs.py --compare before.json after.json

Covered (with ``MEDDOCAN_DEV`` or ``../shared/data/meddocan/dev``, also ``detect`` on those 250 notes):
``train`` (a CRF and a CRF + tiny BERT ensemble; the model files that carry no clock or
path), ``detect`` (both policies), ``deidentify`` in every built-in profile and one with ``keep``
(fixed secret), ``deidentify --model``, ``risk`` on the replaced notes, ``evaluate``, ``train-infill``
and ``deidentify --profile paraphrase``, and a project: ``import``, ``export`` in every format,
``stats``. Lines holding a clock time, a run's duration or the work folder are dropped from
printed summaries before hashing (they differ on every run); the files themselves are hashed whole.
No document text is printed.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures" / "meddocan" / "brat"
# the 250 dev notes of the corpus beside the checkout, where there is one: many more boundary cases
MEDDOCAN_DEV = Path(os.environ.get("MEDDOCAN_DEV", REPO.parent / "shared" / "data" / "meddocan" / "dev"))
# printed values that change on every run whatever the code does
_VOLATILE = re.compile(r'("?(?:seconds|elapsed|duration|took|time|created|created_at|started|finished|at|'
                       r'wall_s|notes_per_s|docs_per_s|ts|timestamp|when|version|name|path|out|output|db)"?\s*[:=]\s*'
                       r'[^,}\n]*)|\d+(?:\.\d+)?\s*(?:s|ms|notes/s|docs/s)\b')
_SECONDS = re.compile(r"(\bseconds\s+)[\d.]+")
_PASSWORD = re.compile(r"(password, shown this once: )\S+")
# the names of model versions made on the clock
_NAMES = re.compile(r"mlm-\d{8}-\d{6}-\w+|v\d{8}T\d{6}\w*")
# keys of a model's JSON files that hold a clock time, a duration or a name made on the clock
_VOLATILE_KEYS = re.compile(r"(?:.*_)?(?:seconds|created|name|cpu_seconds)$")
# model-version files that record when and where they were made, not what was learned
_MODEL_META = {"ACTIVE", "CURRENT"}


def _run(args: list[str], work: Path, log: dict, key: str) -> None:
    env = dict(os.environ, PYTHONHASHSEED="0", HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1",
               WORKBENCH_DB=str(work / "wb.db"), PYTHONPATH=str(REPO))
    p = subprocess.run([sys.executable, "-m", "pipeline", *args], cwd=REPO, env=env, capture_output=True,
                       text=True, stdin=subprocess.DEVNULL)
    out = _VOLATILE.sub("<v>", p.stdout.replace(str(work), "<work>"))
    out = _NAMES.sub("<name>", out)
    log[key] = {"rc": p.returncode, "stdout": out}
    if p.returncode != 0:
        print(f"{key}: exit {p.returncode}: {p.stderr.strip().splitlines()[-1:] if p.stderr else ''}", file=sys.stderr)


def _hash_tree(root: Path, skip_meta: bool = False) -> dict[str, str]:
    out = {}
    for f in sorted(root.rglob("*")):
        if not f.is_file() or (skip_meta and f.name in _MODEL_META):
            continue
        rel = f.relative_to(root).as_posix()
        rel = _NAMES.sub("<name>", rel)
        if f.name in (".deid-fingerprint.json", ".deid-manifest.json") and skip_meta:
            continue  # name (or are keyed by) the infill model's version, made on the clock
        data = f.read_bytes()
        if skip_meta and f.suffix == ".json":
            data = json.dumps(_stable(json.loads(data)), sort_keys=True).encode()
        out[rel] = hashlib.sha256(data).hexdigest()
    return out


def _stable(value):
    """``value`` without the keys that change on every training run."""
    if isinstance(value, dict):
        return {k: _stable(v) for k, v in value.items() if not _VOLATILE_KEYS.fullmatch(str(k))}
    if isinstance(value, list):
        return [_stable(v) for v in value]
    return _NAMES.sub("<name>", value) if isinstance(value, str) else value


def snapshot(work: Path) -> dict:
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    secret = work / "secret.key"
    secret.write_bytes(b"s" * 32)
    os.chmod(secret, 0o600)
    fx = str(FIXTURES)
    cmds: dict = {}
    runs = [
        ("train_crf", ["train", "--train", fx, "--out", str(work / "m_crf"), "--seed", "13", "--name", "v1",
                       "--no-progress"]),
        ("train_bert", ["train", "--train", fx, "--out", str(work / "m_bert"), "--seed", "13", "--name", "v1",
                        "--members", "crf,bert", "--epochs", "1", "--no-progress", "--config",
                        str(work / "tiny.json")]),
        ("detect", ["detect", "--model", str(work / "m_crf"), "--input", fx, "--output", str(work / "detect")]),
        ("detect_union", ["detect", "--model", str(work / "m_crf"), "--input", fx, "--policy", "union",
                          "--output", str(work / "detect_union")]),
        ("detect_bert", ["detect", "--model", str(work / "m_bert"), "--input", fx, "--output", str(work / "detect_bert")]),
        ("detect_rules", ["detect", "--model", str(work / "m_crf"), "--members", "", "--input", fx,
                          "--output", str(work / "detect_rules")]),
        *([("detect_dev", ["detect", "--model", str(work / "m_crf"), "--input", str(MEDDOCAN_DEV),
                            "--output", str(work / "detect_dev")]),
           ("detect_dev_bert", ["detect", "--model", str(work / "m_bert"), "--input", str(MEDDOCAN_DEV),
                                "--output", str(work / "detect_dev_bert")])] if MEDDOCAN_DEV.is_dir() else []),
        ("evaluate", ["evaluate", "--system", str(work / "detect"), "--reference", fx, "--per-type", "--json"]),
        *[(f"deid_{p}", ["deidentify", "--input", fx, "--profile", p, "--secret-file", str(secret),
                         "--output", str(work / f"deid_{p}"), "--json"]) for p in ("redact", "replace")],
        ("deid_keep", ["deidentify", "--input", fx, "--profile", str(work / "keep.json"), "--secret-file", str(secret),
                       "--output", str(work / "deid_keep"), "--json"]),
        ("deid_model", ["deidentify", "--input", fx, "--model", str(work / "m_crf"), "--profile", "replace",
                        "--secret-file", str(secret), "--output", str(work / "deid_model"), "--json"]),
        ("risk", ["risk", "--input", str(work / "deid_replace"), "--format", "brat", "--output",
                  str(work / "risk.json")]),
        ("train_infill", ["train-infill", "--input", fx, "--out", str(work / "infill"), "--epochs", "1",
                          "--hidden", "32", "--layers", "1", "--seed", "13", "--no-progress"]),
        ("deid_paraphrase", ["deidentify", "--input", fx, "--profile", "paraphrase", "--infill-model",
                             str(work / "infill"), "--secret-file", str(secret), "--output",
                             str(work / "deid_paraphrase"), "--json"]),
        ("init", ["init-project", "--no-demo"]),
        ("import", ["import", fx, "--format", "brat", "--project", "fx", "--schema", "meddocan",
                    "--split", "train", "--json"]),
        *[(f"export_{f}", ["export", "--project", "fx", "--format", f, "--out", str(work / f"export_{f}"), "--json"])
          for f in ("brat", "conll", "jsonl", "xml")],
        ("stats", ["stats", "--project", "fx", "--json"]),
        ("deid_project", ["deidentify-project", "--project", "fx", "--profile", "replace", "--missing", "skip",
                          "--no-risk"]),
        ("risk_project", ["risk-project", "--run", "1", "--embedder", "lexical"]),
    ]
    (work / "tiny.json").write_text(json.dumps({"encoders": {"bert": {"hidden": 32, "layers": 1, "heads": 2, "intermediate": 64,
                                                                       "embedding_size": 16, "vocab_size": 600, "max_len": 48,
                                                                       "overlap": 12, "batch_size": 8}},
                                              "crf": {"max_iterations": 15}}))
    (work / "keep.json").write_text(json.dumps({"name": "keepsome", "actions": {
        "NAME": "replace", "PROFESSION": "keep", "LOCATION": "redact", "CONTACT": "replace", "ID": "redact",
        "DATE": "shift", "AGE": "keep", "OTHER": "redact"}}))
    for key, args in runs:
        _run(args, work, cmds, key)
    files = {}
    for d in sorted(work.iterdir()):
        if d.is_dir():
            files[d.name] = _hash_tree(d, skip_meta=d.name.startswith(("m_", "infill", "deid_paraphrase")))
        elif d.suffix == ".json" and d.name not in {"tiny.json", "keep.json"}:
            files[d.name] = hashlib.sha256(d.read_bytes()).hexdigest()
    return {"commands": cmds, "files": files}


def _normalised(command: dict) -> dict:
    """A command's record with what changes on every run (a duration, a one-time password) masked."""
    out = _SECONDS.sub(r"\1<v>", command.get("stdout", ""))
    return {**command, "stdout": _PASSWORD.sub(r"\1<v>", out)}


def compare(a: dict, b: dict) -> int:
    bad = 0
    for key in sorted(set(a["commands"]) | set(b["commands"])):
        ca, cb = (_normalised(c.get(key) or {}) for c in (a["commands"], b["commands"]))
        if ca != cb:
            what = "exit status" if ca.get("rc") != cb.get("rc") else "printed summary"
            print(f"command differs: {key}: {what}")
            bad += 1
    n = 0
    for group in sorted(set(a["files"]) | set(b["files"])):
        fa, fb = a["files"].get(group), b["files"].get(group)
        if isinstance(fa, str) or isinstance(fb, str):
            n += 1
            if fa != fb:
                print(f"file differs: {group}")
                bad += 1
            continue
        fa, fb = fa or {}, fb or {}
        for f in sorted(set(fa) | set(fb)):
            n += 1
            if fa.get(f) != fb.get(f):
                print(f"file differs: {group}/{f}")
                bad += 1
    print(f"{len(a['commands'])} commands, {n} files compared; {bad} differences")
    return 1 if bad else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--work", type=Path, help="scratch folder (emptied)")
    ap.add_argument("--manifest", type=Path, help="where to write the manifest")
    ap.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    a = ap.parse_args()
    if a.compare:
        return compare(*(json.loads(p.read_text()) for p in a.compare))
    m = snapshot(a.work)
    a.manifest.write_text(json.dumps(m, indent=1, sort_keys=True))
    failed = [k for k, v in m["commands"].items() if v["rc"] != 0]
    print(f"{len(m['commands'])} commands ({len(failed)} failed: {failed}), "
          f"{sum(len(v) if isinstance(v, dict) else 1 for v in m['files'].values())} files hashed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
