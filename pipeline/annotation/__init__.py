"""What annotators and reviewers do to spans, as pure functions: editing operations
(:mod:`.edits`), the order of an annotator's queue and the plan for handing documents out
(:mod:`.queue`), and adjudication of two or more annotators' layers into gold
(:mod:`.adjudication`). The store-backed use-cases around them live in :mod:`services`.
"""
