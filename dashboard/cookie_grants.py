"""One-time grants that hand a ``Set-Cookie`` header from a script run to the server's route.

A Streamlit script run cannot answer an HTTP request, so it cannot set an ``HttpOnly`` cookie
itself. It leaves the header here under a random grant (:func:`issue`); the page posts the grant
to :mod:`dashboard.cookie_route`, which takes the header out (:func:`redeem`) and sends it. A
grant works once, for :data:`GRANT_TTL_S` seconds, and lives only in this server process's
memory: the page (and any script on it) sees the grant, never the session token, and a grant
seen later is worth nothing. Both sides run in the same process (the route in the server's
event loop, script runs in their threads), hence the lock.
"""
from __future__ import annotations

import secrets
import threading
import time

GRANT_TTL_S = 60.0
MAX_PENDING = 1000          # a flood of sign-ins cannot grow this without bound

_pending: dict[str, tuple[float, tuple[str, ...]]] = {}
_lock = threading.Lock()


def issue(headers: list[str] | tuple[str, ...], *, now: float | None = None) -> str:
    """Keep ``Set-Cookie`` header values for one redemption; return the grant.

    >>> g = issue(["a=1; HttpOnly"], now=100.0)
    >>> redeem(g, now=110.0), redeem(g, now=110.0)
    (('a=1; HttpOnly',), None)
    >>> redeem(issue(["a=1"], now=100.0), now=100.0 + GRANT_TTL_S + 1) is None    # too late
    True
    """
    now = time.monotonic() if now is None else now
    grant = secrets.token_urlsafe(32)
    with _lock:
        for old in [g for g, (t, _) in _pending.items() if t < now]:
            del _pending[old]
        while len(_pending) >= MAX_PENDING:
            del _pending[next(iter(_pending))]
        _pending[grant] = (now + GRANT_TTL_S, tuple(headers))
    return grant


def redeem(grant: str, *, now: float | None = None) -> tuple[str, ...] | None:
    """The headers of a live grant, once; ``None`` for an unknown, used or expired one."""
    now = time.monotonic() if now is None else now
    if not isinstance(grant, str):
        return None
    with _lock:
        found = _pending.pop(grant, None)
    if found is None or found[0] < now:
        return None
    return found[1]
