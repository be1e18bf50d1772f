"""Detection models: an ensemble of token classifiers trained on the project's gold set.

Members label the same word tokens (:mod:`models.words`), so their per-token label
probabilities average directly and map back to exact character offsets:

* ``crf`` (:mod:`models.crf`): linear-chain CRF on rich word features (shape, affixes, context,
  line keys, locale gazetteers, word clusters learned from the texts);
* ``bert``, ``electra``, ``roberta`` (:mod:`models.encoder`): small Hugging Face token
  classifiers built from configs over a WordPiece vocabulary trained on the project's notes
  (or initialised from a local checkpoint directory, offline), windowed over long notes.

:func:`models.trainer.train_ensemble` trains a version (patient-disjoint dev split, early
stopping, per-type thresholds for a target recall) and publishes it atomically;
:mod:`models.registry` lists and loads versions; :class:`models.ensemble.Ensemble` predicts.
Heavy imports (torch, transformers) happen in the submodules, not here.
"""

__all__ = ["train", "registry", "ensemble", "split", "version", "decode", "words", "crf", "encoder"]
