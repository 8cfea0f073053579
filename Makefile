# `make test` and `make demo` work on a machine that has only python3: each creates .venv when
# missing and installs the project with its dev extras; a stamp file keeps re-runs fast.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: test typecheck compat compat-deps demo lint install clean

$(BIN)/python:
	@echo "creating $(VENV) with $(PYTHON)"
	$(PYTHON) -m venv $(VENV)

# A venv another checkout installed compact-agent into (`make VENV=../main/.venv ...` from a clone)
# is never installed into: `pip install -e .` would point that checkout's install at this one.
# $(1): the venv. Its python names where its compact-agent was installed from, if anywhere.
define refuse_others_venv
	@$(1)/bin/python -c "import importlib.metadata as m, json, os, sys, urllib.parse as u; \
	  d = next(iter(m.distributions(name='compact-agent')), None); \
	  url = json.loads((d.read_text('direct_url.json') if d else None) or '{}').get('url', ''); \
	  src = u.unquote(u.urlparse(url).path) if url.startswith('file:') else ''; \
	  other = src and os.path.realpath(src) != os.path.realpath(sys.argv[1]); \
	  sys.exit(other and f'not installing into {sys.argv[2]}: its compact-agent is the one in {src}, not this checkout ({sys.argv[1]}); leave VENV unset to use and build this checkout\'s own .venv' or None)" \
	  "$(CURDIR)" "$(1)"
endef

# First run: a few minutes; pip's "Collecting ..." lines show where it is.
$(STAMP): $(BIN)/python pyproject.toml
	$(call refuse_others_venv,$(VENV))
	@echo "installing compact-agent and its dev dependencies into $(VENV) (first run: a few minutes)"
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --progress-bar off -e '.[dev]' | grep -E --line-buffered '^(Collecting|Successfully)' || true
	$(BIN)/python -c "import compact_agent, pytest, hypothesis"  # the grep hides pip's status: check the result
	touch $(STAMP)

install: $(STAMP)

# The tests run side by side, two workers a core: each makes its own temporary folders, servers on
# free ports and CLI homes, so their order and neighbours do not matter. Many of them wait on a
# process they started (the CLI, a terminal): one worker a core left the cores idle a fifth of the
# time (2 cores, measured 2026-12-05: 4m59s with 2 workers, 4m02s with 4, 4m07s with 6).
# `make test WORKERS=N` (or WORKERS in the environment) sets their number.
WORKERS ?= $(shell $(PYTHON) -c "import os; print(2 * (os.cpu_count() or 1))")
# Every worker, the pre-imported process the CLI runs fork from (tests/reliability/zygote.py) and
# every fresh interpreter imports the package and the tests: with PYTHONDONTWRITEBYTECODE set (some
# machines set it for all), each compiled them all again, and pytest rewrote every test module's
# asserts in each worker (13 s a worker against 5.5 s from the cache). The suite writes its caches
# into __pycache__ folders git ignores; on a fresh checkout the process that starts the workers
# writes the test modules' first, split over the cores (tests/rewritten_cache.py: 17-20 s before
# the first test against 28-32 s with each worker rewriting them all, 2 cores).
#
# Their temporary folders (sessions, archives, projects: ~300 MB a run) go on a memory file system
# where the machine has one with room to spare: there the product's fsyncs of every append and
# rewrite return at once (3 ms each on a disk; measured 2026-12-07 on 2 cores: 503 s on disk, 462 s
# with /dev/shm, system time 149 s -> 124 s). `make test TEST_TMPDIR=DIR` picks another, `=` none.
TEST_TMPDIR ?= $(shell $(PYTHON) -c "import os, shutil; d = '/dev/shm'; \
  print(d if os.path.isdir(d) and os.access(d, os.W_OK | os.X_OK) and shutil.disk_usage(d).free >= 4 << 30 else '')")
#
# The type checks run beside the tests (their output is shown after the tests'): alone, each
# checker leaves a core idle part of the time (mypy takes 47 s on one core, pyright 39 s), and the
# tests' start-up does too. The target fails if either does. They run in a process group of their
# own, which an interrupt (Ctrl-C reaches the tests) ends with them: a shell's background job
# ignores it, and the checkers went on for a minute after `make test` had stopped.
TYPECHECK_LOG := build/typecheck.log
test: $(STAMP) lint
	@mkdir -p build && $(BIN)/python -c "import os, sys; os.setpgrp(); os.execvp('sh', ['sh', '-c', sys.argv[1]])" \
	  '$(TYPECHECK)' >$(TYPECHECK_LOG) 2>&1 & typecheck=$$!; \
	  trap 'kill -TERM -$$typecheck 2>/dev/null; exit 130' INT TERM; \
	  env -u PYTHONDONTWRITEBYTECODE $(if $(TEST_TMPDIR),TMPDIR=$(TEST_TMPDIR)) $(BIN)/python -m pytest -q -n $(WORKERS); \
	  tests=$$?; wait $$typecheck; typecheck=$$?; \
	  echo "make typecheck:"; cat $(TYPECHECK_LOG); \
	  test $$tests -eq 0 && test $$typecheck -eq 0

# The whole package's types under mypy --strict and pyright (configured in pyproject.toml), then the
# docs' example programs as a library user's checker sees them. Each checker uses one core: pyright
# runs beside mypy, and the target fails if either does.
TYPECHECK = rm -rf build/docs-programs && $(BIN)/python tests/docs_programs.py build/docs-programs && \
  { $(BIN)/pyright & pyright=$$!; $(BIN)/mypy && $(BIN)/mypy --strict build/docs-programs; mypy=$$?; \
    wait $$pyright; pyright=$$?; test $$mypy -eq 0 && test $$pyright -eq 0; }
typecheck: $(STAMP)
	$(TYPECHECK)

# The library beside pydantic-ai-harness, with the pydantic-ai-slim it pins (2.62, the library's
# floor), in a second venv: the library's contract tests there (~30 s the first time). The project
# is not installed into it: the tests import this checkout's src (pyproject's `pythonpath`, and
# PYTHONPATH for the programs they start), so both venvs can be made at once (.ci/run does, while the
# main install runs: each install leaves one core idle part of the time).
COMPAT := .venv-compat
HARNESS ?= 0.62.0
$(COMPAT)/.deps: pyproject.toml
	rm -rf $(COMPAT) && $(PYTHON) -m venv $(COMPAT)
	$(COMPAT)/bin/python -m pip install --quiet --progress-bar off "pydantic-ai-harness==$(HARNESS)" pytest pytest-asyncio hypothesis
	touch $@

compat-deps: $(COMPAT)/.deps

compat: $(COMPAT)/.deps
	$(COMPAT)/bin/python -c "from importlib.metadata import version as v; print('pydantic-ai-slim', v('pydantic-ai-slim'), '+ pydantic-ai-harness', v('pydantic-ai-harness'))"
	PYTHONPATH=$(CURDIR)/src $(COMPAT)/bin/python -m pytest -q -p no:cacheprovider tests/context/test_versions.py \
	  tests/context/test_contract.py tests/context/test_library.py tests/context/test_run_stream_events.py

demo: $(STAMP)
	$(BIN)/python -m compact_agent.demo

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks

clean:
	rm -rf $(VENV) $(COMPAT) build *.egg-info src/*.egg-info
