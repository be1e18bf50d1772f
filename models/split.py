"""Patient-disjoint train/dev split of a gold set.

Notes of one patient share names, addresses and record numbers; if some of them sit in train and
others in dev, dev scores measure memorisation, and thresholds tuned on them promise a recall the
model will not deliver on new patients. So whole patients go to one side. A document without a
``patient_id`` is its own patient.
"""
from __future__ import annotations

import hashlib
import random

from pipeline.spans import Document


def patient_of(doc: Document) -> str:
    return f"patient:{doc.patient_id}" if doc.patient_id not in (None, "") else f"doc:{doc.doc_id}"


def patient_split(docs: list[Document], dev_fraction: float = 0.15, seed: int = 13,
                  min_dev: int = 1) -> tuple[list[Document], list[Document]]:
    """Split ``docs`` into ``(train, dev)`` with no patient on both sides.

    Patients are shuffled with ``seed`` (order of ``docs`` does not matter: patients are sorted by a
    hash first) and added to dev until it holds about ``dev_fraction`` of the documents. With
    fewer than two patients everything goes to train and dev is empty.
    """
    if not 0.0 <= dev_fraction < 1.0:
        raise ValueError("dev_fraction must be in [0, 1)")
    groups: dict[str, list[Document]] = {}
    for d in docs:
        groups.setdefault(patient_of(d), []).append(d)
    if len(groups) < 2 or dev_fraction == 0.0:
        return list(docs), []
    keys = sorted(groups, key=lambda k: hashlib.sha256(k.encode("utf-8")).hexdigest())
    random.Random(seed).shuffle(keys)
    want = max(min_dev, round(dev_fraction * len(docs)))
    dev_keys: set[str] = set()
    n_dev = 0
    for k in keys:
        if n_dev >= want:
            break
        if len(dev_keys) + 1 >= len(groups):  # keep at least one patient for training
            break
        dev_keys.add(k)
        n_dev += len(groups[k])
    train = [d for d in docs if patient_of(d) not in dev_keys]
    dev = [d for d in docs if patient_of(d) in dev_keys]
    return train, dev
