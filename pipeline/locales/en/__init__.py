"""The English locale pack: the word lists beside this file (:mod:`pipeline.locales`) and the
boundary steps with their words: the shared Western pack's (:mod:`pipeline.locales.western`), then
the English ones of :mod:`.ward_steps` (numbers without an age's, a date's or a phone's context
dropped; kinship and role words cut from names). Spanish and German do not list them."""
from pipeline.detection.steps.registry import register_pack
from pipeline.locales.en import ward_steps  # noqa: F401  (registers the steps named below)
from pipeline.locales.western import STEPS as WESTERN_STEPS, WORDS

#: the Western steps, with the English ones in their stages
STEPS = WESTERN_STEPS + ("strip_context_words", "drop_numbers_without_context")

PACK = register_pack("en", WORDS, STEPS)
