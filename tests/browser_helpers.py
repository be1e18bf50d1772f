"""Driving the real workbench in Debian's chromium through Playwright (used by
``tests/test_browser.py`` and ``benchmarks/page_render.py``).

Why a real browser at all: the span editor (``dashboard/editor``) is a Streamlit component whose
JavaScript holds the working spans; under ``AppTest`` it has no value. Only a browser shows that
keys and selections in it really become saved spans.

Three things to know about the app when driving it:

* the session token lives in Streamlit's session state, which belongs to one websocket
  connection: ``page.goto`` opens a new session (signed out). Move between pages with the
  sidebar links (:func:`open_page`), which keep the connection;
* a script run is finished when the status widget ("Running...") has gone and no element is
  marked stale (:func:`wait_idle`);
* the span editor renders in the page itself (``.wb-ed``; helpers ``editor_*`` below).

Nothing here prints document text: failures name selectors, pages and offsets only.
"""
from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pytest

REPO = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
SCREENSHOTS = REPO / "test-artifacts" / "screenshots"
LEAD = "lead"
PASSWORD = "browser test password 42"
#: How long one wait may take: generous, because CI has two loaded cores.
WAIT_MS = 45_000


def missing_requirements() -> str | None:
    """Why a browser test cannot run here, or ``None`` when it can."""
    if not CHROMIUM.exists():
        return f"{CHROMIUM} is not installed"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed"
    return None


# --------------------------------------------------------------------------- database


@dataclass(frozen=True)
class BrowserProject:
    db_path: Path
    project_id: int
    name: str = ""             # of the project (the Home page's title)
    password: str = PASSWORD   # of lead, ana, ben and rita


def prepare_db(path: Path, *, n_docs: int = 30, seed: int = 7, deid_docs: int = 0) -> BrowserProject:
    """The demo project made the way an installation makes it (``init-project`` with the lead's
    password on stdin), then known passwords for the demo users (their own are random). With
    ``deid_docs`` > 0, a de-identification run (with risk scores) over that many documents, so
    the Risk page has something to show."""
    env = dict(os.environ, WORKBENCH_DB=str(path))

    def cli(*args: str, stdin: str | None = None) -> None:
        subprocess.run([sys.executable, "-m", "pipeline", *args, "--db", str(path)], input=stdin, text=True,
                       cwd=REPO, env=env, check=True, capture_output=True)

    cli("init-project", "--demo-docs", str(n_docs), "--seed", str(seed), "--lead-user", LEAD,
        "--lead-password-stdin", stdin=PASSWORD + "\n")
    import store

    db = store.connect(path)
    try:
        for name in ("ana", "ben", "rita"):
            store.set_password(db, name, PASSWORD, user=LEAD)
        project = store.list_projects(db)[0]
        doc_ids = [d.id for d in store.list_documents(db, project.id)][:deid_docs]
    finally:
        db.close()
    if doc_ids:
        cli("deidentify-project", "--project", project.name, "--docs", ",".join(map(str, doc_ids)), "--user", LEAD)
    return BrowserProject(db_path=Path(path), project_id=project.id, name=project.name)


# --------------------------------------------------------------------------- server


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class AppServer:
    url: str
    process: subprocess.Popen
    log_path: Path

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=15)

    def log_tail(self, n: int = 2000) -> str:
        """The end of the server's log (Streamlit's own lines; the app logs no document text)."""
        try:
            return self.log_path.read_text(errors="replace")[-n:]
        except OSError:
            return ""


