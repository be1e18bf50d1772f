"""Annotator throughput from assignment records, by hand."""
from __future__ import annotations

import pytest

from pipeline.metrics.throughput import AssignmentRecord, throughput


def test_rates_and_median_by_hand():
    rows = throughput([
        AssignmentRecord("ana", "1", 600, 10),
        AssignmentRecord("ana", "2", 1200, 20),
        {"user": "ana", "doc_id": "3", "seconds_spent": 1800, "n_spans": 30},
        {"user": "bo", "doc_id": "1", "seconds_spent": None, "n_spans": 4},
    ])
    ana, bo = rows
    assert (ana.user, ana.n_documents, ana.n_spans, ana.total_seconds) == ("ana", 3, 60, 3600)
    assert ana.docs_per_hour == pytest.approx(3.0) and ana.spans_per_hour == pytest.approx(60.0)
    assert ana.median_seconds_per_doc == 1200
    # no recorded time: counted, but no rates rather than infinite ones
    assert (bo.n_documents, bo.timed_documents, bo.docs_per_hour, bo.median_seconds_per_doc) == (1, 0, None, None)


def test_reopened_assignment_is_one_document_and_untimed_ones_stay_out_of_rates():
    rows = throughput([
        AssignmentRecord("ana", "1", 300, 5), AssignmentRecord("ana", "1", 300, 7),   # reopened: 600 s, 7 spans
        AssignmentRecord("ana", "2", 0, 9),                                          # no time recorded
    ])
    (ana,) = rows
    assert (ana.n_documents, ana.timed_documents, ana.n_spans, ana.total_seconds) == (2, 1, 16, 600)
    assert ana.docs_per_hour == pytest.approx(6.0) and ana.spans_per_hour == pytest.approx(42.0)
    assert throughput([]) == []
