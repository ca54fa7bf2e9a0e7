# Two commands matter: `make lab` and `make test`. Everything else is a helper of those.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
NB := $(wildcard notebooks/*.ipynb)

.PHONY: lab test pytest nbval lint dashboard bench binder-check browser-deps clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[lab,test]'
	touch $(STAMP)

lab: $(STAMP)
	$(BIN)/jupyter lab notebooks/00_start_here.ipynb

# System Chromium for the browser test: installed in CI (as root), looked for elsewhere.
browser-deps:
	@if [ -n "$$CI" ] && ! command -v chromium >/dev/null 2>&1; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	fi

test: $(STAMP) browser-deps lint pytest nbval

lint: $(STAMP)
	$(BIN)/ruff check wattgpu_lite tests benchmarks conftest.py
	$(BIN)/ruff format --check wattgpu_lite tests benchmarks conftest.py

pytest: $(STAMP)
	$(BIN)/python -m pytest -q tests

nbval: $(STAMP)
	$(BIN)/python -m pytest -q --nbval --nbval-sanitize-with tests/nbval_sanitize.cfg \
		--nbval-current-env -p no:randomly $(NB)

dashboard: $(STAMP)
	$(BIN)/voila notebooks/dashboard.ipynb

bench: $(STAMP)
	$(BIN)/python benchmarks/run_all.py

clean:
	rm -rf $(VENV)