def start_server(db_path: Path, *, timeout: float = 90.0, extra_env: dict | None = None) -> AppServer:
    """``streamlit run workbench_app.py`` (the app and its cookie route) on a free local port; returns once ``/_stcore/health``
    answers. The caller must :meth:`AppServer.stop` it (use :func:`running_server`)."""
    port = free_port()
    env = dict(os.environ, WORKBENCH_DB=str(db_path), STREAMLIT_BROWSER_GATHER_USAGE_STATS="false")
    env.pop("WORKBENCH_APPTEST", None)  # the real component, never the test injection point
    env.update(extra_env or {})
    log_path = Path(tempfile.mkstemp(prefix="streamlit-", suffix=".log")[1])
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "workbench_app.py", "--server.port", str(port),
             "--server.address", "127.0.0.1", "--server.headless", "true", "--server.fileWatcherType", "none",
             "--browser.gatherUsageStats", "false"],
            cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)
    server = AppServer(url=f"http://127.0.0.1:{port}", process=proc, log_path=log_path)
    deadline = time.monotonic() + timeout
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited with {proc.returncode}: {server.log_tail()}")
        try:
            with urllib.request.urlopen(server.url + "/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return server
        except OSError:
            pass
        if time.monotonic() > deadline:
            server.stop()
            raise RuntimeError(f"streamlit did not answer /_stcore/health within {timeout:.0f} s")
        time.sleep(0.2)


@contextlib.contextmanager
def running_server(db_path: Path, **kw) -> Iterator[AppServer]:
    server = start_server(db_path, **kw)
    try:
        yield server
    finally:
        server.stop()
        with contextlib.suppress(OSError):
            server.log_path.unlink()


@contextlib.contextmanager
def browser() -> Iterator[object]:
    """A headless chromium (Debian's; Playwright's own browsers are never downloaded)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                              args=["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"])
        try:
            yield b
        finally:
            b.close()


def new_page(b, *, width: int = 1400, height: int = 1000):
    page = b.new_page(viewport={"width": width, "height": height})
    page.set_default_timeout(WAIT_MS)
    return page


# --------------------------------------------------------------------------- app


_IDLE = """() => {
    const app = document.querySelector('[data-testid="stApp"]');
    return app && app.getAttribute('data-test-script-state') === 'notRunning'
        && !document.querySelector('[data-testid="stStatusWidget"]')
        && !document.querySelector('[data-stale="true"]');
}"""


def wait_idle(page, timeout_ms: int = WAIT_MS) -> None:
    """Wait until the current script run has finished: the app says its script is not running,
    no "Running..." widget, no stale elements (Streamlit marks the previous run's elements stale
    while rerunning). Checked twice, a little apart: a run that ends in ``st.rerun()`` starts
    the next one within a tick. After a click, prefer waiting for what the click should show."""
    page.wait_for_function(_IDLE, timeout=timeout_ms, polling=100)
    page.wait_for_timeout(200)
    page.wait_for_function(_IDLE, timeout=timeout_ms, polling=100)


def sign_in(page, base_url: str, username: str, password: str = PASSWORD) -> None:
    """Through the real sign-in form; returns when the sidebar names the user."""
    page.goto(base_url + "/")
    form = page.locator('[data-testid="stForm"]')
    form.get_by_label("Username").fill(username)
    form.get_by_label("Password", exact=True).fill(password)
    form.get_by_role("button", name="Sign in").click()
    page.locator('[data-testid="stSidebar"]').get_by_text(username, exact=False).first.wait_for()
    wait_idle(page)


def open_page(page, url_path: str, heading: str | None = None) -> None:
    """Follow the sidebar link to ``url_path`` (same websocket session, so still signed in) and
    wait for the new page's ``heading`` (its ``st.title``) and the end of its run."""
    page.locator(f'[data-testid="stSidebarNav"] a[href$="/{url_path}"]').click()  # "" for the first page
    page.wait_for_url(f"**/{url_path}*")
    if heading is not None:
        page.locator('[data-testid="stMain"] h1').filter(has_text=heading).first.wait_for()
    wait_idle(page)


def choose_option(page, selectbox, index: int = 0, attempts: int = 3) -> None:
    """Open an ``st.selectbox`` and click its ``index``-th option. A rerun that lands while the
    list is open closes it, so the list is opened again (up to ``attempts`` times)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    option = page.locator('[data-testid="stSelectboxVirtualDropdown"] [role="option"]').nth(index)
    for _ in range(attempts):
        wait_idle(page)
        selectbox.click()
        try:
            option.click(timeout=8_000)
            return
        except PlaywrightTimeout:
            page.keyboard.press("Escape")
    raise AssertionError(f"could not choose option {index} of a select box in {attempts} attempts")


_CONTENT_HEIGHT = """() => Math.max(...['stMain', 'stSidebarContent', 'stAppViewContainer']
    .map(id => document.querySelector(`[data-testid="${id}"]`)).filter(Boolean).map(e => e.scrollHeight))"""


def screenshot(page, name: str, *, max_height: int = 6000) -> Path:
    """``test-artifacts/screenshots/<name>.png`` of the whole page. Streamlit scrolls inside its
    main container, not the document, so ``full_page=True`` alone would stop at the viewport: the
    viewport is stretched to the content's height for the shot, then put back."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    size = page.viewport_size
    height = min(max_height, max(size["height"], int(page.evaluate(_CONTENT_HEIGHT))))
    if height > size["height"]:
        page.set_viewport_size({"width": size["width"], "height": height})
        page.wait_for_timeout(300)  # re-layout (charts resize)
    try:
        page.screenshot(path=str(path), full_page=True)
    finally:
        if height > size["height"]:
            page.set_viewport_size(size)
    return path


@contextlib.contextmanager
def screenshot_on_failure(page, name: str) -> Iterator[None]:
    """On an exception inside the block, save ``failure-<name>.png`` (what the browser showed)."""
    try:
        yield
    except BaseException:
        with contextlib.suppress(Exception):
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SCREENSHOTS / f"failure-{name}.png"), full_page=True)
        raise


