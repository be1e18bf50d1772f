"""Detection: rule recognizers (:mod:`.rules`, in locale packs), dictionaries
(:mod:`.dictionaries`), the rule and dictionary candidates of a document (:mod:`.candidates`),
how candidates and model spans become one set of spans (:mod:`.combine`, :mod:`.merge_policy`,
and the locale's boundary steps in :mod:`.steps`), and the
:class:`~pipeline.detection.detector.Detector` that loads a trained model version and runs all
of them.

This package imports nothing on purpose: :mod:`models` uses the rules and the combination while
training, and must not load the detector (which loads models) by importing the package.
"""
