"""Use-cases: everything the app's pages and the command line ask the workbench to do that
touches the store. Each module opens the store through :mod:`store`, checks the acting user's
role (:mod:`services.access`) and calls the pure logic of :mod:`pipeline` and :mod:`models`.
See ``docs/architecture.md`` for which module holds which flow.

This package imports nothing on purpose, so importing one use-case never loads the others.
"""
