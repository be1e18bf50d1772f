"""Execution engines for whole note archives: ``local`` (this process) and ``ray`` (a Ray cluster).

An engine takes a job (documents already read and validated by the caller, what to do, where to
write) and produces exactly the files and run summary the local code path produces, so the
choice of engine never changes an output byte:

* :class:`DeidJob` -> :class:`pipeline.deid.BatchSummary`; :class:`DetectJob` -> :class:`DetectSummary`.
* ``get_engine("local")`` runs in this process; ``get_engine("ray", address=...)`` streams the
  documents through Ray Data to an actor pool (the model and the surrogate lists are loaded once
  per worker) and writes the results on the driver with the :mod:`pipeline.formats` writers.

Ray is imported only when the ``ray`` engine runs, so nothing else pays its start-up.
"""
from __future__ import annotations

from pipeline.engines.local import LocalEngine
from pipeline.engines.types import (DOCS_PER_BATCH, ENGINES, DeidJob, DetectJob, DetectSpec, DetectSummary, Engine,
                                    EngineError, Progress, RayOptions, ordered_output)


def get_engine(name: str, *, address: str | None = None, options: RayOptions | None = None) -> Engine:
    """The engine called ``name`` (``local`` or ``ray``)."""
    if name == "local":
        return LocalEngine()
    if name == "ray":
        from pipeline.engines.ray_engine import RayEngine
        opts = options or RayOptions(address=address)
        return RayEngine(opts)
    raise EngineError(f"unknown engine {name!r}; use one of {', '.join(ENGINES)}")


__all__ = [
    "DOCS_PER_BATCH", "ENGINES", "DeidJob", "DetectJob", "DetectSpec", "DetectSummary", "Engine", "EngineError",
    "LocalEngine", "Progress", "RayOptions", "get_engine", "ordered_output",
]
