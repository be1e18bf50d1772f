"""Label Studio: a project export (a JSON list of tasks) in, tasks Label Studio imports out.

A task is ``{"data": {"text": ...}, "annotations": [{"result": [...], "completed_by": ...}],
"predictions": [{"model_version": ..., "score": ..., "result": [...]}]}``; a result of type
``labels`` is a span, ``{"value": {"start", "end", "text", "labels": [LABEL]}}``. Offsets count
Unicode code points, as Python's do (Label Studio stores code points since 1.6; a region whose
``text`` does not match the document at its offsets is refused, so an older export with
UTF-16 offsets cannot slip in misplaced).

Layers, as the workbench names them (:mod:`pipeline.formats._interchange`):

* a task with one annotation (cancelled ones aside): its regions are the import's layer
  (``--layer``, gold by default), as any other format's spans;
* a task with several: each annotator's regions go to ``annotator:labelstudio-<id>`` (the
  ``completed_by`` id; a name is never read), for adjudication on the Review page; the one
  marked ``ground_truth`` is also the import's layer (only that, when it names no annotator:
  the workbench writes its gold so); an annotator who submitted no region gets an empty layer;
* a task without an annotation gets no layer of the import's (nobody looked at it), unlike a
  submitted annotation without regions (a note found free of PHI: an empty layer);
* the last prediction's regions go to ``pre`` with their scores (``model:<model_version>``).

Writing: the exported layer becomes one annotation (``ground_truth``), ``pre`` spans become a
prediction carrying the model version and scores, so a team can go on correcting the model's
suggestions in Label Studio; ``label_config.xml`` beside the tasks is a labeling config whose
names match (``label`` over ``text``). Labels unknown to the project's schema are refused naming
the file, the task and the region, never the label itself.
"""
from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path
from typing import Collection, Sequence
from xml.sax.saxutils import quoteattr

from pipeline.formats._interchange import (EMPTY_LAYERS, MAIN, UNANNOTATED, Place, check_for_writing, collect,
                                           document_id, file_items, file_meta, is_annotated, json_safe_meta,
                                           layer_spans, load_json, make_span, new_document, require_text)
from pipeline.formats._output import write_file
from pipeline.formats._sources import Entry, Limits, PathLike, Progress, decode_utf8
from pipeline.layers import PRE, annotator_layer, annotator_name
from pipeline.schemas import LabelSchema
from pipeline.spans import Document, Span

SOURCE = "import:label-studio"
ANNOTATOR_PREFIX = "labelstudio-"
#: Region types that hold text offsets this reader cannot map (HTML and dialogue offsets).
REFUSED_TYPES = ("hypertextlabels", "paragraphlabels")
FROM_NAME, TO_NAME = "label", "text"


# --------------------------------------------------------------------------- reading

def _regions(results: object, schema: LabelSchema, text: str, doc_id: str, place: Place, what: str, *,
             layer: str, source: str, score: object = None) -> list[Span]:
    if not isinstance(results, list):
        raise place.error(f'{what}: "result" must be a list')
    spans: list[Span] = []
    for j, r in enumerate(results):
        if not isinstance(r, dict):
            raise place.error(f"{what}, result {j} is not an object")
        kind = r.get("type")
        if kind in REFUSED_TYPES:
            raise place.error(f"{what}, result {j} is of type {kind!r}, whose offsets this importer cannot read")
        if kind != "labels":
            continue  # choices, text areas, relations: not spans
        value = r.get("value")
        labels = value.get("labels") if isinstance(value, dict) else None
        if not isinstance(labels, list) or not labels:
            raise place.error(f'{what}, result {j}: "value.labels" must be a non-empty list')
        for label in labels:
            spans.append(make_span(schema, text, doc_id, place, f"{what}, result {j}", start=value.get("start"),
                                   end=value.get("end"), label=label, quoted=value.get("text"), source=source,
                                   layer=layer, score=r.get("score", score)))
    return spans


def _annotator(value: object, k: int) -> str:
    """``labelstudio-<id>`` from ``completed_by`` (an id, or a user object's id); never an e-mail."""
    if isinstance(value, dict):
        value = value.get("id")
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{ANNOTATOR_PREFIX}{value}"
    return f"{ANNOTATOR_PREFIX}annotation-{k}"


