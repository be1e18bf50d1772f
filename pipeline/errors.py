"""Error types whose messages are written for users: they name files, lines, documents and
offsets, never document text. Anything else is reported by type only (see :mod:`cli`)."""
from __future__ import annotations

from pipeline.schemas import SchemaError
from pipeline.spans import SpanError


class WorkbenchError(Exception):
    """Base for errors that are safe to show to users as they are."""


class FormatError(WorkbenchError):
    """A file that cannot be imported: the message names the file and, where it helps, the line."""

    def __init__(self, path: str, message: str, line: int | None = None):
        self.path = str(path)
        self.line = line
        where = f"{self.path}:{line}" if line is not None else self.path
        super().__init__(f"{where}: {message}")


class LabelNotInSchemaError(FormatError):
    """A file whose label the schema does not know (the file itself may be well formed): the one
    error that lets ``read_collection_auto`` move on to the next preset schema."""


class StaleSaveError(WorkbenchError):
    """A save that started from an older version of a layer than the one stored."""


class PermissionDenied(WorkbenchError):
    """The signed-in user's role does not allow the action."""


class StoreBusyError(WorkbenchError):
    """The SQLite file stayed locked by another process after retries."""


USER_ERRORS = (WorkbenchError, SpanError, SchemaError, FileNotFoundError, NotADirectoryError, IsADirectoryError)


def is_user_error(e: BaseException) -> bool:
    return isinstance(e, USER_ERRORS)
