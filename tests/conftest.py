"""Shared fixtures. Tests never print document text; they compare offsets, labels and counts."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
# Password hashing at the production cost (scrypt n=2**17, ~0.6 s and 128 MiB a hash) would make
# the many accounts the tests create slow; tests, and only tests, lower it (store.passwords.TEST_COST_ENV).
# Subprocesses the tests start (the CLI, the Streamlit server) inherit it.
os.environ["WORKBENCH_TEST_SCRYPT_N"] = str(2 ** 10)

FIXTURES = Path(__file__).parent / "fixtures"
MEDDOCAN_SAMPLE = FIXTURES / "meddocan"
SHARED_MEDDOCAN = Path(__file__).resolve().parents[2] / "shared" / "data" / "meddocan"


@pytest.fixture
def meddocan_sample() -> Path:
    """16 MEDDOCAN dev documents (brat/ and xml/), copied into the repository with attribution."""
    return MEDDOCAN_SAMPLE


@pytest.fixture
def meddocan_full() -> Path:
    """The full corpus beside the checkout (../shared/data/meddocan); skipped where absent."""
    if not (SHARED_MEDDOCAN / "dev").is_dir():
        pytest.skip("full MEDDOCAN corpus not present beside the checkout")
    return SHARED_MEDDOCAN
