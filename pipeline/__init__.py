"""The workbench's pure logic: spans, formats, detection, annotation, de-identification, risk,
metrics and the synthetic corpus. Nothing here opens the store (that is :mod:`services`);
``python -m pipeline`` runs the command line (:mod:`cli`)."""
