"""Boundary steps: the repairs that move the edges of machine spans, and the registry that
gives each locale its own (:mod:`.registry`).

A step is one function ``(spans, context) -> spans``: the edge trims of a model's span
(:mod:`.trims`) and the splits where a rule or a shipped list shows where one entity ends
(:mod:`.splits`). The steps hold no word of any language: a locale pack
(``pipeline/locales/<code>/``) lists the steps it uses, in order, with its words
(:class:`.words.BoundaryWords`); the schema says which of its types are organisations, streets
or relatives (:attr:`pipeline.schemas.LabelSchema.roles`).

This package imports nothing on purpose, like :mod:`pipeline.detection`.
"""
