# `make test` and `make demo` work on a machine that has only python3: each creates .venv when
# missing and installs the project with its dev extras; a stamp file keeps re-runs fast.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: test typecheck demo lint install clean

$(BIN)/python:
	@echo "creating $(VENV) with $(PYTHON)"
	$(PYTHON) -m venv $(VENV)

# First run: a few minutes; pip's "Collecting ..." lines show where it is.
$(STAMP): $(BIN)/python pyproject.toml
	@echo "installing compact-agent and its dev dependencies into $(VENV) (first run: a few minutes)"
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --progress-bar off -e '.[dev]' | grep -E --line-buffered '^(Collecting|Successfully)' || true
	$(BIN)/python -c "import compact_agent, pytest, hypothesis"  # the grep hides pip's status: check the result
	touch $(STAMP)

install: $(STAMP)

test: $(STAMP) typecheck
	$(BIN)/python -m pytest -q

# The library's types, as a user's checker sees them (configured in pyproject.toml).
typecheck: $(STAMP)
	$(BIN)/mypy
	$(BIN)/pyright
	rm -rf build/docs-programs && $(BIN)/python tests/docs_programs.py build/docs-programs
	$(BIN)/mypy --strict build/docs-programs

demo: $(STAMP)
	$(BIN)/python -m compact_agent.demo

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info
