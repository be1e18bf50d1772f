"""Error types whose messages are written for users: they name files, lines, documents and
offsets, never document text. Anything else is reported by type only (see :mod:`cli`)."""
from __future__ import annotations

import re

from pipeline.schemas import SchemaError
from pipeline.spans import SpanError

#: Characters that would break a one-line message or disguise what it names: C0/C1 controls
#: (newline, carriage return, escape...), the Unicode line and paragraph separators, and the
#: bidirectional overrides that can make a file name read backwards.
# control characters, line separators, and invisible formatting ones (bidi controls, zero-width
# characters, the BOM): a name holding one must not reorder or hide part of a message
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e"
                          "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]")
_NAMED_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def one_line(text: object) -> str:
    r"""``text`` with every control character escaped (``\n``, ``\x1b``, ``\u2028``), so a
    file or member name holding a newline cannot split a message over lines or forge a second one.

    >>> print(one_line("notes\nerror: fake.txt"))
    notes\nerror: fake.txt
    """
    def escape(m: re.Match) -> str:
        c = m.group()
        return _NAMED_ESCAPES.get(c) or (f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}")

    return _UNPRINTABLE.sub(escape, str(text))


class WorkbenchError(Exception):
    """Base for errors that are safe to show to users as they are."""


class FormatError(WorkbenchError):
    """A file that cannot be imported: the message names the file and, where it helps, the line.

    The path and the message are made one line (:func:`one_line`): a zip member or an upload
    may be named anything, newlines included, and the message must stay one line on stderr.
    """

    def __init__(self, path: str, message: str, line: int | None = None):
        self.path = one_line(path)
        self.line = line
        where = f"{self.path}:{line}" if line is not None else self.path
        super().__init__(f"{where}: {one_line(message)}")


class SpanOverlapError(FormatError, SpanError):
    """Overlapping spans in an imported file, refused before the store sees them: a
    :class:`FormatError` naming the file and line, and still a :class:`SpanError` for callers
    that catch the store's overlap error."""


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
