"""The environment that keeps Hugging Face libraries off the network, as a constant.

Every model the workbench loads is a local folder (``local_files_only=True`` at each load);
these variables are the second lock, read by ``huggingface_hub`` and ``transformers`` when they
are imported. They are set once per process, at its start, and never from here: this package
is pure and writes no environment. Who applies them:

* the command line (``cli.main``) and the app (``streamlit_app.py``) call
  ``services.runtime.go_offline()`` first thing;
* a job's worker is the command line's ``run-job``, started by ``services.jobs`` with these
  variables in its environment as well;
* a Ray worker gets them in its runtime environment (:func:`pipeline.engines.ray_engine.runtime_env`).

>>> dict(OFFLINE_ENV)
{'HF_HUB_OFFLINE': '1', 'TRANSFORMERS_OFFLINE': '1'}
"""
from __future__ import annotations

from types import MappingProxyType
from typing import Mapping

#: read-only, so no caller can change what "offline" means for everyone else
OFFLINE_ENV: Mapping[str, str] = MappingProxyType({"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"})