def _annotation_spans(task: dict, schema: LabelSchema, text: str, doc_id: str, place: Place
                      ) -> tuple[bool, set[str], list[Span]]:
    """Whether the task has an annotation for the import's layer, the layers its annotations
    go to, and their spans."""
    annotations = task.get("annotations", task.get("completions", [])) or []
    if not isinstance(annotations, list):
        raise place.error('"annotations" must be a list')
    for k, a in enumerate(annotations):
        if not isinstance(a, dict):
            raise place.error(f"annotation {k} is not an object")
    live = [(k, a) for k, a in enumerate(annotations) if not a.get("was_cancelled")]
    truth = [k for k, a in live if a.get("ground_truth") is True]
    main = live[0][0] if len(live) == 1 else (truth[0] if truth else None)
    spans: list[Span] = []
    used: set[str] = set()
    for k, a in live:
        layers = [MAIN] if k == main else []
        if len(live) > 1 and (k != main or a.get("completed_by") is not None):
            layers.append(annotator_layer(_annotator(a.get("completed_by"), k)))
        for layer in layers:
            spans += _regions(a.get("result", []), schema, text, doc_id, place, f"annotation {k}", layer=layer,
                              source=SOURCE)
        used.update(layers)
    return main is not None, used, spans


def _prediction_spans(task: dict, schema: LabelSchema, text: str, doc_id: str, place: Place) -> list[Span]:
    predictions = task.get("predictions", []) or []
    if not isinstance(predictions, list):
        raise place.error('"predictions" must be a list')
    if not predictions:
        return []
    k, p = len(predictions) - 1, predictions[-1]
    if not isinstance(p, dict):
        raise place.error(f"prediction {k} is not an object")
    version = p.get("model_version")
    source = f"model:{version}" if isinstance(version, str) and version.strip() else SOURCE
    return _regions(p.get("result", []), schema, text, doc_id, place, f"prediction {k}", layer=PRE, source=source,
                    score=p.get("score"))


def parse_task(task: object, schema: LabelSchema, default_id: str, place: Place, *,
               allow_overlap: bool = True) -> Document:
    """One task as a document whose spans say their layer; raises ``FormatError`` naming the
    file and the task."""
    if not isinstance(task, dict):
        raise place.error("a task must be a JSON object")
    data = task.get("data")
    if not isinstance(data, dict):
        raise place.error('"data" must be an object holding "text"')
    text = require_text(data.get("text"), place, '"data.text"')
    doc_id = document_id(data.get("doc_id"), default_id, place, '"data.doc_id"')
    meta = file_meta(data.get("meta"), place, '"data.meta"')
    annotated, layers, spans = _annotation_spans(task, schema, text, doc_id, place)
    spans += _prediction_spans(task, schema, text, doc_id, place)
    if not annotated:
        meta[UNANNOTATED] = True
    empty = sorted(layers - {MAIN} - {s.layer for s in spans})
    if empty:
        meta[EMPTY_LAYERS] = empty
    return new_document(doc_id, text, spans, place, meta=meta, patient=data.get("patient_id"),
                        patient_field='"data.patient_id"', allow_overlap=allow_overlap)


def _tasks(e: Entry) -> list:
    content = decode_utf8(e.read(), e.display)
    obj = load_json(content[1:] if content.startswith("\ufeff") else content, Place(e.display))
    tasks = [obj] if isinstance(obj, dict) and "data" in obj else obj
    if not isinstance(tasks, list):
        raise Place(e.display).error("a Label Studio export is a JSON list of tasks")
    if not tasks:
        raise Place(e.display).error("file holds no tasks")
    return tasks


def read_label_studio(paths: PathLike | Sequence[PathLike], schema: LabelSchema, *, limits: Limits | None = None,
                      progress: Progress | None = None, allow_overlap: bool = True) -> list[Document]:
    """Every task of every ``.json`` export under ``paths``; ids (``data.doc_id``, else
    ``<file stem>-<task id>``, else ``<file stem>-<task index>``) unique even ignoring letter
    case; all checked before returning."""
    def parse(task: object, default_id: str, place: Place) -> Document:
        task_id = task.get("id") if isinstance(task, dict) else None
        if isinstance(task_id, int) and not isinstance(task_id, bool):
            default_id = f"{default_id.rsplit('-', 1)[0]}-{task_id}"
        return parse_task(task, schema, default_id, place, allow_overlap=allow_overlap)

    return collect(file_items(paths, (".json",), limits, progress, _tasks, "task"), parse)


