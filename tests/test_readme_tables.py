"""The README's table snippets run as tests: the CSV de-identification command and the notebook
session. Each is read from README.md after its marker (``<!-- test: table-cli -->``,
``<!-- test: notebook -->``, the next fenced block) and must equal the copies below, so the
commands shown are the commands tested."""
from __future__ import annotations

import doctest
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pandas as pd

from pipeline.synthetic.generator import generate_corpus

ROOT = Path(__file__).resolve().parents[1]

TABLE_CLI = """\
python -m pipeline deidentify-table notes.csv notes-deid.csv \\
    --text-column note --id-column note_id --patient-column mrn \\
    --date-column seen --keep ward
"""

NOTEBOOK = """\
>>> import deidkit
>>> model = deidkit.load(schema="i2b2-2014", secret=open("key.hex").read().strip().encode())
>>> out = model.deidentify("Seen by Dr. Ann Wu on 03/14/2070, call 617-555-0199.")
>>> "617-555-0199" in out.text, len(out.leaks)
(False, 0)
>>> [s.category for s in out.spans]
['NAME', 'DATE', 'CONTACT']
>>> summary = model.deidentify_table("notes.csv", "notes-clean.csv", text=["note"], id="note_id",
...                                  patient="mrn", dates=["seen"], keep=["ward"])
>>> summary.rows, summary.leaks
(3, 0)
"""


def snippet(marker: str, fallback: str) -> str:
    """The fenced block after ``<!-- test: marker -->`` in README.md (it must equal ``fallback``)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    m = re.search(rf"<!-- test: {re.escape(marker)} -->\s*```[a-z]*\n(.*?)```", text, re.S)
    assert m is not None, f"README.md lost its {marker} example"
    assert m.group(1) == fallback, f"README.md's {marker} example differs from the tested copy"
    return m.group(1)


def _notes_csv(where: Path) -> None:
    docs = generate_corpus(3, 21)
    pd.DataFrame({"note_id": [d.doc_id for d in docs], "mrn": [d.patient_id for d in docs],
                  "seen": ["2070-03-14"] * 3, "ward": ["7B"] * 3, "note": [d.text for d in docs]}).to_csv(
        where / "notes.csv", index=False)


def test_the_csv_deidentification_command_runs(tmp_path):
    _notes_csv(tmp_path)
    words = shlex.split(snippet("table-cli", TABLE_CLI).replace("\\\n", " "))
    assert words[:3] == ["python", "-m", "pipeline"]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "WORKBENCH_DB": str(tmp_path / "w.db")}   # its key beside it
    out = subprocess.run([sys.executable, *words[1:]], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr[-1000:]
    clean = pd.read_csv(tmp_path / "notes-deid.csv", dtype=str)
    assert list(clean.columns) == ["note_id", "mrn", "seen", "ward", "note"] and "leaks=0" in out.stdout
    assert clean["mrn"].str.startswith("pat-").all() and (tmp_path / "w.secret.key").is_file()


def test_the_notebook_session_runs(tmp_path, monkeypatch):
    _notes_csv(tmp_path)
    (tmp_path / "key.hex").write_text("00" * 16 + "ab" * 16)
    monkeypatch.chdir(tmp_path)
    test = doctest.DocTestParser().get_doctest(snippet("notebook", NOTEBOOK), {}, "README notebook", None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test, out=lambda _s: None)         # a failure's report could quote a note: not printed
    result = runner.summarize(verbose=False)
    assert result.attempted >= 6 and result.failed == 0, f"{result.failed} of {result.attempted} steps failed"
