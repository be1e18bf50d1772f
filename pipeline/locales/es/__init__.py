"""The Spanish locale pack: the word lists beside this file (:mod:`pipeline.locales`) and the
boundary steps with their words, today the shared Western pack's (:mod:`pipeline.locales.western`)."""
from pipeline.detection.steps.registry import register_pack
from pipeline.locales.western import STEPS, WORDS

PACK = register_pack("es", WORDS, STEPS)
