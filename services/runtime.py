"""What a workbench process sets up about itself before it does anything else.

:func:`go_offline` is the one place that writes the offline switch
(:data:`pipeline.offline.OFFLINE_ENV`) into ``os.environ``. It runs first thing in each
process that may load a model: the command line's ``main`` (and so every job worker, which is
the command line's ``run-job``), the Streamlit app, and the benchmark scripts. The pure
``pipeline`` package and ``models`` never write the environment themselves.
"""
from __future__ import annotations

import os

from pipeline.offline import OFFLINE_ENV


def go_offline() -> None:
    """Switch the Hugging Face libraries off the network for this process and its children.

    Forced, not defaulted: an ``HF_HUB_OFFLINE=0`` left in a shell does not turn the network back
    on (every load is ``local_files_only`` anyway). Call it before ``transformers`` or
    ``huggingface_hub`` is imported, since they read the variables on import.
    """
    os.environ.update(OFFLINE_ENV)