def scroll_to(page, element, y: float) -> None:
    """Scroll the element's scrolling ancestor so that ``y`` (in the element's own coordinates,
    e.g. a point inside an iframe) lands in the middle of the viewport."""
    element.evaluate("""(el, y) => {
        let p = el.parentElement;
        while (p && !(p.scrollHeight > p.clientHeight + 1 && /(auto|scroll)/.test(getComputedStyle(p).overflowY)))
            p = p.parentElement;
        const target = el.getBoundingClientRect().top + y - window.innerHeight / 2;
        (p || document.scrollingElement).scrollBy(0, target);
    }""", y)
    page.wait_for_function("() => new Promise(r => requestAnimationFrame(() => r(true)))")


# --------------------------------------------------------------------------- the span editor
#
# The editor (dashboard/editor) renders straight into the page (no iframe, no shadow root):
# ``.wb-ed`` holds the toolbar and ``.wb-note``, whose text is the note exactly as stored; each
# span is a ``.wb-s`` element with ``data-i`` (its index, by offsets). Offsets below are the
# browser's (UTF-16 code units), equal to Python's for the demo's ASCII notes.

EDITOR = ".wb-ed"
NOTE = ".wb-ed .wb-note"


def editor_ready(page, doc_id: int | None = None, timeout_ms: int = WAIT_MS) -> None:
    """Wait until the editor shows a note (``doc_id``'s, when given: the page's subheader names
    the document, so the editor's token, which starts with the id, is checked instead)."""
    page.wait_for_function("""(want) => {
        const ed = document.querySelector('.wb-ed');
        const note = ed && ed.querySelector('.wb-note');
        if (!note || !note.textContent.length) return false;
        return want === null || (ed.dataset.token || '').split('.')[0] === String(want);
    }""", arg=doc_id, timeout=timeout_ms, polling=100)


def editor_text(page) -> str:
    """The note as the editor shows it (never print it)."""
    return page.evaluate("() => document.querySelector('.wb-ed .wb-note').textContent")


