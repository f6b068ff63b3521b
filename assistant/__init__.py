"""assistant: a local, offline assistant over a person's own document folders."""

import os

# numpy's BLAS starts a thread per core for every matrix product, even a question's small
# ones, and those threads spin: with the cores busy (an indexer, another program) embedding
# a question took 158 ms against 66 ms on one thread (27 ms either way on an idle machine).
# The large products have threads of their own (onnxruntime, llama.cpp, torch).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
