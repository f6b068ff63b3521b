"""Keep the Hugging Face stack off the network: the models are on disk already.

Called before sentence-transformers / transformers are imported, because both read
these variables at import time.
"""

import os


def force_offline() -> None:
    for var in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE"):
        os.environ.setdefault(var, "1")
    os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
