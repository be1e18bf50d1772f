"""The German locale pack (the german-8 schema's notes): no word lists yet, and the boundary
steps with their words of the shared Western pack (:mod:`pipeline.locales.western`)."""
from pipeline.detection.steps.registry import register_pack
from pipeline.locales.western import STEPS, WORDS

PACK = register_pack("de", WORDS, STEPS)
