"""The served app's Streamlit configuration (``.streamlit/config.toml``), read by Streamlit itself.

An uncaught error in a page must not show its message or traceback to the user: both can quote
document text (a value in an exception message, a local in a frame). Streamlit's legacy
``showErrorDetails = false`` does not do that: it means "stacktrace" (the trace without the
message), which is what a user saw after a failed sign-in."""
from __future__ import annotations

from pathlib import Path

import pytest
from streamlit import config
from streamlit.elements import exception as st_exception

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def repo_config(monkeypatch):
    """Streamlit's options parsed from the repository's config file, as ``streamlit run`` from the
    repository root reads them; restored afterwards."""
    monkeypatch.chdir(REPO)
    config.get_config_options(force_reparse=True)
    yield config
    monkeypatch.undo()
    config.get_config_options(force_reparse=True)


def test_an_uncaught_error_shows_no_message_type_or_traceback(repo_config):
    assert repo_config.get_option("client.showErrorDetails") == "none"
    seen = st_exception._error_detail_visibility(apply_show_error_details=True)
    assert (seen.show_message, seen.show_trace, seen.show_type) == (False, False, False)


def test_the_legacy_false_value_would_still_show_the_trace(repo_config):
    """Why the file says "none": pins Streamlit's reading of ``false`` so an upgrade that changes
    it is noticed here."""
    repo_config.set_option("client.showErrorDetails", False)
    assert st_exception._error_detail_visibility(apply_show_error_details=True).show_trace


def test_the_server_listens_on_this_machine_only(repo_config):
    assert repo_config.get_option("server.address") == "127.0.0.1"
    assert repo_config.get_option("browser.gatherUsageStats") is False
