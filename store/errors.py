"""Errors raised by the store that are safe to show to users.

They subclass :class:`pipeline.errors.WorkbenchError`, so the CLI prints them as one line and the
pages can show them as they are. Messages name ids, names, layers and versions, never text.
"""
from __future__ import annotations

from pipeline.errors import StaleSaveError, StoreBusyError, WorkbenchError

__all__ = ["NotFoundError", "DuplicateError", "InvalidValueError", "StaleSaveError", "StoreBusyError"]


class NotFoundError(WorkbenchError, LookupError):
    """A project, document, user, job, model version or run id that does not exist."""


class DuplicateError(WorkbenchError):
    """A name that must be unique (project, document in a project, user) is already taken."""


class InvalidValueError(WorkbenchError, ValueError):
    """A value outside what the store accepts (unknown role, status, colour, decision...)."""
