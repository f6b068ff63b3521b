"""assistant: a local, offline assistant over a person's own document folders."""

import os

# numpy's BLAS starts a thread per core for every matrix product, even a question's small
# ones, and those threads spin: with the cores busy (an indexer, another program) embedding
# a question took 158 ms against 66 ms on one thread (27 ms either way on an idle machine).
# The large products have threads of their own (onnxruntime, llama.cpp, torch).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

# Offline, for every entry point (CLI, TUI, watcher, reader processes, eval): each library's
# own switch, set before any of them is imported (importing any part of this package runs
# this first). onnxruntime's native telemetry thread otherwise looks up
# mobile.events.data.microsoft.com a few seconds after import and keeps a device id and an
# event queue under ~/.cache/Microsoft; Python-level socket hooks never see it.
OFFLINE_ENVIRONMENT = {
    "ORT_DISABLE_TELEMETRY": "1",
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "DO_NOT_TRACK": "1",
    "TOKENIZERS_PARALLELISM": "false",
}
os.environ.update(OFFLINE_ENVIRONMENT)
# torch makes a cache folder in /tmp when the encoder is first exported; it belongs with
# the models, not left behind in the system's temporary folder.
os.environ.setdefault(
    "TORCHINDUCTOR_CACHE_DIR",
    os.path.join(__import__("platformdirs").user_data_dir("assistant"), "models", "torch-cache"),
)
