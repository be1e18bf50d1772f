"""Times as people read them: the store's ISO timestamps (UTC, ``2026-11-23T16:26:21.321+00:00``)
shown in the reader's own time zone, in words and minutes (``23 Nov 2026, 17:26``).

The browser's zone comes from ``st.context.timezone`` (sent by the browser with each session);
where it is missing or unknown (a test run, an old browser) the server's local zone is used.
"""
from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import streamlit as st


def reader_zone() -> dt.tzinfo | None:
    """The browser's time zone, else ``None`` (the server's local zone)."""
    try:
        name = st.context.timezone
    except Exception:  # noqa: BLE001 - no script context (a plain import, a test): use the server's
        return None
    try:
        return ZoneInfo(name) if name else None
    except (ZoneInfoNotFoundError, ValueError):
        return None


def local_time(ts: str | None, zone: dt.tzinfo | None = None) -> str:
    """``ts`` (ISO 8601; a value without a zone counts as UTC) in ``zone`` (default: the reader's),
    as ``23 Nov 2026, 17:26``; ``"-"`` for nothing, the value itself when it is not a timestamp.

    >>> local_time("2026-11-23T16:26:21.321728+00:00", dt.timezone(dt.timedelta(hours=1)))
    '23 Nov 2026, 17:26'
    >>> local_time(None)
    '-'
    """
    if not ts:
        return "-"
    try:
        t = dt.datetime.fromisoformat(str(ts))
    except ValueError:
        return str(ts)
    if t.tzinfo is None:
        t = t.replace(tzinfo=dt.timezone.utc)
    t = t.astimezone(zone if zone is not None else reader_zone())
    return f"{t.day} {t:%b %Y, %H:%M}"
