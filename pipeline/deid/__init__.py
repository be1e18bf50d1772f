"""De-identification: turn a document and its PHI spans into a readable text without PHI.

* :mod:`~pipeline.deid.profile`: what to do per category/type (redact, replace, paraphrase, shift, keep).
* :mod:`~pipeline.deid.surrogates`: the registry of surrogate generators, keyed by type (the
  generators in :mod:`~pipeline.deid.surrogate_names` and :mod:`~pipeline.deid.surrogate_numbers`,
  their tools in :mod:`~pipeline.deid.surrogate_kit`).
* :mod:`~pipeline.deid.paraphrase`: surrogates a masked language model infills in context (the
  model is given by the caller as an ``Infiller``; shapes, checks and keyed choices are here).
* :mod:`~pipeline.deid.dates` / :mod:`~pipeline.deid.ages`: shifting in the original format.
* :mod:`~pipeline.deid.engine`: :func:`deidentify` for one document.
* :mod:`~pipeline.deid.operators`: one registered operator per action (``keep``, ``redact``,
  ``replace``, ``shift``, ``paraphrase``); the engine calls the one the profile names.
* :mod:`~pipeline.deid.leaks`: the after-the-fact check, from the input spans (coverage and strings).
* :mod:`~pipeline.deid.pseudonyms`: keyed output names for documents and patients, metadata filtering.
* :mod:`~pipeline.deid.fingerprint`: which profile and key a run used (resumes must match).
* :mod:`~pipeline.deid.batch`: many documents, summary, quality report, writing and zipping.
* :mod:`~pipeline.deid.quality`: Same rate, n-gram overlap and BERTScore-style similarity of a
  paraphrase run beside list surrogates (embeddings injected).
"""
from pipeline.deid.batch import BatchResult, BatchSummary, deidentify_batch, write_outputs, zip_outputs
from pipeline.deid.context import DeidContext, Original, SurrogateContext
from pipeline.deid.engine import deidentify, patient_id_of
from pipeline.deid.overlaps import OverlapGroup, overlap_groups, resolve_overlaps
from pipeline.deid.result import DeidResult
from pipeline.deid.fingerprint import FingerprintError, mismatch, run_fingerprint
from pipeline.deid.leaks import Leak, find_leaks
from pipeline.deid.profile import Profile, ProfileError, builtin_profiles, load_profile
from pipeline.deid.pseudonyms import PseudonymError, document_pseudonym, patient_pseudonym
from pipeline.deid.secret import SecretError, ensure_secret, load_or_create_secret, load_secret, secret_path_for
from pipeline.deid.surrogate_kit import GENERATORS, register
from pipeline.deid.surrogates import REGISTRY, generator_for, map_type

__all__ = [
    "BatchResult", "BatchSummary", "DeidContext", "DeidResult", "GENERATORS", "Leak",
    "Original", "Profile", "ProfileError", "REGISTRY", "SurrogateContext", "builtin_profiles",
    "deidentify", "deidentify_batch", "ensure_secret", "find_leaks", "generator_for", "load_profile",
    "load_or_create_secret", "load_secret", "map_type", "patient_id_of", "register", "resolve_overlaps", "SecretError", "secret_path_for", "write_outputs",
    "zip_outputs", "OverlapGroup", "overlap_groups", "FingerprintError", "mismatch", "run_fingerprint",
    "PseudonymError", "document_pseudonym", "patient_pseudonym",
]
