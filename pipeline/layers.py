"""The layer vocabulary: the names every part of the workbench gives to a document's span sets.

One module so that the store's queries, the access rules, adjudication, de-identification runs
and risk scoring agree on what a name means:

* ``pre``: machine suggestions (the detector's output, for annotators to correct);
* ``annotator:<user>``: one annotator's layer (blind: annotators never see each other's);
* ``gold``: the adjudicated layer that training and evaluation learn from;
* ``deid:<action>:<input layer>``: a span of a de-identified output, carrying what was done to
  it (``redact``, ``replace``, ``shift``, ``keep``) and the layer its input span came from
  (``detected`` when the run detected it rather than reading a layer);
* "reviewed by a person": spans of ``gold`` or an ``annotator:<user>`` layer were placed or
  checked by someone; risk scoring trusts them more than machine-only spans.

>>> annotator_layer("ana")
'annotator:ana'
>>> annotator_name("annotator:ana"), is_annotator_layer("gold"), reviewed_layer("annotator:ana")
('ana', False, True)
>>> parse_output_layer(output_layer("replace", ""))
('replace', 'detected')
"""
from __future__ import annotations

PRE = "pre"
GOLD = "gold"
ANNOTATOR_PREFIX = "annotator:"
DETECTED = "detected"
DEID_PREFIX = "deid:"

#: SQL (over ``layers l``) true for the layers a person made: what "someone has seen this
#: document" means to the store's queries.
HUMAN_LAYER_SQL = f"(l.layer = '{GOLD}' OR l.layer LIKE '{ANNOTATOR_PREFIX}%')"


def annotator_layer(username: str) -> str:
    """The layer of ``username``'s annotations."""
    return f"{ANNOTATOR_PREFIX}{username}"


def is_annotator_layer(layer: str) -> bool:
    return layer.startswith(ANNOTATOR_PREFIX)


def annotator_name(layer: str) -> str:
    """The user of an ``annotator:<user>`` layer (other names are returned as they are)."""
    return layer[len(ANNOTATOR_PREFIX):] if is_annotator_layer(layer) else layer


def reviewed_layer(layer: str) -> bool:
    """Spans of ``gold`` and ``annotator:<user>`` layers were placed or checked by a person."""
    return layer == GOLD or is_annotator_layer(layer)


def output_layer(action: str, input_layer: str) -> str:
    """The ``layer`` of a de-identified output span: ``deid:<action>:<input layer>``."""
    return f"{DEID_PREFIX}{action}:{input_layer or DETECTED}"


def parse_output_layer(layer: str) -> tuple[str, str]:
    """``(action, input layer)`` of an output span (``("replace", layer)`` for foreign spans)."""
    if layer.startswith(DEID_PREFIX):
        parts = layer.split(":", 2)
        if len(parts) == 3:
            return parts[1], parts[2]
        return parts[1], ""
    return "replace", layer
