"""The English pack's step for an address's parts a rule reads only after its own towns.

* ``states_after_towns`` (merged stage): a state's or a province's code after a comma right after
  a town that the model (or a list) found ("Coastal Pediatric Endocrinology, Savannah, GA   NPI
  ...", "Evergreen Hospice Society, Kelowna, BC") is marked as the rules mark it after the towns
  they find themselves (:func:`pipeline.detection.rules.en.state_codes.state_after_town`: the
  town's case, a word code only where it cannot be a word). Before, the model's town stood and
  its state was left in the output. Found on the clinic notes' find half
  (``benchmarks/clinic_invented.py``: f05, f16).
"""
from __future__ import annotations

from pipeline.detection.rules import to_schema
from pipeline.detection.rules.en.state_codes import state_after_town
from pipeline.detection.steps.registry import StepContext, boundary_step
from pipeline.spans import Span


@boundary_step("states_after_towns", "merged")
def states_after_towns(spans: list[Span], ctx: StepContext) -> list[Span]:
    """``spans`` with a STATE span for the code after each town's comma where nothing is marked.

    >>> text = "Seen at Coastal Peds, Savannah, GA   NPI 1639274418"
    >>> ctx = StepContext.for_locale(text, "i2b2-2014", "en")
    >>> got = states_after_towns([Span("d", 22, 30, "LOCATION", "CITY", source="model:m")], ctx)
    >>> [(text[s.start:s.end], s.type) for s in got]
    [('Savannah', 'CITY'), ('GA', 'STATE')]
    """
    towns = [s for s in spans if s.type == "CITY" and not s.source.startswith("human")]
    if not towns:
        return spans
    taken = [(s.start, s.end) for s in spans]
    added: list[Span] = []
    for town in towns:
        for st in state_after_town(ctx.text, town.doc_id, [town]):
            if not any(a < st.end and st.start < b for a, b in taken):
                added += to_schema([st.with_(source="rule:states_after_towns", score=0.85)], ctx.schema)
                taken.append((st.start, st.end))
    return sorted(spans + added, key=lambda x: (x.start, x.end)) if added else spans