# --------------------------------------------------------------------------- writing

def _results(spans: Sequence[Span], text: str, *, prediction: bool) -> list[dict]:
    out = []
    for n, s in enumerate(spans):
        r: dict = {"id": f"r{n}", "from_name": FROM_NAME, "to_name": TO_NAME, "type": "labels",
                   "origin": "prediction" if prediction else "manual",
                   "value": {"start": s.start, "end": s.end, "text": text[s.start:s.end], "labels": [s.label]}}
        if prediction:
            r["score"] = round(float(s.score), 6)
        out.append(r)
    return out


def _model_version(spans: Sequence[Span]) -> str:
    """The model version most of the suggestions came from (``model:<version>`` sources)."""
    versions = Counter(s.source.split(":", 1)[1] for s in spans if s.source.startswith("model:"))
    return versions.most_common(1)[0][0] if versions else "workbench"


def to_task(doc: Document, *, annotated: bool = True) -> dict:
    """The Label Studio task of one document (``annotated``: its exported layer is an
    annotation even when it holds no span, a note a person found free of PHI).

    >>> t = to_task(Document("n1", "Seen by Dr Wu.", [Span("n1", 11, 13, "NAME", "DOCTOR"),
    ...                                               Span("n1", 11, 13, "NAME", "DOCTOR", "model:v2", 0.9, "pre")]))
    >>> [r["value"]["labels"] for r in t["annotations"][0]["result"]], t["predictions"][0]["model_version"]
    ([['DOCTOR']], 'v2')
    """
    data: dict = {"text": doc.text, "doc_id": doc.doc_id}
    if doc.patient_id is not None:
        data["patient_id"] = doc.patient_id
    if doc.meta:
        data["meta"] = json_safe_meta(doc.meta)
    layers = layer_spans(doc)
    annotations = []
    if annotated or layers.get(MAIN):
        annotations.append({"result": _results(layers.get(MAIN, []), doc.text, prediction=False),
                            "ground_truth": True, "was_cancelled": False})
    for layer in sorted(k for k in layers if k.startswith("annotator:")):
        a: dict = {"result": _results(layers[layer], doc.text, prediction=False), "was_cancelled": False}
        name = annotator_name(layer)
        if name.startswith(ANNOTATOR_PREFIX) and name[len(ANNOTATOR_PREFIX):].isdigit():
            a["completed_by"] = int(name[len(ANNOTATOR_PREFIX):])
        annotations.append(a)
    task: dict = {"data": data}
    if annotations:
        task["annotations"] = annotations
    pre = layers.get(PRE, [])
    if pre:
        task["predictions"] = [{"model_version": _model_version(pre),
                                "score": round(sum(s.score for s in pre) / len(pre), 6),
                                "result": _results(pre, doc.text, prediction=True)}]
    return task


def label_config(labels: Collection[str]) -> str:
    """A labeling config whose names match the tasks (``label`` over ``text``)."""
    rows = "".join(f"    <Label value={quoteattr(x)}/>\n" for x in sorted(labels))
    return (f'<View>\n  <Labels name="{FROM_NAME}" toName="{TO_NAME}">\n{rows}  </Labels>\n'
            f'  <Text name="{TO_NAME}" value="$text"/>\n</View>\n')


def write_label_studio(docs: Sequence[Document], out_dir: str | os.PathLike, *, filename: str = "tasks.json",
                       without_annotations: Collection[str] = (), labels: Collection[str] = ()) -> list[Path]:
    """All documents as one Label Studio import file, ``out_dir/<filename>``, and
    ``label_config.xml`` (``labels``, else those the spans use). ``without_annotations``: ids of
    documents whose exported layer does not exist (they go out with predictions only)."""
    out = Path(out_dir)
    check_for_writing(docs, str(out))
    tasks = [to_task(d, annotated=is_annotated(d, without_annotations)) for d in docs]
    path = out / filename
    write_file(path, json.dumps(tasks, ensure_ascii=False, indent=1) + "\n")
    config = out / "label_config.xml"
    write_file(config, label_config(set(labels) or {s.label for d in docs for s in d.spans}))
    return [path, config]
