"""Synthetic English clinical notes with exact gold spans, and simulated annotators.

Used by the demo project, the tests of every module and the benchmarks: realistic enough to
exercise detectors (every i2b2 2014 type, hard date/age/phone formats, names that are common
words or places) while containing no real person.
"""
from pipeline.synthetic.annotators import ANNOTATOR_PROFILES, PROFILES, AnnotatorProfile, simulate_annotator
from pipeline.synthetic.builder import GOLD_SOURCE, Inserted, Phi
from pipeline.synthetic.generator import SyntheticNote, generate_corpus, generate_notes
from pipeline.synthetic.notes import NOTE_KINDS
from pipeline.synthetic.values import AGE_FORMATS, DATE_FORMATS, PHONE_FORMATS

__all__ = [
    "generate_corpus", "generate_notes", "SyntheticNote", "Inserted", "Phi", "GOLD_SOURCE",
    "simulate_annotator", "AnnotatorProfile", "PROFILES", "ANNOTATOR_PROFILES", "NOTE_KINDS",
    "DATE_FORMATS", "AGE_FORMATS", "PHONE_FORMATS",
]