def editor_hotkeys(page) -> dict[str, str]:
    """``{type: key}`` as the label chips show them."""
    return page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('.wb-ed .wb-chip')]
        .filter(c => c.querySelector('kbd')).map(c => [c.dataset.type, c.querySelector('kbd').textContent]))""")


_RECT = """([a, b]) => {
    const note = document.querySelector('.wb-ed .wb-note');
    const walker = document.createTreeWalker(note, NodeFilter.SHOW_TEXT);
    let seen = 0, n, range = document.createRange(), gotStart = false;
    while ((n = walker.nextNode())) {
        const len = n.textContent.length;
        if (!gotStart && a < seen + len) { range.setStart(n, a - seen); gotStart = true; }
        if (gotStart && b <= seen + len) { range.setEnd(n, b - seen); break; }
        seen += len;
    }
    const rects = [...range.getClientRects()].filter(r => r.width > 0);
    const r = rects[0], last = rects[rects.length - 1];
    return {n: rects.length, left: r.left, right: (rects.length === 1 ? r : r).right, top: r.top, bottom: r.bottom,
            lastRight: last.right, lastTop: last.top, lastBottom: last.bottom};
}"""


def editor_rect(page, start: int, end: int) -> dict:
    """Where ``[start, end)`` of the note is on the screen (its first line box; ``n`` boxes)."""
    return page.evaluate(_RECT, [start, end])


def editor_note_shows(page, rect: dict) -> bool:
    """Whether a rect is below the sticky toolbar (not hidden under it)."""
    bar = page.evaluate("() => document.querySelector('.wb-ed .wb-bar').getBoundingClientRect().bottom")
    return rect["top"] >= bar


def editor_scroll_to(page, start: int) -> None:
    """Scroll the page so that offset ``start`` of the note is in the middle of the window (what
    a person does with the mouse wheel)."""
    page.evaluate("""(a) => {
        const note = document.querySelector('.wb-ed .wb-note');
        const walker = document.createTreeWalker(note, NodeFilter.SHOW_TEXT);
        let seen = 0, n;
        while ((n = walker.nextNode())) {
            if (a < seen + n.textContent.length) break;
            seen += n.textContent.length;
        }
        const r = document.createRange(); r.setStart(n, a - seen); r.setEnd(n, a - seen);
        const y = r.getBoundingClientRect().top;
        let p = note.parentElement;
        while (p && !(p.scrollHeight > p.clientHeight + 1 && /(auto|scroll)/.test(getComputedStyle(p).overflowY)))
            p = p.parentElement;
        (p || document.scrollingElement).scrollBy(0, y - window.innerHeight / 2);
    }""", start)
    page.wait_for_function("() => new Promise(r => requestAnimationFrame(() => r(true)))")


def mouse_select(page, rect: dict) -> None:
    """Drag over a stretch of text from its first to its last character (one gesture)."""
    y0 = (rect["top"] + rect["bottom"]) / 2
    y1 = (rect["lastTop"] + rect["lastBottom"]) / 2
    x0, x1 = rect["left"] + 1, rect["lastRight"] - 1
    page.mouse.move(x0, y0)
    page.mouse.down()
    page.mouse.move((x0 + x1) / 2, (y0 + y1) / 2, steps=2)
    page.mouse.move(x1, y1, steps=2)
    page.mouse.up()


def select_text(page, start: int, end: int) -> None:
    """Bring ``[start, end)`` into view (if it is not) and drag over it."""
    r = editor_rect(page, start, end)
    if not (0 <= r["top"] and r["bottom"] <= page.viewport_size["height"] and editor_note_shows(page, r)):
        editor_scroll_to(page, start)
        r = editor_rect(page, start, end)
    mouse_select(page, r)


def editor_spans(page) -> list[tuple[int, int, str, bool]]:
    """``(start, end, type, open suggestion)`` of the spans the editor shows, read from the DOM."""
    return [tuple(x) for x in page.evaluate("""() => {
        const note = document.querySelector('.wb-ed .wb-note');
        const out = new Map();
        for (const e of note.querySelectorAll('.wb-s')) {
            const r = document.createRange(); r.setStart(note, 0); r.setEndBefore(e);
            const a = r.toString().length, i = e.dataset.i;
            const prev = out.get(i);
            out.set(i, {a: prev ? prev.a : a, b: a + e.textContent.length, type: e.dataset.type,
                        sugg: e.classList.contains('wb-sugg')});
        }
        return [...out.values()].map(v => [v.a, v.b, v.type, v.sugg]);
    }""")]


def editor_status(page) -> str:
    """The editor's status line (messages name spans by their text: never print it)."""
    return page.evaluate("() => document.querySelector('.wb-ed .wb-status').textContent")


def scratch_dir() -> Path:
    return Path(tempfile.mkdtemp(prefix="wb-browser-"))


def remove_dir(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)


# ---------------------------------------------------------------- shared module fixtures
# A browser test module that defines ``project`` takes these with ``server = bh.server`` and
# ``chromium = bh.chromium``: one app server and one browser per module.
@pytest.fixture(scope="module")
def server(project):
    """The app served on the module's ``project`` database."""
    with running_server(project.db_path) as srv:
        yield srv


@pytest.fixture(scope="module")
def chromium():
    """One headless chromium for the module."""
    with browser() as b:
        yield b
