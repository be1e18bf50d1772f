"""The server route that sets the session cookie ``HttpOnly`` (mounted by ``workbench_app.py``).

``POST <base>/_workbench/session-cookie`` with a grant of :mod:`dashboard.cookie_grants` as its
body answers ``204`` with the grant's ``Set-Cookie`` headers (plus ``Secure`` when the request
came over https), or ``403`` for an unknown, used or expired grant, a request from another
origin (its ``Origin`` header names another host or port than ``Host``, or than the
``X-Forwarded-Host`` a reverse proxy sets) or an oversized body. The grant is
useless to anyone but the page it was made for within a minute, once; the route never sees a
password and never logs anything.
"""
from __future__ import annotations

from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from dashboard import cookie_grants

ROUTE = "_workbench/session-cookie"
MAX_BODY = 256


def route_path(base_url_path: str = "") -> str:
    """The route's path under Streamlit's ``server.baseUrlPath``.

    >>> route_path(""), route_path("/wb/")
    ('/_workbench/session-cookie', '/wb/_workbench/session-cookie')
    """
    base = base_url_path.strip("/")
    return f"/{base}/{ROUTE}" if base else f"/{ROUTE}"


def _refused() -> Response:
    return Response(status_code=403, headers={"Cache-Control": "no-store"})


async def set_session_cookie(request: Request) -> Response:
    origin = request.headers.get("origin")
    hosts = {request.headers.get("host", ""), request.headers.get("x-forwarded-host", "")} - {""}
    if origin is not None and urlsplit(origin).netloc not in hosts:
        return _refused()
    length = request.headers.get("content-length", "")
    if not length.isdigit() or int(length) > MAX_BODY:
        return _refused()
    body = await request.body()
    if len(body) > MAX_BODY:
        return _refused()
    headers = cookie_grants.redeem(body.decode("ascii", "replace").strip())
    if headers is None:
        return _refused()
    secure = request.url.scheme == "https" or request.headers.get("x-forwarded-proto", "") == "https"
    response = Response(status_code=204, headers={"Cache-Control": "no-store"})
    for value in headers:
        response.raw_headers.append((b"set-cookie", (value + ("; Secure" if secure else "")).encode("latin-1")))
    return response


def routes(base_url_path: str = "") -> list[Route]:
    return [Route(route_path(base_url_path), set_session_cookie, methods=["POST"])]
