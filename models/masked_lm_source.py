"""What the project's masked language model may learn from: notes whose PHI is already surrogates.

A model trained on the real notes fills a PHI slot with the names and ids it saw there: another
patient's full name, a doctor's surname inside an e-mail address (issue 29). So before training,
every note's gold PHI is replaced by list surrogates (the ``replace`` action of
:mod:`pipeline.deid`, unannotated copies of a value included: propagation on), and the spans
are carried to their new offsets, so the model still learns *where* a name or an id stands and
what such a value looks like, from public list values only. A note whose rewrite still holds a
real value (the leak check found one) is left out, as is a note without gold spans (its PHI is
unknown); :class:`TrainingSource` counts both.

The same pass keys the real values (:class:`pipeline.deid.project_values.ProjectValues`, digests
only, with the installation secret), which is saved with the model as the gate's and the leak
check's set. The surrogates here are drawn with a key derived from that secret for this purpose
only, so they are not the surrogates a de-identification run writes.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Sequence

from pipeline.deid import DeidContext, builtin_profiles, deidentify_batch
from pipeline.deid.engine import patient_id_of
from pipeline.deid.keys import keyed_bytes
from pipeline.deid.project_values import ProjectValues
from pipeline.spans import Document, Span


@dataclass
class TrainingSource:
    """Texts to train on (PHI replaced), their spans and patients, and the keyed real values."""

    texts: list[str]
    spans: list[list[Span]]
    groups: list[str]
    project_values: ProjectValues
    without_gold: int = 0
    left_out: int = 0            # notes whose rewrite still held a real value

    def counts(self) -> dict:
        """Figures only (what a job result or the command line shows)."""
        return {"trained_documents": len(self.texts), "without_gold": self.without_gold,
                "left_out": self.left_out, "project_values": len(self.project_values)}


def surrogate_source(docs: Sequence[Document], *, secret: bytes, locale: str,
                     without_gold: int = 0) -> TrainingSource:
    """``docs``, each with its gold spans (``doc.spans``; empty for a note whose gold holds no
    PHI), rewritten with list surrogates for training; see the module docstring. The caller
    leaves out notes without gold and says how many (``without_gold``)."""
    with_gold = [d for d in docs if d.text.strip()]
    values = [(s.category, d.text[s.start:s.end]) for d in with_gold for s in d.spans
              if 0 <= s.start < s.end <= len(d.text)]
    project_values = ProjectValues.build(secret, values)
    profile = replace(builtin_profiles()["replace"], name="infill-training")
    ctx = DeidContext(secret=keyed_bytes(secret, "infill-training-surrogates"), locale=locale)
    batch = deidentify_batch(with_gold, profile, ctx)
    out = TrainingSource([], [], [], project_values, without_gold=without_gold)
    for doc, r in zip(with_gold, batch.results):
        if r.leaks:
            out.left_out += 1
            continue
        out.texts.append(r.text)
        out.spans.append([s.with_(doc_id=str(doc.doc_id)) for s in r.spans])
        out.groups.append(patient_id_of(doc))
    return out
