"""The run summary, accumulated one document at a time (so a driver need not keep every result).

Mirrors :func:`pipeline.deid.batch.summarize` exactly, floating point included: documents must
be added in the order the local engine processes them (input order), because sums of floats
depend on their order. ``tests/test_engines.py`` checks both give the same summary.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field


@dataclass
class _Quality:
    n: int = 0
    same: int = 0
    similarity: float = 0          # int 0 like sum()'s start, so the first addition is identical
    originals: set = field(default_factory=set)
    surrogates: set = field(default_factory=set)

    def add(self, q) -> None:
        self.n += 1
        self.same += q.same
        self.similarity += q.similarity
        self.originals.add(q.original_digest)
        self.surrogates.add(q.surrogate_digest)

    def stats(self) -> tuple[float, float, float]:
        if not self.n:
            return 0.0, 0.0, 0.0
        return self.same / self.n, self.similarity / self.n, len(self.surrogates) / len(self.originals)


class SummaryAccumulator:
    """``add`` each :class:`~pipeline.deid.DeidResult` (its text may be dropped), then ``summary()``."""

    def __init__(self) -> None:
        self.documents = 0
        self.spans: dict[str, Counter] = {}
        self.leaks_by_category: Counter = Counter()
        self.leaks_by_location: Counter = Counter()
        self.leak_details: list[dict] = []
        self.unparseable_dates = self.unparseable_ages = self.fallbacks = 0
        self.merged_overlaps = self.propagated = self.uncovered_chars = 0
        self.renamed_documents = self.renamed_patients = self.dropped_meta_keys = 0
        self.paraphrased = 0
        self.paraphrase_fallbacks: Counter = Counter()
        self.quality = _Quality()
        self.quality_by_category: dict[str, _Quality] = {}

    def add(self, r) -> None:
        from pipeline.deid.batch import MAX_LEAK_DETAILS, leak_detail

        self.documents += 1
        for cat, acts in r.counts.items():
            self.spans.setdefault(cat, Counter()).update(acts)
        for lk in r.leaks:
            self.leaks_by_category[lk.category] += 1
            self.leaks_by_location[lk.location] += 1
            if len(self.leak_details) < MAX_LEAK_DETAILS:
                self.leak_details.append(leak_detail(r, lk))
        self.unparseable_dates += r.unparseable_dates
        self.unparseable_ages += r.unparseable_ages
        self.fallbacks += r.fallbacks
        self.merged_overlaps += r.merged_overlaps
        self.propagated += r.propagated
        self.uncovered_chars += r.uncovered_chars
        self.renamed_documents += 1 if r.output_id else 0
        self.renamed_patients += 1 if r.output_patient_id else 0
        self.dropped_meta_keys += r.meta_dropped
        self.paraphrased += r.paraphrased
        self.paraphrase_fallbacks += Counter(r.paraphrase_fallbacks)    # as summarize: counts above 0
        for q in r.quality:
            self.quality.add(q)
            self.quality_by_category.setdefault(q.category, _Quality()).add(q)

    def summary(self, skipped: int = 0):
        from pipeline.deid import BatchSummary

        by_cat: dict[str, dict[str, float]] = {}
        for cat in sorted(self.quality_by_category):
            q = self.quality_by_category[cat]
            same, sim, div = q.stats()
            by_cat[cat] = {"surrogates": q.n, "same_rate": same, "mean_trigram_similarity": round(sim, 4),
                           "diversity": round(div, 4)}
        same, sim, div = self.quality.stats()
        return BatchSummary(
            documents=self.documents, skipped=skipped,
            spans={c: dict(v) for c, v in sorted(self.spans.items())},
            leaks=sum(self.leaks_by_category.values()), leaks_by_category=dict(self.leaks_by_category),
            leaks_by_location=dict(self.leaks_by_location), leak_details=list(self.leak_details),
            uncovered_chars=self.uncovered_chars,
            unparseable_dates=self.unparseable_dates, unparseable_ages=self.unparseable_ages,
            fallbacks=self.fallbacks, merged_overlaps=self.merged_overlaps, propagated=self.propagated,
            paraphrased=self.paraphrased, paraphrase_fallbacks=dict(sorted(self.paraphrase_fallbacks.items())),
            renamed_documents=self.renamed_documents, renamed_patients=self.renamed_patients,
            dropped_meta_keys=self.dropped_meta_keys,
            surrogates=self.quality.n, same_rate=same, mean_trigram_similarity=round(sim, 4),
            diversity=round(div, 4), quality_by_category=by_cat,
        )
